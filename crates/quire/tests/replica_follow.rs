//! quire as a replication source, with a real MariaDB 10.11 replica
//! started by the test (`CHANGE MASTER TO ... MASTER_USE_GTID=no`,
//! `START SLAVE`) following a `quire serve` child:
//!
//! - under several writers (transactions of inserts, updates and deletes,
//!   upserts, DDL, rotations forced by a small `max_binlog_size` and by
//!   FLUSH BINARY LOGS), through a SIGKILL and restart of quire, after
//!   which the replica reconnects by itself; at the end both hold the
//!   same rows and the replica shows no error;
//! - a transaction the log holds but the engine has not committed
//!   (`QUIRE_BINLOG_PAUSE_AT=engine_commit`) is never sent, and is gone
//!   after the restart, on quire and on the replica alike; heartbeats
//!   arrive while the replica waits;
//! - a replica user without REPLICATION SLAVE, and a replica asking for
//!   a purged file, get MySQL's errors (1227, 1236);
//! - python-mysql-replication (when importable) streams row events with
//!   column names under `binlog_row_metadata=FULL`, and ends at the log's
//!   end (BINLOG_DUMP_NON_BLOCK).

mod child;
mod mariadb;
mod replication;

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use child::Server;
use mariadb::{field, Mariadb};
use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder};
use replication::{contents, first_difference};

const PW: &str = "replica-follow-pw";

fn options(extra: &[&'static str]) -> Vec<&'static str> {
    let mut o = vec![
        child::DURABLE_16M[0],
        child::DURABLE_16M[1],
        "--log_bin=ON",
        "--sync_binlog=1",
        "--server_id=1",
        "--max_binlog_size=16384",
        "--binlog_expire_logs_seconds=0",
    ];
    o.extend_from_slice(extra);
    o
}

fn start(datadir: &Path, log: &Path, extra: &[&'static str], pause: bool) -> Server {
    Server::start(datadir, log, PW, &options(extra), &|cmd| {
        cmd.env_remove("QUIRE_BINLOG_PAUSE_AT");
        if pause {
            cmd.env("QUIRE_BINLOG_PAUSE_AT", "engine_commit");
        }
    })
}

fn restart(datadir: &Path, log: &Path, port: u16) -> Server {
    Server::start_on(datadir, log, PW, &options(&[]), port, &|cmd| {
        cmd.env_remove("QUIRE_BINLOG_PAUSE_AT");
    })
}

fn skip() -> bool {
    if !mariadb::available() {
        eprintln!("mariadbd is not installed: skipped");
        return true;
    }
    false
}

/// The replication user and one without the privilege.
fn create_users(c: &mut Conn) {
    c.query_drop("CREATE USER repl IDENTIFIED BY 'replpw'").unwrap();
    c.query_drop("GRANT REPLICATION SLAVE ON *.* TO repl").unwrap();
    c.query_drop("CREATE USER norepl IDENTIFIED BY 'norepl'").unwrap();
}

fn follow(replica: &Mariadb, port: u16, user: &str, file: &str) {
    let pw = if user == "repl" { "replpw" } else { user };
    let mut c = replica.connect();
    let _ = c.query_drop("STOP SLAVE");
    c.query_drop(format!(
        "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={port}, MASTER_USER='{user}', \
         MASTER_PASSWORD='{pw}', MASTER_LOG_FILE='{file}', MASTER_LOG_POS=4, MASTER_USE_GTID=no, \
         MASTER_CONNECT_RETRY=1, MASTER_HEARTBEAT_PERIOD=1"
    ))
    .unwrap();
    c.query_drop("START SLAVE").unwrap();
}

/// quire's SHOW MASTER STATUS.
fn master_status(s: &Server) -> (String, u64) {
    let mut c = s.connect(None);
    c.query_first::<(String, u64, String, String), _>("SHOW MASTER STATUS").unwrap().map(|r| (r.0, r.1)).unwrap()
}

/// Waits until the replica executed everything quire's log holds now,
/// with both threads running; fails with the replica's status if not.
fn wait_caught_up(s: &Server, replica: &Mariadb) {
    let target = master_status(s);
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let st = replica.slave_status();
        let at =
            (field(&st, "Relay_Master_Log_File").to_string(), field(&st, "Exec_Master_Log_Pos").parse().unwrap_or(0));
        if at == target && field(&st, "Slave_IO_Running") == "Yes" && field(&st, "Slave_SQL_Running") == "Yes" {
            return;
        }
        assert!(Instant::now() < deadline, "the replica did not catch up with {target:?}: {st:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn assert_no_replication_error(replica: &Mariadb) {
    let st = replica.slave_status();
    for f in ["Last_Errno", "Last_IO_Errno", "Last_SQL_Errno"] {
        assert_eq!(field(&st, f), "0", "{f}: {st:?}");
    }
    assert_eq!(field(&st, "Slave_IO_Running"), "Yes", "{st:?}");
    assert_eq!(field(&st, "Slave_SQL_Running"), "Yes", "{st:?}");
}

fn connect_port(port: u16, db: Option<&str>) -> mysql::Result<Conn> {
    Conn::new(
        OptsBuilder::new()
            .ip_or_hostname(Some("127.0.0.1"))
            .tcp_port(port)
            .user(Some("root"))
            .pass(Some(PW))
            .db_name(db)
            .prefer_socket(false),
    )
}

/// A writer's loop until `stop`: reconnects (the server may be down) and
/// goes on; returns the transactions it saw committed.
fn writer(port: u16, w: i64, stop: Arc<AtomicBool>, committed: Arc<AtomicU64>) {
    let mut conn: Option<Conn> = None;
    let mut seq = 0i64;
    while !stop.load(Ordering::Relaxed) {
        let Some(c) = conn.as_mut() else {
            conn = connect_port(port, Some("rf")).ok();
            if conn.is_none() {
                std::thread::sleep(Duration::from_millis(100));
            }
            continue;
        };
        seq += 1;
        let id = w * 1_000_000 + seq;
        let r = (|| -> mysql::Result<()> {
            c.query_drop("BEGIN")?;
            c.exec_drop("INSERT INTO a VALUES (?, ?, REPEAT('p', 30))", (id, w))?;
            c.exec_drop("INSERT INTO a VALUES (?, ?, NULL)", (id + 500_000, w))?;
            c.exec_drop("UPDATE a SET n = n + 1, pad = 'upd' WHERE id = ?", (id - 3,))?;
            if seq % 4 == 0 {
                c.exec_drop("DELETE FROM a WHERE id = ?", (id + 500_000 - 8,))?;
            }
            c.exec_drop("INSERT INTO b VALUES (?, 1) ON DUPLICATE KEY UPDATE n = n + 1", (seq % 40,))?;
            c.query_drop("COMMIT")
        })();
        match r {
            Ok(()) => {
                committed.fetch_add(1, Ordering::Relaxed);
            }
            Err(_) => conn = None,
        }
    }
}

/// DDL while `ddl_ok`: tables created, filled and dropped, FLUSH BINARY
/// LOGS now and then. Paused around the kill: a DDL statement is not
/// atomic with its log event (docs/ARCHITECTURE.md "Binary log"), so a
/// kill between the two would leave a table the replica never hears of.
fn ddl_loop(port: u16, stop: Arc<AtomicBool>, ddl_ok: Arc<AtomicBool>, ddl_idle: Arc<AtomicBool>) {
    let mut n = 0u32;
    while !stop.load(Ordering::Relaxed) {
        if !ddl_ok.load(Ordering::SeqCst) {
            ddl_idle.store(true, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(20));
            continue;
        }
        ddl_idle.store(false, Ordering::SeqCst);
        if !ddl_ok.load(Ordering::SeqCst) {
            continue;
        }
        let Ok(mut c) = connect_port(port, Some("rf")) else { continue };
        n += 1;
        let _ = c.query_drop(format!("CREATE TABLE t{n} (id INT PRIMARY KEY, v VARCHAR(10))"));
        let _ = c.query_drop(format!("INSERT INTO t{n} VALUES (1, 'x'), (2, 'y')"));
        if n.is_multiple_of(2) {
            let _ = c.query_drop(format!("ALTER TABLE t{n} ADD COLUMN w INT DEFAULT 7"));
            let _ = c.query_drop(format!("UPDATE t{n} SET w = w + id"));
        }
        if n > 2 && n.is_multiple_of(3) {
            let _ = c.query_drop(format!("DROP TABLE t{}", n - 2));
        }
        if n.is_multiple_of(4) {
            let _ = c.query_drop("FLUSH BINARY LOGS");
        }
        std::thread::sleep(Duration::from_millis(150));
    }
}

#[test]
fn a_mariadb_replica_follows_quire_through_rotations_ddl_and_a_sigkill() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let datadir = dir.path().join("data");
    let s = start(&datadir, &dir.path().join("quire1.err"), &[], false);
    let port = s.port;
    {
        let mut c = s.connect(None);
        create_users(&mut c);
        c.query_drop("CREATE DATABASE rf").unwrap();
        c.query_drop("CREATE TABLE rf.a (id BIGINT PRIMARY KEY, n INT, pad VARCHAR(40))").unwrap();
        c.query_drop("CREATE TABLE rf.b (k INT PRIMARY KEY, n INT)").unwrap();
    }
    let replica = Mariadb::start(&dir.path().join("replica"), 2);
    follow(&replica, port, "repl", "binlog.000001");

    let stop = Arc::new(AtomicBool::new(false));
    let ddl_ok = Arc::new(AtomicBool::new(true));
    let ddl_idle = Arc::new(AtomicBool::new(false));
    let committed = Arc::new(AtomicU64::new(0));
    let mut threads = Vec::new();
    for w in 1..=4 {
        let (stop, committed) = (stop.clone(), committed.clone());
        threads.push(std::thread::spawn(move || writer(port, w, stop, committed)));
    }
    {
        let (stop, ok, idle) = (stop.clone(), ddl_ok.clone(), ddl_idle.clone());
        threads.push(std::thread::spawn(move || ddl_loop(port, stop, ok, idle)));
    }
    std::thread::sleep(Duration::from_millis(2500));
    {
        let mut c = s.connect(None);
        let hosts: Vec<(u32, String, u32, u32)> = c.query("SHOW SLAVE HOSTS").unwrap();
        assert!(hosts.iter().any(|h| h.0 == 2), "the replica is not registered: {hosts:?}");
    }
    // The kill, mid-load (DDL paused, see `ddl_loop`).
    ddl_ok.store(false, Ordering::SeqCst);
    while !ddl_idle.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(300));
    let before_kill = committed.load(Ordering::Relaxed);
    s.kill();
    let s = restart(&datadir, &dir.path().join("quire2.err"), port);
    ddl_ok.store(true, Ordering::SeqCst);
    std::thread::sleep(Duration::from_millis(2500));
    stop.store(true, Ordering::SeqCst);
    for t in threads {
        t.join().unwrap();
    }
    let total = committed.load(Ordering::Relaxed);
    assert!(before_kill > 20 && total > before_kill + 20, "too little load: {before_kill} then {total}");

    wait_caught_up(&s, &replica);
    assert_no_replication_error(&replica);
    let mut q = s.connect(None);
    let files: Vec<(String, u64)> = q.query("SHOW BINARY LOGS").unwrap();
    assert!(files.len() >= 4, "the log should have rotated several times: {files:?}");
    let on_quire = contents(&mut q, "rf");
    let on_replica = contents(&mut replica.connect(), "rf");
    assert_eq!(
        on_quire.iter().map(|(t, r)| (t.clone(), r.len())).collect::<Vec<_>>(),
        on_replica.iter().map(|(t, r)| (t.clone(), r.len())).collect::<Vec<_>>(),
        "tables and row counts differ"
    );
    assert!(
        on_quire == on_replica,
        "the replica's rows differ from quire's: {}",
        first_difference(&on_quire, &on_replica)
    );
    eprintln!("{total} transactions, {} log files, {} tables equal on the replica", files.len(), on_quire.len());
}

#[test]
fn a_transaction_logged_but_not_durable_in_the_engine_is_never_sent() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let datadir = dir.path().join("data");
    let log = dir.path().join("quire1.err");
    // Every logged transaction stops after its events are written and
    // synced, before its engine commit; DDL is not held there.
    let s = start(&datadir, &log, &[], true);
    let port = s.port;
    {
        let mut c = s.connect(None);
        create_users(&mut c);
        c.query_drop("CREATE DATABASE rf").unwrap();
        c.query_drop("CREATE TABLE rf.p (id INT PRIMARY KEY)").unwrap();
    }
    let replica = Mariadb::start(&dir.path().join("replica"), 3);
    follow(&replica, port, "repl", "binlog.000001");
    wait_caught_up(&s, &replica);
    let sent = master_status(&s);
    let writer = std::thread::spawn(move || {
        let mut c = connect_port(port, Some("rf")).unwrap();
        // Never answered: the server pauses, then is killed.
        let _ = c.query_drop("INSERT INTO p VALUES (1)");
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    while master_status(&s) == sent {
        assert!(Instant::now() < deadline, "the insert never reached the log");
        std::thread::sleep(Duration::from_millis(20));
    }
    let logged = master_status(&s);
    let heartbeats = |r: &Mariadb| -> u64 {
        let v: Option<(String, String)> =
            r.connect().query_first("SHOW GLOBAL STATUS LIKE 'Slave_received_heartbeats'").unwrap();
        v.map_or(0, |v| v.1.parse().unwrap_or(0))
    };
    let beats_before = heartbeats(&replica);
    std::thread::sleep(Duration::from_millis(3500));
    let st = replica.slave_status();
    assert_eq!(
        (field(&st, "Master_Log_File").to_string(), field(&st, "Read_Master_Log_Pos").parse::<u64>().unwrap()),
        sent,
        "the replica received bytes past the durable end (the log is at {logged:?})"
    );
    assert!(heartbeats(&replica) > beats_before, "no heartbeat while the replica waited");
    let n: Option<u64> = replica.connect().query_first("SELECT COUNT(*) FROM rf.p").unwrap();
    assert_eq!(n, Some(0));

    s.kill();
    let _ = writer.join();
    let s = restart(&datadir, &dir.path().join("quire2.err"), port);
    let err = std::fs::read_to_string(dir.path().join("quire2.err")).unwrap();
    assert!(err.contains("the engine did not commit"), "the restart did not cut the log:\n{err}");
    s.connect(None).query_drop("INSERT INTO rf.p VALUES (2)").unwrap();
    wait_caught_up(&s, &replica);
    assert_no_replication_error(&replica);
    let on_quire: Vec<i32> = s.connect(None).query("SELECT id FROM rf.p ORDER BY id").unwrap();
    let on_replica: Vec<i32> = replica.connect().query("SELECT id FROM rf.p ORDER BY id").unwrap();
    assert_eq!(on_quire, vec![2]);
    assert_eq!(on_replica, on_quire);
}

#[test]
fn replicas_without_the_privilege_or_asking_for_a_purged_file_get_mysqls_errors() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let s = start(&dir.path().join("data"), &dir.path().join("quire.err"), &[], false);
    {
        let mut c = s.connect(None);
        create_users(&mut c);
        c.query_drop("CREATE DATABASE gone").unwrap();
        c.query_drop("FLUSH BINARY LOGS").unwrap();
        c.query_drop("PURGE BINARY LOGS TO 'binlog.000002'").unwrap();
        c.query_drop("CREATE DATABASE rf").unwrap();
        c.query_drop("CREATE TABLE rf.z (id INT PRIMARY KEY)").unwrap();
        c.query_drop("INSERT INTO rf.z VALUES (1)").unwrap();
    }
    let replica = Mariadb::start(&dir.path().join("replica"), 4);
    let wait_io_error = |code: &str| -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let st = replica.slave_status();
            if field(&st, "Last_IO_Errno") == code {
                return field(&st, "Last_IO_Error").to_string();
            }
            assert!(Instant::now() < deadline, "no IO error {code}: {st:?}");
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    follow(&replica, s.port, "norepl", "binlog.000002");
    // MariaDB wraps the source's 1227 in its 1597 (registration failed).
    let e = wait_io_error("1597");
    assert!(e.contains("REPLICATION SLAVE") && e.contains("1227"), "{e}");
    follow(&replica, s.port, "repl", "binlog.000001");
    let e = wait_io_error("1236");
    assert!(e.contains("Could not find first log file name in binary log index file"), "{e}");
    // From the first file that is still there, all is well.
    follow(&replica, s.port, "repl", "binlog.000002");
    wait_caught_up(&s, &replica);
    assert_no_replication_error(&replica);
    // `gone` was created in the purged file: the replica has what followed.
    let dbs: Vec<String> = replica.connect().query("SHOW DATABASES LIKE 'gone'").unwrap();
    assert!(dbs.is_empty(), "{dbs:?}");
    let ids: Vec<i32> = replica.connect().query("SELECT id FROM rf.z").unwrap();
    assert_eq!(ids, vec![1]);
}

/// The Python with `pymysqlreplication` importable: `QUIRE_TEST_PYTHON`
/// or `python3`.
fn python_with_replication() -> Option<String> {
    let py = std::env::var("QUIRE_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = Command::new(&py).args(["-c", "import pymysqlreplication"]).output().is_ok_and(|o| o.status.success());
    ok.then_some(py)
}

const CDC: &str = r#"
import sys, json
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.row_event import WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent
s = BinLogStreamReader(connection_settings={"host": "127.0.0.1", "port": int(sys.argv[1]), "user": "repl", "passwd": "replpw"},
                       server_id=77, blocking=False, log_file="binlog.000001", log_pos=4, resume_stream=True,
                       only_events=[WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent])
for ev in s:
    for r in ev.rows:
        print(json.dumps({"type": type(ev).__name__, "table": ev.schema + "." + ev.table, "row": r}, sort_keys=True, default=str))
s.close()
"#;

#[test]
fn python_mysql_replication_streams_rows_with_column_names() {
    let Some(py) = python_with_replication() else {
        eprintln!("python-mysql-replication is not importable (set QUIRE_TEST_PYTHON): skipped");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let s = start(&dir.path().join("data"), &dir.path().join("quire.err"), &["--binlog_row_metadata=FULL"], false);
    let mut c = s.connect(None);
    create_users(&mut c);
    c.query_drop("CREATE DATABASE shop").unwrap();
    c.query_drop("CREATE TABLE shop.item (id INT PRIMARY KEY, name VARCHAR(20), qty INT)").unwrap();
    c.query_drop("INSERT INTO shop.item VALUES (1, 'apple', 3), (2, 'pear', NULL)").unwrap();
    c.query_drop("UPDATE shop.item SET qty = 4 WHERE id = 1").unwrap();
    c.query_drop("DELETE FROM shop.item WHERE id = 2").unwrap();
    let out = Command::new(&py).args(["-c", CDC, &s.port.to_string()]).output().unwrap();
    assert!(out.status.success(), "the reader failed: {}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect();
    let expected = [
        r#"{"row": {"none_sources": {}, "values": {"id": 1, "name": "apple", "qty": 3}}, "table": "shop.item", "type": "WriteRowsEvent"}"#,
        r#"{"row": {"none_sources": {"qty": "null"}, "values": {"id": 2, "name": "pear", "qty": null}}, "table": "shop.item", "type": "WriteRowsEvent"}"#,
        r#"{"row": {"after_none_sources": {}, "after_values": {"id": 1, "name": "apple", "qty": 4}, "before_none_sources": {}, "before_values": {"id": 1, "name": "apple", "qty": 3}}, "table": "shop.item", "type": "UpdateRowsEvent"}"#,
        r#"{"row": {"none_sources": {"qty": "null"}, "values": {"id": 2, "name": "pear", "qty": null}}, "table": "shop.item", "type": "DeleteRowsEvent"}"#,
    ];
    assert_eq!(lines, expected);
}

const CDC_GTID: &str = r#"
import sys
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.event import GtidEvent
from pymysqlreplication.row_event import WriteRowsEvent
s = BinLogStreamReader(connection_settings={"host": "127.0.0.1", "port": int(sys.argv[1]), "user": "repl", "passwd": "replpw"},
                       server_id=78, blocking=False, auto_position=sys.argv[2], only_events=[GtidEvent, WriteRowsEvent])
for ev in s:
    if isinstance(ev, GtidEvent):
        print("gtid " + ev.gtid)
    else:
        for r in ev.rows:
            print("row %d" % r["values"]["id"])
s.close()
"#;

/// COM_BINLOG_DUMP_GTID from python-mysql-replication's `auto_position`:
/// the reader gets every transaction after the set it says it holds,
/// with their GTIDs, and none of those it holds.
#[test]
fn python_mysql_replication_auto_position_gets_only_what_it_lacks() {
    let Some(py) = python_with_replication() else {
        eprintln!("python-mysql-replication is not importable (set QUIRE_TEST_PYTHON): skipped");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let gtid =
        ["--gtid_mode=ON", "--enforce_gtid_consistency=ON", "--max_binlog_size=4096", "--binlog_row_metadata=FULL"];
    let s = start(&dir.path().join("data"), &dir.path().join("quire.err"), &gtid, false);
    let mut c = s.connect(None);
    create_users(&mut c);
    c.query_drop("CREATE DATABASE shop").unwrap();
    c.query_drop("CREATE TABLE shop.item (id INT PRIMARY KEY, name VARCHAR(200))").unwrap();
    let uuid: String = c.query_first("SELECT @@server_uuid").unwrap().unwrap();
    let base: u64 = {
        let e: String = c.query_first("SELECT @@gtid_executed").unwrap().unwrap();
        e.rsplit('-').next().unwrap().parse().unwrap()
    };
    // Enough rows to rotate the log a few times.
    for id in 1..=40 {
        c.exec_drop("INSERT INTO shop.item VALUES (?, REPEAT('x', 150))", (id,)).unwrap();
    }
    let files: Vec<(String, u64)> = c.query("SHOW BINARY LOGS").unwrap();
    assert!(files.len() > 2, "{files:?}");
    let held = format!("{uuid}:1-{}", base + 30);
    let out = Command::new(&py).args(["-c", CDC_GTID, &s.port.to_string(), &held]).output().unwrap();
    assert!(out.status.success(), "the reader failed: {}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect();
    let mut expected = vec![];
    for id in 31..=40u64 {
        expected.push(format!("gtid {uuid}:{}", base + id));
        expected.push(format!("row {id}"));
    }
    assert_eq!(lines, expected);
}
