//! `binlog_group_commit_sync_delay` and `_no_delay_count`: a group's
//! leader waits before it writes, so that commits arriving meanwhile join
//! its group and share its logical clock's `last_committed` (what lets a
//! replica apply them in parallel); the count ends the wait early.

mod common;

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use quire_binlog::event::{clock_of, kind, Checksum, LogicalClock, HEADER_LEN};
use quire_binlog::BinLog;

/// The logical clocks of a file's transactions, in order.
fn clocks(path: &std::path::Path) -> Vec<LogicalClock> {
    let bytes = std::fs::read(path).unwrap();
    let mut out = vec![];
    let mut pos = 4;
    while pos + HEADER_LEN <= bytes.len() {
        let len = u32::from_le_bytes(bytes[pos + 9..pos + 13].try_into().unwrap()) as usize;
        if matches!(bytes[pos + 4], kind::GTID | kind::ANONYMOUS_GTID) {
            out.push(clock_of(&bytes[pos + HEADER_LEN..pos + len]).expect("a logical clock"));
        }
        pos += len;
    }
    out
}

#[test]
fn commits_gathered_by_the_delay_share_a_group_and_the_count_ends_the_wait() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(BinLog::open(common::opts(dir.path(), Checksum::Crc32)).unwrap());
    // One transaction alone first: its own group.
    common::trx(&log, "INSERT INTO t VALUES (0)");
    // A delay far longer than the test, ended by the third commit.
    log.sync_delay_us.store(30_000_000, Ordering::Relaxed);
    log.sync_no_delay_count.store(3, Ordering::Relaxed);
    let started = Instant::now();
    let threads: Vec<_> = (1..=3)
        .map(|i| {
            let log = log.clone();
            std::thread::spawn(move || common::trx(&log, &format!("INSERT INTO t VALUES ({i})")))
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert!(started.elapsed() < Duration::from_secs(15), "the count ended the 30 s wait");
    log.sync_delay_us.store(0, Ordering::Relaxed);
    common::trx(&log, "INSERT INTO t VALUES (4)");
    let file = dir.path().join(log.file_names().last().unwrap());
    let c = clocks(&file);
    assert_eq!(c.iter().map(|c| c.sequence_number).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
    // The three gathered commits depend only on the first transaction;
    // the last depends on all of them.
    assert_eq!(c.iter().map(|c| c.last_committed).collect::<Vec<_>>(), [0, 1, 1, 1, 4]);
}

/// With the delay, a committer that comes while the group is being
/// written leaves its transaction to the one waiting to lead the next
/// group; that one's own transaction may already be in the group being
/// written (it came during the leader's delay), and it must still write
/// what came after it. Here: A's large transaction leads and waits out
/// the delay, B joins A's group and waits to lead the next, C comes
/// while A's group is being written (the file grows) and no commit comes
/// after C: C must still be written and return.
#[test]
fn a_commit_arriving_while_a_delayed_group_is_written_is_written_without_a_later_commit() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(BinLog::open(common::opts(dir.path(), Checksum::Crc32)).unwrap());
    common::trx(&log, "INSERT INTO t VALUES (0)");
    let file = dir.path().join(log.file_names().last().unwrap());
    let before = std::fs::metadata(&file).unwrap().len();
    log.sync_delay_us.store(400_000, Ordering::Relaxed);
    let big = format!("INSERT INTO t VALUES ('{}')", "x".repeat(48 << 20));
    let a = {
        let log = log.clone();
        std::thread::spawn(move || common::trx(&log, &big))
    };
    std::thread::sleep(Duration::from_millis(150));
    let b = {
        let log = log.clone();
        std::thread::spawn(move || common::trx(&log, "INSERT INTO t VALUES (1)"))
    };
    // A's group is being written once the file grows.
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::metadata(&file).unwrap().len() < before + (1 << 20) {
        assert!(Instant::now() < deadline, "A's group was never written");
        std::thread::sleep(Duration::from_micros(200));
    }
    let (tx, rx) = std::sync::mpsc::channel();
    {
        let log = log.clone();
        std::thread::spawn(move || tx.send(common::trx(&log, "INSERT INTO t VALUES (2)")).unwrap());
    }
    let c = rx.recv_timeout(Duration::from_secs(30)).expect("C's commit was never written");
    let (a, b) = (a.join().unwrap(), b.join().unwrap());
    assert!(a.end < c.end && b.end < c.end, "{a:?} {b:?} {c:?}");
}
