//! The verifier on blocks in memory: seal as a write does, check as the
//! verify phase does.

use super::*;
use crate::verify::pattern::Pattern;
use proptest::prelude::*;

fn spec(kind: Kind, interval: usize, offset: usize, pattern: Option<&str>) -> Spec {
    Spec {
        kind,
        interval,
        offset,
        pattern: pattern.map(|p| Pattern::parse(p, true).unwrap()),
        do_verify: true,
        only: false,
        backlog: 0,
        backlog_batch: 0,
        fatal: false,
        dump: false,
        check_numberio: true,
    }
}

fn verifier<'a>(spec: &'a Spec, paths: &'a [PathBuf]) -> Verifier<'a> {
    let mut quiet = Filler::from_content(Content::default());
    Verifier {
        spec,
        thread: 1,
        paths,
        fds: &[],
        unit_writes: vec![(0, 0, 0); 1],
        writes: 0,
        history: Vec::new(),
        checked: 0,
        check_reads: false,
        overlaps: false,
        job_writes: true,
        scratch: Buffers::new(1, 4096, &mut quiet).unwrap(),
        scratch_len: 4096,
        content: Content::default(),
        check_seed: true,
        continue_verify: false,
        spent_ns: 0,
        backlog_reads: None,
        fake: false,
        loops: 1,
        trim: None,
        tally: Default::default(),
    }
}

/// Seal a block as a write would, then check it as the verify phase does.
fn sealed(v: &mut Verifier<'_>, len: usize, offset: u64) -> (Vec<u8>, Expect) {
    let mut buf = vec![0u8; len];
    let mut io = IoUnit::new(buf.as_mut_ptr());
    io.kind = IoKind::Write;
    io.len = len;
    io.offset = offset;
    let mut fill = Filler::from_content(Content::default());
    v.seal(0, &io, &mut fill);
    let (seed, numberio, seq) = v.unit_writes[0];
    let w = Written {
        offset,
        seed,
        file: 0,
        len: len as u32,
        numberio,
        trimmed: super::trim::Trimmed::No,
        seq,
    };
    (buf, v.expect_of(&w))
}

const KINDS: &[Kind] = &[
    Kind::Md5,
    Kind::Crc64,
    Kind::Crc16,
    Kind::Crc7,
    Kind::Sha3_224,
    Kind::Sha3_512,
    Kind::Crc32,
    Kind::Crc32c,
    Kind::Sha1,
    Kind::Sha256,
    Kind::Xxhash,
];

#[test]
fn messages_name_the_block_like_fio() {
    let s = spec(Kind::Md5, 4096, 0, None);
    let paths = [PathBuf::from("data")];
    let mut v = verifier(&s, &paths);
    let (mut buf, e) = sealed(&mut v, 8192, 65536);
    buf[5000] ^= 1;
    let m = v.check(&mut buf, 0, 65536, e).unwrap_err();
    assert!(m.report.starts_with(
        "md5: verify failed at file data offset 69632, length 4096 (requested block: offset=65536, length=8192, flags=88)\n       Expected CRC: "
    ), "{}", m.report);
    let (mut buf, e) = sealed(&mut v, 8192, 65536);
    let m = v.check(&mut buf, 0, 4096, e).unwrap_err();
    assert!(m.report.starts_with("verify: bad header offset 65536, wanted 4096 at file data offset 4096, length 4096 (requested block: offset=4096, length=8192)"), "{}", m.report);
    let mut zeros = vec![0u8; 4096];
    let m = v.check(&mut zeros, 0, 0, e).unwrap_err();
    assert!(
        m.report
            .starts_with("verify: bad magic header 0, wanted acca"),
        "{}",
        m.report
    );
}

#[test]
fn pattern_failures_give_the_byte() {
    let s = spec(Kind::PatternNoHdr, 4096, 0, Some("0xdeadbeef"));
    let paths = [PathBuf::from("data")];
    let mut v = verifier(&s, &paths);
    let (mut buf, e) = sealed(&mut v, 4096, 0);
    assert_eq!(&buf[..4], &[0xde, 0xad, 0xbe, 0xef]);
    buf[10] = 0xbf;
    let m = v.check(&mut buf, 0, 0, e).unwrap_err();
    assert!(m.report.starts_with("fio: got pattern 'bf', wanted 'be'. Bad bits 1\nfio: bad pattern block offset 10\npattern: verify failed at file data offset 0"), "{}", m.report);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// Any sealed block checks clean; any single flipped byte is caught
    /// (for every checksum type, interval and header offset).
    #[test]
    fn every_flip_is_caught(
        k in 0..KINDS.len(),
        blocks in 1usize..4,
        per in prop::sample::select(vec![512usize, 1024, 4096]),
        swap in any::<bool>(),
        flip in any::<prop::sample::Index>(),
        offset in 0u64..1000,
    ) {
        let kind = KINDS[k];
        let voff = if swap { 256 } else { 0 };
        let s = spec(kind, per, voff, None);
        let paths = [PathBuf::from("f")];
        let mut v = verifier(&s, &paths);
        let len = per * blocks;
        let at = offset * 512;
        let (buf, e) = sealed(&mut v, len, at);
        let mut clean = buf.clone();
        prop_assert!(v.check(&mut clean, 0, at, e).is_ok());
        let mut bad = buf;
        let i = flip.index(len);
        bad[i] ^= 0x5a;
        prop_assert!(v.check(&mut bad, 0, at, e).is_err());
    }
}

/// Writes that complete out of issue order (depth > 1) still give their
/// seeds in issue order, the order fio draws them again, also where the
/// sequence numbers wrap.
#[test]
fn seeds_come_back_in_issue_order() {
    let w = |seq: u32, seed: u64| Written {
        offset: seed * 4096,
        seed,
        file: 0,
        len: 4096,
        numberio: seq as u16,
        trimmed: super::trim::Trimmed::No,
        seq,
    };
    // Completed 2, 0, 1, 3.
    let list = [w(2, 12), w(0, 10), w(1, 11), w(3, 13)];
    assert_eq!(super::issue_order_seeds(&list), vec![10, 11, 12, 13]);
    let list = [w(u32::MAX, 1), w(1, 3), w(0, 2), w(u32::MAX - 1, 0)];
    assert_eq!(super::issue_order_seeds(&list), vec![0, 1, 2, 3]);
    // The sequence fits in the record's padding.
    assert_eq!(std::mem::size_of::<Written>(), 32);
}
