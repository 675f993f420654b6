//! `innodb_thread_concurrency` and `innodb_concurrency_tickets`: with a
//! limit, statements queue for seats (counted in the status), no more
//! than the limit work at once, a statement waiting for a row lock lends
//! its seat (so the lock's owner can finish: no deadlock between seats and
//! row locks), and the limit changes at runtime. Row-lock waits are
//! counted in `Innodb_row_lock_*`.

mod oracle;

use std::time::Duration;

use mysql::prelude::Queryable;
use oracle::Quire;

fn status(c: &mut mysql::Conn, name: &str) -> u64 {
    let row: Option<(String, String)> = c.query_first(format!("SHOW GLOBAL STATUS LIKE '{name}'")).unwrap();
    row.unwrap_or_else(|| panic!("no status {name}")).1.parse().unwrap()
}

fn table_of(c: &mut mysql::Conn, rows: usize) {
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v INT)").unwrap();
    let values: Vec<String> = (1..=rows).map(|i| format!("({i}, 0)")).collect();
    c.query_drop(format!("INSERT INTO t VALUES {}", values.join(","))).unwrap();
}

#[test]
fn a_row_lock_wait_lends_its_seat_to_the_lock_owner() {
    let q = Quire::start(&[("innodb_lock_wait_timeout", "20")]);
    let mut a = q.fresh_db("tc_lock");
    table_of(&mut a, 100);
    a.query_drop("SET GLOBAL innodb_thread_concurrency = 1").unwrap();
    a.query_drop("BEGIN").unwrap();
    a.query_drop("UPDATE t SET v = 1 WHERE id = 1").unwrap();
    let mut b = q.connect(Some("tc_lock"));
    let waiter = std::thread::spawn(move || {
        let r = b.query_drop("UPDATE t SET v = 2 WHERE id = 1");
        (r, b)
    });
    let mut probe = q.connect(None);
    while status(&mut probe, "Innodb_row_lock_current_waits") == 0 {
        std::thread::sleep(Duration::from_millis(10));
    }
    // b waits for a's row lock. Had b kept the only seat, a would queue
    // for it behind b until b's lock wait timed out (1205).
    let sum: Option<i64> = a.query_first("SELECT SUM(v) FROM t").unwrap();
    assert_eq!(sum, Some(1));
    a.query_drop("COMMIT").unwrap();
    let (r, mut b) = waiter.join().unwrap();
    r.expect("b's update waits for the lock, then runs: no 1205");
    let v: Option<i64> = b.query_first("SELECT v FROM t WHERE id = 1").unwrap();
    assert_eq!(v, Some(2));
    assert_eq!(status(&mut probe, "Innodb_row_lock_waits"), 1);
    assert_eq!(status(&mut probe, "Innodb_row_lock_current_waits"), 0);
    assert_eq!(status(&mut probe, "Innodb_threads_inside"), 0, "every seat given back");
}

/// Two scans at once with one seat and one ticket per seat: each row
/// re-queues, so the scans take turns (waits counted, never two inside);
/// with no limit nobody waits.
#[test]
fn a_limit_makes_statements_take_turns_and_no_limit_admits_all() {
    let q = Quire::start(&[("innodb_thread_concurrency", "1"), ("innodb_concurrency_tickets", "1")]);
    let mut a = q.fresh_db("tc_turns");
    table_of(&mut a, 2000);
    let v: Option<u64> = a.query_first("SELECT @@global.innodb_thread_concurrency").unwrap();
    assert_eq!(v, Some(1), "the startup setting");
    let scans = |q: &Quire| {
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let mut c = q.connect(Some("tc_turns"));
                std::thread::spawn(move || {
                    for _ in 0..3 {
                        let n: Option<i64> = c.query_first("SELECT COUNT(*) FROM t WHERE v = 0").unwrap();
                        assert_eq!(n, Some(2000));
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
    };
    // Until the two overlap (a busy machine may run them one after the
    // other for a while).
    for _ in 0..50 {
        scans(&q);
        if status(&mut a, "Innodb_thread_concurrency_waits") > 0 {
            break;
        }
    }
    let waits = status(&mut a, "Innodb_thread_concurrency_waits");
    assert!(waits > 0, "two scans through one seat wait for it");
    assert_eq!(status(&mut a, "Innodb_threads_inside_max"), 1);
    assert_eq!(status(&mut a, "Innodb_threads_inside"), 0);
    assert_eq!(status(&mut a, "Innodb_threads_queued"), 0);
    a.query_drop("SET GLOBAL innodb_thread_concurrency = 0").unwrap();
    scans(&q);
    assert_eq!(status(&mut a, "Innodb_thread_concurrency_waits"), waits, "no limit: nobody queues");
}
