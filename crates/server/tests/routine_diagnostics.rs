//! GET DIAGNOSTICS and RESIGNAL (quire issue 19, stored routines'
//! handlers): what each diagnostics item holds after a server error, a
//! warning and a SIGNAL, at top level and in procedures and handlers;
//! RESIGNAL's forms and what the client and SHOW WARNINGS see after
//! them; the errors 1645, 1758 and 1887. Each scenario runs on quire and
//! on MariaDB 10.11 and every answer is compared. After a CALL that
//! fails, SHOW ERRORS stands for SHOW WARNINGS: MariaDB adds a note
//! (4094, "At line N in db.proc") that quire does not. GET STACKED
//! DIAGNOSTICS, which MariaDB 10.11 lacks (1064), is checked on quire
//! alone against MySQL 8.0's manual.

mod oracle;

use mysql::prelude::Queryable;
use oracle::{answer, answers, assert_same_answers, Answer, Quire};

const ALL_CONDITION_ITEMS: &str = "GET DIAGNOSTICS CONDITION 1 @m = MESSAGE_TEXT, @e = MYSQL_ERRNO,
    @s = RETURNED_SQLSTATE, @co = CLASS_ORIGIN, @sco = SUBCLASS_ORIGIN, @cc = CONSTRAINT_CATALOG,
    @cs = CONSTRAINT_SCHEMA, @cn = CONSTRAINT_NAME, @cat = CATALOG_NAME, @sch = SCHEMA_NAME,
    @tn = TABLE_NAME, @col = COLUMN_NAME, @cur = CURSOR_NAME";
const SHOW_ALL_ITEMS: &str = "SELECT @m, @e, @s, @co, @sco, @cc, @cs, @cn, @cat, @sch, @tn, @col, @cur";

#[test]
fn get_diagnostics_at_top_level_reads_the_previous_statements_area() {
    assert_same_answers(
        "gd_top",
        &[
            "CREATE TABLE t (a INT PRIMARY KEY)",
            "INSERT INTO t VALUES (1)",
            "INSERT INTO t VALUES (1)", // 1062
            "GET DIAGNOSTICS @n = NUMBER, @r = ROW_COUNT",
            "SELECT @n, @r",
            ALL_CONDITION_ITEMS,
            SHOW_ALL_ITEMS,
            "SELECT * FROM nosuch", // 1146
            ALL_CONDITION_ITEMS,
            SHOW_ALL_ITEMS,
            // GET DIAGNOSTICS leaves the area as it was.
            "SHOW WARNINGS",
            // Out of range: OK with error 1758 added, nothing assigned.
            "GET DIAGNOSTICS CONDITION 2 @m = MESSAGE_TEXT",
            "SHOW WARNINGS",
            "SELECT @m, @@warning_count, @@error_count",
            "GET DIAGNOSTICS CONDITION 0 @m = MESSAGE_TEXT",
            "GET DIAGNOSTICS CONDITION 'x' @m = MESSAGE_TEXT",
            "GET DIAGNOSTICS CONDITION @unset @m = MESSAGE_TEXT",
            "SHOW WARNINGS",
            "GET DIAGNOSTICS CONDITION '1' @m = MESSAGE_TEXT",
            "SELECT @m",
            // Rows changed, and warnings of a statement without tables.
            "INSERT INTO t VALUES (2), (3)",
            "GET DIAGNOSTICS @n = NUMBER, @r = ROW_COUNT",
            "SELECT @n, @r, ROW_COUNT()",
            "SELECT 1 + 'a', 1 / 0",
            "GET DIAGNOSTICS @n = NUMBER, @r = ROW_COUNT",
            "SELECT @n, @r",
            "GET CURRENT DIAGNOSTICS CONDITION 2 @m = MESSAGE_TEXT, @e = MYSQL_ERRNO, @s = RETURNED_SQLSTATE",
            "SELECT @m, @e, @s",
            // A note.
            "DROP TABLE IF EXISTS nosuch2",
            ALL_CONDITION_ITEMS,
            SHOW_ALL_ITEMS,
            // Errors of the statement itself.
            "GET DIAGNOSTICS x = NUMBER",                      // 1327
            "GET DIAGNOSTICS CONDITION 1+0 @m = MESSAGE_TEXT", // 1064
            "GET DIAGNOSTICS @n = MESSAGE_TEXT",               // 1064
            "RESIGNAL",                                        // 1645
            "SHOW WARNINGS",
        ],
    );
}

#[test]
fn get_diagnostics_in_procedures_sees_each_statements_conditions() {
    assert_same_answers(
        "gd_proc",
        &[
            "CREATE TABLE t (a INT PRIMARY KEY)",
            "INSERT INTO t VALUES (1)",
            // In a CONTINUE handler the current area holds the condition
            // that activated it, until a statement with tables clears it.
            "CREATE PROCEDURE in_handler()
             BEGIN
               DECLARE n INT; DECLARE m TEXT; DECLARE e INT; DECLARE s CHAR(5);
               DECLARE CONTINUE HANDLER FOR SQLEXCEPTION
               BEGIN
                 GET DIAGNOSTICS n = NUMBER;
                 GET DIAGNOSTICS CONDITION 1 m = MESSAGE_TEXT, e = MYSQL_ERRNO, s = RETURNED_SQLSTATE;
                 SELECT 'in handler', n, m, e, s;
                 SELECT * FROM t WHERE a = 99;
                 GET DIAGNOSTICS n = NUMBER;
                 SELECT 'after select', n;
               END;
               INSERT INTO t VALUES (1);
               GET DIAGNOSTICS n = NUMBER;
               SELECT 'after handler', n;
               SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'raised', MYSQL_ERRNO = 1777;
               GET DIAGNOSTICS n = NUMBER;
               SELECT 'after signal', n;
             END",
            "CALL in_handler()",
            "SHOW WARNINGS",
            // A SIGNAL'd warning keeps its SQLSTATE; SET does not clear.
            "CREATE PROCEDURE warned()
             BEGIN
               DECLARE n INT; DECLARE m TEXT; DECLARE e INT; DECLARE s CHAR(5); DECLARE r INT;
               INSERT INTO t VALUES (10), (11);
               GET DIAGNOSTICS n = NUMBER, r = ROW_COUNT;
               SELECT n, r;
               SIGNAL SQLSTATE '01234' SET MESSAGE_TEXT = 'my warn';
               GET DIAGNOSTICS n = NUMBER;
               GET DIAGNOSTICS CONDITION 1 m = MESSAGE_TEXT, e = MYSQL_ERRNO, s = RETURNED_SQLSTATE;
               SELECT n, m, e, s;
               SET @z = 1;
               GET DIAGNOSTICS n = NUMBER;
               SELECT 'after set', n;
             END",
            "CALL warned()",
            "SHOW WARNINGS",
            "GET DIAGNOSTICS CONDITION 1 @m = MESSAGE_TEXT, @e = MYSQL_ERRNO, @s = RETURNED_SQLSTATE",
            "SELECT @m, @e, @s",
            // The condition number may be a local; out of range adds 1758.
            "CREATE PROCEDURE numbered()
             BEGIN
               DECLARE n INT DEFAULT 2;
               SELECT 1 + 'a', 2 + 'b';
               GET DIAGNOSTICS CONDITION n @m2 = MESSAGE_TEXT;
               SET n = 3;
               GET DIAGNOSTICS CONDITION n @m3 = MESSAGE_TEXT;
               SELECT @m2, @m3;
             END",
            "SET @m3 = 'unset'",
            "CALL numbered()",
            "SHOW WARNINGS",
            // A target that is no variable.
            "CREATE PROCEDURE bad() BEGIN GET DIAGNOSTICS nosuch = NUMBER; END", // 1327
            "CREATE PROCEDURE bad() BEGIN GET DIAGNOSTICS CONDITION nosuch @m = MESSAGE_TEXT; END", // 1327
        ],
    );
}

#[test]
fn resignal_passes_the_condition_on_changed_or_under_a_new_one() {
    // What the client sees of a failing CALL, then the area it left.
    let after_failure = [
        "SHOW ERRORS",
        "GET DIAGNOSTICS CONDITION 1 @m = MESSAGE_TEXT, @e = MYSQL_ERRNO, @s = RETURNED_SQLSTATE",
        "SELECT @m, @e, @s",
    ];
    let mut statements = vec![
        "CREATE TABLE t (a INT PRIMARY KEY)",
        "INSERT INTO t VALUES (1)",
        "CREATE PROCEDURE same() BEGIN DECLARE EXIT HANDLER FOR SQLEXCEPTION RESIGNAL; INSERT INTO t VALUES (1); END",
        "CREATE PROCEDURE changed() BEGIN DECLARE EXIT HANDLER FOR SQLEXCEPTION RESIGNAL SET MESSAGE_TEXT = 'changed'; INSERT INTO t VALUES (1); END",
        "CREATE PROCEDURE errno() BEGIN DECLARE EXIT HANDLER FOR SQLEXCEPTION RESIGNAL SET MYSQL_ERRNO = 1234; INSERT INTO t VALUES (1); END",
        "CREATE PROCEDURE new_one() BEGIN DECLARE EXIT HANDLER FOR SQLEXCEPTION RESIGNAL SQLSTATE '45001' SET MESSAGE_TEXT = 'new one', MYSQL_ERRNO = 1777; INSERT INTO t VALUES (1); END",
        // A new SQLSTATE alone keeps the old message, with code 1644.
        "CREATE PROCEDURE state_only() BEGIN DECLARE gone CONDITION FOR SQLSTATE '45002'; DECLARE EXIT HANDLER FOR SQLEXCEPTION RESIGNAL gone; INSERT INTO t VALUES (1); END",
        // The handler's statements cleared the area: RESIGNAL puts the
        // condition back (under the new one).
        "CREATE PROCEDURE cleared() BEGIN DECLARE EXIT HANDLER FOR 1062 BEGIN SELECT * FROM t WHERE a = 100; RESIGNAL; END; INSERT INTO t VALUES (1); END",
        "CREATE PROCEDURE cleared_new() BEGIN DECLARE EXIT HANDLER FOR 1062 BEGIN SELECT * FROM t WHERE a = 100; RESIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'x'; END; INSERT INTO t VALUES (1); END",
        // A handler that SIGNALs: the condition it took leaves the area.
        "CREATE PROCEDURE signals() BEGIN DECLARE EXIT HANDLER FOR 1062 SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'from handler'; INSERT INTO t VALUES (1); END",
        // Of a SIGNAL's error, after reading it in the handler.
        "CREATE PROCEDURE of_signal() BEGIN DECLARE EXIT HANDLER FOR SQLSTATE '45000' BEGIN DECLARE n INT; GET DIAGNOSTICS n = NUMBER; SELECT n; RESIGNAL SET MESSAGE_TEXT = 'again'; END; SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'first'; END",
        // A warning RESIGNALed goes on; an error made a warning goes on.
        "CREATE PROCEDURE to_warning() BEGIN DECLARE CONTINUE HANDLER FOR SQLEXCEPTION BEGIN RESIGNAL SQLSTATE '01002' SET MESSAGE_TEXT = 'to warn'; SELECT 'after resignal'; END; INSERT INTO t VALUES (1); SELECT 'after insert'; END",
        "CREATE PROCEDURE a_warning() BEGIN DECLARE CONTINUE HANDLER FOR SQLWARNING BEGIN RESIGNAL; SELECT 'after resignal'; END; SIGNAL SQLSTATE '01000' SET MESSAGE_TEXT = 'w1'; SELECT 'after signal'; END",
        "CREATE PROCEDURE escalated() BEGIN DECLARE CONTINUE HANDLER FOR SQLWARNING BEGIN RESIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'escalated'; SELECT 'after resignal'; END; SIGNAL SQLSTATE '01000' SET MESSAGE_TEXT = 'w1'; SELECT 'after signal'; END",
        // An outer block's handler takes what an inner handler RESIGNALs,
        // and with it the whole area.
        "CREATE PROCEDURE wrapped()
         BEGIN
           DECLARE EXIT HANDLER FOR SQLSTATE '45000'
           BEGIN
             DECLARE m TEXT; DECLARE e INT; DECLARE n INT;
             GET DIAGNOSTICS n = NUMBER;
             GET DIAGNOSTICS CONDITION n m = MESSAGE_TEXT, e = MYSQL_ERRNO;
             SELECT 'outer', n, m, e;
           END;
           BEGIN
             DECLARE EXIT HANDLER FOR 1062 RESIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'wrapped';
             INSERT INTO t VALUES (1);
           END;
           SELECT 'after block';
         END",
        // Outside a handler, even in a block that declares one: 1645.
        "CREATE PROCEDURE bare() RESIGNAL",
        "CREATE PROCEDURE declared() BEGIN DECLARE EXIT HANDLER FOR 1146 BEGIN END; RESIGNAL; END",
        "CREATE PROCEDURE no_state() BEGIN DECLARE d CONDITION FOR 1062; DECLARE EXIT HANDLER FOR SQLEXCEPTION RESIGNAL d; SELECT 1; END", // 1646
    ];
    // (A CALL of a body without tables leaves the area as it was in
    // MariaDB: each of these starts from an area cleared by a SELECT.)
    for call in ["CALL bare()", "CALL declared()", "CALL same()", "CALL changed()", "CALL errno()", "CALL new_one()"]
        .into_iter()
        .chain(["CALL state_only()", "CALL cleared()", "CALL cleared_new()", "CALL signals()", "CALL of_signal()"])
        .chain(["CALL escalated()"])
    {
        statements.push("SELECT a FROM t WHERE a = 0");
        statements.push(call);
        statements.extend(after_failure);
    }
    for call in ["CALL to_warning()", "CALL a_warning()", "CALL wrapped()"] {
        statements.push(call);
        statements.push("SHOW WARNINGS");
    }
    assert_same_answers("gd_resignal", &statements);
}

#[test]
fn handlers_take_notes_unless_sql_notes_drops_them() {
    assert_same_answers(
        "gd_notes",
        &[
            // Note 1265 (a decimal rounded) in any sql_mode.
            "CREATE TABLE t (d DECIMAL(5,1))",
            "CREATE PROCEDURE by_class() BEGIN DECLARE CONTINUE HANDLER FOR SQLWARNING SET @h = 'yes'; SET @h = 'no'; INSERT INTO t VALUES (1.25); SELECT @h; END",
            "CREATE PROCEDURE by_code() BEGIN DECLARE CONTINUE HANDLER FOR 1265 SET @h = 'yes'; SET @h = 'no'; INSERT INTO t VALUES (1.25); SELECT @h; END",
            "CALL by_class()",
            "SHOW WARNINGS",
            "CALL by_code()",
            "SHOW WARNINGS",
            // Without sql_notes there is no note to take.
            "SET sql_notes = 0",
            "CALL by_code()",
            "SHOW WARNINGS",
        ],
    );
}

#[test]
fn get_stacked_diagnostics_reads_the_area_the_handler_began_with() {
    // MariaDB 10.11 has no GET STACKED DIAGNOSTICS: MySQL 8.0's manual is
    // the reference (STACKED keeps the handler's first area, CURRENT
    // follows the handler's statements; 1887 outside a handler).
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("gd_stacked");
    for sql in [
        "CREATE TABLE t (a INT PRIMARY KEY)",
        "INSERT INTO t VALUES (1)",
        "CREATE PROCEDURE p()
         BEGIN
           DECLARE EXIT HANDLER FOR 1062
           BEGIN
             DECLARE cn, sn INT; DECLARE sm TEXT; DECLARE ss CHAR(5);
             SELECT * FROM t WHERE a = 100;
             GET CURRENT DIAGNOSTICS cn = NUMBER;
             GET STACKED DIAGNOSTICS sn = NUMBER;
             GET STACKED DIAGNOSTICS CONDITION 1 sm = MESSAGE_TEXT, ss = RETURNED_SQLSTATE;
             SELECT cn, sn, sm, ss;
           END;
           INSERT INTO t VALUES (1);
         END",
        "CREATE PROCEDURE outside() BEGIN GET STACKED DIAGNOSTICS @n = NUMBER; END",
    ] {
        c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let got = answers(&mut c, "CALL p()");
    let row = |cells: &[&str]| cells.iter().map(|s| Some(s.to_string())).collect::<Vec<_>>();
    assert_eq!(
        got[1].1,
        Answer::Rows(vec![row(&["0", "1", "Duplicate entry '1' for key 'PRIMARY'", "23000"])]),
        "{got:?}"
    );
    assert_eq!(answer(&mut c, "CALL outside()"), Answer::Err(1887));
    assert_eq!(answer(&mut c, "GET STACKED DIAGNOSTICS @n = NUMBER"), Answer::Err(1887));
    let state: Option<String> =
        c.query_first("SHOW ERRORS").map(|r: Option<(String, u16, String)>| r.map(|x| x.2)).unwrap();
    assert_eq!(state.as_deref(), Some("GET STACKED DIAGNOSTICS when handler not active"));
}

#[test]
fn triggers_read_diagnostics_and_resignal_outside_a_handler_fails() {
    assert_same_answers(
        "gd_trigger",
        &[
            "CREATE TABLE src (a INT)",
            "CREATE TRIGGER tr BEFORE INSERT ON src FOR EACH ROW
             BEGIN
               DECLARE CONTINUE HANDLER FOR SQLEXCEPTION
                 GET DIAGNOSTICS CONDITION 1 @tm = MESSAGE_TEXT, @te = MYSQL_ERRNO;
               SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'in trigger';
             END",
            "INSERT INTO src VALUES (1)",
            "SELECT @tm, @te",
            "CREATE TRIGGER tr2 AFTER INSERT ON src FOR EACH ROW RESIGNAL",
            "INSERT INTO src VALUES (2)", // 1645
            "SHOW ERRORS",
            "SELECT * FROM src",
        ],
    );
}
