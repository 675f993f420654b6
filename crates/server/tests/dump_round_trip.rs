//! Dumps with the real `mariadb-dump`, restored with the real `mariadb`
//! client, and the maintenance tools `mariadb-check` and `mariadb-admin`,
//! against quire (embedded in the test, on a TCP port) and a MariaDB the
//! test starts (`oracle`).
//!
//! One schema (every column type with awkward values, a keyless table,
//! a foreign key whose child sorts before its parent, a view over a join,
//! generated columns, AUTO_INCREMENT counters, indexes, comments,
//! defaults) is loaded into a quire; its dump (with the tool's defaults,
//! with `--single-transaction`, `--lock-all-tables`, `--no-data` ...) is
//! restored into a fresh quire and into MariaDB, and every table is
//! compared by an ordered SELECT of all its columns (SHOW CREATE TABLE
//! too, between the two quires). A dump MariaDB makes of the same schema
//! is restored into quire the same way.
//!
//! The tools come from Debian's `mariadb-client` (`.ci/run` installs it);
//! without them each test prints why and returns.

mod oracle;

use std::path::{Path, PathBuf};
use std::process::Command;

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{row_cells, MariaDb, Quire, QUIRE_ROOT_PASSWORD};

/// The schema, in database `dump1` (and `dump2` for multi-database dumps).
const SCHEMA: &[&str] = &[
    "CREATE DATABASE dump1",
    "CREATE DATABASE dump2",
    "USE dump1",
    "CREATE TABLE parent (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL DEFAULT 'anon' COMMENT 'the name', \
     KEY k_name (name)) COMMENT='parents'",
    "CREATE TABLE child (id INT AUTO_INCREMENT PRIMARY KEY, pid INT, note TEXT, \
     CONSTRAINT fk_child_parent FOREIGN KEY (pid) REFERENCES parent (id) ON DELETE CASCADE) AUTO_INCREMENT=5",
    "CREATE TABLE alltypes (
        id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
        ti TINYINT, si SMALLINT UNSIGNED, mi MEDIUMINT, bi BIGINT, ubi BIGINT UNSIGNED,
        de DECIMAL(12,3), fl FLOAT, db DOUBLE,
        ch CHAR(5), vc VARCHAR(100), tx TEXT,
        bn BINARY(4), vb VARBINARY(20), bl BLOB,
        dt DATE, dtm DATETIME, dtm6 DATETIME(6), ts TIMESTAMP NULL DEFAULT NULL, tm TIME, yr YEAR,
        en ENUM('a','b','c d'), st SET('x','y','z'),
        js JSON, bt BIT(10),
        gen INT AS (ti * 2) VIRTUAL, gens VARCHAR(110) AS (concat(vc, '!')) STORED,
        UNIQUE KEY uk_vc (vc), KEY k_multi (dt, ti)
     ) DEFAULT CHARSET=utf8mb4",
    "CREATE TABLE keyless (a INT, b VARCHAR(10))",
    "CREATE TABLE defaults_t (a INT DEFAULT 7, b VARCHAR(10) DEFAULT 'x''y', c DATETIME DEFAULT CURRENT_TIMESTAMP, \
     d DECIMAL(5,2) DEFAULT 1.50, e DOUBLE DEFAULT NULL)",
    "INSERT INTO parent VALUES (1,'one'),(2,'two'),(3,'it''s \"q\"')",
    "INSERT INTO child (pid, note) VALUES (1,'a'),(1,'b'),(2,NULL),(NULL,'orphan')",
    "INSERT INTO alltypes (ti,si,mi,bi,ubi,de,fl,db,ch,vc,tx,bn,vb,bl,dt,dtm,dtm6,ts,tm,yr,en,st,js,bt) VALUES
     (-128, 65535, -8388608, -9223372036854775808, 18446744073709551615, -123456789.123, 1.5, 2.25e100, 'ab',
      'quote '' back \\\\ nl \\n tab \\t', 'nul \\0 end', 0x00ff10ee, 0x000102030405, 0xdeadbeef00ff5c27,
      '2024-02-29', '1999-12-31 23:59:59', '2000-01-01 00:00:00.123456', '2020-06-15 12:00:00', '-838:59:59', 2155,
      'c d', 'x,z', '{\"a\": [1, 2, {\"b\": null}], \"c\": \"é\"}', b'1010101010'),
     (127, 0, 8388607, 9223372036854775807, 0, 0.001, -3.25e-10, -0.0, 'é中', 'ünïcødé 😀', REPEAT('long ', 50),
      0x41, '', '', '1000-01-01', '9999-12-31 23:59:59', '2024-01-01 01:02:03.000001', '1970-01-02 00:00:00',
      '00:00:00', 1901, 'a', '', '[]', b'0'),
     (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
      NULL, NULL, NULL, NULL, NULL, NULL)",
    "INSERT INTO keyless VALUES (1,'a'),(1,'a'),(NULL,NULL),(2,'b')",
    "INSERT INTO defaults_t (a) VALUES (1),(2)",
    "UPDATE defaults_t SET c = '2021-01-01 00:00:00'",
    "CREATE VIEW v_parent AS SELECT p.id, p.name, count(c.id) AS n FROM parent p LEFT JOIN child c ON c.pid = p.id \
     GROUP BY p.id, p.name",
    "CREATE TABLE dump2.t (x INT PRIMARY KEY, y VARCHAR(5))",
    "INSERT INTO dump2.t VALUES (1,'a'),(2,'b')",
];

/// The tests share MariaDB's `dump1` / `dump2` databases: one at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The shared MariaDB, with the account quire's views name as definer
/// (quire's accounts are `user@%`; a restored view of `root`@`%` needs it).
fn maria() -> &'static MariaDb {
    let m = MariaDb::get();
    let mut c = m.connect(None);
    c.query_drop("CREATE USER IF NOT EXISTS 'root'@'%'").unwrap();
    c.query_drop("GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION").unwrap();
    m
}

/// Each table (or view) compared, with the ORDER BY that makes its rows
/// one sequence.
const TABLES: &[(&str, &str)] = &[
    ("dump1.parent", "id"),
    ("dump1.child", "id"),
    ("dump1.alltypes", "id"),
    ("dump1.keyless", "a, b"),
    ("dump1.defaults_t", "a"),
    ("dump1.v_parent", "id"),
    ("dump2.t", "x"),
];

/// The tables whose SHOW CREATE TABLE must survive a quire → quire trip.
const SHOWN: &[&str] = &["dump1.parent", "dump1.child", "dump1.alltypes", "dump1.keyless", "dump1.defaults_t"];

/// The path of a client tool, or `None` (the caller prints and skips).
fn tool(name: &str) -> Option<PathBuf> {
    let p = ["/usr/bin", "/usr/local/bin"].iter().map(|d| Path::new(d).join(name)).find(|p| p.exists());
    if p.is_none() {
        eprintln!("skipped: {name} is not installed (Debian's mariadb-client; .ci/run installs it)");
    }
    p
}

/// Where a tool connects: quire by TCP, MariaDB by its socket.
enum Target<'a> {
    Quire(&'a Quire),
    Maria(&'a MariaDb),
}

impl Target<'_> {
    fn args(&self) -> Vec<String> {
        match self {
            Target::Quire(q) => vec![
                "--protocol=tcp".into(),
                "-h127.0.0.1".into(),
                format!("-P{}", q.server.tcp_addr.expect("tcp").port()),
                "-uroot".into(),
                format!("-p{QUIRE_ROOT_PASSWORD}"),
            ],
            Target::Maria(m) => vec![format!("--socket={}", m.socket.display()), "-uroot".into()],
        }
    }

    fn connect(&self) -> Conn {
        match self {
            Target::Quire(q) => q.connect(None),
            Target::Maria(m) => m.connect(None),
        }
    }
}

/// Runs `tool` against `target` with `args` (stdin from `input`), and
/// returns its standard output; panics with its error output on failure.
fn run_tool(tool: &Path, target: &Target, args: &[&str], input: Option<&[u8]>) -> Vec<u8> {
    use std::io::Write;
    let mut cmd = Command::new(tool);
    cmd.args(target.args()).args(args);
    cmd.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("start {}: {e}", tool.display()));
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.map(<[u8]>::to_vec);
    let writer = std::thread::spawn(move || {
        if let Some(i) = input {
            let _ = stdin.write_all(&i);
        }
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().unwrap();
    assert!(out.status.success(), "{} {args:?} failed: {}", tool.display(), String::from_utf8_lossy(&out.stderr));
    out.stdout
}

fn load_schema(c: &mut Conn) {
    for sql in SCHEMA {
        c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

/// Drops the test's databases.
fn clear(c: &mut Conn) {
    c.query_drop("SET foreign_key_checks = 0").unwrap();
    for db in ["dump1", "dump2"] {
        c.query_drop(format!("DROP DATABASE IF EXISTS {db}")).unwrap();
    }
    c.query_drop("SET foreign_key_checks = 1").unwrap();
}

/// Every compared table's rows, as text.
fn contents(c: &mut Conn) -> Vec<(String, Vec<Vec<Option<String>>>)> {
    TABLES
        .iter()
        .map(|(t, order)| {
            let rows: Vec<mysql::Row> =
                c.query(format!("SELECT * FROM {t} ORDER BY {order}")).unwrap_or_else(|e| panic!("{t}: {e}"));
            (t.to_string(), rows.iter().map(row_cells).collect())
        })
        .collect()
}

fn show_create(c: &mut Conn) -> Vec<String> {
    SHOWN
        .iter()
        .map(|t| {
            let row: (String, String) = c.query_first(format!("SHOW CREATE TABLE {t}")).unwrap().unwrap();
            row.1
        })
        .collect()
}

/// The next AUTO_INCREMENT values, which a restore must keep.
fn counters(c: &mut Conn) -> Vec<(String, Option<u64>)> {
    c.query(
        "SELECT TABLE_NAME, AUTO_INCREMENT FROM information_schema.TABLES \
         WHERE TABLE_SCHEMA = 'dump1' AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME",
    )
    .unwrap()
}

/// Dumps quire `source` with `args`, restores into a fresh quire and into
/// MariaDB, and demands the same contents everywhere; returns the dump.
fn round_trip(source: &Quire, args: &[&str]) -> Option<String> {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dump = tool("mariadb-dump")?;
    let client = tool("mariadb")?;
    let text = run_tool(&dump, &Target::Quire(source), args, None);
    let expected = contents(&mut source.connect(None));

    let restored = Quire::start(&[]);
    run_tool(&client, &Target::Quire(&restored), &[], Some(&text));
    let mut rc = restored.connect(None);
    assert_eq!(contents(&mut rc), expected, "quire → dump {args:?} → quire");
    assert_eq!(show_create(&mut rc), show_create(&mut source.connect(None)), "SHOW CREATE TABLE after {args:?}");
    assert_eq!(counters(&mut rc), counters(&mut source.connect(None)), "AUTO_INCREMENT after {args:?}");

    let m = maria();
    let mut mc = m.connect(None);
    clear(&mut mc);
    run_tool(&client, &Target::Maria(m), &[], Some(&text));
    assert_eq!(contents(&mut mc), expected, "quire → dump {args:?} → MariaDB");
    clear(&mut mc);
    Some(String::from_utf8_lossy(&text).into_owned())
}

fn source() -> Quire {
    let q = Quire::start(&[]);
    load_schema(&mut q.connect(None));
    q
}

#[test]
fn default_dump_of_quire_restores_into_quire_and_mariadb_alike() {
    let q = source();
    let Some(text) = round_trip(&q, &["--databases", "dump1", "dump2"]) else { return };
    // The tool's default locking and the view placeholder it writes.
    assert!(text.contains("LOCK TABLES `child` WRITE"), "{text}");
    assert!(text.contains("Temporary table structure for view `v_parent`"), "{text}");
    // The child comes before its parent: the restore relies on
    // foreign_key_checks=0 accepting a parent that does not exist yet.
    assert!(text.find("CREATE TABLE `child`") < text.find("CREATE TABLE `parent`"));
}

#[test]
fn single_transaction_dump_with_routines_triggers_and_events_restores_alike() {
    let q = source();
    round_trip(&q, &["--single-transaction", "--routines", "--triggers", "--events", "--databases", "dump1", "dump2"]);
}

#[test]
fn lock_all_tables_and_one_database_dumps_restore_alike() {
    let q = source();
    round_trip(&q, &["--lock-all-tables", "--databases", "dump1", "dump2"]);
}

#[test]
fn all_databases_dump_restores_into_an_empty_quire_and_mariadb() {
    let q = source();
    let Some(text) = round_trip(&q, &["--all-databases"]) else { return };
    assert!(!text.contains("CREATE DATABASE /*!32312 IF NOT EXISTS*/ `information_schema`"));
}

#[test]
fn no_data_then_no_create_info_dumps_rebuild_the_schema() {
    let Some(dump) = tool("mariadb-dump") else { return };
    let Some(client) = tool("mariadb") else { return };
    let q = source();
    let schema = run_tool(&dump, &Target::Quire(&q), &["--no-data", "--databases", "dump1", "dump2"], None);
    let data = run_tool(&dump, &Target::Quire(&q), &["--no-create-info", "--databases", "dump1", "dump2"], None);
    let text = String::from_utf8_lossy(&schema);
    assert!(!text.contains("INSERT INTO"), "--no-data dumps no rows");
    assert!(!String::from_utf8_lossy(&data).contains("CREATE TABLE"), "--no-create-info dumps no tables");
    let restored = Quire::start(&[]);
    run_tool(&client, &Target::Quire(&restored), &[], Some(&schema));
    let mut rc = restored.connect(None);
    let n: Option<u64> = rc.query_first("SELECT COUNT(*) FROM dump1.alltypes").unwrap();
    assert_eq!(n, Some(0));
    run_tool(&client, &Target::Quire(&restored), &[], Some(&data));
    assert_eq!(contents(&mut rc), contents(&mut q.connect(None)));
}

#[test]
fn mariadb_dump_of_mariadb_restores_into_quire() {
    let Some(dump) = tool("mariadb-dump") else { return };
    let Some(client) = tool("mariadb") else { return };
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let m = maria();
    let mut mc = m.connect(None);
    clear(&mut mc);
    load_schema(&mut mc);
    let expected = contents(&mut mc);
    let text = run_tool(&dump, &Target::Maria(m), &["--databases", "dump1", "dump2"], None);
    clear(&mut mc);
    let q = Quire::start(&[]);
    run_tool(&client, &Target::Quire(&q), &[], Some(&text));
    assert_eq!(contents(&mut q.connect(None)), expected, "MariaDB → dump → quire");
}

/// The consistent snapshot `--single-transaction` depends on: WITH
/// CONSISTENT SNAPSHOT takes the read view at START TRANSACTION, so a
/// commit made before the first read is not seen (without it, the view
/// is taken at the first read and sees it), as on MariaDB.
#[test]
fn with_consistent_snapshot_takes_the_read_view_at_start_as_mariadb() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    for target in [Target::Quire(&q), Target::Maria(m)] {
        let mut a = target.connect();
        let mut b = target.connect();
        a.query_drop("DROP DATABASE IF EXISTS snap").unwrap();
        a.query_drop("CREATE DATABASE snap").unwrap();
        a.query_drop("CREATE TABLE snap.t (x INT PRIMARY KEY)").unwrap();
        a.query_drop("START TRANSACTION /*!40100 WITH CONSISTENT SNAPSHOT */").unwrap();
        b.query_drop("INSERT INTO snap.t VALUES (1)").unwrap();
        let seen: Option<u64> = a.query_first("SELECT COUNT(*) FROM snap.t").unwrap();
        assert_eq!(seen, Some(0), "a snapshot taken at START TRANSACTION");
        a.query_drop("COMMIT").unwrap();
        a.query_drop("START TRANSACTION").unwrap();
        b.query_drop("INSERT INTO snap.t VALUES (2)").unwrap();
        let seen: Option<u64> = a.query_first("SELECT COUNT(*) FROM snap.t").unwrap();
        assert_eq!(seen, Some(2), "without it, the view is taken at the first read");
        a.query_drop("COMMIT").unwrap();
        a.query_drop("START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT").unwrap();
        let e = a.query_drop("INSERT INTO snap.t VALUES (3)").unwrap_err();
        assert_eq!(oracle::err_code(&e), 1792);
        a.query_drop("ROLLBACK").unwrap();
        a.query_drop("DROP DATABASE snap").unwrap();
    }
}

/// A child created before its parent with foreign_key_checks=0 (a dump's
/// order) works once the parent exists; a parent that does not fit is
/// refused with checks on, as MariaDB does.
#[test]
fn a_foreign_key_may_name_a_parent_created_later_when_checks_are_off() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let statements = [
        "SET foreign_key_checks = 0",
        "CREATE TABLE c (id INT PRIMARY KEY, pid INT, CONSTRAINT fk_c FOREIGN KEY (pid) REFERENCES p (id))",
        "CREATE TABLE c2 (id INT PRIMARY KEY, pid INT, CONSTRAINT fk_c2 FOREIGN KEY (pid) REFERENCES p2 (id))",
        "SET foreign_key_checks = 1",
        "CREATE TABLE c3 (id INT PRIMARY KEY, pid INT, CONSTRAINT fk_c3 FOREIGN KEY (pid) REFERENCES p3 (id))",
        "INSERT INTO c VALUES (1, NULL)",
        "INSERT INTO c VALUES (2, 5)",
        "CREATE TABLE p (id INT PRIMARY KEY)",
        "INSERT INTO c VALUES (3, 5)",
        "INSERT INTO p VALUES (5)",
        "INSERT INTO c VALUES (4, 5)",
        "DELETE FROM p",
        "SELECT * FROM c ORDER BY id",
        "CREATE TABLE p2 (id VARCHAR(5))",
        "CREATE TABLE p2 (id INT)",
        "SET foreign_key_checks = 0",
        "CREATE TABLE p2 (id VARCHAR(5))",
        "SET foreign_key_checks = 1",
        "INSERT INTO c2 VALUES (1, 1)",
        "SELECT CONSTRAINT_NAME, REFERENCED_TABLE_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS \
         WHERE CONSTRAINT_SCHEMA = 'fkorder' ORDER BY 1",
    ];
    let mut qc = q.fresh_db("fkorder");
    let mut mc = m.fresh_db("fkorder");
    oracle::assert_same(&mut qc, &mut mc, &statements);
    let shown =
        |c: &mut Conn| -> String { c.query_first::<(String, String), _>("SHOW CREATE TABLE c").unwrap().unwrap().1 };
    assert!(shown(&mut qc).contains("CONSTRAINT `fk_c` FOREIGN KEY (`pid`) REFERENCES `p` (`id`)"));
    mc.query_drop("DROP DATABASE fkorder").unwrap();
}

/// LOCK TABLES naming a view (what mariadb-dump sends for a database with
/// views) locks it and what it reads, as MariaDB: the tables and views
/// it reads are usable directly too, READ-locked under a view's WRITE
/// lock when the view joins several tables.
#[test]
fn lock_tables_of_a_view_locks_what_it_reads_as_mariadb() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    let setup = [
        "CREATE TABLE p (id INT PRIMARY KEY)",
        "CREATE TABLE c (id INT PRIMARY KEY, pid INT)",
        "CREATE TABLE other (x INT)",
        "INSERT INTO p VALUES (1), (2)",
        "INSERT INTO c VALUES (1, 1)",
        "CREATE VIEW v AS SELECT p.id, count(c.id) AS n FROM p LEFT JOIN c ON c.pid = p.id GROUP BY p.id",
        "CREATE VIEW vv AS SELECT * FROM v WHERE n > 0",
    ];
    let checks = [
        "LOCK TABLES v READ /*!32311 LOCAL */",
        "SELECT * FROM v ORDER BY id",
        "SELECT * FROM p ORDER BY id",
        "SELECT * FROM vv",
        "SELECT * FROM other",
        "INSERT INTO p VALUES (3)",
        "UNLOCK TABLES",
        "LOCK TABLES vv READ, p WRITE",
        "SELECT * FROM vv",
        "SELECT * FROM v ORDER BY id",
        "INSERT INTO p VALUES (3)",
        "SELECT COUNT(*) FROM p",
        "UNLOCK TABLES",
        "LOCK TABLES v WRITE",
        "SELECT * FROM v ORDER BY id",
        "INSERT INTO c VALUES (5, 2)",
        "UNLOCK TABLES",
    ];
    let mut qc = q.fresh_db("lockview");
    let mut mc = m.fresh_db("lockview");
    oracle::assert_same(&mut qc, &mut mc, &setup);
    oracle::assert_same(&mut qc, &mut mc, &checks);
    // Another session's write to a table a READ-locked view reads waits.
    qc.query_drop("LOCK TABLES v READ").unwrap();
    let mut other = q.connect(Some("lockview"));
    other.query_drop("SET SESSION lock_wait_timeout = 1").unwrap();
    let e = other.query_drop("INSERT INTO c VALUES (9, 9)").unwrap_err();
    assert_eq!(oracle::err_code(&e), 1205);
    qc.query_drop("UNLOCK TABLES").unwrap();
    other.query_drop("INSERT INTO c VALUES (9, 9)").unwrap();
    mc.query_drop("DROP DATABASE lockview").unwrap();
}

#[test]
fn mariadb_check_checks_analyzes_optimizes_and_repairs_as_innodb_answers() {
    let Some(check) = tool("mariadb-check") else { return };
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let q = source();
    let m = maria();
    let mut mc = m.connect(None);
    clear(&mut mc);
    load_schema(&mut mc);
    for args in [
        &["--databases", "dump1", "dump2"][..],
        &["--analyze", "--databases", "dump1"],
        &["--optimize", "dump1", "parent", "keyless"],
        &["--repair", "dump1", "parent", "keyless"],
        &["--check", "--extended", "dump1", "alltypes"],
    ] {
        let qo = run_tool(&check, &Target::Quire(&q), args, None);
        let mo = run_tool(&check, &Target::Maria(m), args, None);
        assert_eq!(String::from_utf8_lossy(&qo), String::from_utf8_lossy(&mo), "mariadb-check {args:?}");
    }
    // OPTIMIZE rebuilt the tables and kept their rows.
    assert_eq!(contents(&mut q.connect(None)), contents(&mut mc));
    clear(&mut mc);
}

#[test]
fn mariadb_admin_reports_status_processlist_variables_and_shuts_down() {
    let Some(admin) = tool("mariadb-admin") else { return };
    let q = Quire::start(&[]);
    let t = Target::Quire(&q);
    let text = |args: &[&str]| String::from_utf8(run_tool(&admin, &t, args, None)).unwrap();
    assert!(text(&["ping"]).contains("mysqld is alive"));
    let status = text(&["status"]);
    assert!(
        status.starts_with("Uptime: ") && status.contains("Threads: ") && status.contains("Questions: "),
        "{status}"
    );
    assert!(text(&["processlist"]).contains("show processlist"), "the tool's own connection is listed");
    let vars = text(&["variables"]);
    assert!(vars.contains("| innodb_buffer_pool_size") && vars.contains("| version "), "{vars}");
    let st = text(&["extended-status"]);
    assert!(st.contains("| Uptime ") && st.contains("| Questions ") && st.contains("| Innodb_"), "{st}");
    assert!(text(&["version"]).contains("Server version"));
    assert!(!q.server.shared.shutdown_requested());
    text(&["shutdown"]);
    assert!(q.server.shared.shutdown_requested(), "mariadb-admin shutdown asks the server to stop");
}

/// `--master-data` takes FLUSH TABLES WITH READ LOCK and reads SHOW
/// MASTER STATUS (the binary log on), with and without
/// `--single-transaction`; the dump records the position and restores.
#[test]
fn master_data_dumps_record_the_binary_log_position_and_restore_alike() {
    let q = Quire::start(&[("log_bin", "ON")]);
    load_schema(&mut q.connect(None));
    for args in [&["--master-data=2"][..], &["--single-transaction", "--master-data=2"]] {
        let args: Vec<&str> = args.iter().copied().chain(["--databases", "dump1", "dump2"]).collect();
        let Some(text) = round_trip(&q, &args) else { return };
        assert!(text.contains("-- CHANGE MASTER TO MASTER_LOG_FILE='"), "{args:?}");
    }
}

/// A table with triggers (a BEGIN ... END body with `;` inside, FOLLOWS
/// order, both timings).
const TRIGGERED: &[&str] = &[
    "CREATE DATABASE dump3",
    "CREATE TABLE dump3.t (id INT AUTO_INCREMENT PRIMARY KEY, a INT NOT NULL, note VARCHAR(40))",
    "CREATE TABLE dump3.log (n INT AUTO_INCREMENT PRIMARY KEY, what VARCHAR(60))",
    "INSERT INTO dump3.t (a, note) VALUES (1, 'before the triggers')",
    "CREATE TRIGGER dump3.t_bi BEFORE INSERT ON dump3.t FOR EACH ROW BEGIN\n  IF NEW.a IS NULL THEN SET NEW.a = 99; END IF;\n  SET NEW.note = CONCAT('in: ', NEW.a);\nEND",
    "CREATE TRIGGER dump3.t_bi0 BEFORE INSERT ON dump3.t FOR EACH ROW PRECEDES t_bi SET NEW.a = NEW.a + 1",
    "CREATE TRIGGER dump3.t_ad AFTER DELETE ON dump3.t FOR EACH ROW INSERT INTO log (what) VALUES (CONCAT('gone ', OLD.id))",
];

/// The triggers of `dump3` as information_schema lists them (what does
/// not depend on the server: no creation time, character sets).
fn triggers(c: &mut Conn) -> Vec<mysql::Row> {
    c.query(
        "SELECT TRIGGER_NAME, EVENT_MANIPULATION, EVENT_OBJECT_TABLE, ACTION_ORDER, ACTION_STATEMENT, ACTION_TIMING \
         FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = 'dump3' ORDER BY ACTION_TIMING, EVENT_MANIPULATION, ACTION_ORDER",
    )
    .unwrap()
}

/// What the restored triggers do.
fn fire_restored(c: &mut Conn) -> Vec<Vec<Option<String>>> {
    c.query_drop("INSERT INTO dump3.t (a) VALUES (NULL), (5)").unwrap();
    c.query_drop("DELETE FROM dump3.t WHERE id = 1").unwrap();
    let mut rows: Vec<mysql::Row> = c.query("SELECT * FROM dump3.t ORDER BY id").unwrap();
    rows.extend(c.query::<mysql::Row, _>("SELECT * FROM dump3.log ORDER BY n").unwrap());
    rows.iter().map(row_cells).collect()
}

#[test]
fn dump_with_triggers_restores_them_into_quire_and_mariadb() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (Some(dump), Some(client)) = (tool("mariadb-dump"), tool("mariadb")) else { return };
    let q = Quire::start(&[]);
    let mut c = q.connect(None);
    for sql in TRIGGERED {
        c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let text = run_tool(&dump, &Target::Quire(&q), &["--triggers", "--databases", "dump3"], None);
    assert!(String::from_utf8_lossy(&text).contains("/*!50003 TRIGGER t_bi0 BEFORE INSERT ON t"));
    let listed = |rows: Vec<mysql::Row>| rows.iter().map(row_cells).collect::<Vec<_>>();
    let expected = listed(triggers(&mut c));
    assert_eq!(expected.len(), 3);

    let restored = Quire::start(&[]);
    run_tool(&client, &Target::Quire(&restored), &[], Some(&text));
    let mut rc = restored.connect(None);
    assert_eq!(listed(triggers(&mut rc)), expected, "quire → dump → quire");

    let m = maria();
    let mut mc = m.connect(None);
    mc.query_drop("DROP DATABASE IF EXISTS dump3").unwrap();
    run_tool(&client, &Target::Maria(m), &[], Some(&text));
    assert_eq!(listed(triggers(&mut mc)), expected, "quire → dump → MariaDB");
    // The rows restored did not fire them; new rows do, alike.
    assert_eq!(fire_restored(&mut rc), fire_restored(&mut mc));
    mc.query_drop("DROP DATABASE dump3").unwrap();
}

/// Stored routines (BEGIN ... END bodies with `;` inside, OUT parameters,
/// characteristics, a function used by a procedure).
const ROUTINED: &[&str] = &[
    "CREATE DATABASE dump4",
    "CREATE TABLE dump4.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20))",
    "CREATE FUNCTION dump4.tag(x INT) RETURNS VARCHAR(20) DETERMINISTIC COMMENT 'it''s a tag' RETURN CONCAT('#', x)",
    "CREATE PROCEDURE dump4.add_tags(IN n INT, OUT total INT) MODIFIES SQL DATA\nBEGIN\n  DECLARE i INT DEFAULT 0;\n  WHILE i < n DO\n    INSERT INTO t (v) VALUES (tag(i));\n    SET i = i + 1;\n  END WHILE;\n  SELECT COUNT(*) INTO total FROM t;\nEND",
    "CREATE PROCEDURE dump4.listing() SQL SECURITY INVOKER SELECT id, v FROM t ORDER BY id",
];

/// The routines of `dump4` as information_schema lists them.
fn routines(c: &mut Conn) -> Vec<Vec<Option<String>>> {
    let rows: Vec<mysql::Row> = c
        .query(
            "SELECT ROUTINE_NAME, ROUTINE_TYPE, DATA_TYPE, ROUTINE_DEFINITION, IS_DETERMINISTIC, SQL_DATA_ACCESS, \
             SECURITY_TYPE, ROUTINE_COMMENT FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'dump4' \
             ORDER BY ROUTINE_NAME",
        )
        .unwrap();
    rows.iter().map(row_cells).collect()
}

/// What the restored routines do.
fn call_restored(c: &mut Conn) -> Vec<Vec<Option<String>>> {
    c.query_drop("CALL dump4.add_tags(3, @total)").unwrap();
    let mut rows: Vec<mysql::Row> = c.query("SELECT @total, dump4.tag(7)").unwrap();
    rows.extend(c.query::<mysql::Row, _>("CALL dump4.listing()").unwrap());
    rows.iter().map(row_cells).collect()
}

#[test]
fn dump_with_routines_restores_them_into_quire_and_mariadb() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (Some(dump), Some(client)) = (tool("mariadb-dump"), tool("mariadb")) else { return };
    let q = Quire::start(&[]);
    let mut c = q.connect(None);
    for sql in ROUTINED {
        c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let text = run_tool(&dump, &Target::Quire(&q), &["--routines", "--databases", "dump4"], None);
    assert!(String::from_utf8_lossy(&text).contains("PROCEDURE `add_tags`(IN n INT, OUT total INT)"));
    let expected = routines(&mut c);
    assert_eq!(expected.len(), 3);

    let restored = Quire::start(&[]);
    run_tool(&client, &Target::Quire(&restored), &[], Some(&text));
    let mut rc = restored.connect(None);
    assert_eq!(routines(&mut rc), expected, "quire → dump → quire");

    let m = maria();
    let mut mc = m.connect(None);
    mc.query_drop("DROP DATABASE IF EXISTS dump4").unwrap();
    run_tool(&client, &Target::Maria(m), &[], Some(&text));
    assert_eq!(routines(&mut mc), expected, "quire → dump → MariaDB");
    assert_eq!(call_restored(&mut rc), call_restored(&mut mc));

    // MariaDB's own dump of them (RETURNS varchar(20) CHARSET ...)
    // restores into quire.
    let text = run_tool(&dump, &Target::Maria(m), &["--routines", "--databases", "dump4"], None);
    let again = Quire::start(&[]);
    run_tool(&client, &Target::Quire(&again), &[], Some(&text));
    let mut ac = again.connect(None);
    assert_eq!(routines(&mut ac).len(), 3, "MariaDB → dump → quire");
    assert_eq!(call_restored(&mut ac), call_restored(&mut mc));
    mc.query_drop("DROP DATABASE dump4").unwrap();
}

/// Events (a BEGIN ... END body with `;` inside, a compound interval, a
/// comment with a quote, an event in another time zone).
const EVENTFUL: &[&str] = &[
    "CREATE DATABASE dump5",
    "CREATE TABLE dump5.t (a INT)",
    "CREATE EVENT dump5.e1 ON SCHEDULE EVERY '1:30' HOUR_MINUTE STARTS '2030-01-01 00:00:00' ENDS '2031-01-01' \
     ON COMPLETION PRESERVE DISABLE COMMENT 'it''s' DO BEGIN INSERT INTO t VALUES (1); INSERT INTO t VALUES (2); END",
    "SET time_zone = '+03:00'",
    "CREATE EVENT dump5.e2 ON SCHEDULE AT '2030-05-05 10:00:00' DO DELETE FROM t",
];

/// The events of `dump5` as information_schema lists them.
fn events(c: &mut Conn) -> Vec<Vec<Option<String>>> {
    let rows: Vec<mysql::Row> = c
        .query(
            "SELECT EVENT_NAME, DEFINER, TIME_ZONE, EVENT_DEFINITION, EVENT_TYPE, EXECUTE_AT, INTERVAL_VALUE, \
             INTERVAL_FIELD, STARTS, ENDS, STATUS, ON_COMPLETION, EVENT_COMMENT \
             FROM information_schema.EVENTS WHERE EVENT_SCHEMA = 'dump5' ORDER BY EVENT_NAME",
        )
        .unwrap();
    rows.iter().map(row_cells).collect()
}

#[test]
fn dump_with_events_restores_them_into_quire_and_mariadb() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (Some(dump), Some(client)) = (tool("mariadb-dump"), tool("mariadb")) else { return };
    let q = Quire::start(&[("event_scheduler", "OFF")]);
    let mut c = q.connect(None);
    for sql in EVENTFUL {
        c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let text = run_tool(&dump, &Target::Quire(&q), &["--events", "--databases", "dump5"], None);
    assert!(String::from_utf8_lossy(&text).contains("EVENT `e1` ON SCHEDULE EVERY '1:30' HOUR_MINUTE"));
    let expected = events(&mut c);
    assert_eq!(expected.len(), 2);

    let restored = Quire::start(&[("event_scheduler", "OFF")]);
    run_tool(&client, &Target::Quire(&restored), &[], Some(&text));
    let mut rc = restored.connect(None);
    assert_eq!(events(&mut rc), expected, "quire → dump → quire");

    let m = maria();
    let mut mc = m.connect(None);
    mc.query_drop("DROP DATABASE IF EXISTS dump5").unwrap();
    run_tool(&client, &Target::Maria(m), &[], Some(&text));
    assert_eq!(events(&mut mc), expected, "quire → dump → MariaDB");

    // MariaDB's own dump of them restores into quire.
    let text = run_tool(&dump, &Target::Maria(m), &["--events", "--databases", "dump5"], None);
    let again = Quire::start(&[("event_scheduler", "OFF")]);
    run_tool(&client, &Target::Quire(&again), &[], Some(&text));
    let mut ac = again.connect(None);
    assert_eq!(events(&mut ac), expected, "MariaDB → dump → quire");
    mc.query_drop("DROP DATABASE dump5").unwrap();
}
