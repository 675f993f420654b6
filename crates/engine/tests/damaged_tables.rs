//! A table whose file is damaged while the engine is stopped: the engine
//! still opens and serves the other tables, the damaged one answers a
//! corruption error naming its file and page, DDL never overwrites or
//! reuses its file, DROP TABLE removes it, CHECK (`Table::check`) finds the
//! damage, and `innodb_force_recovery` reads out what is still readable.

use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;

use quire_engine::btree::{node, Direction};
use quire_engine::config::EngineConfig;
use quire_engine::page::{self, PageType};
use quire_engine::row::{Column, ColumnType, IndexDef, TableSchema, Value};
use quire_engine::table::IndexRef;
use quire_engine::{Engine, Error};
use quire_io::{OsVfs, Vfs};

const PAGE: usize = 4096;

fn open_with(dir: &Path, force_recovery: u8) -> Arc<Engine> {
    let vfs: Arc<dyn Vfs> = OsVfs::new();
    let cfg = EngineConfig::new(dir).page_size(PAGE).buffer_pool_size(1 << 20).force_recovery(force_recovery);
    Engine::open(cfg, vfs).unwrap()
}

fn open(dir: &Path) -> Arc<Engine> {
    open_with(dir, 0)
}

/// id INT UNSIGNED PRIMARY KEY, v VARCHAR(40), KEY by_v (v).
fn schema() -> TableSchema {
    TableSchema {
        columns: vec![
            Column::new("id", ColumnType::Int { unsigned: true }).not_null(),
            Column::new("v", ColumnType::Varchar { len: 40 }),
        ],
        primary_key: vec![0],
        indexes: vec![IndexDef { name: "by_v".into(), columns: vec![1], unique: false, prefix: vec![] }],
        ..Default::default()
    }
}

fn updated(i: u64) -> Vec<Value> {
    vec![Value::UInt(i), Value::Str(format!("updated-{i}"))]
}

fn row(i: u64) -> Vec<Value> {
    vec![Value::UInt(i), Value::Str(format!("value-{i:06}-padding-padding"))]
}

/// Creates `d/t` with `n` rows and `d/u` with 10, then shuts down.
fn make(dir: &Path, n: u64) {
    let e = open(dir);
    let t = e.create_table("d/t", schema()).unwrap();
    for i in 0..n {
        t.insert(row(i)).unwrap();
    }
    let u = e.create_table("d/u", schema()).unwrap();
    for i in 0..10 {
        u.insert(row(i)).unwrap();
    }
    e.shutdown().unwrap();
}

fn flip(path: &Path, offset: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[offset] ^= 0x10;
    std::fs::write(path, &bytes).unwrap();
}

fn all_rows(e: &Engine, name: &str) -> Result<Vec<Vec<Value>>, Error> {
    let t = e.table(name)?;
    t.scan(IndexRef::Primary, Bound::Unbounded, Bound::Unbounded, Direction::Forward)?.collect_all()
}

/// Leaf pages of the clustered index (whose root is page 2, the first
/// page a new table allocates), in page order.
fn clustered_leaves(path: &Path) -> Vec<usize> {
    let bytes = std::fs::read(path).unwrap();
    let pages: Vec<&[u8]> = bytes.chunks(PAGE).collect();
    let clustered = node::index_id(pages[2]);
    (3..pages.len())
        .filter(|&p| {
            page::page_type(pages[p]) == Some(PageType::BTreeNode)
                && node::level(pages[p]) == 0
                && node::index_id(pages[p]) == clustered
                && node::count(pages[p]) > 0
        })
        .collect()
}

#[test]
fn a_damaged_space_header_marks_only_that_table_corrupt_and_ddl_never_touches_its_file() {
    let dir = tempfile::tempdir().unwrap();
    make(dir.path(), 50);
    let path = dir.path().join("d/t.qbd");
    flip(&path, 100);
    let damaged = std::fs::read(&path).unwrap();

    let e = open(dir.path());
    assert_eq!(all_rows(&e, "d/u").unwrap().len(), 10, "the other table serves");
    match e.table("d/t") {
        Err(Error::TableCorrupt { table, path: p, page, .. }) => {
            assert_eq!(table, "d/t");
            assert_eq!(Path::new(&p), path, "the error names the file");
            assert_eq!(page.page_no, 0, "and the page");
        }
        Err(other) => panic!("not a table corruption error: {other}"),
        Ok(_) => panic!("a table with a damaged header opened"),
    }
    assert_eq!(e.table_names().iter().filter(|n| *n == "d/t").count(), 1, "listed once");
    assert!(matches!(e.create_table("d/t", schema()), Err(Error::TableExists(_))));
    assert!(e
        .create_index("d/t", IndexDef { name: "x".into(), columns: vec![1], unique: false, prefix: vec![] })
        .is_err());
    assert_eq!(std::fs::read(&path).unwrap(), damaged, "the damaged file is untouched");
    assert_eq!(e.table_names().iter().filter(|n| *n == "d/t").count(), 1, "still listed once");

    e.drop_table("d/t").unwrap();
    assert!(!path.exists(), "DROP TABLE removes the file");
    assert!(matches!(e.table("d/t"), Err(Error::NoSuchTable(_))));
    e.create_table("d/t", schema()).unwrap().insert(row(1)).unwrap();
    e.shutdown().unwrap();
    drop(e);
    let e = open(dir.path());
    assert_eq!(all_rows(&e, "d/t").unwrap().len(), 1, "the new table survives a restart");
    assert_eq!(all_rows(&e, "d/u").unwrap().len(), 10);
}

#[test]
fn a_file_not_in_the_catalog_is_moved_aside_not_deleted_by_create_table() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path());
    e.create_table("d/keep", schema()).unwrap();
    let stray = dir.path().join("d/t.qbd");
    std::fs::write(&stray, b"someone's data").unwrap();
    e.create_table("d/t", schema()).unwrap();
    let aside = dir.path().join("d/t.qbd.orphan-1");
    assert_eq!(std::fs::read(&aside).unwrap(), b"someone's data");
    e.shutdown().unwrap();
}

#[test]
fn a_damaged_data_page_is_an_error_naming_its_file_and_page_and_check_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    make(dir.path(), 600);
    let path = dir.path().join("d/t.qbd");
    let leaves = clustered_leaves(&path);
    assert!(leaves.len() >= 3, "{leaves:?}");
    let bad = leaves[leaves.len() / 2];
    flip(&path, bad * PAGE + 2000);

    let e = open(dir.path());
    let err = all_rows(&e, "d/t").unwrap_err();
    let msg = err.to_string();
    assert!(err.is_corruption(), "{msg}");
    assert!(msg.contains(&format!("page {bad}]")) && msg.contains(&path.display().to_string()), "{msg}");

    let report = e.table("d/t").unwrap().check().unwrap();
    assert!(!report.is_ok());
    assert!(report.problems[0].contains(&format!("page {bad} of {}", path.display())), "{:?}", report.problems);
    let healthy = e.table("d/u").unwrap().check().unwrap();
    assert!(healthy.is_ok(), "{:?}", healthy.problems);
    assert_eq!(healthy.records, 10);
    e.shutdown().unwrap();
}

#[test]
fn check_finds_a_secondary_index_entry_missing_or_extra() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path());
    let t = e.create_table("d/t", schema()).unwrap();
    for i in 0..300 {
        t.insert(row(i)).unwrap();
    }
    t.update(&[Value::UInt(7)], row(1007)).unwrap();
    t.delete(&[Value::UInt(8)]).unwrap();
    let sound = t.check().unwrap();
    assert!(sound.is_ok(), "{:?}", sound.problems);
    assert!(sound.pages >= 4);

    // Remove the entry of row 5 behind the table's back.
    let sec = t.secondary_tree_for_tests(0);
    let mut c = sec.range(Bound::Unbounded, Bound::Unbounded, Direction::Forward);
    let entries = c.collect_all().unwrap();
    let (k5, v5) = entries[5].clone();
    assert!(sec.remove(&k5).unwrap());
    let r = t.check().unwrap();
    assert!(r.problems.iter().any(|p| p.contains("by_v") && p.contains("missing")), "{:?}", r.problems);
    assert!(r.problems.iter().any(|p| p.contains("1 missing, 0 extra")), "{:?}", r.problems);

    // Put it back, and add an entry no row implies.
    assert!(sec.insert(&k5, &v5).unwrap());
    assert!(t.check().unwrap().is_ok());
    let mut bogus = k5.clone();
    bogus[1] ^= 0x01;
    assert!(sec.insert(&bogus, &v5).unwrap());
    let r = t.check().unwrap();
    assert!(r.problems.iter().any(|p| p.contains("0 missing, 1 extra")), "{:?}", r.problems);
    e.shutdown().unwrap();
}

#[test]
fn force_recovery_reads_the_readable_rows_around_a_damaged_page() {
    let dir = tempfile::tempdir().unwrap();
    make(dir.path(), 600);
    let path = dir.path().join("d/t.qbd");
    let leaves = clustered_leaves(&path);
    let bad = leaves[leaves.len() / 2];
    flip(&path, bad * PAGE + 2000);

    let e = open_with(dir.path(), 1);
    let rows = all_rows(&e, "d/t").unwrap();
    assert!(!rows.is_empty() && rows.len() < 600, "{} rows", rows.len());
    let ids: Vec<u64> = rows.iter().map(|r| if let Value::UInt(i) = r[0] { i } else { panic!() }).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "in order, no repeats");
    assert!(ids.contains(&0) && ids.contains(&599), "rows on both sides of the damage");
    for r in &rows {
        let Value::UInt(i) = r[0] else { panic!() };
        assert_eq!(r, &row(i), "readable rows are intact");
    }
    let back = e
        .table("d/t")
        .unwrap()
        .scan(IndexRef::Primary, Bound::Unbounded, Bound::Unbounded, Direction::Backward)
        .unwrap()
        .collect_all()
        .unwrap();
    assert_eq!(back.len(), rows.len(), "a backward scan skips the same page");
    // Level 1 keeps healthy tables writable.
    e.table("d/u").unwrap().insert(row(100)).unwrap();
    e.shutdown().unwrap();
}

#[test]
fn force_recovery_opens_a_table_with_a_damaged_header_read_only() {
    let dir = tempfile::tempdir().unwrap();
    make(dir.path(), 200);
    let path = dir.path().join("d/t.qbd");
    flip(&path, 100);
    let e = open_with(dir.path(), 1);
    assert_eq!(all_rows(&e, "d/t").unwrap().len(), 200, "every row is still readable");
    assert!(matches!(e.table("d/t").unwrap().insert(row(1000)), Err(Error::ReadOnly(_))));
    e.shutdown().unwrap();
    drop(e);
    // Level 3: nothing may change anywhere.
    let e = open_with(dir.path(), 3);
    assert!(matches!(e.table("d/u").unwrap().insert(row(1000)), Err(Error::ReadOnly(_))));
    assert!(matches!(e.create_table("d/new", schema()), Err(Error::ReadOnly(_))));
    assert!(matches!(e.drop_table("d/t"), Err(Error::ReadOnly(_))));
    assert_eq!(all_rows(&e, "d/u").unwrap().len(), 10);
    e.shutdown().unwrap();
}

#[test]
fn a_damaged_page_that_redo_must_change_marks_only_its_table_corrupt_at_recovery() {
    use quire_engine::config::FlushMethod;
    use quire_engine::dblwr::DoublewriteMode;
    use quire_io::{CrashPolicy, FaultVfs};

    let fault = FaultVfs::new();
    let open = |fault: &Arc<FaultVfs>| {
        let vfs: Arc<dyn Vfs> = Arc::new(fault.clone());
        // No doublewrite: it would restore the damaged page from its copy.
        let cfg = EngineConfig::new("/data")
            .page_size(PAGE)
            .buffer_pool_size(256 * PAGE)
            .flush_method(FlushMethod::Fsync)
            .doublewrite(DoublewriteMode::Off);
        Engine::open(cfg, vfs)
    };
    {
        let e = open(&fault).unwrap();
        let t = e.create_table("d/t", schema()).unwrap();
        let u = e.create_table("d/u", schema()).unwrap();
        for i in 0..200 {
            t.insert(row(i)).unwrap();
            u.insert(row(i)).unwrap();
        }
        e.checkpoint(u64::MAX).unwrap();
        // Committed after the checkpoint: only the redo log has these.
        for i in 0..200 {
            t.update(&[Value::UInt(i)], updated(i)).unwrap();
            u.update(&[Value::UInt(i)], updated(i)).unwrap();
        }
        fault.crash(CrashPolicy::DropUnsynced);
    }
    // Damage every tree page of t on "disk".
    let path = Path::new("/data/d/t.qbd");
    let len = fault.open(path, &quire_io::OpenOptions::existing()).unwrap().len().unwrap() as usize;
    for page in 2..len / PAGE {
        fault.corrupt_byte(path, (page * PAGE + 2000) as u64).unwrap();
    }
    let e = open(&fault).expect("the engine starts despite the damage");
    assert_eq!(e.recovery_report().damaged.len(), 1, "only t is damaged");
    let rows = all_rows(&e, "d/u").unwrap();
    assert_eq!(rows.len(), 200);
    assert!(rows.iter().all(|r| matches!(r[0], Value::UInt(i) if r == &updated(i))), "u fully recovered");
    match e.table("d/t") {
        Err(Error::TableCorrupt { path: p, reason, .. }) => {
            assert_eq!(p, "/data/d/t.qbd");
            assert!(reason.contains("redo could not be replayed"), "{reason}");
        }
        Err(other) => panic!("not a table corruption error: {other}"),
        Ok(_) => panic!("a table whose redo could not be applied opened"),
    }
    e.drop_table("d/t").unwrap();
    e.shutdown().unwrap();
}
