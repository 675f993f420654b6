//! ENUM and SET columns beside MariaDB: storing members by name (case
//! and trailing spaces as the collation says), by number and by digits
//! in text, bad input as `''` / dropped members with 1265 outside strict
//! mode and the error in it, implicit defaults, reading back as text and
//! as numbers (`+ 0`), comparisons with strings (as text) and numbers (as
//! the index), ORDER BY / GROUP BY / MIN / MAX by the index, an index
//! range, the member checks of CREATE TABLE (1291, 1367, 1067), SHOW
//! CREATE TABLE / SHOW COLUMNS, result metadata, a restart that keeps
//! the member lists, and `= 'text'` / IN served by the column's index.

mod oracle;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{assert_same, assert_same_diagnostics, explained_key, MariaDb, Quire};

const ENUM_TABLE: &str = "CREATE TABLE e (id INT PRIMARY KEY, c ENUM('x','B','it''s','a ') NOT NULL, \
     d ENUM('p','q') DEFAULT 'q', KEY kc (c))";

#[test]
fn enum_values_store_compare_and_sort_as_mariadb() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db("enum_store"), m.fresh_db("enum_store"));
    assert_same(&mut qc, &mut mc, &["SET sql_mode = ''"]);
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            ENUM_TABLE,
            "INSERT INTO e (id, c) VALUES (1, 'b'), (2, 'zz'), (3, 3), (4, 'A  '), (5, 0), (6, 9), (7, 'it''s'), \
             (8, '1'), (9, 2.7), (10, '')",
            "INSERT INTO e (id) VALUES (11)",
            "INSERT INTO e (id, c, d) VALUES (12, NULL, NULL), (13, 'x', 'P')",
            "UPDATE e SET d = 'zz' WHERE id = 13",
            "SET sql_mode = 'STRICT_TRANS_TABLES'",
            "INSERT INTO e (id, c) VALUES (20, 'zz')",
            "INSERT INTO e (id, c) VALUES (20, 9)",
            "INSERT INTO e (id, c) VALUES (20, '')",
            "INSERT INTO e (id, c) VALUES (20, 0)",
            "INSERT INTO e (id) VALUES (21)",
            "UPDATE e SET c = 'nope' WHERE id = 21",
        ],
    );
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "SELECT id, c, c + 0, d, d + 0, c * 1, CONCAT(c, '|'), LENGTH(c), UPPER(c) FROM e ORDER BY id",
            "SELECT id, c FROM e ORDER BY c, id",
            "SELECT id, c, d FROM e ORDER BY c DESC, d, id",
            "SELECT id FROM e WHERE c = 'b' ORDER BY id",
            "SELECT id FROM e WHERE c = 2 ORDER BY id",
            "SELECT id FROM e WHERE c > 'a' ORDER BY id",
            "SELECT id FROM e WHERE c < 3 ORDER BY id",
            "SELECT id FROM e FORCE INDEX (kc) WHERE c BETWEEN 1 AND 3 ORDER BY c, id",
            "SELECT id FROM e FORCE INDEX (kc) WHERE c > 2 ORDER BY c DESC, id",
            "SELECT id FROM e WHERE c IN ('a', 3) ORDER BY id",
            "SELECT id FROM e WHERE c LIKE 'i%' ORDER BY id",
            "SELECT id FROM e WHERE c ORDER BY id",
            "SELECT MIN(c), MAX(c), COUNT(DISTINCT c), SUM(c) FROM e",
            "SELECT c, COUNT(*) FROM e GROUP BY c ORDER BY c",
            "SELECT CAST(c AS CHAR), CAST(c AS UNSIGNED), c = 'B', c < 'C', c + 0 = 2, c = d FROM e WHERE id = 1",
            "SELECT a.id, b.id FROM e a JOIN e b ON a.c = b.c WHERE a.id < 5 ORDER BY a.id, b.id",
            // quire prints `int` where MariaDB prints `int(11)`: the
            // definitions are compared on a table without integers.
            "CREATE TABLE e2 (c ENUM('x','B','it''s','a ') NOT NULL, d ENUM('p','q') DEFAULT 'q', KEY kc (c))",
            "SHOW CREATE TABLE e2",
            "SHOW COLUMNS FROM e2",
        ],
    );
}

#[test]
fn set_values_store_compare_and_sort_as_mariadb() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db("set_store"), m.fresh_db("set_store"));
    assert_same(&mut qc, &mut mc, &["SET sql_mode = ''"]);
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE s (id INT PRIMARY KEY, s SET('a','b','c'), t SET('x','y') NOT NULL DEFAULT 'y,x', KEY ks (s))",
            "INSERT INTO s (id, s) VALUES (1, 'a,b'), (2, 'c,a,a'), (3, 'b,z'), (4, 7), (5, 9), (6, ''), \
             (7, 'A, b'), (8, ',a,'), (9, 'a,,b'), (10, 'B '), (11, NULL), (12, 'z'), (13, '5')",
            "SET sql_mode = 'STRICT_TRANS_TABLES'",
            "INSERT INTO s (id, s) VALUES (20, 'b,z')",
            "INSERT INTO s (id, s) VALUES (20, 8)",
            "INSERT INTO s (id, s, t) VALUES (20, 'c,b', 'x')",
        ],
    );
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "SELECT id, s, s + 0, t, t + 0, FIND_IN_SET('b', s), s = 'a,b', s LIKE '%b%' FROM s ORDER BY id",
            "SELECT id, s FROM s ORDER BY s, id",
            "SELECT id FROM s FORCE INDEX (ks) WHERE s BETWEEN 2 AND 5 ORDER BY s, id",
            "SELECT id FROM s WHERE s = 3 ORDER BY id",
            "SELECT id FROM s WHERE s = 'b,a' ORDER BY id",
            "SELECT s, COUNT(*) FROM s GROUP BY s ORDER BY s",
            "SELECT MIN(s), MAX(s) FROM s",
            "CREATE TABLE s2 (s SET('a','b','c'), t SET('x','y') NOT NULL DEFAULT 'y,x', KEY ks (s))",
            "SHOW CREATE TABLE s2",
            "SHOW COLUMNS FROM s2",
        ],
    );
}

#[test]
fn member_lists_are_checked_and_printed_as_mariadb() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db("enum_ddl"), m.fresh_db("enum_ddl"));
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE s2 (s SET('a','b','A'))",
            "CREATE TABLE s3 (s SET('a','b,c'))",
            "CREATE TABLE e3 (e ENUM('a','A'))",
            "CREATE TABLE e3b (e ENUM('a','b','a '))",
            "CREATE TABLE e4 (e ENUM('a','b') DEFAULT 'z')",
            "CREATE TABLE e5 (e ENUM('a','b') DEFAULT 2)",
            "CREATE TABLE e6 (e ENUM('a','A') COLLATE utf8mb4_bin, f ENUM('a ', ' b', 'A\\\\b', 'q''r') DEFAULT ' b', \
             g ENUM('') NOT NULL, h SET('x') DEFAULT '')",
            "SHOW CREATE TABLE e6",
            "SHOW COLUMNS FROM e6",
            "INSERT INTO e6 (e) VALUES ('A')",
            "SELECT e, f, g, h, e = 'a' FROM e6",
        ],
    );
}

/// Type, length, character set and the flags a driver reads (not NUM and
/// NOT_NULL, which quire sets by its own rules on computed columns).
fn metadata(c: &mut Conn, sql: &str) -> Vec<(mysql::consts::ColumnType, u32, u16, u16)> {
    use mysql::consts::ColumnFlags;
    let wanted = ColumnFlags::UNSIGNED_FLAG
        | ColumnFlags::ZEROFILL_FLAG
        | ColumnFlags::BINARY_FLAG
        | ColumnFlags::ENUM_FLAG
        | ColumnFlags::SET_FLAG
        | ColumnFlags::BLOB_FLAG;
    let result = c.query_iter(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    result
        .columns()
        .as_ref()
        .iter()
        .map(|col| (col.column_type(), col.column_length(), col.character_set(), (col.flags() & wanted).bits()))
        .collect()
}

#[test]
fn result_metadata_is_mariadbs() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db("enum_meta"), m.fresh_db("enum_meta"));
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, e ENUM('x','it''s') NOT NULL, s SET('a','b','c'), y YEAR, b BIT(10))",
            "INSERT INTO t VALUES (1, 'x', 'a,c', 1999, b'101')",
        ],
    );
    let sql = "SELECT e, s, y, b FROM t";
    assert_eq!(metadata(&mut qc, sql), metadata(&mut mc, sql), "{sql}");
    // Computed columns: quire's integer lengths are per type, not per
    // expression (as elsewhere), so lengths are left out.
    let no_len = |m: Vec<(mysql::consts::ColumnType, u32, u16, u16)>| {
        m.into_iter().map(|(t, _, cs, f)| (t, cs, f)).collect::<Vec<_>>()
    };
    for sql in ["SELECT e + 0, s + 0, y + 0, b + 0 FROM t", "SELECT MAX(e), MIN(s), MAX(y) FROM t"] {
        assert_eq!(no_len(metadata(&mut qc, sql)), no_len(metadata(&mut mc, sql)), "{sql}");
    }
    // Prepared statements: the same values in the binary protocol.
    let read = |c: &mut Conn| -> Vec<Vec<mysql::Value>> {
        c.exec_map("SELECT e, s, y, b, e + 0 FROM t WHERE id = ?", (1,), |r: mysql::Row| r.unwrap()).unwrap()
    };
    assert_eq!(read(&mut qc), read(&mut mc));
}

#[test]
fn member_lists_and_values_survive_a_restart() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("enum_restart");
    c.query_drop(
        "CREATE TABLE r (e ENUM('one','two','it''s') NOT NULL PRIMARY KEY, s SET('a','b') DEFAULT 'b,a', \
         y YEAR DEFAULT 1999, b BIT(5) DEFAULT b'101', KEY ks (s))",
    )
    .unwrap();
    c.query_drop("INSERT INTO r (e) VALUES ('two'), ('it''s')").unwrap();
    c.query_drop("INSERT INTO r VALUES ('one', 'a', 2001, 31)").unwrap();
    let show =
        |c: &mut Conn| -> String { c.query_first::<(String, String), _>("SHOW CREATE TABLE r").unwrap().unwrap().1 };
    type Row = (String, u64, String, u64, String, u64);
    let read = |c: &mut Conn| -> Vec<Row> {
        c.query("SELECT e, e + 0, s, s + 0, CAST(y AS CHAR), b + 0 FROM r ORDER BY e").unwrap()
    };
    let before = (show(&mut c), read(&mut c));
    assert_eq!(
        before.1,
        vec![
            ("one".into(), 1, "a".into(), 1, "2001".into(), 31),
            ("two".into(), 2, "a,b".into(), 3, "1999".into(), 5),
            ("it's".into(), 3, "a,b".into(), 3, "1999".into(), 5),
        ]
    );
    drop(c);
    let q = q.restart();
    let mut c = q.connect(Some("enum_restart"));
    assert_eq!((show(&mut c), read(&mut c)), before);
    let found: Vec<u64> = c.query("SELECT s + 0 FROM r FORCE INDEX (ks) WHERE s = 1").unwrap();
    assert_eq!(found, vec![1]);
}

#[test]
fn enum_and_set_compared_with_text_use_their_index() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db("enum_text_key"), m.fresh_db("enum_text_key"));
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "SET sql_mode = ''",
            "CREATE TABLE et (id INT PRIMARY KEY, e ENUM('a', 'b', 'C', '2', ' x'), s SET('a', 'b', 'c'), \
             KEY ke (e), KEY ks (s))",
            "CREATE TABLE ep (e ENUM('x', 'y', 'z') PRIMARY KEY, v INT)",
            "CREATE TABLE eb (id INT PRIMARY KEY, e ENUM('a', 'b') COLLATE utf8mb4_bin, KEY ke (e))",
            "INSERT INTO et VALUES (1, 'a', 'a'), (2, 'b', 'b,a'), (3, 'c', 'c'), (4, '2', 'a,c'), (5, 'zz', ''), \
             (6, NULL, NULL), (7, 2, 'b'), (8, '', 3), (9, ' x', '')",
            "INSERT INTO ep VALUES ('x', 1), ('y', 2), ('z', 3)",
            "INSERT INTO eb VALUES (1, 'a'), (2, 'b'), (3, 'A')",
        ],
    );
    let wheres = [
        "e = 'b'",
        "e = 'B '",
        "e = 'zz'",
        "e = ''",
        "e = ' '",
        "e = '2'",
        "e = 2",
        "e = '3'",
        "e = 'x'",
        "e = ' x'",
        "e <=> 'c'",
        "e IN ('a', 'c')",
        "e IN ('a', 'zz', '')",
        "e NOT IN ('a', 'c')",
        "e = 'a' OR e = 'b'",
        "e != 'b'",
        "e > 'b'",
        "s = 'a,b'",
        "s = 'B,A'",
        "s = 'b,a'",
        "s = ''",
        "s IN ('c', 'a,c')",
    ];
    for w in wheres {
        for sql in [
            format!("SELECT id FROM et WHERE {w} ORDER BY id"),
            format!("SELECT id FROM et IGNORE INDEX (ke, ks) WHERE {w} ORDER BY id"),
            format!("SELECT a.id FROM et a JOIN et b ON a.id = b.id WHERE a.{w} ORDER BY a.id"),
        ] {
            assert_same(&mut qc, &mut mc, &[&sql]);
        }
    }
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "SELECT id FROM et WHERE 'b' = e ORDER BY id",
            "SELECT id, e = 'b', e = 'zz', e IN ('a', ''), s = 'a,b' FROM et ORDER BY id",
            "SELECT e, v FROM ep WHERE e = 'Y'",
            "SELECT e, v FROM ep WHERE e IN ('x', 'z', 'q') ORDER BY e",
            "SELECT id FROM eb WHERE e = 'a' ORDER BY id",
            "SELECT id FROM eb WHERE e = 'A' ORDER BY id",
            "UPDATE et SET id = id + 100 WHERE e = 'b'",
            "SELECT id FROM et WHERE id > 100 ORDER BY id",
            "DELETE FROM et WHERE e IN ('a', 'C')",
            "SELECT COUNT(*) FROM et",
        ],
    );
    for v in ["b", "B", "zz", "", "2"] {
        let sql = "SELECT id FROM et WHERE e = ? ORDER BY id";
        let qr: Vec<i64> = qc.exec(sql, (v,)).expect("quire");
        let mr: Vec<i64> = mc.exec(sql, (v,)).expect("MariaDB");
        assert_eq!(qr, mr, "{sql} with '{v}'");
    }
    assert_eq!(explained_key(&mut qc, "SELECT id FROM et WHERE e = 'b'").as_deref(), Some("ke"));
    assert_eq!(explained_key(&mut qc, "SELECT id FROM et WHERE e IN ('a', 'b')").as_deref(), Some("ke"));
    assert_eq!(explained_key(&mut qc, "SELECT id FROM et WHERE s = 'a,b'").as_deref(), Some("ks"));
    assert_eq!(explained_key(&mut qc, "SELECT v FROM ep WHERE e = 'y'").as_deref(), Some("PRIMARY"));
}
