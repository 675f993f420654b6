//! Stored functions that read and write tables (quire issue 19,
//! "routines"): a function's statements run in the transaction of the
//! statement that calls it, so its reads see that transaction's own
//! changes and its writes are undone with the statement; a write to a
//! table the calling statement uses is 1442; LAST_INSERT_ID() set inside
//! a function is given back when it returns. Also the statements that
//! evaluate expressions outside a query: SET with subqueries and stored
//! functions, DO, and the `:=` assignment operator. Every answer (result
//! set, OK with affected rows and warnings, error code) is compared with
//! MariaDB 10.11's on the same statements.

mod oracle;

use oracle::assert_same_answers;

const SCHEMA: &[&str] = &[
    "CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(10))",
    "INSERT INTO t VALUES (1, 'x'), (2, 'y')",
    "CREATE TABLE log (id INT AUTO_INCREMENT PRIMARY KEY, msg VARCHAR(50))",
    "CREATE FUNCTION cnt() RETURNS INT READS SQL DATA
     BEGIN DECLARE n INT; SELECT COUNT(*) INTO n FROM t; RETURN n; END",
    "CREATE FUNCTION name_of(x INT) RETURNS VARCHAR(10) READS SQL DATA RETURN (SELECT b FROM t WHERE a = x)",
    "CREATE FUNCTION logit(m VARCHAR(50)) RETURNS INT MODIFIES SQL DATA
     BEGIN INSERT INTO log (msg) VALUES (m); RETURN LAST_INSERT_ID(); END",
    "CREATE FUNCTION joined() RETURNS VARCHAR(100) READS SQL DATA
     BEGIN
       DECLARE done INT DEFAULT 0;
       DECLARE v VARCHAR(10);
       DECLARE acc VARCHAR(100) DEFAULT '';
       DECLARE c CURSOR FOR SELECT b FROM t ORDER BY a;
       DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
       OPEN c;
       l: LOOP
         FETCH c INTO v;
         IF done THEN LEAVE l; END IF;
         SET acc = CONCAT(acc, v);
       END LOOP;
       CLOSE c;
       RETURN acc;
     END",
];

fn with_schema(db: &str, statements: &[&str]) {
    let all: Vec<&str> = SCHEMA.iter().chain(statements).copied().collect();
    assert_same_answers(db, &all);
}

#[test]
fn functions_read_tables_in_every_kind_of_statement_as_mariadb() {
    with_schema(
        "sf_reads",
        &[
            "SELECT cnt(), name_of(2), name_of(7), joined()",
            "SELECT a, name_of(a), cnt() FROM t WHERE cnt() > 1 ORDER BY name_of(a) DESC",
            "SELECT COUNT(*), MAX(name_of(a)) FROM t GROUP BY cnt()",
            "INSERT INTO t VALUES (cnt() + 1, name_of(1)), (cnt() + 2, name_of(2))",
            "SELECT * FROM t ORDER BY a",
            "UPDATE t SET b = name_of(1) WHERE a = cnt()",
            "DELETE FROM t WHERE a > cnt() - 1",
            "SELECT * FROM t ORDER BY a",
            // Every INSERT form: ODKU's assignments, INSERT ... SELECT,
            // REPLACE, IGNORE.
            "CREATE TABLE c (k INT PRIMARY KEY, n INT)",
            "INSERT INTO c VALUES (1, cnt()) ON DUPLICATE KEY UPDATE n = cnt() + 100",
            "INSERT INTO c VALUES (1, cnt()) ON DUPLICATE KEY UPDATE n = cnt() + 100",
            "INSERT INTO c SELECT a + 10, cnt() FROM t",
            "REPLACE INTO c VALUES (1, cnt())",
            "INSERT IGNORE INTO c VALUES (1, cnt()), (5, cnt())",
            "SELECT * FROM c ORDER BY k",
            "SET @v = cnt(), @w = name_of(2)",
            "SELECT @v, @w",
            "DO cnt()",
            // Reads see the transaction's own rows, and not once rolled back.
            "BEGIN",
            "INSERT INTO t VALUES (10, 'q')",
            "SELECT cnt(), name_of(10), joined()",
            "ROLLBACK",
            "SELECT cnt(), name_of(10), joined()",
            // In a procedure's statements and a trigger's body too.
            "CREATE PROCEDURE p() BEGIN DECLARE k VARCHAR(10); SET k = name_of(2); SELECT k, name_of(1); END",
            "CALL p()",
            "CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET NEW.b = CONCAT(NEW.b, cnt())",
            "INSERT INTO t VALUES (20, 'w')",
            "SELECT * FROM t ORDER BY a",
        ],
    );
}

#[test]
fn functions_write_tables_the_calling_statement_does_not_use() {
    with_schema(
        "sf_writes",
        &[
            "SELECT logit('hello'), logit('world'), LAST_INSERT_ID()",
            "SELECT * FROM log ORDER BY id",
            "SELECT a, logit(b) FROM t ORDER BY a",
            "UPDATE t SET b = 'z' WHERE a = logit('u')",
            "INSERT INTO t VALUES (logit('v') + 100, 'v')",
            "SELECT * FROM log ORDER BY id",
            "SELECT * FROM t ORDER BY a",
            // 1442: the calling statement uses the table the function writes.
            "SELECT id, logit(msg) FROM log",
            "INSERT INTO log (msg) VALUES (logit('a'))",
            "UPDATE log SET msg = logit('b')",
            "DELETE FROM log WHERE id = logit('c')",
            "SELECT * FROM log ORDER BY id",
            // A statement that fails takes back what its functions wrote.
            "CREATE FUNCTION log_then_fail() RETURNS INT MODIFIES SQL DATA
             BEGIN INSERT INTO log (msg) VALUES ('doomed'); RETURN 1; END",
            "INSERT INTO t VALUES (log_then_fail(), 'dup')",
            "SELECT * FROM log ORDER BY id",
            "BEGIN",
            "SELECT logit('in a transaction')",
            "ROLLBACK",
            "SELECT * FROM log ORDER BY id",
        ],
    );
}

#[test]
fn set_do_and_the_assignment_operator_evaluate_as_mariadb() {
    assert_same_answers(
        "sf_assign",
        &[
            "CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(5))",
            "INSERT INTO t VALUES (3, 'c'), (1, 'a'), (2, 'b')",
            "SET @x := 5",
            "SELECT @x",
            "SELECT @y := 6, @y",
            "SET @a := 1, @b := (@c := 3) + 1",
            "SELECT @a, @b, @c",
            // The values of one SET are all computed before any is assigned.
            "SET @a = 10, @b = @a + 1",
            "SELECT @a, @b",
            "SELECT @r := @r + 1 AS rn, t.* FROM t, (SELECT @r := 0) AS init ORDER BY a",
            "SELECT @q := 'str', @q2 := 1.5, @q3 := NULL",
            "SET @n = (SELECT COUNT(*) FROM t), @m = (SELECT MAX(b) FROM t WHERE a < 3)",
            "SELECT @n, @m",
            "SET @e = (SELECT a FROM t)",
            "DO 1, @z := 9",
            "SELECT @z",
            "DO (SELECT COUNT(*) FROM t)",
            "DO nonexist_f(1)",
            "DO 1/0",
            "SHOW WARNINGS",
        ],
    );
}
