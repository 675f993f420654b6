//! The row producers of the performance_schema tables.

use quire_engine::row::Value;
use quire_engine::wait::{self, FileOp, Totals, ALL as INSTRUMENTS};

use crate::session::Session;

/// Nanoseconds as picoseconds (invariant 3).
fn ps(ns: u64) -> Value {
    Value::UInt(ns.saturating_mul(1000))
}

/// COUNT_STAR, SUM / MIN / AVG / MAX_TIMER_WAIT.
fn summary(t: &Totals) -> [Value; 5] {
    [Value::UInt(t.count), ps(t.sum_ns), ps(t.min_or_zero()), ps(t.avg_ns()), ps(t.max_ns)]
}

fn text(v: &str) -> Value {
    Value::Str(v.to_string())
}

fn yes_no(b: bool) -> Value {
    text(if b { "YES" } else { "NO" })
}

/// events_waits_summary_global_by_event_name: one row per instrument,
/// waited on or not (as MySQL lists every instrument).
pub fn waits_global() -> Vec<Vec<Value>> {
    wait::global()
        .iter()
        .zip(INSTRUMENTS.iter())
        .map(|(t, info)| {
            let mut r = vec![text(info.name)];
            r.extend(summary(t));
            r
        })
        .collect()
}

/// events_waits_summary_by_thread_by_event_name: one row per live thread
/// and instrument.
pub fn waits_by_thread() -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    for th in wait::threads() {
        for (t, info) in th.waits.iter().zip(INSTRUMENTS.iter()) {
            let mut r = vec![Value::UInt(th.thread_id), text(info.name)];
            r.extend(summary(t));
            out.push(r);
        }
    }
    out
}

/// file_summary_by_event_name: the file instruments, their operations
/// summed by kind.
pub fn file_summary() -> Vec<Vec<Value>> {
    let files = wait::files();
    let global = wait::global();
    INSTRUMENTS
        .iter()
        .filter_map(|info| wait::names::file_index(info.instrument).map(|k| (info, k)))
        .map(|(info, k)| {
            let mut r = vec![text(info.name)];
            r.extend(summary(&global[info.instrument as usize]));
            for op in [FileOp::Read, FileOp::Write, FileOp::Misc] {
                let o = files[k].ops[op as usize];
                r.extend(summary(&o.waits));
                if op != FileOp::Misc {
                    r.push(Value::Int(o.bytes.min(i64::MAX as u64) as i64));
                }
            }
            r
        })
        .collect()
}

/// setup_instruments: every instrument with its switches.
pub fn setup_instruments() -> Vec<Vec<Value>> {
    INSTRUMENTS
        .iter()
        .map(|info| {
            vec![
                text(info.name),
                yes_no(wait::enabled(info.instrument)),
                yes_no(wait::timed(info.instrument)),
                text(""),
                Value::Int(0),
                text(info.doc),
            ]
        })
        .collect()
}

/// threads: the threads that have recorded a wait (every connection's
/// thread does when it starts serving one), with their connection's
/// process list entry. Background threads are named after their OS
/// thread (`thread/innodb/<name>`).
pub fn threads(s: &Session) -> Vec<Vec<Value>> {
    let processes = s.shared.processes.all();
    let mut out = Vec::new();
    for th in wait::threads() {
        let p = (th.processlist_id != 0)
            .then(|| processes.iter().find(|p| u64::from(p.id) == th.processlist_id))
            .flatten()
            .map(|p| p.row(true));
        let foreground = p.is_some();
        let connection = p.as_ref().map(|p| if p.host == "localhost" { "Socket" } else { "TCP/IP" });
        let name = if foreground {
            "thread/sql/one_connection".to_string()
        } else if th.name == "main" {
            "thread/sql/main".to_string()
        } else if th.name.is_empty() {
            "thread/innodb/unnamed".to_string()
        } else {
            format!("thread/innodb/{}", th.name)
        };
        let opt = |v: Option<String>| v.map_or(Value::Null, Value::Str);
        let mut r = vec![
            Value::UInt(th.thread_id),
            Value::Str(name),
            text(if foreground { "FOREGROUND" } else { "BACKGROUND" }),
        ];
        match p {
            Some(p) => r.extend([
                Value::UInt(u64::from(p.id)),
                Value::Str(p.user),
                Value::Str(p.host),
                opt(p.db),
                text(p.command),
                Value::Int(p.time_secs.min(i64::MAX as u64) as i64),
                text(p.state),
                opt(p.info),
            ]),
            None => r.extend(std::iter::repeat_n(Value::Null, 8)),
        }
        r.extend([
            Value::Null, // PARENT_THREAD_ID
            Value::Null, // ROLE
            yes_no(true),
            yes_no(true),
            connection.map_or(Value::Null, text),
            Value::UInt(th.os_id),
            Value::Null, // RESOURCE_GROUP
        ]);
        out.push(r);
    }
    out
}

/// (name, value) pairs as VARIABLE_NAME / VARIABLE_VALUE rows.
pub fn pairs(v: Vec<(String, String)>) -> Vec<Vec<Value>> {
    v.into_iter().map(|(n, v)| vec![Value::Str(n), Value::Str(v)]).collect()
}

/// A time of the wall clock (µs since the epoch) in the session's zone.
fn stamp(us: u64) -> Value {
    let secs = (us / 1_000_000) as i64;
    quire_engine::row::tz::from_unix_seconds(secs, (us % 1_000_000) as u32)
        .map_or(Value::Null, |dt| Value::DateTime(quire_engine::row::tz::utc_to_local(dt)))
}

/// events_statements_summary_by_digest. The optimizer's and sorts'
/// per-statement counters (SUM_SELECT_*, SUM_SORT_*, SUM_NO_*INDEX_USED,
/// SUM_CREATED_TMP_*), CPU time, memory and secondary-engine counts are
/// not kept per statement by quire: 0 (docs/SQL.md says so).
pub fn statements_by_digest(s: &Session) -> Vec<Vec<Value>> {
    s.shared
        .digests
        .all()
        .iter()
        .map(|d| {
            let t = d.sums();
            let opt = |v: &Option<String>| v.clone().map_or(Value::Null, Value::Str);
            let mut r = vec![opt(&d.schema), opt(&d.digest), opt(&d.text), Value::UInt(t.count), ps(t.sum_ns)];
            r.extend([ps(t.min_ns), ps(t.sum_ns.checked_div(t.count).unwrap_or(0)), ps(t.max_ns), ps(t.lock_ns)]);
            r.extend([t.errors, t.warnings, t.affected, t.sent, t.examined].map(Value::UInt));
            r.extend(std::iter::repeat_n(Value::UInt(0), 17));
            r.extend([stamp(t.first_seen_us), stamp(t.last_seen_us)]);
            r.extend(t.quantiles.map(ps));
            r.extend([opt(&d.sample), stamp(t.first_seen_us), ps(t.sample_ns)]);
            r
        })
        .collect()
}
