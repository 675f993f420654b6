//! `mariadb-binlog` (MariaDB 10.11's client, the oracle) reads the files
//! this crate writes: every column type, NULLs, long strings, each kind of
//! row event, a DDL QUERY, a rotation and a clean close. Skipped (with a
//! message) where `mariadb-binlog` is not installed.

use quire_binlog::event::Checksum;
use quire_binlog::rows::{log_run, LoggedTable, RowMetadata, RowPair, RowsKind};
use quire_binlog::{BinLog, Events, Options, QueryEvent};
use quire_engine::row::{Choice, Collation, Column, ColumnType, Date, DateTime, Decimal, Members, TableSchema, Value};

fn tool() -> Option<&'static str> {
    std::process::Command::new("mariadb-binlog").arg("--version").output().ok().map(|_| "mariadb-binlog")
}

fn schema() -> TableSchema {
    let e = Members::intern(false, vec!["x".into(), "y".into()]);
    let s = Members::intern(true, vec!["a".into(), "b".into(), "c".into()]);
    let mut l1 = Column::new("l1", ColumnType::Varchar { len: 10 });
    l1.collation = Collation::Latin1SwedishCi;
    let cols = vec![
        Column::new("id", ColumnType::Int { unsigned: false }).not_null(),
        Column::new("ti", ColumnType::TinyInt { unsigned: false }),
        Column::new("su", ColumnType::SmallInt { unsigned: true }),
        Column::new("mi", ColumnType::MediumInt { unsigned: false }),
        Column::new("bi", ColumnType::BigInt { unsigned: true }),
        Column::new("de", ColumnType::Decimal { precision: 20, scale: 5, unsigned: false }),
        Column::new("fl", ColumnType::Float { digits: None, unsigned: false }),
        Column::new("db", ColumnType::Double { digits: None, unsigned: true }),
        Column::new("ch", ColumnType::Char { len: 100 }),
        Column::new("vc", ColumnType::Varchar { len: 300 }),
        Column::new("tx", ColumnType::Text),
        Column::new("da", ColumnType::Date),
        Column::new("dt", ColumnType::DateTime { fsp: 6 }),
        Column::new("ts", ColumnType::Timestamp { fsp: 3 }),
        Column::new("tm", ColumnType::Time { fsp: 2 }),
        Column::new("bn", ColumnType::Binary { len: 4 }),
        Column::new("vb", ColumnType::VarBinary { len: 20 }),
        Column::new("bl", ColumnType::Blob { max_bytes: 16_777_215 }),
        Column::new("js", ColumnType::Json),
        Column::new("en", ColumnType::Enum { members: e }),
        Column::new("st", ColumnType::Set { members: s }),
        Column::new("yr", ColumnType::Year),
        Column::new("bt", ColumnType::Bit { bits: 10 }),
        l1,
    ];
    TableSchema { columns: cols, primary_key: vec![0], indexes: vec![], cluster: Default::default() }
}

fn row(id: i64, t: &TableSchema) -> Vec<Value> {
    let mut r = vec![
        Value::Int(id),
        Value::Int(-5),
        Value::UInt(65_000),
        Value::Int(-8_000_000),
        Value::UInt(u64::MAX),
        Value::Decimal(Decimal::parse("-123456789012.34567").unwrap()),
        Value::Double(1.5),
        Value::Double(-2.25e100),
        Value::Str("héllo".into()),
        Value::Str("v".repeat(290)),
        Value::Str("long text ".repeat(200)),
        Value::Date(Date { year: 2024, month: 2, day: 29 }),
        Value::DateTime(DateTime {
            date: Date { year: 1999, month: 12, day: 31 },
            hour: 23,
            minute: 59,
            second: 58,
            micros: 123_456,
        }),
        Value::DateTime(DateTime {
            date: Date { year: 2020, month: 1, day: 2 },
            hour: 3,
            minute: 4,
            second: 5,
            micros: 678_000,
        }),
        Value::Time(-(3_600 + 1) * 1_000_000 - 500_000),
        Value::Bytes(vec![1, 0, 0, 0]),
        Value::Bytes(vec![0xff, 0x00, 0x41]),
        Value::Bytes(vec![b'z'; 9_000]),
        Value::Str("{\"a\": [1, 2]}".into()),
        Value::Choice(Choice {
            n: 2,
            members: match t.columns[19].ty {
                ColumnType::Enum { members } => members,
                _ => unreachable!(),
            },
        }),
        Value::Choice(Choice {
            n: 5,
            members: match t.columns[20].ty {
                ColumnType::Set { members } => members,
                _ => unreachable!(),
            },
        }),
        Value::Int(2155),
        Value::UInt(0x2a5),
        Value::Str("åäö".into()),
    ];
    if id % 2 == 0 {
        for v in r.iter_mut().skip(1) {
            *v = Value::Null;
        }
    }
    r
}

#[test]
fn mariadb_binlog_decodes_every_event_and_column_type() {
    let Some(tool) = tool() else {
        eprintln!("mariadb-binlog not installed: skipped");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let opts = Options {
        dir: dir.path().to_path_buf(),
        basename: "binlog".into(),
        index: dir.path().join("binlog.index"),
        server_id: 7,
        checksum: Checksum::Crc32,
        sync_binlog: 1,
        max_size: 1 << 30,
        expire_secs: 0,
        server_uuid: quire_binlog::Uuid::default(),
        gtid_mode: quire_binlog::GtidMode::Off,
    };
    let log = BinLog::open(opts).unwrap();
    let f = log.frame();
    fn q(sql: &str) -> QueryEvent<'_> {
        QueryEvent { thread_id: 1, db: "test", sql, flags2: 0, sql_mode: 0, charset: [45, 45, 45] }
    }
    let mut ddl = Events::default();
    ddl.query(&f, &q("CREATE TABLE t (id int primary key)"));
    log.commit(ddl).unwrap();
    let t = LoggedTable { table_id: 42, db: "test".into(), name: "t".into(), schema: schema() };
    let (r1, r2, r3) = (row(1, &t.schema), row(2, &t.schema), row(3, &t.schema));
    let mut ev = Events::default();
    ev.query(&f, &q("BEGIN"));
    let ins = [RowPair { before: None, after: Some(&r1) }, RowPair { before: None, after: Some(&r2) }];
    log_run(&mut ev, &f, &t, RowsKind::Write, &ins, RowMetadata::Full);
    log_run(
        &mut ev,
        &f,
        &t,
        RowsKind::Update,
        &[RowPair { before: Some(&r1), after: Some(&r3) }],
        RowMetadata::Minimal,
    );
    log_run(&mut ev, &f, &t, RowsKind::Delete, &[RowPair { before: Some(&r2), after: None }], RowMetadata::Full);
    ev.xid(&f, 99);
    log.commit(ev).unwrap();
    log.rotate().unwrap();
    let mut ev = Events::default();
    ev.query(&f, &q("DROP TABLE t"));
    log.commit(ev).unwrap();
    log.close();
    let files = log.files();
    assert_eq!(files.len(), 2);
    for lf in &files {
        let out = std::process::Command::new(tool)
            .args(["--base64-output=decode-rows", "-vv"])
            .arg(dir.path().join(&lf.name))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && err.trim().is_empty(), "{}: {err}\n{text}", lf.name);
        if lf.name.ends_with("000001") {
            for want in [
                "### INSERT INTO `test`.`t`",
                "### UPDATE `test`.`t`",
                "### DELETE FROM `test`.`t`",
                "@1=1",
                "@3=-536 (65000)",
                "@4=-8000000",
                "@5=-1 (18446744073709551615)",
                "@6=-123456789012.34567",
                "@9='héllo'",
                "@12='2024:02:29'",
                "@13='1999-12-31 23:59:58.123456'",
                "@15='-01:00:01.50'",
                "@22=2155",
                "@14=1577934245.678",
                "@16='\\x01\\x00\\x00\\x00'",
                "@19='{\"a\": [1, 2]}'",
                "@20=2",
                "@21=b'00000101'",
                "@23=b'1010100101'",
                "@7=1.5",
                "@24='\u{fffd}\u{fffd}\u{fffd}'",
                "@2=NULL",
                "Xid = 99",
                "CREATE TABLE t",
                "Rotate to binlog.000002",
            ] {
                assert!(text.contains(want), "missing {want:?} in\n{text}");
            }
        }
    }
}
