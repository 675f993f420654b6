//! FLOAT, DOUBLE / REAL and BOOL beside MariaDB: stored, read back,
//! printed (shortest round-trip digits for doubles, 6 digits for FLOAT,
//! exactly D decimals for `(M,D)`), sorted (ORDER BY and an index range),
//! compared and converted (CAST, arithmetic, comparisons with decimals,
//! integers and strings), SUM / AVG as doubles, strict-mode errors and
//! non-strict warnings, SHOW COLUMNS types, result metadata, and the
//! binary protocol's 4- and 8-byte values.

mod oracle;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{answer, assert_same, assert_same_diagnostics, MariaDb, Quire};

const SETUP: &[&str] = &[
    "CREATE TABLE f (id INT PRIMARY KEY, a FLOAT, b DOUBLE, c FLOAT(7,2), d DOUBLE(10,3), e REAL, \
     g FLOAT(30), p DOUBLE PRECISION NOT NULL, h BOOL, KEY kb (b))",
    "INSERT INTO f VALUES (1, 0.1, 0.1, 1.005, 1.0005, 1e20, 1.5, 2, TRUE)",
    "INSERT INTO f VALUES (2, 3.4e38, 1.7e308, 12345.678, -1234567.1234, -0.0, 1e-20, -2.5, FALSE)",
    "INSERT INTO f VALUES (3, 123456789, -1e-16, -0.005, 0, 1e15, 1e14, 0.30000000000000004, 1)",
    "INSERT INTO f VALUES (4, -1.5, 0.2, 3, 42.5, '1.25', '2e3', '7', 0)",
    "INSERT INTO f VALUES (5, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL)",
    "INSERT INTO f VALUES (6, 16777217, 9007199254740993, 99999.99, 0.125, 1e-15, 2.5, 1e-5, 1)",
];

#[test]
fn approximate_values_store_print_and_sort_as_mariadb() {
    let mut statements: Vec<&str> = SETUP.to_vec();
    statements.extend_from_slice(&[
        "SELECT * FROM f ORDER BY id",
        "SELECT id, a + 0, b * 2, c + 0, d - 1, e / 3, p + 1 FROM f ORDER BY id",
        "SELECT id FROM f ORDER BY a, id",
        "SELECT id FROM f ORDER BY b DESC, id",
        "SELECT id, p FROM f ORDER BY p",
        // An index range on the DOUBLE key, with integer, decimal and
        // double bounds.
        "SELECT id, b FROM f WHERE b BETWEEN 0 AND 1 ORDER BY b",
        "SELECT id, b FROM f WHERE b > 0.1 ORDER BY b",
        "SELECT id, b FROM f WHERE b >= 1e-16 AND b < 1e300 ORDER BY b DESC",
        "SELECT id FROM f WHERE b = 0.1",
        "SELECT id FROM f WHERE b = 9007199254740992",
        // FLOAT compares as the double it holds: 0.1 is no FLOAT value.
        "SELECT id FROM f WHERE a = 0.1",
        "SELECT id FROM f WHERE a = -1.5 OR c = 3 OR d = 42.5",
        "SELECT id FROM f WHERE h ORDER BY id",
        "SELECT h, COUNT(*) FROM f GROUP BY h ORDER BY h",
        "SELECT b, COUNT(*) FROM f GROUP BY b ORDER BY b",
        "SELECT MIN(a), MAX(a), MIN(b), MAX(c), MIN(d) FROM f",
        "SELECT SUM(b), AVG(p), SUM(d), COUNT(b) FROM f WHERE id <> 2",
        "SELECT SUM(a), AVG(a) FROM f WHERE id IN (1, 4)",
    ]);
    oracle::same_on_both("approx_store", &statements);
}

/// `(M,D)` columns round the fraction apart from the integer part, as
/// MariaDB's `truncate_double`: 12.345 (a double just above it) stores
/// 12.35 and 2.675 (just below) 2.67, where rounding the scaled value
/// would give 12.34 and 2.68; exact ties go to even (0.125, 0.25).
#[test]
fn m_d_columns_round_the_fraction_as_mariadb() {
    oracle::same_on_both(
        "approx_round",
        &[
            "CREATE TABLE r (id INT PRIMARY KEY, a FLOAT(5,2), b DOUBLE(6,2), c FLOAT(6,1))",
            "INSERT INTO r VALUES (1, 12.345, 12.345, 0.25), (2, '12.345', '12.345', 0.35), \
             (3, 12.335e0, 12.335e0, 2.5), (4, 0.125, 0.125, 0.05), (5, -12.345, -12.345, -0.25), \
             (6, 1.005, 1.005, 1.25), (7, 2.675, 2.675, 1.35), (8, 1.115, 1.115, 0.45), \
             (9, 100.125, 100.125, 0.15), (10, -2.675, -0.125, -1.35)",
            "SELECT * FROM r ORDER BY id",
            "UPDATE r SET a = a + 0.005, b = b * 1.001 WHERE id < 4",
            "SELECT * FROM r ORDER BY id",
        ],
    );
}

#[test]
fn doubles_compute_and_convert_as_mariadb() {
    oracle::same_on_both(
        "approx_expr",
        &[
            "SELECT 0.1e0 + 0.2e0, 1e20, 1e15, 1e14, 1e-15, 1e-16, 123456789012345678e0, 2.5e0 * 4",
            "SELECT 1e0 / 3, 7.5e0 DIV 2, 7.5e0 % 2, -(2.5e0), -(0.0e0), 1 + 1e0, 1.5 + 1e0",
            "SELECT '0.1' + '0.2', '1.5' * 2, 10 / 4e0, 1e0 / 0",
            "SELECT 0.3 = 0.1 + 0.2, 0.3 = 0.1e0 + 0.2e0, '0.1' = 0.1e0, 1 = 1e0, 9007199254740993 = 9007199254740992e0",
            "SELECT 1e0 < 2, 2.5e0 > 2.4, '10' > 9e0, 1e0 IN (1, 2), 0.5e0 BETWEEN 0 AND 1",
            "SELECT CAST(0.1 AS DOUBLE), CAST('1.5' AS DOUBLE), CAST(1 AS DOUBLE), CAST(0.1 AS FLOAT)",
            "SELECT CAST(2.5e0 AS SIGNED), CAST(3.5e0 AS SIGNED), CAST(-2.5e0 AS SIGNED), CAST(2.5e0 AS DECIMAL(5,1))",
            "SELECT CAST(1.5e0 AS CHAR), CONCAT(1e20, ''), CONCAT(0.5e0, 'x'), LENGTH(1e-16)",
            "SELECT ROUND(2.5e0), ROUND(3.5e0), ROUND(-2.5e0), ROUND(1.2345e0, 2), FLOOR(-2.5e0), CEIL(2.1e0)",
            "SELECT TRUNCATE(1.99e0, 1), ABS(-1.5e0), SQRT(2), POW(10, 50), EXP(-100), LN(2) * 2",
            "SELECT GREATEST(1, 2.5e0), LEAST(1e0, 0.5), IF(1e0, 'y', 'n'), COALESCE(NULL, 1e0)",
            "SELECT 1e300 * 1e10",
            "SELECT 1e400",
            "SELECT TRUE, FALSE, TRUE + 1",
        ],
    );
}

#[test]
fn strict_errors_and_warnings_match_mariadb() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("approx_strict");
    let mut mc = m.fresh_db("approx_strict");
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE h5 (id INT PRIMARY KEY, a FLOAT(5,2), b FLOAT, c DOUBLE, n INT)",
            "INSERT INTO h5 VALUES (1, 999.99, 1, 1, 1)",
            "INSERT INTO h5 VALUES (2, 999.995, 1, 1, 1)",
            "INSERT INTO h5 VALUES (3, 1000, 1, 1, 1)",
            "INSERT INTO h5 VALUES (4, 1, 1e39, 1, 1)",
            "INSERT INTO h5 VALUES (5, 1, 1, 'abc', 1)",
            "INSERT INTO h5 VALUES (6, '1.5x', 1, 1, 1)",
            "INSERT INTO h5 VALUES (7, 1, 1, 1, 2.5e0)",
            "INSERT INTO h5 VALUES (8, 1, 1, 1, 1e20)",
            "SET sql_mode = ''",
            "INSERT INTO h5 VALUES (10, 1e10, 1e39, 'abc', 1e20)",
            "INSERT INTO h5 VALUES (11, '1.5x', -1e39, '2.5 ', 3.5e0)",
            "SELECT * FROM h5 ORDER BY id",
            "SELECT 1 + 'x', '1e400' + 0",
        ],
    );
    // Column types refused or checked at CREATE TABLE.
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE bad1 (a FLOAT(54))",
            "CREATE TABLE bad2 (a FLOAT(3,4))",
            "CREATE TABLE bad3 (a DOUBLE(256,2))",
            "CREATE TABLE ok1 (a FLOAT(24), b FLOAT(25), c FLOAT(0), d DOUBLE PRECISION, e FLOAT(7,2), \
             f DOUBLE(10,3), g REAL, h BOOLEAN, i BOOL NOT NULL DEFAULT TRUE, j DOUBLE DEFAULT 1.5)",
        ],
    );
    let types = |c: &mut Conn| -> Vec<(String, String)> {
        c.query_map("SHOW COLUMNS FROM ok1", |row: mysql::Row| {
            let field: String = row.get(0).unwrap();
            let ty: String = row.get(1).unwrap();
            (field, ty)
        })
        .unwrap()
    };
    assert_eq!(types(&mut qc), types(&mut mc));
    let create =
        |c: &mut Conn| -> String { c.query_first::<(String, String), _>("SHOW CREATE TABLE ok1").unwrap().unwrap().1 };
    // (Defaults are quoted as MySQL 8.0 quotes them, `DEFAULT '1.5'`,
    // where MariaDB prints `DEFAULT 1.5`: only the types are compared.)
    let qt = create(&mut qc);
    for part in
        ["`a` float", "`b` double", "`e` float(7,2)", "`f` double(10,3)", "`h` tinyint(1)", "`j` double DEFAULT"]
    {
        assert!(qt.contains(part), "SHOW CREATE TABLE lacks {part}:\n{qt}");
        assert!(create(&mut mc).contains(part), "MariaDB lacks {part}");
    }
}

/// What a driver reads to convert a value: type and decimals.
fn metadata(c: &mut Conn, sql: &str) -> Vec<(mysql::consts::ColumnType, u8)> {
    let result = c.query_iter(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    result.columns().as_ref().iter().map(|col| (col.column_type(), col.decimals())).collect()
}

#[test]
fn result_metadata_and_binary_values_match_mariadb() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("approx_meta");
    let mut mc = m.fresh_db("approx_meta");
    assert_same(&mut qc, &mut mc, SETUP);
    for sql in [
        "SELECT a, b, c, d, e, g, p, h FROM f",
        "SELECT a + 0, b + 1, SUM(a), AVG(b), MIN(a), MAX(c), 1e0, CAST(1 AS DOUBLE), SQRT(2), RAND() FROM f",
    ] {
        assert_eq!(metadata(&mut qc, sql), metadata(&mut mc, sql), "{sql}");
    }
    // Prepared statements: FLOAT as 4 bytes, DOUBLE as 8, parameters
    // bound as doubles compared as doubles.
    let binary = |c: &mut Conn| -> Vec<Vec<mysql::Value>> {
        let stmt = c.prep("SELECT a, b, d, p, a + 0 FROM f WHERE p > ? ORDER BY id").unwrap();
        c.exec_map(&stmt, (0.1f64,), |row: mysql::Row| row.unwrap()).unwrap()
    };
    assert_eq!(binary(&mut qc), binary(&mut mc));
    let typed = binary(&mut qc);
    assert!(matches!(typed[0][0], mysql::Value::Float(_)), "{:?}", typed[0]);
    assert!(matches!(typed[0][1], mysql::Value::Double(_)), "{:?}", typed[0]);
    // An inserted parameter keeps its double.
    for c in [&mut qc, &mut mc] {
        c.exec_drop("INSERT INTO f (id, b, p) VALUES (?, ?, ?)", (9, 0.1f64 + 0.2f64, 1e300f64)).unwrap();
    }
    assert_same(&mut qc, &mut mc, &["SELECT b, p FROM f WHERE id = 9"]);
    assert_eq!(answer(&mut qc, "SELECT b FROM f WHERE id = 9"), answer(&mut mc, "SELECT b FROM f WHERE id = 9"));
}

#[test]
fn unsigned_float_double_and_decimal_refuse_negatives_as_mariadb() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("approx_unsigned");
    let mut mc = m.fresh_db("approx_unsigned");
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE un (id INT PRIMARY KEY, u FLOAT UNSIGNED, d DECIMAL(5,2) UNSIGNED, dd DOUBLE UNSIGNED, \
             f2 FLOAT(6,2) UNSIGNED, r REAL UNSIGNED, n DECIMAL(4) UNSIGNED)",
            "INSERT INTO un VALUES (1, 1.5, 2.25, 3.5, 4.25, 5, 6)",
            // Strict: a negative value is 1264.
            "INSERT INTO un (id, u) VALUES (2, -1)",
            "INSERT INTO un (id, d) VALUES (2, -1)",
            "INSERT INTO un (id, dd) VALUES (2, -0.5)",
            "UPDATE un SET n = n - 10 WHERE id = 1",
            // Otherwise 0 with a 1264 warning.
            "SET sql_mode = ''",
            "INSERT INTO un VALUES (3, -1, -2, -3, -4, -5, -6)",
            "INSERT INTO un VALUES (4, '-1', '-2.5', '-1e3', 0, -0.0, -0.001)",
            "UPDATE un SET d = d - 10 WHERE id = 1",
            "SELECT * FROM un ORDER BY id",
            // Expressions over them are signed, as in MariaDB.
            "SELECT d - 5, -d, u * -1, dd - 10 FROM un WHERE id = 1",
            // Dropping UNSIGNED keeps the values; adding it back clips negatives.
            "ALTER TABLE un MODIFY d DECIMAL(5,2)",
            "INSERT INTO un (id, d) VALUES (5, -1)",
            "ALTER TABLE un MODIFY d DECIMAL(6,2) UNSIGNED",
            "SELECT id, d FROM un ORDER BY id",
        ],
    );
    let types = |c: &mut Conn| -> Vec<(String, String)> {
        c.query_map("SHOW COLUMNS FROM un", |row: mysql::Row| (row.get(0).unwrap(), row.get(1).unwrap())).unwrap()
    };
    let (qt, mt) = (types(&mut qc), types(&mut mc));
    // `id` prints `int` as MySQL 8.0 where MariaDB prints `int(11)`.
    assert_eq!(qt[1..], mt[1..]);
}
