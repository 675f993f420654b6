//! The benchmark from start to report: targets up and checked, data
//! loaded, every scenario's phases run on every target, files written.
//!
//! Settings, per kind of target (a setting is never pretended):
//! - embedded quire: restarted with the variable on its command line, if
//!   quire honours the variable (`used` in `quire_sql::sysvars`); else the
//!   phase is "not available for quire" and is skipped with a note;
//! - external server: `SET GLOBAL`, then read back (a buffer pool resize is
//!   waited for); a refusal skips the phase for that target with a note, a
//!   value the server rounded is noted, and the original value is restored
//!   after the scenario. `sync_binlog` on a server without a binary log is
//!   skipped too (it would change nothing).
//!
//! Points alternate between targets (quire 1 thread, the other server 1
//! thread, quire 4 threads ...) with the same random numbers, so that the
//! ratios of one run are fair on a machine whose load drifts.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;

use crate::driver::prepare::{self, DataSpec};
use crate::driver::{self, Mix, RunConfig, RunResult, Workload};
use crate::embedded::Embedded;
use crate::error::{describe, Error, Result};
use crate::report::{Meta, Note, Point, Report, TargetInfo};
use crate::scenario::{self, Choices, Phase, Scenario, Setting};
use crate::target::{ServerInfo, TargetSpec};
use crate::tpcc::{self, Scale, TpccRun};

/// Which client makes the load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DriverKind {
    /// The built-in sysbench-compatible driver.
    Builtin,
    /// The real `sysbench` binary.
    Sysbench,
}

/// Everything a benchmark needs to know.
#[derive(Debug, Clone)]
pub struct Options {
    pub scenarios: Vec<Scenario>,
    pub choices: Choices,
    pub data: DataSpec,
    pub targets: Vec<TargetSpec>,
    pub embedded: bool,
    pub quire_options: Vec<(String, String)>,
    pub driver: DriverKind,
    /// The built-in driver's worker threads (0: four per CPU).
    pub driver_workers: u32,
    pub events: u64,
    pub out: PathBuf,
    pub skip_prepare: bool,
    pub prepare_threads: u32,
    pub progress: bool,
    pub mix: Mix,
    pub seed: u64,
    pub command: String,
    pub tmpdir: Option<PathBuf>,
    /// The `tpcc` scenario's database, foreign keys and checks.
    pub tpcc: TpccOptions,
}

/// What the `tpcc` scenario loads and checks.
#[derive(Debug, Clone)]
pub struct TpccOptions {
    pub scale: Scale,
    /// Foreign keys on the tables (sysbench-tpcc's default).
    pub foreign_keys: bool,
    /// Run the consistency conditions after the runs on every target; a
    /// violation fails the benchmark.
    pub check: bool,
}

impl Default for TpccOptions {
    fn default() -> Self {
        TpccOptions { scale: Scale::standard(1), foreign_keys: true, check: false }
    }
}

enum Kind {
    Embedded(Box<Embedded>),
    External,
}

struct Target {
    label: String,
    spec: TargetSpec,
    info: ServerInfo,
    kind: Kind,
    /// Variables changed with SET GLOBAL and their values before.
    saved: Vec<(String, String)>,
}

/// A value as text, whatever type the server returned.
fn text(v: mysql::Value) -> String {
    match v {
        mysql::Value::NULL => String::new(),
        mysql::Value::Bytes(b) => String::from_utf8_lossy(&b).into_owned(),
        mysql::Value::Int(i) => i.to_string(),
        mysql::Value::UInt(u) => u.to_string(),
        other => other.as_sql(true).trim_matches('\'').to_string(),
    }
}

/// Whether two variable values mean the same (`ON` = `1`).
fn same_value(a: &str, b: &str) -> bool {
    let norm = |s: &str| match s.trim().to_ascii_uppercase().as_str() {
        "ON" | "TRUE" => "1".to_string(),
        "OFF" | "FALSE" => "0".to_string(),
        other => other.to_string(),
    };
    norm(a) == norm(b)
}

impl Target {
    fn conn(&self) -> Result<mysql::Conn> {
        self.spec.connect(false, 4)
    }

    fn global(&self, conn: &mut mysql::Conn, var: &str) -> Result<Option<String>> {
        match conn.query_first::<mysql::Value, _>(format!("SELECT @@global.{var}")) {
            Ok(v) => Ok(v.map(text)),
            Err(e) if crate::error::server_code(&e) == Some(1193) => Ok(None),
            Err(e) => Err(Error::new(format!("{}: SELECT @@global.{var}: {}", self.label, describe(&e)))),
        }
    }

    /// Puts `setting` in force (or explains why not): Ok(None) when in
    /// force, Ok(Some(reason)) to skip, Err when the target failed.
    fn apply(&mut self, s: &Setting, notes: &mut Vec<String>) -> Result<Option<String>> {
        let var = s.variable.as_str();
        if let Kind::Embedded(e) = &mut self.kind {
            return match quire_sql::sysvars::lookup(var) {
                Some(d) if d.used() => {
                    e.restart_with(&[(var.to_string(), s.value.clone())])?;
                    self.spec = e.spec().clone();
                    Ok(None)
                }
                Some(_) => Ok(Some(format!("not available: quire does not implement {var}"))),
                None => Ok(Some(format!("not available: quire has no variable {var}"))),
            };
        }
        let mut conn = self.conn()?;
        let Some(before) = self.global(&mut conn, var)? else {
            return Ok(Some(format!("not available: the server has no variable {var}")));
        };
        if var == "sync_binlog" {
            let log_bin = self.global(&mut conn, "log_bin")?.unwrap_or_default();
            if !same_value(&log_bin, "1") {
                return Ok(Some("not available: the binary log is off on this server (log_bin=OFF)".into()));
            }
        }
        if !self.saved.iter().any(|(v, _)| v == var) {
            self.saved.push((var.to_string(), before));
        }
        if let Err(e) = conn.query_drop(format!("SET GLOBAL {var} = {}", sql_value(&s.value))) {
            return Ok(Some(format!("could not change {var} to {}: {}", s.value, describe(&e))));
        }
        if var == "innodb_buffer_pool_size" {
            wait_for_resize(&mut conn);
        }
        let now = self.global(&mut conn, var)?.unwrap_or_default();
        if !same_value(&now, &s.value) {
            notes.push(format!("asked for {var}={}, the server uses {now}", s.value));
        }
        Ok(None)
    }

    /// Back to how the scenario found the target.
    fn restore(&mut self) -> Result<()> {
        match &mut self.kind {
            Kind::Embedded(e) => {
                e.restart_with(&[])?;
                self.spec = e.spec().clone();
            }
            Kind::External => {
                let mut conn = self.conn()?;
                for (var, value) in std::mem::take(&mut self.saved) {
                    let _ = conn.query_drop(format!("SET GLOBAL {var} = {}", sql_value(&value)));
                    if var == "innodb_buffer_pool_size" {
                        wait_for_resize(&mut conn);
                    }
                }
            }
        }
        Ok(())
    }
}

/// A number as it is, anything else quoted.
fn sql_value(v: &str) -> String {
    if v.parse::<f64>().is_ok() {
        v.to_string()
    } else {
        format!("'{}'", v.replace('\'', "''"))
    }
}

/// MariaDB and MySQL resize the buffer pool in the background.
fn wait_for_resize(conn: &mut mysql::Conn) {
    let deadline = Instant::now() + Duration::from_secs(120);
    std::thread::sleep(Duration::from_millis(200));
    while Instant::now() < deadline {
        let status: Option<(String, String)> =
            conn.query_first("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_resize_status'").unwrap_or(None);
        match status {
            Some((_, s)) if s.to_ascii_lowercase().contains("complete") || s.is_empty() => return,
            None => return,
            _ => std::thread::sleep(Duration::from_millis(250)),
        }
    }
}

/// Runs the whole benchmark and writes the report; returns it with its
/// files. Points that failed are notes in the report and make the result
/// an error after the files are written.
pub fn run(o: &Options) -> Result<(Report, Vec<PathBuf>)> {
    let started = Instant::now();
    let started_utc = crate::timestamp::utc_iso(std::time::SystemTime::now());
    if !o.embedded && o.targets.is_empty() {
        return Err(Error::new("nothing to measure: --no-embedded needs at least one --target"));
    }
    let driver_name = match o.driver {
        DriverKind::Builtin => "builtin (sysbench 1.0.20 oltp_* statements)".to_string(),
        DriverKind::Sysbench => crate::sysbench::version()
            .ok_or_else(|| Error::new("--driver sysbench: sysbench is not installed (apt-get install sysbench)"))?,
    };
    let max_threads = o
        .scenarios
        .iter()
        .map(|s| scenario::max_threads(&scenario::phases(*s, &o.choices, 1 << 30)))
        .max()
        .unwrap_or(1);
    let mut targets = Vec::new();
    for spec in &o.targets {
        let mut conn = spec.connect(false, 4)?;
        let info = ServerInfo::query(&mut conn)?;
        // Read as a value: a typed read panics on an answer of another type.
        let max_conn = conn
            .query_first::<mysql::Value, _>("SELECT @@max_connections")
            .unwrap_or(None)
            .and_then(|v| text(v).parse::<u64>().ok());
        if let Some(m) = max_conn.filter(|m| *m < u64::from(max_threads) + 2) {
            return Err(Error::new(format!(
                "target {} allows {m} connections (max_connections) but this run opens {max_threads}; raise it",
                spec.display()
            )));
        }
        let mut label = spec.label.clone().unwrap_or_else(|| info.product());
        if targets.iter().any(|t: &Target| t.label == label) || label == "quire" && o.embedded {
            label = format!("{label} :{}", spec.port);
        }
        targets.push(Target { label, spec: spec.clone(), info, kind: Kind::External, saved: Vec::new() });
    }
    if o.embedded {
        let e = Embedded::start(o.tmpdir.as_deref(), o.quire_options.clone(), max_threads + 16)?;
        let spec = e.spec().clone();
        let info = ServerInfo::query(&mut spec.connect(false, 4)?)?;
        targets.insert(
            0,
            Target { label: "quire".into(), spec, info, kind: Kind::Embedded(Box::new(e)), saved: Vec::new() },
        );
    }
    let wants_tpcc = o.scenarios.contains(&Scenario::Tpcc);
    let wants_sysbench = o.scenarios.iter().any(|s| *s != Scenario::Tpcc);
    for t in &targets {
        // The embedded quire starts empty: it is always loaded.
        let skip = o.skip_prepare && matches!(t.kind, Kind::External);
        if wants_sysbench && skip {
            prepare::check_tables(&t.spec, o.data.tables)?;
        } else if wants_sysbench {
            eprintln!("quire bench: loading {} tables x {} rows into {}", o.data.tables, o.data.table_size, t.label);
            prepare::prepare(&t.spec, o.data, o.prepare_threads, o.progress)?;
        }
        if wants_tpcc && !skip {
            let s = o.tpcc.scale;
            eprintln!("quire bench: loading TPC-C, {} warehouse(s), into {}", s.warehouses, t.label);
            let at = Instant::now();
            tpcc::load::load(&t.spec, s, o.tpcc.foreign_keys, o.prepare_threads, o.seed, o.progress)?;
            eprintln!("quire bench: TPC-C loaded into {} in {:.1} s", t.label, at.elapsed().as_secs_f64());
        }
    }
    let data_bytes = data_size(&mut targets, o)?;
    let mut points = Vec::new();
    let mut notes = Vec::new();
    // Top waits (seed 000's chart): every target's wait instruments on.
    for t in &targets {
        if let Some(why) = crate::waits::enable(&t.spec) {
            notes.push(Note { target: t.label.clone(), scenario: "all".into(), setting: None, text: why });
        }
    }
    if wants_tpcc && !o.tpcc.scale.is_standard() {
        let s = o.tpcc.scale;
        notes.push(Note {
            target: "all".into(),
            scenario: "tpcc".into(),
            setting: None,
            text: format!(
                "a reduced TPC-C population ({} items, {} customers per district): not the specification's",
                s.items, s.customers
            ),
        });
    }
    let mut failed = 0;
    let plans: Vec<(Scenario, Vec<Phase>)> =
        o.scenarios.iter().map(|s| (*s, scenario::phases(*s, &o.choices, data_bytes))).collect();
    let total: usize = plans.iter().flat_map(|(_, ps)| ps.iter().map(|p| p.runs.len())).sum::<usize>() * targets.len();
    let mut done = 0;
    let mut run_no = 0u64;
    for (sc, phases) in &plans {
        for phase in phases {
            let setting = phase.setting.as_ref().map(|s| format!("{}={}", s.variable, s.label));
            let note = |target: &str, text: String| Note {
                target: target.to_string(),
                scenario: phase.scenario.to_string(),
                setting: setting.clone(),
                text,
            };
            // 1. The phase's setting on every target, or why not.
            let mut active = vec![true; targets.len()];
            if let Some(s) = &phase.setting {
                for (i, t) in targets.iter_mut().enumerate() {
                    let mut soft = Vec::new();
                    let Some(reason) = t.apply(s, &mut soft)? else {
                        notes.extend(soft.into_iter().map(|text| note(&t.label, text)));
                        prepare::prewarm(&t.spec, o.data.tables)?;
                        continue;
                    };
                    eprintln!("quire bench: {} {}={}: {reason}", t.label, s.variable, s.label);
                    active[i] = false;
                    done += phase.runs.len();
                    // "not available" holds for every value: said once.
                    let again = notes
                        .iter()
                        .any(|n: &Note| n.target == t.label && n.scenario == phase.scenario && n.text == reason);
                    if !again {
                        let mut n = note(&t.label, reason.clone());
                        if reason.starts_with("not available") {
                            n.setting = None;
                        }
                        notes.push(n);
                    }
                }
            }
            // 2. Each run on every target in turn, with the same random
            //    numbers, so that noise drifting on a shared machine falls
            //    on all targets alike.
            for r in &phase.runs {
                run_no += 1;
                let cfg = RunConfig {
                    workload: r.workload,
                    threads: r.threads,
                    duration: r.duration,
                    events: o.events,
                    tables: o.data.tables,
                    table_size: o.data.table_size,
                    mix: o.mix,
                    seed: o.seed.wrapping_mul(1_000_003).wrapping_add(run_no),
                    workers: o.driver_workers,
                };
                for t in targets.iter().zip(&active).filter(|(_, a)| **a).map(|(t, _)| t) {
                    done += 1;
                    let sampler = crate::waits::Sampler::start(&t.spec);
                    let res = match (r.workload, o.driver) {
                        (Workload::Tpcc, DriverKind::Builtin) => {
                            let run = TpccRun {
                                scale: o.tpcc.scale,
                                threads: r.threads,
                                duration: r.duration,
                                seed: cfg.seed,
                            };
                            tpcc::run(&t.spec, &run)
                        }
                        (Workload::Tpcc, DriverKind::Sysbench) => Err(Error::new(
                            "the tpcc scenario runs the built-in driver only (run sysbench-tpcc by hand: docs/TPCC.md)",
                        )),
                        (_, DriverKind::Builtin) => driver::run(&t.spec, &cfg),
                        (_, DriverKind::Sysbench) => crate::sysbench::run(&t.spec, &cfg),
                    };
                    let waits = sampler.map(crate::waits::Sampler::finish);
                    match res {
                        Ok(res) => {
                            eprintln!("[{done:>3}/{total}] {}", line(&t.label, &cfg, &res, phase.setting.as_ref()));
                            let mut p = point(&t.label, phase, &cfg, res, o.driver);
                            p.waits = waits;
                            points.push(p);
                        }
                        Err(e) => {
                            eprintln!("[{done:>3}/{total}] FAILED: {e}");
                            failed += 1;
                            notes.push(note(&t.label, format!("failed at {} threads: {e}", r.threads)));
                        }
                    }
                }
            }
        }
        if sc.variable().is_some() {
            for t in targets.iter_mut() {
                t.restore()?;
            }
        }
        if *sc == Scenario::Tpcc && o.tpcc.check {
            for t in &targets {
                let bad = check_tpcc(&t.label, &t.spec)?;
                if bad > 0 {
                    failed += 1;
                    notes.push(Note {
                        target: t.label.clone(),
                        scenario: "tpcc".into(),
                        setting: None,
                        text: format!("{bad} TPC-C consistency condition(s) FAILED after the runs"),
                    });
                }
            }
        }
    }
    let infos = targets
        .iter()
        .map(|t| TargetInfo {
            label: t.label.clone(),
            address: t.spec.display(),
            version: format!("{} {}", t.info.version, t.info.comment).trim().to_string(),
            kind: if matches!(t.kind, Kind::Embedded(_)) { "embedded" } else { "external" }.into(),
            options: match &t.kind {
                Kind::Embedded(_) => o.quire_options.clone(),
                Kind::External => Vec::new(),
            },
        })
        .collect();
    for t in targets {
        if let Kind::Embedded(e) = t.kind {
            e.shutdown()?;
        }
    }
    let report = Report {
        meta: Meta {
            started: started_utc,
            command: o.command.clone(),
            quire_version: quire_sql::VERSION.to_string(),
            driver: driver_name,
            scenarios: o.scenarios.iter().map(|s| s.name().to_string()).collect(),
            tables: o.data.tables,
            table_size: o.data.table_size,
            warehouses: wants_tpcc.then_some(o.tpcc.scale.warehouses),
            data_bytes,
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            memory_bytes: memory_bytes(),
            seconds_total: started.elapsed().as_secs_f64(),
        },
        targets: infos,
        points,
        notes,
    };
    let files = report.write(&o.out)?;
    if failed > 0 {
        return Err(Error::new(format!(
            "{failed} point(s) failed (see the notes in {}); the rest of the report is there",
            o.out.join("README.md").display()
        )));
    }
    Ok((report, files))
}

/// Runs the TPC-C consistency conditions on `spec` and prints them;
/// returns how many failed.
pub fn check_tpcc(label: &str, spec: &TargetSpec) -> Result<usize> {
    let at = Instant::now();
    let outcomes = tpcc::check(spec)?;
    eprint!(
        "quire bench: TPC-C consistency on {label} ({:.1} s):\n{}",
        at.elapsed().as_secs_f64(),
        tpcc::check::render(&outcomes)
    );
    Ok(outcomes.iter().filter(|o| !o.passed()).count())
}

/// The data's size: quire's files when embedded (after a restart, so that
/// every page is written), else the server's own estimate, else ~250
/// bytes a row.
fn data_size(targets: &mut [Target], o: &Options) -> Result<u64> {
    let buffer_pool = o.scenarios.contains(&Scenario::BufferPool);
    for t in targets.iter_mut() {
        if let Kind::Embedded(e) = &mut t.kind {
            if buffer_pool {
                e.restart_with(&[])?;
                t.spec = e.spec().clone();
            }
            let b = e.data_bytes();
            if b > 0 {
                return Ok(b);
            }
        }
    }
    for t in targets.iter() {
        let q = format!(
            "SELECT CAST(SUM(data_length + index_length) AS UNSIGNED) FROM information_schema.TABLES \
             WHERE table_schema = '{}' AND table_name LIKE 'sbtest%'",
            t.spec.database.replace('\'', "''")
        );
        let bytes = t
            .conn()
            .and_then(|mut c| c.query_first::<mysql::Value, _>(q).map_err(|e| Error::new(e.to_string())))
            .map(|v| v.and_then(|v| text(v).parse::<u64>().ok()));
        if let Ok(Some(b)) = bytes {
            if b > 0 {
                return Ok(b);
            }
        }
    }
    Ok(u64::from(o.data.tables) * u64::from(o.data.table_size) * 250)
}

fn memory_bytes() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

fn point(label: &str, phase: &Phase, cfg: &RunConfig, res: RunResult, driver: DriverKind) -> Point {
    let named = if cfg.workload == Workload::Tpcc { res.statements.named_nonzero() } else { res.statements.named() };
    let statements =
        (driver == DriverKind::Builtin).then(|| named.into_iter().map(|(k, v)| (k.to_string(), v)).collect());
    Point {
        target: label.to_string(),
        scenario: phase.scenario.to_string(),
        workload: cfg.workload,
        setting: phase.setting.clone(),
        threads: cfg.threads,
        driver: match driver {
            DriverKind::Builtin => "builtin".into(),
            DriverKind::Sysbench => "sysbench".into(),
        },
        summary: res.summary,
        samples: res.samples,
        statements,
        waits: None,
    }
}

fn line(label: &str, cfg: &RunConfig, r: &RunResult, s: Option<&Setting>) -> String {
    let s = s.map(|s| format!(" {}={}", s.variable, s.label)).unwrap_or_default();
    let m = &r.summary;
    let tpmc = m.tpcc.as_ref().map(|t| format!("  {:.0} tpmC", t.tpmc)).unwrap_or_default();
    format!(
        "{label:<16} {:<22} {:>4} threads {:>5.1} s{s}: {:>9.1} tps {:>9.0} qps  p95 {:>8.2} ms  {} errors{tpmc}",
        cfg.workload.script(),
        cfg.threads,
        m.seconds,
        m.tps,
        m.qps,
        m.p95_ms,
        m.errors
    )
}
