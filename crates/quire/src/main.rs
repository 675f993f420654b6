//! `quire`: the server binary. Subcommands:
//! - `engine-bench`: the storage engine alone against an in-memory
//!   `BTreeMap` reference (docs/BENCHMARKS.md).
//! - `commit-bench`: group commit.
//! - `rw-bench`: the read-write mix with and without transactions.

mod commit_bench;
mod engine_bench;
mod rw_bench;
mod rw_event;
mod workload;

use clap::{Parser, Subcommand};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "quire", version, about = "quire: a MySQL-compatible transactional database server")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Benchmark the storage engine: random point lookups and updates with
    /// data 1x and 8x the buffer pool, beside a BTreeMap reference.
    EngineBench(engine_bench::Args),
    /// Group commit: commits/s and commits per log sync at several thread
    /// counts, beside the device's sync rate.
    CommitBench(commit_bench::Args),
    /// The read-write mix (sysbench oltp_read_write's shape) per event as
    /// autocommit statements and as transactions.
    RwBench(rw_bench::Args),
    /// A write workload that prints every acknowledged change, for crash
    /// tests that SIGKILL it (see tests/kill.rs).
    KillWorkload(workload::Args),
}

fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()))
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let res = match cli.command {
        Command::EngineBench(a) => engine_bench::run(a),
        Command::CommitBench(a) => commit_bench::run(a),
        Command::RwBench(a) => rw_bench::run(a),
        Command::KillWorkload(a) => workload::run(a),
    };
    if let Err(e) = res {
        eprintln!("quire: {e}");
        std::process::exit(1);
    }
}
