//! `back_log` end to end: the variable reports the configured or
//! autosized (MySQL 8.0: `max_connections`) value, behaves as MariaDB's
//! read-only global variable does, and a burst of simultaneous connects
//! larger than std's default queue of 128 is served to the last client.
//! How fast a burst is served is measured by `scripts/connect-burst.py`
//! (docs/BENCHMARKS.md), never here.

mod oracle;

use std::sync::{Arc, Barrier};

use mysql::prelude::Queryable;
use mysql::Conn;
use oracle::{assert_same, MariaDb, Quire};

fn back_log(c: &mut Conn) -> u64 {
    c.query_first("SELECT @@back_log").unwrap().unwrap()
}

#[test]
fn back_log_reports_the_configured_value_or_max_connections() {
    let q = Quire::start(&[("max_connections", "400"), ("back_log", "350")]);
    assert_eq!(back_log(&mut q.connect(None)), 350);
    drop(q);
    let q = Quire::start(&[("max_connections", "300")]);
    assert_eq!(back_log(&mut q.connect(None)), 300, "autosized to max_connections, as MySQL 8.0 does");
}

#[test]
fn back_log_is_a_read_only_global_variable_as_in_mariadb() {
    let m = MariaDb::get();
    let q = Quire::start(&[]);
    assert_same(
        &mut q.connect(None),
        &mut m.connect(None),
        &["SET GLOBAL back_log = 10", "SELECT @@global.back_log > 0"],
    );
}

#[test]
fn a_burst_of_300_simultaneous_connects_is_served_completely() {
    const CLIENTS: usize = 300;
    let q = Quire::start(&[("max_connections", "400")]);
    let opts = q.opts(None);
    let start = Arc::new(Barrier::new(CLIENTS));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|i| {
            let opts = opts.clone();
            let start = Arc::clone(&start);
            std::thread::spawn(move || {
                start.wait();
                let mut c = Conn::new(opts).unwrap_or_else(|e| panic!("client {i} could not connect: {e}"));
                let one: u32 = c.query_first("SELECT 1").unwrap().unwrap();
                (one, c.connection_id())
            })
        })
        .collect();
    let mut ids: Vec<u32> = clients
        .into_iter()
        .map(|t| {
            let (one, id) = t.join().expect("client thread");
            assert_eq!(one, 1);
            id
        })
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), CLIENTS, "every client had a connection of its own");
}
