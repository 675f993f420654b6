//! A log written with `gtid_mode=ON`: GTID events numbered 1, 2, 3 ... in
//! log order (also from concurrent committers), each file's
//! PREVIOUS_GTIDS the set of everything before it across rotations,
//! restarts and purges, `gtid_executed` / `gtid_purged` recovered from
//! the files at open, GTID dumps that skip what the replica holds, and
//! `mariadb-binlog` still decoding the files.

mod common;

use std::sync::Arc;

use quire_binlog::event::{gtid_of, kind, Checksum, HEADER_LEN};
use quire_binlog::gtid_files::{read_previous, scan};
use quire_binlog::{BinLog, DumpEnd, DumpOut, DumpRequest, Gtid, GtidMode, GtidNext, GtidSet, Options, Uuid};

const UUID: Uuid = Uuid([0x11; 16]);

fn on(dir: &std::path::Path) -> Options {
    Options { gtid_mode: GtidMode::On, ..common::opts(dir, Checksum::Crc32) }
}

fn set(s: &str) -> GtidSet {
    GtidSet::parse(s).unwrap()
}

fn own(range: &str) -> String {
    format!("{UUID}:{range}")
}

/// The GTID events' numbers of a file, in order, and its anonymous count.
fn numbers(path: &std::path::Path) -> (Vec<u64>, usize) {
    let bytes = std::fs::read(path).unwrap();
    let (mut gnos, mut anon) = (vec![], 0);
    let mut pos = 4;
    while pos + HEADER_LEN <= bytes.len() {
        let len = u32::from_le_bytes(bytes[pos + 9..pos + 13].try_into().unwrap()) as usize;
        match bytes[pos + 4] {
            kind::GTID => gnos.push(gtid_of(&bytes[pos + HEADER_LEN..pos + len]).unwrap().gno),
            kind::ANONYMOUS_GTID => anon += 1,
            _ => {}
        }
        pos += len;
    }
    (gnos, anon)
}

#[test]
fn gtids_are_consecutive_in_log_order_under_concurrent_commits() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(BinLog::open(Options { max_size: 4096, ..on(dir.path()) }).unwrap());
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let log = log.clone();
            std::thread::spawn(move || {
                for i in 0..25 {
                    common::trx(&log, &format!("INSERT INTO t VALUES ({t}, {i})"));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(log.gtid_executed(), set(&own("1-100")));
    log.close();
    let mut all = vec![];
    let mut before = GtidSet::new();
    let files = log.file_names();
    assert!(files.len() > 3, "the log rotated: {files:?}");
    for f in &files {
        let path = dir.path().join(f);
        // Each file's PREVIOUS_GTIDS is everything logged before it.
        assert_eq!(read_previous(&path).unwrap(), before, "{f}");
        let (gnos, anon) = numbers(&path);
        assert_eq!(anon, 0);
        for g in &gnos {
            before.add(&Gtid { uuid: UUID, gno: *g });
        }
        all.extend(gnos);
    }
    assert_eq!(all, (1..=100).collect::<Vec<_>>(), "numbered in log order");
}

#[test]
fn executed_and_purged_survive_restarts_rotations_and_purges() {
    let dir = tempfile::tempdir().unwrap();
    {
        let log = BinLog::open(on(dir.path())).unwrap();
        for i in 0..3 {
            common::trx(&log, &format!("INSERT {i}"));
        }
        log.rotate().unwrap();
        common::trx(&log, "INSERT 3");
        // A given GTID of another server, and an anonymous transaction.
        let g = Gtid::parse("22222222-2222-2222-2222-222222222222:7").unwrap();
        log.commit_ordered_as(common::body(&log, "X"), GtidNext::Given(g), |_| ()).unwrap();
        assert!(log.commit_ordered_as(common::body(&log, "X"), GtidNext::Given(g), |_| ()).is_err());
        log.commit_ordered_as(common::body(&log, "A"), GtidNext::Anonymous, |_| ()).unwrap();
        log.close();
    }
    let other = "22222222-2222-2222-2222-222222222222:7";
    let want = format!("{},\n{other}", own("1-4"));
    // A restart after a clean close; then one after a "crash" (no close).
    for _ in 0..2 {
        let log = BinLog::open(on(dir.path())).unwrap();
        assert_eq!(log.gtid_executed().to_string(), want);
        assert_eq!(log.gtid_purged(), GtidSet::new());
        let last = log.file_names().last().unwrap().clone();
        assert_eq!(read_previous(&dir.path().join(&last)).unwrap().to_string(), want);
    }
    let log = BinLog::open(on(dir.path())).unwrap();
    common::trx(&log, "INSERT 5");
    let files = log.file_names();
    log.purge_to(&files[1]).unwrap();
    assert_eq!(log.gtid_purged(), set(&own("1-3")));
    drop(log);
    let log = BinLog::open(on(dir.path())).unwrap();
    assert_eq!(log.gtid_purged(), set(&own("1-3")));
    assert_eq!(log.gtid_executed().to_string(), format!("{},\n{other}", own("1-5")));
    let (gnos, _) = numbers(&dir.path().join(&files[1]));
    assert_eq!(gnos, vec![4, 7]);
    assert_eq!(scan(&dir.path().join(&files[1])).unwrap().previous, set(&own("1-3")));
}

#[test]
fn gtid_purged_is_set_only_on_an_empty_log_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    {
        let log = BinLog::open(on(dir.path())).unwrap();
        let p = set("33333333-3333-3333-3333-333333333333:1-10");
        log.add_gtid_purged(&p, true).unwrap();
        assert_eq!(log.gtid_purged(), p);
        // Not empty any more: the plain form is refused, `+` must not overlap.
        assert!(matches!(log.add_gtid_purged(&set("33333333-3333-3333-3333-333333333333:11"), true), Err(None)));
        assert!(matches!(log.add_gtid_purged(&set("33333333-3333-3333-3333-333333333333:5"), false), Err(None)));
        log.add_gtid_purged(&set("33333333-3333-3333-3333-333333333333:11"), false).unwrap();
        common::trx(&log, "INSERT 1");
    }
    let log = BinLog::open(on(dir.path())).unwrap();
    assert_eq!(log.gtid_purged().to_string(), "33333333-3333-3333-3333-333333333333:1-11");
    assert_eq!(log.gtid_executed().to_string(), format!("{},\n33333333-3333-3333-3333-333333333333:1-11", own("1")));
}

#[test]
fn mode_off_permissive_writes_anonymous_and_on_permissive_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let log = BinLog::open(Options { gtid_mode: GtidMode::OffPermissive, ..common::opts(dir.path(), Checksum::Crc32) })
        .unwrap();
    common::trx(&log, "A");
    log.set_gtid_mode(GtidMode::OnPermissive);
    common::trx(&log, "B");
    log.close();
    let (gnos, anon) = numbers(&dir.path().join(&log.file_names()[0]));
    assert_eq!((gnos, anon), (vec![1], 1));
}

/// Collects the event types a dump sends.
struct Collect(Vec<Vec<u8>>);

impl DumpOut for Collect {
    fn event(&mut self, ev: &[u8]) -> std::io::Result<()> {
        self.0.push(ev.to_vec());
        Ok(())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
    fn stopped(&mut self) -> bool {
        false
    }
}

fn gtid_dump(log: &BinLog, replica: &str) -> Result<Vec<u64>, String> {
    let req = DumpRequest {
        file: String::new(),
        pos: 4,
        non_block: true,
        heartbeat: None,
        replica_checksum: Some(Checksum::Crc32),
        gtids: Some(set(replica)),
    };
    let mut out = Collect(vec![]);
    match quire_binlog::dump::dump(log, &req, &mut out) {
        DumpEnd::CaughtUp => {}
        DumpEnd::Fatal(m) => return Err(m),
        e => panic!("{e:?}"),
    }
    // Every transaction sent is whole: GTID, BEGIN, QUERY, XID.
    let types: Vec<u8> = out.0.iter().map(|e| e[4]).collect();
    let mut gnos = vec![];
    for (i, e) in out.0.iter().enumerate() {
        if e[4] == kind::GTID {
            assert_eq!(types[i + 1..i + 4], [kind::QUERY, kind::QUERY, kind::XID]);
            gnos.push(gtid_of(&e[HEADER_LEN..]).unwrap().gno);
        }
    }
    Ok(gnos)
}

#[test]
fn gtid_dump_starts_at_the_right_file_and_skips_what_the_replica_has() {
    let dir = tempfile::tempdir().unwrap();
    let log = BinLog::open(on(dir.path())).unwrap();
    for i in 0..3 {
        common::trx(&log, &format!("INSERT {i}"));
    }
    log.rotate().unwrap();
    for i in 3..6 {
        let p = common::trx(&log, &format!("INSERT {i}"));
        log.mark_durable(p.file_number(), p.end);
    }
    // Everything wanted; a replica with 1-3 starts at the second file;
    // one with holes gets just the holes.
    assert_eq!(gtid_dump(&log, "").unwrap(), vec![1, 2, 3, 4, 5, 6]);
    assert_eq!(gtid_dump(&log, &own("1-3")).unwrap(), vec![4, 5, 6]);
    assert_eq!(gtid_dump(&log, &own("1-2:5")).unwrap(), vec![3, 4, 6]);
    assert_eq!(gtid_dump(&log, &own("1-6")).unwrap(), Vec::<u64>::new());
    // Purged GTIDs the replica lacks: MySQL's 1236 text.
    let files = log.file_names();
    log.purge_to(&files[1]).unwrap();
    let e = gtid_dump(&log, &own("1-2")).unwrap_err();
    assert!(e.contains("the source purged required binary logs") && e.contains(&format!("'{}'", own("3"))), "{e}");
    assert_eq!(gtid_dump(&log, &own("1-3")).unwrap(), vec![4, 5, 6]);
    // A replica ahead of this server with its UUID.
    let e = gtid_dump(&log, &own("1-9")).unwrap_err();
    assert!(e.contains("more GTIDs than the master"), "{e}");
}

#[test]
fn mariadb_binlog_decodes_a_gtid_log() {
    if std::process::Command::new("mariadb-binlog").arg("--version").output().is_err() {
        eprintln!("mariadb-binlog is not installed: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    {
        let log = BinLog::open(on(dir.path())).unwrap();
        common::trx(&log, "INSERT 1");
        log.rotate().unwrap();
        common::trx(&log, "INSERT 2");
        log.close();
    }
    let log = BinLog::open(on(dir.path())).unwrap();
    common::trx(&log, "INSERT 3");
    log.close();
    let files: Vec<_> = log.file_names().iter().map(|f| dir.path().join(f)).collect();
    let out = std::process::Command::new("mariadb-binlog").args(&files).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for i in 1..=3 {
        assert!(text.contains(&format!("INSERT {i}")), "{text}");
    }
    assert!(text.contains("Ignorable event type 33"), "GTID events are skipped as ignorable");
    assert!(text.contains("Ignorable event type 35"), "PREVIOUS_GTIDS too");
}

/// A restart that cuts the log back into an older file (the engine's last
/// commit is there; a rotation made newer files whose PREVIOUS_GTIDS name
/// the transactions cut) leaves the cut GTIDs out of `gtid_executed` (not
/// in `gtid_purged` either) and numbers the next transaction after what
/// the engine holds.
#[test]
fn gtids_cut_from_an_older_file_at_restart_are_not_executed() {
    let dir = tempfile::tempdir().unwrap();
    let opts = || Options { max_size: 4096, ..on(dir.path()) };
    let engine;
    let keep;
    {
        let log = BinLog::open(opts()).unwrap();
        let mut ends = vec![];
        while log.file_names().len() < 3 {
            ends.push(common::trx(&log, "INSERT INTO t VALUES (1)"));
        }
        let first = ends[0].file_number();
        let in_first = ends.iter().filter(|p| p.file_number() == first).count();
        assert!(in_first > 3, "the first file holds several transactions ({in_first})");
        keep = in_first - 3;
        engine = ends[keep - 1].clone();
        // No close: a crash, with the engine three transactions before
        // the end of the first file.
    }
    let log = BinLog::open_after(opts(), Some((engine.file_number(), engine.end))).unwrap();
    assert_eq!(log.gtid_executed(), set(&own(&format!("1-{keep}"))));
    assert_eq!(log.gtid_purged(), GtidSet::new());
    common::trx(&log, "INSERT INTO t VALUES (2)");
    assert_eq!(log.gtid_executed(), set(&own(&format!("1-{}", keep + 1))), "the first cut number is given again");
}

/// A crash during a rotation, before the old file's last transactions
/// are written, leaves the next files on disk holding only their
/// headers, whose PREVIOUS_GTIDS already name those transactions. The
/// index does not name them yet (the rotation names a file only once
/// the file before it is written), so the next start removes them
/// (several, when rotations followed each other) and `gtid_executed` is
/// what the indexed files hold.
#[test]
fn next_files_left_unindexed_by_a_crash_mid_rotation_are_removed_with_their_gtids() {
    let ahead = tempfile::tempdir().unwrap();
    {
        // A header naming GTIDs 1-5, as a rotation writes it.
        let log = BinLog::open(on(ahead.path())).unwrap();
        for _ in 0..5 {
            common::trx(&log, "INSERT INTO t VALUES (1)");
        }
        log.rotate().unwrap();
    }
    let header_only = ahead.path().join("binlog.000002");
    assert_eq!(read_previous(&header_only).unwrap(), set(&own("1-5")));
    let dir = tempfile::tempdir().unwrap();
    {
        let log = BinLog::open(on(dir.path())).unwrap();
        for _ in 0..3 {
            common::trx(&log, "INSERT INTO t VALUES (1)");
        }
        // No close: the crash. GTIDs 4 and 5 were lost with the tail.
    }
    for no in [2, 3] {
        std::fs::copy(&header_only, dir.path().join(format!("binlog.{no:06}"))).unwrap();
    }
    let log = BinLog::open(on(dir.path())).unwrap();
    assert_eq!(log.file_names(), ["binlog.000001", "binlog.000002"]);
    assert_eq!(log.gtid_executed(), set(&own("1-3")));
    assert_eq!(read_previous(&dir.path().join("binlog.000002")).unwrap(), set(&own("1-3")));
    common::trx(&log, "INSERT INTO t VALUES (2)");
    assert_eq!(log.gtid_executed(), set(&own("1-4")));
    log.rotate().unwrap();
    assert_eq!(log.file_names().last().unwrap(), "binlog.000003");
}

/// Rotations under concurrent committers: once the writes are done the
/// index names every file, and each file's PREVIOUS_GTIDS is exactly
/// what the files before it hold.
#[test]
fn every_file_is_indexed_and_continues_the_gtids_of_the_one_before() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(BinLog::open(Options { max_size: 2048, ..on(dir.path()) }).unwrap());
    let index = || std::fs::read_to_string(dir.path().join("binlog.index")).unwrap().lines().count();
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let log = log.clone();
            std::thread::spawn(move || {
                for _ in 0..100 {
                    common::trx(&log, "INSERT INTO t VALUES (1)");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert!(log.file_names().len() > 3);
    assert_eq!(index(), log.file_names().len(), "every file is indexed once its predecessor is written");
    for pair in log.file_names().windows(2) {
        let (prev, next) =
            (scan(&dir.path().join(&pair[0])).unwrap(), read_previous(&dir.path().join(&pair[1])).unwrap());
        let mut upto = prev.previous.clone();
        upto.union(&prev.logged);
        assert_eq!(upto, next, "{} continues {}", pair[1], pair[0]);
    }
}
