//! A full disk, end to end: `quire serve` runs on a small loop-mounted
//! ext4 file system that its own inserts fill (docs/ARCHITECTURE.md,
//! "Disk full"). Needs root (mount); where mounting is not permitted the
//! test prints why and passes without running.
//!
//! What it shows:
//! 1. Filling the disk fails the INSERT that needs space with 1114 ("The
//!    table ... is full"); reads keep working meanwhile.
//! 2. Every transaction whose COMMIT succeeded is there after a crash
//!    (SIGKILL) and restart; every one that got an error is not.
//! 3. The restart happens on the still-full file system: quire starts,
//!    recovers and serves reads, and writes that need space fail clearly.
//! 4. SIGTERM on the full disk is a clean shutdown (exit 0).
//! 5. With space freed (a ballast file made before the fill is deleted)
//!    writes resume, and SIGTERM exits 0 again.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder};

const ROOT_PASSWORD: &str = "root-pw";
/// Small enough to fill in seconds, large enough for the preallocated
/// redo log (4 MiB) and doublewrite files (2 x 1 MiB) and some data.
const IMAGE_BYTES: u64 = 40 << 20;
/// Made before the fill, deleted to free space.
const BALLAST_BYTES: usize = 6 << 20;
/// Rows per transaction; transaction k inserts ids [k * ROWS, (k+1) * ROWS).
const ROWS: u64 = 50;

/// A loop-mounted ext4 image; unmounted and deleted on drop, also when a
/// test fails.
struct LoopMount {
    /// Holds the image and mount point; deleted (after the unmount) on drop.
    _root: tempfile::TempDir,
    mnt: PathBuf,
}

impl LoopMount {
    /// Returns None (after saying why) where mounting is not permitted.
    fn new() -> Option<LoopMount> {
        let root = tempfile::Builder::new().prefix("diskfull-").tempdir().expect("temp dir");
        let img = root.path().join("fs.img");
        let mnt = root.path().join("mnt");
        std::fs::create_dir(&mnt).expect("mount point");
        std::fs::File::create(&img).and_then(|f| f.set_len(IMAGE_BYTES)).expect("image file");
        let mkfs = Command::new("mkfs.ext4").args(["-q", "-F"]).arg(&img).output();
        match mkfs {
            Ok(o) if o.status.success() => {}
            Ok(o) => {
                println!("SKIPPED: mkfs.ext4 failed: {}", String::from_utf8_lossy(&o.stderr));
                return None;
            }
            Err(e) => {
                println!("SKIPPED: mkfs.ext4 not available: {e}");
                return None;
            }
        }
        let mount = Command::new("mount").args(["-o", "loop"]).arg(&img).arg(&mnt).output();
        match mount {
            Ok(o) if o.status.success() => Some(LoopMount { _root: root, mnt }),
            Ok(o) => {
                println!("SKIPPED: cannot loop-mount a file system here: {}", String::from_utf8_lossy(&o.stderr));
                None
            }
            Err(e) => {
                println!("SKIPPED: mount not available: {e}");
                None
            }
        }
    }
}

impl Drop for LoopMount {
    fn drop(&mut self) {
        for _ in 0..50 {
            match Command::new("umount").arg(&self.mnt).status() {
                Ok(s) if s.success() => break,
                _ => std::thread::sleep(Duration::from_millis(100)),
            }
        }
    }
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind an ephemeral port");
    l.local_addr().expect("local address").port()
}

/// A `quire serve` child; killed on drop.
struct Server {
    child: Option<Child>,
    port: u16,
    stderr_path: PathBuf,
}

impl Server {
    fn start(datadir: &Path, logs: &Path, name: &str) -> Server {
        let port = free_port();
        let stderr_path = logs.join(format!("{name}.err"));
        let child = Command::new(env!("CARGO_BIN_EXE_quire"))
            .arg("serve")
            .arg(format!("--root-password={ROOT_PASSWORD}"))
            .arg(format!("--datadir={}", datadir.display()))
            .arg(format!("--port={port}"))
            .args([
                "--innodb-buffer-pool-size=8M",
                "--innodb-log-file-size=4M",
                "--innodb-doublewrite-pages=16",
                "--innodb-flush-log-at-trx-commit=1",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr_path).expect("stderr log"))
            .spawn()
            .expect("spawn quire serve");
        let mut s = Server { child: Some(child), port, stderr_path };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if s.stderr().contains("ready for connections") {
                return s;
            }
            if let Some(status) = s.child.as_mut().expect("running").try_wait().expect("poll") {
                panic!("quire serve ({name}) exited with {status} at start:\n{}", s.stderr());
            }
            assert!(Instant::now() < deadline, "quire serve ({name}) not ready after 60 s:\n{}", s.stderr());
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }

    fn connect(&self) -> Conn {
        let opts = OptsBuilder::new()
            .ip_or_hostname(Some("127.0.0.1"))
            .tcp_port(self.port)
            .user(Some("root"))
            .pass(Some(ROOT_PASSWORD))
            .prefer_socket(false);
        Conn::new(opts).expect("connect")
    }

    /// Sends `signal` and waits for the exit.
    fn signal(mut self, signal: &str) -> (ExitStatus, String) {
        let mut child = self.child.take().expect("running");
        let ok = Command::new("kill").args([signal, &child.id().to_string()]).status().expect("kill(1)");
        assert!(ok.success());
        let deadline = Instant::now() + Duration::from_secs(120);
        let status = loop {
            if let Some(st) = child.try_wait().expect("poll") {
                break st;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("still running 120 s after {signal}:\n{}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        (status, self.stderr())
    }

    /// SIGTERM must end in exit status 0 and a clean shutdown.
    fn stop_cleanly(self, when: &str) {
        let (status, stderr) = self.signal("-TERM");
        assert!(status.success(), "{when}: exit status {status} after SIGTERM; stderr:\n{stderr}");
        assert!(stderr.contains("shut down cleanly"), "{when}: no clean shutdown; stderr:\n{stderr}");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn code(e: &mysql::Error) -> u16 {
    match e {
        mysql::Error::MySqlError(m) => m.code,
        other => panic!("not a server error: {other}"),
    }
}

/// One transaction of the fill: ROWS rows, then COMMIT.
#[derive(Debug, PartialEq)]
enum Outcome {
    Committed,
    /// An INSERT failed (then ROLLBACK).
    InsertFailed(u16),
    /// COMMIT itself returned an error.
    CommitFailed(u16),
}

fn run_txn(c: &mut Conn, k: u64) -> Outcome {
    c.query_drop("BEGIN").expect("BEGIN");
    let values: Vec<String> = (k * ROWS..(k + 1) * ROWS).map(|id| format!("({id}, REPEAT('x', 900))")).collect();
    if let Err(e) = c.query_drop(format!("INSERT INTO d.t VALUES {}", values.join(","))) {
        let code = code(&e);
        c.query_drop("ROLLBACK").expect("ROLLBACK after a failed INSERT");
        return Outcome::InsertFailed(code);
    }
    match c.query_drop("COMMIT") {
        Ok(()) => Outcome::Committed,
        Err(e) => Outcome::CommitFailed(code(&e)),
    }
}

/// Rows of transaction k now visible (0 or ROWS, never between).
fn visible(c: &mut Conn, k: u64) -> u64 {
    let n: u64 = c
        .query_first(format!("SELECT COUNT(*) FROM d.t WHERE id >= {} AND id < {}", k * ROWS, (k + 1) * ROWS))
        .expect("count")
        .expect("a row");
    assert!(n == 0 || n == ROWS, "transaction {k} is partly visible: {n} rows");
    n
}

/// Every committed transaction is there in full, every other one absent.
fn check_outcomes(c: &mut Conn, outcomes: &[Outcome], when: &str) {
    for (k, o) in outcomes.iter().enumerate() {
        let n = visible(c, k as u64);
        match o {
            Outcome::Committed => assert_eq!(n, ROWS, "{when}: committed transaction {k} lost"),
            other => assert_eq!(n, 0, "{when}: transaction {k} ({other:?}) is visible"),
        }
    }
    let committed = outcomes.iter().filter(|o| **o == Outcome::Committed).count() as u64;
    let total: u64 = c.query_first("SELECT COUNT(*) FROM d.t").expect("count").expect("a row");
    assert_eq!(total, committed * ROWS, "{when}: rows outside the recorded transactions");
}

#[test]
fn a_full_disk_fails_writes_cleanly_keeps_reads_and_loses_no_commit() {
    let Some(fs) = LoopMount::new() else { return };
    let logs = tempfile::tempdir().expect("log dir");
    let datadir = fs.mnt.join("data");
    let ballast = fs.mnt.join("ballast");
    std::fs::write(&ballast, vec![0x5au8; BALLAST_BYTES]).expect("ballast file");

    // 1. Fill the disk.
    let server = Server::start(&datadir, logs.path(), "fill");
    let mut c = server.connect();
    c.query_drop("CREATE DATABASE d").unwrap();
    c.query_drop("CREATE TABLE d.t (id BIGINT PRIMARY KEY, pad VARCHAR(1000) NOT NULL)").unwrap();
    let mut outcomes = Vec::new();
    let started = Instant::now();
    let mut failures = 0;
    while failures < 20 {
        assert!(started.elapsed() < Duration::from_secs(300), "the disk never filled: {outcomes:?}");
        let o = run_txn(&mut c, outcomes.len() as u64);
        if o != Outcome::Committed {
            failures += 1;
            // Reads keep working while the disk is full.
            let k = outcomes.iter().position(|o| *o == Outcome::Committed).expect("some commit before the disk filled");
            assert_eq!(visible(&mut c, k as u64), ROWS);
        }
        outcomes.push(o);
    }
    let committed = outcomes.iter().filter(|o| **o == Outcome::Committed).count();
    println!("disk filled: {committed} transactions committed, then {failures} failed with 1114");
    assert!(committed > 10, "too few commits before the disk filled: {outcomes:?}");
    for o in &outcomes {
        assert!(
            matches!(o, Outcome::Committed | Outcome::InsertFailed(1114)),
            "only 1114 at INSERT is expected, got {o:?}; all: {outcomes:?}\n{}",
            server.stderr()
        );
    }
    check_outcomes(&mut c, &outcomes, "on the full disk");
    // Every page can be read back (a full scan through an 8 MiB pool).
    let sum: u64 = c.query_first("SELECT SUM(LENGTH(pad)) FROM d.t").unwrap().unwrap();
    assert_eq!(sum, committed as u64 * ROWS * 900);
    drop(c);

    // 2-3. Crash on the full disk, restart on it: recovery, reads, and
    // writes that fail clearly.
    let (status, _) = server.signal("-KILL");
    assert!(!status.success());
    let server = Server::start(&datadir, logs.path(), "recover-full");
    let mut c = server.connect();
    check_outcomes(&mut c, &outcomes, "after a crash, restarted on the full disk");
    let k = outcomes.len() as u64;
    let o = run_txn(&mut c, k);
    assert_eq!(o, Outcome::InsertFailed(1114), "a write needing space on the full disk");
    outcomes.push(o);
    // A row that fits in a page with room needs no new space.
    c.query_drop("UPDATE d.t SET pad = REPEAT('y', 900) WHERE id < 10").expect("an update in place on the full disk");
    c.query_drop("UPDATE d.t SET pad = REPEAT('x', 900) WHERE id < 10").expect("and back");
    // A new table needs a file: refused cleanly, leaving nothing behind.
    let e = c.query_drop("CREATE TABLE d.u (a INT PRIMARY KEY)").expect_err("CREATE TABLE on the full disk");
    assert_eq!(code(&e), 1114, "{e}");
    drop(c);

    // 4. SIGTERM on the full disk shuts down cleanly.
    server.stop_cleanly("on the full disk");
    let server = Server::start(&datadir, logs.path(), "restart-full");
    let mut c = server.connect();
    check_outcomes(&mut c, &outcomes, "after a clean shutdown on the full disk");
    drop(c);

    // 5. Space freed: writes resume; SIGTERM exits 0.
    std::fs::remove_file(&ballast).expect("delete the ballast");
    let mut c = server.connect();
    for _ in 0..20 {
        let k = outcomes.len() as u64;
        let o = run_txn(&mut c, k);
        assert_eq!(o, Outcome::Committed, "writes resume once space is freed\n{}", server.stderr());
        outcomes.push(o);
    }
    c.query_drop("CREATE TABLE d.u (a INT PRIMARY KEY)").expect("CREATE TABLE once space is freed");
    c.query_drop("INSERT INTO d.u VALUES (1), (2)").unwrap();
    drop(c);
    server.stop_cleanly("after space was freed");
    let server = Server::start(&datadir, logs.path(), "final");
    let mut c = server.connect();
    check_outcomes(&mut c, &outcomes, "after the final restart");
    let n: u64 = c.query_first("SELECT COUNT(*) FROM d.u").unwrap().unwrap();
    assert_eq!(n, 2);
    drop(c);
    server.stop_cleanly("at the end");
}
