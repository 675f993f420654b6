//! The adaptive hash index never answers a lookup with a stale row: not
//! through splits, merges, updates, deletes or evictions (against a model,
//! single-threaded and concurrently), not after a tree is destroyed and its
//! pages reused by another, not after DROP TABLE / CREATE TABLE or TRUNCATE,
//! and not while it is switched off and on under load. Each test also checks
//! that lookups were really answered through the hash.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use quire_engine::btree::BTree;
use quire_engine::buffer::BufferPool;
use quire_engine::config::FlushMethod;
use quire_engine::log::FlushAtCommit;
use quire_engine::row::{Column, ColumnType, TableSchema, Value};
use quire_engine::{Engine, EngineConfig};
use quire_io::MemVfs;
use rand::{Rng, SeedableRng};

/// A value naming its key and the step that wrote it, padded to `len`.
fn value(key: u32, step: u32, len: usize) -> Vec<u8> {
    let mut v = key.to_be_bytes().to_vec();
    v.extend_from_slice(&step.to_le_bytes());
    v.resize(8 + len, (key ^ step) as u8);
    v
}

/// The step that wrote `v`, after checking it belongs to `key` and is whole.
fn step_of(key: u32, v: &[u8]) -> u32 {
    assert!(v.len() >= 8, "short value");
    assert_eq!(&v[..4], &key.to_be_bytes(), "a value under the wrong key");
    let step = u32::from_le_bytes(v[4..8].try_into().unwrap());
    assert!(v[8..].iter().all(|&b| b == (key ^ step) as u8), "a torn value");
    step
}

fn searches(pool: &BufferPool) -> u64 {
    pool.adaptive_hash.searches.get()
}

/// A small pool (eviction all the time) with the index on, one part so that
/// the few buckets a small pool gets all serve the one tree.
fn pool_with_ahi(frames: usize) -> Arc<BufferPool> {
    let pool = common::mem_pool(4096, frames * 4096, 2);
    pool.adaptive_hash.set_parts(1);
    pool.adaptive_hash.set_enabled(true);
    pool
}

#[test]
fn hash_lookups_match_a_model_through_splits_merges_and_evictions() {
    let pool = pool_with_ahi(96);
    let tree = BTree::create(&pool, 1, 7).unwrap();
    let mut model: BTreeMap<u32, Vec<u8>> = BTreeMap::new();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(5);
    let mut out = Vec::new();
    const KEYS: u32 = 4000;
    for step in 0..120_000u32 {
        // Most traffic on a hot tenth of the keys, so that they get entries
        // and those entries meet every kind of change.
        let k = if rng.gen_bool(0.7) { rng.gen_range(0..KEYS / 10) * 10 } else { rng.gen_range(0..KEYS) };
        let kb = k.to_be_bytes();
        match rng.gen_range(0..20) {
            0..=2 => {
                let v = value(k, step, rng.gen_range(0..600));
                tree.upsert(&kb, &v).unwrap();
                model.insert(k, v);
            }
            3 => {
                assert_eq!(tree.remove(&kb).unwrap(), model.remove(&k).is_some());
            }
            4 => {
                // A burst of deletes around k: leaves empty out and merge.
                for j in k..(k + 60).min(KEYS) {
                    assert_eq!(tree.remove(&j.to_be_bytes()).unwrap(), model.remove(&j).is_some());
                }
            }
            _ => {
                let found = tree.get(&kb, &mut out).unwrap();
                match model.get(&k) {
                    Some(v) => assert!(found && out == *v, "key {k} at step {step}: stale or missing"),
                    None => assert!(!found, "key {k} at step {step}: a deleted key was found"),
                }
            }
        }
    }
    assert!(searches(&pool) > 1000, "the hash answered only {} lookups", searches(&pool));
    let (n, _) = tree.verify().unwrap();
    assert_eq!(n as usize, model.len());
    pool.check_lists();
}

/// Writers own the keys congruent to their number and publish each step
/// before (`started`) and after (`done`) applying it; a reader that read
/// `done` = d before a lookup and `started` = s after it must see the
/// effect of a step in [d, s]. A stale hit would show a step below d.
#[test]
fn concurrent_hash_lookups_never_see_a_value_older_than_a_finished_write() {
    let pool = pool_with_ahi(128);
    let tree = Arc::new(BTree::create(&pool, 1, 9).unwrap());
    const KEYS: u32 = 3000;
    const WRITERS: u32 = 2;
    // step << 1 | present; steps start at 1.
    let started: Arc<Vec<AtomicU64>> = Arc::new((0..KEYS).map(|_| AtomicU64::new(0)).collect());
    let done: Arc<Vec<AtomicU64>> = Arc::new((0..KEYS).map(|_| AtomicU64::new(0)).collect());
    let stop = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..2u64)
        .map(|r| {
            let (tree, started, done, stop) = (tree.clone(), started.clone(), done.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut rng = rand::rngs::SmallRng::seed_from_u64(50 + r);
                let mut out = Vec::new();
                let mut lookups = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let k = if rng.gen_bool(0.8) {
                        rng.gen_range(0..KEYS / 20) * 20 + rng.gen_range(0..WRITERS)
                    } else {
                        rng.gen_range(0..KEYS)
                    };
                    let d = done[k as usize].load(Ordering::SeqCst);
                    let found = tree.get(&k.to_be_bytes(), &mut out).unwrap();
                    let s = started[k as usize].load(Ordering::SeqCst);
                    if found {
                        let step = step_of(k, &out) as u64;
                        assert!(step >= d >> 1, "key {k}: value of step {step} after step {} finished", d >> 1);
                        assert!(step <= s >> 1, "key {k}: value of step {step} not yet started ({})", s >> 1);
                    } else {
                        assert!(d & 1 == 0 || s > d, "key {k}: missing, yet present since step {}", d >> 1);
                    }
                    lookups += 1;
                }
                lookups
            })
        })
        .collect();
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (tree, started, done) = (tree.clone(), started.clone(), done.clone());
            std::thread::spawn(move || {
                let mut rng = rand::rngs::SmallRng::seed_from_u64(w as u64);
                for step in 1..40_000u32 {
                    // Hot keys are 20j + w; all of this writer's are w mod WRITERS.
                    let k = if rng.gen_bool(0.5) {
                        rng.gen_range(0..KEYS / 20) * 20 + w
                    } else {
                        rng.gen_range(0..KEYS / WRITERS) * WRITERS + w
                    };
                    let present = rng.gen_range(0..4) != 0;
                    let mark = ((step as u64) << 1) | present as u64;
                    started[k as usize].store(mark, Ordering::SeqCst);
                    if present {
                        tree.upsert(&k.to_be_bytes(), &value(k, step, rng.gen_range(0..500))).unwrap();
                    } else {
                        tree.remove(&k.to_be_bytes()).unwrap();
                    }
                    done[k as usize].store(mark, Ordering::SeqCst);
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    let lookups: u64 = readers.into_iter().map(|r| r.join().unwrap()).sum();
    assert!(lookups > 0);
    assert!(searches(&pool) > 100, "the hash answered only {} of {lookups} lookups", searches(&pool));
    tree.verify().unwrap();
    pool.check_lists();
}

#[test]
fn a_destroyed_tree_whose_pages_another_tree_reuses_answers_nothing() {
    let pool = pool_with_ahi(512);
    let old = BTree::create(&pool, 1, 11).unwrap();
    let mut out = Vec::new();
    for k in 0..3000u32 {
        old.insert(&k.to_be_bytes(), &value(k, 1, 40)).unwrap();
    }
    for _ in 0..4 {
        for k in 0..3000u32 {
            assert!(old.get(&k.to_be_bytes(), &mut out).unwrap());
        }
    }
    let before = searches(&pool);
    assert!(before > 0);
    old.destroy().unwrap();
    // The new tree gets the freed pages; same index id, so only the page
    // type and the key check stand between its lookups and old entries.
    let new = BTree::create(&pool, 1, 11).unwrap();
    for k in (0..3000u32).step_by(2) {
        new.insert(&k.to_be_bytes(), &value(k, 2, 40)).unwrap();
    }
    for _ in 0..4 {
        for k in 0..3000u32 {
            let found = new.get(&k.to_be_bytes(), &mut out).unwrap();
            assert_eq!(found, k % 2 == 0, "key {k}");
            if found {
                assert_eq!(step_of(k, &out), 2, "key {k} answered from the destroyed tree");
            }
        }
    }
    assert!(searches(&pool) > before, "the new tree's hot keys were not hashed");
}

fn engine(ahi: bool) -> Arc<Engine> {
    let mut cfg = EngineConfig::new("/data")
        .buffer_pool_size(8 << 20)
        .flush_method(FlushMethod::Fsync)
        .flush_log_at_trx_commit(FlushAtCommit::Lazy);
    cfg.adaptive_hash_index = ahi;
    cfg.adaptive_hash_index_parts = 4;
    Engine::open(cfg, MemVfs::new()).unwrap()
}

fn schema() -> TableSchema {
    TableSchema {
        columns: vec![
            Column::new("id", ColumnType::BigInt { unsigned: false }).not_null(),
            Column::new("v", ColumnType::Varchar { len: 100 }).not_null(),
        ],
        primary_key: vec![0],
        indexes: vec![],
        ..Default::default()
    }
}

fn v_of(e: &Engine, id: i64) -> Option<Value> {
    e.table("db/t").unwrap().get(&[Value::Int(id)]).unwrap().map(|r| r[1].clone())
}

#[test]
fn drop_and_recreate_table_and_truncate_never_answer_from_old_entries() {
    let e = engine(true);
    assert_eq!(e.pool().adaptive_hash.shape().map(|s| s.0), Some(4));
    let t = e.create_table("db/t", schema()).unwrap();
    for i in 0..2000 {
        t.insert(vec![Value::Int(i), Value::Str(format!("old {i}"))]).unwrap();
    }
    for _ in 0..4 {
        for i in 0..2000 {
            assert_eq!(v_of(&e, i), Some(Value::Str(format!("old {i}"))));
        }
    }
    let hashed = searches(e.pool());
    assert!(hashed > 0);
    drop(t);
    e.drop_table("db/t").unwrap();
    let t = e.create_table("db/t", schema()).unwrap();
    for i in (0..2000).step_by(3) {
        t.insert(vec![Value::Int(i), Value::Str(format!("new {i}"))]).unwrap();
    }
    for _ in 0..4 {
        for i in 0..2000 {
            let want = (i % 3 == 0).then(|| Value::Str(format!("new {i}")));
            assert_eq!(v_of(&e, i), want, "id {i} after DROP and CREATE");
        }
    }
    assert!(searches(e.pool()) > hashed);
    drop(t);
    e.truncate_table("db/t").unwrap();
    for i in 0..2000 {
        assert_eq!(v_of(&e, i), None, "id {i} after TRUNCATE");
    }
    e.shutdown().unwrap();
}

#[test]
fn switching_it_off_and_on_under_load_keeps_answers_right_and_off_means_unused() {
    let pool = pool_with_ahi(256);
    let tree = Arc::new(BTree::create(&pool, 1, 13).unwrap());
    const KEYS: u32 = 2000;
    for k in 0..KEYS {
        tree.insert(&k.to_be_bytes(), &value(k, 0, 30)).unwrap();
    }
    let stop = Arc::new(AtomicBool::new(false));
    // Each value's step only grows; readers check they never go back.
    let threads: Vec<_> = (0..3u64)
        .map(|t| {
            let (tree, stop) = (tree.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut rng = rand::rngs::SmallRng::seed_from_u64(t);
                let mut out = Vec::new();
                let mut seen = vec![0u32; KEYS as usize];
                let mut step = 0u32;
                while !stop.load(Ordering::Relaxed) {
                    let k = rng.gen_range(0..KEYS / 8) * 8;
                    if t == 0 {
                        step += 1;
                        tree.update(&k.to_be_bytes(), &value(k, step, rng.gen_range(0..300))).unwrap();
                    } else {
                        assert!(tree.get(&k.to_be_bytes(), &mut out).unwrap());
                        let s = step_of(k, &out);
                        assert!(s >= seen[k as usize], "key {k} went back from step {} to {s}", seen[k as usize]);
                        seen[k as usize] = s;
                    }
                }
            })
        })
        .collect();
    let ahi = &pool.adaptive_hash;
    for round in 0..20 {
        std::thread::sleep(std::time::Duration::from_millis(20));
        ahi.set_enabled(round % 2 == 1);
    }
    ahi.set_enabled(false);
    // Only a lookup already under way when it went off may leave an entry
    // (or count); give such a lookup ample time to end on a busy machine.
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(ahi.used() <= 2, "off empties the table ({} entries)", ahi.used());
    let (hits, btree) = (ahi.searches.get(), ahi.searches_btree.get());
    std::thread::sleep(std::time::Duration::from_millis(100));
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    assert!(hits > 0, "the hash was used while on");
    assert_eq!((ahi.searches.get(), ahi.searches_btree.get()), (hits, btree), "off: the hash is not consulted");
    tree.verify().unwrap();
}
