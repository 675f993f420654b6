//! Two sessions of one quire, for the tests of statements that wait for
//! another session's lock (LOCK TABLES, FLUSH TABLES WITH READ LOCK): the
//! second session times out after one second, a statement can run on a
//! thread of its own while the test acts in the first session, and a wait
//! can be ended with KILL QUERY from a third.

use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use mysql::Conn;

use super::{answer, Answer, Quire};

/// A fresh database `db` with `setup` run in it, and two sessions on it;
/// the second waits at most one second for a lock (`lock_wait_timeout`).
pub fn two_sessions(q: &Quire, db: &str, setup: &[&str]) -> (Conn, Conn) {
    let mut a = q.fresh_db(db);
    for sql in setup {
        a.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let mut b = q.connect(Some(db));
    b.query_drop("SET SESSION lock_wait_timeout = 1").unwrap();
    (a, b)
}

/// `sql` fails with 1205 (lock wait timeout) after waiting out the
/// session's one-second `lock_wait_timeout`.
pub fn assert_times_out(c: &mut Conn, sql: &str) {
    let t = Instant::now();
    assert_eq!(answer(c, sql), Answer::Err(1205), "{sql}");
    assert!(t.elapsed() >= Duration::from_millis(900), "{sql}: gave up after {:?}", t.elapsed());
}

/// Runs `sql` on `c` on a thread of its own; joining gives its answer,
/// how long it took, and the connection back.
pub fn answer_on_a_thread(mut c: Conn, sql: &str) -> JoinHandle<(Answer, Duration, Conn)> {
    let sql = sql.to_owned();
    let (ready, started) = std::sync::mpsc::sync_channel(1);
    let h = std::thread::spawn(move || {
        let _ = ready.send(());
        let t = Instant::now();
        let r = answer(&mut c, &sql);
        (r, t.elapsed(), c)
    });
    // Returns once the thread runs, so that a caller's sleep is time the
    // statement spends waiting, not waiting to be scheduled (a busy
    // machine delayed a thread's start by over 200 ms).
    let _ = started.recv();
    h
}

/// `sql` on `c` waits (for a lock another session holds) until KILL
/// QUERY from another session ends it with 1317, well before any timeout.
pub fn assert_kill_query_ends_the_wait(q: &Quire, mut c: Conn, sql: &str) {
    let id: u64 = c.query_first("SELECT CONNECTION_ID()").unwrap().unwrap();
    let waiter = answer_on_a_thread(c, sql);
    std::thread::sleep(Duration::from_millis(300));
    q.connect(None).query_drop(format!("KILL QUERY {id}")).unwrap();
    let (r, waited, _) = waiter.join().unwrap();
    assert_eq!(r, Answer::Err(1317), "{sql}");
    assert!(waited < Duration::from_secs(5), "{sql}: waited {waited:?}");
}
