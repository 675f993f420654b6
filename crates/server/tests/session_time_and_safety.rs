//! Session settings that change what statements answer, compared with
//! MariaDB: `SET TIMESTAMP` fixes NOW() and its kin (not SYSDATE()), one
//! instant answers a whole statement, NOW(fsp) keeps its fractional
//! digits; `sql_select_limit` caps top-level SELECTs (and SHOW) without a
//! LIMIT of their own, not subqueries, derived tables or CREATE ... SELECT;
//! `sql_safe_updates` refuses UPDATE / DELETE that find their rows
//! without a key and have no LIMIT (1175).

mod oracle;

use mysql::prelude::Queryable;
use oracle::{answer, assert_same, Answer, MariaDb, Quire};

#[test]
fn set_timestamp_fixes_the_statements_time_as_mariadb_does() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db("stamp"), m.fresh_db("stamp"));
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "SET time_zone = '+00:00'",
            "SET TIMESTAMP = 1000000000",
            "SELECT NOW(), CURRENT_TIMESTAMP(), NOW(3), UNIX_TIMESTAMP(), CURDATE(), CURTIME(), UTC_TIMESTAMP(), @@timestamp",
            "SET TIMESTAMP = 1000000000.123456",
            "SELECT NOW(6), NOW(2), CURRENT_TIMESTAMP(6), LOCALTIME(4), UTC_TIMESTAMP(6), UNIX_TIMESTAMP()",
            "CREATE TABLE t (id INT PRIMARY KEY, at DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6), ts TIMESTAMP NULL DEFAULT CURRENT_TIMESTAMP)",
            "INSERT INTO t (id) VALUES (1), (2)",
            "SELECT id, at, ts FROM t ORDER BY id",
            "SET time_zone = '+05:30'",
            "SELECT NOW(), CURDATE(), ts FROM t ORDER BY id",
            "SELECT NOW(7)",
            "SET TIMESTAMP = DEFAULT",
            "SELECT NOW() > '2020-01-01', SYSDATE() > '2020-01-01', @@timestamp > 1600000000",
        ],
    );
    // SYSDATE() is the clock's time even under SET TIMESTAMP.
    qc.query_drop("SET TIMESTAMP = 1000000000").unwrap();
    let later: i64 = qc.query_first("SELECT SYSDATE() > '2020-01-01'").unwrap().unwrap();
    assert_eq!(later, 1);
    // Without SET TIMESTAMP, one instant answers the whole statement.
    qc.query_drop("SET TIMESTAMP = DEFAULT").unwrap();
    let same: (i64, i64) =
        qc.query_first("SELECT NOW(6) = NOW(6), NOW(6) = (SELECT NOW(6) WHERE SLEEP(0.05) = 0)").unwrap().unwrap();
    assert_eq!(same, (1, 1));
}

#[test]
fn sql_select_limit_caps_top_level_results_as_mariadb_does() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db("cap"), m.fresh_db("cap"));
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, v INT)",
            "INSERT INTO t VALUES (1, 10), (2, 20), (3, 30), (4, 40)",
            "SET sql_select_limit = 2",
            "SELECT * FROM t ORDER BY id",
            "SELECT * FROM t ORDER BY id LIMIT 3",
            "SELECT * FROM t ORDER BY id LIMIT 1",
            "SELECT * FROM t WHERE id IN (SELECT id FROM t WHERE v > 10) ORDER BY id",
            "SELECT COUNT(*) FROM (SELECT * FROM t) d",
            "SELECT 1 UNION SELECT 2 UNION SELECT 3",
            "(SELECT 1) UNION (SELECT 2) UNION (SELECT 3) LIMIT 3",
            "SELECT id FROM t ORDER BY id DESC",
            "SELECT SQL_CALC_FOUND_ROWS id FROM t ORDER BY id",
            "SELECT FOUND_ROWS()",
            "CREATE TABLE c AS SELECT * FROM t",
            "SELECT COUNT(*) FROM c",
            "INSERT INTO c SELECT id + 10, v FROM t",
            "SELECT COUNT(*) FROM c",
            "SELECT a.id, b.id FROM t a JOIN t b ON a.id = b.id ORDER BY a.id",
            "SET sql_select_limit = 0",
            "SELECT * FROM t",
            "SET sql_select_limit = DEFAULT",
            "SELECT COUNT(*) FROM (SELECT * FROM t) d",
            "SELECT @@sql_select_limit",
        ],
    );
    // Prepared statements are capped too, by the value at execution.
    qc.query_drop("SET sql_select_limit = 1").unwrap();
    let st = qc.prep("SELECT id FROM t WHERE id > ? ORDER BY id").unwrap();
    let ids: Vec<i64> = qc.exec(&st, (0,)).unwrap();
    assert_eq!(ids, [1]);
    qc.query_drop("SET sql_select_limit = 3").unwrap();
    let ids: Vec<i64> = qc.exec(&st, (0,)).unwrap();
    assert_eq!(ids, [1, 2, 3]);
}

#[test]
fn sql_safe_updates_refuses_keyless_unlimited_writes_as_mariadb_does() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db("safe"), m.fresh_db("safe"));
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, k INT, v INT, KEY (k))",
            "INSERT INTO t VALUES (1, 1, 10), (2, 2, 20), (3, 3, 30)",
            "CREATE TABLE u (id INT PRIMARY KEY)",
            "INSERT INTO u VALUES (1), (2)",
            "SET sql_safe_updates = 1",
            "UPDATE t SET v = 0",
            "DELETE FROM t",
            "UPDATE t SET v = 0 WHERE v = 10",
            "DELETE FROM t WHERE v > 25",
            "UPDATE t SET v = 11 WHERE id = 1",
            "UPDATE t SET v = 21 WHERE k = 2",
            "UPDATE t SET v = v + 1 WHERE id > 1",
            "UPDATE t SET v = 99 LIMIT 1",
            "UPDATE t SET v = 0 WHERE v = 30 LIMIT 5",
            "DELETE FROM t WHERE id IN (3)",
            "UPDATE t JOIN u ON t.id = u.id SET t.v = 5",
            "DELETE t FROM t JOIN u ON t.id = u.id",
            "SELECT * FROM t ORDER BY id",
            "SET sql_safe_updates = 0",
            "UPDATE t SET v = 1",
            "SELECT * FROM t ORDER BY id",
        ],
    );
    qc.query_drop("SET sql_safe_updates = 1").unwrap();
    assert_eq!(answer(&mut qc, "DELETE FROM u"), Answer::Err(1175));
}
