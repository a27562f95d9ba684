//! `riperf`: a drop-in replacement for iperf3 3.12, wire-compatible with it.

use riperf::options::{self, Command, UsageError};
use riperf::{client, report, server};
use std::io::Write;
use std::process::ExitCode;

/// Print to stdout, ignoring a closed pipe (`riperf --help | head -1`):
/// iperf3 dies quietly of SIGPIPE there; we must not panic instead.
fn out(s: &str) {
    let _ = std::io::stdout().lock().write_all(s.as_bytes());
}

fn main() -> ExitCode {
    let mut argv = std::env::args();
    // getopt names the program as it was invoked (3.12: argv[0]).
    let prog = argv.next().unwrap_or_else(|| "iperf3".into());
    let args: Vec<String> = argv.collect();
    // Hidden, for packaging: the completion scripts made from the option table.
    if let Some(shell) = args
        .iter()
        .find_map(|a| a.strip_prefix("--generate-completions="))
    {
        return match shell.parse() {
            Ok(shell) => {
                out(&riperf::completions::render(shell));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("iperf3: {e}");
                ExitCode::from(1)
            }
        };
    }
    let cfg = match options::parse(&args) {
        Ok(Command::Help) => {
            out(&options::table::usage_long());
            return ExitCode::SUCCESS;
        }
        Ok(Command::Version) => {
            out(&format!(
                "iperf 3.12 (riperf {}, rbench)\n{}\nOptional features available: CPU affinity setting, IPv6 flow label, TCP congestion algorithm setting, sendfile / zerocopy, socket pacing, bind to device, support IPv4 don't fragment\n",
                env!("CARGO_PKG_VERSION"),
                report::system_info()
            ));
            return ExitCode::SUCCESS;
        }
        Ok(Command::Run(c)) => c,
        Err(UsageError::Getopt(m)) => {
            eprintln!("{prog}: {m}");
            eprint!("{}", options::table::usage_long());
            return ExitCode::from(1);
        }
        Err(UsageError::Parameter(m)) => {
            eprintln!("iperf3: parameter error - {m}\n");
            out(&options::table::usage_long());
            return ExitCode::from(1);
        }
        Err(UsageError::Fatal(m)) => {
            eprintln!("iperf3: error - {m}");
            return ExitCode::from(1);
        }
    };
    for n in &cfg.notices {
        out(&format!("{n}\n"));
    }
    for w in &cfg.warnings {
        eprintln!("warning: {w}");
    }
    rbench_common::stop::install();
    // A peer that vanishes must not kill us with SIGPIPE.
    // SAFETY: ignoring SIGPIPE is process-wide and always allowed.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    if let (Some(p), options::Role::Client) = (&cfg.pidfile, cfg.role) {
        let _ = std::fs::write(p, format!("{}", std::process::id()));
    }
    let code = match cfg.role {
        options::Role::Client => match client::run(&cfg) {
            client::ClientEnd::Ok | client::ClientEnd::ReportedInJson => 0,
            client::ClientEnd::Error(m) => {
                eprintln!("iperf3: error - {m}");
                1
            }
            client::ClientEnd::Interrupted => {
                eprintln!("iperf3: interrupt - the client has terminated");
                1
            }
        },
        options::Role::Server => server::run(&cfg),
    };
    if let Some(p) = &cfg.pidfile {
        let _ = std::fs::remove_file(p);
    }
    ExitCode::from(code)
}
