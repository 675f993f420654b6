//! MySQL 8.0's GTIDs through SQL: `server_uuid` kept in auto.cnf,
//! `gtid_mode` stepped one value at a time with MySQL's errors,
//! `gtid_executed` numbered per transaction and DDL and right after a
//! restart and a purge, `gtid_next` (a given GTID, the UNDEFINED state
//! after it, an executed one skipped, an empty transaction),
//! `gtid_purged`, SHOW MASTER STATUS's Executed_Gtid_Set, GTID_SUBSET
//! and GTID_SUBTRACT. (MariaDB has none of these: MySQL 8.0's manual is
//! the reference.)

mod oracle;

use mysql::prelude::Queryable;
use oracle::{err_code, Quire};

const OTHER: &str = "22222222-2222-2222-2222-222222222222";

fn one(c: &mut mysql::Conn, sql: &str) -> String {
    let v: Option<Option<String>> = c.query_first(sql).unwrap();
    v.flatten().unwrap_or_default()
}

fn code(c: &mut mysql::Conn, sql: &str) -> u16 {
    err_code(&c.query_drop(sql).expect_err(sql))
}

/// N of a set `uuid:1-N` (0 for the empty set).
fn last(set: &str) -> u64 {
    if set.is_empty() {
        return 0;
    }
    let tail = set.rsplit([':', '-']).next().unwrap();
    tail.parse().unwrap()
}

fn gtid_on() -> Quire {
    Quire::start(&[("log_bin", "ON"), ("gtid_mode", "ON"), ("enforce_gtid_consistency", "ON")])
}

#[test]
fn transactions_and_ddl_get_consecutive_gtids_that_survive_a_restart() {
    let q = gtid_on();
    let mut c = q.fresh_db("g");
    let uuid = one(&mut c, "SELECT @@server_uuid");
    assert_eq!(uuid.len(), 36);
    let datadir = one(&mut c, "SELECT @@datadir");
    let cnf = std::fs::read_to_string(std::path::Path::new(&datadir).join("auto.cnf")).unwrap();
    assert_eq!(cnf, format!("[auto]\nserver-uuid={uuid}\n"));
    // After the database's DDL (n), a table, two autocommit inserts and
    // a transaction of two inserts: n+1 .. n+4.
    let n = last(&one(&mut c, "SELECT @@gtid_executed"));
    assert!(n >= 1, "CREATE DATABASE has a GTID");
    let upto = |k: u64| format!("{uuid}:1-{}", n + k);
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY)").unwrap();
    c.query_drop("INSERT INTO t VALUES (1)").unwrap();
    c.query_drop("INSERT INTO t VALUES (2)").unwrap();
    c.query_drop("BEGIN").unwrap();
    c.query_drop("INSERT INTO t VALUES (3)").unwrap();
    c.query_drop("INSERT INTO t VALUES (4)").unwrap();
    c.query_drop("COMMIT").unwrap();
    // A rolled-back transaction and a read take no number.
    c.query_drop("BEGIN").unwrap();
    c.query_drop("INSERT INTO t VALUES (5)").unwrap();
    c.query_drop("ROLLBACK").unwrap();
    c.query_drop("SELECT * FROM t").unwrap();
    assert_eq!(one(&mut c, "SELECT @@GLOBAL.gtid_executed"), upto(4));
    let st: mysql::Row = c.query_first("SHOW MASTER STATUS").unwrap().unwrap();
    assert_eq!(st.get::<String, _>("Executed_Gtid_Set").unwrap(), upto(4));
    let shown: Option<(String, String)> = c.query_first("SHOW GLOBAL VARIABLES LIKE 'gtid_executed'").unwrap();
    assert_eq!(shown.unwrap().1, upto(4));

    let q = q.restart();
    let mut c = q.connect(Some("g"));
    assert_eq!(one(&mut c, "SELECT @@server_uuid"), uuid, "kept in auto.cnf");
    assert_eq!(one(&mut c, "SELECT @@gtid_executed"), upto(4));
    c.query_drop("INSERT INTO t VALUES (6)").unwrap();
    assert_eq!(one(&mut c, "SELECT @@gtid_executed"), upto(5));
    // PURGE moves what the removed files held into gtid_purged.
    c.query_drop("FLUSH BINARY LOGS").unwrap();
    let last: Vec<(String, u64)> = c.query("SHOW BINARY LOGS").unwrap();
    c.query_drop(format!("PURGE BINARY LOGS TO '{}'", last.last().unwrap().0)).unwrap();
    assert_eq!(one(&mut c, "SELECT @@gtid_purged"), upto(5));
    assert_eq!(code(&mut c, &format!("SET GLOBAL gtid_purged = '{OTHER}:1'")), 1840);
    assert_eq!(code(&mut c, &format!("SET GLOBAL gtid_purged = '+{uuid}:3'")), 3546);
    c.query_drop(format!("SET GLOBAL gtid_purged = '+{OTHER}:1-3'")).unwrap();
    let q = q.restart();
    let mut c = q.connect(Some("g"));
    // UUIDs print in ascending order.
    let mut both = [upto(5), format!("{OTHER}:1-3")];
    both.sort();
    assert_eq!(one(&mut c, "SELECT @@gtid_purged"), both.join(",\n"));
    assert_eq!(one(&mut c, "SELECT @@gtid_executed"), both.join(",\n"));
}

#[test]
fn gtid_next_gives_skips_and_then_must_be_set_again() {
    let q = gtid_on();
    let mut c = q.fresh_db("n");
    let uuid = one(&mut c, "SELECT @@server_uuid");
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY)").unwrap();
    let n = last(&one(&mut c, "SELECT @@gtid_executed"));
    assert_eq!(one(&mut c, "SELECT @@gtid_next"), "AUTOMATIC");
    c.query_drop(format!("SET gtid_next = '{OTHER}:5'")).unwrap();
    c.query_drop("INSERT INTO t VALUES (1)").unwrap();
    // UNDEFINED until set again (1837).
    assert_eq!(code(&mut c, "INSERT INTO t VALUES (2)"), 1837);
    assert_eq!(code(&mut c, "CREATE TABLE v (a INT)"), 1837);
    let v: Vec<String> = c.query("SHOW TABLES LIKE 'v'").unwrap();
    assert!(v.is_empty(), "refused before it ran");
    // The same GTID again: already executed, the transaction is skipped.
    c.query_drop(format!("SET gtid_next = '{OTHER}:5'")).unwrap();
    c.query_drop("BEGIN").unwrap();
    c.query_drop("INSERT INTO t VALUES (3)").unwrap();
    c.query_drop("COMMIT").unwrap();
    // An empty transaction marks a GTID executed.
    c.query_drop(format!("SET gtid_next = '{OTHER}:6'")).unwrap();
    c.query_drop("BEGIN").unwrap();
    c.query_drop("COMMIT").unwrap();
    // DDL with a given GTID.
    c.query_drop(format!("SET gtid_next = '{OTHER}:9'")).unwrap();
    c.query_drop("CREATE TABLE u (a INT)").unwrap();
    c.query_drop("SET gtid_next = 'AUTOMATIC'").unwrap();
    c.query_drop("INSERT INTO t VALUES (4)").unwrap();
    let ids: Vec<i64> = c.query("SELECT id FROM t ORDER BY id").unwrap();
    assert_eq!(ids, vec![1, 4]);
    let mut both = [format!("{uuid}:1-{}", n + 1), format!("{OTHER}:5-6:9")];
    both.sort();
    assert_eq!(one(&mut c, "SELECT @@gtid_executed"), both.join(",\n"));
    // Its errors.
    assert_eq!(code(&mut c, "SET gtid_next = 'ANONYMOUS'"), 1782);
    assert_eq!(code(&mut c, "SET gtid_next = 'nonsense'"), 1774);
    assert_eq!(code(&mut c, &format!("SET gtid_next = '{OTHER}:0'")), 1774);
    c.query_drop("BEGIN").unwrap();
    assert_eq!(code(&mut c, &format!("SET gtid_next = '{OTHER}:7'")), 1768);
    c.query_drop("ROLLBACK").unwrap();
}

#[test]
fn gtid_mode_changes_one_step_at_a_time_with_mysql_errors() {
    let q = Quire::start(&[("log_bin", "ON")]);
    let mut c = q.connect(None);
    assert_eq!(one(&mut c, "SELECT @@gtid_mode"), "OFF");
    assert_eq!(code(&mut c, "SET GLOBAL gtid_mode = ON"), 1788);
    assert_eq!(code(&mut c, "SET GLOBAL gtid_mode = ON_PERMISSIVE"), 1788);
    assert_eq!(code(&mut c, &format!("SET gtid_next = '{OTHER}:1'")), 1781);
    c.query_drop("SET GLOBAL gtid_mode = OFF_PERMISSIVE").unwrap();
    c.query_drop("SET GLOBAL gtid_mode = ON_PERMISSIVE").unwrap();
    assert_eq!(code(&mut c, "SET GLOBAL gtid_mode = ON"), 1779);
    c.query_drop("SET GLOBAL enforce_gtid_consistency = ON").unwrap();
    c.query_drop("SET GLOBAL gtid_mode = ON").unwrap();
    assert_eq!(code(&mut c, "SET GLOBAL enforce_gtid_consistency = WARN"), 1779);
    assert_eq!(code(&mut c, "SET GLOBAL gtid_mode = OFF_PERMISSIVE"), 1788);
    assert_eq!(code(&mut c, "SET GLOBAL gtid_executed = ''"), 1238);
    c.query_drop("CREATE DATABASE d").unwrap();
    let uuid = one(&mut c, "SELECT @@server_uuid");
    assert_eq!(one(&mut c, "SELECT @@gtid_executed"), format!("{uuid}:1"));
    let st: mysql::Row = c.query_first("SHOW BINARY LOG STATUS").unwrap().unwrap();
    assert_eq!(st.get::<String, _>("Executed_Gtid_Set").unwrap(), format!("{uuid}:1"));
    c.query_drop("SET GLOBAL gtid_mode = ON_PERMISSIVE").unwrap();
    c.query_drop("SET GLOBAL gtid_mode = OFF_PERMISSIVE").unwrap();
    c.query_drop("SET GLOBAL gtid_mode = OFF").unwrap();
    // Off again: SHOW MASTER STATUS has MariaDB's four columns.
    let st: mysql::Row = c.query_first("SHOW MASTER STATUS").unwrap().unwrap();
    assert_eq!(st.len(), 4);

    let off = Quire::start(&[]);
    let mut c = off.connect(None);
    assert_eq!(code(&mut c, "SET GLOBAL gtid_mode = OFF_PERMISSIVE"), 1235);
    assert_eq!(one(&mut c, "SELECT @@gtid_executed"), "");
}

#[test]
fn gtid_subset_and_subtract() {
    let q = Quire::start(&[]);
    let mut c = q.connect(None);
    let a = OTHER;
    assert_eq!(one(&mut c, &format!("SELECT GTID_SUBSET('{a}:2-3', '{a}:1-5')")), "1");
    assert_eq!(one(&mut c, &format!("SELECT GTID_SUBSET('{a}:2-7', '{a}:1-5')")), "0");
    assert_eq!(one(&mut c, &format!("SELECT GTID_SUBSET('', '{a}:1')")), "1");
    assert_eq!(one(&mut c, &format!("SELECT GTID_SUBTRACT('{a}:1-10', '{a}:3-4:8')")), format!("{a}:1-2:5-7:9-10"));
    assert_eq!(one(&mut c, "SELECT GTID_SUBTRACT(NULL, '')"), "");
    assert_eq!(code(&mut c, "SELECT GTID_SUBSET('x', '')"), 1772);
}

/// SOURCE_AUTO_POSITION = 1 as MySQL 8.0 checks it: it needs GTIDs
/// (1777 with `gtid_mode` OFF), excludes a file and position (1776, also
/// when set by an earlier CHANGE), shows in SHOW REPLICA STATUS, and
/// keeps `gtid_mode` from going OFF until it is 0 again (3111).
#[test]
fn source_auto_position_needs_gtids_and_excludes_a_file_and_position() {
    let off = Quire::start(&[]);
    let mut c = off.connect(None);
    let change = "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=1, SOURCE_AUTO_POSITION=1";
    assert_eq!(code(&mut c, change), 1777);

    let q = Quire::start(&[("log_bin", "ON"), ("gtid_mode", "ON"), ("enforce_gtid_consistency", "ON")]);
    let mut c = q.connect(None);
    assert_eq!(code(&mut c, &format!("{change}, SOURCE_LOG_FILE='binlog.000001'")), 1776);
    assert_eq!(code(&mut c, "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_AUTO_POSITION=2"), 1210);
    c.query_drop(change).unwrap();
    let st: mysql::Row = c.query_first("SHOW REPLICA STATUS").unwrap().unwrap();
    assert_eq!(st.get::<u64, _>("Auto_Position"), Some(1));
    assert_eq!(code(&mut c, "CHANGE REPLICATION SOURCE TO SOURCE_LOG_POS=4"), 1776);
    c.query_drop("SET GLOBAL gtid_mode = ON_PERMISSIVE").unwrap();
    c.query_drop("SET GLOBAL gtid_mode = OFF_PERMISSIVE").unwrap();
    assert_eq!(code(&mut c, "SET GLOBAL gtid_mode = OFF"), 3111);
    c.query_drop("CHANGE MASTER TO MASTER_AUTO_POSITION=0").unwrap();
    let st: mysql::Row = c.query_first("SHOW SLAVE STATUS").unwrap().unwrap();
    assert_eq!(st.get::<u64, _>("Auto_Position"), Some(0));
    c.query_drop("SET GLOBAL gtid_mode = OFF").unwrap();
}
