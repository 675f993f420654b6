//! The JSON functions beyond the first twenty (quire issue 16):
//! JSON_ARRAY_INSERT, JSON_MERGE_PRESERVE / JSON_MERGE, JSON_MERGE_PATCH,
//! JSON_SEARCH, JSON_VALUE, JSON_OVERLAPS, JSON_PRETTY,
//! JSON_STORAGE_SIZE / _FREE and MEMBER OF.
//!
//! Where MariaDB 10.11 has the function and agrees with MySQL 8.0, the
//! two servers answer the same statements (documents compared as JSON
//! values: MariaDB prints them as written, quire as MySQL normalises
//! them). Where MariaDB lacks the function or differs from MySQL, the
//! answers are the MySQL 8.0 manual's (docs/SQL.md, "JSON", lists each
//! difference).

mod oracle;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::json::same_json_answers;
use oracle::{answer, Answer, MariaDb, Quire};

/// The first cell of the first row, as text.
fn one(c: &mut Conn, sql: &str) -> Option<String> {
    match answer(c, sql) {
        Answer::Rows(r) => r.first().and_then(|r| r[0].clone()),
        other => panic!("{sql}: {other:?}"),
    }
}

fn error_code(c: &mut Conn, sql: &str) -> u16 {
    match c.query_drop(sql) {
        Err(mysql::Error::MySqlError(e)) => e.code,
        other => panic!("{sql}: expected an error, got {other:?}"),
    }
}

/// Keys written in MySQL's order (by length, then bytes), which quire
/// keeps and walks in; MariaDB walks them as written.
const DOC: &str =
    r#"'{"id": 7, "addr": {"zip": null, "city": "Boston"}, "name": "ann", "tags": ["ab", "b", {"k": [1, "bob"]}]}'"#;

#[test]
fn new_json_functions_answer_as_mariadb() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db("json_fn2"), m.fresh_db("json_fn2"));
    let d = DOC;
    let statements: Vec<String> = vec![
        // JSON_ARRAY_INSERT (not at [last]: MariaDB appends there).
        r#"SELECT JSON_ARRAY_INSERT('["a", {"b": [1, 2]}, [3, 4]]', '$[1]', 'x', '$[3][0]', 'y', '$[2].b[1]', 5)"#.into(),
        "SELECT JSON_ARRAY_INSERT('[1]', '$[9]', 'x'), JSON_ARRAY_INSERT('{\"a\": 1}', '$.a[0]', 'x'), JSON_ARRAY_INSERT('[]', '$[0]', JSON_ARRAY(1))".into(),
        "SELECT JSON_ARRAY_INSERT(NULL, '$[0]', 1), JSON_ARRAY_INSERT('[1]', NULL, 1), JSON_ARRAY_INSERT('[1]', '$[0]', NULL)".into(),
        format!("SELECT JSON_ARRAY_INSERT({d}, '$.tags[2].k[1]', 'mid')"),
        // JSON_MERGE_PRESERVE and its old name.
        "SELECT JSON_MERGE_PRESERVE('[1, 2]', '[true, false]'), JSON_MERGE_PRESERVE('{\"name\": \"x\"}', '{\"id\": 47}')".into(),
        "SELECT JSON_MERGE_PRESERVE('1', 'true'), JSON_MERGE_PRESERVE('[1, 2]', '{\"id\": 47}'), JSON_MERGE_PRESERVE('{\"id\": 47}', '[1, 2]')".into(),
        r#"SELECT JSON_MERGE_PRESERVE('{ "a": 1, "b": 2 }', '{ "a": 3, "c": 4 }', '{ "a": 5, "d": 6 }')"#.into(),
        r#"SELECT JSON_MERGE_PRESERVE('{"a": [1]}', '{"a": {"b": 2}}'), JSON_MERGE('[1]', '2', '{"c": 3}')"#.into(),
        "SELECT JSON_MERGE_PRESERVE('[1]', NULL), JSON_MERGE(NULL, '[1]')".into(),
        format!("SELECT JSON_MERGE_PRESERVE({d}, '{{\"tags\": \"z\", \"addr\": {{\"zip\": 1}}}}')"),
        // JSON_MERGE_PATCH (RFC 7396) and its NULL rules.
        "SELECT JSON_MERGE_PATCH('[1, 2]', '[true, false]'), JSON_MERGE_PATCH('{\"name\": \"x\"}', '{\"id\": 47}')".into(),
        "SELECT JSON_MERGE_PATCH('1', 'true'), JSON_MERGE_PATCH('[1, 2]', '{\"id\": 47}')".into(),
        r#"SELECT JSON_MERGE_PATCH('{ "a": 1, "b": 2 }', '{ "a": 3, "c": 4 }', '{ "a": 5, "d": 6 }')"#.into(),
        r#"SELECT JSON_MERGE_PATCH('{"a": 1, "b": 2}', '{"b": null}'), JSON_MERGE_PATCH('{"a": {"x": 1}}', '{"a": {"y": 2, "x": null}}')"#.into(),
        "SELECT JSON_MERGE_PATCH(NULL, '{}'), JSON_MERGE_PATCH(NULL, '[1]'), JSON_MERGE_PATCH('{}', NULL, '{}'), JSON_MERGE_PATCH('{}', NULL, '1'), JSON_MERGE_PATCH('{\"a\": 1}', NULL)".into(),
        format!("SELECT JSON_MERGE_PATCH({d}, '{{\"tags\": null, \"addr\": {{\"zip\": 1}}, \"new\": [1]}}')"),
        // JSON_SEARCH: one / all, LIKE wildcards, escapes, paths.
        format!("SELECT JSON_SEARCH({d}, 'one', 'ann'), JSON_SEARCH({d}, 'all', 'b%'), JSON_SEARCH({d}, 'all', '%o%')"),
        format!("SELECT JSON_SEARCH({d}, 'all', 'B_B'), JSON_SEARCH({d}, 'all', 'nope'), JSON_SEARCH({d}, 'one', '%b%')"),
        format!("SELECT JSON_SEARCH({d}, 'all', '%b%', NULL, '$.tags'), JSON_SEARCH({d}, 'all', '%b%', NULL, '$.tags[2]', '$.name')"),
        format!("SELECT JSON_SEARCH({d}, 'all', '%b%', NULL, '$.tags[*]'), JSON_SEARCH({d}, 'all', '%o%', NULL, '$**.k')"),
        r#"SELECT JSON_SEARCH('["abc", [{"k": "10"}, "def"], {"x":"abc"}, {"y":"bcd"}]', 'all', '%b%', NULL, '$[*]', '$[2]')"#.into(),
        r#"SELECT JSON_SEARCH('["a_b", "axb", "a%"]', 'all', 'a|_b', '|'), JSON_SEARCH('["a_b", "axb"]', 'all', 'a\\_b'), JSON_SEARCH('["a%", "ab"]', 'all', 'a\\%', '')"#.into(),
        r#"SELECT JSON_SEARCH('["ABC", "abc", 5, null]', 'all', 'abc')"#.into(),
        "SELECT JSON_SEARCH(NULL, 'one', 'a'), JSON_SEARCH('[\"a\"]', 'one', NULL), JSON_SEARCH('[\"a\"]', 'one', 'a', NULL, NULL)".into(),
        "SELECT JSON_SEARCH('[\"a\"]', 'all', 'a', 'ab')".into(),
        // JSON_VALUE without RETURNING.
        format!("SELECT JSON_VALUE({d}, '$.name'), JSON_VALUE({d}, '$.id'), JSON_VALUE({d}, '$.tags[2].k[1]'), JSON_VALUE({d}, '$.nope')"),
        format!("SELECT JSON_VALUE({d}, '$.tags'), JSON_VALUE({d}, '$.addr'), JSON_VALUE({d}, '$.addr.zip'), JSON_VALUE('{{\"a\": 1.50}}', '$.a')"),
        "SELECT JSON_VALUE(NULL, '$'), JSON_VALUE('[1]', NULL), JSON_VALUE('[1, 2]', '$[*]'), JSON_VALUE('\"x\\\\ty\"', '$')".into(),
        // JSON_OVERLAPS (MySQL's manual's examples and more).
        "SELECT JSON_OVERLAPS('[1,3,5,7]', '[2,5,7]'), JSON_OVERLAPS('[1,3,5,7]', '[2,6,8]'), JSON_OVERLAPS('[[1,2],[3,4],5]', '[1,[2,3],[4,5]]')".into(),
        r#"SELECT JSON_OVERLAPS('{"a":1,"b":10,"d":10}', '{"c":1,"e":10,"f":1,"d":10}'), JSON_OVERLAPS('{"a":1,"b":10,"d":10}', '{"a":5,"e":10,"f":1,"d":20}')"#.into(),
        r#"SELECT JSON_OVERLAPS('5', '5'), JSON_OVERLAPS('5', '6'), JSON_OVERLAPS('[4,5,6,7]', '6'), JSON_OVERLAPS('[4,5,"6",7]', '6'), JSON_OVERLAPS('[{"a": 1}]', '{"a": 1}'), JSON_OVERLAPS('{"a": 1}', '1')"#.into(),
        "SELECT JSON_OVERLAPS(NULL, '[1]'), JSON_OVERLAPS('[1]', NULL), JSON_OVERLAPS('[1.0]', '[1]')".into(),
        // JSON_DEPTH (built before; here on the new functions' results).
        "SELECT JSON_DEPTH(JSON_MERGE_PRESERVE('[[1]]', '{\"a\": [[2]]}')), JSON_DEPTH(JSON_ARRAY_INSERT('[]', '$[0]', JSON_ARRAY()))".into(),
    ];
    let statements: Vec<&str> = statements.iter().map(String::as_str).collect();
    same_json_answers(&mut qc, &mut mc, &statements);
}

#[test]
fn new_json_functions_on_columns_answer_as_mariadb() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db("json_col2"), m.fresh_db("json_col2"));
    same_json_answers(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, j JSON)",
            r#"INSERT INTO t VALUES (1, '{"name": "ann", "tags": ["x", "y"]}'), (2, '{"name": "bob", "tags": []}'), (3, NULL)"#,
            r#"UPDATE t SET j = JSON_ARRAY_INSERT(j, '$.tags[0]', 'first') WHERE id <= 2"#,
            r#"UPDATE t SET j = JSON_MERGE_PATCH(j, '{"age": 30, "name": null}') WHERE id = 1"#,
            r#"UPDATE t SET j = JSON_MERGE_PRESERVE(j, '{"tags": "z"}') WHERE id = 2"#,
            "SELECT id, j FROM t ORDER BY id",
            "SELECT id, JSON_SEARCH(j, 'all', 'f%'), JSON_VALUE(j, '$.tags[0]') FROM t ORDER BY id",
            "SELECT id FROM t WHERE JSON_OVERLAPS(JSON_EXTRACT(j, '$.tags'), '[\"z\", \"q\"]') ORDER BY id",
            "SELECT id FROM t WHERE JSON_SEARCH(j, 'one', 'y') IS NOT NULL",
        ],
    );
}

#[test]
fn new_json_functions_answer_as_mysqls_manual() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("json_manual2");
    // The MySQL 8.0 manual's examples where MariaDB differs or lacks the
    // function.
    for (sql, expected) in [
        // MariaDB inserts at [last] as after the end; MySQL before the last.
        ("SELECT JSON_ARRAY_INSERT('[1, 2, 3]', '$[last]', 'x')", r#"[1, 2, "x", 3]"#),
        (
            r#"SELECT JSON_ARRAY_INSERT('["a", {"b": [1, 2]}, [3, 4]]', '$[0]', 'x', '$[2][1]', 'y')"#,
            r#"["x", "a", {"b": [1, 2]}, [3, 4]]"#,
        ),
        (
            r#"SELECT JSON_MERGE_PRESERVE('{ "a": 1, "b": 2 }', '{ "a": 3, "c": 4 }')"#,
            r#"{"a": [1, 3], "b": 2, "c": 4}"#,
        ),
        (r#"SELECT JSON_MERGE_PATCH('{"a": 1, "b": 2}', '{"b": null}')"#, r#"{"a": 1}"#),
        // MariaDB leaves a key that is not an identifier unquoted.
        (r#"SELECT JSON_SEARCH('{"a b": "x"}', 'one', 'x')"#, r#""$.\"a b\"""#),
        (r#"SELECT JSON_SEARCH('{"a": ["x", "y", "x"]}', 'all', 'x')"#, r#"["$.a[0]", "$.a[2]"]"#),
        // MySQL searches strings only; MariaDB numbers too.
        (r#"SELECT JSON_SEARCH('{"a": 1, "b": "1"}', 'all', '1')"#, r#""$.b""#),
        // MariaDB answers 1 for JSON true; MySQL its JSON text.
        (r#"SELECT JSON_VALUE('{"a": true}', '$.a')"#, "true"),
        (r#"SELECT JSON_VALUE('{"fname": "Joe", "lname": "Palmer"}', '$.fname')"#, "Joe"),
        // MEMBER OF (MariaDB has none).
        (r#"SELECT 17 MEMBER OF('[23, "abc", 17, "ab", 10]')"#, "1"),
        (r#"SELECT 'ab' MEMBER OF('[23, "abc", 17, "ab", 10]')"#, "1"),
        (r#"SELECT 7 MEMBER OF('[23, "abc", 17, "ab", 10]')"#, "0"),
        (r#"SELECT 'a' MEMBER OF('[23, "abc", 17, "ab", 10]')"#, "0"),
        (r#"SELECT 17 MEMBER OF('[23, "abc", "17", "ab", 10]')"#, "0"),
        (r#"SELECT '17' MEMBER OF('[23, "abc", 17, "ab", 10]')"#, "0"),
        (r#"SELECT CAST('[4,5]' AS JSON) MEMBER OF('[[3,4],[4,5]]')"#, "1"),
        (r#"SELECT JSON_ARRAY(4,5) MEMBER OF('[[3,4],[4,5]]')"#, "1"),
        (r#"SELECT '[4,5]' MEMBER OF('[[3,4],"[4,5]"]')"#, "1"),
        ("SELECT 5 MEMBER OF('5'), 1.0 MEMBER OF('[1]'), (1 = 1) MEMBER OF('[true]')", "1"),
        // JSON_PRETTY (MariaDB's is JSON_DETAILED, laid out otherwise).
        ("SELECT JSON_PRETTY('123')", "123"),
        ("SELECT JSON_PRETTY('[1,3,5]')", "[\n  1,\n  3,\n  5\n]"),
        (r#"SELECT JSON_PRETTY('{"a":"10","b":"15","x":"25"}')"#, "{\n  \"a\": \"10\",\n  \"b\": \"15\",\n  \"x\": \"25\"\n}"),
        (
            r#"SELECT JSON_PRETTY('["a",1,{"key1": "value1"},"5", {"key2":["value3","valueX"]}, []]')"#,
            "[\n  \"a\",\n  1,\n  {\n    \"key1\": \"value1\"\n  },\n  \"5\",\n  {\n    \"key2\": [\n      \"value3\",\n      \"valueX\"\n    ]\n  },\n  []\n]",
        ),
        // JSON_STORAGE_SIZE: MySQL's binary format's bytes.
        (r#"SELECT JSON_STORAGE_SIZE('[100, "sakila", [1, 3, 5], 425.05]')"#, "45"),
        (r#"SELECT JSON_STORAGE_SIZE('{"a": 1000, "b": "wxyz", "c": "[1, 3, 5, 7]"}')"#, "47"),
        (r#"SELECT JSON_STORAGE_SIZE('{"a": 4.55, "b": "wxyz", "c": "[true, false]"}')"#, "56"),
        (r#"SELECT JSON_STORAGE_SIZE('"Hello World!"')"#, "14"),
        ("SELECT JSON_STORAGE_FREE('[1, 2]')", "0"),
    ] {
        assert_eq!(one(&mut c, sql).as_deref(), Some(expected), "{sql}");
    }
    for sql in [
        "SELECT NULL MEMBER OF('[1]')",
        "SELECT 1 MEMBER OF(NULL)",
        "SELECT JSON_PRETTY(NULL)",
        "SELECT JSON_STORAGE_SIZE(NULL)",
        "SELECT JSON_STORAGE_FREE(NULL)",
    ] {
        assert_eq!(one(&mut c, sql), None, "{sql}");
    }
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, j JSON)").unwrap();
    c.query_drop(r#"INSERT INTO t VALUES (1, '[1, 2]'), (2, '[3]'), (3, '{"a": 2}')"#).unwrap();
    let ids: Vec<u32> = c.query("SELECT id FROM t WHERE 2 MEMBER OF(j) ORDER BY id").unwrap();
    assert_eq!(ids, [1]);
    let ids: Vec<u32> =
        c.query("SELECT id FROM t WHERE 3 MEMBER OF(j->'$') OR JSON_OVERLAPS(j, '{\"a\": 2}') ORDER BY id").unwrap();
    assert_eq!(ids, [2, 3]);
    assert_eq!(one(&mut c, "SELECT JSON_STORAGE_SIZE(j) FROM t WHERE id = 1").as_deref(), Some("11"));
}

#[test]
fn new_json_functions_refuse_with_mysqls_errors() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("json_err2");
    // MariaDB warns and answers NULL for these; MySQL fails.
    assert_eq!(error_code(&mut c, "SELECT JSON_ARRAY_INSERT('[1]', '$.a', 1)"), 3165);
    assert_eq!(error_code(&mut c, "SELECT JSON_ARRAY_INSERT('[1]', '$', 1)"), 3165);
    assert_eq!(error_code(&mut c, "SELECT JSON_ARRAY_INSERT('[1]', '$[*]', 1)"), 3149);
    assert_eq!(error_code(&mut c, "SELECT JSON_ARRAY_INSERT('[1]', '$[0]')"), 1582);
    assert_eq!(error_code(&mut c, "SELECT JSON_MERGE_PATCH('{}')"), 1582);
    assert_eq!(error_code(&mut c, "SELECT JSON_MERGE_PRESERVE('{}', '{')"), 3141);
    assert_eq!(error_code(&mut c, "SELECT JSON_SEARCH('[]', 'some', 'a')"), 3154);
    assert_eq!(error_code(&mut c, "SELECT JSON_SEARCH('[]', 'one', 'a', 'xy')"), 1210);
    assert_eq!(error_code(&mut c, "SELECT JSON_SEARCH('[]', 'one', 'a', NULL, '$a')"), 3143);
    assert_eq!(error_code(&mut c, "SELECT JSON_OVERLAPS('[1]', 1)"), 3146);
    assert_eq!(error_code(&mut c, "SELECT 1 MEMBER OF('[1')"), 3141);
    assert_eq!(error_code(&mut c, "SELECT JSON_PRETTY('{')"), 3141);
    assert_eq!(error_code(&mut c, "SELECT JSON_STORAGE_SIZE(1)"), 3146);
    // Not built: refused, never ignored.
    assert_eq!(error_code(&mut c, "SELECT JSON_SCHEMA_VALID('{}', '{}')"), 1235);
    // Multi-valued indexes, and CAST .. ARRAY anywhere.
    assert_eq!(
        error_code(&mut c, "CREATE TABLE mv (id INT PRIMARY KEY, j JSON, INDEX ((CAST(j->'$.a' AS UNSIGNED ARRAY))))"),
        1235
    );
    assert_eq!(error_code(&mut c, "SELECT CAST('[1]' AS UNSIGNED ARRAY)"), 1235);
    // The server is still there.
    assert_eq!(one(&mut c, "SELECT JSON_VALID('[]')").as_deref(), Some("1"));
}

/// JSON_VALUE(doc, path RETURNING type): MySQL 8.0.21's form (MariaDB has
/// none), answers as the MySQL 8.0 manual gives them, with its implied
/// NULL ON EMPTY and NULL ON ERROR.
#[test]
fn json_value_returning_converts_as_mysqls_manual() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("json_value_returning");
    let cases: &[(&str, Option<&str>)] = &[
        (
            r#"SELECT JSON_VALUE('{"item": "shoes", "price": "49.95"}', '$.price' RETURNING DECIMAL(4,2))"#,
            Some("49.95"),
        ),
        (r#"SELECT JSON_VALUE('{"item": "shoes", "price": "49.95"}', '$.price' RETURNING DECIMAL(4,1))"#, Some("50.0")),
        (r#"SELECT JSON_VALUE('{"id": 7}', '$.id' RETURNING SIGNED) + 1"#, Some("8")),
        (r#"SELECT JSON_VALUE('{"id": -7}', '$.id' RETURNING UNSIGNED)"#, None),
        (r#"SELECT JSON_VALUE('{"d": "2020-01-02"}', '$.d' RETURNING DATE)"#, Some("2020-01-02")),
        (r#"SELECT JSON_VALUE('{"d": "nope"}', '$.d' RETURNING DATE)"#, None),
        (r#"SELECT JSON_VALUE('{"s": "abcdef"}', '$.s' RETURNING CHAR(3))"#, None),
        (r#"SELECT JSON_VALUE('{"s": "abc"}', '$.s' RETURNING CHAR(3))"#, Some("abc")),
        (r#"SELECT JSON_VALUE('{"a": [1, 2]}', '$.a' RETURNING JSON)"#, Some("[1, 2]")),
        (r#"SELECT JSON_VALUE('{"a": [1, 2]}', '$.a' RETURNING SIGNED)"#, None),
        (r#"SELECT JSON_VALUE('{"a": 1.5}', '$.b' RETURNING DOUBLE)"#, None),
        (r#"SELECT JSON_VALUE('{"a": 1.5}', '$.a' RETURNING DOUBLE)"#, Some("1.5")),
        (r#"SELECT JSON_VALUE('[1, 2]', '$[*]' RETURNING SIGNED)"#, None),
        (r#"SELECT JSON_VALUE(NULL, '$' RETURNING SIGNED)"#, None),
    ];
    for (sql, want) in cases {
        assert_eq!(one(&mut c, sql).as_deref(), *want, "{sql}");
    }
    // The result is of the type named.
    let r = c.query_iter(r#"SELECT JSON_VALUE('{"p": "1.5"}', '$.p' RETURNING DECIMAL(4,2))"#).unwrap();
    let ty = r.columns().as_ref()[0].column_type();
    drop(r);
    assert_eq!(ty, mysql::consts::ColumnType::MYSQL_TYPE_NEWDECIMAL);
    assert_eq!(error_code(&mut c, "SELECT JSON_VALUE('[1]' RETURNING SIGNED)"), 1582);
    assert_eq!(error_code(&mut c, "SELECT JSON_VALUE('[1', '$' RETURNING SIGNED)"), 3141);
}
