//! The DEFAULT keyword as a value, compared with the MariaDB the harness
//! starts: `INSERT ... VALUES (DEFAULT, ...)` (literal defaults,
//! AUTO_INCREMENT, NULL, mixed with values, several rows), `INSERT ... ()
//! VALUES ()`, `INSERT ... SET c = DEFAULT`, REPLACE and INSERT IGNORE with
//! it, `UPDATE ... SET c = DEFAULT`; a NOT NULL column without a default
//! is 1364 in strict mode and a warning with the implicit default outside
//! it — with the same affected rows, warnings and SHOW WARNINGS. Also the
//! AUTO_INCREMENT values a multi-row INSERT reserves, which a statement
//! failing part-way leaves as a gap.

mod oracle;

use oracle::{assert_same_diagnostics, MariaDb, Quire};

#[test]
fn the_default_keyword_answers_as_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("ins_defaults");
    let mut mc = MariaDb::get().fresh_db("ins_defaults");
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, a INT DEFAULT 5, b VARCHAR(5) NOT NULL, \
             c INT, e INT NOT NULL DEFAULT 3)",
            "INSERT INTO t VALUES (DEFAULT, DEFAULT, 'x', DEFAULT, DEFAULT)",
            "INSERT INTO t (a, b) VALUES (DEFAULT, 'y'), (7, 'z')",
            "INSERT INTO t (a, b) VALUES (DEFAULT, DEFAULT)",
            "INSERT INTO t (b) VALUES (DEFAULT)",
            "INSERT INTO t () VALUES ()",
            "INSERT INTO t SET b = DEFAULT",
            "INSERT INTO t SET b = 'w', a = DEFAULT, e = DEFAULT",
            "INSERT INTO t SET a = DEFAULT, a = 1",
            "INSERT INTO t (id, b) VALUES (DEFAULT, 'v'), (100, 'u')",
            "INSERT INTO t (id, b) VALUES (101, DEFAULT)",
            "SELECT * FROM t ORDER BY id",
            "SET SESSION sql_mode = ''",
            "INSERT INTO t (b) VALUES (DEFAULT)",
            "INSERT INTO t (a, b) VALUES (2, 'q'), (DEFAULT, DEFAULT)",
            "INSERT INTO t () VALUES ()",
            "SET SESSION sql_mode = DEFAULT",
            "INSERT IGNORE INTO t (b) VALUES (DEFAULT)",
            "REPLACE INTO t (id, a, b) VALUES (1, DEFAULT, 'r')",
            "SELECT * FROM t ORDER BY id",
            "UPDATE t SET a = 9, c = 4 WHERE id <= 3",
            "UPDATE t SET a = DEFAULT, c = DEFAULT WHERE id <= 2",
            "UPDATE t SET e = DEFAULT",
            "SELECT * FROM t ORDER BY id",
            "SELECT LAST_INSERT_ID()",
        ],
    );
}

#[test]
fn a_multi_row_insert_reserves_its_auto_increment_values_as_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("ins_autoinc");
    let mut mc = MariaDb::get().fresh_db("ins_autoinc");
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT NOT NULL)",
            // Fails at its second row: the three values reserved are lost.
            "INSERT INTO t (v) VALUES (1), (NULL), (3)",
            "INSERT INTO t (v) VALUES (10)",
            "INSERT INTO t (v) VALUES (1), (2)",
            "INSERT INTO t (v) SELECT 5 UNION ALL SELECT NULL",
            "INSERT INTO t (v) VALUES (11)",
            // An explicit value first: the interval starts past it.
            "INSERT INTO t VALUES (100, 1), (NULL, 2), (50, NULL)",
            "INSERT INTO t (v) VALUES (12)",
            "SELECT LAST_INSERT_ID()",
            "INSERT INTO t VALUES (NULL, 20), (200, 21), (NULL, 22)",
            "SELECT LAST_INSERT_ID()",
            "INSERT INTO t (v) VALUES (30)",
            "SELECT * FROM t ORDER BY id",
        ],
    );
}
