//! EXPLAIN FORMAT=TREE and EXPLAIN ANALYZE in MySQL 8.0's shape: one
//! LONGTEXT column named EXPLAIN holding the iterator tree; a line per
//! operator kind for queries shaped to use it; under ANALYZE the rows
//! and loops each operator really produced (times only checked to be
//! well formed); privileges and errors of the statement analysed.
//! MariaDB has neither, so MySQL 8.0's documented output is the model.

mod oracle;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{err_code, Quire};

fn tree(c: &mut Conn, sql: &str) -> String {
    let rows: Vec<mysql::Row> = c.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    assert_eq!(rows.len(), 1, "{sql}");
    rows[0].get::<String, _>(0).unwrap()
}

/// The line of `text` that starts (after its indentation and `-> `)
/// with `start`.
fn line<'a>(text: &'a str, start: &str) -> &'a str {
    text.lines()
        .find(|l| l.trim_start().strip_prefix("-> ").is_some_and(|l| l.starts_with(start)))
        .unwrap_or_else(|| panic!("no line starting {start:?} in\n{text}"))
}

fn indent(l: &str) -> usize {
    l.len() - l.trim_start().len()
}

/// (first ms, last ms, rows, loops) of a line's `(actual ...)`.
fn actual(l: &str) -> (f64, f64, u64, u64) {
    let a = l.split("(actual time=").nth(1).unwrap_or_else(|| panic!("no actual in {l}"));
    let (times, rest) = a.split_once(' ').unwrap();
    let (first, last) = times.split_once("..").unwrap();
    let rows = rest.strip_prefix("rows=").unwrap().split(' ').next().unwrap();
    let loops = rest.split("loops=").nth(1).unwrap().trim_end_matches(')');
    let (first, last): (f64, f64) = (first.parse().unwrap(), last.parse().unwrap());
    assert!(first >= 0.0 && first <= last, "times of {l}");
    (first, last, rows.parse().unwrap(), loops.parse().unwrap())
}

fn load(c: &mut Conn) {
    c.query_drop("CREATE TABLE t (id INT NOT NULL PRIMARY KEY, a INT, b INT, KEY ka (a))").unwrap();
    c.query_drop("CREATE TABLE u (id INT NOT NULL PRIMARY KEY, t_id INT, v INT, KEY kt (t_id))").unwrap();
    c.query_drop("CREATE TABLE w (id INT NOT NULL PRIMARY KEY, x INT)").unwrap();
    // t: 1000 rows, b = id % 1000 / 1000 spread so that b < 137 keeps 137.
    let rows: Vec<String> = (0..1000).map(|i| format!("({i}, {}, {})", i % 50, (i * 7) % 1000)).collect();
    c.query_drop(format!("INSERT INTO t VALUES {}", rows.join(","))).unwrap();
    let rows: Vec<String> = (0..40).map(|i| format!("({i}, {}, {})", i * 3, i % 4)).collect();
    c.query_drop(format!("INSERT INTO u VALUES {}", rows.join(","))).unwrap();
    let rows: Vec<String> = (0..30).map(|i| format!("({i}, {})", i % 10)).collect();
    c.query_drop(format!("INSERT INTO w VALUES {}", rows.join(","))).unwrap();
    c.query_drop("ANALYZE TABLE t, u, w").unwrap();
}

#[test]
fn tree_is_one_longtext_column_named_explain() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("ex");
    load(&mut c);
    for sql in ["EXPLAIN FORMAT=TREE SELECT * FROM t", "EXPLAIN ANALYZE SELECT * FROM t"] {
        let r = c.query_iter(sql).unwrap();
        let cols: Vec<String> = r.columns().as_ref().iter().map(|c| c.name_str().into_owned()).collect();
        drop(r);
        assert_eq!(cols, ["EXPLAIN"], "{sql}");
    }
    let text = tree(&mut c, "EXPLAIN FORMAT=TREE SELECT * FROM t");
    assert!(text.starts_with("-> Table scan on t  (cost="), "{text}");
    assert!(text.contains("rows=1000)"), "{text}");
}

#[test]
fn each_operator_kind_has_its_line() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("ex");
    load(&mut c);
    let cases: &[(&str, &[&str])] = &[
        ("SELECT * FROM t WHERE b > 3", &["Filter: (t.b > 3)", "Table scan on t"]),
        ("SELECT * FROM t WHERE id = 5", &["Single-row index lookup on t using PRIMARY (id=5)"]),
        ("SELECT * FROM t WHERE a = 7", &["Index lookup on t using ka (a=7)"]),
        ("SELECT * FROM t WHERE a > 45", &["Index range scan on t using ka over (45 < a)"]),
        ("SELECT * FROM t WHERE a IN (1, 2)", &["Index range scan on t using ka over (a = 1) OR (a = 2)"]),
        ("SELECT * FROM t ORDER BY b LIMIT 10", &["Limit: 10 row(s)", "Sort: t.b, limit input to 10 row(s) per chunk"]),
        ("SELECT * FROM t ORDER BY id DESC LIMIT 3", &["Limit: 3 row(s)", "Index scan on t using PRIMARY (reverse)"]),
        ("SELECT a, COUNT(*) FROM t GROUP BY a", &["Table scan on <temporary>", "Aggregate using temporary table"]),
        ("SELECT COUNT(*), SUM(b) FROM t", &["Aggregate: count(0), sum(t.b)"]),
        ("SELECT DISTINCT a FROM t", &["Temporary table with deduplication"]),
        ("SELECT * FROM t LIMIT 5 OFFSET 2", &["Limit/Offset: 5/2 row(s)"]),
        ("SELECT 1", &["Rows fetched before execution"]),
        (
            "SELECT * FROM t STRAIGHT_JOIN u ON u.t_id = t.id",
            &["Nested loop inner join", "Index lookup on u using kt (t_id=t.id)"],
        ),
        ("SELECT * FROM t LEFT JOIN u ON u.t_id = t.id", &["Nested loop left join"]),
        ("SELECT * FROM u JOIN w ON w.x = u.v", &["Inner hash join", "Hash"]),
        ("SELECT * FROM (SELECT a FROM t LIMIT 500) d", &["Table scan on d", "Materialize"]),
        (
            "SELECT * FROM u WHERE v > (SELECT AVG(x) FROM w)",
            &["Filter: (u.v > (select #2))", "Select #2 (subquery in condition; run only once)"],
        ),
        // An AND term becomes a semi-join; under OR it stays a subquery.
        ("SELECT * FROM u WHERE EXISTS (SELECT 1 FROM w WHERE w.x = u.v)", &["Hash semijoin (u.v = w.x)"]),
        (
            "SELECT * FROM u WHERE EXISTS (SELECT 1 FROM w WHERE w.x = u.v) OR u.id < 0",
            &["Select #2 (subquery in condition; dependent)"],
        ),
        ("SELECT id, (SELECT MAX(x) FROM w) FROM u", &["Select #2 (subquery in projection; run only once)"]),
        (
            "SELECT a FROM t UNION SELECT x FROM w",
            &["Table scan on <union temporary>", "Union materialize with deduplication"],
        ),
        ("SELECT a FROM t UNION ALL SELECT x FROM w", &["Append", "Stream results"]),
        ("SELECT id, ROW_NUMBER() OVER (ORDER BY v) FROM u", &["Window aggregate with buffering: row_number()"]),
        ("SELECT a, COUNT(*) c FROM t GROUP BY a HAVING COUNT(*) > 19", &["Filter: (count(0) > 19)"]),
    ];
    for (sql, want) in cases {
        let text = tree(&mut c, &format!("EXPLAIN FORMAT=TREE {sql}"));
        for w in *want {
            line(&text, w);
        }
        for l in text.lines() {
            assert_eq!(indent(l) % 4, 0, "{sql}: {l}");
            assert!(l.trim_start().starts_with("-> "), "{sql}: {l}");
        }
    }
    // Children sit four spaces under their parent.
    let text = tree(&mut c, "EXPLAIN FORMAT=TREE SELECT * FROM t WHERE b > 3 ORDER BY b LIMIT 10");
    let (l, s, f, sc) = (line(&text, "Limit"), line(&text, "Sort"), line(&text, "Filter"), line(&text, "Table scan"));
    assert_eq!((indent(l), indent(s), indent(f), indent(sc)), (0, 4, 8, 12), "{text}");
    assert!(f.contains("(cost=") && f.contains(" rows="), "{text}");
}

#[test]
fn writes_have_a_tree_and_insert_is_refused() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("ex");
    load(&mut c);
    let text = tree(&mut c, "EXPLAIN FORMAT=TREE UPDATE t SET b = 0 WHERE a = 3");
    assert!(text.starts_with("-> Update t (immediate)\n"), "{text}");
    line(&text, "Index lookup on t using ka (a=3)");
    let text = tree(&mut c, "EXPLAIN FORMAT=TREE DELETE FROM t WHERE b > 990");
    assert!(text.starts_with("-> Delete from t (immediate)\n"), "{text}");
    let n: u64 = c.query_first("SELECT COUNT(*) FROM t WHERE b > 990").unwrap().unwrap();
    assert!(n > 0, "EXPLAIN deleted nothing");
    let e = c.query_drop("EXPLAIN FORMAT=TREE INSERT INTO w VALUES (100, 1)").unwrap_err();
    assert_eq!(err_code(&e), 1235);
    let e = c.query_drop("EXPLAIN ANALYZE DELETE FROM t WHERE id = 1").unwrap_err();
    assert_eq!(err_code(&e), 1235);
    let e = c.query_drop("EXPLAIN FORMAT=TEXT SELECT 1").unwrap_err();
    assert_eq!(err_code(&e), 1791, "MySQL's ER_UNKNOWN_EXPLAIN_FORMAT");
}

#[test]
fn analyze_counts_the_rows_each_operator_produced() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("ex");
    load(&mut c);
    let want: u64 = c.query_first("SELECT COUNT(*) FROM t WHERE b < 959").unwrap().unwrap();
    let text = tree(&mut c, "EXPLAIN ANALYZE SELECT * FROM t WHERE b < 959");
    let f = line(&text, "Filter: (t.b < 959)");
    assert!(f.contains(") (actual time="), "estimate, then one space, then the measures: {f}");
    assert_eq!(actual(f).2, want, "{text}");
    assert_eq!(actual(f).3, 1);
    let scan = line(&text, "Table scan on t");
    assert_eq!((actual(scan).2, actual(scan).3), (1000, 1), "{text}");

    // 137 rows kept of 1000.
    let text = tree(&mut c, "EXPLAIN ANALYZE SELECT * FROM t WHERE b % 1000 < 137");
    assert_eq!(actual(line(&text, "Filter")).2, 137, "{text}");

    // A nested loop's inner side runs once per outer row.
    let outer: u64 = c.query_first("SELECT COUNT(*) FROM u WHERE v = 1").unwrap().unwrap();
    let joined: u64 =
        c.query_first("SELECT COUNT(*) FROM u STRAIGHT_JOIN t ON t.id = u.t_id WHERE u.v = 1").unwrap().unwrap();
    let text = tree(&mut c, "EXPLAIN ANALYZE SELECT * FROM u STRAIGHT_JOIN t ON t.id = u.t_id WHERE u.v = 1");
    let nl = line(&text, "Nested loop inner join");
    assert_eq!((actual(nl).2, actual(nl).3), (joined, 1), "{text}");
    let inner = line(&text, "Single-row index lookup on t using PRIMARY (id=u.t_id)");
    assert_eq!(actual(inner).3, outer, "{text}");
    assert_eq!(actual(line(&text, "Filter: (u.v = 1)")).2, outer, "{text}");

    // LIMIT stops the loops: the scan read only what the limit needed.
    let text = tree(&mut c, "EXPLAIN ANALYZE SELECT * FROM t LIMIT 5");
    assert_eq!(actual(line(&text, "Limit: 5 row(s)")).2, 5, "{text}");
    assert_eq!(actual(line(&text, "Table scan on t")).2, 5, "{text}");

    // Grouping: the aggregate's groups, HAVING's survivors, the sort.
    let text = tree(
        &mut c,
        "EXPLAIN ANALYZE SELECT a, COUNT(*) FROM t WHERE a < 10 GROUP BY a HAVING COUNT(*) > 0 ORDER BY a DESC LIMIT 3",
    );
    assert_eq!(actual(line(&text, "Aggregate using temporary table")).2, 10, "{text}");
    assert_eq!(actual(line(&text, "Filter: (count(0) > 0)")).2, 10, "{text}");
    assert_eq!(actual(line(&text, "Limit: 3 row(s)")).2, 3, "{text}");

    // A dependent subquery runs per outer row it is asked for.
    let text =
        tree(&mut c, "EXPLAIN ANALYZE SELECT id FROM u WHERE EXISTS (SELECT 1 FROM w WHERE w.x = u.v) OR u.id < 0");
    let sub = text.lines().skip_while(|l| !l.contains("Select #2")).nth(1).unwrap();
    let loops = actual(sub).3;
    assert!((1..=40).contains(&loops), "{text}");

    // A hash join's build side is read once.
    let text = tree(&mut c, "EXPLAIN ANALYZE SELECT * FROM u JOIN w ON w.x = u.v");
    let want: u64 = c.query_first("SELECT COUNT(*) FROM u JOIN w ON w.x = u.v").unwrap().unwrap();
    assert_eq!(actual(line(&text, "Inner hash join")).2, want, "{text}");
}

#[test]
fn analyze_respects_privileges_and_returns_the_statements_error() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("ex");
    load(&mut c);
    c.query_drop("CREATE DATABASE other").unwrap();
    c.query_drop("CREATE TABLE other.s (id INT PRIMARY KEY)").unwrap();
    c.query_drop("CREATE USER 'lim'@'%' IDENTIFIED BY 'pw'").unwrap();
    c.query_drop("GRANT ALL PRIVILEGES ON ex.* TO 'lim'@'%'").unwrap();
    let mut l = Conn::new(q.opts(Some("ex")).user(Some("lim")).pass(Some("pw"))).unwrap();
    let e = l.query_drop("EXPLAIN ANALYZE SELECT * FROM other.s").unwrap_err();
    assert_eq!(err_code(&e), 1142);
    let e = l.query_drop("EXPLAIN FORMAT=TREE SELECT * FROM other.s").unwrap_err();
    assert_eq!(err_code(&e), 1142);
    // Fails mid-way: the scalar subquery finds more than one row.
    let e = c.query_drop("EXPLAIN ANALYZE SELECT id, (SELECT x FROM w) FROM u").unwrap_err();
    assert_eq!(err_code(&e), 1242);
    let e = c.query_drop("EXPLAIN ANALYZE SELECT * FROM u WHERE v = (SELECT x FROM w)").unwrap_err();
    assert_eq!(err_code(&e), 1242);
    // And the session goes on.
    let n: u64 = c.query_first("SELECT COUNT(*) FROM w").unwrap().unwrap();
    assert_eq!(n, 30);
}
