//! Warnings as MariaDB gives them, statement by statement against the
//! MariaDB the harness starts: the values stored in non-strict `sql_mode`,
//! the errors of strict mode, the conditions SHOW WARNINGS lists, the
//! warning counts of OK and EOF packets and of the info texts, and the
//! lifetime of the diagnostics area.

mod oracle;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{assert_same, assert_same_diagnostics, diagnosed, show, MariaDb, Quire};

const TABLE: &str = "CREATE TABLE t (id INT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, d DECIMAL(5,2), \
                     c CHAR(3), v VARCHAR(3), dt DATE, dtt DATETIME, nn INT NOT NULL)";

/// Both servers, a fresh database `db` with table `t`, and `sql_mode`.
fn setup(db: &str, sql_mode: &str) -> (Quire, Conn, Conn) {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db(db);
    let mut mc = MariaDb::get().fresh_db(db);
    let set_mode = format!("SET sql_mode = '{sql_mode}'");
    assert_same(&mut qc, &mut mc, &[&set_mode, TABLE]);
    (q, qc, mc)
}

#[test]
fn non_strict_inserts_store_adjusted_values_with_mariadbs_warnings() {
    let (_q, mut qc, mut mc) = setup("warn_nonstrict_insert", "");
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            // Out of range: clipped (1264); too long: cut (1265); a left-out
            // NOT NULL column without default: 0 (1364).
            "INSERT INTO t (id, ti, tu, d, c, v) VALUES (1, 300, -5, 12345.678, 'abcdef', 'abcd  ')",
            // Strings into numbers: 1366 for no number, 1265 for a prefix.
            "INSERT INTO t (id, ti, tu, d, c, v, nn) VALUES (2, 'abc', '12abc', '1.2.3', 5, 123456, 0)",
            // Bad dates: zero dates with 1265 (MariaDB; MySQL says 1292).
            "INSERT INTO t (id, dt, dtt, nn) VALUES (3, '2020-13-45', 'garbage', 0), (4, '2020-02-30', '2020-01-01 25:00:00', 0)",
            // NULL into NOT NULL in a multi-row INSERT: 0 with 1048.
            "INSERT INTO t (id, nn) VALUES (5, NULL), (6, 1)",
            // Notes, not warnings: decimals rounded, a time part dropped,
            // trailing spaces cut from a VARCHAR, spaces after a number.
            "INSERT INTO t (id, d, ti, dt, v, nn) VALUES (7, 1.235, 1.5, '2020-01-01 10:00:00', 'ab    ', 0), (8, '  1.5  ', ' 7 ', '0000-00-00', 'x', 0)",
            // Within range and exact: no condition at all.
            "INSERT INTO t (id, d, ti, c, nn) VALUES (9, 1.5, '2.5', 'ab   ', 0)",
            "SELECT id, ti, tu, d, c, v, dt, dtt, nn FROM t ORDER BY id",
        ],
    );
}

#[test]
fn non_strict_updates_count_warnings_per_row_in_the_info_text() {
    let (_q, mut qc, mut mc) = setup("warn_nonstrict_update", "");
    assert_same(
        &mut qc,
        &mut mc,
        &["INSERT INTO t (id, ti, v, nn) VALUES (1, 1, 'a', 1), (2, 2, 'b', 2), (3, NULL, 'c', 3)"],
    );
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "UPDATE t SET ti = 1000 WHERE id >= 2",
            "UPDATE t SET ti = ti + 1000, v = 'zzzzzz' WHERE id IN (1, 3)",
            // NULL into NOT NULL: the implicit default, 1048 as a warning.
            "UPDATE t SET nn = NULL WHERE id = 1",
            "UPDATE t SET nn = NULL WHERE id = 1",
            "SELECT id, ti, v, nn FROM t ORDER BY id",
        ],
    );
}

#[test]
fn strict_mode_refuses_bad_values_with_mariadbs_codes_and_rows() {
    let (_q, mut qc, mut mc) = setup("warn_strict", "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO");
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "INSERT INTO t (id, ti, nn) VALUES (1, 300, 0)",
            "INSERT INTO t (id, v, nn) VALUES (1, 'a', 0), (2, 'abcd', 0)",
            "INSERT INTO t (id, dt, nn) VALUES (1, '2020-13-45', 0)",
            "INSERT INTO t (id, dtt, nn) VALUES (1, 'garbage', 0)",
            "INSERT INTO t (id, ti, nn) VALUES (1, 'abc', 0)",
            "INSERT INTO t (id, ti, nn) VALUES (1, '12abc', 0)",
            "INSERT INTO t (id, d, nn) VALUES (1, 'abc', 0)",
            "INSERT INTO t (id, ti) VALUES (1, 1)",
            // Expression warnings are errors in a strict INSERT / UPDATE.
            "INSERT INTO t (id, ti, nn) VALUES (1, '12abc' + 1, 0)",
            "INSERT INTO t (id, d, nn) VALUES (1, 1/0, 0)",
            // Notes stay notes.
            "INSERT INTO t (id, d, nn) VALUES (1, 1.235, 0)",
            "UPDATE t SET ti = 200 WHERE id = 1",
            "UPDATE t SET nn = NULL WHERE id = 1",
            "SELECT id, ti, d, nn FROM t",
            // ... and a SELECT only warns.
            "SELECT '12abc' + 1, 1/0",
        ],
    );
    // NULL into NOT NULL in a single-row INSERT is 1048 in any mode.
    // MariaDB 10.11 lists a second error after it, "1105 Unknown error"
    // (a MariaDB artefact MySQL does not have): quire lists the 1048 alone.
    let null_row = "INSERT INTO t (id, nn) VALUES (2, NULL)";
    assert_same(&mut qc, &mut mc, &[null_row, "SET sql_mode = ''", null_row]);
    let d = diagnosed(&mut qc, null_row);
    assert_eq!(d.shown, vec![("Error".to_string(), 1048, "Column 'nn' cannot be null".to_string())]);
}

#[test]
fn expressions_warn_on_strings_read_as_numbers_and_division_by_zero() {
    let (_q, mut qc, mut mc) = setup("warn_expr", "ERROR_FOR_DIVISION_BY_ZERO");
    assert_same(&mut qc, &mut mc, &["INSERT INTO t (id, v, nn) VALUES (1, 'abc', 0), (2, '12', 0), (3, '1x', 0)"]);
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "SELECT '12abc' + 1, 'x' + 1, -'1x', '1.5x' + 0, '1e5x' + 0, ' 1' + 0, '1 ' + 0, '' + 0",
            "SELECT 1/0, 1 DIV 0, 1 % 0, 5 / '0', 5 / ''",
            "SELECT id, v + 0 FROM t ORDER BY id",
            "INSERT INTO t (id, ti, d, nn) VALUES (4, '12abc' + 1, 1/0, 0)",
            "SELECT id, ti, d, nn FROM t WHERE id = 4",
            "SET sql_mode = ''",
            "SELECT 1/0",
        ],
    );
}

#[test]
fn the_diagnostics_area_lives_until_a_statement_uses_a_table_or_raises_a_condition() {
    let (_q, mut qc, mut mc) = setup("warn_area", "");
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "SELECT 'a' + 0, 'b' + 0, 'c' + 0",
            // No table and no condition: the area stays.
            "SELECT 1",
            "SET @x = 1",
            "SELECT @@warning_count, @@error_count",
            "SHOW COUNT(*) WARNINGS",
            "SHOW COUNT(*) ERRORS",
            "SHOW WARNINGS LIMIT 1",
            "SHOW WARNINGS LIMIT 1, 5",
            "SHOW ERRORS",
            "BEGIN",
            "COMMIT",
            // A condition of its own replaces the area.
            "SELECT 'd' + 0",
            // A statement that uses a table clears it.
            "SELECT id FROM t",
            // The error of a failed statement is the area, level Error.
            "SELECT * FROM no_such_table",
            "SELECT @@warning_count, @@error_count",
            "SHOW ERRORS",
            // max_error_count bounds what is kept, not what is counted.
            "SET max_error_count = 1",
            "SELECT 'a' + 0, 'b' + 0, 'c' + 0",
            "SELECT @@warning_count",
            "SET max_error_count = 64",
            // sql_notes = 0 drops notes.
            "SET sql_notes = 0",
            "INSERT INTO t (id, d, nn) VALUES (1, 1.235, 0), (2, 1.5, 0)",
            "SET sql_notes = 1",
            "INSERT INTO t (id, d, nn) VALUES (3, 1.235, 0), (4, 1.5, 0)",
        ],
    );
    // IF [NOT] EXISTS finding what it allows for leaves a note.
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "DROP TABLE IF EXISTS no_such_1, no_such_2",
            "CREATE TABLE IF NOT EXISTS t (id INT PRIMARY KEY)",
            "CREATE DATABASE IF NOT EXISTS warn_area",
            "DROP DATABASE IF EXISTS warn_area_none",
        ],
    );
    // A syntax error is the area too (the messages differ: quire's parser
    // is not MariaDB's).
    assert_same(&mut qc, &mut mc, &["SELEKT 1", "SHOW COUNT(*) ERRORS", "SELECT @@error_count"]);
}

#[test]
fn prepared_statements_report_warnings_in_ok_and_eof_packets() {
    let (_q, mut qc, mut mc) = setup("warn_prepared", "");
    for c in [&mut qc, &mut mc] {
        c.exec_drop("INSERT INTO t (id, ti, nn) VALUES (?, ?, ?)", (1, 1000, 0)).expect("insert");
        assert_eq!(c.warnings(), 1, "OK packet of a prepared INSERT");
        let rows: Vec<mysql::Row> = c.exec("SELECT ti + ? FROM t", ("5x",)).expect("select");
        assert_eq!(rows.len(), 1);
        assert_eq!(c.warnings(), 1, "EOF packet of a prepared SELECT");
        let shown = show(c, "SHOW WARNINGS");
        assert_eq!(shown, vec![("Warning".to_string(), 1292, "Truncated incorrect DOUBLE value: '5x'".to_string())]);
    }
    assert_eq!(diagnosed(&mut qc, "SELECT 1"), diagnosed(&mut mc, "SELECT 1"));
}
