//! Stored procedures and functions (quire issue 19, "routines"): CREATE /
//! DROP, CALL with IN / OUT / INOUT parameters and the result sets a
//! procedure's SELECTs send, stored functions in expressions, the errors
//! of each, SHOW CREATE / SHOW ... STATUS / information_schema.ROUTINES,
//! and that routines survive a restart. Each scenario runs on quire and
//! on MariaDB 10.11 and every answer (each result set of a CALL with its
//! column names, then its OK) is compared; what MariaDB cannot show (the
//! paths quire refuses) is checked on quire alone.

mod oracle;

use mysql::prelude::Queryable;
use oracle::{assert_same_answers, MariaDb, Quire};

#[test]
fn procedures_take_in_out_and_inout_parameters_as_mariadb() {
    assert_same_answers(
        "sp_params",
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))",
            "CREATE PROCEDURE add_row(IN i INT, IN s VARCHAR(20), OUT n INT, INOUT total INT)
             BEGIN
               INSERT INTO t VALUES (i, s);
               SELECT COUNT(*) INTO n FROM t;
               SET total = IFNULL(total, 0) + i;
             END",
            "SET @total = 10",
            "CALL add_row(1, 'one', @n, @total)",
            "SELECT @n, @total",
            "CALL add_row(2, CONCAT('t', 'wo'), @n, @total)",
            "SELECT @n, @total",
            "CALL sp_params.add_row(3, NULL, @n, @nothing)",
            "SELECT @n, @nothing",
            "SELECT * FROM t ORDER BY id",
            // An OUT parameter starts NULL whatever the argument held.
            "CREATE PROCEDURE out_starts_null(OUT o INT) SET @seen = o",
            "SET @o = 5",
            "CALL out_starts_null(@o)",
            "SELECT @seen, @o",
            // A parameter's type converts the argument.
            "CREATE PROCEDURE typed(IN d DECIMAL(5,2), OUT s VARCHAR(10)) SET s = CONCAT('<', d, '>')",
            "CALL typed(1.5, @s)",
            "SELECT @s",
            "CALL typed('2', @s)",
            "SELECT @s",
            // OR REPLACE (MariaDB's) redefines it in place.
            "CREATE OR REPLACE PROCEDURE typed(IN d INT, OUT s VARCHAR(10)) SET s = CONCAT('[', d, ']')",
            "CALL typed(3, @s)",
            "SELECT @s",
        ],
    );
}

#[test]
fn a_procedures_selects_reach_the_client_as_result_sets_before_its_ok() {
    assert_same_answers(
        "sp_results",
        &[
            "CREATE TABLE t (a INT, b VARCHAR(10))",
            "INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, NULL)",
            "CREATE PROCEDURE report(IN lo INT)
             BEGIN
               DECLARE k INT DEFAULT 7;
               SELECT a, b FROM t WHERE a >= lo ORDER BY a;
               INSERT INTO t VALUES (lo * 10, 'new');
               SELECT COUNT(*) AS n, lo, k FROM t;
               UPDATE t SET b = 'upd' WHERE a = lo;
             END",
            "CALL report(2)",
            "CALL report(3)",
            "SELECT * FROM t ORDER BY a",
            // No result set: the OK alone, with the rows the body changed.
            "CREATE PROCEDURE writes() BEGIN INSERT INTO t VALUES (100, 'a'); INSERT INTO t VALUES (101, 'b'), (102, 'c'); END",
            "CALL writes()",
            "CALL writes",
            // Loops around a SELECT: one result set per iteration.
            "CREATE PROCEDURE loop_sets(n INT) BEGIN DECLARE i INT DEFAULT 0; WHILE i < n DO SELECT i; SET i = i + 1; END WHILE; END",
            "CALL loop_sets(3)",
            "CALL loop_sets(0)",
            // A SELECT that fails ends the CALL with its error.
            "CREATE PROCEDURE fails_midway() BEGIN SELECT 1 AS first; SELECT * FROM no_such_table; SELECT 3; END",
            "CALL fails_midway()",
        ],
    );
}

#[test]
fn stored_functions_work_in_any_expression_as_mariadb() {
    assert_same_answers(
        "sf_expr",
        &[
            "CREATE TABLE t (a INT, b VARCHAR(10))",
            "INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, NULL), (4, 'zz')",
            "CREATE FUNCTION twice(x INT) RETURNS INT DETERMINISTIC RETURN x * 2",
            "CREATE FUNCTION label(x INT, s VARCHAR(10)) RETURNS VARCHAR(30)
             BEGIN
               DECLARE r VARCHAR(30) DEFAULT '';
               IF s IS NULL THEN RETURN CONCAT(x, ':none'); END IF;
               SET r = CONCAT(x, ':', s);
               RETURN r;
             END",
            "CREATE FUNCTION third(x INT) RETURNS DECIMAL(5,2) RETURN x / 3",
            "CREATE FUNCTION fact(n INT) RETURNS BIGINT
             BEGIN DECLARE r BIGINT DEFAULT 1; WHILE n > 1 DO SET r = r * n; SET n = n - 1; END WHILE; RETURN r; END",
            "SELECT a, twice(a), label(a, b), third(a) FROM t ORDER BY a",
            "SELECT a FROM t WHERE twice(a) > 4 ORDER BY a",
            "SELECT sf_expr.twice(21), fact(10), fact(0)",
            "SELECT twice(twice(a)) AS q FROM t ORDER BY twice(a) DESC",
            "INSERT INTO t VALUES (twice(50), label(5, 'ins'))",
            "UPDATE t SET a = twice(a) WHERE a = 1",
            "SELECT * FROM t ORDER BY a",
            "SELECT SUM(twice(a)) FROM t",
            // A built-in name takes precedence; a qualified one is the
            // stored function's namespace only.
            "CREATE FUNCTION upper(s VARCHAR(10)) RETURNS VARCHAR(10) RETURN 'mine'",
            "SELECT upper('a')",
            "SELECT sf_expr.upper('a')",
            // The RETURNS type converts the result, strictly.
            "CREATE FUNCTION short(s VARCHAR(20)) RETURNS VARCHAR(3) RETURN s",
            "SELECT short('ab')",
            "SELECT short('abcdef')",
            "CREATE FUNCTION call_proc_var() RETURNS INT BEGIN DECLARE x INT; SET x = twice(4); RETURN x + 1; END",
            "SELECT call_proc_var()",
        ],
    );
}

#[test]
fn routine_errors_have_mariadbs_codes() {
    assert_same_answers(
        "sp_errors",
        &[
            "CREATE PROCEDURE p(IN a INT, OUT b INT) SET b = a",
            "CREATE PROCEDURE p() SET @x = 1",               // 1304
            "CREATE PROCEDURE IF NOT EXISTS p() SET @x = 1", // note 1304
            "CREATE FUNCTION f(a INT) RETURNS INT RETURN a",
            "CREATE FUNCTION f(a INT) RETURNS INT RETURN a", // 1304
            "CALL p(1, 2)",                                  // 1414
            "CALL p(1)",                                     // 1318
            "CALL nope()",                                   // 1305
            "CALL nodb.nope()",                              // 1305
            "SELECT f(1, 2)",                                // 1318
            "SELECT f()",                                    // 1318
            "SELECT nodb.f(1)",                              // 1305
            "SELECT nothing_here(1)",                        // 1305
            "DROP PROCEDURE nope",                           // 1305
            "DROP FUNCTION IF EXISTS nope",                  // note
            "CREATE FUNCTION noret(a INT) RETURNS INT BEGIN SET @x = a; END", // 1320
            "CREATE FUNCTION sel() RETURNS INT BEGIN SELECT 1; RETURN 1; END", // 1415
            "CREATE PROCEDURE ret() BEGIN RETURN 1; END",    // 1313
            "CREATE PROCEDURE dup(a INT, a INT) SET @x = 1", // 1330
            "CREATE FUNCTION commits() RETURNS INT BEGIN COMMIT; RETURN 1; END", // 1422
            "CREATE FUNCTION maybe(a INT) RETURNS INT BEGIN IF a > 0 THEN RETURN a; END IF; END",
            "SELECT maybe(1)",
            "SELECT maybe(0)", // 1321
            "CREATE FUNCTION rec(n INT) RETURNS INT RETURN IF(n > 0, rec(n - 1), 0)",
            "SELECT rec(2)", // 1424
            "CREATE PROCEDURE down(n INT) BEGIN IF n > 0 THEN CALL down(n - 1); END IF; SELECT n; END",
            "CALL down(0)",
            "CALL down(2)", // 1456
            "SET max_sp_recursion_depth = 5",
            "CALL down(2)",
            "SET max_sp_recursion_depth = 0",
            "CREATE PROCEDURE sig() SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no'",
            "CALL sig()",
            "DROP PROCEDURE p",
            "CALL p(1, @b)", // 1305
            "DROP FUNCTION f",
            "SELECT f(1)", // 1305
        ],
    );
}

#[test]
fn cursors_fetch_rows_until_a_not_found_handler_ends_the_loop() {
    assert_same_answers(
        "sp_cursors",
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(10), g INT)",
            "INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 1), (3, 'c', 2), (4, NULL, 2), (5, 'e', 3)",
            "CREATE PROCEDURE walk(IN grp INT, OUT acc VARCHAR(100))
             BEGIN
               DECLARE done INT DEFAULT 0;
               DECLARE i INT; DECLARE v VARCHAR(10);
               DECLARE c CURSOR FOR SELECT id, s FROM t WHERE g >= grp ORDER BY id;
               DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
               SET acc = '';
               OPEN c;
               l: LOOP
                 FETCH c INTO i, v;
                 IF done THEN LEAVE l; END IF;
                 SET acc = CONCAT(acc, i, IFNULL(v, '-'), ',');
               END LOOP;
               CLOSE c;
               -- Reopened, the cursor reads the rows again.
               SET done = 0;
               OPEN c;
               FETCH NEXT FROM c INTO i, v;
               CLOSE c;
               SET acc = CONCAT(acc, 'again ', i);
             END",
            "CALL walk(1, @a)",
            "SELECT @a",
            "CALL walk(2, @a)",
            "SELECT @a",
            "CALL walk(9, @a)",
            "SELECT @a",
            "CREATE TABLE res (g INT, n INT, names VARCHAR(50))",
            // Nested cursors, the inner one parameterised by the outer row;
            // each block's cursor closes when the block ends.
            "CREATE PROCEDURE groups()
             BEGIN
               DECLARE done INT DEFAULT 0;
               DECLARE grp INT;
               DECLARE out_c CURSOR FOR SELECT DISTINCT g FROM t ORDER BY g;
               DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
               OPEN out_c;
               outer_loop: LOOP
                 FETCH out_c INTO grp;
                 IF done THEN LEAVE outer_loop; END IF;
                 BEGIN
                   DECLARE n INT DEFAULT 0;
                   DECLARE nm VARCHAR(10);
                   DECLARE nms VARCHAR(50) DEFAULT '';
                   DECLARE in_c CURSOR FOR SELECT s FROM t WHERE g = grp ORDER BY id;
                   OPEN in_c;
                   inner_loop: LOOP
                     FETCH in_c INTO nm;
                     IF done THEN LEAVE inner_loop; END IF;
                     SET n = n + 1, nms = CONCAT(nms, IFNULL(nm, '?'));
                   END LOOP;
                   SET done = 0;
                   INSERT INTO res VALUES (grp, n, nms);
                 END;
               END LOOP;
               SELECT * FROM res ORDER BY g;
             END",
            "CALL groups()",
            // Cursor errors.
            "CREATE PROCEDURE twice() BEGIN DECLARE c CURSOR FOR SELECT id FROM t; OPEN c; OPEN c; END",
            "CALL twice()", // 1325
            "CREATE PROCEDURE shut() BEGIN DECLARE c CURSOR FOR SELECT id FROM t; CLOSE c; END",
            "CALL shut()", // 1326
            "CREATE PROCEDURE unopened() BEGIN DECLARE a INT; DECLARE c CURSOR FOR SELECT id FROM t; FETCH c INTO a; END",
            "CALL unopened()", // 1326
            "CREATE PROCEDURE width() BEGIN DECLARE a INT; DECLARE c CURSOR FOR SELECT id, s FROM t; OPEN c; FETCH c INTO a; END",
            "CALL width()", // 1328
            "CREATE PROCEDURE past() BEGIN DECLARE a INT; DECLARE c CURSOR FOR SELECT id FROM t WHERE id > 100; OPEN c; FETCH c INTO a; END",
            "CALL past()", // 1329
            "CREATE PROCEDURE e1() BEGIN DECLARE c CURSOR FOR SELECT 1; DECLARE a INT; END", // 1337
            "CREATE PROCEDURE e2() BEGIN DECLARE CONTINUE HANDLER FOR SQLEXCEPTION BEGIN END; DECLARE c CURSOR FOR SELECT 1; END", // 1338
            "CREATE PROCEDURE e3() BEGIN OPEN nosuch; END", // 1324
            "CREATE PROCEDURE e4() BEGIN DECLARE c CURSOR FOR SELECT 1; DECLARE c CURSOR FOR SELECT 2; END", // 1333
        ],
    );
}

#[test]
fn handlers_continue_or_exit_by_the_most_specific_condition() {
    assert_same_answers(
        "sp_handlers",
        &[
            "SET sql_mode = ''",
            "CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(3))",
            // CONTINUE for an error code: the failed statement is skipped.
            "CREATE PROCEDURE dup()
             BEGIN
               DECLARE CONTINUE HANDLER FOR 1062 SET @dup = IFNULL(@dup, 0) + 1;
               INSERT INTO t VALUES (3, 'c');
               INSERT INTO t VALUES (3, 'c');
               SELECT 'after', @dup;
             END",
            "CALL dup()",
            "SHOW WARNINGS",
            // SQLWARNING catches a warning (strings cut in sql_mode '').
            "CREATE PROCEDURE warned()
             BEGIN
               DECLARE CONTINUE HANDLER FOR SQLWARNING SET @w = CONCAT(IFNULL(@w, ''), 'W');
               INSERT INTO t VALUES (1, 'abcdef');
               INSERT INTO t VALUES (2, 'b');
             END",
            "CALL warned()",
            "SELECT @w",
            "SELECT * FROM t ORDER BY id",
            // EXIT leaves the handler's block; the inner block's handler
            // wins over the outer one.
            "CREATE PROCEDURE nested()
             BEGIN
               DECLARE EXIT HANDLER FOR 1062 SET @n = 'outer';
               BEGIN
                 DECLARE EXIT HANDLER FOR SQLEXCEPTION SET @n = 'inner';
                 INSERT INTO t VALUES (1, 'a');
                 SET @n = 'not reached';
               END;
               SET @n = CONCAT(@n, '+after');
               INSERT INTO t VALUES (1, 'a');
               SET @n = 'not reached either';
             END",
            "CALL nested()",
            "SELECT @n",
            // An error in a handler's body is not caught by its own block.
            "CREATE PROCEDURE again()
             BEGIN
               DECLARE EXIT HANDLER FOR 1062 BEGIN SET @h = 'h1'; INSERT INTO t VALUES (1, 'z'); END;
               INSERT INTO t VALUES (1, 'a');
             END",
            "CALL again()", // 1062
            "SELECT @h",
            // Most specific first: the code beats SQLSTATE beats the class.
            "CREATE PROCEDURE pick()
             BEGIN
               DECLARE CONTINUE HANDLER FOR SQLEXCEPTION SET @s = CONCAT(IFNULL(@s, ''), 'x');
               DECLARE CONTINUE HANDLER FOR SQLSTATE '23000' SET @s = CONCAT(IFNULL(@s, ''), 's');
               DECLARE CONTINUE HANDLER FOR 1146 SET @s = CONCAT(IFNULL(@s, ''), 'c');
               INSERT INTO t VALUES (1, 'a');
               SELECT * FROM no_such_table;
               SIGNAL SQLSTATE '45000';
             END",
            "CALL pick()",
            "SELECT @s",
            // NOT FOUND takes SELECT ... INTO's empty result; named
            // conditions, SIGNAL of one.
            "CREATE PROCEDURE named()
             BEGIN
               DECLARE c INT DEFAULT 5;
               DECLARE gone CONDITION FOR SQLSTATE '45001';
               DECLARE dup CONDITION FOR 1062;
               DECLARE CONTINUE HANDLER FOR NOT FOUND SET c = -1;
               DECLARE CONTINUE HANDLER FOR dup SET @named = 'dup';
               DECLARE EXIT HANDLER FOR gone SET @named = CONCAT(@named, ' gone ', c);
               SELECT id INTO c FROM t WHERE id > 99;
               INSERT INTO t VALUES (1, 'a');
               SIGNAL gone SET MESSAGE_TEXT = 'bye';
               SET @named = 'not reached';
             END",
            "CALL named()",
            "SELECT @named",
            // A function's handler may RETURN.
            "CREATE FUNCTION f() RETURNS INT BEGIN DECLARE CONTINUE HANDLER FOR SQLSTATE '45000' RETURN 7; SIGNAL SQLSTATE '45000'; RETURN 1; END",
            "SELECT f()",
            // Declaration errors.
            "CREATE PROCEDURE e1() BEGIN DECLARE CONTINUE HANDLER FOR nosuch BEGIN END; END", // 1319
            "CREATE PROCEDURE e2() BEGIN DECLARE x CONDITION FOR 1062; DECLARE x CONDITION FOR 1063; END", // 1332
            "CREATE PROCEDURE e3() BEGIN DECLARE CONTINUE HANDLER FOR 1062 BEGIN END; DECLARE CONTINUE HANDLER FOR 1062 BEGIN END; END", // 1413
            "CREATE PROCEDURE e4() BEGIN DECLARE CONTINUE HANDLER FOR SQLSTATE '00000' BEGIN END; END", // 1407
            "CREATE PROCEDURE e5() BEGIN l: BEGIN DECLARE EXIT HANDLER FOR SQLEXCEPTION LEAVE l; END; END", // 1308
            "CREATE PROCEDURE e6() BEGIN DECLARE UNDO HANDLER FOR SQLEXCEPTION BEGIN END; END", // 1064
            "CREATE PROCEDURE e7() BEGIN DECLARE d CONDITION FOR 1062; SIGNAL d; END", // 1646
        ],
    );
}

#[test]
fn transactions_inside_a_procedure_follow_the_session() {
    assert_same_answers(
        "sp_trx",
        &[
            "CREATE TABLE t (a INT PRIMARY KEY)",
            "CREATE PROCEDURE tx() BEGIN START TRANSACTION; INSERT INTO t VALUES (1); ROLLBACK; INSERT INTO t VALUES (2); END",
            "CALL tx()",
            "SELECT * FROM t",
            "CREATE PROCEDURE ins(v INT) INSERT INTO t VALUES (v)",
            "BEGIN",
            "CALL ins(3)",
            "CALL ins(4)",
            "ROLLBACK",
            "SELECT * FROM t ORDER BY a",
            "CREATE PROCEDURE commits(v INT) BEGIN INSERT INTO t VALUES (v); COMMIT; END",
            "BEGIN",
            "CALL commits(5)",
            "ROLLBACK",
            "SELECT * FROM t ORDER BY a",
            // The body runs under the sql_mode it was created with.
            "SET sql_mode = ''",
            "CREATE TABLE s (v VARCHAR(3))",
            "CREATE PROCEDURE lax() BEGIN SELECT @@sql_mode AS m; INSERT INTO s VALUES ('too long'); END",
            "SET sql_mode = 'STRICT_TRANS_TABLES'",
            "CALL lax()",
            "SELECT @@sql_mode, v FROM s",
            "INSERT INTO s VALUES ('too long')",
            // A failing statement inside ends the CALL; what ran stays.
            "CREATE PROCEDURE dup_key() BEGIN INSERT INTO t VALUES (6); INSERT INTO t VALUES (6); END",
            "CALL dup_key()",
            "SELECT * FROM t ORDER BY a",
        ],
    );
}

/// Columns of information_schema.ROUTINES that do not depend on the
/// server's clock, character sets or SQL modes.
const ROUTINES: &str = "SELECT ROUTINE_SCHEMA, ROUTINE_NAME, ROUTINE_TYPE, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, \
     NUMERIC_PRECISION, NUMERIC_SCALE, ROUTINE_BODY, ROUTINE_DEFINITION, PARAMETER_STYLE, IS_DETERMINISTIC, \
     SQL_DATA_ACCESS, SECURITY_TYPE, ROUTINE_COMMENT FROM information_schema.ROUTINES \
     WHERE ROUTINE_SCHEMA = 'sp_show' ORDER BY ROUTINE_NAME";

#[test]
fn show_and_information_schema_list_routines_as_mariadb() {
    assert_same_answers(
        "sp_show",
        &[
            "CREATE PROCEDURE p1(IN a INT, OUT b VARCHAR(10)) COMMENT 'the first' DETERMINISTIC READS SQL DATA \
             SQL SECURITY INVOKER BEGIN SET b = a; END",
            "CREATE FUNCTION f1(x INT) RETURNS VARCHAR(12) NO SQL RETURN CONCAT('[', x, ']')",
            "CREATE FUNCTION f2() RETURNS DECIMAL(7,3) RETURN 1.5",
            ROUTINES,
            "SELECT SPECIFIC_NAME, ORDINAL_POSITION, PARAMETER_MODE, PARAMETER_NAME, DATA_TYPE, \
             CHARACTER_MAXIMUM_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE, ROUTINE_TYPE \
             FROM information_schema.PARAMETERS WHERE SPECIFIC_SCHEMA = 'sp_show' \
             ORDER BY SPECIFIC_NAME, ORDINAL_POSITION",
            "SHOW PROCEDURE STATUS LIKE 'nothing'",
            "DROP FUNCTION f2",
            ROUTINES,
        ],
    );
    // SHOW CREATE and SHOW ... STATUS: the columns that do not depend on
    // the server's character sets, modes or clock.
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db("sp_show2"), m.fresh_db("sp_show2"));
    for c in [&mut qc, &mut mc] {
        c.query_drop(
            "CREATE PROCEDURE p(IN a INT, OUT b VARCHAR(10)) COMMENT 'it''s' DETERMINISTIC MODIFIES SQL DATA \
             SQL SECURITY INVOKER BEGIN\n  SET b = a;\nEND",
        )
        .unwrap();
        c.query_drop("CREATE FUNCTION f(x INT) RETURNS VARCHAR(12) RETURN CONCAT('[', x, ']')").unwrap();
    }
    let created = |c: &mut mysql::Conn, what: &str| -> (String, String) {
        let row: mysql::Row = c.query_first(format!("SHOW CREATE {what}")).unwrap().unwrap();
        let stmt: String = row.get(2).unwrap();
        // The definer's host differs between the two test accounts.
        let (_, rest) = stmt.split_once(" PROCEDURE ").or_else(|| stmt.split_once(" FUNCTION ")).unwrap();
        (row.get(0).unwrap(), rest.to_string())
    };
    assert_eq!(created(&mut qc, "PROCEDURE p"), created(&mut mc, "PROCEDURE p"));
    // MariaDB prints RETURNS varchar(12) CHARSET ...; the rest alike.
    let (qn, qs) = created(&mut qc, "FUNCTION f");
    let (mn, ms) = created(&mut mc, "FUNCTION f");
    assert_eq!(qn, mn);
    assert_eq!(qs.split_once(" RETURNS ").unwrap().0, ms.split_once(" RETURNS ").unwrap().0);
    assert_eq!(qs.rsplit_once('\n').unwrap().1, ms.rsplit_once('\n').unwrap().1);
    let status = |c: &mut mysql::Conn, what: &str| -> Vec<(String, String, String, String)> {
        let rows: Vec<mysql::Row> = c.query(format!("SHOW {what} STATUS WHERE Db = 'sp_show2'")).unwrap();
        rows.iter().map(|r| (r.get(0).unwrap(), r.get(1).unwrap(), r.get(2).unwrap(), r.get(6).unwrap())).collect()
    };
    assert_eq!(status(&mut qc, "PROCEDURE"), status(&mut mc, "PROCEDURE"));
    assert_eq!(status(&mut qc, "FUNCTION"), status(&mut mc, "FUNCTION"));
    assert_eq!(status(&mut qc, "PROCEDURE").len(), 1);
}

#[test]
fn drop_database_drops_its_routines() {
    assert_same_answers(
        "sp_dropdb",
        &[
            "CREATE DATABASE sp_dropdb_other",
            "CREATE PROCEDURE sp_dropdb_other.p() SELECT 1",
            "CREATE FUNCTION sp_dropdb_other.f() RETURNS INT RETURN 1",
            "CALL sp_dropdb_other.p()",
            "SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'sp_dropdb_other'",
            "DROP DATABASE sp_dropdb_other",
            "SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'sp_dropdb_other'",
            "CREATE DATABASE sp_dropdb_other",
            "CALL sp_dropdb_other.p()",
            "SELECT sp_dropdb_other.f()",
            "DROP DATABASE sp_dropdb_other",
        ],
    );
}

#[test]
fn routines_survive_a_restart() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("sp_restart");
    for sql in [
        "CREATE TABLE t (a INT)",
        "CREATE PROCEDURE fill(IN n INT, OUT total INT) BEGIN DECLARE i INT DEFAULT 0; \
         WHILE i < n DO INSERT INTO t VALUES (i); SET i = i + 1; END WHILE; SELECT SUM(a) INTO total FROM t; END",
        "CREATE FUNCTION sq(x INT) RETURNS INT DETERMINISTIC COMMENT 'square' RETURN x * x",
        "CREATE PROCEDURE gone() SELECT 1",
        "DROP PROCEDURE gone",
    ] {
        c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    drop(c);
    let q = q.restart();
    let mut c = q.connect(Some("sp_restart"));
    c.query_drop("CALL fill(4, @total)").unwrap();
    let total: Option<i64> = c.query_first("SELECT @total").unwrap().flatten();
    assert_eq!(total, Some(6));
    let v: Option<i64> = c.query_first("SELECT sq(9)").unwrap();
    assert_eq!(v, Some(81));
    let listed: Vec<(String, String, String)> = c
        .query("SELECT ROUTINE_NAME, ROUTINE_TYPE, ROUTINE_COMMENT FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'sp_restart' ORDER BY ROUTINE_NAME")
        .unwrap();
    assert_eq!(
        listed,
        vec![("fill".into(), "PROCEDURE".into(), String::new()), ("sq".into(), "FUNCTION".into(), "square".into())]
    );
    let err = c.query_drop("CALL gone()").unwrap_err();
    assert_eq!(oracle::err_code(&err), 1305);
    // The definitions' table is the catalog's: not listed, not writable.
    let err = c.query_drop("DELETE FROM mysql.quire_routine").unwrap_err();
    assert_eq!(oracle::err_code(&err), 3554);
    let tables: Vec<String> = c.query("SHOW TABLES FROM mysql LIKE 'quire%'").unwrap();
    assert!(tables.is_empty(), "{tables:?}");
}

#[test]
fn what_quire_does_not_run_is_refused_at_create_with_1235() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("sp_refused");
    c.query_drop("CREATE TABLE t (a INT)").unwrap();
    for sql in [
        "CREATE PROCEDURE d() BEGIN DROP TRIGGER tr; END",
        "CREATE PROCEDURE pr() BEGIN DO 1; END",
        "CREATE FUNCTION loadable RETURNS STRING SONAME 'x.so'",
    ] {
        let e = c.query_drop(sql).unwrap_err();
        assert_eq!(oracle::err_code(&e), 1235, "{sql}");
    }
    let n: Option<i64> =
        c.query_first("SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'sp_refused'").unwrap();
    assert_eq!(n, Some(0));
}

#[test]
fn sql_security_definer_runs_with_the_definers_databases() {
    let q = Quire::start(&[]);
    let mut root = q.connect(None);
    for sql in [
        "CREATE DATABASE sp_sec",
        "CREATE DATABASE sp_secret",
        "CREATE TABLE sp_secret.t (a INT)",
        "INSERT INTO sp_secret.t VALUES (42)",
        "CREATE PROCEDURE sp_sec.as_definer() SQL SECURITY DEFINER SELECT a FROM sp_secret.t",
        "CREATE PROCEDURE sp_sec.as_invoker() SQL SECURITY INVOKER SELECT a FROM sp_secret.t",
        "CREATE USER limited IDENTIFIED BY 'pw'",
        "GRANT ALL ON sp_sec.* TO limited",
    ] {
        root.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let opts = q.opts(Some("sp_sec")).user(Some("limited")).pass(Some("pw"));
    let mut c = mysql::Conn::new(opts).unwrap();
    let rows: Vec<i64> = c.query("CALL as_definer()").unwrap();
    assert_eq!(rows, vec![42]);
    let e = c.query_drop("CALL as_invoker()").unwrap_err();
    assert!(matches!(oracle::err_code(&e), 1044 | 1142), "{e}");
    // The session's own account is back after the CALL.
    let who: Option<String> = c.query_first("SELECT CURRENT_USER()").unwrap();
    assert!(who.unwrap().starts_with("limited"));
    // Routines of a database the user may not use are not run (1370).
    let e = c.query_drop("CALL sp_secret.nothing()").unwrap_err();
    assert_eq!(oracle::err_code(&e), 1305);
    root.query_drop("CREATE PROCEDURE sp_secret.p() SELECT 1").unwrap();
    let e = c.query_drop("CALL sp_secret.p()").unwrap_err();
    assert_eq!(oracle::err_code(&e), 1370);
}

#[test]
fn deep_recursion_ends_with_an_error_and_the_server_lives() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("sp_deep");
    c.query_drop("CREATE PROCEDURE down(n INT) BEGIN IF n > 0 THEN CALL down(n - 1); END IF; SET @reached = n; END")
        .unwrap();
    c.query_drop("SET max_sp_recursion_depth = 255").unwrap();
    c.query_drop("CALL down(50)").unwrap();
    let reached: Option<i64> = c.query_first("SELECT @reached").unwrap().flatten();
    assert_eq!(reached, Some(50));
    let e = c.query_drop("CALL down(200)").unwrap_err();
    assert_eq!(oracle::err_code(&e), 1436);
    let one: Option<i64> = c.query_first("SELECT 1").unwrap();
    assert_eq!(one, Some(1));
}
