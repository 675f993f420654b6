//! The dump thread's side of the log (COM_BINLOG_DUMP, MySQL's
//! `Binlog_sender`): from a file and position, the events of the log in
//! order, following rotations into later files, then waiting for new
//! transactions, with heartbeats while idle.
//!
//! What is sent, as MySQL 8.0 sends it (sql/rpl_binlog_sender.cc):
//! before each file, a fake ROTATE (timestamp 0, `log_pos` 0, ARTIFICIAL
//! flag; the file's name and the start position); then the file's
//! FORMAT_DESCRIPTION with IN_USE cleared (and, when the start position
//! skips part of the file, `log_pos` and `created` zeroed so that the
//! replica does not count it); then the events from the start position
//! (from just after the FDE at position 4). A checksum-unaware replica
//! (no `@master_binlog_checksum`) of a CRC32 log gets MySQL's fatal
//! error. Heartbeats (type 27: the file name, `log_pos` the position
//! reached) are sent after `heartbeat` idle.
//!
//! COM_BINLOG_DUMP_GTID (`DumpRequest::gtids`, MySQL's auto-position):
//! the replica sends the GTIDs it holds; the dump refuses (1236) when the
//! log purged GTIDs the replica lacks, or when the replica holds GTIDs of
//! this server's UUID the log never had; else it starts at the newest
//! file whose PREVIOUS_GTIDS is a subset of the replica's set
//! (`find_first_log_not_in_gtid_set`) and skips every transaction whose
//! GTID the replica holds (its GTID event and every event up to the next
//! transaction or control event).
//!
//! Invariants (the durability rule, docs/ARCHITECTURE.md "Binary log"):
//! 1. No transaction is sent past the durable end (`follow.rs`): the end
//!    of the last transaction in the log whose engine commit is durable.
//!    Within the durable end's file the dump stops there; files before it
//!    are sent whole (they ended before a durable transaction was logged).
//! 2. Past the durable end only events that are not transactions are
//!    sent: a file's PREVIOUS_GTIDS (part of its header), and a ROTATE or
//!    a STOP once the writer has moved on to a later file (the file is
//!    complete; the file a ROTATE names is already in the index).
//! 3. Every event sent is whole: its length is checked against what may
//!    be read; bytes that do not frame an event end the dump with MySQL's
//!    "bogus data" fatal error, never a panic.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::time::{Duration, Instant};

use crate::crc::crc32;
use crate::event::gtid_of;
use crate::event::{kind, Checksum, CHECKSUM_LEN, FLAGS_OFFSET, FLAG_IN_USE, HEADER_LEN};
use crate::follow::unpack;
use crate::gtid::GtidSet;
use crate::log::{file_number, BinLog};

/// HEARTBEAT_LOG_EVENT.
pub const HEARTBEAT: u8 = 27;
/// LOG_EVENT_ARTIFICIAL_F.
const FLAG_ARTIFICIAL: u16 = 0x0020;
/// The file offset of the first event.
const FIRST_EVENT: u64 = 4;
/// Bytes read from a file at a time.
const CHUNK: u64 = 1 << 20;
/// The longest sleep without checking the connection (KILL, shutdown).
const MAX_WAIT: Duration = Duration::from_secs(1);

/// What a replica asked for.
#[derive(Clone, Debug)]
pub struct DumpRequest {
    /// The file to start from; empty: the first file of the index.
    pub file: String,
    pub pos: u64,
    /// BINLOG_DUMP_NON_BLOCK: end (EOF) once caught up instead of waiting.
    pub non_block: bool,
    /// `@master_heartbeat_period` (`None` or zero: no heartbeats).
    pub heartbeat: Option<Duration>,
    /// `@master_binlog_checksum`; `None`: the replica did not set it (it
    /// does not know checksums).
    pub replica_checksum: Option<Checksum>,
    /// COM_BINLOG_DUMP_GTID: the replica's executed GTIDs (`file` and
    /// `pos` are then not used).
    pub gtids: Option<GtidSet>,
}

/// Where the events go: the connection.
pub trait DumpOut {
    /// One event, as its packet's payload after the OK byte.
    fn event(&mut self, ev: &[u8]) -> io::Result<()>;
    /// Everything sent so far reaches the replica (before waiting).
    fn flush(&mut self) -> io::Result<()>;
    /// The connection was killed or the server is stopping.
    fn stopped(&mut self) -> bool;
}

/// How a dump ended.
#[derive(Debug)]
pub enum DumpEnd {
    /// BINLOG_DUMP_NON_BLOCK and nothing more to send: EOF.
    CaughtUp,
    /// Killed, or the log closed.
    Stopped,
    /// MySQL's ER_MASTER_FATAL_ERROR_READING_BINLOG (1236) with this text.
    Fatal(String),
    /// The connection failed.
    Io(io::Error),
}

impl From<io::Error> for DumpEnd {
    fn from(e: io::Error) -> Self {
        DumpEnd::Io(e)
    }
}

/// Sends the log to `out` as `req` asks, until an error, a kill, or (non
/// blocking) the end.
pub fn dump(log: &BinLog, req: &DumpRequest, out: &mut dyn DumpOut) -> DumpEnd {
    let files = log.file_names();
    let (name, pos) = match &req.gtids {
        Some(set) => match gtid_start(log, &files, set) {
            Ok(name) => (Some(name), FIRST_EVENT),
            Err(e) => return e,
        },
        None => {
            let wanted = req.file.rsplit('/').next().unwrap_or("");
            let name =
                if wanted.is_empty() { files.first().cloned() } else { files.iter().find(|f| *f == wanted).cloned() };
            (name, req.pos)
        }
    };
    let Some(name) = name else {
        return DumpEnd::Fatal("Could not find first log file name in binary log index file".into());
    };
    if pos < FIRST_EVENT {
        return DumpEnd::Fatal("Client requested master to start replication from position < 4".into());
    }
    let mut s = Sender {
        log,
        out,
        server_id: log.server_id.load(std::sync::atomic::Ordering::Relaxed),
        alg: req.replica_checksum.unwrap_or(Checksum::None),
        replica_aware: req.replica_checksum.is_some(),
        heartbeat: req.heartbeat.filter(|d| !d.is_zero()),
        non_block: req.non_block,
        start: (name.clone(), pos),
        last_event: 0,
        pos: 0,
        name,
        file: None,
        skip: req.gtids.clone(),
        skipping: false,
    };
    match s.run(pos) {
        DumpEnd::Fatal(m) if s.file.is_some() => DumpEnd::Fatal(format!(
            "{m}; the first event '{}' at {}, the last event read from '{}' at {}, the last byte read from '{}' at {}.",
            s.start.0, s.start.1, s.name, s.last_event, s.name, s.pos
        )),
        end => end,
    }
}

struct Sender<'a> {
    log: &'a BinLog,
    out: &'a mut dyn DumpOut,
    server_id: u32,
    /// The checksum of the events being sent: the replica's before the
    /// first FDE (for the first fake ROTATE), then the file's.
    alg: Checksum,
    replica_aware: bool,
    heartbeat: Option<Duration>,
    non_block: bool,
    start: (String, u64),
    /// The current file, its open handle, and the position reached.
    name: String,
    file: Option<File>,
    pos: u64,
    last_event: u64,
    /// COM_BINLOG_DUMP_GTID: the replica's GTIDs, whose transactions are
    /// not sent.
    skip: Option<GtidSet>,
    /// Inside a transaction the replica holds.
    skipping: bool,
}

/// Where a GTID dump starts: the newest file whose PREVIOUS_GTIDS the
/// replica holds, after MySQL's checks (module note).
fn gtid_start(log: &BinLog, files: &[String], replica: &GtidSet) -> Result<String, DumpEnd> {
    let purged = log.gtid_purged();
    let missing = purged.subtract(replica);
    if !missing.is_empty() {
        return Err(DumpEnd::Fatal(format!(
            "Cannot replicate because the source purged required binary logs. Replicate the missing transactions \
             from elsewhere, or provision a new replica from backup. Consider increasing the source's binary log \
             expiration period. The GTID set sent by the replica is '{replica}', and the missing transactions are \
             '{missing}'."
        )));
    }
    if replica.subtract(&log.gtid_executed()).has_uuid(&log.server_uuid()) {
        return Err(DumpEnd::Fatal(
            "Slave has more GTIDs than the master has, using the master's SERVER_UUID. This may indicate that \
             the end of the binary log was truncated or that the last binary log file was lost, e.g., after a \
             power or disk failure when sync_binlog != 1. The master may or may not have rolled back \
             transactions that were already replicated to the slave. Suggest to replicate any transactions that \
             master has rolled back from slave to master, and/or commit empty transactions on master to account \
             for transactions that have been committed on master but are not included in GTID_EXECUTED."
                .into(),
        ));
    }
    for name in files.iter().rev() {
        let prev = crate::gtid_files::read_previous(&log.dir().join(name)).map_err(|e| {
            tracing::warn!("binlog dump: {e}");
            DumpEnd::Fatal("I/O error reading log event".into())
        })?;
        if prev.is_subset(replica) {
            return Ok(name.clone());
        }
    }
    // No file's PREVIOUS_GTIDS is held: the first file's GTIDs before it
    // are purged ones, which the check above found held.
    files
        .first()
        .cloned()
        .ok_or_else(|| DumpEnd::Fatal("Could not find first log file name in binary log index file".into()))
}

/// What the current file's reading ended with.
enum Next {
    File(String),
}

fn bogus() -> DumpEnd {
    DumpEnd::Fatal("bogus data in log event".into())
}

fn read_err(e: io::Error) -> DumpEnd {
    tracing::warn!("binlog dump: reading failed: {e}");
    DumpEnd::Fatal("I/O error reading log event".into())
}

impl Sender<'_> {
    fn run(&mut self, mut start_pos: u64) -> DumpEnd {
        loop {
            if let Err(e) = self.fake_rotate(start_pos) {
                return e.into();
            }
            let path = self.log.dir().join(&self.name);
            let file = match File::open(&path) {
                Ok(f) => f,
                Err(_) => {
                    return DumpEnd::Fatal(format!("Could not open log file '{}'", self.name));
                }
            };
            let size = file.metadata().map_or(0, |m| m.len());
            self.file = Some(file);
            if start_pos > size {
                return DumpEnd::Fatal("Client requested master to start replication from position > file size".into());
            }
            if let Err(e) = self.send_fde(start_pos > FIRST_EVENT) {
                return e;
            }
            if start_pos > FIRST_EVENT {
                self.pos = start_pos;
            }
            match self.send_file() {
                Ok(Next::File(next)) => {
                    self.name = next;
                    start_pos = FIRST_EVENT;
                    self.pos = 0;
                }
                Err(e) => return e,
            }
        }
    }

    fn file(&self) -> &File {
        self.file.as_ref().expect("the file is open while sending it")
    }

    fn file_no(&self) -> u32 {
        file_number(&self.name)
    }

    /// Appends the checksum when the current algorithm asks for one and
    /// sends the event.
    fn send_built(&mut self, mut ev: Vec<u8>) -> io::Result<()> {
        if self.alg == Checksum::Crc32 {
            ev.extend_from_slice(&[0; CHECKSUM_LEN]);
        }
        let len = ev.len() as u32;
        ev[9..13].copy_from_slice(&len.to_le_bytes());
        if self.alg == Checksum::Crc32 {
            let n = ev.len() - CHECKSUM_LEN;
            let crc = crc32(&ev[..n]);
            ev[n..].copy_from_slice(&crc.to_le_bytes());
        }
        self.out.event(&ev)
    }

    fn header(&self, ty: u8, log_pos: u32, flags: u16) -> Vec<u8> {
        let mut ev = Vec::with_capacity(64);
        ev.extend_from_slice(&0u32.to_le_bytes());
        ev.push(ty);
        ev.extend_from_slice(&self.server_id.to_le_bytes());
        ev.extend_from_slice(&[0; 4]);
        ev.extend_from_slice(&log_pos.to_le_bytes());
        ev.extend_from_slice(&flags.to_le_bytes());
        ev
    }

    /// The fake ROTATE that names the file about to be sent.
    fn fake_rotate(&mut self, pos: u64) -> io::Result<()> {
        let mut ev = self.header(kind::ROTATE, 0, FLAG_ARTIFICIAL);
        ev.extend_from_slice(&pos.to_le_bytes());
        ev.extend_from_slice(self.name.as_bytes());
        self.send_built(ev)
    }

    /// A heartbeat at the position reached.
    fn heartbeat(&mut self) -> io::Result<()> {
        let mut ev = self.header(HEARTBEAT, self.pos as u32, 0);
        ev.extend_from_slice(self.name.as_bytes());
        self.send_built(ev)?;
        self.out.flush()
    }

    fn read_at(&self, off: u64, len: usize) -> Result<Vec<u8>, DumpEnd> {
        let mut b = vec![0u8; len];
        self.file().read_exact_at(&mut b, off).map_err(read_err)?;
        Ok(b)
    }

    /// Reads and sends the file's FORMAT_DESCRIPTION (at 4).
    fn send_fde(&mut self, clear_log_pos: bool) -> Result<(), DumpEnd> {
        let h = self.read_at(FIRST_EVENT, HEADER_LEN)?;
        let len = u32::from_le_bytes([h[9], h[10], h[11], h[12]]) as usize;
        if h[4] != kind::FORMAT_DESCRIPTION || !(HEADER_LEN + 57..=4096).contains(&len) {
            return Err(DumpEnd::Fatal("Could not find format_description_event in binlog file".into()));
        }
        let mut ev = self.read_at(FIRST_EVENT, len)?;
        self.last_event = FIRST_EVENT;
        self.pos = FIRST_EVENT + len as u64;
        // Invariant 2 of `event.rs`: the FDE always has the algorithm
        // byte and a checksum slot.
        self.alg = if ev[len - CHECKSUM_LEN - 1] == 1 { Checksum::Crc32 } else { Checksum::None };
        if !self.replica_aware && self.alg == Checksum::Crc32 {
            tracing::warn!(
                "the binary log is written with checksums, but will not be sent to a replica that cannot process them"
            );
            return Err(DumpEnd::Fatal(
                "Slave can not handle replication events with the checksum that master is configured to log".into(),
            ));
        }
        let flags = u16::from_le_bytes([ev[FLAGS_OFFSET], ev[FLAGS_OFFSET + 1]]) & !FLAG_IN_USE;
        ev[FLAGS_OFFSET..FLAGS_OFFSET + 2].copy_from_slice(&flags.to_le_bytes());
        if clear_log_pos {
            // The replica must not count it in its source position.
            ev[13..17].copy_from_slice(&[0; 4]);
            ev[HEADER_LEN + 52..HEADER_LEN + 56].copy_from_slice(&[0; 4]);
            if self.alg == Checksum::Crc32 {
                let n = len - CHECKSUM_LEN;
                let crc = crc32(&ev[..n]);
                ev[n..].copy_from_slice(&crc.to_le_bytes());
            }
        }
        self.out.event(&ev).map_err(DumpEnd::Io)
    }

    /// The file's length now.
    fn file_len(&self) -> Result<u64, DumpEnd> {
        self.file().metadata().map(|m| m.len()).map_err(read_err)
    }

    /// Sends the events of `[self.pos, limit)`, which must be whole
    /// events. Returns the next file's name if a ROTATE was sent.
    fn send_range(&mut self, limit: u64) -> Result<Option<String>, DumpEnd> {
        while self.pos < limit {
            if self.out.stopped() {
                return Err(DumpEnd::Stopped);
            }
            let want = (limit - self.pos).min(CHUNK);
            let buf = self.read_at(self.pos, want as usize)?;
            let mut at = 0usize;
            while at + HEADER_LEN <= buf.len() {
                let len = u32::from_le_bytes([buf[at + 9], buf[at + 10], buf[at + 11], buf[at + 12]]) as u64;
                if len < HEADER_LEN as u64 || self.pos + len > limit {
                    return Err(bogus());
                }
                let ev: Vec<u8> = if at as u64 + len <= buf.len() as u64 {
                    buf[at..at + len as usize].to_vec()
                } else {
                    self.read_at(self.pos, len as usize)?
                };
                if let Some(set) = &self.skip {
                    match ev[4] {
                        kind::GTID => self.skipping = gtid_of(&ev[HEADER_LEN..]).is_some_and(|g| set.contains(&g)),
                        kind::ANONYMOUS_GTID
                        | kind::ROTATE
                        | kind::STOP
                        | kind::PREVIOUS_GTIDS
                        | kind::FORMAT_DESCRIPTION => self.skipping = false,
                        _ => {}
                    }
                }
                if !self.skipping {
                    self.out.event(&ev)?;
                }
                self.last_event = self.pos;
                self.pos += len;
                at += len as usize;
                if ev[4] == kind::ROTATE {
                    return rotate_target(&ev, self.alg).map(Some);
                }
                if at >= buf.len() {
                    break;
                }
            }
            if at == 0 {
                // Fewer bytes than a header before the limit.
                return Err(bogus());
            }
        }
        Ok(None)
    }

    /// The event at the position reached, when it is whole in the file
    /// and may be sent past the durable end (invariant 2): the file's
    /// PREVIOUS_GTIDS (written with its header, before the file is in the
    /// index), or a ROTATE or STOP once the writer has left the file.
    /// `None` otherwise.
    fn control_event_at_pos(&self, file_len: u64, writer_left: bool) -> Result<Option<(u8, u64)>, DumpEnd> {
        if self.pos + HEADER_LEN as u64 > file_len {
            return Ok(None);
        }
        let h = self.read_at(self.pos, HEADER_LEN)?;
        let len = u32::from_le_bytes([h[9], h[10], h[11], h[12]]) as u64;
        let sendable = match h[4] {
            kind::PREVIOUS_GTIDS => true,
            kind::ROTATE | kind::STOP => writer_left,
            _ => false,
        };
        if !sendable || len < HEADER_LEN as u64 || self.pos + len > file_len {
            return Ok(None);
        }
        Ok(Some((h[4], len)))
    }

    /// Sends the current file from `self.pos` until it ends (invariants
    /// 1 and 2), waiting for new transactions while it is the log's
    /// newest. Returns the next file.
    fn send_file(&mut self) -> Result<Next, DumpEnd> {
        let mut idle_since = Instant::now();
        loop {
            // Before the log's state is looked at: a rotation or close
            // after this does not let the wait below sleep.
            let wakes = self.log.wakes();
            if self.out.stopped() || self.log.is_closed() {
                return Err(DumpEnd::Stopped);
            }
            let durable = self.log.durable_packed();
            let (df, de) = unpack(durable);
            let me = self.file_no();
            let file_len = self.file_len()?;
            let limit = if df > me {
                file_len
            } else if df == me {
                de.min(file_len)
            } else {
                self.pos
            };
            let before = self.pos;
            if limit > self.pos {
                if let Some(next) = self.send_range(limit)? {
                    return Ok(Next::File(next));
                }
            }
            // Invariant 2: no transaction past the durable end; a
            // PREVIOUS_GTIDS, or a ROTATE or STOP of a file the writer
            // has left, may go.
            let writer_left = self.log.written_file_number() > me;
            if let Some((ty, len)) = self.control_event_at_pos(file_len, writer_left)? {
                if let Some(next) = self.send_range(self.pos + len)? {
                    return Ok(Next::File(next));
                }
                debug_assert_ne!(ty, kind::ROTATE);
                continue;
            }
            // A file that ended without a ROTATE (a STOP, or cut after a
            // crash): the next file of the index.
            if df > me && self.pos >= file_len {
                if let Some(next) = self.log.file_names().into_iter().find(|f| file_number(f) > me) {
                    return Ok(Next::File(next));
                }
            }
            if self.pos > before {
                idle_since = Instant::now();
                continue;
            }
            self.out.flush()?;
            if self.non_block {
                return Err(DumpEnd::CaughtUp);
            }
            let wait = match self.heartbeat {
                Some(h) => h.saturating_sub(idle_since.elapsed()).min(MAX_WAIT),
                None => MAX_WAIT,
            };
            self.log.wait_durable_past(durable, wakes, wait);
            if let Some(h) = self.heartbeat {
                if idle_since.elapsed() >= h && self.log.durable_packed() == durable {
                    self.heartbeat()?;
                    idle_since = Instant::now();
                }
            }
        }
    }
}

/// The file a ROTATE names (its body: position u64, then the name).
fn rotate_target(ev: &[u8], alg: Checksum) -> Result<String, DumpEnd> {
    let end = ev.len() - if alg == Checksum::Crc32 { CHECKSUM_LEN } else { 0 };
    let name = ev.get(HEADER_LEN + 8..end).ok_or_else(bogus)?;
    let name = std::str::from_utf8(name).map_err(|_| bogus())?;
    if name.is_empty() {
        return Err(bogus());
    }
    Ok(name.to_string())
}
