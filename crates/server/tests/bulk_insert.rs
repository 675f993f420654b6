//! Bulk paths beside MariaDB: one multi-row INSERT of 100 000 rows stores
//! every row, in the table and in its secondary index, with the affected
//! count and info text MariaDB gives. Not timed (benchmarks are in
//! docs/BENCHMARKS.md); the size is what once made the statement
//! quadratic (an insert-intention lock recorded per row on the same key).

mod oracle;

use oracle::{answer, assert_same, assert_same_diagnostics, MariaDb, Quire};

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

/// A multi-row INSERT whose tuples read alike is planned once, as its first
/// tuple, and run over every tuple's values: each row still gets its own
/// values, row number in errors and warnings, defaults, auto-increment ids
/// and IN-list answers, as MariaDB gives them.
#[test]
fn tuples_planned_once_keep_their_own_values_row_numbers_and_warnings() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("bulk_tuples");
    let mut mc = m.fresh_db("bulk_tuples");
    assert_same(
        &mut qc,
        &mut mc,
        &["CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, k TINYINT NOT NULL, c VARCHAR(4), f INT DEFAULT 7)"],
    );
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "SET sql_mode = ''",
            // Truncation and range warnings name their own row.
            "INSERT INTO t (k, c) VALUES (1, 'abcdef'), (300, 'x'), (3, 'toolong')",
            // NULL into NOT NULL: a warning per row in a multi-row INSERT.
            "INSERT INTO t (k, c) VALUES (NULL, 'n1'), (5, 'n2'), (NULL, 'n3')",
            // IN lists with values of each tuple.
            "INSERT INTO t (k, c) VALUES (2 IN (1, 2), 'i1'), (2 IN (3, 4), 'i2')",
            "INSERT INTO t (id, k) VALUES (100, 1), (101, 2)",
            "INSERT INTO t (k) VALUES (8), (9)",
            "SELECT LAST_INSERT_ID(), ROW_COUNT()",
            "SET sql_mode = 'STRICT_TRANS_TABLES'",
            // Strict: the error names the third row and nothing is kept.
            "INSERT INTO t (k, c) VALUES (1, 'a'), (2, 'b'), (300, 'c'), (4, 'd')",
            "INSERT INTO t (k, c) VALUES (1, 'a'), (2, 'b'), (3, 'toolong')",
            // A duplicate key in the second tuple: the statement is undone.
            "INSERT INTO t (id, k) VALUES (200, 1), (200, 2)",
            "SELECT * FROM t ORDER BY id",
        ],
    );
    // The plan of the first tuple served a statement of another length.
    use mysql::prelude::Queryable;
    let hits = |c: &mut mysql::Conn| -> u64 {
        let (_, v): (String, u64) = c.query_first("SHOW STATUS LIKE 'Quire_plan_cache_hits'").unwrap().unwrap();
        v
    };
    let before = hits(&mut qc);
    qc.query_drop("INSERT INTO t (k, c) VALUES (11, 'p'), (12, 'q'), (13, 'r'), (14, 's'), (15, 't')").unwrap();
    assert_eq!(hits(&mut qc), before + 1, "a five-tuple INSERT reuses the plan of its first tuple");
}

/// CREATE INDEX on a loaded table (entries sorted in runs, then inserted):
/// every row is found through the new index, and a UNIQUE index over
/// duplicated values is refused, as by MariaDB.
#[test]
fn indexes_created_on_a_loaded_table_find_every_row() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("bulk_index");
    let mut mc = m.fresh_db("bulk_index");
    assert_same(&mut qc, &mut mc, &["CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, c VARCHAR(40), KEY k (k))"]);
    let sql = bulk_insert(|i| i * 7919 % ROWS + 1);
    assert_eq!(answer(&mut qc, &sql), answer(&mut mc, &sql));
    assert_same_diagnostics(
        &mut qc,
        &mut mc,
        &[
            "DELETE FROM t WHERE id % 10 = 3",
            "CREATE INDEX kc ON t (k, c)",
            "CREATE INDEX c ON t (c)",
            "CREATE UNIQUE INDEX uc ON t (c)",
            "SELECT COUNT(*), SUM(id), SUM(k) FROM t FORCE INDEX (kc) WHERE k >= 0",
            "SELECT COUNT(*), SUM(id) FROM t FORCE INDEX (c) WHERE c >= ''",
            "SELECT COUNT(*), SUM(id) FROM t FORCE INDEX (uc) WHERE c >= ''",
            "SELECT id, k, c FROM t FORCE INDEX (kc) WHERE k = 77 ORDER BY c LIMIT 5",
            "INSERT INTO t VALUES (1000001, 5, 'c-1-1')",
            "CREATE INDEX IF NOT EXISTS c ON t (c)",
            "DROP INDEX IF EXISTS nosuch ON t",
            "DROP INDEX kc ON t",
            "ALTER TABLE t ADD INDEX (id, k)",
        ],
    );
    // Which duplicate the error names depends on the order each server
    // meets them in; the error itself does not.
    assert_same(&mut qc, &mut mc, &["CREATE UNIQUE INDEX uk ON t (k)"]);
}
