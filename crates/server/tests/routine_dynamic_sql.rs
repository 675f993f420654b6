//! Dynamic SQL, DDL and SET of system variables in stored programs (quire
//! issue 19, item 4): SQL-level PREPARE / EXECUTE / DEALLOCATE from a
//! client and from a procedure (its result sets, a statement that outlives
//! the procedure), temporary tables and DDL in a procedure with DDL's
//! implicit commit, SET of system variables mixed with variables and the
//! procedure's sql_mode restored, and the errors at CREATE of what a
//! function or trigger may not hold. Each scenario runs on quire and on
//! MariaDB 10.11, every answer compared (each result set of a CALL with
//! its column names, then its OK); an event's body on quire alone.

mod oracle;

use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{assert_same_answers, assert_same_diagnostics, MariaDb, Quire};

#[test]
fn prepare_execute_and_deallocate_from_a_client_as_mariadb() {
    assert_same_answers(
        "dyn_client",
        &[
            "PREPARE s FROM 'SELECT ? + 1 AS y'",
            "SET @a = 5",
            "EXECUTE s USING @a",
            // MariaDB's: any expression as an argument or as the text.
            "EXECUTE s USING @a * 2",
            "EXECUTE s",
            "EXECUTE S USING @a, @a",
            "DEALLOCATE PREPARE s",
            "EXECUTE s USING @a",
            "DEALLOCATE PREPARE s",
            "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))",
            "SET @q = CONCAT('INSERT INTO ', 't', ' VALUES (?, ?)')",
            "PREPARE ins FROM @q",
            "SET @i = 1, @v = 'one'",
            "EXECUTE ins USING @i, @v",
            "EXECUTE ins USING 2, 'two'",
            "EXECUTE ins USING 2, 'dup'",
            "SELECT * FROM t ORDER BY id",
            "DROP PREPARE ins",
            // A PREPARE that fails leaves no statement of its name.
            "PREPARE s FROM 'SELECT 1'",
            "PREPARE s FROM 'SELEC 1'",
            "EXECUTE s",
            "PREPARE s FROM @never_set",
            "PREPARE s FROM 'PREPARE x FROM ''SELECT 1'''",
            "PREPARE s FROM 'EXECUTE x'",
            "PREPARE s FROM 'DEALLOCATE PREPARE x'",
            "PREPARE s FROM 'SELECT * FROM nosuch'",
        ],
    );
}

#[test]
fn dynamic_sql_in_a_procedure_sends_its_rows_and_outlives_the_call_as_mariadb() {
    assert_same_answers(
        "dyn_proc",
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))",
            "CREATE PROCEDURE ins(IN tbl VARCHAR(64), IN i INT, IN s VARCHAR(20))
             BEGIN
               SET @sql = CONCAT('INSERT INTO ', tbl, ' VALUES (?, ?)');
               SET @i = i;
               PREPARE st FROM @sql;
               EXECUTE st USING @i, s;
               DEALLOCATE PREPARE st;
             END",
            "CALL ins('t', 1, 'one')",
            "CALL ins('t', 2, 'two')",
            "SELECT * FROM t ORDER BY id",
            "CREATE PROCEDURE sel(IN tbl VARCHAR(64), IN lo INT)
             BEGIN
               DECLARE q VARCHAR(200) DEFAULT CONCAT('SELECT id, v FROM ', tbl, ' WHERE id >= ? ORDER BY id');
               PREPARE kept FROM q;
               EXECUTE kept USING lo;
               EXECUTE kept USING lo + 1;
               SELECT 'after' AS done;
             END",
            "CALL sel('t', 1)",
            // The statement the procedure prepared is the session's.
            "SET @one = 1",
            "EXECUTE kept USING @one",
            "DEALLOCATE PREPARE kept",
            // Errors of EXECUTE reach a handler like any statement's.
            "CREATE PROCEDURE missing()
             BEGIN
               DECLARE CONTINUE HANDLER FOR 1243 SET @caught = 'yes';
               EXECUTE nosuch;
               SELECT @caught AS caught;
             END",
            "CALL missing()",
            "CREATE PROCEDURE unhandled() EXECUTE nosuch",
            "CALL unhandled()",
            "CREATE PROCEDURE nested_prepare() PREPARE s FROM 'EXECUTE x'",
            "CALL nested_prepare()",
        ],
    );
}

#[test]
fn temporary_tables_and_ddl_in_a_procedure_as_mariadb() {
    assert_same_answers(
        "dyn_ddl",
        &[
            "CREATE PROCEDURE scratch(IN n INT)
             BEGIN
               CREATE TEMPORARY TABLE tmp (a INT);
               INSERT INTO tmp VALUES (n), (n + 1);
               SELECT SUM(a) AS s FROM tmp;
               DROP TEMPORARY TABLE tmp;
             END",
            "CALL scratch(1)",
            // The second CALL's table is a new one: no plan of the first binds it.
            "CALL scratch(10)",
            "CREATE PROCEDURE build(IN n INT)
             BEGIN
               CREATE TABLE made (a INT);
               INSERT INTO made VALUES (n);
               ALTER TABLE made ADD COLUMN b INT DEFAULT 7;
               CREATE INDEX ia ON made (a);
               SELECT * FROM made;
               TRUNCATE TABLE made;
               SELECT COUNT(*) AS left_after_truncate FROM made;
               DROP TABLE made;
             END",
            "CALL build(3)",
            "CALL build(4)",
            "SHOW TABLES",
            // SHOW answers a result set of the CALL; SET TRANSACTION applies.
            "CREATE TABLE shown (a INT)",
            "CREATE PROCEDURE show_some()
             BEGIN
               SHOW TABLES LIKE 'sh%';
               SHOW VARIABLES LIKE 'max_sp_recursion_depth';
               SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE;
             END",
            "CALL show_some()",
            "SELECT @@tx_isolation",
            // DDL prepared by a client.
            "PREPARE mk FROM 'CREATE TABLE prepared_made (a INT)'",
            "EXECUTE mk",
            "EXECUTE mk",
            "DROP TABLE prepared_made",
            // DDL commits the open transaction: the row stays after ROLLBACK.
            "CREATE TABLE k (a INT)",
            "CREATE PROCEDURE ddl_commits()
             BEGIN
               START TRANSACTION;
               INSERT INTO k VALUES (1);
               CREATE TABLE k2 (a INT);
               ROLLBACK;
             END",
            "CALL ddl_commits()",
            "SELECT * FROM k",
            "START TRANSACTION",
            "INSERT INTO k VALUES (2)",
            "CREATE PROCEDURE drop_k2() DROP TABLE k2",
            "CALL drop_k2()",
            "ROLLBACK",
            "SELECT * FROM k ORDER BY a",
            // A procedure's DDL names its own database.
            "CREATE DATABASE IF NOT EXISTS dyn_other",
            "CREATE PROCEDURE dyn_other.here() CREATE TABLE in_other (a INT)",
            "CALL dyn_other.here()",
            "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'dyn_other'",
            "DROP DATABASE dyn_other",
            // What a procedure may not hold, refused at CREATE.
            "CREATE PROCEDURE bad() CREATE PROCEDURE q() SELECT 1",
            "CREATE PROCEDURE bad() DROP PROCEDURE IF EXISTS scratch",
            "CREATE PROCEDURE bad() USE dyn_ddl",
            "CREATE PROCEDURE bad() LOCK TABLES k READ",
            "CREATE PROCEDURE bad() UNLOCK TABLES",
        ],
    );
}

#[test]
fn set_of_system_variables_in_a_procedure_as_mariadb() {
    assert_same_answers(
        "dyn_set",
        &[
            "SET sql_mode = 'STRICT_TRANS_TABLES'",
            "CREATE PROCEDURE modes()
             BEGIN
               DECLARE v INT;
               SET v = 1, @@sql_mode = 'ANSI_QUOTES', @u = 2;
               SELECT v, @@sql_mode AS m, @u;
               SET SESSION sql_mode = '';
               SELECT @@sql_mode AS m;
             END",
            "CALL modes()",
            // The procedure's sql_mode lasted until its CALL ended.
            "SELECT @@sql_mode",
            // A local shadows the system variable of its name.
            "CREATE PROCEDURE shadow()
             BEGIN
               DECLARE sql_mode VARCHAR(20) DEFAULT 'x';
               SET sql_mode = 'loc';
               SELECT sql_mode, @@sql_mode AS m;
             END",
            "CALL shadow()",
            // Other settings stay the session's after the CALL.
            "CREATE PROCEDURE settings(IN n INT)
             BEGIN
               SET NAMES utf8mb4, @a = 'named';
               SET @@session.max_sp_recursion_depth = n, SESSION wait_timeout = n * 10;
               SET autocommit = 0;
             END",
            "CALL settings(7)",
            "SELECT @@character_set_client, @a, @@max_sp_recursion_depth, @@wait_timeout, @@autocommit",
            "SET autocommit = 1",
            "CREATE PROCEDURE bad() SET @@nosuch = 1",
            "CREATE PROCEDURE bad() SET nosuch = 1",
            "CREATE PROCEDURE bad() SET GLOBAL nosuch = 1",
        ],
    );
}

#[test]
fn functions_and_triggers_refuse_dynamic_sql_and_ddl_at_create_as_mariadb() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db("dyn_refused"), m.fresh_db("dyn_refused"));
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (a INT)",
            "CREATE FUNCTION f() RETURNS INT BEGIN PREPARE s FROM 'SELECT 1'; RETURN 1; END",
            "CREATE FUNCTION f() RETURNS INT BEGIN EXECUTE s; RETURN 1; END",
            "CREATE FUNCTION f() RETURNS INT BEGIN DEALLOCATE PREPARE s; RETURN 1; END",
            "CREATE FUNCTION f() RETURNS INT BEGIN CREATE TABLE x (a INT); RETURN 1; END",
            "CREATE FUNCTION f() RETURNS INT BEGIN DROP TABLE t; RETURN 1; END",
            "CREATE FUNCTION f() RETURNS INT BEGIN TRUNCATE t; RETURN 1; END",
            "CREATE FUNCTION f() RETURNS INT BEGIN SET autocommit = 0; RETURN 1; END",
            "CREATE FUNCTION f() RETURNS INT BEGIN SET @@session.autocommit = 0; RETURN 1; END",
            "CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW CREATE TABLE y (a INT)",
            "CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW EXECUTE s",
            "CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW ALTER TABLE t ADD b INT",
        ],
    );
}

#[test]
fn the_binary_protocol_cannot_prepare_dynamic_sql_as_mariadb() {
    let (m, q) = (MariaDb::get(), Quire::start(&[]));
    for sql in ["PREPARE s FROM 'SELECT 1'", "EXECUTE s", "DEALLOCATE PREPARE s"] {
        let code = |mut c: Conn| oracle::err_code(&c.prep(sql).unwrap_err());
        assert_eq!((code(q.connect(None)), code(m.connect(None))), (1295, 1295), "{sql}");
    }
}

#[test]
fn what_quire_does_not_run_in_a_body_is_refused_with_1235() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("dyn_refused_1235");
    c.query_drop("CREATE TABLE k (a INT)").unwrap();
    for sql in [
        // MariaDB creates such a function (it fails when it runs); quire's
        // functions read no tables.
        "CREATE FUNCTION f() RETURNS INT BEGIN CREATE TEMPORARY TABLE x (a INT); RETURN 1; END",
        // MariaDB binds the local; quire's DDL does not see locals, so the
        // name would read the column.
        "CREATE PROCEDURE p() BEGIN DECLARE a INT DEFAULT 5; CREATE TABLE c AS SELECT a FROM k; END",
        "CREATE PROCEDURE p() DROP TRIGGER IF EXISTS tr",
        "CREATE PROCEDURE p() CREATE EVENT e ON SCHEDULE EVERY 1 DAY DO SELECT 1",
        "CREATE FUNCTION f() RETURNS INT BEGIN SET sql_mode = ''; RETURN 1; END",
    ] {
        assert_eq!(oracle::answer(&mut c, sql), oracle::Answer::Err(1235), "{sql}");
    }
}

/// Polls `sql`'s first cell until it is `want` (at most `secs` seconds).
fn wait_for(c: &mut Conn, sql: &str, secs: u64, want: i64) -> i64 {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let v: i64 = c.query_first(sql).unwrap().unwrap_or(0);
        if v == want || Instant::now() > deadline {
            return v;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn an_events_body_runs_dynamic_sql_and_ddl() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("dyn_event");
    c.query_drop("CREATE TABLE log (a INT)").unwrap();
    c.query_drop(
        "CREATE EVENT dyn ON SCHEDULE AT NOW() + INTERVAL 1 SECOND DO BEGIN
           DECLARE v INT DEFAULT 42;
           PREPARE st FROM CONCAT('INSERT INTO ', 'log', ' VALUES (?)');
           EXECUTE st USING v;
           DEALLOCATE PREPARE st;
           CREATE TABLE made_by_event (a INT);
         END",
    )
    .unwrap();
    assert_eq!(wait_for(&mut c, "SELECT COUNT(*) FROM log WHERE a = 42", 6, 1), 1, "the dynamic INSERT ran");
    let made = "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'dyn_event' \
                AND TABLE_NAME = 'made_by_event'";
    assert_eq!(wait_for(&mut c, made, 3, 1), 1, "the event's DDL ran in the event's database");
}
