//! Instant ADD COLUMN survives SIGKILL (`engine/table/engine/instant.rs`):
//! `quire serve` runs as a child (`innodb_flush_log_at_trx_commit=1`) and
//! is killed right after an instant ADD answered, then again while clients
//! insert and update rows after a second ADD (one transaction left open).
//! After each restart every row reads the new columns: rows written before
//! an ADD its instant default (not the column's later DEFAULT), rows
//! written after their own values; every acknowledged change is there,
//! nothing uncommitted is, and CHECK TABLE is clean.

mod child;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use child::Server;
use mysql::prelude::Queryable;
use mysql::Conn;

const ROOT_PASSWORD: &str = "instant-kill-pw";
const ROWS: i64 = 300;

fn start(datadir: &Path, log: &Path) -> Server {
    Server::start(datadir, log, ROOT_PASSWORD, &child::DURABLE_16M, &|_| {})
}

fn check_clean(c: &mut Conn) {
    let rows: Vec<(String, String, String, String)> = c.query("CHECK TABLE kd.t").unwrap();
    assert_eq!(rows.last().unwrap().3, "OK", "CHECK TABLE: {rows:?}");
}

#[test]
fn kill_after_an_instant_add_and_during_writes_keeps_every_committed_row_and_its_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let datadir = dir.path().join("data");
    let log = dir.path().join("server.err");

    // 1. An instant ADD, then SIGKILL as soon as it answered.
    let s = start(&datadir, &log);
    let mut c = s.connect(None);
    c.query_drop("CREATE DATABASE kd").unwrap();
    c.query_drop("CREATE TABLE kd.t (id INT PRIMARY KEY, a INT NOT NULL, KEY ka (a))").unwrap();
    let values: Vec<String> = (1..=ROWS).map(|i| format!("({i}, 0)")).collect();
    c.query_drop(format!("INSERT INTO kd.t VALUES {}", values.join(","))).unwrap();
    c.query_drop("ALTER TABLE kd.t ADD COLUMN b INT NOT NULL DEFAULT 7, ALGORITHM=INSTANT").unwrap();
    s.kill();

    let s = start(&datadir, &log);
    let mut c = s.connect(None);
    let (n, sevens): (i64, i64) = c.query_first("SELECT COUNT(*), SUM(b = 7) FROM kd.t").unwrap().unwrap();
    assert_eq!((n, sevens), (ROWS, ROWS), "the ADD survived: every old row reads its instant default");
    check_clean(&mut c);

    // 2. A second ADD and a new default, then writers, killed mid-way.
    c.query_drop("ALTER TABLE kd.t ADD COLUMN c VARCHAR(10) DEFAULT 'c0', ALGORITHM=INSTANT").unwrap();
    c.query_drop("ALTER TABLE kd.t ALTER COLUMN b SET DEFAULT 8").unwrap();
    let inserted: Arc<Mutex<Vec<i64>>> = Arc::default();
    let updated: Arc<Mutex<Vec<i64>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    for w in 0..2i64 {
        let mut wc = s.connect(None);
        let (inserted, updated, stop) = (inserted.clone(), updated.clone(), stop.clone());
        threads.push(std::thread::spawn(move || {
            for i in 0.. {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let id = 1000 + w * 1_000_000 + i;
                let sql = if i % 2 == 0 {
                    format!("INSERT INTO kd.t (id, a) VALUES ({id}, 1)")
                } else {
                    format!("INSERT INTO kd.t (id, a, c) VALUES ({id}, 1, 'given')")
                };
                if wc.query_drop(sql).is_err() {
                    return;
                }
                inserted.lock().unwrap().push(id);
                // Each old row is updated at most once, by one writer.
                let old = 1 + (i * 2 + w) % ROWS;
                if i * 2 + w < ROWS {
                    if wc.query_drop(format!("UPDATE kd.t SET a = 1 WHERE id = {old}")).is_err() {
                        return;
                    }
                    updated.lock().unwrap().push(old);
                }
            }
        }));
    }
    let mut open = s.connect(None);
    open.query_drop("BEGIN").unwrap();
    open.query_drop("UPDATE kd.t SET b = 99, c = 'open' WHERE id > 250 AND id <= 300").unwrap();
    std::thread::sleep(Duration::from_millis(700));
    s.kill();
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }

    let s = start(&datadir, &log);
    let mut c = s.connect(None);
    check_clean(&mut c);
    let rows: Vec<(i64, i64, i64, Option<String>)> = c.query("SELECT id, a, b, c FROM kd.t ORDER BY id").unwrap();
    let by_id: std::collections::HashMap<i64, (i64, i64, Option<String>)> =
        rows.into_iter().map(|(id, a, b, c)| (id, (a, b, c))).collect();
    for id in 1..=ROWS {
        let (_, b, c) = by_id.get(&id).unwrap_or_else(|| panic!("old row {id} lost"));
        assert_eq!((*b, c.as_deref()), (7, Some("c0")), "old row {id}: its instant defaults, not the later DEFAULT");
    }
    for id in updated.lock().unwrap().iter() {
        assert_eq!(by_id[id].0, 1, "acknowledged update of old row {id}");
    }
    let inserted = inserted.lock().unwrap();
    assert!(!inserted.is_empty(), "the writers wrote something before the kill");
    for id in inserted.iter() {
        let (a, b, c) = by_id.get(id).unwrap_or_else(|| panic!("acknowledged insert {id} lost"));
        let want_c = if (id - 1000) % 1_000_000 % 2 == 0 { "c0" } else { "given" };
        assert_eq!((*a, *b, c.as_deref()), (1, 8, Some(want_c)), "row {id}: written after the ADD, whole");
    }
    assert!(by_id.values().all(|(_, b, _)| *b != 99), "an uncommitted update survived");
    // Usable afterwards: an index on the new column, built from old rows.
    c.query_drop("ALTER TABLE kd.t ADD INDEX kb (b)").unwrap();
    let old: i64 = c.query_first("SELECT COUNT(*) FROM kd.t FORCE INDEX (kb) WHERE b = 7").unwrap().unwrap();
    assert_eq!(old, ROWS);
    check_clean(&mut c);
}
