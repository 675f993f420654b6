//! STR_TO_DATE and GET_FORMAT beside MariaDB: every specifier MySQL reads,
//! the result type the format decides (DATE, TIME, DATETIME, with `%f`
//! six digits; a format from a column gives DATETIME(6)), mismatches as
//! NULL with warning 1411, left-over text as 1292, zero dates under
//! NO_ZERO_DATE / NO_ZERO_IN_DATE, and strict-mode INSERTs failing with
//! 1411 where MariaDB fails.

mod oracle;

use oracle::{assert_same_diagnostics, MariaDb, Quire};

fn same_diagnosed(db: &str, statements: &[&str]) {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db(db);
    let mut mc = MariaDb::get().fresh_db(db);
    // A statement with a table clears the diagnostics fresh_db left.
    assert_same_diagnostics(&mut qc, &mut mc, &["CREATE TABLE clear_diagnostics (i INT)"]);
    assert_same_diagnostics(&mut qc, &mut mc, statements);
}

#[test]
fn literal_formats_read_as_mariadb_reads_them() {
    same_diagnosed(
        "s2d_lit",
        &[
            "SELECT STR_TO_DATE('01,5,2013','%d,%m,%Y'), STR_TO_DATE('May 1, 2013','%M %d,%Y')",
            "SELECT STR_TO_DATE('a09:30:17','a%h:%i:%s')",
            "SELECT STR_TO_DATE('a09:30:17','%h:%i:%s')",
            "SELECT STR_TO_DATE('09:30:17a','%h:%i:%s')",
            "SELECT STR_TO_DATE('abc','abc'), STR_TO_DATE('9','%m'), STR_TO_DATE('9','%s')",
            "SELECT STR_TO_DATE('00/00/0000', '%m/%d/%Y'), STR_TO_DATE('04/31/2004', '%m/%d/%Y')",
            "SELECT STR_TO_DATE('2004-02-30 10:11:12', '%Y-%m-%d %H:%i:%s')",
            "SELECT STR_TO_DATE('200442 Monday', '%X%V %W'), STR_TO_DATE('2004 42 Mon', '%x %v %a')",
            "SELECT STR_TO_DATE('2004 42 1', '%Y %U %w'), STR_TO_DATE('2004 42 0', '%Y %u %w')",
            "SELECT STR_TO_DATE('2004 42 1', '%Y %V %w')",
            "SELECT STR_TO_DATE('2004 00 Sun', '%Y %U %a'), STR_TO_DATE('Tuesday 2020 10', '%W %Y %U')",
            "SELECT STR_TO_DATE('2020 366', '%Y %j'), STR_TO_DATE('2021 060', '%Y %j')",
            "SELECT STR_TO_DATE('2021 366', '%Y %j')",
            "SELECT STR_TO_DATE('10:20:30 PM', '%r'), STR_TO_DATE('12:00:00 AM', '%r'), STR_TO_DATE('12:00:00 pm', '%r')",
            "SELECT STR_TO_DATE('13:20:30 PM', '%r')",
            "SELECT STR_TO_DATE('23:59:59', '%T'), STR_TO_DATE('7:8', '%T')",
            "SELECT STR_TO_DATE('24:00:00', '%T')",
            "SELECT STR_TO_DATE('1.5', '%s.%f'), STR_TO_DATE('2020-01-02 03:04:05.123', '%Y-%m-%d %H:%i:%s.%f')",
            "SELECT STR_TO_DATE('5th of June 99', '%D of %M %y'), STR_TO_DATE('1st Jan 70', '%D %b %y'), STR_TO_DATE('Dec 3 69', '%b %e %y')",
            "SELECT STR_TO_DATE('jun 2020', '%b %Y'), STR_TO_DATE('Septemb 2020', '%M %Y')",
            "SELECT STR_TO_DATE('Ju 2020', '%M %Y')",
            "SELECT STR_TO_DATE('June 2020', '%b %Y')",
            "SELECT STR_TO_DATE('3 pm', '%l %p'), STR_TO_DATE('15', '%k'), STR_TO_DATE('7', '%c'), STR_TO_DATE('03', '%I')",
            "SELECT STR_TO_DATE('pm 3', '%p %l')",
            "SELECT STR_TO_DATE('2020/1/2', '%Y/%c/%e'), STR_TO_DATE('20200102', '%Y%m%d'), STR_TO_DATE(20200102, '%Y%m%d')",
            "SELECT STR_TO_DATE('  2020 - 01 - 02 ', '%Y-%m-%d'), STR_TO_DATE('2020-01-02   ', '%Y-%m-%d')",
            "SELECT STR_TO_DATE('2020-01-02 garbage', '%Y-%m-%d')",
            "SELECT STR_TO_DATE('10:11 garbage', '%H:%i'), STR_TO_DATE('2020-01-02 10:11 x', '%Y-%m-%d %H:%i')",
            "SELECT STR_TO_DATE('-2020', '%Y')",
            "SELECT STR_TO_DATE('+2020', '%Y'), STR_TO_DATE('20', '%Y'), STR_TO_DATE('5', '%y'), STR_TO_DATE('2020', '%Y-%m-%d')",
            "SELECT STR_TO_DATE(NULL, '%Y'), STR_TO_DATE('2020', NULL), STR_TO_DATE('', '%Y'), STR_TO_DATE('2020', '')",
            "SELECT STR_TO_DATE('1 10:00', '%d %H:%i'), STR_TO_DATE('2 03', '%e %k')",
            "SELECT STR_TO_DATE('2020-13-01', '%Y-%m-%d')",
            "SELECT STR_TO_DATE('2020-12-32', '%Y-%m-%d')",
            "SELECT STR_TO_DATE('10:60', '%H:%i')",
            "SELECT STR_TO_DATE('x', '%Q')",
            "SELECT STR_TO_DATE('a.,;b12c', 'a%.b%#c'), STR_TO_DATE('xyz2020', '%@%Y')",
            "SELECT STR_TO_DATE('2020-01-02', '%Y-%m-%d') + INTERVAL 1 DAY, DATEDIFF(STR_TO_DATE('02.01.2020', '%d.%m.%Y'), '2020-01-01')",
            "SELECT GET_FORMAT(DATE, 'USA'), GET_FORMAT(DATETIME, 'ISO'), GET_FORMAT(TIME, 'EUR'), GET_FORMAT(TIMESTAMP, 'INTERNAL'), GET_FORMAT(DATE, 'xx')",
            "SELECT STR_TO_DATE('10.31.2003', GET_FORMAT(DATE, 'USA')), DATE_FORMAT('2003-10-03', GET_FORMAT(DATE, 'EUR'))",
        ],
    );
}

#[test]
fn result_types_follow_the_format() {
    same_diagnosed(
        "s2d_types",
        &[
            "CREATE TABLE t AS SELECT STR_TO_DATE('2020-01-02', '%Y-%m-%d') d, STR_TO_DATE('10:11', '%H:%i') t, STR_TO_DATE('2020-01-02 10', '%Y-%m-%d %H') dt, STR_TO_DATE('1.5', '%s.%f') tf, STR_TO_DATE('2020 1.5', '%Y %s.%f') dtf",
            "SHOW CREATE TABLE t",
            "SELECT * FROM t",
        ],
    );
}

#[test]
fn formats_from_a_table_give_datetimes_and_warnings_per_row() {
    same_diagnosed(
        "s2d_table",
        &[
            "CREATE TABLE f (id INT PRIMARY KEY, s VARCHAR(40), fmt VARCHAR(40))",
            "INSERT INTO f VALUES (1, '2020-01-02', '%Y-%m-%d'), (2, '10:11:12', '%H:%i:%s'), (3, 'nope', '%Y'), (4, '31/12/1999 23:59', '%d/%m/%Y %H:%i'), (5, NULL, '%Y'), (6, '1.25', '%s.%f'), (7, '2020-01-02 junk', '%Y-%m-%d'), (8, 'Feb 29 2021', '%b %e %Y')",
            "SELECT id, STR_TO_DATE(s, fmt) FROM f ORDER BY id",
            "SELECT id, STR_TO_DATE(s, '%Y-%m-%d') FROM f ORDER BY id",
            "SELECT COUNT(*) FROM f WHERE STR_TO_DATE(s, fmt) IS NULL",
            "SELECT id FROM f WHERE STR_TO_DATE(s, '%Y-%m-%d') > '2019-01-01' ORDER BY id",
        ],
    );
}

#[test]
fn strict_mode_writes_fail_and_zero_dates_follow_sql_mode() {
    same_diagnosed(
        "s2d_strict",
        &[
            "CREATE TABLE d (id INT PRIMARY KEY, d DATE, t DATETIME)",
            "INSERT INTO d VALUES (1, STR_TO_DATE('2020-01-02', '%Y-%m-%d'), STR_TO_DATE('2020-01-02 03:04', '%Y-%m-%d %H:%i'))",
            "INSERT INTO d VALUES (2, STR_TO_DATE('bad', '%Y-%m-%d'), NULL)",
            "INSERT INTO d VALUES (3, STR_TO_DATE('2020-01-02 xx', '%Y-%m-%d'), NULL)",
            "UPDATE d SET t = STR_TO_DATE('bad', '%Y') WHERE id = 1",
            "SELECT * FROM d ORDER BY id",
            "SET sql_mode = ''",
            "INSERT INTO d VALUES (2, STR_TO_DATE('bad', '%Y-%m-%d'), NULL)",
            "SELECT * FROM d ORDER BY id",
            "SET sql_mode = 'NO_ZERO_DATE'",
            "SELECT STR_TO_DATE('0000-00-00', '%Y-%m-%d'), STR_TO_DATE('2020-00-00', '%Y-%m-%d')",
            "SELECT STR_TO_DATE('00:00:00', '%H:%i:%s')",
            "SELECT STR_TO_DATE('abc', 'abc')",
            "SET sql_mode = 'NO_ZERO_IN_DATE'",
            "SELECT STR_TO_DATE('0000-00-00', '%Y-%m-%d')",
            "SELECT STR_TO_DATE('2020-00-01', '%Y-%m-%d')",
            "SELECT STR_TO_DATE('2020-01-00 10', '%Y-%m-%d %H')",
            "SET sql_mode = DEFAULT",
        ],
    );
}
