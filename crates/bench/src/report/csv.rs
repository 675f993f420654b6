//! `summary.csv` (one row per point) and `samples.csv` (one row per point
//! and second), RFC 4180: a header line, fields quoted when they hold a
//! comma, a quote or a line break; empty for a missing value; numbers with
//! a `.` decimal point; rows end with `\n`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::{Point, Report};
use crate::error::{Context, Result};

/// The header of `summary.csv`.
pub const SUMMARY_HEADER: &str = "target,scenario,workload,setting_variable,setting_value,threads,driver,seconds,\
events,queries,tps,qps,latency_min_ms,latency_avg_ms,latency_max_ms,p50_ms,p95_ms,p99_ms,errors,reconnects,tpmc,new_order,payment,order_status,delivery,stock_level,rolled_back";

/// The header of `samples.csv`.
pub const SAMPLES_HEADER: &str = "target,scenario,workload,setting_variable,setting_value,threads,second,tps,qps,\
reads_per_s,writes_per_s,other_per_s,p50_ms,p95_ms,p99_ms,errors_per_s,tpmc";

/// `text` as one CSV field.
pub fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

fn num(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.3}")
    } else {
        String::new()
    }
}

fn opt(v: Option<f64>) -> String {
    v.map(num).unwrap_or_default()
}

/// The fields every row starts with.
fn key(p: &Point) -> String {
    let (var, val) = p.setting.as_ref().map_or(("", ""), |s| (s.variable.as_str(), s.value.as_str()));
    [field(&p.target), field(&p.scenario), field(p.workload.name()), field(var), field(val), p.threads.to_string()]
        .join(",")
}

/// The text of `summary.csv`.
pub fn summary(r: &Report) -> String {
    let mut out = String::from(SUMMARY_HEADER);
    out.push('\n');
    for p in &r.points {
        let s = &p.summary;
        // TPC-C columns: empty for the sysbench workloads.
        let tpcc = s.tpcc.as_ref().map_or_else(
            || ",,,,,,".to_string(),
            |t| {
                format!(
                    "{},{},{},{},{},{},{}",
                    num(t.tpmc),
                    t.new_order,
                    t.payment,
                    t.order_status,
                    t.delivery,
                    t.stock_level,
                    t.rolled_back
                )
            },
        );
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            key(p),
            field(&p.driver),
            num(s.seconds),
            s.events,
            s.queries,
            num(s.tps),
            num(s.qps),
            num(s.latency_min_ms),
            num(s.latency_avg_ms),
            num(s.latency_max_ms),
            num(s.p50_ms),
            num(s.p95_ms),
            num(s.p99_ms),
            s.errors,
            s.reconnects,
            tpcc
        );
    }
    out
}

/// The text of `samples.csv`.
pub fn samples(r: &Report) -> String {
    let mut out = String::from(SAMPLES_HEADER);
    out.push('\n');
    for p in &r.points {
        let k = key(p);
        for s in &p.samples {
            let _ = writeln!(
                out,
                "{k},{},{},{},{},{},{},{},{},{},{},{}",
                s.second,
                num(s.tps),
                num(s.qps),
                num(s.reads_per_s),
                num(s.writes_per_s),
                num(s.other_per_s),
                opt(s.p50_ms),
                opt(s.p95_ms),
                opt(s.p99_ms),
                num(s.errors_per_s),
                opt(s.tpmc)
            );
        }
    }
    out
}

/// Writes both files into `dir`.
pub fn write(r: &Report, dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for (name, text) in [("summary.csv", summary(r)), ("samples.csv", samples(r))] {
        let path = dir.join(name);
        std::fs::write(&path, text).context(|| format!("cannot write {}", path.display()))?;
        files.push(path);
    }
    Ok(files)
}

/// Splits one CSV line into fields (quotes honoured); for tests and for
/// reading a report back.
pub fn parse_line(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut cur)),
            (c, _) => cur.push(c),
        }
    }
    fields.push(cur);
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        for t in ["plain", "a,b", "say \"hi\"", ""] {
            assert_eq!(parse_line(&format!("{},x", field(t))), vec![t.to_string(), "x".to_string()]);
        }
    }
}
