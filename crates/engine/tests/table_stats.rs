//! Index statistics of a table (`Table::analyze`) against its known
//! contents: row counts, distinct counts of each key prefix (exact when
//! every leaf is read, within a tolerance when sampled), page counts, the
//! count of row changes, and range estimates through the table API.

use std::ops::Bound;
use std::sync::Arc;

use quire_engine::row::{Column, ColumnType, IndexDef, TableSchema, Value};
use quire_engine::table::IndexRef;
use quire_engine::{Engine, EngineConfig, Table};
use quire_io::{MemVfs, Vfs};

/// `id` primary key; `a` with 10 values, `b` with 1000, `c` unique.
fn schema() -> TableSchema {
    TableSchema {
        columns: vec![
            Column::new("id", ColumnType::Int { unsigned: false }).not_null(),
            Column::new("a", ColumnType::Int { unsigned: false }),
            Column::new("b", ColumnType::Varchar { len: 20 }),
            Column::new("c", ColumnType::Int { unsigned: false }),
        ],
        primary_key: vec![0],
        indexes: vec![
            IndexDef { name: "ia".into(), columns: vec![1], unique: false, prefix: vec![] },
            IndexDef { name: "iab".into(), columns: vec![1, 2], unique: false, prefix: vec![] },
            IndexDef { name: "uc".into(), columns: vec![3], unique: true, prefix: vec![] },
        ],
        ..Default::default()
    }
}

fn table_with(rows: i64) -> (Arc<Engine>, Arc<Table>) {
    let vfs: Arc<dyn Vfs> = MemVfs::new();
    let e = Engine::open(EngineConfig::new("/data").page_size(4096).buffer_pool_size(8 << 20), vfs).unwrap();
    let t = e.create_table("d/t", schema()).unwrap();
    for i in 0..rows {
        t.insert(vec![
            Value::Int(i),
            Value::Int(i % 10),
            Value::Str(format!("value {}", (i * 7919) % 1000)),
            Value::Int(rows - i),
        ])
        .unwrap();
    }
    (e, t)
}

#[test]
fn every_leaf_read_gives_exact_counts() {
    let (_e, t) = table_with(3000);
    let s = t.analyze(100_000, 1).unwrap();
    assert_eq!(s.n_rows, 3000);
    let names: Vec<&str> = s.indexes.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["PRIMARY", "ia", "iab", "uc"]);
    assert_eq!(s.index("PRIMARY").unwrap().n_diff, [3000]);
    assert_eq!(s.index("ia").unwrap().n_diff, [10, 3000]);
    assert_eq!(s.index("ia").unwrap().columns, ["a", "id"]);
    // (a, b): i % 10 and (i * 7919) % 1000 agree mod 10 with i, so each a
    // sees 100 values of b.
    assert_eq!(s.index("iab").unwrap().n_diff, [10, 1000, 3000]);
    assert_eq!(s.index("uc").unwrap().n_diff, [3000]);
    assert_eq!(s.clustered_index_size, s.indexes[0].size_pages);
    assert_eq!(s.sum_of_other_index_sizes, s.indexes[1..].iter().map(|i| i.size_pages).sum::<u64>());
    assert!(s.indexes.iter().all(|i| i.leaf_pages <= i.size_pages && i.sample_pages == i.leaf_pages));
}

#[test]
fn sampled_counts_are_within_a_tolerance() {
    let (_e, t) = table_with(20_000);
    let s = t.analyze(20, 7).unwrap();
    let near = |got: u64, want: u64, tol: f64| {
        let err = (got as f64 - want as f64).abs() / want as f64;
        assert!(err <= tol, "estimated {got}, truly {want}");
    };
    near(s.n_rows, 20_000, 0.3);
    let ia = s.index("ia").unwrap();
    assert!(ia.sample_pages == 20 && ia.leaf_pages > 20);
    // Few values stay few (not one per sampled page scaled up).
    assert!(ia.n_diff[0] <= 100, "a: {}", ia.n_diff[0]);
    near(ia.n_diff[1], 20_000, 0.3);
    near(s.index("iab").unwrap().n_diff[1], 1000, 0.6);
    near(s.index("uc").unwrap().n_diff[0], 20_000, 0.3);
    assert_eq!(s.rows_per_key("PRIMARY", 1), Some(1.0));
    assert!(s.rows_per_key("ia", 1).unwrap() >= 200.0);
}

#[test]
fn row_changes_are_counted_from_the_last_installed_statistics() {
    let (_e, t) = table_with(50);
    assert!(t.stats().is_none());
    assert_eq!(t.rows_modified(), 50);
    let s = t.analyze(20, 1).unwrap();
    t.set_stats(Some(Arc::new(s.clone())));
    assert_eq!(t.rows_modified(), 0);
    assert_eq!(t.stats().as_deref(), Some(&s));
    t.delete(&[Value::Int(3)]).unwrap();
    t.update(&[Value::Int(4)], vec![Value::Int(4), Value::Int(0), Value::Null, Value::Int(-4)]).unwrap();
    assert_eq!(t.rows_modified(), 2);
}

#[test]
fn range_estimates_through_the_table_api() {
    let (_e, t) = table_with(20_000);
    let est = |lo: Bound<&[Value]>, hi: Bound<&[Value]>, ix| t.estimate_rows_in_range(ix, lo, hi).unwrap().unwrap();
    let n = est(Bound::Included(&[Value::Int(100)]), Bound::Excluded(&[Value::Int(200)]), IndexRef::Primary);
    assert!((70..=130).contains(&n), "id in [100, 200): {n}");
    let n = est(Bound::Included(&[Value::Int(3)]), Bound::Included(&[Value::Int(3)]), IndexRef::Secondary(0));
    assert!((1400..=2600).contains(&n), "a = 3: {n}");
    let n = est(Bound::Excluded(&[Value::Int(19_990)]), Bound::Unbounded, IndexRef::Secondary(2));
    assert!(n <= 20, "c > 19990: {n}");
}
