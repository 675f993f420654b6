//! quire as a replica of quire (`CHANGE REPLICATION SOURCE TO`, `START
//! REPLICA`), with `quire serve` children:
//!
//! - a replica (with `log_bin`, so a second replica chained after it
//!   follows it) applies a source's concurrent transactions over many
//!   column types (NULLs, multibyte and latin1 text, blobs, decimals,
//!   dates and times, ENUM, BIT, JSON, a table without a primary key) and
//!   DDL; it is SIGKILLed mid-stream and restarted (it resumes by itself,
//!   its read_only given at startup), the source is SIGKILLed and
//!   restarted (the replica reconnects); at the end all three servers
//!   hold the same rows;
//! - meanwhile `read_only` refuses a client's write on the replica (1290)
//!   while the applier goes on, `super_read_only` refuses root too, and
//!   SHOW REPLICA STATUS reports positions and Seconds_Behind_Source;
//! - a duplicate key stops the applier with Last_SQL_Errno 1062 and the
//!   position before the failed transaction; START REPLICA retries it.
//! - a client's row lock on the replica makes the applier time out and
//!   apply the transaction again (`replica_transaction_retries`), serial
//!   and parallel; out of retries it stops with 1205.
//! - SOURCE_HEARTBEAT_PERIOD keeps an idle connection alive past
//!   `replica_net_timeout`; without heartbeats the receiver reconnects.
//! - SOURCE_DELAY holds each transaction back until that many seconds
//!   after its commit on the source, shows the wait, survives a restart
//!   of the replica, and STOP REPLICA interrupts it.

mod child;
mod replication;

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use child::Server;
use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder};
use replication::{first_difference, Rows};

const PW: &str = "quire-replica-pw";

fn start(datadir: &Path, log: &Path, extra: &[&str]) -> Server {
    let mut o = vec![child::DURABLE_16M[0], child::DURABLE_16M[1], "--max_binlog_size=65536"];
    o.extend_from_slice(extra);
    Server::start(datadir, log, PW, &o, &|_| {})
}

fn start_on(datadir: &Path, log: &Path, extra: &[&str], port: u16) -> Server {
    let mut o = vec![child::DURABLE_16M[0], child::DURABLE_16M[1], "--max_binlog_size=65536"];
    o.extend_from_slice(extra);
    Server::start_on(datadir, log, PW, &o, port, &|_| {})
}

fn connect_port(port: u16, user: &str, pw: &str, db: Option<&str>) -> mysql::Result<Conn> {
    Conn::new(
        OptsBuilder::new()
            .ip_or_hostname(Some("127.0.0.1"))
            .tcp_port(port)
            .user(Some(user))
            .pass(Some(pw))
            .db_name(db)
            .prefer_socket(false),
    )
}

/// SHOW REPLICA STATUS as name → text (`None`: not configured).
fn status(c: &mut Conn, stmt: &str) -> Option<HashMap<String, String>> {
    let row: Option<mysql::Row> = c.query_first(stmt).unwrap();
    row.map(|r| {
        let cols: Vec<String> = r.columns_ref().iter().map(|c| c.name_str().to_string()).collect();
        cols.into_iter()
            .zip(r.unwrap())
            .map(|(n, v)| {
                let t = match v {
                    mysql::Value::NULL => "NULL".to_string(),
                    mysql::Value::Bytes(b) => String::from_utf8_lossy(&b).into_owned(),
                    v => v.as_sql(true),
                };
                (n, t)
            })
            .collect()
    })
}

fn replica_status(s: &Server) -> HashMap<String, String> {
    status(&mut s.connect(None), "SHOW REPLICA STATUS").expect("the replica is configured")
}

fn master_status(port: u16) -> (String, u64) {
    let mut c = connect_port(port, "root", PW, None).unwrap();
    c.query_first::<(String, u64, String, String), _>("SHOW MASTER STATUS").unwrap().map(|r| (r.0, r.1)).unwrap()
}

/// Waits until `replica` applied everything `source_port`'s log holds now.
fn wait_caught_up(source_port: u16, replica: &Server) {
    wait_caught_up_within(source_port, replica, Duration::from_secs(180));
}

fn wait_caught_up_within(source_port: u16, replica: &Server, within: Duration) {
    let target = master_status(source_port);
    let deadline = Instant::now() + within;
    loop {
        let st = replica_status(replica);
        let at = (st["Relay_Source_Log_File"].clone(), st["Exec_Source_Log_Pos"].parse::<u64>().unwrap_or(0));
        if at == target && st["Replica_SQL_Running"] == "Yes" && st["Replica_IO_Running"] == "Yes" {
            return;
        }
        assert!(st["Last_SQL_Errno"] == "0", "the applier stopped: {st:?}");
        assert!(Instant::now() < deadline, "the replica did not catch up with {target:?}: {st:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Waits until the applier stops (an error); SHOW REPLICA STATUS then.
fn wait_applier_stopped(replica: &Server) -> HashMap<String, String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let st = replica_status(replica);
        if st["Replica_SQL_Running"] == "No" {
            return st;
        }
        assert!(Instant::now() < deadline, "the applier did not stop: {st:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits until the replica's applied position passes `target` (same file
/// or a later one).
fn wait_applied_past(replica: &Server, target: &(String, u64)) {
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let st = replica_status(replica);
        let file = st["Relay_Source_Log_File"].clone();
        let pos = st["Exec_Source_Log_Pos"].parse::<u64>().unwrap_or(0);
        if file > target.0 || (file == target.0 && pos >= target.1) {
            return;
        }
        assert!(st["Last_SQL_Errno"] == "0", "the applier stopped: {st:?}");
        assert!(Instant::now() < deadline, "the replica did not reach {target:?}: {st:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A source with `log_bin` and a replica following it (options after
/// the server ids), caught up once `setup` ran on the source.
fn source_and_replica(dir: &Path, source_opts: &[&str], replica_opts: &[&str], setup: &[&str]) -> (Server, Server) {
    let source_opts: Vec<&str> = ["--log_bin=ON", "--server_id=1"].iter().chain(source_opts).copied().collect();
    let replica_opts: Vec<&str> = ["--server_id=2"].iter().chain(replica_opts).copied().collect();
    let source = start(&dir.join("s"), &dir.join("s.err"), &source_opts);
    let replica = start(&dir.join("r"), &dir.join("r.err"), &replica_opts);
    let mut s = source.connect(None);
    for q in setup {
        s.query_drop(*q).unwrap();
    }
    follow(&replica, source.port, "root", PW);
    wait_caught_up(source.port, &replica);
    (source, replica)
}

fn follow(replica: &Server, source_port: u16, user: &str, pw: &str) {
    let mut c = replica.connect(None);
    c.query_drop(format!(
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={source_port}, SOURCE_USER='{user}', \
         SOURCE_PASSWORD='{pw}', SOURCE_LOG_FILE='binlog.000001', SOURCE_LOG_POS=4, SOURCE_CONNECT_RETRY=1"
    ))
    .unwrap();
    c.query_drop("START REPLICA").unwrap();
}

/// Every table of `db` on the server at `port`, in full-row order.
fn contents(port: u16, db: &str) -> Vec<(String, Rows)> {
    replication::contents(&mut connect_port(port, "root", PW, None).unwrap(), db)
}

const SCHEMA: &[&str] = &[
    "CREATE DATABASE rq",
    "CREATE TABLE rq.items (id BIGINT PRIMARY KEY, n INT, name VARCHAR(40), price DECIMAL(14,4), \
     made DATETIME(6), seen TIMESTAMP(3) NULL, day DATE, dur TIME(2), yr YEAR, flags BIT(10), \
     kind ENUM('small','medium','large'), tags SET('red','green','blue'), body BLOB, ratio DOUBLE, \
     score FLOAT, doc JSON, u BIGINT UNSIGNED)",
    "CREATE TABLE rq.loose (a INT, b VARCHAR(12), c DECIMAL(6,2))",
    "CREATE TABLE rq.old (id INT PRIMARY KEY, s VARCHAR(30) CHARACTER SET latin1, t TEXT)",
    "CREATE TABLE rq.counters (k INT PRIMARY KEY, n INT NOT NULL)",
];

/// One writer's transactions until `stop`; reconnects when the source
/// goes away.
fn writer(port: &AtomicU64, w: i64, stop: &AtomicBool, committed: &AtomicU64) {
    let mut conn: Option<Conn> = None;
    let mut seq = 0i64;
    while !stop.load(Ordering::Relaxed) {
        let Some(c) = conn.as_mut() else {
            conn = connect_port(port.load(Ordering::Relaxed) as u16, "root", PW, Some("rq")).ok();
            if conn.is_none() {
                std::thread::sleep(Duration::from_millis(100));
            }
            continue;
        };
        seq += 1;
        let id = w * 1_000_000 + seq;
        let r = (|| -> mysql::Result<()> {
            c.query_drop("BEGIN")?;
            let name = ["ünïcødé", "日本語テキスト", "emoji 🎉", "plain", "x'quote"][(seq % 5) as usize];
            let null_seen = seq % 3 == 0;
            c.exec_drop(
                "INSERT INTO items VALUES (?, ?, ?, ?, '2024-02-29 13:14:15.123456', ?, '1999-12-31', '-12:34:56.78', \
                 2024, b'1010101010', ?, 'red,blue', ?, ?, 1.5, ?, ?)",
                (
                    id,
                    if seq % 4 == 0 { None } else { Some(seq) },
                    name,
                    format!("{}.{:04}", seq * 7 - 500, seq % 10_000),
                    if null_seen { None } else { Some("2021-06-01 00:00:01.5") },
                    ["small", "medium", "large"][(seq % 3) as usize],
                    vec![(seq % 256) as u8, 0u8, 255u8, b'\\', b'\''],
                    (seq as f64) / 3.0,
                    format!("{{\"w\": {w}, \"s\": [{seq}, \"é\"]}}"),
                    u64::MAX - seq as u64,
                ),
            )?;
            c.exec_drop("UPDATE items SET n = COALESCE(n, 0) + 1, name = CONCAT(name, '·') WHERE id = ?", (id - 2,))?;
            if seq % 5 == 0 {
                c.exec_drop("DELETE FROM items WHERE id = ?", (id - 4,))?;
            }
            c.exec_drop("INSERT INTO loose VALUES (?, ?, ?)", (w, format!("w{w}s{}", seq % 7), seq % 100))?;
            if seq % 3 == 0 {
                c.exec_drop(
                    "UPDATE loose SET c = c + 1 WHERE a = ? AND b = ? LIMIT 1",
                    (w, format!("w{w}s{}", seq % 7)),
                )?;
            }
            if seq % 6 == 0 {
                c.exec_drop("DELETE FROM loose WHERE a = ? AND b = ? LIMIT 1", (w, format!("w{w}s{}", (seq + 1) % 7)))?;
            }
            c.exec_drop("INSERT INTO old VALUES (?, ?, ?)", (id as i32 % 2_000_000_000, "café crème", "t"))?;
            c.exec_drop("INSERT INTO counters VALUES (?, 1) ON DUPLICATE KEY UPDATE n = n + 1", (seq % 10,))?;
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

/// DDL while `ddl_ok`; says it is idle in `ddl_idle`.
fn ddl_loop(port: &AtomicU64, stop: &AtomicBool, ddl_ok: &AtomicBool, ddl_idle: &AtomicBool) {
    let mut n = 0u32;
    while !stop.load(Ordering::Relaxed) {
        if !ddl_ok.load(Ordering::SeqCst) {
            ddl_idle.store(true, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(20));
            continue;
        }
        ddl_idle.store(false, Ordering::SeqCst);
        let Ok(mut c) = connect_port(port.load(Ordering::Relaxed) as u16, "root", PW, Some("rq")) else { continue };
        n += 1;
        let _ = c.query_drop(format!("CREATE TABLE d{n} (id INT PRIMARY KEY, v VARCHAR(10))"));
        let _ = c.query_drop(format!("INSERT INTO d{n} VALUES (1, 'x'), (2, NULL)"));
        if n.is_multiple_of(2) {
            let _ = c.query_drop(format!("ALTER TABLE d{n} ADD COLUMN w INT DEFAULT 7"));
            let _ = c.query_drop(format!("UPDATE d{n} SET w = w + id"));
        }
        if n > 2 && n.is_multiple_of(3) {
            let _ = c.query_drop(format!("DROP TABLE d{}", n - 2));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Pauses the DDL loop and waits until it is idle.
fn pause_ddl(ok: &AtomicBool, idle: &AtomicBool) {
    ok.store(false, Ordering::SeqCst);
    idle.store(false, Ordering::SeqCst);
    while !idle.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn code(e: mysql::Error) -> u16 {
    match e {
        mysql::Error::MySqlError(e) => e.code,
        other => panic!("not a server error: {other}"),
    }
}

#[test]
fn a_quire_replica_and_its_own_replica_follow_a_source_through_kills_of_both() {
    let dir = tempfile::tempdir().unwrap();
    let (sd, rd, r2d) = (dir.path().join("source"), dir.path().join("replica"), dir.path().join("replica2"));
    let source = start(&sd, &dir.path().join("s1.err"), &["--log_bin=ON", "--server_id=1"]);
    let sport = Arc::new(AtomicU64::new(u64::from(source.port)));
    {
        let mut c = source.connect(None);
        c.query_drop("CREATE USER repl IDENTIFIED BY 'replpw'").unwrap();
        c.query_drop("GRANT REPLICATION SLAVE ON *.* TO repl").unwrap();
        for s in SCHEMA {
            c.query_drop(s).unwrap();
        }
    }
    let r_opts = ["--log_bin=ON", "--server_id=2"];
    let replica = start(&rd, &dir.path().join("r1.err"), &r_opts);
    {
        let mut c = replica.connect(None);
        assert!(status(&mut c, "SHOW REPLICA STATUS").is_none(), "not configured: no row");
        // A client without SUPER, and a database of the replica's own.
        c.query_drop("CREATE USER app IDENTIFIED BY 'apppw'").unwrap();
        c.query_drop("GRANT ALL ON rq.* TO app").unwrap();
        c.query_drop("CREATE DATABASE own_db").unwrap();
        c.query_drop("CREATE TABLE own_db.x (id INT PRIMARY KEY)").unwrap();
    }
    follow(&replica, source.port, "repl", "replpw");
    // The chained replica applies with one thread (the serial applier),
    // the first with four workers (the default).
    let replica2 = start(&r2d, &dir.path().join("r2.err"), &["--server_id=3", "--replica_parallel_workers=0"]);
    follow(&replica2, replica.port, "root", PW);

    let stop = Arc::new(AtomicBool::new(false));
    let ddl_ok = Arc::new(AtomicBool::new(true));
    let ddl_idle = Arc::new(AtomicBool::new(false));
    let committed = Arc::new(AtomicU64::new(0));
    let mut threads = Vec::new();
    for w in 1..=4 {
        let (p, st, cm) = (sport.clone(), stop.clone(), committed.clone());
        threads.push(std::thread::spawn(move || writer(&p, w, &st, &cm)));
    }
    {
        let (p, st, ok, idle) = (sport.clone(), stop.clone(), ddl_ok.clone(), ddl_idle.clone());
        threads.push(std::thread::spawn(move || ddl_loop(&p, &st, &ok, &idle)));
    }
    std::thread::sleep(Duration::from_millis(2000));

    // read_only on the replica while the applier applies.
    {
        let mut root = replica.connect(None);
        root.query_drop("SET GLOBAL read_only = ON").unwrap();
        let mut app = connect_port(replica.port, "app", "apppw", Some("rq")).unwrap();
        let e = app.query_drop("INSERT INTO counters VALUES (1000, 1)").unwrap_err();
        assert_eq!(code(e), 1290, "a client without SUPER is refused");
        let e = app.query_drop("CREATE TABLE rq.nope (a INT)").unwrap_err();
        assert_eq!(code(e), 1290, "DDL is refused");
        app.query_drop("CREATE TEMPORARY TABLE tmp (a INT)").unwrap();
        app.query_drop("INSERT INTO tmp VALUES (1)").unwrap();
        root.query_drop("INSERT INTO own_db.x VALUES (1)").unwrap();
        let before = replica_status(&replica);
        root.query_drop("SET GLOBAL super_read_only = ON").unwrap();
        let ro: (u8, u8) = root.query_first("SELECT @@global.read_only, @@global.super_read_only").unwrap().unwrap();
        assert_eq!(ro, (1, 1));
        let e = root.query_drop("INSERT INTO own_db.x VALUES (2)").unwrap_err();
        assert_eq!(code(e), 1290, "super_read_only refuses root");
        // The applier is exempt: the applied position moves on.
        let start_pos =
            (before["Relay_Source_Log_File"].clone(), before["Exec_Source_Log_Pos"].parse::<u64>().unwrap());
        let target = master_status(source.port);
        assert!(target > start_pos, "the source moved on");
        wait_applied_past(&replica, &target);
        let st = replica_status(&replica);
        assert_eq!(st["Replica_IO_Running"], "Yes", "{st:?}");
        assert_ne!(st["Seconds_Behind_Source"], "NULL", "{st:?}");
        assert!(st["Read_Source_Log_Pos"].parse::<u64>().unwrap() >= 4, "{st:?}");
        assert!(st["Relay_Log_File"].starts_with("quire-relay-bin."), "{st:?}");
        let old: HashMap<String, String> = status(&mut root, "SHOW SLAVE STATUS").expect("configured");
        assert!(old.contains_key("Seconds_Behind_Master") && old.contains_key("Exec_Master_Log_Pos"));
        root.query_drop("SET GLOBAL read_only = OFF").unwrap();
        let ro: (u8, u8) = root.query_first("SELECT @@global.read_only, @@global.super_read_only").unwrap().unwrap();
        assert_eq!(ro, (0, 0), "read_only=OFF clears super_read_only");
    }

    // SIGKILL the replica mid-stream (DDL paused and applied first: a DDL
    // statement commits before its position, docs/ARCHITECTURE.md).
    pause_ddl(&ddl_ok, &ddl_idle);
    let at = master_status(source.port);
    wait_applied_past(&replica, &at);
    let rport = replica.port;
    replica.kill();
    std::thread::sleep(Duration::from_millis(500));
    // Restarted with super_read_only in its options: read_only follows.
    let replica =
        start_on(&rd, &dir.path().join("r1b.err"), &["--log_bin=ON", "--server_id=2", "--super_read_only=ON"], rport);
    {
        let mut c = replica.connect(None);
        let ro: (u8, u8) = c.query_first("SELECT @@global.read_only, @@global.super_read_only").unwrap().unwrap();
        assert_eq!(ro, (1, 1), "super_read_only=ON at startup sets read_only");
    }
    ddl_ok.store(true, Ordering::SeqCst);
    std::thread::sleep(Duration::from_millis(1500));

    // SIGKILL and restart the source: the replica reconnects.
    pause_ddl(&ddl_ok, &ddl_idle);
    std::thread::sleep(Duration::from_millis(200));
    let port = source.port;
    source.kill();
    std::thread::sleep(Duration::from_millis(1500));
    let source = start_on(&sd, &dir.path().join("s2.err"), &["--log_bin=ON", "--server_id=1"], port);
    ddl_ok.store(true, Ordering::SeqCst);
    std::thread::sleep(Duration::from_millis(2000));
    stop.store(true, Ordering::SeqCst);
    for t in threads {
        t.join().unwrap();
    }
    let total = committed.load(Ordering::Relaxed);
    assert!(total > 50, "too little load: {total}");

    wait_caught_up(source.port, &replica);
    wait_caught_up(replica.port, &replica2);
    let st = replica_status(&replica);
    assert_eq!(st["Seconds_Behind_Source"], "0", "caught up: {st:?}");
    assert_eq!(st["Last_IO_Errno"], "0", "{st:?}");
    let on_source = contents(source.port, "rq");
    let on_replica = contents(replica.port, "rq");
    let on_replica2 = contents(replica2.port, "rq");
    let shape = |c: &[(String, Rows)]| c.iter().map(|(t, r)| (t.clone(), r.len())).collect::<Vec<_>>();
    assert_eq!(shape(&on_source), shape(&on_replica), "tables and row counts differ on the replica");
    assert!(
        on_source == on_replica,
        "the replica's rows differ from the source's: {}",
        first_difference(&on_source, &on_replica)
    );
    assert_eq!(shape(&on_source), shape(&on_replica2), "tables and row counts differ on the chained replica");
    assert!(
        on_source == on_replica2,
        "the chained replica's rows differ from the source's: {}",
        first_difference(&on_source, &on_replica2)
    );
    eprintln!("{total} transactions, {} tables equal on both replicas", on_source.len());
}

#[test]
fn a_duplicate_key_stops_the_applier_and_start_replica_retries_the_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let (source, replica) = source_and_replica(
        dir.path(),
        &[],
        &[],
        &[
            "CREATE DATABASE rq",
            "CREATE TABLE rq.t (id INT PRIMARY KEY, v VARCHAR(10))",
            "INSERT INTO rq.t VALUES (1, 'a')",
        ],
    );
    let mut s = source.connect(None);
    let mut r = replica.connect(None);
    // Not read_only: a write on the replica that the source then repeats.
    r.query_drop("INSERT INTO rq.t VALUES (2, 'replica')").unwrap();
    let before = master_status(source.port);
    s.query_drop("INSERT INTO rq.t VALUES (2, 'source')").unwrap();
    let st = wait_applier_stopped(&replica);
    assert_eq!(st["Last_SQL_Errno"], "1062", "{st:?}");
    assert!(st["Last_SQL_Error"].contains("Write_rows") && st["Last_SQL_Error"].contains("rq.t"), "{st:?}");
    assert_eq!(st["Replica_IO_Running"], "Yes", "the receiver goes on: {st:?}");
    assert_eq!(st["Seconds_Behind_Source"], "NULL", "{st:?}");
    assert_eq!(st["Exec_Source_Log_Pos"], before.1.to_string(), "the position stays before the failed transaction");
    // CHANGE needs the replica stopped.
    let e = r.query_drop("CHANGE REPLICATION SOURCE TO SOURCE_CONNECT_RETRY=2").unwrap_err();
    assert_eq!(code(e), 1198);
    r.query_drop("DELETE FROM rq.t WHERE id = 2").unwrap();
    r.query_drop("START REPLICA").unwrap();
    wait_caught_up(source.port, &replica);
    let v: Option<String> = r.query_first("SELECT v FROM rq.t WHERE id = 2").unwrap();
    assert_eq!(v.as_deref(), Some("source"));
    r.query_drop("STOP REPLICA").unwrap();
    let st = replica_status(&replica);
    assert_eq!((st["Replica_IO_Running"].as_str(), st["Replica_SQL_Running"].as_str()), ("No", "No"));
    assert_eq!(st["Last_SQL_Errno"], "0", "a successful start clears the error: {st:?}");
    // A client without REPLICATION_SLAVE_ADMIN / SUPER.
    r.query_drop("CREATE USER app IDENTIFIED BY 'apppw'").unwrap();
    let mut app = connect_port(replica.port, "app", "apppw", None).unwrap();
    assert_eq!(code(app.query_drop("START REPLICA").unwrap_err()), 1227);
    assert_eq!(code(app.query_drop("SHOW REPLICA STATUS").unwrap_err()), 1227);
}

#[test]
fn a_replica_reaches_the_sources_new_file_when_the_last_transaction_rotated_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let (source, replica) = source_and_replica(
        dir.path(),
        &[],
        &[],
        &["CREATE DATABASE rq", "CREATE TABLE rq.t (id INT PRIMARY KEY, b LONGBLOB)"],
    );
    let mut s = source.connect(None);
    // Quiet for longer than the receiver's sync interval (the
    // transaction is synced as it arrives, what follows it is not), then
    // one transaction past max_binlog_size: the source sends it, its
    // ROTATE and the new file's header in one burst, then nothing more.
    // The replica must reach the new file's header end (SHOW MASTER
    // STATUS) with no later transaction to carry it there.
    let within = Duration::from_secs(30);
    std::thread::sleep(Duration::from_millis(200));
    let before = master_status(source.port);
    s.exec_drop("INSERT INTO rq.t VALUES (1, ?)", (vec![7u8; 70_000],)).unwrap();
    let after = master_status(source.port);
    assert!(after.0 > before.0 && after.1 < 1000, "the transaction rotated the log: {before:?} {after:?}");
    wait_caught_up_within(source.port, &replica, within);
    // The new file is followed from its header on.
    s.query_drop("INSERT INTO rq.t VALUES (2, 'x')").unwrap();
    wait_caught_up_within(source.port, &replica, within);
    // FLUSH BINARY LOGS: the same burst without a transaction.
    std::thread::sleep(Duration::from_millis(200));
    s.query_drop("FLUSH BINARY LOGS").unwrap();
    wait_caught_up_within(source.port, &replica, within);
    let n: u64 = replica.connect(None).query_first("SELECT COUNT(*) FROM rq.t").unwrap().unwrap();
    assert_eq!(n, 2);
}

/// The parallel applier (`replica_parallel_workers`, MySQL's
/// LOGICAL_CLOCK scheduling with `replica_preserve_commit_order`): two
/// source transactions that committed in one binary log group
/// (`binlog_group_commit_sync_delay` gathers them) are applied at once
/// by two workers; while a replica client's row lock holds the first,
/// the second, applied, waits for it and is not visible (commit order),
/// and gives its row locks back meanwhile (a later transaction yields to
/// an earlier one waiting for a row lock, so none waits for ever); once
/// the client commits, both are applied and the replica is the source.
#[test]
fn a_parallel_replica_applies_a_group_at_once_and_commits_in_the_sources_order() {
    let dir = tempfile::tempdir().unwrap();
    let (source, replica) = source_and_replica(
        dir.path(),
        &["--binlog_group_commit_sync_delay=1000000"],
        &["--slave_parallel_workers=4"],
        &[
            "CREATE DATABASE rq",
            "CREATE TABLE rq.t (id INT PRIMARY KEY, v INT)",
            "INSERT INTO rq.t VALUES (1, 0), (2, 0)",
        ],
    );
    let mut r = replica.connect(None);
    let workers: (u64, u8, String) = r
        .query_first("SELECT @@replica_parallel_workers, @@replica_preserve_commit_order, @@replica_parallel_type")
        .unwrap()
        .unwrap();
    assert_eq!(workers, (4, 1, "LOGICAL_CLOCK".to_string()));
    let e = r.query_drop("SET GLOBAL replica_preserve_commit_order = OFF").unwrap_err();
    assert_eq!(code(e), 1235, "only the source's commit order is kept");
    let running: u64 = r
        .query_first(
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE = 'Waiting for an event from Coordinator'",
        )
        .unwrap()
        .unwrap();
    assert_eq!(running, 4, "four workers wait for transactions");
    let mut holder = replica.connect(None);
    holder.query_drop("BEGIN").unwrap();
    let _: Vec<(i64, i64)> = holder.query("SELECT id, v FROM rq.t WHERE id = 1 FOR UPDATE").unwrap();
    // Two source transactions on different rows, committed within the
    // delay: one group.
    let mut a = source.connect(None);
    let mut b = source.connect(None);
    a.query_drop("BEGIN").unwrap();
    a.query_drop("UPDATE rq.t SET v = 1 WHERE id = 1").unwrap();
    b.query_drop("BEGIN").unwrap();
    b.query_drop("UPDATE rq.t SET v = 2 WHERE id = 2").unwrap();
    let ta = std::thread::spawn(move || a.query_drop("COMMIT").unwrap());
    std::thread::sleep(Duration::from_millis(100));
    b.query_drop("COMMIT").unwrap();
    ta.join().unwrap();
    // The second waits for the first, which waits for the client's lock.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let states: Vec<String> =
            r.query("SELECT STATE FROM information_schema.PROCESSLIST WHERE STATE <> '' ORDER BY ID").unwrap();
        if states.iter().any(|st| st == "Waiting for preceding transaction to commit") {
            break;
        }
        assert!(Instant::now() < deadline, "no worker waits for its turn: {states:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    let rows: Vec<(i64, i64)> = r.query("SELECT id, v FROM rq.t ORDER BY id").unwrap();
    assert_eq!(rows, [(1, 0), (2, 0)], "the second is not committed before the first");
    // Its row lock was given back while it waited: a client takes it.
    let mut other = replica.connect(None);
    other.query_drop("SET SESSION innodb_lock_wait_timeout = 30").unwrap();
    other.query_drop("BEGIN").unwrap();
    let _: Vec<(i64, i64)> = other.query("SELECT id, v FROM rq.t WHERE id = 2 FOR UPDATE").unwrap();
    other.query_drop("COMMIT").unwrap();
    holder.query_drop("COMMIT").unwrap();
    wait_caught_up(source.port, &replica);
    let rows: Vec<(i64, i64)> = r.query("SELECT id, v FROM rq.t ORDER BY id").unwrap();
    assert_eq!(rows, [(1, 1), (2, 2)]);
    let st = replica_status(&replica);
    assert_eq!(st["Last_SQL_Errno"], "0", "{st:?}");
}

/// `Slave_retried_transactions` of the server at `port`.
fn retried(port: u16) -> u64 {
    let mut c = connect_port(port, "root", PW, None).unwrap();
    let row: Option<(String, u64)> = c.query_first("SHOW GLOBAL STATUS LIKE 'Slave_retried_transactions'").unwrap();
    row.expect("the status variable exists").1
}

/// A client of the replica holds a row that the source's transaction
/// changes: the applier's lock wait times out (1205), it rolls the
/// transaction back and applies it again, until the client lets go
/// (`replica_transaction_retries`, each retry counted in
/// `Slave_retried_transactions`); out of retries, the applier stops with
/// 1205 and the position before the transaction, and START REPLICA
/// applies it. With the serial applier and with parallel workers.
#[test]
fn a_transaction_that_times_out_on_a_replicas_row_lock_is_applied_again() {
    for workers in ["0", "2"] {
        let dir = tempfile::tempdir().unwrap();
        let w = format!("--replica_parallel_workers={workers}");
        let (source, replica) = source_and_replica(
            dir.path(),
            &[],
            &["--innodb_lock_wait_timeout=1", &w],
            &[
                "CREATE DATABASE rt",
                "CREATE TABLE rt.t (id INT PRIMARY KEY, v VARCHAR(10))",
                "INSERT INTO rt.t VALUES (1, 'a')",
            ],
        );
        let mut s = source.connect(None);
        let mut r = replica.connect(None);
        let retries: (u64, u64) =
            r.query_first("SELECT @@replica_transaction_retries, @@slave_transaction_retries").unwrap().unwrap();
        assert_eq!(retries, (10, 10), "MySQL's default, under both names");
        assert_eq!(retried(replica.port), 0);

        // Held for a while: the applier times out and tries again.
        let mut holder = replica.connect(None);
        holder.query_drop("BEGIN").unwrap();
        let _: Vec<(i64, String)> = holder.query("SELECT id, v FROM rt.t WHERE id = 1 FOR UPDATE").unwrap();
        s.query_drop("UPDATE rt.t SET v = 'b' WHERE id = 1").unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        while retried(replica.port) == 0 {
            let st = replica_status(&replica);
            assert_eq!(st["Replica_SQL_Running"], "Yes", "workers={workers}: {st:?}");
            assert!(Instant::now() < deadline, "workers={workers}: no retry: {st:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
        let v: String = r.query_first("SELECT v FROM rt.t WHERE id = 1").unwrap().unwrap();
        assert_eq!(v, "a", "workers={workers}: not applied while the client holds the row");
        holder.query_drop("COMMIT").unwrap();
        wait_caught_up(source.port, &replica);
        let v: String = r.query_first("SELECT v FROM rt.t WHERE id = 1").unwrap().unwrap();
        assert_eq!(v, "b", "workers={workers}");
        let st = replica_status(&replica);
        assert_eq!(st["Last_SQL_Errno"], "0", "workers={workers}: {st:?}");

        // One retry allowed: the second timeout stops the applier.
        r.query_drop("SET GLOBAL slave_transaction_retries = 1").unwrap();
        let before_retries = retried(replica.port);
        holder.query_drop("BEGIN").unwrap();
        let _: Vec<(i64, String)> = holder.query("SELECT id, v FROM rt.t WHERE id = 1 FOR UPDATE").unwrap();
        let before = master_status(source.port);
        s.query_drop("UPDATE rt.t SET v = 'c' WHERE id = 1").unwrap();
        let st = wait_applier_stopped(&replica);
        assert_eq!(st["Last_SQL_Errno"], "1205", "workers={workers}: {st:?}");
        assert!(st["Last_SQL_Error"].contains("retried transaction 1 time(s) in vain"), "workers={workers}: {st:?}");
        assert_eq!(st["Exec_Source_Log_Pos"], before.1.to_string(), "workers={workers}: before the transaction");
        assert_eq!(retried(replica.port), before_retries + 1, "workers={workers}");
        holder.query_drop("COMMIT").unwrap();
        r.query_drop("START REPLICA").unwrap();
        wait_caught_up(source.port, &replica);
        let v: String = r.query_first("SELECT v FROM rt.t WHERE id = 1").unwrap().unwrap();
        assert_eq!(v, "c", "workers={workers}");
    }
}

/// `@@gtid_executed` of the server at `port`.
fn executed_at(port: u16) -> String {
    let mut c = connect_port(port, "root", PW, None).unwrap();
    c.query_first::<String, _>("SELECT @@gtid_executed").unwrap().unwrap_or_default()
}

/// Waits until the replica's `gtid_executed` is the source's.
fn wait_same_gtids(source_port: u16, replica: &Server) {
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let (want, have) = (executed_at(source_port), executed_at(replica.port));
        if want == have {
            return;
        }
        let st = replica_status(replica);
        assert!(st["Last_SQL_Errno"] == "0", "the applier stopped: {st:?}");
        assert!(Instant::now() < deadline, "the replica has {have}, the source {want}: {st:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// GTID replication (MySQL 8.0's): a replica logging with `gtid_mode=ON`
/// applies each transaction under the source's GTID, so its
/// `gtid_executed` is the source's; with SOURCE_AUTO_POSITION = 1 it
/// asks for the GTIDs it lacks, not a file and position: after RESET
/// REPLICA forgot the position (where file/position replication would
/// start again at the first file and stop on a duplicate key), and after
/// a SIGKILL mid-stream, it receives exactly what it lacks.
#[test]
fn an_auto_positioned_replica_keeps_the_sources_gtids_and_fetches_only_what_it_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let gtids = ["--log_bin=ON", "--gtid_mode=ON", "--enforce_gtid_consistency=ON"];
    let with = |id: &'static str| -> Vec<&'static str> { gtids.iter().copied().chain([id]).collect() };
    let source = start(&dir.path().join("s"), &dir.path().join("s.err"), &with("--server_id=1"));
    let (rdir, rlog) = (dir.path().join("r"), dir.path().join("r.err"));
    let replica = start(&rdir, &rlog, &with("--server_id=2"));
    let mut s = source.connect(None);
    s.query_drop("CREATE DATABASE rq").unwrap();
    s.query_drop("CREATE TABLE rq.t (id INT PRIMARY KEY, v VARCHAR(20))").unwrap();
    for i in 0..20 {
        s.query_drop(format!("INSERT INTO rq.t VALUES ({i}, 'first')")).unwrap();
    }
    // File and position first: the GTIDs are kept all the same.
    follow(&replica, source.port, "root", PW);
    wait_same_gtids(source.port, &replica);
    let source_uuid: String = s.query_first("SELECT @@server_uuid").unwrap().unwrap();
    assert_eq!(executed_at(replica.port), format!("{source_uuid}:1-22"));
    let mut r = replica.connect(None);
    r.query_drop("STOP REPLICA").unwrap();
    r.query_drop("RESET REPLICA").unwrap();
    for i in 20..30 {
        s.query_drop(format!("INSERT INTO rq.t VALUES ({i}, 'second')")).unwrap();
    }
    r.query_drop("CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION = 1").unwrap();
    r.query_drop("START REPLICA").unwrap();
    wait_same_gtids(source.port, &replica);
    let st = replica_status(&replica);
    assert_eq!(st["Auto_Position"], "1", "{st:?}");
    assert_eq!(st["Retrieved_Gtid_Set"], format!("{source_uuid}:23-32"), "only what it lacked: {st:?}");
    assert_eq!(st["Executed_Gtid_Set"], format!("{source_uuid}:1-32"), "{st:?}");
    drop(r);
    // A kill while the source writes: the restarted replica resumes by
    // its GTIDs.
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let mut wc = source.connect(None);
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut i = 1000;
            while !stop.load(Ordering::Relaxed) {
                wc.query_drop(format!("INSERT INTO rq.t VALUES ({i}, 'third')")).unwrap();
                i += 1;
            }
        })
    };
    std::thread::sleep(Duration::from_millis(700));
    replica.kill();
    std::thread::sleep(Duration::from_millis(300));
    let replica = start(&rdir, &rlog, &with("--server_id=2"));
    std::thread::sleep(Duration::from_millis(500));
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    wait_same_gtids(source.port, &replica);
    assert_eq!(contents(replica.port, "rq"), contents(source.port, "rq"));
    let n: u64 = replica.connect(None).query_first("SELECT COUNT(*) FROM rq.t WHERE v = 'third'").unwrap().unwrap();
    assert!(n > 10, "the kill came mid-stream: {n} rows");
}

/// SOURCE_DELAY (MASTER_DELAY): a transaction received at once is applied
/// only SOURCE_DELAY seconds after its commit on the source (its GTID
/// event's commit timestamp, rounded up to a second as MySQL's);
/// meanwhile SHOW REPLICA STATUS shows SQL_Delay, SQL_Remaining_Delay
/// and MySQL's waiting state. The delay is kept across a restart of the
/// replica (in `slave_relay_log_info.Sql_delay`), STOP REPLICA ends a
/// wait at once, RESET REPLICA sets it back to 0, and a value past
/// 2^31 - 1 is refused with 1729.
#[test]
fn a_delayed_replica_applies_each_transaction_source_delay_seconds_after_the_source_committed_it() {
    let dir = tempfile::tempdir().unwrap();
    let (source, replica) =
        source_and_replica(dir.path(), &[], &[], &["CREATE DATABASE rq", "CREATE TABLE rq.t (id INT PRIMARY KEY)"]);
    let mut r = replica.connect(None);
    r.query_drop("STOP REPLICA").unwrap();
    let e = r.query_drop("CHANGE MASTER TO MASTER_DELAY = 2147483648").unwrap_err();
    assert_eq!(code(e), 1729);
    r.query_drop("CHANGE REPLICATION SOURCE TO SOURCE_DELAY = 5").unwrap();
    assert_eq!(replica_status(&replica)["SQL_Delay"], "5");
    r.query_drop("START REPLICA").unwrap();
    let count = |r: &mut Conn| -> u64 { r.query_first("SELECT COUNT(*) FROM rq.t").unwrap().unwrap() };

    let mut s = source.connect(None);
    let t0 = Instant::now();
    s.query_drop("INSERT INTO rq.t VALUES (1)").unwrap();
    let target = master_status(source.port);
    // Received at once, held back.
    let deadline = Instant::now() + Duration::from_secs(60);
    let waiting = loop {
        let st = replica_status(&replica);
        if st["SQL_Remaining_Delay"] != "NULL" {
            break st;
        }
        assert!(st["Last_SQL_Errno"] == "0" && Instant::now() < deadline, "no delay shown: {st:?}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let shown_at = t0.elapsed();
    assert_eq!(waiting["Replica_SQL_Running_State"], "Waiting until SOURCE_DELAY seconds after source executed event");
    assert_eq!(waiting["Read_Source_Log_Pos"], target.1.to_string(), "{waiting:?}");
    // The commit time rounded up to a second, as MySQL's.
    assert!(waiting["SQL_Remaining_Delay"].parse::<u64>().unwrap() <= 6, "{waiting:?}");
    if shown_at < Duration::from_secs(4) {
        assert_eq!(count(&mut r), 0, "applied while the delay runs");
    }
    wait_caught_up(source.port, &replica);
    assert!(t0.elapsed() >= Duration::from_millis(4900), "applied after {:?}, SOURCE_DELAY = 5", t0.elapsed());
    assert_eq!(count(&mut r), 1);
    assert_eq!(replica_status(&replica)["SQL_Remaining_Delay"], "NULL");

    // Kept across a restart; STOP REPLICA ends a wait at once.
    drop(r);
    let rport = replica.port;
    replica.kill();
    let replica = start_on(&dir.path().join("r"), &dir.path().join("r2.err"), &["--server_id=2"], rport);
    assert_eq!(replica_status(&replica)["SQL_Delay"], "5");
    let mut r = replica.connect(None);
    r.query_drop("STOP REPLICA").unwrap();
    r.query_drop("CHANGE REPLICATION SOURCE TO SOURCE_DELAY = 3600").unwrap();
    r.query_drop("START REPLICA").unwrap();
    s.query_drop("INSERT INTO rq.t VALUES (2)").unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while replica_status(&replica)["SQL_Remaining_Delay"] == "NULL" {
        assert!(Instant::now() < deadline, "no delay shown");
        std::thread::sleep(Duration::from_millis(20));
    }
    let stop = Instant::now();
    r.query_drop("STOP REPLICA").unwrap();
    assert!(stop.elapsed() < Duration::from_secs(60), "STOP REPLICA waited for the delay");
    assert_eq!(count(&mut r), 1);
    // Without the delay the transaction held back is applied.
    r.query_drop("CHANGE REPLICATION SOURCE TO SOURCE_DELAY = 0").unwrap();
    r.query_drop("START REPLICA").unwrap();
    wait_caught_up(source.port, &replica);
    assert_eq!(count(&mut r), 2);
    // RESET REPLICA sets it back to 0, as MySQL's.
    r.query_drop("STOP REPLICA").unwrap();
    r.query_drop("CHANGE REPLICATION SOURCE TO SOURCE_DELAY = 7").unwrap();
    assert_eq!(replica_status(&replica)["SQL_Delay"], "7");
    r.query_drop("RESET REPLICA").unwrap();
    assert_eq!(replica_status(&replica)["SQL_Delay"], "0");
}

/// The source's dump threads (their process list ids).
fn dump_threads(port: u16) -> Vec<u64> {
    connect_port(port, "root", PW, None)
        .unwrap()
        .query("SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'")
        .unwrap()
}

/// `replica_net_timeout` and SOURCE_HEARTBEAT_PERIOD: with heartbeats
/// every 0.5 s an idle source's connection outlives a 2 s net timeout
/// (the same dump thread serves it throughout); with none (0) the
/// receiver, hearing nothing for 2 s, reconnects (a new dump thread).
/// Out of range is 1624, under a millisecond is 0 with warning 1703, a
/// period above the timeout is accepted with warning 1704 (as MariaDB
/// 10.11 answers each); the period is kept in `slave_master_info.Heartbeat`.
#[test]
fn heartbeats_keep_an_idle_source_connected_past_replica_net_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let (source, replica) = source_and_replica(dir.path(), &[], &[], &["CREATE DATABASE rq"]);
    let mut r = replica.connect(None);
    r.query_drop("SET GLOBAL slave_net_timeout = 2").unwrap();
    r.query_drop("STOP REPLICA").unwrap();
    let e = r.query_drop("CHANGE REPLICATION SOURCE TO SOURCE_HEARTBEAT_PERIOD = 4294968").unwrap_err();
    assert_eq!(code(e), 1624);
    // Under a millisecond: none, with warning 1703 (MariaDB's and MySQL's).
    r.query_drop("CHANGE MASTER TO MASTER_HEARTBEAT_PERIOD = 0.0001").unwrap();
    let w: Vec<(String, u16, String)> = r.query("SHOW WARNINGS").unwrap();
    assert_eq!(w.iter().map(|w| w.1).collect::<Vec<_>>(), vec![1703], "{w:?}");
    let hb: Option<f64> = r.query_first("SELECT Heartbeat FROM mysql.slave_master_info").unwrap().unwrap();
    assert_eq!(hb, Some(0.0));
    r.query_drop("CHANGE MASTER TO MASTER_HEARTBEAT_PERIOD = 3").unwrap();
    let w: Vec<(String, u16, String)> = r.query("SHOW WARNINGS").unwrap();
    assert_eq!(w.iter().map(|w| w.1).collect::<Vec<_>>(), vec![1704], "{w:?}");
    r.query_drop("CHANGE REPLICATION SOURCE TO SOURCE_HEARTBEAT_PERIOD = 0.5").unwrap();
    let hb: Option<f64> = r.query_first("SELECT Heartbeat FROM mysql.slave_master_info").unwrap().unwrap();
    assert_eq!(hb, Some(0.5));
    r.query_drop("START REPLICA").unwrap();
    wait_caught_up(source.port, &replica);
    // The dump of the first START leaves at once (a newer dump of the
    // same server id stops it).
    let deadline = Instant::now() + Duration::from_secs(10);
    let first = loop {
        let d = dump_threads(source.port);
        if d.len() == 1 {
            break d;
        }
        assert!(Instant::now() < deadline, "the replica's older dump stayed: {d:?}");
        std::thread::sleep(Duration::from_millis(50));
    };
    // Idle for more than twice the net timeout: still the same connection.
    std::thread::sleep(Duration::from_secs(5));
    assert_eq!(dump_threads(source.port), first, "the receiver reconnected although heartbeats came");
    assert_eq!(replica_status(&replica)["Replica_IO_Running"], "Yes");

    // No heartbeats: silence past the timeout, and the receiver reconnects.
    r.query_drop("STOP REPLICA").unwrap();
    r.query_drop("CHANGE REPLICATION SOURCE TO SOURCE_HEARTBEAT_PERIOD = 0").unwrap();
    r.query_drop("START REPLICA").unwrap();
    wait_caught_up(source.port, &replica);
    let deadline = Instant::now() + Duration::from_secs(60);
    let second = loop {
        let d = dump_threads(source.port);
        if d.len() == 1 && d != first {
            break d;
        }
        assert!(Instant::now() < deadline, "no dump thread: {d:?}");
        std::thread::sleep(Duration::from_millis(100));
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let d = dump_threads(source.port);
        if d.iter().any(|id| !second.contains(id)) {
            break;
        }
        assert!(Instant::now() < deadline, "no reconnect after 60 s of silence with a 2 s timeout");
        std::thread::sleep(Duration::from_millis(100));
    }
    // Still replicating after it.
    source.connect(None).query_drop("CREATE TABLE rq.t (a INT PRIMARY KEY)").unwrap();
    wait_caught_up(source.port, &replica);
}
