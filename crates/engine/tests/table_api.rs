//! The embedded table API end to end: schemas with every supported type,
//! primary and secondary indexes, DML, scans, DDL on populated tables, and
//! data surviving a clean shutdown.

use std::ops::Bound;
use std::sync::Arc;

use quire_engine::btree::Direction;
use quire_engine::row::{Column, ColumnType, Date, DateTime, Decimal, IndexDef, TableSchema, Value};
use quire_engine::table::IndexRef;
use quire_engine::{Engine, EngineConfig, Error};
use quire_io::{OsVfs, Vfs};

fn people() -> TableSchema {
    TableSchema {
        columns: vec![
            Column::new("id", ColumnType::Int { unsigned: true }).auto_increment(),
            Column::new("name", ColumnType::Varchar { len: 32 }).not_null(),
            Column::new("code", ColumnType::Char { len: 4 }),
            Column::new("age", ColumnType::TinyInt { unsigned: false }),
            Column::new("balance", ColumnType::Decimal { precision: 12, scale: 2, unsigned: false })
                .default(Value::Decimal(Decimal::ZERO)),
            Column::new("born", ColumnType::Date),
            Column::new("seen", ColumnType::DateTime { fsp: 3 }),
            Column::new("bio", ColumnType::Text),
            Column::new("big", ColumnType::BigInt { unsigned: false }),
            Column::new("small", ColumnType::SmallInt { unsigned: true }),
            Column::new("mid", ColumnType::MediumInt { unsigned: false }),
        ],
        primary_key: vec![0],
        indexes: vec![
            IndexDef { name: "by_name".into(), columns: vec![1], unique: false, prefix: vec![] },
            IndexDef { name: "by_code".into(), columns: vec![2], unique: true, prefix: vec![] },
        ],
        ..Default::default()
    }
}

fn person(name: &str, code: Option<&str>, age: i64) -> Vec<Value> {
    vec![
        Value::Null,
        Value::Str(name.into()),
        code.map_or(Value::Null, |c| Value::Str(c.into())),
        Value::Int(age),
        Value::Str("12.5".into()),
        Value::Date(Date::new(1990, 1, 2).unwrap()),
        Value::Str("2020-05-06 07:08:09.123456".into()),
        Value::Str("x".repeat(age as usize * 100)),
        Value::Int(-(1 << 40)),
        Value::UInt(65535),
        Value::Int(-8_388_608),
    ]
}

fn open(dir: &std::path::Path) -> Arc<Engine> {
    let vfs: Arc<dyn Vfs> = OsVfs::new();
    Engine::open(EngineConfig::new(dir).page_size(4096).buffer_pool_size(1 << 20), vfs).unwrap()
}

#[test]
fn rows_of_every_type_round_trip_and_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    {
        let e = open(dir.path());
        let t = e.create_table("app/people", people()).unwrap();
        assert_eq!(t.insert(person("Ann", Some("A1"), 30)).unwrap(), Some(1));
        assert_eq!(t.insert(person("bob", Some("B2"), 40)).unwrap(), Some(2));
        assert_eq!(t.insert(person("Cy", None, 50)).unwrap(), Some(3));
        let r = t.get(&[Value::UInt(1)]).unwrap().unwrap();
        assert_eq!(r[1], Value::Str("Ann".into()));
        assert_eq!(r[4], Value::Decimal(Decimal::parse("12.50").unwrap()));
        assert_eq!(r[6], Value::DateTime(DateTime::parse("2020-05-06 07:08:09.123").unwrap()));
        assert_eq!(r[7], Value::Str("x".repeat(3000)), "TEXT larger than a 4 KiB page");
        e.shutdown().unwrap();
    }
    let e = open(dir.path());
    let t = e.table("app/people").unwrap();
    assert_eq!(t.get(&[Value::UInt(2)]).unwrap().unwrap()[1], Value::Str("bob".into()));
    assert_eq!(t.get(&[Value::UInt(3)]).unwrap().unwrap()[2], Value::Null);
    assert_eq!(t.insert(person("Dee", Some("D4"), 20)).unwrap(), Some(4), "AUTO_INCREMENT continues after reopen");
    e.shutdown().unwrap();
}

#[test]
fn strict_mode_checks_reject_bad_values() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path());
    let t = e.create_table("people", people()).unwrap();
    let mut r = person("Ann", None, 1);
    r[3] = Value::Int(200);
    assert!(matches!(t.insert(r).unwrap_err(), Error::OutOfRange { .. }));
    let mut r = person("Ann", None, 1);
    r[1] = Value::Str("x".repeat(33));
    assert!(matches!(t.insert(r).unwrap_err(), Error::DataTooLong { .. }));
    let mut r = person("Ann", None, 1);
    r[1] = Value::Null;
    assert!(matches!(t.insert(r).unwrap_err(), Error::NullNotAllowed { .. }));
    let mut r = person("Ann", None, 1);
    r[5] = Value::Str("2021-02-30".into());
    assert!(matches!(t.insert(r).unwrap_err(), Error::BadValue { .. }));
    let mut r = person("Ann", None, 1);
    r[4] = Value::Str("12345678901.5".into());
    assert!(matches!(t.insert(r).unwrap_err(), Error::OutOfRange { .. }));
}

#[test]
fn duplicate_keys_are_refused_by_primary_and_unique_indexes() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path());
    let t = e.create_table("people", people()).unwrap();
    t.insert(person("Ann", Some("A1"), 30)).unwrap();
    let mut r = person("Bob", Some("B1"), 30);
    r[0] = Value::UInt(1);
    match t.insert(r).unwrap_err() {
        Error::DuplicateKey { index, key } => assert_eq!((index.as_str(), key.as_str()), ("PRIMARY", "1")),
        e => panic!("{e}"),
    }
    // Unique index, case-insensitive collation, PAD SPACE.
    match t.insert(person("Bob", Some("a1 "), 30)).unwrap_err() {
        Error::DuplicateKey { index, .. } => assert_eq!(index, "by_code"),
        e => panic!("{e}"),
    }
    // NULLs never conflict in a unique index.
    t.insert(person("Cy", None, 30)).unwrap();
    t.insert(person("Di", None, 30)).unwrap();
    // An update into a taken unique value fails and changes nothing.
    t.insert(person("Ed", Some("E1"), 30)).unwrap();
    let err = t.update_with(&[Value::UInt(5)], |old| {
        let mut r = old.to_vec();
        r[2] = Value::Str("A1".into());
        Ok(r)
    });
    assert!(matches!(err.unwrap_err(), Error::DuplicateKey { .. }));
    assert_eq!(t.get(&[Value::UInt(5)]).unwrap().unwrap()[2], Value::Str("E1".into()));
}

fn names(rows: &[Vec<Value>]) -> Vec<String> {
    rows.iter().map(|r| r[1].to_string()).collect()
}

#[test]
fn scans_on_primary_and_secondary_indexes_in_both_directions() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path());
    let t = e.create_table("people", people()).unwrap();
    for (i, n) in ["eve", "Bob", "amy", "Dan", "cat", "bob"].iter().enumerate() {
        t.insert(person(n, Some(&format!("C{i}")), 20 + i as i64)).unwrap();
    }
    let all = t
        .scan(IndexRef::Primary, Bound::Unbounded, Bound::Unbounded, Direction::Forward)
        .unwrap()
        .collect_all()
        .unwrap();
    assert_eq!(names(&all), ["eve", "Bob", "amy", "Dan", "cat", "bob"]);
    let mid = t
        .scan(
            IndexRef::Primary,
            Bound::Excluded(&[Value::UInt(2)]),
            Bound::Included(&[Value::UInt(5)]),
            Direction::Backward,
        )
        .unwrap()
        .collect_all()
        .unwrap();
    assert_eq!(names(&mid), ["cat", "Dan", "amy"]);
    // Secondary index on name, case-insensitive: amy, Bob/bob, cat, Dan, eve.
    let by_name = t
        .scan(IndexRef::Secondary(0), Bound::Unbounded, Bound::Unbounded, Direction::Forward)
        .unwrap()
        .collect_all()
        .unwrap();
    assert_eq!(names(&by_name), ["amy", "Bob", "bob", "cat", "Dan", "eve"]);
    let bobs = t
        .scan(
            IndexRef::Secondary(0),
            Bound::Included(&[Value::Str("BOB".into())]),
            Bound::Included(&[Value::Str("bob".into())]),
            Direction::Backward,
        )
        .unwrap()
        .collect_all()
        .unwrap();
    assert_eq!(names(&bobs), ["bob", "Bob"]);
    let after_bob = t
        .scan(
            IndexRef::Secondary(0),
            Bound::Excluded(&[Value::Str("bob".into())]),
            Bound::Unbounded,
            Direction::Forward,
        )
        .unwrap()
        .collect_all()
        .unwrap();
    assert_eq!(names(&after_bob), ["cat", "Dan", "eve"]);
}

#[test]
fn updates_and_deletes_keep_secondary_indexes_in_step() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path());
    let t = e.create_table("people", people()).unwrap();
    for i in 0..200 {
        t.insert(person(&format!("n{i:03}"), Some(&format!("c{i}")), i % 100)).unwrap();
    }
    for i in (1..=200u64).step_by(2) {
        assert!(t
            .update_with(&[Value::UInt(i)], |old| {
                let mut r = old.to_vec();
                r[1] = Value::Str(format!("z{i:03}"));
                Ok(r)
            })
            .unwrap());
    }
    for i in (1..=200u64).step_by(3) {
        assert!(t.delete(&[Value::UInt(i)]).unwrap());
    }
    assert!(!t.delete(&[Value::UInt(1)]).unwrap());
    // Move a row to a new primary key.
    assert!(t
        .update_with(&[Value::UInt(2)], |old| {
            let mut r = old.to_vec();
            r[0] = Value::UInt(1000);
            Ok(r)
        })
        .unwrap());
    assert!(t.get(&[Value::UInt(2)]).unwrap().is_none());
    let via_pk = t
        .scan(IndexRef::Primary, Bound::Unbounded, Bound::Unbounded, Direction::Forward)
        .unwrap()
        .collect_all()
        .unwrap();
    let mut via_name = t
        .scan(IndexRef::Secondary(0), Bound::Unbounded, Bound::Unbounded, Direction::Forward)
        .unwrap()
        .collect_all()
        .unwrap();
    let via_code = t
        .scan(IndexRef::Secondary(1), Bound::Unbounded, Bound::Unbounded, Direction::Forward)
        .unwrap()
        .collect_all()
        .unwrap();
    assert_eq!(via_pk.len(), 200 - 67);
    assert_eq!(via_name.len(), via_pk.len());
    assert_eq!(via_code.len(), via_pk.len());
    via_name.sort_by_key(|r| match r[0] {
        Value::UInt(u) => u,
        _ => 0,
    });
    assert_eq!(via_name, via_pk);
    for r in &via_pk {
        let Value::UInt(id) = r[0] else { panic!("id type") };
        assert_eq!(r[1].to_string().starts_with('z'), id % 2 == 1, "row {id}");
    }
}

#[test]
fn indexes_can_be_added_to_and_dropped_from_populated_tables() {
    let dir = tempfile::tempdir().unwrap();
    {
        let e = open(dir.path());
        let t = e.create_table("people", people()).unwrap();
        for i in 0..500 {
            t.insert(person(&format!("p{}", 499 - i), None, (i % 90) as i64)).unwrap();
        }
        e.create_index(
            "people",
            IndexDef { name: "by_age".into(), columns: vec![3, 1], unique: false, prefix: vec![] },
        )
        .unwrap();
        let err =
            e.create_index("people", IndexDef { name: "u_age".into(), columns: vec![3], unique: true, prefix: vec![] });
        assert!(matches!(err.unwrap_err(), Error::DuplicateKey { .. }));
        e.drop_index("people", "by_code").unwrap();
        e.shutdown().unwrap();
    }
    let e = open(dir.path());
    let t = e.table("people").unwrap();
    let s = t.schema();
    assert_eq!(s.indexes.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(), ["by_name", "by_age"]);
    let teens = t
        .scan(
            IndexRef::Secondary(1),
            Bound::Included(&[Value::Int(13)]),
            Bound::Excluded(&[Value::Int(20)]),
            Direction::Forward,
        )
        .unwrap()
        .collect_all()
        .unwrap();
    assert!(teens.len() > 30 && teens.iter().all(|r| matches!(r[3], Value::Int(13..=19))));
    e.drop_table("people").unwrap();
    assert!(matches!(e.table("people"), Err(Error::NoSuchTable(_))));
    assert!(!dir.path().join("people.qbd").exists(), "the tablespace file is deleted");
    e.create_table("people", people()).unwrap();
}

#[test]
fn a_flipped_byte_in_a_data_file_is_a_corruption_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    {
        let e = open(dir.path());
        let t = e.create_table("people", people()).unwrap();
        for i in 0..300 {
            t.insert(person(&format!("p{i}"), None, 1)).unwrap();
        }
        e.shutdown().unwrap();
    }
    // Flip one byte in the middle of every page after the space's own pages.
    let path = dir.path().join("people.qbd");
    let mut bytes = std::fs::read(&path).unwrap();
    for page in 2..bytes.len() / 4096 {
        bytes[page * 4096 + 2000] ^= 0x40;
    }
    std::fs::write(&path, &bytes).unwrap();
    let e = open(dir.path());
    let err = match e.table("people") {
        Err(err) => err,
        Ok(t) => t.get(&[Value::UInt(150)]).unwrap_err(),
    };
    assert!(err.is_corruption(), "{err}");
    assert!(err.to_string().contains("space 1 page"), "the error names the page: {err}");
}

#[test]
fn a_data_directory_refuses_another_page_size() {
    let dir = tempfile::tempdir().unwrap();
    open(dir.path()).shutdown().unwrap();
    let vfs: Arc<dyn Vfs> = OsVfs::new();
    let err =
        Engine::open(EngineConfig::new(dir.path()).page_size(16384).buffer_pool_size(1 << 20), vfs).err().unwrap();
    assert!(err.to_string().contains("innodb_page_size=4096"), "{err}");
}

#[test]
fn concurrent_read_modify_writes_of_one_row_lose_no_update() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path());
    let t = e.create_table("counters", people()).unwrap();
    t.insert(person("c", Some("K"), 0)).unwrap();
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let t = t.clone();
            std::thread::spawn(move || {
                for _ in 0..500 {
                    t.update_with(&[Value::UInt(1)], |old| {
                        let mut r = old.to_vec();
                        let Value::Int(big) = r[8] else { panic!() };
                        r[8] = Value::Int(big + 1);
                        Ok(r)
                    })
                    .unwrap();
                }
            })
        })
        .collect();
    for th in threads {
        th.join().unwrap();
    }
    assert_eq!(t.get(&[Value::UInt(1)]).unwrap().unwrap()[8], Value::Int(-(1 << 40) + 2000));
}

#[test]
fn racing_inserts_of_one_key_admit_exactly_one() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path());
    let t = e.create_table("people", people()).unwrap();
    for round in 0..50u64 {
        let wins: usize = (0..4)
            .map(|i| {
                let t = t.clone();
                std::thread::spawn(move || {
                    let mut r = person(&format!("p{i}"), Some(&format!("u{round}")), 1);
                    r[0] = Value::UInt(1000 + round);
                    t.insert(r).is_ok() as usize
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|h| h.join().unwrap())
            .sum();
        assert_eq!(wins, 1, "round {round}");
    }
}

#[test]
fn dropping_an_index_waits_for_open_scans_and_they_learn_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path());
    let t = e.create_table("people", people()).unwrap();
    for i in 0..2000 {
        t.insert(person(&format!("p{i:04}"), None, 1)).unwrap();
    }
    let mut scan = t.scan(IndexRef::Secondary(0), Bound::Unbounded, Bound::Unbounded, Direction::Forward).unwrap();
    for _ in 0..10 {
        assert!(scan.next().unwrap().is_some());
    }
    let dropper = {
        let e = e.clone();
        std::thread::spawn(move || e.drop_index("people", "by_name"))
    };
    // The drop marks the index at once; the scan then reports it instead
    // of reading freed pages, and closing it lets the drop finish.
    let err = loop {
        match scan.next() {
            Ok(Some(_)) => std::thread::sleep(std::time::Duration::from_millis(1)),
            Ok(None) => panic!("the scan ran to its end before the drop"),
            Err(err) => break err,
        }
    };
    assert!(matches!(err, Error::NoSuchIndex(_)), "{err}");
    drop(scan);
    dropper.join().unwrap().unwrap();
    assert_eq!(t.schema().indexes.len(), 1);
}

#[test]
fn a_page_with_a_valid_checksum_but_a_broken_structure_is_a_corruption_error() {
    let dir = tempfile::tempdir().unwrap();
    {
        let e = open(dir.path());
        let t = e.create_table("people", people()).unwrap();
        for i in 0..300 {
            t.insert(person(&format!("p{i}"), None, 1)).unwrap();
        }
        e.shutdown().unwrap();
    }
    // Find a leaf of the table, break its slot count, and re-seal it so
    // that its checksum is right.
    let path = dir.path().join("people.qbd");
    let mut bytes = std::fs::read(&path).unwrap();
    let leaf = (2..bytes.len() / 4096)
        .find(|&p| {
            let pg = &bytes[p * 4096..(p + 1) * 4096];
            quire_engine::page::page_type(pg) == Some(quire_engine::page::PageType::BTreeNode)
                && quire_engine::btree::node::level(pg) == 0
                && quire_engine::btree::node::count(pg) > 5
        })
        .expect("a leaf");
    let pg = &mut bytes[leaf * 4096..(leaf + 1) * 4096];
    pg[quire_engine::btree::node::COUNT..quire_engine::btree::node::COUNT + 2].copy_from_slice(&900u16.to_le_bytes());
    quire_engine::page::seal(pg);
    std::fs::write(&path, &bytes).unwrap();
    let e = open(dir.path());
    let t = e.table("people").unwrap();
    let err = t
        .scan(IndexRef::Primary, Bound::Unbounded, Bound::Unbounded, Direction::Forward)
        .unwrap()
        .collect_all()
        .unwrap_err();
    assert!(err.is_corruption() && err.to_string().contains(&format!("page {leaf}")), "{err}");
}
