//! What the binary-log kill tests share: a server with `log_bin` on,
//! `sync_binlog=1`, durable commits and small files (rotations happen
//! under load), the test-only pause hook, the files of the index, and a
//! database made by a first start.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;

use super::{Server, DURABLE_16M};

/// Starts `quire serve` logging, with `extra` options, paused at the
/// binlog point `pause_at` when given (`QUIRE_BINLOG_PAUSE_AT`).
pub fn start(datadir: &Path, log: &Path, password: &'static str, extra: &[&str], pause_at: Option<&str>) -> Server {
    let mut opts = vec![
        DURABLE_16M[0],
        DURABLE_16M[1],
        "--log_bin=ON",
        "--sync_binlog=1",
        "--max_binlog_size=32768",
        "--binlog_expire_logs_seconds=0",
    ];
    opts.extend_from_slice(extra);
    Server::start(datadir, log, password, &opts, &|cmd| {
        cmd.env_remove("QUIRE_BINLOG_PAUSE_AT");
        if let Some(p) = pause_at {
            cmd.env("QUIRE_BINLOG_PAUSE_AT", p);
        }
    })
}

/// The files the index names, oldest first.
pub fn files(datadir: &Path) -> Vec<PathBuf> {
    let index = std::fs::read_to_string(datadir.join("binlog.index")).unwrap();
    index.lines().map(|l| datadir.join(l.trim_start_matches("./"))).collect()
}

/// Waits until the server's log says it paused at the binlog hook.
pub fn wait_paused(log: &Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(log).unwrap_or_default().contains("paused at binlog point engine_commit") {
        assert!(Instant::now() < deadline, "the server never paused at the hook");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A first start that runs `ddl`, then a kill.
pub fn setup(server: Server, ddl: &[&str]) {
    let mut c = server.connect(None);
    for s in ddl {
        c.query_drop(s).unwrap();
    }
    drop(c);
    server.kill();
}
