//! SHOW ENGINE INNODB STATUS: InnoDB's sections in InnoDB's order, with
//! quire's live figures — a transaction waiting for a row lock is listed
//! with its connection, its statement and the transaction holding the
//! lock; the buffer pool's size is the configured one; a user without the
//! global grant (MySQL: PROCESS) is refused with 1227.

mod oracle;

use std::time::Duration;

use mysql::prelude::Queryable;
use oracle::Quire;

fn report(c: &mut mysql::Conn) -> String {
    let row: (String, String, String) = c.query_first("SHOW ENGINE INNODB STATUS").unwrap().unwrap();
    assert_eq!((row.0.as_str(), row.1.as_str()), ("InnoDB", ""));
    row.2
}

#[test]
fn the_report_lists_a_lock_wait_with_its_holder_and_the_pool_as_configured() {
    let q = Quire::start(&[("innodb_lock_wait_timeout", "20")]);
    let mut a = q.fresh_db("is_report");
    a.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v INT)").unwrap();
    a.query_drop("INSERT INTO t VALUES (1, 0), (2, 0)").unwrap();
    a.query_drop("BEGIN").unwrap();
    a.query_drop("UPDATE t SET v = 1 WHERE id = 1").unwrap();
    let a_id: u32 = a.query_first("SELECT CONNECTION_ID()").unwrap().unwrap();
    let mut b = q.connect(Some("is_report"));
    let b_id: u32 = b.query_first("SELECT CONNECTION_ID()").unwrap().unwrap();
    let waiter = std::thread::spawn(move || b.query_drop("UPDATE t SET v = 2 WHERE id = 1"));
    let mut probe = q.connect(None);
    let text = loop {
        let text = report(&mut probe);
        if text.contains("LOCK WAIT") {
            break text;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let order = [
        "INNODB MONITOR OUTPUT",
        "\nSEMAPHORES\n",
        "\nTRANSACTIONS\n",
        "\nFILE I/O\n",
        "\nLOG\n",
        "\nBUFFER POOL AND MEMORY\n",
        "\nROW OPERATIONS\n",
        "END OF INNODB MONITOR OUTPUT",
    ];
    let at: Vec<usize> = order.iter().map(|s| text.find(s).unwrap_or_else(|| panic!("{s} in:\n{text}"))).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "sections in InnoDB's order:\n{text}");
    // The waiting transaction: its connection and statement, the lock,
    // and the holder, which is a's transaction (listed as a's).
    let waiting = text.split("---TRANSACTION ").find(|t| t.contains("LOCK WAIT")).unwrap();
    assert!(waiting.contains(&format!("MySQL thread id {b_id},")), "{waiting}");
    assert!(waiting.contains("UPDATE t SET v = 2 WHERE id = 1"), "{waiting}");
    assert!(waiting.contains("lock_mode X locks rec but not gap waiting"), "{waiting}");
    let holder = waiting.split("held by trx id ").nth(1).unwrap().lines().next().unwrap().trim().to_string();
    let holding = text.split("---TRANSACTION ").find(|t| t.starts_with(&format!("{holder},"))).unwrap();
    assert!(holding.contains(&format!("MySQL thread id {a_id},")), "{holding}");
    assert!(text.contains("Log sequence number "), "{text}");
    // 32 MiB of 4 KiB pages (the harness's settings).
    assert!(text.contains("Buffer pool size   8192\n"), "{text}");
    assert!(text.contains("0 queries inside InnoDB, 0 queries in queue"), "{text}");
    a.query_drop("COMMIT").unwrap();
    waiter.join().unwrap().unwrap();
    let after = report(&mut probe);
    assert!(!after.contains("LOCK WAIT"), "{after}");
}

#[test]
fn a_user_without_the_global_grant_is_refused() {
    let q = Quire::start(&[]);
    let mut root = q.connect(None);
    root.query_drop("CREATE USER 'plain' IDENTIFIED BY 'pw'").unwrap();
    let opts = q.opts(None).user(Some("plain")).pass(Some("pw"));
    let mut plain = mysql::Conn::new(opts).unwrap();
    match plain.query_drop("SHOW ENGINE INNODB STATUS") {
        Err(mysql::Error::MySqlError(e)) => assert_eq!(e.code, 1227),
        other => panic!("expected 1227, got {other:?}"),
    }
}
