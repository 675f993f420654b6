//! Opening the log after the engine's last logged commit: the log is cut
//! back to that position (in its file, and every later file down to its
//! header), and the engine's commits run in log order whatever order the
//! committers arrive in.

use std::path::Path;
use std::sync::{Arc, Mutex};

mod common;

use common::{body, trx};
use quire_binlog::event::Checksum;
use quire_binlog::BinLog;

/// The statements `mariadb-binlog` decodes from `files`, or `None`
/// without the tool.
fn decoded(dir: &Path, files: &[&str]) -> Option<String> {
    let out = std::process::Command::new("mariadb-binlog").args(files.iter().map(|f| dir.join(f))).output().ok()?;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn the_log_is_cut_back_to_the_engines_position_across_files() {
    let dir = tempfile::tempdir().unwrap();
    let header_end;
    let engine;
    {
        let log = BinLog::open(common::opts(dir.path(), Checksum::Crc32)).unwrap();
        header_end = log.status().end;
        engine = trx(&log, "INSERT INTO t VALUES (1)");
        trx(&log, "INSERT INTO t VALUES (2)");
        log.rotate().unwrap();
        trx(&log, "INSERT INTO t VALUES (3)");
        // No close: a crash, with the engine at the first transaction.
    }
    let log = BinLog::open_after(common::opts(dir.path(), Checksum::Crc32), Some((engine.file_number(), engine.end)))
        .unwrap();
    assert_eq!(std::fs::metadata(dir.path().join("binlog.000001")).unwrap().len(), engine.end);
    assert_eq!(std::fs::metadata(dir.path().join("binlog.000002")).unwrap().len(), header_end);
    assert_eq!(log.status().file, "binlog.000003");
    if let Some(text) = decoded(dir.path(), &["binlog.000001", "binlog.000002"]) {
        assert!(text.contains("VALUES (1)") && !text.contains("VALUES (2)") && !text.contains("VALUES (3)"));
    }
    // A position at the end of what the log holds cuts nothing.
    let p = trx(&log, "INSERT INTO t VALUES (4)");
    drop(log);
    BinLog::open_after(common::opts(dir.path(), Checksum::Crc32), Some((p.file_number(), p.end))).unwrap();
    if let Some(text) = decoded(dir.path(), &["binlog.000003"]) {
        assert!(text.contains("VALUES (4)"));
    }
}

#[test]
fn a_position_before_the_first_file_cuts_every_transaction_and_one_after_the_last_cuts_none() {
    let dir = tempfile::tempdir().unwrap();
    {
        let log = BinLog::open(common::opts(dir.path(), Checksum::Crc32)).unwrap();
        trx(&log, "INSERT INTO t VALUES (1)");
        log.rotate().unwrap();
        log.purge_to("binlog.000002").unwrap();
        trx(&log, "INSERT INTO t VALUES (2)");
    }
    // The engine's last logged commit was in the purged file.
    BinLog::open_after(common::opts(dir.path(), Checksum::Crc32), Some((1, 500))).unwrap();
    if let Some(text) = decoded(dir.path(), &["binlog.000002"]) {
        assert!(!text.contains("VALUES (2)"), "{text}");
    }
    let before = std::fs::read(dir.path().join("binlog.000003")).unwrap();
    {
        let log = BinLog::open_after(common::opts(dir.path(), Checksum::Crc32), Some((9, 500))).unwrap();
        trx(&log, "INSERT INTO t VALUES (3)");
    }
    // The engine is ahead of the log (files lost): nothing can be cut.
    BinLog::open_after(common::opts(dir.path(), Checksum::Crc32), Some((9, 500))).unwrap();
    assert!(std::fs::read(dir.path().join("binlog.000004")).unwrap().len() > before.len());
}

#[test]
fn engine_commits_run_in_log_order() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(BinLog::open(common::opts(dir.path(), Checksum::Crc32)).unwrap());
    let seen: Arc<Mutex<Vec<u64>>> = Arc::default();
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let (log, seen) = (log.clone(), seen.clone());
            std::thread::spawn(move || {
                for j in 0..40 {
                    let b = body(&log, &format!("INSERT INTO t VALUES ({i}, {j})"));
                    log.commit_ordered(b, |pos| seen.lock().unwrap().push(pos.end)).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 320);
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "engine commits ran out of log order");
}
