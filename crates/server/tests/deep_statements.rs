//! Statements deep or long enough to overflow a naive recursive parser,
//! planner or evaluator, sent to a real quire server: each gets an answer
//! (a result or a clean error), the connection stays usable and the server
//! stays up. Where MariaDB answers them too, the answers are compared.
//!
//! MariaDB (thread_stack 292 KiB) answers 1436 "Thread stack overrun" to
//! `1+1+...+1` from about 5 000 terms on, and 1064 "memory exhausted" to
//! 100 000 nested parentheses. quire folds long binary chains and
//! evaluates them (as MySQL 8.0 does with its larger stack), and answers
//! 1436 to nesting deeper than its limits (crates/sql/src/depth.rs).

mod oracle;

use oracle::{answer, assert_same, Answer, MariaDb, Quire};

fn one(v: &str) -> Answer {
    Answer::Rows(vec![vec![Some(v.to_string())]])
}

/// The connection still answers after whatever came before.
fn still_usable(c: &mut mysql::Conn) {
    assert_eq!(answer(c, "SELECT 1"), one("1"), "the connection must stay usable");
}

#[test]
fn a_100000_term_sum_evaluates_without_overflowing_the_stack() {
    let q = Quire::start(&[]);
    let mut c = q.connect(None);
    let sql = format!("SELECT 1{}", "+1".repeat(99_999));
    assert_eq!(answer(&mut c, &sql), one("100000"));
    let sql = format!("SELECT 2{}", "*1".repeat(99_999));
    assert_eq!(answer(&mut c, &sql), one("2"));
    // Mixed operators keep MySQL's precedence and left-to-right order.
    let sql = format!("SELECT 10{} - 3 * 2", " - 1 + 1".repeat(50_000));
    assert_eq!(answer(&mut c, &sql), one("4"));
    still_usable(&mut c);
}

#[test]
fn deeply_nested_parentheses_get_1436_not_a_crash() {
    let q = Quire::start(&[]);
    let mut c = q.connect(None);
    for depth in [5_000, 100_000] {
        let sql = format!("SELECT {}1{}", "(".repeat(depth), ")".repeat(depth));
        assert_eq!(answer(&mut c, &sql), Answer::Err(1436), "{depth} nested parentheses");
        still_usable(&mut c);
    }
    for (open, close) in [("abs(", ")"), ("NOT ", ""), ("-", ""), ("CASE WHEN 1 THEN ", " END")] {
        let sql = format!("SELECT {}1{}", open.repeat(100_000), close.repeat(100_000));
        // sqlparser gives up on 1000 NOTs with a plain syntax error (1064,
        // as MariaDB's "memory exhausted" for 100 000 of them).
        let a = answer(&mut c, &sql);
        assert!(matches!(a, Answer::Err(1436 | 1064)), "100 000 × {open}: {a:?}");
        still_usable(&mut c);
    }
}

#[test]
fn long_postfix_and_union_chains_get_1436() {
    let q = Quire::start(&[]);
    let mut c = q.connect(None);
    let sql = format!("SELECT 1{}", " IS NULL".repeat(100_000));
    assert_eq!(answer(&mut c, &sql), Answer::Err(1436));
    still_usable(&mut c);
    let sql = format!("SELECT 1{}", " UNION SELECT 1".repeat(100_000));
    assert_eq!(answer(&mut c, &sql), Answer::Err(1436));
    still_usable(&mut c);
    // sqlparser does not chain COLLATE at all: 1064.
    let sql = format!("SELECT 'a'{}", " COLLATE utf8mb4_bin".repeat(100_000));
    assert!(matches!(answer(&mut c, &sql), Answer::Err(1436 | 1064)));
    let sql = format!("SELECT 5{}", " BETWEEN 1 AND 9".repeat(100_000));
    assert_eq!(answer(&mut c, &sql), Answer::Err(1436));
    still_usable(&mut c);
}

#[test]
fn a_syntax_error_after_a_100000_term_chain_is_1064() {
    let q = Quire::start(&[]);
    let mut c = q.connect(None);
    let sql = format!("SELECT 1{} FROM", "+1".repeat(100_000));
    assert_eq!(answer(&mut c, &sql), Answer::Err(1064));
    still_usable(&mut c);
    let sql = format!("SELECT 1{} +", " IS NULL".repeat(100_000));
    assert!(matches!(answer(&mut c, &sql), Answer::Err(1064 | 1436)));
    still_usable(&mut c);
}

#[test]
fn long_chains_in_where_and_a_prepared_statement_evaluate() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("deep_where");
    assert!(matches!(answer(&mut c, "CREATE TABLE t (id INT PRIMARY KEY, k INT)"), Answer::Ok { .. }));
    assert!(matches!(answer(&mut c, "INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)"), Answer::Ok { .. }));
    let sql = format!("SELECT COUNT(*) FROM t WHERE id = 2{}", " AND k > 0".repeat(20_000));
    assert_eq!(answer(&mut c, &sql), one("1"));
    let sql = format!("SELECT COUNT(*) FROM t WHERE id = 9{}", " OR k = 30".repeat(20_000));
    assert_eq!(answer(&mut c, &sql), one("1"));
    let sql = format!("UPDATE t SET k = k{} WHERE id = 1", " + 1".repeat(20_000));
    assert!(matches!(answer(&mut c, &sql), Answer::Ok { affected: 1, .. }));
    assert_eq!(answer(&mut c, "SELECT k FROM t WHERE id = 1"), one("20010"));
    use mysql::prelude::Queryable;
    let sql = format!("SELECT ?{}", " + 1".repeat(50_000));
    let stmt = c.prep(&sql).expect("a long chain prepares");
    let v: Option<i64> = c.exec_first(&stmt, (7,)).expect("and executes");
    assert_eq!(v, Some(50_007));
    still_usable(&mut c);
}

#[test]
fn long_statements_answer_as_mariadb_does() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("deep_diff");
    let mut mc = m.fresh_db("deep_diff");
    let in_list = format!("SELECT 99999 IN ({})", (0..100_000).map(|i| i.to_string()).collect::<Vec<_>>().join(","));
    let not_in = format!("SELECT -5 NOT IN ({})", (0..100_000).map(|i| i.to_string()).collect::<Vec<_>>().join(","));
    let and_chain = format!("SELECT 1{}", " AND 1".repeat(100_000));
    let or_chain = format!("SELECT 0{}", " OR 0".repeat(100_000));
    let parens = format!("SELECT {}1{} + 1", "(".repeat(500), ")".repeat(500));
    let abs = format!("SELECT {}-3{}", "abs(".repeat(200), ")".repeat(200));
    let long_ident = format!("SELECT {} FROM t", "a".repeat(65_536));
    let long_alias = format!("SELECT 1 AS {}", "b".repeat(100));
    let long_string = format!("SELECT LENGTH('{}')", "x".repeat(1 << 20));
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, a INT)",
            &in_list,
            &not_in,
            &and_chain,
            &or_chain,
            &parens,
            &abs,
            &long_ident,
            &long_alias,
            &long_string,
            "SELECT 'unterminated",
            "SELECT 1 /* unterminated comment",
            "SELECT `unterminated",
            "SELECT '\0' = '\0'",
            // Found by the statement fuzz: LEAST() without arguments ended
            // the connection thread.
            "SELECT LEAST()",
            "SELECT GREATEST(1)",
        ],
    );
}

#[test]
fn identifiers_longer_than_64_characters_are_refused_as_mariadb_does() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("long_idents");
    let mut mc = m.fresh_db("long_idents");
    let (a65, a64k, b64) = ("a".repeat(65), "a".repeat(65_536), "b".repeat(64));
    let statements = [
        format!("CREATE TABLE {a65} (id INT PRIMARY KEY)"),
        format!("CREATE TABLE `{a64k}` (id INT PRIMARY KEY)"),
        format!("CREATE DATABASE {a65}"),
        format!("CREATE DATABASE `{a64k}`"),
        format!("CREATE TABLE t65 ({a65} INT PRIMARY KEY)"),
        format!("CREATE TABLE t64k (`{a64k}` INT PRIMARY KEY)"),
        format!("CREATE TABLE t66 (id INT PRIMARY KEY, KEY {a65} (id))"),
        format!("CREATE TABLE t64 ({b64} INT PRIMARY KEY)"),
        format!("SELECT {b64} FROM t64"),
        format!("SELECT * FROM `{a64k}`"),
        format!("USE `{a64k}`"),
        format!("SELECT 1 AS `{a64k}`"),
    ];
    let statements: Vec<&str> = statements.iter().map(String::as_str).collect();
    assert_same(&mut qc, &mut mc, &statements);
}
