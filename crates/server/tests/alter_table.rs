//! ALTER TABLE's column operations, RENAME TABLE and TRUNCATE against the
//! MariaDB the harness starts: for every form, the answer (affected rows,
//! the `Records: n  Duplicates: 0  Warnings: w` info text, error codes),
//! SHOW WARNINGS after it (so error and warning texts), the table's
//! SHOW CREATE TABLE body and its rows.

mod oracle;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{assert_same_diagnostics, MariaDb, Quire};

/// SHOW CREATE TABLE without its last line (ENGINE, CHARSET: quire's
/// default collation is not MariaDB's), written as MySQL 8.0 writes it
/// (quire's form): no integer display widths, numeric defaults quoted.
fn body(c: &mut Conn, table: &str) -> String {
    let (_, sql): (String, String) = c.query_first(format!("SHOW CREATE TABLE {table}")).unwrap().unwrap();
    let lines: Vec<&str> = sql.lines().collect();
    lines[..lines.len() - 1].iter().map(|l| mysql8(l)).collect::<Vec<_>>().join("\n")
}

fn mysql8(line: &str) -> String {
    let mut out = line.to_string();
    for ty in ["tinyint(", "smallint(", "mediumint(", "int(", "bigint("] {
        while let Some(i) = out.find(&format!(" {ty}")) {
            let open = i + ty.len();
            let close = open + out[open..].find(')').unwrap();
            out.replace_range(open..=close, "");
        }
    }
    if let Some(i) = out.find(" DEFAULT ") {
        let v = &out[i + 9..];
        let end = v.find([' ', ',']).unwrap_or(v.len());
        if v[..end].parse::<f64>().is_ok() {
            out = format!("{} DEFAULT '{}'{}", &out[..i], &v[..end], &v[end..]);
        }
    }
    out
}

/// Runs `steps` on both; after each, compares the named tables' bodies.
fn same(qc: &mut Conn, mc: &mut Conn, steps: &[(&str, &[&str])]) {
    for (sql, tables) in steps {
        assert_same_diagnostics(qc, mc, &[sql]);
        for t in *tables {
            assert_eq!(body(qc, t), body(mc, t), "SHOW CREATE TABLE {t} after: {sql}");
            assert_same_diagnostics(qc, mc, &[&format!("SELECT * FROM {t}")]);
        }
    }
}

#[test]
fn column_operations_match_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("alter_cols");
    let mut mc = MariaDb::get().fresh_db("alter_cols");
    let t: &[&str] = &["t"];
    let none: &[&str] = &[];
    same(
        &mut qc,
        &mut mc,
        &[
            ("CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10), b INT, KEY kb (b))", t),
            ("INSERT INTO t VALUES (1, 'x', 1), (2, 'yy', 300), (3, NULL, 3)", t),
            ("ALTER TABLE t ADD COLUMN c INT DEFAULT 5 AFTER a", t),
            ("ALTER TABLE t ADD COLUMN d INT FIRST, ADD e VARCHAR(3) NOT NULL", t),
            ("ALTER TABLE t ADD COLUMN c INT", none),
            ("ALTER TABLE t ADD COLUMN z INT AFTER nope", none),
            ("ALTER TABLE t DROP COLUMN zz", none),
            ("ALTER TABLE t DROP COLUMN IF EXISTS zz", t),
            ("ALTER TABLE t DROP COLUMN d, DROP e", t),
            // Conversions: strict mode stops at the first row that does not fit.
            ("ALTER TABLE t MODIFY b TINYINT", t),
            ("ALTER TABLE t MODIFY a INT", t),
            ("ALTER TABLE t MODIFY a VARCHAR(1)", t),
            // (MariaDB adds a second condition, 1138, after this 1265 in
            // strict mode; quire reports the 1265 alone.)
            ("ALTER TABLE t MODIFY b BIGINT", t),
            ("ALTER TABLE t MODIFY b INT AFTER id", t),
            ("ALTER TABLE t CHANGE a aa VARCHAR(20) DEFAULT 'q'", t),
            ("ALTER TABLE t CHANGE nope x INT", none),
            ("ALTER TABLE t CHANGE aa b INT", none),
            ("ALTER TABLE t RENAME COLUMN aa TO a", t),
            ("ALTER TABLE t RENAME COLUMN nope TO q", none),
            ("ALTER TABLE t ALTER COLUMN a SET DEFAULT 'z', ALTER b DROP DEFAULT", t),
            ("ALTER TABLE t ALTER COLUMN b SET DEFAULT 'x'", none),
            ("ALTER TABLE t ALTER COLUMN nope SET DEFAULT 1", none),
            ("INSERT INTO t (id) VALUES (4)", t),
            ("ALTER TABLE t DROP COLUMN b", t),
            ("ALTER TABLE t ENGINE = InnoDB", t),
            ("ALTER TABLE nope ADD COLUMN x INT", none),
            ("CREATE TABLE one (a INT)", none),
            ("ALTER TABLE one DROP COLUMN a", none),
        ],
    );
}

#[test]
fn non_strict_conversions_warn_as_mariadb_does() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("alter_lenient");
    let mut mc = MariaDb::get().fresh_db("alter_lenient");
    let t: &[&str] = &["n"];
    for c in [&mut qc, &mut mc] {
        c.query_drop("SET sql_mode = ''").unwrap();
    }
    same(
        &mut qc,
        &mut mc,
        &[
            ("CREATE TABLE n (a INT, b VARCHAR(5), c VARCHAR(8))", t),
            ("INSERT INTO n VALUES (300, 'abc', '2024-01-02'), (2, 'x', NULL), (3, '12abc', 'abcdefgh')", t),
            ("ALTER TABLE n MODIFY a TINYINT, MODIFY b INT", t),
            ("ALTER TABLE n MODIFY c VARCHAR(3)", t),
            ("ALTER TABLE n MODIFY c VARCHAR(3) NOT NULL", t),
            ("ALTER TABLE n MODIFY b DECIMAL(5,1)", t),
        ],
    );
}

#[test]
fn primary_keys_and_indexes_follow_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("alter_keys");
    let mut mc = MariaDb::get().fresh_db("alter_keys");
    let k: &[&str] = &["k"];
    let ix: &[&str] = &["ix"];
    let none: &[&str] = &[];
    same(
        &mut qc,
        &mut mc,
        &[
            ("CREATE TABLE k (a INT, b INT)", k),
            ("INSERT INTO k VALUES (1, 1), (1, 2)", k),
            ("ALTER TABLE k ADD PRIMARY KEY (a)", k),
            ("ALTER TABLE k ADD UNIQUE KEY (a)", k),
            ("ALTER TABLE k DROP PRIMARY KEY", none),
            ("DELETE FROM k WHERE b = 2", k),
            ("ALTER TABLE k ADD PRIMARY KEY (a)", k),
            ("ALTER TABLE k ADD PRIMARY KEY (b)", none),
            ("ALTER TABLE k ADD COLUMN c INT NOT NULL, ADD KEY kc (c, b)", k),
            ("ALTER TABLE k DROP PRIMARY KEY", k),
            ("ALTER TABLE k DROP INDEX nope", none),
            ("ALTER TABLE k ADD COLUMN id INT AUTO_INCREMENT UNIQUE FIRST", k),
            ("INSERT INTO k (a, b, c) VALUES (7, 7, 7)", k),
            ("ALTER TABLE k ADD COLUMN x INT AUTO_INCREMENT", none),
            ("CREATE TABLE ix (a INT, b INT, c INT, KEY kab (a, b), KEY kc (c), PRIMARY KEY (a, c))", ix),
            ("INSERT INTO ix VALUES (1, 2, 3), (4, 5, 6)", ix),
            ("ALTER TABLE ix DROP COLUMN b", ix),
            ("ALTER TABLE ix DROP COLUMN c", none),
            ("CREATE TABLE z (a INT PRIMARY KEY, b INT, UNIQUE KEY ub (a, b))", &["z"]),
            ("INSERT INTO z VALUES (1, 1), (2, 2)", &["z"]),
            ("ALTER TABLE z DROP COLUMN b", none),
            ("ALTER TABLE z DROP INDEX ub, DROP COLUMN a", &["z"]),
            ("ALTER TABLE z ALGORITHM = COPY, ADD COLUMN q INT", &["z"]),
        ],
    );
}

#[test]
fn rename_and_truncate_match_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("alter_ren");
    let mut mc = MariaDb::get().fresh_db("alter_ren");
    for c in [&mut qc, &mut mc] {
        c.query_drop("DROP DATABASE IF EXISTS alter_ren2").unwrap();
        c.query_drop("CREATE DATABASE alter_ren2").unwrap();
    }
    let none: &[&str] = &[];
    same(
        &mut qc,
        &mut mc,
        &[
            ("CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(5))", &["a"]),
            ("INSERT INTO a (v) VALUES ('x'), ('y')", &["a"]),
            ("ALTER TABLE a RENAME TO b", &["b"]),
            ("SELECT * FROM a", none),
            ("RENAME TABLE b TO c, c TO d", &["d"]),
            ("RENAME TABLE d TO nodb.t", none),
            ("RENAME TABLE nope TO e", none),
            ("CREATE TABLE e (x INT)", none),
            ("RENAME TABLE d TO e", none),
            ("RENAME TABLE d TO f, e TO d", &["d", "f"]),
            ("RENAME TABLE f TO alter_ren2.f", &["alter_ren2.f"]),
            ("INSERT INTO alter_ren2.f (v) VALUES ('z')", &["alter_ren2.f"]),
            ("TRUNCATE TABLE alter_ren2.f", &["alter_ren2.f"]),
            ("INSERT INTO alter_ren2.f (v) VALUES ('w')", &["alter_ren2.f"]),
            ("ALTER TABLE alter_ren2.f RENAME TO alter_ren.g, ADD COLUMN n INT DEFAULT 1", &["g"]),
            ("SHOW TABLES", none),
            ("SHOW TABLES FROM alter_ren2", none),
        ],
    );
}

#[test]
fn foreign_keys_constrain_column_changes_as_in_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("alter_fk");
    let mut mc = MariaDb::get().fresh_db("alter_fk");
    let none: &[&str] = &[];
    same(
        &mut qc,
        &mut mc,
        &[
            ("CREATE TABLE p (id INT PRIMARY KEY)", none),
            ("CREATE TABLE c (id INT, pid INT, FOREIGN KEY (pid) REFERENCES p (id))", none),
            ("INSERT INTO p VALUES (1), (2)", none),
            ("INSERT INTO c VALUES (10, 1), (20, 2)", &["c"]),
            ("ALTER TABLE c DROP COLUMN pid", none),
            ("ALTER TABLE c MODIFY pid BIGINT", none),
            ("ALTER TABLE p MODIFY id BIGINT", none),
            // The child's own key follows its columns.
            ("ALTER TABLE c ADD COLUMN x INT FIRST, CHANGE pid pid2 INT", &["c"]),
            ("INSERT INTO c VALUES (0, 30, 3)", none),
            ("INSERT INTO c VALUES (0, 30, 2)", &["c"]),
            ("DELETE FROM p WHERE id = 2", none),
            ("TRUNCATE TABLE p", none),
        ],
    );
}

#[test]
fn other_engines_are_refused_or_substituted_as_mysql_does_for_an_engine_it_lacks() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("alter_engine");
    c.query_drop("CREATE TABLE t (a INT)").unwrap();
    c.query_drop("INSERT INTO t VALUES (1)").unwrap();
    let err = c.query_drop("ALTER TABLE t ENGINE=MyISAM").unwrap_err();
    assert!(
        matches!(&err, mysql::Error::MySqlError(e) if e.code == 1286 && e.message == "Unknown storage engine 'MyISAM'"),
        "{err}"
    );
    c.query_drop("SET sql_mode = ''").unwrap();
    c.query_drop("ALTER TABLE t ADD COLUMN b INT DEFAULT 2, ENGINE = MyISAM").unwrap();
    let shown: Vec<(String, u16, String)> = c.query("SHOW WARNINGS").unwrap();
    assert_eq!(shown, [("Warning".to_string(), 1266, "Using storage engine InnoDB for table 't'".to_string())]);
    let rows: Vec<(i64, i64)> = c.query("SELECT a, b FROM t").unwrap();
    assert_eq!(rows, [(1, 2)]);
}
