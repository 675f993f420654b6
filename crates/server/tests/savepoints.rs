//! SAVEPOINT / ROLLBACK TO SAVEPOINT / RELEASE SAVEPOINT, statement by
//! statement against the MariaDB the harness starts: what a rollback to a
//! savepoint keeps and undoes (inserts, updates, deletes, through a
//! secondary index too), names replaced and dropped, 1305 for unknown
//! names, savepoints outside a transaction, under autocommit=0, and after
//! COMMIT / ROLLBACK / an implicit commit. Then, on quire alone, that the
//! row locks taken after a savepoint stay held after rolling back to it
//! (InnoDB's rule, which MariaDB shares: a second session still waits).

mod oracle;

use mysql::prelude::Queryable;
use oracle::{answer, assert_same_diagnostics, Answer, MariaDb, Quire};

#[test]
fn savepoints_keep_and_undo_what_mariadb_does() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("sp_basic");
    let mut mc = MariaDb::get().fresh_db("sp_basic");
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (a INT PRIMARY KEY, b INT, KEY kb (b))",
            "INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)",
            // Outside a transaction: accepted, gone at once.
            "SAVEPOINT x",
            "ROLLBACK TO SAVEPOINT x",
            "RELEASE SAVEPOINT x",
            "BEGIN",
            "INSERT INTO t VALUES (4, 40)",
            "SAVEPOINT a",
            "INSERT INTO t VALUES (5, 50)",
            "UPDATE t SET b = b + 1 WHERE a <= 2",
            "DELETE FROM t WHERE a = 3",
            "SAVEPOINT b",
            "UPDATE t SET a = 60 WHERE a = 5",
            "SELECT * FROM t ORDER BY a",
            "ROLLBACK TO SAVEPOINT b",
            "SELECT * FROM t ORDER BY a",
            "SELECT a FROM t WHERE b > 0 ORDER BY b",
            "ROLLBACK WORK TO a",
            "SELECT * FROM t ORDER BY a",
            "SELECT a FROM t WHERE b > 0 ORDER BY b",
            // b was set after a: gone; a itself stays.
            "ROLLBACK TO b",
            "ROLLBACK TO a",
            "INSERT INTO t VALUES (7, 70)",
            "COMMIT",
            "SELECT * FROM t ORDER BY a",
            "ROLLBACK TO a",
        ],
    );
}

#[test]
fn savepoint_names_replace_release_and_vanish_as_in_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("sp_names");
    let mut mc = MariaDb::get().fresh_db("sp_names");
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (a INT PRIMARY KEY)",
            "START TRANSACTION",
            "SAVEPOINT a",
            "INSERT INTO t VALUES (1)",
            "SAVEPOINT b",
            "INSERT INTO t VALUES (2)",
            // Set again: moves after b, at the new point.
            "SAVEPOINT A",
            "INSERT INTO t VALUES (3)",
            "ROLLBACK TO SAVEPOINT b",
            "SELECT * FROM t ORDER BY a",
            "ROLLBACK TO SAVEPOINT a",
            "SAVEPOINT c",
            "SAVEPOINT d",
            // Releasing c drops d too.
            "RELEASE SAVEPOINT c",
            "ROLLBACK TO d",
            "RELEASE SAVEPOINT c",
            "RELEASE SAVEPOINT b",
            "ROLLBACK TO b",
            "SELECT * FROM t ORDER BY a",
            "ROLLBACK",
            "SELECT * FROM t ORDER BY a",
            "ROLLBACK TO b",
            // autocommit=0: a savepoint before the first statement is the
            // transaction's start.
            "SET autocommit = 0",
            "SAVEPOINT s",
            "INSERT INTO t VALUES (10)",
            "ROLLBACK TO SAVEPOINT s",
            "SELECT * FROM t ORDER BY a",
            "INSERT INTO t VALUES (11)",
            "SAVEPOINT s2",
            "INSERT INTO t VALUES (12)",
            // DDL commits: the savepoints go with the transaction.
            "CREATE TABLE u (a INT PRIMARY KEY)",
            "ROLLBACK TO s2",
            "ROLLBACK",
            "SELECT * FROM t ORDER BY a",
            "SET autocommit = 1",
            // A failed statement inside keeps the savepoints.
            "BEGIN",
            "SAVEPOINT f",
            "INSERT INTO t VALUES (20)",
            "INSERT INTO t VALUES (21), (11)",
            "ROLLBACK TO f",
            "SELECT * FROM t ORDER BY a",
            "COMMIT",
        ],
    );
}

#[test]
fn rollback_to_savepoint_keeps_the_row_locks_taken_after_it() {
    let q = Quire::start(&[("innodb_lock_wait_timeout", "1")]);
    let mut a = q.fresh_db("sp_locks");
    a.query_drop("CREATE TABLE t (a INT PRIMARY KEY, b INT)").unwrap();
    a.query_drop("INSERT INTO t VALUES (1, 1), (2, 2)").unwrap();
    a.query_drop("BEGIN").unwrap();
    a.query_drop("SAVEPOINT s").unwrap();
    a.query_drop("UPDATE t SET b = 5 WHERE a = 2").unwrap();
    a.query_drop("ROLLBACK TO SAVEPOINT s").unwrap();
    let mut b = q.connect(Some("sp_locks"));
    assert_eq!(answer(&mut b, "UPDATE t SET b = 6 WHERE a = 2"), Answer::Err(1205));
    // Row 1 was never locked by a.
    assert!(matches!(answer(&mut b, "UPDATE t SET b = 7 WHERE a = 1"), Answer::Ok { affected: 1, .. }));
    a.query_drop("COMMIT").unwrap();
    assert!(matches!(answer(&mut b, "UPDATE t SET b = 6 WHERE a = 2"), Answer::Ok { affected: 1, .. }));
    let rows: Vec<(i32, i32)> = b.query("SELECT a, b FROM t ORDER BY a").unwrap();
    assert_eq!(rows, vec![(1, 7), (2, 6)]);
}
