//! `quire bench`: sysbench's OLTP workloads against quire and any
//! MySQL-compatible server, swept over client threads and server settings,
//! reported as CSV, JSON, SVG/PNG charts and a markdown page.
//!
//! With no `--target` it starts quire in this process with its defaults in
//! a temporary directory (`embedded`); each `--target mysql://...` adds a
//! server, measured in the same run so that ratios mean something.
//!
//! Modules, top down: `runner` (the whole run), `scenario` (what to
//! measure), `driver` (the load: workloads, client threads, samples),
//! `sysbench` (the real sysbench as the driver instead), `embedded`,
//! `target`, `report` (csv, json, charts, markdown).
#![deny(clippy::unwrap_used)]

pub mod driver;
pub mod embedded;
pub mod error;
pub mod report;
pub mod runner;
pub mod scenario;
pub mod sysbench;
pub mod target;
pub mod timestamp;
pub mod tpcc;
pub mod waits;

use std::path::PathBuf;
use std::time::Duration;

pub use error::{Error, Result};
pub use runner::DriverKind;
pub use scenario::Scenario;

use driver::Workload;

fn parse_workload(s: &str) -> std::result::Result<Workload, String> {
    Workload::parse(s).ok_or_else(|| {
        let names: Vec<&str> = Workload::ALL.iter().map(|w| w.name()).collect();
        format!("unknown workload '{s}' (one of: {})", names.join(", "))
    })
}

fn parse_option(s: &str) -> std::result::Result<(String, String), String> {
    let (k, v) = s.split_once('=').ok_or_else(|| format!("'{s}' is not name=value"))?;
    Ok((k.trim().trim_start_matches("--").to_string(), v.trim().to_string()))
}

/// `quire bench` options.
#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// Scenarios to run, in order (comma-separated or repeated).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "default")]
    pub scenario: Vec<Scenario>,
    /// Client thread counts (default: the scenario's, e.g. 1,4,16,64,256).
    #[arg(long, value_delimiter = ',')]
    pub threads: Vec<u32>,
    /// Seconds per point (default 8).
    #[arg(long)]
    pub time: Option<u64>,
    /// Workloads: point_select, read_only, read_write, write_only,
    /// update_index, update_non_index, insert, delete (default: the
    /// scenario's).
    #[arg(long, value_delimiter = ',', value_parser = parse_workload)]
    pub workload: Vec<Workload>,
    /// Tables (sbtest1..N).
    #[arg(long, default_value_t = 4)]
    pub tables: u32,
    /// Rows per table.
    #[arg(long, default_value_t = 20_000)]
    pub table_size: u32,
    /// Another server to measure: `[label=]mysql://user:password@host:port/db`
    /// (repeatable). Its tables sbtest1..N are dropped and loaded again.
    #[arg(long)]
    pub target: Vec<String>,
    /// Do not start the embedded quire (only the --target servers).
    #[arg(long)]
    pub no_embedded: bool,
    /// A variable for the embedded quire, `name=value` (repeatable), e.g.
    /// innodb_buffer_pool_size=512M.
    #[arg(long, value_parser = parse_option)]
    pub quire_option: Vec<(String, String)>,
    /// Report folder (default: bench-report/<UTC time>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The load generator: the built-in driver or the real sysbench.
    #[arg(long, value_enum, default_value = "builtin")]
    pub driver: DriverKind,
    /// Threads of the built-in driver; each drives its share of the
    /// client connections (0: four per CPU).
    #[arg(long, default_value_t = 0)]
    pub driver_threads: u32,
    /// Stop each point after this many events (sysbench's --events; 0: no
    /// limit). Without --time, points then run until the events are done.
    #[arg(long, default_value_t = 0)]
    pub events: u64,
    /// Threads of the TPS-over-time run (default 64).
    #[arg(long)]
    pub timeline_threads: Option<u32>,
    /// Seconds of the TPS-over-time run (default 30).
    #[arg(long)]
    pub timeline_time: Option<u64>,
    /// Use the tables already on the --target servers instead of loading
    /// them (the embedded quire is always loaded).
    #[arg(long)]
    pub skip_prepare: bool,
    /// Tables loaded in parallel.
    #[arg(long, default_value_t = 4)]
    pub prepare_threads: u32,
    /// Where the embedded quire's temporary data directory goes.
    #[arg(long)]
    pub tmpdir: Option<PathBuf>,
    /// Seed of the random numbers.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// TPC-C (`--scenario tpcc`): warehouses to load.
    #[arg(long, default_value_t = 1)]
    pub warehouses: u32,
    /// TPC-C: the tables without their foreign keys (sysbench-tpcc's
    /// --use_fk=0).
    #[arg(long)]
    pub no_foreign_keys: bool,
    /// TPC-C: after the runs, check the consistency conditions (clause
    /// 3.3.2) on every target; a violation fails the benchmark.
    #[arg(long)]
    pub check: bool,
    /// TPC-C: only check the consistency conditions of the tables already
    /// on the --target servers (no load, no run).
    #[arg(long)]
    pub check_only: bool,
    /// TPC-C, for quick tests only: items instead of the standard 100 000.
    #[arg(long, hide = true)]
    pub tpcc_items: Option<u32>,
    /// TPC-C, for quick tests only: customers (and orders) per district
    /// instead of the standard 3 000.
    #[arg(long, hide = true)]
    pub tpcc_customers: Option<u32>,
}

impl Args {
    /// The runner's options; `command` is the command line for the report.
    pub fn options(&self, command: String) -> Result<runner::Options> {
        let targets = self.target.iter().map(|t| target::TargetSpec::parse(t)).collect::<Result<Vec<_>>>()?;
        if self.tables == 0 || self.table_size == 0 {
            return Err(Error::new("--tables and --table-size must be at least 1"));
        }
        if self.threads.contains(&0) {
            return Err(Error::new("--threads must be at least 1"));
        }
        let time = match (self.time, self.events) {
            (Some(t), _) => Some(Duration::from_secs(t)),
            (None, e) if e > 0 => Some(Duration::ZERO),
            _ => None,
        };
        if time == Some(Duration::ZERO) && self.events == 0 {
            return Err(Error::new("--time 0 needs --events"));
        }
        let out = self.out.clone().unwrap_or_else(|| {
            PathBuf::from("bench-report").join(timestamp::utc_compact(std::time::SystemTime::now()))
        });
        Ok(runner::Options {
            scenarios: self.scenario.clone(),
            choices: scenario::Choices {
                workloads: (!self.workload.is_empty()).then(|| self.workload.clone()),
                threads: (!self.threads.is_empty()).then(|| self.threads.clone()),
                time,
                timeline_threads: self.timeline_threads,
                timeline_time: self.timeline_time.map(Duration::from_secs),
            },
            data: driver::prepare::DataSpec { tables: self.tables, table_size: self.table_size },
            targets,
            embedded: !self.no_embedded,
            quire_options: self.quire_option.clone(),
            driver: self.driver,
            driver_workers: self.driver_threads,
            events: self.events,
            out,
            skip_prepare: self.skip_prepare,
            prepare_threads: self.prepare_threads,
            progress: true,
            mix: driver::Mix::default(),
            seed: self.seed,
            command,
            tmpdir: self.tmpdir.clone(),
            tpcc: runner::TpccOptions {
                scale: self.tpcc_scale()?,
                foreign_keys: !self.no_foreign_keys,
                check: self.check,
            },
        })
    }

    /// The TPC-C database the options ask for.
    pub fn tpcc_scale(&self) -> Result<tpcc::Scale> {
        let mut s = tpcc::Scale::standard(self.warehouses);
        s.items = self.tpcc_items.unwrap_or(s.items);
        s.customers = self.tpcc_customers.unwrap_or(s.customers);
        match s.invalid() {
            Some(why) => Err(Error::new(format!("{why} (--warehouses, --tpcc-items, --tpcc-customers)"))),
            None => Ok(s),
        }
    }
}

/// `quire bench`: runs, writes the report, prints where it is.
pub fn run(args: Args) -> Result<()> {
    let command = std::iter::once("quire".to_string())
        .chain(std::env::args().skip(1))
        .map(|a| if a.contains(char::is_whitespace) { format!("'{a}'") } else { a })
        .collect::<Vec<_>>()
        .join(" ");
    let opts = args.options(mask_passwords(&command))?;
    if args.check_only {
        return check_only(&opts);
    }
    let (report, _files) = runner::run(&opts)?;
    let readme = opts.out.join("README.md");
    println!("\n{}", report::markdown::console_summary(&report));
    println!("quire bench: report in {}/ (open {})", opts.out.display(), readme.display());
    Ok(())
}

/// `--check-only`: the TPC-C consistency conditions on every --target.
fn check_only(o: &runner::Options) -> Result<()> {
    if o.targets.is_empty() {
        return Err(Error::new("--check-only needs a --target (the embedded quire starts empty)"));
    }
    let mut failed = 0;
    for t in &o.targets {
        failed += runner::check_tpcc(&t.name(), t)?;
    }
    match failed {
        0 => Ok(()),
        n => Err(Error::new(format!("{n} TPC-C consistency condition(s) FAILED"))),
    }
}

/// `mysql://u:secret@h` → `mysql://u:***@h` in a command line.
pub fn mask_passwords(command: &str) -> String {
    command
        .split(' ')
        .map(|w| match (w.find("://"), w.find('@')) {
            (Some(s), Some(at)) if at > s => {
                let creds = &w[s + 3..at];
                match creds.split_once(':') {
                    Some((u, _)) => format!("{}{u}:***{}", &w[..s + 3], &w[at..]),
                    None => w.to_string(),
                }
            }
            _ => w.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}
