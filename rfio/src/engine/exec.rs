//! `ioengine=exec`: runs a program beside the job (fio's exec engine). The
//! first I/O starts `program` with `arguments` (`%r`: the runtime in
//! seconds, `%n`: the job's name; split at spaces), its output going to
//! `NAME.stdout` and `NAME.stderr` unless `std_redirect=0`. Each later I/O
//! waits 50 ms; once the runtime is over the program gets SIGTERM, then
//! `grace_time` seconds, and SIGKILL when the job ends. No bytes move.

use super::Config;
use super::{Engine, InitFailure, InitSite, IoUnit, Queued};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The engine's wait per I/O (fio's thinktime of 50 ms, slept in queue).
const POLL: Duration = Duration::from_millis(50);

pub struct Exec {
    name: String,
    program: String,
    arguments: String,
    redirect: bool,
    grace: Duration,
    runtime: Duration,
    child: Option<Child>,
    started: Option<Instant>,
}

impl Exec {
    pub fn new(cfg: &Config) -> Result<Self, InitFailure> {
        let Some(program) = cfg.opts.text("program") else {
            return Err(InitFailure {
                errno: libc::EINVAL,
                before: String::new(),
                site: Some(InitSite {
                    at: "engines/exec.c:324",
                    func: "exec",
                    error: Some("no program is defined, it is mandatory to define one"),
                }),
            });
        };
        let arguments = expand(
            &cfg.opts.text("arguments").unwrap_or_default(),
            cfg.runtime_us / 1_000_000,
            cfg.name,
        );
        Ok(Exec {
            name: cfg.name.to_string(),
            program,
            arguments,
            redirect: cfg.opts.flag("std_redirect"),
            grace: Duration::from_secs(cfg.opts.int("grace_time").max(0) as u64),
            runtime: Duration::from_micros(cfg.runtime_us),
            child: None,
            started: None,
        })
    }

    /// The lines fio prints as the engine starts and as it runs the program
    /// (a missing `arguments` shows as C's `(null)`).
    pub fn banner(cfg: &Config) -> String {
        let program = cfg.opts.text("program").unwrap_or_default();
        let raw = cfg.opts.text("arguments");
        let shown = raw.clone().unwrap_or_else(|| "(null)".into());
        let expanded = raw.map_or("(null)".into(), |a| {
            expand(&a, cfg.runtime_us / 1_000_000, cfg.name)
        });
        let n = &cfg.name;
        let mut s = format!("{n} : program={program}, arguments={shown}\n");
        if cfg.opts.flag("std_redirect") {
            s.push_str(&format!(
                "{n} : Saving output of {program} {expanded} : stdout={n}.stdout stderr={n}.stderr\n"
            ));
        } else {
            s.push_str(&format!("{n} : Running {program} {expanded}\n"));
        }
        s
    }

    /// Start the program (cold: the job's first I/O).
    fn spawn(&mut self) {
        let line = format!("{} {}", self.program, self.arguments);
        let mut words = line.split(' ').filter(|w| !w.is_empty());
        let Some(argv0) = words.next() else {
            return;
        };
        let mut cmd = Command::new(argv0);
        cmd.args(words).stdin(Stdio::null());
        if self.redirect {
            let out = std::fs::File::create(format!("{}.stdout", self.name));
            let err = std::fs::File::create(format!("{}.stderr", self.name));
            match (out, err) {
                (Ok(o), Ok(e)) => {
                    cmd.stdout(o).stderr(e);
                }
                (Err(e), _) | (_, Err(e)) => {
                    eprintln!("fio: cannot open output file {}.stdout : {e}", self.name);
                    return;
                }
            }
        }
        self.child = cmd.spawn().ok();
    }
}

/// fio's variables in `arguments`: `%r` the runtime (s), `%n` the name.
fn expand(args: &str, runtime_s: u64, name: &str) -> String {
    args.replace("%r", &runtime_s.to_string())
        .replace("%n", name)
}

impl Engine for Exec {
    fn queue(&mut self, _idx: usize, io: &mut IoUnit) -> Queued {
        match self.started {
            None => {
                self.started = Some(Instant::now());
                self.spawn();
            }
            Some(t0) => {
                std::thread::sleep(POLL);
                if t0.elapsed() > self.runtime {
                    if let Some(c) = &self.child {
                        // SAFETY: signalling the child this engine started.
                        unsafe { libc::kill(c.id() as libc::pid_t, libc::SIGTERM) };
                    }
                    std::thread::sleep(self.grace);
                }
            }
        }
        io.len = 0;
        io.result = 0;
        Queued::Completed
    }
}

impl Drop for Exec {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}
