//! The driver's own MySQL client (`driver::wire`) against a real server
//! and against a scripted one:
//! - it logs in to quire (mysql_native_password), prepares, executes and
//!   counts rows; a wrong password is refused with quire's 1045; it
//!   proves the password by either plugin (caching_sha2_password's fast
//!   path included) to a scripted server that checks the proof;
//! - errors surface: a statement that cannot be prepared stops the run
//!   with its SQL and the server's error;
//! - a deadlock (1213) makes the driver roll back and run the event again
//!   (a scripted server fails the first executions), while any other
//!   error stops the run and names its statement.
//!
//! (`statement_mix.rs` runs every workload through the client too.)

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use quire_bench::driver::wire::{Conn, Outcome, Param};
use quire_bench::driver::{self, Mix, RunConfig, Workload};
use quire_bench::embedded::Embedded;
use quire_bench::target::TargetSpec;

fn quire() -> (tempfile::TempDir, Embedded) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let opts = vec![("innodb_buffer_pool_size".to_string(), "16M".to_string())];
    let e = Embedded::start(Some(tmp.path()), opts, 20).expect("embedded quire starts");
    (tmp, e)
}

fn config(workload: Workload, threads: u32, events: u64) -> RunConfig {
    RunConfig {
        workload,
        threads,
        duration: Duration::ZERO,
        events,
        tables: 1,
        table_size: 10,
        mix: Mix::default(),
        seed: 5,
        workers: 2,
    }
}

#[test]
fn logs_in_prepares_executes_and_counts_rows() {
    let (_tmp, e) = quire();
    let mut c = Conn::connect(&e.spec().wire_options(true)).unwrap_or_else(|err| panic!("{err}"));
    let ok = |o: Outcome| assert!(matches!(o, Outcome::Done { .. }), "{o:?}");
    ok(c.query("CREATE TABLE t (id INT PRIMARY KEY, c CHAR(20))").expect("create"));
    ok(c.query("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')").expect("insert"));
    let s = c.prepare("SELECT c FROM t WHERE id BETWEEN ? AND ?").expect("prepare");
    assert_eq!(s.params, 2);
    let rows = c.execute(s, &[Param::Int(2), Param::Int(9)]).expect("execute");
    assert_eq!(rows, Outcome::Done { rows: 2 });
    let u = c.prepare("UPDATE t SET c = ? WHERE id = ?").expect("prepare");
    ok(c.execute(u, &[Param::Text("zz"), Param::Int(1)]).expect("execute"));
    assert_eq!(c.query("SELECT c FROM t WHERE c = 'zz'").expect("query"), Outcome::Done { rows: 1 });
    match c.query("SELECT nothing FROM nowhere").expect("a server error is an outcome") {
        Outcome::Failed(err) => assert_eq!(err.code, 1146, "{err}"),
        other => panic!("{other:?}"),
    }
    let mut bad = e.spec().wire_options(true);
    bad.password = "wrong".into();
    let refused = Conn::connect(&bad).err().expect("a wrong password is refused");
    assert!(refused.to_string().contains("ERROR 1045"), "{refused}");
    e.shutdown().expect("clean shutdown");
}

#[test]
fn a_statement_that_cannot_be_prepared_stops_the_run_with_its_sql() {
    let (_tmp, e) = quire();
    // No tables loaded: sbtest1 does not exist.
    let err = driver::run(e.spec(), &config(Workload::PointSelect, 3, 10)).expect_err("the run fails");
    assert!(err.message.contains("SELECT c FROM sbtest1 WHERE id=?"), "{err}");
    assert!(err.message.contains("ERROR 1146"), "{err}");
    e.shutdown().expect("clean shutdown");
}

/// What the scripted server saw and does.
#[derive(Default)]
struct Script {
    /// The plugin it announces (native when empty); it checks the proof
    /// of password "p" for its scramble.
    plugin: String,
    /// COM_STMT_EXECUTEs answered with `fail_code` before answering OK.
    fail_first: AtomicU64,
    fail_code: AtomicU64,
    executes: AtomicU64,
    rollbacks: AtomicU64,
}

fn packet(out: &mut Vec<u8>, seq: u8, payload: &[u8]) {
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes()[..3]);
    out.push(seq);
    out.extend_from_slice(payload);
}

fn read_packet(s: &mut TcpStream) -> Option<Vec<u8>> {
    let mut head = [0u8; 4];
    s.read_exact(&mut head).ok()?;
    let len = u32::from_le_bytes([head[0], head[1], head[2], 0]) as usize;
    let mut p = vec![0; len];
    s.read_exact(&mut p).ok()?;
    Some(p)
}

const OK: &[u8] = b"\x00\x00\x00\x02\x00\x00\x00";

/// One connection of the scripted server: any login is accepted; every
/// PREPARE gets a new id (no parameters or columns described); EXECUTEs
/// fail as the script says, then answer OK; COM_QUERYs answer OK.
fn serve(mut s: TcpStream, script: Arc<Script>) {
    let mut out = Vec::new();
    let mut hello = vec![10u8];
    hello.extend_from_slice(b"8.0.99-scripted\0\x01\0\0\0abcdefgh\0");
    let caps: u32 = 0x0000_0200 | 0x0000_8000 | 0x0008_0000 | 0x0020_0000 | 0x0000_0008;
    hello.extend_from_slice(&(caps as u16).to_le_bytes());
    hello.extend_from_slice(&[45, 2, 0]);
    hello.extend_from_slice(&((caps >> 16) as u16).to_le_bytes());
    hello.push(21);
    hello.extend_from_slice(&[0; 10]);
    let sha2 = script.plugin == "caching_sha2_password";
    let plugin = if sha2 { "caching_sha2_password" } else { "mysql_native_password" };
    hello.extend_from_slice(b"ijklmnopqrst\0");
    hello.extend_from_slice(plugin.as_bytes());
    hello.push(0);
    packet(&mut out, 0, &hello);
    let Some(login) = s.write_all(&out).ok().and_then(|()| read_packet(&mut s)) else { return };
    // HandshakeResponse41: 32 bytes, user NUL, length-encoded proof (short).
    let user_end = 32 + login[32..].iter().position(|b| *b == 0).expect("user");
    let n = usize::from(login[user_end + 1]);
    let proof = &login[user_end + 2..user_end + 2 + n];
    let scramble = b"abcdefghijklmnopqrst";
    let expected = if sha2 {
        quire_server::proto::auth::scramble_sha2(scramble, "p")
    } else {
        quire_server::proto::auth::scramble_native(scramble, "p")
    };
    out.clear();
    if proof != expected.as_slice() {
        packet(&mut out, 2, b"\xff\x15\x04#28000Access denied");
        let _ = s.write_all(&out);
        return;
    }
    if sha2 {
        packet(&mut out, 2, b"\x01\x03");
        packet(&mut out, 3, OK);
    } else {
        packet(&mut out, 2, OK);
    }
    let _ = s.write_all(&out);
    let mut next_id = 1u32;
    while let Some(p) = read_packet(&mut s) {
        out.clear();
        match p.first() {
            Some(0x16) => {
                let mut r = vec![0u8];
                r.extend_from_slice(&next_id.to_le_bytes());
                r.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0]);
                next_id += 1;
                packet(&mut out, 1, &r);
            }
            Some(0x17) => {
                let n = script.executes.fetch_add(1, Ordering::SeqCst);
                if n < script.fail_first.load(Ordering::SeqCst) {
                    let code = script.fail_code.load(Ordering::SeqCst) as u16;
                    let mut e = vec![0xFF];
                    e.extend_from_slice(&code.to_le_bytes());
                    e.extend_from_slice(b"#40001Deadlock found when trying to get lock");
                    packet(&mut out, 1, &e);
                } else {
                    packet(&mut out, 1, OK);
                }
            }
            Some(0x03) => {
                if &p[1..] == b"ROLLBACK" {
                    script.rollbacks.fetch_add(1, Ordering::SeqCst);
                }
                packet(&mut out, 1, OK);
            }
            _ => return,
        }
        if s.write_all(&out).is_err() {
            return;
        }
    }
}

/// A scripted server on a free port, serving until the test ends.
fn scripted(fail_first: u64, fail_code: u16) -> (TargetSpec, Arc<Script>) {
    scripted_with("", fail_first, fail_code)
}

fn scripted_with(plugin: &str, fail_first: u64, fail_code: u16) -> (TargetSpec, Arc<Script>) {
    let l = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = l.local_addr().expect("bound").port();
    let script = Arc::new(Script { plugin: plugin.to_string(), ..Script::default() });
    script.fail_first.store(fail_first, Ordering::SeqCst);
    script.fail_code.store(u64::from(fail_code), Ordering::SeqCst);
    let mine = script.clone();
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            let sc = mine.clone();
            std::thread::spawn(move || serve(s, sc));
        }
    });
    let spec = TargetSpec::parse(&format!("scripted=mysql://u:p@127.0.0.1:{port}/sbtest")).expect("valid");
    (spec, script)
}

#[test]
fn proves_the_password_by_either_plugin() {
    for plugin in ["mysql_native_password", "caching_sha2_password"] {
        let (spec, _script) = scripted_with(plugin, 0, 0);
        let mut c = Conn::connect(&spec.wire_options(true)).unwrap_or_else(|e| panic!("{plugin}: {e}"));
        assert_eq!(c.query("SELECT 1").expect("query"), Outcome::Done { rows: 0 }, "{plugin}");
        let mut bad = spec.wire_options(true);
        bad.password = "q".into();
        let refused = Conn::connect(&bad).err().expect("a wrong proof is refused");
        assert!(refused.to_string().contains("ERROR 1045"), "{plugin}: {refused}");
    }
}

#[test]
fn a_deadlock_rolls_the_event_back_and_runs_it_again() {
    // Autocommit: the failed statement is simply run again.
    let (spec, script) = scripted(3, 1213);
    let r = driver::run(&spec, &config(Workload::UpdateIndex, 1, 5)).expect("the run succeeds");
    assert_eq!((r.summary.events, r.summary.errors), (5, 3));
    assert_eq!(script.executes.load(Ordering::SeqCst), 5 + 3);
    assert_eq!(script.rollbacks.load(Ordering::SeqCst), 0);
    // In a transaction: ROLLBACK, then the whole event again from BEGIN.
    let (spec, script) = scripted(2, 1213);
    let r = driver::run(&spec, &config(Workload::WriteOnly, 1, 4)).expect("the run succeeds");
    let per_event = Workload::WriteOnly.queries_per_event(&Mix::default());
    assert_eq!((r.summary.events, r.summary.errors), (4, 2));
    assert_eq!(r.statements.total(), 4 * per_event, "only completed attempts count");
    assert_eq!(script.rollbacks.load(Ordering::SeqCst), 2);
    // Each failure hit BEGIN (the first execute of an attempt).
    assert_eq!(script.executes.load(Ordering::SeqCst), 4 * per_event + 2);
}

#[test]
fn another_error_stops_the_run_and_names_the_statement() {
    let (spec, _script) = scripted(1, 1062);
    let err = driver::run(&spec, &config(Workload::UpdateIndex, 4, 100)).expect_err("the run fails");
    assert!(err.message.contains("'UPDATE sbtest1 SET k=k+1 WHERE id=?' failed: ERROR 1062"), "{err}");
}
