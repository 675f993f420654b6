//! The real `sysbench` (1.0.20) as the driver (`--driver sysbench`): one
//! `sysbench oltp_<workload> run` per point with `--report-interval=1` and
//! `--histogram=on`, its output parsed into the same samples and summary
//! the built-in driver produces.
//!
//! What sysbench's output gives and what it does not:
//! - per second: TPS, QPS (read/write/other), the 95th percentile, errors;
//!   not p50 / p99 (those samples stay empty);
//! - at the end: totals, min/avg/max/95th latency, and the latency
//!   histogram, from which p50 / p95 / p99 are read;
//! - statement counts only per class, and sysbench's classes are by
//!   result, not statement: a write that changed no row (a DELETE of a
//!   missing id) is "other" there, while the built-in driver files every
//!   DELETE as a write.

use std::process::{Command, Stdio};

use crate::driver::{RunConfig, RunResult, Sample, StmtCounts, Summary};
use crate::error::{Error, Result};
use crate::target::TargetSpec;

/// `sysbench --version`, or None when it is not installed.
pub fn version() -> Option<String> {
    let out = Command::new("sysbench").arg("--version").stdin(Stdio::null()).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The command line for one point (password included: it is not logged).
pub fn args(spec: &TargetSpec, cfg: &RunConfig) -> Vec<String> {
    let m = &cfg.mix;
    let mut a = vec![
        cfg.workload.script(),
        "--db-driver=mysql".to_string(),
        format!("--mysql-host={}", spec.host),
        format!("--mysql-port={}", spec.port),
        format!("--mysql-user={}", spec.user),
        format!("--mysql-password={}", spec.password),
        format!("--mysql-db={}", spec.database),
        "--mysql-ignore-errors=1213,1205".to_string(),
        format!("--tables={}", cfg.tables),
        format!("--table-size={}", cfg.table_size),
        format!("--threads={}", cfg.threads),
        format!("--time={}", cfg.duration.as_secs()),
        format!("--events={}", cfg.events),
        "--report-interval=1".to_string(),
        "--histogram=on".to_string(),
        format!("--point-selects={}", m.point_selects),
        format!("--simple-ranges={}", m.simple_ranges),
        format!("--sum-ranges={}", m.sum_ranges),
        format!("--order-ranges={}", m.order_ranges),
        format!("--distinct-ranges={}", m.distinct_ranges),
        format!("--index-updates={}", m.index_updates),
        format!("--non-index-updates={}", m.non_index_updates),
        format!("--delete-inserts={}", m.delete_inserts),
        format!("--range-size={}", m.range_size),
    ];
    a.push("run".to_string());
    a
}

/// Runs sysbench for `cfg` against `spec` and parses its report.
pub fn run(spec: &TargetSpec, cfg: &RunConfig) -> Result<RunResult> {
    let out = Command::new("sysbench")
        .args(args(spec, cfg))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Error::new(format!("cannot run sysbench ({e}); install it (apt-get install sysbench)")))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || text.contains("FATAL") || err.contains("FATAL") {
        let tail: Vec<&str> =
            text.lines().chain(err.lines()).filter(|l| l.contains("FATAL") || l.contains("rror")).collect();
        return Err(Error::new(format!(
            "sysbench {} on {} at {} threads failed ({}): {}",
            cfg.workload.script(),
            spec.name(),
            cfg.threads,
            out.status,
            tail.join(" | ")
        )));
    }
    parse(&text).map_err(|e| Error::new(format!("sysbench {} on {}: {e}", cfg.workload.script(), spec.name())))
}

/// The first number in `s` (digits, `.`).
fn number(s: &str) -> Option<f64> {
    let start = s.find(|c: char| c.is_ascii_digit())?;
    let rest = &s[start..];
    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// The number after `key` on `line`.
fn after(line: &str, key: &str) -> Option<f64> {
    line.find(key).and_then(|i| number(&line[i + key.len()..]))
}

/// `[ 3s ] thds: 4 tps: 1049.84 qps: 21016.65 (r/w/o: 14715.92/4199.36/2101.37)
/// lat (ms,95%): 5.47 err/s: 0.00 reconn/s: 0.00`
fn interval_line(line: &str) -> Option<Sample> {
    let t = line.trim_start();
    if !t.starts_with('[') || !t.contains("tps:") {
        return None;
    }
    let second = number(t)? as u32;
    let rwo = t.split("r/w/o:").nth(1)?.trim_start();
    let rwo: Vec<f64> = rwo.split(')').next()?.split('/').filter_map(number).collect();
    let p95 = after(t, "%):")?;
    Some(Sample {
        second,
        tps: after(t, "tps:")?,
        qps: after(t, "qps:")?,
        reads_per_s: *rwo.first()?,
        writes_per_s: *rwo.get(1)?,
        other_per_s: *rwo.get(2)?,
        p50_ms: None,
        p95_ms: Some(p95),
        p99_ms: None,
        errors_per_s: after(t, "err/s:").unwrap_or(0.0),
        tpmc: None,
    })
}

/// Parses a whole `sysbench ... run` output.
pub fn parse(text: &str) -> Result<RunResult> {
    let samples: Vec<Sample> = text.lines().filter_map(interval_line).collect();
    let field = |key: &str| -> Result<f64> {
        text.lines()
            .find(|l| l.trim_start().starts_with(key))
            .and_then(|l| after(l, key))
            .ok_or_else(|| Error::new(format!("no '{key}' in sysbench's report")))
    };
    let mut hist: Vec<(f64, u64)> = Vec::new();
    let mut in_hist = false;
    for line in text.lines() {
        if line.contains("Latency histogram") {
            in_hist = true;
            continue;
        }
        if in_hist {
            match line.split_once('|') {
                Some((v, rest)) => {
                    let (Some(value), Some(count)) = (number(v), rest.split_whitespace().last().and_then(number))
                    else {
                        continue;
                    };
                    hist.push((value, count as u64));
                }
                None if line.contains("value") => {}
                None => in_hist = false,
            }
        }
    }
    let total: u64 = hist.iter().map(|(_, c)| c).sum();
    let quantile = |q: f64| -> Option<f64> {
        let want = (q * total as f64).ceil() as u64;
        let mut seen = 0;
        hist.iter()
            .find(|(_, c)| {
                seen += c;
                seen >= want.max(1)
            })
            .map(|(v, _)| *v)
    };
    let seconds = field("total time:")?;
    let events = field("transactions:")? as u64;
    let queries = field("queries:")? as u64;
    let p95 = field("95th percentile:")?;
    let summary = Summary {
        seconds,
        events,
        queries,
        reads: field("read:")? as u64,
        writes: field("write:")? as u64,
        other: field("other:")? as u64,
        tps: if seconds > 0.0 { events as f64 / seconds } else { 0.0 },
        qps: if seconds > 0.0 { queries as f64 / seconds } else { 0.0 },
        latency_min_ms: field("min:")?,
        latency_avg_ms: field("avg:")?,
        latency_max_ms: field("max:")?,
        p50_ms: quantile(0.50).unwrap_or(0.0),
        p95_ms: quantile(0.95).unwrap_or(p95),
        p99_ms: quantile(0.99).unwrap_or(0.0),
        errors: field("ignored errors:")? as u64,
        reconnects: field("reconnects:")? as u64,
        tpcc: None,
    };
    Ok(RunResult { samples, summary, statements: StmtCounts::default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)

Running the test with following options:
Number of threads: 4
Report intermediate results every 1 second(s)

Initializing worker threads...

Threads started!

[ 1s ] thds: 4 tps: 1049.84 qps: 21016.65 (r/w/o: 14715.92/4199.36/2101.37) lat (ms,95%): 5.47 err/s: 0.00 reconn/s: 0.00
[ 2s ] thds: 4 tps: 1000.00 qps: 20000.00 (r/w/o: 14000.00/4000.00/2000.00) lat (ms,95%): 6.00 err/s: 1.00 reconn/s: 0.00
Latency histogram (values are in milliseconds)
       value  ------------- distribution ------------- count
       2.000 |****                                     10
       3.000 |****************************************  80
       9.000 |**                                       10
 
SQL statistics:
    queries performed:
        read:                            28000
        write:                           8000
        other:                           4000
        total:                           40000
    transactions:                        2000   (999.00 per sec.)
    queries:                             40000  (19980.00 per sec.)
    ignored errors:                      1      (0.50 per sec.)
    reconnects:                          0      (0.00 per sec.)

General statistics:
    total time:                          2.0020s
    total number of events:              2000

Latency (ms):
         min:                                    2.00
         avg:                                    3.50
         max:                                    9.50
         95th percentile:                        6.00
         sum:                                 7000.00
";

    #[test]
    fn parses_intervals_summary_and_histogram() {
        let r = parse(OUTPUT).expect("parses");
        assert_eq!(r.samples.len(), 2);
        assert_eq!(r.samples[0].second, 1);
        assert_eq!(r.samples[0].reads_per_s, 14715.92);
        assert_eq!(r.samples[1].errors_per_s, 1.0);
        assert_eq!(r.samples[1].p95_ms, Some(6.0));
        let s = &r.summary;
        assert_eq!((s.events, s.queries, s.reads, s.writes, s.other, s.errors), (2000, 40000, 28000, 8000, 4000, 1));
        assert_eq!((s.p50_ms, s.p95_ms, s.p99_ms), (3.0, 9.0, 9.0));
        assert_eq!(s.latency_max_ms, 9.5);
        assert!((s.tps - 999.0).abs() < 0.1);
    }

    #[test]
    fn a_truncated_report_is_an_error() {
        assert!(parse("Threads started!\n").is_err());
    }
}
