//! LOAD DATA [LOCAL] INFILE against MariaDB: the same small files loaded
//! into the same tables on both servers, then the tables, affected rows,
//! info strings and warnings compared; the file rules (secure_file_priv,
//! missing files) and LOCAL through the real `mariadb` client.

mod oracle;

use std::path::Path;
use std::process::Command;

use mysql::prelude::Queryable;
use oracle::{answer, assert_same_diagnostics, Answer, MariaDb, Quire};

/// The test's files, in a directory both servers may read.
fn files() -> tempfile::TempDir {
    let dir = tempfile::Builder::new().prefix("quire-load-").tempdir().expect("tempdir");
    let put = |name: &str, data: &[u8]| std::fs::write(dir.path().join(name), data).expect("write");
    put("tabs.txt", b"1\tabc\t2.5\n2\t\\N\t\\N\n3\tx\\ty\\\\z\n4\ta\tb\tc\tdd\nq\tz\t1e\n\n");
    put("quotes.csv", b"\"1\",\"a \"\"q\"\" b\",NULL\r\n2,\"x,y\",\"NULL\"\r\n3,\\N,\r\n\"4\",\"multi\nline\",7\r\n");
    put("dups.txt", b"1\tone\t1\n1\tuno\t2\n5\tfive\t5\n");
    put("short.txt", b"5\n6\tq\n");
    put("prefixed.txt", b"skip me\nxx10,ten\njunk xx11,eleven\n");
    put("ok.txt", b"7\tseven\t7.5\n8\teight\t\\N\n");
    put("nulls.txt", b"1\t\\N\n2\tNULL\n");
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    dir
}

fn pair(dir: &Path, db: &str) -> (Quire, mysql::Conn, mysql::Conn) {
    let q = Quire::start(&[("secure_file_priv", &dir.display().to_string()), ("local_infile", "ON")]);
    let qc = q.fresh_db(db);
    let mc = MariaDb::get().fresh_db(db);
    (q, qc, mc)
}

#[test]
fn load_data_matches_mariadb_rows_counts_and_warnings() {
    let dir = files();
    let f = |n: &str| dir.path().join(n).display().to_string();
    let (_q, mut qc, mut mc) = pair(dir.path(), "load_diff");
    let tabs = f("tabs.txt");
    let quotes = f("quotes.csv");
    let dups = f("dups.txt");
    let short = f("short.txt");
    let prefixed = f("prefixed.txt");
    let nulls = f("nulls.txt");
    let stmts = [
        "CREATE TABLE a (i INT PRIMARY KEY, s VARCHAR(10), d DOUBLE)".to_string(),
        "SET sql_mode = ''".into(),
        format!("LOAD DATA INFILE '{tabs}' IGNORE INTO TABLE a"),
        "SELECT * FROM a ORDER BY i".into(),
        format!(
            "LOAD DATA INFILE '{quotes}' REPLACE INTO TABLE a FIELDS TERMINATED BY ',' \
             OPTIONALLY ENCLOSED BY '\"' LINES TERMINATED BY '\\r\\n'"
        ),
        "SELECT * FROM a ORDER BY i".into(),
        // Duplicates: an error without IGNORE / REPLACE, and nothing kept.
        "DELETE FROM a".into(),
        format!("LOAD DATA INFILE '{dups}' INTO TABLE a"),
        "SELECT COUNT(*) FROM a".into(),
        format!("LOAD DATA INFILE '{dups}' IGNORE INTO TABLE a"),
        format!("LOAD DATA INFILE '{dups}' REPLACE INTO TABLE a"),
        "SELECT * FROM a ORDER BY i".into(),
        // REPLACE of a row by an equal one deletes nothing (MariaDB).
        "REPLACE INTO a VALUES (1, 'uno', 2), (5, 'cinco', 5)".into(),
        // Strict mode: a bad number or a short row fails the statement.
        "SET sql_mode = DEFAULT".into(),
        "DELETE FROM a".into(),
        format!("LOAD DATA INFILE '{tabs}' INTO TABLE a"),
        "SELECT COUNT(*) FROM a".into(),
        format!("LOAD DATA INFILE '{short}' INTO TABLE a"),
        format!("LOAD DATA INFILE '{short}' IGNORE INTO TABLE a"),
        "SELECT * FROM a ORDER BY i".into(),
        // Column lists, user variables, SET, AUTO_INCREMENT, rule 3.
        "CREATE TABLE n (i INT AUTO_INCREMENT PRIMARY KEY, s VARCHAR(5) NOT NULL, d DATE NOT NULL, e INT NOT NULL DEFAULT 7)".into(),
        "SET sql_mode = ''".into(),
        format!("LOAD DATA INFILE '{short}' INTO TABLE n (@x, s) SET e = @x * 2"),
        "SELECT *, LAST_INSERT_ID() FROM n ORDER BY i".into(),
        format!("LOAD DATA INFILE '{short}' INTO TABLE n (i, s, e)"),
        "SELECT * FROM n ORDER BY i".into(),
        // LINES STARTING BY, IGNORE n LINES.
        "CREATE TABLE p (i INT, s VARCHAR(10))".into(),
        format!("LOAD DATA INFILE '{prefixed}' INTO TABLE p FIELDS TERMINATED BY ',' LINES STARTING BY 'xx'"),
        format!("LOAD DATA INFILE '{dups}' INTO TABLE p IGNORE 1 LINES (i, s)"),
        "SELECT * FROM p ORDER BY i, s".into(),
        // NULL into NOT NULL.
        "CREATE TABLE nn (i INT, s VARCHAR(5) NOT NULL)".into(),
        format!("LOAD DATA INFILE '{nulls}' INTO TABLE nn"),
        "SELECT * FROM nn ORDER BY i".into(),
        "SET sql_mode = DEFAULT".into(),
        format!("LOAD DATA INFILE '{nulls}' INTO TABLE nn"),
        // Errors: unknown column, missing file, a directory.
        format!("LOAD DATA INFILE '{tabs}' INTO TABLE a (i, nope)"),
        format!("LOAD DATA INFILE '{}' INTO TABLE a", f("absent.txt")),
    ];
    let stmts: Vec<&str> = stmts.iter().map(String::as_str).collect();
    assert_same_diagnostics(&mut qc, &mut mc, &stmts);
}

#[test]
fn load_is_atomic_in_a_transaction() {
    let dir = files();
    let tabs = dir.path().join("tabs.txt").display().to_string();
    let (_q, mut qc, mut mc) = pair(dir.path(), "load_atomic");
    let stmts = [
        "CREATE TABLE a (i INT PRIMARY KEY, s VARCHAR(10), d DOUBLE)".to_string(),
        "BEGIN".into(),
        "INSERT INTO a VALUES (100, 'kept', 1)".into(),
        format!("LOAD DATA INFILE '{tabs}' INTO TABLE a"),
        "COMMIT".into(),
        "SELECT * FROM a".into(),
    ];
    let stmts: Vec<&str> = stmts.iter().map(String::as_str).collect();
    assert_same_diagnostics(&mut qc, &mut mc, &stmts);
}

#[test]
fn secure_file_priv_and_file_privilege_are_enforced() {
    let dir = files();
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let outside = elsewhere.path().join("x.txt");
    std::fs::write(&outside, "1\n").unwrap();
    let q = Quire::start(&[("secure_file_priv", &dir.path().display().to_string())]);
    let mut c = q.fresh_db("load_priv");
    c.query_drop("CREATE TABLE t (i INT)").unwrap();
    let load = |c: &mut mysql::Conn, p: &str| answer(c, &format!("LOAD DATA INFILE '{p}' INTO TABLE t"));
    assert_eq!(load(&mut c, &outside.display().to_string()), Answer::Err(1290));
    let sneaky = dir.path().join("..").join(elsewhere.path().file_name().unwrap()).join("x.txt");
    assert_eq!(load(&mut c, &sneaky.display().to_string()), Answer::Err(1290));
    assert_eq!(load(&mut c, &dir.path().join("absent").display().to_string()), Answer::Err(13));
    // LOCAL is off by default (MySQL 8.0): 3948.
    let ok = dir.path().join("ok.txt").display().to_string();
    assert_eq!(answer(&mut c, &format!("LOAD DATA LOCAL INFILE '{ok}' INTO TABLE t")), Answer::Err(3948));
    // Without the FILE privilege (a user with one database): 1045.
    c.query_drop("CREATE USER 'u' IDENTIFIED BY 'pw'").unwrap();
    c.query_drop("GRANT ALL ON load_priv.* TO 'u'").unwrap();
    let mut u = mysql::Conn::new(q.opts(Some("load_priv")).user(Some("u")).pass(Some("pw"))).unwrap();
    assert_eq!(load(&mut u, &ok), Answer::Err(1045));
    // Disabled altogether: NULL.
    let off = Quire::start(&[]);
    let mut c = off.fresh_db("load_off");
    c.query_drop("CREATE TABLE t (i INT)").unwrap();
    assert_eq!(load(&mut c, &ok), Answer::Err(1290));
}

/// The real client: `mariadb --local-infile=1` sends the file when quire
/// asks for it; the table ends as MariaDB's does with the same command.
#[test]
fn mariadb_client_loads_a_local_file() {
    let dir = files();
    let ok = dir.path().join("ok.txt").display().to_string();
    let q = Quire::start(&[("local_infile", "ON")]);
    let mut c = q.fresh_db("load_local");
    c.query_drop("CREATE TABLE t (i INT PRIMARY KEY, s VARCHAR(10), d DOUBLE)").unwrap();
    c.query_drop("INSERT INTO t VALUES (7, 'old', 0)").unwrap();
    let port = q.server.tcp_addr.expect("tcp").port().to_string();
    let sql = format!("LOAD DATA LOCAL INFILE '{ok}' INTO TABLE t; SELECT ROW_COUNT(), @@warning_count");
    let out = Command::new("mariadb")
        .args(["--local-infile=1", "-h127.0.0.1", "-P", &port, "-uroot"])
        .arg(format!("-p{}", oracle::QUIRE_ROOT_PASSWORD))
        .args(["-N", "-B", "load_local", "-e", &sql])
        .output()
        .expect("run the mariadb client");
    assert!(out.status.success(), "mariadb failed: {}", String::from_utf8_lossy(&out.stderr));
    // LOCAL acts as IGNORE: the duplicate 7 is a warning, 8 is loaded.
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "1\t1");
    let rows: Vec<(i32, String, Option<f64>)> = c.query("SELECT * FROM t ORDER BY i").unwrap();
    assert_eq!(rows, vec![(7, "old".into(), Some(0.0)), (8, "eight".into(), None)]);
    // Without --local-infile the client does not offer files: 3948, and
    // the connection still answers.
    let out = Command::new("mariadb")
        .args(["--local-infile=0", "-h127.0.0.1", "-P", &port, "-uroot"])
        .arg(format!("-p{}", oracle::QUIRE_ROOT_PASSWORD))
        .args(["load_local", "-e", &format!("LOAD DATA LOCAL INFILE '{ok}' INTO TABLE t")])
        .output()
        .expect("run the mariadb client");
    assert!(String::from_utf8_lossy(&out.stderr).contains("3948"), "{}", String::from_utf8_lossy(&out.stderr));
}
