//! ONLY_FULL_GROUP_BY (`sql/group_check.rs`): what both servers agree on is
//! compared with the MariaDB the harness starts; where quire follows MySQL
//! 8.0 on purpose (functional dependence on keys, equalities and derived
//! tables, MySQL's messages, HAVING / ORDER BY / DISTINCT checks) the
//! expectation is MySQL's documented answer, checked on quire alone.

mod oracle;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{assert_same, MariaDb, Quire};

const SCHEMA: &[&str] = &[
    "CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT, u INT NOT NULL, n INT, UNIQUE KEY uu (u), UNIQUE KEY un (n))",
    "INSERT INTO t VALUES (1, 1, 10, 100, 7), (2, 1, 20, 200, NULL), (3, 2, 30, 300, 9)",
    "CREATE TABLE p (pid INT PRIMARY KEY, tid INT, v INT)",
    "INSERT INTO p VALUES (1, 1, 5), (2, 1, 6), (3, 3, 7)",
];

fn quire(db: &str) -> (Quire, Conn) {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db(db);
    for s in SCHEMA {
        c.query_drop(*s).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
    (q, c)
}

/// The error `sql` fails with: (code, message).
fn error(c: &mut Conn, sql: &str) -> (u16, String) {
    match c.query_drop(sql) {
        Ok(()) => panic!("{sql} succeeded"),
        Err(mysql::Error::MySqlError(e)) => (e.code, e.message),
        Err(e) => panic!("{sql}: {e}"),
    }
}

fn rows(c: &mut Conn, sql: &str) -> Vec<Vec<Option<String>>> {
    let r: Vec<mysql::Row> = c.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    r.iter().map(oracle::row_cells).collect()
}

fn s(v: &[&[&str]]) -> Vec<Vec<Option<String>>> {
    v.iter().map(|r| r.iter().map(|x| Some(x.to_string())).collect()).collect()
}

#[test]
fn grouped_columns_only_give_the_same_answers_and_codes_as_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("ofgb_same");
    let mut mc = MariaDb::get().fresh_db("ofgb_same");
    let mut stmts: Vec<&str> = SCHEMA.to_vec();
    stmts.extend([
        // The default sql_mode (MariaDB's) has no ONLY_FULL_GROUP_BY.
        "SELECT a, b FROM t WHERE id = 3 GROUP BY a",
        "SELECT a, MIN(b) FROM t GROUP BY a ORDER BY a",
        "SET sql_mode = 'ONLY_FULL_GROUP_BY'",
        "SELECT a, COUNT(*), SUM(b) FROM t GROUP BY a ORDER BY a",
        "SELECT a + 1, COUNT(*) FROM t GROUP BY a + 1 ORDER BY 1",
        "SELECT a AS x, MAX(b) FROM t GROUP BY x ORDER BY x",
        "SELECT COUNT(*), MAX(b) FROM t",
        "SELECT a FROM t GROUP BY a HAVING COUNT(*) > 1",
        "SELECT t.a, COUNT(p.pid) FROM t LEFT JOIN p ON p.tid = t.id GROUP BY t.a ORDER BY t.a",
        // Not grouped, not functionally dependent: 1055 on both.
        "SELECT b FROM t GROUP BY a",
        "SELECT a, b FROM t GROUP BY a",
        "SELECT t.a, p.v FROM t JOIN p ON p.tid = t.id GROUP BY t.a",
        // Aggregated without GROUP BY: 1140 on both.
        "SELECT b, COUNT(*) FROM t",
        "SELECT (SELECT 1), b, COUNT(*) FROM t",
        "SET sql_mode = 'STRICT_TRANS_TABLES'",
        "SELECT b FROM t WHERE a = 2 GROUP BY a",
    ]);
    assert_same(&mut qc, &mut mc, &stmts);
}

#[test]
fn messages_are_mysqls_and_name_the_column() {
    // MariaDB says "'db.t.b' isn't in GROUP BY"; MySQL 8.0's texts are
    // what clients written for it match on.
    let (_q, mut c) = quire("ofgb_msg");
    c.query_drop("SET sql_mode = 'ONLY_FULL_GROUP_BY'").unwrap();
    assert_eq!(
        error(&mut c, "SELECT a, b FROM t GROUP BY a"),
        (1055, "Expression #2 of SELECT list is not in GROUP BY clause and contains nonaggregated column 'ofgb_msg.t.b' which is not functionally dependent on columns in GROUP BY clause; this is incompatible with sql_mode=only_full_group_by".into())
    );
    assert_eq!(
        error(&mut c, "SELECT COUNT(*), x.b FROM t AS x"),
        (1140, "In aggregated query without GROUP BY, expression #2 of SELECT list contains nonaggregated column 'ofgb_msg.x.b'; this is incompatible with sql_mode=only_full_group_by".into())
    );
    // MySQL checks ORDER BY and HAVING too (MariaDB accepts the first and
    // says 1054 for the second).
    assert_eq!(
        error(&mut c, "SELECT a, COUNT(*) FROM t GROUP BY a ORDER BY b"),
        (1055, "Expression #1 of ORDER BY clause is not in GROUP BY clause and contains nonaggregated column 'ofgb_msg.t.b' which is not functionally dependent on columns in GROUP BY clause; this is incompatible with sql_mode=only_full_group_by".into())
    );
    assert_eq!(error(&mut c, "SELECT a FROM t GROUP BY a HAVING b > 0").0, 1055);
    assert!(error(&mut c, "SELECT a FROM t GROUP BY a HAVING b > 0").1.starts_with("Expression #1 of HAVING clause"));
    assert_eq!(error(&mut c, "SELECT a * 2 FROM t GROUP BY a + 1").0, 1055);
    // A subquery's reference to the grouped block is checked (general
    // engine), as is a block inside a derived table.
    assert_eq!(error(&mut c, "SELECT (SELECT t.b) FROM t GROUP BY a").0, 1055);
    assert_eq!(error(&mut c, "SELECT * FROM (SELECT a, b FROM t GROUP BY a) d").0, 1055);
    // Prepared statements are checked alike.
    assert_eq!(c.prep("SELECT b FROM t GROUP BY a").map_err(|e| oracle::err_code(&e)).err(), None);
    let stmt = c.prep("SELECT b FROM t GROUP BY a").unwrap();
    let r: Result<Vec<mysql::Row>, _> = c.exec(&stmt, ());
    assert_eq!(r.map_err(|e| oracle::err_code(&e)).err(), Some(1055));
    // Without the mode the same plan (cached per text) runs.
    c.query_drop("SET sql_mode = ''").unwrap();
    assert_eq!(rows(&mut c, "SELECT a, b FROM t WHERE id = 3 GROUP BY a"), s(&[&["2", "30"]]));
}

#[test]
fn functionally_dependent_columns_are_accepted_as_mysql_does() {
    // MariaDB refuses all of these under ONLY_FULL_GROUP_BY; MySQL 8.0
    // accepts them, and applications written for it group by a key.
    let (_q, mut c) = quire("ofgb_fd");
    c.query_drop("SET sql_mode = 'ONLY_FULL_GROUP_BY'").unwrap();
    let ok = |c: &mut Conn, sql: &str, want: &[&[&str]]| assert_eq!(rows(c, sql), s(want), "{sql}");
    // The primary key determines its row.
    ok(
        &mut c,
        "SELECT id, a, b FROM t GROUP BY id ORDER BY id",
        &[&["1", "1", "10"], &["2", "1", "20"], &["3", "2", "30"]],
    );
    ok(
        &mut c,
        "SELECT t.id, t.b, COUNT(p.pid) FROM t LEFT JOIN p ON p.tid = t.id GROUP BY t.id ORDER BY t.id",
        &[&["1", "10", "2"], &["2", "20", "0"], &["3", "30", "1"]],
    );
    // A UNIQUE key of NOT NULL columns too.
    ok(&mut c, "SELECT u, b FROM t GROUP BY u ORDER BY u", &[&["100", "10"], &["200", "20"], &["300", "30"]]);
    // Equalities with constants and with grouped columns (WHERE, ON).
    ok(&mut c, "SELECT a, b FROM t WHERE b = 30 GROUP BY a", &[&["2", "30"]]);
    ok(
        &mut c,
        "SELECT p.tid, t.b, SUM(p.v) FROM p JOIN t ON t.id = p.tid GROUP BY p.tid ORDER BY p.tid",
        &[&["1", "10", "11"], &["3", "30", "7"]],
    );
    // Through a derived table and a view of a key.
    ok(
        &mut c,
        "SELECT d.id, d.b FROM (SELECT id, b FROM t) d GROUP BY d.id ORDER BY d.id",
        &[&["1", "10"], &["2", "20"], &["3", "30"]],
    );
    c.query_drop("CREATE VIEW v AS SELECT id, b * 2 AS bb FROM t").unwrap();
    ok(&mut c, "SELECT id, bb FROM v GROUP BY id ORDER BY id", &[&["1", "20"], &["2", "40"], &["3", "60"]]);
    // A grouped derived table: its group columns determine its rows.
    ok(
        &mut c,
        "SELECT d.a, d.c FROM (SELECT a, COUNT(*) AS c FROM t GROUP BY a) d GROUP BY d.a ORDER BY d.a",
        &[&["1", "2"], &["2", "1"]],
    );
    // Not dependent: a nullable UNIQUE key, a view column not on the key,
    // ROLLUP past the grouped columns.
    assert_eq!(error(&mut c, "SELECT n, b FROM t GROUP BY n").0, 1055);
    let (code, msg) = error(&mut c, "SELECT bb, id FROM v GROUP BY bb");
    assert_eq!((code, msg.contains("'ofgb_fd.v.id'")), (1055, true), "{msg}");
    assert_eq!(error(&mut c, "SELECT id, b, COUNT(*) FROM t GROUP BY id WITH ROLLUP").0, 1055);
}

#[test]
fn distinct_with_order_by_outside_the_select_list_is_refused_under_the_mode() {
    // MySQL 8.0 (only with ONLY_FULL_GROUP_BY, its default) refuses
    // these; MariaDB sorts by some row's value, in any mode.
    let (_q, mut c) = quire("ofgb_distinct");
    assert_eq!(rows(&mut c, "SELECT DISTINCT a FROM t WHERE a = 2 ORDER BY b"), s(&[&["2"]]));
    c.query_drop("SET sql_mode = 'ONLY_FULL_GROUP_BY'").unwrap();
    assert_eq!(
        error(&mut c, "SELECT DISTINCT a FROM t ORDER BY b"),
        (3065, "Expression #1 of ORDER BY clause is not in SELECT list, references column 'ofgb_distinct.t.b' which is not in SELECT list; this is incompatible with DISTINCT".into())
    );
    assert_eq!(
        error(&mut c, "SELECT DISTINCT a FROM t GROUP BY a ORDER BY a, COUNT(*)"),
        (3066, "Expression #2 of ORDER BY clause is not in SELECT list, contains aggregate function; this is incompatible with DISTINCT".into())
    );
    assert_eq!(
        rows(&mut c, "SELECT DISTINCT a, b + 1 AS c FROM t ORDER BY b + 1 DESC, a"),
        s(&[&["2", "31"], &["1", "21"], &["1", "11"]])
    );
    assert_eq!(rows(&mut c, "SELECT DISTINCT a FROM t ORDER BY a DESC"), s(&[&["2"], &["1"]]));
}
