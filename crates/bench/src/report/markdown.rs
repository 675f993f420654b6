//! `README.md` of a report folder: how the run was made, the targets, per
//! scenario and workload a table of TPS and p95 per target with the ratio
//! of the first target to each other one, the charts (SVG inline, PNG
//! linked), and every note.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::charts::Chart;
use super::{Point, Report};
use crate::error::{Context, Result};

fn file_name(p: &Path) -> String {
    p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

fn fmt_num(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// The page's text.
pub fn render(r: &Report, charts: &[Chart]) -> String {
    let m = &r.meta;
    let mut o = String::new();
    let _ = writeln!(o, "# quire bench, {}\n", m.started);
    let _ = writeln!(o, "```\n{}\n```\n", m.command);
    let _ = writeln!(
        o,
        "Scenarios: {}. Driver: {}. Data: {}{}. Machine: {} CPUs, {:.1} GiB of memory; \
         the clients run on the same machine. Took {:.0} s.\n",
        m.scenarios.join(", "),
        m.driver,
        match m.warehouses {
            Some(w) if m.scenarios.len() == 1 => format!("TPC-C, {w} warehouse(s)"),
            Some(w) => format!("{} tables x {} rows; TPC-C, {w} warehouse(s)", m.tables, m.table_size),
            None => format!("{} tables x {} rows", m.tables, m.table_size),
        },
        if m.data_bytes > 0 {
            format!(" ({:.1} MiB in quire's files)", m.data_bytes as f64 / 1048576.0)
        } else {
            String::new()
        },
        m.cpus,
        m.memory_bytes as f64 / (1u64 << 30) as f64,
        m.seconds_total
    );
    let _ = writeln!(
        o,
        "TPS is events (sysbench transactions) per second; latency is per event; errors are deadlocks and lock \
         wait timeouts, each retried and counted. Ratios are the first target over each other one, measured in \
         this run.\n"
    );
    let _ = writeln!(o, "## Targets\n\n| target | server | address | how |\n|---|---|---|---|");
    for t in &r.targets {
        let how = if t.options.is_empty() {
            t.kind.clone()
        } else {
            let opts: Vec<String> = t.options.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{} ({})", t.kind, opts.join(" "))
        };
        let _ = writeln!(o, "| {} | {} | `{}` | {} |", t.label, t.version, t.address, how);
    }
    o.push('\n');
    let labels = r.target_labels();
    let mut groups: BTreeMap<(String, String), Vec<&Point>> = BTreeMap::new();
    let mut order: Vec<(String, String)> = Vec::new();
    for p in &r.points {
        let k = (p.scenario.clone(), p.workload.name().to_string());
        if !groups.contains_key(&k) {
            order.push(k.clone());
        }
        groups.entry(k).or_default().push(p);
    }
    for k in order {
        let points = &groups[&k];
        let _ = writeln!(o, "## {}: {}\n", k.0, points[0].workload.script());
        for c in charts.iter().filter(|c| c.scenario == k.0 && c.workload == k.1) {
            let _ = writeln!(o, "![{}]({}) ([PNG]({}))\n", c.title, file_name(&c.svg), file_name(&c.png));
        }
        table(&mut o, points, &labels);
        waits_table(&mut o, points);
        if k.0 == "timeline" {
            for p in points {
                if let Some(low) = p.samples.iter().min_by(|a, b| a.tps.total_cmp(&b.tps)) {
                    let _ = writeln!(
                        o,
                        "{}: lowest one-second TPS {} at second {} (mean {}).",
                        p.target,
                        fmt_num(low.tps),
                        low.second,
                        fmt_num(p.summary.tps)
                    );
                }
            }
            o.push('\n');
        }
    }
    if !r.notes.is_empty() {
        let _ = writeln!(o, "## Notes\n");
        for n in &r.notes {
            let setting = n.setting.as_ref().map(|s| format!(" ({s})")).unwrap_or_default();
            let _ = writeln!(o, "- **{}**, {}{}: {}", n.target, n.scenario, setting, n.text);
        }
        o.push('\n');
    }
    let _ = writeln!(
        o,
        "## Files\n\n- [`results.json`](results.json): everything, per point and per second\n\
         - [`summary.csv`](summary.csv): one row per point\n- [`samples.csv`](samples.csv): one row per point and second"
    );
    o
}

/// The five instruments each target waited on longest at the group's
/// highest concurrency, as mean seconds waited per second of the run.
fn waits_table(o: &mut String, points: &[&Point]) {
    let Some(most) = points.iter().filter(|p| p.waits.is_some()).map(|p| p.threads).max() else { return };
    let mut rows = Vec::new();
    for p in points.iter().filter(|p| p.threads == most) {
        let Some(seconds) = p.waits.as_deref().filter(|s| !s.is_empty()) else { continue };
        for (name, total) in crate::waits::top(seconds, 5) {
            let setting = p.setting.as_ref().map(|s| format!(" {}={}", s.variable, s.label)).unwrap_or_default();
            rows.push(format!("| {}{setting} | `{name}` | {:.3} |", p.target, total / seconds.len() as f64));
        }
    }
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "Top waits at {most} threads (performance_schema, seconds waited per second):\n\n| target | instrument | s/s |\n|---|---|---:|"
    );
    for r in rows {
        let _ = writeln!(o, "{r}");
    }
    o.push('\n');
}

/// One row per (setting, threads), a TPS and p95 column per target, and
/// ratios against the first target.
fn table(o: &mut String, points: &[&Point], labels: &[String]) {
    let present: Vec<&String> = labels.iter().filter(|l| points.iter().any(|p| &p.target == *l)).collect();
    let has_setting = points.iter().any(|p| p.setting.is_some());
    let mut head = String::from("|");
    let mut rule = String::from("|");
    if has_setting {
        head.push_str(" setting |");
        rule.push_str("---|");
    }
    head.push_str(" threads |");
    rule.push_str("---:|");
    for l in &present {
        let _ = write!(head, " {l} TPS |");
        rule.push_str("---:|");
    }
    for l in present.iter().skip(1) {
        let _ = write!(head, " {} / {l} |", present[0]);
        rule.push_str("---:|");
    }
    let tpcc = points.iter().any(|p| p.summary.tpcc.is_some());
    if tpcc {
        for l in &present {
            let _ = write!(head, " {l} tpmC |");
            rule.push_str("---:|");
        }
    }
    for l in &present {
        let _ = write!(head, " {l} p95 ms |");
        rule.push_str("---:|");
    }
    head.push_str(" retried errors |");
    rule.push_str("---:|");
    let _ = writeln!(o, "{head}\n{rule}");
    let mut rows: Vec<(String, u32)> = Vec::new();
    for p in points {
        let key = (p.setting.as_ref().map(|s| s.label.clone()).unwrap_or_default(), p.threads);
        if !rows.contains(&key) {
            rows.push(key);
        }
    }
    for (setting, threads) in rows {
        let find = |l: &str| {
            points.iter().find(|p| {
                p.target == l
                    && p.threads == threads
                    && p.setting.as_ref().map_or(String::new(), |s| s.label.clone()) == setting
            })
        };
        let mut line = String::from("|");
        if has_setting {
            let _ = write!(line, " {setting} |");
        }
        let _ = write!(line, " {threads} |");
        for l in &present {
            let _ = write!(line, " {} |", find(l).map_or("-".into(), |p| fmt_num(p.summary.tps)));
        }
        let first = find(present[0]).map(|p| p.summary.tps);
        for l in present.iter().skip(1) {
            let ratio = match (first, find(l).map(|p| p.summary.tps)) {
                (Some(a), Some(b)) if b > 0.0 => format!("{a:.2}", a = a / b),
                _ => "-".into(),
            };
            let _ = write!(line, " {ratio} |");
        }
        if tpcc {
            for l in &present {
                let tpmc = find(l).and_then(|p| p.summary.tpcc.as_ref()).map(|t| t.tpmc);
                let _ = write!(line, " {} |", tpmc.map_or("-".into(), fmt_num));
            }
        }
        for l in &present {
            let _ = write!(line, " {} |", find(l).map_or("-".into(), |p| fmt_num(p.summary.p95_ms)));
        }
        let errors: u64 = present.iter().filter_map(|l| find(l)).map(|p| p.summary.errors).sum();
        let _ = writeln!(line, " {errors} |");
        o.push_str(&line);
    }
    o.push('\n');
}

/// The tables alone, for the terminal at the end of a run.
pub fn console_summary(r: &Report) -> String {
    let labels = r.target_labels();
    let mut o = String::new();
    let mut seen: Vec<(String, String)> = Vec::new();
    for p in &r.points {
        let k = (p.scenario.clone(), p.workload.name().to_string());
        if seen.contains(&k) {
            continue;
        }
        let points: Vec<&Point> = r.points.iter().filter(|q| q.scenario == k.0 && q.workload.name() == k.1).collect();
        let _ = writeln!(o, "{}: {}", k.0, p.workload.script());
        table(&mut o, &points, &labels);
        seen.push(k);
    }
    for n in &r.notes {
        let setting = n.setting.as_ref().map(|s| format!(" ({s})")).unwrap_or_default();
        let _ = writeln!(o, "note: {}, {}{}: {}", n.target, n.scenario, setting, n.text);
    }
    o
}

/// Writes `README.md` into `dir`.
pub fn write(r: &Report, dir: &Path, charts: &[Chart]) -> Result<PathBuf> {
    let path = dir.join("README.md");
    std::fs::write(&path, render(r, charts)).context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}
