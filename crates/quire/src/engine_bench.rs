//! The engine benchmark: random point lookups and random updates on one
//! B+tree (8-byte keys, sysbench-sized 180-byte rows) with the data about
//! as large as the buffer pool ("1x", memory-resident) and 8x larger
//! (I/O-bound), at several thread counts; and, in the same run, the same
//! lookups against a `BTreeMap` behind a `RwLock`, the in-memory reference.
//! It prints ops/s, the buffer pool hit ratio and the ratio to the
//! reference. Absolute numbers on shared machines are noise; the ratios
//! measured in one run are the result.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::RwLock;
use quire_engine::btree::BTree;
use quire_engine::config::{parse_size, FlushMethod};
use quire_engine::row::{Column, ColumnType, TableSchema};
use quire_engine::{space, Engine, EngineConfig};
use quire_io::{OsVfs, Vfs};
use rand::{Rng, SeedableRng};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Buffer pool size (innodb_buffer_pool_size).
    #[arg(long, default_value = "32M")]
    pool: String,
    /// Page size (innodb_page_size).
    #[arg(long, default_value = "16k")]
    page_size: String,
    /// Buffer pool instances.
    #[arg(long, default_value_t = 4)]
    instances: usize,
    /// Thread counts, comma separated.
    #[arg(long, default_value = "1,2,16,64", value_delimiter = ',')]
    threads: Vec<usize>,
    /// Data size as multiples of the pool, comma separated.
    #[arg(long, default_value = "1,8", value_delimiter = ',')]
    ratios: Vec<u32>,
    /// Seconds per measurement.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// Bytes per row value.
    #[arg(long, default_value_t = 180)]
    value_bytes: usize,
    /// Workloads to run: lookup, update.
    #[arg(long, default_value = "lookup,update", value_delimiter = ',')]
    workloads: Vec<String>,
    /// Skip the BTreeMap reference.
    #[arg(long)]
    no_reference: bool,
    /// The adaptive hash index (innodb_adaptive_hash_index) for the lookup
    /// workload: off, on, or both (off,on: each point measured both ways
    /// in the same run, on the same loaded tree).
    #[arg(long, default_value = "off", value_delimiter = ',')]
    ahi: Vec<String>,
    /// Key distribution: uniform, or special (sysbench's default
    /// --rand-type: 75% of the operations on 1% of the keys).
    #[arg(long, default_value = "uniform")]
    dist: String,
    /// Where to put the data (a temporary directory under it). Direct I/O
    /// needs a file system that supports it, e.g. ext4, not tmpfs.
    #[arg(long)]
    dir: Option<PathBuf>,
}

/// What one measurement reports.
struct Point {
    ops_per_s: f64,
    hit_ratio: Option<f64>,
    /// The process's CPU time per operation: steadier than ops/s on a
    /// shared machine.
    cpu_ns_per_op: f64,
}

fn key(k: u64) -> [u8; 8] {
    k.to_be_bytes()
}

/// A key below `rows`: uniform, or with `special` sysbench's default
/// distribution (75% of draws among 1% of the keys, spread over the tree).
fn pick(rng: &mut rand::rngs::SmallRng, rows: u64, special: bool) -> u64 {
    if special && rows >= 100 && rng.gen_bool(0.75) {
        rng.gen_range(0..rows / 100) * 100
    } else {
        rng.gen_range(0..rows)
    }
}

/// CPU time this process has used, in ns.
fn process_cpu_ns() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec to write.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e9 + ts.tv_nsec as f64
}

/// (ops/s, CPU ns per op).
fn run_threads(threads: usize, seconds: f64, op: impl Fn(&mut rand::rngs::SmallRng) + Sync) -> (f64, f64) {
    let stop = AtomicBool::new(false);
    let total = AtomicU64::new(0);
    let start = Instant::now();
    let cpu0 = process_cpu_ns();
    std::thread::scope(|s| {
        for t in 0..threads {
            let (stop, total, op) = (&stop, &total, &op);
            s.spawn(move || {
                let mut rng = rand::rngs::SmallRng::seed_from_u64(t as u64 * 7919 + 1);
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    for _ in 0..64 {
                        op(&mut rng);
                    }
                    n += 64;
                }
                total.fetch_add(n, Ordering::Relaxed);
            });
        }
        std::thread::sleep(Duration::from_secs_f64(seconds));
        stop.store(true, Ordering::Relaxed);
    });
    let n = total.load(Ordering::Relaxed) as f64;
    (n / start.elapsed().as_secs_f64(), (process_cpu_ns() - cpu0) / n.max(1.0))
}

struct Loaded {
    engine: Arc<Engine>,
    tree: BTree,
    rows: u64,
    pages: u32,
    _dir: tempfile::TempDir,
}

fn load(args: &Args, ratio: u32) -> Result<Loaded, Box<dyn std::error::Error>> {
    let page_size = parse_size(&args.page_size)? as usize;
    let pool_bytes = parse_size(&args.pool)? as usize;
    let dir = match &args.dir {
        Some(d) => tempfile::tempdir_in(d)?,
        None => tempfile::tempdir_in(".").or_else(|_| tempfile::tempdir())?,
    };
    let vfs: Arc<dyn Vfs> = OsVfs::new();
    let cfg = EngineConfig::new(dir.path())
        .page_size(page_size)
        .buffer_pool_size(pool_bytes)
        .buffer_pool_instances(args.instances)
        .flush_method(FlushMethod::ODirect);
    // One tree: the adaptive hash index's whole table in its one part.
    let mut cfg = cfg;
    cfg.adaptive_hash_index_parts = 1;
    let engine = Engine::open(cfg, vfs)?;
    // A table gives the tree its own space; rows go straight into a B+tree
    // there so that the benchmark measures the engine, not row encoding.
    let schema = TableSchema {
        columns: vec![Column::new("id", ColumnType::BigInt { unsigned: true }).not_null()],
        primary_key: vec![0],
        indexes: vec![],
        ..Default::default()
    };
    let table = engine.create_table("bench/t", schema)?;
    let space_id = table.space_id();
    let tree = BTree::create(engine.pool(), space_id, 1_000_000)?;
    let frames = engine.pool().frames_total() as u32;
    // 1x: the tree fills ~90% of the frames (it stays resident);
    // Nx: the tree has N times as many pages as the pool has frames.
    let target_pages = if ratio <= 1 { frames * 9 / 10 } else { frames * ratio };
    let value = vec![0x5a; args.value_bytes];
    let mut rows = 0u64;
    let started = Instant::now();
    loop {
        for _ in 0..4096 {
            tree.insert(&key(rows), &value)?;
            rows += 1;
        }
        let (_, used) = space::usage(engine.pool(), space_id)?;
        if used >= target_pages {
            break;
        }
    }
    let (_, pages) = space::usage(engine.pool(), space_id)?;
    eprintln!(
        "  loaded {rows} rows ({} MiB of pages, {:.1}x the pool) in {:.1}s",
        (pages as u64 * page_size as u64) >> 20,
        pages as f64 / frames as f64,
        started.elapsed().as_secs_f64()
    );
    Ok(Loaded { engine, tree, rows, pages, _dir: dir })
}

fn measure(l: &Loaded, threads: usize, seconds: f64, update: bool, value_bytes: usize, special: bool) -> Point {
    let pool = l.engine.pool();
    let stats = &pool.stats;
    let (req0, reads0) = (pool.page_requests(), stats.reads.get());
    let rows = l.rows;
    let tree = &l.tree;
    let (ops, cpu_ns_per_op) = run_threads(threads, seconds, |rng| {
        thread_local!(static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) });
        let k = key(pick(rng, rows, special));
        if update {
            let v = vec![rng.gen::<u8>(); value_bytes];
            tree.update(&k, &v).expect("update");
        } else {
            BUF.with(|b| {
                let found = tree.get(&k, &mut b.borrow_mut()).expect("lookup");
                debug_assert!(found);
            });
        }
    });
    let req = pool.page_requests() - req0;
    let reads = stats.reads.get() - reads0;
    Point { ops_per_s: ops, hit_ratio: (req > 0).then(|| 1.0 - reads as f64 / req as f64), cpu_ns_per_op }
}

fn reference(rows: u64, value_bytes: usize, threads: usize, seconds: f64, special: bool) -> f64 {
    let map: RwLock<BTreeMap<[u8; 8], Vec<u8>>> =
        RwLock::new((0..rows).map(|k| (key(k), vec![0x5a; value_bytes])).collect());
    run_threads(threads, seconds, |rng| {
        thread_local!(static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) });
        let k = key(pick(rng, rows, special));
        let m = map.read();
        let v = m.get(&k).expect("present");
        BUF.with(|b| {
            let mut b = b.borrow_mut();
            b.clear();
            b.extend_from_slice(v);
        });
    })
    .0
}

pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "quire engine-bench: pool {} ({} instances), page {}, {}-byte values, {}s per point",
        args.pool, args.instances, args.page_size, args.value_bytes, args.seconds
    );
    let special = match args.dist.as_str() {
        "uniform" => false,
        "special" => true,
        d => return Err(format!("--dist {d}: uniform or special").into()),
    };
    let mut lines = Vec::new();
    let mut reference_ops: BTreeMap<usize, f64> = BTreeMap::new();
    for &ratio in &args.ratios {
        eprintln!("data {ratio}x the pool:");
        let l = load(&args, ratio)?;
        if ratio <= 1 && !args.no_reference {
            eprintln!("  BTreeMap<RwLock> reference with the same {} rows", l.rows);
            for &t in &args.threads {
                reference_ops.insert(t, reference(l.rows, args.value_bytes, t, args.seconds, special));
            }
        }
        for (name, update) in [("lookup", false), ("update", true)] {
            if !args.workloads.iter().any(|w| w == name) {
                continue;
            }
            let ahi: Vec<bool> = if update { vec![false] } else { args.ahi.iter().map(|a| a == "on").collect() };
            for &t in &args.threads {
                for &on in &ahi {
                    let hash = &l.engine.pool().adaptive_hash;
                    hash.set_enabled(on);
                    let (h0, b0) = (hash.searches.get(), hash.searches_btree.get());
                    let p = measure(&l, t, args.seconds, update, args.value_bytes, special);
                    let (h, b) = (hash.searches.get() - h0, hash.searches_btree.get() - b0);
                    let label = match (on, ahi.len() > 1) {
                        (true, _) => {
                            format!("{name}, AHI on ({:.0}% by hash)", 100.0 * h as f64 / (h + b).max(1) as f64)
                        }
                        (false, true) => format!("{name}, AHI off"),
                        (false, false) => name.to_string(),
                    };
                    lines.push((label, ratio, t, p, l.pages));
                }
            }
            l.engine.pool().adaptive_hash.set_enabled(false);
        }
        l.engine.shutdown()?;
    }
    println!();
    println!("| workload | data | threads | ops/s | CPU ns per op | hit ratio | vs BTreeMap |");
    println!("|---|---|---|---|---|---|---|");
    for &t in &args.threads {
        if let Some(r) = reference_ops.get(&t) {
            println!("| BTreeMap lookup (reference) | in memory | {t} | {:.0} | - | - | 1.00 |", r);
        }
    }
    for (name, ratio, t, p, _pages) in &lines {
        let vs = match (name.starts_with("lookup"), ratio, reference_ops.get(t)) {
            (true, 1, Some(r)) => format!("{:.2}", p.ops_per_s / r),
            _ => "-".into(),
        };
        let hit = p.hit_ratio.map_or("-".into(), |h| format!("{:.2}%", h * 100.0));
        println!("| {name} | {ratio}x | {t} | {:.0} | {:.0} | {hit} | {vs} |", p.ops_per_s, p.cpu_ns_per_op);
    }
    Ok(())
}
