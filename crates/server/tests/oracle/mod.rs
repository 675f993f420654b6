//! The oracle: a throw-away MariaDB started by the test itself, and a quire
//! server beside it, so that a test can run the same statements on both and
//! demand the same answers (results, error codes, affected rows, warnings).
//!
//! MariaDB listens on a Unix socket only (no port to collide on), in a
//! temporary data directory; it is started once per test binary and
//! stopped when the binary exits (a watchdog shell kills it when the test
//! process is gone, whatever way it ended). `mariadbd` comes from Debian's
//! `mariadb-server` package, which `.ci/run` installs; without it the test
//! fails and says so.
#![allow(dead_code)]

pub mod json;
pub mod waits;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder, Row, Value};
use quire_server::config;
use quire_server::serve::Server;

pub const QUIRE_ROOT_PASSWORD: &str = "rootpw";

/// A running MariaDB for this test binary.
pub struct MariaDb {
    pub socket: PathBuf,
    /// Removed by the watchdog once the test process is gone (a static is
    /// never dropped).
    dir: PathBuf,
}

fn mariadbd_path() -> PathBuf {
    for p in ["/usr/sbin/mariadbd", "/usr/bin/mariadbd", "/usr/local/sbin/mariadbd"] {
        if Path::new(p).exists() {
            return PathBuf::from(p);
        }
    }
    panic!("mariadbd not found: install Debian's mariadb-server (.ci/run does) to run the MariaDB comparison tests");
}

impl MariaDb {
    /// The binary's shared MariaDB, started on first use.
    pub fn get() -> &'static MariaDb {
        static M: OnceLock<MariaDb> = OnceLock::new();
        M.get_or_init(MariaDb::start)
    }

    fn start() -> MariaDb {
        let mariadbd = mariadbd_path();
        let dir = tempfile::Builder::new().prefix("quire-oracle-").tempdir().expect("tempdir");
        let data = dir.path().join("data");
        let socket = dir.path().join("mysqld.sock");
        let cnf = dir.path().join("my.cnf");
        std::fs::write(
            &cnf,
            format!(
                "[mysqld]\nuser=root\ndatadir={data}\nsocket={sock}\nskip-networking\nskip-log-bin\n\
                 innodb_buffer_pool_size=64M\ninnodb_log_file_size=16M\ninnodb_flush_log_at_trx_commit=2\n\
                 performance_schema=OFF\nskip-name-resolve\nlog-error={err}\ncharacter-set-server=utf8mb4\n\
                 collation-server=utf8mb4_general_ci\n",
                data = data.display(),
                sock = socket.display(),
                err = dir.path().join("mysqld.err").display(),
            ),
        )
        .expect("write my.cnf");
        let install = Command::new("mariadb-install-db")
            .arg(format!("--defaults-file={}", cnf.display()))
            .arg("--auth-root-authentication-method=normal")
            .arg("--skip-test-db")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .expect("run mariadb-install-db (Debian's mariadb-server)");
        assert!(install.status.success(), "mariadb-install-db failed: {}", String::from_utf8_lossy(&install.stderr));
        // The watchdog: mariadbd in the background, killed as soon as this
        // test process is gone, and its data directory removed then.
        let dir = dir.keep();
        let script = format!(
            "'{mariadbd}' --defaults-file='{cnf}' & m=$!; \
             while kill -0 {me} 2>/dev/null && kill -0 $m 2>/dev/null; do sleep 0.5; done; \
             kill -9 $m 2>/dev/null; sleep 0.5; rm -rf '{dir}'",
            mariadbd = mariadbd.display(),
            cnf = cnf.display(),
            me = std::process::id(),
            dir = dir.display(),
        );
        // The watchdog outlives this handle on purpose (it cleans up after
        // the test process exits); init reaps it.
        #[allow(clippy::zombie_processes)]
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start mariadbd");
        let m = MariaDb { socket, dir };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            match Conn::new(m.opts(None)) {
                Ok(_) => break,
                Err(e) if Instant::now() < deadline => {
                    let _ = e;
                    std::thread::sleep(Duration::from_millis(200));
                }
                Err(e) => {
                    let log = std::fs::read_to_string(m.dir.join("mysqld.err")).unwrap_or_default();
                    panic!("MariaDB did not start in 60 s: {e}\n{log}");
                }
            }
        }
        m
    }

    pub fn opts(&self, db: Option<&str>) -> OptsBuilder {
        OptsBuilder::new().socket(Some(self.socket.display().to_string())).user(Some("root")).pass(Some("")).db_name(db)
    }

    pub fn connect(&self, db: Option<&str>) -> Conn {
        Conn::new(self.opts(db)).expect("connect to MariaDB")
    }

    /// A fresh database named `db` (dropped first if it exists) and a
    /// connection to it.
    pub fn fresh_db(&self, db: &str) -> Conn {
        let mut c = self.connect(None);
        c.query_drop(format!("DROP DATABASE IF EXISTS `{db}`")).expect("drop");
        c.query_drop(format!("CREATE DATABASE `{db}`")).expect("create");
        c.query_drop(format!("USE `{db}`")).expect("use");
        c
    }
}

/// An embedded quire server on an ephemeral port in a temporary directory,
/// with `extra` settings over small test defaults.
pub struct Quire {
    pub server: Server,
    overrides: Vec<(String, String)>,
    _dir: tempfile::TempDir,
}

impl Quire {
    pub fn start(extra: &[(&str, &str)]) -> Quire {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut overrides: Vec<(String, String)> = vec![
            ("datadir".into(), dir.path().display().to_string()),
            ("port".into(), "0".into()),
            ("innodb_buffer_pool_size".into(), "32M".into()),
            ("innodb_page_size".into(), "4096".into()),
            ("innodb_flush_log_at_trx_commit".into(), "2".into()),
            ("innodb_lock_wait_timeout".into(), "2".into()),
        ];
        // The whole suite may be run on the thread pool
        // (QUIRE_TEST_THREAD_HANDLING=pool-of-threads); a test's own
        // setting wins.
        if let Ok(h) = std::env::var("QUIRE_TEST_THREAD_HANDLING") {
            overrides.push(("thread_handling".into(), h));
        }
        for (k, v) in extra {
            overrides.retain(|(ok, _)| ok != k);
            overrides.push((k.to_string(), v.to_string()));
        }
        let cfg = config::load(None, &overrides).expect("config");
        let server = Server::start(&cfg, Some(QUIRE_ROOT_PASSWORD)).expect("quire starts");
        Quire { server, overrides, _dir: dir }
    }

    /// Shuts the server down cleanly and starts it again on the same data
    /// directory and settings (on a new port).
    #[allow(dead_code)]
    pub fn restart(self) -> Quire {
        let Quire { server, overrides, _dir } = self;
        server.shutdown().expect("clean shutdown");
        let cfg = config::load(None, &overrides).expect("config");
        let server = Server::start(&cfg, Some(QUIRE_ROOT_PASSWORD)).expect("quire restarts");
        Quire { server, overrides, _dir }
    }

    pub fn opts(&self, db: Option<&str>) -> OptsBuilder {
        let addr = self.server.tcp_addr.expect("tcp");
        OptsBuilder::new()
            .ip_or_hostname(Some("127.0.0.1"))
            .tcp_port(addr.port())
            .user(Some("root"))
            .pass(Some(QUIRE_ROOT_PASSWORD))
            .db_name(db)
            .prefer_socket(false)
    }

    pub fn connect(&self, db: Option<&str>) -> Conn {
        Conn::new(self.opts(db)).expect("connect to quire")
    }

    pub fn fresh_db(&self, db: &str) -> Conn {
        let mut c = self.connect(None);
        c.query_drop(format!("DROP DATABASE IF EXISTS `{db}`")).expect("drop");
        c.query_drop(format!("CREATE DATABASE `{db}`")).expect("create");
        c.query_drop(format!("USE `{db}`")).expect("use");
        c
    }
}

/// What one statement answered, in a form two servers can be compared by.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// Rows as text (NULL as `None`), in the order sent.
    Rows(Vec<Vec<Option<String>>>),
    /// OK: affected rows, warnings, and the info text.
    Ok { affected: u64, warnings: u16, info: String },
    /// An error code.
    Err(u16),
}

fn cell(v: &Value) -> Option<String> {
    match v {
        Value::NULL => None,
        // Bytes that are not UTF-8 as hex, so that 0x80 and 0xFF differ.
        Value::Bytes(b) => Some(match std::str::from_utf8(b) {
            Ok(s) => s.to_owned(),
            Err(_) => format!("x'{}'", b.iter().map(|x| format!("{x:02X}")).collect::<String>()),
        }),
        Value::Int(i) => Some(i.to_string()),
        Value::UInt(u) => Some(u.to_string()),
        Value::Float(f) => Some(f.to_string()),
        Value::Double(d) => Some(d.to_string()),
        other => Some(other.as_sql(true).trim_matches('\'').to_string()),
    }
}

/// Runs `sql` (one statement, text protocol) and records the answer.
pub fn answer(c: &mut Conn, sql: &str) -> Answer {
    match c.query_iter(sql) {
        Ok(mut result) => {
            let has_columns = !result.columns().as_ref().is_empty();
            let mut rows = Vec::new();
            if has_columns {
                for r in result.by_ref() {
                    match r {
                        Ok(row) => rows.push(row_cells(&row)),
                        Err(e) => return Answer::Err(err_code(&e)),
                    }
                }
                Answer::Rows(rows)
            } else {
                let affected = result.affected_rows();
                let info = result.info_str().into_owned();
                let warnings = result.warnings();
                drop(result);
                Answer::Ok { affected, warnings, info }
            }
        }
        Err(e) => Answer::Err(err_code(&e)),
    }
}

/// Runs `sql` (text protocol) and records every answer it gives: each
/// result set with its column names, then the final OK (a CALL's result
/// sets come before its own OK; an error ends the list).
pub fn answers(c: &mut Conn, sql: &str) -> Vec<(Vec<String>, Answer)> {
    let mut out = Vec::new();
    let mut result = match c.query_iter(sql) {
        Ok(r) => r,
        Err(e) => return vec![(vec![], Answer::Err(err_code(&e)))],
    };
    while let Some(set) = result.iter() {
        let names: Vec<String> = set.columns().as_ref().iter().map(|c| c.name_str().into_owned()).collect();
        if names.is_empty() {
            let a = Answer::Ok {
                affected: set.affected_rows(),
                warnings: set.warnings(),
                info: set.info_str().into_owned(),
            };
            drop(set);
            out.push((names, a));
            continue;
        }
        let mut rows = Vec::new();
        let mut failed = None;
        for r in set {
            match r {
                Ok(row) => rows.push(row_cells(&row)),
                Err(e) => failed = Some(err_code(&e)),
            }
        }
        match failed {
            // Without its column names: whether a statement that fails
            // while running announced its result set first is the
            // protocol layer's choice, not the answer.
            Some(code) => {
                out.push((vec![], Answer::Err(code)));
                return out;
            }
            None => out.push((names, Answer::Rows(rows))),
        }
    }
    out
}

pub fn row_cells(row: &Row) -> Vec<Option<String>> {
    (0..row.len()).map(|i| row.as_ref(i).map(cell).unwrap_or(None)).collect()
}

/// The server error code of `e` (0 for a client-side error).
pub fn err_code(e: &mysql::Error) -> u16 {
    match e {
        mysql::Error::MySqlError(m) => m.code,
        _ => 0,
    }
}

/// The `key` column of quire's EXPLAIN for `sql`'s first table (MariaDB's
/// EXPLAIN differs in other columns, so access paths are checked on quire
/// alone).
pub fn explained_key(c: &mut Conn, sql: &str) -> Option<String> {
    let rows: Vec<Row> = c.query(format!("EXPLAIN {sql}")).unwrap_or_else(|e| panic!("EXPLAIN {sql}: {e}"));
    rows.first().and_then(|r| r.get::<Option<String>, _>("key")).flatten()
}

/// Runs each statement on both servers and asserts the same answers.
pub fn assert_same(quire: &mut Conn, maria: &mut Conn, statements: &[&str]) {
    for sql in statements {
        let q = answer(quire, sql);
        let m = answer(maria, sql);
        assert_eq!(q, m, "quire and MariaDB differ on: {sql}");
    }
}

/// A condition as SHOW WARNINGS lists it: (Level, Code, Message).
pub type Shown = (String, u16, String);

/// One statement's answer with its diagnostics.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnosed {
    pub answer: Answer,
    /// The warning count of the statement's last packet: its OK, or the
    /// EOF after its rows (0 for an error, which carries none).
    pub warnings: u16,
    /// What SHOW WARNINGS lists right after it.
    pub shown: Vec<Shown>,
}

/// SHOW WARNINGS (or any statement answering Level, Code, Message rows).
pub fn show(c: &mut Conn, sql: &str) -> Vec<Shown> {
    c.query_map(sql, |(level, code, message): (String, u16, String)| (level, code, message))
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// Runs `sql` and records its answer, its packet's warning count and the
/// conditions SHOW WARNINGS lists after it.
pub fn diagnosed(c: &mut Conn, sql: &str) -> Diagnosed {
    let answer = answer(c, sql);
    let warnings = if matches!(answer, Answer::Err(_)) { 0 } else { c.warnings() };
    let shown = show(c, "SHOW WARNINGS");
    Diagnosed { answer, warnings, shown }
}

/// Runs each statement on both servers and asserts the same answers,
/// warning counts and SHOW WARNINGS lists.
pub fn assert_same_diagnostics(quire: &mut Conn, maria: &mut Conn, statements: &[&str]) {
    for sql in statements {
        let q = diagnosed(quire, sql);
        let m = diagnosed(maria, sql);
        assert_eq!(q, m, "quire and MariaDB differ on: {sql}");
    }
}

/// Runs `statements` on a fresh quire and on the shared MariaDB, each in a
/// fresh database named `db`, and asserts the same answers.
pub fn same_on_both(db: &str, statements: &[&str]) {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db(db);
    let mut mc = m.fresh_db(db);
    assert_same(&mut qc, &mut mc, statements);
}

/// This process's resident set (a test's quire runs in it), in bytes.
pub fn rss_bytes() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = s.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
}

/// Set in the child process that runs a memory test alone.
const ALONE: &str = "QUIRE_TEST_ALONE";

/// Runs test `name` again in a process of its own (so that no other test
/// of this binary shares its memory) and demands that it passes there;
/// `true` when the caller is that process and should run the body.
pub fn alone(name: &str) -> bool {
    if std::env::var_os(ALONE).is_some() {
        return true;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(ALONE, "1")
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    eprintln!("{text}");
    assert!(out.status.success() && text.contains("1 passed"), "{name} failed alone");
    false
}

/// Runs `f` while a thread samples this process's resident set every
/// 5 ms; `f`'s answer and the peak growth over the start, in bytes.
pub fn peak_rss_during<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let before = rss_bytes();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut peak = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                peak = peak.max(rss_bytes());
                std::thread::sleep(Duration::from_millis(5));
            }
            peak
        })
    };
    let out = f();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let peak = sampler.join().unwrap().max(rss_bytes());
    (out, peak.saturating_sub(before))
}

/// Runs `statements` on quire and MariaDB, each in a fresh database `db`,
/// asserting the same answers (all result sets, OKs and errors) for each.
#[allow(dead_code)]
pub fn assert_same_answers(db: &str, statements: &[&str]) {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let (mut qc, mut mc) = (q.fresh_db(db), m.fresh_db(db));
    for sql in statements {
        let (qa, ma) = (answers(&mut qc, sql), answers(&mut mc, sql));
        assert_eq!(qa, ma, "quire and MariaDB differ on: {sql}");
    }
}
