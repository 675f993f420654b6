//! Outer-join simplification: a LEFT (or RIGHT) join whose NULL-extended
//! rows the WHERE clause, or an enclosing join's ON, rejects is planned
//! as an inner join, so its tables may be reordered (EXPLAIN shows the
//! inner side first when that is cheaper), and the answers stay
//! MariaDB's, for terms that reject NULLs and for terms that do not.

mod oracle;

use mysql::prelude::Queryable;
use oracle::{assert_same, MariaDb, Quire};

/// `big` (200 rows, no index on `v`) and `small` (20 rows); some of
/// `big`'s `v` match no `small` row, some are NULL; `small.k` repeats.
fn schema() -> Vec<String> {
    let big: Vec<String> = (1..=200)
        .map(|n| format!("({n}, {})", if n % 9 == 0 { "NULL".to_string() } else { (n % 30).to_string() }))
        .collect();
    let small: Vec<String> = (1..=20)
        .map(|n| format!("({n}, {}, {})", n % 4, if n % 6 == 0 { "NULL".to_string() } else { format!("'k{}'", n % 5) }))
        .collect();
    let third: Vec<String> = (1..=12).map(|n| format!("({n}, {})", n % 3)).collect();
    vec![
        "CREATE TABLE big (id INT PRIMARY KEY, v INT)".to_string(),
        format!("INSERT INTO big VALUES {}", big.join(",")),
        "CREATE TABLE small (id INT PRIMARY KEY, k INT, s VARCHAR(5))".to_string(),
        format!("INSERT INTO small VALUES {}", small.join(",")),
        "CREATE TABLE third (id INT PRIMARY KEY, k INT)".to_string(),
        format!("INSERT INTO third VALUES {}", third.join(",")),
    ]
}

const QUERIES: &[&str] = &[
    // Rejecting NULLs: become inner joins.
    "SELECT big.id, small.id FROM big LEFT JOIN small ON small.id = big.v WHERE small.k = 2 ORDER BY 1, 2",
    "SELECT big.id, small.id FROM big LEFT JOIN small ON small.id = big.v WHERE small.s IS NOT NULL ORDER BY 1, 2",
    "SELECT big.id, small.id FROM big LEFT JOIN small ON small.id = big.v WHERE small.k + 1 > 2 ORDER BY 1, 2",
    "SELECT big.id FROM big LEFT JOIN small ON small.id = big.v WHERE small.k = 1 OR small.s = 'k2' ORDER BY 1",
    "SELECT big.id FROM big LEFT JOIN small ON small.id = big.v WHERE small.k BETWEEN 1 AND 2 ORDER BY 1",
    "SELECT big.id FROM big LEFT JOIN small ON small.id = big.v WHERE small.s LIKE 'k%' ORDER BY 1",
    "SELECT big.id FROM big LEFT JOIN small ON small.id = big.v WHERE small.k IN (0, 3) ORDER BY 1",
    "SELECT big.id FROM big LEFT JOIN small ON small.id = big.v WHERE NOT (small.k = 1) ORDER BY 1",
    "SELECT big.id, small.id FROM small RIGHT JOIN big ON small.id = big.v WHERE small.k < 3 ORDER BY 1, 2",
    // An inner join's ON rejects them.
    "SELECT big.id, small.id, third.id FROM big LEFT JOIN small ON small.id = big.v \
     JOIN third ON third.k = small.k ORDER BY 1, 2, 3",
    // Nested: the outer join's ON rejects the inner one's NULLs.
    "SELECT big.id, small.id, third.id FROM big LEFT JOIN (small LEFT JOIN third ON third.id = small.k) \
     ON third.k = big.v % 3 ORDER BY 1, 2, 3",
    "SELECT big.id, small.id, third.id FROM big LEFT JOIN small ON small.id = big.v \
     LEFT JOIN third ON third.id = small.k WHERE third.k = 1 ORDER BY 1, 2, 3",
    // Not rejecting NULLs: stay outer joins.
    "SELECT big.id, small.id FROM big LEFT JOIN small ON small.id = big.v WHERE small.k IS NULL ORDER BY 1, 2",
    "SELECT big.id FROM big LEFT JOIN small ON small.id = big.v WHERE COALESCE(small.k, 1) = 1 ORDER BY 1",
    "SELECT big.id FROM big LEFT JOIN small ON small.id = big.v WHERE small.k <=> NULL ORDER BY 1",
    "SELECT big.id FROM big LEFT JOIN small ON small.id = big.v WHERE small.k = 1 OR big.v IS NULL ORDER BY 1",
    "SELECT big.id FROM big LEFT JOIN small ON small.id = big.v WHERE small.k NOT BETWEEN 1 AND NULL ORDER BY 1",
    "SELECT big.id FROM big LEFT JOIN small ON small.id = big.v WHERE IFNULL(small.s, 'x') = 'x' ORDER BY 1",
    "SELECT big.id, small.id, third.id FROM big LEFT JOIN small ON small.id = big.v \
     LEFT JOIN third ON third.k = small.k WHERE small.id > 3 ORDER BY 1, 2, 3",
    "SELECT COUNT(*), COUNT(small.id) FROM big LEFT JOIN small ON small.id = big.v AND small.k = 2",
];

#[test]
fn null_rejecting_outer_joins_answer_as_mariadb_does() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("ojs");
    let mut mc = m.fresh_db("ojs");
    let schema = schema();
    let schema: Vec<&str> = schema.iter().map(String::as_str).collect();
    assert_same(&mut qc, &mut mc, &schema);
    assert_same(&mut qc, &mut mc, &["ANALYZE TABLE big, small, third"]);
    assert_same(&mut qc, &mut mc, QUERIES);
}

/// The tables EXPLAIN lists, in order.
fn explained(c: &mut mysql::Conn, sql: &str) -> Vec<String> {
    let rows: Vec<mysql::Row> = c.query(format!("EXPLAIN {sql}")).unwrap();
    rows.iter().map(|r| r.get::<String, _>("table").unwrap()).collect()
}

#[test]
fn a_left_join_whose_nulls_where_rejects_is_reordered_as_an_inner_join() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("ojs_explain");
    for s in schema() {
        c.query_drop(s).unwrap();
    }
    c.query_drop("ANALYZE TABLE big, small").unwrap();
    // A LEFT join keeps its preserved side first ...
    let kept = "SELECT big.id FROM big LEFT JOIN small ON small.id = big.v WHERE small.k IS NULL";
    assert_eq!(explained(&mut c, kept), ["big", "small"]);
    // ... until WHERE rejects its NULL rows: then the smaller table
    // leads and the larger is joined to it by hashing.
    let inner = "SELECT big.id FROM big LEFT JOIN small ON small.id = big.v WHERE small.k = 2";
    assert_eq!(explained(&mut c, inner), ["small", "big"]);
    let inner_join = "SELECT big.id FROM big JOIN small ON small.id = big.v WHERE small.k = 2";
    assert_eq!(explained(&mut c, inner_join), ["small", "big"]);
}
