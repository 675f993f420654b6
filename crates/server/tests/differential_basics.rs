//! quire beside a MariaDB started by the test: the same simple statements
//! give the same rows, affected counts, info texts and error codes. The
//! harness (tests/oracle) is shared by the other differential tests.

mod oracle;

use oracle::same_on_both;

#[test]
fn simple_dml_and_errors_answer_as_mariadb_does() {
    same_on_both(
        "diff_basics",
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, s VARCHAR(20))",
            "INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, NULL)",
            "INSERT INTO t VALUES (4, 40, 'd')",
            "SELECT id, k, s FROM t ORDER BY id",
            "UPDATE t SET k = k + 1 WHERE id <= 2",
            "UPDATE t SET k = 31 WHERE id = 3",
            "DELETE FROM t WHERE id = 4",
            "SELECT COUNT(*), SUM(k), MIN(s), MAX(s) FROM t",
            "INSERT INTO t VALUES (1, 0, 'dup')",
            "SELECT * FROM no_such_table",
            "SELEKT 1",
        ],
    );
}
