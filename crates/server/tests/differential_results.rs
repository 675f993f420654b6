//! quire beside MariaDB on what drivers read besides the row values: exact
//! decimal arithmetic (DIV, MOD, scales, rounding), result column metadata
//! (type, decimals, UNSIGNED / BINARY flags, character set), UPDATE's
//! affected rows with and without CLIENT_FOUND_ROWS, and the OK packet's
//! info text byte for byte.
//!
//! Where MySQL 8.0 and MariaDB differ, the tests follow MySQL and say so
//! next to the case; none of the cases below needed it.

mod oracle;

use std::io::{Read, Write};

use mysql::consts::{CapabilityFlags, ColumnFlags};
use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{answer, assert_same, MariaDb, Quire};

/// Expressions whose values and scales must be MariaDB's.
const DECIMAL_EXPRESSIONS: &[&str] = &[
    // DIV truncates the exact quotient; it never rounds or drops a scale.
    "7.5 DIV 2",
    "7.9 DIV 1",
    "91 DIV 53.0",
    "-7.9 DIV 2",
    "7 DIV -2",
    "1.5 DIV 0.5",
    "0.99 DIV 1",
    "12345678901234567890.5 DIV 3",
    "7 DIV 0",
    "7.5 DIV 0",
    // MOD keeps the dividend's sign and the larger scale.
    "7.5 % 2",
    "-7.5 % 2",
    "7 % -2.25",
    "MOD(10.5, 3)",
    "-7 % 3",
    "7.5 % 0",
    "7 % 0.0",
    // + - * keep exact scales.
    "1 + 1.5",
    "1.25 - 3",
    "2 * 1.25",
    "1.10 * 1.1",
    "-(1.50)",
    "-1.50 * -2",
    "0.1 + 0.2",
    "1.000 + 1",
    "12345678901234567890.12 * 1000000",
    // `/` gives the dividend's scale plus div_precision_increment (4),
    // rounded half away from zero.
    "1/3",
    "2/3",
    "1.0/3",
    "1.00/3",
    "10/4",
    "-7/2",
    "-2/3",
    "1/0",
    "1.5/0.0",
    "0.5/3",
    // Comparisons across scales and kinds.
    "1.5 = 1.50",
    "1.5 > 1.49",
    "1.50 = '1.5'",
    "1.5 = 1",
    "2 > 1.999",
    "10 < '9'",
    "1.5 <=> 1.500",
    "1.5 BETWEEN 1.49 AND 1.51",
    "1.0 IN (1, 2)",
    // ROUND rounds half away from zero; TRUNCATE / FLOOR / CEIL cut.
    "ROUND(2.5)",
    "ROUND(-2.5)",
    "ROUND(1.2345, 2)",
    "ROUND(1.2355, 3)",
    "ROUND(15.5, -1)",
    "TRUNCATE(1.999, 2)",
    "TRUNCATE(-1.999, 0)",
    "TRUNCATE(1234.5, -2)",
    "TRUNCATE(1999, -2)",
    "FLOOR(1.5)",
    "FLOOR(-1.5)",
    "CEIL(1.2)",
    "CEIL(-1.2)",
    "CEILING(2.0)",
    "ABS(-1.50)",
    // Approximate literals and strings in arithmetic are doubles.
    "1e3",
    "-1e3",
    "1.5e0 + 1",
    "2e0 * 3",
    "'1.50' + 0",
    "'2' * '3.5'",
];

fn select_each(exprs: &[&str]) -> Vec<String> {
    exprs.iter().map(|e| format!("SELECT {e}")).collect()
}

#[test]
fn decimal_arithmetic_answers_as_mariadb_does() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("diff_decimal");
    let mut mc = m.fresh_db("diff_decimal");
    let selects = select_each(DECIMAL_EXPRESSIONS);
    let selects: Vec<&str> = selects.iter().map(String::as_str).collect();
    assert_same(&mut qc, &mut mc, &selects);
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE d (id INT PRIMARY KEY, a DECIMAL(10,2), b DECIMAL(6,3), i INT)",
            // Not -12.25 % 0.125: MariaDB prints that zero remainder as
            // "-0.000" (a signed decimal zero quire does not have).
            "INSERT INTO d VALUES (1, 7.50, 2.000, 3), (2, -12.25, 0.375, -4), (3, 0.00, 1.500, 0)",
            "SELECT a + b, a - b, a * b, a / b, a DIV b, a % b FROM d ORDER BY id",
            "SELECT a = b, a > b, a + i, a * i, a / i, a DIV i, i DIV b FROM d ORDER BY id",
            "SELECT SUM(a), SUM(b), AVG(a), AVG(i), MIN(a), MAX(b) FROM d",
            "SELECT id FROM d WHERE a > 0.5 ORDER BY id",
            "SELECT id FROM d WHERE b = 1.5",
            "UPDATE d SET a = a / 3 WHERE id = 1",
            "SELECT a FROM d WHERE id = 1",
        ],
    );
    // Overflow is an error, not a wrapped value.
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "SELECT 9223372036854775807 + 1",
            "SELECT -9223372036854775807 - 2",
            "SELECT 4294967296 * 4294967296",
            "SELECT 18446744073709551615 + 0",
            "SELECT 18446744073709551615 + 1",
            "SELECT 9223372036854775808 - 1",
            "SELECT CAST(1 AS UNSIGNED) - 2",
            "SELECT 9999999999999999999999999999999999.5 * 1000",
        ],
    );
    // quire's decimals hold 38 digits (MySQL's 65): a wider result is
    // error 1690, never a wrong or wrapped value.
    let wide = answer(&mut qc, "SELECT 99999999999999999999999999999999.5 * 1000000");
    assert_eq!(wide, oracle::Answer::Err(1690));
}

/// What a driver reads from a column definition to convert values.
#[derive(Debug, PartialEq)]
struct Meta {
    name: String,
    column_type: mysql::consts::ColumnType,
    decimals: u8,
    unsigned: bool,
    binary: bool,
    charset: u16,
}

fn metadata(c: &mut Conn, sql: &str) -> Vec<Meta> {
    let result = c.query_iter(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let cols = result.columns();
    cols.as_ref()
        .iter()
        .map(|col| {
            let num = !matches!(
                col.column_type(),
                mysql::consts::ColumnType::MYSQL_TYPE_VAR_STRING
                    | mysql::consts::ColumnType::MYSQL_TYPE_STRING
                    | mysql::consts::ColumnType::MYSQL_TYPE_BLOB
            );
            Meta {
                name: col.name_str().into_owned(),
                column_type: col.column_type(),
                // String columns' decimals (MariaDB: 39) mean nothing.
                decimals: if num { col.decimals() } else { 0 },
                unsigned: col.flags().contains(ColumnFlags::UNSIGNED_FLAG),
                binary: col.flags().contains(ColumnFlags::BINARY_FLAG),
                charset: col.character_set(),
            }
        })
        .collect()
}

/// Result columns whose metadata must be MariaDB's. Lengths and NOT_NULL
/// are not compared: drivers convert values by type, decimals, UNSIGNED
/// and character set, and quire does not track nullability of
/// expressions.
const METADATA_SELECTS: &[&str] = &[
    "SELECT 1, -5, 127, 123456789, 2147483648, 18446744073709551615",
    "SELECT 1.50, 1e3, 'abc', NULL",
    "SELECT 1 + 1, 1 + 1.5, 2 * 1.25, 1 / 3, 1.0 / 3, 7.5 DIV 2, 7.5 % 2, -7.5",
    "SELECT 1 = 1, 1 < 2, NOT 1, 1 IS NULL, 'a' LIKE 'a'",
    "SELECT @@autocommit, @@max_connections, @@sql_mode, @@version, @@innodb_buffer_pool_size",
    "SELECT @@wait_timeout, @@max_allowed_packet, @@global.max_connections, @@session.autocommit",
    "SELECT @@character_set_client, @@lower_case_table_names, @@innodb_flush_log_at_trx_commit",
    "SELECT DATABASE(), VERSION(), CONNECTION_ID(), LAST_INSERT_ID(), NOW(), CONCAT('a', 1)",
    "SELECT ROUND(2.5), ROUND(1.2345, 2), TRUNCATE(1.999, 2), FLOOR(1.5), CEIL(1.2), ABS(-1.5)",
    "SELECT ROW_COUNT(), FOUND_ROWS(), LENGTH('abc'), CHAR_LENGTH('abc'), UPPER('a')",
    "SELECT id, k, s, a, u, big, d, dt FROM t",
    "SELECT COUNT(*), SUM(k), AVG(k), MIN(k), MAX(s), SUM(a), AVG(a), MAX(a) FROM t",
    "SELECT k + 1, a + 1, a * 2, a / 2, k DIV 2, u + 1, big + 1 FROM t",
];

#[test]
fn result_metadata_matches_mariadb() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("diff_meta");
    let mut mc = m.fresh_db("diff_meta");
    let setup = [
        "CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, s VARCHAR(20), a DECIMAL(10,2), \
         u INT UNSIGNED, big BIGINT, d DATE, dt DATETIME)",
        "INSERT INTO t VALUES (1, 10, 'x', 1.25, 7, 9000000000, '2024-01-02', '2024-01-02 03:04:05')",
    ];
    assert_same(&mut qc, &mut mc, &setup);
    let mut differ = Vec::new();
    for sql in METADATA_SELECTS {
        let (qm, mm) = (metadata(&mut qc, sql), metadata(&mut mc, sql));
        assert_eq!(qm.len(), mm.len(), "{sql}: column count");
        for (a, b) in qm.iter().zip(&mm) {
            if a != b {
                differ.push(format!("{sql}\n  quire:   {a:?}\n  MariaDB: {b:?}"));
            }
        }
    }
    assert!(differ.is_empty(), "metadata differs from MariaDB:\n{}", differ.join("\n"));
}

/// Statements around UPDATE's affected rows, for one connection.
const AFFECTED_ROWS: &[&str] = &[
    "CREATE TABLE t (id INT PRIMARY KEY, k INT)",
    "INSERT INTO t VALUES (1, 1), (2, 2), (3, 3)",
    "SELECT ROW_COUNT()",
    "INSERT INTO t VALUES (4, 4)",
    "SELECT ROW_COUNT()",
    "UPDATE t SET k = k",
    "SELECT ROW_COUNT()",
    "UPDATE t SET k = 1 WHERE id <= 2",
    "SELECT ROW_COUNT()",
    "UPDATE t SET k = 5 WHERE id = 99",
    "SELECT ROW_COUNT()",
    "DELETE FROM t WHERE id = 4",
    "SELECT ROW_COUNT()",
];

#[test]
fn update_reports_matched_rows_only_with_client_found_rows() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    for (db, found_rows) in [("diff_changed_rows", false), ("diff_found_rows", true)] {
        let caps = if found_rows { CapabilityFlags::CLIENT_FOUND_ROWS } else { CapabilityFlags::empty() };
        q.fresh_db(db);
        m.fresh_db(db);
        let mut qc = Conn::new(q.opts(Some(db)).additional_capabilities(caps)).expect("quire");
        let mut mc = Conn::new(m.opts(Some(db)).additional_capabilities(caps)).expect("MariaDB");
        assert_same(&mut qc, &mut mc, AFFECTED_ROWS);
        // The flag really changes the count (the comparison above is not
        // between two servers that both ignore it).
        let a = answer(&mut qc, "UPDATE t SET k = k");
        let expect = if found_rows { 3 } else { 0 };
        assert!(matches!(a, oracle::Answer::Ok { affected, .. } if affected == expect), "{db}: {a:?}");
    }
}

/// A client that speaks packets by hand, over TCP (quire) or a Unix
/// socket (MariaDB), logging in with an empty password.
struct RawClient<S> {
    s: S,
    seq: u8,
}

impl<S: Read + Write> RawClient<S> {
    fn login(s: S, user: &str, db: &str, extra_caps: u32) -> Self {
        let mut c = RawClient { s, seq: 0 };
        let hs = c.read();
        assert_eq!(hs[0], 10, "handshake v10");
        // PROTOCOL_41 | SECURE_CONNECTION | PLUGIN_AUTH | CONNECT_WITH_DB;
        // no CLIENT_SESSION_TRACK.
        let caps: u32 = (1 << 9) | (1 << 15) | (1 << 19) | (1 << 3) | extra_caps;
        let mut b = caps.to_le_bytes().to_vec();
        b.extend_from_slice(&(16u32 << 20).to_le_bytes());
        b.push(45);
        b.extend_from_slice(&[0u8; 23]);
        b.extend_from_slice(user.as_bytes());
        b.extend_from_slice(&[0, 0]);
        b.extend_from_slice(db.as_bytes());
        b.push(0);
        b.extend_from_slice(b"mysql_native_password\0");
        c.send(&b);
        let ok = c.read();
        assert_eq!(ok[0], 0, "login: {ok:?}");
        c
    }

    fn send(&mut self, payload: &[u8]) {
        let len = (payload.len() as u32).to_le_bytes();
        let mut p = vec![len[0], len[1], len[2], self.seq];
        p.extend_from_slice(payload);
        self.seq = self.seq.wrapping_add(1);
        self.s.write_all(&p).expect("write");
    }

    fn read(&mut self) -> Vec<u8> {
        let mut h = [0u8; 4];
        self.s.read_exact(&mut h).expect("read header");
        let len = usize::from(h[0]) | usize::from(h[1]) << 8 | usize::from(h[2]) << 16;
        self.seq = h[3].wrapping_add(1);
        let mut p = vec![0u8; len];
        self.s.read_exact(&mut p).expect("read payload");
        p
    }

    /// COM_QUERY answered by an OK packet: its payload.
    fn ok(&mut self, sql: &str) -> Vec<u8> {
        self.seq = 0;
        let mut p = vec![0x03];
        p.extend_from_slice(sql.as_bytes());
        self.send(&p);
        let ok = self.read();
        assert_eq!(ok[0], 0, "{sql}: expected OK, got {ok:?}");
        ok
    }
}

/// An OK payload without its status flags (MariaDB adds
/// SERVER_QUERY_NO_INDEX_USED, which quire does not track): header,
/// affected rows, last insert id, warnings, and everything after.
fn ok_without_status(p: &[u8]) -> Vec<u8> {
    // One-byte length-encoded integers in these tests: header, affected,
    // id, then status at 3..5.
    assert!(p[1] < 0xfb && p[2] < 0xfb, "small counts expected: {p:?}");
    let mut v = p[..3].to_vec();
    v.extend_from_slice(&p[5..]);
    v
}

#[test]
fn ok_packet_info_text_is_sent_as_mariadb_sends_it() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut admin = q.fresh_db("diff_info");
    admin.query_drop("CREATE USER 'rawc'@'%'").expect("create user");
    admin.query_drop("GRANT ALL ON *.* TO 'rawc'@'%'").expect("grant");
    m.fresh_db("diff_info");
    let quire_addr = q.server.tcp_addr.expect("tcp");
    for caps in [0u32, 1 << 1] {
        let mut qc =
            RawClient::login(std::net::TcpStream::connect(quire_addr).expect("quire"), "rawc", "diff_info", caps);
        let mut mc = RawClient::login(
            std::os::unix::net::UnixStream::connect(&m.socket).expect("MariaDB"),
            "root",
            "diff_info",
            caps,
        );
        for sql in [
            "CREATE TABLE t (id INT PRIMARY KEY, k INT)",
            "INSERT INTO t VALUES (1, 1), (2, 2), (3, 3), (4, 4)",
            "UPDATE t SET k = 1",
            "UPDATE t SET k = 9 WHERE id = 2",
            "DELETE FROM t WHERE id = 4",
            "DROP TABLE t",
        ] {
            let (a, b) = (qc.ok(sql), mc.ok(sql));
            assert_eq!(
                ok_without_status(&a),
                ok_without_status(&b),
                "caps {caps:#x}, {sql}:\n  quire   {}\n  MariaDB {}",
                String::from_utf8_lossy(&a),
                String::from_utf8_lossy(&b)
            );
        }
        // What the comparison above pins: the info text is length-encoded
        // even without CLIENT_SESSION_TRACK (MariaDB and MySQL both send it
        // so, and libmysqlclient reads it so).
        let p = qc.ok("CREATE TABLE t2 (id INT PRIMARY KEY)");
        assert_eq!(p.len(), 7, "no info, no length byte: {p:?}");
        let p = qc.ok("INSERT INTO t2 VALUES (1), (2)");
        let info = b"Records: 2  Duplicates: 0  Warnings: 0";
        assert_eq!(p[7], info.len() as u8);
        assert_eq!(&p[8..], info);
        qc.ok("DROP TABLE t2");
    }
}
