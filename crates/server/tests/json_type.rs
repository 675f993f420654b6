//! The JSON type and the JSON functions.
//!
//! MySQL 8.0 is what clients expect here (a real JSON type, normalised
//! text, MYSQL_TYPE_JSON in result metadata); MariaDB's JSON is LONGTEXT
//! and its functions return text as written. So the comparisons with
//! MariaDB are of what the two agree on — which documents functions
//! find, build and change, NULL handling, containment, types, lengths —
//! with documents compared as JSON values (keys in any order, `1.0` =
//! `1`), and MySQL's own text, metadata and error codes are checked
//! against the values its manual documents.

mod oracle;

use mysql::consts::{ColumnFlags, ColumnType};
use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::json::same_json_answers;
use oracle::{answer, Answer, MariaDb, Quire};

fn both(db: &str) -> (Quire, Conn, Conn) {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let qc = q.fresh_db(db);
    let mc = m.fresh_db(db);
    (q, qc, mc)
}

/// The first cell of the first row, as text.
fn one(c: &mut Conn, sql: &str) -> Option<String> {
    match answer(c, sql) {
        Answer::Rows(r) => r.first().and_then(|r| r[0].clone()),
        other => panic!("{sql}: {other:?}"),
    }
}

fn error(c: &mut Conn, sql: &str) -> (u16, String) {
    match c.query_drop(sql) {
        Err(mysql::Error::MySqlError(e)) => (e.code, e.message),
        other => panic!("{sql}: expected an error, got {other:?}"),
    }
}

const DOC: &str =
    r#"'{"id": 7, "name": "ann", "tags": ["a", "b", {"k": [1, 2]}], "addr": {"zip": null, "city": "Oslo"}, "n": 1.5}'"#;

#[test]
fn json_functions_answer_as_mariadb_on_the_same_documents() {
    let (_q, mut qc, mut mc) = both("json_fn");
    let d = DOC;
    let statements: Vec<String> = vec![
        format!("SELECT JSON_EXTRACT({d}, '$.id'), JSON_EXTRACT({d}, '$.name'), JSON_EXTRACT({d}, '$.tags[1]')"),
        format!("SELECT JSON_EXTRACT({d}, '$.tags[2].k'), JSON_EXTRACT({d}, '$.addr.zip'), JSON_EXTRACT({d}, '$.nope')"),
        format!("SELECT JSON_EXTRACT({d}, '$.tags[*]'), JSON_EXTRACT({d}, '$.addr.*'), JSON_EXTRACT({d}, '$**.k')"),
        format!("SELECT JSON_EXTRACT({d}, '$.id', '$.name'), JSON_EXTRACT({d}, '$.tags[9]'), JSON_EXTRACT({d}, '$')"),
        format!(r#"SELECT JSON_EXTRACT('{{"a b": 1}}', '$."a b"'), JSON_EXTRACT('[[1, 2], [3]]', '$[0][1]')"#),
        format!("SELECT JSON_UNQUOTE(JSON_EXTRACT({d}, '$.name')), JSON_UNQUOTE(JSON_EXTRACT({d}, '$.id'))"),
        format!("SELECT JSON_UNQUOTE(JSON_EXTRACT({d}, '$.addr.city')), JSON_UNQUOTE('\"a\\\\tb\"'), JSON_UNQUOTE('abc')"),
        format!("SELECT JSON_TYPE({d}), JSON_TYPE(JSON_EXTRACT({d}, '$.tags')), JSON_TYPE(JSON_EXTRACT({d}, '$.id'))"),
        "SELECT JSON_TYPE('1.5'), JSON_TYPE('\"x\"'), JSON_TYPE('true'), JSON_TYPE('null'), JSON_TYPE('{}')".into(),
        "SELECT JSON_VALID('{\"a\": 1}'), JSON_VALID('{\"a\":}'), JSON_VALID('[1, 2'), JSON_VALID('\"x\"'), JSON_VALID(NULL)"
            .into(),
        format!("SELECT JSON_LENGTH({d}), JSON_LENGTH({d}, '$.tags'), JSON_LENGTH('3'), JSON_LENGTH({d}, '$.nope')"),
        format!("SELECT JSON_DEPTH({d}), JSON_DEPTH('[]'), JSON_DEPTH('[1]'), JSON_DEPTH('1'), JSON_DEPTH('[[[]]]')"),
        format!("SELECT JSON_KEYS('{{\"a\": 1, \"b\": {{\"c\": 2}}}}'), JSON_KEYS({d}, '$.addr'), JSON_KEYS('[1]')"),
        format!("SELECT JSON_CONTAINS({d}, '7', '$.id'), JSON_CONTAINS({d}, '\"b\"', '$.tags'), JSON_CONTAINS({d}, '{{\"city\": \"Oslo\"}}', '$.addr')"),
        "SELECT JSON_CONTAINS('[1, 2, 3]', '[3, 1]'), JSON_CONTAINS('[1, 2]', '[1, 5]'), JSON_CONTAINS('{\"a\": 1}', '1')"
            .into(),
        "SELECT JSON_CONTAINS('{\"a\": 1, \"b\": 2}', '{\"a\": 1}'), JSON_CONTAINS('{\"a\": 1}', '{\"a\": 2}')".into(),
        format!("SELECT JSON_CONTAINS_PATH({d}, 'one', '$.id', '$.x'), JSON_CONTAINS_PATH({d}, 'all', '$.id', '$.x'), JSON_CONTAINS_PATH({d}, 'ALL', '$.tags[2].k')"),
        format!("SELECT JSON_SET({d}, '$.id', 8, '$.new', 'v'), JSON_INSERT({d}, '$.id', 8, '$.new', 'v')"),
        format!("SELECT JSON_REPLACE({d}, '$.id', 8, '$.new', 'v'), JSON_REMOVE({d}, '$.tags[0]', '$.addr')"),
        "SELECT JSON_SET('[1, 2]', '$[5]', 3), JSON_SET('{}', '$.a.b', 1), JSON_INSERT('[1]', '$[0]', 9)".into(),
        "SELECT JSON_ARRAY_APPEND('[1, [2]]', '$[1]', 3), JSON_ARRAY_APPEND('{\"a\": 1}', '$.a', 2)".into(),
        "SELECT JSON_ARRAY(1, 'a', NULL, 2.5), JSON_ARRAY(), JSON_OBJECT('a', 1, 'b', 'x', 'c', NULL), JSON_OBJECT()".into(),
        "SELECT JSON_OBJECT('k', JSON_ARRAY(1, 2)), JSON_ARRAY(JSON_OBJECT('a', JSON_EXTRACT('[1]', '$')))".into(),
        "SELECT JSON_QUOTE('a\"b'), JSON_QUOTE(''), JSON_QUOTE('tab\\there'), JSON_QUOTE('[1]')".into(),
        // NULL anywhere.
        "SELECT JSON_EXTRACT(NULL, '$'), JSON_EXTRACT('{}', NULL), JSON_SET(NULL, '$.a', 1), JSON_SET('{}', '$.a', NULL)"
            .into(),
        "SELECT JSON_LENGTH(NULL), JSON_CONTAINS(NULL, '1'), JSON_CONTAINS('1', NULL), JSON_KEYS(NULL), JSON_TYPE(NULL)"
            .into(),
        "SELECT JSON_QUOTE(NULL), JSON_UNQUOTE(NULL), JSON_REMOVE(NULL, '$[0]'), JSON_DEPTH(NULL), JSON_ARRAY(NULL)".into(),
        "SELECT JSON_CONTAINS_PATH(NULL, 'one', '$'), JSON_CONTAINS_PATH('{}', 'one', NULL), JSON_INSERT('{}', NULL, 1)"
            .into(),
    ];
    let statements: Vec<&str> = statements.iter().map(String::as_str).collect();
    same_json_answers(&mut qc, &mut mc, &statements);
}

#[test]
fn json_column_stores_updates_and_filters_as_mariadb() {
    let (_q, mut qc, mut mc) = both("json_col");
    same_json_answers(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, j JSON, note VARCHAR(10))",
            r#"INSERT INTO t VALUES (1, '{"name": "ann", "age": 31, "tags": ["x"]}', 'a')"#,
            r#"INSERT INTO t VALUES (2, '{"name": "bob", "age": 25}', 'b'), (3, '[1, 2, 3]', 'c'), (4, NULL, 'd')"#,
            r#"INSERT INTO t VALUES (5, '"just a string"', 'e'), (6, '  {"name" : "cy", "age":40}  ', 'f')"#,
            "SELECT id, j FROM t ORDER BY id",
            "SELECT id, JSON_EXTRACT(j, '$.name'), JSON_UNQUOTE(JSON_EXTRACT(j, '$.name')) FROM t ORDER BY id",
            "SELECT id FROM t WHERE JSON_UNQUOTE(JSON_EXTRACT(j, '$.name')) = 'bob'",
            "SELECT id FROM t WHERE JSON_EXTRACT(j, '$.age') > 30 ORDER BY id",
            "SELECT id FROM t WHERE JSON_CONTAINS(j, '\"x\"', '$.tags')",
            "SELECT id, JSON_LENGTH(j), JSON_TYPE(j) FROM t ORDER BY id",
            "UPDATE t SET j = JSON_SET(j, '$.age', 26, '$.city', 'Oslo') WHERE id = 2",
            "UPDATE t SET j = JSON_REMOVE(j, '$.tags') WHERE JSON_CONTAINS_PATH(j, 'one', '$.tags')",
            "SELECT id, j FROM t ORDER BY id",
            "SELECT COUNT(*), COUNT(j) FROM t",
            // (Not `JSON_EXTRACT(j, '$[0]') = 1`: MariaDB compares its text
            // with 1 as a number and warns 1292; MySQL compares JSON.)
            "DELETE FROM t WHERE JSON_TYPE(j) = 'ARRAY'",
            "SELECT id FROM t ORDER BY id",
            // The aggregates: NULL values are JSON nulls, no rows NULL.
            "CREATE TABLE g (id INT PRIMARY KEY, grp INT, k VARCHAR(5), v INT)",
            "INSERT INTO g VALUES (1, 1, 'a', 10), (2, 1, 'b', NULL), (3, 2, 'c', 30), (4, 2, 'c', 31)",
            "SELECT grp, JSON_ARRAYAGG(v), JSON_OBJECTAGG(k, v) FROM g GROUP BY grp ORDER BY grp",
            "SELECT JSON_ARRAYAGG(v), JSON_OBJECTAGG(k, v) FROM g WHERE id > 10",
            "SELECT JSON_ARRAYAGG(j) FROM t WHERE id < 3",
        ],
    );
}

#[test]
fn json_column_validates_refuses_keys_and_survives_a_restart() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("json_store");
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, j JSON NOT NULL)").unwrap();
    // Invalid text is MySQL's 3140 with rapidjson's message and position,
    // in strict and non-strict mode alike.
    assert_eq!(
        error(&mut c, r#"INSERT INTO t VALUES (1, '{"a": 1')"#),
        (3140, "Invalid JSON text: \"Missing a comma or '}' after an object member.\" at position 7 in value for column 't.j'.".into())
    );
    c.query_drop("SET sql_mode = ''").unwrap();
    assert_eq!(
        error(&mut c, "INSERT INTO t VALUES (1, '[1, 2,]')"),
        (3140, "Invalid JSON text: \"Invalid value.\" at position 6 in value for column 't.j'.".into())
    );
    assert_eq!(
        error(&mut c, "INSERT INTO t VALUES (1, 5)"),
        (3140, "Invalid JSON text: \"not a JSON text, may need CAST\" at position 0 in value for column 't.j'.".into())
    );
    assert_eq!(error(&mut c, "INSERT INTO t VALUES (1, x'7b7d')").0, 3144);
    c.query_drop("SET sql_mode = DEFAULT").unwrap();
    assert_eq!(error(&mut c, "CREATE TABLE k (j JSON, KEY (j))").0, 3152);
    assert_eq!(error(&mut c, "CREATE TABLE k (j JSON PRIMARY KEY)").0, 3152);
    assert_eq!(error(&mut c, "CREATE INDEX ij ON t (j)").0, 3152);
    assert_eq!(error(&mut c, "CREATE TABLE k (j JSON DEFAULT '{}')").0, 1101);
    c.query_drop("CREATE TABLE k (j JSON DEFAULT NULL)").unwrap();

    // A document far larger than a page goes to overflow pages.
    let big: String =
        format!("[{}]", (0..3000).map(|i| format!(r#"{{"i": {i}, "s": "value {i}"}}"#)).collect::<Vec<_>>().join(","));
    c.exec_drop("INSERT INTO t VALUES (1, ?)", (big.clone(),)).unwrap();
    c.query_drop(r#"INSERT INTO t VALUES (2, '{"b": [1, 2], "a": {"y": true, "x": null}}')"#).unwrap();
    c.query_drop("UPDATE t SET j = JSON_SET(j, '$.c', 'new', '$.b[5]', 3.25) WHERE id = 2").unwrap();
    let expected_2 = r#"{"a": {"x": null, "y": true}, "b": [1, 2, 3.25], "c": "new"}"#;
    let big_len = one(&mut c, "SELECT LENGTH(j) FROM t WHERE id = 1");
    assert_eq!(one(&mut c, "SELECT j FROM t WHERE id = 2").as_deref(), Some(expected_2));
    assert_eq!(one(&mut c, "SELECT j->>'$[2999].s' FROM t WHERE id = 1").as_deref(), Some("value 2999"));
    assert_eq!(one(&mut c, "SELECT id FROM t WHERE j->>'$.c' = 'new'").as_deref(), Some("2"));

    let q = q.restart();
    let mut c = q.connect(Some("json_store"));
    assert_eq!(one(&mut c, "SELECT j FROM t WHERE id = 2").as_deref(), Some(expected_2));
    assert_eq!(one(&mut c, "SELECT LENGTH(j) FROM t WHERE id = 1"), big_len);
    assert_eq!(one(&mut c, "SELECT JSON_LENGTH(j) FROM t WHERE id = 1").as_deref(), Some("3000"));
    assert_eq!(one(&mut c, "SELECT j->'$[1500].i' FROM t WHERE id = 1").as_deref(), Some("1500"));
    let show: (String, String) = c.query_first("SHOW CREATE TABLE t").unwrap().unwrap();
    assert!(show.1.contains("`j` json NOT NULL"), "{}", show.1);
}

#[test]
fn output_is_mysql_normalised_text() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("json_text");
    // Expected values are the MySQL 8.0 manual's.
    for (sql, expected) in [
        ("SELECT JSON_OBJECT('key1', 1, 'key2', 'abc', 'key1', 'def')", r#"{"key1": "def", "key2": "abc"}"#),
        (r#"SELECT CAST('{"x": 17, "x": "red", "x": [3, 5, 7]}' AS JSON)"#, r#"{"x": [3, 5, 7]}"#),
        ("SELECT JSON_OBJECT('id', 87, 'name', 'carrot')", r#"{"id": 87, "name": "carrot"}"#),
        ("SELECT JSON_ARRAY(1, 'abc', NULL, TRUE)", r#"[1, "abc", null, true]"#),
        (
            r#"SELECT JSON_SET('{ "a": 1, "b": [2, 3]}', '$.a', 10, '$.c', '[true, false]')"#,
            r#"{"a": 10, "b": [2, 3], "c": "[true, false]"}"#,
        ),
        (
            r#"SELECT JSON_INSERT('{ "a": 1, "b": [2, 3]}', '$.a', 10, '$.c', '[true, false]')"#,
            r#"{"a": 1, "b": [2, 3], "c": "[true, false]"}"#,
        ),
        (
            r#"SELECT JSON_REPLACE('{ "a": 1, "b": [2, 3]}', '$.a', 10, '$.c', '[true, false]')"#,
            r#"{"a": 10, "b": [2, 3]}"#,
        ),
        ("SELECT JSON_EXTRACT('[10, 20, [30, 40]]', '$[1]', '$[0]')", "[20, 10]"),
        ("SELECT JSON_EXTRACT('[10, 20, [30, 40]]', '$[2][*]')", "[30, 40]"),
        ("SELECT JSON_ARRAY_APPEND('[\"a\", [\"b\", \"c\"], \"d\"]', '$[1]', 1)", r#"["a", ["b", "c", 1], "d"]"#),
        ("SELECT JSON_REMOVE('[\"a\", [\"b\", \"c\"], \"d\"]', '$[1]')", r#"["a", "d"]"#),
        ("SELECT JSON_KEYS('{\"a\": 1, \"b\": {\"c\": 30}}')", r#"["a", "b"]"#),
        ("SELECT JSON_QUOTE('[1, 2, 3]')", r#""[1, 2, 3]""#),
        ("SELECT JSON_TYPE(JSON_EXTRACT(JSON_OBJECT('a', 1.5), '$.a'))", "DECIMAL"),
        ("SELECT JSON_TYPE('18446744073709551615')", "UNSIGNED INTEGER"),
        // Keys by length, then bytes; doubles keep a point; spaces after
        // `:` and `,`.
        (
            r#"SELECT CAST('{"bb":1,"a":[1.0,1e2,-0.5],"c":{}}' AS JSON)"#,
            r#"{"a": [1.0, 100.0, -0.5], "c": {}, "bb": 1}"#,
        ),
        ("SELECT JSON_ARRAY(1 = 1, 1 > 2, 2)", "[true, false, 2]"),
        ("SELECT CAST(TRUE AS JSON), CAST(1 AS JSON)", "true"),
        (
            "SELECT JSON_ARRAY(DATE '2024-02-29', TIMESTAMP '2024-02-29 10:11:12', 1.50)",
            r#"["2024-02-29", "2024-02-29 10:11:12.000000", 1.50]"#,
        ),
        ("SELECT JSON_EXTRACT('[1, 2, 3]', '$[last]'), JSON_EXTRACT('[1, 2, 3]', '$[last-1]')", "3"),
        ("SELECT JSON_EXTRACT('[1, 2, 3, 4]', '$[1 to 2]')", "[2, 3]"),
        ("SELECT JSON_EXTRACT('7', '$[0]')", "7"),
        ("SELECT CONCAT(JSON_ARRAY(1, 2), '!')", "[1, 2]!"),
    ] {
        assert_eq!(one(&mut c, sql).as_deref(), Some(expected), "{sql}");
    }
}

#[test]
fn arrows_extract_and_unquote_with_mysqls_precedence() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("json_arrow");
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, j JSON)").unwrap();
    c.query_drop(r#"INSERT INTO t VALUES (1, '{"n": 5, "s": "x\\\"y", "a": [10, 20]}'), (2, '{"n": 7, "s": "b"}')"#)
        .unwrap();
    for (sql, expected) in [
        ("SELECT j->'$.s' FROM t WHERE id = 1", r#""x\"y""#),
        ("SELECT j->>'$.s' FROM t WHERE id = 1", r#"x"y"#),
        ("SELECT j->'$.n' + 1 FROM t WHERE id = 1", "6"),
        ("SELECT j->'$.a[1]' * 2 + 1 FROM t WHERE id = 1", "41"),
        ("SELECT id FROM t WHERE j->'$.n' > 6", "2"),
        ("SELECT id FROM t WHERE j->>'$.s' = 'b'", "2"),
        ("SELECT id FROM t WHERE j->'$.s' = 'b'", "2"),
        ("SELECT id FROM t ORDER BY j->'$.n' DESC LIMIT 1", "2"),
        ("SELECT t.j -> '$.a' FROM t WHERE id = 1", "[10, 20]"),
    ] {
        assert_eq!(one(&mut c, sql).as_deref(), Some(expected), "{sql}");
    }
    // Prepared, with the path as a parameter.
    let v: Option<String> = c.exec_first("SELECT j->>? FROM t WHERE id = ?", ("$.s", 2)).unwrap();
    assert_eq!(v.as_deref(), Some("b"));
}

#[test]
fn json_values_compare_as_mysql_compares_them() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("json_cmp");
    for sql in [
        "SELECT CAST('1' AS JSON) = 1",
        "SELECT CAST('1.0' AS JSON) = 1",
        "SELECT CAST('\"a\"' AS JSON) = 'a'",
        "SELECT CAST('[1, 2]' AS JSON) = CAST('[1.0, 2]' AS JSON)",
        "SELECT CAST('{\"b\": 1, \"a\": 2}' AS JSON) = CAST('{\"a\": 2, \"b\": 1}' AS JSON)",
        "SELECT CAST('[1, 2]' AS JSON) < CAST('[1, 3]' AS JSON)",
        "SELECT CAST('[1]' AS JSON) < CAST('[1, 0]' AS JSON)",
        // Kinds: numbers < strings < objects < arrays < booleans.
        "SELECT CAST('99' AS JSON) < CAST('\"a\"' AS JSON)",
        "SELECT CAST('\"z\"' AS JSON) < CAST('{}' AS JSON)",
        "SELECT CAST('{}' AS JSON) < CAST('[]' AS JSON)",
        "SELECT CAST('[]' AS JSON) < CAST('false' AS JSON)",
        "SELECT CAST('false' AS JSON) < CAST('true' AS JSON)",
        // A string is a JSON string, not parsed, against JSON.
        "SELECT CAST('1' AS JSON) <> '1'",
        "SELECT JSON_EXTRACT('{\"a\": \"1\"}', '$.a') = '1'",
    ] {
        assert_eq!(one(&mut c, sql).as_deref(), Some("1"), "{sql}");
    }
    c.query_drop("CREATE TABLE s (id INT PRIMARY KEY, j JSON)").unwrap();
    c.query_drop(r#"INSERT INTO s VALUES (1, 'true'), (2, '"b"'), (3, '10'), (4, '[1]'), (5, '{"a": 1}'), (6, '2.5'), (7, 'null'), (8, NULL)"#)
        .unwrap();
    let order: Vec<u32> = c.query("SELECT id FROM s ORDER BY j, id").unwrap();
    assert_eq!(order, [8, 7, 6, 3, 2, 5, 4, 1]);
    let groups: Vec<(String, u32)> =
        c.query("SELECT CAST(j AS CHAR), COUNT(*) FROM (SELECT j FROM s UNION ALL SELECT j FROM s) x WHERE j IS NOT NULL GROUP BY j ORDER BY j").unwrap();
    assert_eq!(groups.len(), 7);
    assert!(groups.iter().all(|(_, n)| *n == 2), "{groups:?}");
}

#[test]
fn errors_are_mysqls() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("json_err");
    assert_eq!(
        error(&mut c, "SELECT JSON_EXTRACT('{\"a\": }', '$.a')"),
        (3141, "Invalid JSON text in argument 1 to function json_extract: \"Invalid value.\" at position 6.".into())
    );
    assert_eq!(
        error(&mut c, "SELECT JSON_EXTRACT('{}', '$a')"),
        (3143, "Invalid JSON path expression. The error is around character position 1.".into())
    );
    assert_eq!(error(&mut c, "SELECT CAST('nope' AS JSON)").0, 3141);
    assert_eq!(error(&mut c, "SELECT JSON_EXTRACT(1, '$')").0, 3146);
    assert_eq!(error(&mut c, "SELECT JSON_SET('[1]', '$[*]', 2)").0, 3149);
    assert_eq!(error(&mut c, "SELECT JSON_LENGTH('[1]', '$**[0]')").0, 3149);
    assert_eq!(error(&mut c, "SELECT JSON_REMOVE('[1]', '$')").0, 3153);
    assert_eq!(error(&mut c, "SELECT JSON_CONTAINS_PATH('[1]', 'some', '$')").0, 3154);
    assert_eq!(error(&mut c, "SELECT JSON_OBJECT(NULL, 1)").0, 3158);
    assert_eq!(error(&mut c, "SELECT JSON_OBJECT('a')").0, 1582);
    assert_eq!(error(&mut c, "SELECT JSON_SET('[1]', '$[0]')").0, 1582);
    let deep = format!("SELECT CAST('{}{}' AS JSON)", "[".repeat(101), "]".repeat(101));
    assert_eq!(error(&mut c, &deep).0, 3157);
    assert_eq!(error(&mut c, "SELECT JSON_SCHEMA_VALID('{}', '{}')").0, 1235);
    assert_eq!(error(&mut c, "SELECT JSON_ARRAY(x'00')").0, 1235);
    // The server is still there.
    assert_eq!(one(&mut c, "SELECT JSON_VALID('[]')").as_deref(), Some("1"));
}

#[test]
fn result_metadata_is_mysqls_json_type() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("json_meta");
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, j JSON)").unwrap();
    c.query_drop("INSERT INTO t VALUES (1, '[1]')").unwrap();
    let meta = |c: &mut Conn, sql: &str| -> Vec<(ColumnType, u16, bool, bool)> {
        let r = c.query_iter(sql).unwrap();
        r.columns()
            .as_ref()
            .iter()
            .map(|col| {
                let f = col.flags();
                (
                    col.column_type(),
                    col.character_set(),
                    f.contains(ColumnFlags::BINARY_FLAG),
                    f.contains(ColumnFlags::BLOB_FLAG),
                )
            })
            .collect()
    };
    // MySQL 8.0: a JSON column is MYSQL_TYPE_JSON of the binary character
    // set; a computed JSON value is utf8mb4_bin; JSON_UNQUOTE is text.
    assert_eq!(
        meta(&mut c, "SELECT j, JSON_ARRAY(1), j->'$[0]' FROM t"),
        [
            (ColumnType::MYSQL_TYPE_JSON, 63, true, true),
            (ColumnType::MYSQL_TYPE_JSON, 46, false, true),
            (ColumnType::MYSQL_TYPE_JSON, 46, false, true)
        ]
    );
    assert_eq!(meta(&mut c, "SELECT j->>'$[0]' FROM t")[0].0, ColumnType::MYSQL_TYPE_BLOB);
    // The binary protocol carries the text too.
    let v: Option<String> = c.exec_first("SELECT j FROM t WHERE id = ?", (1,)).unwrap();
    assert_eq!(v.as_deref(), Some("[1]"));
}
