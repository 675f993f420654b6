//! Events (quire issue 19, item 4): CREATE / ALTER / DROP EVENT, their
//! errors and notes, SHOW EVENTS / SHOW CREATE EVENT /
//! information_schema.EVENTS compared with MariaDB 10.11 on the same
//! statements (times that depend on the clock left out), and the
//! scheduler on quire alone: a recurring event runs again and again and
//! stops when disabled or when `event_scheduler` is OFF, an AT event runs
//! once and goes, a failing event does not stop the scheduler, events and
//! their state survive a restart.

mod oracle;

use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{answer, assert_same, diagnosed, Answer, MariaDb, Quire};

/// What both servers are compared on: the schedule and state columns,
/// not the clock's (CREATED, LAST_ALTERED, LAST_EXECUTED).
const EVENTS: &str = "SELECT EVENT_SCHEMA, EVENT_NAME, DEFINER, TIME_ZONE, EVENT_BODY, EVENT_DEFINITION, EVENT_TYPE, \
     EXECUTE_AT, INTERVAL_VALUE, INTERVAL_FIELD, SQL_MODE, STARTS, ENDS, STATUS, ON_COMPLETION, EVENT_COMMENT, \
     ORIGINATOR, CHARACTER_SET_CLIENT, COLLATION_CONNECTION, DATABASE_COLLATION \
     FROM information_schema.EVENTS WHERE EVENT_SCHEMA = DATABASE() ORDER BY EVENT_NAME";

/// Both servers with the scheduler OFF (MariaDB's default, so that its
/// "switched off" warning is compared too), a fresh database `db` each,
/// and the same sql_mode and character set on both sessions.
fn both(db: &str) -> (Quire, Conn, Conn) {
    let m = MariaDb::get();
    let q = Quire::start(&[("event_scheduler", "OFF")]);
    let (mut qc, mut mc) = (q.fresh_db(db), m.fresh_db(db));
    for c in [&mut qc, &mut mc] {
        c.query_drop("SET NAMES utf8mb4").unwrap();
        c.query_drop("SET sql_mode = 'STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION'").unwrap();
        // A statement that uses a table clears DROP DATABASE's note.
        c.query_drop("CREATE TABLE t (a INT)").unwrap();
    }
    (q, qc, mc)
}

/// Each statement on both servers: the answers, and for the statements
/// that are no query the warnings too (quire's SELECT of
/// information_schema keeps the previous statement's warnings, which
/// MariaDB clears, and the texts of syntax errors differ: not what is
/// compared here).
fn compare(qc: &mut Conn, mc: &mut Conn, statements: &[&str]) {
    for sql in statements {
        if sql.starts_with("SELECT") || sql.starts_with("SHOW") {
            assert_same(qc, mc, &[sql]);
            continue;
        }
        let (mut q, mut m) = (diagnosed(qc, sql), diagnosed(mc, sql));
        for d in [&mut q, &mut m] {
            for shown in &mut d.shown {
                if shown.1 == 1064 {
                    shown.2.clear();
                }
            }
        }
        assert_eq!(q, m, "quire and MariaDB differ on: {sql}");
    }
}

#[test]
fn event_ddl_answers_errors_and_notes_as_mariadb() {
    let (_q, mut qc, mut mc) = both("ev_ddl");
    compare(
        &mut qc,
        &mut mc,
        &[
            "CREATE EVENT e1 ON SCHEDULE EVERY 1 HOUR STARTS '2030-01-01 00:00:00' ENDS '2031-01-01 00:00:00' \
             COMMENT 'hourly' DO INSERT INTO t VALUES (1)",
            "CREATE EVENT e1 ON SCHEDULE EVERY 1 HOUR DO INSERT INTO t VALUES (1)",
            "CREATE EVENT IF NOT EXISTS e1 ON SCHEDULE EVERY 1 HOUR DO INSERT INTO t VALUES (1)",
            "CREATE EVENT E1 ON SCHEDULE EVERY 1 HOUR DO INSERT INTO t VALUES (1)",
            // AT in the past: dropped at once, or kept disabled.
            "CREATE EVENT past ON SCHEDULE AT '2020-01-01 00:00:00' DO INSERT INTO t VALUES (1)",
            "CREATE EVENT kept ON SCHEDULE AT '2020-01-01 00:00:00' ON COMPLETION PRESERVE DO INSERT INTO t VALUES (1)",
            "CREATE EVENT later ON SCHEDULE AT '2035-06-01 10:00:00' + INTERVAL 1 DAY + INTERVAL 2 HOUR \
             ON COMPLETION PRESERVE DISABLE ON SLAVE DO DELETE FROM t",
            "CREATE EVENT compound ON SCHEDULE EVERY '1:30' HOUR_MINUTE STARTS '2030-01-01 00:00:00' DISABLE \
             COMMENT 'it''s' DO BEGIN INSERT INTO t VALUES (1); INSERT INTO t VALUES (2); END",
            "CREATE EVENT ym ON SCHEDULE EVERY '1-2' YEAR_MONTH STARTS '2030-01-31' DO DELETE FROM t",
            "CREATE EVENT rounded ON SCHEDULE EVERY 1.5 HOUR STARTS '2030-01-01 00:00:00' DO DELETE FROM t",
            "CREATE EVENT q ON SCHEDULE EVERY 1 QUARTER STARTS '2030-01-01 00:00:00' DO DELETE FROM t",
            // The errors.
            "CREATE EVENT bad ON SCHEDULE EVERY 1 DAY STARTS '2030-01-01' ENDS '2029-01-01' DO DELETE FROM t",
            "CREATE EVENT bad ON SCHEDULE EVERY 5 MINUTE ENDS '2020-01-01 00:00:00' DO DELETE FROM t",
            "CREATE EVENT bad ON SCHEDULE EVERY 0 DAY DO DELETE FROM t",
            "CREATE EVENT bad ON SCHEDULE EVERY -1 DAY DO DELETE FROM t",
            "CREATE EVENT bad ON SCHEDULE EVERY 'x' DAY DO DELETE FROM t",
            "CREATE EVENT bad ON SCHEDULE AT 'garbage' DO DELETE FROM t",
            "CREATE EVENT bad ON SCHEDULE EVERY 1 DAY STARTS 'garbage' DO DELETE FROM t",
            "CREATE EVENT bad ON SCHEDULE EVERY 1 DAY DO RETURN 1",
            "CREATE EVENT bad ON SCHEDULE EVERY 1 DAY DO CREATE EVENT y ON SCHEDULE EVERY 1 DAY DO SELECT 1",
            "CREATE EVENT nodb.bad ON SCHEDULE EVERY 1 DAY DO DELETE FROM t",
            "CREATE EVENT bad ON SCHEDULE AT",
            // ALTER.
            "ALTER EVENT nope DISABLE",
            "ALTER EVENT e1",
            "ALTER EVENT e1 RENAME TO later",
            "ALTER EVENT e1 RENAME TO ev_ddl.E1",
            "ALTER EVENT e1 ON COMPLETION PRESERVE ON SCHEDULE AT '2030-01-01 00:00:00'",
            "ALTER EVENT e1 ON COMPLETION PRESERVE RENAME TO e2 DISABLE COMMENT 'renamed'",
            "ALTER EVENT e2 ON SCHEDULE AT '2020-01-01 00:00:00'",
            "ALTER EVENT compound ENABLE DO INSERT INTO t VALUES (3)",
            EVENTS,
            "SHOW EVENTS",
            "SHOW EVENTS LIKE 'e%'",
            "SHOW EVENTS FROM ev_ddl WHERE `Interval field` = 'YEAR_MONTH'",
            "SHOW EVENTS FROM nodb",
            "SHOW CREATE EVENT compound",
            "SHOW CREATE EVENT ev_ddl.later",
            "SHOW CREATE EVENT e2",
            "SHOW CREATE EVENT nope",
            // DROP.
            "DROP EVENT nope",
            "DROP EVENT IF EXISTS nope",
            "DROP EVENT e2",
            "DROP EVENT ev_ddl.E2",
            EVENTS,
        ],
    );
    // 1235, worded with each server's name.
    assert_same(&mut qc, &mut mc, &["CREATE EVENT bad ON SCHEDULE EVERY 1 MICROSECOND DO DELETE FROM t"]);
    // DROP DATABASE takes its events.
    assert_same(&mut qc, &mut mc, &["DROP DATABASE ev_ddl", EVENTS, "SHOW EVENTS FROM ev_ddl"]);
}

#[test]
fn event_times_follow_the_creating_sessions_zone_as_mariadb() {
    let (_q, mut qc, mut mc) = both("ev_zone");
    compare(
        &mut qc,
        &mut mc,
        &[
            "SET time_zone = '+02:00'",
            "CREATE EVENT z ON SCHEDULE EVERY 1 DAY STARTS '2030-01-01 00:00:00' DO SELECT 1",
            "SET time_zone = DEFAULT",
            "CREATE EVENT s ON SCHEDULE AT '2030-01-01 00:00:00' DO SELECT 1",
            EVENTS,
            "SHOW CREATE EVENT z",
            "DROP DATABASE ev_zone",
        ],
    );
}

#[test]
fn a_default_schedule_starts_now_as_mariadb() {
    let (_q, mut qc, mut mc) = both("ev_now");
    compare(
        &mut qc,
        &mut mc,
        &[
            "CREATE EVENT n ON SCHEDULE EVERY 1 DAY DO SELECT 1",
            "CREATE EVENT a ON SCHEDULE AT NOW() + INTERVAL 1 DAY DO SELECT 1",
            "SELECT EVENT_NAME, STARTS BETWEEN NOW() - INTERVAL 5 SECOND AND NOW(), \
             EXECUTE_AT BETWEEN NOW() + INTERVAL 1 DAY - INTERVAL 5 SECOND AND NOW() + INTERVAL 1 DAY, \
             CREATED BETWEEN NOW() - INTERVAL 5 SECOND AND NOW(), LAST_EXECUTED \
             FROM information_schema.EVENTS WHERE EVENT_SCHEMA = 'ev_now' ORDER BY EVENT_NAME",
            "DROP DATABASE ev_now",
        ],
    );
}

/// Polls `sql`'s first cell until `ok` holds of it (at most `secs`
/// seconds); the last value.
fn wait_for(c: &mut Conn, sql: &str, secs: u64, ok: impl Fn(i64) -> bool) -> i64 {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let v: i64 = c.query_first(sql).unwrap().unwrap_or(0);
        if ok(v) || Instant::now() > deadline {
            return v;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn count(c: &mut Conn, sql: &str) -> i64 {
    c.query_first::<i64, _>(sql).unwrap().unwrap_or(0)
}

#[test]
fn an_every_second_event_runs_repeatedly_and_stops_when_disabled_or_when_the_scheduler_is_off() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("ev_every");
    c.query_drop("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, at DATETIME)").unwrap();
    c.query_drop("CREATE EVENT tick ON SCHEDULE EVERY 1 SECOND DO INSERT INTO t (at) VALUES (NOW())").unwrap();
    let n = wait_for(&mut c, "SELECT COUNT(*) FROM t", 6, |n| n >= 3);
    assert!(n >= 3, "ran {n} times");
    let last: Option<String> = c
        .query_first("SELECT LAST_EXECUTED FROM information_schema.EVENTS WHERE EVENT_NAME = 'tick'")
        .unwrap()
        .unwrap();
    assert!(last.is_some(), "LAST_EXECUTED is recorded");

    // Disabled: no more rows.
    c.query_drop("ALTER EVENT tick DISABLE").unwrap();
    std::thread::sleep(Duration::from_millis(300)); // an execution already started ends
    let n = count(&mut c, "SELECT COUNT(*) FROM t");
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(count(&mut c, "SELECT COUNT(*) FROM t"), n, "a disabled event does not run");

    // Enabled again, then the scheduler switched off: no more rows.
    c.query_drop("ALTER EVENT tick ENABLE").unwrap();
    let m = wait_for(&mut c, "SELECT COUNT(*) FROM t", 4, |m| m > n);
    assert!(m > n, "enabled again, it runs");
    c.query_drop("SET GLOBAL event_scheduler = OFF").unwrap();
    let procs: Vec<String> = c.query("SELECT USER FROM information_schema.PROCESSLIST").unwrap();
    assert!(!procs.iter().any(|u| u == "event_scheduler"), "OFF: no scheduler in the process list");
    std::thread::sleep(Duration::from_millis(300));
    let n = count(&mut c, "SELECT COUNT(*) FROM t");
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(count(&mut c, "SELECT COUNT(*) FROM t"), n, "nothing runs while event_scheduler is OFF");

    // ON again: it runs, and the scheduler is a daemon in the process list.
    c.query_drop("SET GLOBAL event_scheduler = ON").unwrap();
    let m = wait_for(&mut c, "SELECT COUNT(*) FROM t", 4, |m| m > n);
    assert!(m > n, "ON again, it runs");
    let rows: Vec<(String, String, String)> = c
        .query("SELECT USER, COMMAND, STATE FROM information_schema.PROCESSLIST WHERE USER = 'event_scheduler'")
        .unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].1, "Daemon");
    assert!(rows[0].2.starts_with("Waiting"), "{:?}", rows[0]);
}

#[test]
fn an_at_event_runs_once_and_then_goes_or_stays_disabled_when_preserved() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("ev_at");
    c.query_drop("CREATE TABLE t (what VARCHAR(10))").unwrap();
    c.query_drop("CREATE EVENT once ON SCHEDULE AT NOW() + INTERVAL 1 SECOND DO INSERT INTO t VALUES ('once')")
        .unwrap();
    c.query_drop(
        "CREATE EVENT kept ON SCHEDULE AT NOW() + INTERVAL 1 SECOND ON COMPLETION PRESERVE \
         DO INSERT INTO t VALUES ('kept')",
    )
    .unwrap();
    let n = wait_for(&mut c, "SELECT COUNT(*) FROM t", 5, |n| n >= 2);
    assert_eq!(n, 2);
    let gone =
        wait_for(&mut c, "SELECT COUNT(*) FROM information_schema.EVENTS WHERE EVENT_NAME = 'once'", 3, |n| n == 0);
    assert_eq!(gone, 0, "NOT PRESERVE: dropped once run");
    let (status, last): (String, Option<String>) = c
        .query_first("SELECT STATUS, LAST_EXECUTED FROM information_schema.EVENTS WHERE EVENT_NAME = 'kept'")
        .unwrap()
        .unwrap();
    assert_eq!(status, "DISABLED");
    assert!(last.is_some());
    std::thread::sleep(Duration::from_millis(1200));
    assert_eq!(count(&mut c, "SELECT COUNT(*) FROM t"), 2, "each ran once");
}

#[test]
fn a_failing_event_keeps_the_scheduler_running() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("ev_fail");
    c.query_drop("CREATE TABLE t (a INT)").unwrap();
    c.query_drop("CREATE EVENT broken ON SCHEDULE EVERY 1 SECOND DO INSERT INTO nosuch VALUES (1)").unwrap();
    c.query_drop(
        "CREATE EVENT signals ON SCHEDULE EVERY 1 SECOND DO BEGIN INSERT INTO t VALUES (1); \
         SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'boom'; END",
    )
    .unwrap();
    c.query_drop("CREATE EVENT works ON SCHEDULE EVERY 1 SECOND DO INSERT INTO t VALUES (2)").unwrap();
    let n = wait_for(&mut c, "SELECT COUNT(*) FROM t WHERE a = 2", 6, |n| n >= 3);
    assert!(n >= 3, "the good event ran {n} times beside the failing ones");
    // The statement before the SIGNAL committed (autocommit), each time.
    assert!(count(&mut c, "SELECT COUNT(*) FROM t WHERE a = 1") >= 2);
    assert_eq!(count(&mut c, "SELECT COUNT(*) FROM information_schema.EVENTS WHERE EVENT_SCHEMA = 'ev_fail'"), 3);
    assert_eq!(answer(&mut c, "SELECT 1"), Answer::Rows(vec![vec![Some("1".into())]]));
}

#[test]
fn events_and_their_state_survive_a_restart() {
    let q = Quire::start(&[("event_scheduler", "OFF")]);
    let mut c = q.fresh_db("ev_restart");
    c.query_drop("CREATE TABLE t (a INT)").unwrap();
    c.query_drop(
        "CREATE EVENT later ON SCHEDULE EVERY 1 DAY STARTS '2030-01-01 00:00:00' ON COMPLETION PRESERVE \
         DISABLE COMMENT 'kept' DO BEGIN INSERT INTO t VALUES (1); INSERT INTO t VALUES (2); END",
    )
    .unwrap();
    c.query_drop("CREATE EVENT soon ON SCHEDULE EVERY 1 SECOND DO INSERT INTO t VALUES (3)").unwrap();
    let show = |c: &mut Conn| -> Vec<(String, String)> {
        c.query_drop("SHOW EVENTS FROM ev_restart").unwrap();
        let shown: Vec<mysql::Row> = c.query("SHOW CREATE EVENT later").unwrap();
        let create: String = shown[0].get(3).unwrap();
        let rows: Vec<(String, String)> =
            c.query("SELECT EVENT_NAME, STATUS FROM information_schema.EVENTS ORDER BY EVENT_NAME").unwrap();
        let mut rows = rows;
        rows.push(("create".into(), create));
        rows
    };
    let before = show(&mut c);
    assert_eq!(count(&mut c, "SELECT COUNT(*) FROM t"), 0, "OFF at startup: nothing ran");
    drop(c);

    let q = q.restart();
    let mut c = q.connect(Some("ev_restart"));
    assert_eq!(show(&mut c), before);
    // The scheduler of the restarted server (OFF from its configuration)
    // runs the enabled event once switched on.
    c.query_drop("SET GLOBAL event_scheduler = ON").unwrap();
    let n = wait_for(&mut c, "SELECT COUNT(*) FROM t WHERE a = 3", 5, |n| n >= 1);
    assert!(n >= 1);
    c.query_drop("SET GLOBAL event_scheduler = OFF").unwrap();
    let last: Option<String> = c
        .query_first("SELECT LAST_EXECUTED FROM information_schema.EVENTS WHERE EVENT_NAME = 'soon'")
        .unwrap()
        .unwrap();
    drop(c);
    // LAST_EXECUTED is persisted.
    let q = q.restart();
    let mut c = q.connect(Some("ev_restart"));
    let again: Option<String> = c
        .query_first("SELECT LAST_EXECUTED FROM information_schema.EVENTS WHERE EVENT_NAME = 'soon'")
        .unwrap()
        .unwrap();
    assert!(last.is_some());
    assert_eq!(again, last);
    // The definitions' table is the catalog's: not listed, not writable.
    assert_eq!(answer(&mut c, "DELETE FROM mysql.quire_event"), Answer::Err(3554));
    let tables: Vec<String> = c.query("SHOW TABLES FROM mysql LIKE 'quire_event'").unwrap();
    assert!(tables.is_empty(), "{tables:?}");
}

#[test]
fn a_scheduler_disabled_at_startup_cannot_be_switched_on() {
    let q = Quire::start(&[("event_scheduler", "DISABLED")]);
    let mut c = q.fresh_db("ev_disabled");
    assert_eq!(answer(&mut c, "SET GLOBAL event_scheduler = ON"), Answer::Err(1290));
    assert_eq!(answer(&mut c, "SELECT @@event_scheduler"), Answer::Rows(vec![vec![Some("DISABLED".into())]]));
    // Events are still defined (and kept) while the scheduler is disabled.
    c.query_drop("CREATE TABLE t (a INT)").unwrap();
    c.query_drop("CREATE EVENT e ON SCHEDULE EVERY 1 SECOND DO INSERT INTO t VALUES (1)").unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(count(&mut c, "SELECT COUNT(*) FROM t"), 0);
    let procs: Vec<String> = c.query("SELECT USER FROM information_schema.PROCESSLIST").unwrap();
    assert!(!procs.iter().any(|u| u == "event_scheduler"));
    // And with the scheduler ON, DISABLED is no runtime value (MariaDB's 1231).
    let q = Quire::start(&[]);
    let mut c = q.connect(None);
    assert_eq!(answer(&mut c, "SET GLOBAL event_scheduler = DISABLED"), Answer::Err(1231));
}

#[test]
fn event_ddl_is_logged_as_statements_and_an_events_writes_as_rows() {
    let q = Quire::start(&[("log_bin", "ON"), ("sync_binlog", "0")]);
    let mut c = q.fresh_db("ev_log");
    c.query_drop("CREATE TABLE t (a INT)").unwrap();
    c.query_drop("CREATE EVENT e ON SCHEDULE EVERY 1 SECOND DO INSERT INTO t VALUES (42)").unwrap();
    assert!(wait_for(&mut c, "SELECT COUNT(*) FROM t", 5, |n| n >= 1) >= 1);
    c.query_drop("ALTER EVENT e DISABLE").unwrap();
    c.query_drop("DROP EVENT e").unwrap();
    let (base,): (String,) = c.query_first("SELECT @@log_bin_basename").unwrap().unwrap();
    let dir = std::path::PathBuf::from(base).parent().unwrap().to_path_buf();
    let names: Vec<(String, u64)> = c.query("SHOW BINARY LOGS").unwrap();
    let mut text = String::new();
    for (n, _) in names {
        let out = std::process::Command::new("mariadb-binlog")
            .args(["--base64-output=decode-rows", "-vv"])
            .arg(dir.join(n))
            .output()
            .expect("mariadb-binlog (Debian's mariadb-client)");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        text.push_str(&String::from_utf8_lossy(&out.stdout));
    }
    assert!(text.contains("CREATE EVENT e ON SCHEDULE EVERY 1 SECOND DO INSERT INTO t VALUES (42)"), "{text}");
    assert!(text.contains("ALTER EVENT e DISABLE"));
    assert!(text.contains("DROP EVENT e"));
    assert!(text.contains("### INSERT INTO `ev_log`.`t`"), "the event's rows are logged as rows");
}

#[test]
fn a_replica_applies_create_event_as_slaveside_disabled() {
    let source = Quire::start(&[("log_bin", "ON"), ("sync_binlog", "0"), ("event_scheduler", "OFF")]);
    let replica = Quire::start(&[("server_id", "2")]);
    let port = source.server.tcp_addr.unwrap().port();
    let mut r = replica.connect(None);
    r.query_drop(format!(
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={port}, SOURCE_USER='root', \
         SOURCE_PASSWORD='{}', SOURCE_LOG_FILE='binlog.000001', SOURCE_LOG_POS=4, SOURCE_CONNECT_RETRY=1",
        oracle::QUIRE_ROOT_PASSWORD
    ))
    .unwrap();
    r.query_drop("START REPLICA").unwrap();
    let mut s = source.connect(None);
    s.query_drop("CREATE DATABASE ev_repl").unwrap();
    s.query_drop("CREATE TABLE ev_repl.t (a INT)").unwrap();
    s.query_drop("CREATE EVENT ev_repl.e ON SCHEDULE EVERY 1 SECOND DO INSERT INTO t VALUES (1)").unwrap();
    let sql = "SELECT COUNT(*) FROM information_schema.EVENTS WHERE EVENT_SCHEMA = 'ev_repl'";
    assert_eq!(wait_for(&mut r, sql, 10, |n| n == 1), 1, "the event reached the replica");
    let status: String =
        r.query_first("SELECT STATUS FROM information_schema.EVENTS WHERE EVENT_SCHEMA = 'ev_repl'").unwrap().unwrap();
    assert_eq!(status, "SLAVESIDE_DISABLED");
    // The replica's scheduler (ON) does not run it.
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(count(&mut r, "SELECT COUNT(*) FROM ev_repl.t"), 0);
    let status: String =
        s.query_first("SELECT STATUS FROM information_schema.EVENTS WHERE EVENT_SCHEMA = 'ev_repl'").unwrap().unwrap();
    assert_eq!(status, "ENABLED", "on the source it stays enabled");
}
