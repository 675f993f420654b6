//! `thread_handling=pool-of-threads`: connections are served by a few
//! workers, not a thread each. Proven here: a worker blocked in a row-lock
//! wait does not stall its group (the lock's owner, in the same group,
//! still gets served); a statement that runs long without blocking does
//! not keep the others waiting past the stall limit; idle connections
//! cost no thread; commands pipelined in one write are all answered;
//! `wait_timeout` and KILL end parked connections; the variables act at
//! runtime and the status counts the workers (a new stall limit at
//! once); a session's own `thread_pool_priority` orders the queue.
//!
//! Nothing here leans on how long a statement runs: the long ones spin
//! until KILL QUERY stops them, and each step waits for what it needs to
//! see (the process list, the pool's tables, the kernel's socket queues).

mod oracle;

mod proto_support;

use std::io::Write;
use std::sync::{mpsc, Arc};
use std::time::Duration;

use mysql::prelude::Queryable;
use oracle::Quire;
use quire_server::proto::pool::{Settings, ThreadPool};
use quire_server::proto::{Listener, ListenerOptions};

fn status(c: &mut mysql::Conn, name: &str) -> u64 {
    let row: Option<(String, String)> = c.query_first(format!("SHOW GLOBAL STATUS LIKE '{name}'")).unwrap();
    row.unwrap_or_else(|| panic!("no status {name}")).1.parse().unwrap()
}

/// One group, one active worker at a time: the strictest pool.
fn one_group(extra: &[(&'static str, &'static str)]) -> Quire {
    let mut settings = vec![
        ("thread_handling", "pool-of-threads"),
        ("thread_pool_size", "1"),
        ("thread_pool_oversubscribe", "1"),
        ("innodb_lock_wait_timeout", "30"),
    ];
    settings.extend_from_slice(extra);
    Quire::start(&settings)
}

#[test]
fn a_worker_blocked_on_a_row_lock_does_not_stall_its_group() {
    let q = one_group(&[]);
    let mut a = q.fresh_db("tp_lock");
    a.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v INT)").unwrap();
    a.query_drop("INSERT INTO t VALUES (1, 0), (2, 0)").unwrap();
    a.query_drop("BEGIN").unwrap();
    a.query_drop("UPDATE t SET v = 1 WHERE id = 1").unwrap();
    // Several connections wait for a's lock, each holding a worker.
    let waiters: Vec<_> = (0..3)
        .map(|i| {
            let mut c = q.connect(Some("tp_lock"));
            std::thread::spawn(move || {
                c.query_drop(format!("UPDATE t SET v = v + 10 WHERE id = 1 /* {i} */")).map(|()| c)
            })
        })
        .collect();
    let mut probe = q.connect(None);
    while status(&mut probe, "Innodb_row_lock_current_waits") < 3 {
        std::thread::sleep(Duration::from_millis(10));
    }
    // Others are served meanwhile, and so is the lock's owner: had the
    // group waited for its blocked workers, a's COMMIT would sit in the
    // queue until every waiter timed out (1205).
    let n: Option<i64> = probe.query_first("SELECT COUNT(*) FROM tp_lock.t WHERE id = 2").unwrap();
    assert_eq!(n, Some(1));
    a.query_drop("COMMIT").unwrap();
    for w in waiters {
        w.join().unwrap().expect("each waiter gets the lock in turn: no 1205");
    }
    let v: Option<i64> = a.query_first("SELECT v FROM t WHERE id = 1").unwrap();
    assert_eq!(v, Some(31));
    assert!(status(&mut probe, "Threadpool_threads") >= 4, "a worker per blocked statement, plus one");
    // Each of them told the group it waited for a row lock.
    let waits: Option<u64> =
        probe.query_first("SELECT COUNT FROM information_schema.THREAD_POOL_WAITS WHERE REASON = 'ROW_LOCK'").unwrap();
    assert!(waits.unwrap() >= 3, "{waits:?} row-lock waits counted");
}

#[test]
fn a_long_statement_that_never_blocks_does_not_keep_the_group_from_others() {
    let q = one_group(&[("thread_pool_stall_limit", "50")]);
    let mut long = q.connect(None);
    long.query_drop("SET SESSION cte_max_recursion_depth = 100000000").unwrap();
    let (tx, rx) = mpsc::channel();
    let runner = std::thread::spawn(move || {
        // Pure CPU for a few seconds: the group's only active worker.
        let n: Option<i64> = long
            .query_first(
                "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3000000) \
                 SELECT COUNT(*) FROM c",
            )
            .unwrap();
        tx.send("long").unwrap();
        n
    });
    let mut probe = q.connect(None);
    // Wait until the long statement runs (its end before the probe saw
    // it running means the probe waited for it: the group stalled).
    loop {
        assert!(rx.try_recv().is_err(), "the probe was not served while the long statement ran");
        let running: Vec<(u64, String)> = probe
            .query(
                "SELECT ID, COALESCE(INFO, '') FROM information_schema.PROCESSLIST WHERE INFO LIKE 'WITH RECURSIVE%'",
            )
            .unwrap();
        if !running.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    // The timer finds the queue stuck and lets a second worker serve it:
    // short statements finish while the long one still runs.
    for _ in 0..5 {
        let one: Option<i64> = probe.query_first("SELECT 1").unwrap();
        assert_eq!(one, Some(1));
    }
    assert!(rx.try_recv().is_err(), "the short statements finished first");
    assert_eq!(runner.join().unwrap(), Some(3_000_000));
    assert!(status(&mut probe, "Threadpool_threads") >= 2);
}

#[test]
fn idle_connections_hold_no_thread() {
    let q = Quire::start(&[("thread_handling", "pool-of-threads"), ("thread_pool_size", "2")]);
    let mut conns: Vec<mysql::Conn> = (0..150).map(|_| q.connect(None)).collect();
    for (i, c) in conns.iter_mut().enumerate() {
        let v: Option<u64> = c.query_first(format!("SELECT {i}")).unwrap();
        assert_eq!(v, Some(i as u64));
    }
    let mut probe = q.connect(None);
    assert_eq!(status(&mut probe, "Threads_connected"), 151);
    let threads = status(&mut probe, "Threadpool_threads");
    assert!(threads < 20, "150 idle connections kept {threads} workers");
    assert!(status(&mut probe, "Threadpool_idle_threads") <= threads);
    // The OS agrees: far fewer threads than connections.
    let os_threads = std::fs::read_dir("/proc/self/task").unwrap().count();
    assert!(os_threads < 150, "{os_threads} threads in the process");
}

#[test]
fn commands_pipelined_in_one_write_are_all_answered() {
    // The protocol's toy backend, served by a pool of one group.
    let pool = ThreadPool::start(1, Arc::new(Settings::default())).unwrap();
    let l = Listener::bind(Some("127.0.0.1:0"), None).unwrap();
    let h =
        l.spawn_with_pool(Arc::new(proto_support::Toy::new(1 << 20)), ListenerOptions::default(), Some(pool)).unwrap();
    let mut raw = proto_support::Raw::login(h.local_addr().unwrap());
    // Two COM_QUERYs in one write: the second waits in the server's read
    // buffer, where epoll does not see it.
    let mut both = Vec::new();
    for sql in ["SELECT 7", "SELECT 8"] {
        let len = (sql.len() + 1) as u32;
        both.extend_from_slice(&len.to_le_bytes()[..3]);
        both.push(0);
        both.push(0x03);
        both.extend_from_slice(sql.as_bytes());
    }
    raw.stream.write_all(&both).unwrap();
    for want in ["7", "8"] {
        raw.seq = 1;
        assert_eq!(raw.read().expect("column count"), [1]);
        let _def = raw.read().expect("column definition");
        let _eof = raw.read().expect("EOF");
        let row = raw.read().expect("the row: both commands are answered, no hang");
        assert_eq!(&row[1..], want.as_bytes());
        let _eof = raw.read().expect("EOF");
    }
    h.stop();
}

#[test]
fn wait_timeout_and_kill_end_parked_connections() {
    let q = Quire::start(&[
        ("thread_handling", "pool-of-threads"),
        ("thread_pool_size", "1"),
        ("thread_pool_stall_limit", "50"),
    ]);
    let mut idle = q.connect(None);
    idle.query_drop("SET SESSION wait_timeout = 1").unwrap();
    let mut victim = q.connect(None);
    let victim_id: Option<u64> = victim.query_first("SELECT CONNECTION_ID()").unwrap();
    let mut admin = q.connect(None);
    admin.query_drop(format!("KILL {}", victim_id.unwrap())).unwrap();
    assert!(victim.query_drop("SELECT 1").is_err(), "a killed parked connection is closed");
    std::thread::sleep(Duration::from_millis(2500));
    assert!(idle.query_drop("SELECT 1").is_err(), "the idle connection was closed after wait_timeout");
    let mut probe = q.connect(None);
    // Only the admin's connection and the probe remain.
    for _ in 0..500 {
        if status(&mut probe, "Threads_connected") == 2 {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("the closed connections are still counted");
}

#[test]
fn the_pool_variables_act_at_runtime() {
    let q = Quire::start(&[("thread_handling", "pool-of-threads"), ("thread_pool_size", "3")]);
    let mut c = q.connect(None);
    let (h, size): (String, u64) = c.query_first("SELECT @@thread_handling, @@thread_pool_size").unwrap().unwrap();
    assert_eq!((h.as_str(), size), ("pool-of-threads", 3));
    for (var, value) in [
        ("thread_pool_oversubscribe", "10"),
        ("thread_pool_stall_limit", "100"),
        ("thread_pool_idle_timeout", "5"),
        ("thread_pool_max_threads", "500"),
        ("thread_pool_prio_kickup_timer", "10"),
        ("thread_pool_priority", "'high'"),
    ] {
        c.query_drop(format!("SET GLOBAL {var} = {value}")).unwrap();
        let v: Option<String> = c.query_first(format!("SELECT @@global.{var}")).unwrap();
        assert_eq!(v.unwrap(), value.trim_matches('\''), "{var}");
    }
    let e = c.query_drop("SET GLOBAL thread_handling = 'one-thread-per-connection'").unwrap_err();
    assert!(e.to_string().contains("1238"), "{e}");
    // Every group starts with a worker.
    assert!(status(&mut c, "Threadpool_threads") >= 3);
    // Without the pool, the counts are there and zero, as in MariaDB.
    let plain = Quire::start(&[("thread_handling", "one-thread-per-connection")]);
    let mut p = plain.connect(None);
    assert_eq!(status(&mut p, "Threadpool_threads"), 0);
}

/// `SET GLOBAL thread_pool_size` as MariaDB's: more groups start (each
/// with its worker), connections keep being served while they move to
/// group `id % size` as they are parked, a smaller size sends them back,
/// and a size beyond the larger of 128 and the startup value is cut
/// there with warning 1292.
#[test]
fn thread_pool_size_changes_at_runtime_and_connections_move_with_it() {
    let q = Quire::start(&[("thread_handling", "pool-of-threads"), ("thread_pool_size", "1")]);
    let mut admin = q.connect(None);
    let mut conns: Vec<mysql::Conn> = (0..8).map(|_| q.connect(None)).collect();
    let ask_all = |conns: &mut Vec<mysql::Conn>, round: u64| {
        for (i, c) in conns.iter_mut().enumerate() {
            let v: Option<u64> = c.query_first(format!("SELECT {round} * 100 + {i}")).unwrap();
            assert_eq!(v, Some(round * 100 + i as u64));
        }
    };
    ask_all(&mut conns, 1);
    admin.query_drop("SET GLOBAL thread_pool_size = 4").unwrap();
    assert!(status(&mut admin, "Threadpool_threads") >= 4, "every new group has its worker");
    // Twice: the first command of each moves it as it is parked.
    ask_all(&mut conns, 2);
    ask_all(&mut conns, 3);
    // A row lock held in one group and waited for in another: both
    // groups serve (a move that lost a connection would hang here).
    admin.query_drop("CREATE DATABASE test").unwrap();
    admin.query_drop("CREATE TABLE test.moved (id INT PRIMARY KEY, n INT)").unwrap();
    admin.query_drop("INSERT INTO test.moved VALUES (1, 0)").unwrap();
    conns[0].query_drop("BEGIN").unwrap();
    conns[0].query_drop("UPDATE test.moved SET n = n + 1 WHERE id = 1").unwrap();
    let mut waiter = conns.pop().unwrap();
    let t = std::thread::spawn(move || {
        waiter.query_drop("UPDATE test.moved SET n = n + 10 WHERE id = 1").unwrap();
        waiter
    });
    std::thread::sleep(Duration::from_millis(200));
    conns[0].query_drop("COMMIT").unwrap();
    conns.push(t.join().unwrap());
    let n: Option<u64> = admin.query_first("SELECT n FROM test.moved").unwrap();
    assert_eq!(n, Some(11));
    admin.query_drop("SET GLOBAL thread_pool_size = 2").unwrap();
    ask_all(&mut conns, 4);
    ask_all(&mut conns, 5);
    let fresh: Vec<mysql::Conn> = (0..4).map(|_| q.connect(None)).collect();
    conns.extend(fresh);
    ask_all(&mut conns, 6);
    admin.query_drop("SET GLOBAL thread_pool_size = 500").unwrap();
    let w: Vec<(String, u16, String)> = admin.query("SHOW WARNINGS").unwrap();
    assert_eq!(w, [("Warning".to_string(), 1292, "Truncated incorrect thread_pool_size value: '500'".to_string())]);
    let size: Option<u64> = admin.query_first("SELECT @@global.thread_pool_size").unwrap();
    assert_eq!(size, Some(128));
    ask_all(&mut conns, 7);
    admin.query_drop("SET GLOBAL thread_pool_size = 1").unwrap();
    ask_all(&mut conns, 8);
    ask_all(&mut conns, 9);
}

#[test]
fn every_group_gets_its_worker_even_above_thread_pool_max_threads() {
    let q = Quire::start(&[
        ("thread_handling", "pool-of-threads"),
        ("thread_pool_size", "3"),
        ("thread_pool_max_threads", "1"),
    ]);
    // Connection ids spread over the three groups: each is served.
    for i in 0..6u64 {
        let mut c = q.connect(None);
        let v: Option<u64> = c.query_first(format!("SELECT {i}")).unwrap();
        assert_eq!(v, Some(i));
    }
}

/// `thread_pool_priority` is a session variable, as in MariaDB: with
/// the group's two active workers busy, a session that set `high` is
/// queued before one that set `low` though it asked later, and served
/// first (under the global `auto` both would wait in one queue, first
/// come first served).
#[test]
fn a_sessions_own_thread_pool_priority_orders_the_queue() {
    let q = Quire::start(&[
        ("thread_handling", "pool-of-threads"),
        ("thread_pool_size", "2"),
        ("thread_pool_oversubscribe", "1"),
        ("thread_pool_stall_limit", "50"),
        ("thread_pool_prio_kickup_timer", "600000"),
    ]);
    let mut setup = q.fresh_db("tp_prio");
    setup.query_drop("CREATE TABLE served (n INT AUTO_INCREMENT PRIMARY KEY, who VARCHAR(8))").unwrap();
    let (mut probe, busy_group, mut conns) = probe_and_other_group(&q, Some("tp_prio"), 4);
    let (mut high, mut low) = (conns.pop().unwrap(), conns.pop().unwrap());
    let (high_id, low_id) = (connection_id(&mut high), connection_id(&mut low));
    low.query_drop("SET SESSION thread_pool_priority = 'low'").unwrap();
    high.query_drop("SET thread_pool_priority = 'high'").unwrap();
    let (s, g): (String, String) =
        high.query_first("SELECT @@session.thread_pool_priority, @@global.thread_pool_priority").unwrap().unwrap();
    assert_eq!((s.as_str(), g.as_str()), ("high", "auto"));
    // Two statements of pure CPU take both active workers (1 +
    // thread_pool_oversubscribe): the second once the timer has started a
    // worker to listen. Then a long stall limit keeps a third away (the
    // timer takes it at once).
    let long: Vec<_> = conns.into_iter().map(spin_until_killed).collect();
    wait_running(&mut probe, &long);
    probe.query_drop("SET GLOBAL thread_pool_stall_limit = 60000").unwrap();
    let port = q.server.tcp_addr.unwrap().port();
    let low = std::thread::spawn(move || low.query_drop("INSERT INTO served (who) VALUES ('low')").unwrap());
    wait_until("low's request", || unread_requests(port) == 1);
    let high = std::thread::spawn(move || high.query_drop("INSERT INTO served (who) VALUES ('high')").unwrap());
    // Both wait: queued by a listener (a worker the group started while
    // the long statements ran), or, with nobody listening, unread in
    // their sockets until a worker is free to listen and queue them.
    wait_until("both requests to wait", || {
        let (queued, listener): (u64, u64) = probe
            .query_first(format!(
                "SELECT QUEUE_LENGTH, HAS_LISTENER FROM information_schema.THREAD_POOL_GROUPS \
                 WHERE GROUP_ID = {busy_group}"
            ))
            .unwrap()
            .unwrap();
        unread_requests(port) == 2 && (queued == 2 || (queued == 0 && listener == 0))
    });
    let queue: Vec<(u64, u64, u64)> = probe
        .query(format!(
            "SELECT POSITION, PRIORITY, CONNECTION_ID FROM information_schema.THREAD_POOL_QUEUES \
             WHERE GROUP_ID = {busy_group} ORDER BY POSITION"
        ))
        .unwrap();
    if !queue.is_empty() {
        // PRIORITY 0 is high, 1 low, as MariaDB shows them.
        assert_eq!(queue, [(0, 0, high_id), (1, 1, low_id)]);
    }
    // One worker freed serves the queue in its order, one after the other.
    let mut long = long.into_iter();
    let (first, second) = (long.next().unwrap(), long.next().unwrap());
    probe.query_drop(format!("KILL QUERY {}", first.0)).unwrap();
    first.1.join().unwrap();
    high.join().unwrap();
    low.join().unwrap();
    probe.query_drop(format!("KILL QUERY {}", second.0)).unwrap();
    second.1.join().unwrap();
    let order: Vec<String> = setup.query("SELECT who FROM served ORDER BY n").unwrap();
    assert_eq!(order, ["high", "low"]);
}

/// `SET GLOBAL thread_pool_stall_limit` restarts the timer's wait, as in
/// MariaDB: a statement unread behind a long one (nobody listens while the
/// group's worker runs it) is served soon after the limit is shortened,
/// not when the old ten-minute limit would have run out.
#[test]
fn a_shorter_stall_limit_acts_at_once() {
    let q = Quire::start(&[
        ("thread_handling", "pool-of-threads"),
        ("thread_pool_size", "2"),
        ("thread_pool_stall_limit", "600000"),
    ]);
    let (mut probe, _, mut conns) = probe_and_other_group(&q, None, 2);
    let mut short = conns.pop().unwrap();
    let long = vec![spin_until_killed(conns.pop().unwrap())];
    wait_running(&mut probe, &long);
    let (tx, rx) = mpsc::channel();
    let asker = std::thread::spawn(move || {
        let v: Option<i64> = short.query_first("SELECT 7").unwrap();
        tx.send(v).unwrap();
    });
    std::thread::sleep(Duration::from_millis(200));
    assert!(rx.try_recv().is_err(), "nobody listens while the worker runs the long statement");
    probe.query_drop("SET GLOBAL thread_pool_stall_limit = 50").unwrap();
    let answered = rx.recv_timeout(Duration::from_secs(30));
    for (id, h) in long {
        probe.query_drop(format!("KILL QUERY {id}")).unwrap();
        h.join().unwrap();
    }
    assert_eq!(answered, Ok(Some(7)), "served once the timer looked with the new limit");
    asker.join().unwrap();
}

fn connection_id(c: &mut mysql::Conn) -> u64 {
    c.query_first("SELECT CONNECTION_ID()").unwrap().unwrap()
}

/// In a pool of two groups (connection `id` is served by group `id % 2`):
/// a probe, the group the probe is not in, and `n` connections of that
/// group.
fn probe_and_other_group(q: &Quire, db: Option<&str>, n: usize) -> (mysql::Conn, u64, Vec<mysql::Conn>) {
    let mut probe = q.connect(None);
    let group = (connection_id(&mut probe) + 1) % 2;
    let mut conns = Vec::new();
    while conns.len() < n {
        let mut c = q.connect(db);
        if connection_id(&mut c) % 2 == group {
            conns.push(c);
        }
    }
    (probe, group, conns)
}

/// Runs a statement of pure CPU (never a wait the pool is told of) on `c`
/// until KILL QUERY stops it with 1317; its connection id and thread.
fn spin_until_killed(mut c: mysql::Conn) -> (u64, std::thread::JoinHandle<()>) {
    let id = connection_id(&mut c);
    c.query_drop("SET SESSION cte_max_recursion_depth = 4294967295").unwrap();
    let h = std::thread::spawn(move || {
        let e = c
            .query_drop(
                "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 4000000000) \
                 SELECT COUNT(*) FROM c",
            )
            .unwrap_err();
        assert!(e.to_string().contains("1317"), "{e}");
    });
    (id, h)
}

/// Waits (at most 60 s) until `f` holds.
fn wait_until(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !f() {
        assert!(std::time::Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Waits until the process list shows each of `long` running its statement.
fn wait_running(probe: &mut mysql::Conn, long: &[(u64, std::thread::JoinHandle<()>)]) {
    wait_until("the long statements to run", || {
        let running: Vec<u64> =
            probe.query("SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE 'WITH RECURSIVE%'").unwrap();
        long.iter().all(|(id, _)| running.contains(id))
    });
}

/// Requests the server has not read yet: its established sockets (on
/// `port`) with bytes waiting, from the kernel's socket tables (the
/// server runs in this process, so in this network namespace).
fn unread_requests(port: u16) -> usize {
    let mut n = 0;
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else { continue };
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let local_port = f[1].rsplit(':').next().and_then(|p| u16::from_str_radix(p, 16).ok());
            let rx = f[4].split(':').nth(1).and_then(|q| usize::from_str_radix(q, 16).ok());
            if local_port == Some(port) && f[3] == "01" && rx.is_some_and(|rx| rx > 0) {
                n += 1;
            }
        }
    }
    n
}

/// information_schema's THREAD_POOL_GROUPS, _QUEUES, _STATS and _WAITS
/// (MariaDB's): a connection waiting behind two busy workers is listed in
/// its group's queue with its id until the timer calls the group stalled,
/// and the groups' state and counters add up with what was served.
#[test]
fn the_thread_pool_tables_show_the_groups_their_queues_counters_and_waits() {
    let q = Quire::start(&[
        ("thread_handling", "pool-of-threads"),
        ("thread_pool_size", "2"),
        ("thread_pool_oversubscribe", "1"),
        ("thread_pool_stall_limit", "500"),
    ]);
    // Connections of the other group: two to keep its workers busy, one
    // to wait.
    let (mut probe, busy_group, mut others) = probe_and_other_group(&q, None, 3);
    let mut waiter = others.pop().unwrap();
    let waiter_id = connection_id(&mut waiter);
    let groups: Vec<(u64, u64, u64)> = probe
        .query("SELECT GROUP_ID, CONNECTIONS, THREADS FROM information_schema.THREAD_POOL_GROUPS ORDER BY GROUP_ID")
        .unwrap();
    assert_eq!(groups.iter().map(|g| g.0).collect::<Vec<_>>(), [0, 1]);
    assert!(groups[busy_group as usize].1 >= 3, "three connections (at least) in the busy group: {groups:?}");
    assert!(groups.iter().all(|g| g.2 >= 1), "every group has a worker: {groups:?}");
    let long: Vec<_> = others.into_iter().map(spin_until_killed).collect();
    wait_running(&mut probe, &long);
    // Both workers run: nobody listens until the timer starts a worker,
    // which queues the command; at its next look the queue has not moved
    // and the group is stalled, which lets the command run.
    let waiting = std::thread::spawn(move || waiter.query_drop("DO 1").unwrap());
    let mut queued: Vec<(u64, u64, u64, u64, u64, u64)> = Vec::new();
    for _ in 0..300 {
        queued = probe
            .query(
                "SELECT q.GROUP_ID, POSITION, PRIORITY, CONNECTION_ID, ACTIVE_THREADS, QUEUE_LENGTH \
                 FROM information_schema.THREAD_POOL_QUEUES q JOIN information_schema.THREAD_POOL_GROUPS g \
                 ON g.GROUP_ID = q.GROUP_ID",
            )
            .unwrap();
        if !queued.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        queued,
        [(busy_group, 0, 1, waiter_id, 2, 1)],
        "the waiting connection, low priority, first in line behind two active workers"
    );
    waiting.join().unwrap();
    for (id, h) in long {
        probe.query_drop(format!("KILL QUERY {id}")).unwrap();
        h.join().unwrap();
    }
    // Every command of the busy group was taken from its queue once: the
    // three logins, their CONNECTION_ID()s, two SETs, two CTEs and the DO.
    let (created, stalls, dequeued, worker_polls): (u64, u64, u64, u64) = probe
        .query_first(format!(
            "SELECT THREAD_CREATIONS, STALLS, DEQUEUES_BY_LISTENER + DEQUEUES_BY_WORKER, POLLS_BY_WORKER \
             FROM information_schema.THREAD_POOL_STATS WHERE GROUP_ID = {busy_group}"
        ))
        .unwrap()
        .unwrap();
    assert!(created >= 3, "{created} workers started");
    assert!(stalls >= 1, "{stalls} stalls");
    assert!(dequeued >= 11, "{dequeued} dequeues");
    assert_eq!(worker_polls, 0, "quire's workers never poll but as the listener");
    let reasons: Vec<(String, u64)> =
        probe.query("SELECT REASON, COUNT FROM information_schema.THREAD_POOL_WAITS").unwrap();
    let names: Vec<&str> = reasons.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "UNKNOWN",
            "SLEEP",
            "DISKIO",
            "ROW_LOCK",
            "GLOBAL_LOCK",
            "META_DATA_LOCK",
            "TABLE_LOCK",
            "USER_LOCK",
            "BINLOG",
            "GROUP_COMMIT",
            "SYNC",
            "NET"
        ]
    );
    assert!(reasons[11].1 >= 4, "logins wait for their clients: {reasons:?}");
    // Without the pool the tables are there and empty, as in MariaDB.
    let plain = Quire::start(&[("thread_handling", "one-thread-per-connection")]);
    let mut p = plain.connect(None);
    for t in ["GROUPS", "QUEUES", "STATS", "WAITS"] {
        let n: Option<u64> = p.query_first(format!("SELECT COUNT(*) FROM information_schema.THREAD_POOL_{t}")).unwrap();
        assert_eq!(n, Some(0), "{t}");
    }
}
