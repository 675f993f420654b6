//! A crash can leave the last file torn: reopening the log cuts it after
//! the last whole transaction, clears its IN_USE flag, starts a new file,
//! and `mariadb-binlog` reads the cut file to its end without an error.

use quire_binlog::event::{Checksum, FLAGS_OFFSET, FLAG_IN_USE, MAGIC};
use quire_binlog::{BinLog, Events, Options, QueryEvent};

fn opts(dir: &std::path::Path, checksum: Checksum) -> Options {
    Options {
        dir: dir.to_path_buf(),
        basename: "binlog".into(),
        index: dir.join("binlog.index"),
        server_id: 1,
        checksum,
        sync_binlog: 1,
        max_size: 1 << 30,
        expire_secs: 0,
    }
}

fn trx(log: &BinLog, sql: &str) {
    let f = log.frame();
    let mut ev = Events::default();
    ev.query(&f, &QueryEvent { thread_id: 1, db: "d", sql: "BEGIN", flags2: 0, sql_mode: 0, charset: [45; 3] });
    ev.query(&f, &QueryEvent { thread_id: 1, db: "d", sql, flags2: 0, sql_mode: 0, charset: [45; 3] });
    ev.xid(&f, 7);
    log.commit(ev).unwrap();
}

#[test]
fn torn_tail_is_cut_after_the_last_whole_transaction() {
    for checksum in [Checksum::Crc32, Checksum::None] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("binlog.000001");
        let whole;
        {
            let log = BinLog::open(opts(dir.path(), checksum)).unwrap();
            trx(&log, "INSERT INTO t VALUES (1)");
            whole = std::fs::metadata(&path).unwrap().len();
            trx(&log, "INSERT INTO t VALUES (2)");
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
                    trx(&log, &format!("INSERT INTO t VALUES ({i}, {j})"));
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
