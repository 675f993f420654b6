//! Bulk paths beside MariaDB: one multi-row INSERT of 100 000 rows stores
//! every row, in the table and in its secondary index, with the affected
//! count and info text MariaDB gives. Not timed (benchmarks are in
//! docs/BENCHMARKS.md); the size is what once made the statement
//! quadratic (an insert-intention lock recorded per row on the same key).

mod oracle;

use oracle::{answer, assert_same, MariaDb, Quire};

const ROWS: u64 = 100_000;

/// `INSERT INTO t VALUES (...), ...` of `ROWS` rows whose ids come in the
/// order `order` gives (a permutation of 1..=ROWS).
fn bulk_insert(order: impl Fn(u64) -> u64) -> String {
    let mut sql = String::with_capacity(ROWS as usize * 40);
    sql.push_str("INSERT INTO t VALUES ");
    for i in 0..ROWS {
        let id = order(i);
        if i > 0 {
            sql.push(',');
        }
        sql.push_str(&format!("({id},{},'c-{id}-{}')", id * 7 % 1000, id % 97));
    }
    sql
}

/// What the table holds, summed so that a lost, doubled or changed row shows.
const CHECKS: &[&str] = &[
    "SELECT COUNT(*), SUM(id), SUM(k), MIN(id), MAX(id) FROM t",
    "SELECT COUNT(*), SUM(LENGTH(c)) FROM t WHERE k = id * 7 % 1000 AND c = CONCAT('c-', id, '-', id % 97)",
    "SELECT COUNT(*), SUM(id) FROM t FORCE INDEX (k) WHERE k >= 0",
    "SELECT k, COUNT(*) FROM t FORCE INDEX (k) WHERE k BETWEEN 10 AND 12 GROUP BY k ORDER BY k",
    "SELECT id, k, c FROM t WHERE id IN (1, 2, 50000, 99999, 100000) ORDER BY id",
];

fn one_statement_of_100k_rows_stores_every_row(name: &str, order: impl Fn(u64) -> u64) {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db(name);
    let mut mc = m.fresh_db(name);
    assert_same(&mut qc, &mut mc, &["CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, c VARCHAR(40), KEY k (k))"]);
    let sql = bulk_insert(order);
    let (qa, ma) = (answer(&mut qc, &sql), answer(&mut mc, &sql));
    assert_eq!(qa, ma, "the 100 000-row INSERT answers as MariaDB's");
    assert_same(&mut qc, &mut mc, CHECKS);
}

#[test]
fn a_100k_row_insert_in_key_order_stores_every_row_as_mariadb_does() {
    one_statement_of_100k_rows_stores_every_row("bulk_ordered", |i| i + 1);
}

#[test]
fn a_100k_row_insert_in_scattered_key_order_stores_every_row_as_mariadb_does() {
    // 7919 is prime and does not divide ROWS: i -> i * 7919 mod ROWS is a
    // permutation, so the rows land all over the tree (splits in the middle).
    one_statement_of_100k_rows_stores_every_row("bulk_scattered", |i| i * 7919 % ROWS + 1);
}
