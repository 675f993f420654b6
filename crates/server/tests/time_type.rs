//! TIME columns and values beside MariaDB: every input form MySQL takes
//! ('HH:MM:SS[.frac]', 'D HH:MM:SS', 'HHMMSS', numbers), clipping with
//! 1264 / 1265 outside strict mode and 1292 in it, reading back, `+ 0`,
//! comparisons with strings, numbers and each other, ORDER BY and an
//! index range, the TIME functions, CAST, DATE_ADD with a TIME, SHOW
//! COLUMNS, the binary protocol (prepared statements, both directions),
//! and a restart that keeps TIME columns and values.

mod oracle;

use mysql::prelude::Queryable;
use oracle::{assert_same, assert_same_diagnostics, row_cells, same_on_both, MariaDb, Quire};

const TABLE: &str = "CREATE TABLE tt (id INT PRIMARY KEY, a TIME, b TIME(3), KEY ka (a))";
const ROWS: &str = "INSERT INTO tt (id, a) VALUES (1, '12:34:56'), (2, '1 02:03:04'), (3, '123456'), (4, 123456.5), \
     (5, '900:00:00'), (6, -9000000), (7, '-12:00'), (8, '12'), (9, 1234), (10, 'abc'), (11, '838:59:59.9')";

#[test]
fn time_values_store_clip_and_warn_as_mariadb() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db("time_store"), m.fresh_db("time_store"));
    assert_same(&mut qc, &mut mc, &["SET sql_mode = ''"]);
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            TABLE,
            ROWS,
            "INSERT INTO tt (id, b) VALUES (12, '12:00:00.12345'), (13, '-0:00:01.5')",
            "SET sql_mode = 'STRICT_TRANS_TABLES'",
            "INSERT INTO tt (id, a) VALUES (20, '900:00:00')",
            "INSERT INTO tt (id, a) VALUES (20, 'abc')",
            "INSERT INTO tt (id, a) VALUES (20, 9000000)",
            "INSERT INTO tt (id, a) VALUES (20, '12:61:00')",
            "UPDATE tt SET a = '-900:00:00' WHERE id = 1",
        ],
    );
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "SELECT id, a, b, a + 0, a * 1, HEX(a) FROM tt ORDER BY id",
            "SELECT id, a FROM tt ORDER BY a, id",
            "SELECT id, a FROM tt ORDER BY a DESC, id",
            "SELECT id FROM tt WHERE a BETWEEN '-13:00' AND '12:00:00' ORDER BY a, id",
            "SELECT id FROM tt FORCE INDEX (ka) WHERE a > '20:00' ORDER BY a DESC, id",
            "SELECT id FROM tt WHERE a = 123456 ORDER BY id",
            "SELECT id FROM tt WHERE a = '12:34:56.000' ORDER BY id",
            "SELECT COUNT(*), MIN(a), MAX(a) FROM tt",
            "SELECT a, COUNT(*) FROM tt GROUP BY a ORDER BY a",
            "CREATE TABLE sc (t TIME(2) NOT NULL PRIMARY KEY, u TIME DEFAULT '01:02:03', v TIME(6) NULL)",
            "SHOW COLUMNS FROM sc",
        ],
    );
}

#[test]
fn time_functions_answer_as_mariadb() {
    same_on_both(
        "time_funcs",
        &[
            "SELECT TIMEDIFF('12:00:00', '13:30:00'), TIME_TO_SEC('-01:00:01'), SEC_TO_TIME(3661.5), ADDTIME('10:00:00', '1:30:00.5'), SUBTIME('10:00', '11:00')",
            "SELECT MAKETIME(100, 2, 3), MAKETIME(1, 60, 0), HOUR('100:02:03'), MINUTE('-1:02:03'), SECOND('10:11:12'), MICROSECOND('10:11:12.25')",
            "SELECT TIME_FORMAT('100:02:03', '%H %k %h %i %s %f %p'), TIME_FORMAT('13:05:00', '%r %T %l'), TIME('2020-01-01 10:11:12.5'), TIME('10:11')",
            "SELECT CAST('10:11' AS TIME), CAST(10.5 AS TIME(2)), CAST('-838:59:59' AS TIME), CAST('839:00:00' AS TIME), CAST('1:2' AS TIME), CAST('1' AS TIME), CAST('12:61' AS TIME), CAST('' AS TIME)",
            "SELECT TIMEDIFF('2020-01-02 00:00:00', '2020-01-01 10:00:00'), ADDTIME('2020-01-01 23:00:00', '02:00:00'), SEC_TO_TIME(4000000), TIME_TO_SEC(CAST('10:00' AS TIME)), TIMEDIFF('2020-01-01 00:00:00', '10:00')",
            "SELECT CAST('10:00:00' AS TIME) + INTERVAL 1 HOUR, DATE_ADD(CAST('23:00:00' AS TIME), INTERVAL 2 HOUR), CAST('10:00' AS TIME) < '9:00', CAST('10:00:00' AS TIME) = 100000, CAST('10:00' AS TIME) > CAST('9:00' AS TIME)",
            "SELECT CURTIME() = CURRENT_TIME, CURTIME() = CURRENT_TIME(), HOUR(CURTIME()) BETWEEN 0 AND 23, TIME_TO_SEC(NULL), ADDTIME(NULL, '1:00')",
            "CREATE TABLE w (id INT PRIMARY KEY, t TIME(2), s VARCHAR(20))",
            "INSERT INTO w VALUES (1, '10:00:00.25', '01:00:00'), (2, '-1:30', '1 00:00:00'), (3, NULL, NULL)",
            "SELECT id, TIMEDIFF(t, s), ADDTIME(t, s), SUBTIME(t, s), TIME_TO_SEC(t), HOUR(t), MINUTE(t), t + INTERVAL 30 MINUTE, t < s FROM w ORDER BY id",
            "SELECT id FROM w WHERE t > '-2:00' AND t < SEC_TO_TIME(36001) ORDER BY id",
        ],
    );
}

/// Prepared statements carry TIME both ways in the binary protocol: a
/// TIME result as the 8/12-byte form (days and the negative flag), a
/// TIME parameter read back as a TIME.
#[test]
fn time_travels_in_the_binary_protocol_as_in_mariadb() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db("time_bin"), m.fresh_db("time_bin"));
    let setup = [
        "CREATE TABLE p (id INT PRIMARY KEY, t TIME(6))",
        "INSERT INTO p VALUES (1, '-838:59:59'), (2, '26:03:04.5'), (3, '00:00:00'), (4, '00:00:00.000001')",
    ];
    assert_same(&mut qc, &mut mc, &setup);
    let run = |c: &mut mysql::Conn| {
        let stmt = c.prep("SELECT id, t FROM p WHERE t > ? ORDER BY id").unwrap();
        let param = mysql::Value::Time(true, 1, 0, 0, 0, 0);
        let rows: Vec<Vec<Option<String>>> = c.exec_map(&stmt, (param,), |r: mysql::Row| row_cells(&r)).unwrap();
        c.exec_drop("INSERT INTO p VALUES (5, ?)", (mysql::Value::Time(false, 2, 3, 4, 5, 6),)).unwrap();
        let back: Vec<Vec<Option<String>>> =
            c.exec_map("SELECT t FROM p WHERE id = ?", (5,), |r: mysql::Row| row_cells(&r)).unwrap();
        (rows, back)
    };
    assert_eq!(run(&mut qc), run(&mut mc));
}

#[test]
fn time_columns_and_values_survive_a_restart() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("time_restart");
    c.query_drop("CREATE TABLE r (t TIME(3) NOT NULL PRIMARY KEY, u TIME DEFAULT '01:02:03')").unwrap();
    c.query_drop("INSERT INTO r (t) VALUES ('-1:00:00.5'), ('100:00:00.125')").unwrap();
    drop(c);
    let q = q.restart();
    let mut c = q.connect(Some("time_restart"));
    let rows: Vec<(String, String)> = c.query("SELECT t, u FROM r ORDER BY t").unwrap();
    assert_eq!(rows, vec![("-01:00:00.500".into(), "01:02:03".into()), ("100:00:00.125".into(), "01:02:03".into())]);
    let shown: Vec<(String, String)> =
        c.query_map("SHOW COLUMNS FROM r", |r: mysql::Row| (r.get(0).unwrap(), r.get(1).unwrap())).unwrap();
    assert_eq!(shown, vec![("t".into(), "time(3)".into()), ("u".into(), "time".into())]);
}
