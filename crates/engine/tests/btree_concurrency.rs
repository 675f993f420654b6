//! Concurrent readers and writers on one B+tree, with a consistency check
//! afterwards, and a pool small enough that eviction runs all the time.

mod common;

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use quire_engine::btree::{BTree, Direction};
use rand::{Rng, SeedableRng};

/// Values carry their key, so a reader can tell a torn or misplaced value.
fn value(key: u32, version: u32, len: usize) -> Vec<u8> {
    let mut v = key.to_be_bytes().to_vec();
    v.extend_from_slice(&version.to_le_bytes());
    v.resize(8 + len, (key ^ version) as u8);
    v
}

fn check_value(key: &[u8], v: &[u8]) {
    assert!(v.len() >= 8, "short value");
    assert_eq!(&v[..4], key, "a value under the wrong key");
    let k = u32::from_be_bytes(key.try_into().unwrap());
    let ver = u32::from_le_bytes(v[4..8].try_into().unwrap());
    assert!(v[8..].iter().all(|&b| b == (k ^ ver) as u8), "a torn value");
}

#[test]
fn concurrent_writers_and_readers_leave_a_consistent_tree() {
    let pool = common::mem_pool(4096, 256 * 4096, 4);
    let tree = Arc::new(BTree::create(&pool, 1, 1).unwrap());
    const WRITERS: u32 = 4;
    const KEYS: u32 = 6000;
    let stop = Arc::new(AtomicBool::new(false));
    let reads = Arc::new(AtomicU64::new(0));
    let mut readers = Vec::new();
    for r in 0..3u64 {
        let (tree, stop, reads) = (tree.clone(), stop.clone(), reads.clone());
        readers.push(std::thread::spawn(move || {
            let mut rng = rand::rngs::SmallRng::seed_from_u64(100 + r);
            let mut out = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                if rng.gen_bool(0.8) {
                    let k: u32 = rng.gen_range(0..KEYS);
                    if tree.get(&k.to_be_bytes(), &mut out).unwrap() {
                        check_value(&k.to_be_bytes(), &out);
                    }
                } else {
                    let a: u32 = rng.gen_range(0..KEYS);
                    let dir = if rng.gen() { Direction::Forward } else { Direction::Backward };
                    let mut c =
                        tree.range(Bound::Included(&a.to_be_bytes()), Bound::Excluded(&(a + 300).to_be_bytes()), dir);
                    let mut prev: Option<Vec<u8>> = None;
                    while let Some((k, v)) = c.next().unwrap() {
                        check_value(k, v);
                        if let Some(p) = &prev {
                            match dir {
                                Direction::Forward => assert!(p.as_slice() < k, "scan out of order"),
                                Direction::Backward => assert!(p.as_slice() > k, "scan out of order"),
                            }
                        }
                        prev = Some(k.to_vec());
                    }
                }
                reads.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    let mut writers = Vec::new();
    for w in 0..WRITERS {
        let tree = tree.clone();
        writers.push(std::thread::spawn(move || {
            let mut rng = rand::rngs::SmallRng::seed_from_u64(w as u64);
            let mut model = BTreeMap::new();
            for step in 0..15_000u32 {
                // Each writer owns the keys congruent to its number.
                let k = rng.gen_range(0..KEYS / WRITERS) * WRITERS + w;
                let kb = k.to_be_bytes();
                match rng.gen_range(0..10) {
                    0..=4 => {
                        let v = value(k, step, rng.gen_range(0..400));
                        let fresh = !model.contains_key(&k);
                        assert_eq!(tree.insert(&kb, &v).unwrap(), fresh);
                        model.entry(k).or_insert(v);
                    }
                    5..=7 => {
                        let v = value(k, step, rng.gen_range(0..700));
                        assert_eq!(tree.update(&kb, &v).unwrap(), model.contains_key(&k));
                        if model.contains_key(&k) {
                            model.insert(k, v);
                        }
                    }
                    _ => assert_eq!(tree.remove(&kb).unwrap(), model.remove(&k).is_some()),
                }
            }
            model
        }));
    }
    let mut model = BTreeMap::new();
    for w in writers {
        model.extend(w.join().unwrap());
    }
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        r.join().unwrap();
    }
    assert!(reads.load(Ordering::Relaxed) > 0);
    let (n, _) = tree.verify().unwrap();
    assert_eq!(n as usize, model.len());
    let all = tree.range(Bound::Unbounded, Bound::Unbounded, Direction::Forward).collect_all().unwrap();
    let want: Vec<_> = model.iter().map(|(k, v)| (k.to_be_bytes().to_vec(), v.clone())).collect();
    assert!(all == want, "final contents differ from the writers' models");
    pool.check_lists();
}

#[test]
fn writers_racing_on_the_same_keys_never_tear_values() {
    let pool = common::mem_pool(4096, 128 * 4096, 2);
    let tree = Arc::new(BTree::create(&pool, 1, 1).unwrap());
    for k in 0..500u32 {
        tree.insert(&k.to_be_bytes(), &value(k, 0, 10)).unwrap();
    }
    let threads: Vec<_> = (0..6u64)
        .map(|t| {
            let tree = tree.clone();
            std::thread::spawn(move || {
                let mut rng = rand::rngs::SmallRng::seed_from_u64(t);
                let mut out = Vec::new();
                for step in 0..20_000u32 {
                    let k: u32 = rng.gen_range(0..500);
                    if t % 2 == 0 {
                        tree.update(&k.to_be_bytes(), &value(k, step, rng.gen_range(0..900))).unwrap();
                    } else if tree.get(&k.to_be_bytes(), &mut out).unwrap() {
                        check_value(&k.to_be_bytes(), &out);
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let (n, _) = tree.verify().unwrap();
    assert_eq!(n, 500);
}

#[test]
fn scans_never_skip_keys_present_throughout_concurrent_splits_and_merges() {
    // Even keys stay for the whole test; writers insert and remove odd keys
    // around them, splitting and merging leaves under the scans.
    let pool = common::mem_pool(4096, 1024 * 4096, 2);
    let tree = Arc::new(BTree::create(&pool, 1, 1).unwrap());
    const N: u32 = 20_000;
    for k in (0..N).step_by(2) {
        tree.insert(&k.to_be_bytes(), &[7u8; 150]).unwrap();
    }
    let stop = Arc::new(AtomicBool::new(false));
    let mut writers = Vec::new();
    for w in 0..2u64 {
        let (tree, stop) = (tree.clone(), stop.clone());
        writers.push(std::thread::spawn(move || {
            let mut rng = rand::rngs::SmallRng::seed_from_u64(w);
            while !stop.load(Ordering::Relaxed) {
                let k: u32 = rng.gen_range(0..N / 2) * 2 + 1;
                if rng.gen_bool(0.6) {
                    tree.insert(&k.to_be_bytes(), &[9u8; 150]).unwrap();
                } else {
                    tree.remove(&k.to_be_bytes()).unwrap();
                }
            }
        }));
    }
    let readers: Vec<_> = (0..2u64)
        .map(|r| {
            let tree = tree.clone();
            std::thread::spawn(move || {
                let mut rng = rand::rngs::SmallRng::seed_from_u64(100 + r);
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(4);
                let mut scans = 0;
                while std::time::Instant::now() < deadline {
                    let a: u32 = rng.gen_range(0..N / 2 - 100) * 2;
                    let b = a + 2 * rng.gen_range(1..40u32);
                    let dir = if rng.gen() { Direction::Forward } else { Direction::Backward };
                    let mut c = tree.range(Bound::Included(&a.to_be_bytes()), Bound::Included(&b.to_be_bytes()), dir);
                    let mut evens = Vec::new();
                    while let Some((k, _)) = c.next().unwrap() {
                        let k = u32::from_be_bytes(k.try_into().unwrap());
                        if k % 2 == 0 {
                            evens.push(k);
                        }
                    }
                    if dir == Direction::Backward {
                        evens.reverse();
                    }
                    let want: Vec<u32> = (a..=b).step_by(2).collect();
                    assert_eq!(evens, want, "{dir:?} scan [{a}, {b}] skipped keys that never left the tree");
                    scans += 1;
                }
                scans
            })
        })
        .collect();
    let scans: u64 = readers.into_iter().map(|r| r.join().unwrap()).sum();
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.join().unwrap();
    }
    assert!(scans > 100);
}
