//! YEAR and BIT(n) columns beside MariaDB: YEAR's two-digit and string
//! forms ('0' / '00' are 2000, 0 is 0000), out of range as 0000 with 1264
//! (the error in strict mode), 1366 / 1265 for bad text; BIT's numbers,
//! bit and hex literals and strings as bytes, clipping with 1264 and 1406
//! in strict mode; reading back (YEAR as four digits, BIT as its bytes),
//! `+ 0`, BIN / HEX, comparisons, ORDER BY and index ranges, CAST,
//! DEFAULTs, SHOW CREATE TABLE / SHOW COLUMNS; constants compared with a
//! YEAR read as YEAR input (`y > 50`), through an index and as `?`
//! markers too; YEAR(2) refused as MySQL 8.0 does.

mod oracle;

use oracle::{assert_same, assert_same_diagnostics, explained_key, MariaDb, Quire};

#[test]
fn year_values_store_compare_and_sort_as_mariadb() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db("year_store"), m.fresh_db("year_store"));
    assert_same(&mut qc, &mut mc, &["SET sql_mode = ''"]);
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE yy (id INT PRIMARY KEY, y YEAR, y4 YEAR(4) NOT NULL DEFAULT '99', KEY ky (y))",
            "INSERT INTO yy (id, y) VALUES (1, 1999), (2, '05'), (3, 5), (4, 0), (5, '0'), (6, '00'), (7, '0000'), \
             (8, 70), (9, '69'), (10, 2156), (11, 1900), (12, 'abc'), (13, '2020x'), (14, 2000.6), (15, '1901'), \
             (16, 2155), (17, -1), (18, 100), (19, '  99 '), (20, '2001-02-03'), (21, NULL), (22, 1e3)",
            "INSERT INTO yy (id, y, y4) VALUES (23, DATE '2024-05-06', NULL), (24, 99.4, 2155)",
            "SET sql_mode = 'STRICT_TRANS_TABLES'",
            "INSERT INTO yy (id, y) VALUES (30, 2156)",
            "INSERT INTO yy (id, y) VALUES (30, 'abc')",
            "INSERT INTO yy (id, y) VALUES (30, '2020x')",
            "INSERT INTO yy (id, y) VALUES (30, 1900)",
            "INSERT INTO yy (id, y) VALUES (30, '  1999 ')",
        ],
    );
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "SELECT id, y, y4, y + 0, y = 2005, y < '2000', y * 2, y DIV 100, HEX(y) FROM yy ORDER BY id",
            "SELECT id, y FROM yy ORDER BY y, id",
            "SELECT id FROM yy WHERE y BETWEEN 1990 AND 2010 ORDER BY y, id",
            "SELECT id FROM yy FORCE INDEX (ky) WHERE y > 1999 ORDER BY y DESC, id",
            "SELECT id FROM yy WHERE y = 0 ORDER BY id",
            "SELECT MIN(y), MAX(y), SUM(y), COUNT(DISTINCT y) FROM yy",
            "SELECT CAST(y AS UNSIGNED), YEAR(CONCAT(y, '-01-01')) FROM yy WHERE id = 1",
            "CREATE TABLE y2 (y YEAR, y4 YEAR(4) NOT NULL DEFAULT '99', KEY ky (y))",
            "SHOW CREATE TABLE y2",
            "SHOW COLUMNS FROM y2",
            "CREATE TABLE y3 (y YEAR DEFAULT 1900)",
            "CREATE TABLE y5 (y YEAR DEFAULT '2000', z YEAR NOT NULL DEFAULT 0)",
            "SHOW CREATE TABLE y5",
        ],
    );
}

#[test]
fn bit_values_store_compare_and_sort_as_mariadb() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db("bit_store"), m.fresh_db("bit_store"));
    assert_same(&mut qc, &mut mc, &["SET sql_mode = ''"]);
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE bb (id INT PRIMARY KEY, b BIT(10), b1 BIT, b64 BIT(64), KEY kb (b))",
            "INSERT INTO bb (id, b) VALUES (1, b'101'), (2, 5), (3, 1023), (4, 1024), (5, -1), (6, 'a'), (7, x'0102'), \
             (8, 'abc'), (9, 3.7), (10, 0), (11, '5'), (12, NULL)",
            "INSERT INTO bb (id, b1, b64) VALUES (20, 1, 18446744073709551615), (21, 2, -1)",
            "SET sql_mode = 'STRICT_TRANS_TABLES'",
            "INSERT INTO bb (id, b) VALUES (30, 1024)",
            "INSERT INTO bb (id, b) VALUES (30, 'abc')",
            "INSERT INTO bb (id, b) VALUES (30, -1)",
            "INSERT INTO bb (id, b) VALUES (30, b'1111111111')",
            "CREATE TABLE bx (b BIT(65))",
            "CREATE TABLE bd (b BIT(4) DEFAULT b'11', c BIT(8) NOT NULL DEFAULT 5)",
        ],
    );
    // MariaDB warns 1264 before its 1067 here; quire answers the 1067.
    assert_same(&mut qc, &mut mc, &["CREATE TABLE be (b BIT(4) DEFAULT 16)"]);
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "SELECT id, b, b1, b64, b + 0, BIN(b), HEX(b), b = 5, b > 3, CAST(b AS UNSIGNED) FROM bb ORDER BY id",
            "SELECT id, b + 0 FROM bb ORDER BY b, id",
            "SELECT id FROM bb FORCE INDEX (kb) WHERE b BETWEEN 4 AND 1023 ORDER BY b, id",
            "SELECT id FROM bb FORCE INDEX (kb) WHERE b < 100 ORDER BY b DESC, id",
            "SELECT id FROM bb WHERE b = 1023 ORDER BY id",
            "SELECT MIN(b) + 0, MAX(b) + 0, SUM(b), COUNT(DISTINCT b) FROM bb",
            "SELECT b1 + 0, b64 + 0, b64 FROM bb WHERE id >= 20 ORDER BY id",
            "CREATE TABLE b2 (b BIT(10), b1 BIT, b64 BIT(64), KEY kb (b))",
            "SHOW CREATE TABLE b2",
            "SHOW CREATE TABLE bd",
            "SHOW COLUMNS FROM bd",
            "INSERT INTO bd () VALUES ()",
            "SELECT b + 0, c + 0, b, c FROM bd",
        ],
    );
}

#[test]
fn year_and_bit_read_as_text_by_string_functions_and_like_and_year_as_a_date_by_date_functions() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db("yb_text"), m.fresh_db("yb_text"));
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE yt (id INT PRIMARY KEY, y YEAR, b BIT(10), b8 BIT(8), s VARCHAR(10))",
            "INSERT INTO yt VALUES (1, 0, b'1000001', b'01000001', 'x'), (2, 1999, 65, 66, 'y'), (3, 2005, 0, 0, ''), \
             (4, NULL, NULL, NULL, NULL)",
            // As text: four digits, and the bytes.
            "SELECT id, CONCAT(y), LENGTH(y), HEX(CONCAT(b)), LENGTH(b), CHAR_LENGTH(b8), CONCAT(b8), LOWER(b8), \
             CONCAT_WS(',', y, s, b8), MD5(y), REPLACE(y, '9', 'x'), SUBSTRING(y, 2), LEFT(y, 2), LPAD(y, 6, b8) \
             FROM yt ORDER BY id",
            "SELECT id, CAST(y AS CHAR), HEX(CAST(b AS CHAR)), CAST(b8 AS CHAR), REVERSE(y), UPPER(b8) FROM yt ORDER BY id",
            "SELECT id, y LIKE '19%', y LIKE '0000', b8 LIKE 'B', s LIKE b8 FROM yt ORDER BY id",
            // As numbers everywhere else: arithmetic, comparisons, HEX, sorting.
            "SELECT id, y + 0, b + 0, HEX(b), HEX(y), b = 'A', b8 = 'B', b8 IN ('A', 'B'), y = '1999', y < '2000' \
             FROM yt ORDER BY id",
            "SELECT id FROM yt WHERE CONCAT(y) = '0000' OR LENGTH(b) = 2 ORDER BY id",
            "SELECT CONCAT(y) AS c, COUNT(*) FROM yt GROUP BY c ORDER BY c",
            // As a date `yyyy-00-00` where date functions read it.
            "SELECT id, YEAR(y), MONTH(y), DAYOFMONTH(y), QUARTER(y), DATE_FORMAT(y, '%Y-%m'), EXTRACT(YEAR FROM y), \
             CAST(y AS DATE), WEEKDAY(y), LAST_DAY(y) FROM yt ORDER BY id",
        ],
    );
}

#[test]
fn year_compared_with_constants_reads_them_as_years() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db("year_consts"), m.fresh_db("year_consts"));
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE yc (id INT PRIMARY KEY, y YEAR, KEY ky (y))",
            "CREATE TABLE yp (y YEAR PRIMARY KEY, v INT)",
            "INSERT INTO yc VALUES (1, 1999), (2, 2005), (3, 0), (4, 2000), (5, 1970), (6, 2069), (7, 2050), \
             (8, 1950), (9, 2010), (10, 2009), (11, 2155), (12, NULL), (13, 1901)",
            "INSERT INTO yp VALUES (1999, 1), (2050, 2), (0, 3), (2000, 4), (1970, 5)",
        ],
    );
    let wheres = [
        "y > 50",
        "y = 99",
        "y <> 99",
        "y <=> 5",
        "y >= 69 AND y < 71",
        "y IN (0, 69, 70)",
        "y NOT IN (10, 0)",
        "y IN (10, 'abc', NULL)",
        "y BETWEEN 0 AND 5",
        "y BETWEEN 1 AND 70",
        "y NOT BETWEEN 1 AND 10",
        "y = '0'",
        "y = '00'",
        "y = '0000'",
        "y = ' 0  '",
        "y = '0.0'",
        "y = 0",
        "y = 0.0",
        "y = '5'",
        "y = '10x'",
        "y = ' 10 '",
        "y = '1e1'",
        "y = '9.9'",
        "y = '2010-05-05'",
        "y = 'abc'",
        "y = ''",
        "y = '-1'",
        "y = '2155.5'",
        "y = 5.0",
        "y = 5.5",
        "y = 10.4",
        "y = 9.9",
        "y = 69.5",
        "y = -0.4",
        "y = 2155.4",
        "y = 2155.5",
        "y = 9.9e0",
        "y = 69.5e0",
        "y = 1e-1",
        "y = 100",
        "y < 100",
        "y > 1900",
        "y = 2156",
        "y = 5 + 5",
        "y = CAST(10 AS UNSIGNED)",
        "y = DATE '2010-05-05'",
        "y = TRUE",
    ];
    for w in wheres {
        for sql in [
            format!("SELECT id FROM yc WHERE {w} ORDER BY id"),
            format!("SELECT id FROM yc IGNORE INDEX (ky) WHERE {w} ORDER BY id"),
            format!("SELECT a.id FROM yc a JOIN yc b ON a.id = b.id WHERE a.{w} ORDER BY a.id"),
        ] {
            assert_same(&mut qc, &mut mc, &[&sql]);
        }
    }
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "SELECT id FROM yc WHERE 50 < y ORDER BY id",
            "SELECT id, y = 10, y IN (10), 10 = y, y BETWEEN 10 AND 10, y > 50 FROM yc ORDER BY id",
            "SELECT y, v FROM yp WHERE y = 99",
            "SELECT y, v FROM yp WHERE y IN (0, '0', 50) ORDER BY y",
            "SELECT y, v FROM yp WHERE y > 60 ORDER BY y",
            "UPDATE yc SET id = id + 100 WHERE y = 99",
            "SELECT id FROM yc WHERE id > 100",
            "DELETE FROM yc WHERE y = 69",
            "SELECT COUNT(*) FROM yc",
        ],
    );
    // A prepared statement converts each execution's parameter.
    use mysql::prelude::Queryable;
    for v in [50, 99, 0, 2050] {
        let sql = "SELECT id FROM yc WHERE y >= ? ORDER BY id";
        let qr: Vec<i64> = qc.exec(sql, (v,)).expect("quire");
        let mr: Vec<i64> = mc.exec(sql, (v,)).expect("MariaDB");
        assert_eq!(qr, mr, "{sql} with {v}");
    }
    for v in ["0", "00", "0000", "99"] {
        let sql = "SELECT y, v FROM yp WHERE y = ?";
        let qr: Vec<(i64, i64)> = qc.exec(sql, (v,)).expect("quire");
        let mr: Vec<(i64, i64)> = mc.exec(sql, (v,)).expect("MariaDB");
        assert_eq!(qr, mr, "{sql} with '{v}'");
    }
    // The converted constant is a key: the index serves the comparison.
    assert_eq!(explained_key(&mut qc, "SELECT id FROM yc WHERE y = 99").as_deref(), Some("ky"));
    assert_eq!(explained_key(&mut qc, "SELECT id FROM yc WHERE y IN (50, 60)").as_deref(), Some("ky"));
    assert_eq!(explained_key(&mut qc, "SELECT v FROM yp WHERE y = 99").as_deref(), Some("PRIMARY"));
}

/// MySQL 8.0 has only the four-digit YEAR: YEAR(2) and YEAR(3) are its
/// 1818 (MariaDB 10.11 still creates a two-digit YEAR(2)).
#[test]
fn year_of_another_width_is_refused_as_mysql_8_0() {
    use mysql::prelude::Queryable;
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("year_width");
    for w in [2, 3, 5] {
        let e = qc.query_drop(format!("CREATE TABLE y{w} (y YEAR({w}))")).expect_err("YEAR(n) refused");
        assert_eq!(oracle::err_code(&e), 1818, "YEAR({w})");
    }
    qc.query_drop("CREATE TABLE y4 (y YEAR(4))").expect("YEAR(4)");
}
