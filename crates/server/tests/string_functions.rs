//! String functions beside MariaDB: LOCATE / INSTR / POSITION (character
//! positions, case-insensitive under the default collation), LPAD /
//! RPAD, SUBSTRING_INDEX, REVERSE, SPACE, ASCII / ORD, BIT_LENGTH /
//! OCTET_LENGTH, FIELD / ELT / FIND_IN_SET, STRCMP, QUOTE, MD5 / SHA1 /
//! SHA2 — on literals (NULLs, empty strings, out-of-range counts,
//! multi-byte characters) and on columns in SELECT, WHERE, ORDER BY and
//! GROUP BY.

mod oracle;

use oracle::same_on_both;

#[test]
fn string_functions_on_literals_answer_as_mariadb_does() {
    same_on_both(
        "strings_lit",
        &[
        "SELECT LOCATE('bar', 'foobarbar'), LOCATE('BAR', 'foobarbar', 5), LOCATE('x', 'abc'), LOCATE('', 'abc'), LOCATE('b', 'abc', 0), INSTR('foobar', 'OB'), POSITION('bar' IN 'foobar')",
        "SELECT LPAD('hi', 5, '?!'), RPAD('hi', 5, 'ab'), LPAD('hello', 3, 'x'), RPAD('x', 0, 'y'), LPAD('a', 3, ''), LPAD('a', -1, 'x'), LPAD(NULL, 3, 'x')",
        "SELECT SUBSTRING_INDEX('www.mysql.com', '.', 2), SUBSTRING_INDEX('www.mysql.com', '.', -2), SUBSTRING_INDEX('a.b', '.', 0), SUBSTRING_INDEX('a.b', '.', 9), SUBSTRING_INDEX('aXbxc', 'x', 1)",
        "SELECT REVERSE('abcñ'), SPACE(3), CONCAT('[', SPACE(0), ']'), ASCII('A'), ASCII(''), ORD('é'), ORD('a'), BIT_LENGTH('ab'), OCTET_LENGTH('ñ')",
        "SELECT FIELD('b', 'a', 'B', 'c'), FIELD('z', 'a'), FIELD(NULL, 'a'), FIELD(2, 1, 2, 3), ELT(2, 'a', 'b'), ELT(3, 'a', 'b'), ELT(0, 'a')",
        "SELECT FIND_IN_SET('b', 'a,b,c'), FIND_IN_SET('B', 'a,b,c'), FIND_IN_SET('d', 'a,b,c'), FIND_IN_SET('a,b', 'a,b'), FIND_IN_SET('', ''), FIND_IN_SET(NULL, 'a')",
        "SELECT STRCMP('a', 'b'), STRCMP('B', 'a'), STRCMP('A', 'a'), STRCMP(NULL, 'a'), QUOTE('it''s'), QUOTE(NULL), QUOTE('a\\\\b')",
        "SELECT MD5('abc'), SHA1('abc'), SHA('abc'), SHA2('abc', 256), SHA2('abc', 224), SHA2('abc', 0), SHA2('abc', 7), MD5(NULL)",
        "SELECT LOCATE('b', 'abc', 10), INSTR('ÀbC', 'c'), SUBSTRING_INDEX('', ',', 1), REVERSE(NULL)",
        ],
    );
}

#[test]
fn string_functions_over_columns_answer_as_mariadb_does() {
    same_on_both(
        "strings_col",
        &[
        "CREATE TABLE w (id INT PRIMARY KEY, a VARCHAR(40), b VARCHAR(40), n INT)",
        "INSERT INTO w VALUES (1, 'Hello,World', 'world', 3), (2, 'a.b.c.d', '.', -2), (3, NULL, 'x', NULL), (4, 'ñandú', 'DÚ', 2), (5, '', '', 0)",
        "SELECT id, LOCATE(b, a), INSTR(a, b), LPAD(a, n + 5, '*'), SUBSTRING_INDEX(a, b, n), FIND_IN_SET(b, a), FIELD(b, a, 'x', 'world'), MD5(a), STRCMP(a, b) FROM w ORDER BY id",
        "SELECT id FROM w WHERE LOCATE('o', a) > 0 ORDER BY REVERSE(a)",
        "SELECT ASCII(a), COUNT(*) FROM w GROUP BY ASCII(a) ORDER BY 1",
        ],
    );
}
