//! `quire serve` as a child process, for the tests that SIGKILL it: started
//! on a free port with the given root password and options, its stderr in
//! `log`, and waited for until it says it is ready (a port taken meanwhile
//! is retried on another; any other early exit fails the test with the log).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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
                return (child, port);
            }
            if let Some(status) = child.try_wait().unwrap() {
                assert!(err.contains("in use"), "quire serve exited with {status}:\n{err}");
                break;
            }
            assert!(Instant::now() < deadline, "quire serve not ready:\n{err}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    panic!("no free port in 5 attempts");
}
