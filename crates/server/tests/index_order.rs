//! ORDER BY answered by an index's order when equality fixes the index's
//! leading columns (`WHERE w = 1 AND d = 2 ORDER BY o LIMIT 1` on a key
//! (w, d, o)), beside MariaDB: the same rows in the same order, forward
//! and backward, through the primary key and through a secondary index
//! followed by the primary key's columns; and, what TPC-C's Delivery
//! depends on, `... ORDER BY o LIMIT 1 FOR UPDATE` reads and locks one
//! row, not every row of the equality range, so another session may
//! change the district's other rows meanwhile.

mod oracle;

use mysql::prelude::Queryable;
use oracle::{assert_same, MariaDb, Quire};

const SETUP: &[&str] = &[
    "CREATE TABLE n (w INT, d INT, o INT, x VARCHAR(5), s VARCHAR(5), PRIMARY KEY (w, d, o), KEY k (x, d), KEY ks (s))",
    "INSERT INTO n VALUES (1,1,5,'a','5'),(1,1,3,'b','05'),(1,2,1,'a','5a'),(2,1,9,'a','5'),(1,1,7,'a','x'),(1,1,4,'a','5'),(2,2,2,'b',NULL)",
];

#[test]
fn order_by_after_an_equality_prefix_answers_as_mariadb_does() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db("ixorder"), m.fresh_db("ixorder"));
    assert_same(&mut qc, &mut mc, SETUP);
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "SELECT o FROM n WHERE d = 1 AND w = 1 ORDER BY o LIMIT 1",
            "SELECT o FROM n WHERE d = 1 AND w = 1 ORDER BY o DESC LIMIT 2",
            "SELECT o FROM n WHERE w = 1 ORDER BY d, o",
            "SELECT o FROM n WHERE w = 1 ORDER BY d DESC, o DESC",
            "SELECT o FROM n WHERE w = 1 AND d = 1 ORDER BY w, d DESC, o DESC",
            "SELECT o FROM n WHERE w = 1 AND d = 1 AND o > 3 ORDER BY o DESC",
            "SELECT o FROM n WHERE w = 1 ORDER BY o",
            "SELECT o FROM n WHERE w = 1 AND d = 1 ORDER BY o, x",
            "SELECT w, o FROM n WHERE x = 'a' AND d = 1 ORDER BY w, o",
            "SELECT w, d, o FROM n WHERE x = 'a' ORDER BY d, w, o",
            "SELECT w, d, o FROM n WHERE x = 'a' ORDER BY d DESC, w DESC, o DESC LIMIT 3",
            "SELECT w, d, o FROM n WHERE x = 'a' ORDER BY w",
            "SELECT w, d, o FROM n WHERE s = 5 ORDER BY w, d, o",
            "SELECT w, d, o FROM n WHERE s = '5' ORDER BY w, d, o",
            "SELECT o FROM n WHERE w = 1 AND d = 1 ORDER BY o LIMIT 1 FOR UPDATE",
        ],
    );
}

/// Session A takes the lowest order of a district FOR UPDATE; session B
/// changes a later order of the same district without waiting (a 1 s lock
/// wait timeout would fail it otherwise), on both servers.
#[test]
fn for_update_with_limit_locks_only_the_row_it_returns() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (qa, qb) = (q.fresh_db("ixlock"), q.connect(Some("ixlock")));
    let (ma, mb) = (m.fresh_db("ixlock"), m.connect(Some("ixlock")));
    for (name, mut a, mut b) in [("quire", qa, qb), ("MariaDB", ma, mb)] {
        for s in SETUP {
            a.query_drop(s).unwrap();
        }
        a.query_drop("BEGIN").unwrap();
        let first: Vec<i32> = a.query("SELECT o FROM n WHERE d = 1 AND w = 1 ORDER BY o LIMIT 1 FOR UPDATE").unwrap();
        assert_eq!(first, vec![3], "{name}");
        b.query_drop("SET SESSION innodb_lock_wait_timeout = 1").unwrap();
        b.query_drop("UPDATE n SET x = 'z' WHERE w = 1 AND d = 1 AND o = 7")
            .unwrap_or_else(|e| panic!("{name}: a row the FOR UPDATE did not return is locked: {e}"));
        let e = b.query_drop("UPDATE n SET x = 'z' WHERE w = 1 AND d = 1 AND o = 3").unwrap_err();
        assert_eq!(oracle::err_code(&e), 1205, "{name}: the row returned must stay locked");
        a.query_drop("COMMIT").unwrap();
    }
}
