//! `quire`: the server binary. Subcommands:
//! - `engine-bench`: the storage engine alone against an in-memory
//!   `BTreeMap` reference (docs/BENCHMARKS.md).
//! - `commit-bench`: group commit.
//! - `rw-bench`: the read-write mix with and without transactions.
//! - `serve`: the MySQL-compatible server.
//! - `conn-memory`: resident memory per idle connection of a running
//!   server (docs/BENCHMARKS.md).
//! - `bench`: sysbench-style OLTP load against quire (embedded) and any
//!   MySQL server, with a report of CSV, JSON, charts and markdown.

mod allocator;
mod commit_bench;
mod conn_memory;
mod engine_bench;
mod rw_bench;
mod rw_event;
mod workload;

use clap::{Parser, Subcommand};

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
    /// Resident memory per idle connection of a running server, and how
    /// much comes back when the connections close.
    ConnMemory(conn_memory::Args),
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
    let mut options = a.options;
    // `--root-password` after the first server option lands among the
    // trailing options; it is quire's own option wherever it stands.
    let trailing_pw = take_root_password(&mut options)?;
    let mut overrides = config::parse_cli_overrides(&options)?;
    let file = config::take_defaults_file(&mut overrides);
    let cfg = config::load(file.as_deref(), &overrides)?;
    init_tracing("info", error_log(&cfg)?);
    let pw = trailing_pw.or(a.root_password).or_else(|| std::env::var("QUIRE_ROOT_PASSWORD").ok());
    quire_server::serve::run(&cfg, pw.as_deref())
}

/// The file `log_error` names (relative to the data directory, as
/// MySQL's), opened for appending; `None` for `stderr` (the default).
fn error_log(cfg: &quire_server::config::ServerConfig) -> Result<Option<std::fs::File>, String> {
    let name = cfg.sysvars.global("log_error").map(|v| v.display()).unwrap_or_default();
    let name = name.trim();
    if name.is_empty() || name == "stderr" {
        return Ok(None);
    }
    let path = cfg.datadir().join(name);
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map(Some)
        .map_err(|e| format!("cannot open log_error {}: {e}", path.display()))
}

/// Logs to `file` when given (plain text), else to stderr (in colour on a
/// terminal); RUST_LOG overrides `default_filter`.
fn init_tracing(default_filter: &str, file: Option<std::fs::File>) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| default_filter.into());
    let fmt = tracing_subscriber::fmt().with_env_filter(filter);
    match file {
        Some(f) => fmt.with_writer(std::sync::Mutex::new(f)).with_ansi(false).init(),
        None => fmt
            .with_writer(std::io::stderr)
            // Colour only on a terminal: a log file or pipe gets plain text.
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .init(),
    }
}

/// Removes `--root-password=PW` / `--root-password PW` (`_` or `-`) from
/// `options` and returns the last password given.
fn take_root_password(options: &mut Vec<String>) -> Result<Option<String>, String> {
    let mut found = None;
    let mut i = 0;
    while i < options.len() {
        let body = options[i].strip_prefix("--").map(|b| b.replace('_', "-"));
        match body.as_deref() {
            Some(b) if b.starts_with("root-password=") => {
                found = Some(options.remove(i)["--root-password=".len()..].to_string());
            }
            Some("root-password") => {
                options.remove(i);
                if i >= options.len() {
                    return Err("option '--root-password' requires a value".into());
                }
                found = Some(options.remove(i));
            }
            _ => i += 1,
        }
    }
    Ok(found)
}

fn main() {
    let cli = Cli::parse();
    // The benchmark's embedded server logs only warnings: its own progress
    // lines are the output.
    // `serve` starts its log once its configuration says where
    // (`log_error`).
    match cli.command {
        Command::Serve(_) => {}
        Command::Bench(_) => init_tracing("warn", None),
        _ => init_tracing("info", None),
    }
    let res = match cli.command {
        Command::EngineBench(a) => engine_bench::run(a),
        Command::CommitBench(a) => commit_bench::run(a),
        Command::RwBench(a) => rw_bench::run(a),
        Command::KillWorkload(a) => workload::run(a),
        Command::Serve(a) => serve(a),
        Command::ConnMemory(a) => conn_memory::run(a),
        Command::Bench(a) => quire_bench::run(a).map_err(Into::into),
    };
    if let Err(e) = res {
        eprintln!("quire: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::take_root_password;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn root_password_is_taken_wherever_it_stands_in_either_form() {
        let mut o = args(&["--defaults-file=/f", "--root-password=x", "--port=1"]);
        assert_eq!(take_root_password(&mut o), Ok(Some("x".into())));
        assert_eq!(o, args(&["--defaults-file=/f", "--port=1"]));
        let mut o = args(&["--defaults-file=/f", "--root_password", "y"]);
        assert_eq!(take_root_password(&mut o), Ok(Some("y".into())));
        assert_eq!(o, args(&["--defaults-file=/f"]));
        let mut o = args(&["--datadir=/d"]);
        assert_eq!(take_root_password(&mut o), Ok(None));
        assert!(take_root_password(&mut args(&["--root-password"])).is_err());
    }
}
