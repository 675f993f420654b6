//! MySQL's `0b101` bit literal beside MariaDB: the same value as
//! `b'101'` (a binary string, a number in arithmetic), while `0b102` and
//! `0B101` stay identifiers (unknown columns, 1054).

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
        ],
    );
}
