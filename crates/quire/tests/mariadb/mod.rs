//! A throw-away MariaDB server (Debian's `mariadbd`) as a child of the
//! test, for the tests where MariaDB replicates from quire: its own data
//! directory under the test's temporary directory, a free port, its
//! socket, root without a password over the socket. Killed on drop.
//!
//! `character-set-server=utf8mb4` (Debian's packaged default, set in its
//! 50-server.cnf): a replica reconnecting by itself sends `SET NAMES`
//! with that character set, and quire's connections speak utf8mb4 only
//! (a latin1 replica reconnects only through STOP / START SLAVE).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder};

pub struct Mariadb {
    child: Child,
    pub port: u16,
    socket: PathBuf,
}

/// Whether `mariadbd` and `mariadb-install-db` are installed.
pub fn available() -> bool {
    Command::new("mariadbd").arg("--version").output().is_ok()
        && Command::new("mariadb-install-db").arg("--help").output().is_ok()
}

impl Mariadb {
    /// Installs and starts a server with `server_id` in `dir`.
    pub fn start(dir: &Path, server_id: u32) -> Mariadb {
        std::fs::create_dir_all(dir).unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let data = dir.join("data");
        let socket = dir.join("mysqld.sock");
        let cnf = dir.join("my.cnf");
        std::fs::write(
            &cnf,
            format!(
                "[mysqld]\ndatadir={}\nsocket={}\nport={port}\nbind-address=127.0.0.1\nuser=root\nskip-log-bin\n\
                 server-id={server_id}\ncharacter-set-server=utf8mb4\ninnodb_buffer_pool_size=32M\n\
                 innodb_log_file_size=48M\nperformance_schema=OFF\nslave_net_timeout=30\n",
                data.display(),
                socket.display()
            ),
        )
        .unwrap();
        // One install at a time (tests run in parallel; a failed install
        // was once seen among concurrent ones), retried on a clean slate.
        static INSTALL: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _one = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
        let mut last = String::new();
        for _ in 0..3 {
            let _ = std::fs::remove_dir_all(&data);
            let out = Command::new("mariadb-install-db")
                .arg(format!("--defaults-file={}", cnf.display()))
                .arg("--auth-root-authentication-method=normal")
                .output()
                .expect("mariadb-install-db runs");
            if out.status.success() {
                last.clear();
                break;
            }
            last = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        }
        assert!(last.is_empty(), "mariadb-install-db failed: {last}");
        let child = Command::new("mariadbd")
            .arg(format!("--defaults-file={}", cnf.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("mysqld.err")).unwrap())
            .spawn()
            .expect("spawn mariadbd");
        let m = Mariadb { child, port, socket };
        let deadline = Instant::now() + Duration::from_secs(120);
        while m.try_connect().is_err() {
            assert!(Instant::now() < deadline, "mariadbd did not start: see {}", dir.join("mysqld.err").display());
            std::thread::sleep(Duration::from_millis(100));
        }
        m
    }

    fn try_connect(&self) -> mysql::Result<Conn> {
        Conn::new(
            OptsBuilder::new().socket(Some(self.socket.display().to_string())).user(Some("root")).prefer_socket(true),
        )
    }

    pub fn connect(&self) -> Conn {
        self.try_connect().unwrap()
    }

    /// SHOW SLAVE STATUS as (column, value) text pairs.
    pub fn slave_status(&self) -> Vec<(String, String)> {
        let mut c = self.connect();
        let row: Option<mysql::Row> = c.query_first("SHOW SLAVE STATUS").unwrap();
        let Some(row) = row else { return Vec::new() };
        let cols: Vec<String> = row.columns_ref().iter().map(|c| c.name_str().to_string()).collect();
        cols.into_iter()
            .enumerate()
            .map(|(i, n)| {
                let v = match row.as_ref(i) {
                    Some(mysql::Value::Bytes(b)) => String::from_utf8_lossy(b).to_string(),
                    Some(mysql::Value::NULL) | None => "NULL".to_string(),
                    Some(v) => v.as_sql(true),
                };
                (n, v)
            })
            .collect()
    }
}

/// One field of a SHOW SLAVE STATUS answer.
pub fn field<'a>(status: &'a [(String, String)], name: &str) -> &'a str {
    status.iter().find(|(n, _)| n == name).map_or("", |(_, v)| v.as_str())
}

impl Drop for Mariadb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
