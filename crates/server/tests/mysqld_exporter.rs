//! Debian's `prometheus-mysqld-exporter` (0.14) scrapes quire: with its
//! default collectors (SHOW GLOBAL STATUS / VARIABLES, SHOW SLAVE STATUS,
//! INNODB_CMP / INNODB_CMPMEM, `@@query_response_time_stats`) and with
//! `--collect.info_schema.innodb_metrics` and
//! `--collect.engine_innodb_status` as well, `/metrics` says `mysql_up 1`
//! and no scrape error, and the InnoDB families are there: the status
//! variables (`mysql_global_status_innodb_*`, the buffer pool pages, the
//! row operations), INNODB_METRICS' counters and SHOW ENGINE INNODB
//! STATUS' figures.
//!
//! The exporter comes from Debian's package (`.ci/run` installs it);
//! without it the test prints why and returns.

mod oracle;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use mysql::prelude::Queryable;
use oracle::{Quire, QUIRE_ROOT_PASSWORD};

const EXPORTER: &str = "prometheus-mysqld-exporter";

fn exporter_installed() -> bool {
    Command::new(EXPORTER).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok()
}

/// The exporter, killed when dropped.
struct Exporter {
    child: Child,
    port: u16,
}

impl Drop for Exporter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn start_exporter(quire_port: u16, flags: &[&str]) -> Exporter {
    let port = free_port();
    let child = Command::new(EXPORTER)
        .env("DATA_SOURCE_NAME", format!("root:{QUIRE_ROOT_PASSWORD}@(127.0.0.1:{quire_port})/"))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .args(flags)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the exporter");
    let e = Exporter { child, port };
    // Until it listens (it does at once; a slow machine gets 20 s).
    for _ in 0..400 {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return e;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the exporter does not listen on {port}");
}

/// GET /metrics over HTTP/1.0: the body.
fn scrape(e: &Exporter) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", e.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    s.write_all(b"GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP answer");
    assert!(head.starts_with("HTTP/1.0 200") || head.starts_with("HTTP/1.1 200"), "{head}");
    body.to_string()
}

/// The sample lines (no comments) of `family` (its name, then `{` or a space).
fn samples<'a>(metrics: &'a str, family: &str) -> Vec<&'a str> {
    metrics
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter(|l| l.strip_prefix(family).is_some_and(|r| r.starts_with('{') || r.starts_with(' ')))
        .collect()
}

fn assert_scraped_cleanly(metrics: &str) {
    assert_eq!(samples(metrics, "mysql_up"), vec!["mysql_up 1"], "mysql_up");
    assert_eq!(samples(metrics, "mysql_exporter_last_scrape_error"), vec!["mysql_exporter_last_scrape_error 0"]);
    let errors = samples(metrics, "mysql_exporter_scrape_errors_total");
    assert!(errors.is_empty(), "collectors failed: {errors:?}");
}

fn assert_has(metrics: &str, family: &str) {
    assert!(!samples(metrics, family).is_empty(), "no {family} in:\n{metrics}");
}

#[test]
fn the_exporter_scrapes_quire_with_the_innodb_families() {
    if !exporter_installed() {
        eprintln!("skipping: {EXPORTER} is not installed (Debian's prometheus-mysqld-exporter; .ci/run installs it)");
        return;
    }
    let q = Quire::start(&[]);
    let mut c = q.fresh_db("scraped");
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v INT)").unwrap();
    c.query_drop("INSERT INTO t VALUES (1, 1), (2, 2), (3, 3)").unwrap();
    let port = q.server.tcp_addr.expect("tcp").port();

    let defaults = start_exporter(port, &[]);
    let m = scrape(&defaults);
    assert_scraped_cleanly(&m);
    for family in [
        "mysql_global_status_innodb_page_size",
        "mysql_global_status_innodb_data_written",
        "mysql_global_status_innodb_row_lock_waits",
        "mysql_global_status_buffer_pool_pages",
        "mysql_global_status_buffer_pool_dirty_pages",
        "mysql_global_status_innodb_row_ops_total",
        "mysql_global_status_commands_total",
        "mysql_global_status_handlers_total",
        "mysql_global_status_threads_running",
        "mysql_global_status_questions",
        "mysql_global_status_uptime",
        "mysql_global_variables_innodb_buffer_pool_size",
        "mysql_version_info",
        "mysql_info_schema_innodb_cmp_compress_ops_total",
        "mysql_info_schema_innodb_cmpmem_pages_used_total",
    ] {
        assert_has(&m, family);
    }
    let inserted = samples(&m, "mysql_global_status_innodb_row_ops_total")
        .into_iter()
        .find(|l| l.contains("operation=\"inserted\""))
        .expect("inserted rows");
    assert!(inserted.ends_with(" 3"), "three rows inserted: {inserted}");
    drop(defaults);

    let innodb = start_exporter(port, &["--collect.info_schema.innodb_metrics", "--collect.engine_innodb_status"]);
    let m = scrape(&innodb);
    assert_scraped_cleanly(&m);
    for family in [
        "mysql_info_schema_innodb_metrics_dml_dml_inserts_total",
        "mysql_info_schema_innodb_metrics_lock_lock_row_lock_waits_total",
        "mysql_info_schema_innodb_metrics_log_log_lsn_current",
        "mysql_info_schema_innodb_metrics_buffer_pool_pages",
        "mysql_info_schema_innodb_metrics_buffer_pool_dirty_pages",
        "mysql_info_schema_innodb_metrics_transaction_trx_rseg_history_len",
        "mysql_engine_innodb_queries_inside_innodb",
        "mysql_engine_innodb_queries_in_queue",
        "mysql_engine_innodb_read_views_open_inside_innodb",
    ] {
        assert_has(&m, family);
    }
    let dml = samples(&m, "mysql_info_schema_innodb_metrics_dml_dml_inserts_total");
    assert_eq!(dml, vec!["mysql_info_schema_innodb_metrics_dml_dml_inserts_total 3"]);
}
