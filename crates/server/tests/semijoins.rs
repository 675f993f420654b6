//! IN / EXISTS / NOT EXISTS / NOT IN subqueries planned as semi- and
//! anti-joins (`sql/rel/semijoin.rs`): the answers are MariaDB's (as
//! multisets) over tables with NULLs and duplicates on both sides —
//! correlated and not, several outer tables, LEFT JOINs around, ORDER BY
//! / LIMIT / GROUP BY over the result, subqueries in ON clauses, nested
//! subqueries — and EXPLAIN shows the semi-join where one is planned and
//! the subquery where none may be.

mod oracle;

use mysql::prelude::Queryable;
use oracle::{answer, Answer, MariaDb, Quire};

/// `o` (outer: 60 rows, `k` repeats and is NULL for some), `i` (inner:
/// duplicates of `k`, NULLs, an index on `k`), `h` (inner without an
/// index), `nn_o` / `nn_i` (NOT NULL columns, for NOT IN as an anti-join)
/// and `e` (empty).
fn schema() -> Vec<String> {
    let o: Vec<String> = (1..=60)
        .map(|n| {
            let k = if n % 11 == 0 { "NULL".to_string() } else { (n % 17).to_string() };
            format!("({n}, {k}, {}, 's{}')", n % 5, n % 4)
        })
        .collect();
    let i: Vec<String> = (1..=40)
        .map(|n| {
            let k = if n % 9 == 0 { "NULL".to_string() } else { (n % 13).to_string() };
            format!("({n}, {k}, {}, 's{}')", n % 3, n % 6)
        })
        .collect();
    let h: Vec<String> = (1..=25)
        .map(|n| format!("({n}, {}, {})", if n % 7 == 0 { "NULL".to_string() } else { (n % 10).to_string() }, n % 2))
        .collect();
    let nn_o: Vec<String> = (1..=30).map(|n| format!("({n}, {})", n % 12)).collect();
    let nn_i: Vec<String> = (1..=20).map(|n| format!("({n}, {}, {})", (n * 3) % 10, n % 4)).collect();
    vec![
        "CREATE TABLE o (id INT PRIMARY KEY, k INT, g INT, s VARCHAR(10))".to_string(),
        format!("INSERT INTO o VALUES {}", o.join(",")),
        "CREATE TABLE i (id INT PRIMARY KEY, k INT, c INT, s VARCHAR(10), KEY ik (k))".to_string(),
        format!("INSERT INTO i VALUES {}", i.join(",")),
        "CREATE TABLE h (id INT PRIMARY KEY, k INT, f INT)".to_string(),
        format!("INSERT INTO h VALUES {}", h.join(",")),
        "CREATE TABLE nn_o (id INT PRIMARY KEY, k INT NOT NULL)".to_string(),
        format!("INSERT INTO nn_o VALUES {}", nn_o.join(",")),
        "CREATE TABLE nn_i (id INT PRIMARY KEY, k INT NOT NULL, c INT NOT NULL, KEY nk (k))".to_string(),
        format!("INSERT INTO nn_i VALUES {}", nn_i.join(",")),
        "CREATE TABLE e (id INT PRIMARY KEY, k INT)".to_string(),
    ]
}

const QUERIES: &[&str] = &[
    // Correlated EXISTS / NOT EXISTS: through the index on i.k, and by
    // hashing h.
    "SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM i WHERE i.k = o.k)",
    "SELECT o.id FROM o WHERE NOT EXISTS (SELECT 1 FROM i WHERE i.k = o.k)",
    "SELECT o.id, o.k FROM o WHERE EXISTS (SELECT * FROM h WHERE h.k = o.k AND h.f = 1)",
    "SELECT o.id FROM o WHERE NOT EXISTS (SELECT * FROM h WHERE h.k = o.k)",
    "SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM i WHERE i.k = o.k AND i.c > o.g)",
    "SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM i WHERE i.c < o.g)",
    "SELECT o.id FROM o WHERE NOT EXISTS (SELECT 1 FROM i WHERE i.k > o.k)",
    "SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM e WHERE e.k = o.k)",
    "SELECT o.id FROM o WHERE NOT EXISTS (SELECT 1 FROM e WHERE e.k = o.k)",
    "SELECT o.id FROM o WHERE o.g = 2 AND EXISTS (SELECT 1 FROM i WHERE i.k = o.k) AND o.id > 10",
    "SELECT o.id FROM o WHERE NOT (EXISTS (SELECT 1 FROM i WHERE i.k = o.k))",
    // Uncorrelated and correlated IN, NULLs on both sides, duplicates in
    // the inner table (each outer row once).
    "SELECT o.id FROM o WHERE o.k IN (SELECT k FROM i)",
    "SELECT o.id FROM o WHERE o.k IN (SELECT k FROM h)",
    "SELECT o.id FROM o WHERE o.k IN (SELECT k FROM i WHERE i.c = o.g)",
    "SELECT o.id FROM o WHERE o.k IN (SELECT i.k FROM i WHERE i.s = o.s)",
    "SELECT o.id FROM o WHERE (o.k, o.g) IN (SELECT k, c FROM i)",
    "SELECT o.id FROM o WHERE o.k + 1 IN (SELECT k FROM i WHERE c = 1)",
    "SELECT o.id FROM o WHERE o.k IN (SELECT k FROM e)",
    "SELECT o.id FROM o WHERE o.k IN (SELECT DISTINCT k FROM i ORDER BY k)",
    "SELECT o.id FROM o WHERE o.s IN (SELECT s FROM i WHERE i.k = 3)",
    // NOT IN: NULLs keep SQL's three-valued answer (no rows when the
    // subquery yields a NULL), NOT NULL columns become an anti-join.
    "SELECT o.id FROM o WHERE o.k NOT IN (SELECT k FROM i)",
    "SELECT o.id FROM o WHERE o.k NOT IN (SELECT k FROM i WHERE k IS NOT NULL)",
    "SELECT o.id FROM o WHERE o.k NOT IN (SELECT k FROM e)",
    "SELECT nn_o.id FROM nn_o WHERE nn_o.k NOT IN (SELECT k FROM nn_i)",
    "SELECT nn_o.id FROM nn_o WHERE nn_o.k NOT IN (SELECT k FROM nn_i WHERE nn_i.c = nn_o.id % 4)",
    "SELECT nn_o.id FROM nn_o WHERE nn_o.k IN (SELECT k FROM nn_i WHERE nn_i.c = nn_o.id % 4)",
    "SELECT nn_o.id FROM nn_o WHERE NOT (nn_o.k IN (SELECT k FROM nn_i))",
    // Several outer tables; the subquery reading both.
    "SELECT o.id, h.id FROM o JOIN h ON h.f = o.g WHERE EXISTS (SELECT 1 FROM i WHERE i.k = o.k AND i.c = h.f)",
    "SELECT o.id, h.id FROM o, h WHERE o.k = h.k AND h.id IN (SELECT c FROM i WHERE i.k = o.g)",
    "SELECT o.id, h.id FROM o, h WHERE o.id = h.id AND NOT EXISTS (SELECT 1 FROM i WHERE i.k = h.k)",
    // Two subqueries; a subquery of several tables; nested subqueries.
    "SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM i WHERE i.k = o.k) AND o.g IN (SELECT f FROM h)",
    "SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM i JOIN h ON h.k = i.c WHERE i.k = o.k)",
    "SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM i LEFT JOIN h ON h.k = i.c WHERE i.k = o.k AND h.id IS NULL)",
    "SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM i WHERE i.k = o.k AND EXISTS (SELECT 1 FROM h WHERE h.k = i.c))",
    "SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM i WHERE i.k = o.k AND NOT EXISTS (SELECT 1 FROM h WHERE h.f = o.g AND h.k = i.c))",
    "SELECT o.id FROM o WHERE o.k IN (SELECT k FROM i WHERE i.c IN (SELECT f FROM h WHERE h.k = o.g))",
    // LEFT JOINs around, and in ON clauses.
    "SELECT o.id, h.id FROM o LEFT JOIN h ON h.k = o.k WHERE EXISTS (SELECT 1 FROM i WHERE i.k = o.g)",
    "SELECT o.id, h.id FROM o LEFT JOIN h ON h.k = o.k WHERE NOT EXISTS (SELECT 1 FROM i WHERE i.k = h.f)",
    "SELECT o.id, h.id FROM o LEFT JOIN h ON h.k = o.k WHERE h.f IN (SELECT c FROM i)",
    "SELECT o.id, h.id FROM o LEFT JOIN h ON h.k = o.k AND EXISTS (SELECT 1 FROM i WHERE i.k = h.f)",
    "SELECT o.id, h.id FROM o LEFT JOIN h ON h.k = o.k AND h.id NOT IN (SELECT c FROM i)",
    "SELECT o.id, h.id FROM o JOIN h ON h.k = o.k AND EXISTS (SELECT 1 FROM i WHERE i.k = o.g)",
    "SELECT o.id, h.id FROM o JOIN h ON h.k = o.k AND NOT EXISTS (SELECT 1 FROM i WHERE i.c = h.f)",
    // ORDER BY / LIMIT / GROUP BY / DISTINCT over the result.
    "SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM i WHERE i.k = o.k) ORDER BY o.id DESC LIMIT 5",
    "SELECT o.id FROM o WHERE o.k IN (SELECT k FROM i) ORDER BY o.id LIMIT 3, 4",
    "SELECT o.g, COUNT(*), SUM(o.k) FROM o WHERE EXISTS (SELECT 1 FROM i WHERE i.k = o.k) GROUP BY o.g",
    "SELECT o.g, COUNT(*) FROM o WHERE NOT EXISTS (SELECT 1 FROM i WHERE i.k = o.k) GROUP BY o.g HAVING COUNT(*) > 1",
    "SELECT DISTINCT o.k FROM o WHERE o.k IN (SELECT k FROM i)",
    "SELECT COUNT(*) FROM o WHERE o.k IN (SELECT k FROM i WHERE i.c = 2)",
    // Kept as subqueries: OR, the select list, aggregates, LIMIT, ANY / ALL.
    "SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM i WHERE i.k = o.k) OR o.g = 0",
    "SELECT o.id, EXISTS (SELECT 1 FROM i WHERE i.k = o.k) FROM o",
    "SELECT o.id FROM o WHERE o.k IN (SELECT MAX(k) FROM i GROUP BY c)",
    "SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM i WHERE i.k = o.k LIMIT 1)",
    "SELECT o.id FROM o WHERE o.k = ANY (SELECT k FROM i)",
    "SELECT o.id FROM o WHERE o.k > ALL (SELECT k FROM i WHERE k IS NOT NULL)",
    "SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM i WHERE i.k = 3)",
    "SELECT o.id FROM o WHERE NOT EXISTS (SELECT 1 FROM e)",
];

/// Rows sorted: the answers compare as multisets.
fn sorted(a: Answer) -> Answer {
    match a {
        Answer::Rows(mut rows) => {
            rows.sort();
            Answer::Rows(rows)
        }
        other => other,
    }
}

#[test]
fn semi_and_anti_joins_answer_as_mariadb_does() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("semij");
    let mut mc = m.fresh_db("semij");
    for s in schema() {
        qc.query_drop(&s).unwrap();
        mc.query_drop(s).unwrap();
    }
    qc.query_drop("ANALYZE TABLE o, i, h, nn_o, nn_i").unwrap();
    let mut differ = Vec::new();
    for sql in QUERIES {
        let (a, b) = (sorted(answer(&mut qc, sql)), sorted(answer(&mut mc, sql)));
        if a != b {
            differ.push(format!("{sql}\n  quire:   {a:?}\n  mariadb: {b:?}"));
        }
    }
    // A hash semi-join whose build side is cut into chunks.
    qc.query_drop("SET join_buffer_size = 128").unwrap();
    mc.query_drop("SET join_buffer_size = 128").unwrap();
    for sql in [
        "SELECT o.id FROM o WHERE EXISTS (SELECT * FROM h WHERE h.k = o.k AND h.f = 1)",
        "SELECT o.id FROM o WHERE NOT EXISTS (SELECT * FROM h WHERE h.k = o.k)",
        "SELECT o.id FROM o WHERE o.k IN (SELECT k FROM h)",
    ] {
        let (a, b) = (sorted(answer(&mut qc, sql)), sorted(answer(&mut mc, sql)));
        if a != b {
            differ.push(format!("{sql} (128-byte join buffer)\n  quire:   {a:?}\n  mariadb: {b:?}"));
        }
    }
    assert!(differ.is_empty(), "quire and MariaDB differ:\n{}", differ.join("\n"));
}

/// EXPLAIN's lines as (table, select_type, Extra).
fn explained(c: &mut mysql::Conn, sql: &str) -> Vec<(String, String, String)> {
    let rows: Vec<mysql::Row> = c.query(format!("EXPLAIN {sql}")).unwrap();
    rows.iter()
        .map(|r| {
            let table: Option<String> = r.get("table").unwrap();
            let extra: Option<String> = r.get("Extra").unwrap();
            (table.unwrap_or_default(), r.get("select_type").unwrap(), extra.unwrap_or_default())
        })
        .collect()
}

fn tree(c: &mut mysql::Conn, sql: &str) -> String {
    c.query_first::<String, _>(format!("EXPLAIN FORMAT=TREE {sql}")).unwrap().unwrap()
}

#[test]
fn explain_shows_semi_joins_where_they_are_planned() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("semij_explain");
    for s in schema() {
        c.query_drop(s).unwrap();
    }
    c.query_drop("ANALYZE TABLE o, i, h, nn_o, nn_i").unwrap();

    // A correlated EXISTS for one outer row: one block, the inner table
    // after the outer one, looked up by its index, FirstMatch.
    let exists = "SELECT o.id FROM o WHERE o.id = 5 AND EXISTS (SELECT 1 FROM i WHERE i.k = o.k)";
    let lines = explained(&mut c, exists);
    assert_eq!(lines.iter().map(|l| l.0.as_str()).collect::<Vec<_>>(), ["o", "i"], "{lines:?}");
    assert!(lines.iter().all(|l| l.1 == "SIMPLE"), "{lines:?}");
    assert!(lines[1].2.contains("FirstMatch(o)"), "{lines:?}");
    let t = tree(&mut c, exists);
    assert!(t.contains("Nested loop semijoin"), "{t}");
    assert!(t.contains("Index lookup on i using ik"), "{t}");

    // No index on h.k: a hash semi-join; and over every row of o, a hash
    // table on i costs less than a lookup per row.
    let t = tree(&mut c, "SELECT o.id FROM o WHERE o.k IN (SELECT k FROM h)");
    assert!(t.contains("Hash semijoin"), "{t}");
    let t = tree(&mut c, "SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM i WHERE i.k = o.k)");
    assert!(t.contains("Hash semijoin"), "{t}");

    // NOT EXISTS: an anti-join.
    let not_exists = "SELECT o.id FROM o WHERE o.id = 5 AND NOT EXISTS (SELECT 1 FROM i WHERE i.k = o.k)";
    let lines = explained(&mut c, not_exists);
    assert!(lines.iter().all(|l| l.1 == "SIMPLE"), "{lines:?}");
    assert!(lines[1].2.contains("Not exists"), "{lines:?}");
    assert!(tree(&mut c, not_exists).contains("Nested loop antijoin"));

    // NOT IN over NOT NULL columns: an anti-join (correlated on a value
    // per outer row: the uncorrelated form over these few rows costs
    // about the same run once); over nullable ones the subquery stays
    // (its NULLs decide).
    let t =
        tree(&mut c, "SELECT nn_o.id FROM nn_o WHERE nn_o.k NOT IN (SELECT k FROM nn_i WHERE nn_i.c = nn_o.id % 4)");
    assert!(t.contains("antijoin"), "{t}");
    let lines = explained(&mut c, "SELECT o.id FROM o WHERE o.k NOT IN (SELECT k FROM i)");
    assert_eq!(lines.iter().map(|l| l.1.as_str()).collect::<Vec<_>>(), ["PRIMARY", "SUBQUERY"], "{lines:?}");

    // Kept as subqueries: under OR, and an uncorrelated EXISTS (run once).
    let lines = explained(&mut c, "SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM i WHERE i.k = o.k) OR o.g = 0");
    assert_eq!(lines[1].1, "DEPENDENT SUBQUERY", "{lines:?}");
    let lines = explained(&mut c, "SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM i WHERE i.k = 3)");
    assert_eq!(lines[1].1, "SUBQUERY", "{lines:?}");
}

/// `few` (40 outer rows whose `g` has two values, `u` forty, both
/// indexed) and `big` (3000 inner rows, an index on `c`, two rows per
/// value): a correlated IN on `few.g` runs its subquery twice through
/// the index, far less than a semi-join's lookup per outer row or a hash
/// table over all of `big`; on `few.u` (as many values as rows) it
/// would run forty times, so the semi-join is chosen.
fn few_and_big(c: &mut mysql::Conn) {
    let few: Vec<String> = (1..=40).map(|n| format!("({n}, {}, {}, {n})", n % 37, n % 2)).collect();
    let big: Vec<String> = (1..=3000).map(|n| format!("({n}, {}, {})", n % 37, n % 1500)).collect();
    for s in [
        "CREATE TABLE few (id INT PRIMARY KEY, k INT, g INT, u INT, KEY fg (g), KEY fu (u))".to_string(),
        format!("INSERT INTO few VALUES {}", few.join(",")),
        "CREATE TABLE big (id INT PRIMARY KEY, k INT, c INT, KEY bc (c))".to_string(),
        format!("INSERT INTO big VALUES {}", big.join(",")),
        "ANALYZE TABLE few, big".to_string(),
    ] {
        c.query_drop(s).unwrap();
    }
}

#[test]
fn correlated_in_over_few_values_stays_a_subquery_when_that_costs_less() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("semij_few");
    let mut mc = m.fresh_db("semij_few");
    few_and_big(&mut c);
    few_and_big(&mut mc);
    let few_values = "SELECT few.id FROM few WHERE few.k IN (SELECT k FROM big WHERE big.c = few.g)";
    let many_values = "SELECT few.id FROM few WHERE few.k IN (SELECT k FROM big WHERE big.c = few.u)";
    let t = tree(&mut c, few_values);
    assert!(!t.contains("semijoin"), "{t}");
    assert!(t.contains("Select #2 (subquery in condition; dependent)"), "{t}");
    let lines = explained(&mut c, few_values);
    assert_eq!(lines.iter().map(|l| l.1.as_str()).collect::<Vec<_>>(), ["PRIMARY", "DEPENDENT SUBQUERY"], "{lines:?}");
    let t = tree(&mut c, many_values);
    assert!(t.contains("semijoin"), "{t}");
    for sql in [few_values, many_values] {
        assert_eq!(sorted(answer(&mut c, sql)), sorted(answer(&mut mc, sql)), "{sql}");
    }
}

/// `optimizer_switch`'s semi-join flags choose the strategy
/// (`semijoin`, `firstmatch`, `materialization`) and `block_nested_loop`
/// the hash join; the answers stay MariaDB's under each; flags that ask
/// for a strategy quire lacks are refused, not ignored.
#[test]
fn optimizer_switch_flags_choose_the_strategies_they_name() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("semij_switch");
    let mut mc = m.fresh_db("semij_switch");
    for s in schema() {
        c.query_drop(&s).unwrap();
        mc.query_drop(s).unwrap();
    }
    c.query_drop("ANALYZE TABLE o, i, h, nn_o, nn_i").unwrap();
    let point = "SELECT o.id FROM o WHERE o.id = 5 AND EXISTS (SELECT 1 FROM i WHERE i.k = o.k)";
    let scan = "SELECT o.id FROM o WHERE o.k IN (SELECT k FROM h)";
    let join = "SELECT o.id, h.id FROM o JOIN h ON h.k = o.k";
    let set = |c: &mut mysql::Conn, flags: &str| c.query_drop(format!("SET optimizer_switch = '{flags}'")).unwrap();

    // semijoin=off: every IN / EXISTS stays a subquery.
    set(&mut c, "semijoin=off");
    let lines = explained(&mut c, point);
    assert_eq!(lines[1].1, "DEPENDENT SUBQUERY", "{lines:?}");
    assert!(!tree(&mut c, scan).contains("semijoin"));
    // A cached plan made under other flags is not reused.
    set(&mut c, "default");
    assert!(explained(&mut c, point)[1].2.contains("FirstMatch(o)"));

    // firstmatch=off: the lookup per outer row is not used; the key set /
    // hash table is.
    set(&mut c, "firstmatch=off");
    let t = tree(&mut c, point);
    assert!(t.contains("Hash semijoin") || !t.contains("semijoin"), "{t}");
    assert!(!explained(&mut c, point).iter().any(|l| l.2.contains("FirstMatch")));
    // materialization=off: no key set or hash table for a semi-join.
    set(&mut c, "default,materialization=off");
    let t = tree(&mut c, scan);
    assert!(!t.contains("Hash semijoin"), "{t}");
    // Both off: no semi-join strategy left; the subquery runs.
    set(&mut c, "default,firstmatch=off,materialization=off");
    assert!(!tree(&mut c, point).contains("semijoin"));

    // block_nested_loop=off: no hash join.
    set(&mut c, "default");
    assert!(tree(&mut c, join).contains("hash join") || tree(&mut c, join).contains("Hash"), "{}", tree(&mut c, join));
    set(&mut c, "block_nested_loop=off");
    let t = tree(&mut c, join);
    assert!(!t.contains("hash join") && !t.contains("Inner hash"), "{t}");

    // The answers do not change with the flags.
    for flags in [
        "default",
        "semijoin=off",
        "default,firstmatch=off",
        "default,materialization=off",
        "default,block_nested_loop=off",
    ] {
        set(&mut c, flags);
        for sql in QUERIES {
            assert_eq!(sorted(answer(&mut c, sql)), sorted(answer(&mut mc, sql)), "{sql} under {flags}");
        }
    }

    // Strategies quire lacks: refused when asked for, the value unchanged.
    set(&mut c, "default");
    for flag in ["batched_key_access", "subquery_to_derived", "hypergraph_optimizer"] {
        let e = c.query_drop(format!("SET optimizer_switch = '{flag}=on'")).unwrap_err();
        assert_eq!(oracle::err_code(&e), 1235, "{flag}");
    }
    let v: String = c.query_first("SELECT @@optimizer_switch").unwrap().unwrap();
    assert!(v.contains("batched_key_access=off"), "{v}");
    // What quire never does anyway may be turned off.
    set(&mut c, "mrr=off,index_merge=off,skip_scan=off,use_invisible_indexes=on");
}
