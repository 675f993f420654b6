//! Temporary tables do not outlive their server: `quire serve` runs as a
//! child, a session creates temporary tables with rows (their engine
//! files exist under the private `#tmp\` directory), the server is
//! SIGKILLed with the session still open (no disconnect ran), and the
//! restarted server has swept them: no file left, nothing visible, and
//! the same names can be created again (the new session's engine names
//! start from 1 again, so a table left behind would collide).

mod child;

use std::path::Path;

use child::Server;
use mysql::prelude::Queryable;

const ROOT_PASSWORD: &str = "temp-kill-pw";

fn start(datadir: &Path, log: &Path) -> Server {
    Server::start(datadir, log, ROOT_PASSWORD, &child::DURABLE_16M, &|_| {})
}

/// The `.qbd` files of temporary tables (`#tmp\` encoded as a directory
/// name by `table_path`).
fn temp_files(datadir: &Path) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir(datadir.join("@0023tmp@005c")) else { return Vec::new() };
    dir.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| n.contains(".qbd")).collect()
}

#[test]
fn temporary_tables_are_gone_after_a_kill_and_restart() {
    let dir = tempfile::tempdir().unwrap();
    let (datadir, log) = (dir.path().join("data"), dir.path().join("quire.log"));
    let s = start(&datadir, &log);
    let mut setup = s.connect(None);
    setup.query_drop("CREATE DATABASE kd").unwrap();
    setup.query_drop("CREATE TABLE kd.t (id INT PRIMARY KEY, v INT)").unwrap();
    setup.query_drop("INSERT INTO kd.t VALUES (1, 1)").unwrap();
    let mut c = s.connect(Some("kd"));
    c.query_drop("CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, w VARCHAR(10))").unwrap();
    c.query_drop("CREATE TEMPORARY TABLE t2 (a INT)").unwrap();
    c.query_drop("INSERT INTO t VALUES (1, 'temp'), (2, 'temp')").unwrap();
    let w: Vec<String> = c.query("SELECT w FROM t").unwrap();
    assert_eq!(w, ["temp", "temp"]);
    assert_eq!(temp_files(&datadir).len(), 2, "the temporary tables have their files");

    // SIGKILL with the session open: no disconnect drops anything.
    s.kill();
    drop(c);

    let s = start(&datadir, &log);
    assert!(temp_files(&datadir).is_empty(), "left behind: {:?}", temp_files(&datadir));
    let mut c = s.connect(Some("kd"));
    let v: Vec<(i64, i64)> = c.query("SELECT id, v FROM t").unwrap();
    assert_eq!(v, [(1, 1)], "the base table again");
    let tables: Vec<String> = c.query("SHOW TABLES").unwrap();
    assert_eq!(tables, ["t"]);
    assert!(c.query_drop("SELECT * FROM t2").is_err(), "t2 is gone");
    // The same engine names are free again.
    c.query_drop("CREATE TEMPORARY TABLE t (id INT PRIMARY KEY)").unwrap();
    c.query_drop("CREATE TEMPORARY TABLE t2 (a INT)").unwrap();
    let n: Vec<i64> = c.query("SELECT COUNT(*) FROM t").unwrap();
    assert_eq!(n, [0]);
    drop(c);
    // A disconnect drops them (the session's own cleanup).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !temp_files(&datadir).is_empty() {
        assert!(std::time::Instant::now() < deadline, "not dropped at disconnect: {:?}", temp_files(&datadir));
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
