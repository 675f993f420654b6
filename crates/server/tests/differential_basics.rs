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

#[test]
fn having_filters_by_aliases_inside_it_and_without_grouping() {
    same_on_both(
        "having_alias",
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, a INT)",
            "INSERT INTO t VALUES (1, 10), (2, 20), (3, 20), (4, NULL)",
            // An alias inside a larger HAVING condition.
            "SELECT a, COUNT(*) AS cnt FROM t GROUP BY a HAVING cnt > 1",
            "SELECT a, SUM(id) AS s FROM t GROUP BY a HAVING s + 1 > 3 AND a IS NOT NULL ORDER BY a",
            "SELECT t.a, COUNT(*) AS cnt FROM t JOIN t t2 ON t2.id = t.id GROUP BY t.a HAVING cnt >= 2",
            // HAVING without GROUP BY or aggregates filters rows.
            "SELECT id FROM t HAVING id > 1 ORDER BY id",
            "SELECT id + 1 AS x FROM t HAVING x > 2 ORDER BY x",
            "SELECT DISTINCT a FROM t HAVING a < 15",
            "SELECT id, a FROM t HAVING a > 10 ORDER BY id LIMIT 1",
            "SELECT t.id FROM t JOIN t t2 ON t2.id = t.id HAVING t.id > 2 ORDER BY t.id",
        ],
    );
}

#[test]
fn from_dual_is_no_table_anywhere_in_a_query() {
    same_on_both(
        "diff_dual",
        &[
            "CREATE TABLE t (id INT PRIMARY KEY)",
            "INSERT INTO t VALUES (1), (2)",
            "SELECT 1 FROM DUAL",
            "SELECT 1 + 1 AS two FROM dual WHERE 1 = 1",
            "SELECT 1 FROM DUAL WHERE 1 = 0",
            "SELECT (SELECT 7 FROM DUAL), 1 IN (SELECT 1 FROM DUAL)",
            "SELECT * FROM (SELECT 3 AS x FROM DUAL) d",
            "SELECT id FROM t WHERE EXISTS (SELECT 1 FROM DUAL) ORDER BY id",
            "SELECT 1 FROM DUAL UNION SELECT 2 FROM DUAL",
            "INSERT INTO t SELECT 3 FROM DUAL",
            "SELECT COUNT(*) FROM t",
            "CREATE TABLE `dual` (x INT)",
            "INSERT INTO `dual` VALUES (5)",
            "SELECT * FROM `dual`",
        ],
    );
}
