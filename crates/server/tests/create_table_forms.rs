//! CREATE TABLE ... LIKE, CREATE TABLE ... SELECT, table and column
//! COMMENTs and AUTO_INCREMENT=n, against the MariaDB the harness starts:
//! SHOW CREATE TABLE afterwards (column, key and option lines, normalized
//! for the spellings quire prints as MySQL 8.0 does: no integer display
//! widths, numeric defaults quoted), the rows, errors, affected rows and
//! info strings. Then what only quire is asked: a statement that fails
//! leaves no table, CREATE TEMPORARY TABLE is refused, and the extras
//! survive a restart.

mod oracle;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{assert_same, MariaDb, Quire};
use quire_server::config;
use quire_server::serve::Server;

/// SHOW CREATE TABLE's lines in a form both servers print alike: integer
/// display widths dropped (`int(11)` → `int`), numeric defaults unquoted,
/// `text DEFAULT NULL` as `text`, and of the last line only the
/// AUTO_INCREMENT and COMMENT options.
fn shown(c: &mut Conn, table: &str) -> Vec<String> {
    let (_, sql): (String, String) = c.query_first(format!("SHOW CREATE TABLE {table}")).unwrap().unwrap();
    let mut out = Vec::new();
    for line in sql.lines() {
        let line = line.trim_end_matches(',');
        if line.starts_with(')') {
            let opts: Vec<&str> =
                line.split(' ').filter(|w| w.starts_with("AUTO_INCREMENT=") || w.starts_with("COMMENT=")).collect();
            out.push(format!(") {}", opts.join(" ")));
            continue;
        }
        let mut l = String::new();
        let mut rest = line;
        // int(11) / bigint(21) / tinyint(4) ...: drop the width.
        while let Some(i) = rest.find("int(") {
            l.push_str(&rest[..i + 3]);
            let after = &rest[i + 4..];
            rest = &after[after.find(')').map_or(0, |j| j + 1)..];
        }
        l.push_str(rest);
        // DEFAULT '0' (quire, MySQL 8.0) and DEFAULT 0 (MariaDB).
        if let Some(i) = l.find("DEFAULT '") {
            let tail = &l[i + 9..];
            if let Some(j) = tail.find('\'') {
                let v = &tail[..j];
                if !v.is_empty() && v.chars().all(|ch| ch.is_ascii_digit() || ch == '.' || ch == '-') {
                    l = format!("{}DEFAULT {v}{}", &l[..i], &tail[j + 1..]);
                }
            }
        }
        out.push(l.replace(" text DEFAULT NULL", " text"));
    }
    out
}

fn assert_same_definition(qc: &mut Conn, mc: &mut Conn, table: &str) {
    assert_eq!(shown(qc, table), shown(mc, table), "SHOW CREATE TABLE {table}");
}

const SOURCE: &[&str] = &[
    "CREATE TABLE s (id INT AUTO_INCREMENT PRIMARY KEY, a VARCHAR(10) NOT NULL DEFAULT 'x' COMMENT 'col ''c''', \
     b DECIMAL(5,2), c INT UNSIGNED, d DATE, e DATETIME(3), t TEXT, UNIQUE KEY ua (a), KEY kb (b, c)) \
     COMMENT='tab c' AUTO_INCREMENT=100",
    "INSERT INTO s (a, b, c, d, e) VALUES ('q', 1.25, 7, '2020-01-02', '2020-01-02 03:04:05.678'), \
     ('r', -3.5, NULL, NULL, NULL), ('s', NULL, 9, '1999-12-31', NULL)",
];

#[test]
fn create_table_like_copies_the_definition_without_rows_counter_or_foreign_keys() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("ctl");
    let mut mc = MariaDb::get().fresh_db("ctl");
    assert_same(&mut qc, &mut mc, SOURCE);
    assert_same_definition(&mut qc, &mut mc, "s");
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE l LIKE s",
            "SELECT COUNT(*) FROM l",
            "INSERT INTO l (a) VALUES ('first')",
            "SELECT id, a FROM l",
            "CREATE TABLE l LIKE s",
            "CREATE TABLE IF NOT EXISTS l LIKE s",
            "CREATE TABLE l3 LIKE nosuch",
            "CREATE TABLE p (id INT PRIMARY KEY)",
            "CREATE TABLE ch (x INT, y INT NOT NULL, UNIQUE KEY uy (y), FOREIGN KEY (x) REFERENCES p (id))",
            "CREATE TABLE ch2 LIKE ch",
            "INSERT INTO ch2 VALUES (5, 1)",
            "SELECT * FROM ch2",
            "CREATE TABLE k (a INT, b INT)",
            "CREATE TABLE k2 LIKE k",
            "INSERT INTO k2 VALUES (1, 2), (1, 2)",
            "SELECT * FROM k2",
        ],
    );
    for t in ["l", "ch2", "k2"] {
        assert_same_definition(&mut qc, &mut mc, t);
    }
}

/// `CONSTRAINT name UNIQUE (...)` names the index after the constraint
/// unless the index is named (as SQLAlchemy's UniqueConstraint and
/// Django's unique_together spell it), in CREATE TABLE and ALTER TABLE.
#[test]
fn unique_constraint_names_its_index() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("uqname");
    let mut mc = MariaDb::get().fresh_db("uqname");
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE p (id INT PRIMARY KEY, sku VARCHAR(20), a INT, b INT, CONSTRAINT uq_sku UNIQUE (sku), \
             CONSTRAINT c2 UNIQUE KEY k2 (a, b), CONSTRAINT c3 UNIQUE KEY (b, a))",
            "ALTER TABLE p ADD CONSTRAINT p_a_sku_uniq UNIQUE (a, sku)",
            "ALTER TABLE p ADD COLUMN c INT, ADD CONSTRAINT p_c_uniq UNIQUE (c)",
            "SELECT index_name, column_name, seq_in_index, non_unique FROM information_schema.statistics \
             WHERE table_schema = DATABASE() AND table_name = 'p' ORDER BY index_name, seq_in_index",
            "INSERT INTO p VALUES (1, 'x', 1, 1, 1)",
            "INSERT INTO p VALUES (2, 'x', 2, 2, 2)",
        ],
    );
    assert_same_definition(&mut qc, &mut mc, "p");
}

/// A key the statement does not name is named after its first column,
/// with `_2`, `_3`, ... when that name is taken (Sequelize's
/// `sync({ alter: true })` redefines a UNIQUE column with `CHANGE c c ...
/// UNIQUE`), in CREATE TABLE and each ALTER TABLE path. (MariaDB and
/// MySQL warn about a key on the same columns as another, 1831; quire
/// does not, so those statements are compared by the keys they make.)
#[test]
fn unnamed_keys_take_free_names_as_in_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("keynames");
    let mut mc = MariaDb::get().fresh_db("keynames");
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE k (a INT, b INT, UNIQUE (a), UNIQUE (a, b), KEY (a))",
            "CREATE TABLE tm (id INT PRIMARY KEY, name VARCHAR(50) NOT NULL UNIQUE)",
        ],
    );
    for sql in [
        "ALTER TABLE tm CHANGE name name VARCHAR(50) NOT NULL UNIQUE",
        "ALTER TABLE tm ADD COLUMN x INT UNIQUE, ADD UNIQUE (name)",
        "ALTER TABLE tm ADD UNIQUE (name)",
        "ALTER TABLE tm ADD INDEX (x)",
    ] {
        qc.query_drop(sql).unwrap();
        mc.query_drop(sql).unwrap();
    }
    assert_same(
        &mut qc,
        &mut mc,
        &["SELECT table_name, index_name, column_name, seq_in_index, non_unique FROM information_schema.statistics \
           WHERE table_schema = DATABASE() ORDER BY table_name, index_name, seq_in_index"],
    );
    // (tm's SHOW CREATE TABLE lists its keys in another order than
    // MariaDB's, which puts NOT NULL unique keys first: not compared.)
    assert_same_definition(&mut qc, &mut mc, "k");
}

/// The BINARY attribute of a string column (Sequelize's `CHAR(36)
/// BINARY` UUIDs) is the `_bin` collation of the column's character set,
/// in CREATE and ALTER TABLE; `BINARY(n)` stays a type.
#[test]
fn binary_attribute_is_the_bin_collation() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("binattr");
    let mut mc = MariaDb::get().fresh_db("binattr");
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE bin (`id` CHAR(36) BINARY NOT NULL PRIMARY KEY, v VARCHAR(10) BINARY, t TEXT BINARY NOT NULL, \
             e ENUM('a','b') BINARY, c VARCHAR(5) CHARACTER SET latin1 BINARY, b BINARY(4)) DEFAULT CHARSET=utf8mb4",
            "ALTER TABLE bin ADD COLUMN w VARCHAR(3) BINARY, MODIFY v VARCHAR(20) BINARY NOT NULL",
            "INSERT INTO bin (id, v) VALUES ('A', 'x'), ('a', 'y')",
            "SELECT id FROM bin WHERE id = 'a'",
            "SELECT column_name, collation_name FROM information_schema.columns \
             WHERE table_schema = DATABASE() AND table_name = 'bin' ORDER BY ordinal_position",
        ],
    );
    assert_same_definition(&mut qc, &mut mc, "bin");
}

#[test]
fn table_options_and_comments_match_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("ctopt");
    let mut mc = MariaDb::get().fresh_db("ctopt");
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE a1 (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT COMMENT 'the value') ENGINE=InnoDB AUTO_INCREMENT=42",
            "INSERT INTO a1 (v) VALUES (1), (2)",
            "SELECT * FROM a1",
            "CREATE TABLE a2 (id INT AUTO_INCREMENT, KEY (id)) AUTO_INCREMENT = 7 COMMENT 'it''s' DEFAULT CHARSET=utf8mb4",
            "INSERT INTO a2 VALUES (NULL)",
            "INSERT INTO a2 VALUES (3)",
            "INSERT INTO a2 VALUES (NULL)",
            "SELECT * FROM a2 ORDER BY id",
            "CREATE TABLE a3 (x INT) COMMENT='no auto column' AUTO_INCREMENT=5",
        ],
    );
    for t in ["a1", "a2", "a3"] {
        assert_same_definition(&mut qc, &mut mc, t);
    }
    assert_same(&mut qc, &mut mc, &["CREATE TABLE fc (k INT PRIMARY KEY COMMENT 'key', s VARCHAR(5) COMMENT '')"]);
    // Field, Collation, Null, Comment (Type differs by display width only).
    let full = |c: &mut Conn| -> Vec<Vec<Option<String>>> {
        let rows: Vec<mysql::Row> = c.query("SHOW FULL COLUMNS FROM fc").unwrap();
        rows.iter().map(|r| [0, 2, 3, 8].iter().map(|&i| oracle::row_cells(r)[i].clone()).collect()).collect()
    };
    assert_eq!(full(&mut qc), full(&mut mc), "SHOW FULL COLUMNS");
}

#[test]
fn create_table_select_types_columns_as_mariadb_and_copies_rows() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("ctas");
    let mut mc = MariaDb::get().fresh_db("ctas");
    assert_same(&mut qc, &mut mc, SOURCE);
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE cs AS SELECT id, a, b, c, d, e, t FROM s",
            "SELECT * FROM cs ORDER BY id",
            "CREATE TABLE ce SELECT id, 1 AS one, 1 + 1 AS two, 100000000000 AS big, -5 AS neg, 1.5 AS d1, \
             2.50 AS d2, 'abc' AS str, b + 1 AS bp, b * 2 AS bm, c + 1 AS cp, concat(a, 'x') AS cc, \
             upper(a) AS u, concat(1, 2) AS c12, lower('abc') AS l, \
             DATE('2020-01-01') AS dt FROM s",
            "SELECT * FROM ce ORDER BY id",
            "CREATE TABLE cg SELECT a, COUNT(*) AS n, SUM(c) AS sc, SUM(b) AS sb, AVG(c) AS ac, AVG(b) AS ab, \
             MAX(id) AS mx FROM s GROUP BY a",
            "SELECT * FROM cg ORDER BY a",
            "CREATE TABLE cd (z INT PRIMARY KEY, extra INT DEFAULT 5) SELECT id AS z, a FROM s",
            "SELECT * FROM cd ORDER BY z",
            "CREATE TABLE cw SELECT id, a FROM s WHERE id > 100",
            "SELECT * FROM cw ORDER BY id",
            "CREATE TABLE ce2 SELECT * FROM s WHERE 1 = 0",
            "SELECT COUNT(*) FROM ce2",
            // Errors leave no table.
            "CREATE TABLE cu (k INT PRIMARY KEY) SELECT 1 AS k UNION ALL SELECT 1",
            "SELECT * FROM cu",
            "CREATE TABLE cx SELECT nosuch FROM s",
            "SELECT * FROM cx",
            "CREATE TABLE cdup SELECT a, a FROM s",
            "CREATE TABLE cs SELECT 1 AS x",
            "CREATE TABLE IF NOT EXISTS cs SELECT 1 AS x",
            "SELECT COUNT(*) FROM cs",
        ],
    );
    for t in ["cs", "ce", "cg", "cd", "cw", "ce2"] {
        assert_same_definition(&mut qc, &mut mc, t);
    }
}

#[test]
fn refused_forms_answer_1235_and_leave_nothing() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("ctref");
    for sql in ["CREATE TABLE n SELECT NULL AS x", "CREATE TABLE pi (a VARCHAR(20), PRIMARY KEY (a(10)))"] {
        let e = c.query_drop(sql).unwrap_err();
        assert_eq!(oracle::err_code(&e), 1235, "{sql}: {e}");
    }
    let tables: Vec<String> = c.query("SHOW TABLES").unwrap();
    assert!(tables.is_empty(), "{tables:?}");
    // A double result makes a DOUBLE column, as MariaDB's `x double NOT NULL`.
    c.query_drop("CREATE TABLE f SELECT 1e3 AS x").unwrap();
    let shown: Vec<(String, String)> = c.query("SHOW CREATE TABLE f").unwrap();
    assert!(shown[0].1.contains("`x` double NOT NULL"), "{}", shown[0].1);
}

fn start(dir: &std::path::Path) -> Server {
    let overrides: Vec<(String, String)> = vec![
        ("datadir".into(), dir.display().to_string()),
        ("port".into(), "0".into()),
        ("innodb_buffer_pool_size".into(), "32M".into()),
        ("innodb_page_size".into(), "4096".into()),
    ];
    Server::start(&config::load(None, &overrides).expect("config"), Some("rootpw")).expect("server starts")
}

fn connect(s: &Server, db: Option<&str>) -> Conn {
    let opts = mysql::OptsBuilder::new()
        .ip_or_hostname(Some("127.0.0.1"))
        .tcp_port(s.tcp_addr.expect("tcp").port())
        .user(Some("root"))
        .pass(Some("rootpw"))
        .db_name(db)
        .prefer_socket(false);
    Conn::new(opts).expect("connect")
}

#[test]
fn comments_and_auto_increment_start_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let s = start(dir.path());
    let before = {
        let mut c = connect(&s, None);
        for sql in [
            "CREATE DATABASE r",
            "USE r",
            "CREATE TABLE r (id INT AUTO_INCREMENT PRIMARY KEY, v INT COMMENT 'kept') COMMENT='t' AUTO_INCREMENT=500",
            "CREATE TABLE r2 LIKE r",
        ] {
            c.query_drop(sql).unwrap();
        }
        shown(&mut c, "r")
    };
    s.shutdown().unwrap();
    let s = start(dir.path());
    let mut c = connect(&s, Some("r"));
    assert_eq!(shown(&mut c, "r"), before);
    assert!(before.iter().any(|l| l.contains("AUTO_INCREMENT=500") && l.contains("COMMENT='t'")), "{before:?}");
    c.query_drop("INSERT INTO r (v) VALUES (1)").unwrap();
    let id: u64 = c.query_first("SELECT id FROM r").unwrap().unwrap();
    assert_eq!(id, 500, "the AUTO_INCREMENT start of an empty table is kept");
    let lines = shown(&mut c, "r2");
    assert!(lines.iter().any(|l| l.contains("COMMENT 'kept'")), "{lines:?}");
    drop(c);
    s.shutdown().unwrap();
}

/// NUMERIC is DECIMAL's synonym, UNSIGNED included (sqlparser reads only
/// the DECIMAL spelling with UNSIGNED; quire rewrites the type word).
#[test]
fn numeric_with_unsigned_is_decimal_as_in_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("ctnum");
    let mut mc = MariaDb::get().fresh_db("ctnum");
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE n1 (a NUMERIC(5) UNSIGNED, b NUMERIC(7,2) UNSIGNED NOT NULL DEFAULT 0, c NUMERIC, `numeric` INT)",
            "INSERT INTO n1 VALUES (12345, 1.5, 7, 1)",
            "INSERT INTO n1 VALUES (-1, 0, 0, 0)",
            "ALTER TABLE n1 ADD COLUMN d NUMERIC(4,1) UNSIGNED",
            "INSERT INTO n1 VALUES (1, 2.25, 3, 4, 99.9)",
            "SELECT * FROM n1 ORDER BY a",
        ],
    );
    assert_same_definition(&mut qc, &mut mc, "n1");
}
