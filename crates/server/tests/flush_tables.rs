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

fn timeout_1s(c: &mut mysql::Conn) {
    c.query_drop("SET SESSION lock_wait_timeout = 1").unwrap();
}

#[test]
fn the_global_read_lock_makes_other_sessions_writes_wait() {
    let q = Quire::start(&[]);
    let mut a = q.fresh_db("ftwrl_wait");
    a.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v INT)").unwrap();
    a.query_drop("INSERT INTO t VALUES (1, 10)").unwrap();
    let mut b = q.connect(Some("ftwrl_wait"));
    timeout_1s(&mut b);
    a.query_drop("FLUSH TABLES WITH READ LOCK").unwrap();
    assert_eq!(answer(&mut b, "SELECT v FROM t"), Answer::Rows(vec![vec![Some("10".into())]]));
    let t = Instant::now();
    assert_eq!(answer(&mut b, "UPDATE t SET v = 11"), Answer::Err(1205));
    assert!(t.elapsed() >= Duration::from_millis(900), "waited {:?}", t.elapsed());
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
    let waiter = std::thread::spawn(move || {
        let t = Instant::now();
        let r = answer(&mut b, "UPDATE t SET v = 12");
        (r, t.elapsed(), b)
    });
    std::thread::sleep(Duration::from_millis(400));
    a.query_drop("UNLOCK TABLES").unwrap();
    let (r, waited, mut b) = waiter.join().unwrap();
    assert!(matches!(r, Answer::Ok { affected: 1, .. }), "{r:?}");
    assert!(waited >= Duration::from_millis(300), "waited {waited:?}");
    // ... and at the holder's disconnect.
    a.query_drop("FLUSH TABLES WITH READ LOCK").unwrap();
    let waiter = std::thread::spawn(move || answer(&mut b, "DELETE FROM t WHERE id = 1"));
    std::thread::sleep(Duration::from_millis(400));
    drop(a);
    assert!(matches!(waiter.join().unwrap(), Answer::Ok { affected: 1, .. }));
}

#[test]
fn kill_query_ends_a_wait_for_the_global_read_lock() {
    let q = Quire::start(&[]);
    let mut a = q.fresh_db("ftwrl_kill");
    a.query_drop("CREATE TABLE t (id INT PRIMARY KEY)").unwrap();
    let mut b = q.connect(Some("ftwrl_kill"));
    let b_id: u64 = b.query_first("SELECT CONNECTION_ID()").unwrap().unwrap();
    a.query_drop("FLUSH TABLES WITH READ LOCK").unwrap();
    let waiter = std::thread::spawn(move || {
        let t = Instant::now();
        let r = answer(&mut b, "INSERT INTO t VALUES (1)");
        (r, t.elapsed())
    });
    std::thread::sleep(Duration::from_millis(300));
    let mut killer = q.connect(None);
    killer.query_drop(format!("KILL QUERY {b_id}")).unwrap();
    let (r, waited) = waiter.join().unwrap();
    assert_eq!(r, Answer::Err(1317));
    assert!(waited < Duration::from_secs(5), "waited {waited:?}");
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
