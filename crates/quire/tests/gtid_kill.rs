//! GTIDs after a crash: `quire serve` runs as a child with `gtid_mode=ON`,
//! `sync_binlog=1` and `innodb_flush_log_at_trx_commit=1`; writers commit
//! and the server is SIGKILLed at random moments. After each restart
//! `@@gtid_executed` is exactly the set of GTIDs the log's GTID events
//! hold (read by this file's own parser, not quire's), numbered 1..N
//! with no gap, and N is the count of transactions in the engine.
//!
//! The second test cannot pass for nothing: with the test-only hook
//! `QUIRE_BINLOG_PAUSE_AT=engine_commit`, transactions are logged (with
//! their GTIDs) but never committed in the engine; after the kill the
//! restart cuts them from the log, `gtid_executed` drops their GTIDs, and
//! the next transaction takes the first of those numbers again.

mod child;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use child::Server;
use mysql::prelude::Queryable;
use mysql::Conn;
use rand::{Rng, SeedableRng};

const ROOT_PASSWORD: &str = "gtid-kill-pw";

fn start(datadir: &Path, log: &Path, pause_at: Option<&str>) -> Server {
    let gtids = ["--gtid_mode=ON", "--enforce_gtid_consistency=ON"];
    child::logged::start(datadir, log, ROOT_PASSWORD, &gtids, pause_at)
}

/// The GTID numbers of the log's GTID (33) events, in log order, read
/// straight from the files of the index (event headers: type at 4,
/// length at 9; a GTID body: flags u8, sid[16], gno i64).
fn logged_gnos(datadir: &Path) -> Vec<u64> {
    let mut gnos = vec![];
    for f in child::logged::files(datadir) {
        let b = std::fs::read(&f).unwrap();
        let mut pos = 4;
        while pos + 19 <= b.len() {
            let len = u32::from_le_bytes(b[pos + 9..pos + 13].try_into().unwrap()) as usize;
            if len < 19 || pos + len > b.len() {
                break;
            }
            if b[pos + 4] == 33 {
                gnos.push(i64::from_le_bytes(b[pos + 19 + 17..pos + 19 + 25].try_into().unwrap()) as u64);
            }
            pos += len;
        }
    }
    gnos
}

fn executed(c: &mut Conn) -> String {
    c.query_first::<String, _>("SELECT @@gtid_executed").unwrap().unwrap()
}

/// `uuid:1-n` as MySQL prints it.
fn upto(uuid: &str, n: usize) -> String {
    match n {
        0 => String::new(),
        1 => format!("{uuid}:1"),
        n => format!("{uuid}:1-{n}"),
    }
}

fn setup(datadir: &Path, log: &Path) {
    let ddl = ["CREATE DATABASE gk", "CREATE TABLE gk.t (id BIGINT PRIMARY KEY, w INT)"];
    child::logged::setup(start(datadir, log, None), &ddl);
}

// Once in CI this found gtid_executed two ahead of the files: a kill just
// after a rotation, the engine's last commit in the older file, whose
// tail the restart cut while the newer file's PREVIOUS_GTIDS still named
// it (fixed; binlog `gtid_log.rs gtids_cut_from_an_older_file_at_restart_are_not_executed`
// makes that case every time).
//
// It also failed about one run in ten another way: gtid_executed
// `1-11090:11094` where the files held 1-11090. A rotation named the new
// file in the index at append time, before the older file's last groups
// were written; a kill in between left the new file indexed with a
// PREVIOUS_GTIDS naming transactions no file held. The index now names a
// file only once the file before it is written (binlog `log.rs`
// invariant 4; `gtid_log.rs next_files_left_unindexed_by_a_crash_mid_rotation_are_removed_with_their_gtids`).
#[test]
fn after_kills_gtid_executed_is_the_set_of_gtids_in_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let datadir = dir.path().join("data");
    let log = dir.path().join("server.err");
    let mut rng = rand::rngs::SmallRng::seed_from_u64(29);
    setup(&datadir, &log);
    for round in 0..4i64 {
        let s = start(&datadir, &log, None);
        let mut c = s.connect(None);
        let uuid: String = c.query_first("SELECT @@server_uuid").unwrap().unwrap();
        let gnos = logged_gnos(&datadir);
        assert_eq!(gnos, (1..=gnos.len() as u64).collect::<Vec<_>>(), "round {round}: numbered 1..N in log order");
        assert_eq!(executed(&mut c), upto(&uuid, gnos.len()), "round {round}");
        // Two DDL statements, then one transaction per row.
        let rows: usize = c.query_first("SELECT COUNT(*) FROM gk.t").unwrap().unwrap();
        assert_eq!(gnos.len(), 2 + rows, "round {round}: one GTID per transaction the engine holds");
        let stop = Arc::new(AtomicBool::new(false));
        let threads: Vec<_> = (0..6i64)
            .map(|w| {
                let mut wc = s.connect(Some("gk"));
                let stop = stop.clone();
                std::thread::spawn(move || {
                    for seq in 0.. {
                        if stop.load(Ordering::Relaxed) {
                            return;
                        }
                        let id = (round * 100 + w) * 1_000_000 + seq;
                        if wc.exec_drop("INSERT INTO t VALUES (?, ?)", (id, w)).is_err() {
                            return;
                        }
                    }
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(rng.gen_range(300..1200)));
        s.kill();
        stop.store(true, Ordering::Relaxed);
        for t in threads {
            t.join().unwrap();
        }
    }
    let s = start(&datadir, &log, None);
    let mut c = s.connect(None);
    let uuid: String = c.query_first("SELECT @@server_uuid").unwrap().unwrap();
    let n = logged_gnos(&datadir).len();
    assert!(n > 50, "too few transactions to prove anything: {n}");
    assert_eq!(executed(&mut c), upto(&uuid, n));
}

#[test]
fn gtids_of_transactions_cut_at_restart_are_not_executed_and_are_reused() {
    let dir = tempfile::tempdir().unwrap();
    let datadir = dir.path().join("data");
    let log = dir.path().join("server.err");
    setup(&datadir, &log);
    let s = start(&datadir, &log, Some("engine_commit"));
    let mut writers = Vec::new();
    for id in 1..4i64 {
        let mut wc = s.connect(Some("gk"));
        writers.push(std::thread::spawn(move || {
            let _ = wc.exec_drop("INSERT INTO t VALUES (?, 0)", (id,));
        }));
        if id == 1 {
            child::logged::wait_paused(&log);
        }
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while logged_gnos(&datadir) != vec![1, 2, 3, 4, 5] {
        assert!(Instant::now() < deadline, "not logged: {:?}", logged_gnos(&datadir));
        std::thread::sleep(Duration::from_millis(50));
    }
    s.kill();
    for w in writers {
        w.join().unwrap();
    }
    let s = start(&datadir, &log, None);
    let mut c = s.connect(None);
    let uuid: String = c.query_first("SELECT @@server_uuid").unwrap().unwrap();
    assert_eq!(logged_gnos(&datadir), vec![1, 2]);
    assert_eq!(executed(&mut c), upto(&uuid, 2));
    c.query_drop("INSERT INTO gk.t VALUES (9, 0)").unwrap();
    assert_eq!(executed(&mut c), upto(&uuid, 3));
    assert_eq!(logged_gnos(&datadir), vec![1, 2, 3]);
}
