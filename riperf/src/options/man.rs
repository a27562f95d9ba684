//! `man/riperf.1`, generated from the option table so the two cannot drift
//! (a test compares the file with this output; `RIPERF_WRITE_MAN=1 cargo
//! test -p riperf man_page` rewrites it).

use super::table::{Section, DEFS};

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('-', "\\-")
}

/// Worked examples: each starts a one-test server on loopback, so a test can
/// run them exactly as printed.
const EXAMPLES: [(&str, &str); 4] = [
    (
        "A server, then a 10-second TCP test against it from another host:",
        "riperf -s\nriperf -c server.example -t 10",
    ),
    (
        "The received rate in bit/s, from JSON with jq:",
        "riperf -s -1 -p 5299 >/dev/null & sleep 1\nriperf -c 127.0.0.1 -p 5299 -t 2 -J | jq '.end.sum_received.bits_per_second'",
    ),
    (
        "The same from CSV with awk (a row per stream per interval, then summary rows):",
        "riperf -s -1 -p 5298 >/dev/null & sleep 1\nriperf -c 127.0.0.1 -p 5298 -t 2 --output-format=csv |\n  awk -F, '$1 == \"summary\" && $3 == \"receiver\" { print $7 }'",
    ),
    (
        "The receiver line of the text report, as scripts written for iperf3 read it:",
        "riperf -s -1 -p 5297 >/dev/null & sleep 1\nriperf -c 127.0.0.1 -p 5297 -t 2 | grep receiver | awk '{ print $7, $8 }'",
    ),
];

pub fn man_page() -> String {
    let mut m = String::new();
    m.push_str(".TH RIPERF 1 \"\" \"riperf 0.1.0 (iperf 3.12 compatible)\" \"User Commands\"\n");
    m.push_str(".SH NAME\nriperf \\- network throughput test, a wire\\-compatible drop\\-in replacement for iperf3 3.12\n");
    m.push_str(".SH SYNOPSIS\n.B riperf\n\\fB\\-s\\fR [\\fIoptions\\fR]\n.br\n.B riperf\n\\fB\\-c\\fR \\fIhost\\fR [\\fIoptions\\fR]\n");
    m.push_str(".SH DESCRIPTION\n");
    m.push_str(&esc("riperf measures TCP and UDP throughput between a client and a server, speaking iperf3's control protocol byte for byte: a riperf client runs tests against an iperf3 3.12 server and an iperf3 client runs tests against a riperf server, with the same numbers on both sides. Its text output has iperf3 3.12's layout line for line, its -J output the same keys, key order and number types, and its exit status follows 3.12 (0 after a -J error, 1 otherwise)."));
    m.push_str("\n.PP\n");
    m.push_str(&esc("Unlike iperf3 3.12, riperf runs one thread per data stream (pinned with -A; plain TCP senders beyond one per CPU share a thread per CPU), batches UDP datagrams with sendmmsg/recvmmsg, and bounds every control-connection read: the parameter JSON is capped at 8 KiB, results at 16 MiB, each control step at 10 seconds, and a client that connects while a test runs is answered ACCESS_DENIED at once. The default cap of 128 parallel streams is kept for compatibility. Messages keep iperf3's wording, including the \"iperf3:\" prefix, so scripts that parse them keep working."));
    m.push_str("\n.SH OPTIONS\n");
    for (section, title) in [
        (Section::Both, "Client or server"),
        (Section::Server, "Server"),
        (Section::Client, "Client"),
    ] {
        m.push_str(&format!(".SS {title}\n"));
        for d in DEFS.iter().filter(|d| d.section == section) {
            let Some(first) = d.help.first() else {
                continue;
            };
            // The synopsis column ends at the first blank from column 26 on.
            let cut = first
                .char_indices()
                .find(|&(i, c)| i >= 26 && c == ' ')
                .map_or(first.len(), |(i, _)| i);
            let tag = first[..cut].trim();
            let mut text = vec![first[cut..].trim().to_string()];
            text.extend(d.help[1..].iter().map(|l| l.trim().to_string()));
            m.push_str(&format!(".TP\n\\fB{}\\fR\n", esc(tag)));
            m.push_str(&esc(&text.join(" ")));
            m.push('\n');
        }
    }
    m.push_str(".SH UNITS\n");
    m.push_str(&esc("Sizes (-n, -k, -l, -w, --pacing-timer) take k, m, g or t suffixes that scale by 1024; rates (-b, --fq-rate) scale by 1000, so -n 100M is 104857600 bytes and -b 100M is 100000000 bit/s. -b accepts /N for bursts of N blocks. UDP tests default to 1048576 bit/s per stream."));
    m.push_str("\n.SH EXIT STATUS\n");
    m.push_str(&esc("0 after a completed test (and, as iperf3 3.12, after an error reported in -J output); 1 after a parameter error, a connection error, a busy server or an interrupt."));
    m.push_str("\n.SH NOT SUPPORTED\n");
    m.push_str(&esc("SCTP streams: --sctp goes to the server as iperf3 3.12 sends it and fails there as 3.12 does on a kernel without SCTP; -X, --nstreams and authentication (--username, --rsa-*) are refused with an error. -F works with TCP only."));
    m.push_str("\n.SH EXTENSIONS\n");
    m.push_str(&esc("--json-stream prints one JSON event per line (as iperf3 3.17). --output-format=text|json|csv selects the report like the other rbench tools; csv has a header row, a row per stream per interval and summary rows. --max-parallel N lifts the 128-stream cap on both sides. -A n pins stream i to the i-th allowed CPU from n. With -n, a riperf client waits until its data is acknowledged before ending the test and a riperf server counts what is still buffered, so both sides report the bytes actually sent. A riperf server that only sends in a timed test (-R) stops its senders 100 ms past -t when the client's TEST_END has not come in yet, and its report ends there; iperf3 3.12 sends until TEST_END."));
    m.push_str("\n.SH EXAMPLES\n");
    for (what, cmd) in EXAMPLES {
        m.push_str(&format!(
            ".PP\n{}\n.PP\n.RS 4\n.nf\n{}\n.fi\n.RE\n",
            esc(what),
            esc(cmd)
        ));
    }
    m.push_str(".SH SEE ALSO\n.BR iperf3 (1)\n");
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn man_page_is_generated_from_the_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../man/riperf.1");
        let want = man_page();
        if std::env::var("RIPERF_WRITE_MAN").as_deref() == Ok("1") {
            std::fs::write(path, &want).unwrap();
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert_eq!(
            have, want,
            "man/riperf.1 is stale: RIPERF_WRITE_MAN=1 cargo test -p riperf man_page"
        );
        for d in DEFS.iter().filter(|d| d.section != Section::Hidden) {
            assert!(
                want.contains(&format!("\\-\\-{}", esc(d.long))),
                "{}",
                d.long
            );
        }
    }
}
