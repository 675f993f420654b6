//! Date arithmetic and the functions that take dates apart, beside
//! MariaDB: DATE_ADD / DATE_SUB / ADDDATE / SUBDATE, `± INTERVAL` with
//! simple and compound units (which quire's parser is taught through a
//! token rewrite, `temporal.rs`), month ends and leap days, overflow to
//! NULL, strings, numbers and NULL as dates, EXTRACT, YEAR() ..
//! DAYNAME(), DATEDIFF, TO_DAYS / FROM_DAYS, LAST_DAY, DATE(); over
//! literals and over DATE, DATETIME and VARCHAR columns, in WHERE, GROUP
//! BY and UPDATE.

mod oracle;

use mysql::prelude::Queryable;
use oracle::{same_on_both, Quire};

#[test]
fn date_arithmetic_on_literals_answers_as_mariadb_does() {
    same_on_both(
        "dates_lit",
        &[
        "SELECT DATE_ADD('2020-01-31', INTERVAL 1 MONTH), DATE_ADD(DATE '2020-01-31', INTERVAL 1 MONTH), DATE_SUB('2020-03-01', INTERVAL 1 DAY)",
        "SELECT '2020-01-01' + INTERVAL 1 DAY, INTERVAL 1 DAY + '2020-01-01', '2020-01-01' - INTERVAL 1 HOUR, DATE '2020-01-01' + INTERVAL 90 MINUTE",
        "SELECT DATE_ADD('2020-01-01 10:00:00', INTERVAL '1:30' HOUR_MINUTE), DATE_ADD('2020-01-01', INTERVAL '1 2' DAY_HOUR), DATE_ADD('2020-01-01', INTERVAL '1-2' YEAR_MONTH)",
        "SELECT DATE_ADD('2020-01-01', INTERVAL 1.5 DAY), DATE_ADD('2020-01-01', INTERVAL 1.5 SECOND), DATE_ADD('2020-01-01', INTERVAL -1 WEEK), DATE_ADD('2020-01-01', INTERVAL 1 QUARTER)",
        "SELECT ADDDATE('2020-01-01', 5), SUBDATE('2020-01-01', INTERVAL 1 YEAR), DATE_ADD('9999-12-31', INTERVAL 1 DAY), DATE_ADD(NULL, INTERVAL 1 DAY), DATE_ADD('bad', INTERVAL 1 DAY)",
        "SELECT YEAR('2021-07-04 05:06:07'), MONTH('2021-07-04'), DAY('2021-07-04'), DAYOFMONTH('2021-07-04'), HOUR('2021-07-04 05:06:07'), MINUTE('2021-07-04 05:06:07'), SECOND('2021-07-04 05:06:07')",
        "SELECT QUARTER('2021-07-04'), DAYOFWEEK('2021-07-04'), WEEKDAY('2021-07-04'), DAYOFYEAR('2021-07-04'), DAYNAME('2021-07-04'), MONTHNAME('2021-07-04')",
        "SELECT DATEDIFF('2021-07-04', '2020-01-01'), DATEDIFF('2020-01-01 23:00:00', '2020-01-02'), TO_DAYS('2021-07-04'), FROM_DAYS(738340), LAST_DAY('2024-02-10'), DATE('2021-07-04 05:06:07')",
        "SELECT EXTRACT(YEAR FROM '2021-07-04 05:06:07'), EXTRACT(DAY_MINUTE FROM '2021-07-04 05:06:07'), EXTRACT(YEAR_MONTH FROM '2021-07-04'), EXTRACT(WEEK FROM '2021-07-04'), EXTRACT(MICROSECOND FROM '2021-07-04 05:06:07.123')",
        "SELECT YEAR(20210704), MONTH(20210704053000), DATE_ADD(20200101, INTERVAL 1 DAY), DATEDIFF(NULL, '2020-01-01'), YEAR('x')",
        "SELECT DATE_ADD('2020-01-01 10:00:00.5', INTERVAL 1 SECOND), DATE_ADD('2020-01-01', INTERVAL 1 MICROSECOND), '2020-02-29' + INTERVAL 1 YEAR",
        ],
    );
}

#[test]
fn date_functions_over_columns_answer_as_mariadb_does() {
    same_on_both(
        "dates_col",
        &[
        "CREATE TABLE ev (id INT PRIMARY KEY, d DATE, ts DATETIME, n INT, s VARCHAR(30))",
        "INSERT INTO ev VALUES (1, '2024-01-31', '2024-01-31 23:59:59', 1, '2024-02-29'), (2, '2023-12-31', '2023-12-31 00:00:00', -2, '2023-03-15 10:20:30'), (3, NULL, NULL, NULL, NULL), (4, '2000-02-29', '2000-02-29 12:00:00', 12, 'nope'), (5, '1999-07-04', '1999-07-04 06:30:15', 400, '1999-07-04')",
        "SELECT id, d + INTERVAL n DAY, d - INTERVAL n MONTH, ts + INTERVAL n HOUR, DATE_ADD(s, INTERVAL n DAY) FROM ev ORDER BY id",
        "SELECT id, DATE_ADD(ts, INTERVAL '1:1' MINUTE_SECOND), DATE_SUB(d, INTERVAL '1-1' YEAR_MONTH), EXTRACT(HOUR_MINUTE FROM ts) FROM ev ORDER BY id",
        "SELECT id, YEAR(d), MONTH(ts), DAYNAME(d), DATEDIFF(ts, d), LAST_DAY(d), QUARTER(ts), DAYOFYEAR(s) FROM ev ORDER BY id",
        "SELECT COUNT(*) FROM ev WHERE d > '2020-01-01' - INTERVAL 1 YEAR",
        "SELECT id FROM ev WHERE ts BETWEEN '2023-12-30' AND '2024-01-01' + INTERVAL 1 MONTH ORDER BY id",
        "SELECT YEAR(d) y, COUNT(*) FROM ev GROUP BY YEAR(d) ORDER BY y",
        "UPDATE ev SET d = d + INTERVAL 1 DAY WHERE id = 1",
        "SELECT d FROM ev WHERE id = 1",
        ],
    );
}

/// MySQL 8.0 has RANGE frames with INTERVAL offsets over dates (MariaDB
/// 10.11 does not parse them): quire refuses them plainly until it has
/// them; an INTERVAL anywhere but date arithmetic is a syntax error.
#[test]
fn interval_frames_are_refused_and_a_stray_interval_is_a_syntax_error() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("dates_refused");
    c.query_drop("CREATE TABLE e (id INT PRIMARY KEY, d DATE)").unwrap();
    let code = |c: &mut mysql::Conn, sql: &str| oracle::err_code(&c.query_drop(sql).unwrap_err());
    assert_eq!(code(&mut c, "SELECT COUNT(*) OVER (ORDER BY d RANGE INTERVAL 1 DAY PRECEDING) FROM e"), 1235);
    assert_eq!(code(&mut c, "SELECT INTERVAL 1 DAY"), 1064);
    assert_eq!(code(&mut c, "SELECT DATE_ADD('2020-01-01', 1)"), 1064);
    assert_eq!(code(&mut c, "SELECT DATE_ADD('2020-01-01', INTERVAL 1 CENTURY)"), 1064);
}
