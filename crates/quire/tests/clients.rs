//! End-to-end tests with real clients: `quire serve` runs as a child
//! process and is driven by sysbench 1.0.20 and the `mariadb` command-line
//! client, exactly as a user would. The clients are required, not optional:
//! a test fails when one is missing (`.ci/run` installs them with apt-get).
//!
//! Every test starts its own server on a free port in a temporary data
//! directory (64M buffer pool, `innodb_flush_log_at_trx_commit=2`) and stops
//! it with SIGTERM, which must end in exit status 0 and "shut down cleanly".

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

const ROOT_PASSWORD: &str = "root-pw";
/// Options every test server gets besides its data directory and port.
const SPEED_OPTIONS: &[&str] = &["--innodb-buffer-pool-size=64M", "--innodb_flush_log_at_trx_commit=2"];

/// A port nobody listens on right now (another process may still take it
/// before the server binds it; `Server::start` retries then).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind an ephemeral port");
    l.local_addr().expect("local address").port()
}

/// `text` without terminal colour sequences (tracing colours its output).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A running `quire serve` child. Dropping it kills the process, so a
/// failed assertion leaves nothing behind.
struct Server {
    child: Option<Child>,
    port: u16,
    stdout_path: PathBuf,
    stderr_path: PathBuf,
    /// The file `log_error` names, when the log goes there.
    log_path: Option<PathBuf>,
}

/// How a server ended.
struct Stopped {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

impl Server {
    /// Starts `quire serve` with the arguments `args_for(port)` and waits
    /// for "ready for connections". Its output goes to `logs/<name>.out`
    /// and `logs/<name>.err`. A start that fails because the port was taken
    /// meanwhile is retried on another port.
    fn start(logs: &Path, name: &str, args_for: impl Fn(u16) -> Vec<String>) -> Server {
        Server::launch(logs, name, None, args_for)
    }

    /// [`Server::start`] for a server whose log goes to `log` (`log_error`),
    /// where "ready for connections" is then looked for.
    fn launch(logs: &Path, name: &str, log: Option<&Path>, args_for: impl Fn(u16) -> Vec<String>) -> Server {
        let mut last_err = String::new();
        for attempt in 0..5 {
            let port = free_port();
            let stdout_path = logs.join(format!("{name}-{attempt}.out"));
            let stderr_path = logs.join(format!("{name}-{attempt}.err"));
            let child = Command::new(env!("CARGO_BIN_EXE_quire"))
                .arg("serve")
                .args(args_for(port))
                .stdin(Stdio::null())
                .stdout(std::fs::File::create(&stdout_path).expect("create the stdout log"))
                .stderr(std::fs::File::create(&stderr_path).expect("create the stderr log"))
                .spawn()
                .expect("spawn quire serve");
            let log_path = log.map(Path::to_path_buf);
            let mut server = Server { child: Some(child), port, stdout_path, stderr_path, log_path };
            match server.wait_ready() {
                Ok(()) => return server,
                Err(stderr) if stderr.contains("in use") => last_err = stderr,
                Err(stderr) => panic!("quire serve did not start:\n{stderr}"),
            }
        }
        panic!("quire serve found no free port in 5 attempts:\n{last_err}");
    }

    /// Starts a server on `datadir` with the test options and a Unix socket
    /// at `socket` (if given).
    fn start_on(logs: &Path, name: &str, datadir: &Path, socket: Option<&Path>) -> Server {
        Server::start(logs, name, |port| {
            let mut args = vec![
                format!("--root-password={ROOT_PASSWORD}"),
                format!("--datadir={}", datadir.display()),
                format!("--port={port}"),
            ];
            args.extend(SPEED_OPTIONS.iter().map(|s| s.to_string()));
            if let Some(s) = socket {
                args.push(format!("--socket={}", s.display()));
            }
            args
        })
    }

    /// Waits until stderr says the server listens; on an early exit or a
    /// timeout, returns stderr.
    fn wait_ready(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let stderr = strip_ansi(&std::fs::read_to_string(&self.stderr_path).unwrap_or_default());
            let log = self.log_path.as_ref().map(|p| std::fs::read_to_string(p).unwrap_or_default());
            if log.as_deref().unwrap_or(&stderr).contains("ready for connections") {
                return Ok(());
            }
            let child = self.child.as_mut().expect("server running");
            if let Some(status) = child.try_wait().expect("poll the server") {
                self.child = None;
                let stderr = strip_ansi(&std::fs::read_to_string(&self.stderr_path).unwrap_or_default());
                return Err(format!("exited with {status}; stderr:\n{stderr}"));
            }
            if Instant::now() > deadline {
                return Err(format!("not ready after 60 s; stderr:\n{stderr}"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The server's stderr so far, without colours.
    fn stderr(&self) -> String {
        strip_ansi(&std::fs::read_to_string(&self.stderr_path).unwrap_or_default())
    }

    /// Sends SIGTERM and waits (at most 120 s) for the process to end.
    fn stop(self) -> Stopped {
        let id = self.child.as_ref().expect("server running").id();
        let kill = Command::new("kill").args(["-TERM", &id.to_string()]).status().expect("run kill(1)");
        assert!(kill.success(), "kill -TERM failed");
        self.wait_exit()
    }

    /// Waits (at most 120 s) for the process to end by itself.
    fn wait_exit(mut self) -> Stopped {
        let mut child = self.child.take().expect("server running");
        let deadline = Instant::now() + Duration::from_secs(120);
        let status = loop {
            if let Some(status) = child.try_wait().expect("poll the server") {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("server still running after 120 s; stderr:\n{}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        Stopped {
            status,
            stdout: std::fs::read_to_string(&self.stdout_path).unwrap_or_default(),
            stderr: self.stderr(),
        }
    }

    /// Stops the server with SIGTERM and asserts that it shut down cleanly.
    fn stop_cleanly(self) -> Stopped {
        let stopped = self.stop();
        assert!(stopped.status.success(), "exit status {} after SIGTERM; stderr:\n{}", stopped.status, stopped.stderr);
        assert!(
            stopped.stdout.contains("quire: shut down cleanly"),
            "no clean-shutdown line; stdout:\n{}\nstderr:\n{}",
            stopped.stdout,
            stopped.stderr
        );
        stopped
    }

    /// Runs the `mariadb` client as root over TCP with `extra` arguments
    /// and `script` on stdin.
    fn mariadb(&self, extra: &[&str], script: &str) -> Output {
        let conn =
            ["-h127.0.0.1".to_string(), format!("-P{}", self.port), "-uroot".to_string(), format!("-p{ROOT_PASSWORD}")];
        run_mariadb(&conn, extra, script)
    }

    /// Runs `sql` as root and returns its `--batch` output; the client must
    /// succeed.
    fn query(&self, sql: &str) -> String {
        let out = self.mariadb(&["--batch", "-e", sql], "");
        assert_client_ok(&out, sql);
        String::from_utf8(out.stdout).expect("utf-8 output")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Runs `mariadb conn extra` with `script` on stdin.
fn run_mariadb(conn: &[String], extra: &[&str], script: &str) -> Output {
    let mut child = Command::new("mariadb")
        .args(conn)
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the mariadb client is installed (.ci/run installs it: apt-get install mariadb-client)");
    let mut stdin = child.stdin.take().expect("client stdin");
    let script = script.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(script.as_bytes());
    });
    let out = child.wait_with_output().expect("wait for the mariadb client");
    writer.join().expect("stdin writer");
    out
}

fn assert_client_ok(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "mariadb failed on {what:?}: {}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The number after `label` on the line of sysbench's report that has it.
fn sysbench_count(report: &str, label: &str) -> u64 {
    let line = report.lines().find(|l| l.trim_start().starts_with(label)).unwrap_or_else(|| {
        panic!("no {label:?} line in sysbench's report:\n{report}");
    });
    let rest = line.trim_start()[label.len()..].trim_start();
    let number: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    number.parse().unwrap_or_else(|_| panic!("no count in {line:?}"))
}

/// sysbench against one server, with one `--db-ps-mode`.
struct Sysbench {
    port: u16,
    ps_mode: &'static str,
}

impl Sysbench {
    /// Runs `sysbench <options> <script> <command>` and returns stdout and
    /// stderr; sysbench must exit 0 and print no FATAL line. Only deadlocks
    /// (1213) and lock wait timeouts (1205) may be ignored and retried; any
    /// other error is fatal to sysbench.
    fn run(&self, script: &str, command: &str, options: &[&str]) -> String {
        let started = Instant::now();
        let out = Command::new("sysbench")
            .args([
                "--db-driver=mysql",
                "--mysql-host=127.0.0.1",
                &format!("--mysql-port={}", self.port),
                "--mysql-user=sbtest",
                "--mysql-password=sbtest",
                "--mysql-db=sbtest",
                "--mysql-ignore-errors=1213,1205",
                &format!("--db-ps-mode={}", self.ps_mode),
                "--tables=2",
                "--table-size=2000",
            ])
            .args(options)
            .args([script, command])
            .stdin(Stdio::null())
            .output()
            .expect("sysbench is installed (.ci/run installs it: apt-get install sysbench)");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let all = format!("{stdout}\n{stderr}");
        let what = format!("sysbench --db-ps-mode={} {} {script} {command}", self.ps_mode, options.join(" "));
        assert!(out.status.success(), "{what} failed with {}:\n{all}", out.status);
        assert!(!all.contains("FATAL"), "{what} reported a FATAL error:\n{all}");
        eprintln!("{what}: {:.1} s", started.elapsed().as_secs_f64());
        all
    }

    /// Runs `script` for 3 s with 4 threads and checks its report.
    fn run_for_3s(&self, script: &str, extra: &[&str]) {
        let mut options = vec!["--threads=4", "--time=3"];
        options.extend_from_slice(extra);
        let report = self.run(script, "run", &options);
        let transactions = sysbench_count(&report, "transactions:");
        let ignored = sysbench_count(&report, "ignored errors:");
        eprintln!("    {transactions} transactions, {ignored} ignored deadlocks / lock wait timeouts");
        assert!(transactions > 0, "{script} ({}) committed no transaction:\n{report}", self.ps_mode);
    }
}

#[test]
fn every_sysbench_oltp_script_runs_without_errors() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let server = Server::start_on(tmp.path(), "sysbench", &tmp.path().join("data"), None);
    server.query("CREATE DATABASE sbtest; CREATE USER sbtest IDENTIFIED BY 'sbtest'; GRANT ALL ON sbtest.* TO sbtest;");
    // The read and update scripts keep the tables' shape; oltp_delete and
    // oltp_insert change it, so they run last.
    let scripts = [
        "oltp_read_write",
        "oltp_read_only",
        "oltp_write_only",
        "oltp_point_select",
        "oltp_update_index",
        "oltp_update_non_index",
        "oltp_delete",
        "oltp_insert",
    ];
    for ps_mode in ["auto", "disable"] {
        let sb = Sysbench { port: server.port, ps_mode };
        sb.run("oltp_read_write", "prepare", &[]);
        assert_eq!(
            server.query("SELECT COUNT(*) FROM sbtest.sbtest1; SELECT COUNT(*) FROM sbtest.sbtest2"),
            "COUNT(*)\n2000\nCOUNT(*)\n2000\n"
        );
        for script in scripts {
            sb.run_for_3s(script, &[]);
        }
        if ps_mode == "auto" {
            // Every statement in autocommit mode instead of BEGIN ... COMMIT.
            // Without delete-inserts: in autocommit mode two threads that
            // delete the same id both insert it again, and the second gets a
            // duplicate key on MySQL as well.
            sb.run_for_3s("oltp_read_write", &["--skip-trx=on", "--delete_inserts=0"]);
        }
        sb.run("oltp_read_write", "cleanup", &[]);
        assert_eq!(server.query("SHOW TABLES FROM sbtest"), "", "cleanup left tables behind ({ps_mode})");
    }
    server.stop_cleanly();
}

/// The scripted session's statements: every line of output below is what
/// MySQL 8.0 prints for them with `mariadb --batch`.
const SESSION_SQL: &str = "\
CREATE DATABASE shop;
USE shop;
CREATE TABLE items (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT,
  sku CHAR(8) NOT NULL,
  name VARCHAR(64) NOT NULL DEFAULT '',
  qty BIGINT NOT NULL DEFAULT 0,
  price DECIMAL(10,2) NOT NULL,
  notes TEXT,
  added DATE,
  updated DATETIME,
  PRIMARY KEY (id),
  UNIQUE KEY sku (sku),
  KEY name_idx (name)
);
INSERT INTO items (sku, name, qty, price, notes, added, updated) VALUES
  ('A-1', 'apple', 10, 0.50, 'red', '2024-01-02', '2024-01-02 10:00:00'),
  ('B-2', 'banana', 20, 0.25, NULL, '2024-01-03', '2024-01-03 11:30:00'),
  ('C-3', 'cherry', 5, 3.10, 'sweet', '2024-02-01', NULL),
  ('D-4', 'apple', 7, 0.55, 'green', '2024-02-01', '2024-02-05 08:15:30');
SELECT * FROM items ORDER BY id;
SELECT id, name FROM items WHERE qty > 6 ORDER BY qty DESC LIMIT 2;
SELECT sku FROM items WHERE added BETWEEN '2024-01-01' AND '2024-01-31' AND notes IS NOT NULL;
SELECT COUNT(*), SUM(qty), AVG(price), MIN(price), MAX(added) FROM items;
SELECT DISTINCT name FROM items ORDER BY name;
SELECT name, COUNT(*), SUM(qty) FROM items GROUP BY name ORDER BY name;
UPDATE items SET qty = qty + 1 WHERE name = 'apple';
SELECT ROW_COUNT();
DELETE FROM items WHERE sku = 'B-2';
SELECT id, sku, qty FROM items ORDER BY id;
BEGIN;
INSERT INTO items (sku, name, price) VALUES ('E-5', 'elder', 1.00);
SELECT COUNT(*) FROM items;
ROLLBACK;
SELECT COUNT(*) FROM items;
BEGIN;
INSERT INTO items (sku, name, price) VALUES ('F-6', 'fig', 2.00);
COMMIT;
SELECT id, sku, name, qty, price, notes, added FROM items WHERE sku = 'F-6';
SELECT LAST_INSERT_ID();
INSERT INTO items (sku, name, price) VALUES ('A-1', 'duplicate', 1.00);
SELECT COUNT(*) FROM items WHERE name = 'duplicate';
SHOW TABLES;
SHOW CREATE TABLE items;
DESCRIBE items;
SHOW VARIABLES LIKE 'innodb_lock_wait%';
SET GLOBAL innodb_lock_wait_timeout = 7;
SELECT @@global.innodb_lock_wait_timeout, @@innodb_flush_log_at_trx_commit;
SHOW GLOBAL VARIABLES LIKE 'innodb_lock_wait_timeout';
DROP TABLE items;
SELECT * FROM items;
SHOW TABLES;
DROP DATABASE shop;
SHOW DATABASES LIKE 'shop';
";

/// What MySQL 8.0 prints for `SESSION_SQL` on stdout (`--batch`: a header
/// line and tab-separated rows per result, `\n` escaped in values).
const SESSION_OUTPUT: &str = "\
id\tsku\tname\tqty\tprice\tnotes\tadded\tupdated
1\tA-1\tapple\t10\t0.50\tred\t2024-01-02\t2024-01-02 10:00:00
2\tB-2\tbanana\t20\t0.25\tNULL\t2024-01-03\t2024-01-03 11:30:00
3\tC-3\tcherry\t5\t3.10\tsweet\t2024-02-01\tNULL
4\tD-4\tapple\t7\t0.55\tgreen\t2024-02-01\t2024-02-05 08:15:30
id\tname
2\tbanana
1\tapple
sku
A-1
COUNT(*)\tSUM(qty)\tAVG(price)\tMIN(price)\tMAX(added)
4\t42\t1.100000\t0.25\t2024-02-01
name
apple
banana
cherry
name\tCOUNT(*)\tSUM(qty)
apple\t2\t17
banana\t1\t20
cherry\t1\t5
ROW_COUNT()
2
id\tsku\tqty
1\tA-1\t11
3\tC-3\t5
4\tD-4\t8
COUNT(*)
4
COUNT(*)
3
id\tsku\tname\tqty\tprice\tnotes\tadded
6\tF-6\tfig\t0\t2.00\tNULL\tNULL
LAST_INSERT_ID()
6
COUNT(*)
0
Tables_in_shop
items
Table\tCreate Table
items\tCREATE TABLE `items` (\\n  `id` int unsigned NOT NULL AUTO_INCREMENT,\\n  `sku` char(8) NOT NULL,\\n  \
`name` varchar(64) NOT NULL DEFAULT '',\\n  `qty` bigint NOT NULL DEFAULT '0',\\n  `price` decimal(10,2) NOT NULL,\\n  \
`notes` text,\\n  `added` date DEFAULT NULL,\\n  `updated` datetime DEFAULT NULL,\\n  PRIMARY KEY (`id`),\\n  \
UNIQUE KEY `sku` (`sku`),\\n  KEY `name_idx` (`name`)\\n) ENGINE=InnoDB AUTO_INCREMENT=8 DEFAULT CHARSET=utf8mb4 \
COLLATE=utf8mb4_0900_ai_ci
Field\tType\tNull\tKey\tDefault\tExtra
id\tint unsigned\tNO\tPRI\tNULL\tauto_increment
sku\tchar(8)\tNO\tUNI\tNULL\t
name\tvarchar(64)\tNO\tMUL\t\t
qty\tbigint\tNO\t\t0\t
price\tdecimal(10,2)\tNO\t\tNULL\t
notes\ttext\tYES\t\tNULL\t
added\tdate\tYES\t\tNULL\t
updated\tdatetime\tYES\t\tNULL\t
Variable_name\tValue
innodb_lock_wait_timeout\t50
@@global.innodb_lock_wait_timeout\t@@innodb_flush_log_at_trx_commit
7\t2
Variable_name\tValue
innodb_lock_wait_timeout\t7
";

/// Known differences between quire's output and MySQL's for the session:
/// (what quire prints, what MySQL prints, the bug). Each is replaced in
/// quire's output before the comparison, so the test holds quire to MySQL
/// everywhere else; an entry whose text quire no longer prints is reported
/// as fixed.
/// Where quire's output differs from MySQL 8.0's on purpose or by a
/// known gap: (quire's text, MySQL's text, why). The comparison swaps
/// quire's text for MySQL's; the rest must match MySQL exactly.
const KNOWN_BUGS: &[(&str, &str, &str)] = &[
    // Not a bug: quire's string comparison is utf8mb4_general_ci (and says
    // so in @@collation_server); MySQL 8.0's default is utf8mb4_0900_ai_ci.
    ("COLLATE=utf8mb4_general_ci", "COLLATE=utf8mb4_0900_ai_ci", "quire's default collation is utf8mb4_general_ci"),
];

#[test]
fn mariadb_client_scripted_session() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let server = Server::start_on(tmp.path(), "session", &tmp.path().join("data"), None);
    // --force: go on after the duplicate key and the dropped table's errors.
    let out = server.mariadb(&["--batch", "--force"], SESSION_SQL);
    let mut stdout = String::from_utf8(out.stdout).expect("utf-8 output");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    for (quire, mysql, bug) in KNOWN_BUGS {
        if stdout.contains(quire) {
            eprintln!("known bug still present: {bug}");
            stdout = stdout.replacen(quire, mysql, 1);
        } else {
            eprintln!("known bug no longer seen (remove it from KNOWN_BUGS): {bug}");
        }
    }
    assert_eq!(stdout, SESSION_OUTPUT, "stderr:\n{stderr}");
    // The two statements that fail, with MySQL's codes and SQLSTATEs.
    let line_of = |stmt: &str| {
        SESSION_SQL.lines().position(|l| l.starts_with(stmt)).map(|i| i + 1).expect("statement in the script")
    };
    let dup_line = line_of("INSERT INTO items (sku, name, price) VALUES ('A-1'");
    let missing_line = line_of("SELECT * FROM items;");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("ERROR")).collect();
    assert_eq!(errors.len(), 2, "stderr:\n{stderr}");
    assert!(
        errors[0].starts_with(&format!("ERROR 1062 (23000) at line {dup_line}: Duplicate entry 'A-1' for key ")),
        "{}",
        errors[0]
    );
    assert_eq!(errors[1], format!("ERROR 1146 (42S02) at line {missing_line}: Table 'shop.items' doesn't exist"));
    server.stop_cleanly();
}

#[test]
fn server_restarts_with_data_and_shuts_down_cleanly_on_sigterm() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let datadir = tmp.path().join("data");
    let socket = tmp.path().join("q.sock");
    let server = Server::start_on(tmp.path(), "first", &datadir, Some(&socket));
    let rows: Vec<String> = (1..=1000).map(|i| format!("({i}, {}, 'row {i}')", i * 3)).collect();
    let fill = format!(
        "CREATE DATABASE keep; USE keep; \
         CREATE TABLE t (id INT PRIMARY KEY, v BIGINT NOT NULL, s VARCHAR(20), KEY v_idx (v)); \
         INSERT INTO t VALUES {}; UPDATE t SET s = 'updated' WHERE id <= 10; DELETE FROM t WHERE id > 990;",
        rows.join(", ")
    );
    let out = server.mariadb(&["--batch"], &fill);
    assert_client_ok(&out, "fill the table");
    let check = "SELECT COUNT(*), SUM(v), MAX(id) FROM keep.t; SELECT COUNT(*) FROM keep.t WHERE s = 'updated'";
    let want = "COUNT(*)\tSUM(v)\tMAX(id)\n990\t1471635\t990\nCOUNT(*)\n10\n";
    assert_eq!(server.query(check), want);
    let first = server.stop_cleanly();
    assert!(!socket.exists(), "the Unix socket file outlives the server");
    eprintln!("first run's stdout:\n{}", first.stdout);

    // The root password is used only to initialise a data directory: the
    // one given here is ignored and the first one still works.
    let server = Server::start(tmp.path(), "second", |port| {
        let mut args = vec![
            "--root-password=not-used".to_string(),
            format!("--datadir={}", datadir.display()),
            format!("--port={port}"),
            format!("--socket={}", socket.display()),
        ];
        args.extend(SPEED_OPTIONS.iter().map(|s| s.to_string()));
        args
    });
    assert_eq!(server.query(check), want, "rows after the restart (TCP)");
    let conn = ["-S".to_string(), socket.display().to_string(), "-uroot".to_string(), format!("-p{ROOT_PASSWORD}")];
    let out = run_mariadb(&conn, &["--batch", "-e", check], "");
    assert_client_ok(&out, "query over the Unix socket");
    assert_eq!(String::from_utf8_lossy(&out.stdout), want, "rows after the restart (Unix socket)");
    let out = run_mariadb(&conn, &["--batch", "-e", "INSERT INTO keep.t VALUES (5000, 1, 'socket')"], "");
    assert_client_ok(&out, "write over the Unix socket");
    let wrong = run_mariadb(
        &["-h127.0.0.1".to_string(), format!("-P{}", server.port), "-uroot".to_string(), "-pnot-used".to_string()],
        &["-e", "SELECT 1"],
        "",
    );
    assert!(!wrong.status.success(), "the restart's --root-password replaced the password");
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("ERROR 1045 (28000)"), "{:?}", wrong);
    server.stop_cleanly();
}

/// `mariadb-admin shutdown` (COM_SHUTDOWN) stops the server as SIGTERM
/// does: a clean shutdown, the rows there after a restart; a user without
/// the privilege is refused (1227) and the server keeps running.
#[test]
fn mariadb_admin_shutdown_stops_the_server_cleanly() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let datadir = tmp.path().join("data");
    let server = Server::start_on(tmp.path(), "admin", &datadir, None);
    server.query("CREATE DATABASE a; CREATE TABLE a.t (id INT PRIMARY KEY); INSERT INTO a.t VALUES (1), (2); CREATE USER plain IDENTIFIED BY 'p'");
    let admin = |user: &str, password: &str| {
        Command::new("mariadb-admin")
            .args([
                "-h127.0.0.1",
                &format!("-P{}", server.port),
                &format!("-u{user}"),
                &format!("-p{password}"),
                "shutdown",
            ])
            .output()
            .expect("run mariadb-admin")
    };
    let refused = admin("plain", "p");
    assert!(!refused.status.success(), "a user without SHUTDOWN shut the server down");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("SHUTDOWN privilege"), "{refused:?}");
    assert_eq!(server.query("SELECT COUNT(*) FROM a.t"), "COUNT(*)\n2\n");
    let out = admin("root", ROOT_PASSWORD);
    assert!(out.status.success(), "mariadb-admin shutdown: {out:?}");
    let stopped = server.wait_exit();
    assert!(stopped.status.success(), "exit status {}; stderr:\n{}", stopped.status, stopped.stderr);
    assert!(stopped.stdout.contains("quire: shut down cleanly"), "stdout:\n{}", stopped.stdout);
    let server = Server::start_on(tmp.path(), "admin-again", &datadir, None);
    assert_eq!(server.query("SELECT COUNT(*) FROM a.t"), "COUNT(*)\n2\n");
    server.stop_cleanly();
}

#[test]
fn my_cnf_configures_the_server_unknown_variables_only_warn_and_the_log_file_is_plain_text() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let datadir = tmp.path().join("data");
    let cnf = tmp.path().join("my.cnf");
    let server = Server::start(tmp.path(), "mycnf", |port| {
        let text = format!(
            "# quire reads the [mysqld] section\n\
             [client]\nuser = nobody\n\n\
             [mysqld]\n\
             port = {port}\n\
             datadir = {}\n\
             innodb_buffer_pool_size = 64M\n\
             innodb-flush-log-at-trx-commit = 2\n\
             innodb_lock_wait_timeout = 13\n\
             frobnicate = 1\n\
             innodb_numa_interleave = 1\n",
            datadir.display()
        );
        std::fs::write(&cnf, text).expect("write my.cnf");
        // quire's own --root-password after the server options is still
        // taken (the connections below log in with it).
        vec![format!("--defaults-file={}", cnf.display()), "--root-password".into(), ROOT_PASSWORD.into()]
    });
    assert_eq!(
        server.query(
            "SELECT @@port, @@innodb_buffer_pool_size, @@innodb_flush_log_at_trx_commit, @@innodb_lock_wait_timeout"
        ),
        format!(
            "@@port\t@@innodb_buffer_pool_size\t@@innodb_flush_log_at_trx_commit\t@@innodb_lock_wait_timeout\n\
             {}\t67108864\t2\t13\n",
            server.port
        )
    );
    assert!(datadir.is_dir(), "datadir from my.cnf not used");
    let raw_log = std::fs::read_to_string(&server.stderr_path).expect("read the log");
    assert!(!raw_log.contains('\u{1b}'), "a log written to a file has colour codes:\n{raw_log:?}");
    let stderr = server.stderr();
    let warning = |needle: &str| stderr.lines().any(|l| l.contains("WARN") && l.contains(needle));
    assert!(warning("unknown variable 'frobnicate'"), "no warning for frobnicate:\n{stderr}");
    assert!(warning("innodb_numa_interleave"), "no warning for innodb_numa_interleave:\n{stderr}");
    assert!(!warning("innodb_buffer_pool_size"), "a used variable was warned about:\n{stderr}");
    let stopped = server.stop_cleanly();
    assert!(!stopped.stderr.contains("panicked"), "{}", stopped.stderr);
}

#[test]
fn a_damaged_table_file_is_logged_with_file_and_page_and_the_server_serves_the_rest() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let datadir = tmp.path().join("data");
    let server = Server::start_on(tmp.path(), "healthy", &datadir, None);
    let fill = "CREATE DATABASE d; USE d; \
         CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20)); INSERT INTO t VALUES (1, 'a'), (2, 'b'); \
         CREATE TABLE u (id INT PRIMARY KEY); INSERT INTO u VALUES (7);";
    assert_client_ok(&server.mariadb(&["--batch"], fill), "fill the tables");
    server.stop_cleanly();

    // One flipped byte in t's space header while the server is down.
    let file = datadir.join("d/t.qbd");
    let mut bytes = std::fs::read(&file).expect("read t.qbd");
    bytes[100] ^= 0x04;
    std::fs::write(&file, &bytes).expect("write t.qbd");

    let server = Server::start_on(tmp.path(), "damaged", &datadir, None);
    let log = server.stderr();
    assert!(log.contains(&format!("table 'd/t' is corrupt: page 0 of {}", file.display())), "{log}");
    assert_eq!(server.query("SELECT id FROM d.u"), "id\n7\n", "the other table serves");
    let out = server.mariadb(&["--batch", "-e", "SELECT * FROM d.t"], "");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("ERROR 1877"), "{err}");
    assert!(err.contains(&file.display().to_string()), "the client sees the file: {err}");
    let check = server.query("CHECK TABLE d.t, d.u");
    let lines: Vec<&str> = check.lines().collect();
    assert_eq!(lines[0], "Table\tOp\tMsg_type\tMsg_text");
    assert!(lines[1].starts_with("d.t\tcheck\tError\tTable `d`.`t` is corrupted"), "{check}");
    assert_eq!(&lines[2..], ["d.t\tcheck\terror\tCorrupt", "d.u\tcheck\tstatus\tOK"], "{check}");
    server.stop_cleanly();

    // innodb_force_recovery=1: the rows can be read out.
    let server = Server::start(tmp.path(), "recovery", |port| {
        let mut args = vec![
            format!("--datadir={}", datadir.display()),
            format!("--port={port}"),
            "--innodb-force-recovery=1".to_string(),
        ];
        args.extend(SPEED_OPTIONS.iter().map(|s| s.to_string()));
        args
    });
    assert_eq!(server.query("SELECT id, v FROM d.t ORDER BY id"), "id\tv\n1\ta\n2\tb\n");
    assert_eq!(std::fs::read(&file).expect("read t.qbd"), bytes, "reading changed nothing");
    server.stop_cleanly();
}

/// `log_error` (a my.cnf staple: Debian's names /var/log/mysql/error.log)
/// sends the server's log to that file, appended to, and nothing to
/// stderr; the value reads back as given and is read-only (1238).
#[test]
fn log_error_sends_the_servers_log_to_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let (logs, datadir) = (dir.path().join("logs"), dir.path().join("data"));
    std::fs::create_dir_all(&logs).unwrap();
    let log = dir.path().join("log/error.log");
    std::fs::create_dir_all(log.parent().unwrap()).unwrap();
    std::fs::write(&log, "kept\n").unwrap();
    let server = Server::launch(&logs, "log_error", Some(&log), |port| {
        let mut args = vec![
            format!("--root-password={ROOT_PASSWORD}"),
            format!("--datadir={}", datadir.display()),
            format!("--port={port}"),
            format!("--log-error={}", log.display()),
        ];
        args.extend(SPEED_OPTIONS.iter().map(|s| s.to_string()));
        args
    });
    assert_eq!(server.query("SELECT @@log_error").trim().lines().last(), Some(log.to_str().unwrap()));
    let out = server.mariadb(&["--batch", "-e", "SET GLOBAL log_error = 'x'"], "");
    assert!(String::from_utf8_lossy(&out.stderr).contains("ERROR 1238"), "{out:?}");
    let stopped = server.stop_cleanly();
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.starts_with("kept\n"), "appended to: {text}");
    assert!(text.contains("ready for connections") && !text.contains("\u{1b}["), "plain text: {text}");
    assert!(!stopped.stderr.contains("ready for connections"), "nothing on stderr: {}", stopped.stderr);
}
