//! `quire commit-bench`: group commit. Threads insert rows, each insert its
//! own transaction, with `innodb_flush_log_at_trx_commit=1` (by default);
//! reported per thread count: commits/s and commits per log sync (the
//! group-commit factor), beside the machine's own rate of one small write
//! plus fdatasync in a loop, measured in the same run on the same file
//! system.

use std::io::Write as _;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use quire_engine::config::FlushMethod;
use quire_engine::log::FlushAtCommit;
use quire_engine::row::{Column, ColumnType, TableSchema, Value};
use quire_engine::{Engine, EngineConfig};
use quire_io::{OsVfs, Vfs};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Thread counts, comma separated.
    #[arg(long, default_value = "1,4,16,64,256", value_delimiter = ',')]
    threads: Vec<usize>,
    /// Seconds per measurement.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// Rounds per point, alternating the device's loop and the commits.
    #[arg(long, default_value_t = 6)]
    rounds: usize,
    /// innodb_flush_log_at_trx_commit (0, 1 or 2).
    #[arg(long, default_value_t = 1)]
    flush_log_at_trx_commit: u8,
    /// Where to put the data (a temporary directory under it).
    #[arg(long)]
    dir: Option<PathBuf>,
}

/// One small write and fdatasync in a loop for `seconds`: the device's sync
/// rate. Returns the syncs made and the seconds taken.
fn raw_syncs(dir: &std::path::Path, seconds: f64) -> std::io::Result<(u64, f64)> {
    let f =
        std::fs::OpenOptions::new().create(true).truncate(false).read(true).write(true).open(dir.join("sync-probe"))?;
    let buf = [7u8; 512];
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed().as_secs_f64() < seconds {
        f.write_all_at(&buf, (n % 8) * 512)?;
        f.sync_data()?;
        n += 1;
    }
    Ok((n, start.elapsed().as_secs_f64()))
}

pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let mode =
        FlushAtCommit::from_u8(args.flush_log_at_trx_commit).ok_or("flush_log_at_trx_commit must be 0, 1 or 2")?;
    let dir = match &args.dir {
        Some(d) => tempfile::tempdir_in(d)?,
        None => tempfile::tempdir_in(".").or_else(|_| tempfile::tempdir())?,
    };
    let vfs: Arc<dyn Vfs> = OsVfs::new();
    let cfg = EngineConfig::new(dir.path().join("data"))
        .buffer_pool_size(256 << 20)
        .flush_method(FlushMethod::ODirect)
        .flush_log_at_trx_commit(mode);
    let engine = Engine::open(cfg, vfs)?;
    let table = engine.create_table(
        "bench/commits",
        TableSchema {
            columns: vec![
                Column::new("id", ColumnType::BigInt { unsigned: false }).not_null(),
                Column::new("v", ColumnType::BigInt { unsigned: false }).not_null(),
                Column::new("pad", ColumnType::Char { len: 60 }).not_null(),
            ],
            primary_key: vec![0],
            indexes: vec![],
            ..Default::default()
        },
    )?;
    println!(
        "quire commit-bench: innodb_flush_log_at_trx_commit={}, one-row INSERT per transaction, {}s per point",
        args.flush_log_at_trx_commit, args.seconds
    );
    println!();
    println!(
        "The device's rate is taken beside each point: {} rounds of (write + fdatasync loop, then the commits), \
         each {:.2}s, summed (a cloud disk's sync rate drifts by 2x within a minute).",
        args.rounds,
        args.seconds / args.rounds as f64
    );
    println!();
    println!("| threads | commits/s | device syncs/s | log syncs/s | commits per sync | vs device sync rate |");
    println!("|---|---|---|---|---|---|");
    let next_id = AtomicU64::new(0);
    let slice = args.seconds / args.rounds.max(1) as f64;
    for &threads in &args.threads {
        let (mut commits, mut commit_secs, mut syncs) = (0u64, 0.0, 0u64);
        let (mut probes, mut probe_secs) = (0u64, 0.0);
        for _ in 0..args.rounds.max(1) {
            let (n, secs) = raw_syncs(dir.path(), slice)?;
            probes += n;
            probe_secs += secs;
            let syncs0 = engine.log().stats.syncs.load(Ordering::Relaxed);
            let (c, secs) = commit_for(&table, threads, slice, &next_id);
            commits += c;
            commit_secs += secs;
            syncs += engine.log().stats.syncs.load(Ordering::Relaxed) - syncs0;
        }
        let rate = commits as f64 / commit_secs;
        let device = probes as f64 / probe_secs;
        println!(
            "| {threads} | {rate:.0} | {device:.0} | {:.0} | {:.1} | {:.2}x |",
            syncs as f64 / commit_secs,
            if syncs > 0 { commits as f64 / syncs as f64 } else { f64::INFINITY },
            rate / device
        );
        std::io::stdout().flush()?;
    }
    engine.shutdown()?;
    Ok(())
}

/// `threads` threads insert one row per transaction for `seconds`; returns
/// the commits and the seconds taken.
fn commit_for(table: &quire_engine::Table, threads: usize, seconds: f64, next_id: &AtomicU64) -> (u64, f64) {
    let stop = AtomicBool::new(false);
    let commits = AtomicU64::new(0);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            let (stop, commits) = (&stop, &commits);
            s.spawn(move || {
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) {
                    let id = next_id.fetch_add(1, Ordering::Relaxed) as i64;
                    table.insert(vec![Value::Int(id), Value::Int(id * 7), Value::Str("p".repeat(60))]).expect("insert");
                    n += 1;
                }
                commits.fetch_add(n, Ordering::Relaxed);
            });
        }
        std::thread::sleep(Duration::from_secs_f64(seconds));
        stop.store(true, Ordering::Relaxed);
    });
    (commits.load(Ordering::Relaxed), start.elapsed().as_secs_f64())
}
