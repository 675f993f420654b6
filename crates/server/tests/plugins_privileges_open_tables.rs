//! What administration tools list about the server itself: SHOW
//! PRIVILEGES (MySQL 8.0's rows for the privileges quire's grants give),
//! information_schema.PLUGINS and SHOW PLUGINS (only what quire has built
//! in), SHOW OPEN TABLES (the open tables with their table-lock counts)
//! and the Open_tables / Opened_tables counters. Each is compared with a
//! MariaDB the test starts where the two servers have the same thing:
//! columns, and the rows of the privileges and plugins both have.

mod oracle;

use mysql::prelude::Queryable;
use mysql::{Conn, Row};
use oracle::{answer, Answer, MariaDb, Quire};

/// A result's column names and its rows as text.
fn shown(c: &mut Conn, sql: &str) -> (Vec<String>, Vec<Vec<Option<String>>>) {
    let mut result = c.query_iter(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let names = result.columns().as_ref().iter().map(|c| c.name_str().into_owned()).collect();
    let rows = result.by_ref().map(|r| oracle::row_cells(&r.unwrap())).collect();
    (names, rows)
}

fn text(v: &Option<String>) -> &str {
    v.as_deref().unwrap_or("NULL")
}

#[test]
fn show_privileges_has_mariadbs_columns_and_rows_for_the_privileges_both_have() {
    let q = Quire::start(&[]);
    let (q_names, q_rows) = shown(&mut q.connect(None), "SHOW PRIVILEGES");
    let (m_names, m_rows) = shown(&mut MariaDb::get().connect(None), "SHOW PRIVILEGES");
    assert_eq!(q_names, m_names);
    let mut shared = 0;
    for r in &q_rows {
        let Some(m) = m_rows.iter().find(|m| m[0] == r[0]) else { continue };
        shared += 1;
        assert_eq!(r[1], m[1], "context of {}", text(&r[0]));
        if text(&r[0]) != "Super" {
            // MySQL 8.0 says CHANGE REPLICATION SOURCE where MariaDB says
            // CHANGE MASTER; every other comment is the same.
            assert_eq!(r[2], m[2], "comment of {}", text(&r[0]));
        }
    }
    assert!(shared >= 25, "{shared} privileges in common: {q_rows:?}");
    // quire's accounts hold MySQL 8.0's names (REPLICATION CLIENT, which
    // MariaDB renamed BINLOG MONITOR), and nothing quire has no object
    // for (roles, proxy users).
    let names: Vec<&str> = q_rows.iter().map(|r| text(&r[0])).collect();
    assert!(names.contains(&"Replication client") && names.contains(&"Process"), "{names:?}");
    for absent in ["Create role", "Drop role", "Proxy", "Delete history"] {
        assert!(!names.contains(&absent), "{absent} listed: {names:?}");
    }
    assert_eq!(names.last(), Some(&"Usage"));
}

#[test]
fn show_plugins_lists_what_quire_has_as_mariadb_lists_the_same_plugins() {
    let q = Quire::start(&[]);
    let mut qc = q.connect(None);
    let mut mc = MariaDb::get().connect(None);
    let (q_names, q_rows) = shown(&mut qc, "SHOW PLUGINS");
    let (m_names, m_rows) = shown(&mut mc, "SHOW PLUGINS");
    assert_eq!(q_names, m_names);
    let names: Vec<&str> = q_rows.iter().map(|r| text(&r[0])).collect();
    assert_eq!(
        names,
        [
            "binlog",
            "mysql_native_password",
            "caching_sha2_password",
            "InnoDB",
            "INNODB_TRX",
            "INNODB_CMP",
            "INNODB_CMPMEM",
            "INNODB_BUFFER_POOL_STATS",
            "INNODB_METRICS",
            "INNODB_TABLES",
            "INNODB_INDEXES",
            "INNODB_COLUMNS",
            "PERFORMANCE_SCHEMA",
        ]
    );
    let mut shared = 0;
    for r in &q_rows {
        if let Some(m) = m_rows.iter().find(|m| m[0] == r[0]) {
            shared += 1;
            assert_eq!(r, m, "SHOW PLUGINS row of {}", text(&r[0]));
        }
    }
    assert_eq!(shared, 9, "binlog, native password, InnoDB, 5 InnoDB tables, performance_schema");
    // The SHOW is a view of information_schema.PLUGINS, and takes
    // MariaDB's LIKE.
    let (_, like) = shown(&mut qc, "SHOW PLUGINS LIKE 'INNODB\\_C%'");
    assert_eq!(like.iter().map(|r| text(&r[0])).collect::<Vec<_>>(), ["INNODB_CMP", "INNODB_CMPMEM", "INNODB_COLUMNS"]);
}

/// information_schema.COLUMNS of `table`: (name, type, nullable).
fn columns(c: &mut Conn, table: &str) -> Vec<(String, String, String)> {
    c.exec(
        "SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE FROM information_schema.COLUMNS \
         WHERE TABLE_SCHEMA = 'information_schema' AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION",
        (table,),
    )
    .unwrap()
}

#[test]
fn information_schema_plugins_has_mysqls_columns_and_mariadbs_values_for_shared_plugins() {
    let q = Quire::start(&[]);
    let mut qc = q.connect(None);
    let mut mc = MariaDb::get().connect(None);
    // MySQL 8.0's eleven columns; MariaDB has two more after them. quire's
    // long text is `text` (it has no LONGTEXT).
    let quire: Vec<_> = columns(&mut qc, "PLUGINS")
        .into_iter()
        .map(|(n, t, null)| (n, if t == "text" { "longtext".to_string() } else { t }, null))
        .collect();
    let mut maria = columns(&mut mc, "PLUGINS");
    maria.truncate(11);
    assert_eq!(quire, maria);
    // Where the two servers have the same built-in, the same status,
    // type, library, license and (MariaDB kept InnoDB's) description.
    let same = "SELECT PLUGIN_NAME, PLUGIN_STATUS, PLUGIN_TYPE, PLUGIN_LIBRARY, PLUGIN_LIBRARY_VERSION, \
                PLUGIN_DESCRIPTION, PLUGIN_LICENSE FROM information_schema.PLUGINS \
                WHERE PLUGIN_NAME IN ('binlog', 'mysql_native_password', 'INNODB_TRX', 'INNODB_CMP', \
                'INNODB_CMPMEM', 'INNODB_BUFFER_POOL_STATS', 'INNODB_METRICS', 'PERFORMANCE_SCHEMA') \
                ORDER BY PLUGIN_NAME";
    let quire = answer(&mut qc, same);
    assert!(matches!(&quire, Answer::Rows(r) if r.len() == 8), "{quire:?}");
    assert_eq!(quire, answer(&mut mc, same));
    // The version of the interface is MySQL 8.0.36's.
    let v: String = qc
        .query_first("SELECT PLUGIN_TYPE_VERSION FROM information_schema.PLUGINS WHERE PLUGIN_NAME = 'InnoDB'")
        .unwrap()
        .unwrap();
    assert_eq!(v, "80036.0");
}

fn open_tables(c: &mut Conn, sql: &str) -> Vec<(String, String, i64, i64)> {
    let mut rows: Vec<(String, String, i64, i64)> = c.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    rows.sort();
    rows
}

#[test]
fn show_open_tables_counts_table_locks_as_mariadb_does() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("opened");
    let mut mc = MariaDb::get().fresh_db("opened");
    for c in [&mut qc, &mut mc] {
        c.query_drop("CREATE TABLE t1 (a INT)").unwrap();
        c.query_drop("CREATE TABLE t2 (a INT)").unwrap();
        c.query_drop("CREATE TABLE other (a INT)").unwrap();
        c.query_drop("LOCK TABLES t1 READ, t1 AS again READ, t2 WRITE").unwrap();
    }
    for sql in [
        "SHOW OPEN TABLES FROM opened WHERE In_use > 0",
        "SHOW OPEN TABLES FROM opened LIKE 't1'",
        "SHOW OPEN TABLES IN opened WHERE `Table` = 't2'",
        "SHOW OPEN TABLES WHERE `Database` = 'opened' AND In_use > 0",
    ] {
        let quire = open_tables(&mut qc, sql);
        assert!(!quire.is_empty(), "{sql}");
        assert_eq!(quire, open_tables(&mut mc, sql), "{sql}");
    }
    assert_eq!(
        open_tables(&mut qc, "SHOW OPEN TABLES FROM opened WHERE In_use > 0"),
        vec![("opened".into(), "t1".into(), 2, 0), ("opened".into(), "t2".into(), 1, 0)],
        "t1 is locked twice (under two names), t2 once"
    );
    // Every table quire has open is listed: `other` too (MariaDB lists it
    // only once something has opened it).
    assert_eq!(open_tables(&mut qc, "SHOW OPEN TABLES FROM opened").len(), 3);
    for c in [&mut qc, &mut mc] {
        c.query_drop("UNLOCK TABLES").unwrap();
    }
    assert_eq!(open_tables(&mut qc, "SHOW OPEN TABLES FROM opened WHERE In_use > 0"), vec![]);
    // A database that does not exist has no open table; the hidden table
    // behind the SHOW cannot be selected.
    for sql in ["SHOW OPEN TABLES FROM no_such_db", "SELECT * FROM information_schema.OPEN_TABLES"] {
        assert_eq!(answer(&mut qc, sql), answer(&mut mc, sql), "{sql}");
    }
    let (names, _) = shown(&mut qc, "SHOW OPEN TABLES FROM opened");
    assert_eq!(names, ["Database", "Table", "In_use", "Name_locked"]);
}

#[test]
fn show_open_tables_lists_only_tables_the_user_may_use_and_no_temporary_ones() {
    let q = Quire::start(&[]);
    let mut root = q.fresh_db("mine");
    root.query_drop("CREATE TABLE t (a INT)").unwrap();
    root.query_drop("CREATE DATABASE theirs").unwrap();
    root.query_drop("CREATE TABLE theirs.u (a INT)").unwrap();
    root.query_drop("CREATE TEMPORARY TABLE tmp (a INT)").unwrap();
    root.query_drop("CREATE USER 'limited' IDENTIFIED BY 'pw'").unwrap();
    root.query_drop("GRANT ALL ON mine.* TO 'limited'").unwrap();
    let listed = |c: &mut Conn| -> Vec<String> {
        let rows: Vec<Row> = c.query("SHOW OPEN TABLES WHERE `Database` IN ('mine', 'theirs')").unwrap();
        rows.iter().map(|r| format!("{}.{}", r.get::<String, _>(0).unwrap(), r.get::<String, _>(1).unwrap())).collect()
    };
    assert_eq!(listed(&mut root), ["mine.t", "theirs.u"], "no temporary table");
    let mut limited = Conn::new(q.opts(None).user(Some("limited")).pass(Some("pw"))).unwrap();
    assert_eq!(listed(&mut limited), ["mine.t"]);
}

fn status(c: &mut Conn, name: &str) -> i64 {
    let (_, v): (String, String) = c.query_first(format!("SHOW GLOBAL STATUS LIKE '{name}'")).unwrap().unwrap();
    v.parse().unwrap()
}

#[test]
fn open_tables_and_opened_tables_follow_creates_and_drops() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("counted");
    let (open, opened) = (status(&mut c, "Open_tables"), status(&mut c, "Opened_tables"));
    assert!(open > 0 && opened >= open, "the mysql schema's tables: {open} / {opened}");
    c.query_drop("CREATE TABLE t (a INT)").unwrap();
    assert_eq!((status(&mut c, "Open_tables"), status(&mut c, "Opened_tables")), (open + 1, opened + 1));
    // A temporary table is opened, but is not in the shared set of open
    // tables (MySQL's table cache leaves it out too).
    c.query_drop("CREATE TEMPORARY TABLE tmp (a INT)").unwrap();
    assert_eq!((status(&mut c, "Open_tables"), status(&mut c, "Opened_tables")), (open + 1, opened + 2));
    c.query_drop("DROP TABLE t").unwrap();
    assert_eq!(status(&mut c, "Open_tables"), open);
    let listed: Vec<Row> = c.query("SHOW OPEN TABLES").unwrap();
    assert!(listed.len() as i64 <= open, "{} listed, {open} open", listed.len());
}
