//! Connections that must not live for ever and statements that must be
//! stoppable, through real connections: `connect_timeout`, `wait_timeout`
//! / `interactive_timeout`, the administrator's extra connection at
//! `max_connections`, KILL [CONNECTION | QUERY], `max_execution_time` and
//! its hint, SLEEP, and SHOW PROCESSLIST. Where MariaDB can observe the
//! same thing, the answers are compared with it.

mod oracle;

use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder};
use oracle::{answer, Answer, MariaDb, Quire};

/// A server error's code; 0 for a client-side error (connection lost).
fn code(e: mysql::Error) -> u16 {
    oracle::err_code(&e)
}

fn status(c: &mut Conn, name: &str) -> u64 {
    let row: Option<(String, String)> = c.query_first(format!("SHOW GLOBAL STATUS LIKE '{name}'")).unwrap();
    row.map_or(0, |(_, v)| v.parse().unwrap())
}

/// Waits until `f` holds (at most 20 s).
fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until connection `id` is seen running `sql`, then a little more
/// so that it is inside its wait.
fn wait_running(admin: &mut Conn, id: u32, sql: &str) {
    wait_for(&format!("connection {id} to run {sql}"), || {
        let rows: Vec<(u64, Option<String>)> =
            admin.query_map("SHOW FULL PROCESSLIST", |r: mysql::Row| (r.get(0).unwrap(), r.get(7).unwrap())).unwrap();
        rows.iter().any(|(i, info)| *i == u64::from(id) && info.as_deref() == Some(sql))
    });
    thread::sleep(Duration::from_millis(300));
}

/// Opens `n` raw TCP sockets that never send a login.
fn idle_sockets(port: u16, n: usize) -> Vec<TcpStream> {
    (0..n).map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap()).collect()
}

#[test]
fn idle_login_sockets_time_out_after_connect_timeout_and_a_client_then_gets_in() {
    let q = Quire::start(&[("max_connections", "3"), ("connect_timeout", "2")]);
    let port = q.server.tcp_addr.unwrap().port();
    // Three slots and the administrator's extra one, all held by sockets
    // that never log in.
    let socks = idle_sockets(port, 4);
    wait_for("the four sockets to be served", || q.server.shared.processes.len() == 4);
    assert_eq!(code(Conn::new(q.opts(None)).map(drop).unwrap_err()), 1040, "every slot is held");
    // connect_timeout (2 s) frees them; a real client then gets in.
    let started = Instant::now();
    wait_for("the handshakes to time out", || q.server.shared.processes.is_empty());
    assert!(started.elapsed() >= Duration::from_millis(1000), "not before connect_timeout");
    let mut c = q.connect(None);
    assert_eq!(c.query_first::<i64, _>("SELECT 1").unwrap(), Some(1));
    assert!(status(&mut c, "Aborted_connects") >= 4, "each timed-out handshake is an aborted connect");
    drop(socks);
}

#[test]
fn an_idle_session_is_closed_after_wait_timeout_as_mariadb_does() {
    let q = Quire::start(&[]);
    let m = MariaDb::get();
    let mut answers = Vec::new();
    for mut c in [q.connect(None), m.connect(None)] {
        c.query_drop("SET SESSION wait_timeout = 1").unwrap();
        thread::sleep(Duration::from_millis(2500));
        answers.push(answer(&mut c, "SELECT 1"));
    }
    assert_eq!(answers[0], Answer::Err(0), "the server closed the idle connection");
    assert_eq!(answers[0], answers[1]);
    let mut admin = q.connect(None);
    wait_for("the aborted client to be counted", || status(&mut admin, "Aborted_clients") >= 1);
}

#[test]
fn an_interactive_client_gets_interactive_timeout_as_its_wait_timeout() {
    let q = Quire::start(&[]);
    let m = MariaDb::get();
    let interactive = |o: OptsBuilder| o.additional_capabilities(mysql::consts::CapabilityFlags::CLIENT_INTERACTIVE);
    let mut got = Vec::new();
    for (mut admin, opts) in [(q.connect(None), q.opts(None)), (m.connect(None), m.opts(None))] {
        admin.query_drop("SET GLOBAL interactive_timeout = 1234").unwrap();
        let mut c = Conn::new(interactive(opts.clone())).unwrap();
        let mut plain = Conn::new(opts).unwrap();
        got.push((
            answer(&mut c, "SELECT @@session.wait_timeout"),
            answer(&mut plain, "SELECT @@session.wait_timeout"),
        ));
        admin.query_drop("SET GLOBAL interactive_timeout = 28800").unwrap();
    }
    assert_eq!(got[0].0, Answer::Rows(vec![vec![Some("1234".into())]]));
    assert_eq!(got[0].1, Answer::Rows(vec![vec![Some("28800".into())]]));
    assert_eq!(got[0], got[1], "as MariaDB");
}

#[test]
fn an_administrator_takes_the_extra_connection_at_max_connections() {
    let q = Quire::start(&[("max_connections", "2")]);
    let mut root = q.connect(None);
    root.query_drop("CREATE DATABASE d").unwrap();
    root.query_drop("CREATE USER 'u'@'%' IDENTIFIED BY 'p'").unwrap();
    root.query_drop("GRANT ALL ON d.* TO 'u'@'%'").unwrap();
    let user = || Conn::new(q.opts(Some("d")).user(Some("u")).pass(Some("p")));
    let u1 = user().unwrap();
    // root + u1 fill max_connections: a user gets 1040 ...
    assert_eq!(code(user().map(drop).unwrap_err()), 1040);
    // ... an administrator gets the extra connection (once the refused
    // connection's thread has ended: until then it holds that slot) ...
    let mut extra = None;
    wait_for("the administrator's connection", || {
        extra = Conn::new(q.opts(None)).ok();
        extra.is_some()
    });
    let mut extra = extra.unwrap();
    assert_eq!(extra.query_first::<i64, _>("SELECT 1").unwrap(), Some(1));
    // ... and only one.
    assert_eq!(code(Conn::new(q.opts(None)).map(drop).unwrap_err()), 1040);
    // SET GLOBAL max_connections takes effect at once.
    extra.query_drop("SET GLOBAL max_connections = 5").unwrap();
    let u2 = user().unwrap();
    drop((u1, u2, root));
}

/// KILL QUERY against a statement of `victim`, on one server: what the
/// victim answers.
fn kill_query_during(admin: &mut Conn, mut victim: Conn, sql: &'static str) -> Answer {
    let id = victim.connection_id();
    let t = thread::spawn(move || {
        let a = answer(&mut victim, sql);
        (a, answer(&mut victim, "SELECT 7"))
    });
    wait_running(admin, id, sql);
    admin.query_drop(format!("KILL QUERY {id}")).unwrap();
    let (a, after) = t.join().unwrap();
    assert_eq!(after, Answer::Rows(vec![vec![Some("7".into())]]), "KILL QUERY leaves the connection");
    a
}

#[test]
fn kill_query_interrupts_a_sleep_a_scan_and_a_row_lock_wait_as_mariadb_does() {
    let q = Quire::start(&[("innodb_lock_wait_timeout", "50")]);
    let m = MariaDb::get();
    let mut got = Vec::new();
    for server in 0..2 {
        let mut admin = if server == 0 { q.fresh_db("kq") } else { m.fresh_db("kq") };
        let connect = || if server == 0 { q.connect(Some("kq")) } else { m.connect(Some("kq")) };
        admin.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v INT)").unwrap();
        admin.query_drop("INSERT INTO t VALUES (1, 1), (2, 2), (3, 3), (4, 4), (5, 5)").unwrap();
        let started = Instant::now();
        // A scan whose every row sleeps 10 s.
        let scan = kill_query_during(&mut admin, connect(), "SELECT COUNT(*) FROM t WHERE SLEEP(10) = 0");
        // SLEEP in a WHERE without a table.
        let sleep_where = kill_query_during(&mut admin, connect(), "SELECT 1 WHERE SLEEP(30) = 0");
        // A row-lock wait.
        let mut holder = connect();
        holder.query_drop("BEGIN").unwrap();
        holder.query_drop("SELECT * FROM t WHERE id = 1 FOR UPDATE").unwrap();
        let lock_wait = kill_query_during(&mut admin, connect(), "UPDATE t SET v = 10 WHERE id = 1");
        holder.query_drop("COMMIT").unwrap();
        assert!(started.elapsed() < Duration::from_secs(25), "every statement stopped at once");
        let unchanged = answer(&mut admin, "SELECT v FROM t WHERE id = 1");
        got.push((scan, sleep_where, lock_wait, unchanged));
    }
    assert_eq!(got[0].0, Answer::Err(1317));
    assert_eq!(got[0].1, Answer::Err(1317));
    assert_eq!(got[0].2, Answer::Err(1317));
    assert_eq!(got[0].3, Answer::Rows(vec![vec![Some("1".into())]]), "the killed UPDATE changed nothing");
    assert_eq!(got[0], got[1], "as MariaDB");
}

#[test]
fn kill_query_makes_a_lone_sleep_answer_one_as_mysql_does() {
    // MariaDB answers this with error 1317; MySQL 8.0 (whose version quire
    // announces, and whose max_execution_time it implements) answers 1.
    let q = Quire::start(&[]);
    let mut admin = q.connect(None);
    let a = kill_query_during(&mut admin, q.connect(None), "SELECT SLEEP(30)");
    assert_eq!(a, Answer::Rows(vec![vec![Some("1".into())]]));
    assert_eq!(answer(&mut admin, "SELECT SLEEP(0)"), Answer::Rows(vec![vec![Some("0".into())]]));
}

#[test]
fn kill_connection_closes_a_sleeping_connection_as_mariadb_does() {
    let q = Quire::start(&[]);
    let m = MariaDb::get();
    let mut got = Vec::new();
    for (mut admin, mut victim) in [(q.connect(None), q.connect(None)), (m.connect(None), m.connect(None))] {
        let id = victim.connection_id();
        let kill = answer(&mut admin, &format!("KILL CONNECTION {id}"));
        let after = answer(&mut victim, "SELECT 1");
        got.push((kill, after));
    }
    assert_eq!(got[0].1, Answer::Err(0), "the victim's connection is gone");
    assert_eq!(got[0], got[1]);
    let mut admin = q.connect(None);
    wait_for("the killed connection to leave", || status(&mut admin, "Threads_connected") == 1);
    // A busy victim is stopped and closed too.
    let mut victim = q.connect(None);
    let id = victim.connection_id();
    let t = thread::spawn(move || answer(&mut victim, "SELECT SLEEP(30)"));
    wait_running(&mut admin, id, "SELECT SLEEP(30)");
    admin.query_drop(format!("KILL {id}")).unwrap();
    assert_eq!(t.join().unwrap(), Answer::Err(0));
}

#[test]
fn kill_errors_and_privileges_match_mariadb() {
    let q = Quire::start(&[]);
    let m = MariaDb::get();
    let mut got = Vec::new();
    for server in 0..2 {
        let (mut root, user_opts) = if server == 0 {
            let mut r = q.fresh_db("kp");
            r.query_drop("CREATE USER 'ku'@'%' IDENTIFIED BY 'p'").unwrap();
            r.query_drop("GRANT ALL ON kp.* TO 'ku'@'%'").unwrap();
            (r, q.opts(Some("kp")))
        } else {
            let mut r = m.fresh_db("kp");
            r.query_drop("DROP USER IF EXISTS 'ku'@'localhost'").unwrap();
            r.query_drop("CREATE USER 'ku'@'localhost' IDENTIFIED BY 'p'").unwrap();
            r.query_drop("GRANT ALL ON kp.* TO 'ku'@'localhost'").unwrap();
            (r, m.opts(Some("kp")))
        };
        let user = || Conn::new(user_opts.clone().user(Some("ku")).pass(Some("p"))).unwrap();
        let (mut u1, mut u2) = (user(), user());
        let root_id = root.connection_id();
        let mut a = vec![
            answer(&mut root, "KILL 999999"),
            answer(&mut root, "KILL QUERY 999999"),
            answer(&mut root, "KILL CONNECTION 999999"),
            answer(&mut u1, &format!("KILL QUERY {root_id}")),
            answer(&mut u1, &format!("KILL {root_id}")),
            answer(&mut u1, &format!("KILL QUERY {}", u2.connection_id())),
            answer(&mut u2, "SELECT 1"),
            answer(&mut u1, "KILL QUERY CONNECTION_ID()"),
            answer(&mut u1, "SELECT 2"),
            answer(&mut u1, "KILL CONNECTION_ID()"),
            answer(&mut u1, "SELECT 3"),
        ];
        // root may kill anyone's connection.
        a.push(answer(&mut root, &format!("KILL {}", u2.connection_id())));
        a.push(answer(&mut u2, "SELECT 4"));
        got.push(a);
    }
    let one = |n: &str| Answer::Rows(vec![vec![Some(n.into())]]);
    let ok = Answer::Ok { affected: 0, warnings: 0, info: String::new() };
    assert_eq!(
        got[0],
        vec![
            Answer::Err(1094),
            Answer::Err(1094),
            Answer::Err(1094),
            Answer::Err(1095),
            Answer::Err(1095),
            ok.clone(),
            one("1"),
            Answer::Err(1317),
            one("2"),
            Answer::Err(1927),
            Answer::Err(0),
            ok,
            Answer::Err(0),
        ]
    );
    assert_eq!(got[0], got[1], "as MariaDB");
}

#[test]
fn max_execution_time_and_its_hint_stop_a_slow_select_with_3024_but_not_dml() {
    // MariaDB has no max_execution_time (its max_statement_time differs):
    // MySQL 8.0's documented behaviour is the reference here.
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("met");
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v INT)").unwrap();
    c.query_drop("INSERT INTO t VALUES (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 7), (8, 8)").unwrap();
    let slow = "SELECT COUNT(*) FROM t WHERE SLEEP(0.1) = 0";
    c.query_drop("SET SESSION max_execution_time = 150").unwrap();
    assert_eq!(answer(&mut c, slow), Answer::Err(3024));
    // DML has no time limit: the UPDATE runs its 0.8 s.
    let upd = answer(&mut c, "UPDATE t SET v = v + 1 WHERE SLEEP(0.1) = 0");
    assert!(matches!(upd, Answer::Ok { affected: 8, .. }), "{upd:?}");
    // A fast SELECT is untouched.
    assert_eq!(answer(&mut c, "SELECT v FROM t WHERE id = 1"), Answer::Rows(vec![vec![Some("2".into())]]));
    // A lone SLEEP cut short answers 1 (MySQL).
    assert_eq!(answer(&mut c, "SELECT SLEEP(5)"), Answer::Rows(vec![vec![Some("1".into())]]));
    c.query_drop("SET SESSION max_execution_time = 0").unwrap();
    assert_eq!(answer(&mut c, slow), Answer::Rows(vec![vec![Some("8".into())]]));
    // The hint, in text and prepared statements.
    let hinted = "SELECT /*+ MAX_EXECUTION_TIME(150) */ COUNT(*) FROM t WHERE SLEEP(0.1) = 0";
    assert_eq!(answer(&mut c, hinted), Answer::Err(3024));
    assert_eq!(code(c.exec_drop(hinted, ()).unwrap_err()), 3024);
    // A row-lock wait of a locking SELECT is bounded too.
    let mut holder = q.connect(Some("met"));
    holder.query_drop("BEGIN").unwrap();
    holder.query_drop("UPDATE t SET v = 0 WHERE id = 1").unwrap();
    assert_eq!(
        answer(&mut c, "SELECT /*+ MAX_EXECUTION_TIME(200) */ v FROM t WHERE id = 1 FOR UPDATE"),
        Answer::Err(3024)
    );
    holder.query_drop("ROLLBACK").unwrap();
    // The global value reaches new sessions.
    c.query_drop("SET GLOBAL max_execution_time = 150").unwrap();
    let mut fresh = q.connect(Some("met"));
    assert_eq!(answer(&mut fresh, slow), Answer::Err(3024));
    c.query_drop("SET GLOBAL max_execution_time = 0").unwrap();
}

#[test]
fn show_processlist_shows_each_connection_and_what_it_runs() {
    let q = Quire::start(&[]);
    let mut root = q.fresh_db("pl");
    root.query_drop("CREATE USER 'pu'@'%' IDENTIFIED BY 'p'").unwrap();
    root.query_drop("GRANT ALL ON pl.* TO 'pu'@'%'").unwrap();
    let mut busy = q.connect(Some("pl"));
    let busy_id = busy.connection_id();
    let t = thread::spawn(move || answer(&mut busy, "SELECT SLEEP(30)"));
    let _unauthenticated = idle_sockets(q.server.tcp_addr.unwrap().port(), 1);
    wait_running(&mut root, busy_id, "SELECT SLEEP(30)");
    wait_for("the raw socket to be registered", || q.server.shared.processes.len() == 3);
    let result = root.query_iter("SHOW FULL PROCESSLIST").unwrap();
    let names: Vec<String> = result.columns().as_ref().iter().map(|c| c.name_str().into_owned()).collect();
    assert_eq!(names, ["Id", "User", "Host", "db", "Command", "Time", "State", "Info"]);
    drop(result);
    type Row = (u64, String, String, Option<String>, String, i64, String, Option<String>);
    let rows: Vec<Row> = root.query("SHOW FULL PROCESSLIST").unwrap();
    let busy_row = rows.iter().find(|r| r.0 == u64::from(busy_id)).expect("the busy connection");
    assert_eq!(
        (&busy_row.1[..], busy_row.3.as_deref(), &busy_row.4[..], busy_row.7.as_deref()),
        ("root", Some("pl"), "Query", Some("SELECT SLEEP(30)"))
    );
    assert!(busy_row.2.starts_with("127.0.0.1:"), "host:port, as MySQL: {}", busy_row.2);
    let me = rows.iter().find(|r| r.0 == u64::from(root.connection_id())).expect("its own row");
    assert_eq!((&me.4[..], me.7.as_deref()), ("Query", Some("SHOW FULL PROCESSLIST")));
    assert!(
        rows.iter().any(|r| r.1 == "unauthenticated user" && r.4 == "Connect" && r.6 == "login"),
        "a socket that has not logged in"
    );
    // A user without ALL on *.* sees only its own connections.
    let mut pu = Conn::new(q.opts(Some("pl")).user(Some("pu")).pass(Some("p"))).unwrap();
    let own: Vec<(u64, String)> =
        pu.query_map("SHOW PROCESSLIST", |r: mysql::Row| (r.get(0).unwrap(), r.get(1).unwrap())).unwrap();
    assert_eq!(own, vec![(u64::from(pu.connection_id()), "pu".to_string())]);
    root.query_drop(format!("KILL QUERY {busy_id}")).unwrap();
    assert_eq!(t.join().unwrap(), Answer::Rows(vec![vec![Some("1".into())]]));
}
