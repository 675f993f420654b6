//! JSON_TABLE (quire issue 16): the table function as a FROM item, lateral
//! over the tables before it, in joins, subqueries, derived tables, CTEs,
//! views and INSERT ... SELECT.
//!
//! Where MariaDB 10.11 and MySQL 8.0 agree, quire answers as MariaDB
//! (cells that are JSON compared as JSON values). Where they differ —
//! what a value that does not convert becomes (MySQL: ON ERROR; MariaDB:
//! the converted remains with a warning), the error numbers (MariaDB's
//! 4037-4178 against MySQL's 3141-3670), a RIGHT JOIN's lateral
//! reference (MySQL 3668, MariaDB 1054) — the answers are the MySQL 8.0
//! manual's and test suite's (docs/SQL.md, "JSON").

mod oracle;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::json::same_json_answers;
use oracle::{answer, row_cells, Answer, MariaDb, Quire};

const SETUP: &[&str] = &[
    "CREATE TABLE docs (id INT PRIMARY KEY, doc JSON)",
    r#"INSERT INTO docs VALUES (1, '[{"k": 1, "tags": ["a", "b"]}, {"k": 2}]'), (2, NULL), (3, '[]'), (4, '[{"k": 5, "tags": ["c"]}]')"#,
    "CREATE TABLE names (k INT PRIMARY KEY, name VARCHAR(10))",
    "INSERT INTO names VALUES (1, 'one'), (2, 'two'), (5, 'five')",
];

fn load(c: &mut Conn) {
    for sql in SETUP {
        c.query_drop(*sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

fn rows(c: &mut Conn, sql: &str) -> Vec<Vec<Option<String>>> {
    let r: Vec<mysql::Row> = c.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    r.iter().map(row_cells).collect()
}

fn code(c: &mut Conn, sql: &str) -> u16 {
    match answer(c, sql) {
        Answer::Err(code) => code,
        other => panic!("{sql}: expected an error, got {other:?}"),
    }
}

fn cells(v: &[&[Option<&str>]]) -> Vec<Vec<Option<String>>> {
    v.iter().map(|r| r.iter().map(|c| c.map(str::to_string)).collect()).collect()
}

#[test]
fn json_table_answers_as_mariadb() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db("json_table"), m.fresh_db("json_table"));
    load(&mut qc);
    load(&mut mc);
    let statements = [
        // Ordinality, PATH, EXISTS PATH, DEFAULT ... ON EMPTY.
        r#"SELECT * FROM JSON_TABLE('[{"a":"3"},{"a":2},{"b":1},{"a":0}]', '$[*]' COLUMNS (id FOR ORDINALITY, jpath VARCHAR(100) PATH '$.a', jexst INT EXISTS PATH '$.b')) AS tt"#,
        r#"SELECT * FROM JSON_TABLE('[{"a": "x"}, {"b": 1}]', '$[*]' COLUMNS (a VARCHAR(5) PATH '$.a' DEFAULT 'none' ON EMPTY, b INT PATH '$.b' DEFAULT '7' ON EMPTY, e INT EXISTS PATH '$.b')) jt"#,
        r#"SELECT * FROM JSON_TABLE('[{"x":"3"},{"a":2},{"b":1},{"a":0},{"a":[1,2]}]', '$[*]' COLUMNS (id FOR ORDINALITY, jpath VARCHAR(100) PATH '$.a' DEFAULT '33' ON EMPTY DEFAULT '66' ON ERROR, jsn_path JSON PATH '$.a' DEFAULT '{"x":33}' ON EMPTY, jexst INT EXISTS PATH '$.b')) AS tt"#,
        // Types: dates, decimals, doubles, JSON values, JSON null.
        r#"SELECT * FROM JSON_TABLE('[{"d": "2020-01-02", "n": 1.25}]', '$[*]' COLUMNS (d DATE PATH '$.d', n DECIMAL(5,2) PATH '$.n', f DOUBLE PATH '$.n', j JSON PATH '$')) jt"#,
        r#"SELECT * FROM JSON_TABLE('[null, true, 3, "s", [1], {"a": 1}]', '$[*]' COLUMNS (j JSON PATH '$', s VARCHAR(10) PATH '$')) jt"#,
        // NESTED PATH: one level, siblings taking turns, a parent whose
        // nested paths match nothing, nesting two deep.
        r#"SELECT * FROM JSON_TABLE('{"x": {"y": [10, 20]}}', '$.x' COLUMNS (NESTED PATH '$.y[*]' COLUMNS (o FOR ORDINALITY, v INT PATH '$'))) jt"#,
        r#"SELECT * FROM JSON_TABLE('[{"a":[1,2],"b":[3]},{"b":[4]},{}, {"a":[]}]', '$[*]' COLUMNS (id FOR ORDINALITY, NESTED PATH '$.a[*]' COLUMNS (x INT PATH '$'), NESTED PATH '$.b[*]' COLUMNS (y INT PATH '$'))) jt"#,
        r#"SELECT * FROM JSON_TABLE('[{"a": 2, "n": [{"l": 1}, {"l": 11}]}, {"a": 1, "n": [{"l": 2}, {"l": 22}]}]', '$[*]' COLUMNS (id FOR ORDINALITY, jpath VARCHAR(50) PATH '$.a', NESTED PATH '$.n[*]' COLUMNS (id_n FOR ORDINALITY, jpath_n VARCHAR(50) PATH '$.l'), NESTED PATH '$.n[*]' COLUMNS (id_m FOR ORDINALITY, jpath_m VARCHAR(50) PATH '$.l'))) AS tt"#,
        r#"SELECT * FROM JSON_TABLE('[{"a": "a_val", "b": [{"c": "c_val", "l": [1, 2]}]}, {"a": "a_val", "b": [{"c": "c_val", "l": [11]}, {"c": "c_val", "l": [22]}]}]', '$[*]' COLUMNS (apath VARCHAR(10) PATH '$.a', NESTED PATH '$.b[*]' COLUMNS (bpath VARCHAR(10) PATH '$.c', ord FOR ORDINALITY, NESTED PATH '$.l[*]' COLUMNS (lpath VARCHAR(10) PATH '$')))) AS jt"#,
        // No rows: a path that names nothing, a NULL document.
        "SELECT * FROM JSON_TABLE('[1, 2]', '$.nothing' COLUMNS (v INT PATH '$')) jt",
        "SELECT * FROM JSON_TABLE(NULL, '$[*]' COLUMNS (v INT PATH '$')) jt",
        // Lateral over a table with NULL and empty documents.
        "SELECT d.id, jt.* FROM docs d, JSON_TABLE(d.doc, '$[*]' COLUMNS (n FOR ORDINALITY, k INT PATH '$.k')) jt ORDER BY d.id, n",
        "SELECT d.id, jt.* FROM docs d LEFT JOIN JSON_TABLE(d.doc, '$[*]' COLUMNS (n FOR ORDINALITY, k INT PATH '$.k')) jt ON TRUE ORDER BY d.id, n",
        "SELECT d.id, jt.* FROM docs d, JSON_TABLE(d.doc, '$[*]' COLUMNS (n FOR ORDINALITY, k INT PATH '$.k', NESTED PATH '$.tags[*]' COLUMNS (t VARCHAR(5) PATH '$'))) jt ORDER BY d.id, n, t",
        // Joins with other tables, filters, aggregates.
        "SELECT d.id, jt.k, n.name FROM docs d JOIN JSON_TABLE(d.doc, '$[*]' COLUMNS (k INT PATH '$.k')) jt JOIN names n ON n.k = jt.k ORDER BY d.id, jt.k",
        "SELECT n.name, jt.k FROM names n LEFT JOIN JSON_TABLE('[{\"k\": 1}, {\"k\": 5}]', '$[*]' COLUMNS (k INT PATH '$.k')) jt ON jt.k = n.k ORDER BY n.k",
        "SELECT n.name FROM JSON_TABLE('[5, 1]', '$[*]' COLUMNS (k INT PATH '$')) jt JOIN names n ON n.k = jt.k ORDER BY n.name",
        "SELECT COUNT(*), SUM(jt.k), MAX(jt.t) FROM docs d, JSON_TABLE(d.doc, '$[*]' COLUMNS (k INT PATH '$.k', NESTED PATH '$.tags[*]' COLUMNS (t VARCHAR(5) PATH '$'))) jt",
        "SELECT d.id, SUM(k), COUNT(*) FROM docs d, JSON_TABLE(d.doc, '$[*]' COLUMNS (k INT PATH '$.k')) jt GROUP BY d.id ORDER BY d.id",
        "SELECT * FROM JSON_TABLE('[1,2,3]', '$[*]' COLUMNS (a INT PATH '$')) jt WHERE a >= 2 ORDER BY a DESC LIMIT 1",
        "SELECT * FROM JSON_TABLE('[1,2,3]', '$[*]' COLUMNS (a INT PATH '$')) jt1, JSON_TABLE('[2,3]', '$[*]' COLUMNS (b INT PATH '$')) jt2 WHERE a = b ORDER BY a",
        // One table function reading another's column.
        "SELECT d.id, jt2.v FROM docs d, JSON_TABLE(d.doc, '$[*]' COLUMNS (tags JSON PATH '$.tags')) jt1, JSON_TABLE(jt1.tags, '$[*]' COLUMNS (v VARCHAR(5) PATH '$')) jt2 ORDER BY d.id, jt2.v",
        // Subqueries, derived tables, CTEs.
        "SELECT id FROM docs d WHERE EXISTS (SELECT 1 FROM JSON_TABLE(d.doc, '$[*]' COLUMNS (k INT PATH '$.k')) jt WHERE jt.k > 1) ORDER BY id",
        "SELECT id, (SELECT COUNT(*) FROM JSON_TABLE(d.doc, '$[*]' COLUMNS (k INT PATH '$.k')) jt) AS c FROM docs d ORDER BY id",
        "SELECT * FROM names WHERE k IN (SELECT v FROM JSON_TABLE('[2, 5]', '$[*]' COLUMNS (v INT PATH '$')) jt) ORDER BY k",
        "SELECT * FROM (SELECT jt.k FROM docs d, JSON_TABLE(d.doc, '$[*]' COLUMNS (k INT PATH '$.k')) jt) AS x ORDER BY k",
        "WITH c AS (SELECT * FROM JSON_TABLE('[3, 1, 2]', '$[*]' COLUMNS (v INT PATH '$')) jt) SELECT v FROM c ORDER BY v",
        // Views and INSERT ... SELECT.
        "CREATE VIEW vk AS SELECT d.id, jt.k FROM docs d, JSON_TABLE(d.doc, '$[*]' COLUMNS (k INT PATH '$.k')) AS jt",
        "SELECT * FROM vk ORDER BY id, k",
        "CREATE TABLE copied (id INT, k INT)",
        "INSERT INTO copied SELECT d.id, jt.k FROM docs d, JSON_TABLE(d.doc, '$[*]' COLUMNS (k INT PATH '$.k')) jt",
        "SELECT * FROM copied ORDER BY id, k",
        // A derived table the document reads; UPDATE and DELETE joins.
        "SELECT x.id, jt.k FROM (SELECT id, doc FROM docs WHERE id < 4) x, JSON_TABLE(x.doc, '$[*]' COLUMNS (k INT PATH '$.k')) jt ORDER BY x.id, jt.k",
        "CREATE TABLE counts (id INT PRIMARY KEY, n INT)",
        "INSERT INTO counts VALUES (1, 0), (4, 0)",
        "UPDATE counts c JOIN docs d ON d.id = c.id, JSON_TABLE(d.doc, '$[*]' COLUMNS (k INT PATH '$.k')) jt SET c.n = c.n + jt.k WHERE jt.k > 1",
        "SELECT * FROM counts ORDER BY id",
        "DELETE c FROM counts c JOIN docs d ON d.id = c.id, JSON_TABLE(d.doc, '$[*]' COLUMNS (k INT PATH '$.k')) jt WHERE jt.k = 5",
        "SELECT * FROM counts ORDER BY id",
        // Errors both servers number alike.
        "SELECT * FROM JSON_TABLE('[1, 2]', '$[*]' COLUMNS (a INT PATH '$', A INT PATH '$')) jt",
        "SELECT * FROM JSON_TABLE('[1]', '$[*]' COLUMNS (a INT PATH '$', NESTED PATH '$' COLUMNS (a INT PATH '$'))) jt",
        "SELECT * FROM JSON_TABLE(nope, '$[*]' COLUMNS (a INT PATH '$')) jt",
        "SELECT * FROM JSON_TABLE(jt.a, '$[*]' COLUMNS (a INT PATH '$')) jt",
        "SELECT * FROM JSON_TABLE(d.doc, '$[*]' COLUMNS (k INT PATH '$.k')) jt, docs d",
        "SELECT * FROM JSON_TABLE('[1]', '$[*]' COLUMNS (a INT PATH '$')) jt, JSON_TABLE('[2]', '$[*]' COLUMNS (b INT PATH '$')) jt",
    ];
    same_json_answers(&mut qc, &mut mc, &statements);
}

#[test]
fn values_that_do_not_convert_take_on_error_as_in_mysql() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("json_table_errors");
    // MySQL's json_table.result: "asd" into INT / REAL takes ON ERROR.
    let got = rows(
        &mut c,
        r#"SELECT * FROM JSON_TABLE('[{"a":"3"},{"a":2},{"b":1},{"a":0.33},{"a":"asd"}]', '$[*]' COLUMNS (id FOR ORDINALITY, jpath_i INT PATH '$.a' DEFAULT '33' ON EMPTY DEFAULT '66' ON ERROR, jpath_r REAL PATH '$.a' DEFAULT '33.3' ON EMPTY DEFAULT '77.7' ON ERROR, jexst INT EXISTS PATH '$.b')) AS tt"#,
    );
    let want = cells(&[
        &[Some("1"), Some("3"), Some("3"), Some("0")],
        &[Some("2"), Some("2"), Some("2"), Some("0")],
        &[Some("3"), Some("33"), Some("33.3"), Some("1")],
        &[Some("4"), Some("0"), Some("0.33"), Some("0")],
        &[Some("5"), Some("66"), Some("77.7"), Some("0")],
    ]);
    assert_eq!(got, want);
    // NULL ON ERROR (the default): a string too long, text into numbers
    // and dates, a number out of range.
    let got = rows(
        &mut c,
        r#"SELECT * FROM JSON_TABLE('"asdf"', '$' COLUMNS (tm TIME PATH '$', dt DATE PATH '$', i INT PATH '$', f FLOAT PATH '$', d DECIMAL PATH '$', s CHAR(3) PATH '$')) AS jt"#,
    );
    assert_eq!(got, cells(&[&[None, None, None, None, None, None]]));
    let got =
        rows(&mut c, "SELECT * FROM JSON_TABLE('[3.14159, 0.9]', '$[*]' COLUMNS (d DECIMAL(3,3) PATH '$')) AS jt");
    assert_eq!(got, cells(&[&[None], &[Some("0.900")]]));
    // Trailing spaces cut are not an error.
    let got = rows(&mut c, r#"SELECT * FROM JSON_TABLE('["3.14159 "]', '$[*]' COLUMNS (c CHAR(7) PATH '$')) AS jt"#);
    assert_eq!(got, cells(&[&[Some("3.14159")]]));
    // ERROR ON EMPTY / ERROR ON ERROR.
    let e = r#"SELECT * FROM JSON_TABLE('[{"a":"3"},{"b":1}]', '$[*]' COLUMNS (jpath VARCHAR(100) PATH '$.a' ERROR ON EMPTY)) AS tt"#;
    assert_eq!(code(&mut c, e), 3665);
    let e = r#"SELECT * FROM JSON_TABLE('[{"a":[0,1]}]', '$[*]' COLUMNS (jpath VARCHAR(100) PATH '$.a' ERROR ON ERROR)) AS tt"#;
    assert_eq!(code(&mut c, e), 3666);
    let e = r#"SELECT * FROM JSON_TABLE('[{"a":1},{"a":2}]', '$' COLUMNS (a INT PATH '$[*].a' ERROR ON ERROR)) AS jt"#;
    assert_eq!(code(&mut c, e), 3666);
    let e = "SELECT * FROM JSON_TABLE('123.456', '$' COLUMNS (a DECIMAL(2,1) PATH '$' ERROR ON ERROR)) AS jt";
    assert_eq!(code(&mut c, e), 3669);
    // A JSON column takes several matches as an array.
    let got = rows(
        &mut c,
        r#"SELECT * FROM JSON_TABLE('[{"a":1},{"a":2}]', '$' COLUMNS (a JSON PATH '$[*].a' ERROR ON ERROR)) AS jt"#,
    );
    assert_eq!(got, cells(&[&[Some("[1, 2]")]]));
}

#[test]
fn bad_json_table_clauses_are_mysqls_errors() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("json_table_refusals");
    load(&mut c);
    let cases: &[(&str, u16)] = &[
        // No alias.
        ("SELECT * FROM JSON_TABLE('[1]', '$[*]' COLUMNS (a INT PATH '$'))", 3667),
        // Paths that do not read; text that is not JSON.
        ("SELECT * FROM JSON_TABLE('[1]', '$[' COLUMNS (a INT PATH '$')) jt", 3143),
        ("SELECT * FROM JSON_TABLE('[1]', '$[*]' COLUMNS (a INT PATH '!@#')) jt", 3143),
        ("SELECT * FROM JSON_TABLE('[1', '$[*]' COLUMNS (a INT PATH '$')) jt", 3141),
        ("SELECT * FROM docs, JSON_TABLE('dqwfjqjf', '$[*]' COLUMNS (c FOR ORDINALITY)) AS jt", 3141),
        // A DEFAULT that is not a scalar for a scalar column.
        ("SELECT * FROM JSON_TABLE('[1]', '$[*]' COLUMNS (a VARCHAR(10) PATH '$.a' DEFAULT '[99]' ON ERROR)) jt", 1067),
        // A RIGHT JOIN whose preserved side reads the other.
        ("SELECT * FROM docs d RIGHT JOIN JSON_TABLE(d.doc, '$[*]' COLUMNS (k INT PATH '$.k')) jt ON TRUE", 3668),
        (
            "SELECT * FROM docs d LEFT JOIN JSON_TABLE(d.doc, '$[*]' COLUMNS (k INT PATH '$.k')) jt ON TRUE RIGHT JOIN JSON_TABLE(jt.k, '$' COLUMNS (o FOR ORDINALITY)) jt1 ON TRUE",
            3668,
        ),
        // The table function's argument in MySQL's words.
        ("SELECT * FROM JSON_TABLE(SUM(1), '$[*]' COLUMNS (c FOR ORDINALITY)) AS jt", 1111),
    ];
    for (sql, want) in cases {
        assert_eq!(code(&mut c, sql), *want, "{sql}");
    }
    let nested =
        (0..17).fold("i INT PATH '$.a'".to_string(), |inner, _| format!("NESTED PATH '$.b' COLUMNS ({inner})"));
    let sql = format!("SELECT * FROM JSON_TABLE('{{}}', '$' COLUMNS ({nested})) jt");
    assert_eq!(code(&mut c, &sql), 3670);
    // The server goes on.
    assert_eq!(rows(&mut c, "SELECT 1"), cells(&[&[Some("1")]]));
}

#[test]
fn a_prepared_document_is_read_per_execution() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("json_table_prepared");
    let stmt = c.prep("SELECT a FROM JSON_TABLE(?, '$[*]' COLUMNS (a INT PATH '$')) jt ORDER BY a").unwrap();
    let first: Vec<i64> = c.exec(&stmt, ("[8, 7]",)).unwrap();
    let second: Vec<i64> = c.exec(&stmt, ("[9]",)).unwrap();
    assert_eq!((first, second), (vec![7, 8], vec![9]));
}

#[test]
fn explain_shows_a_table_function_as_mysql() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("json_table_explain");
    load(&mut c);
    let r: Vec<mysql::Row> = c
        .query("EXPLAIN SELECT d.id, jt.k FROM docs d, JSON_TABLE(d.doc, '$[*]' COLUMNS (k INT PATH '$.k')) jt WHERE jt.k > 1")
        .unwrap();
    let lines: Vec<Vec<Option<String>>> = r.iter().map(row_cells).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[1][1].as_deref(), Some("SIMPLE"));
    assert_eq!(lines[0][2].as_deref(), Some("d"));
    assert_eq!(lines[1][2].as_deref(), Some("jt"));
    assert_eq!(lines[1][4].as_deref(), Some("ALL"));
    assert_eq!(lines[1][11].as_deref(), Some("Table function: json_table; Using temporary; Using where"));
    let tree: Vec<String> =
        c.query("EXPLAIN FORMAT=TREE SELECT * FROM JSON_TABLE('[1]', '$[*]' COLUMNS (a INT PATH '$')) jt").unwrap();
    assert!(tree[0].contains("Table scan on jt") && tree[0].contains("Materialize table function"), "{}", tree[0]);
}
