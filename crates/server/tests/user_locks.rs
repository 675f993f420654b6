//! GET_LOCK / RELEASE_LOCK / RELEASE_ALL_LOCKS / IS_FREE_LOCK /
//! IS_USED_LOCK: the values of one session against the MariaDB the
//! harness starts (re-entrant counts, NULL and empty names, exact-case
//! names), then two sessions on quire: a holder makes another wait until
//! it releases, a timeout answers 0, a negative timeout waits forever (as
//! MySQL 8.0), KILL QUERY ends a wait with 1317, and a disconnect frees
//! the session's locks.

mod oracle;

use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use oracle::{answer, assert_same, Answer, MariaDb, Quire};

#[test]
fn user_lock_values_match_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("ul_values");
    let mut mc = MariaDb::get().fresh_db("ul_values");
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "SELECT GET_LOCK('a', 0), GET_LOCK('a', 0), IS_USED_LOCK('a') = CONNECTION_ID(), IS_FREE_LOCK('a')",
            "SELECT IS_FREE_LOCK('nobody'), IS_USED_LOCK('nobody')",
            "SELECT RELEASE_LOCK('a'), IS_FREE_LOCK('a'), RELEASE_LOCK('a'), IS_FREE_LOCK('a'), RELEASE_LOCK('a')",
            // Names compare exactly (MariaDB's rule).
            "SELECT GET_LOCK('b', 0), GET_LOCK('B', 0), GET_LOCK('c', 0), GET_LOCK('c', 0)",
            "SELECT RELEASE_ALL_LOCKS(), RELEASE_ALL_LOCKS()",
            "SELECT GET_LOCK(NULL, 0), GET_LOCK('', 0), GET_LOCK('n', NULL), RELEASE_LOCK('n')",
            "SELECT IS_FREE_LOCK(NULL), IS_USED_LOCK(NULL), RELEASE_LOCK(NULL)",
            "SELECT GET_LOCK('a')",
        ],
    );
}

fn one(c: &mut mysql::Conn, sql: &str) -> Option<i64> {
    c.query_first::<Option<i64>, _>(sql).unwrap().flatten()
}

#[test]
fn a_held_lock_makes_others_wait_until_released_or_their_timeout() {
    let q = Quire::start(&[]);
    let mut a = q.connect(None);
    let mut b = q.connect(None);
    let a_id = one(&mut a, "SELECT CONNECTION_ID()").unwrap();
    assert_eq!(one(&mut a, "SELECT GET_LOCK('job', 10)"), Some(1));
    assert_eq!(one(&mut b, "SELECT IS_USED_LOCK('job')"), Some(a_id));
    assert_eq!(one(&mut b, "SELECT RELEASE_LOCK('job')"), Some(0), "not b's to release");
    let t = Instant::now();
    assert_eq!(one(&mut b, "SELECT GET_LOCK('job', 0.3)"), Some(0));
    assert!(t.elapsed() >= Duration::from_millis(250), "waited {:?}", t.elapsed());
    // A waiter gets the lock when the holder releases it.
    let waiter = std::thread::spawn(move || {
        let t = Instant::now();
        let got = one(&mut b, "SELECT GET_LOCK('job', -1)");
        (got, t.elapsed(), b)
    });
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(one(&mut a, "SELECT RELEASE_LOCK('job')"), Some(1));
    let (got, waited, mut b) = waiter.join().unwrap();
    assert_eq!(got, Some(1));
    assert!(waited >= Duration::from_millis(300), "waited {waited:?}");
    assert_eq!(one(&mut a, "SELECT GET_LOCK('job', 0)"), Some(0));
    // Disconnecting frees b's locks.
    assert_eq!(one(&mut b, "SELECT GET_LOCK('other', 0)"), Some(1));
    drop(b);
    let t = Instant::now();
    assert_eq!(one(&mut a, "SELECT GET_LOCK('job', 5)"), Some(1));
    assert_eq!(one(&mut a, "SELECT GET_LOCK('other', 5)"), Some(1));
    assert!(t.elapsed() < Duration::from_secs(3));
}

#[test]
fn kill_query_ends_a_get_lock_wait() {
    let q = Quire::start(&[]);
    let mut a = q.connect(None);
    let mut b = q.connect(None);
    let b_id = one(&mut b, "SELECT CONNECTION_ID()").unwrap();
    assert_eq!(one(&mut a, "SELECT GET_LOCK('k', 0)"), Some(1));
    let waiter = std::thread::spawn(move || {
        let t = Instant::now();
        let r = answer(&mut b, "SELECT GET_LOCK('k', 60)");
        (r, t.elapsed())
    });
    std::thread::sleep(Duration::from_millis(300));
    a.query_drop(format!("KILL QUERY {b_id}")).unwrap();
    let (r, waited) = waiter.join().unwrap();
    assert_eq!(r, Answer::Err(1317));
    assert!(waited < Duration::from_secs(5), "waited {waited:?}");
}
