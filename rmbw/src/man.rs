//! The man page, generated from the option table (`rmbw --generate-man`
//! writes `man/rmbw.1`; a test fails when the committed page differs).

use crate::options::help::version_line;
use crate::options::table::OPTIONS;

/// Escape text for roff: backslashes, hyphens as minus signs, and a
/// leading dot or quote.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\e"),
            '-' => out.push_str("\\-"),
            _ => out.push(c),
        }
    }
    if out.starts_with('.') || out.starts_with('\'') {
        out.insert_str(0, "\\&");
    }
    out
}

/// Literal example lines (no filling).
fn example(lines: &[&str]) -> String {
    let mut s = String::from(".PP\n.RS 4\n.nf\n");
    for l in lines {
        s.push_str(&esc(l));
        s.push('\n');
    }
    s.push_str(".fi\n.RE\n");
    s
}

const DESCRIPTION: &str = "rmbw measures memory bandwidth by copying one array to another, \
as mbw 1.2.2 does, with the same options, the same output lines and the same exit status, so \
scripts written for mbw keep working. It allocates two arrays of SIZE MiB each (three for the \
STREAM kernels add and triad), fills them with 0xaa so that every page is touched, and then \
times each run of each selected test with two clock reads around the copy only. The arrays are \
reused by every run of every test.";

const LABELS: &str = "The labels mean what they say. MEMCPY is one memcpy() of the whole \
array; DUMB is a loop copying one 8\\-byte element at a time; MCBLOCK is memcpy() of one block \
at a time, advancing through both arrays. Debian's mbw 1.2.2 times the element loop under its \
MEMCPY label and memcpy() under its DUMB label (fixed upstream in mbw 1.4), and its MCBLOCK \
copies the same source block every time (so its reads stay in cache) and writes past the end \
of its array when the array is not a multiple of the block. To compare with mbw 1.2.2, compare \
rmbw's MEMCPY line with mbw's DUMB line, and rmbw's DUMB line with mbw's MEMCPY line; mbw \
1.2.2's MCBLOCK has no counterpart.";

/// The whole page.
pub fn render() -> String {
    let mut s = String::new();
    s.push_str(".TH RMBW 1 \"\" \"");
    s.push_str(&esc(&version_line()));
    s.push_str("\" \"User Commands\"\n");
    s.push_str(".SH NAME\nrmbw \\- memory copy bandwidth benchmark, a drop\\-in replacement for mbw 1.2.2\n");
    s.push_str(".SH SYNOPSIS\n.B rmbw\n[\\fIoptions\\fR] \\fISIZE\\fR\n");
    s.push_str(".SH DESCRIPTION\n");
    s.push_str(DESCRIPTION);
    s.push_str("\n.PP\n");
    s.push_str(
        "\\fISIZE\\fR is the size of one array in MiB: a whole number, optionally followed by \
         M, MB or MiB. mbw reads only the leading digits of the size, so rmbw accepts those \
         forms; any other suffix (as in 1G, which mbw reads as 1 MiB) is an error.\n.PP\n",
    );
    s.push_str(LABELS);
    s.push('\n');
    s.push_str(".SH OPTIONS\n");
    s.push_str(
        "Short options are mbw's and follow getopt(3): they may be combined (\\fB\\-qa\\fR), \
         their values attached or separate (\\fB\\-n3\\fR, \\fB\\-n 3\\fR), and options may \
         follow the size unless POSIXLY_CORRECT is set; \\fB\\-\\-\\fR ends the options. \
         Long options are rmbw's own; they may be abbreviated to a unique prefix and take \
         their value after \\fB=\\fR or as the next argument.\n",
    );
    for o in OPTIONS.iter().filter(|o| !o.hidden) {
        s.push_str(".TP\n");
        match (o.short, o.long, o.arg) {
            (Some(c), _, Some(a)) => s.push_str(&format!("\\fB\\-{c}\\fR \\fI{}\\fR\n", esc(a))),
            (Some(c), _, None) => s.push_str(&format!("\\fB\\-{c}\\fR\n")),
            (None, Some(l), Some(a)) => {
                s.push_str(&format!("\\fB\\-\\-{}\\fR=\\fI{}\\fR\n", esc(l), esc(a)))
            }
            (None, Some(l), None) => s.push_str(&format!("\\fB\\-\\-{}\\fR\n", esc(l))),
            (None, None, _) => continue,
        }
        s.push_str(&esc(o.help));
        if let Some(d) = o.default {
            s.push_str(&format!(" Default: {}.", esc(d)));
        }
        s.push('\n');
    }
    s.push_str(".SH OUTPUT\n.SS Text\n");
    s.push_str(
        "Unless \\fB\\-q\\fR is given, header lines come first. Then, for each test, one line \
         per run and an AVG line (unless \\fB\\-a\\fR), separated by tabs:\n",
    );
    s.push_str(&example(&[
        "Long uses 8 bytes. Allocating 2*8388608 elements = 134217728 bytes of memory.",
        "Using 262144 bytes as blocks for memcpy block copy test.",
        "Getting down to business... Doing 10 runs per test.",
        "0\tMethod: MEMCPY\tElapsed: 0.00962\tMiB: 64.00000\tCopy: 6656.266 MiB/s",
        "AVG\tMethod: MEMCPY\tElapsed: 0.01048\tMiB: 64.00000\tCopy: 6109.785 MiB/s",
    ]));
    s.push_str(
        ".PP\nElapsed is in seconds at microsecond resolution. MiB is the array size: mbw counts \
         one array per copy, although a copy reads one array and writes another. For the STREAM \
         kernels MiB counts as STREAM does: two arrays for copy and scale, three for add and \
         triad. With \\fB\\-\\-threads\\fR, MiB is summed over the threads and Elapsed runs from \
         the first thread's start to the last thread's end. Copy is MiB divided by Elapsed; on \
         the AVG line, Elapsed is the mean of the runs and Copy is MiB over that mean. A copy \
         faster than the clock's microsecond shows Copy as inf.\n",
    );
    s.push_str(".SS JSON\n");
    s.push_str(
        "One document: the measurement's parameters and a \\fBresults\\fR array with one object \
         per run and per average. An infinite Copy rate is written as null.\n",
    );
    s.push_str(&example(&[
        "{",
        "  \"tool\": \"rmbw\",",
        "  \"version\": \"0.1.0\",",
        "  \"array_size_mib\": 64,",
        "  \"elements\": 8388608,",
        "  \"arrays\": 2,",
        "  \"bytes_per_thread\": 134217728,",
        "  \"block_size_bytes\": 262144,",
        "  \"runs_per_test\": 2,",
        "  \"threads\": 1,",
        "  \"cpus\": [],",
        "  \"methods\": [\"MEMCPY\"],",
        "  \"results\": [",
        "    { \"method\": \"MEMCPY\", \"run\": \"0\", \"elapsed_s\": 0.00612,",
        "      \"mib\": 64.0, \"mib_per_s\": 10457.5, \"threads\": 1 },",
        "    ...",
        "    { \"method\": \"MEMCPY\", \"run\": \"AVG\", ... }",
        "  ]",
        "}",
    ]));
    s.push_str(".SS CSV\n");
    s.push_str("One header row, then one row per run and per average:\n");
    s.push_str(&example(&[
        "method,run,elapsed_s,mib,mib_per_s,threads",
        "MEMCPY,0,0.00612,64.0,10457.516339869282,1",
        "MEMCPY,AVG,0.00612,64.0,10457.516339869282,1",
    ]));
    s.push_str(
        ".PP\nWith json and csv, the header lines are not printed and errors go to stderr, so \
         that stdout holds only the document.\n",
    );
    s.push_str(".SH DIAGNOSTICS\n");
    s.push_str(
        "A warning goes to stderr when all arrays together fit in the last\\-level cache: \
         the result is then cache bandwidth, not memory bandwidth. Use a size several times \
         the cache. Errors are printed once, as mbw prints them: on stdout, starting with \
         \\fBError:\\fR (on stderr with json and csv output); getopt's warnings about \
         unknown options or missing values go to stderr and the option is ignored, as with \
         mbw.\n",
    );
    s.push_str(".SH SIGNALS\n");
    s.push_str(
        "SIGINT or SIGTERM during a run stops rmbw after the current copy: the lines (or the \
         JSON or CSV document) for the runs done are printed, with averages over those runs, \
         and the exit status is 128 plus the signal number. A second signal ends rmbw at \
         once.\n",
    );
    s.push_str(".SH EXIT STATUS\n");
    s.push_str(
        ".TP\n0\nSuccess (also when getopt warned about an unknown option).\n\
         .TP\n1\n\\fB\\-h\\fR (as mbw); no size, a size of 0 or one that is not a number; a \
         block size of 0 or larger than the array; an invalid option value; memory that \
         cannot be allocated.\n\
         .TP\n130, 143\nStopped by SIGINT or SIGTERM after printing the results so far.\n",
    );
    s.push_str(".SH DIFFERENCES FROM MBW 1.2.2\n");
    for item in [
        "MEMCPY and DUMB time what their labels say (mbw 1.2.2 swaps them); MCBLOCK advances \
         through both arrays and never writes past the end (mbw 1.2.2 re\\-reads one source \
         block, and aborts with a heap overflow when the array is not a multiple of the block).",
        "Values mbw accepts silently are errors with exit status 1: \\fB\\-n 0\\fR or a \
         negative count (mbw prints \\-nan or \\-inf averages), \\fB\\-t\\fR other than 0, 1 \
         or 2 (mbw ignores it and runs everything), a negative size (mbw wraps it around), a \
         size or value with a suffix that is not MiB (mbw reads only the leading digits).",
        "A size the machine cannot provide is refused before allocation (mbw may be killed by \
         the kernel's OOM killer while filling its arrays).",
        "Elapsed is measured on the monotonic clock at microsecond resolution (mbw uses \
         gettimeofday(), which jumps when the wall clock is set).",
        "The usage text says rmbw where mbw's says mbw. Long options, the cache warning, \
         threads, STREAM kernels, JSON and CSV are new.",
    ] {
        s.push_str(".IP \\(bu 2\n");
        s.push_str(item);
        s.push('\n');
    }
    s.push_str(".SH EXAMPLES\n");
    s.push_str(".PP\nmbw's default run, ten runs of each of the three tests on 1 GiB arrays:\n");
    s.push_str(&example(&["rmbw 1024"]));
    s.push_str(".PP\nAggregate bandwidth of four pinned threads with STREAM's triad:\n");
    s.push_str(&example(&["rmbw --threads=4 --test=triad -n 5 512"]));
    s.push_str(".PP\nThe average memcpy bandwidth, from JSON with jq:\n");
    s.push_str(&example(&[
        "rmbw -t0 --output-format=json 256 |",
        "  jq '.results[] | select(.run == \"AVG\") | .mib_per_s'",
    ]));
    s.push_str(".PP\nThe best run of each test, from CSV with awk:\n");
    s.push_str(&example(&[
        "rmbw --output-format=csv 256 |",
        "  awk -F, 'NR > 1 && $2 != \"AVG\" && $5 > best[$1] { best[$1] = $5 }",
        "            END { for (m in best) print m, best[m] }'",
    ]));
    s.push_str(".PP\nmbw's MEMCPY line beside rmbw's DUMB line (the same element loop):\n");
    s.push_str(&example(&[
        "mbw -q -t0 256 | grep AVG",
        "rmbw -q -t1 256 | grep AVG",
    ]));
    s.push_str(".SH SEE ALSO\n.BR mbw (1),\n.BR sysbench (1)\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_man_page_is_generated_from_the_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../man/rmbw.1");
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            committed == render(),
            "man/rmbw.1 is stale: run `cargo run -p rmbw -- --generate-man > man/rmbw.1`"
        );
    }

    #[test]
    fn every_visible_option_is_documented() {
        let page = render();
        for o in OPTIONS.iter().filter(|o| !o.hidden) {
            let name = match (o.short, o.long) {
                (Some(c), _) => format!("\\fB\\-{c}\\fR"),
                (None, Some(l)) => format!("\\fB\\-\\-{}\\fR", esc(l)),
                _ => continue,
            };
            assert!(page.contains(&name), "{name}");
        }
    }
}
