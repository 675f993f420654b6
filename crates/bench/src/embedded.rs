//! The embedded target: quire started in this process with its defaults,
//! in a temporary data directory, on a port the OS picks. Scenarios that
//! change a startup variable (buffer pool size, doublewrite) restart it on
//! the same data directory with the new value, so the data is loaded once.
//!
//! Invariants:
//! 1. While an [`Embedded`] exists its server is running, except inside
//!    [`Embedded::restart_with`].
//! 2. The options a run used are exactly [`Embedded::options`]: the
//!    bench's connection limits, then `--quire-option`s, then the
//!    scenario's setting (a later value wins).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use mysql::prelude::Queryable;
use quire_server::config;
use quire_server::serve::Server;

use crate::error::{Context, Error, Result};
use crate::target::TargetSpec;

/// Root's password on the embedded server (it only listens on 127.0.0.1
/// and lives as long as the benchmark).
const ROOT_PASSWORD: &str = "quire-bench";

/// quire running inside the benchmark process.
pub struct Embedded {
    _tmp: Option<tempfile::TempDir>,
    datadir: PathBuf,
    server: Option<Server>,
    /// `--quire-option name=value`s.
    base: Vec<(String, String)>,
    /// The scenario's current setting(s).
    settings: Vec<(String, String)>,
    max_connections: u32,
    spec: TargetSpec,
}

impl Embedded {
    /// Starts quire in a new temporary directory (under `parent`, or the
    /// system's temporary directory) and creates database `sbtest`.
    pub fn start(parent: Option<&Path>, base: Vec<(String, String)>, max_connections: u32) -> Result<Embedded> {
        let mut b = tempfile::Builder::new();
        b.prefix("quire-bench-");
        let tmp = match parent {
            Some(p) => b.tempdir_in(p),
            None => b.tempdir(),
        }
        .context(|| "cannot create a temporary directory for the embedded quire".to_string())?;
        let datadir = tmp.path().join("data");
        let spec = TargetSpec {
            label: Some("quire".to_string()),
            host: "127.0.0.1".to_string(),
            port: 0,
            user: "root".to_string(),
            password: ROOT_PASSWORD.to_string(),
            database: "sbtest".to_string(),
        };
        let mut e =
            Embedded { _tmp: Some(tmp), datadir, server: None, base, settings: Vec::new(), max_connections, spec };
        e.boot()?;
        let mut conn = e.spec.connect(false, 4)?;
        conn.query_drop("CREATE DATABASE IF NOT EXISTS sbtest")
            .context(|| "embedded quire: CREATE DATABASE sbtest".to_string())?;
        Ok(e)
    }

    /// The options quire is (re)started with.
    pub fn options(&self) -> Vec<(String, String)> {
        let mut o: Vec<(String, String)> = vec![
            ("datadir".into(), self.datadir.display().to_string()),
            ("port".into(), "0".into()),
            ("bind_address".into(), "127.0.0.1".into()),
            ("max_connections".into(), self.max_connections.to_string()),
        ];
        o.extend(self.base.iter().cloned());
        o.extend(self.settings.iter().cloned());
        o
    }

    fn boot(&mut self) -> Result<()> {
        let cfg = config::load(None, &self.options()).context(|| "embedded quire: configuration".to_string())?;
        let server = Server::start(&cfg, Some(ROOT_PASSWORD))
            .map_err(|e| Error::new(format!("embedded quire did not start: {e}")))?;
        let addr = server.tcp_addr.ok_or_else(|| Error::new("embedded quire has no TCP address"))?;
        self.spec.port = addr.port();
        self.server = Some(server);
        Ok(())
    }

    /// Stops quire cleanly and starts it again with `settings` (replacing
    /// the previous ones) on the same data directory.
    pub fn restart_with(&mut self, settings: &[(String, String)]) -> Result<()> {
        self.stop()?;
        self.settings = settings.to_vec();
        self.boot()
    }

    /// How to connect.
    pub fn spec(&self) -> &TargetSpec {
        &self.spec
    }

    /// The running server's shared state (its SHOW STATUS counters).
    pub fn shared(&self) -> Option<&Arc<quire_sql::Shared>> {
        self.server.as_ref().map(|s| &s.shared)
    }

    /// Bytes on disk of the files whose path names an `sbtest` table.
    pub fn data_bytes(&self) -> u64 {
        fn walk(dir: &Path, total: &mut u64) {
            let Ok(entries) = std::fs::read_dir(dir) else { return };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, total);
                } else if p.to_string_lossy().contains("sbtest") {
                    *total += e.metadata().map(|m| m.len()).unwrap_or(0);
                }
            }
        }
        let mut total = 0;
        walk(&self.datadir, &mut total);
        total
    }

    fn stop(&mut self) -> Result<()> {
        match self.server.take() {
            Some(s) => s.shutdown().map_err(|e| Error::new(format!("embedded quire: shutdown failed: {e}"))),
            None => Ok(()),
        }
    }

    /// Stops quire cleanly; the temporary directory goes with `self`.
    pub fn shutdown(mut self) -> Result<()> {
        self.stop()
    }
}

impl Drop for Embedded {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}
