//! SELECT ... FOR UPDATE / FOR SHARE / LOCK IN SHARE MODE with NOWAIT and
//! SKIP LOCKED, two sessions on quire: NOWAIT fails at once with MySQL
//! 8.0's 3572 (MariaDB 10.11 answers 1205) and undoes only the statement;
//! SKIP LOCKED returns the rows nobody else holds, through the primary key
//! (range and point) and a secondary index; shared locks do not block a
//! FOR SHARE NOWAIT; without either the read waits as before.

mod oracle;

use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use oracle::{answer, Answer, Quire};

fn ids(c: &mut mysql::Conn, sql: &str) -> Vec<i64> {
    c.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

#[test]
fn nowait_fails_at_once_and_skip_locked_skips_the_rows_others_hold() {
    let q = Quire::start(&[("innodb_lock_wait_timeout", "3")]);
    let mut a = q.fresh_db("lrm");
    a.query_drop("CREATE TABLE t (id INT PRIMARY KEY, k INT, KEY (k))").unwrap();
    a.query_drop("INSERT INTO t VALUES (1, 10), (2, 20), (3, 30), (4, 40)").unwrap();
    let mut b = q.connect(Some("lrm"));
    a.query_drop("BEGIN").unwrap();
    assert_eq!(ids(&mut a, "SELECT id FROM t WHERE id IN (2, 3) FOR UPDATE"), vec![2, 3]);

    b.query_drop("BEGIN").unwrap();
    b.query_drop("INSERT INTO t VALUES (9, 90)").unwrap();
    for sql in [
        "SELECT id FROM t FOR UPDATE NOWAIT",
        "SELECT id FROM t WHERE id = 2 FOR UPDATE NOWAIT",
        "SELECT id FROM t WHERE id = 3 FOR SHARE NOWAIT",
        "SELECT id FROM t WHERE k >= 20 LOCK IN SHARE MODE NOWAIT",
        "SELECT t.id FROM t JOIN t AS u ON u.id = t.id FOR UPDATE NOWAIT",
    ] {
        let start = Instant::now();
        assert_eq!(answer(&mut b, sql), Answer::Err(3572), "{sql}");
        assert!(start.elapsed() < Duration::from_secs(1), "{sql} waited {:?}", start.elapsed());
    }
    // Only the statement failed: b's transaction and its insert go on.
    assert_eq!(ids(&mut b, "SELECT id FROM t WHERE id = 9"), vec![9]);
    assert_eq!(ids(&mut b, "SELECT id FROM t WHERE id = 1 FOR UPDATE NOWAIT"), vec![1]);

    assert_eq!(ids(&mut b, "SELECT id FROM t FOR UPDATE SKIP LOCKED"), vec![1, 4, 9]);
    assert_eq!(ids(&mut b, "SELECT id FROM t WHERE id = 3 FOR UPDATE SKIP LOCKED"), Vec::<i64>::new());
    assert_eq!(ids(&mut b, "SELECT id FROM t WHERE k BETWEEN 10 AND 40 FOR SHARE SKIP LOCKED"), vec![1, 4]);
    assert_eq!(ids(&mut b, "SELECT id FROM t ORDER BY id DESC LIMIT 1 FOR UPDATE SKIP LOCKED"), vec![9]);
    b.query_drop("COMMIT").unwrap();

    // Shared locks: FOR SHARE NOWAIT passes another's FOR SHARE.
    a.query_drop("COMMIT").unwrap();
    a.query_drop("BEGIN").unwrap();
    assert_eq!(ids(&mut a, "SELECT id FROM t WHERE id = 4 FOR SHARE"), vec![4]);
    assert_eq!(ids(&mut b, "SELECT id FROM t WHERE id = 4 FOR SHARE NOWAIT"), vec![4]);
    assert_eq!(answer(&mut b, "SELECT id FROM t WHERE id = 4 FOR UPDATE NOWAIT"), Answer::Err(3572));
    // Without NOWAIT the same read waits (here until the timeout).
    let start = Instant::now();
    assert_eq!(answer(&mut b, "SELECT id FROM t WHERE id = 4 FOR UPDATE"), Answer::Err(1205));
    assert!(start.elapsed() >= Duration::from_secs(2));
    a.query_drop("COMMIT").unwrap();
    assert_eq!(ids(&mut b, "SELECT id FROM t WHERE id = 4 FOR UPDATE NOWAIT"), vec![4]);
}
