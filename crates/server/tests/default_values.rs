//! What a column's default gives outside INSERT, compared with the MariaDB
//! the harness starts: `UPDATE ... SET c = DEFAULT` for every kind of
//! default (CURRENT_TIMESTAMP, none on a NOT NULL column: 1364 in strict
//! mode, else a warning and the implicit default) and the `DEFAULT(col)`
//! function in SELECT, WHERE, joins and UPDATE (`SET c = DEFAULT(c) + 1`),
//! 1364 for a NOT NULL column without a default, with the same affected
//! rows, warnings and SHOW WARNINGS.

mod oracle;

use oracle::{assert_same_diagnostics, MariaDb, Quire};

#[test]
fn defaults_outside_insert_answer_as_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("default_values");
    let mut mc = MariaDb::get().fresh_db("default_values");
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE d (id INT AUTO_INCREMENT PRIMARY KEY, a INT NOT NULL DEFAULT 7, b INT, \
             c VARCHAR(5) DEFAULT 'x', n INT NOT NULL, s VARCHAR(5) NOT NULL, \
             ts DATETIME DEFAULT CURRENT_TIMESTAMP)",
            "INSERT INTO d (a, b, c, n, s) VALUES (1, 2, 'y', 3, 'z'), (4, 5, 'w', 6, 'v')",
            "SELECT DEFAULT(a), DEFAULT(b), DEFAULT(c) FROM d ORDER BY id",
            "SELECT DEFAULT(d.a) + 1 FROM d WHERE id = 1",
            "SELECT id FROM d WHERE a < DEFAULT(a) ORDER BY id",
            "SELECT x.id, y.id FROM d x JOIN d y ON DEFAULT(x.a) > y.a ORDER BY x.id, y.id",
            "SELECT DEFAULT(n) FROM d",
            "UPDATE d SET a = DEFAULT(a) + 1 WHERE id = 1",
            "UPDATE d SET b = DEFAULT(a) * 2, c = DEFAULT(c)",
            "SELECT id, a, b, c FROM d ORDER BY id",
            "UPDATE d SET n = DEFAULT",
            "UPDATE d SET s = DEFAULT WHERE id = 1",
            "SET SESSION sql_mode = ''",
            "UPDATE d SET n = DEFAULT, s = DEFAULT WHERE id = 1",
            "SET SESSION sql_mode = DEFAULT",
            "SELECT id, n, s FROM d ORDER BY id",
            "UPDATE d SET ts = NULL",
            "UPDATE d SET ts = DEFAULT WHERE id = 2",
            "SELECT id, ts IS NULL, ts > NOW() - INTERVAL 1 HOUR FROM d ORDER BY id",
            "SELECT DEFAULT(ts) > NOW() - INTERVAL 1 HOUR FROM d WHERE id = 1",
        ],
    );
}
