//! The `run` command for a script (sysbench's run_test with lua_ops):
//! `init()` in the main state, the workers through the shared runner, the
//! report (or the script's report hooks), then `done()`.

use mlua::{Lua, Table};
use rbench_common::histogram::SysbenchHistogram;
use rbench_common::output::OutputFormat;

use super::state;
use super::test::{call_failed, LuaTest};
use crate::error::{Fail, Result};
use crate::log::{Level, Log};
use crate::report::{Reporter, RunInfo};
use crate::result::{Context, Interval, Summary, TestKind};
use crate::runner::Sink;
use crate::settings::Settings;

/// The numbers a report hook's `stat` table holds (sysbench's sb_stat_t).
#[derive(Default)]
struct Stat {
    threads_running: f64,
    time_interval: f64,
    time_total: f64,
    latency_pct: f64,
    events: f64,
    reads: f64,
    writes: f64,
    other: f64,
    errors: f64,
    reconnects: f64,
    /// Intermediate reports only.
    queue: Option<(f64, f64)>,
    /// Cumulative reports only: min, max, avg, sum (seconds).
    latency: Option<[f64; 4]>,
}

impl Stat {
    fn of_interval(iv: &Interval) -> Stat {
        let q = iv.sql.as_ref();
        let n = |f: fn(&crate::result::SqlFigures) -> u64| q.map_or(0.0, |q| f(q) as f64);
        Stat {
            threads_running: f64::from(iv.threads_running),
            time_interval: iv.interval_s,
            time_total: iv.time_s,
            latency_pct: iv.latency_percentile_ms / 1000.0,
            events: iv.events as f64,
            reads: n(|q| q.reads),
            writes: n(|q| q.writes),
            other: n(|q| q.other),
            errors: n(|q| q.ignored_errors),
            reconnects: n(|q| q.reconnects),
            queue: Some((
                iv.queue_length.unwrap_or(0) as f64,
                iv.concurrency.unwrap_or(0) as f64,
            )),
            latency: None,
        }
    }

    fn of_summary(s: &Summary, threads_running: u32) -> Stat {
        let q = s.sql.as_ref();
        let n = |f: fn(&crate::result::SqlFigures) -> u64| q.map_or(0.0, |q| f(q) as f64);
        let l = &s.latency_ms;
        Stat {
            threads_running: f64::from(threads_running),
            time_interval: s.interval_s,
            time_total: s.total_time_s,
            latency_pct: l.percentile_value.unwrap_or(0.0) / 1000.0,
            events: s.total_events as f64,
            reads: n(|q| q.reads),
            writes: n(|q| q.writes),
            other: n(|q| q.other),
            errors: n(|q| q.ignored_errors),
            reconnects: n(|q| q.reconnects),
            queue: None,
            latency: Some([
                l.min / 1000.0,
                l.max / 1000.0,
                l.avg / 1000.0,
                l.sum / 1000.0,
            ]),
        }
    }

    fn to_table(&self, lua: &Lua) -> mlua::Result<Table> {
        let t = lua.create_table()?;
        let fields = [
            ("threads_running", self.threads_running),
            ("time_interval", self.time_interval),
            ("time_total", self.time_total),
            ("latency_pct", self.latency_pct),
            ("events", self.events),
            ("reads", self.reads),
            ("writes", self.writes),
            ("other", self.other),
            ("errors", self.errors),
            ("reconnects", self.reconnects),
        ];
        for (k, v) in fields {
            t.set(k, v)?;
        }
        if let Some((len, conc)) = self.queue {
            t.set("queue_length", len)?;
            t.set("concurrency", conc)?;
        }
        if let Some([min, max, avg, sum]) = self.latency {
            t.set("latency_min", min)?;
            t.set("latency_max", max)?;
            t.set("latency_avg", avg)?;
            t.set("latency_sum", sum)?;
        }
        Ok(t)
    }
}

/// Whether `sysbench.hooks[name]` is a function in `lua`.
fn hook_defined(lua: &Lua, name: &str) -> bool {
    (|| -> mlua::Result<bool> {
        let sb: Table = lua.globals().get("sysbench")?;
        let hooks: Table = sb.get("hooks")?;
        Ok(matches!(
            hooks.get::<mlua::Value>(name)?,
            mlua::Value::Function(_)
        ))
    })()
    .unwrap_or(false)
}

/// Call `sysbench.hooks[name](stat)`; an error is logged as sysbench does.
fn call_hook(lua: &Lua, name: &str, stat: &Stat, log: &Log) {
    let result = (|| -> mlua::Result<Option<String>> {
        let f: mlua::Function = lua.globals().get("rsysbench_hook")?;
        let (ok, err): (bool, mlua::Value) = f.call((name, stat.to_table(lua)?))?;
        Ok((!ok).then(|| state::value_text(&err)))
    })();
    let failure = match result {
        Ok(None) => return,
        Ok(Some(e)) => e,
        Err(e) => super::error_text(&e),
    };
    log.msg(Level::Fatal, &call_failed(name, &failure));
}

/// The run's sink: the script's hooks where it has them, our reporter
/// otherwise. Intermediate and checkpoint hooks run in a state of their
/// own (sysbench's reporting thread), closed when the workers are done.
struct HookSink<'a> {
    reporter: Reporter<'a>,
    test: &'a LuaTest,
    report_state: Option<Lua>,
    intermediate: bool,
    cumulative: bool,
    threads: u32,
    log: &'a Log,
}

impl HookSink<'_> {
    fn report_state(&mut self) -> Option<&Lua> {
        if self.report_state.is_none() {
            self.report_state = self.test.state_for(self.threads as i32);
        }
        self.report_state.as_ref()
    }
}

impl Sink for HookSink<'_> {
    fn interval(&mut self, iv: &Interval) {
        if !self.intermediate {
            return self.reporter.interval(iv);
        }
        let log = self.log;
        if let Some(lua) = self.report_state() {
            call_hook(lua, "report_intermediate", &Stat::of_interval(iv), log);
        }
    }

    fn checkpoint(&mut self, s: &Summary) {
        if !self.cumulative {
            return self.reporter.checkpoint(s);
        }
        let (log, running) = (self.log, self.threads);
        if let Some(lua) = self.report_state() {
            call_hook(lua, "report_cumulative", &Stat::of_summary(s, running), log);
        }
    }

    fn forced_shutdown(&mut self, s: &Summary) -> ! {
        self.reporter.forced_shutdown(s)
    }
}

fn export(test: &LuaTest, lua: &Lua, log: &Log) -> Result<()> {
    state::export_options(lua, &test.options, test.legacy_globals).map_err(|e| {
        log.msg(Level::Fatal, &super::error_text(&e));
        Fail::silent(1)
    })
}

/// `init()` and the check for `event()`, before the run-mode block.
fn init(test: &LuaTest, gstate: &Lua, log: &Log) -> Result<bool> {
    export(test, gstate, log)?;
    if state::has_function(gstate, "init") {
        if let Err(e) = state::call_global(gstate, "init", ()) {
            log.msg(Level::Fatal, &call_failed("init", &e));
            return Ok(false);
        }
    }
    if !state::has_function(gstate, "event") {
        log.msg(
            Level::Fatal,
            &format!("cannot find the event() function in {}", test.script.sname),
        );
        return Ok(false);
    }
    Ok(true)
}

pub fn run(test: &LuaTest, gstate: &Lua, s: &Settings, log: &Log) -> Result<i32> {
    if !init(test, gstate, log)? {
        return Ok(1);
    }
    crate::app::print_run_mode(s, log);
    let _ = test.worker_rngs.set(sysbench_worker_rngs(s));
    crate::app::announce_helper_threads(s, log);
    log.notice("Initializing worker threads...\n");
    let scale = SysbenchHistogram::new();
    let ctx = Context {
        kind: TestKind::Sql,
        percentile: s.percentile,
        scale: &scale,
    };
    let name: &'static str = Box::leak(test.script.sname.clone().into_boxed_str());
    let info = RunInfo {
        test: name,
        threads: s.threads,
        kind: TestKind::Sql,
        percentile: s.percentile,
        histogram: s.histogram,
        debug: s.debug,
        db_debug: s.db_debug,
        options: json_options(test),
    };
    let mut sink = HookSink {
        reporter: Reporter::new(s.output, info, log),
        test,
        report_state: None,
        intermediate: hook_defined(gstate, "report_intermediate"),
        cumulative: hook_defined(gstate, "report_cumulative"),
        threads: s.threads,
        log,
    };
    let seed = crate::rng::run_seed(s.rand_seed);
    let outcome = crate::runner::run(test, s, log, ctx, seed, &mut sink);
    drop(sink.report_state.take());
    log.info("Done.\n");
    if outcome.init_failed {
        log.msg(Level::Fatal, "Thread initialization failed!");
        return Ok(1);
    }
    let signal = rbench_common::stop::last_signal();
    if !outcome.failed {
        report(
            &mut sink,
            &outcome.summary,
            gstate,
            signal.is_some(),
            s,
            log,
        );
    }
    // sysbench reports a failing done() and exits as if it had not failed.
    if state::has_function(gstate, "done") {
        if let Err(e) = state::call_global(gstate, "done", ()) {
            log.msg(Level::Fatal, &call_failed("done", &e));
        }
    }
    if outcome.failed {
        return Ok(1);
    }
    Ok(signal.map_or(0, |sig| 128 + sig))
}

/// The workers' generators as sysbench seeds them: srandom(--rand-seed, or
/// the time) when the run starts, then four random() calls per thread in
/// the order sysbench starts its threads (the reporting, event-generating
/// and checkpoint threads first, when there are any; then the workers).
/// With one worker a script draws the numbers sysbench's would.
fn sysbench_worker_rngs(s: &Settings) -> Vec<crate::rng::Rng> {
    let seed = if s.rand_seed != 0 {
        s.rand_seed
    } else {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_secs() as u32)
    };
    let mut libc = crate::rng::GlibcRandom::new(seed);
    let background = usize::from(s.report_interval > 0)
        + usize::from(s.rate > 0)
        + usize::from(!s.checkpoints.is_empty());
    for _ in 0..background {
        libc.thread_state();
    }
    (0..s.threads).map(|_| libc.thread_state()).collect()
}

/// The final report: the script's cumulative hook, or ours.
fn report(
    sink: &mut HookSink,
    sum: &Summary,
    gstate: &Lua,
    interrupted: bool,
    s: &Settings,
    log: &Log,
) {
    if sink.cumulative {
        if export(sink.test, gstate, log).is_ok() {
            call_hook(gstate, "report_cumulative", &Stat::of_summary(sum, 0), log);
        }
        return;
    }
    let status = if interrupted {
        "interrupted"
    } else {
        "completed"
    };
    if s.output != OutputFormat::Text || log.enabled(Level::Notice) {
        sink.reporter.finish(sum, status);
    }
}

/// The options in effect, for the JSON document.
fn json_options(test: &LuaTest) -> serde_json::Map<String, serde_json::Value> {
    use super::options::OptValue;
    let mut m = serde_json::Map::new();
    for (name, v) in test.options.iter() {
        let j = match v {
            OptValue::Bool(b) => (*b).into(),
            OptValue::Number(n) => {
                serde_json::Number::from_f64(*n).map_or(serde_json::Value::Null, Into::into)
            }
            OptValue::Str(s) => s.clone().into(),
            OptValue::List(l) => l.clone().into(),
            OptValue::Nil => serde_json::Value::Null,
        };
        m.insert(name.clone(), j);
    }
    m
}
