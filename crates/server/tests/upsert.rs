//! INSERT IGNORE, REPLACE, INSERT ... ON DUPLICATE KEY UPDATE and
//! INSERT ... SELECT, statement by statement against the MariaDB the
//! harness starts: results, affected rows, info strings, warning counts
//! and SHOW WARNINGS, LAST_INSERT_ID and AUTO_INCREMENT consumption; for
//! duplicates on the primary key, on a secondary unique key, on both at
//! once, NULLs in unique keys, keyless tables, prepared statements and
//! statement atomicity. Then what MariaDB 10.11 cannot be asked (MySQL
//! 8.0's row alias), and the source of INSERT ... SELECT read as a locking
//! read.

mod oracle;

use std::time::Duration;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{answer, assert_same, assert_same_diagnostics, row_cells, Answer, MariaDb, Quire};

fn both(db: &str) -> (Quire, Conn, Conn) {
    let q = Quire::start(&[]);
    let qc = q.fresh_db(db);
    let mc = MariaDb::get().fresh_db(db);
    (q, qc, mc)
}

#[test]
fn insert_ignore_matches_mariadb() {
    let (_q, mut qc, mut mc) = both("up_ignore");
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, u INT, v VARCHAR(3), UNIQUE KEY uu (u))",
            "INSERT INTO t (u, v) VALUES (1, 'a'), (2, 'b')",
            // A duplicate on the secondary key is skipped; its id is
            // given back to the next row.
            "INSERT IGNORE INTO t (u, v) VALUES (1, 'c'), (3, 'd')",
            "SELECT LAST_INSERT_ID()",
            "INSERT INTO t (u, v) VALUES (4, 'e')",
            "SELECT * FROM t ORDER BY id",
            // Only duplicates: nothing inserted, LAST_INSERT_ID unchanged.
            "INSERT IGNORE INTO t (u, v) VALUES (1, 'x')",
            "SELECT LAST_INSERT_ID()",
            // Strict-mode errors become warnings: too long, out of range,
            // NULL into NOT NULL; a primary-key duplicate.
            "INSERT IGNORE INTO t (u, v) VALUES (500, 'toolong')",
            "INSERT IGNORE INTO t (id, u, v) VALUES (1, 501, 'a'), (2, NULL, NULL), (30, 99999999999, 'b')",
            "SELECT * FROM t ORDER BY id",
            "CREATE TABLE n (a INT NOT NULL, b INT UNIQUE)",
            "INSERT IGNORE INTO n VALUES (NULL, 1)",
            "INSERT INTO n VALUES (NULL, 1)",
            // NULLs in a unique key never conflict.
            "INSERT INTO n VALUES (2, NULL), (3, NULL)",
            "INSERT IGNORE INTO n VALUES (4, NULL), (5, 1)",
            "SELECT * FROM n ORDER BY a",
            // Without IGNORE a duplicate fails the statement, whole.
            "INSERT INTO t (u, v) VALUES (70, 'p'), (1, 'q')",
            "SELECT COUNT(*) FROM t WHERE u = 70",
        ],
    );
}

#[test]
fn replace_matches_mariadb() {
    let (_q, mut qc, mut mc) = both("up_replace");
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, u INT, v VARCHAR(3), UNIQUE KEY uu (u))",
            "INSERT INTO t (u, v) VALUES (1, 'a'), (2, 'b'), (3, 'c')",
            // Conflicts on the primary key and on uu with two rows: both go.
            "REPLACE INTO t (id, u, v) VALUES (1, 2, 'r')",
            "SELECT * FROM t ORDER BY id",
            // The replacing row keeps the id it generated.
            "REPLACE INTO t (u, v) VALUES (3, 'x'), (9, 'y')",
            "SELECT LAST_INSERT_ID()",
            "SELECT * FROM t ORDER BY id",
            "REPLACE INTO t VALUES (1, 2, 'r')",
            "REPLACE t SET id = 1, u = 2, v = 's'",
            "CREATE TABLE m (id INT PRIMARY KEY, a INT UNIQUE, b INT UNIQUE, c VARCHAR(5))",
            "INSERT INTO m VALUES (1, 1, 1, 'x'), (2, 2, 2, 'y'), (3, 3, 3, 'z')",
            "REPLACE INTO m VALUES (4, 1, 2, 'w')",
            "REPLACE INTO m VALUES (3, 3, NULL, 'n'), (5, NULL, NULL, 'o')",
            "SELECT * FROM m ORDER BY id",
            // REPLACE ... SELECT, from the table itself.
            "REPLACE INTO m SELECT id, a, b, 'sel' FROM m WHERE id < 4",
            "SELECT * FROM m ORDER BY id",
            // A keyless table never conflicts.
            "CREATE TABLE k (a INT, b INT)",
            "INSERT INTO k VALUES (1, 1)",
            "REPLACE INTO k VALUES (1, 1)",
            "REPLACE INTO k SELECT * FROM k",
            "SELECT COUNT(*) FROM k",
        ],
    );
}

#[test]
fn on_duplicate_key_update_matches_mariadb() {
    let (_q, mut qc, mut mc) = both("up_odku");
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, u INT, v VARCHAR(3), UNIQUE KEY uu (u))",
            "INSERT INTO t (u, v) VALUES (1, 'a'), (4, 'e')",
            // 2 per changed row, 0 per unchanged one, 1 per insert.
            "INSERT INTO t (u, v) VALUES (4, 'z'), (10, 'w') ON DUPLICATE KEY UPDATE v = VALUES(v)",
            "SELECT LAST_INSERT_ID()",
            "INSERT INTO t (u, v) VALUES (4, 'z') ON DUPLICATE KEY UPDATE v = VALUES(v)",
            "INSERT INTO t (u, v) VALUES (4, 'q') ON DUPLICATE KEY UPDATE v = 'q'",
            "SELECT LAST_INSERT_ID()",
            "INSERT INTO t (u, v) VALUES (50, 'a')",
            "SELECT * FROM t ORDER BY id",
            // SET sees the row as updated so far; the old row's columns by
            // name, qualified or not.
            "INSERT INTO t VALUES (1, 7, 'n') ON DUPLICATE KEY UPDATE u = t.u + 100, v = CONCAT(u, '')",
            "SELECT * FROM t ORDER BY id",
            "CREATE TABLE m (id INT PRIMARY KEY, a INT UNIQUE, b INT UNIQUE, c VARCHAR(5))",
            "INSERT INTO m VALUES (1, 1, 1, 'x'), (2, 2, 2, 'y'), (3, 3, 3, 'z')",
            // The row found through whichever unique key conflicted.
            "INSERT INTO m VALUES (5, 3, 4, 'q') ON DUPLICATE KEY UPDATE c = 'upd'",
            "INSERT INTO m VALUES (6, 6, 6, 'a'), (6, 7, 7, 'b'), (8, 8, 8, 'c') ON DUPLICATE KEY UPDATE a = a + 100",
            "SELECT * FROM m ORDER BY id",
            // The update itself meets a duplicate: an error, or with
            // IGNORE a warning.
            "INSERT INTO m VALUES (9, 1, 9, 'd') ON DUPLICATE KEY UPDATE b = 2",
            "INSERT IGNORE INTO m VALUES (9, 1, 9, 'd') ON DUPLICATE KEY UPDATE b = 2",
            // Conversions in the update: strict errors, IGNORE warnings.
            "INSERT INTO m VALUES (10, 10, 10, 'e') ON DUPLICATE KEY UPDATE c = NULL",
            "INSERT INTO m VALUES (10, 10, 10, 'e'), (11, 11, 11, 'f') ON DUPLICATE KEY UPDATE c = 'toolongvalue'",
            "INSERT IGNORE INTO m VALUES (10, 10, 10, 'e') ON DUPLICATE KEY UPDATE c = 'toolongvalue'",
            "SELECT * FROM m ORDER BY id",
            // NULL in a unique key: inserted, never a duplicate.
            "INSERT INTO m VALUES (12, NULL, NULL, 'n') ON DUPLICATE KEY UPDATE c = 'dup'",
            "INSERT INTO m VALUES (13, NULL, NULL, 'n') ON DUPLICATE KEY UPDATE c = 'dup'",
            "SELECT * FROM m WHERE a IS NULL ORDER BY id",
            "CREATE TABLE k (a INT, b INT)",
            "INSERT INTO k VALUES (1, 1) ON DUPLICATE KEY UPDATE b = 5",
            "INSERT INTO k (a) VALUES (1), (2) ON DUPLICATE KEY UPDATE b = 3",
            "SELECT * FROM k ORDER BY a, b",
        ],
    );
}

#[test]
fn insert_select_matches_mariadb() {
    let (_q, mut qc, mut mc) = both("up_select");
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, u INT, v VARCHAR(3), UNIQUE KEY uu (u))",
            "INSERT INTO t (u, v) VALUES (1, 'a'), (2, 'b'), (3, 'c')",
            // From the table itself: the source is read whole first.
            "INSERT INTO t (u, v) SELECT u + 100, v FROM t",
            "SELECT * FROM t ORDER BY id",
            "INSERT INTO t (u, v) SELECT u + 200, v FROM t ORDER BY u LIMIT 1",
            "SELECT LAST_INSERT_ID()",
            "INSERT INTO t (u, v) VALUES (999, 'z')",
            "SELECT * FROM t ORDER BY id",
            "INSERT INTO t SELECT * FROM t ON DUPLICATE KEY UPDATE v = 's'",
            "INSERT IGNORE INTO t (u, v) SELECT u, 'toolong' FROM t WHERE u < 3",
            "INSERT IGNORE INTO t (u, v) SELECT u + 1000, 'toolong' FROM t WHERE u < 3",
            "INSERT INTO t (u, v) SELECT u + 2000, 'toolong' FROM t WHERE u < 3",
            "INSERT INTO t (u, v) SELECT 1, 'x' FROM t",
            "SELECT * FROM t ORDER BY id",
            // Joins, grouping, set operations as the source; conversions.
            "CREATE TABLE s (a VARCHAR(10), b DECIMAL(5, 2))",
            // (MariaDB numbers the rows of a join source oddly in its
            // warnings; the join's values here convert cleanly.)
            "INSERT INTO s SELECT CONCAT('k', t.u), t.u * 2 FROM t JOIN t AS t2 ON t2.id = t.id WHERE t.u < 5",
            "INSERT INTO s SELECT 'third', u / 3 FROM t WHERE u < 5 ORDER BY u",
            "INSERT INTO s (SELECT 'x', 1.005) UNION (SELECT 'y', 2)",
            "INSERT INTO s SELECT v, COUNT(*) FROM t GROUP BY v",
            "INSERT INTO s (a) SELECT u FROM t WHERE u > 100000",
            "SELECT * FROM s ORDER BY a, b",
            "INSERT INTO s SELECT 1 FROM t",
            "INSERT INTO s (a, b) SELECT 'toolongvalue', 1",
            "CREATE TABLE k (a INT, b INT)",
            "INSERT INTO k VALUES (1, 1), (1, 1)",
            "INSERT INTO k SELECT * FROM k",
            "INSERT INTO k SELECT a + 1, b FROM k WHERE a = 1",
            "SELECT a, b, COUNT(*) FROM k GROUP BY a, b ORDER BY a",
        ],
    );
}

#[test]
fn a_failing_row_undoes_the_statement_in_a_transaction() {
    let (_q, mut qc, mut mc) = both("up_atomic");
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE m (id INT PRIMARY KEY, a INT UNIQUE, c VARCHAR(3))",
            "INSERT INTO m VALUES (1, 1, 'x'), (2, 2, 'y')",
            "BEGIN",
            "INSERT INTO m VALUES (3, 3, 'a')",
            "INSERT INTO m VALUES (4, 4, 'b'), (5, 5, 'c') ON DUPLICATE KEY UPDATE c = 'u'",
            "INSERT INTO m VALUES (6, 6, 'd'), (1, 9, 'e') ON DUPLICATE KEY UPDATE a = 2",
            "REPLACE INTO m VALUES (7, 1, 'f'), (8, 8, 'toolong')",
            "INSERT INTO m SELECT id + 10, a + 10, 'toolong' FROM m",
            "SELECT * FROM m ORDER BY id",
            "COMMIT",
            "SELECT * FROM m ORDER BY id",
        ],
    );
}

/// The same statements as prepared statements on both servers: affected
/// rows, then the tables.
#[test]
fn prepared_upserts_match_mariadb() {
    let (_q, mut qc, mut mc) = both("up_prep");
    let ddl = "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, u INT, v VARCHAR(5), UNIQUE KEY uu (u))";
    for c in [&mut qc, &mut mc] {
        c.query_drop(ddl).unwrap();
    }
    let mut affected = Vec::new();
    for c in [&mut qc, &mut mc] {
        let mut got = Vec::new();
        let odku = c.prep("INSERT INTO t (u, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = CONCAT(v, ?)").unwrap();
        for (u, v, s) in [(1, "a", "1"), (2, "b", "2"), (1, "c", "3"), (1, "c", "")] {
            c.exec_drop(&odku, (u, v, s)).unwrap();
            got.push(c.affected_rows());
        }
        c.exec_drop("INSERT IGNORE INTO t (u, v) VALUES (?, ?), (?, ?)", (2, "x", 3, "y")).unwrap();
        got.push(c.affected_rows());
        c.exec_drop("REPLACE INTO t (id, u, v) VALUES (?, ?, ?)", (1, 3, "r")).unwrap();
        got.push(c.affected_rows());
        // The second time every row is a duplicate: the update's marker
        // comes after the query's.
        for _ in 0..2 {
            c.exec_drop(
                "INSERT INTO t (u, v) SELECT u + ?, v FROM t WHERE u > ? AND u < ? ON DUPLICATE KEY UPDATE v = ?",
                (10, 1, 5, "s"),
            )
            .unwrap();
            got.push(c.affected_rows());
        }
        affected.push(got);
    }
    assert_eq!(affected[0], affected[1], "affected rows of the prepared statements");
    assert_same(&mut qc, &mut mc, &["SELECT * FROM t ORDER BY id", "SELECT LAST_INSERT_ID()"]);
}

/// MySQL 8.0.19's row alias, which MariaDB 10.11 refuses (1064): quire
/// follows MySQL, compared with the `VALUES(col)` form on MariaDB.
#[test]
fn row_alias_form_acts_as_values_function() {
    let (_q, mut qc, mut mc) = both("up_alias");
    let setup =
        ["CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(5))", "INSERT INTO t VALUES (1, 10, 'x'), (2, 20, 'y')"];
    assert_same(&mut qc, &mut mc, &setup);
    let pairs = [
        (
            "INSERT INTO t VALUES (1, 5, 'n'), (3, 30, 'z') AS new ON DUPLICATE KEY UPDATE a = t.a + new.a, b = new.b",
            "INSERT INTO t VALUES (1, 5, 'n'), (3, 30, 'z') ON DUPLICATE KEY UPDATE a = t.a + VALUES(a), b = VALUES(b)",
        ),
        (
            "INSERT INTO t (id, a) VALUES (2, 7) AS r (i, x) ON DUPLICATE KEY UPDATE a = x + r.x",
            "INSERT INTO t (id, a) VALUES (2, 7) ON DUPLICATE KEY UPDATE a = VALUES(a) + VALUES(a)",
        ),
    ];
    for (q, m) in pairs {
        assert_eq!(answer(&mut qc, q), answer(&mut mc, m), "{q}");
    }
    assert_same(&mut qc, &mut mc, &["SELECT * FROM t ORDER BY id"]);
    assert!(matches!(
        answer(&mut qc, "INSERT INTO t VALUES (1, 1, 'a') AS n ON DUPLICATE KEY UPDATE a = n.nope"),
        Answer::Err(1054)
    ));
}

/// INSERT ... SELECT reads its source with S locks under REPEATABLE READ,
/// as InnoDB: another transaction cannot change a source row until the
/// inserting transaction ends (both servers time the writer out), but may
/// read it.
#[test]
fn insert_select_share_locks_its_source() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    for (mut a, connect) in [
        (q.fresh_db("up_locks"), Box::new(|| q.connect(Some("up_locks"))) as Box<dyn Fn() -> Conn>),
        (m.fresh_db("up_locks"), Box::new(|| m.connect(Some("up_locks")))),
    ] {
        a.query_drop("CREATE TABLE src (id INT PRIMARY KEY, v INT)").unwrap();
        a.query_drop("CREATE TABLE dst (id INT PRIMARY KEY, v INT)").unwrap();
        a.query_drop("INSERT INTO src VALUES (1, 1), (2, 2)").unwrap();
        a.query_drop("BEGIN").unwrap();
        a.query_drop("INSERT INTO dst SELECT * FROM src WHERE id = 1").unwrap();
        let mut b = connect();
        b.query_drop("SET SESSION innodb_lock_wait_timeout = 1").unwrap();
        let started = std::time::Instant::now();
        assert_eq!(answer(&mut b, "UPDATE src SET v = 9 WHERE id = 1"), Answer::Err(1205));
        assert!(started.elapsed() >= Duration::from_millis(900));
        assert_eq!(answer(&mut b, "UPDATE src SET v = 9 WHERE id = 2").clone(), answer_ok(1));
        let shared: Vec<Vec<Option<String>>> = b
            .query_iter("SELECT v FROM src WHERE id = 1 LOCK IN SHARE MODE")
            .unwrap()
            .map(|r| row_cells(&r.unwrap()))
            .collect();
        assert_eq!(shared, vec![vec![Some("1".to_string())]]);
        a.query_drop("COMMIT").unwrap();
        assert_eq!(answer(&mut b, "UPDATE src SET v = 9 WHERE id = 1"), answer_ok(1));
    }
}

fn answer_ok(affected: u64) -> Answer {
    Answer::Ok { affected, warnings: 0, info: "Rows matched: 1  Changed: 1  Warnings: 0".to_string() }
}

/// Under CLIENT_FOUND_ROWS an ON DUPLICATE KEY UPDATE that changes nothing
/// counts 1 (the row found), as on MariaDB.
#[test]
fn client_found_rows_counts_unchanged_duplicates() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    drop(q.fresh_db("up_found"));
    drop(m.fresh_db("up_found"));
    let mut qc =
        Conn::new(q.opts(Some("up_found")).additional_capabilities(mysql::consts::CapabilityFlags::CLIENT_FOUND_ROWS))
            .unwrap();
    let mut mc =
        Conn::new(m.opts(Some("up_found")).additional_capabilities(mysql::consts::CapabilityFlags::CLIENT_FOUND_ROWS))
            .unwrap();
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, v INT)",
            "INSERT INTO t VALUES (1, 1), (2, 2)",
            "INSERT INTO t VALUES (1, 1) ON DUPLICATE KEY UPDATE v = 1",
            "INSERT INTO t VALUES (1, 1), (2, 5), (3, 3) ON DUPLICATE KEY UPDATE v = VALUES(v)",
            "SELECT * FROM t ORDER BY id",
        ],
    );
}

/// Through a view these forms are refused (1235), never half done.
#[test]
fn duplicate_forms_through_a_view_are_refused() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("up_view");
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v INT)").unwrap();
    c.query_drop("CREATE VIEW w AS SELECT id, v FROM t").unwrap();
    for sql in [
        "INSERT IGNORE INTO w VALUES (1, 1)",
        "REPLACE INTO w VALUES (1, 1)",
        "INSERT INTO w VALUES (1, 1) ON DUPLICATE KEY UPDATE v = 2",
        "INSERT INTO w SELECT 1, 1",
    ] {
        assert_eq!(answer(&mut c, sql), Answer::Err(1235), "{sql}");
    }
    assert_eq!(answer(&mut c, "SELECT COUNT(*) FROM t"), Answer::Rows(vec![vec![Some("0".into())]]));
}

/// Concurrent upserts of one unique key (counters, sessions, rate
/// limits): the duplicate is X-locked at once, so the sessions queue on
/// it and none deadlocks (an S lock upgraded to X would make each the
/// other's victim); every increment counts.
#[test]
fn concurrent_upserts_of_one_key_serialise_without_deadlocks() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("up_conc");
    c.query_drop("CREATE TABLE c (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(10), n INT, UNIQUE KEY un (name))")
        .unwrap();
    c.query_drop("INSERT INTO c (name, n) VALUES ('x', 0)").unwrap();
    const PER: usize = 150;
    std::thread::scope(|s| {
        for w in 0..3 {
            let mut conn = q.connect(Some("up_conc"));
            s.spawn(move || {
                for i in 0..PER {
                    let sql = if (i + w) % 2 == 0 {
                        "INSERT INTO c (name, n) VALUES ('x', 1) ON DUPLICATE KEY UPDATE n = n + 1"
                    } else {
                        "INSERT INTO c (name, n) VALUES ('x', 1) AS v ON DUPLICATE KEY UPDATE n = c.n + v.n"
                    };
                    conn.query_drop(sql).unwrap_or_else(|e| panic!("worker {w}, upsert {i}: {e}"));
                }
            });
        }
    });
    assert_eq!(
        answer(&mut c, "SELECT COUNT(*), MAX(n) FROM c"),
        Answer::Rows(vec![vec![Some("1".into()), Some((3 * PER).to_string())]])
    );
}
