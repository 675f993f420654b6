//! The optimizer's estimates over a B+tree: page counts, sampled leaves
//! and entries in a key range, against the known contents of the tree.

mod common;

use std::ops::Bound;

use quire_engine::btree::BTree;

fn key(i: u32) -> [u8; 4] {
    i.to_be_bytes()
}

fn b(x: &Bound<[u8; 4]>) -> Bound<&[u8]> {
    match x {
        Bound::Included(k) => Bound::Included(&k[..]),
        Bound::Excluded(k) => Bound::Excluded(&k[..]),
        Bound::Unbounded => Bound::Unbounded,
    }
}

fn tree_with(n: u32) -> BTree {
    let pool = common::mem_pool(4096, 1024 * 4096, 1);
    let tree = BTree::create(&pool, 1, 1).unwrap();
    for i in 0..n {
        tree.insert(&key(i * 2), &[7u8; 40]).unwrap();
    }
    tree
}

#[test]
fn shape_counts_the_pages_verify_walks() {
    let tree = tree_with(20_000);
    let shape = tree.shape().unwrap();
    let (_, pages) = tree.verify().unwrap();
    assert!(shape.height >= 1);
    assert_eq!(shape.total_pages, pages);
    assert!(shape.leaf_pages < shape.total_pages);
}

#[test]
fn a_small_tree_is_sampled_exhaustively_in_key_order() {
    let tree = tree_with(300);
    let s = tree.sample_leaves(1000, 1).unwrap();
    assert!(s.exhaustive);
    assert_eq!(s.leaves.len(), 1);
    let want: Vec<Vec<u8>> = (0..300).map(|i| key(i * 2).to_vec()).collect();
    assert_eq!(s.leaves[0], want);
}

#[test]
fn sampled_leaves_hold_about_the_average_leaf_fill() {
    let tree = tree_with(20_000);
    let s = tree.sample_leaves(8, 42).unwrap();
    assert!(!s.exhaustive);
    assert_eq!(s.leaves.len(), 8);
    let per_leaf = s.leaves.iter().map(Vec::len).sum::<usize>() as f64 / 8.0;
    let estimate = per_leaf * s.shape.leaf_pages as f64;
    assert!((10_000.0..40_000.0).contains(&estimate), "estimated {estimate} entries");
}

#[test]
fn range_estimates_are_close_to_the_true_counts() {
    let tree = tree_with(20_000); // keys 0, 2, ..., 39998
    let cases: [(Bound<u32>, Bound<u32>, u64); 5] = [
        (Bound::Included(100), Bound::Included(110), 6),
        (Bound::Included(0), Bound::Excluded(20_000), 10_000),
        (Bound::Excluded(1000), Bound::Unbounded, 19_499),
        (Bound::Unbounded, Bound::Unbounded, 20_000),
        (Bound::Included(30_000), Bound::Included(31_000), 501),
    ];
    for (lo, hi, truth) in cases {
        let (lk, hk) = (lo.map(key), hi.map(key));
        let est = tree.estimate_range(b(&lk), b(&hk)).unwrap().unwrap();
        let err = (est as f64 - truth as f64).abs() / truth as f64;
        assert!(err < 0.35 || est.abs_diff(truth) <= 2, "{lo:?}..{hi:?}: estimated {est}, truly {truth}");
    }
    // Within one leaf the count is exact.
    assert_eq!(tree.estimate_range(Bound::Included(&key(100)[..]), Bound::Included(&key(110)[..])).unwrap(), Some(6));
    // An empty range.
    assert_eq!(tree.estimate_range(Bound::Included(&key(101)[..]), Bound::Included(&key(101)[..])).unwrap(), Some(0));
}
