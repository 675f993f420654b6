//! A crash can leave the last file torn: reopening the log cuts it after
//! the last whole transaction, clears its IN_USE flag, starts a new file,
//! and `mariadb-binlog` reads the cut file to its end without an error.

mod common;

use common::opts;
use quire_binlog::event::{Checksum, FLAGS_OFFSET, FLAG_IN_USE, MAGIC};
use quire_binlog::BinLog;

#[test]
fn torn_tail_is_cut_after_the_last_whole_transaction() {
    for checksum in [Checksum::Crc32, Checksum::None] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("binlog.000001");
        let whole;
        {
            let log = BinLog::open(opts(dir.path(), checksum)).unwrap();
            common::trx(&log, "INSERT INTO t VALUES (1)");
            whole = std::fs::metadata(&path).unwrap().len();
            common::trx(&log, "INSERT INTO t VALUES (2)");
            // No close: the process "dies" here.
        }
        let full = std::fs::read(&path).unwrap();
        assert_ne!(u16::from_le_bytes([full[4 + FLAGS_OFFSET], full[5 + FLAGS_OFFSET]]) & FLAG_IN_USE, 0);
        for cut in [full.len() as u64 - 1, whole + 30, whole + 1] {
            std::fs::write(&path, &full[..cut as usize]).unwrap();
            assert_eq!(quire_binlog::recover::last_whole_end(&std::fs::read(&path).unwrap()), Some(whole));
        }
        let log = BinLog::open(opts(dir.path(), checksum)).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len() as u64, whole, "cut after the first transaction");
        assert_eq!(bytes[..4], MAGIC);
        assert_eq!(u16::from_le_bytes([bytes[4 + FLAGS_OFFSET], bytes[5 + FLAGS_OFFSET]]) & FLAG_IN_USE, 0);
        let names: Vec<String> = log.files().into_iter().map(|f| f.name).collect();
        assert_eq!(names, ["binlog.000001", "binlog.000002"]);
        if let Ok(out) = std::process::Command::new("mariadb-binlog").arg(&path).output() {
            assert!(out.status.success() && out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.contains("VALUES (1)") && !text.contains("VALUES (2)"));
        }
    }
}

#[test]
fn group_commit_carries_concurrent_committers() {
    let dir = tempfile::tempdir().unwrap();
    let log = std::sync::Arc::new(BinLog::open(opts(dir.path(), Checksum::Crc32)).unwrap());
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let log = log.clone();
            std::thread::spawn(move || {
                for j in 0..50 {
                    common::trx(&log, &format!("INSERT INTO t VALUES ({i}, {j})"));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let commits = log.commits.load(std::sync::atomic::Ordering::Relaxed);
    let groups = log.groups.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(commits, 400);
    assert!(groups <= commits);
    log.close();
    let bytes = std::fs::read(dir.path().join("binlog.000001")).unwrap();
    // Every transaction is whole and in place: the walk reaches the end.
    assert_eq!(quire_binlog::recover::last_whole_end(&bytes), Some(bytes.len() as u64));
    if let Ok(out) = std::process::Command::new("mariadb-binlog").arg(dir.path().join("binlog.000001")).output() {
        assert!(out.status.success() && out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout).matches("INSERT INTO t VALUES").count(), 400);
    }
}

/// A crash between creating the next file and naming it in the index
/// (at rotation or at a start) leaves that file on disk, unlisted, with
/// at most its header. Reopening removes it and creates it anew; a file
/// of that name holding more than a header is refused, not deleted.
#[test]
fn a_file_created_but_never_indexed_does_not_stop_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    {
        let log = BinLog::open(opts(dir.path(), Checksum::Crc32)).unwrap();
        common::trx(&log, "INSERT INTO t VALUES (1)");
    }
    let header_only = {
        // What a fresh file holds: the header of an opened, empty log.
        let scratch = tempfile::tempdir().unwrap();
        drop(BinLog::open(opts(scratch.path(), Checksum::Crc32)).unwrap());
        std::fs::read(scratch.path().join("binlog.000001")).unwrap()
    };
    for orphan in [Vec::new(), header_only[..header_only.len() / 2].to_vec(), header_only.clone()] {
        let names: Vec<String> = std::fs::read_to_string(dir.path().join("binlog.index"))
            .unwrap()
            .lines()
            .map(|l| l.trim_start_matches("./").to_string())
            .collect();
        let next = format!("binlog.{:06}", names.len() + 1);
        std::fs::write(dir.path().join(&next), &orphan).unwrap();
        let log = BinLog::open(opts(dir.path(), Checksum::Crc32)).unwrap();
        assert_eq!(log.files().last().unwrap().name, next);
        common::trx(&log, "INSERT INTO t VALUES (2)");
    }
    let names = std::fs::read_to_string(dir.path().join("binlog.index")).unwrap();
    let next = format!("binlog.{:06}", names.lines().count() + 1);
    let mut foreign = header_only.clone();
    foreign.extend_from_slice(&[0u8; 64]);
    std::fs::write(dir.path().join(&next), &foreign).unwrap();
    let err = BinLog::open(opts(dir.path(), Checksum::Crc32)).err().expect("a foreign file is refused");
    assert!(err.0.contains("not in the index"), "{}", err.0);
    assert_eq!(std::fs::read(dir.path().join(&next)).unwrap(), foreign, "left as it was");
}
