//! The model test at scale: 64 MiB of data through a 4 MiB pool of 4 KiB
//! pages (16x the pool), compared against a BTreeMap.

mod common;

use std::collections::BTreeMap;
use std::ops::Bound;

use quire_engine::btree::{BTree, Direction};
use rand::{Rng, SeedableRng};

#[test]
fn sixty_four_mib_of_data_through_a_four_mib_pool_matches_the_model() {
    let pool = common::mem_pool(4096, 4 << 20, 2);
    let tree = BTree::create(&pool, 1, 1).unwrap();
    let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(64);
    let key = |k: u64| format!("{:016x}", k.wrapping_mul(0x9E37_79B9_7F4A_7C15)).into_bytes();
    let mut bytes = 0usize;
    let mut n = 0u64;
    while bytes < 64 << 20 {
        let v = vec![(n % 251) as u8; rng.gen_range(100..300)];
        bytes += v.len() + 16;
        assert!(tree.insert(&key(n), &v).unwrap());
        model.insert(key(n), v);
        n += 1;
    }
    let stats = &pool.stats;
    assert!(stats.evictions.get() > 10_000, "the data must not fit in the pool");
    let mut out = Vec::new();
    for step in 0..60_000u64 {
        let k = key(rng.gen_range(0..n + 1000));
        match rng.gen_range(0..10) {
            0..=3 => {
                let found = tree.get(&k, &mut out).unwrap();
                assert_eq!(found.then_some(&out), model.get(&k));
            }
            4..=6 => {
                let v = vec![(step % 13) as u8; rng.gen_range(0..500)];
                assert_eq!(tree.update(&k, &v).unwrap(), model.contains_key(&k));
                if let Some(m) = model.get_mut(&k) {
                    *m = v;
                }
            }
            7 => assert_eq!(tree.remove(&k).unwrap(), model.remove(&k).is_some()),
            8 => {
                let v = vec![1u8; 150];
                assert_eq!(tree.insert(&k, &v).unwrap(), !model.contains_key(&k));
                model.entry(k).or_insert(v);
            }
            _ => {
                let got = tree.range(Bound::Included(&k), Bound::Unbounded, Direction::Forward);
                let mut got = got;
                let want = model.range(k.clone()..).take(50);
                for (wk, wv) in want {
                    let (gk, gv) = got.next().unwrap().unwrap();
                    assert_eq!((gk, gv), (wk.as_slice(), wv.as_slice()));
                }
            }
        }
    }
    let (entries, pages) = tree.verify().unwrap();
    assert_eq!(entries as usize, model.len());
    assert!(pages > 16 * 1024, "{pages} pages: the tree is much larger than the 1024-frame pool");
    pool.check_lists();
}
