//! information_schema's InnoDB tables with live figures: INNODB_TRX shows
//! the transaction holding a row lock RUNNING and the one waiting for it
//! in LOCK WAIT, with their connections, statement, lock counts and
//! tables; INNODB_METRICS' counters move with the rows written and agree
//! with SHOW STATUS; INNODB_BUFFER_POOL_STATS has a row per instance;
//! INNODB_TABLES / INNODB_INDEXES / INNODB_COLUMNS list the dictionary
//! (the columns' InnoDB types as MariaDB's INNODB_SYS_COLUMNS gives them);
//! a multi-statement transaction that has only read is listed by
//! INNODB_TRX under MySQL's printed id; all of them need
//! PROCESS (1227 without). Their shapes are compared with a MariaDB the
//! test starts where they are comparable (information_schema.COLUMNS, and the rows of
//! INNODB_CMP / INNODB_CMPMEM, which neither server fills: no
//! compression), and COLUMN_PRIVILEGES (no column grants on either).

mod oracle;

use std::time::Duration;

use mysql::prelude::Queryable;
use mysql::{Conn, Row};
use oracle::{answer, Answer, MariaDb, Quire};

const INNODB_TABLES: [&str; 8] = [
    "INNODB_TRX",
    "INNODB_BUFFER_POOL_STATS",
    "INNODB_METRICS",
    "INNODB_CMP",
    "INNODB_CMPMEM",
    "INNODB_TABLES",
    "INNODB_INDEXES",
    "INNODB_COLUMNS",
];

fn trx_rows(c: &mut Conn) -> Vec<Row> {
    c.query("SELECT * FROM information_schema.INNODB_TRX ORDER BY trx_id").unwrap()
}

fn get<T: mysql::prelude::FromValue>(r: &Row, col: &str) -> T {
    r.get::<T, _>(col).unwrap_or_else(|| panic!("column {col} in {r:?}"))
}

#[test]
fn innodb_trx_shows_the_holder_running_and_the_waiter_in_lock_wait() {
    let q = Quire::start(&[("innodb_lock_wait_timeout", "30")]);
    let mut a = q.fresh_db("trx_wait");
    a.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v INT)").unwrap();
    a.query_drop("CREATE TABLE other (id INT PRIMARY KEY)").unwrap();
    a.query_drop("INSERT INTO t VALUES (1, 0), (2, 0)").unwrap();
    let mut probe = q.connect(None);
    assert!(trx_rows(&mut probe).is_empty(), "nothing runs yet");

    a.query_drop("BEGIN").unwrap();
    a.query_drop("UPDATE t SET v = 1 WHERE id = 1").unwrap();
    a.query_drop("INSERT INTO other VALUES (7)").unwrap();
    let a_id: u64 = a.query_first("SELECT CONNECTION_ID()").unwrap().unwrap();
    let mut b = q.connect(Some("trx_wait"));
    let b_id: u64 = b.query_first("SELECT CONNECTION_ID()").unwrap().unwrap();
    let waiter = std::thread::spawn(move || b.query_drop("UPDATE t SET v = 2 WHERE id = 1"));
    let rows = loop {
        let rows = trx_rows(&mut probe);
        if rows.iter().any(|r| get::<String>(r, "trx_state") == "LOCK WAIT") {
            break rows;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(rows.len(), 2, "{rows:?}");
    let by_thread = |id: u64| rows.iter().find(|r| get::<u64>(r, "trx_mysql_thread_id") == id).unwrap();
    let holder = by_thread(a_id);
    let waiting = by_thread(b_id);

    assert_eq!(get::<String>(holder, "trx_state"), "RUNNING");
    assert_eq!(get::<Option<String>>(holder, "trx_requested_lock_id"), None);
    assert_eq!(get::<Option<String>>(holder, "trx_query"), None, "idle between statements");
    assert_eq!(get::<u64>(holder, "trx_rows_modified"), 2, "one row updated, one inserted");
    assert!(get::<u64>(holder, "trx_lock_structs") >= 2, "{holder:?}");
    assert!(get::<u64>(holder, "trx_rows_locked") >= 2, "{holder:?}");
    assert!(get::<u64>(holder, "trx_lock_memory_bytes") > 0, "{holder:?}");
    assert_eq!(get::<u64>(holder, "trx_tables_locked"), 2, "t and other");
    assert_eq!(get::<u64>(holder, "trx_tables_in_use"), 0, "no statement running");
    assert_eq!(
        get::<u64>(holder, "trx_weight"),
        get::<u64>(holder, "trx_rows_modified") + get::<u64>(holder, "trx_lock_structs")
    );
    assert_eq!(get::<String>(holder, "trx_isolation_level"), "REPEATABLE READ");
    assert_eq!(get::<i64>(holder, "trx_foreign_key_checks"), 1);
    assert_eq!(get::<i64>(holder, "trx_is_read_only"), 0);

    assert_eq!(get::<String>(waiting, "trx_state"), "LOCK WAIT");
    let waiting_id: u64 = get(waiting, "trx_id");
    let lock_id: String = get(waiting, "trx_requested_lock_id");
    assert!(lock_id.starts_with(&format!("{waiting_id}:")), "{lock_id}");
    assert!(get::<Option<String>>(waiting, "trx_wait_started").is_some());
    assert_eq!(get::<Option<String>>(waiting, "trx_query").as_deref(), Some("UPDATE t SET v = 2 WHERE id = 1"));
    assert_eq!(get::<u64>(waiting, "trx_tables_in_use"), 1);
    assert_eq!(get::<u64>(waiting, "trx_tables_locked"), 1);
    assert_eq!(get::<u64>(waiting, "trx_rows_modified"), 0);
    assert_eq!(get::<Option<u64>>(waiting, "trx_schedule_weight"), None);

    // The rows join with the process list, as monitoring queries do.
    let joined: Vec<(u64, String)> = probe
        .query(
            "SELECT p.ID, t.trx_state FROM information_schema.INNODB_TRX t \
             JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id ORDER BY p.ID",
        )
        .unwrap();
    assert_eq!(joined, vec![(a_id, "RUNNING".to_string()), (b_id, "LOCK WAIT".to_string())]);

    a.query_drop("COMMIT").unwrap();
    waiter.join().unwrap().unwrap();
    assert!(trx_rows(&mut probe).is_empty(), "both ended");
}

fn metric(c: &mut Conn, name: &str) -> i64 {
    c.exec_first("SELECT COUNT FROM information_schema.INNODB_METRICS WHERE NAME = ?", (name,))
        .unwrap()
        .unwrap_or_else(|| panic!("no metric {name}"))
}

fn status(c: &mut Conn, name: &str) -> i64 {
    let (_, v): (String, String) = c.query_first(format!("SHOW GLOBAL STATUS LIKE '{name}'")).unwrap().unwrap();
    v.parse().unwrap()
}

#[test]
fn innodb_metrics_counters_move_when_rows_are_written() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("metrics");
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v INT)").unwrap();
    let names = ["dml_inserts", "dml_updates", "dml_deletes", "dml_reads", "trx_rw_commits", "log_write_requests"];
    let before: Vec<i64> = names.iter().map(|n| metric(&mut c, n)).collect();
    c.query_drop("INSERT INTO t VALUES (1, 0), (2, 0), (3, 0)").unwrap();
    c.query_drop("UPDATE t SET v = 5 WHERE id = 2").unwrap();
    c.query_drop("UPDATE t SET v = 5 WHERE id = 2").unwrap(); // unchanged: not an update
    c.query_drop("DELETE FROM t WHERE id IN (1, 3)").unwrap();
    let _: Vec<Row> = c.query("SELECT * FROM t").unwrap();
    let after: Vec<i64> = names.iter().map(|n| metric(&mut c, n)).collect();
    let moved: Vec<i64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
    assert_eq!(&moved[..3], &[3, 1, 2], "inserts, updates, deletes: {names:?} {moved:?}");
    assert!(moved[3] >= 1, "the SELECT read a row: {moved:?}");
    assert!(moved[4] >= 3, "the INSERT, UPDATE and DELETE committed writes: {moved:?}");
    assert!(moved[5] > 0, "redo was written: {moved:?}");
    // SHOW STATUS reads the same counters.
    assert_eq!(status(&mut c, "Innodb_rows_inserted"), metric(&mut c, "dml_inserts"));
    assert_eq!(status(&mut c, "Innodb_rows_deleted"), metric(&mut c, "dml_deletes"));
    assert_eq!(status(&mut c, "Innodb_buffer_pool_pages_total"), metric(&mut c, "buffer_pool_pages_total"));
    // Every metric is enabled, typed as InnoDB types it, with its columns.
    let bad: Vec<(String, String, String)> = c
        .query(
            "SELECT NAME, STATUS, TYPE FROM information_schema.INNODB_METRICS \
             WHERE STATUS <> 'enabled' OR TYPE NOT IN ('value', 'status_counter', 'counter') \
             OR TIME_ENABLED IS NULL OR COMMENT = ''",
        )
        .unwrap();
    assert!(bad.is_empty(), "{bad:?}");
    let (ty, max): (String, i64) = c
        .query_first("SELECT TYPE, MAX_COUNT FROM information_schema.INNODB_METRICS WHERE NAME = 'dml_inserts'")
        .unwrap()
        .unwrap();
    assert_eq!((ty.as_str(), max), ("status_counter", metric(&mut c, "dml_inserts")));
}

/// Durable commits sync the redo log, and `Innodb_data_fsyncs` counts those
/// syncs with the data files' and the doublewrite's (InnoDB's sum: MariaDB
/// 10.11 moves it by one per autocommit INSERT), as does `os_data_fsyncs`.
#[test]
fn durable_commits_move_innodb_data_fsyncs() {
    let q = Quire::start(&[("innodb_flush_log_at_trx_commit", "1")]);
    let mut c = q.fresh_db("fsyncs");
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY)").unwrap();
    let (data, log) = (status(&mut c, "Innodb_data_fsyncs"), status(&mut c, "Innodb_os_log_fsyncs"));
    for i in 0..5 {
        c.query_drop(format!("INSERT INTO t VALUES ({i})")).unwrap();
    }
    let (data2, log2) = (status(&mut c, "Innodb_data_fsyncs"), status(&mut c, "Innodb_os_log_fsyncs"));
    assert!(log2 - log >= 5, "5 durable commits, one connection: {} log syncs", log2 - log);
    assert!(data2 - data >= log2 - log, "data fsyncs {data} -> {data2}, log {log} -> {log2}");
    let metric = metric(&mut c, "os_data_fsyncs");
    assert!(metric >= data2, "os_data_fsyncs {metric} behind Innodb_data_fsyncs {data2}");
    // Present, a number (0 unless a sync is under way right now).
    status(&mut c, "Innodb_data_pending_fsyncs");
}

#[test]
fn innodb_buffer_pool_stats_has_a_row_per_instance_with_its_pages() {
    let q = Quire::start(&[("innodb_buffer_pool_instances", "2")]);
    let mut c = q.fresh_db("pool");
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(100))").unwrap();
    c.query_drop("INSERT INTO t VALUES (1, 'a'), (2, 'b')").unwrap();
    let rows: Vec<(u64, u64, u64, u64, u64)> = c
        .query(
            "SELECT POOL_ID, POOL_SIZE, FREE_BUFFERS, DATABASE_PAGES, NUMBER_PAGES_GET \
             FROM information_schema.INNODB_BUFFER_POOL_STATS ORDER BY POOL_ID",
        )
        .unwrap();
    assert_eq!(rows.iter().map(|r| r.0).collect::<Vec<_>>(), vec![0, 1]);
    let total: u64 = rows.iter().map(|r| r.1).sum();
    assert_eq!(total as i64, status(&mut c, "Innodb_buffer_pool_pages_total"));
    for r in &rows {
        assert!(r.2 + r.3 <= r.1, "free + data within the instance: {r:?}");
    }
    let gets_before: u64 = rows.iter().map(|r| r.4).sum();
    let _: Vec<Row> = c.query("SELECT * FROM t").unwrap();
    let gets_after: u64 = c
        .query_first("SELECT SUM(NUMBER_PAGES_GET) FROM information_schema.INNODB_BUFFER_POOL_STATS")
        .unwrap()
        .unwrap();
    assert!(gets_after > gets_before, "pages were asked for: {gets_before} -> {gets_after}");
    assert_eq!(gets_after as i64, status(&mut c, "Innodb_buffer_pool_read_requests"));
}

#[test]
fn innodb_tables_and_indexes_list_the_dictionary() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("dict");
    c.query_drop(
        "CREATE TABLE t (id INT PRIMARY KEY, code VARCHAR(10), n INT, UNIQUE KEY uk_code (code), KEY k_n (n))",
    )
    .unwrap();
    c.query_drop("CREATE TABLE keyless (a INT)").unwrap();
    let (id, space, n_cols, format): (u64, i64, i64, String) = c
        .query_first(
            "SELECT TABLE_ID, SPACE, N_COLS, ROW_FORMAT FROM information_schema.INNODB_TABLES WHERE NAME = 'dict/t'",
        )
        .unwrap()
        .unwrap();
    assert_eq!((id as i64, n_cols, format.as_str()), (space, 6, "Dynamic"));
    let indexes: Vec<(String, i64, i64)> = c
        .query(
            "SELECT i.NAME, i.TYPE, i.N_FIELDS FROM information_schema.INNODB_INDEXES i \
             JOIN information_schema.INNODB_TABLES t ON t.TABLE_ID = i.TABLE_ID \
             WHERE t.NAME = 'dict/t' ORDER BY i.INDEX_ID",
        )
        .unwrap();
    assert_eq!(indexes, vec![("PRIMARY".to_string(), 3, 5), ("uk_code".to_string(), 2, 2), ("k_n".to_string(), 0, 2)]);
    let hidden: (String, i64) = c
        .query_first(
            "SELECT i.NAME, i.TYPE FROM information_schema.INNODB_INDEXES i \
             JOIN information_schema.INNODB_TABLES t USING (TABLE_ID) WHERE t.NAME = 'dict/keyless'",
        )
        .unwrap()
        .unwrap();
    assert_eq!(hidden, ("GEN_CLUST_INDEX".to_string(), 1));
}

#[test]
fn the_innodb_tables_need_the_process_privilege() {
    let q = Quire::start(&[]);
    let mut root = q.connect(None);
    root.query_drop("CREATE USER 'watcher' IDENTIFIED BY 'pw'").unwrap();
    let opts = q.opts(None).user(Some("watcher")).pass(Some("pw"));
    let mut watcher = Conn::new(opts.clone()).unwrap();
    for t in INNODB_TABLES {
        assert_eq!(
            answer(&mut watcher, &format!("SELECT * FROM information_schema.{t}")),
            Answer::Err(1227),
            "{t} without PROCESS"
        );
    }
    assert_eq!(answer(&mut watcher, "SHOW ENGINE INNODB STATUS"), Answer::Err(1227));
    root.query_drop("GRANT PROCESS ON *.* TO 'watcher'").unwrap();
    let mut watcher = Conn::new(opts).unwrap();
    for t in INNODB_TABLES {
        assert!(
            matches!(answer(&mut watcher, &format!("SELECT * FROM information_schema.{t}")), Answer::Rows(_)),
            "{t} with PROCESS"
        );
    }
    let grants: Vec<String> = watcher.query("SHOW GRANTS").unwrap();
    assert!(grants[0].starts_with("GRANT PROCESS ON *.*"), "{grants:?}");
}

/// The columns as information_schema.COLUMNS lists them (name, type,
/// nullable), with MariaDB's integer display widths dropped (MySQL 8.0
/// and quire print none).
fn columns(c: &mut Conn, table: &str) -> Vec<(String, String, String)> {
    let rows: Vec<(String, String, String)> = c
        .exec(
            "SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = 'information_schema' AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION",
            (table,),
        )
        .unwrap();
    assert!(!rows.is_empty(), "no columns for {table}");
    rows.into_iter()
        .map(|(f, ty, n)| {
            let ty = match (ty.find('('), ty.find(')')) {
                (Some(a), Some(b)) if ty.contains("int(") => format!("{}{}", &ty[..a], &ty[b + 1..]),
                _ => ty,
            };
            (f, ty, n)
        })
        .collect()
}

#[test]
fn the_shapes_match_mariadb_where_mysql_8_0_agrees() {
    let q = Quire::start(&[]);
    let mut qc = q.connect(None);
    let mut mc = MariaDb::get().connect(None);
    // MySQL 8.0's shapes, and what MariaDB 10.11 has instead.
    let mysql_only = ["trx_adaptive_hash_latched", "trx_adaptive_hash_timeout", "trx_schedule_weight"];
    let mariadb_types = |table: &str, field: &str, ty: &str| -> String {
        match (table, field) {
            ("INNODB_TRX", "trx_requested_lock_id") => "varchar(81)".into(),
            ("INNODB_TRX", "trx_isolation_level") => {
                "enum('READ UNCOMMITTED','READ COMMITTED','REPEATABLE READ','SERIALIZABLE')".into()
            }
            ("INNODB_BUFFER_POOL_STATS", "POOL_ID") => "int unsigned".into(),
            ("INNODB_BUFFER_POOL_STATS", _) if ty == "double" => "float".into(),
            _ => ty.to_string(),
        }
    };
    for table in ["INNODB_TRX", "INNODB_BUFFER_POOL_STATS", "INNODB_CMP", "INNODB_CMPMEM", "COLUMN_PRIVILEGES"] {
        let quire: Vec<(String, String, String)> = columns(&mut qc, table)
            .into_iter()
            .filter(|(f, _, _)| !mysql_only.contains(&f.as_str()))
            .map(|(f, t, n)| {
                let t = mariadb_types(table, &f, &t);
                (f, t, n)
            })
            .collect();
        assert_eq!(quire, columns(&mut mc, table), "information_schema.COLUMNS of {table}");
    }
    // INNODB_METRICS: MySQL 8.0's STATUS where MariaDB has ENABLED; the
    // other columns alike (AVG_COUNT: double for MariaDB's float).
    let quire: Vec<String> = columns(&mut qc, "INNODB_METRICS").into_iter().map(|c| c.0).collect();
    let maria: Vec<String> = columns(&mut mc, "INNODB_METRICS")
        .into_iter()
        .map(|c| if c.0 == "ENABLED" { "STATUS".to_string() } else { c.0 })
        .collect();
    assert_eq!(quire, maria);
    // INNODB_COLUMNS: MariaDB's INNODB_SYS_COLUMNS, and MySQL 8.0's two
    // columns after them.
    let quire = columns(&mut qc, "INNODB_COLUMNS");
    assert_eq!(
        quire[6..].iter().map(|c| c.0.as_str()).collect::<Vec<_>>(),
        ["HAS_DEFAULT", "DEFAULT_VALUE"],
        "MySQL 8.0's last columns"
    );
    assert_eq!(quire[..6], columns(&mut mc, "INNODB_SYS_COLUMNS")[..]);
    // Neither server compresses: the same rows, every count 0. No column
    // grant exists on either (quire's grants are per database).
    for sql in [
        "SELECT * FROM information_schema.COLUMN_PRIVILEGES",
        "SELECT * FROM information_schema.INNODB_CMP ORDER BY page_size",
        "SELECT * FROM information_schema.INNODB_CMPMEM ORDER BY buffer_pool_instance, page_size",
    ] {
        assert_eq!(answer(&mut qc, sql), answer(&mut mc, sql), "{sql}");
    }
}

/// A table both servers accept, with a column of each type whose InnoDB
/// dictionary type both record alike.
const TYPED: &str = "CREATE TABLE t (id INT PRIMARY KEY, u INT UNSIGNED, b BIGINT NOT NULL DEFAULT 5, \
     ti TINYINT, si SMALLINT UNSIGNED, mi MEDIUMINT, c CHAR(10) NOT NULL, v VARCHAR(20), lv VARCHAR(100), \
     vb VARBINARY(16), lvb VARBINARY(300), bn BINARY(4), tx TEXT, bl BLOB, mb MEDIUMBLOB, d DECIMAL(10,2), \
     du DECIMAL(30,5) UNSIGNED, f FLOAT, db DOUBLE, dt DATETIME, dt3 DATETIME(3), ts TIMESTAMP NULL, \
     da DATE, tm TIME(6), y YEAR, e ENUM('a','b') NOT NULL, s SET('x','y','z'), bt BIT(3), \
     l1 VARCHAR(10) CHARACTER SET latin1, l2 CHAR(5) CHARACTER SET latin1 COLLATE latin1_bin, \
     ub VARCHAR(8) COLLATE utf8mb4_bin)";

type DictColumn = (String, u64, i64, i64, i64);

/// (NAME, POS, MTYPE, PRTYPE, LEN) of table `name`'s columns in a
/// dictionary view pair, by position.
fn dictionary_columns(c: &mut Conn, columns: &str, tables: &str, name: &str) -> Vec<DictColumn> {
    c.exec(
        format!(
            "SELECT c.NAME, c.POS, c.MTYPE, c.PRTYPE, c.LEN FROM information_schema.{columns} c \
             JOIN information_schema.{tables} t ON t.TABLE_ID = c.TABLE_ID WHERE t.NAME = ? ORDER BY c.POS"
        ),
        (name,),
    )
    .unwrap()
}

#[test]
fn innodb_columns_records_each_type_as_mariadbs_dictionary_does() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("coltypes");
    let mut mc = MariaDb::get().fresh_db("coltypes");
    qc.query_drop(TYPED).unwrap();
    mc.query_drop(TYPED).unwrap();
    let quire = dictionary_columns(&mut qc, "INNODB_COLUMNS", "INNODB_TABLES", "coltypes/t");
    let maria = dictionary_columns(&mut mc, "INNODB_SYS_COLUMNS", "INNODB_SYS_TABLES", "coltypes/t");
    assert_eq!(quire.len(), 31);
    for (q, m) in quire.iter().zip(&maria) {
        assert_eq!(q, m, "quire / MariaDB");
    }
    assert_eq!(quire.len(), maria.len());
    // JSON is MySQL 8.0's binary type (MariaDB's is a LONGTEXT alias).
    qc.query_drop("CREATE TABLE j (id INT PRIMARY KEY, doc JSON NOT NULL)").unwrap();
    let j = dictionary_columns(&mut qc, "INNODB_COLUMNS", "INNODB_TABLES", "coltypes/j");
    assert_eq!(j[1], ("doc".to_string(), 1, 5, (63 << 16) | 1024 | 256 | 245, 12));
}

#[test]
fn innodb_columns_gives_the_defaults_of_instantly_added_columns() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("instant_cols");
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, a INT DEFAULT 3)").unwrap();
    c.query_drop("INSERT INTO t VALUES (1, 1)").unwrap();
    c.query_drop("ALTER TABLE t ADD COLUMN b INT DEFAULT 7, ADD COLUMN n VARCHAR(5) NULL").unwrap();
    let rows: Vec<(String, i64, Option<String>)> = c
        .query(
            "SELECT c.NAME, c.HAS_DEFAULT, c.DEFAULT_VALUE FROM information_schema.INNODB_COLUMNS c \
             JOIN information_schema.INNODB_TABLES t USING (TABLE_ID) WHERE t.NAME = 'instant_cols/t' ORDER BY c.POS",
        )
        .unwrap();
    assert_eq!(
        rows,
        vec![
            ("id".to_string(), 0, None),
            ("a".to_string(), 0, None),
            ("b".to_string(), 1, Some("07000000".to_string())),
            ("n".to_string(), 1, None),
        ],
        "only the instantly added columns have one: 7 as a row stores it, and NULL"
    );
    // A copy rewrites every row: nothing is instant any more.
    c.query_drop("ALTER TABLE t ADD COLUMN first_col INT FIRST").unwrap();
    let n: i64 = c
        .query_first("SELECT SUM(HAS_DEFAULT) FROM information_schema.INNODB_COLUMNS WHERE NAME IN ('b', 'n')")
        .unwrap()
        .unwrap();
    assert_eq!(n, 0);
}

#[test]
fn innodb_trx_lists_a_transaction_that_has_only_read_from_its_first_read() {
    let q = Quire::start(&[]);
    let mut a = q.fresh_db("ro_trx");
    a.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v INT)").unwrap();
    a.query_drop("INSERT INTO t VALUES (1, 0)").unwrap();
    let a_id: u64 = a.query_first("SELECT CONNECTION_ID()").unwrap().unwrap();
    let mut b = q.connect(Some("ro_trx"));
    let b_id: u64 = b.query_first("SELECT CONNECTION_ID()").unwrap().unwrap();
    let mut probe = q.connect(None);
    let printed = 1u64 << 48;

    a.query_drop("START TRANSACTION").unwrap();
    assert!(trx_rows(&mut probe).is_empty(), "nothing read yet: no read view");
    let _: Vec<Row> = a.query("SELECT * FROM t").unwrap();
    b.query_drop("START TRANSACTION READ ONLY").unwrap();
    let _: Vec<Row> = b.query("SELECT * FROM t").unwrap();
    let rows = trx_rows(&mut probe);
    assert_eq!(rows.len(), 2, "the probe's own autocommit SELECT is not listed: {rows:?}");
    let by_thread = |rows: &[Row], id: u64| rows.iter().find(|r| get::<u64>(r, "trx_mysql_thread_id") == id).cloned();
    let ra = by_thread(&rows, a_id).unwrap();
    let rb = by_thread(&rows, b_id).unwrap();
    assert!(get::<u64>(&ra, "trx_id") > printed, "MySQL's printed id: {ra:?}");
    assert_ne!(get::<u64>(&ra, "trx_id"), get::<u64>(&rb, "trx_id"));
    assert_eq!(get::<String>(&ra, "trx_state"), "RUNNING");
    assert_eq!(get::<i64>(&ra, "trx_is_read_only"), 0);
    assert_eq!(get::<i64>(&rb, "trx_is_read_only"), 1, "START TRANSACTION READ ONLY");
    assert_eq!((get::<u64>(&ra, "trx_rows_modified"), get::<u64>(&ra, "trx_lock_structs")), (0, 0));
    assert_eq!(get::<String>(&ra, "trx_isolation_level"), "REPEATABLE READ");

    // Once it writes it has an id, and is listed under it alone.
    a.query_drop("UPDATE t SET v = 1 WHERE id = 1").unwrap();
    let rows = trx_rows(&mut probe);
    assert_eq!(rows.len(), 2, "{rows:?}");
    let ra = by_thread(&rows, a_id).unwrap();
    assert!(get::<u64>(&ra, "trx_id") < printed);
    assert_eq!(get::<u64>(&ra, "trx_rows_modified"), 1);
    a.query_drop("COMMIT").unwrap();
    b.query_drop("COMMIT").unwrap();
    assert!(trx_rows(&mut probe).is_empty(), "both ended");

    // autocommit off: the implicit transaction is listed once it reads,
    // and stays listed between statements under READ COMMITTED (whose
    // view lasts one statement), until it ends.
    b.query_drop("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED").unwrap();
    b.query_drop("SET autocommit = 0").unwrap();
    let _: Vec<Row> = b.query("SELECT * FROM t").unwrap();
    let _: Vec<Row> = b.query("SELECT * FROM t").unwrap();
    let rows = trx_rows(&mut probe);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(get::<String>(&rows[0], "trx_isolation_level"), "READ COMMITTED");
    b.query_drop("ROLLBACK").unwrap();
    assert!(trx_rows(&mut probe).is_empty());
    // WITH CONSISTENT SNAPSHOT opens the view at once.
    a.query_drop("START TRANSACTION WITH CONSISTENT SNAPSHOT").unwrap();
    assert_eq!(trx_rows(&mut probe).len(), 1);
    drop(a);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !trx_rows(&mut probe).is_empty() {
        assert!(std::time::Instant::now() < deadline, "a disconnect ends the transaction");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The change buffer (`innodb_change_buffering`, set at run time): with a
/// pool much smaller than a non-unique secondary index, inserts with
/// scattered keys are buffered and merged (INNODB_METRICS `ibuf_*` and
/// `Innodb_ibuf_*` agree), and CHECK TABLE finds both indexes in step; an
/// invalid mode is 1231.
#[test]
fn the_change_buffer_takes_inserts_into_evicted_leaves_and_reports_them() {
    let q = Quire::start(&[("innodb_buffer_pool_size", "5M")]);
    let mut c = q.fresh_db("cbuf");
    let err = c.query_drop("SET GLOBAL innodb_change_buffering = 'sometimes'").unwrap_err();
    assert!(err.to_string().contains("1231"), "{err}");
    c.query_drop("SET GLOBAL innodb_change_buffering = 'all'").unwrap();
    assert_eq!(c.warnings(), 0);
    let v: String = c.query_first("SELECT @@GLOBAL.innodb_change_buffering").unwrap().unwrap();
    assert_eq!(v, "all");
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, k VARCHAR(200) NOT NULL, KEY (k))").unwrap();
    let n = 30_000u64;
    for batch in 0..n / 1000 {
        let rows: Vec<String> = (batch * 1000..(batch + 1) * 1000)
            .map(|i| format!("({i}, '{:07}{}')", (i * 7919) % 1_000_003, "x".repeat(190)))
            .collect();
        c.query_drop(format!("INSERT INTO t VALUES {}", rows.join(","))).unwrap();
    }
    let metric = |c: &mut Conn, name: &str| -> i64 {
        c.query_first(format!("SELECT COUNT FROM information_schema.INNODB_METRICS WHERE NAME = '{name}'"))
            .unwrap()
            .unwrap_or_else(|| panic!("no metric {name}"))
    };
    let check: Vec<(String, String, String, String)> = c.query("CHECK TABLE t").unwrap();
    assert_eq!(check.last().unwrap().3, "OK", "{check:?}");
    let by_k: u64 = c.query_first("SELECT COUNT(*) FROM t FORCE INDEX (k) WHERE k >= ''").unwrap().unwrap();
    assert_eq!(by_k, n);
    let merged = metric(&mut c, "ibuf_merges_insert");
    assert!(merged > 0, "inserts into evicted leaves were buffered and merged");
    assert!(metric(&mut c, "ibuf_merges") > 0);
    let status: Option<(String, String)> =
        c.query_first("SHOW GLOBAL STATUS LIKE 'Innodb_ibuf_merged_inserts'").unwrap();
    assert_eq!(status.unwrap().1.parse::<i64>().unwrap(), merged);
    let rows: Vec<(String, String)> = c
        .query(
            "SELECT NAME, TYPE FROM information_schema.INNODB_METRICS WHERE SUBSYSTEM = 'change_buffer' ORDER BY NAME",
        )
        .unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "change_buffer_leaf_reads",
            "change_buffer_non_leaf_reads",
            "ibuf_merges",
            "ibuf_merges_delete",
            "ibuf_merges_discard_delete",
            "ibuf_merges_discard_insert",
            "ibuf_merges_insert",
            "ibuf_size"
        ]
    );
    c.query_drop("SET GLOBAL innodb_change_buffering = none").unwrap();
}
