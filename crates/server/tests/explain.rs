//! EXPLAIN in MySQL 8.0's traditional format: the column set and types,
//! one row for each access type, select types of subqueries, derived
//! tables and unions, key lengths by column type, Extra notes, and the
//! refusal of FORMAT=JSON (FORMAT=TREE and ANALYZE: explain_tree.rs). Where MariaDB's
//! EXPLAIN has the same columns (all but `partitions` and `filtered`), the
//! plan's shape is compared with the one it gives for the same query.

mod oracle;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{err_code, row_cells, MariaDb, Quire};

type Cells = Vec<Option<String>>;

fn explain(c: &mut Conn, sql: &str) -> Vec<Cells> {
    let rows: Vec<mysql::Row> = c.query(format!("EXPLAIN {sql}")).unwrap_or_else(|e| panic!("{sql}: {e}"));
    rows.iter().map(row_cells).collect()
}

/// (id, select_type, table, type, key, key_len, ref) of quire's rows.
fn shape_quire(rows: &[Cells]) -> Vec<Cells> {
    rows.iter().map(|r| [0, 1, 2, 4, 6, 7, 8].iter().map(|&i| r[i].clone()).collect()).collect()
}

/// The same columns of MariaDB's rows (it has no partitions / filtered).
fn shape_maria(rows: &[Cells]) -> Vec<Cells> {
    rows.iter().map(|r| [0, 1, 2, 3, 5, 6, 7].iter().map(|&i| r[i].clone()).collect()).collect()
}

fn s(v: &str) -> Option<String> {
    Some(v.to_string())
}

const SETUP: &[&str] = &[
    "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, a INT, b VARCHAR(10), c INT, KEY ia (a), KEY ib (b))",
    "CREATE TABLE u (id INT NOT NULL PRIMARY KEY, t_id INT, KEY it (t_id))",
];

fn load(c: &mut Conn) {
    for sql in SETUP {
        c.query_drop(sql).unwrap();
    }
    let rows: Vec<String> = (0..400).map(|i| format!("({i}, {}, 'b{}', {i})", i % 40, i % 100)).collect();
    c.query_drop(format!("INSERT INTO t VALUES {}", rows.join(","))).unwrap();
    let rows: Vec<String> = (0..400).map(|i| format!("({i}, {})", i % 400)).collect();
    c.query_drop(format!("INSERT INTO u VALUES {}", rows.join(","))).unwrap();
    c.query_drop("ANALYZE TABLE t, u").unwrap();
}

#[test]
fn columns_are_mysql_8s_traditional_format() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("ex");
    load(&mut c);
    let r = c.query_iter("EXPLAIN SELECT * FROM t WHERE id = 1").unwrap();
    let cols: Vec<(String, mysql::consts::ColumnType)> =
        r.columns().as_ref().iter().map(|c| (c.name_str().into_owned(), c.column_type())).collect();
    drop(r);
    use mysql::consts::ColumnType as T;
    let names: Vec<&str> = cols.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "id",
            "select_type",
            "table",
            "partitions",
            "type",
            "possible_keys",
            "key",
            "key_len",
            "ref",
            "rows",
            "filtered",
            "Extra"
        ]
    );
    assert_eq!(cols[0].1, T::MYSQL_TYPE_LONGLONG);
    assert_eq!(cols[9].1, T::MYSQL_TYPE_LONGLONG);
    assert!(cols
        .iter()
        .enumerate()
        .filter(|(i, _)| ![0, 9, 10].contains(i))
        .all(|(_, c)| c.1 == T::MYSQL_TYPE_VAR_STRING));
    let rows = explain(&mut c, "SELECT * FROM t WHERE id = 1");
    assert_eq!(
        rows,
        [vec![
            s("1"),
            s("SIMPLE"),
            s("t"),
            None,
            s("const"),
            s("PRIMARY"),
            s("PRIMARY"),
            s("4"),
            s("const"),
            s("1"),
            s("100.00"),
            None
        ]]
    );
    // DESCRIBE and DESC before a statement are EXPLAIN; before a table,
    // SHOW COLUMNS as before.
    let d: Vec<mysql::Row> = c.query("DESCRIBE SELECT * FROM t WHERE id = 1").unwrap();
    assert_eq!(d.iter().map(row_cells).collect::<Vec<_>>(), rows);
    let d: Vec<mysql::Row> = c.query("DESC SELECT * FROM t WHERE id = 1").unwrap();
    assert_eq!(d.len(), 1);
    let cols: Vec<mysql::Row> = c.query("EXPLAIN t").unwrap();
    assert_eq!(cols.len(), 4);
}

#[test]
fn each_access_type_has_its_row_and_matches_mariadbs_shape() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("ex");
    let mut mc = MariaDb::get().fresh_db("ex");
    load(&mut qc);
    load(&mut mc);
    let cases: &[(&str, &str)] = &[
        ("SELECT * FROM t WHERE id = 5", "const"),
        ("SELECT * FROM t WHERE a = 5", "ref"),
        ("SELECT * FROM t WHERE b = 'b5'", "ref"),
        ("SELECT * FROM t WHERE id BETWEEN 5 AND 10", "range"),
        ("SELECT * FROM t WHERE id IN (3, 4)", "range"),
        ("SELECT * FROM t WHERE c = 5", "ALL"),
        ("SELECT * FROM t, u WHERE u.id = t.c AND t.a = 3", "eq_ref"),
        ("SELECT * FROM t JOIN u ON u.t_id = t.id WHERE t.a = 3", "ref"),
    ];
    for (sql, kind) in cases {
        let qr = explain(&mut qc, sql);
        let mr: Vec<Cells> = {
            let rows: Vec<mysql::Row> = mc.query(format!("EXPLAIN {sql}")).unwrap();
            rows.iter().map(row_cells).collect()
        };
        assert!(qr.iter().any(|r| r[4].as_deref() == Some(kind)), "{sql}: no {kind} row in {qr:?}");
        assert_eq!(shape_quire(&qr), shape_maria(&mr), "{sql}");
    }
    // A full scan in primary key order (MariaDB reads `ia` alone here, an
    // index-only read quire does not make).
    let r = explain(&mut qc, "SELECT * FROM t ORDER BY id");
    assert_eq!(shape_quire(&r), [vec![s("1"), s("SIMPLE"), s("t"), s("index"), s("PRIMARY"), s("4"), None]]);
    assert_eq!(r[0][9], s("400"));
}

#[test]
fn key_length_follows_the_key_parts_types() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("ex");
    c.query_drop(
        "CREATE TABLE k (id INT PRIMARY KEY, v VARCHAR(10), ch CHAR(5) NOT NULL, bi BIGINT, de DECIMAL(10,2), \
         dt DATETIME(3), da DATE, ti TINYINT NOT NULL, ts TIMESTAMP NULL, KEY iv (v), KEY ich (ch), KEY ibi (bi), \
         KEY ide (de), KEY idt (dt), KEY ida (da), KEY iti (ti), KEY its (ts), KEY ivb (v, bi))",
    )
    .unwrap();
    let len = |c: &mut Conn, w: &str| explain(c, &format!("SELECT * FROM k WHERE {w}"))[0][7].clone();
    assert_eq!(len(&mut c, "v = 'x'"), s("43"));
    assert_eq!(len(&mut c, "ch = 'x'"), s("20"));
    assert_eq!(len(&mut c, "bi = 1"), s("9"));
    assert_eq!(len(&mut c, "de = 1"), s("6"));
    assert_eq!(len(&mut c, "dt = '2020-01-01'"), s("8"));
    assert_eq!(len(&mut c, "da = '2020-01-01'"), s("4"));
    assert_eq!(len(&mut c, "ti = 1"), s("1"));
    assert_eq!(len(&mut c, "ts = '2020-01-01'"), s("5"));
}

#[test]
fn select_types_of_subqueries_derived_tables_and_unions() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("ex");
    load(&mut c);
    let kinds = |c: &mut Conn, sql: &str| -> Vec<(Option<String>, Option<String>, Option<String>)> {
        explain(c, sql).into_iter().map(|r| (r[0].clone(), r[1].clone(), r[2].clone())).collect()
    };
    assert_eq!(
        kinds(&mut c, "SELECT id FROM t WHERE a = (SELECT MAX(t_id) FROM u)"),
        [(s("1"), s("PRIMARY"), s("t")), (s("2"), s("SUBQUERY"), s("u"))]
    );
    assert_eq!(
        kinds(&mut c, "SELECT (SELECT COUNT(*) FROM u WHERE u.t_id = t.id) FROM t"),
        [(s("1"), s("PRIMARY"), s("t")), (s("2"), s("DEPENDENT SUBQUERY"), s("u"))]
    );
    assert_eq!(
        kinds(&mut c, "SELECT * FROM (SELECT a, COUNT(*) AS n FROM t GROUP BY a) d WHERE n > 1"),
        [(s("1"), s("PRIMARY"), s("<derived2>")), (s("2"), s("DERIVED"), s("t"))]
    );
    assert_eq!(
        kinds(&mut c, "SELECT id FROM t UNION SELECT id FROM u"),
        [(s("1"), s("PRIMARY"), s("t")), (s("2"), s("UNION"), s("u")), (None, s("UNION RESULT"), s("<union1,2>"))]
    );
    // UNION ALL streams: no temporary table, no result row (MySQL 8.0).
    assert_eq!(kinds(&mut c, "SELECT id FROM t UNION ALL SELECT id FROM u").len(), 2);
}

#[test]
fn extra_notes_say_what_execution_does() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("ex");
    load(&mut c);
    let extra = |c: &mut Conn, sql: &str| explain(c, sql).into_iter().map(|r| r[11].clone()).collect::<Vec<_>>();
    assert_eq!(extra(&mut c, "SELECT 1"), [s("No tables used")]);
    assert_eq!(extra(&mut c, "SELECT * FROM t WHERE c > 3"), [s("Using where")]);
    assert_eq!(extra(&mut c, "SELECT * FROM t ORDER BY c"), [s("Using filesort")]);
    assert_eq!(extra(&mut c, "SELECT c, COUNT(*) FROM t GROUP BY c"), [s("Using temporary")]);
    // No index on u.id = t.c for the second table read: a hash join.
    let rows = explain(&mut c, "SELECT * FROM t STRAIGHT_JOIN u ON u.t_id + 0 = t.c");
    assert_eq!(rows[1][11], s("Using where; Using join buffer (hash join)"));
    // filtered: MySQL's guesses for terms the key does not answer.
    let rows = explain(&mut c, "SELECT * FROM t WHERE c = 3");
    assert_eq!(rows[0][10], s("10.00"));
}

#[test]
fn writes_are_explained_without_running() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("ex");
    load(&mut c);
    let rows = explain(&mut c, "UPDATE t SET c = 0 WHERE a = 3");
    assert_eq!((rows[0][1].clone(), rows[0][4].clone(), rows[0][6].clone()), (s("UPDATE"), s("ref"), s("ia")));
    let rows = explain(&mut c, "DELETE FROM t WHERE id = 3");
    assert_eq!((rows[0][1].clone(), rows[0][4].clone()), (s("DELETE"), s("const")));
    let rows = explain(&mut c, "INSERT INTO t VALUES (1000, 1, 'x', 1)");
    assert_eq!((rows[0][1].clone(), rows[0][2].clone(), rows[0][4].clone()), (s("INSERT"), s("t"), None));
    let n: u64 = c.query_first("SELECT COUNT(*) FROM t WHERE c = 0 OR id IN (3, 1000)").unwrap().unwrap();
    assert_eq!(n, 2, "EXPLAIN changed nothing"); // ids 0 (c = 0) and 3
}

#[test]
fn json_format_is_refused_and_traditional_is_the_default() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("ex");
    load(&mut c);
    for sql in ["EXPLAIN FORMAT=JSON SELECT * FROM t", "EXPLAIN ANALYZE FORMAT=JSON SELECT * FROM t"] {
        let e = c.query_drop(sql).unwrap_err();
        assert_eq!(err_code(&e), 1235, "{sql}");
    }
    let rows = explain(&mut c, "FORMAT=TRADITIONAL SELECT * FROM t");
    assert_eq!(rows.len(), 1);
    // Prepared: the parameters' values serve the range estimate.
    let st = c.prep("EXPLAIN SELECT * FROM t WHERE id BETWEEN ? AND ?").unwrap();
    let rows: Vec<mysql::Row> = c.exec(&st, (10, 19)).unwrap();
    assert_eq!(row_cells(&rows[0])[9], s("10"));
}
