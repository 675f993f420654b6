//! READ ONLY transactions, beside MariaDB: `START TRANSACTION READ ONLY`,
//! `SET TRANSACTION READ ONLY` (the next transaction only: an autocommit
//! statement is one), `SET SESSION TRANSACTION READ ONLY` and
//! `tx_read_only` (every later transaction); writes in such a transaction
//! get 1792 and change nothing, reads and READ WRITE transactions work.

mod oracle;

use oracle::same_on_both;

#[test]
fn writes_in_a_read_only_transaction_get_1792_as_in_mariadb() {
    same_on_both(
        "ro_trx",
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, v INT)",
            "INSERT INTO t VALUES (1, 1)",
            "START TRANSACTION READ ONLY",
            "SELECT v FROM t WHERE id = 1",
            "UPDATE t SET v = 2 WHERE id = 1",
            "INSERT INTO t VALUES (2, 2)",
            "DELETE FROM t",
            "SELECT v FROM t FOR UPDATE",
            "SELECT v FROM t LOCK IN SHARE MODE",
            "COMMIT",
            "UPDATE t SET v = 3 WHERE id = 1",
            "SET TRANSACTION READ ONLY",
            "UPDATE t SET v = 4 WHERE id = 1",
            "UPDATE t SET v = 5 WHERE id = 1",
            "SET SESSION TRANSACTION READ ONLY",
            "SELECT @@tx_read_only",
            "INSERT INTO t VALUES (3, 3)",
            "START TRANSACTION READ WRITE",
            "INSERT INTO t VALUES (3, 3)",
            "COMMIT",
            "SET SESSION tx_read_only = 0",
            "INSERT INTO t VALUES (4, 4)",
            "SET autocommit = 0",
            "SET TRANSACTION READ ONLY",
            "DELETE FROM t WHERE id = 4",
            "ROLLBACK",
            "DELETE FROM t WHERE id = 4",
            "COMMIT",
            "SET autocommit = 1",
            "SET TRANSACTION READ ONLY",
            "COMMIT",
            "INSERT INTO t VALUES (5, 5)",
            "SET TRANSACTION READ ONLY",
            "START TRANSACTION",
            "INSERT INTO t VALUES (6, 6)",
            "COMMIT",
            "SELECT id, v FROM t ORDER BY id",
            "SELECT @@tx_read_only",
        ],
    );
}
