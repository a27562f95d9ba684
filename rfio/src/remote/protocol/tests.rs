use super::frame::decode_all;
use super::stats::{ClatPrio, PLAT_NR, SS_DATA};
use super::*;
use proptest::prelude::*;

const LIMIT: usize = 1 << 20;

#[test]
fn crc16_is_fios() {
    // CRC-16/ARC's check value, and a STOP frame as fio 3.33 sends it.
    assert_eq!(crc16(b"123456789"), 0xbb3d);
    let stop = Stop {
        error: 0,
        signal: 0,
    };
    let mut want = vec![
        97, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 117, 74,
    ];
    want.extend([0; 10]);
    assert_eq!(encode(Op::Stop, 0, &stop.encode()), want);
}

#[test]
fn fragments_and_reassembles() {
    let pdu: Vec<u8> = (0..3000u32).map(|i| (i % 251) as u8).collect();
    let bytes = encode(Op::Job, 7, &pdu);
    assert_eq!(bytes.len(), 3 * HEADER_LEN + 3000);
    let first = Header::decode(&bytes[..HEADER_LEN]).unwrap();
    assert_eq!((first.pdu_len, first.flags), (1024, FLAG_MORE));
    let last = Header::decode(&bytes[2 * (HEADER_LEN + 1024)..][..HEADER_LEN]).unwrap();
    assert_eq!((last.pdu_len, last.flags), (952, 0));
    // Fed one byte at a time, the command comes out once, whole.
    let mut d = Decoder::new(LIMIT);
    let mut got = Vec::new();
    for b in &bytes {
        d.push(std::slice::from_ref(b));
        while let Some(c) = d.next_command().unwrap() {
            got.push(c);
        }
    }
    assert_eq!(
        got,
        vec![Command {
            opcode: 3,
            tag: 7,
            payload: pdu
        }]
    );
    assert!(!d.has_partial());
    // An empty payload is one bare header.
    let q = decode_all(&encode(Op::Quit, 0, &[]), LIMIT).unwrap();
    assert_eq!((q[0].op(), q[0].payload.len()), (Some(Op::Quit), 0));
}

fn corrupt(mut bytes: Vec<u8>, at: usize) -> Vec<u8> {
    bytes[at] ^= 0x40;
    bytes
}

#[test]
fn hostile_frames_are_errors() {
    let good = encode(Op::Text, 0, b"hello");
    assert!(matches!(
        decode_all(&corrupt(good.clone(), 3), LIMIT),
        Err(ProtoError::HeaderCrc { .. })
    ));
    assert!(matches!(
        decode_all(&corrupt(good.clone(), HEADER_LEN + 1), LIMIT),
        Err(ProtoError::PayloadCrc { .. })
    ));
    assert!(matches!(
        decode_all(&good[..good.len() - 1], LIMIT),
        Err(ProtoError::Truncated { .. })
    ));
    // A header whose CRC is right but whose fields are not.
    let reheader = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = good.clone();
        f(&mut b);
        let c = crc16(&b[..20]);
        b[20..22].copy_from_slice(&c.to_le_bytes());
        decode_all(&b, LIMIT)
    };
    assert_eq!(reheader(&|b| b[0] = 96), Err(ProtoError::Version(96)));
    assert_eq!(
        reheader(&|b| b[16..20].copy_from_slice(&5000u32.to_le_bytes())),
        Err(ProtoError::FragmentTooLarge(5000))
    );
    // A length past the bytes sent: waits for more, then is truncated.
    assert!(matches!(
        reheader(&|b| b[16..20].copy_from_slice(&900u32.to_le_bytes())),
        Err(ProtoError::Truncated { .. })
    ));
    // Fragments of two opcodes.
    let mut two = encode(Op::Job, 0, &[1; 2000]);
    two.truncate(HEADER_LEN + 1024);
    two.extend(encode(Op::Text, 0, b"x"));
    assert!(matches!(
        decode_all(&two, LIMIT),
        Err(ProtoError::OpcodeMismatch { first: 3, got: 5 })
    ));
    // A command growing past the decoder's limit.
    assert!(matches!(
        decode_all(&encode(Op::Job, 0, &[0; 5000]), 4096),
        Err(ProtoError::TooLarge(_))
    ));
}

#[test]
fn small_payloads_round_trip() {
    let p = Probe {
        flags: PROBE_FLAG_ZLIB,
        server: "127.0.0.1".into(),
    };
    assert_eq!(p.encode().len(), 136);
    assert_eq!(Probe::decode(&p.encode()).unwrap(), p);
    let r = ProbeReply {
        hostname: "vm".into(),
        bigendian: 0,
        fio_version: "fio-3.33".into(),
        os: 1,
        arch: 1,
        bpp: 8,
        cpus: 2,
        flags: 1,
    };
    let b = r.encode();
    assert_eq!(b.len(), PROBE_REPLY_LEN);
    assert_eq!((b[97], b[98], b[99], b[100], b[104]), (1, 1, 8, 2, 1));
    assert_eq!(ProbeReply::decode(&b).unwrap(), r);
    let j = JobFile {
        client_type: CLIENT_TYPE_CLI,
        text: "[a]\nrw=read\n".into(),
    };
    assert_eq!(JobFile::decode(&j.encode()).unwrap(), j);
    // fio's client pads the text with NULs and counts them in buf_len.
    let mut padded = j.encode();
    padded[..4].copy_from_slice(&(j.text.len() as u32 + 10).to_le_bytes());
    padded.extend([0; 10]);
    assert_eq!(JobFile::decode(&padded).unwrap(), j);
    let l = JobLine {
        client_type: 1,
        args: vec!["fio".into(), "--output-format=json".into()],
    };
    assert_eq!(JobLine::decode(&l.encode()).unwrap(), l);
    let t = Text {
        level: LOG_INFO,
        log_sec: 5,
        log_usec: 6,
        text: "Starting 1 process\n".into(),
    };
    assert_eq!(t.encode().len(), 24 + 19);
    assert_eq!(Text::decode(&t.encode()).unwrap(), t);
    let s = Start {
        jobs: 1,
        stat_outputs: 1,
    };
    assert_eq!(Start::decode(&s.encode()).unwrap(), s);
    let o = JobOption {
        global: false,
        truncated: false,
        groupid: 0,
        name: "ioengine".into(),
        value: "null".into(),
    };
    assert_eq!(o.encode().len(), JOB_OPTION_LEN);
    assert_eq!(JobOption::decode(&o.encode()).unwrap(), o);
    let a = AddJob {
        thread_number: 1,
        groupid: 0,
    };
    assert_eq!(a.encode().len(), ADD_JOB_LEN);
    assert_eq!(AddJob::decode(&a.encode()).unwrap(), a);
    let f = LoadFile {
        client_type: 1,
        path: "/tmp/x.fio".into(),
    };
    assert_eq!(LoadFile::decode(&f.encode()).unwrap(), f);
    let e = JobsEta {
        nr_running: 1,
        rate: [1, 2, 3],
        iops: [4, 5, 6],
        elapsed_sec: 9,
        nr_threads: 1,
        run_str: "R".into(),
        ..Default::default()
    };
    assert_eq!(e.encode().len(), 170);
    assert_eq!(JobsEta::decode(&e.encode()).unwrap(), e);
    let du = DiskUtil {
        name: "sda".into(),
        ios: [10, 20],
        merges: [1, 2],
        ticks: [3, 4],
        io_ticks: 55,
        time_in_queue: 7,
        msec: 100,
        slavecount: 1,
        max_util: 55.0,
        ..Default::default()
    };
    let b = du.encode();
    assert_eq!(b.len(), DU_LEN);
    // ios at 64, msec at 144, slavecount at 232, max_util at 240.
    assert_eq!((b[64], b[144], b[232], b[240 + 6]), (10, 100, 1, 0x4b));
    assert_eq!(DiskUtil::decode(&b).unwrap(), du);
    let g = GroupRunStats {
        max_run: [1001, 0, 0],
        kb_base: 1024,
        unit_base: 4,
        sig_figs: 4,
        ..Default::default()
    };
    assert_eq!(g.encode().len(), 164);
    assert_eq!(GroupRunStats::decode(&g.encode()).unwrap(), g);
}

#[test]
fn short_payloads_are_errors() {
    assert!(Probe::decode(&[0; 100]).is_err());
    assert!(ProbeReply::decode(&[0; 111]).is_err());
    assert!(Text::decode(&[5, 0, 0, 0, 255, 0, 0, 0]).is_err());
    let mut j = JobFile {
        client_type: 1,
        text: "abc".into(),
    }
    .encode();
    j[0] = 200;
    assert!(JobFile::decode(&j).is_err());
    assert!(JobLine::decode(&[3, 0, 1, 0, 9, 0, b'a']).is_err());
    assert!(GroupRunStats::decode(&[0; 163]).is_err());
    assert!(JobsEta::decode(&[0; 100]).is_err());
    assert!(DiskUtil::decode(&[0; DU_LEN - 1]).is_err());
    assert!(ThreadStat::decode(&[0; TS_PDU_LEN - 1]).is_err());
}

/// Offsets of fields in a TS payload, as a real fio 3.33 server's TS had
/// them (checked against one captured from `fio --server`).
#[test]
fn ts_layout_is_fios() {
    let mut t = ThreadStat {
        name: "cs".into(),
        members: 1,
        io_bytes: [14119337984, 0, 0],
        runtime: [1001, 0, 0],
        total_run_time: 1000,
        sig_figs: 4,
        kb_base: 1024,
        unit_base: 4,
        ctx: 165,
        total_io_u: [3447104, 0, 0, 0],
        latency_percentile: 100.0,
        cachemiss: 77,
        ..Default::default()
    };
    t.clat[0].samples = 3447104;
    t.percentile_list[0] = 1.0;
    t.percentile_precision = 2;
    t.rs.max_run[0] = 1001;
    t.rs.kb_base = 1024;
    let b = t.encode();
    assert_eq!(b.len(), TS_PDU_LEN);
    let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
    let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    assert_eq!(&b[..3], b"cs\0");
    assert_eq!(u32_at(528), 1);
    assert_eq!(u64_at(616), 3447104);
    assert_eq!(u64_at(1456), 165);
    assert_eq!(u64_at(1496), 2);
    assert_eq!(f64::from_bits(u64_at(1504)), 1.0);
    assert_eq!(u64_at(150728), 3447104);
    assert_eq!(u64_at(150824), 14119337984);
    assert_eq!(u64_at(150848), 1001);
    assert_eq!(u64_at(150872), 1000);
    assert_eq!((u32_at(183680), u32_at(183684)), (1024, 4));
    assert_eq!(f64::from_bits(u64_at(183704)), 100.0);
    assert_eq!(u32_at(183728), 4);
    assert_eq!(u64_at(183876), 77);
    assert_eq!(u64_at(183888), 1001);
    assert_eq!(u32_at(183888 + 144), 1024);
    assert_eq!(ThreadStat::decode(&b).unwrap(), t);
}

#[test]
fn ts_trailing_data_round_trips() {
    let mut t = ThreadStat {
        ss_state: SS_DATA | 1,
        ss_dur: 3,
        ss_iops: vec![1, 2, 3],
        ss_bw: vec![4, 5, 6],
        block_infos: vec![7, 8],
        ..Default::default()
    };
    t.plat_mut(1, 0)[5] = 9;
    t.clat_prio[1].push(ClatPrio {
        plat: vec![1; PLAT_NR],
        clat: IoStat {
            samples: 3,
            mean: 2.5,
            ..Default::default()
        },
        ioprio: 4,
    });
    let b = t.encode();
    assert_eq!(b.len(), TS_PDU_LEN + PLAT_NR * 8 + 64 + 48);
    assert_eq!(ThreadStat::decode(&b).unwrap(), t);
    // Offsets pointing outside the payload, or into its fixed part.
    let ss_iops_at = 183816;
    for bad in [u64::MAX - 4, b.len() as u64, 100] {
        let mut c = b.clone();
        c[ss_iops_at..ss_iops_at + 8].copy_from_slice(&bad.to_le_bytes());
        assert!(matches!(
            ThreadStat::decode(&c),
            Err(ProtoError::BadField { .. })
        ));
    }
    let mut c = b.clone();
    c[150904..150912].copy_from_slice(&9000u64.to_le_bytes());
    assert!(ThreadStat::decode(&c).is_err());
    // A ring claiming more entries than the payload holds.
    let mut c = b.clone();
    c[183732..183740].copy_from_slice(&(u64::MAX / 4).to_le_bytes());
    assert!(ThreadStat::decode(&c).is_err());
}

#[test]
fn inflate_is_bounded() {
    let data = vec![0u8; 8 << 20];
    let z = deflate(&data);
    assert!(z.len() < 64 << 10);
    assert_eq!(inflate(&z, 8 << 20).unwrap().len(), 8 << 20);
    assert!(matches!(inflate(&z, 1 << 20), Err(ProtoError::Inflate(_))));
    assert!(inflate(b"not zlib at all", LIMIT).is_err());
    assert!(inflate(&z[..z.len() / 2], 16 << 20).is_err());
    let h = IoLogHeader {
        nr_samples: 2,
        thread_number: 1,
        log_type: 0,
        compressed: 1,
        log_offset: 0,
        log_prio: 0,
        log_hist_coarseness: 0,
        name: "bw.log".into(),
    };
    let mut b = h.encode();
    b.extend(&z[..10]);
    let (got, rest) = IoLogHeader::decode(&b).unwrap();
    assert_eq!((got, rest.len()), (h, 10));
}

proptest! {
    #[test]
    fn decoders_never_panic(data in proptest::collection::vec(any::<u8>(), 0..600)) {
        decode_everything(&data);
        // The same bytes as a framed payload of each opcode.
        for op in 1..=22u16 {
            let f = encode(Op::from_u16(op).unwrap(), 0, &data);
            prop_assert_eq!(decode_all(&f, LIMIT).unwrap()[0].payload.clone(), data.clone());
        }
    }

    #[test]
    fn ts_decoder_never_panics(
        edits in proptest::collection::vec((0usize..TS_PDU_LEN + 64, any::<u8>()), 0..40),
        extra in 0usize..64,
    ) {
        let t = ThreadStat { ss_state: SS_DATA, ss_dur: 2, ss_iops: vec![1, 2], ss_bw: vec![3, 4],
            ..Default::default() };
        let mut b = t.encode();
        b.truncate(b.len() - extra.min(b.len() - TS_PDU_LEN));
        for (at, v) in edits {
            if at < b.len() {
                b[at] = v;
            }
        }
        let _ = ThreadStat::decode(&b);
    }
}
