//! Errors in the middle of B+tree operations leave nothing behind: no
//! panic, no leaked page, and no error returned for a change that was in
//! fact made.

mod common;

use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use quire_engine::btree::{node, BTree};
use quire_engine::buffer::{BufferPool, PoolConfig};
use quire_engine::space::{self, files::SpaceFiles};
use quire_engine::{Error, PageId};
use quire_io::{FaultKind, FaultVfs, OpKind, Vfs};

#[test]
fn a_pool_exhausted_during_a_root_split_fails_cleanly_without_leaking_pages() {
    let pool = common::mem_pool(4096, 16 * 4096, 1);
    let t1 = BTree::create(&pool, 1, 1).unwrap();
    for k in 0..400u32 {
        t1.insert(&k.to_be_bytes(), &[1u8; 100]).unwrap();
    }
    let t2 = BTree::create(&pool, 1, 2).unwrap();
    let val = [2u8; 200];
    let mut k = 0u32;
    while {
        let g = pool.fix_shared(t2.root()).unwrap();
        node::has_room(g.data(), node::entry_size(4, val.len()))
    } {
        t2.insert(&k.to_be_bytes(), &val).unwrap();
        k += 1;
    }
    // Twelve pages held by "other threads": the split cannot get its frames.
    let held: Vec<_> = (2..14).map(|p| pool.fix_shared(PageId::new(1, p)).unwrap()).collect();
    let (_, used_before) = space::usage(&pool, 1).unwrap();
    let r = t2.insert(&k.to_be_bytes(), &val);
    drop(held);
    assert!(matches!(r, Err(Error::PoolExhausted { .. })), "{r:?}");
    let (_, used_after) = space::usage(&pool, 1).unwrap();
    assert_eq!(used_after, used_before, "pages leaked by the failed split");
    // And the insert succeeds once frames are free.
    assert!(t2.insert(&k.to_be_bytes(), &val).unwrap());
    t2.verify().unwrap();
}

#[test]
fn a_value_larger_than_the_pool_is_stored_page_by_page() {
    let pool = common::mem_pool(4096, 16 * 4096, 1);
    let t = BTree::create(&pool, 1, 1).unwrap();
    let (_, used_before) = space::usage(&pool, 1).unwrap();
    let big: Vec<u8> = (0..30 * 4096).map(|i| (i % 251) as u8).collect();
    t.insert(b"k", &big).unwrap();
    let (_, used_after) = space::usage(&pool, 1).unwrap();
    assert_eq!(used_after - used_before, 31, "30 overflow pages (+1 for headers)");
    let mut out = Vec::new();
    assert!(t.get(b"k", &mut out).unwrap());
    assert!(out == big);
    t.remove(b"k").unwrap();
    let (_, used_end) = space::usage(&pool, 1).unwrap();
    assert_eq!(used_end, used_before, "the chain is freed with its record");
}

#[test]
fn remove_never_reports_an_error_for_a_removal_it_made() {
    let fault = FaultVfs::new();
    let vfs: Arc<dyn Vfs> = Arc::new(fault.clone());
    let files = Arc::new(SpaceFiles::new(vfs, 4096, false));
    files.open(1, std::path::Path::new("/t/s1.qbd"), true).unwrap();
    let cfg =
        PoolConfig { page_size: 4096, size_bytes: 32 * 4096, instances: 1, old_blocks_pct: 95, old_blocks_time_ms: 0 };
    let pool = Arc::new(BufferPool::new(cfg, files, Arc::new(AtomicU64::new(0))).unwrap());
    space::init_space(&pool, 1).unwrap();
    let tree = BTree::create(&pool, 1, 1).unwrap();
    for k in 0..1000u32 {
        tree.insert(&k.to_be_bytes(), &[5u8; 200]).unwrap();
    }
    let (l, r) = {
        let g = pool.fix_shared(tree.root()).unwrap();
        assert_eq!(node::level(g.data()), 1);
        (node::child_at(g.data(), 9).unwrap(), node::child_at(g.data(), 10).unwrap())
    };
    let lkeys: Vec<Vec<u8>> = {
        let g = pool.fix_shared(PageId::new(1, l)).unwrap();
        (0..node::count(g.data()))
            .map(|i| {
                let mut k = Vec::new();
                node::copy_key(g.data(), i, &mut k).unwrap();
                k
            })
            .collect()
    };
    // Thin the left leaf to two keys; its full right neighbour blocks a merge.
    for k in &lkeys[2..] {
        assert!(tree.remove(k).unwrap());
    }
    pool.flush_all().unwrap();
    // Push the right neighbour out of the pool.
    let mut out = Vec::new();
    for _ in 0..3 {
        for k in (0..1000u32).step_by(7).filter(|k| *k < 150 || *k > 400) {
            for _ in 0..3 {
                tree.get(&k.to_be_bytes(), &mut out).unwrap();
            }
        }
    }
    tree.get(&lkeys[0], &mut out).unwrap();
    assert!(!pool.is_resident(PageId::new(1, r)), "the neighbour is still cached; the test needs adjusting");
    // Every read fails now: the removal commits, then the merge attempt
    // cannot read the neighbour.
    fault.fail_nth(OpKind::Read, 1, FaultKind::Io, true);
    let res = tree.remove(&lkeys[0]);
    fault.clear_faults();
    let still_there = tree.contains(&lkeys[0]).unwrap();
    assert!(
        res.as_ref().is_ok_and(|&removed| removed) && !still_there,
        "remove returned {res:?}, key present: {still_there}"
    );
    tree.verify().unwrap();
}
