//! `man/rfio.1`, generated from the option table so the two cannot drift
//! apart; a unit test keeps the file in step (`RFIO_WRITE_MAN=1` rewrites it).

use crate::options::help::man_options;

/// Worked examples; the pipelines run as printed in the packaging test.
const EXAMPLES: [(&str, &str); 4] = [
    (
        "fio's classic: 4 KiB random reads with io_uring, direct, queue depth 32, 30 seconds:",
        "rfio --name=rr --filename=/tmp/rfio.dat --size=1g --rw=randread --bs=4k \\\n  --ioengine=io_uring --direct=1 --iodepth=32 --time_based --runtime=30",
    ),
    (
        "The read IOPS from JSON with jq:",
        "rfio --name=t --directory=/tmp --size=16m --unlink=1 --rw=randread --bs=4k \\\n  --output-format=json | jq '.jobs[0].read.iops'",
    ),
    (
        "The 99th percentile completion latency per job and direction from CSV with awk:",
        "rfio --name=t --directory=/tmp --size=16m --unlink=1 --rw=randrw --bs=4k --output-format=csv |\n  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }\n           { print $1, $3, $c[\"clat_p99_ns\"] }'",
    ),
    (
        "Terse output, read by field number as fio scripts do (field 8: read IOPS):",
        "rfio --name=t --directory=/tmp --size=16m --unlink=1 --rw=randread --bs=4k --minimal |\n  awk -F';' '{ print $8 }'",
    ),
];

/// `--` and `-` as groff wants them in a page.
fn roff(text: &str) -> String {
    text.replace('\\', "\\\\").replace('-', "\\-")
}

/// Every program option `--help` lists that the hand-written part of the
/// page does not describe yet, with `--help`'s own words (the same table).
fn usage_not_described(page: &str) -> String {
    let mut out = String::new();
    for (flag, help) in crate::options::help::USAGE {
        let (name, arg) = flag.split_once('=').unwrap_or((flag, ""));
        let bold = format!("\\fB{}\\fR", roff(name));
        if page.contains(&bold) || out.contains(&bold) {
            continue;
        }
        let arg = if arg.is_empty() {
            String::new()
        } else {
            format!("=\\fI{}\\fR", roff(arg))
        };
        out.push_str(&format!(".TP\n{bold}{arg}\n{}\n", roff(help)));
    }
    out
}

pub fn render() -> String {
    let mut s = String::new();
    s.push_str(".TH RFIO 1 \"\" \"rfio 0.1.0 (fio 3.33 compatible)\" \"User Commands\"\n");
    s.push_str(".SH NAME\nrfio \\- flexible I/O tester, a drop\\-in replacement for fio 3.33\n");
    s.push_str(
        ".SH SYNOPSIS\n.B rfio\n[\\fIoptions\\fR] [\\fIjob options\\fR] [\\fIjob file(s)\\fR]\n",
    );
    s.push_str(
        ".SH DESCRIPTION\nrfio runs the jobs fio 3.33 runs, from the same command lines and job \
         files, and prints the same normal, JSON, JSON+ and terse reports. Options before the \
         first \\fB\\-\\-name\\fR are global; \\fB\\-\\-name\\fR starts a job. Job files use \
         fio's INI dialect ([global], [job], include, ${VAR}, $ncpus).\n.PP\nSizes: k, m, g, t, p \
         are powers of kb_base (1024 by default) while KiB, MiB, ... are powers of 1000, as in \
         fio. Values fio silently misreads (bs=4q, filesize=65536), runtime=10x, 1.5k) are read \
         as fio reads them, with a warning on stderr naming the option and the value used; with \
         \\fB\\-\\-warnings\\-fatal\\fR that warning is an error (exit 1). A section header \
         without its closing bracket is an error.\n",
    );
    s.push_str(
        ".SH PROGRAM OPTIONS\n.TP\n\\fB\\-\\-output\\-format\\fR=\\fIlist\\fR\nComma list of normal, \
         terse, json, json+ and csv.\n.TP\n\\fB\\-\\-output\\fR=\\fIfile\\fR\nWrite all output to \
         file.\n.TP\n\\fB\\-\\-minimal\\fR\nSame as \\-\\-output\\-format=terse.\n.TP\n\
         \\fB\\-\\-terse\\-version\\fR=\\fIN\\fR\n2, 3 (default), 4 or 5.\n.TP\n\\fB\\-\\-parse\\-only\\fR\n\
         Parse options only.\n.TP\n\\fB\\-\\-showcmd\\fR\nPrint job files as a command line.\n.TP\n\
         \\fB\\-\\-cmdhelp\\fR[=\\fIoption\\fR]\nHelp on one option, or all.\n.TP\n\
         \\fB\\-\\-readonly\\fR\nRefuse jobs that write.\n.TP\n\\fB\\-\\-section\\fR=\\fIname\\fR\n\
         Run only the named job-file section (repeatable).\n.TP\n\
         \\fB\\-\\-bandwidth\\-log\\fR\nWrite agg\\-read_bw.log, agg\\-write_bw.log and \
         agg\\-trim_bw.log (all jobs' bandwidth in KiB/s) in the current directory; samples are \
         taken while the status line would be drawn (a terminal or \\-\\-eta=always), as in \
         fio.\n.TP\n\\fB\\-\\-inflate\\-log\\fR=\\fIfile\\fR\nPrint a log stored with \
         log_store_compressed=1 (a .log.fz file of fio or rfio) as text.\n.TP\n\
         \\fB\\-\\-plot\\fR=\\fIdir\\fR\nrfio only: after the run, write SVG charts to \\fIdir\\fR \
         (created if needed): bandwidth.svg and iops.svg over time, clat_percentiles_N.svg \
         (p50, p90, p99 and p99.9 of completion latency per window, for job N), \
         clat_distribution.svg (the cumulative clat distribution of the whole run) and \
         index.html listing them beside a table of the results. Windows are log_avg_msec \
         long when set, else 100 ms. Nothing else is written.\n.TP\n\
         \\fB\\-\\-plot\\-from\\fR=\\fIlog\\fR\nrfio only, with \\fB\\-\\-plot\\fR: draw log files \
         that fio or rfio wrote instead of running jobs (repeatable; the kind comes from the \
         name: _bw, _iops, _lat, _clat, _slat, _clat_hist): bandwidth.svg, iops.svg, \
         latency.svg (averaged rows as they are, per\\-I/O rows summed or as p50/p99 per \
         100 ms), LOG_percentiles.svg per histogram log and clat_distribution.svg.\n.TP\n\\fB\\-\\-version\\fR\nPrint \
         fio\\-3.33, exactly fio's line (scripts cut it).\n.TP\n\\fB\\-\\-rbench\\-version\\fR\n\
         Print rfio's own version: rfio VERSION (rbench).\n",
    );
    // --- h4: client/server ---
    s.push_str(
        ".TP\n\\fB\\-\\-server\\fR[=[\\fIip:\\fR|\\fIip6:\\fR|\\fIsock:\\fR]\\fIhost\\fR[,\\fIport\\fR]]\n\
         Serve fio 3.33 clients (port 8765 by default): each connection runs the jobs it \
         sends and gets fio's report frames. Any host that reaches the port may run jobs \
         as this user unless limited below; the server says so once when it starts. \
         SIGINT ends it (exit 0).\n.TP\n\\fB\\-\\-daemonize\\fR=\\fIpidfile\\fR\n\
         With \\-\\-server: background it as fio does (its own session, stdio on \
         /dev/null, its lines to syslog as fio), its pid written to \\fIpidfile\\fR, which \
         it removes when SIGINT ends it. A pid file naming a live process stops the start \
         (exit 0); one that cannot be written is an error (exit 1).\n.TP\n\
         \\fB\\-\\-server\\-allow\\-from\\fR=\\fIaddr\\fR[/\\fIbits\\fR]\nrfio only: serve only peers \
         in this network (repeatable). Others get the refusal as text and exit 1.\n.TP\n\
         \\fB\\-\\-server\\-allow\\-dir\\fR=\\fIdir\\fR\nrfio only: jobs' files and logs, and job \
         files loaded with \\-\\-remote\\-config, must lie under \\fIdir\\fR (repeatable; \
         \\fB..\\fR is folded first).\n.TP\n\\fB\\-\\-server\\-no\\-exec\\fR\nrfio only: refuse \
         options that run a program (exec_prerun, exec_postrun, ioengine=exec or external, \
         trigger).\n.TP\n\\fB\\-\\-client\\fR=[\\fIip:\\fR|\\fIip6:\\fR|\\fIsock:\\fR]\\fIhost\\fR[,\\fIport\\fR]\n\
         Run jobs on a fio or rfio server, as fio's client: job files right after it go to \
         that host only; other job files go to every host without its own; program options \
         after it (output format, eta, ...) are sent to it. Repeatable, in any mix of fio and \
         rfio servers; with two or more hosts an All clients sum follows, then (rfio only) \
         the exact cluster\\-wide percentiles from every host's latency buckets, under \
         its own header line (JSON: the sum's rbench_cluster_percentiles key). A readable file \
         names hosts, one a line, which all get the same job. Ctrl\\-C asks every server to \
         stop and prints what ran; a server that goes away is reported (client: \
         host=H disconnected, exit 1) and the others still print.\n.TP\n\
         \\fB\\-\\-remote\\-config\\fR=\\fIfile\\fR\nWith \\-\\-client: the server reads this job \
         file on its own side.\n.TP\n\\fB\\-\\-merge\\fR \\fIfile\\fR...\nrfio only: read json+ \
         reports (of fio or rfio, local or \\-\\-client ones, whose All clients sum is left \
         out) and print one JSON unit per direction whose latency bins are the union of \
         theirs, with the percentiles computed from those bins in fio's method (exact, \
         where averaging percentiles is not).\n",
    );
    s.push_str(&usage_not_described(&s));
    s.push_str(".SH JOB OPTIONS\n");
    s.push_str(&man_options());
    s.push_str(".SH EXIT STATUS\n0 on success; 1 for bad input; otherwise the number of jobs that ended with an error (128 more after SIGINT/SIGTERM).\n");
    s.push_str(".SH EXAMPLES\n");
    for (what, cmd) in EXAMPLES {
        s.push_str(&format!(
            ".PP\n{}\n.PP\n.RS 4\n.nf\n{}\n.fi\n.RE\n",
            what.replace('-', "\\-"),
            cmd.replace('\\', "\\e").replace('-', "\\-")
        ));
    }
    s.push_str(".SH SEE ALSO\nfio(1)\n");
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn man_page_is_in_step_with_the_option_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../man/rfio.1");
        let want = super::render();
        if std::env::var("RFIO_WRITE_MAN").as_deref() == Ok("1") {
            std::fs::write(path, &want).expect("write man/rfio.1");
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            have == want,
            "man/rfio.1 is out of date: run RFIO_WRITE_MAN=1 cargo test -p rfio man_page"
        );
    }

    #[test]
    fn every_option_is_in_the_man_page() {
        let page = super::render();
        for o in crate::options::table::OPTIONS {
            assert!(page.contains(&format!(".BI \"{}", o.name)), "{}", o.name);
        }
    }
}
