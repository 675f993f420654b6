//! A dump's view of the log (`dump.rs`): what it sends from a position,
//! how it follows rotations, and that it stops at the durable end even
//! when the log holds more.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::time::Duration;

use common::{body, opts, trx};
use quire_binlog::event::{kind, Checksum, FLAGS_OFFSET};
use quire_binlog::{BinLog, DumpEnd, DumpOut, DumpRequest};

/// Collects the events; never stopped.
#[derive(Default)]
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

fn req(file: &str, pos: u64, checksum: Option<Checksum>) -> DumpRequest {
    DumpRequest { file: file.into(), pos, non_block: true, heartbeat: None, replica_checksum: checksum, gtids: None }
}

fn dump(log: &BinLog, r: &DumpRequest) -> (Vec<Vec<u8>>, DumpEnd) {
    let mut out = Collect::default();
    let end = quire_binlog::dump::dump(log, r, &mut out);
    (out.0, end)
}

fn types(evs: &[Vec<u8>]) -> Vec<u8> {
    evs.iter().map(|e| e[4]).collect()
}

fn log_pos(ev: &[u8]) -> u32 {
    u32::from_le_bytes([ev[13], ev[14], ev[15], ev[16]])
}

fn text(evs: &[Vec<u8>]) -> String {
    evs.iter().map(|e| String::from_utf8_lossy(e).into_owned()).collect()
}

#[test]
fn only_transactions_up_to_the_durable_end_are_sent_and_rotations_are_followed() {
    let dir = tempfile::tempdir().unwrap();
    let log = BinLog::open(opts(dir.path(), Checksum::Crc32)).unwrap();
    let a = trx(&log, "INSERT a");
    let b = trx(&log, "INSERT b");
    // Nothing durable yet: only the file's header goes.
    let (evs, end) = dump(&log, &req("", 4, Some(Checksum::Crc32)));
    assert!(matches!(end, DumpEnd::CaughtUp), "{end:?}");
    assert_eq!(types(&evs), [kind::ROTATE, kind::FORMAT_DESCRIPTION, kind::PREVIOUS_GTIDS]);
    // The fake ROTATE: timestamp 0, log_pos 0, ARTIFICIAL, the file name.
    assert_eq!(&evs[0][..4], &[0, 0, 0, 0]);
    assert_eq!(log_pos(&evs[0]), 0);
    assert_eq!(u16::from_le_bytes([evs[0][FLAGS_OFFSET], evs[0][FLAGS_OFFSET + 1]]), 0x20);
    assert!(text(&evs[..1]).contains("binlog.000001"));
    // The FDE is sent with IN_USE cleared although the file is open.
    assert_eq!(evs[1][FLAGS_OFFSET] & 1, 0);

    log.mark_durable(a.file_number(), a.end);
    let (evs, _) = dump(&log, &req("binlog.000001", 4, Some(Checksum::Crc32)));
    let t = text(&evs);
    assert!(t.contains("INSERT a") && !t.contains("INSERT b"), "sent past the durable end");
    assert_eq!(log_pos(evs.last().unwrap()), a.end as u32);

    // From a's end: the FDE's log_pos is zeroed (it skips part of the file).
    log.mark_durable(b.file_number(), b.end);
    let (evs, _) = dump(&log, &req("binlog.000001", a.end, Some(Checksum::Crc32)));
    assert_eq!(log_pos(&evs[1]), 0);
    let t = text(&evs);
    assert!(t.contains("INSERT b") && !t.contains("INSERT a"));

    // A rotation with nothing after it: its ROTATE goes, then the next
    // file's header; a transaction there waits for its durable report.
    log.rotate().unwrap();
    let c = trx(&log, "INSERT c");
    let (evs, _) = dump(&log, &req("binlog.000001", b.end, Some(Checksum::Crc32)));
    assert_eq!(
        types(&evs),
        [
            kind::ROTATE,
            kind::FORMAT_DESCRIPTION,
            kind::ROTATE,
            kind::ROTATE,
            kind::FORMAT_DESCRIPTION,
            kind::PREVIOUS_GTIDS
        ]
    );
    assert!(!text(&evs).contains("INSERT c"));
    log.mark_durable(c.file_number(), c.end);
    let (evs, _) = dump(&log, &req("binlog.000001", b.end, Some(Checksum::Crc32)));
    assert!(text(&evs).contains("INSERT c"));
}

#[test]
fn mysqls_fatal_errors_for_bad_requests() {
    let dir = tempfile::tempdir().unwrap();
    let log = BinLog::open(opts(dir.path(), Checksum::Crc32)).unwrap();
    let p = trx(&log, "INSERT a");
    log.mark_durable(p.file_number(), p.end);
    let fatal = |r: &DumpRequest| match dump(&log, r).1 {
        DumpEnd::Fatal(m) => m,
        e => panic!("not fatal: {e:?}"),
    };
    assert_eq!(
        fatal(&req("binlog.000009", 4, Some(Checksum::Crc32))),
        "Could not find first log file name in binary log index file"
    );
    assert!(fatal(&req("binlog.000001", 3, Some(Checksum::Crc32))).contains("position < 4"));
    assert!(fatal(&req("binlog.000001", 1 << 20, Some(Checksum::Crc32))).contains("position > file size"));
    // A replica that does not know checksums, of a CRC32 log.
    let m = fatal(&req("binlog.000001", 4, None));
    assert!(m.starts_with("Slave can not handle replication events with the checksum"), "{m}");
    assert!(m.contains("the first event 'binlog.000001' at 4"), "{m}");
    // A position inside an event: bytes that do not frame events.
    let m = fatal(&req("binlog.000001", p.end - 7, Some(Checksum::Crc32)));
    assert!(m.starts_with("bogus data in log event"), "{m}");
}

#[test]
fn a_log_without_checksums_is_sent_to_a_replica_that_knows_none() {
    let dir = tempfile::tempdir().unwrap();
    let log = BinLog::open(opts(dir.path(), Checksum::None)).unwrap();
    let p = trx(&log, "INSERT n");
    log.mark_durable(p.file_number(), p.end);
    let (evs, end) = dump(&log, &req("", 4, None));
    assert!(matches!(end, DumpEnd::CaughtUp));
    assert!(text(&evs).contains("INSERT n"));
    // The fake ROTATE carries no checksum: header, position, name.
    assert_eq!(evs[0].len(), 19 + 8 + "binlog.000001".len());
}

/// Hands each event to the test as it is sent; stopped when told.
struct Stream {
    tx: Sender<Vec<u8>>,
    stop: Arc<AtomicBool>,
}

impl DumpOut for Stream {
    fn event(&mut self, ev: &[u8]) -> std::io::Result<()> {
        let _ = self.tx.send(ev.to_vec());
        Ok(())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
    fn stopped(&mut self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }
}

/// The types of the next `n` events, each within a few seconds.
fn next_types(rx: &Receiver<Vec<u8>>, n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| rx.recv_timeout(Duration::from_secs(5)).unwrap_or_else(|_| panic!("event {i} of {n} not sent"))[4])
        .collect()
}

#[test]
fn a_blocking_dump_follows_a_rotation_by_the_last_transaction_and_by_flush() {
    let dir = tempfile::tempdir().unwrap();
    let log =
        Arc::new(BinLog::open(quire_binlog::Options { max_size: 1024, ..opts(dir.path(), Checksum::Crc32) }).unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = channel();
    let t = {
        let (log, stop) = (log.clone(), stop.clone());
        std::thread::spawn(move || {
            let r = DumpRequest { non_block: false, ..req("", 4, Some(Checksum::Crc32)) };
            quire_binlog::dump::dump(&log, &r, &mut Stream { tx, stop })
        })
    };
    assert_eq!(next_types(&rx, 3), [kind::ROTATE, kind::FORMAT_DESCRIPTION, kind::PREVIOUS_GTIDS]);
    // The dump has caught up; the last transaction before the log goes
    // quiet passes max_size and rotates it. Its ROTATE, then the next
    // file's fake ROTATE and header, follow it with nothing after them.
    let p = log.commit(body(&log, &"x".repeat(2000))).unwrap();
    assert_eq!(log.status().file, "binlog.000002", "the transaction rotated the log");
    log.mark_durable(p.file_number(), p.end);
    assert_eq!(next_types(&rx, 4), [kind::ANONYMOUS_GTID, kind::QUERY, kind::QUERY, kind::XID]);
    let rotation = [kind::ROTATE, kind::ROTATE, kind::FORMAT_DESCRIPTION, kind::PREVIOUS_GTIDS];
    assert_eq!(next_types(&rx, 4), rotation);
    // FLUSH BINARY LOGS: no durable report, only the writer's wake-up.
    log.rotate().unwrap();
    assert_eq!(next_types(&rx, 4), rotation);
    stop.store(true, Ordering::SeqCst);
    assert!(matches!(t.join().unwrap(), DumpEnd::Stopped));
}
