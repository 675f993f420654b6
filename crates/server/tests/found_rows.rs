//! SELECT SQL_CALC_FOUND_ROWS and FOUND_ROWS() (WordPress's paging),
//! statement by statement against the MariaDB the harness starts: both
//! engines (single-table planner and `rel`), streamed and collected
//! results, set operations, placement errors. MySQL 8.0.17+ also warns
//! (1287, deprecated); MariaDB does not, and neither does quire.

mod oracle;

use oracle::{assert_same, assert_same_diagnostics, MariaDb, Quire};

#[test]
fn found_rows_counts_rows_past_limit_as_mariadb_does() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("found_rows");
    let mut mc = MariaDb::get().fresh_db("found_rows");
    let mut stmts = vec![
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(10), KEY ka (a))",
        "INSERT INTO t VALUES (1, 1, 'x'), (2, 1, 'y'), (3, 2, 'z'), (4, 3, 'x'), (5, 3, 'y'), (6, NULL, 'w')",
        "CREATE TABLE u (id INT PRIMARY KEY, tid INT)",
        "INSERT INTO u VALUES (1, 1), (2, 1), (3, 4)",
    ];
    let pairs = [
        // Single-table planner, streamed: the scan goes on past LIMIT.
        "SELECT SQL_CALC_FOUND_ROWS id, b FROM t LIMIT 2",
        "SELECT SQL_CALC_FOUND_ROWS id FROM t WHERE a = 3 LIMIT 1",
        "SELECT SQL_CALC_FOUND_ROWS id FROM t WHERE id > 2 LIMIT 1, 2",
        "SELECT SQL_CALC_FOUND_ROWS id, b FROM t LIMIT 0",
        "SELECT SQL_CALC_FOUND_ROWS id, b FROM t LIMIT 10, 5",
        "SELECT SQL_CALC_FOUND_ROWS id FROM t ORDER BY id DESC LIMIT 2",
        // Collected: sorted, grouped, DISTINCT.
        "SELECT SQL_CALC_FOUND_ROWS id FROM t ORDER BY b, id LIMIT 2",
        "SELECT SQL_CALC_FOUND_ROWS a, COUNT(*) FROM t GROUP BY a ORDER BY a LIMIT 1, 2",
        "SELECT SQL_CALC_FOUND_ROWS DISTINCT b FROM t ORDER BY b LIMIT 1",
        "SELECT SQL_CALC_FOUND_ROWS COUNT(*) FROM t",
        // General engine: joins, subqueries, set operations.
        "SELECT SQL_CALC_FOUND_ROWS t.id, u.id FROM t JOIN u ON u.tid = t.id ORDER BY u.id LIMIT 1",
        "SELECT SQL_CALC_FOUND_ROWS t.id FROM t LEFT JOIN u ON u.tid = t.id WHERE t.id = 1 LIMIT 1",
        "SELECT SQL_CALC_FOUND_ROWS id, (SELECT COUNT(*) FROM u WHERE u.tid = t.id) FROM t WHERE b = 'x' LIMIT 1",
        "SELECT SQL_CALC_FOUND_ROWS id FROM t WHERE id IN (SELECT tid FROM u) ORDER BY id LIMIT 1",
        "SELECT SQL_CALC_FOUND_ROWS a FROM t UNION SELECT tid FROM u ORDER BY 1 LIMIT 2",
        "SELECT SQL_CALC_FOUND_ROWS a FROM t UNION ALL SELECT tid FROM u ORDER BY 1 LIMIT 3",
        "(SELECT SQL_CALC_FOUND_ROWS id FROM t ORDER BY id LIMIT 4) UNION ALL (SELECT id FROM u ORDER BY id LIMIT 1) LIMIT 1",
        "SELECT SQL_CALC_FOUND_ROWS d.a FROM (SELECT a FROM t WHERE a > 1) d ORDER BY d.a LIMIT 1",
        // Without SQL_CALC_FOUND_ROWS: the rows sent.
        "SELECT id, b FROM t LIMIT 2",
        "SELECT id FROM t WHERE id IN (SELECT tid FROM u) ORDER BY id",
    ];
    for sql in pairs {
        stmts.push(sql);
        stmts.push("SELECT FOUND_ROWS()");
    }
    assert_same(&mut qc, &mut mc, &stmts);
    // Only the first SELECT of the statement may ask (1234 elsewhere); a
    // failed statement leaves FOUND_ROWS() as it was.
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "SELECT SQL_CALC_FOUND_ROWS id, b FROM t LIMIT 1",
            "SELECT id FROM t UNION SELECT SQL_CALC_FOUND_ROWS id FROM u LIMIT 1",
            "SELECT * FROM (SELECT SQL_CALC_FOUND_ROWS id FROM t) d",
            "SELECT (SELECT SQL_CALC_FOUND_ROWS id FROM t LIMIT 1)",
            "SELECT id FROM t WHERE id IN (SELECT SQL_CALC_FOUND_ROWS tid FROM u)",
            "SELECT FOUND_ROWS()",
            // Inside a view it is ignored, as MariaDB.
            "CREATE VIEW v AS SELECT SQL_CALC_FOUND_ROWS id FROM t",
            "SELECT id FROM v ORDER BY id LIMIT 2",
            "SELECT FOUND_ROWS()",
            "SELECT SQL_CALC_FOUND_ROWS id FROM v ORDER BY id LIMIT 2",
            "SELECT FOUND_ROWS()",
        ],
    );
    // No warning (MySQL 8.0.17+ warns 1287; MariaDB does not).
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &["SELECT SQL_CALC_FOUND_ROWS id, b FROM t LIMIT 1", "SELECT FOUND_ROWS()"],
    );
}

#[test]
fn found_rows_of_prepared_statements_matches_mariadb() {
    use mysql::prelude::Queryable;
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("found_rows_ps");
    let mut mc = MariaDb::get().fresh_db("found_rows_ps");
    let setup = ["CREATE TABLE t (id INT PRIMARY KEY, a INT)", "INSERT INTO t VALUES (1, 1), (2, 2), (3, 3), (4, 4)"];
    assert_same(&mut qc, &mut mc, &setup);
    for c in [&mut qc, &mut mc] {
        let stmt = c.prep("SELECT SQL_CALC_FOUND_ROWS id FROM t WHERE a > ? LIMIT ?").unwrap();
        let got: Vec<u32> = c.exec(&stmt, (1, 1)).unwrap();
        assert_eq!(got, vec![2]);
        let found: Option<u64> = c.query_first("SELECT FOUND_ROWS()").unwrap();
        assert_eq!(found, Some(3));
    }
}
