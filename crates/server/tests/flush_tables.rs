//! FLUSH TABLES [t, ...] [WITH READ LOCK]: the holder's statements
//! compared with the MariaDB the harness starts (its own writes 1223,
//! reads allowed, FLUSH TABLES t WITH READ LOCK acting as LOCK TABLES t
//! READ, 1192 under LOCK TABLES), then two sessions on quire: the global
//! read lock makes other sessions' writes and DDL wait while their reads
//! go on, `lock_wait_timeout` ends a wait with 1205, KILL QUERY with
//! 1317, UNLOCK TABLES or a disconnect lets them through, and taking the
//! lock waits for a statement already running.

mod oracle;

use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use oracle::waits::{answer_on_a_thread, assert_kill_query_ends_the_wait, assert_times_out, two_sessions};
use oracle::{answer, assert_same, Answer, MariaDb, Quire};

#[test]
fn the_holders_statements_answer_as_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("ftwrl_holder");
    let mut mc = MariaDb::get().fresh_db("ftwrl_holder");
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT PRIMARY KEY)",
            "CREATE TABLE u (a INT)",
            "FLUSH TABLES",
            "FLUSH TABLES t, u",
            "FLUSH /*!40101 LOCAL */ TABLES",
            "FLUSH TABLES WITH READ LOCK",
            "SELECT * FROM t",
            "INSERT INTO t VALUES (1)",
            "UPDATE u SET a = 1",
            "CREATE TABLE x (a INT)",
            "DROP TABLE u",
            "ALTER TABLE t ADD COLUMN b INT",
            "FLUSH TABLES WITH READ LOCK",
            "UNLOCK TABLES",
            "INSERT INTO t VALUES (1)",
            "FLUSH TABLES t WITH READ LOCK",
            "SELECT * FROM t",
            "SELECT * FROM u",
            "INSERT INTO t VALUES (2)",
            "UNLOCK TABLES",
            "LOCK TABLES t READ",
            "FLUSH TABLES WITH READ LOCK",
            "UNLOCK TABLES",
            "SELECT * FROM t",
        ],
    );
}

#[test]
fn the_global_read_lock_makes_other_sessions_writes_wait() {
    let q = Quire::start(&[]);
    let (mut a, mut b) =
        two_sessions(&q, "ftwrl_wait", &["CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10)"]);
    a.query_drop("FLUSH TABLES WITH READ LOCK").unwrap();
    assert_eq!(answer(&mut b, "SELECT v FROM t"), Answer::Rows(vec![vec![Some("10".into())]]));
    assert_times_out(&mut b, "UPDATE t SET v = 11");
    assert_eq!(answer(&mut b, "INSERT INTO t VALUES (2, 20)"), Answer::Err(1205));
    assert_eq!(answer(&mut b, "CREATE TABLE n (a INT)"), Answer::Err(1205));
    assert_eq!(answer(&mut b, "CREATE DATABASE ftwrl_other"), Answer::Err(1205));
    assert_eq!(answer(&mut b, "LOCK TABLES t WRITE"), Answer::Err(1205));
    // A second session may take it too (it is shared).
    b.query_drop("FLUSH TABLES WITH READ LOCK").unwrap();
    b.query_drop("UNLOCK TABLES").unwrap();
    // Temporary tables are the session's own: writable.
    b.query_drop("CREATE TEMPORARY TABLE scratch (a INT)").unwrap();
    b.query_drop("INSERT INTO scratch VALUES (1)").unwrap();
    // The waiter goes on at UNLOCK TABLES.
    b.query_drop("SET SESSION lock_wait_timeout = 30").unwrap();
    let waiter = answer_on_a_thread(b, "UPDATE t SET v = 12");
    std::thread::sleep(Duration::from_millis(400));
    a.query_drop("UNLOCK TABLES").unwrap();
    let (r, waited, b) = waiter.join().unwrap();
    assert!(matches!(r, Answer::Ok { affected: 1, .. }), "{r:?}");
    assert!(waited >= Duration::from_millis(300), "waited {waited:?}");
    // ... and at the holder's disconnect.
    a.query_drop("FLUSH TABLES WITH READ LOCK").unwrap();
    let waiter = answer_on_a_thread(b, "DELETE FROM t WHERE id = 1");
    std::thread::sleep(Duration::from_millis(400));
    drop(a);
    assert!(matches!(waiter.join().unwrap().0, Answer::Ok { affected: 1, .. }));
}

#[test]
fn kill_query_ends_a_wait_for_the_global_read_lock() {
    let q = Quire::start(&[]);
    let (mut a, b) = two_sessions(&q, "ftwrl_kill", &["CREATE TABLE t (id INT PRIMARY KEY)"]);
    a.query_drop("FLUSH TABLES WITH READ LOCK").unwrap();
    assert_kill_query_ends_the_wait(&q, b, "INSERT INTO t VALUES (1)");
}

#[test]
fn taking_the_lock_waits_for_a_running_statement() {
    let q = Quire::start(&[]);
    let mut a = q.fresh_db("ftwrl_running");
    a.query_drop("CREATE TABLE t (id INT PRIMARY KEY)").unwrap();
    let mut b = q.connect(Some("ftwrl_running"));
    // A write that is running (sleeping inside its statement).
    let writer = std::thread::spawn(move || answer(&mut b, "INSERT INTO t SELECT SLEEP(1) + 1"));
    std::thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    a.query_drop("FLUSH TABLES WITH READ LOCK").unwrap();
    let waited = t.elapsed();
    assert!(matches!(writer.join().unwrap(), Answer::Ok { affected: 1, .. }));
    assert!(waited >= Duration::from_millis(500), "FTWRL returned after {waited:?}, before the write ended");
    // And gives up after lock_wait_timeout when the statement outlasts it.
    a.query_drop("UNLOCK TABLES").unwrap();
    let mut c = q.connect(Some("ftwrl_running"));
    let slow = std::thread::spawn(move || answer(&mut c, "INSERT INTO t SELECT SLEEP(3) + 2"));
    std::thread::sleep(Duration::from_millis(300));
    a.query_drop("SET SESSION lock_wait_timeout = 1").unwrap();
    assert_eq!(answer(&mut a, "FLUSH TABLES WITH READ LOCK"), Answer::Err(1205));
    assert!(matches!(slow.join().unwrap(), Answer::Ok { affected: 1, .. }), "the lock was given back");
}

/// MySQL's commit lock: a transaction with changes made before another
/// session's FLUSH TABLES WITH READ LOCK cannot COMMIT until it is
/// released; out of `lock_wait_timeout` the COMMIT fails with 1205 and the
/// transaction is rolled back (MariaDB 10.11 does both). A read-only
/// transaction commits at once, and a second session's FTWRL does not wait
/// for the held-back COMMIT.
#[test]
fn a_commit_of_earlier_changes_waits_for_the_global_read_lock() {
    let q = Quire::start(&[]);
    let (mut a, mut b) = two_sessions(&q, "ftwrl_commit", &["CREATE TABLE t (id INT PRIMARY KEY)"]);
    let count = |c: &mut mysql::Conn| answer(c, "SELECT COUNT(*) FROM t");
    let rows = |n: &str| Answer::Rows(vec![vec![Some(n.into())]]);
    b.query_drop("BEGIN").unwrap();
    b.query_drop("INSERT INTO t VALUES (1)").unwrap();
    a.query_drop("FLUSH TABLES WITH READ LOCK").unwrap();
    assert_times_out(&mut b, "COMMIT");
    assert_eq!(count(&mut b), rows("0"), "the timed-out COMMIT rolled back");
    // A read-only transaction is not held back.
    b.query_drop("BEGIN").unwrap();
    assert_eq!(count(&mut b), rows("0"));
    b.query_drop("COMMIT").unwrap();
    a.query_drop("UNLOCK TABLES").unwrap();

    b.query_drop("BEGIN").unwrap();
    b.query_drop("INSERT INTO t VALUES (2)").unwrap();
    b.query_drop("SET SESSION lock_wait_timeout = 30").unwrap();
    a.query_drop("FLUSH TABLES WITH READ LOCK").unwrap();
    let waiter = answer_on_a_thread(b, "COMMIT");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(count(&mut a), rows("0"), "not committed while the lock is held");
    // Another session can take the shared lock meanwhile.
    let mut c = q.connect(Some("ftwrl_commit"));
    c.query_drop("SET SESSION lock_wait_timeout = 1").unwrap();
    c.query_drop("FLUSH TABLES WITH READ LOCK").unwrap();
    c.query_drop("UNLOCK TABLES").unwrap();
    a.query_drop("UNLOCK TABLES").unwrap();
    let (r, waited, _) = waiter.join().unwrap();
    assert!(matches!(r, Answer::Ok { .. }), "{r:?}");
    assert!(waited >= Duration::from_millis(250), "waited {waited:?}");
    assert_eq!(count(&mut a), rows("1"));
}
