//! Scenarios, named after the seeds' charts. A scenario is a list of
//! phases; a phase is one server setting (or none) and the points to
//! measure under it.
//!
//! | scenario | what changes | seed |
//! |---|---|---|
//! | `default` | read_write and point_select at 1, 4, 16, 64, 256 threads, then read_write for 30 s at 64 threads (TPS over time) | the README's demo |
//! | `concurrency` | threads 1, 2, 4 ... 1024 | 000, 001 |
//! | `buffer-pool` | innodb_buffer_pool_size: 2x the data, 1/2, 1/4 of it | 000, 004 |
//! | `doublewrite` | innodb_doublewrite OFF / ON | 000, 001 |
//! | `flush-log` | innodb_flush_log_at_trx_commit 0 / 1 / 2 | 000, 003 |
//! | `thread-concurrency` | innodb_thread_concurrency 0 / 64 | 000, 002 |
//! | `sync-binlog` | sync_binlog 0 / 1 / 1000 / 10000 | 004 |
//! | `timeline` | one long run at one concurrency (stalls show) | 004 |
//! | `tpcc` | TPC-C's five transactions (`crate::tpcc`) at 4, 16, 64 threads | 002, 004 |
//!
//! Whether a target can take a setting is decided by [`crate::runner`]:
//! never pretended.

use std::time::Duration;

use crate::driver::Workload;

/// The named scenarios.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scenario {
    Default,
    Concurrency,
    BufferPool,
    Doublewrite,
    FlushLog,
    ThreadConcurrency,
    SyncBinlog,
    Timeline,
    Tpcc,
}

impl Scenario {
    pub fn name(self) -> &'static str {
        match self {
            Scenario::Default => "default",
            Scenario::Concurrency => "concurrency",
            Scenario::BufferPool => "buffer-pool",
            Scenario::Doublewrite => "doublewrite",
            Scenario::FlushLog => "flush-log",
            Scenario::ThreadConcurrency => "thread-concurrency",
            Scenario::SyncBinlog => "sync-binlog",
            Scenario::Timeline => "timeline",
            Scenario::Tpcc => "tpcc",
        }
    }

    /// The server variable a settings scenario changes.
    pub fn variable(self) -> Option<&'static str> {
        match self {
            Scenario::BufferPool => Some("innodb_buffer_pool_size"),
            Scenario::Doublewrite => Some("innodb_doublewrite"),
            Scenario::FlushLog => Some("innodb_flush_log_at_trx_commit"),
            Scenario::ThreadConcurrency => Some("innodb_thread_concurrency"),
            Scenario::SyncBinlog => Some("sync_binlog"),
            _ => None,
        }
    }
}

/// A server variable's value for one phase.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Setting {
    pub variable: String,
    /// As given to the server (`SET GLOBAL` or the command line).
    pub value: String,
    /// As reports show it: `ON`, `1/4 of data (6 MiB)`.
    pub label: String,
}

/// One measurement to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunSpec {
    pub workload: Workload,
    pub threads: u32,
    pub duration: Duration,
}

/// A setting (or none) and the runs under it.
#[derive(Debug, Clone)]
pub struct Phase {
    /// The scenario name the points are reported under.
    pub scenario: &'static str,
    pub setting: Option<Setting>,
    pub runs: Vec<RunSpec>,
}

/// What the command line chose; `None` takes the scenario's default.
#[derive(Debug, Clone, Default)]
pub struct Choices {
    pub workloads: Option<Vec<Workload>>,
    pub threads: Option<Vec<u32>>,
    pub time: Option<Duration>,
    pub timeline_threads: Option<u32>,
    pub timeline_time: Option<Duration>,
}

/// The default run's thread counts.
pub const DEFAULT_THREADS: [u32; 5] = [1, 4, 16, 64, 256];
/// Seconds per point unless `--time` says otherwise.
pub const DEFAULT_SECONDS: u64 = 8;

/// The TPC-C scenario's thread counts.
pub const TPCC_THREADS: [u32; 3] = [4, 16, 64];

/// The smallest buffer pool (innodb_buffer_pool_size's minimum).
const MIN_BUFFER_POOL_MIB: u64 = 5;

/// `1, 2, 4, ... 1024`.
pub fn doubling_threads() -> Vec<u32> {
    (0..=10).map(|i| 1u32 << i).collect()
}

fn mib(bytes: u64) -> String {
    format!("{} MiB", bytes.div_ceil(1 << 20))
}

/// The phases of `scenario`; `data_bytes` is the loaded data's size (for
/// the buffer pool sweep).
pub fn phases(scenario: Scenario, c: &Choices, data_bytes: u64) -> Vec<Phase> {
    let time = c.time.unwrap_or(Duration::from_secs(DEFAULT_SECONDS));
    let runs = |workloads: &[Workload], threads: &[u32]| -> Vec<RunSpec> {
        let ws = c.workloads.clone().unwrap_or_else(|| workloads.to_vec());
        let ts = c.threads.clone().unwrap_or_else(|| threads.to_vec());
        ws.iter().flat_map(|w| ts.iter().map(move |t| RunSpec { workload: *w, threads: *t, duration: time })).collect()
    };
    let timeline = || Phase {
        scenario: "timeline",
        setting: None,
        runs: vec![RunSpec {
            workload: c.workloads.as_ref().and_then(|w| w.first().copied()).unwrap_or(Workload::ReadWrite),
            threads: c.timeline_threads.unwrap_or(64),
            duration: c.timeline_time.unwrap_or(Duration::from_secs(30)),
        }],
    };
    let settings = |values: Vec<(String, String)>| -> Vec<Phase> {
        let var = scenario.variable().unwrap_or_default();
        values
            .into_iter()
            .map(|(value, label)| Phase {
                scenario: scenario.name(),
                setting: Some(Setting { variable: var.to_string(), value, label }),
                runs: runs(&[Workload::ReadWrite], &[16, 64]),
            })
            .collect()
    };
    let simple = |v: &[&str]| v.iter().map(|s| (s.to_string(), s.to_string())).collect::<Vec<_>>();
    match scenario {
        Scenario::Default => {
            let mut sweep = Phase {
                scenario: "concurrency",
                setting: None,
                runs: runs(&[Workload::ReadWrite, Workload::PointSelect], &DEFAULT_THREADS),
            };
            sweep.runs.sort_by_key(|r| (r.workload != Workload::ReadWrite, r.workload, r.threads));
            vec![sweep, timeline()]
        }
        Scenario::Concurrency => {
            vec![Phase {
                scenario: "concurrency",
                setting: None,
                runs: runs(&[Workload::ReadWrite], &doubling_threads()),
            }]
        }
        Scenario::Timeline => vec![timeline()],
        Scenario::Tpcc => vec![Phase {
            scenario: "tpcc",
            setting: None,
            runs: c
                .threads
                .clone()
                .unwrap_or_else(|| TPCC_THREADS.to_vec())
                .into_iter()
                .map(|threads| RunSpec { workload: Workload::Tpcc, threads, duration: time })
                .collect(),
        }],
        Scenario::BufferPool => {
            // Whole MiB, and never below the 5 MiB InnoDB (and quire) accept.
            let value = |num: u64, den: u64, name: &str| {
                let want = (data_bytes * num / den).div_ceil(1 << 20);
                let size = want.max(MIN_BUFFER_POOL_MIB) << 20;
                let floor = if want < MIN_BUFFER_POOL_MIB { ", the minimum" } else { "" };
                (size.to_string(), format!("{name} ({}{floor})", mib(size)))
            };
            settings(vec![value(2, 1, "2x data"), value(1, 2, "1/2 of data"), value(1, 4, "1/4 of data")])
        }
        Scenario::Doublewrite => settings(simple(&["OFF", "ON"])),
        Scenario::FlushLog => settings(simple(&["0", "1", "2"])),
        Scenario::ThreadConcurrency => settings(simple(&["0", "64"])),
        Scenario::SyncBinlog => settings(simple(&["0", "1", "1000", "10000"])),
    }
}

/// The most client threads any phase uses.
pub fn max_threads(phases: &[Phase]) -> u32 {
    phases.iter().flat_map(|p| p.runs.iter().map(|r| r.threads)).max().unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_a_sweep_then_a_timeline() {
        let p = phases(Scenario::Default, &Choices::default(), 0);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].runs.len(), 10);
        assert_eq!(
            p[0].runs[0],
            RunSpec { workload: Workload::ReadWrite, threads: 1, duration: Duration::from_secs(8) }
        );
        assert_eq!(p[1].runs[0].threads, 64);
        assert_eq!(max_threads(&p), 256);
    }

    #[test]
    fn tpcc_runs_its_own_workload_whatever_the_workloads_chosen() {
        let c = Choices { workloads: Some(vec![Workload::PointSelect]), ..Choices::default() };
        let p = phases(Scenario::Tpcc, &c, 0);
        assert_eq!(p.len(), 1);
        assert!(p[0].runs.iter().all(|r| r.workload == Workload::Tpcc));
        assert_eq!(p[0].runs.iter().map(|r| r.threads).collect::<Vec<_>>(), TPCC_THREADS);
    }

    #[test]
    fn buffer_pool_sizes_follow_the_data() {
        let p = phases(Scenario::BufferPool, &Choices::default(), 40 << 20);
        let values: Vec<&str> = p.iter().filter_map(|p| p.setting.as_ref()).map(|s| s.value.as_str()).collect();
        assert_eq!(values, [(80u64 << 20).to_string(), (20u64 << 20).to_string(), (10u64 << 20).to_string()]);
        assert_eq!(doubling_threads().last(), Some(&1024));
    }
}
