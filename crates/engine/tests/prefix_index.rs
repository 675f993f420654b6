//! Prefix indexes in the engine: entries key the cut value, so a scan
//! through one is a superset of the values asked for (an exclusive bound
//! on a cut column becomes inclusive), UNIQUE refuses equal prefixes, and
//! the definition survives a reopen.

use std::ops::Bound;
use std::sync::Arc;

use quire_engine::btree::Direction;
use quire_engine::row::{Column, ColumnType, IndexDef, TableSchema, Value};
use quire_engine::table::IndexRef;
use quire_engine::{Engine, EngineConfig, Error};
use quire_io::{OsVfs, Vfs};

fn open(dir: &std::path::Path) -> Arc<Engine> {
    let vfs: Arc<dyn Vfs> = OsVfs::new();
    Engine::open(EngineConfig::new(dir).page_size(4096).buffer_pool_size(1 << 20), vfs).unwrap()
}

fn schema() -> TableSchema {
    TableSchema {
        columns: vec![
            Column::new("id", ColumnType::Int { unsigned: false }).not_null(),
            Column::new("t", ColumnType::Text),
            Column::new("v", ColumnType::Varchar { len: 20 }),
        ],
        primary_key: vec![0],
        indexes: vec![
            IndexDef { name: "kt".into(), columns: vec![1], unique: false, prefix: vec![3] },
            IndexDef { name: "uv".into(), columns: vec![2], unique: true, prefix: vec![2] },
        ],
        ..Default::default()
    }
}

fn ids(t: &quire_engine::Table, lo: Bound<&[Value]>, hi: Bound<&[Value]>) -> Vec<i64> {
    let mut c = t.scan(IndexRef::Secondary(0), lo, hi, Direction::Forward).unwrap();
    let mut out: Vec<i64> = c
        .collect_all()
        .unwrap()
        .into_iter()
        .map(|r| match r[0] {
            Value::Int(i) => i,
            _ => unreachable!(),
        })
        .collect();
    out.sort();
    out
}

#[test]
fn prefix_scans_are_supersets_and_unique_prefixes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    {
        let e = open(dir.path());
        let t = e.create_table("d/p", schema()).unwrap();
        for (id, s, v) in [(1, "abcdef", "aa1"), (2, "abcxyz", "bb"), (3, "abd", "cc"), (4, "ab", "dd")] {
            t.insert(vec![Value::Int(id), Value::Str(s.into()), Value::Str(v.into())]).unwrap();
        }
        let key = |s: &str| vec![Value::Str(s.into())];
        let (abcdef_v, abc_v) = (key("abcdef"), key("abc"));
        let (abcdef, abc): (&[Value], &[Value]) = (&abcdef_v, &abc_v);
        // Every row whose prefix is 'abc', whatever follows.
        assert_eq!(ids(&t, Bound::Included(abcdef), Bound::Included(abcdef)), vec![1, 2]);
        assert_eq!(ids(&t, Bound::Included(abc), Bound::Included(abc)), vec![1, 2]);
        // `> 'abcdef'` must still find 'abcxyz', whose prefix is equal.
        assert_eq!(ids(&t, Bound::Excluded(abcdef), Bound::Unbounded), vec![1, 2, 3]);
        assert_eq!(ids(&t, Bound::Unbounded, Bound::Excluded(abcdef)), vec![1, 2, 4]);
        let dup = t.insert(vec![Value::Int(5), Value::Str("q".into()), Value::Str("AA2".into())]);
        assert!(matches!(dup, Err(Error::DuplicateKey { .. })), "{dup:?}");
        t.insert(vec![Value::Int(5), Value::Str("q".into()), Value::Str("a".into())]).unwrap();
        e.shutdown().unwrap();
    }
    let e = open(dir.path());
    let t = e.table("d/p").unwrap();
    assert_eq!(t.schema().indexes, schema().indexes, "prefixes kept in the catalog");
    let dup = t.insert(vec![Value::Int(6), Value::Str("q".into()), Value::Str("bbx".into())]);
    assert!(matches!(dup, Err(Error::DuplicateKey { .. })), "{dup:?}");
}

#[test]
fn a_prefix_of_a_non_string_column_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path());
    let mut s = schema();
    s.indexes[0] = IndexDef { name: "bad".into(), columns: vec![0], unique: false, prefix: vec![2] };
    assert!(matches!(e.create_table("d/bad", s), Err(Error::InvalidSchema(_))));
}
