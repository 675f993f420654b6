//! UPDATE / DELETE ... ORDER BY ... LIMIT on one table, against the
//! MariaDB the harness starts: which rows change (ascending, descending,
//! several keys, expressions, collations, through a WHERE and an index),
//! affected rows and info strings (LIMIT 0 answers a bare OK), rows
//! matched but unchanged counting toward LIMIT, subqueries in WHERE, and
//! the errors for unknown columns and positions in ORDER BY.

mod oracle;

use oracle::{assert_same_diagnostics, MariaDb, Quire};

#[test]
fn update_and_delete_with_order_by_limit_change_the_rows_mariadb_changes() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("ow_basic");
    let mut mc = MariaDb::get().fresh_db("ow_basic");
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, g INT, s VARCHAR(10), n INT, KEY kg (g))",
            "INSERT INTO t VALUES (1, 3, 'b', 0), (2, 1, 'A', 0), (3, 2, 'c', 0), (4, 1, 'a2', 0), \
             (5, 3, 'B1', 0), (6, 2, 'd', 0), (7, 9, 'e', 0)",
            "UPDATE t SET n = 1 ORDER BY g, id DESC LIMIT 3",
            "SELECT * FROM t ORDER BY id",
            "UPDATE t SET n = n + 10 WHERE g < 9 ORDER BY s DESC LIMIT 2",
            "SELECT * FROM t ORDER BY id",
            "UPDATE t SET n = 100 ORDER BY g * -1, id LIMIT 1",
            "SELECT * FROM t ORDER BY id",
            // Rows matched but already holding the value count toward LIMIT.
            "UPDATE t SET n = 1 WHERE g = 1 ORDER BY id LIMIT 2",
            "UPDATE t SET n = 5 ORDER BY n DESC, id LIMIT 0",
            "UPDATE t SET n = 5 LIMIT 0",
            "UPDATE t SET n = 5 WHERE id = 1 LIMIT 0",
            "UPDATE t SET n = 2 WHERE g IN (SELECT 2) ORDER BY id DESC LIMIT 1",
            "SELECT * FROM t ORDER BY id",
            // ORDER BY without LIMIT: every row, in that order.
            "UPDATE t SET n = n * 2 ORDER BY s",
            "DELETE FROM t ORDER BY n DESC, id LIMIT 2",
            "SELECT * FROM t ORDER BY id",
            "DELETE FROM t WHERE g >= 1 ORDER BY s LIMIT 1",
            "SELECT * FROM t ORDER BY id",
            "DELETE FROM t ORDER BY id LIMIT 0",
            "DELETE FROM t WHERE id IN (SELECT 3 UNION SELECT 6) ORDER BY id DESC LIMIT 1",
            "SELECT * FROM t ORDER BY id",
            "UPDATE t SET n = 1 ORDER BY nosuch LIMIT 1",
            "DELETE FROM t ORDER BY 1 LIMIT 1",
            "DELETE FROM t ORDER BY g DESC",
            "SELECT * FROM t ORDER BY id",
        ],
    );
}

#[test]
fn ordered_writes_inside_a_transaction_roll_back_with_it() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("ow_trx");
    let mut mc = MariaDb::get().fresh_db("ow_trx");
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE q (id INT AUTO_INCREMENT PRIMARY KEY, prio INT, done INT DEFAULT 0)",
            "INSERT INTO q (prio) VALUES (5), (1), (3), (1), (4)",
            "BEGIN",
            "UPDATE q SET done = 1 WHERE done = 0 ORDER BY prio, id LIMIT 2",
            "SELECT * FROM q ORDER BY id",
            "ROLLBACK",
            "SELECT * FROM q ORDER BY id",
            "DELETE FROM q WHERE done = 0 ORDER BY prio DESC LIMIT 2",
            "SELECT * FROM q ORDER BY id",
        ],
    );
}
