//! How numbers are shown (quire issue 16's numeric leftovers), against a
//! MariaDB 10.11 the test starts:
//!
//! - ZEROFILL on TINYINT..BIGINT, DECIMAL, FLOAT and DOUBLE columns: the
//!   values padded to the display width in text rows, the column
//!   definition's UNSIGNED / ZEROFILL flags and length, SHOW CREATE TABLE,
//!   SHOW COLUMNS and information_schema, expressions over such columns
//!   (numbers, except where a string function reads them), CREATE TABLE
//!   ... SELECT / LIKE and ALTER TABLE carrying it, a restart and a
//!   `mariadb-dump` round trip keeping it, the binary protocol sending the
//!   number;
//! - `NUMERIC(p[,s]) UNSIGNED` / `ZEROFILL` spelled with NUMERIC;
//! - the D decimals of a `FLOAT(M,D)` / `DOUBLE(M,D)` column carried into
//!   arithmetic over it, and FLOAT columns read as text by string
//!   functions printing as MariaDB prints them.

mod oracle;

use mysql::consts::{ColumnFlags, ColumnType};
use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{answer, assert_same, Answer, MariaDb, Quire, QUIRE_ROOT_PASSWORD};

/// A table with a ZEROFILL column of each numeric type, and one row.
const ZEROFILL_TABLE: &[&str] = &[
    "CREATE TABLE z (id SMALLINT ZEROFILL PRIMARY KEY, a INT(5) ZEROFILL, b INT ZEROFILL, c BIGINT UNSIGNED ZEROFILL, \
     d TINYINT ZEROFILL, s SMALLINT ZEROFILL, m MEDIUMINT ZEROFILL, e DECIMAL(6,2) ZEROFILL, f FLOAT ZEROFILL, \
     g DOUBLE ZEROFILL, h FLOAT(7,2) ZEROFILL, i DOUBLE(8,3) ZEROFILL, j DECIMAL ZEROFILL, k INT(3) ZEROFILL, \
     n INT(4) ZEROFILL NOT NULL)",
    "INSERT INTO z VALUES \
     (1, 42, 42, 42, 4, 4, 4, 3.5, 1.5, 2.25, 3.25, 4.5, 7, 12345, 1), \
     (2, 7, 0, 18446744073709551615, 255, 65535, 16777215, 9999.99, 0, 0.5, 0.5, 0, 0, 5, 0), \
     (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 77777)",
];

fn setup(db: &str) -> (Quire, Conn, Conn) {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db(db), m.fresh_db(db));
    assert_same(&mut qc, &mut mc, ZEROFILL_TABLE);
    (q, qc, mc)
}

#[test]
fn zerofill_columns_show_padded_values_and_definitions_as_mariadb() {
    let (_q, mut qc, mut mc) = setup("zf_show");
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "SELECT * FROM z ORDER BY id",
            "SHOW CREATE TABLE z",
            "SHOW COLUMNS FROM z",
            "SELECT column_name, column_type, data_type, numeric_precision, numeric_scale \
             FROM information_schema.columns WHERE table_schema = 'zf_show' AND table_name = 'z' \
             ORDER BY ordinal_position",
            // Out of range and negative values: the column is UNSIGNED.
            "INSERT INTO z (id, a, n) VALUES (4, -1, 1)",
            "INSERT INTO z (id, d, n) VALUES (4, 256, 1)",
            "INSERT INTO z (id, e, n) VALUES (4, -0.5, 1)",
            "INSERT INTO z (id) VALUES (5)",
            // A DEFAULT shows padded.
            "CREATE TABLE dz (n INT(4) ZEROFILL NOT NULL DEFAULT 7, e DECIMAL(5,1) ZEROFILL DEFAULT 2.5)",
            "SHOW COLUMNS FROM dz",
            "SELECT column_default FROM information_schema.columns WHERE table_name = 'dz' ORDER BY ordinal_position",
            "INSERT INTO dz () VALUES ()",
            "SELECT * FROM dz",
            // ZEROFILL on a type that takes none.
            "CREATE TABLE bad (v VARCHAR(5) ZEROFILL)",
            "CREATE TABLE bad (v DATE ZEROFILL)",
            "CREATE TABLE bad (v INT(256) ZEROFILL)",
            "CREATE TABLE ok (v INT(255) ZEROFILL, w INT(0) ZEROFILL)",
            "SHOW CREATE TABLE ok",
            "INSERT INTO ok VALUES (1, 2)",
            "SELECT LENGTH(v), w FROM ok",
        ],
    );
}

#[test]
fn expressions_over_zerofill_columns_are_numbers_unless_read_as_text() {
    let (_q, mut qc, mut mc) = setup("zf_expr");
    assert_same(
        &mut qc,
        &mut mc,
        &[
            // Arithmetic and functions of numbers: plain numbers.
            "SELECT a + 0, a * 1, -a, ABS(a), a + a, a DIV 1, ROUND(a), e + 0, f + 0, h + 0, i + 0, \
             LEAST(a, b), IF(1, a, b), COALESCE(a), HEX(a) FROM z WHERE id = 1",
            "SELECT MAX(a), MIN(e), SUM(a), COUNT(DISTINCT a) FROM z",
            // String functions and LIKE read the padded text.
            "SELECT CONCAT(a), CONCAT(e), CONCAT(f), CONCAT(h), CONCAT(i), CONCAT('', b), CONCAT_WS('-', a, k), \
             CAST(a AS CHAR), LENGTH(a), LPAD(a, 7, 'z'), UPPER(c), QUOTE(a) FROM z WHERE id = 1",
            "SELECT id, a LIKE '0004%', a LIKE '42', CONCAT(a) FROM z ORDER BY id",
            "SELECT GROUP_CONCAT(a ORDER BY a), GROUP_CONCAT(f ORDER BY f) FROM z",
            "SELECT id FROM z WHERE CONCAT(a) = '00042' ORDER BY CONCAT(b)",
            "CREATE TABLE texts AS SELECT CONCAT(a) AS t FROM z WHERE id = 1",
            "SELECT t FROM texts",
            "UPDATE texts SET t = (SELECT CONCAT(k) FROM z WHERE id = 2)",
            "SELECT t FROM texts",
            // Comparisons are of numbers.
            "SELECT id FROM z WHERE a = 42 AND a = '00042' AND a = 00042 AND a < 100 AND a IN (42)",
            "SELECT id, a FROM z ORDER BY a DESC",
            "SELECT a, COUNT(*) FROM z GROUP BY a ORDER BY a",
            "SELECT DISTINCT e FROM z ORDER BY e",
            // Derived tables keep the column's padding; UNIONs do not.
            "SELECT * FROM (SELECT a, e FROM z) s ORDER BY a",
            "SELECT CONCAT(a), LENGTH(e) FROM (SELECT a, e FROM z) s ORDER BY a",
            "CREATE VIEW v AS SELECT a, e, a + 0 AS p FROM z",
            "SELECT a, e, p, CONCAT(a), a LIKE '000%' FROM v ORDER BY a",
            "SELECT column_name, column_type FROM information_schema.columns \
             WHERE table_schema = 'zf_expr' AND table_name = 'v' AND column_name <> 'p' ORDER BY ordinal_position",
            "SELECT a FROM z UNION SELECT a FROM z ORDER BY a",
            "SELECT a FROM z WHERE id = 1 UNION ALL SELECT 7",
        ],
    );
}

/// Type, length, decimals and the UNSIGNED / ZEROFILL flags of each result
/// column.
fn metadata(c: &mut Conn, sql: &str) -> Vec<(ColumnType, u32, u8, u16)> {
    let wanted = ColumnFlags::UNSIGNED_FLAG | ColumnFlags::ZEROFILL_FLAG;
    let result = c.query_iter(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    result
        .columns()
        .as_ref()
        .iter()
        .map(|col| (col.column_type(), col.column_length(), col.decimals(), (col.flags() & wanted).bits()))
        .collect()
}

#[test]
fn zerofill_column_definitions_carry_the_flags_and_display_width() {
    let (_q, mut qc, mut mc) = setup("zf_meta");
    for sql in [
        "SELECT a, b, c, d, s, m, e, f, g, h, i, j, k, n FROM z",
        "SELECT a FROM (SELECT a FROM z) s",
        "SELECT a FROM z GROUP BY a",
    ] {
        assert_eq!(metadata(&mut qc, sql), metadata(&mut mc, sql), "{sql}");
    }
    // Over expressions the flag is gone (lengths are quire's own there).
    let flags = |m: Vec<(ColumnType, u32, u8, u16)>| m.into_iter().map(|(t, _, d, f)| (t, d, f)).collect::<Vec<_>>();
    for sql in ["SELECT a + 0, COALESCE(a), MAX(a) FROM z", "SELECT a FROM z UNION SELECT a FROM z"] {
        assert_eq!(flags(metadata(&mut qc, sql)), flags(metadata(&mut mc, sql)), "{sql}");
    }
}

/// Numbers go as numbers (the client pads); a DECIMAL, sent as text,
/// goes padded, as MariaDB sends it.
#[test]
fn binary_protocol_sends_zerofill_values_as_numbers() {
    let (_q, mut qc, mut mc) = setup("zf_binary");
    let sql = "SELECT a, b, c, d, e, f, g, h, i, j FROM z WHERE id = 1";
    // The prepared statement's columns carry the flags and width too.
    let columns = |c: &mut Conn| {
        let stmt = c.prep(sql).unwrap();
        let wanted = ColumnFlags::UNSIGNED_FLAG | ColumnFlags::ZEROFILL_FLAG;
        stmt.columns().iter().map(|col| (col.column_length(), (col.flags() & wanted).bits())).collect::<Vec<_>>()
    };
    assert_eq!(columns(&mut qc), columns(&mut mc));
    let q: Vec<mysql::Row> = qc.exec(sql, ()).unwrap();
    let m: Vec<mysql::Row> = mc.exec(sql, ()).unwrap();
    let values = |rows: Vec<mysql::Row>| rows.into_iter().map(|r| r.unwrap()).collect::<Vec<_>>();
    let (q, m) = (values(q), values(m));
    assert_eq!(q, m);
    assert_eq!(q[0][0], mysql::Value::Int(42), "a number, not the padded text");
}

#[test]
fn zerofill_survives_create_select_like_alter_and_restart() {
    let (q, mut qc, mut mc) = setup("zf_ddl");
    let statements = [
        "CREATE TABLE c AS SELECT a, e, h, i FROM z",
        "SELECT column_name, column_type FROM information_schema.columns \
         WHERE table_schema = 'zf_ddl' AND table_name = 'c' ORDER BY ordinal_position",
        "SELECT a, e, h, i FROM c ORDER BY a",
        "CREATE TABLE l LIKE z",
        "SHOW CREATE TABLE l",
        "CREATE TABLE t (id SMALLINT ZEROFILL PRIMARY KEY, x INT, y DECIMAL(4,1))",
        "INSERT INTO t VALUES (1, 5, 2.5)",
        "ALTER TABLE t ADD COLUMN w SMALLINT ZEROFILL DEFAULT 3, MODIFY x INT(4) ZEROFILL, \
         CHANGE y yy DECIMAL(4,1) UNSIGNED ZEROFILL",
        "ALTER TABLE t ADD COLUMN v DOUBLE PRECISION ZEROFILL",
        "ALTER TABLE t ADD COLUMN u NUMERIC(5,2) ZEROFILL",
        // (SHOW COLUMNS: SHOW CREATE TABLE quotes the DEFAULT, see above.)
        "SHOW COLUMNS FROM t",
        "SELECT * FROM t",
        // Taking ZEROFILL away (MODIFY without it) leaves a plain column.
        "ALTER TABLE t MODIFY x INT UNSIGNED",
        "SELECT x FROM t",
    ];
    assert_same(&mut qc, &mut mc, &statements);
    drop(qc);
    let q = q.restart();
    let mut qc = q.connect(Some("zf_ddl"));
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "SHOW CREATE TABLE z",
            "SELECT * FROM z ORDER BY id",
            "SELECT * FROM t",
            "SELECT column_name, column_type FROM information_schema.columns \
             WHERE table_schema = 'zf_ddl' AND table_name = 't' AND column_name <> 'x' ORDER BY ordinal_position",
        ],
    );
}

#[test]
fn numeric_spelling_takes_unsigned_and_zerofill() {
    let (_q, mut qc, mut mc) = setup("zf_numeric");
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE n (a NUMERIC(5) UNSIGNED, b NUMERIC UNSIGNED ZEROFILL, c NUMERIC(6,2) ZEROFILL, \
             d NUMERIC(4,1) UNSIGNED)",
            "SHOW CREATE TABLE n",
            "INSERT INTO n VALUES (1, 2, 3.5, 4.25)",
            "INSERT INTO n (a) VALUES (-1)",
            "SELECT * FROM n",
        ],
    );
}

#[test]
fn float_and_double_decimals_carry_into_expressions_and_text() {
    let (_q, mut qc, mut mc) = setup("zf_approx");
    let statements = [
        "CREATE TABLE fl (f FLOAT, d DOUBLE(8,3), g DOUBLE, h FLOAT(6,2), n INT, e DECIMAL(5,1))",
        "INSERT INTO fl VALUES (1.1, 4.5, 0.1, 1.25, 2, 1.5), (123456789, 1234.5678, 1e20, 12.5, 3, 2.5), \
         (0.000012345, -1, 1.5e-7, -3, -4, 0)",
        "SELECT h + 0, d + 0, h * 2, h * d, h / 2, h + g, d - 1.5, d + 1e0, -d, ABS(d), d * 1, d + e, h + n, \
         f + 0 FROM fl",
        "SELECT SUM(d), MAX(d), SUM(h) FROM fl",
        "SELECT f, CONCAT(f), CONCAT(d), CONCAT(g), CONCAT(h), LENGTH(f), f LIKE '1.1', CONCAT_WS(',', f, d), \
         LPAD(f, 12, '*'), CAST(f AS CHAR), UPPER(h) FROM fl",
        "SELECT GROUP_CONCAT(f ORDER BY f), GROUP_CONCAT(d, h ORDER BY d SEPARATOR ';') FROM fl",
    ];
    assert_same(&mut qc, &mut mc, &statements);
    let sql = "SELECT h + 0, d + 0, h * d, h / 2, -d, ABS(d), d + e, h + g, f + 0, SUM(d) FROM fl";
    let decimals = |m: Vec<(ColumnType, u32, u8, u16)>| m.into_iter().map(|(t, _, d, _)| (t, d)).collect::<Vec<_>>();
    assert_eq!(decimals(metadata(&mut qc, sql)), decimals(metadata(&mut mc, sql)), "{sql}");
}

/// The path of a client tool, or `None` (the caller prints and skips).
fn tool(name: &str) -> Option<std::path::PathBuf> {
    let p = ["/usr/bin", "/usr/local/bin"].iter().map(|d| std::path::Path::new(d).join(name)).find(|p| p.exists());
    if p.is_none() {
        eprintln!("skipped: {name} is not installed (Debian's mariadb-client)");
    }
    p
}

/// Runs a client tool against quire `q` with `args` and `input`; its output.
fn run(tool: &std::path::Path, q: &Quire, args: &[&str], input: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let port = format!("-P{}", q.server.tcp_addr.expect("tcp").port());
    let password = format!("-p{QUIRE_ROOT_PASSWORD}");
    let mut child = std::process::Command::new(tool)
        .args(["--protocol=tcp", "-h127.0.0.1", &port, "-uroot", &password])
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start the tool");
    child.stdin.take().expect("stdin").write_all(input).expect("write");
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.success(), "{} failed: {}", tool.display(), String::from_utf8_lossy(&out.stderr));
    out.stdout
}

#[test]
fn mariadb_dump_round_trip_keeps_zerofill() {
    let (Some(dump), Some(client)) = (tool("mariadb-dump"), tool("mariadb")) else { return };
    let (source, mut sc, _mc) = setup("zf_dump");
    let text = run(&dump, &source, &["zf_dump"], b"");
    let target = Quire::start(&[]);
    let mut tc = target.fresh_db("zf_dump");
    run(&client, &target, &["zf_dump"], &text);
    for sql in ["SHOW CREATE TABLE z", "SELECT * FROM z ORDER BY id"] {
        let (s, t) = (answer(&mut sc, sql), answer(&mut tc, sql));
        assert!(matches!(s, Answer::Rows(_)), "{sql}: {s:?}");
        assert_eq!(s, t, "{sql}");
    }
}
