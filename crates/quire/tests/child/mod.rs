//! `quire serve` as a child process, for the tests that SIGKILL it: started
//! on a free port with the given root password and options, its stderr in
//! `log`, and waited for until it says it is ready (a port taken meanwhile
//! is retried on another; any other early exit fails the test with the log).
//! `Server` owns such a child: connections to it, SIGKILL, and a kill on
//! drop so that a failing test leaves no server behind.

#![allow(dead_code)] // each test binary uses its own part of this module

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mysql::{Conn, OptsBuilder};

pub mod logged;

/// The options every kill test starts with: a small pool, durable commits.
pub const DURABLE_16M: [&str; 2] = ["--innodb-buffer-pool-size=16M", "--innodb_flush_log_at_trx_commit=1"];

/// A `quire serve` child and how to reach it.
pub struct Server {
    child: Child,
    pub port: u16,
    pub password: &'static str,
}

impl Server {
    /// Starts `quire serve` (see `spawn`).
    pub fn start(
        datadir: &Path,
        log: &Path,
        password: &'static str,
        options: &[&str],
        configure: &dyn Fn(&mut Command),
    ) -> Server {
        let (child, port) = spawn(datadir, log, password, options, configure);
        Server { child, port, password }
    }

    /// Starts `quire serve` on `port` (a restart where replicas expect
    /// it): retried while the port is still held by the killed server.
    pub fn start_on(
        datadir: &Path,
        log: &Path,
        password: &'static str,
        options: &[&str],
        port: u16,
        configure: &dyn Fn(&mut Command),
    ) -> Server {
        for _ in 0..50 {
            if let Some(child) = try_spawn(datadir, log, password, options, port, configure) {
                return Server { child, port, password };
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        panic!("port {port} stayed in use");
    }

    /// A connection as root, to `db` if given.
    pub fn try_connect(&self, db: Option<&str>) -> mysql::Result<Conn> {
        Conn::new(
            OptsBuilder::new()
                .ip_or_hostname(Some("127.0.0.1"))
                .tcp_port(self.port)
                .user(Some("root"))
                .pass(Some(self.password))
                .db_name(db)
                .prefer_socket(false),
        )
    }

    /// As `try_connect`, failing the test when the server refuses.
    pub fn connect(&self, db: Option<&str>) -> Conn {
        self.try_connect(db).unwrap()
    }

    /// SIGKILL, and wait until the process is gone.
    pub fn kill(mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().unwrap();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the server on `datadir`; `configure` may add to the command
/// (environment, more options). Returns the process and its port.
pub fn spawn(
    datadir: &Path,
    log: &Path,
    password: &str,
    options: &[&str],
    configure: &dyn Fn(&mut Command),
) -> (Child, u16) {
    for _ in 0..5 {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        if let Some(child) = try_spawn(datadir, log, password, options, port, configure) {
            return (child, port);
        }
    }
    panic!("no free port in 5 attempts");
}

/// One start on `port`: the ready process, or `None` when the port was
/// in use (any other early exit fails the test with the log).
fn try_spawn(
    datadir: &Path,
    log: &Path,
    password: &str,
    options: &[&str],
    port: u16,
    configure: &dyn Fn(&mut Command),
) -> Option<Child> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_quire"));
    cmd.arg("serve")
        .arg(format!("--root-password={password}"))
        .arg(format!("--datadir={}", datadir.display()))
        .arg(format!("--port={port}"))
        .args(options)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap());
    configure(&mut cmd);
    let mut child = cmd.spawn().expect("spawn quire serve");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let err = std::fs::read_to_string(log).unwrap_or_default();
        if err.contains("ready for connections") {
            return Some(child);
        }
        if let Some(status) = child.try_wait().unwrap() {
            assert!(err.contains("in use"), "quire serve exited with {status}:\n{err}");
            return None;
        }
        assert!(Instant::now() < deadline, "quire serve not ready:\n{err}");
        std::thread::sleep(Duration::from_millis(50));
    }
}
