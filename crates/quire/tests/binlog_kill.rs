//! The binary log and the engine agree after a crash: `quire serve` runs
//! as a child with `log_bin` on, `sync_binlog=1` and
//! `innodb_flush_log_at_trx_commit=1`; clients commit transactions that
//! each insert rows with ids of their own, and the server is SIGKILLed at
//! random moments. After each restart the ids in the table are exactly
//! the ids the log holds (decoded by `mariadb-binlog`, an independent
//! reader), and every acknowledged commit is in both.
//!
//! The second test shows the first cannot pass for nothing: with the
//! test-only hook `QUIRE_BINLOG_PAUSE_AT=engine_commit` transactions stop
//! after their events are written and synced and before the engine
//! commits them; the log then holds them (checked) while the engine does
//! not, which is the state a crash used to leave behind. After a kill
//! and a restart the log no longer holds them.

mod child;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use child::Server;
use mysql::prelude::Queryable;
use mysql::Conn;
use rand::{Rng, SeedableRng};

const ROOT_PASSWORD: &str = "binlog-kill-pw";

fn start(datadir: &Path, log: &Path, pause_at: Option<&str>) -> Server {
    child::logged::start(datadir, log, ROOT_PASSWORD, &[], pause_at)
}

/// The ids in table `bk.t`.
fn engine_ids(c: &mut Conn) -> BTreeSet<i64> {
    c.query("SELECT id FROM bk.t").unwrap().into_iter().collect()
}

/// The ids the log's INSERTs into `bk.t` hold, as `mariadb-binlog`
/// decodes every file of the index (ids are never deleted here).
fn logged_ids(datadir: &Path) -> BTreeSet<i64> {
    let files = child::logged::files(datadir);
    let out = Command::new("mariadb-binlog")
        .args(["--base64-output=decode-rows", "-v"])
        .args(&files)
        .output()
        .expect("mariadb-binlog runs");
    assert!(out.status.success(), "mariadb-binlog failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let mut ids = BTreeSet::new();
    let mut in_insert = false;
    for line in text.lines() {
        if line.starts_with("### INSERT INTO `bk`.`t`") {
            in_insert = true;
        } else if let Some(v) = line.strip_prefix("###   @1=") {
            if in_insert {
                ids.insert(v.trim().parse::<i64>().unwrap());
                in_insert = false;
            }
        } else if !line.starts_with("### SET") {
            in_insert = false;
        }
    }
    ids
}

fn setup(datadir: &Path, log: &Path) {
    let ddl = ["CREATE DATABASE bk", "CREATE TABLE bk.t (id BIGINT PRIMARY KEY, w INT, pad VARCHAR(60))"];
    child::logged::setup(start(datadir, log, None), &ddl);
}

#[test]
fn after_kills_during_logged_commits_log_and_engine_hold_the_same_transactions() {
    if Command::new("mariadb-binlog").arg("--version").output().is_err() {
        eprintln!("mariadb-binlog is not installed: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let datadir = dir.path().join("data");
    let log = dir.path().join("server.err");
    let mut rng = rand::rngs::SmallRng::seed_from_u64(17);
    setup(&datadir, &log);
    let acked: Arc<Mutex<BTreeSet<i64>>> = Arc::default();
    let mut cuts = 0;
    for round in 0..5i64 {
        let s = start(&datadir, &log, None);
        cuts += std::fs::read_to_string(&log).unwrap().matches("the engine did not commit").count();
        let mut c = s.connect(None);
        let engine = engine_ids(&mut c);
        let logged = logged_ids(&datadir);
        let acked_now = acked.lock().unwrap().clone();
        assert!(
            acked_now.is_subset(&engine),
            "round {round}: acknowledged ids missing from the engine: {:?}",
            acked_now.difference(&engine).take(10).collect::<Vec<_>>()
        );
        assert_eq!(
            engine.symmetric_difference(&logged).take(10).collect::<Vec<_>>(),
            Vec::<&i64>::new(),
            "round {round}: the engine ({} ids) and the log ({} ids) differ",
            engine.len(),
            logged.len()
        );
        // Writers: autocommit inserts and two-row transactions.
        let stop = Arc::new(AtomicBool::new(false));
        let mut threads = Vec::new();
        for w in 0..8i64 {
            let mut wc = s.connect(Some("bk"));
            let (acked, stop) = (acked.clone(), stop.clone());
            threads.push(std::thread::spawn(move || {
                let base = (round * 100 + w) * 1_000_000;
                for seq in 0.. {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let id = base + 2 * seq;
                    let ok = if seq % 2 == 0 {
                        wc.exec_drop("INSERT INTO t VALUES (?, ?, REPEAT('p', 50))", (id, w)).is_ok()
                    } else {
                        wc.query_drop("BEGIN").is_ok()
                            && wc.exec_drop("INSERT INTO t VALUES (?, ?, 'a')", (id, w)).is_ok()
                            && wc.exec_drop("INSERT INTO t VALUES (?, ?, 'b')", (id + 1, w)).is_ok()
                            && wc.query_drop("COMMIT").is_ok()
                    };
                    if !ok {
                        return;
                    }
                    let mut a = acked.lock().unwrap();
                    a.insert(id);
                    if seq % 2 == 1 {
                        a.insert(id + 1);
                    }
                }
            }));
        }
        std::thread::sleep(Duration::from_millis(rng.gen_range(300..1500)));
        s.kill();
        stop.store(true, Ordering::Relaxed);
        for t in threads {
            t.join().unwrap();
        }
    }
    let s = start(&datadir, &log, None);
    let mut c = s.connect(None);
    let engine = engine_ids(&mut c);
    assert_eq!(engine, logged_ids(&datadir), "after the last kill, the engine and the log differ");
    assert!(acked.lock().unwrap().is_subset(&engine), "after the last kill, acknowledged ids are missing");
    assert!(acked.lock().unwrap().len() > 100, "the writers acknowledged too little to prove anything");
    eprintln!("{} ids committed; the log was cut after {cuts} of the kills", engine.len());
}

#[test]
fn transactions_logged_but_not_committed_in_the_engine_are_cut_at_restart() {
    if Command::new("mariadb-binlog").arg("--version").output().is_err() {
        eprintln!("mariadb-binlog is not installed: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let datadir = dir.path().join("data");
    let log = dir.path().join("server.err");
    setup(&datadir, &log);
    {
        let s = start(&datadir, &log, None);
        s.connect(Some("bk")).query_drop("INSERT INTO t VALUES (1, 0, 'acked')").unwrap();
        s.kill();
    }
    let s = start(&datadir, &log, Some("engine_commit"));
    // The first writer stops at the hook holding its commit turn; the
    // others are written and synced behind it and wait for their turns.
    let mut writers = Vec::new();
    for id in 2..6i64 {
        let mut wc = s.connect(Some("bk"));
        writers.push(std::thread::spawn(move || {
            let _ = wc.exec_drop("INSERT INTO t VALUES (?, 0, 'never acknowledged')", (id,));
        }));
        if id == 2 {
            child::logged::wait_paused(&log);
        }
    }
    // All four are in the log, none is acknowledged.
    let deadline = Instant::now() + Duration::from_secs(30);
    while logged_ids(&datadir) != (1..6).collect::<BTreeSet<i64>>() {
        assert!(
            Instant::now() < deadline,
            "the writers' transactions never reached the log: {:?}",
            logged_ids(&datadir)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(writers.iter().all(|w| !w.is_finished()), "a paused commit was acknowledged");
    s.kill();
    for w in writers {
        w.join().unwrap();
    }
    let s = start(&datadir, &log, None);
    let mut c = s.connect(None);
    assert_eq!(engine_ids(&mut c), BTreeSet::from([1]));
    assert_eq!(logged_ids(&datadir), BTreeSet::from([1]), "the log still holds what the engine never committed");
    let err = std::fs::read_to_string(&log).unwrap();
    assert!(err.contains("dropping 4 transactions"), "the cut is not reported as expected:\n{err}");
    // The log goes on from there: a new commit is in both.
    c.query_drop("INSERT INTO bk.t VALUES (7, 0, 'after')").unwrap();
    assert_eq!(engine_ids(&mut c), logged_ids(&datadir));
}
