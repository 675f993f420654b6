//! Instant ADD COLUMN (`sql/alter/instant.rs`, `engine/row/instant.rs`):
//! rows written before the ADD read the new columns' defaults as they
//! were at the ADD, through SELECT, UPDATE, DELETE, rollback, a new index
//! and a later copy, answering as the MariaDB the harness starts answers
//! (MariaDB adds such columns instantly too); ALGORITHM=INSTANT refused
//! with MySQL's 1845 where quire would copy; and the ADD on a larger table
//! writes almost no redo (no row rewritten), where a copy writes
//! megabytes.

mod oracle;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{answer, assert_same_diagnostics, Answer, MariaDb, Quire};

const ALL: &str = "SELECT * FROM t ORDER BY id";

#[test]
fn rows_written_before_an_instant_add_read_its_defaults_as_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("instant_add");
    let mut mc = MariaDb::get().fresh_db("instant_add");
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10) NOT NULL, KEY ka (a))",
            "INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, 'z')",
            // With a default, without one (NULL), NOT NULL without one
            // (the implicit default), several in one statement, AFTER the
            // last column, each algorithm spelling that allows instant.
            "ALTER TABLE t ADD COLUMN b INT DEFAULT 7",
            ALL,
            "ALTER TABLE t ADD COLUMN c VARCHAR(5) NOT NULL, ADD COLUMN d DATE NULL, ALGORITHM=INSTANT",
            "ALTER TABLE t ADD COLUMN e DECIMAL(5,2) NOT NULL DEFAULT 1.5 AFTER d, ALGORITHM=DEFAULT",
            ALL,
            "SELECT id, b + 1, CONCAT(c, '|'), e * 2 FROM t WHERE b = 7 AND e > 1 ORDER BY id DESC",
            // Rows written after carry every field.
            "INSERT INTO t (id, a, c) VALUES (4, 'w', 'cc')",
            "INSERT INTO t VALUES (5, 'v', NULL, 'n', '2020-01-02', 9.25)",
            // An update of an old row writes it whole; of a new one too.
            "UPDATE t SET b = b + 1 WHERE id = 1",
            "UPDATE t SET c = 'new' WHERE id = 4",
            "UPDATE t SET a = 'yy' WHERE id = 2",
            ALL,
            // A rolled-back update puts the old row back as it was.
            "BEGIN",
            "UPDATE t SET b = 50, e = 0 WHERE id = 3",
            "ROLLBACK",
            ALL,
            // A new DEFAULT leaves the instant default of old rows alone.
            "ALTER TABLE t ALTER COLUMN b SET DEFAULT 100",
            "ALTER TABLE t ALTER COLUMN e DROP DEFAULT",
            "INSERT INTO t (id, a, c, e) VALUES (6, 'u', 'c6', 3)",
            ALL,
            "ALTER TABLE t ADD COLUMN f INT NOT NULL, ADD COLUMN g ENUM('p', 'q') DEFAULT 'q'",
            ALL,
            "DELETE FROM t WHERE id = 2",
            "SELECT COUNT(*), SUM(b), SUM(f), SUM(e) FROM t",
            // An index on a new column is built from the old rows' defaults.
            "ALTER TABLE t ADD INDEX kb (b)",
            "SELECT id, b FROM t FORCE INDEX (kb) WHERE b >= 7 ORDER BY b, id",
            "SELECT id FROM t FORCE INDEX (ka) WHERE a > 'v' ORDER BY a",
            // A copy rewrites every row; the values stay.
            "ALTER TABLE t DROP COLUMN c",
            ALL,
            "ALTER TABLE t ADD COLUMN h VARCHAR(3) DEFAULT 'abc', ALGORITHM=COPY",
            ALL,
            "ALTER TABLE t ADD COLUMN i INT DEFAULT 1",
            "TRUNCATE TABLE t",
            "INSERT INTO t (id, a, e, f) VALUES (1, 'again', 2, 3)",
            ALL,
            // AUTO_INCREMENT and UNIQUE columns need a key: a copy.
            "CREATE TABLE n (x INT PRIMARY KEY)",
            "INSERT INTO n VALUES (10), (20)",
            "ALTER TABLE n ADD COLUMN u INT UNIQUE",
            "ALTER TABLE n ADD COLUMN v INT DEFAULT 4",
            "SELECT * FROM n ORDER BY x",
            // A table without a primary key (hidden row id) copies.
            "CREATE TABLE k (a INT)",
            "INSERT INTO k VALUES (1), (2)",
            "ALTER TABLE k ADD COLUMN b CHAR(2) DEFAULT 'kk'",
            "SELECT * FROM k ORDER BY a",
        ],
    );
}

#[test]
fn instant_columns_survive_a_restart_with_their_defaults() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("instant_restart");
    for sql in [
        "CREATE TABLE t (id INT PRIMARY KEY, a INT)",
        "INSERT INTO t VALUES (1, 1), (2, 2)",
        "ALTER TABLE t ADD COLUMN b VARCHAR(8) DEFAULT 'old'",
        "ALTER TABLE t ALTER COLUMN b SET DEFAULT 'new'",
        "INSERT INTO t (id, a) VALUES (3, 3)",
    ] {
        c.query_drop(sql).unwrap();
    }
    drop(c);
    let q = q.restart();
    let mut c = q.connect(Some("instant_restart"));
    let rows: Vec<(i32, i32, String)> = c.query("SELECT id, a, b FROM t ORDER BY id").unwrap();
    assert_eq!(rows, [(1, 1, "old".into()), (2, 2, "old".into()), (3, 3, "new".into())]);
    let checked: Vec<(String, String, String, String)> = c.query("CHECK TABLE t").unwrap();
    assert_eq!(checked.last().unwrap().3, "OK");
}

/// The error code of `sql`, which must fail.
fn code(c: &mut Conn, sql: &str) -> u16 {
    match answer(c, sql) {
        Answer::Err(code) => code,
        other => panic!("{sql}: expected an error, got {other:?}"),
    }
}

#[test]
fn algorithm_instant_is_refused_with_1845_where_quire_would_copy() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("instant_refused");
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, a INT)").unwrap();
    c.query_drop("CREATE TABLE k (a INT)").unwrap();
    c.query_drop("INSERT INTO t VALUES (1, 1)").unwrap();
    for sql in [
        // Not at the end (MySQL 8.0.29 and MariaDB do these instantly).
        "ALTER TABLE t ADD COLUMN b INT FIRST, ALGORITHM=INSTANT",
        "ALTER TABLE t ADD COLUMN b INT AFTER id, ALGORITHM=INSTANT",
        "ALTER TABLE t DROP COLUMN a, ALGORITHM=INSTANT",
        // A key, a generated STORED column, a type change.
        "ALTER TABLE t ADD COLUMN b INT UNIQUE, ALGORITHM=INSTANT",
        "ALTER TABLE t ADD COLUMN b INT AS (a + 1) STORED, ALGORITHM=INSTANT",
        "ALTER TABLE t MODIFY a BIGINT, ALGORITHM=INSTANT",
        "ALTER TABLE t ADD COLUMN b INT, ADD INDEX kb (b), ALGORITHM=INSTANT",
        // DEFAULT CURRENT_TIMESTAMP, and a table clustered on a row id.
        "ALTER TABLE t ADD COLUMN b DATETIME DEFAULT CURRENT_TIMESTAMP, ALGORITHM=INSTANT",
        "ALTER TABLE k ADD COLUMN b INT, ALGORITHM=INSTANT",
    ] {
        assert_eq!(code(&mut c, sql), 1845, "{sql}");
    }
    let rows: Vec<(i32, i32)> = c.query("SELECT * FROM t").unwrap();
    assert_eq!(rows, [(1, 1)], "nothing changed");
    // ALGORITHM=DEFAULT copies what cannot be instant.
    c.query_drop("ALTER TABLE t ADD COLUMN b INT FIRST, ALGORITHM=DEFAULT").unwrap();
    c.query_drop("ALTER TABLE k ADD COLUMN b INT DEFAULT 2").unwrap();
    let rows: Vec<(Option<i32>, i32, i32)> = c.query("SELECT * FROM t").unwrap();
    assert_eq!(rows, [(None, 1, 1)]);
}

/// The redo the server has written so far (`Innodb_lsn_current`).
fn lsn(c: &mut Conn) -> u64 {
    let (_, v): (String, u64) = c.query_first("SHOW GLOBAL STATUS LIKE 'Innodb_lsn_current'").unwrap().unwrap();
    v
}

#[test]
fn an_instant_add_on_a_larger_table_rewrites_no_row() {
    const ROWS: usize = 50_000;
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("instant_big");
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, a INT, pad CHAR(40), KEY ka (a))").unwrap();
    for chunk in (1..=ROWS).collect::<Vec<_>>().chunks(2_000) {
        let values: Vec<String> = chunk.iter().map(|i| format!("({i}, {}, 'padding')", i % 100)).collect();
        c.query_drop(format!("INSERT INTO t VALUES {}", values.join(","))).unwrap();
    }
    let before = lsn(&mut c);
    c.query_drop(
        "ALTER TABLE t ADD COLUMN b INT NOT NULL DEFAULT 5, ADD COLUMN s VARCHAR(9) DEFAULT 'i', ALGORITHM=INSTANT",
    )
    .unwrap();
    let instant = lsn(&mut c) - before;
    let (n, sum, s): (usize, u64, String) = c.query_first("SELECT COUNT(*), SUM(b), MIN(s) FROM t").unwrap().unwrap();
    assert_eq!((n, sum, s.as_str()), (ROWS, 5 * ROWS as u64, "i"));
    // The catalog write alone: a few KiB of redo at most.
    assert!(instant < 16 * 1024, "the instant ADD wrote {instant} bytes of redo");
    // The same change by copy rewrites every row: megabytes of redo.
    let before = lsn(&mut c);
    c.query_drop("ALTER TABLE t ADD COLUMN b2 INT NOT NULL DEFAULT 5, ALGORITHM=COPY").unwrap();
    let copied = lsn(&mut c) - before;
    assert!(copied > 1024 * 1024, "the copy wrote only {copied} bytes of redo");
}
