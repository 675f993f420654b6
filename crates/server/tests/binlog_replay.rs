//! The binary log against its oracle: quire runs every kind of write with
//! `log_bin` on (every column type, NULLs, long strings, INSERT, UPDATE,
//! DELETE, REPLACE, ON DUPLICATE KEY UPDATE, INSERT ... SELECT, LOAD
//! DATA, multi-table UPDATE / DELETE, FOREIGN KEY cascades, INSERT IGNORE
//! of a row without its parent, savepoints, rollbacks, DDL, rotation); then `mariadb-binlog` decodes every file
//! without an error, and `mariadb-binlog binlog.* | mariadb` replayed into
//! the test's own MariaDB reproduces quire's tables row for row.

mod oracle;

use std::path::PathBuf;
use std::process::{Command, Stdio};

use mysql::prelude::Queryable;
use oracle::{MariaDb, Quire};

fn var(c: &mut mysql::Conn, name: &str) -> String {
    let r: Option<(String, String)> = c.query_first(format!("SHOW VARIABLES LIKE '{name}'")).unwrap();
    r.unwrap().1
}

/// The log's files, in order, as SHOW BINARY LOGS names them.
fn files(c: &mut mysql::Conn) -> Vec<PathBuf> {
    let base = PathBuf::from(var(c, "log_bin_basename"));
    let dir = base.parent().unwrap().to_path_buf();
    let names: Vec<(String, u64)> = c.query("SHOW BINARY LOGS").unwrap();
    names.into_iter().map(|(n, _)| dir.join(n)).collect()
}

fn table_rows(c: &mut mysql::Conn, table: &str, order: &str) -> Vec<Vec<Option<String>>> {
    let rows: Vec<mysql::Row> = c.query(format!("SELECT * FROM {table} ORDER BY {order}")).unwrap();
    rows.iter().map(oracle::row_cells).collect()
}

const DDL: &[&str] = &[
    "CREATE TABLE all_types (id INT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, \
     mi MEDIUMINT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED, de DECIMAL(20,6), dn DECIMAL(5,0), fl FLOAT, \
     db DOUBLE, ch CHAR(10), vc VARCHAR(300), tx TEXT, l1 VARCHAR(20) CHARACTER SET latin1, \
     da DATE, dt DATETIME(3), ts TIMESTAMP(6) NULL, tm TIME(4), yr YEAR, bn BINARY(4), vb VARBINARY(10), \
     tb TINYBLOB, bl BLOB, mb MEDIUMBLOB, en ENUM('a','b','c'), st SET('x','y','z'), bt BIT(12), \
     b1 BOOL, js JSON, u8 VARCHAR(5) COLLATE utf8mb4_bin)",
    "CREATE TABLE parent (id INT PRIMARY KEY, name VARCHAR(20))",
    "CREATE TABLE child (id INT PRIMARY KEY, pid INT, v INT, \
     FOREIGN KEY (pid) REFERENCES parent(id) ON DELETE CASCADE ON UPDATE CASCADE)",
    "CREATE TABLE nokey (a INT, b VARCHAR(10))",
    "CREATE TABLE uk (id INT AUTO_INCREMENT PRIMARY KEY, code VARCHAR(10) UNIQUE, n INT)",
    "CREATE TABLE loaded (id INT PRIMARY KEY, s VARCHAR(20))",
];

#[test]
fn binlog_decodes_and_replays_into_mariadb_identically() {
    let dir = tempfile::tempdir().unwrap();
    let q = Quire::start(&[
        ("log_bin", "ON"),
        ("max_binlog_size", "8192"),
        ("binlog_row_metadata", "FULL"),
        ("secure_file_priv", &dir.path().display().to_string()),
    ]);
    let mut c = q.fresh_db("bl");
    for d in DDL {
        c.query_drop(d).unwrap();
    }
    let long = "x".repeat(290);
    let blob = "b".repeat(70_000);
    c.query_drop(format!(
        "INSERT INTO all_types VALUES (1, -128, 255, -32768, 16777215, -9223372036854775808, 18446744073709551615, \
         -12345678901234.123456, 99999, 1.5, -2.5e-300, 'abc', '{long}', 'some text', 'åäö', '2024-02-29', \
         '1999-12-31 23:59:58.123', '2020-01-02 03:04:05.678901', '-838:59:59.0000', 2155, 'ab', 'xyz', \
         'tiny', 'blob', '{blob}', 'b', 'x,z', b'101010101010', TRUE, '{{\"k\": [1, 2.5, \"s\"]}}', 'MiXeD')"
    ))
    .unwrap();
    c.query_drop(
        "INSERT INTO all_types (id) VALUES (2)", // every other column NULL
    )
    .unwrap();
    c.query_drop(
        "INSERT INTO all_types (id, de, tm, dt, ts, yr) VALUES (3, 0.000001, '12:34:56.7891', '2000-01-01', '1970-01-01 00:00:01', 0)",
    )
    .unwrap();
    c.query_drop("UPDATE all_types SET vc = 'short', de = -0.5, tm = '-00:00:01.5' WHERE id = 1").unwrap();
    // A transaction with a savepoint rolled back and one kept.
    c.query_drop("BEGIN").unwrap();
    c.query_drop("INSERT INTO parent VALUES (1, 'one'), (2, 'two'), (3, 'three')").unwrap();
    c.query_drop("SAVEPOINT s").unwrap();
    c.query_drop("INSERT INTO parent VALUES (4, 'rolled back')").unwrap();
    c.query_drop("ROLLBACK TO SAVEPOINT s").unwrap();
    c.query_drop("INSERT INTO child VALUES (10, 1, 1), (11, 1, 2), (20, 2, 3), (30, 3, 4)").unwrap();
    c.query_drop("COMMIT").unwrap();
    // A rolled-back transaction writes nothing.
    c.query_drop("BEGIN").unwrap();
    c.query_drop("INSERT INTO parent VALUES (9, 'never')").unwrap();
    c.query_drop("ROLLBACK").unwrap();
    // A failing statement inside a transaction is undone alone.
    c.query_drop("BEGIN").unwrap();
    c.query_drop("INSERT INTO nokey VALUES (1, 'a'), (1, 'a'), (2, NULL)").unwrap();
    assert!(c.query_drop("INSERT INTO parent VALUES (5, 'five'), (1, 'dup')").is_err());
    c.query_drop("COMMIT").unwrap();
    // FOREIGN KEY cascades: the child rows change with their parents.
    c.query_drop("DELETE FROM parent WHERE id = 1").unwrap();
    c.query_drop("UPDATE parent SET id = 22 WHERE id = 2").unwrap();
    // INSERT IGNORE: the row without a parent is undone, and not logged.
    c.query_drop("INSERT IGNORE INTO child (id, pid, v) VALUES (900, 404, 1), (901, 22, 2)").unwrap();
    // Upserts.
    c.query_drop("INSERT INTO uk (code, n) VALUES ('a', 1), ('b', 2), ('c', 3)").unwrap();
    c.query_drop("REPLACE INTO uk (id, code, n) VALUES (10, 'a', 100)").unwrap();
    c.query_drop("INSERT INTO uk (code, n) VALUES ('b', 5) ON DUPLICATE KEY UPDATE n = n + VALUES(n)").unwrap();
    c.query_drop("INSERT IGNORE INTO uk (code, n) VALUES ('c', 7), ('d', 8)").unwrap();
    c.query_drop("INSERT INTO nokey SELECT id, code FROM uk").unwrap();
    // Multi-table writes (quire refuses them on keyless tables: 1235).
    c.query_drop("CREATE TABLE kv (k INT PRIMARY KEY, code VARCHAR(10))").unwrap();
    c.query_drop("INSERT INTO kv SELECT id, code FROM uk").unwrap();
    c.query_drop("UPDATE uk JOIN kv ON kv.code = uk.code SET uk.n = uk.n + 1, kv.k = kv.k * 10").unwrap();
    c.query_drop("DELETE kv FROM kv JOIN uk ON uk.code = kv.code WHERE uk.code = 'd'").unwrap();
    c.query_drop("UPDATE nokey SET b = 'changed' WHERE a = 1 LIMIT 1").unwrap();
    // LOAD DATA.
    let file = dir.path().join("rows.tsv");
    std::fs::write(&file, "1\tone\n2\ttwo\n3\tthree\n").unwrap();
    c.query_drop(format!("LOAD DATA INFILE '{}' INTO TABLE loaded", file.display())).unwrap();
    // DDL between row changes; a rotation by hand.
    c.query_drop("ALTER TABLE loaded ADD COLUMN extra INT DEFAULT 7").unwrap();
    c.query_drop("INSERT INTO loaded VALUES (4, 'four', 8)").unwrap();
    c.query_drop("FLUSH BINARY LOGS").unwrap();
    c.query_drop("CREATE TABLE gone (a INT PRIMARY KEY)").unwrap();
    c.query_drop("INSERT INTO gone VALUES (1)").unwrap();
    c.query_drop("DROP TABLE gone").unwrap();
    c.query_drop("CREATE TABLE copied SELECT id, name FROM parent WHERE id > 2").unwrap();
    c.query_drop("TRUNCATE TABLE loaded").unwrap();
    c.query_drop("INSERT INTO loaded VALUES (5, 'after truncate', NULL)").unwrap();
    // A temporary table is not logged.
    c.query_drop("CREATE TEMPORARY TABLE tmp (a INT)").unwrap();
    c.query_drop("INSERT INTO tmp VALUES (1)").unwrap();
    // sql_log_bin=0: this session's changes stay out of the log.
    c.query_drop("SET sql_log_bin = 0").unwrap();
    c.query_drop("INSERT INTO parent VALUES (99, 'unlogged')").unwrap();
    c.query_drop("DELETE FROM parent WHERE id = 99").unwrap();
    c.query_drop("SET sql_log_bin = 1").unwrap();

    let logs = files(&mut c);
    assert!(logs.len() >= 3, "max_binlog_size and FLUSH BINARY LOGS rotate: {logs:?}");
    for f in &logs {
        let out = Command::new("mariadb-binlog").args(["--base64-output=decode-rows", "-vv"]).arg(f).output().unwrap();
        assert!(out.status.success(), "{}: {}", f.display(), String::from_utf8_lossy(&out.stderr));
        assert!(out.stderr.is_empty(), "{}: {}", f.display(), String::from_utf8_lossy(&out.stderr));
    }

    // Replay into MariaDB.
    let m = MariaDb::get();
    let mut mc = m.connect(None);
    mc.query_drop("DROP DATABASE IF EXISTS bl").unwrap();
    mc.query_drop("CREATE DATABASE bl").unwrap();
    let dump = Command::new("mariadb-binlog").args(&logs).stdout(Stdio::piped()).output().unwrap();
    assert!(dump.status.success(), "{}", String::from_utf8_lossy(&dump.stderr));
    // The log starts with the CREATE TABLEs (the database came before the log's first event here).
    let mut client = Command::new("mariadb")
        .arg(format!("--socket={}", m.socket.display()))
        .args(["-uroot", "--database=bl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    client.stdin.take().unwrap().write_all(&dump.stdout).unwrap();
    let out = client.wait_with_output().unwrap();
    assert!(out.status.success(), "replay failed: {}", String::from_utf8_lossy(&out.stderr));

    let mut mc = m.connect(Some("bl"));
    for (t, order) in [
        ("all_types", "id"),
        ("parent", "id"),
        ("child", "id"),
        ("nokey", "a, b"),
        ("uk", "id"),
        ("loaded", "id"),
        ("copied", "id"),
    ] {
        assert_eq!(table_rows(&mut c, t, order), table_rows(&mut mc, t, order), "table {t} differs after replay");
    }
    let tables: Vec<String> = mc.query("SHOW TABLES").unwrap();
    assert!(!tables.contains(&"gone".to_string()) && !tables.contains(&"tmp".to_string()), "{tables:?}");
    let n: Option<u64> = c.query_first("SELECT COUNT(*) FROM parent WHERE id IN (9, 4, 5)").unwrap();
    assert_eq!(n, Some(0));
}

#[test]
fn binlog_statements_answer_as_mariadb_with_the_log_off() {
    let q = Quire::start(&[]);
    let mut c = q.connect(None);
    assert_eq!(var(&mut c, "log_bin"), "OFF");
    let e = c.query_drop("SHOW BINARY LOGS").unwrap_err();
    assert_eq!(oracle::err_code(&e), 1381);
    let rows: Vec<mysql::Row> = c.query("SHOW MASTER STATUS").unwrap();
    assert!(rows.is_empty());
    c.query_drop("FLUSH BINARY LOGS").unwrap();
    for (sql, code) in [
        ("SET GLOBAL binlog_format = 'STATEMENT'", 1235),
        ("SET SESSION binlog_format = 'MIXED'", 1235),
        ("SET GLOBAL binlog_row_image = 'MINIMAL'", 1235),
        ("SET GLOBAL log_bin = 'ON'", 1238),
        ("SHOW BINLOG EVENTS", 1235),
        ("RESET MASTER", 1235),
    ] {
        let e = c.query_drop(sql).unwrap_err();
        assert_eq!(oracle::err_code(&e), code, "{sql}");
    }
}

#[test]
fn binlog_status_rotation_and_purge() {
    let q = Quire::start(&[("log_bin", "ON"), ("sync_binlog", "0")]);
    let mut c = q.fresh_db("st");
    assert_eq!(var(&mut c, "log_bin"), "ON");
    c.query_drop("CREATE TABLE t (a INT PRIMARY KEY)").unwrap();
    let (file, pos): (String, u64) = c
        .query_first("SHOW MASTER STATUS")
        .unwrap()
        .map(|r: mysql::Row| (r.get::<String, _>(0).unwrap(), r.get::<u64, _>(1).unwrap()))
        .unwrap();
    assert_eq!(file, "binlog.000001");
    c.query_drop("INSERT INTO t VALUES (1)").unwrap();
    let (file2, pos2): (String, u64) = c
        .query_first("SHOW BINARY LOG STATUS")
        .unwrap()
        .map(|r: mysql::Row| (r.get::<String, _>(0).unwrap(), r.get::<u64, _>(1).unwrap()))
        .unwrap();
    assert_eq!(file2, file);
    assert!(pos2 > pos);
    c.query_drop("FLUSH BINARY LOGS").unwrap();
    c.query_drop("FLUSH BINARY LOGS").unwrap();
    let logs = files(&mut c);
    assert_eq!(logs.len(), 3);
    let e = c.query_drop("PURGE BINARY LOGS TO 'nosuch.000009'").unwrap_err();
    assert_eq!(oracle::err_code(&e), 1373);
    c.query_drop("PURGE BINARY LOGS TO 'binlog.000002'").unwrap();
    let names: Vec<(String, u64)> = c.query("SHOW MASTER LOGS").unwrap();
    assert_eq!(names.iter().map(|n| n.0.as_str()).collect::<Vec<_>>(), ["binlog.000002", "binlog.000003"]);
    assert!(!logs[0].exists() && logs[1].exists());
    // A clean restart closes the last file with STOP and starts a new one.
    drop(c);
    let q = q.restart();
    let mut c = q.connect(None);
    let names: Vec<(String, u64)> = c.query("SHOW BINARY LOGS").unwrap();
    assert_eq!(names.last().unwrap().0, "binlog.000004");
    let out = Command::new("mariadb-binlog").arg(&logs[2]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("Stop"), "no STOP event at the end");
}

/// MySQL 8.0's privileges on the log's statements: SHOW MASTER STATUS and
/// SHOW BINARY LOGS need REPLICATION CLIENT, SHOW REPLICAS REPLICATION
/// SLAVE, FLUSH BINARY LOGS RELOAD (ALL here); the two replication
/// privileges are granted on `*.*` only and SHOW GRANTS lists them in
/// MySQL's order.
#[test]
fn replication_privileges_gate_the_binlog_statements() {
    let q = Quire::start(&[("log_bin", "ON")]);
    let mut root = q.connect(None);
    root.query_drop("CREATE USER watcher IDENTIFIED BY 'w'").unwrap();
    let watcher = || mysql::Conn::new(q.opts(None).user(Some("watcher")).pass(Some("w"))).unwrap();
    let code = |c: &mut mysql::Conn, sql: &str| c.query_drop(sql).err().map_or(0, |e| oracle::err_code(&e));
    let mut w = watcher();
    for sql in ["SHOW MASTER STATUS", "SHOW BINARY LOGS", "SHOW REPLICAS", "SHOW SLAVE HOSTS", "FLUSH BINARY LOGS"] {
        assert_eq!(code(&mut w, sql), 1227, "{sql}");
    }
    assert_eq!(code(&mut root, "GRANT REPLICATION CLIENT ON test.* TO watcher"), 1221);
    assert_eq!(code(&mut root, "GRANT SELECT, REPLICATION CLIENT ON *.* TO watcher"), 1235);
    root.query_drop("GRANT BINLOG MONITOR, REPLICATION SLAVE ON *.* TO watcher").unwrap();
    let grants: Vec<String> = root.query("SHOW GRANTS FOR watcher").unwrap();
    assert_eq!(grants, ["GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO `watcher`@`%`"]);
    let mut w = watcher();
    for sql in ["SHOW MASTER STATUS", "SHOW BINARY LOGS", "SHOW REPLICAS", "SHOW SLAVE HOSTS"] {
        assert_eq!(code(&mut w, sql), 0, "{sql}");
    }
    assert_eq!(code(&mut w, "FLUSH BINARY LOGS"), 1227);
    root.query_drop("REVOKE REPLICATION CLIENT ON *.* FROM watcher").unwrap();
    let mut w = watcher();
    assert_eq!(code(&mut w, "SHOW MASTER STATUS"), 1227);
    assert_eq!(code(&mut w, "SHOW REPLICAS"), 0);
}
