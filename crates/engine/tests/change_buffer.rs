//! The change buffer (`innodb_change_buffering`, issue 18 item 6):
//! changes to leaves of non-unique secondary indexes that are not in the
//! pool are buffered and merged when the leaf is read, with the same
//! result as applying them at once; a crash with changes buffered loses
//! nothing (including on pages crash recovery brought into the pool
//! before the change buffer opened: they are merged at open); a dropped
//! table takes its buffered changes with it.

mod common;

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use quire_engine::btree::Direction;
use quire_engine::config::FlushMethod;
use quire_engine::ibuf::Mode;
use quire_engine::row::{TableSchema, Value};
use quire_engine::table::IndexRef;
use quire_engine::{Engine, EngineConfig, Table};
use quire_io::{CrashPolicy, FaultVfs, MemVfs, Vfs};
use rand::{Rng, SeedableRng};

fn schema() -> TableSchema {
    common::k_indexed_schema(false)
}

fn row(id: i64, k: i64) -> Vec<Value> {
    vec![Value::Int(id), Value::Int(k), Value::Str(format!("{id:0>100}"))]
}

/// A 96-page pool, which the table's secondary index outgrows.
fn config(mode: Mode) -> EngineConfig {
    EngineConfig::new("/data")
        .page_size(4096)
        .buffer_pool_size(96 * 4096)
        .flush_method(FlushMethod::Fsync)
        .change_buffering(mode)
}

/// Inserts `n` rows with scattered keys into each table, then changes the
/// key of every third row and deletes every seventh (so purge removes
/// entries); the tables take turns, so that each one's leaves are evicted.
fn workload_on(tables: &[&Table], n: i64, seed: u64) {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    for i in 0..n {
        for t in tables {
            t.insert(row(i, rng.gen_range(0..n))).unwrap();
        }
    }
    for i in (0..n).step_by(3) {
        for t in tables {
            assert!(t.update(&[Value::Int(i)], row(i, rng.gen_range(0..n))).unwrap());
        }
    }
    for i in (0..n).step_by(7) {
        for t in tables {
            assert!(t.delete(&[Value::Int(i)]).unwrap());
        }
    }
}

fn workload(t: &Table, n: i64, seed: u64) {
    workload_on(&[t], n, seed)
}

fn wait_for_purge(e: &Engine) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while e.txn().history_len() > 0 {
        assert!(std::time::Instant::now() < deadline, "purge did not finish");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The secondary index's raw entries (reading them merges what is buffered).
fn secondary_entries(t: &Table) -> Vec<(Vec<u8>, Vec<u8>)> {
    t.secondary_tree_for_tests(0).range(Bound::Unbounded, Bound::Unbounded, Direction::Forward).collect_all().unwrap()
}

/// Every row, via the primary key and via the secondary index, which must agree.
fn contents(t: &Table) -> BTreeMap<i64, i64> {
    let scan = |ix| t.scan(ix, Bound::Unbounded, Bound::Unbounded, Direction::Forward).unwrap().collect_all().unwrap();
    let (by_pk, by_k) = (scan(IndexRef::Primary), scan(IndexRef::Secondary(0)));
    assert_eq!(by_pk.len(), by_k.len(), "primary and secondary index disagree");
    let pair = |r: &Vec<Value>| match (&r[0], &r[1]) {
        (Value::Int(id), Value::Int(k)) => (*id, *k),
        _ => panic!("bad row {r:?}"),
    };
    let m: BTreeMap<i64, i64> = by_pk.iter().map(pair).collect();
    assert_eq!(by_k.iter().map(pair).collect::<BTreeMap<_, _>>(), m, "the secondary index holds other rows");
    m
}

#[test]
fn buffered_changes_merge_into_the_same_index_as_changes_applied_at_once() {
    let run = |mode| {
        let e = Engine::open(config(mode), MemVfs::new()).unwrap();
        let t = e.create_table("d/t", schema()).unwrap();
        workload(&t, 12_000, 7);
        wait_for_purge(&e);
        let cb = e.change_buffer();
        let stats = (cb.stats.buffered_inserts.get(), cb.stats.buffered_removes.get(), cb.stats.merges.get());
        let entries = secondary_entries(&t);
        assert!(t.check().unwrap().is_ok(), "{mode:?}: CHECK TABLE finds the indexes disagreeing");
        let rows = contents(&t);
        e.shutdown().unwrap();
        (stats, entries, rows)
    };
    let ((ins, rem, merges), with, rows_with) = run(Mode::All);
    assert!(ins > 100, "inserts into evicted leaves were buffered ({ins})");
    assert!(rem > 0, "purge's removals from evicted leaves were buffered ({rem})");
    assert!(merges > 0, "reads merged buffered changes");
    let ((ins0, rem0, _), without, rows_without) = run(Mode::None);
    assert_eq!((ins0, rem0), (0, 0), "innodb_change_buffering=none buffers nothing");
    assert_eq!(rows_with, rows_without);
    assert!(
        with == without,
        "the secondary index differs with the change buffer ({} entries, {} without)",
        with.len(),
        without.len()
    );
}

#[test]
fn only_the_changes_the_mode_names_are_buffered() {
    for (mode, inserts, removes) in [
        (Mode::Inserts, true, false),
        (Mode::Changes, true, false),
        (Mode::Purges, false, true),
        (Mode::Deletes, false, false),
    ] {
        let e = Engine::open(config(mode), MemVfs::new()).unwrap();
        let t = e.create_table("d/t", schema()).unwrap();
        workload(&t, 6_000, 3);
        wait_for_purge(&e);
        let cb = e.change_buffer();
        assert_eq!(cb.stats.buffered_inserts.get() > 0, inserts, "{mode:?}: inserts");
        assert_eq!(cb.stats.buffered_removes.get() > 0, removes, "{mode:?}: purge's removals");
        contents(&t);
        e.shutdown().unwrap();
    }
}

#[test]
fn a_crash_with_changes_buffered_loses_nothing_acknowledged() {
    for seed in 0..4 {
        let fault = FaultVfs::new();
        let vfs = || -> Arc<dyn Vfs> { Arc::new(fault.clone()) };
        let mut model = BTreeMap::new();
        {
            // A log large enough that no checkpoint passes the changes:
            // recovery reads every page they touched, leaves among them
            // that have changes buffered, which must be merged at open.
            let e = Engine::open(config(Mode::All).log_file_size(64 << 20), vfs()).unwrap();
            e.change_buffer().pause_background_merge(true);
            let t = e.create_table("d/t", schema()).unwrap();
            let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
            for step in 0..8_000i64 {
                let id = rng.gen_range(0..4_000);
                let k = rng.gen_range(0..100_000);
                match rng.gen_range(0..10) {
                    0..=5 => {
                        if t.insert(row(id, k)).is_ok() {
                            model.insert(id, k);
                        }
                    }
                    6..=8 => {
                        if t.update(&[Value::Int(id)], row(id, k)).unwrap() {
                            model.insert(id, k);
                        }
                    }
                    _ => {
                        if t.delete(&[Value::Int(id)]).unwrap() {
                            model.remove(&id);
                        }
                    }
                }
                let _ = step;
            }
            assert!(e.change_buffer().entries() > 0, "seed {seed}: changes were buffered at the crash");
            fault.crash(CrashPolicy::DropUnsynced);
        }
        // Reopened with a pool that keeps every page recovery reads.
        let e = Engine::open(config(Mode::All).log_file_size(64 << 20).buffer_pool_size(4096 * 4096), vfs()).unwrap();
        assert!(e.change_buffer().entries_at_open() > 0, "seed {seed}: buffered changes survived the crash");
        let t = e.table("d/t").unwrap();
        assert_eq!(contents(&t), model, "seed {seed}: recovered contents differ from the acknowledged ones");
        assert!(t.check().unwrap().is_ok(), "seed {seed}: CHECK TABLE after recovery");
        e.change_buffer().merge_all().unwrap();
        assert_eq!(e.change_buffer().entries(), 0, "seed {seed}: everything merged");
        e.shutdown().unwrap();
    }
}

#[test]
fn dropping_a_table_drops_its_buffered_changes() {
    let reference = {
        let e = Engine::open(config(Mode::None), MemVfs::new()).unwrap();
        let t = e.create_table("d/t", schema()).unwrap();
        let keep = e.create_table("d/keep", schema()).unwrap();
        workload_on(&[&t, &keep], 4_000, 2);
        contents(&keep)
    };
    let vfs: Arc<dyn Vfs> = MemVfs::new();
    let e = Engine::open(config(Mode::All), vfs.clone()).unwrap();
    e.change_buffer().pause_background_merge(true);
    let t = e.create_table("d/t", schema()).unwrap();
    let keep = e.create_table("d/keep", schema()).unwrap();
    workload_on(&[&t, &keep], 4_000, 2);
    // Counted once purge is done: a purge still running buffers more
    // (its removals of stale secondary entries), also between the drop
    // and the restart. (Purge is woken per batch of logs, so the last
    // few wait for its timed wake.)
    wait_for_purge(&e);
    let before = e.change_buffer().entries();
    drop((t, keep));
    e.drop_table("d/t").unwrap();
    let after = e.change_buffer().entries();
    assert!(after > 0 && after < before, "only the dropped table's changes went ({before} -> {after})");
    e.shutdown().unwrap();
    // What is left belongs to the other table, survives a restart, and
    // merges into the same contents as without the buffer.
    let e = Engine::open(config(Mode::All), vfs).unwrap();
    assert_eq!(e.change_buffer().entries_at_open(), after);
    assert_eq!(contents(&e.table("d/keep").unwrap()), reference);
    assert_eq!(e.change_buffer().entries(), 0, "reading the table merged its changes");
}

#[test]
fn the_change_buffer_tree_shrinks_back_once_everything_is_merged() {
    let e = Engine::open(config(Mode::All), MemVfs::new()).unwrap();
    let cb = e.change_buffer();
    cb.pause_background_merge(true);
    let t = e.create_table("d/t", schema()).unwrap();
    workload(&t, 12_000, 5);
    let full = cb.tree_pages().unwrap();
    assert!(full > 3, "the buffered changes took several pages ({full})");
    cb.merge_all().unwrap();
    assert_eq!(cb.entries(), 0);
    let left = cb.tree_pages().unwrap();
    assert!(left * 3 <= full, "emptied leaves were joined: {full} pages, {left} left");
    contents(&t);
}
