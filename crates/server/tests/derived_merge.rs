//! Derived tables, CTE references and views merged into the query that
//! reads them (`sql/rel/merge.rs`): answers compared with the MariaDB the
//! harness starts, with `optimizer_switch` `derived_merge` on and off on
//! both, over small tables with NULLs and duplicates; the ALGORITHM views
//! keep (SHOW CREATE VIEW, warning 1354); and quire's EXPLAIN showing the
//! merged tables read by their own indexes.

mod oracle;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{answer, assert_same, assert_same_diagnostics, Answer, MariaDb, Quire};

const SETUP: &[&str] = &[
    "CREATE TABLE t1 (id INT PRIMARY KEY, a INT, b INT, s VARCHAR(10), KEY (a))",
    "INSERT INTO t1 VALUES (1, 1, 10, 'x'), (2, 1, NULL, 'y'), (3, 2, 20, NULL), (4, NULL, 20, 'x'), (5, 3, 30, 'z'), (6, 2, NULL, 'y')",
    "CREATE TABLE t2 (id INT PRIMARY KEY, t1_id INT, c INT, KEY (t1_id))",
    "INSERT INTO t2 VALUES (1, 1, 5), (2, 1, NULL), (3, 3, 7), (4, 9, 7), (5, NULL, 1), (6, 5, 5)",
    "CREATE TABLE t3 (k INT, v VARCHAR(5))",
    "INSERT INTO t3 VALUES (1, 'a'), (1, 'a'), (2, NULL), (NULL, 'b'), (5, 'c')",
    "CREATE VIEW v_all AS SELECT * FROM t1",
    "CREATE VIEW v_expr AS SELECT id, a + 1 AS a1, COALESCE(b, 0) AS b0, s FROM t1 WHERE b IS NOT NULL OR a > 1",
    "CREATE VIEW v_join AS SELECT t1.id, t1.a, t2.c, t2.id AS t2id FROM t1 JOIN t2 ON t2.t1_id = t1.id",
    "CREATE VIEW v_left AS SELECT t1.id, t1.s, t2.c FROM t1 LEFT JOIN t2 ON t2.t1_id = t1.id AND t2.c > 4",
    "CREATE VIEW v_nested AS SELECT id, a1 FROM v_expr WHERE a1 >= 2",
    "CREATE VIEW v_const AS SELECT id, 1 AS one, a FROM t1 WHERE a <> 3",
    "CREATE VIEW v_agg AS SELECT a, COUNT(*) AS n, SUM(b) AS sb FROM t1 GROUP BY a",
    "CREATE VIEW v_distinct AS SELECT DISTINCT a FROM t1",
    "CREATE VIEW v_limit AS SELECT id, a FROM t1 ORDER BY id LIMIT 3",
    "CREATE VIEW v_union AS SELECT id FROM t1 UNION SELECT t1_id FROM t2",
    "CREATE VIEW v_sub AS SELECT id, a FROM t1 WHERE a IN (SELECT t1_id FROM t2)",
    "CREATE VIEW v_corr AS SELECT id, a FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.t1_id = t1.id)",
    "CREATE ALGORITHM=TEMPTABLE VIEW v_temp AS SELECT id, a FROM t1 WHERE id > 1",
];

/// Queries over views, derived tables and CTEs: merged or not.
const QUERIES: &[&str] = &[
    // Views into the outer block.
    "SELECT * FROM v_all WHERE id = 5",
    "SELECT * FROM v_all WHERE a BETWEEN 1 AND 2",
    "SELECT id, a1, b0 FROM v_expr",
    "SELECT id FROM v_expr WHERE a1 = 3 AND b0 > 0",
    "SELECT * FROM v_join",
    "SELECT * FROM v_join WHERE c = 7",
    "SELECT * FROM v_nested",
    "SELECT * FROM v_left",
    // Inner joins with base tables, by an indexed column.
    "SELECT t2.id, v.s FROM t2 JOIN v_all v ON v.id = t2.t1_id",
    "SELECT t2.id, v.a1 FROM t2 JOIN v_expr v ON v.id = t2.t1_id WHERE t2.c IS NOT NULL",
    "SELECT t3.k, v.id, v.c FROM t3, v_join v WHERE v.a = t3.k",
    // The view as the inner side of a LEFT JOIN, and as its outer side.
    "SELECT t2.id, v.id, v.a1, v.b0 FROM t2 LEFT JOIN v_expr v ON v.id = t2.t1_id",
    "SELECT t2.id, v.id, v.one FROM t2 LEFT JOIN v_const v ON v.id = t2.t1_id",
    "SELECT t2.id, v.id, v.c FROM t2 LEFT JOIN v_join v ON v.id = t2.t1_id",
    "SELECT t2.id, v.id, v.c FROM t2 LEFT JOIN v_left v ON v.id = t2.t1_id",
    "SELECT v.id, v.a1, t2.id FROM v_expr v LEFT JOIN t2 ON t2.t1_id = v.id",
    "SELECT v.id, t2.id FROM v_nested v LEFT JOIN t2 ON t2.t1_id = v.id WHERE t2.id IS NULL",
    "SELECT t3.k, v.id FROM t3 RIGHT JOIN v_const v ON v.a = t3.k",
    "SELECT t3.k, x.id, y.id FROM t3 LEFT JOIN (v_all x JOIN v_expr y ON y.id = x.id) ON x.a = t3.k",
    // Outer clauses over merged views.
    "SELECT a1, COUNT(*), SUM(b0) FROM v_expr GROUP BY a1",
    "SELECT DISTINCT s FROM v_all",
    "SELECT s, COUNT(*) FROM v_join JOIN t3 ON t3.k = v_join.a GROUP BY s HAVING COUNT(*) > 0",
    "SELECT id, RANK() OVER (ORDER BY a1) FROM v_expr",
    "SELECT id FROM v_all WHERE id IN (SELECT t1_id FROM t2)",
    "SELECT id, (SELECT MAX(c) FROM t2 WHERE t2.t1_id = v.id) FROM v_all v",
    "SELECT id FROM v_all v WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.t1_id = v.id)",
    // Non-mergeable kinds.
    "SELECT * FROM v_agg",
    "SELECT v.a, v.n, t3.v FROM v_agg v JOIN t3 ON t3.k = v.a",
    "SELECT * FROM v_distinct",
    "SELECT * FROM v_limit",
    "SELECT * FROM v_union",
    "SELECT * FROM v_temp WHERE id = 3",
    "SELECT * FROM v_sub",
    "SELECT * FROM v_corr",
    "SELECT t2.id, v.id FROM t2 LEFT JOIN v_corr v ON v.id = t2.t1_id",
    // Derived tables.
    "SELECT * FROM (SELECT id, a FROM t1 WHERE b > 10) d WHERE d.a = 2",
    "SELECT d.x, t2.c FROM (SELECT id AS x, s FROM t1) d JOIN t2 ON t2.t1_id = d.x",
    "SELECT t2.id, d.x, d.k FROM t2 LEFT JOIN (SELECT id AS x, 5 AS k FROM t1 WHERE a > 1) d ON d.x = t2.t1_id",
    "SELECT t2.id, d.x, d.s2 FROM t2 LEFT JOIN (SELECT id AS x, CONCAT(s, '!') AS s2 FROM t1) d ON d.x = t2.t1_id",
    "SELECT * FROM (SELECT * FROM (SELECT id, a, b FROM t1 WHERE a IS NOT NULL) d1 WHERE b IS NOT NULL) d2 WHERE id > 1",
    "SELECT * FROM (SELECT t1.id, t2.c FROM t1 LEFT JOIN t2 ON t2.t1_id = t1.id) d WHERE d.c IS NULL",
    "SELECT * FROM (SELECT k, COUNT(*) AS n FROM t3 GROUP BY k) d WHERE n > 1",
    "SELECT * FROM (SELECT id FROM t1 ORDER BY id LIMIT 2) d",
    "SELECT d.id FROM (SELECT id, a FROM t1 ORDER BY a DESC) d JOIN t2 ON t2.t1_id = d.id",
    "SELECT d.id, d.a FROM (SELECT id, a FROM t1 ORDER BY a DESC, id) d WHERE d.id > 1 ORDER BY d.id",
    "SELECT COUNT(*) FROM (SELECT id, a FROM t1 ORDER BY a) d",
    "SELECT * FROM (SELECT 1 AS one, 2 AS two) d",
    "SELECT * FROM (SELECT id FROM t1 WHERE a IN (SELECT k FROM t3)) d",
    // Semi- and anti-joins (`semijoin.rs`) inside merged blocks, and
    // subqueries pulled up as semi-joins that read merged views.
    "SELECT t3.k, d.id FROM t3 LEFT JOIN (SELECT id, a FROM t1 WHERE NOT EXISTS (SELECT 1 FROM t2 WHERE t2.t1_id = t1.id)) d ON d.a = t3.k",
    "SELECT t3.k, v.id FROM t3 LEFT JOIN v_sub v ON v.a = t3.k",
    "SELECT d.id, t3.v FROM (SELECT id, a FROM t1 WHERE a IN (SELECT k FROM t3 WHERE v IS NOT NULL)) d JOIN t3 ON t3.k = d.a",
    "SELECT id FROM t1 WHERE a IN (SELECT a1 FROM v_expr)",
    "SELECT id FROM t2 WHERE EXISTS (SELECT 1 FROM v_join v WHERE v.t2id = t2.id AND v.a > 1)",
    "SELECT id FROM t2 WHERE NOT EXISTS (SELECT 1 FROM v_left v WHERE v.id = t2.t1_id)",
    "SELECT id FROM t1 WHERE id IN (SELECT d.x FROM (SELECT t1_id AS x FROM t2 WHERE c > 1) d)",
    // CTEs, referenced once and twice.
    "WITH c AS (SELECT id, a FROM t1 WHERE a > 1) SELECT * FROM c WHERE id < 6",
    "WITH c AS (SELECT id, a FROM t1 WHERE a IS NOT NULL) SELECT x.id, y.id FROM c x JOIN c y ON y.a = x.a",
    "WITH c AS (SELECT id, s FROM t1) SELECT x.id, y.id FROM c x LEFT JOIN c y ON y.s = x.s AND y.id > x.id",
    "WITH c AS (SELECT t1_id, c FROM t2 WHERE c IS NOT NULL) SELECT t1.id, c.c FROM t1 LEFT JOIN c ON c.t1_id = t1.id",
];

/// Rows sorted, so that results without ORDER BY compare as multisets.
fn sorted(a: Answer) -> Answer {
    match a {
        Answer::Rows(mut r) => {
            r.sort();
            Answer::Rows(r)
        }
        other => other,
    }
}

fn same_as_multisets(qc: &mut Conn, mc: &mut Conn, queries: &[&str], label: &str) {
    for sql in queries {
        let q = sorted(answer(qc, sql));
        let m = sorted(answer(mc, sql));
        assert_eq!(q, m, "quire and MariaDB differ ({label}) on: {sql}");
    }
}

#[test]
fn merged_and_materialised_derived_tables_match_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("dmerge");
    let mut mc = MariaDb::get().fresh_db("dmerge");
    assert_same(&mut qc, &mut mc, SETUP);
    same_as_multisets(&mut qc, &mut mc, QUERIES, "derived_merge=on");
    for c in [&mut qc, &mut mc] {
        c.query_drop("SET optimizer_switch = 'derived_merge=off'").unwrap();
    }
    same_as_multisets(&mut qc, &mut mc, QUERIES, "derived_merge=off");
}

#[test]
fn a_derived_order_by_is_kept_only_for_a_lone_derived_table() {
    // MySQL 8.0's rule: the derived table's ORDER BY orders the outer
    // query when that reads only it and has no ORDER BY, GROUP BY,
    // DISTINCT or aggregates of its own. (MariaDB drops it, so this is
    // quire alone.)
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("dmerge_order");
    for s in SETUP {
        c.query_drop(*s).unwrap();
    }
    let ids: Vec<i64> = c.query("SELECT id FROM (SELECT id, a FROM t1 ORDER BY b DESC, id) d WHERE id > 1").unwrap();
    assert_eq!(ids, vec![5, 3, 4, 2, 6]);
    let ids: Vec<i64> = c.query("SELECT id FROM (SELECT id FROM t1 ORDER BY id DESC) d ORDER BY id").unwrap();
    assert_eq!(ids, vec![1, 2, 3, 4, 5, 6]);
}

#[test]
fn view_algorithms_are_kept_and_shown_as_mariadb_shows_them() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("dmerge_alg");
    let mut mc = MariaDb::get().fresh_db("dmerge_alg");
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, a INT)",
            "INSERT INTO t VALUES (1, 1), (2, 2)",
            "CREATE ALGORITHM=MERGE VIEW vm AS SELECT id, a FROM t WHERE a > 0",
            "CREATE ALGORITHM=TEMPTABLE VIEW vt AS SELECT id, a FROM t",
            "CREATE ALGORITHM=UNDEFINED VIEW vu AS SELECT id FROM t",
            "CREATE VIEW vd AS SELECT id FROM t",
            // Not mergeable: 1354, and UNDEFINED.
            "CREATE ALGORITHM=MERGE VIEW va AS SELECT a, COUNT(*) AS n FROM t GROUP BY a",
            "CREATE ALGORITHM=MERGE VIEW vl AS SELECT id FROM t LIMIT 1",
            "CREATE ALGORITHM=MERGE VIEW vc AS SELECT 1 AS one",
            "SELECT * FROM vm",
            "SELECT * FROM vt",
            "SELECT * FROM va",
            // TEMPTABLE views are not updatable.
            "UPDATE vt SET a = 5 WHERE id = 1",
            "DELETE FROM vt",
            "INSERT INTO vt VALUES (3, 3)",
            "UPDATE vm SET a = 5 WHERE id = 1",
            "SELECT * FROM t ORDER BY id",
            "CREATE ALGORITHM=TEMPTABLE VIEW vtc AS SELECT id, a FROM t WITH CHECK OPTION",
        ],
    );
    // SHOW CREATE VIEW's text: the ALGORITHM, as MariaDB prints it (the
    // rest of the text is quire's own spelling of the query).
    for v in ["vm", "vt", "vu", "vd", "va", "vl", "vc"] {
        let alg = |c: &mut Conn| -> String {
            let row: (String, String, String, String) =
                c.query_first(format!("SHOW CREATE VIEW {v}")).unwrap().unwrap();
            row.1.split_whitespace().nth(1).unwrap().to_string()
        };
        assert_eq!(alg(&mut qc), alg(&mut mc), "ALGORITHM of {v}");
    }
}

#[test]
fn optimizer_switch_changes_only_the_flags_named() {
    let q = Quire::start(&[]);
    let mut c = q.connect(None);
    let get = |c: &mut Conn| -> String { c.query_first("SELECT @@optimizer_switch").unwrap().unwrap() };
    let default = get(&mut c);
    assert!(default.starts_with("index_merge=on,") && default.contains(",derived_merge=on,"), "{default}");
    c.query_drop("SET optimizer_switch = 'derived_merge=off'").unwrap();
    assert_eq!(get(&mut c), default.replace("derived_merge=on", "derived_merge=off"));
    c.query_drop("SET SESSION optimizer_switch = 'hash_join=off'").unwrap();
    let both = get(&mut c);
    assert!(both.contains("derived_merge=off") && both.contains("hash_join=off"), "{both}");
    c.query_drop("SET optimizer_switch = 'default'").unwrap();
    assert_eq!(get(&mut c), default);
    for bad in ["'no_such_flag=on'", "'derived_merge=maybe'", "'derived_merge'"] {
        let e = c.query_drop(format!("SET optimizer_switch = {bad}")).unwrap_err();
        assert_eq!(oracle::err_code(&e), 1231, "{bad}");
    }
    assert_eq!(get(&mut c), default);
    // GLOBAL changes flag by flag too, and new sessions copy it.
    c.query_drop("SET GLOBAL optimizer_switch = 'derived_merge=off'").unwrap();
    let mut c2 = q.connect(None);
    assert_eq!(get(&mut c2), default.replace("derived_merge=on", "derived_merge=off"));
    c.query_drop("SET GLOBAL optimizer_switch = 'default'").unwrap();
}

/// EXPLAIN's rows as (table, type, key).
fn explain(c: &mut Conn, sql: &str) -> Vec<(Option<String>, Option<String>, Option<String>)> {
    let rows: Vec<mysql::Row> = c.query(format!("EXPLAIN {sql}")).unwrap();
    rows.iter()
        .map(|r| {
            (r.get_opt(2).and_then(|x| x.ok()), r.get_opt(4).and_then(|x| x.ok()), r.get_opt(6).and_then(|x| x.ok()))
        })
        .collect()
}

#[test]
fn explain_shows_merged_tables_read_by_their_indexes() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("dmerge_explain");
    for s in SETUP {
        c.query_drop(*s).unwrap();
    }
    let s = |x: &str| Some(x.to_string());
    // A point read of the base table, not a derived table's scan.
    assert_eq!(explain(&mut c, "SELECT * FROM v_all WHERE id = 5"), vec![(s("t1"), s("const"), s("PRIMARY"))]);
    let d = explain(&mut c, "SELECT * FROM (SELECT id, a FROM t1) d WHERE d.id = 2");
    assert_eq!(d, vec![(s("t1"), s("const"), s("PRIMARY"))]);
    // A join with a view looks the view's table up by its index.
    let j = explain(&mut c, "SELECT * FROM t3 JOIN v_all v ON v.id = t3.k");
    assert!(j.contains(&(s("t1"), s("eq_ref"), s("PRIMARY"))), "{j:?}");
    let tree: Vec<String> = c.query("EXPLAIN FORMAT=TREE SELECT * FROM t3 JOIN v_expr v ON v.id = t3.k").unwrap();
    assert!(!tree[0].contains("Materialize") && !tree[0].contains("derived"), "{}", tree[0]);
    // Not merged: a TEMPTABLE view, an aggregate, or derived_merge=off.
    let t = explain(&mut c, "SELECT * FROM v_temp WHERE id = 5");
    assert!(t.iter().any(|r| r.0.as_deref().is_some_and(|n| n.starts_with("<derived"))), "{t:?}");
    c.query_drop("SET optimizer_switch = 'derived_merge=off'").unwrap();
    let off = explain(&mut c, "SELECT * FROM v_all WHERE id = 5");
    assert!(off.iter().any(|r| r.0.as_deref().is_some_and(|n| n.starts_with("<derived"))), "{off:?}");
    c.query_drop("SET optimizer_switch = 'derived_merge=on'").unwrap();
    assert_eq!(explain(&mut c, "SELECT * FROM v_all WHERE id = 5"), vec![(s("t1"), s("const"), s("PRIMARY"))]);
}
