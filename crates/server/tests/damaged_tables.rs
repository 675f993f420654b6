//! A table file damaged while the server was stopped, through SQL: the
//! server starts and serves the other tables; the damaged one answers 1877
//! naming its file and page, is listed once, keeps its name (CREATE TABLE
//! gets 1050 and leaves the file alone) until DROP TABLE removes it; CHECK
//! TABLE answers MySQL's result set (compared with MariaDB where both can
//! be made to agree); innodb_force_recovery lets the readable rows out.

mod oracle;

use std::path::Path;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{assert_same, MariaDb, Quire};
use quire_server::config;
use quire_server::serve::Server;

fn start(dir: &Path, extra: &[(&str, &str)]) -> Server {
    let mut overrides: Vec<(String, String)> = vec![
        ("datadir".into(), dir.display().to_string()),
        ("port".into(), "0".into()),
        ("innodb_buffer_pool_size".into(), "32M".into()),
        ("innodb_page_size".into(), "4096".into()),
    ];
    overrides.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let cfg = config::load(None, &overrides).expect("config");
    Server::start(&cfg, Some("rootpw")).expect("server starts")
}

fn connect(s: &Server, db: Option<&str>) -> Conn {
    let addr = s.tcp_addr.expect("tcp");
    let opts = mysql::OptsBuilder::new()
        .ip_or_hostname(Some("127.0.0.1"))
        .tcp_port(addr.port())
        .user(Some("root"))
        .pass(Some("rootpw"))
        .db_name(db)
        .prefer_socket(false);
    Conn::new(opts).expect("connect")
}

fn error(e: mysql::Error) -> (u16, String) {
    match e {
        mysql::Error::MySqlError(m) => (m.code, m.message),
        other => panic!("not a server error: {other}"),
    }
}

/// Database `d` with `t` (damaged later) and `u` (healthy).
fn make(dir: &Path) {
    let s = start(dir, &[]);
    let mut c = connect(&s, None);
    c.query_drop("CREATE DATABASE d").unwrap();
    c.query_drop("USE d").unwrap();
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20), KEY kv (v))").unwrap();
    c.query_drop("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')").unwrap();
    c.query_drop("CREATE TABLE u (id INT PRIMARY KEY, v VARCHAR(20), KEY kv (v))").unwrap();
    c.query_drop("INSERT INTO u VALUES (1, 'x'), (2, 'y')").unwrap();
    drop(c);
    s.shutdown().unwrap();
}

fn flip_page0(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[100] ^= 0x01;
    std::fs::write(path, &bytes).unwrap();
}

fn check_rows(c: &mut Conn, sql: &str) -> Vec<(String, String, String, String)> {
    c.query(sql).unwrap()
}

#[test]
fn a_damaged_header_gives_1877_naming_file_and_page_and_ddl_keeps_its_hands_off_until_drop() {
    let dir = tempfile::tempdir().unwrap();
    make(dir.path());
    let path = dir.path().join("d/t.qbd");
    flip_page0(&path);
    let damaged = std::fs::read(&path).unwrap();

    let s = start(dir.path(), &[]);
    let mut c = connect(&s, Some("d"));
    let ids: Vec<i32> = c.query("SELECT id FROM u ORDER BY id").unwrap();
    assert_eq!(ids, vec![1, 2], "the other table serves");
    let (code, msg) = error(c.query_drop("SELECT * FROM t").unwrap_err());
    assert_eq!(code, 1877, "{msg}");
    assert!(msg.contains("`d`.`t`") && msg.contains("page 0") && msg.contains(&path.display().to_string()), "{msg}");
    assert_eq!(error(c.query_drop("INSERT INTO t VALUES (4, 'd')").unwrap_err()).0, 1877);
    let tables: Vec<String> = c.query("SHOW TABLES").unwrap();
    assert_eq!(tables, vec!["t".to_string(), "u".to_string()], "listed once");

    assert_eq!(error(c.query_drop("CREATE TABLE t (id INT PRIMARY KEY)").unwrap_err()).0, 1050);
    c.query_drop("CREATE TABLE IF NOT EXISTS t (id INT PRIMARY KEY)").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), damaged, "the damaged file is untouched");
    let tables: Vec<String> = c.query("SHOW TABLES").unwrap();
    assert_eq!(tables, vec!["t".to_string(), "u".to_string()], "still listed once");

    let rows = check_rows(&mut c, "CHECK TABLE t, u");
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert_eq!((rows[0].0.as_str(), rows[0].1.as_str(), rows[0].2.as_str()), ("d.t", "check", "Error"));
    assert!(rows[0].3.contains("page 0"), "{rows:?}");
    assert_eq!(rows[1], ("d.t".into(), "check".into(), "error".into(), "Corrupt".into()));
    assert_eq!(rows[2], ("d.u".into(), "check".into(), "status".into(), "OK".into()));

    c.query_drop("DROP TABLE t").unwrap();
    assert!(!path.exists(), "DROP TABLE removes the file");
    let tables: Vec<String> = c.query("SHOW TABLES").unwrap();
    assert_eq!(tables, vec!["u".to_string()]);
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY)").unwrap();
    drop(c);
    s.shutdown().unwrap();
}

#[test]
fn force_recovery_lets_the_rows_of_a_damaged_table_be_read_but_not_changed() {
    let dir = tempfile::tempdir().unwrap();
    make(dir.path());
    flip_page0(&dir.path().join("d/t.qbd"));
    let s = start(dir.path(), &[("innodb_force_recovery", "1")]);
    let mut c = connect(&s, Some("d"));
    let level: u64 = c.query_first("SELECT @@innodb_force_recovery").unwrap().unwrap();
    assert_eq!(level, 1);
    let rows: Vec<(i32, String)> = c.query("SELECT id, v FROM t ORDER BY id").unwrap();
    assert_eq!(rows, vec![(1, "a".into()), (2, "b".into()), (3, "c".into())]);
    assert_eq!(error(c.query_drop("INSERT INTO t VALUES (4, 'd')").unwrap_err()).0, 1036);
    c.query_drop("INSERT INTO u VALUES (3, 'z')").unwrap();
    let rows = check_rows(&mut c, "CHECK TABLE t");
    assert_eq!(rows.last().unwrap().3, "Corrupt", "{rows:?}");
    drop(c);
    s.shutdown().unwrap();
}

#[test]
fn check_table_answers_as_mariadb_does_for_sound_missing_and_repeated_tables() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("diff_check");
    let mut mc = m.fresh_db("diff_check");
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20), KEY kv (v))",
            "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)",
            "CREATE TABLE u (id INT PRIMARY KEY)",
            "CHECK TABLE t",
            "CHECK TABLE t, u EXTENDED",
            "CHECK TABLES diff_check.t QUICK",
            "CHECK TABLE t MEDIUM CHANGED",
            "CHECK TABLE nosuch",
            "CHECK TABLE t, nosuch, u",
            "CHECK TABLE t, t",
            "CHECK TABLE t BOGUS",
        ],
    );
    let mut qn = q.connect(None);
    let mut mn = m.connect(None);
    assert_same(&mut qn, &mut mn, &["CHECK TABLE t", "CHECK TABLE diff_check.u"]);
}

/// Leaf pages (level 0, with entries) of the index whose root is `root`.
fn leaves_of(path: &Path, root: usize) -> Vec<usize> {
    use quire_engine::btree::node;
    use quire_engine::page::{self, PageType};
    let bytes = std::fs::read(path).unwrap();
    let pages: Vec<&[u8]> = bytes.chunks(4096).collect();
    let index = node::index_id(pages[root]);
    (0..pages.len())
        .filter(|&p| {
            p != root
                && page::page_type(pages[p]) == Some(PageType::BTreeNode)
                && node::level(pages[p]) == 0
                && node::index_id(pages[p]) == index
                && node::count(pages[p]) > 0
        })
        .collect()
}

#[test]
fn a_damaged_data_page_or_index_page_fails_only_the_reads_that_need_it_with_1877_and_check_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    make(dir.path());
    {
        let s = start(dir.path(), &[]);
        let mut c = connect(&s, Some("d"));
        c.query_drop("CREATE TABLE w (id INT PRIMARY KEY, v VARCHAR(20), KEY kv (v))").unwrap();
        for i in 0..40 {
            let values: Vec<String> = (0..10).map(|j| format!("({0}, 'v{0:05}')", i * 10 + j)).collect();
            c.query_drop(format!("INSERT INTO w VALUES {}", values.join(","))).unwrap();
        }
        drop(c);
        s.shutdown().unwrap();
    }
    let flip = |path: &Path, page: usize| {
        let mut bytes = std::fs::read(path).unwrap();
        bytes[page * 4096 + 1000] ^= 0x01;
        std::fs::write(path, &bytes).unwrap();
    };
    // Page 2 is t's clustered root (its only leaf, three rows); in w, page
    // 3 is the root of kv, and one of its leaves gets the damage.
    let (t, w) = (dir.path().join("d/t.qbd"), dir.path().join("d/w.qbd"));
    flip(&t, 2);
    let kv_leaves = leaves_of(&w, 3);
    assert!(kv_leaves.len() >= 2, "{kv_leaves:?}");
    let bad = kv_leaves[0];
    flip(&w, bad);

    let s = start(dir.path(), &[]);
    let mut c = connect(&s, Some("d"));
    let tables: Vec<String> = c.query("SHOW TABLES").unwrap();
    assert_eq!(tables, vec!["t".to_string(), "u".to_string(), "w".to_string()]);

    // t's data page: index roots are read at open, so t is marked corrupt.
    let (code, msg) = error(c.query_drop("SELECT * FROM t").unwrap_err());
    assert_eq!(code, 1877, "{msg}");
    assert!(msg.contains("page 2") && msg.contains(&t.display().to_string()), "{msg}");

    // w's index page: reads through the primary key work, a scan of kv fails.
    let n: i64 = c.query_first("SELECT COUNT(*) FROM w WHERE id >= 0").unwrap().unwrap();
    assert_eq!(n, 400);
    let (code, msg) = error(c.query_drop("SELECT id FROM w WHERE v >= 'v' ORDER BY v").unwrap_err());
    assert_eq!(code, 1877, "{msg}");
    assert!(msg.contains(&format!("page {bad} ")) && msg.contains(&w.display().to_string()), "{msg}");

    let rows = check_rows(&mut c, "CHECK TABLE w, u");
    let page_named = format!("page {bad} of {}", w.display());
    assert!(rows.iter().any(|r| r.0 == "d.w" && r.2 == "Warning" && r.3.contains(&page_named)), "{rows:?}");
    assert!(rows.contains(&("d.w".into(), "check".into(), "error".into(), "Corrupt".into())), "{rows:?}");
    assert_eq!(rows.last().unwrap(), &("d.u".into(), "check".into(), "status".into(), "OK".into()));
    assert_eq!(error(c.query_drop("CREATE TABLE t (id INT PRIMARY KEY)").unwrap_err()).0, 1050);
    c.query_drop("DROP TABLE t, w").unwrap();
    let tables: Vec<String> = c.query("SHOW TABLES").unwrap();
    assert_eq!(tables, vec!["u".to_string()]);
    drop(c);
    s.shutdown().unwrap();
}
