//! The four isolation levels through the wire protocol, as multi-session
//! schedules run step by step on quire and on the MariaDB the oracle
//! harness starts: every step must answer the same on both (rows, OKs,
//! error codes, and whether it blocks), and the steps that show an anomaly
//! or its absence also assert what InnoDB does.
//!
//! A `blocks` step runs on its own thread and must not answer within
//! `BLOCKED`; a later `finish` step collects its answer once the blocker
//! has ended. Sessions wait at most 1 s for a lock
//! (`innodb_lock_wait_timeout=1`), so a wait that never ends is a 1205.
//! The tests take one mutex: one of them changes MariaDB's global level,
//! which would leak into other tests' new sessions.

mod oracle;

use std::sync::mpsc;
use std::sync::Mutex;
use std::time::Duration;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{answer, Answer, MariaDb, Quire};
use quire_server::config;
use quire_server::serve::Server;

const BLOCKED: Duration = Duration::from_millis(400);
const ANSWER: Duration = Duration::from_secs(20);
const LEVELS: [&str; 4] = ["READ UNCOMMITTED", "READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"];

static SERIAL: Mutex<()> = Mutex::new(());

/// What a step must answer (on both servers).
#[derive(Clone, Debug)]
enum Expect {
    Any,
    Rows(Vec<Vec<&'static str>>),
    Ok,
    Err(u16),
}

#[derive(Clone, Debug)]
enum Step {
    /// Run on session `s` and wait for the answer.
    Run(usize, String, Expect),
    /// Start on session `s`; it must still be waiting after `BLOCKED`.
    Blocks(usize, String),
    /// The answer of session `s`'s blocked statement.
    Finish(usize, Expect),
}

/// One step's outcome, as compared between the servers.
#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    Answer(Answer),
    Blocked,
}

fn ok(s: usize, sql: impl Into<String>) -> Step {
    Step::Run(s, sql.into(), Expect::Ok)
}

fn rows(s: usize, sql: impl Into<String>, want: &[&[&'static str]]) -> Step {
    Step::Run(s, sql.into(), Expect::Rows(want.iter().map(|r| r.to_vec()).collect()))
}

fn fails(s: usize, sql: impl Into<String>, code: u16) -> Step {
    Step::Run(s, sql.into(), Expect::Err(code))
}

fn blocks(s: usize, sql: impl Into<String>) -> Step {
    Step::Blocks(s, sql.into())
}

fn finish(s: usize, e: Expect) -> Step {
    Step::Finish(s, e)
}

/// A one-column result.
fn col(vals: &[&'static str]) -> Expect {
    Expect::Rows(vals.iter().map(|v| vec![*v]).collect())
}

fn check(e: &Expect, got: &Answer, server: &str, step: &Step) {
    let good = match (e, got) {
        (Expect::Any, _) => true,
        (Expect::Rows(want), Answer::Rows(rows)) => {
            rows.len() == want.len()
                && rows
                    .iter()
                    .zip(want)
                    .all(|(r, w)| r.len() == w.len() && r.iter().zip(w).all(|(c, w)| c.as_deref() == Some(*w)))
        }
        (Expect::Ok, Answer::Ok { .. }) => true,
        (Expect::Err(code), Answer::Err(c)) => code == c,
        _ => false,
    };
    assert!(good, "{server}: {step:?} answered {got:?}");
}

/// Runs `steps` on `sessions` connections made by `connect`.
fn play(server: &str, connect: &dyn Fn() -> Conn, sessions: usize, steps: &[Step]) -> Vec<Outcome> {
    let mut conns: Vec<Option<Conn>> = (0..sessions)
        .map(|_| {
            let mut c = connect();
            c.query_drop("SET SESSION innodb_lock_wait_timeout = 1").expect("set timeout");
            Some(c)
        })
        .collect();
    let mut pending: Vec<Option<mpsc::Receiver<(Conn, Answer)>>> = (0..sessions).map(|_| None).collect();
    let mut out = Vec::new();
    for step in steps {
        match step {
            Step::Run(s, sql, e) => {
                let c =
                    conns[*s].as_mut().unwrap_or_else(|| panic!("{server}: session {s} is still blocked: {step:?}"));
                let a = answer(c, sql);
                check(e, &a, server, step);
                out.push(Outcome::Answer(a));
            }
            Step::Blocks(s, sql) => {
                let mut c = conns[*s].take().expect("session free");
                let (tx, rx) = mpsc::channel();
                let sql = sql.clone();
                std::thread::spawn(move || {
                    let a = answer(&mut c, &sql);
                    let _ = tx.send((c, a));
                });
                match rx.recv_timeout(BLOCKED) {
                    Ok((c, a)) => {
                        conns[*s] = Some(c);
                        panic!("{server}: {step:?} did not block; it answered {a:?}");
                    }
                    Err(_) => {
                        pending[*s] = Some(rx);
                        out.push(Outcome::Blocked);
                    }
                }
            }
            Step::Finish(s, e) => {
                let rx = pending[*s].take().expect("a blocked statement");
                let (c, a) = rx.recv_timeout(ANSWER).unwrap_or_else(|_| panic!("{server}: {step:?} never answered"));
                conns[*s] = Some(c);
                check(e, &a, server, step);
                out.push(Outcome::Answer(a));
            }
        }
    }
    out
}

/// `t(id INT PRIMARY KEY, v INT, k INT, KEY(k))` holding (1,10,1) (2,20,2)
/// (3,30,3) (10,100,10), in database `db` of both servers; then the
/// schedule on each, and the outcomes compared step by step.
fn both(db: &str, sessions: usize, steps: &[Step]) {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    for mut c in [q.fresh_db(db), m.fresh_db(db)] {
        c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v INT, k INT, KEY by_k (k))").unwrap();
        c.query_drop("INSERT INTO t VALUES (1,10,1), (2,20,2), (3,30,3), (10,100,10)").unwrap();
    }
    let mo = play("MariaDB", &|| m.connect(Some(db)), sessions, steps);
    let qo = play("quire", &|| q.connect(Some(db)), sessions, steps);
    for ((step, q), m) in steps.iter().zip(&qo).zip(&mo) {
        assert_eq!(q, m, "quire and MariaDB differ on {step:?}");
    }
}

fn set_level(s: usize, level: &str) -> Step {
    ok(s, format!("SET SESSION TRANSACTION ISOLATION LEVEL {level}"))
}

#[test]
fn dirty_read_is_seen_only_at_read_uncommitted() {
    for level in LEVELS {
        let dirty = level == "READ UNCOMMITTED";
        let pick = |d: &'static [&'static str], c: &'static [&'static str]| col(if dirty { d } else { c });
        both(
            "iso_dirty",
            2,
            &[
                set_level(0, level),
                ok(1, "BEGIN"),
                ok(1, "UPDATE t SET v = 11 WHERE id = 1"),
                ok(1, "INSERT INTO t VALUES (5, 50, 5)"),
                ok(1, "DELETE FROM t WHERE id = 3"),
                ok(1, "UPDATE t SET k = 40 WHERE id = 2"),
                // Autocommit reads: also at SERIALIZABLE they lock nothing.
                Step::Run(0, "SELECT v FROM t WHERE id = 1".into(), pick(&["11"], &["10"])),
                Step::Run(
                    0,
                    "SELECT id FROM t ORDER BY id".into(),
                    pick(&["1", "2", "5", "10"], &["1", "2", "3", "10"]),
                ),
                Step::Run(
                    0,
                    "SELECT id FROM t WHERE k BETWEEN 0 AND 9 ORDER BY id".into(),
                    pick(&["1", "5"], &["1", "2", "3"]),
                ),
                Step::Run(0, "SELECT id FROM t WHERE k = 40".into(), pick(&["2"], &[])),
                Step::Run(0, "SELECT COUNT(*), SUM(v) FROM t".into(), Expect::Any),
                ok(1, "ROLLBACK"),
                rows(
                    0,
                    "SELECT id, v, k FROM t ORDER BY id",
                    &[&["1", "10", "1"], &["2", "20", "2"], &["3", "30", "3"], &["10", "100", "10"]],
                ),
            ],
        );
    }
}

#[test]
fn non_repeatable_reads_and_phantoms_only_below_repeatable_read() {
    for level in ["READ UNCOMMITTED", "READ COMMITTED", "REPEATABLE READ"] {
        let moves = level != "REPEATABLE READ";
        let pick = |d: &'static [&'static str], c: &'static [&'static str]| col(if moves { d } else { c });
        both(
            "iso_nonrepeatable",
            2,
            &[
                set_level(0, level),
                ok(0, "BEGIN"),
                rows(0, "SELECT v FROM t WHERE id = 1", &[&["10"]]),
                rows(0, "SELECT id FROM t WHERE k BETWEEN 1 AND 5 ORDER BY id", &[&["1"], &["2"], &["3"]]),
                ok(1, "UPDATE t SET v = 11 WHERE id = 1"),
                ok(1, "INSERT INTO t VALUES (4, 40, 4)"),
                ok(1, "DELETE FROM t WHERE id = 2"),
                Step::Run(0, "SELECT v FROM t WHERE id = 1".into(), pick(&["11"], &["10"])),
                Step::Run(
                    0,
                    "SELECT id FROM t WHERE k BETWEEN 1 AND 5 ORDER BY id".into(),
                    pick(&["1", "3", "4"], &["1", "2", "3"]),
                ),
                // A locking read sees the newest committed rows at any level.
                rows(0, "SELECT id FROM t WHERE id BETWEEN 1 AND 5 ORDER BY id FOR UPDATE", &[&["1"], &["3"], &["4"]]),
                ok(0, "COMMIT"),
            ],
        );
    }
}

#[test]
fn read_committed_takes_a_fresh_snapshot_after_its_own_commit_under_autocommit_off() {
    for how in ["SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", "SET SESSION tx_isolation = 'READ-COMMITTED'"]
    {
        both(
            "iso_rc_fresh",
            2,
            &[
                ok(0, how),
                ok(0, "SET autocommit = 0"),
                rows(0, "SELECT @@tx_isolation", &[&["READ-COMMITTED"]]),
                ok(0, "UPDATE t SET v = v + 1 WHERE id = 1"),
                ok(0, "COMMIT"),
                rows(0, "SELECT id, v FROM t ORDER BY id", &[&["1", "11"], &["2", "20"], &["3", "30"], &["10", "100"]]),
                ok(1, "UPDATE t SET v = v + 100"),
                // Every statement shape, the same texts again (plan cache).
                rows(
                    0,
                    "SELECT id, v FROM t ORDER BY id",
                    &[&["1", "111"], &["2", "120"], &["3", "130"], &["10", "200"]],
                ),
                rows(0, "SELECT v FROM t WHERE id = 2", &[&["120"]]),
                rows(0, "SELECT v FROM t WHERE id IN (1, 3) ORDER BY id", &[&["111"], &["130"]]),
                rows(0, "SELECT v FROM t WHERE k = 10", &[&["200"]]),
                ok(1, "UPDATE t SET v = v + 1000"),
                rows(
                    0,
                    "SELECT id, v FROM t ORDER BY id",
                    &[&["1", "1111"], &["2", "1120"], &["3", "1130"], &["10", "1200"]],
                ),
                rows(0, "SELECT v FROM t WHERE id = 2", &[&["1120"]]),
                rows(0, "SELECT v FROM t WHERE id = 7", &[]),
                rows(0, "SELECT v FROM t WHERE k = 10", &[&["1200"]]),
                ok(0, "COMMIT"),
            ],
        );
    }
}

#[test]
fn read_committed_prepared_statements_see_each_new_commit() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut seen = Vec::new();
    for (mut a, mut b) in [(q.fresh_db("iso_rc_prep"), q.connect(None)), (m.fresh_db("iso_rc_prep"), m.connect(None))] {
        a.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v INT)").unwrap();
        a.query_drop("INSERT INTO t VALUES (1, 10), (2, 20)").unwrap();
        a.query_drop("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED").unwrap();
        a.query_drop("SET autocommit = 0").unwrap();
        let point = a.prep("SELECT v FROM t WHERE id = ?").unwrap();
        let all = a.prep("SELECT SUM(v) FROM t").unwrap();
        let mut reads = Vec::new();
        for round in 1..=3 {
            b.query_drop(format!("UPDATE iso_rc_prep.t SET v = v + {round}")).unwrap();
            let v: Option<i64> = a.exec_first(&point, (2,)).unwrap();
            let s: Option<i64> = a.exec_first(&all, ()).unwrap();
            reads.push((v, s));
        }
        a.query_drop("COMMIT").unwrap();
        seen.push(reads);
    }
    assert_eq!(seen[0], [(Some(21), Some(32)), (Some(23), Some(36)), (Some(26), Some(42))], "quire");
    assert_eq!(seen[0], seen[1], "quire and MariaDB");
}

#[test]
fn serializable_plain_select_under_autocommit_off_blocks_a_writer() {
    both(
        "iso_ser_reader_first",
        2,
        &[
            set_level(0, "SERIALIZABLE"),
            ok(0, "SET autocommit = 0"),
            rows(0, "SELECT v FROM t WHERE id = 1", &[&["10"]]),
            blocks(1, "UPDATE t SET v = 11 WHERE id = 1"),
            ok(0, "COMMIT"),
            finish(1, Expect::Ok),
            // A range read locks the gaps too: no phantom can be inserted.
            rows(0, "SELECT id FROM t WHERE k BETWEEN 1 AND 5 ORDER BY id", &[&["1"], &["2"], &["3"]]),
            blocks(1, "INSERT INTO t VALUES (4, 40, 4)"),
            rows(0, "SELECT id FROM t WHERE k BETWEEN 1 AND 5 ORDER BY id", &[&["1"], &["2"], &["3"]]),
            ok(0, "COMMIT"),
            finish(1, Expect::Ok),
            // A writer that waits longer than innodb_lock_wait_timeout: 1205.
            rows(0, "SELECT v FROM t WHERE id = 3", &[&["30"]]),
            fails(1, "UPDATE t SET v = 31 WHERE id = 3", 1205),
            ok(0, "COMMIT"),
            rows(1, "SELECT v FROM t WHERE id = 3", &[&["30"]]),
        ],
    );
}

#[test]
fn serializable_plain_select_waits_for_a_writer() {
    both(
        "iso_ser_writer_first",
        2,
        &[
            set_level(0, "SERIALIZABLE"),
            ok(0, "SET autocommit = 0"),
            ok(1, "BEGIN"),
            ok(1, "UPDATE t SET v = 21 WHERE id = 2"),
            blocks(0, "SELECT v FROM t WHERE id = 2"),
            ok(1, "COMMIT"),
            finish(0, col(&["21"])),
            ok(0, "COMMIT"),
            // BEGIN under autocommit=1 makes plain reads locking too.
            ok(0, "SET autocommit = 1"),
            ok(1, "BEGIN"),
            ok(1, "UPDATE t SET v = 22 WHERE id = 2"),
            ok(0, "BEGIN"),
            blocks(0, "SELECT v FROM t WHERE id = 2"),
            ok(1, "ROLLBACK"),
            finish(0, col(&["21"])),
            ok(0, "COMMIT"),
        ],
    );
}

#[test]
fn serializable_readers_that_both_write_deadlock_and_one_gets_1213() {
    both(
        "iso_ser_deadlock",
        2,
        &[
            set_level(0, "SERIALIZABLE"),
            set_level(1, "SERIALIZABLE"),
            ok(0, "SET autocommit = 0"),
            ok(1, "SET autocommit = 0"),
            // Session 0 has written: InnoDB then picks session 1 as the victim.
            ok(0, "UPDATE t SET v = 101 WHERE id = 10"),
            rows(0, "SELECT v FROM t WHERE id = 1", &[&["10"]]),
            rows(1, "SELECT v FROM t WHERE id = 1", &[&["10"]]),
            blocks(0, "UPDATE t SET v = 11 WHERE id = 1"),
            fails(1, "UPDATE t SET v = 12 WHERE id = 1", 1213),
            finish(0, Expect::Ok),
            ok(0, "COMMIT"),
            rows(1, "SELECT v FROM t WHERE id = 1", &[&["11"]]),
            ok(1, "COMMIT"),
        ],
    );
}

#[test]
fn serializable_select_under_autocommit_is_a_consistent_read() {
    both(
        "iso_ser_autocommit",
        2,
        &[
            set_level(0, "SERIALIZABLE"),
            ok(1, "BEGIN"),
            ok(1, "UPDATE t SET v = 11 WHERE id = 1"),
            rows(0, "SELECT v FROM t WHERE id = 1", &[&["10"]]),
            rows(0, "SELECT SUM(v) FROM t", &[&["160"]]),
            ok(1, "COMMIT"),
            rows(0, "SELECT v FROM t WHERE id = 1", &[&["11"]]),
        ],
    );
}

#[test]
fn set_transaction_without_scope_applies_to_the_next_transaction_only() {
    both(
        "iso_next_trx",
        2,
        &[
            set_level(0, "REPEATABLE READ"),
            ok(1, "BEGIN"),
            ok(1, "UPDATE t SET v = 11 WHERE id = 1"),
            ok(0, "SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED"),
            rows(0, "SELECT @@tx_isolation", &[&["REPEATABLE-READ"]]),
            // The next transaction (this autocommit SELECT) reads dirty ...
            rows(0, "SELECT v FROM t WHERE id = 1", &[&["11"]]),
            // ... and the one after is back at the session's level.
            rows(0, "SELECT v FROM t WHERE id = 1", &[&["10"]]),
            ok(0, "SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED"),
            ok(0, "BEGIN"),
            rows(0, "SELECT v FROM t WHERE id = 1", &[&["11"]]),
            fails(0, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", 1568),
            ok(0, "COMMIT"),
            ok(0, "BEGIN"),
            fails(0, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", 1568),
            rows(0, "SELECT v FROM t WHERE id = 1", &[&["10"]]),
            ok(0, "COMMIT"),
            // With autocommit off, allowed before the transaction's first
            // statement, refused after it.
            ok(0, "SET autocommit = 0"),
            ok(0, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED"),
            rows(0, "SELECT v FROM t WHERE id = 1", &[&["10"]]),
            fails(0, "SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED", 1568),
            ok(1, "COMMIT"),
            rows(0, "SELECT v FROM t WHERE id = 1", &[&["11"]]),
            ok(0, "COMMIT"),
            ok(0, "SET autocommit = 1"),
            // SESSION scope is allowed inside a transaction; it applies from
            // the next one.
            ok(0, "BEGIN"),
            rows(0, "SELECT v FROM t WHERE id = 1", &[&["11"]]),
            ok(0, "SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE"),
            rows(0, "SELECT @@tx_isolation, @@session.tx_isolation", &[&["SERIALIZABLE", "SERIALIZABLE"]]),
            ok(1, "UPDATE t SET v = 12 WHERE id = 1"),
            rows(0, "SELECT v FROM t WHERE id = 1", &[&["11"]]),
            ok(0, "COMMIT"),
            ok(0, "BEGIN"),
            rows(0, "SELECT v FROM t WHERE id = 1", &[&["12"]]),
            blocks(1, "UPDATE t SET v = 13 WHERE id = 1"),
            ok(0, "COMMIT"),
            finish(1, Expect::Ok),
        ],
    );
}

#[test]
fn global_level_applies_to_new_sessions_only() {
    both(
        "iso_global",
        3,
        &[
            set_level(0, "REPEATABLE READ"),
            ok(0, "SET GLOBAL TRANSACTION ISOLATION LEVEL READ UNCOMMITTED"),
            rows(0, "SELECT @@global.tx_isolation, @@tx_isolation", &[&["READ-UNCOMMITTED", "REPEATABLE-READ"]]),
            // Sessions 1 and 2 were connected before: unchanged.
            rows(2, "SELECT @@tx_isolation", &[&["REPEATABLE-READ"]]),
            ok(0, "SET GLOBAL tx_isolation = 'SERIALIZABLE'"),
            rows(0, "SELECT @@global.tx_isolation", &[&["SERIALIZABLE"]]),
            ok(0, "SET @@global.tx_isolation = 'REPEATABLE-READ'"),
            rows(0, "SELECT @@global.tx_isolation", &[&["REPEATABLE-READ"]]),
            fails(0, "SET SESSION TRANSACTION ISOLATION LEVEL SNAPSHOT", 1064),
            fails(0, "SET SESSION tx_isolation = 'SNAPSHOT'", 1231),
        ],
    );
    // A session started after SET GLOBAL gets the new level (checked on
    // both servers; the global is restored for the other tests).
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    for (name, connect) in [("quire", &(|| q.connect(None)) as &dyn Fn() -> Conn), ("MariaDB", &|| m.connect(None))] {
        let mut admin = connect();
        admin.query_drop("SET GLOBAL TRANSACTION ISOLATION LEVEL READ COMMITTED").unwrap();
        let mut fresh = connect();
        let level: Option<String> = fresh.query_first("SELECT @@tx_isolation").unwrap();
        admin.query_drop("SET GLOBAL TRANSACTION ISOLATION LEVEL REPEATABLE READ").unwrap();
        assert_eq!(level.as_deref(), Some("READ-COMMITTED"), "{name}");
        let level: Option<String> = fresh.query_first("SELECT @@tx_isolation").unwrap();
        assert_eq!(level.as_deref(), Some("READ-COMMITTED"), "{name}: the session keeps the level it started with");
    }
}

/// The names MySQL 8.0 clients ask for (`transaction_isolation`, which
/// MariaDB 10.11 lacks) and the old one (`tx_isolation`) are one variable.
#[test]
fn transaction_isolation_and_tx_isolation_agree() {
    let q = Quire::start(&[]);
    let mut c = q.connect(None);
    let get = |c: &mut Conn| -> (String, String, String, String) {
        c.query_first(
            "SELECT @@transaction_isolation, @@tx_isolation, @@session.transaction_isolation, @@global.transaction_isolation",
        )
        .unwrap()
        .unwrap()
    };
    let rr = "REPEATABLE-READ".to_string();
    assert_eq!(get(&mut c), (rr.clone(), rr.clone(), rr.clone(), rr.clone()));
    c.query_drop("SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE").unwrap();
    let s = "SERIALIZABLE".to_string();
    assert_eq!(get(&mut c), (s.clone(), s.clone(), s.clone(), rr.clone()));
    c.query_drop("SET tx_isolation = 'read-uncommitted'").unwrap();
    let ru = "READ-UNCOMMITTED".to_string();
    assert_eq!(get(&mut c), (ru.clone(), ru.clone(), ru.clone(), rr.clone()));
    c.query_drop("SET @@session.transaction_isolation = 'READ-COMMITTED'").unwrap();
    c.query_drop("SET GLOBAL transaction_isolation = 'SERIALIZABLE'").unwrap();
    let rc = "READ-COMMITTED".to_string();
    assert_eq!(get(&mut c), (rc.clone(), rc.clone(), rc.clone(), s.clone()));
    let mut fresh = q.connect(None);
    assert_eq!(get(&mut fresh), (s.clone(), s.clone(), s.clone(), s.clone()));
    let shown: Vec<(String, String)> = c.query("SHOW SESSION VARIABLES LIKE 'transaction_isolation'").unwrap();
    assert_eq!(shown, [("transaction_isolation".to_string(), rc)]);
}

/// `transaction-isolation` in my.cnf sets the global level, which every
/// session starts with and behaves by.
#[test]
fn my_cnf_transaction_isolation_sets_the_level_sessions_run_at() {
    let dir = tempfile::tempdir().unwrap();
    let cnf = dir.path().join("my.cnf");
    std::fs::write(&cnf, "[mysqld]\ntransaction-isolation = READ-COMMITTED\n").unwrap();
    let overrides: Vec<(String, String)> = vec![
        ("datadir".into(), dir.path().join("data").display().to_string()),
        ("port".into(), "0".into()),
        ("innodb_buffer_pool_size".into(), "32M".into()),
        ("innodb_page_size".into(), "4096".into()),
        ("innodb_flush_log_at_trx_commit".into(), "2".into()),
    ];
    let cfg = config::load(Some(&cnf), &overrides).expect("config");
    assert!(cfg.warnings.is_empty(), "{:?}", cfg.warnings);
    let server = Server::start(&cfg, Some(oracle::QUIRE_ROOT_PASSWORD)).expect("quire starts");
    let opts = mysql::OptsBuilder::new()
        .ip_or_hostname(Some("127.0.0.1"))
        .tcp_port(server.tcp_addr.expect("tcp").port())
        .user(Some("root"))
        .pass(Some(oracle::QUIRE_ROOT_PASSWORD))
        .prefer_socket(false);
    let mut a = Conn::new(opts.clone()).unwrap();
    a.query_drop("CREATE DATABASE iso_cnf").unwrap();
    a.query_drop("USE iso_cnf").unwrap();
    let mut b = Conn::new(opts.db_name(Some("iso_cnf"))).unwrap();
    let levels: (String, String, String) = a
        .query_first("SELECT @@transaction_isolation, @@tx_isolation, @@global.transaction_isolation")
        .unwrap()
        .unwrap();
    assert_eq!(levels, ("READ-COMMITTED".into(), "READ-COMMITTED".into(), "READ-COMMITTED".into()));
    a.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v INT)").unwrap();
    a.query_drop("INSERT INTO t VALUES (1, 10)").unwrap();
    a.query_drop("BEGIN").unwrap();
    assert_eq!(a.query_first::<i64, _>("SELECT v FROM t WHERE id = 1").unwrap(), Some(10));
    b.query_drop("UPDATE t SET v = 11 WHERE id = 1").unwrap();
    assert_eq!(
        a.query_first::<i64, _>("SELECT v FROM t WHERE id = 1").unwrap(),
        Some(11),
        "READ COMMITTED: the transaction sees the new commit"
    );
    a.query_drop("COMMIT").unwrap();
}
