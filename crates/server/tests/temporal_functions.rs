//! Date arithmetic and the functions that take dates apart, beside
//! MariaDB: DATE_ADD / DATE_SUB / ADDDATE / SUBDATE, `± INTERVAL` with
//! simple and compound units (which quire's parser is taught through a
//! token rewrite, `temporal.rs`), month ends and leap days, overflow to
//! NULL, strings, numbers and NULL as dates, EXTRACT, YEAR() ..
//! DAYNAME(), DATEDIFF, TO_DAYS / FROM_DAYS, LAST_DAY, DATE(), DATE_FORMAT,
//! WEEK / YEARWEEK, FROM_UNIXTIME, TIMESTAMPDIFF / TIMESTAMPADD; over
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

/// DATE_FORMAT with every specifier (weeks in each mode, ordinal days,
/// 12-hour times), WEEK / YEARWEEK in several modes across year ends,
/// FROM_UNIXTIME (quire and the test's MariaDB both run in UTC),
/// TIMESTAMPDIFF (whole months as MySQL counts them, negative spans) and
/// TIMESTAMPADD.
#[test]
fn date_format_weeks_and_timestamp_functions_answer_as_mariadb_does() {
    same_on_both(
        "dates_fmt",
        &[
        "SELECT DATE_FORMAT('2021-07-04 05:06:07.012', '%a %b %c %D %d %e %f %H %h %I %i %j %k %l %M %m %p %r %S %s %T %W %w %Y %y %% %q')",
        "SELECT DATE_FORMAT('2021-01-01', '%U %u %V %v %X %x'), DATE_FORMAT('2020-12-31', '%U %u %V %v %X %x'), DATE_FORMAT('2019-12-30', '%U %u %V %v %X %x'), DATE_FORMAT('2024-06-15 23:00:00', '%D %r')",
        "SELECT DATE_FORMAT('2021-11-11', '%D'), DATE_FORMAT('2021-11-22', '%D'), DATE_FORMAT('2021-11-03', '%D'), DATE_FORMAT(NULL, '%Y'), DATE_FORMAT('2021-01-01', NULL), DATE_FORMAT('bad', '%Y')",
        "SELECT WEEK('2021-01-01'), WEEK('2021-01-01', 1), WEEK('2021-01-03', 2), WEEK('2021-01-03', 3), WEEK('2020-12-31', 5), WEEK('2020-12-31', 7), YEARWEEK('2021-01-01'), YEARWEEK('2021-01-01', 3), YEARWEEK('2019-12-30', 1)",
        "SELECT FROM_UNIXTIME(0), FROM_UNIXTIME(1700000000), FROM_UNIXTIME(1700000000, '%Y-%m-%d %H'), FROM_UNIXTIME(-1), FROM_UNIXTIME(NULL), UNIX_TIMESTAMP(FROM_UNIXTIME(1234567890))",
        "SELECT TIMESTAMPDIFF(MONTH, '2020-01-31', '2020-02-29'), TIMESTAMPDIFF(MONTH, '2020-01-31', '2020-03-01'), TIMESTAMPDIFF(YEAR, '2000-02-29', '2021-02-28'), TIMESTAMPDIFF(DAY, '2021-01-02', '2021-01-01 12:00:00'), TIMESTAMPDIFF(SECOND, '2021-01-01', '2021-01-01 00:01:30'), TIMESTAMPDIFF(HOUR, NULL, '2021-01-01'), TIMESTAMPDIFF(QUARTER, '2021-05-20', '2020-01-01'), TIMESTAMPDIFF(WEEK, '2021-01-01', '2021-03-01')",
        "SELECT TIMESTAMPADD(MONTH, 1, '2021-01-31'), TIMESTAMPADD(HOUR, 5, '2021-01-01'), TIMESTAMPADD(DAY, -1, DATE '2021-03-01'), TIMESTAMPADD(MINUTE, 90, TIMESTAMP '2021-01-01 00:00:00')",
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
