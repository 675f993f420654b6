//! BINARY, VARBINARY and the BLOBs beside MariaDB: binary strings
//! (bytes 0x00, 0x80, 0xFF included) stored, read back byte for byte,
//! compared and sorted byte-wise (ORDER BY and index ranges), converted
//! (hex and bit literals, `_binary`, CAST AS BINARY, HEX / UNHEX, string
//! functions on bytes), strict-mode errors and non-strict warnings, SHOW
//! CREATE TABLE / SHOW COLUMNS, result metadata (type, charset 63, the
//! BINARY flag) and prepared statements (bytes as parameters and in the
//! binary protocol). The oracle shows bytes that are not UTF-8 as hex, so
//! these comparisons are byte-exact.

mod oracle;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{answer, assert_same, assert_same_diagnostics, same_on_both, Answer, MariaDb, Quire};

const SETUP: &[&str] = &[
    "CREATE TABLE b (id INT PRIMARY KEY, a BINARY(4), v VARBINARY(10), bl BLOB, tb TINYBLOB, \
     mb MEDIUMBLOB, lb LONGBLOB, KEY kv (v))",
    "INSERT INTO b VALUES (1, x'00', x'80ff', x'ff', '', 'mb', 'lb')",
    "INSERT INTO b VALUES (2, 'ab', 'abc', 'Abc', x'00ff80', x'0102', NULL)",
    "INSERT INTO b VALUES (3, x'ffffffff', x'', x'', x'7f', '', x'00')",
    "INSERT INTO b VALUES (4, NULL, x'00', NULL, NULL, NULL, REPEAT('x', 300))",
    "INSERT INTO b VALUES (5, 'ABCD', 'ABC', 'abc', 'a', 'b', 'c')",
    "INSERT INTO b VALUES (6, 0x4142, _binary 'a\\0b', 0x00FF, b'101', b'1000001', b'11')",
];

#[test]
fn binary_literals_and_functions_answer_as_mariadb_does() {
    same_on_both(
        "bin_lit",
        &[
            "SELECT HEX(0x0AFF), 0x41, 0x41 + 0, b'101' + 0, HEX(b'101'), HEX(b'1000000001'), 0x41 = 65",
            "SELECT _binary 'abc', LENGTH(_binary 'abc'), HEX(CAST('ab' AS BINARY(4))), HEX(CAST('abc' AS BINARY))",
            "SELECT HEX(UNHEX('0aFF')), UNHEX('zz'), HEX(UNHEX('abc')), CHAR_LENGTH(x'e282ac'), LENGTH(x'e282ac')",
            "SELECT HEX(CONCAT(x'ff', 1)), HEX(CONCAT('a', x'00', 'b')), HEX(CONCAT_WS(',', x'ff', 'a'))",
            "SELECT HEX(SUBSTRING(x'00ff80', 2)), HEX(SUBSTRING(x'00ff80', -1)), HEX(SUBSTRING(x'00ff80', 1, 2))",
            "SELECT HEX(LEFT(x'00ff80', 1)), HEX(RIGHT(x'00ff80', 2)), HEX(REVERSE(x'0102')), HEX(REPEAT(x'ff', 2))",
            "SELECT HEX(UPPER(_binary 'ab')), HEX(LOWER(_binary 'AB')), HEX(TRIM(x'20ff20')), ASCII(x'ff'), ORD(x'80')",
            "SELECT HEX(REPLACE(x'ff00ff', x'00', x'01')), INSTR(x'00ff', x'ff'), LOCATE(x'ff', x'00ff'), MD5(x'ff')",
            "SELECT _binary 'a' = 'A', 'a' = 'A', BINARY 'a' = 'A', 0x61 = 'a', _binary 'a ' = 'a', 'a ' = 'a'",
            "SELECT x'00' < x'ff', x'7f' < x'80', _binary 'a' < _binary 'a\\0', _binary 'a' LIKE 'A', 'a' LIKE _binary 'a'",
            "SELECT BIN(5), BIN(0), BIN(255), SHA1(x'00ff'), SHA2(x'80', 256), OCTET_LENGTH(x'00ff'), BIT_LENGTH(x'00')",
            "SELECT HEX(IFNULL(NULL, x'00ff')), HEX(COALESCE(NULL, x'80')), x'ff' IN (x'fe', x'ff'), HEX(GREATEST(x'01', x'ff'))",
        ],
    );
}

#[test]
fn binary_columns_store_read_back_compare_and_sort_as_mariadb() {
    let mut statements: Vec<&str> = SETUP.to_vec();
    statements.extend_from_slice(&[
        "SELECT * FROM b ORDER BY id",
        "SELECT id, HEX(a), HEX(v), HEX(bl), HEX(tb), LENGTH(a), LENGTH(v), LENGTH(lb) FROM b ORDER BY id",
        "SELECT id FROM b ORDER BY v, id",
        "SELECT id FROM b ORDER BY a DESC, id",
        "SELECT id, HEX(bl) FROM b ORDER BY bl, id",
        // Index range on VARBINARY: byte order, 'ABC' < 'abc' < 0x80.
        "SELECT id, HEX(v) FROM b WHERE v BETWEEN x'00' AND x'7f' ORDER BY v",
        "SELECT id FROM b WHERE v > 'ABC' ORDER BY v DESC",
        "SELECT id FROM b WHERE v >= x'80' ORDER BY v",
        "SELECT id FROM b WHERE v = 'abc'",
        "SELECT id FROM b WHERE v = 'ABC'",
        "SELECT id FROM b WHERE v IN (x'00', 'abc', x'80ff') ORDER BY id",
        // BINARY(4) holds 'ab' padded: 'ab' itself equals nothing.
        "SELECT id FROM b WHERE a = 'ab'",
        "SELECT id FROM b WHERE a = x'61620000'",
        "SELECT id FROM b WHERE bl = 'abc'",
        "SELECT id FROM b WHERE bl LIKE 'A%'",
        "SELECT v, COUNT(*) FROM b GROUP BY v ORDER BY v",
        "SELECT DISTINCT LENGTH(a) FROM b ORDER BY 1",
        "SELECT MIN(v), MAX(v), MIN(a), MAX(bl) FROM b",
        "SELECT id, CONCAT(v, 'z'), HEX(CONCAT(a, v)), SUBSTRING(bl, 2), UPPER(bl) FROM b ORDER BY id",
        "SELECT id, v + 0, CAST(v AS CHAR), CAST(bl AS BINARY(2)) FROM b WHERE id IN (2, 5) ORDER BY id",
        "UPDATE b SET v = CONCAT(v, x'00') WHERE id = 2",
        "SELECT HEX(v) FROM b WHERE id = 2",
        "DELETE FROM b WHERE v = x'00'",
        "SELECT id FROM b ORDER BY id",
    ]);
    same_on_both("bin_cols", &statements);
}

#[test]
fn binary_keys_cluster_and_range_as_mariadb() {
    same_on_both(
        "bin_keys",
        &[
            "CREATE TABLE k (k VARBINARY(8) PRIMARY KEY, b BINARY(2) NOT NULL, n INT, UNIQUE KEY ub (b))",
            "INSERT INTO k VALUES (x'00', x'0000', 1), (x'0000', x'0001', 2), (x'80', x'8000', 3), (x'ff', x'ff00', 4)",
            "INSERT INTO k VALUES ('a', 'a', 5), ('a\\0', 'b', 6), ('abcdefgh', 'ab', 7), ('', 'zz', 8)",
            "INSERT INTO k VALUES (x'00', x'1234', 9)",
            "INSERT INTO k VALUES (x'01', x'0000', 10)",
            "SELECT HEX(k), HEX(b), n FROM k ORDER BY k",
            "SELECT n FROM k WHERE k > x'00' AND k < x'81' ORDER BY k",
            "SELECT n FROM k WHERE k >= 'a' ORDER BY k DESC",
            "SELECT n FROM k WHERE k = 'a'",
            "SELECT n FROM k WHERE k = ''",
            "SELECT n FROM k WHERE b = 'a\\0'",
            "SELECT n FROM k WHERE b BETWEEN x'0000' AND x'8000' ORDER BY b",
            "UPDATE k SET n = n + 100 WHERE k BETWEEN x'01' AND x'ff'",
            "SELECT HEX(k), n FROM k ORDER BY n",
            "CREATE TABLE kb (b BLOB PRIMARY KEY)",
        ],
    );
    // MariaDB makes a hash key of a BLOB in a UNIQUE or plain KEY; quire
    // has no hash keys and, without a prefix length, says what MySQL
    // says: 1170.
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("bin_keys2");
    for sql in [
        "CREATE TABLE kb2 (id INT PRIMARY KEY, b TINYBLOB, UNIQUE KEY (b))",
        "CREATE TABLE kb3 (id INT PRIMARY KEY, b BLOB, KEY (b))",
        "CREATE TABLE kb4 (id INT PRIMARY KEY, t TEXT, KEY (t))",
    ] {
        assert_eq!(answer(&mut qc, sql), Answer::Err(1170), "{sql}");
    }
}

#[test]
fn too_long_and_invalid_text_are_errors_in_strict_mode_and_warnings_outside() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("bin_strict");
    let mut mc = m.fresh_db("bin_strict");
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE s (id INT PRIMARY KEY, a BINARY(2), v VARBINARY(3), t TINYBLOB, c VARCHAR(10))",
            "INSERT INTO s (id, v) VALUES (1, 'abcd')",
            "INSERT INTO s (id, a) VALUES (2, x'000102')",
            "INSERT INTO s (id, t) VALUES (3, REPEAT('x', 256))",
            "INSERT INTO s (id, v) VALUES (4, 'abc')",
            "INSERT INTO s (id, c) VALUES (5, x'41ff42')",
            "SET sql_mode = ''",
            "INSERT INTO s (id, v) VALUES (11, 'abcd')",
            "INSERT INTO s (id, a, v) VALUES (12, x'000102', x'ffffffff')",
            "INSERT INTO s (id, t) VALUES (13, REPEAT('x', 256))",
            "INSERT INTO s (id, c) VALUES (14, x'41ff42')",
            "UPDATE s SET v = 'wxyz' WHERE id = 4",
            "SELECT id, HEX(a), HEX(v), LENGTH(t), c FROM s ORDER BY id",
        ],
    );
}

#[test]
fn show_create_table_and_show_columns_print_binary_types_as_mariadb() {
    same_on_both(
        "bin_show",
        &[
            "CREATE TABLE d (a BINARY(4) DEFAULT 'ab', v VARBINARY(10) DEFAULT 'x', b BLOB, tb TINYBLOB, \
             b100 BLOB(100), b70k BLOB(70000), mb MEDIUMBLOB, lb LONGBLOB, bin BINARY, \
             c CHAR(5) CHARACTER SET binary, vc VARCHAR(10) CHARACTER SET binary, tx TEXT CHARACTER SET binary, \
             k VARBINARY(4) NOT NULL, PRIMARY KEY (k))",
            "SHOW CREATE TABLE d",
            "SHOW COLUMNS FROM d",
            "INSERT INTO d (k) VALUES ('k')",
            "SELECT HEX(a), v, b, bin FROM d",
            "CREATE TABLE too_long (v VARBINARY(70000))",
            "CREATE TABLE too_long2 (b BINARY(256))",
        ],
    );
}

/// What a driver reads to convert a value: type, character set, length
/// and the BINARY / BLOB flags.
fn metadata(c: &mut Conn, sql: &str) -> Vec<(mysql::consts::ColumnType, u16, u32, bool, bool)> {
    use mysql::consts::ColumnFlags;
    let result = c.query_iter(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    result
        .columns()
        .as_ref()
        .iter()
        .map(|col| {
            let f = col.flags();
            (
                col.column_type(),
                col.character_set(),
                col.column_length(),
                f.contains(ColumnFlags::BINARY_FLAG),
                f.contains(ColumnFlags::BLOB_FLAG),
            )
        })
        .collect()
}

#[test]
fn result_metadata_and_prepared_statements_carry_bytes_as_mariadb() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("bin_meta");
    let mut mc = m.fresh_db("bin_meta");
    assert_same(&mut qc, &mut mc, SETUP);
    for sql in ["SELECT a, v, bl, tb, mb, lb FROM b", "SELECT 0x41, _binary 'ab', UNHEX('00'), CAST('a' AS BINARY(3))"]
    {
        assert_eq!(metadata(&mut qc, sql), metadata(&mut mc, sql), "{sql}");
    }
    // Bytes as parameters, and back through the binary protocol.
    let raw: Vec<u8> = vec![0x00, 0x80, 0xff, b'a', 0x00];
    for c in [&mut qc, &mut mc] {
        c.exec_drop("INSERT INTO b (id, v, bl) VALUES (?, ?, ?)", (10, raw.clone(), raw.clone())).unwrap();
    }
    let read = |c: &mut Conn| -> Vec<Vec<mysql::Value>> {
        let stmt = c.prep("SELECT id, a, v, bl, HEX(v) FROM b WHERE v = ? OR id < ? ORDER BY id").unwrap();
        c.exec_map(&stmt, (raw.clone(), 3), |row: mysql::Row| row.unwrap()).unwrap()
    };
    let got = read(&mut qc);
    assert_eq!(got, read(&mut mc));
    assert_eq!(got.last().unwrap()[2], mysql::Value::Bytes(raw.clone()));
    assert_same(&mut qc, &mut mc, &["SELECT HEX(v), HEX(bl) FROM b WHERE id = 10"]);
}
