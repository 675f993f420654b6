//! The report: every point measured, every note (settings a target could
//! not take, points that failed), and the files made from them in one
//! folder:
//!
//! | file | what |
//! |---|---|
//! | `README.md` | the summary page: tables with ratios, the charts, notes |
//! | `results.json` | everything below, as one [`Report`] |
//! | `summary.csv` | one row per point |
//! | `samples.csv` | one row per point and second |
//! | `*.svg`, `*.png` | TPS and p95 against threads, TPS over time |
//!
//! Invariant: files are written only from a [`Report`], so the JSON, the
//! CSV and the charts always show the same numbers.

pub mod charts;
pub mod csv;
pub mod markdown;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::driver::{Sample, Summary, Workload};
use crate::error::{Context, Result};
use crate::scenario::Setting;

/// One measured point.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Point {
    pub target: String,
    pub scenario: String,
    pub workload: Workload,
    pub setting: Option<Setting>,
    pub threads: u32,
    /// `builtin` or `sysbench`.
    pub driver: String,
    pub summary: Summary,
    pub samples: Vec<Sample>,
    /// Statements of completed events per type (built-in driver only).
    pub statements: Option<BTreeMap<String, u64>>,
    /// Seconds waited per instrument in each second of the run, from the
    /// target's performance_schema (`waits.rs`); absent when unreadable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waits: Option<Vec<crate::waits::WaitSecond>>,
}

/// Something the reader must know: a setting a target could not take, a
/// scenario not available, a point that failed.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Note {
    pub target: String,
    pub scenario: String,
    pub setting: Option<String>,
    pub text: String,
}

/// A server that was measured.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct TargetInfo {
    pub label: String,
    /// Where it listened (no password).
    pub address: String,
    pub version: String,
    /// `embedded` or `external`.
    pub kind: String,
    /// The options an embedded quire was started with.
    pub options: Vec<(String, String)>,
}

/// How the run was made.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Meta {
    /// UTC, `2026-11-22T14:03:00Z`.
    pub started: String,
    pub command: String,
    pub quire_version: String,
    pub driver: String,
    pub scenarios: Vec<String>,
    pub tables: u32,
    pub table_size: u32,
    /// TPC-C's warehouses, when the `tpcc` scenario ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warehouses: Option<u32>,
    /// The data's size on disk in the embedded quire (0 when unknown).
    pub data_bytes: u64,
    pub cpus: usize,
    pub memory_bytes: u64,
    pub seconds_total: f64,
}

/// Everything one `quire bench` measured.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Report {
    pub meta: Meta,
    pub targets: Vec<TargetInfo>,
    pub points: Vec<Point>,
    pub notes: Vec<Note>,
}

impl Report {
    /// Target labels in the order they were given (the first is the one
    /// ratios are taken against).
    pub fn target_labels(&self) -> Vec<String> {
        self.targets.iter().map(|t| t.label.clone()).collect()
    }

    /// Writes every file into `dir` (created if missing); returns them.
    pub fn write(&self, dir: &Path) -> Result<Vec<PathBuf>> {
        std::fs::create_dir_all(dir).context(|| format!("cannot create {}", dir.display()))?;
        let mut files = Vec::new();
        let json = dir.join("results.json");
        let text = serde_json::to_string_pretty(self).context(|| "cannot encode results.json".to_string())?;
        std::fs::write(&json, text + "\n").context(|| format!("cannot write {}", json.display()))?;
        files.push(json);
        files.extend(csv::write(self, dir)?);
        let charts = charts::write_all(self, dir)?;
        files.extend(charts.iter().flat_map(|c| [c.svg.clone(), c.png.clone()]));
        files.push(markdown::write(self, dir, &charts)?);
        Ok(files)
    }
}

/// A file-name-safe form of `text`: `read_write`, `flush-log`.
pub fn slug(text: &str) -> String {
    let mut s: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c.to_ascii_lowercase() } else { '-' })
        .collect();
    while s.contains("--") {
        s = s.replace("--", "-");
    }
    s.trim_matches('-').to_string()
}
