//! rmbw's getopt command line: NUL-separated arguments (the first byte
//! chooses POSIXLY_CORRECT) give an action or an error line, never a panic,
//! and a run they ask for is one rmbw can set up.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rmbw::options::{parse, Action};

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let args: Vec<String> = rest
        .split(|b| *b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let parsed = parse("rmbw", &args, first & 1 == 1);
    match parsed.action {
        Ok(Action::Run(c)) => {
            assert!(
                c.runs >= 1 && c.size_mib >= 1 && c.block >= 1,
                "{args:?}: {c:?}"
            );
            assert!(
                c.block <= c.size_mib.saturating_mul(1 << 20),
                "{args:?}: {c:?}"
            );
            assert!(!c.methods.is_empty() && c.threads >= 1, "{args:?}: {c:?}");
        }
        Err(msg) => assert!(!msg.is_empty(), "{args:?}"),
        Ok(_) => {}
    }
});
