//! Statistics and the cost model end to end: ANALYZE TABLE answers as
//! MariaDB does; `mysql.innodb_table_stats` / `innodb_index_stats` hold
//! InnoDB's rows with distinct counts near the truth, survive a restart,
//! appear on a table's first use and follow changed data; and plans made
//! from them read fewer pages than the fixed ranking's (counted by
//! `Innodb_buffer_pool_read_requests`, never timed).

mod oracle;

use std::path::Path;
use std::time::{Duration, Instant};

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
        ("innodb_flush_log_at_trx_commit".into(), "2".into()),
    ];
    overrides.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let cfg = config::load(None, &overrides).expect("config");
    Server::start(&cfg, Some(oracle::QUIRE_ROOT_PASSWORD)).expect("server starts")
}

fn connect(s: &Server, db: Option<&str>) -> Conn {
    let addr = s.tcp_addr.expect("tcp");
    let opts = mysql::OptsBuilder::new()
        .ip_or_hostname(Some("127.0.0.1"))
        .tcp_port(addr.port())
        .user(Some("root"))
        .pass(Some(oracle::QUIRE_ROOT_PASSWORD))
        .db_name(db)
        .prefer_socket(false);
    Conn::new(opts).expect("connect")
}

fn requests(c: &mut Conn) -> u64 {
    let row: Option<(String, String)> =
        c.query_first("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_read_requests'").unwrap();
    row.map_or(0, |(_, v)| v.parse().unwrap())
}

/// Page requests of running `sql`, and its rows.
fn pages_of(c: &mut Conn, sql: &str) -> (u64, Vec<mysql::Row>) {
    let before = requests(c);
    let rows: Vec<mysql::Row> = c.query(sql).unwrap();
    (requests(c) - before, rows)
}

/// Inserts `n` rows made by `row(i)` in batches.
fn load(c: &mut Conn, table: &str, n: usize, row: impl Fn(usize) -> String) {
    for start in (0..n).step_by(500) {
        let values: Vec<String> = (start..(start + 500).min(n)).map(&row).collect();
        c.query_drop(format!("INSERT INTO {table} VALUES {}", values.join(","))).unwrap();
    }
}

fn index_stat(c: &mut Conn, table: &str, index: &str, stat: &str) -> u64 {
    c.query_first(format!(
        "SELECT stat_value FROM mysql.innodb_index_stats WHERE database_name = 'st' AND table_name = '{table}' \
         AND index_name = '{index}' AND stat_name = '{stat}'"
    ))
    .unwrap()
    .unwrap_or_else(|| panic!("no {stat} for {table}.{index}"))
}

fn table_rows(c: &mut Conn, table: &str) -> Option<u64> {
    c.query_first(format!(
        "SELECT n_rows FROM mysql.innodb_table_stats WHERE database_name = 'st' AND table_name = '{table}'"
    ))
    .unwrap()
}

#[test]
fn analyze_table_answers_as_mariadb() {
    let q = Quire::start(&[]);
    let mut qc = q.fresh_db("an");
    let mut mc = MariaDb::get().fresh_db("an");
    assert_same(
        &mut qc,
        &mut mc,
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, a INT, KEY ia (a))",
            "INSERT INTO t VALUES (1, 1), (2, 2), (3, 2)",
            "CREATE VIEW v AS SELECT 1 AS one",
            "ANALYZE TABLE t",
            "ANALYZE TABLES t",
            "ANALYZE NO_WRITE_TO_BINLOG TABLE t",
            "ANALYZE LOCAL TABLE an.t, nosuch",
            "ANALYZE TABLE nosuch",
            "ANALYZE TABLE v",
            "ANALYZE TABLE",
        ],
    );
}

#[test]
fn stats_tables_hold_innodb_rows_with_near_true_distinct_counts() {
    let q = Quire::start(&[("innodb_stats_persistent_sample_pages", "6")]);
    let mut c = q.fresh_db("st");
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(20), KEY ia (a), KEY iab (a, b))").unwrap();
    load(&mut c, "t", 6000, |i| format!("({i}, {}, 'v{}')", i % 10, i % 300));
    c.query_drop("ANALYZE TABLE t").unwrap();
    let n_rows = table_rows(&mut c, "t").unwrap();
    assert!((4000..=8000).contains(&n_rows), "n_rows {n_rows}");
    // The index had more leaves than the sample: the counts are estimates.
    let leaves = index_stat(&mut c, "t", "ia", "n_leaf_pages");
    assert!(leaves > 6, "ia has {leaves} leaves");
    let a = index_stat(&mut c, "t", "ia", "n_diff_pfx01");
    assert!(a <= 60, "a has 10 values, estimated {a}");
    let ab = index_stat(&mut c, "t", "iab", "n_diff_pfx02");
    assert!((150..=600).contains(&ab), "(a, b) has 300 values, estimated {ab}");
    let pk = index_stat(&mut c, "t", "PRIMARY", "n_diff_pfx01");
    assert!((4000..=8000).contains(&pk), "id: {pk}");
    // InnoDB's rows and descriptions.
    let rows: Vec<(String, String, Option<u64>, String)> = c
        .query(
            "SELECT index_name, stat_name, sample_size, stat_description FROM mysql.innodb_index_stats \
             WHERE database_name = 'st' AND table_name = 't' ORDER BY index_name, stat_name",
        )
        .unwrap();
    let names: Vec<String> = rows.iter().map(|r| format!("{}.{}", r.0, r.1)).collect();
    assert_eq!(
        names,
        [
            "ia.n_diff_pfx01",
            "ia.n_diff_pfx02",
            "ia.n_leaf_pages",
            "ia.size",
            "iab.n_diff_pfx01",
            "iab.n_diff_pfx02",
            "iab.n_diff_pfx03",
            "iab.n_leaf_pages",
            "iab.size",
            "PRIMARY.n_diff_pfx01",
            "PRIMARY.n_leaf_pages",
            "PRIMARY.size",
        ]
    );
    assert_eq!(rows[5], ("iab".into(), "n_diff_pfx02".into(), Some(6), "a,b".into()));
    assert_eq!(rows[3].2, None);
    assert_eq!(rows[3].3, "Number of pages in the index");
}

#[test]
fn statistics_appear_on_first_use_follow_changes_and_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let s = start(dir.path(), &[]);
    let mut c = connect(&s, None);
    c.query_drop("CREATE DATABASE st").unwrap();
    c.query_drop("USE st").unwrap();
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, a INT)").unwrap();
    // The INSERTs' first use of the empty table gave it statistics.
    load(&mut c, "t", 1000, |i| format!("({i}, {})", i % 7));
    // More than 10 % changed: the background recalculation catches up.
    let deadline = Instant::now() + Duration::from_secs(60);
    while table_rows(&mut c, "t") != Some(1000) {
        assert!(Instant::now() < deadline, "n_rows stayed at {:?}", table_rows(&mut c, "t"));
        std::thread::sleep(Duration::from_millis(100));
    }
    // With auto-recalculation off, changes leave them alone.
    c.query_drop("SET GLOBAL innodb_stats_auto_recalc = OFF").unwrap();
    load(&mut c, "t", 500, |i| format!("({}, 0)", 1000 + i));
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(table_rows(&mut c, "t"), Some(1000));
    c.query_drop("ANALYZE TABLE t").unwrap();
    assert_eq!(table_rows(&mut c, "t"), Some(1500));
    let before: Vec<(String, u64)> = c
        .query("SELECT stat_name, stat_value FROM mysql.innodb_index_stats WHERE table_name = 't' ORDER BY stat_name")
        .unwrap();
    drop(c);
    s.shutdown().unwrap();

    let s = start(dir.path(), &[]);
    let mut c = connect(&s, Some("st"));
    let after: Vec<(String, u64)> = c
        .query("SELECT stat_name, stat_value FROM mysql.innodb_index_stats WHERE table_name = 't' ORDER BY stat_name")
        .unwrap();
    assert_eq!(before, after);
    assert_eq!(table_rows(&mut c, "t"), Some(1500));
    // Dropped with the table.
    c.query_drop("DROP TABLE t").unwrap();
    assert_eq!(table_rows(&mut c, "t"), None);
    let n: u64 =
        c.query_first("SELECT COUNT(*) FROM mysql.innodb_index_stats WHERE table_name = 't'").unwrap().unwrap();
    assert_eq!(n, 0);
    drop(c);
    s.shutdown().unwrap();
}

#[test]
fn statistics_pick_the_selective_index_the_fixed_ranking_misses() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("st");
    // `a` has two values, `b` is unique in practice but not declared so:
    // the fixed ranking takes the first index that applies, ia.
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT, pad VARCHAR(40), KEY ia (a), KEY ib (b))").unwrap();
    load(&mut c, "t", 4000, |i| format!("({i}, {}, {i}, 'padding padding padding')", i % 2));
    c.query_drop("ANALYZE TABLE t").unwrap();
    c.query_drop("SET GLOBAL innodb_stats_auto_recalc = OFF").unwrap();
    let (chosen, rows) = pages_of(&mut c, "SELECT id FROM t WHERE a = 1 AND b = 77");
    assert_eq!(rows.len(), 1);
    // What reading through ia costs: every row with a = 1.
    let (through_ia, rows) = pages_of(&mut c, "SELECT id FROM t WHERE a = 1");
    assert_eq!(rows.len(), 2000);
    assert!(chosen * 20 < through_ia, "the chosen path read {chosen} pages, ia {through_ia}");
    let plan: Vec<mysql::Row> = c.query("EXPLAIN SELECT id FROM t WHERE a = 1 AND b = 77").unwrap();
    assert_eq!(plan[0].get::<Option<String>, _>("key").unwrap().as_deref(), Some("ib"));
}

#[test]
fn a_three_table_join_written_in_a_bad_order_runs_in_a_good_one() {
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("st");
    c.query_drop("CREATE TABLE big (id INT PRIMARY KEY, mid_id INT, v INT, KEY im (mid_id))").unwrap();
    c.query_drop("CREATE TABLE mid (id INT PRIMARY KEY, small_id INT, KEY is_ (small_id))").unwrap();
    c.query_drop("CREATE TABLE small (id INT PRIMARY KEY, tag INT)").unwrap();
    load(&mut c, "big", 6000, |i| format!("({i}, {}, {i})", i % 300));
    load(&mut c, "mid", 300, |i| format!("({i}, {})", i % 20));
    load(&mut c, "small", 20, |i| format!("({i}, {i})"));
    c.query_drop("ANALYZE TABLE big, mid, small").unwrap();
    c.query_drop("SET GLOBAL innodb_stats_auto_recalc = OFF").unwrap();
    let sql = "SELECT SUM(big.v) FROM big, mid, small WHERE big.mid_id = mid.id AND mid.small_id = small.id \
               AND small.tag = 3";
    let (free, rows) = pages_of(&mut c, sql);
    let (written, rows_written) = pages_of(&mut c, &sql.replacen("SELECT", "SELECT STRAIGHT_JOIN", 1));
    assert_eq!(rows[0].get::<Option<String>, _>(0).unwrap(), rows_written[0].get::<Option<String>, _>(0).unwrap());
    assert!(free * 3 < written, "free order read {free} pages, the written order {written}");
    let plan: Vec<mysql::Row> = c.query(format!("EXPLAIN {sql}")).unwrap();
    let order: Vec<String> = plan.iter().map(|r| r.get::<String, _>("table").unwrap()).collect();
    assert_eq!(order, ["small", "mid", "big"]);
}
