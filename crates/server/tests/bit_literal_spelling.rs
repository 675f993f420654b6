//! MySQL's `0b101` bit literal beside MariaDB: the same value as
//! `b'101'` (a binary string, a number in arithmetic), while `0b102` and
//! `0B101` stay identifiers (unknown columns, 1054); compared with an
//! integer column, bit and hex literals are numbers.

mod oracle;

use oracle::same_on_both;

#[test]
fn zero_b_literals_are_bit_literals() {
    same_on_both(
        "bit_spelling",
        &[
            "SELECT 0b101 + 0, HEX(0b101), HEX(0b11111111), 0b1 = b'1', LENGTH(0b100000000), 0b0 + 0",
            "SELECT 0b1010 + 1, CONCAT(0b1000001, 'B')",
            "SELECT 0b102",
            "SELECT 0B101",
            "SELECT '0b101', `0b1` FROM (SELECT 1 AS `0b1`) x",
            "CREATE TABLE t (a INT, u INT UNSIGNED, b BIGINT)",
            "INSERT INTO t VALUES (5, 5, 5), (3, 3, 3), (-1, 0, -7)",
            "SELECT a FROM t WHERE a > 0b100 ORDER BY a",
            "SELECT a, a > b'100', u > b'100', a = 0b101, b'101' = a FROM t ORDER BY a",
        ],
    );
}
