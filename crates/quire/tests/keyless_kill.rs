//! A table without a primary key survives SIGKILL: `quire serve` runs as a
//! child, clients insert pairs of identical rows (committed one statement
//! at a time, `innodb_flush_log_at_trx_commit=1`) while another keeps a
//! transaction open, and the server is killed at a random moment. After
//! each restart every acknowledged pair is there (both rows: a statement
//! is atomic), nothing uncommitted is, CHECK TABLE is clean, and new
//! inserts never meet a row id handed out before the crash (a reused id
//! would be a duplicate key on GEN_CLUST_INDEX, or a lost row).

mod child;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use child::Server;
use mysql::prelude::Queryable;
use mysql::Conn;
use rand::{Rng, SeedableRng};

const ROOT_PASSWORD: &str = "kill-pw";

fn start(datadir: &Path, log: &Path) -> Server {
    Server::start(datadir, log, ROOT_PASSWORD, &child::DURABLE_16M, &|_| {})
}

/// (writer, sequence) -> rows of it in the table.
fn pairs(c: &mut Conn) -> HashMap<(i64, i64), i64> {
    c.query_map("SELECT w, s, COUNT(*) FROM k GROUP BY w, s", |(w, s, n): (i64, i64, i64)| ((w, s), n))
        .unwrap()
        .into_iter()
        .collect()
}

#[test]
fn kill_during_inserts_into_a_keyless_table_loses_nothing_and_reuses_no_row_id() {
    let dir = tempfile::tempdir().unwrap();
    let datadir: PathBuf = dir.path().join("data");
    let log = dir.path().join("server.err");
    let mut rng = rand::rngs::SmallRng::seed_from_u64(16);
    {
        let s = start(&datadir, &log);
        let mut c = s.connect(None);
        c.query_drop("CREATE DATABASE kd").unwrap();
        c.query_drop("CREATE TABLE kd.k (w INT, s INT, pad VARCHAR(100), KEY ws (w, s))").unwrap();
        drop(c);
        s.kill();
    }
    // Acknowledged (writer, sequence) pairs, across all runs.
    let acked: Arc<Mutex<Vec<(i64, i64)>>> = Arc::default();
    let mut after_recovery = 0i64;
    for round in 0..4i64 {
        let s = start(&datadir, &log);
        let mut c = s.try_connect(Some("kd")).unwrap();
        let found = pairs(&mut c);
        for key in acked.lock().unwrap().iter() {
            assert_eq!(found.get(key), Some(&2), "round {round}: acknowledged pair {key:?} is not there whole");
        }
        for (key, n) in &found {
            assert_eq!(*n, 2, "round {round}: pair {key:?} half there (a statement is atomic)");
            assert_ne!(key.0, 99, "round {round}: an uncommitted row survived");
        }
        let check: Vec<(String, String, String, String)> = c.query("CHECK TABLE k").unwrap();
        assert_eq!(check.last().unwrap().3, "OK", "round {round}: {check:?}");
        // New rows after recovery: none may meet an id used before.
        let before: i64 = c.query_first("SELECT COUNT(*) FROM k").unwrap().unwrap();
        for i in 0..50 {
            c.exec_drop("INSERT INTO k VALUES (?, ?, 'after'), (?, ?, 'after')", (100 + round, i, 100 + round, i))
                .unwrap_or_else(|e| panic!("round {round}: insert after recovery failed: {e}"));
            acked.lock().unwrap().push((100 + round, i));
        }
        after_recovery += 100;
        let now: i64 = c.query_first("SELECT COUNT(*) FROM k").unwrap().unwrap();
        assert_eq!(now, before + 100, "round {round}: rows lost or doubled by inserts after recovery");
        // The workload: writers of identical pairs, and an open transaction.
        let stop = Arc::new(AtomicBool::new(false));
        let mut threads = Vec::new();
        for w in 0..2i64 {
            let mut wc = s.try_connect(Some("kd")).unwrap();
            let (acked, stop) = (acked.clone(), stop.clone());
            threads.push(std::thread::spawn(move || {
                let ins = wc.prep("INSERT INTO k VALUES (?, ?, REPEAT('p', 90)), (?, ?, REPEAT('p', 90))").unwrap();
                let base = round * 1_000_000;
                for seq in base.. {
                    if stop.load(Ordering::Relaxed) || wc.exec_drop(&ins, (w, seq, w, seq)).is_err() {
                        return;
                    }
                    acked.lock().unwrap().push((w, seq));
                }
            }));
        }
        let mut open = s.try_connect(Some("kd")).unwrap();
        open.query_drop("BEGIN").unwrap();
        for i in 0..30 {
            open.exec_drop("INSERT INTO k VALUES (99, ?, 'uncommitted'), (99, ?, 'uncommitted')", (i, i)).unwrap();
        }
        std::thread::sleep(Duration::from_millis(rng.gen_range(200..1200)));
        s.kill();
        stop.store(true, Ordering::Relaxed);
        for t in threads {
            t.join().unwrap();
        }
    }
    assert!(acked.lock().unwrap().len() as i64 > after_recovery, "the writers acknowledged nothing");
}
