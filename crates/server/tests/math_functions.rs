//! Mathematical functions beside MariaDB: SQRT, POW, EXP, LN, LOG (one
//! and two arguments), LOG2, LOG10, the trigonometric ones, DEGREES,
//! RADIANS, SIGN, CRC32, CONV — domain errors as NULL, doubles printed as
//! MariaDB prints them, in expressions, WHERE, ORDER BY and GROUP BY.

mod oracle;

use oracle::same_on_both;

#[test]
fn math_functions_on_literals_answer_as_mariadb_does() {
    same_on_both(
        "math_lit",
        &[
        "SELECT SQRT(2), SQRT(16), SQRT(-1), SQRT(NULL), POW(2, 10), POWER(2, 0.5), POW(2, -1), EXP(1), EXP(0)",
        "SELECT LN(10), LN(0), LN(-1), LOG(100), LOG(2, 8), LOG(10, 1000), LOG2(1024), LOG10(1000), LOG(1, 10), LOG(0)",
        "SELECT SIN(0), COS(0), TAN(1), ASIN(1), ACOS(0.5), ATAN(1), ATAN(1, 2), ATAN2(-1, -1), COT(1), ASIN(2)",
        "SELECT DEGREES(1), RADIANS(180), SIGN(-5), SIGN(0), SIGN(3.2), SIGN(NULL), CRC32('hello'), CRC32(''), CONV('ff', 16, 10), CONV(255, 10, 2)",
        "SELECT SQRT(2) * 2, POW(10, 2) + 1, EXP(2) / 3, ROUND(SQRT(10), 3), FLOOR(LN(100)), CEIL(LOG2(3))",
        ],
    );
}

#[test]
fn math_functions_over_columns_answer_as_mariadb_does() {
    same_on_both(
        "math_col",
        &[
            "CREATE TABLE m (id INT PRIMARY KEY, x DECIMAL(10,3), n INT)",
            "INSERT INTO m VALUES (1, 2.5, 3), (2, -1.000, 0), (3, NULL, 2), (4, 100, -2), (5, 0.5, 10)",
            "SELECT id, SQRT(x), POW(x, n), LN(x), LOG(n, x), SIGN(x), DEGREES(x), CRC32(x) FROM m ORDER BY id",
            "SELECT id FROM m WHERE SQRT(x) > 1 ORDER BY LN(x) DESC",
            "SELECT SIGN(n), COUNT(*), MAX(SQRT(ABS(n))) FROM m GROUP BY SIGN(n) ORDER BY 1",
        ],
    );
}

/// Doubles beyond what a decimal holds (1e50, 1e-44) are doubles, printed
/// as MariaDB prints them; an infinite one is 1690.
#[test]
fn doubles_beyond_a_decimal_answer_as_mariadb_does() {
    same_on_both(
        "math_wide",
        &["SELECT POW(10, 50), EXP(-100), POW(2, -60), SQRT(1e300) * 1e10", "SELECT EXP(1000)", "SELECT POW(10, 400)"],
    );
}
