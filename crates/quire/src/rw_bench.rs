//! The read-write mix benchmark: sysbench oltp_read_write's shape at the
//! engine level, on a sysbench-like table (`id` primary key, `k` indexed,
//! `c` CHAR(120), `pad` CHAR(60)), memory-resident. One event is 10 point
//! selects, one 100-row range scan, an update of `k` (an indexed column),
//! an update of `c`, and a delete plus re-insert of one row.
//!
//! `--mode txn` runs each event as one REPEATABLE READ transaction (row
//! locks, undo, MVCC reads; deadlock victims retried and counted);
//! `--mode autocommit` runs every statement as its own transaction, which
//! is also how the engine before transactions ran them, so the two modes
//! (and builds) compare lock and MVCC overhead at the same settings.
//! Durability: innodb_flush_log_at_trx_commit=2 by default, so that the
//! figures show CPU costs rather than the device's sync rate.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use quire_engine::config::{parse_size, FlushMethod};
use quire_engine::log::FlushAtCommit;
use quire_engine::row::{Column, ColumnType, IndexDef, TableSchema, Value};
use quire_engine::{Engine, EngineConfig};
use quire_io::{OsVfs, Vfs};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// txn or autocommit, comma separated.
    #[arg(long, default_value = "autocommit,txn", value_delimiter = ',')]
    mode: Vec<String>,
    /// Thread counts, comma separated.
    #[arg(long, default_value = "1,16,64,256", value_delimiter = ',')]
    threads: Vec<usize>,
    /// Rows in the table.
    #[arg(long, default_value_t = 100_000)]
    rows: u64,
    /// Seconds per measurement.
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// Buffer pool size.
    #[arg(long, default_value = "256M")]
    pool: String,
    /// innodb_flush_log_at_trx_commit.
    #[arg(long, default_value_t = 2)]
    flush_log_at_trx_commit: u8,
    /// Where to put the data (a temporary directory under it).
    #[arg(long)]
    dir: Option<std::path::PathBuf>,
    /// Print the history list length and purge progress every second.
    #[arg(long)]
    monitor: bool,
}

fn schema() -> TableSchema {
    TableSchema {
        columns: vec![
            Column::new("id", ColumnType::Int { unsigned: false }).not_null(),
            Column::new("k", ColumnType::Int { unsigned: false }).not_null(),
            Column::new("c", ColumnType::Char { len: 120 }).not_null(),
            Column::new("pad", ColumnType::Char { len: 60 }).not_null(),
        ],
        primary_key: vec![0],
        indexes: vec![IndexDef { name: "k_1".into(), columns: vec![1], unique: false, prefix: vec![] }],
        ..Default::default()
    }
}

pub fn row(rng: &mut SmallRng, id: i64, rows: u64) -> Vec<Value> {
    let c: String = (0..11).map(|_| format!("{:011}-", rng.gen_range(0..100_000_000_000u64))).collect();
    vec![
        Value::Int(id),
        Value::Int(rng.gen_range(1..=rows as i64)),
        Value::Str(c[..119].to_string()),
        Value::Str(format!("{:011}", rng.gen_range(0..100_000_000_000u64)).repeat(6)[..59].to_string()),
    ]
}

/// What a run counts.
#[derive(Default)]
struct Counts {
    events: AtomicU64,
    retries: AtomicU64,
}

pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let dir = match &args.dir {
        Some(d) => tempfile::tempdir_in(d)?,
        None => tempfile::tempdir_in(".").or_else(|_| tempfile::tempdir())?,
    };
    let vfs: Arc<dyn Vfs> = OsVfs::new();
    let mut cfg = EngineConfig::new(dir.path())
        .buffer_pool_size(parse_size(&args.pool)? as usize)
        .buffer_pool_instances(4)
        .flush_method(FlushMethod::ODirect);
    cfg.log.flush_at_commit =
        FlushAtCommit::from_u8(args.flush_log_at_trx_commit).ok_or("innodb_flush_log_at_trx_commit is 0, 1 or 2")?;
    let engine = Engine::open(cfg, vfs)?;
    let t = engine.create_table("sbtest/sbtest1", schema())?;
    let started = Instant::now();
    std::thread::scope(|s| {
        for w in 0..2u64 {
            let t = &t;
            let rows = args.rows;
            s.spawn(move || {
                let mut rng = SmallRng::seed_from_u64(w);
                for id in (1 + w..=rows).step_by(2) {
                    t.insert(row(&mut rng, id as i64, rows)).expect("load");
                }
            });
        }
    });
    println!("loaded {} rows in {:.1}s", args.rows, started.elapsed().as_secs_f64());
    println!("{:>10} {:>8} {:>12} {:>10} {:>10}", "mode", "threads", "events/s", "retries", "vs autocommit");
    let mut base: std::collections::HashMap<usize, f64> = Default::default();
    for &threads in &args.threads {
        for mode in &args.mode {
            let counts = Counts::default();
            let stop = AtomicBool::new(false);
            let failed = AtomicU64::new(0);
            let started_run = Instant::now();
            std::thread::scope(|s| {
                for w in 0..threads {
                    let (t, e, counts, stop, failed) = (&t, &engine, &counts, &stop, &failed);
                    let rows = args.rows;
                    let txn = mode == "txn";
                    s.spawn(move || {
                        let mut rng = SmallRng::seed_from_u64(1000 + w as u64);
                        while !stop.load(Ordering::Relaxed) {
                            let r = if txn {
                                super::rw_event::in_transaction(e, t, &mut rng, rows, &counts.retries)
                            } else {
                                super::rw_event::autocommit(t, &mut rng, rows)
                            };
                            match r {
                                Ok(()) => {
                                    counts.events.fetch_add(1, Ordering::Relaxed);
                                }
                                Err(err) => {
                                    if failed.fetch_add(1, Ordering::Relaxed) == 0 {
                                        eprintln!("event failed: {err}");
                                    }
                                }
                            }
                        }
                    });
                }
                let end = Instant::now() + Duration::from_secs_f64(args.seconds);
                while Instant::now() < end {
                    std::thread::sleep(Duration::from_secs(1).min(end.saturating_duration_since(Instant::now())));
                    if args.monitor {
                        let txn = engine.txn();
                        eprintln!(
                            "  {:>5.1}s events {:>8} history {:>6} purged {:>8} purge-lag delays {:>7}",
                            started_run.elapsed().as_secs_f64(),
                            counts.events.load(Ordering::Relaxed),
                            txn.history_len(),
                            txn.history.purged.get(),
                            txn.purge_lag_delays.get(),
                        );
                    }
                }
                stop.store(true, Ordering::Relaxed);
            });
            let rate = counts.events.load(Ordering::Relaxed) as f64 / args.seconds;
            let vs = match mode.as_str() {
                "autocommit" => {
                    base.insert(threads, rate);
                    "1.00".to_string()
                }
                _ => base.get(&threads).map_or("-".into(), |b| format!("{:.2}", rate / b)),
            };
            println!(
                "{:>10} {:>8} {:>12.0} {:>10} {:>10}   (failed: {})",
                mode,
                threads,
                rate,
                counts.retries.load(Ordering::Relaxed),
                vs,
                failed.load(Ordering::Relaxed)
            );
        }
    }
    engine.shutdown()?;
    Ok(())
}
