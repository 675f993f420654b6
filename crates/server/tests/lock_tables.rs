//! LOCK TABLES / UNLOCK TABLES: what the holding session may do, compared
//! with the MariaDB the harness starts (1100 for a table it did not lock
//! or locked under another name, 1099 for a write to a READ-locked table,
//! 1146 for a missing one, the implicit unlock of START TRANSACTION, the
//! form mariadb-dump sends), then two sessions on quire: READ lets others
//! read and makes their writes wait, WRITE makes their reads wait too,
//! `lock_wait_timeout` ends a wait with 1205, KILL QUERY with 1317, and
//! UNLOCK TABLES or a disconnect lets the waiter through.

mod oracle;

use std::time::Duration;

use mysql::prelude::Queryable;
use oracle::waits::{answer_on_a_thread, assert_kill_query_ends_the_wait, assert_times_out, two_sessions};
use oracle::{answer, assert_same, Answer, MariaDb, Quire};

#[test]
fn the_holders_statements_answer_as_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("lt_holder");
    let mut mc = MariaDb::get().fresh_db("lt_holder");
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(10))",
            "CREATE TABLE u (a INT)",
            "INSERT INTO t VALUES (1, 'a'), (2, NULL)",
            "INSERT INTO u VALUES (7)",
            // mariadb-dump's form.
            "LOCK TABLES `t` READ /*!32311 LOCAL */,`u` READ /*!32311 LOCAL */",
            "SELECT * FROM t ORDER BY id",
            "SELECT a FROM u",
            "SELECT t.id, u.a FROM t JOIN u ORDER BY t.id",
            "INSERT INTO t VALUES (3, 'c')",
            "UPDATE u SET a = 8",
            "DELETE FROM t",
            "LOCK TABLES t READ",
            "SELECT * FROM u",
            "SELECT * FROM t AS x",
            "TRUNCATE u",
            "LOCK TABLES t AS x WRITE, u READ",
            "SELECT * FROM t",
            "UPDATE t AS x SET s = 'b' WHERE id = 2",
            "SELECT x.id, x.s FROM t x ORDER BY x.id",
            "INSERT INTO u VALUES (9)",
            "LOCK TABLES t WRITE",
            "INSERT INTO t VALUES (3, 'c')",
            "DELETE FROM t WHERE id = 1",
            "SELECT * FROM t ORDER BY id",
            "INSERT INTO t SELECT a, 'u' FROM u",
            "LOCK TABLES nosuch READ",
            // The failed LOCK TABLES released the earlier locks.
            "SELECT a FROM u",
            "LOCK TABLES u READ",
            "START TRANSACTION",
            "SELECT * FROM t ORDER BY id",
            "COMMIT",
            "LOCK TABLES u LOW_PRIORITY WRITE",
            "INSERT INTO u VALUES (10)",
            "UNLOCK TABLES",
            "SELECT * FROM t ORDER BY id",
            "UNLOCK TABLES",
        ],
    );
}

#[test]
fn a_read_lock_lets_others_read_and_makes_their_writes_wait() {
    let q = Quire::start(&[]);
    let (mut a, mut b) = two_sessions(
        &q,
        "lt_read",
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, v INT)",
            "CREATE TABLE other (id INT PRIMARY KEY)",
            "INSERT INTO t VALUES (1, 10)",
        ],
    );
    a.query_drop("LOCK TABLES t READ").unwrap();
    assert_eq!(answer(&mut b, "SELECT v FROM t"), Answer::Rows(vec![vec![Some("10".into())]]));
    // A second reader may lock it too.
    b.query_drop("LOCK TABLES t READ").unwrap();
    b.query_drop("UNLOCK TABLES").unwrap();
    assert_times_out(&mut b, "UPDATE t SET v = 11");
    assert_eq!(answer(&mut b, "LOCK TABLES t WRITE"), Answer::Err(1205));
    assert!(matches!(answer(&mut b, "INSERT INTO other VALUES (1)"), Answer::Ok { affected: 1, .. }));
    // The waiter goes on when the holder unlocks.
    b.query_drop("SET SESSION lock_wait_timeout = 30").unwrap();
    let waiter = answer_on_a_thread(b, "UPDATE t SET v = 12");
    std::thread::sleep(Duration::from_millis(400));
    a.query_drop("UNLOCK TABLES").unwrap();
    let (r, waited, _) = waiter.join().unwrap();
    assert!(matches!(r, Answer::Ok { affected: 1, .. }), "{r:?}");
    assert!(waited >= Duration::from_millis(300), "waited {waited:?}");
    assert_eq!(answer(&mut a, "SELECT v FROM t"), Answer::Rows(vec![vec![Some("12".into())]]));
}

#[test]
fn a_write_lock_makes_others_reads_wait_until_unlock_or_disconnect() {
    let q = Quire::start(&[]);
    let (mut a, mut b) =
        two_sessions(&q, "lt_write", &["CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10)"]);
    a.query_drop("LOCK TABLES t WRITE").unwrap();
    a.query_drop("UPDATE t SET v = 20").unwrap();
    assert_eq!(answer(&mut b, "SELECT v FROM t"), Answer::Err(1205));
    assert_eq!(answer(&mut b, "LOCK TABLES t READ"), Answer::Err(1205));
    assert_eq!(answer(&mut b, "ALTER TABLE t ADD COLUMN w INT"), Answer::Err(1205));
    // START TRANSACTION releases the holder's locks (MySQL's implicit unlock).
    a.query_drop("START TRANSACTION").unwrap();
    assert_eq!(answer(&mut b, "SELECT v FROM t"), Answer::Rows(vec![vec![Some("20".into())]]));
    a.query_drop("COMMIT").unwrap();
    // A disconnect releases them too.
    a.query_drop("LOCK TABLES t WRITE").unwrap();
    b.query_drop("SET SESSION lock_wait_timeout = 30").unwrap();
    let waiter = answer_on_a_thread(b, "SELECT v FROM t");
    std::thread::sleep(Duration::from_millis(400));
    drop(a);
    let (r, waited, _) = waiter.join().unwrap();
    assert_eq!(r, Answer::Rows(vec![vec![Some("20".into())]]));
    assert!(waited >= Duration::from_millis(300) && waited < Duration::from_secs(20), "waited {waited:?}");
}

#[test]
fn kill_query_ends_a_table_lock_wait() {
    let q = Quire::start(&[]);
    let (mut a, b) = two_sessions(&q, "lt_kill", &["CREATE TABLE t (id INT PRIMARY KEY)"]);
    a.query_drop("LOCK TABLES t WRITE").unwrap();
    assert_kill_query_ends_the_wait(&q, b, "SELECT * FROM t");
}
