//! performance_schema: the wait instruments count what happened (a
//! forced row-lock wait appears with its time, globally and on the
//! waiting connection's thread), setup_instruments switches them at
//! runtime and at startup, the tables have MySQL 8.0's names and columns,
//! refuse writes as MySQL does, answer the queries tools run over them,
//! and are empty with `performance_schema=OFF`.
//!
//! The instruments and the thread registry are process-wide (one server
//! per process outside tests): tests that switch instruments, count
//! waits exactly or map connections to threads run in a process of their
//! own (`oracle::alone`), as two servers in one process number their
//! connections alike.

mod oracle;

use std::time::Duration;

use mysql::prelude::Queryable;
use oracle::Quire;

/// (COUNT_STAR, SUM_TIMER_WAIT) of `event`.
fn waits(c: &mut mysql::Conn, event: &str) -> (u64, u64) {
    c.query_first(format!(
        "SELECT COUNT_STAR, SUM_TIMER_WAIT FROM performance_schema.events_waits_summary_global_by_event_name \
         WHERE EVENT_NAME = '{event}'"
    ))
    .unwrap()
    .unwrap_or_else(|| panic!("no instrument {event}"))
}

fn status(c: &mut mysql::Conn, name: &str) -> u64 {
    let row: Option<(String, String)> = c.query_first(format!("SHOW GLOBAL STATUS LIKE '{name}'")).unwrap();
    row.unwrap().1.parse().unwrap()
}

/// Makes connection `b` wait for a row lock `a` holds for at least
/// `hold`; `b`'s connection id.
fn forced_row_lock_wait(q: &Quire, db: &str, hold: Duration) -> u64 {
    let mut a = q.fresh_db(db);
    a.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v INT)").unwrap();
    a.query_drop("INSERT INTO t VALUES (1, 0)").unwrap();
    a.query_drop("BEGIN").unwrap();
    a.query_drop("UPDATE t SET v = 1 WHERE id = 1").unwrap();
    let mut b = q.connect(Some(db));
    let b_id: u64 = b.query_first("SELECT CONNECTION_ID()").unwrap().unwrap();
    let waiter = std::thread::spawn(move || {
        b.query_drop("UPDATE t SET v = 2 WHERE id = 1").unwrap();
        b
    });
    let mut probe = q.connect(None);
    while status(&mut probe, "Innodb_row_lock_current_waits") == 0 {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(hold);
    a.query_drop("COMMIT").unwrap();
    let b = waiter.join().unwrap();
    drop(b);
    b_id
}

#[test]
fn a_forced_row_lock_wait_appears_with_its_time_globally_and_on_its_thread() {
    if !oracle::alone("a_forced_row_lock_wait_appears_with_its_time_globally_and_on_its_thread") {
        return;
    }
    let q = Quire::start(&[("innodb_lock_wait_timeout", "20")]);
    let mut c = q.connect(None);
    let before = waits(&mut c, "wait/lock/innodb/row_lock");
    let b_id = forced_row_lock_wait(&q, "ps_rowlock", Duration::from_millis(300));
    let after = waits(&mut c, "wait/lock/innodb/row_lock");
    assert_eq!(after.0 - before.0, 1, "one row lock wait");
    assert!(after.1 - before.1 >= 300_000_000_000, "it lasted at least 300 ms, in picoseconds: {:?}", (before, after));
    // The same wait on the waiting connection's thread (threads joined
    // with the per-thread summary, as sys's views do). The connection
    // ended, so its thread may serve nobody now: look it up while it
    // lives.
    let mut b = q.connect(None);
    let id: u64 = b.query_first("SELECT CONNECTION_ID()").unwrap().unwrap();
    let mine: Option<(u64, String)> = b
        .query_first(format!(
            "SELECT THREAD_ID, PROCESSLIST_COMMAND FROM performance_schema.threads WHERE PROCESSLIST_ID = {id}"
        ))
        .unwrap();
    let (thread, command) = mine.expect("this connection's thread is listed");
    assert_eq!(command, "Query");
    b.query_drop("SELECT SLEEP(0.05)").unwrap();
    let slept: Option<(u64, u64)> = b
        .query_first(format!(
            "SELECT w.COUNT_STAR, w.SUM_TIMER_WAIT FROM performance_schema.events_waits_summary_by_thread_by_event_name w \
             JOIN performance_schema.threads t USING (THREAD_ID) \
             WHERE t.PROCESSLIST_ID = {id} AND w.EVENT_NAME = 'wait/synch/cond/sql/Item_func_sleep::cond'"
        ))
        .unwrap();
    let (n, ps) = slept.expect("a row per thread and instrument");
    assert!(n >= 1 && ps >= 50_000_000_000, "SLEEP(0.05) on thread {thread}: {n} waits, {ps} ps");
    assert_ne!(b_id, id);
    // The waiting UPDATE's digest carries the wait as its lock time.
    let lock: Option<(u64, u64)> = c
        .query_first(
            "SELECT COUNT_STAR, SUM_LOCK_TIME FROM performance_schema.events_statements_summary_by_digest \
             WHERE SCHEMA_NAME = 'ps_rowlock' AND DIGEST_TEXT = 'UPDATE t SET v = ? WHERE id = ?'",
        )
        .unwrap();
    let (n, lock_ps) = lock.expect("the UPDATE's digest");
    assert_eq!(n, 2, "the holder's and the waiter's");
    assert!(lock_ps >= 300_000_000_000, "{lock_ps} ps of lock time");
}

#[test]
fn statements_are_summed_by_digest_with_rows_and_errors() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("ps_digest");
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v INT)").unwrap();
    c.query_drop("INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)").unwrap();
    let _: Option<i64> = c.query_first("SELECT v FROM t WHERE id = 1").unwrap();
    let _: Option<i64> = c.query_first("select v from t where id=2").unwrap();
    let _: Option<i64> = c.query_first("SELECT v FROM t WHERE id = 9").unwrap();
    // A prepared statement with the same shape shares the digest.
    let _: Option<i64> = c.exec_first("SELECT v FROM t WHERE id = ?", (3,)).unwrap();
    let _: Vec<i64> = c.query("SELECT v FROM t WHERE id IN (1, 2, 3)").unwrap();
    assert!(c.query_drop("INSERT INTO t VALUES (1, 0)").is_err(), "duplicate key");
    let _: Vec<i64> = c.query("SELECT v FROM t WHERE v > 15").unwrap();
    let rows: Vec<(String, u64, u64, u64, u64, u64)> = c
        .query(
            "SELECT DIGEST_TEXT, COUNT_STAR, SUM_ROWS_SENT, SUM_ROWS_EXAMINED, SUM_ERRORS, SUM_ROWS_AFFECTED \
             FROM performance_schema.events_statements_summary_by_digest \
             WHERE SCHEMA_NAME = 'ps_digest' AND DIGEST_TEXT LIKE '%FROM t%' ORDER BY DIGEST_TEXT",
        )
        .unwrap();
    let find = |t: &str| rows.iter().find(|r| r.0 == t).unwrap_or_else(|| panic!("{t} in {rows:?}"));
    let point = find("SELECT v FROM t WHERE id = ?");
    assert_eq!((point.1, point.2, point.3), (4, 3, 3), "4 runs, 3 rows found and read");
    let listed = find("SELECT v FROM t WHERE id IN (...)");
    assert_eq!((listed.1, listed.2), (1, 3));
    let scan = find("SELECT v FROM t WHERE v > ?");
    assert_eq!((scan.1, scan.2, scan.3), (1, 2, 3), "the scan read every row and sent two");
    let dup: Option<(u64, u64)> = c
        .query_first(
            "SELECT SUM_ERRORS, COUNT_STAR FROM performance_schema.events_statements_summary_by_digest \
             WHERE SCHEMA_NAME = 'ps_digest' AND DIGEST_TEXT LIKE 'INSERT INTO t VALUES%'",
        )
        .unwrap();
    assert_eq!(dup.map(|d| d.0), Some(1), "the failed INSERT counts as an error");
    // Shape: MySQL 8.0's 39 columns, DIGEST a SHA-256 in hex, times that add up.
    let n: Option<u64> = c
        .query_first(
            "SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'performance_schema' \
             AND TABLE_NAME = 'events_statements_summary_by_digest'",
        )
        .unwrap();
    assert_eq!(n, Some(39));
    let (digest, min, avg, max, q95): (String, u64, u64, u64, u64) = c
        .query_first(
            "SELECT DIGEST, MIN_TIMER_WAIT, AVG_TIMER_WAIT, MAX_TIMER_WAIT, QUANTILE_95 \
             FROM performance_schema.events_statements_summary_by_digest \
             WHERE SCHEMA_NAME = 'ps_digest' AND DIGEST_TEXT = 'SELECT v FROM t WHERE id = ?'",
        )
        .unwrap()
        .unwrap();
    assert!(digest.len() == 64 && digest.chars().all(|c| c.is_ascii_hexdigit()));
    assert!(0 < min && min <= avg && avg <= max && max <= q95.max(max), "{min} {avg} {max} {q95}");
}

#[test]
fn tables_have_mysql_names_and_columns_and_refuse_writes() {
    let q = Quire::start(&[]);
    let mut c = q.connect(None);
    let tables: Vec<String> = c.query("SHOW TABLES FROM performance_schema").unwrap();
    for t in [
        "events_statements_summary_by_digest",
        "events_waits_summary_by_thread_by_event_name",
        "events_waits_summary_global_by_event_name",
        "file_summary_by_event_name",
        "global_status",
        "global_variables",
        "session_status",
        "session_variables",
        "setup_instruments",
        "threads",
    ] {
        assert!(tables.contains(&t.to_string()), "{t} in {tables:?}");
    }
    let cols: Vec<String> = c
        .query(
            "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'performance_schema' \
             AND TABLE_NAME = 'events_waits_summary_global_by_event_name' ORDER BY ORDINAL_POSITION",
        )
        .unwrap();
    assert_eq!(
        cols,
        ["EVENT_NAME", "COUNT_STAR", "SUM_TIMER_WAIT", "MIN_TIMER_WAIT", "AVG_TIMER_WAIT", "MAX_TIMER_WAIT"]
    );
    let described: Vec<(String, String)> = c
        .query_map("DESCRIBE performance_schema.setup_instruments", |r: mysql::Row| {
            (r.get::<String, _>(0).unwrap(), r.get::<String, _>(1).unwrap())
        })
        .unwrap();
    assert_eq!(described[0].0, "NAME");
    assert_eq!(described.iter().map(|d| d.0.as_str()).collect::<Vec<_>>()[1..3], ["ENABLED", "TIMED"]);
    let engine: Option<(String, String)> = c
        .query_first(
            "SELECT TABLE_TYPE, ENGINE FROM information_schema.TABLES \
             WHERE TABLE_SCHEMA = 'performance_schema' AND TABLE_NAME = 'threads'",
        )
        .unwrap();
    assert_eq!(engine, Some(("BASE TABLE".into(), "PERFORMANCE_SCHEMA".into())));

    let code = |c: &mut mysql::Conn, sql: &str| match c.query_drop(sql) {
        Err(mysql::Error::MySqlError(e)) => e.code,
        other => panic!("{sql}: {other:?}"),
    };
    assert_eq!(code(&mut c, "SELECT * FROM performance_schema.no_such_table"), 1146);
    assert_eq!(code(&mut c, "UPDATE performance_schema.threads SET NAME = 'x'"), 1044);
    assert_eq!(code(&mut c, "DELETE FROM performance_schema.setup_instruments"), 1044);
    assert_eq!(code(&mut c, "INSERT INTO performance_schema.global_status VALUES ('a', 'b')"), 1044);
    assert_eq!(code(&mut c, "DROP TABLE performance_schema.threads"), 1044);
    assert_eq!(code(&mut c, "TRUNCATE TABLE performance_schema.threads"), 1044);
    assert_eq!(code(&mut c, "CREATE TABLE performance_schema.x (a INT)"), 1044);
    assert_eq!(code(&mut c, "DROP DATABASE performance_schema"), 1044);
    assert_eq!(code(&mut c, "UPDATE performance_schema.setup_instruments SET NAME = 'x'"), 1683);
    assert_eq!(code(&mut c, "UPDATE performance_schema.setup_instruments SET ENABLED = 'maybe'"), 1265);

    // Status and variables as SHOW prints them.
    let uptime: Option<String> = c
        .query_first("SELECT VARIABLE_VALUE FROM performance_schema.global_status WHERE VARIABLE_NAME = 'Uptime'")
        .unwrap();
    assert!(uptime.unwrap().parse::<u64>().is_ok());
    c.query_drop("SET autocommit = 0").unwrap();
    let ac: Vec<(String, String)> = c
        .query(
            "SELECT g.VARIABLE_VALUE, s.VARIABLE_VALUE FROM performance_schema.global_variables g \
             JOIN performance_schema.session_variables s USING (VARIABLE_NAME) WHERE VARIABLE_NAME = 'autocommit'",
        )
        .unwrap();
    assert_eq!(ac, vec![("ON".to_string(), "OFF".to_string())]);
    let ps: Option<String> = c
        .query_first(
            "SELECT VARIABLE_VALUE FROM performance_schema.global_variables WHERE VARIABLE_NAME = 'performance_schema'",
        )
        .unwrap();
    assert_eq!(ps.as_deref(), Some("ON"));

    // sys.waits_global_by_latency's query, and the top-5 of seed 000.
    c.query_drop("SELECT SLEEP(0.01)").unwrap();
    let top: Vec<(String, u64, u64, u64, u64)> = c
        .query(
            "SELECT EVENT_NAME AS events, COUNT_STAR AS total, SUM_TIMER_WAIT AS total_latency, \
             AVG_TIMER_WAIT AS avg_latency, MAX_TIMER_WAIT AS max_latency \
             FROM performance_schema.events_waits_summary_global_by_event_name \
             WHERE EVENT_NAME != 'idle' AND SUM_TIMER_WAIT > 0 ORDER BY SUM_TIMER_WAIT DESC LIMIT 5",
        )
        .unwrap();
    assert!(!top.is_empty() && top.len() <= 5);
    assert!(top.windows(2).all(|w| w[0].2 >= w[1].2));
    assert!(top.iter().all(|t| t.1 > 0 && t.4 >= t.3));
    // The files: bytes written to the redo log by the CREATE DATABASE /
    // table writes of the server's start at least.
    let files: Vec<(String, u64, i64)> = c
        .query("SELECT EVENT_NAME, COUNT_WRITE, SUM_NUMBER_OF_BYTES_WRITE FROM performance_schema.file_summary_by_event_name")
        .unwrap();
    assert_eq!(files.len(), 4);
    let log = files.iter().find(|f| f.0 == "wait/io/file/innodb/innodb_log_file").unwrap();
    assert!(log.1 > 0 && log.2 > 0, "{log:?}");
}

#[test]
fn setup_instruments_switches_an_instrument_at_runtime() {
    if !oracle::alone("setup_instruments_switches_an_instrument_at_runtime") {
        return;
    }
    let q = Quire::start(&[]);
    let mut c = q.connect(None);
    let sleep = "wait/synch/cond/sql/Item_func_sleep::cond";
    let off = c
        .query_iter(format!("UPDATE performance_schema.setup_instruments SET ENABLED = 'no' WHERE NAME = '{sleep}'"))
        .unwrap()
        .affected_rows();
    assert_eq!(off, 1);
    let row: Option<(String, String)> = c
        .query_first(format!("SELECT ENABLED, TIMED FROM performance_schema.setup_instruments WHERE NAME = '{sleep}'"))
        .unwrap();
    assert_eq!(row, Some(("NO".into(), "YES".into())));
    let before = waits(&mut c, sleep);
    c.query_drop("SELECT SLEEP(0.01)").unwrap();
    assert_eq!(waits(&mut c, sleep), before, "a disabled instrument records nothing");
    // Untimed: counted with no time.
    let changed = c
        .query_iter(
            "UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'NO' WHERE NAME LIKE '%sleep%'",
        )
        .unwrap()
        .affected_rows();
    assert_eq!(changed, 1);
    c.query_drop("SELECT SLEEP(0.01)").unwrap();
    assert_eq!(waits(&mut c, sleep), (before.0 + 1, before.1));
    c.query_drop(format!("UPDATE performance_schema.setup_instruments SET TIMED = 'YES' WHERE NAME = '{sleep}'"))
        .unwrap();
    c.query_drop("SELECT SLEEP(0.01)").unwrap();
    let after = waits(&mut c, sleep);
    assert!(after.0 == before.0 + 2 && after.1 >= before.1 + 10_000_000_000, "{after:?}");
    // A whole class at once; nothing changes the second time.
    let n = c
        .query_iter("UPDATE performance_schema.setup_instruments SET ENABLED = 'NO' WHERE NAME LIKE 'wait/io/file/%'")
        .unwrap()
        .affected_rows();
    assert_eq!(n, 4);
    let n = c
        .query_iter("UPDATE performance_schema.setup_instruments SET ENABLED = 'NO' WHERE NAME LIKE 'wait/io/file/%'")
        .unwrap()
        .affected_rows();
    assert_eq!(n, 0);
    // Only an administrator may switch.
    c.query_drop("CREATE USER 'watcher'@'%' IDENTIFIED BY 'pw'").unwrap();
    let mut w = mysql::Conn::new(q.opts(None).user(Some("watcher")).pass(Some("pw"))).unwrap();
    match w.query_drop("UPDATE performance_schema.setup_instruments SET ENABLED = 'YES'") {
        Err(mysql::Error::MySqlError(e)) => assert_eq!(e.code, 1142),
        other => panic!("{other:?}"),
    }
    let seen: Option<u64> = w.query_first("SELECT COUNT(*) FROM performance_schema.setup_instruments").unwrap();
    assert!(seen.unwrap() > 30, "reading is open to every user");
}

#[test]
fn startup_settings_turn_instruments_or_the_whole_schema_off() {
    if !oracle::alone("startup_settings_turn_instruments_or_the_whole_schema_off") {
        return;
    }
    let q = Quire::start(&[("performance_schema_instrument", "'wait/io/file/%=OFF'")]);
    let mut c = q.connect(None);
    let off: Vec<String> =
        c.query("SELECT NAME FROM performance_schema.setup_instruments WHERE ENABLED = 'NO' ORDER BY NAME").unwrap();
    assert_eq!(off.len(), 4, "{off:?}");
    assert!(off.iter().all(|n| n.starts_with("wait/io/file/")));
    let log = waits(&mut c, "wait/io/file/innodb/innodb_log_file");
    c.query_drop("CREATE DATABASE ps_off").unwrap();
    assert_eq!(waits(&mut c, "wait/io/file/innodb/innodb_log_file"), log);
    drop(c);
    drop(q);

    let q = Quire::start(&[("performance_schema", "OFF")]);
    let mut c = q.connect(None);
    for t in ["events_waits_summary_global_by_event_name", "setup_instruments", "threads", "global_status"] {
        let n: Option<u64> = c.query_first(format!("SELECT COUNT(*) FROM performance_schema.{t}")).unwrap();
        assert_eq!(n, Some(0), "{t} is empty with performance_schema=OFF");
    }
    let v: Option<(String, String)> = c.query_first("SHOW VARIABLES LIKE 'performance_schema'").unwrap();
    assert_eq!(v.unwrap().1, "OFF");
}

#[test]
fn data_locks_show_the_holder_the_waiter_and_the_wait_between_them() {
    if !oracle::alone("data_locks_show_the_holder_the_waiter_and_the_wait_between_them") {
        return;
    }
    let q = Quire::start(&[("innodb_lock_wait_timeout", "20")]);
    let mut a = q.fresh_db("ps_locks");
    a.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v INT)").unwrap();
    a.query_drop("INSERT INTO t VALUES (1, 0), (2, 0)").unwrap();
    a.query_drop("BEGIN").unwrap();
    a.query_drop("UPDATE t SET v = 1 WHERE id = 1").unwrap();
    let thread_of = |c: &mut mysql::Conn| -> u64 {
        c.query_first("SELECT THREAD_ID FROM performance_schema.threads WHERE PROCESSLIST_ID = CONNECTION_ID()")
            .unwrap()
            .expect("own thread")
    };
    let a_thread = thread_of(&mut a);
    let mut b = q.connect(Some("ps_locks"));
    let b_thread = thread_of(&mut b);
    let waiter = std::thread::spawn(move || {
        b.query_drop("UPDATE t SET v = 2 WHERE id = 1").unwrap();
    });
    let mut probe = q.connect(None);
    let waits = loop {
        let w: Vec<(String, String, u64, u64)> = probe
            .query(
                "SELECT REQUESTING_ENGINE_LOCK_ID, BLOCKING_ENGINE_LOCK_ID, REQUESTING_THREAD_ID, BLOCKING_THREAD_ID \
                 FROM performance_schema.data_lock_waits",
            )
            .unwrap();
        if !w.is_empty() {
            break w;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    assert_eq!(waits.len(), 1, "{waits:?}");
    let (requesting, blocking, req_thread, blk_thread) = waits[0].clone();
    assert_eq!((req_thread, blk_thread), (b_thread, a_thread));
    type Lock = (String, String, String, String, String, String, String, u64);
    let locks: Vec<Lock> = probe
        .query(
            "SELECT ENGINE_LOCK_ID, OBJECT_NAME, INDEX_NAME, LOCK_TYPE, LOCK_MODE, LOCK_STATUS, LOCK_DATA, THREAD_ID \
             FROM performance_schema.data_locks WHERE OBJECT_SCHEMA = 'ps_locks' ORDER BY LOCK_STATUS",
        )
        .unwrap();
    assert_eq!(locks.len(), 2, "{locks:?}");
    let (held, asked) = (&locks[0], &locks[1]);
    assert_eq!((held.5.as_str(), asked.5.as_str()), ("GRANTED", "WAITING"));
    assert_eq!((held.0.as_str(), asked.0.as_str()), (blocking.as_str(), requesting.as_str()));
    for l in [held, asked] {
        assert_eq!((l.1.as_str(), l.2.as_str(), l.3.as_str(), l.6.as_str()), ("t", "PRIMARY", "RECORD", "1"));
        assert!(l.4.starts_with('X'), "{l:?}");
    }
    assert_eq!((held.7, asked.7), (a_thread, b_thread));
    a.query_drop("COMMIT").unwrap();
    waiter.join().unwrap();
    let left: Option<u64> = probe
        .query_first("SELECT COUNT(*) FROM performance_schema.data_locks WHERE OBJECT_SCHEMA = 'ps_locks'")
        .unwrap();
    assert_eq!(left, Some(0), "committed transactions hold nothing");
}
