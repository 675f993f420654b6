//! Read-ahead (InnoDB's linear and random read-ahead): a scan over pages not
//! in the pool gets the next extents read before it asks for them, in
//! either direction; the threshold 0 turns linear read-ahead off; random
//! read-ahead reads the rest of an extent whose pages are in recent use.
//! Results are the same either way.

use std::ops::Bound;
use std::sync::Arc;

use quire_engine::btree::Direction;
use quire_engine::config::FlushMethod;
use quire_engine::log::FlushAtCommit;
use quire_engine::row::{Column, ColumnType, TableSchema, Value};
use quire_engine::table::IndexRef;
use quire_engine::{Engine, EngineConfig};
use quire_io::{MemVfs, Vfs};

/// 16 KiB pages: an extent is 64 pages. The pool (256 frames) holds a
/// third of the table.
const POOL: usize = 4 << 20;
const ROWS: i64 = 40_000;

fn config(tweak: impl Fn(&mut EngineConfig)) -> EngineConfig {
    let mut cfg = EngineConfig::new("/data")
        .buffer_pool_size(POOL)
        .flush_method(FlushMethod::Fsync)
        .flush_log_at_trx_commit(FlushAtCommit::Lazy);
    tweak(&mut cfg);
    cfg
}

fn schema() -> TableSchema {
    TableSchema {
        columns: vec![
            Column::new("id", ColumnType::BigInt { unsigned: false }).not_null(),
            Column::new("pad", ColumnType::Varchar { len: 200 }).not_null(),
        ],
        primary_key: vec![0],
        indexes: vec![],
        ..Default::default()
    }
}

fn row(id: i64) -> Vec<Value> {
    vec![Value::Int(id), Value::Str(format!("{id:0>150}"))]
}

/// A data directory with the table loaded in key order, shut down so that
/// the next open starts with a cold pool.
fn loaded() -> Arc<dyn Vfs> {
    let vfs: Arc<dyn Vfs> = MemVfs::new();
    let e = Engine::open(config(|_| {}), vfs.clone()).unwrap();
    let t = e.create_table("db/t", schema()).unwrap();
    for i in 0..ROWS {
        t.insert(row(i)).unwrap();
    }
    drop(t);
    e.shutdown().unwrap();
    vfs
}

fn status(e: &Engine) -> (u64, u64, u64, u64) {
    let p = e.pool();
    let s = &p.read_ahead.stats;
    (s.pages.get(), s.random_requests.get(), s.evicted_unused.get(), p.stats.reads.get())
}

/// Scans the whole table in `dir` order and checks every row.
fn scan_all(e: &Engine, dir: Direction) {
    let t = e.table("db/t").unwrap();
    let mut c = t.scan(IndexRef::Primary, Bound::Unbounded, Bound::Unbounded, dir).unwrap();
    let mut n = 0;
    while let Some(r) = c.next().unwrap() {
        let want = if dir == Direction::Forward { n } else { ROWS - 1 - n };
        assert_eq!(r, row(want), "row {n} of the scan");
        n += 1;
    }
    assert_eq!(n, ROWS);
}

/// Waits until the read threads have nothing left in flight (reads counted).
fn settle(e: &Engine) {
    let mut last = status(e);
    for _ in 0..100 {
        std::thread::sleep(std::time::Duration::from_millis(20));
        let now = status(e);
        if now == last {
            return;
        }
        last = now;
    }
}

#[test]
fn a_scan_in_key_order_has_the_next_extents_read_ahead_in_either_direction() {
    let vfs = loaded();
    for dir in [Direction::Forward, Direction::Backward] {
        let e = Engine::open(config(|_| {}), vfs.clone()).unwrap();
        scan_all(&e, dir);
        settle(&e);
        let (ahead, _, wasted, reads) = status(&e);
        eprintln!("{dir:?}: ahead {ahead} wasted {wasted} reads {reads}");
        // A large share of the table's pages came by read-ahead (the first
        // extent or two are read by the scan itself, before the pattern
        // shows; without read-ahead none would). How large depends on how
        // far the scan runs ahead of the read threads on a loaded machine
        // (half or more when quiet, 40-50 % seen under a parallel test
        // run), so the test asks for a third: it proves the mechanism, the
        // benchmarks measure its effect.
        assert!(ahead * 3 > reads, "{dir:?}: {ahead} of {reads} page reads were read-ahead");
        assert!(wasted * 10 < ahead, "{dir:?}: {wasted} of {ahead} pages read ahead were evicted unused");
        e.shutdown().unwrap();
    }
}

#[test]
fn threshold_zero_turns_linear_read_ahead_off() {
    let vfs = loaded();
    let e = Engine::open(config(|c| c.read_ahead_threshold = 0), vfs.clone()).unwrap();
    scan_all(&e, Direction::Forward);
    settle(&e);
    let (ahead, _, _, reads) = status(&e);
    assert_eq!(ahead, 0, "no read-ahead with the threshold at 0 ({reads} reads)");
    // Set at runtime, it works again.
    e.pool().read_ahead.set_threshold(56);
    scan_all(&e, Direction::Forward);
    settle(&e);
    assert!(status(&e).0 > 0, "read-ahead once the threshold is set");
    e.shutdown().unwrap();
}

#[test]
fn random_read_ahead_reads_the_rest_of_an_extent_in_recent_use() {
    let vfs = loaded();
    for random in [false, true] {
        let e = Engine::open(
            config(|c| {
                c.read_ahead_threshold = 0;
                c.random_read_ahead = random;
                c.old_blocks_time_ms = 0;
            }),
            vfs.clone(),
        )
        .unwrap();
        // Fill the pool past its size (evictions start), ending far from
        // the first keys: their pages are not in the pool afterwards.
        scan_all(&e, Direction::Forward);
        let t = e.table("db/t").unwrap();
        // About 90 rows fit a page: these keys fall on 20 pages of the
        // first extent. Each is read, then made young by a second access.
        for i in (0..1800).step_by(90) {
            for _ in 0..2 {
                assert_eq!(t.get(&[Value::Int(i)]).unwrap(), Some(row(i)));
            }
        }
        // A miss on another page of that extent.
        assert_eq!(t.get(&[Value::Int(3000)]).unwrap(), Some(row(3000)));
        settle(&e);
        let (ahead, requests, _, _) = status(&e);
        eprintln!("random {random}: ahead {ahead} requests {requests}");
        if random {
            assert!(requests >= 1 && ahead > 0, "random read-ahead: {requests} requests, {ahead} pages");
        } else {
            assert_eq!((requests, ahead), (0, 0), "off by default");
        }
        drop(t);
        e.shutdown().unwrap();
    }
}
