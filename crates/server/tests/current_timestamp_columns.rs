//! `DEFAULT CURRENT_TIMESTAMP` and `ON UPDATE CURRENT_TIMESTAMP` beside
//! MariaDB: how SHOW CREATE TABLE and SHOW COLUMNS print them, an INSERT
//! that leaves such a column out gets the statement's time (at the
//! column's fractional digits), an UPDATE or ON DUPLICATE KEY UPDATE that
//! changes the row stamps it unless it sets the column itself, one that
//! changes nothing leaves it, and the definitions MariaDB refuses. The
//! times are compared with NOW(), so both servers answer the same.
//! Also (quire only): a restart keeps the definitions.

mod oracle;

use mysql::prelude::Queryable;
use oracle::{same_on_both, Quire};

const TABLE: &str = "CREATE TABLE t (a VARCHAR(5) PRIMARY KEY, b VARCHAR(5), \
     ts TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, \
     dt DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3), \
     d2 DATETIME DEFAULT NOW() ON UPDATE NOW(), \
     u TIMESTAMP(2) NULL ON UPDATE CURRENT_TIMESTAMP(2), \
     k DATETIME DEFAULT '2000-01-01 00:00:00')";

#[test]
fn current_timestamp_defaults_and_on_update_answer_as_mariadb_does() {
    same_on_both(
        "cts",
        &[
            TABLE,
            "SHOW CREATE TABLE t",
            "SHOW COLUMNS FROM t",
            "INSERT INTO t (a, b) VALUES ('1', '10'), ('2', '20')",
            "SELECT a, TIMESTAMPDIFF(SECOND, ts, NOW()) BETWEEN 0 AND 30, TIMESTAMPDIFF(SECOND, dt, NOW()) BETWEEN 0 AND 30, MICROSECOND(dt) % 1000, TIMESTAMPDIFF(SECOND, d2, NOW()) BETWEEN 0 AND 30, u IS NULL, k FROM t ORDER BY a",
            "UPDATE t SET ts = '2001-01-01 00:00:00', d2 = '2001-01-01 00:00:00'",
            "UPDATE t SET b = b WHERE a = '1'",
            "SELECT a, ts, d2, TIMESTAMPDIFF(SECOND, u, NOW()) BETWEEN 0 AND 30 FROM t ORDER BY a",
            "UPDATE t SET b = '11' WHERE a = '1'",
            "SELECT a, ts > '2001-01-01', d2 > '2001-01-01', TIMESTAMPDIFF(SECOND, u, NOW()) BETWEEN 0 AND 30, MICROSECOND(u) % 10000 FROM t ORDER BY a",
            "UPDATE t SET b = '21', ts = '2002-02-02 00:00:00' WHERE a = '2'",
            "SELECT a, ts, d2 > '2001-01-01', u IS NULL FROM t WHERE a = '2'",
            "UPDATE t SET d2 = '2001-01-01 00:00:00' WHERE a = '2'",
            "INSERT INTO t (a, b) VALUES ('2', '21') ON DUPLICATE KEY UPDATE b = VALUES(b)",
            "SELECT a, ts, d2 FROM t WHERE a = '2'",
            "INSERT INTO t (a, b) VALUES ('2', '22') ON DUPLICATE KEY UPDATE b = VALUES(b)",
            "SELECT a, ts > '2002-02-02', d2 > '2001-01-01' FROM t WHERE a = '2'",
            "UPDATE t SET b = (SELECT '30') WHERE a = '2'",
            "SELECT a, b, TIMESTAMPDIFF(SECOND, d2, NOW()) BETWEEN 0 AND 30 FROM t WHERE a = '2'",
            "CREATE TABLE e2 (a INT ON UPDATE CURRENT_TIMESTAMP)",
            "CREATE TABLE e3 (a VARCHAR(10) ON UPDATE NOW())",
            "CREATE TABLE e5 (a DATETIME(2) ON UPDATE CURRENT_TIMESTAMP)",
            "SHOW CREATE TABLE e5",
        ],
    );
}

/// MySQL 8.0 refuses CURRENT_TIMESTAMP as the default of a column that is
/// no DATETIME or TIMESTAMP (1067); MariaDB takes any expression as a
/// default, which quire does not have: quire answers as MySQL. The flags
/// survive a restart.
#[test]
fn current_timestamp_on_other_types_is_refused_and_definitions_survive_a_restart() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("cts2");
    for sql in ["CREATE TABLE e1 (a INT DEFAULT CURRENT_TIMESTAMP)", "CREATE TABLE e6 (a DATE DEFAULT NOW())"] {
        let e = c.query_drop(sql).unwrap_err();
        assert_eq!(oracle::err_code(&e), 1067, "{sql}");
    }
    c.query_drop(TABLE).unwrap();
    let before: Vec<(String, String)> = c.query("SHOW CREATE TABLE t").unwrap();
    drop(c);
    let q = q.restart();
    let mut c = q.connect(Some("cts2"));
    let after: Vec<(String, String)> = c.query("SHOW CREATE TABLE t").unwrap();
    assert_eq!(before, after);
    assert!(after[0].1.contains("ON UPDATE current_timestamp(2)"), "{}", after[0].1);
}
