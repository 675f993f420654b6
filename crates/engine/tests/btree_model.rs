//! Model-based tests of the B+tree against `std::collections::BTreeMap`:
//! random inserts, updates, deletes, point lookups and range scans in both
//! directions, with a buffer pool much smaller than the data so that pages
//! are evicted and read back constantly.

mod common;

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use proptest::prelude::*;
use quire_engine::btree::{BTree, Direction};
use quire_engine::buffer::BufferPool;
use quire_engine::space;

fn pool(page_size: usize, pool_bytes: usize, instances: usize) -> Arc<BufferPool> {
    common::mem_pool(page_size, pool_bytes, instances)
}

#[derive(Debug, Clone)]
enum Op {
    Insert(u32, usize),
    Update(u32, usize),
    Remove(u32),
    Get(u32),
    Scan(u32, u32, bool),
}

fn key(k: u32) -> Vec<u8> {
    // Variable-length keys that still sort like the number.
    let mut v = format!("k{k:08}").into_bytes();
    v.extend(std::iter::repeat_n(b'x', (k % 7) as usize));
    v
}

fn value(k: u32, len: usize) -> Vec<u8> {
    (0..len).map(|i| (k as usize * 31 + i) as u8).collect()
}

fn op_strategy(keys: u32) -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..keys, 0usize..300).prop_map(|(k, l)| Op::Insert(k, l)),
        2 => (0..keys, 0usize..600).prop_map(|(k, l)| Op::Update(k, l)),
        2 => (0..keys).prop_map(Op::Remove),
        2 => (0..keys).prop_map(Op::Get),
        1 => (0..keys, 0..keys, any::<bool>()).prop_map(|(a, b, f)| Op::Scan(a.min(b), a.max(b), f)),
    ]
}

fn run(ops: &[Op], page_size: usize, pool_bytes: usize) {
    let pool = pool(page_size, pool_bytes, 2);
    let tree = BTree::create(&pool, 1, 1).unwrap();
    let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    let mut out = Vec::new();
    for op in ops {
        match *op {
            Op::Insert(k, l) => {
                let (kk, v) = (key(k), value(k, l));
                let fresh = !model.contains_key(&kk);
                assert_eq!(tree.insert(&kk, &v).unwrap(), fresh);
                model.entry(kk).or_insert(v);
            }
            Op::Update(k, l) => {
                let (kk, v) = (key(k), value(k + 1, l));
                let present = model.contains_key(&kk);
                assert_eq!(tree.update(&kk, &v).unwrap(), present);
                if present {
                    model.insert(kk, v);
                }
            }
            Op::Remove(k) => {
                let kk = key(k);
                assert_eq!(tree.remove(&kk).unwrap(), model.remove(&kk).is_some());
            }
            Op::Get(k) => {
                let kk = key(k);
                let found = tree.get(&kk, &mut out).unwrap();
                assert_eq!(found.then(|| out.clone()), model.get(&kk).cloned());
            }
            Op::Scan(a, b, fwd) => {
                let (ka, kb) = (key(a), key(b));
                let dir = if fwd { Direction::Forward } else { Direction::Backward };
                let got = tree.range(Bound::Included(&ka), Bound::Excluded(&kb), dir).collect_all().unwrap();
                let mut want: Vec<_> =
                    model.range(ka.clone()..kb.clone()).map(|(k, v)| (k.clone(), v.clone())).collect();
                if !fwd {
                    want.reverse();
                }
                assert_eq!(got, want);
            }
        }
    }
    let (entries, _) = tree.verify().unwrap();
    assert_eq!(entries as usize, model.len());
    let all = tree.range(Bound::Unbounded, Bound::Unbounded, Direction::Forward).collect_all().unwrap();
    assert_eq!(all.len(), model.len());
    assert!(all.iter().zip(model.iter()).all(|(a, b)| a.0 == *b.0 && a.1 == *b.1));
    pool.check_lists();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn btree_matches_btreemap_with_a_tiny_pool(ops in proptest::collection::vec(op_strategy(3000), 1..3000)) {
        run(&ops, 4096, 64 * 4096);
    }

    #[test]
    fn btree_matches_btreemap_with_16k_pages(ops in proptest::collection::vec(op_strategy(800), 1..2000)) {
        run(&ops, 16384, 64 * 16384);
    }
}

#[test]
fn values_larger_than_a_page_go_to_overflow_chains_and_come_back() {
    let pool = pool(4096, 64 * 4096, 1);
    let tree = BTree::create(&pool, 1, 1).unwrap();
    let mut model = BTreeMap::new();
    for k in 0..200u32 {
        let v = value(k, (k as usize * 397) % 20_000);
        tree.insert(&key(k), &v).unwrap();
        model.insert(key(k), v);
    }
    for k in (0..200u32).step_by(3) {
        let v = value(k + 9, (k as usize * 131) % 9000);
        tree.update(&key(k), &v).unwrap();
        model.insert(key(k), v);
    }
    for k in (0..200u32).step_by(5) {
        tree.remove(&key(k)).unwrap();
        model.remove(&key(k));
    }
    let mut out = Vec::new();
    for (k, v) in &model {
        assert!(tree.get(k, &mut out).unwrap());
        assert_eq!(&out, v);
    }
    let all = tree.range(Bound::Unbounded, Bound::Unbounded, Direction::Backward).collect_all().unwrap();
    let want: Vec<_> = model.iter().rev().map(|(k, v)| (k.clone(), v.clone())).collect();
    assert_eq!(all, want);
    tree.verify().unwrap();
}

#[test]
fn sequential_and_reverse_loads_then_full_deletion_shrink_the_tree() {
    let pool = pool(4096, 256 * 4096, 2);
    let tree = BTree::create(&pool, 1, 1).unwrap();
    for k in 0..20_000u32 {
        assert!(tree.insert(&k.to_be_bytes(), &[7u8; 40]).unwrap());
    }
    for k in (20_000..40_000u32).rev() {
        assert!(tree.insert(&k.to_be_bytes(), &[8u8; 40]).unwrap());
    }
    let (n, pages) = tree.verify().unwrap();
    assert_eq!(n, 40_000);
    // Sequential loads split near the end: pages end up well filled.
    let per_page = 4096 / (8 + 2 + 4 + 40);
    assert!(pages < (40_000 / per_page) as u64 * 2, "{pages} pages for 40k entries");
    for k in 0..40_000u32 {
        assert!(tree.remove(&k.to_be_bytes()).unwrap());
    }
    let (n, pages) = tree.verify().unwrap();
    assert_eq!((n, pages), (0, 1), "an emptied tree collapses to its root");
    let (_, used) = space::usage(&pool, 1).unwrap();
    assert_eq!(used, 3, "header, bitmap and root remain; every other page was freed");
}
