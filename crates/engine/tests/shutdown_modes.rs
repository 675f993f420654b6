//! `innodb_fast_shutdown`: 0 purges everything purgeable and merges the
//! change buffer before the pages are written; 1 (the default) writes
//! every dirty page and takes a checkpoint, so the next open replays
//! nothing; 2 writes only the log, and the next open recovers from it as
//! after a crash, losing nothing committed.

mod common;

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use quire_engine::btree::Direction;
use quire_engine::config::FlushMethod;
use quire_engine::ibuf::Mode;
use quire_engine::row::Value;
use quire_engine::table::IndexRef;
use quire_engine::{Engine, EngineConfig, ShutdownMode, Table};
use quire_io::{MemVfs, Vfs};

/// A 96-page pool, which the table's secondary index outgrows.
fn config() -> EngineConfig {
    EngineConfig::new("/data")
        .page_size(4096)
        .buffer_pool_size(96 * 4096)
        .flush_method(FlushMethod::Fsync)
        .change_buffering(Mode::All)
}

fn row(id: i64, k: i64) -> Vec<Value> {
    vec![Value::Int(id), Value::Int(k), Value::Str(format!("{id:0>100}"))]
}

/// Inserts `n` rows with scattered keys, then moves every third row's key.
fn workload(t: &Table, n: i64) {
    for i in 0..n {
        t.insert(row(i, (i * 7919) % n)).unwrap();
    }
    for i in (0..n).step_by(3) {
        assert!(t.update(&[Value::Int(i)], row(i, (i * 104_729) % n)).unwrap());
    }
}

/// Every row by the primary key, checked against the secondary index.
fn contents(t: &Table) -> BTreeMap<i64, i64> {
    let scan = |ix| t.scan(ix, Bound::Unbounded, Bound::Unbounded, Direction::Forward).unwrap().collect_all().unwrap();
    let pair = |r: &Vec<Value>| match (&r[0], &r[1]) {
        (Value::Int(id), Value::Int(k)) => (*id, *k),
        _ => panic!("bad row {r:?}"),
    };
    let by_pk: BTreeMap<i64, i64> = scan(IndexRef::Primary).iter().map(pair).collect();
    let by_k: BTreeMap<i64, i64> = scan(IndexRef::Secondary(0)).iter().map(pair).collect();
    assert_eq!(by_pk, by_k, "the secondary index disagrees with the rows");
    by_pk
}

/// Runs the workload with purge and the background merge held back, lets
/// purge go, and shuts down in `mode`. Then reopens without purge
/// threads (force_recovery 2) and returns the undo logs left in the
/// history, the change buffer's entries and the rows.
fn left_after(mode: ShutdownMode) -> (usize, u64, BTreeMap<i64, i64>) {
    let vfs: Arc<dyn Vfs> = MemVfs::new();
    let e = Engine::open(config().purge_threads(2).max_purge_lag(0), vfs.clone()).unwrap();
    e.change_buffer().pause_background_merge(true);
    let t = e.create_table("d/t", common::k_indexed_schema(false)).unwrap();
    e.pause_purge();
    workload(&t, 6_000);
    assert!(e.change_buffer().entries() > 0, "{mode:?}: changes were buffered");
    assert!(e.txn().history_len() > 100, "{mode:?}: the history grew while purge was paused");
    e.resume_purge();
    e.set_shutdown_mode(mode);
    drop(t);
    e.shutdown().unwrap();
    drop(e);
    let e = Engine::open(config().force_recovery(2), vfs).unwrap();
    let left = (e.txn().history_len(), e.change_buffer().entries_at_open());
    let rows = contents(&e.table("d/t").unwrap());
    (left.0, left.1, rows)
}

#[test]
fn a_slow_shutdown_purges_and_merges_everything_first() {
    let (history, entries, rows) = left_after(ShutdownMode::Slow);
    assert_eq!(history, 0, "every undo log was purged before the shutdown");
    assert_eq!(entries, 0, "every buffered change was merged before the shutdown");
    let (_, fast_entries, fast_rows) = left_after(ShutdownMode::Fast);
    assert!(fast_entries > 0, "a fast shutdown leaves buffered changes for later");
    assert_eq!(rows, fast_rows);
    assert_eq!(rows.len(), 6_000);
}

#[test]
fn a_cold_shutdown_leaves_the_pages_to_recovery_and_loses_nothing() {
    let run = |mode| {
        let vfs: Arc<dyn Vfs> = MemVfs::new();
        let e = Engine::open(config(), vfs.clone()).unwrap();
        let t = e.create_table("d/t", common::k_indexed_schema(false)).unwrap();
        workload(&t, 3_000);
        let before = contents(&t);
        e.set_shutdown_mode(mode);
        drop(t);
        e.shutdown().unwrap();
        drop(e);
        let e = Engine::open(config(), vfs).unwrap();
        let replayed = e.recovery_report().records;
        assert_eq!(contents(&e.table("d/t").unwrap()), before, "{mode:?}: committed rows survive");
        e.shutdown().unwrap();
        replayed
    };
    assert_eq!(run(ShutdownMode::Fast), 0, "after a fast shutdown the next open replays nothing");
    assert!(run(ShutdownMode::Cold) > 1_000, "after a cold shutdown the next open replays the log");
}
