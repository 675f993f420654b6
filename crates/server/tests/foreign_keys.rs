//! FOREIGN KEYs against the MariaDB the harness starts: definitions and
//! the constraint lines of SHOW CREATE TABLE, every ON DELETE / ON UPDATE
//! action with its affected-rows counts, multi-level and self-referencing
//! cascades, the cascade depth limit, errors (codes, and the texts of
//! 1451 / 1452 / 1701 / 1553), `foreign_key_checks=0`, keyless children,
//! a definition surviving a restart, and a parent delete blocked by
//! another session's uncommitted child insert.

mod oracle;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{assert_same, MariaDb, Quire};
use quire_server::config;
use quire_server::serve::Server;

/// The error message of `sql`, or "" if it succeeds.
fn error_text(c: &mut Conn, sql: &str) -> String {
    match c.query_drop(sql) {
        Ok(()) => String::new(),
        Err(mysql::Error::MySqlError(e)) => format!("{} {}", e.code, e.message),
        Err(e) => e.to_string(),
    }
}

/// The CONSTRAINT lines of SHOW CREATE TABLE.
fn constraint_lines(c: &mut Conn, table: &str) -> Vec<String> {
    let (_, sql): (String, String) = c.query_first(format!("SHOW CREATE TABLE {table}")).unwrap().unwrap();
    sql.lines()
        .filter(|l| l.trim_start().starts_with("CONSTRAINT"))
        .map(|l| l.trim_end_matches(',').to_string())
        .collect()
}

/// The KEY lines of SHOW CREATE TABLE (the child index a key creates).
fn key_lines(c: &mut Conn, table: &str) -> Vec<String> {
    let (_, sql): (String, String) = c.query_first(format!("SHOW CREATE TABLE {table}")).unwrap().unwrap();
    sql.lines().filter(|l| l.trim_start().starts_with("KEY")).map(|l| l.trim_end_matches(',').to_string()).collect()
}

const SCHEMA: &[&str] = &[
    "CREATE TABLE p (id INT PRIMARY KEY, k INT, UNIQUE KEY uk (k))",
    "CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id) ON DELETE CASCADE)",
    "CREATE TABLE c2 (id INT PRIMARY KEY, pk INT, CONSTRAINT myfk FOREIGN KEY (pk) REFERENCES p (k) ON UPDATE SET NULL)",
    "CREATE TABLE c3 (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id) ON DELETE RESTRICT ON UPDATE NO ACTION)",
    "CREATE TABLE c4 (id INT PRIMARY KEY, pid INT, KEY (pid), FOREIGN KEY (pid) REFERENCES p (id) ON UPDATE CASCADE ON DELETE SET NULL)",
];

#[test]
fn definitions_and_actions_match_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("fk_actions");
    let mut mc = MariaDb::get().fresh_db("fk_actions");
    assert_same(&mut qc, &mut mc, SCHEMA);
    for t in ["c", "c2", "c3", "c4"] {
        assert_eq!(constraint_lines(&mut qc, t), constraint_lines(&mut mc, t), "SHOW CREATE TABLE {t}");
        assert_eq!(key_lines(&mut qc, t), key_lines(&mut mc, t), "the child's index, SHOW CREATE TABLE {t}");
    }
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "INSERT INTO c VALUES (1, 5)",
            "INSERT INTO p VALUES (1, 10), (2, 20), (3, 30), (4, 40)",
            "INSERT INTO c VALUES (1, 1), (2, 1), (3, NULL), (4, 2)",
            "INSERT INTO c2 VALUES (1, 10), (2, 20), (3, 30)",
            "INSERT INTO c3 VALUES (1, 3)",
            "INSERT INTO c4 VALUES (1, 4), (2, 4), (3, 2)",
            "UPDATE c SET pid = 9 WHERE id = 1",
            "UPDATE c SET pid = 2 WHERE id = 1",
            "SELECT * FROM c ORDER BY id",
            // RESTRICT / NO ACTION.
            "DELETE FROM p WHERE id = 3",
            "UPDATE p SET id = 33 WHERE id = 3",
            // SET NULL on update of the referenced UNIQUE column.
            "UPDATE p SET k = 11 WHERE id = 1",
            "SELECT * FROM c2 ORDER BY id",
            // CASCADE on update, SET NULL on delete.
            "UPDATE p SET id = 44 WHERE id = 4",
            "SELECT * FROM c4 ORDER BY id",
            // A delete cascading to c and setting NULL in c4: affected
            // rows count the parent rows only.
            "DELETE FROM p WHERE id = 2",
            "SELECT * FROM c ORDER BY id",
            "SELECT * FROM c4 ORDER BY id",
            "SELECT * FROM c2 ORDER BY id",
            // A failing cascade undoes the whole statement.
            "DELETE FROM p WHERE id IN (1, 3)",
            "SELECT * FROM p ORDER BY id",
            "SELECT * FROM c ORDER BY id",
            // Definitions MariaDB refuses (1005 errno 150 / 121) and 1553.
            "CREATE TABLE x1 (a INT, FOREIGN KEY (a) REFERENCES nosuch (id))",
            "CREATE TABLE x2 (a INT, FOREIGN KEY (a) REFERENCES p (nosuch))",
            "CREATE TABLE x3 (a VARCHAR(10), FOREIGN KEY (a) REFERENCES p (id))",
            "CREATE TABLE x4 (a BIGINT, FOREIGN KEY (a) REFERENCES p (id))",
            "CREATE TABLE x5 (a INT NOT NULL, FOREIGN KEY (a) REFERENCES p (id) ON DELETE SET NULL)",
            "CREATE TABLE x6 (a INT, b INT, FOREIGN KEY (a, b) REFERENCES p (id, k))",
            "CREATE TABLE x7 (a INT, CONSTRAINT myfk FOREIGN KEY (a) REFERENCES p (id))",
            "ALTER TABLE c DROP INDEX pid",
            "DROP INDEX pid ON c",
            "DROP TABLE p",
            "TRUNCATE p",
            "TRUNCATE c",
            "SELECT COUNT(*) FROM c",
            "INSERT INTO c VALUES (7, 77)",
        ],
    );
    for sql in [
        "INSERT INTO c VALUES (7, 77)",
        "DELETE FROM p WHERE id = 3",
        "TRUNCATE p",
        "ALTER TABLE c DROP INDEX pid",
        "CREATE TABLE x1 (a INT, FOREIGN KEY (a) REFERENCES nosuch (id))",
        "ALTER TABLE c DROP FOREIGN KEY nosuch",
        "DROP TABLE p",
    ] {
        assert_eq!(error_text(&mut qc, sql), error_text(&mut mc, sql), "error text of {sql}");
    }
}

#[test]
fn cascades_through_levels_and_self_references_match_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("fk_cascade");
    let mut mc = MariaDb::get().fresh_db("fk_cascade");
    let mut chain = String::from("INSERT INTO d VALUES (1, NULL)");
    for i in 2..=20 {
        chain.push_str(&format!(", ({i}, {})", i - 1));
    }
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE a (id INT PRIMARY KEY)",
            "CREATE TABLE b (id INT PRIMARY KEY, aid INT, FOREIGN KEY (aid) REFERENCES a (id) ON DELETE CASCADE ON UPDATE CASCADE)",
            "CREATE TABLE cc (id INT PRIMARY KEY, bid INT, FOREIGN KEY (bid) REFERENCES b (id) ON DELETE CASCADE)",
            "INSERT INTO a VALUES (1), (2)",
            "INSERT INTO b VALUES (10, 1), (11, 1), (20, 2)",
            "INSERT INTO cc VALUES (100, 10), (101, 11), (200, 20)",
            "UPDATE a SET id = 5 WHERE id = 1",
            "SELECT * FROM b ORDER BY id",
            "DELETE FROM a WHERE id = 5",
            "SELECT * FROM b ORDER BY id",
            "SELECT * FROM cc ORDER BY id",
            // Self-referencing: a row may reference itself; a chain
            // cascades row by row, up to InnoDB's depth limit.
            "CREATE TABLE d (id INT PRIMARY KEY, up INT, FOREIGN KEY (up) REFERENCES d (id) ON DELETE CASCADE)",
            &chain,
            "INSERT INTO d VALUES (30, 30)",
            "DELETE FROM d WHERE id = 30",
            "DELETE FROM d WHERE id = 1",
            "SELECT COUNT(*) FROM d",
            "DELETE FROM d WHERE id = 4",
            "SELECT COUNT(*) FROM d",
            "DELETE FROM d WHERE id = 3",
            "SELECT COUNT(*) FROM d",
            // A keyless child.
            "CREATE TABLE k (v INT, FOREIGN KEY (v) REFERENCES a (id) ON DELETE CASCADE)",
            "INSERT INTO k VALUES (2), (2), (NULL)",
            "INSERT INTO k VALUES (3)",
            "DELETE FROM a WHERE id = 2",
            "SELECT * FROM k",
        ],
    );
}

#[test]
fn foreign_key_checks_off_skips_checks_and_alter_checks_rows_when_on() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("fk_checks");
    let mut mc = MariaDb::get().fresh_db("fk_checks");
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE p (id INT PRIMARY KEY)",
            "CREATE TABLE g (a INT)",
            "INSERT INTO g VALUES (7)",
            "ALTER TABLE g ADD FOREIGN KEY (a) REFERENCES p (id)",
            "SET foreign_key_checks = 0",
            "ALTER TABLE g ADD FOREIGN KEY (a) REFERENCES p (id)",
            "INSERT INTO g VALUES (8)",
            "SET foreign_key_checks = 1",
            "INSERT INTO g VALUES (9)",
            "ALTER TABLE g ADD CONSTRAINT second FOREIGN KEY (a) REFERENCES p (id)",
            "ALTER TABLE g DROP FOREIGN KEY g_ibfk_1",
            "ALTER TABLE g DROP FOREIGN KEY g_ibfk_1",
            "ALTER TABLE g ADD FOREIGN KEY (a) REFERENCES p (id) ON DELETE CASCADE",
            "INSERT INTO p VALUES (7)",
            "SET foreign_key_checks = 0",
            "DELETE FROM p",
            "SELECT * FROM g ORDER BY a",
            "TRUNCATE p",
            "DROP TABLE p",
            "SET foreign_key_checks = 1",
        ],
    );
    assert_eq!(constraint_lines(&mut qc, "g"), constraint_lines(&mut mc, "g"));
    assert_eq!(key_lines(&mut qc, "g"), key_lines(&mut mc, "g"));
}

fn start(dir: &std::path::Path) -> Server {
    let overrides: Vec<(String, String)> = vec![
        ("datadir".into(), dir.display().to_string()),
        ("port".into(), "0".into()),
        ("innodb_buffer_pool_size".into(), "32M".into()),
        ("innodb_page_size".into(), "4096".into()),
    ];
    Server::start(&config::load(None, &overrides).expect("config"), Some("rootpw")).expect("server starts")
}

fn connect(s: &Server, db: Option<&str>) -> Conn {
    let opts = mysql::OptsBuilder::new()
        .ip_or_hostname(Some("127.0.0.1"))
        .tcp_port(s.tcp_addr.expect("tcp").port())
        .user(Some("root"))
        .pass(Some("rootpw"))
        .db_name(db)
        .prefer_socket(false);
    Conn::new(opts).expect("connect")
}

#[test]
fn definitions_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let s = start(dir.path());
    {
        let mut c = connect(&s, None);
        for sql in [
            "CREATE DATABASE r",
            "USE r",
            "CREATE TABLE p (id INT PRIMARY KEY)",
            "CREATE TABLE c (x INT, FOREIGN KEY (x) REFERENCES p (id) ON DELETE CASCADE)",
            "INSERT INTO p VALUES (1)",
            "INSERT INTO c VALUES (1)",
        ] {
            c.query_drop(sql).unwrap();
        }
    }
    s.shutdown().unwrap();
    let s = start(dir.path());
    let mut c = connect(&s, Some("r"));
    assert_eq!(
        constraint_lines(&mut c, "c"),
        vec!["  CONSTRAINT `c_ibfk_1` FOREIGN KEY (`x`) REFERENCES `p` (`id`) ON DELETE CASCADE".to_string()]
    );
    assert!(error_text(&mut c, "INSERT INTO c VALUES (2)").starts_with("1452 "));
    c.query_drop("DELETE FROM p").unwrap();
    let n: u64 = c.query_first("SELECT COUNT(*) FROM c").unwrap().unwrap();
    assert_eq!(n, 0);
    drop(c);
    s.shutdown().unwrap();
}

/// An uncommitted child insert S-locks its parent: another session's
/// delete of that parent waits, then fails with a lock wait timeout, as
/// in MariaDB.
#[test]
fn uncommitted_child_insert_blocks_parent_delete() {
    fn run(a: &mut Conn, b: &mut Conn) -> Option<u16> {
        a.query_drop("CREATE TABLE p (id INT PRIMARY KEY)").unwrap();
        a.query_drop("CREATE TABLE c (x INT, FOREIGN KEY (x) REFERENCES p (id))").unwrap();
        a.query_drop("INSERT INTO p VALUES (1)").unwrap();
        a.query_drop("BEGIN").unwrap();
        a.query_drop("INSERT INTO c VALUES (1)").unwrap();
        b.query_drop("SET innodb_lock_wait_timeout = 1").unwrap();
        let r = b.query_drop("DELETE FROM p WHERE id = 1").err().map(|e| oracle::err_code(&e));
        a.query_drop("ROLLBACK").unwrap();
        r
    }
    let q = Quire::start(&[]);
    let m = MariaDb::get();
    let (mut qa, mut ma) = (q.fresh_db("fk_lock"), m.fresh_db("fk_lock"));
    let (mut qb, mut mb) = (q.connect(Some("fk_lock")), m.connect(Some("fk_lock")));
    let quire = run(&mut qa, &mut qb);
    let maria = run(&mut ma, &mut mb);
    assert_eq!(maria, Some(1205));
    assert_eq!(quire, maria);
}

/// REPLACE, INSERT ... ON DUPLICATE KEY UPDATE and INSERT ... SELECT keep
/// the keys: a new child row needs its parent, a REPLACE's deleted parent
/// row cascades to its children, an update of a parent key through ON
/// DUPLICATE KEY UPDATE follows ON UPDATE, and a failure undoes the whole
/// statement. (INSERT IGNORE ... ON DUPLICATE KEY UPDATE into a child
/// table is refused, 1235.)
#[test]
fn duplicate_key_forms_and_insert_select_keep_foreign_keys_as_mariadb_does() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("fk_upsert");
    let mut mc = MariaDb::get().fresh_db("fk_upsert");
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE p (id INT PRIMARY KEY, code INT UNIQUE, v INT)",
            "CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id) ON DELETE CASCADE ON UPDATE CASCADE)",
            "CREATE TABLE src (id INT PRIMARY KEY, pid INT)",
            "INSERT INTO p VALUES (1, 10, 0), (2, 20, 0), (3, 30, 0)",
            "INSERT INTO c VALUES (100, 1), (101, 1), (200, 2)",
            "INSERT INTO src VALUES (300, 3), (301, 9)",
            // A child row without its parent, from each form.
            "REPLACE INTO c VALUES (102, 7)",
            "INSERT INTO c VALUES (100, 1) ON DUPLICATE KEY UPDATE pid = 8",
            "INSERT INTO c SELECT * FROM src",
            "SELECT * FROM c ORDER BY id",
            "INSERT INTO c SELECT * FROM src WHERE pid = 3",
            "REPLACE INTO c VALUES (101, 2)",
            "INSERT INTO c VALUES (200, 2) ON DUPLICATE KEY UPDATE pid = 3",
            "SELECT * FROM c ORDER BY id",
            // The parent side: REPLACE deletes the old row (its children
            // go with it); ON DUPLICATE KEY UPDATE changing the key cascades.
            "REPLACE INTO p VALUES (1, 11, 5)",
            "SELECT * FROM c ORDER BY id",
            "INSERT INTO p VALUES (9, 20, 0) ON DUPLICATE KEY UPDATE id = 4",
            "SELECT * FROM p ORDER BY id",
            "SELECT * FROM c ORDER BY id",
        ],
    );
    let e = qc.query_drop("INSERT IGNORE INTO c VALUES (500, 77) ON DUPLICATE KEY UPDATE pid = 1").unwrap_err();
    assert_eq!(oracle::err_code(&e), 1235, "{e}");
}

/// INSERT IGNORE into a child table (Django's many-to-many `add`): a row
/// without its parent becomes warning 1452 and is skipped, its
/// AUTO_INCREMENT value taken by the next row; counts, warnings and the
/// rows as MariaDB's; a row that is its own parent is kept.
#[test]
fn insert_ignore_skips_rows_without_a_parent_as_mariadb_does() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("fk_ignore");
    let mut mc = MariaDb::get().fresh_db("fk_ignore");
    let statements = [
        "CREATE TABLE par (id INT PRIMARY KEY)",
        "CREATE TABLE ch (id INT AUTO_INCREMENT PRIMARY KEY, p INT, u INT, UNIQUE KEY (u), FOREIGN KEY (p) REFERENCES par (id))",
        "INSERT INTO par VALUES (1)",
        "INSERT IGNORE INTO ch (p, u) VALUES (1, 1), (2, 2), (1, 3), (1, 1)",
        "INSERT IGNORE INTO ch (p, u) VALUES (5, 5)",
        "INSERT IGNORE INTO ch (p, u) SELECT id + 1, id + 10 FROM par",
        "SELECT * FROM ch ORDER BY id",
        "BEGIN",
        "INSERT IGNORE INTO ch (p, u) VALUES (1, 20), (3, 21)",
        "ROLLBACK",
        "SELECT * FROM ch ORDER BY id",
        "CREATE TABLE tree (id INT PRIMARY KEY, up INT, FOREIGN KEY (up) REFERENCES tree (id))",
        "INSERT IGNORE INTO tree VALUES (1, 1), (2, 1), (3, 9)",
        "SELECT * FROM tree ORDER BY id",
    ];
    oracle::assert_same_diagnostics(&mut qc, &mut mc, &statements);
}
