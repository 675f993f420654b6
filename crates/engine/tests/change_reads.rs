//! The evidence for or against a change buffer (issue 18 item 6): the
//! leaves of non-unique secondary indexes that inserts, updates and purge
//! read only to apply a change (`PoolStats::reads_for_change_leaf`, shown
//! as INNODB_METRICS `change_buffer_leaf_reads`) are counted, and nothing
//! else is: not the clustered index, not a UNIQUE index (whose check needs
//! the leaf anyway), not a read by a query.

mod common;

use std::sync::Arc;

use quire_engine::ibuf::Mode;
use quire_engine::row::{TableSchema, Value};
use quire_engine::{Engine, EngineConfig, Table};
use quire_io::{MemVfs, Vfs};

fn schema(unique: bool) -> TableSchema {
    common::k_indexed_schema(unique)
}

/// A permutation of 0..n: keys that land on random leaves.
fn scattered(i: i64, n: i64) -> i64 {
    (i * 7919) % n
}

fn row(i: i64, k: i64) -> Vec<Value> {
    vec![Value::Int(i), Value::Int(k), Value::Str(format!("{i:0>100}"))]
}

/// A 96-page pool: the tables' secondary indexes outgrow it.
fn engine() -> Arc<Engine> {
    let vfs: Arc<dyn Vfs> = MemVfs::new();
    // Without a change buffer: the reads it would save are what is counted.
    let cfg = EngineConfig::new("/data").page_size(4096).buffer_pool_size(96 * 4096).change_buffering(Mode::None);
    Engine::open(cfg, vfs).unwrap()
}

fn change_reads(e: &Engine) -> (u64, u64) {
    let s = &e.pool().stats;
    (s.reads_for_change_leaf.get(), s.reads_index_leaf.get())
}

fn load(e: &Engine, name: &str, unique: bool, n: i64) -> (Arc<Table>, u64, u64) {
    let t = e.create_table(name, schema(unique)).unwrap();
    let (c0, l0) = change_reads(e);
    for i in 0..n {
        t.insert(row(i, scattered(i, n))).unwrap();
    }
    let (c1, l1) = change_reads(e);
    (t, c1 - c0, l1 - l0)
}

#[test]
fn secondary_leaves_read_for_a_change_are_counted_only_for_non_unique_indexes() {
    let e = engine();
    let n = 20_000;
    let (t, change, leaves) = load(&e, "d/nonunique", false, n);
    assert!(change > 0, "inserts with scattered keys read evicted secondary leaves ({leaves} leaves read)");
    assert!(change <= leaves, "{change} change reads of {leaves} leaf reads");

    let (_, change_u, leaves_u) = load(&e, "d/unique", true, n);
    assert!(leaves_u > 0, "the unique index's leaves were read too");
    assert_eq!(change_u, 0, "a UNIQUE index reads its leaf to check the key: nothing to defer");

    // Queries read leaves but change nothing.
    let (c0, l0) = change_reads(&e);
    for i in (0..n).step_by(7) {
        assert_eq!(t.get(&[Value::Int(i)]).unwrap().unwrap(), row(i, scattered(i, n)));
    }
    let (c1, l1) = change_reads(&e);
    assert!(l1 > l0, "the lookups read leaves");
    assert_eq!(c1, c0, "a lookup is not a change");

    // Updates of the key do.
    let (c0, _) = change_reads(&e);
    for i in (0..n).step_by(11) {
        let k = scattered(i, n);
        assert!(t.update(&[Value::Int(i)], row(i, (k + n / 2) % n)).unwrap());
    }
    let (c1, _) = change_reads(&e);
    assert!(c1 > c0, "updates of k read evicted secondary leaves");
}
