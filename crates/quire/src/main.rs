//! `quire`: the server binary. Subcommands:
//! - `engine-bench`: the storage engine alone against an in-memory
//!   `BTreeMap` reference (docs/BENCHMARKS.md).
//! - `commit-bench`: group commit.
//! - `rw-bench`: the read-write mix with and without transactions.
//! - `serve`: the MySQL-compatible server.
//! - `bench`: sysbench-style OLTP load against quire (embedded) and any
//!   MySQL server, with a report of CSV, JSON, charts and markdown.

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
    /// sysbench's OLTP workloads against an embedded quire and any
    /// `--target mysql://...`, swept over threads and settings; writes a
    /// report folder (CSV, JSON, SVG/PNG charts, markdown).
    Bench(quire_bench::Args),
    /// Serve MySQL clients: `quire serve [--defaults-file=my.cnf]
    /// [--root-password=PW] [--any_variable=value ...]`.
    Serve(ServeArgs),
}

#[derive(clap::Args)]
struct ServeArgs {
    /// user root's password when the data directory is initialised
    /// (default: generated and printed once; also QUIRE_ROOT_PASSWORD).
    #[arg(long)]
    root_password: Option<String>,
    /// `--defaults-file=my.cnf` and server variables as `--name=value`
    /// (my.cnf [mysqld] names; `-` and `_` are the same).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    options: Vec<String>,
}

fn serve(a: ServeArgs) -> Result<(), Box<dyn std::error::Error>> {
    use quire_server::config;
    let mut overrides = config::parse_cli_overrides(&a.options)?;
    let file = config::take_defaults_file(&mut overrides);
    let cfg = config::load(file.as_deref(), &overrides)?;
    let pw = a.root_password.or_else(|| std::env::var("QUIRE_ROOT_PASSWORD").ok());
    quire_server::serve::run(&cfg, pw.as_deref())
}

fn main() {
    let cli = Cli::parse();
    // The benchmark's embedded server logs only warnings: its own progress
    // lines are the output.
    let default_filter = if matches!(cli.command, Command::Bench(_)) { "warn" } else { "info" };
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| default_filter.into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let res = match cli.command {
        Command::EngineBench(a) => engine_bench::run(a),
        Command::CommitBench(a) => commit_bench::run(a),
        Command::RwBench(a) => rw_bench::run(a),
        Command::KillWorkload(a) => workload::run(a),
        Command::Serve(a) => serve(a),
        Command::Bench(a) => quire_bench::run(a).map_err(Into::into),
    };
    if let Err(e) = res {
        eprintln!("quire: {e}");
        std::process::exit(1);
    }
}
