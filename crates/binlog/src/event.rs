//! Event framing and the control events of a v4 binary log file
//! (docs/FORMAT.md "Binary log"; MySQL 8.0's `libbinlogevents`).
//!
//! Every event is a 19-byte common header, a body and, with
//! `binlog_checksum=CRC32`, zlib's CRC-32 of header and body:
//! ```text
//!  0 timestamp u32 | 4 type u8 | 5 server_id u32 | 9 event_len u32 (all of it)
//! 13 next_pos u32 (file offset just past this event) | 17 flags u16 | 19 body | crc u32
//! ```
//! All integers little-endian. Events are framed with `next_pos` relative
//! to the start of the buffer that holds them ([`Events`]); [`Events::place`]
//! adds the file offset once it is known (under the log's mutex) and only
//! then computes the checksums, as MySQL patches a transaction cache when
//! it copies it to the file.
//!
//! Invariants:
//! 1. `Events::starts` holds the offset of every event in `bytes`, in
//!    order; every event's length field equals its framed length.
//! 2. The FORMAT_DESCRIPTION event always carries the checksum algorithm
//!    byte and a 4-byte checksum slot, whatever `binlog_checksum` says; its
//!    CRC is computed with the IN_USE flag clear (readers check it so).

use crate::crc::crc32;
use crate::gtid::{Gtid, GtidSet, Uuid};

/// The file magic, `\xfebin`.
pub const MAGIC: [u8; 4] = [0xfe, b'b', b'i', b'n'];
pub const HEADER_LEN: usize = 19;
pub const CHECKSUM_LEN: usize = 4;

/// Event type numbers (MySQL 8.0 `Log_event_type`).
pub mod kind {
    pub const QUERY: u8 = 2;
    pub const STOP: u8 = 3;
    pub const ROTATE: u8 = 4;
    pub const FORMAT_DESCRIPTION: u8 = 15;
    pub const XID: u8 = 16;
    pub const TABLE_MAP: u8 = 19;
    pub const WRITE_ROWS: u8 = 30;
    pub const UPDATE_ROWS: u8 = 31;
    pub const DELETE_ROWS: u8 = 32;
    pub const GTID: u8 = 33;
    pub const ANONYMOUS_GTID: u8 = 34;
    pub const PREVIOUS_GTIDS: u8 = 35;
}

/// LOG_EVENT_BINLOG_IN_USE_F: set in the FDE while the file is open.
pub const FLAG_IN_USE: u16 = 0x0001;
/// The byte offset of the flags in the common header.
pub const FLAGS_OFFSET: usize = 17;

/// The server version the FDE names: readers take the checksum byte of
/// the FDE only from versions at least 5.6.1, and decode MySQL 8.0 events.
pub const SERVER_VERSION: &str = "8.0.36-quire";

/// Post-header lengths of types 1..=41 (MySQL 8.0, control_events.cpp).
const POST_HEADER_LEN: [u8; 41] = [
    0, 13, 0, 8, 0, 0, 0, 0, 4, 0, 4, 0, 0, 0, 98, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0, 0, 0, 10, 10, 10, 42, 42, 0,
    18, 52, 0, 10, 40, 0,
];

/// `binlog_checksum`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checksum {
    None,
    Crc32,
}

/// A run of framed events.
#[derive(Clone, Debug, Default)]
pub struct Events {
    pub bytes: Vec<u8>,
    /// Offsets of the events in `bytes` (invariant 1).
    pub starts: Vec<u32>,
}

/// What every event's header shares within one buffer.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub server_id: u32,
    pub timestamp: u32,
    pub checksum: Checksum,
}

impl Events {
    /// Room for `bytes` bytes and `events` events without growing.
    pub fn with_capacity(bytes: usize, events: usize) -> Events {
        Events { bytes: Vec::with_capacity(bytes), starts: Vec::with_capacity(events) }
    }

    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn clear(&mut self) {
        self.bytes.clear();
        self.starts.clear();
    }

    /// Starts an event of type `ty`: writes the header (length and
    /// position filled by [`Events::finish`]); the caller appends the body.
    pub fn begin(&mut self, f: &Frame, ty: u8, flags: u16) -> usize {
        let start = self.bytes.len();
        self.starts.push(start as u32);
        self.bytes.extend_from_slice(&f.timestamp.to_le_bytes());
        self.bytes.push(ty);
        self.bytes.extend_from_slice(&f.server_id.to_le_bytes());
        self.bytes.extend_from_slice(&[0; 8]); // event_len, next_pos
        self.bytes.extend_from_slice(&flags.to_le_bytes());
        start
    }

    /// Ends the event begun at `start`: the checksum slot and the length.
    pub fn finish(&mut self, f: &Frame, start: usize, always_crc_slot: bool) {
        if f.checksum == Checksum::Crc32 || always_crc_slot {
            self.bytes.extend_from_slice(&[0; CHECKSUM_LEN]);
        }
        let len = (self.bytes.len() - start) as u32;
        self.bytes[start + 9..start + 13].copy_from_slice(&len.to_le_bytes());
        let end = self.bytes.len() as u32;
        self.bytes[start + 13..start + 17].copy_from_slice(&end.to_le_bytes());
    }

    /// Gives every event its file position (`base` is the file offset of
    /// `bytes[0]`) and its checksum. Called once per buffer.
    pub fn place(&mut self, base: u64, checksum: Checksum) {
        for (i, &s) in self.starts.iter().enumerate() {
            let s = s as usize;
            let end = self.starts.get(i + 1).map_or(self.bytes.len(), |&e| e as usize);
            let ev = &mut self.bytes[s..end];
            let next = base + end as u64;
            ev[13..17].copy_from_slice(&(next as u32).to_le_bytes());
            let is_fde = ev[4] == kind::FORMAT_DESCRIPTION;
            if checksum == Checksum::Crc32 || is_fde {
                let n = ev.len() - CHECKSUM_LEN;
                let crc = if is_fde {
                    // Invariant 2: computed with IN_USE clear.
                    let flags = u16::from_le_bytes([ev[FLAGS_OFFSET], ev[FLAGS_OFFSET + 1]]);
                    let mut h = ev[..n].to_vec();
                    h[FLAGS_OFFSET..FLAGS_OFFSET + 2].copy_from_slice(&(flags & !FLAG_IN_USE).to_le_bytes());
                    crc32(&h)
                } else {
                    crc32(&ev[..n])
                };
                ev[n..].copy_from_slice(&crc.to_le_bytes());
            }
        }
    }

    /// Appends `other`'s events.
    pub fn append(&mut self, other: &Events) {
        let base = self.bytes.len() as u32;
        self.bytes.extend_from_slice(&other.bytes);
        self.starts.extend(other.starts.iter().map(|s| s + base));
        // Relative positions are fixed by `place`; nothing else to move.
    }

    /// FORMAT_DESCRIPTION (15): the first event of every file.
    pub fn format_description(&mut self, f: &Frame, created: u32, in_use: bool) {
        let s = self.begin(f, kind::FORMAT_DESCRIPTION, if in_use { FLAG_IN_USE } else { 0 });
        self.bytes.extend_from_slice(&4u16.to_le_bytes());
        let mut ver = [0u8; 50];
        ver[..SERVER_VERSION.len()].copy_from_slice(SERVER_VERSION.as_bytes());
        self.bytes.extend_from_slice(&ver);
        self.bytes.extend_from_slice(&created.to_le_bytes());
        self.bytes.push(HEADER_LEN as u8);
        self.bytes.extend_from_slice(&POST_HEADER_LEN);
        self.bytes.push(match f.checksum {
            Checksum::None => 0,
            Checksum::Crc32 => 1,
        });
        self.finish(f, s, true);
    }

    /// PREVIOUS_GTIDS (35): every GTID of the earlier files (and of the
    /// purged ones), in the binary form of `gtid.rs`.
    pub fn previous_gtids(&mut self, f: &Frame, set: &GtidSet) {
        let s = self.begin(f, kind::PREVIOUS_GTIDS, 0);
        self.bytes.extend_from_slice(&set.encode());
        self.finish(f, s, false);
    }

    /// GTID (33) for `Some(gtid)`, else ANONYMOUS_GTID (34): opens a
    /// transaction. `trx_len` is the length of the whole transaction,
    /// this event included (see [`anonymous_gtid_len`]; both types have
    /// the same length).
    pub fn transaction_gtid(
        &mut self,
        f: &Frame,
        gtid: Option<Gtid>,
        clock: LogicalClock,
        commit_us: u64,
        trx_len: u64,
    ) {
        let ty = if gtid.is_some() { kind::GTID } else { kind::ANONYMOUS_GTID };
        let s = self.begin(f, ty, 0);
        self.bytes.push(0); // flags: row-based only
        let (sid, gno) = gtid.map_or(([0; 16], 0), |g| (g.uuid.0, g.gno as i64));
        self.bytes.extend_from_slice(&sid);
        self.bytes.extend_from_slice(&gno.to_le_bytes());
        self.bytes.push(2); // logical timestamp type
        self.bytes.extend_from_slice(&clock.last_committed.to_le_bytes());
        self.bytes.extend_from_slice(&clock.sequence_number.to_le_bytes());
        // immediate_commit_timestamp, 7 bytes, bit 55 clear: the original
        // commit timestamp is the same.
        self.bytes.extend_from_slice(&(commit_us & 0x7f_ffff_ffff_ffff).to_le_bytes()[..7]);
        put_packed(&mut self.bytes, trx_len);
        self.bytes.extend_from_slice(&SERVER_VERSION_ID.to_le_bytes());
        self.finish(f, s, false);
    }

    /// QUERY (2): `sql` run in database `db` (BEGIN, or a DDL statement).
    pub fn query(&mut self, f: &Frame, q: &QueryEvent<'_>) {
        let s = self.begin(f, kind::QUERY, 0);
        let db = q.db.as_bytes();
        let db = &db[..db.len().min(255)];
        self.bytes.extend_from_slice(&q.thread_id.to_le_bytes());
        self.bytes.extend_from_slice(&0u32.to_le_bytes()); // exec_time
        self.bytes.push(db.len() as u8);
        self.bytes.extend_from_slice(&0u16.to_le_bytes()); // error_code
                                                           // Status variables, in ascending code order (MariaDB's reader
                                                           // stops at the first code it does not know).
        let mut sv = Vec::with_capacity(32);
        sv.push(0); // Q_FLAGS2
        sv.extend_from_slice(&q.flags2.to_le_bytes());
        sv.push(1); // Q_SQL_MODE
        sv.extend_from_slice(&q.sql_mode.to_le_bytes());
        sv.push(4); // Q_CHARSET: client, connection, server
        for c in q.charset {
            sv.extend_from_slice(&c.to_le_bytes());
        }
        sv.push(6); // Q_CATALOG_NZ
        sv.push(3);
        sv.extend_from_slice(b"std");
        self.bytes.extend_from_slice(&(sv.len() as u16).to_le_bytes());
        self.bytes.extend_from_slice(&sv);
        self.bytes.extend_from_slice(db);
        self.bytes.push(0);
        self.bytes.extend_from_slice(q.sql.as_bytes());
        self.finish(f, s, false);
    }

    /// XID (16): commits the transaction.
    pub fn xid(&mut self, f: &Frame, xid: u64) {
        let s = self.begin(f, kind::XID, 0);
        self.bytes.extend_from_slice(&xid.to_le_bytes());
        self.finish(f, s, false);
    }

    /// ROTATE (4): the next file, `name` (no directory).
    pub fn rotate(&mut self, f: &Frame, name: &str) {
        let s = self.begin(f, kind::ROTATE, 0);
        self.bytes.extend_from_slice(&4u64.to_le_bytes());
        self.bytes.extend_from_slice(name.as_bytes());
        self.finish(f, s, false);
    }

    /// STOP (3): the server shut down cleanly.
    pub fn stop(&mut self, f: &Frame) {
        let s = self.begin(f, kind::STOP, 0);
        self.finish(f, s, false);
    }
}

/// `immediate_server_version` of GTID events: 80036.
const SERVER_VERSION_ID: u32 = 80036;

/// MySQL's logical clock for its parallel applier: transactions with the
/// same `last_committed` committed in one group and may be applied in
/// parallel. Both count from 1 in each file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LogicalClock {
    pub last_committed: i64,
    pub sequence_number: i64,
}

/// A QUERY event's contents.
#[derive(Clone, Copy, Debug)]
pub struct QueryEvent<'a> {
    pub thread_id: u32,
    pub db: &'a str,
    pub sql: &'a str,
    /// Q_FLAGS2 (OPTION_NO_FOREIGN_KEY_CHECKS 0x4000000, ...).
    pub flags2: u32,
    /// Q_SQL_MODE (MySQL's bits).
    pub sql_mode: u64,
    /// Q_CHARSET: character_set_client, collation_connection,
    /// collation_server (collation ids).
    pub charset: [u16; 3],
}

/// The length of an ANONYMOUS_GTID event whose transaction length field
/// holds `trx_len`.
pub fn anonymous_gtid_len(checksum: Checksum, trx_len: u64) -> u64 {
    let crc = if checksum == Checksum::Crc32 { CHECKSUM_LEN } else { 0 };
    (HEADER_LEN + 42 + 7 + packed_len(trx_len) + 4 + crc) as u64
}

/// The GTID a GTID (33) event's body names (`None` for a body too
/// short, or an anonymous one).
pub fn gtid_of(body: &[u8]) -> Option<Gtid> {
    let sid: [u8; 16] = body.get(1..17)?.try_into().ok()?;
    let gno = i64::from_le_bytes(body.get(17..25)?.try_into().ok()?);
    (gno > 0).then_some(Gtid { uuid: Uuid(sid), gno: gno as u64 })
}

/// The immediate commit timestamp (microseconds since the epoch, the
/// commit on the server that wrote the event) of a GTID or
/// ANONYMOUS_GTID event's body; `None` when the body has none (MySQL 5.7's
/// events end after the logical clock).
pub fn immediate_commit_us(body: &[u8]) -> Option<u64> {
    clock_of(body)?;
    let b = body.get(42..49)?;
    let mut v = [0u8; 8];
    v[..7].copy_from_slice(b);
    Some(u64::from_le_bytes(v) & 0x7f_ffff_ffff_ffff)
}

/// The logical clock of a GTID or ANONYMOUS_GTID event's body (`None`
/// when the body has none: logical timestamp type not 2, or too short).
pub fn clock_of(body: &[u8]) -> Option<LogicalClock> {
    if body.get(25) != Some(&2) {
        return None;
    }
    let last_committed = i64::from_le_bytes(body.get(26..34)?.try_into().ok()?);
    let sequence_number = i64::from_le_bytes(body.get(34..42)?.try_into().ok()?);
    Some(LogicalClock { last_committed, sequence_number })
}

/// MySQL's packed (length-encoded) integer.
pub fn put_packed(out: &mut Vec<u8>, v: u64) {
    if v < 251 {
        out.push(v as u8);
    } else if v < 1 << 16 {
        out.push(252);
        out.extend_from_slice(&(v as u16).to_le_bytes());
    } else if v < 1 << 24 {
        out.push(253);
        out.extend_from_slice(&v.to_le_bytes()[..3]);
    } else {
        out.push(254);
        out.extend_from_slice(&v.to_le_bytes());
    }
}

pub fn packed_len(v: u64) -> usize {
    match v {
        0..=250 => 1,
        251..=0xffff => 3,
        0x1_0000..=0xff_ffff => 4,
        _ => 9,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: Frame = Frame { server_id: 1, timestamp: 0, checksum: Checksum::Crc32 };

    /// The immediate commit timestamp written into a GTID event is read
    /// back from its body (SOURCE_DELAY's clock); a body cut after the
    /// logical clock (MySQL 5.7's) has none.
    #[test]
    fn a_gtid_events_commit_timestamp_reads_back() {
        let mut e = Events::default();
        let clock = LogicalClock { last_committed: 3, sequence_number: 4 };
        e.transaction_gtid(&F, None, clock, 1_764_000_000_123_456, 200);
        let body = &e.bytes[HEADER_LEN..e.len() - CHECKSUM_LEN];
        assert_eq!(immediate_commit_us(body), Some(1_764_000_000_123_456));
        assert_eq!(clock_of(body), Some(clock));
        assert_eq!(immediate_commit_us(&body[..42]), None);
    }

    #[test]
    fn fde_is_122_bytes_with_41_types() {
        let mut e = Events::default();
        e.format_description(&F, 0, true);
        assert_eq!(e.len(), 122);
        e.place(4, Checksum::Crc32);
        assert_eq!(u32::from_le_bytes(e.bytes[13..17].try_into().unwrap()), 126);
    }

    #[test]
    fn fde_checksum_ignores_in_use_flag() {
        let mut a = Events::default();
        a.format_description(&F, 0, true);
        a.place(4, Checksum::Crc32);
        let mut b = Events::default();
        b.format_description(&F, 0, false);
        b.place(4, Checksum::Crc32);
        assert_eq!(a.bytes[118..], b.bytes[118..]);
    }

    #[test]
    fn gtid_length_formula_matches_encoding() {
        for trx_len in [100u64, 300, 70_000] {
            let mut e = Events::default();
            e.transaction_gtid(&F, None, LogicalClock::default(), 1, trx_len);
            assert_eq!(e.len() as u64, anonymous_gtid_len(Checksum::Crc32, trx_len));
            let g = Gtid { uuid: Uuid([7; 16]), gno: 5 };
            let mut e = Events::default();
            e.transaction_gtid(&F, Some(g), LogicalClock::default(), 1, trx_len);
            assert_eq!(e.len() as u64, anonymous_gtid_len(Checksum::Crc32, trx_len));
            assert_eq!(gtid_of(&e.bytes[HEADER_LEN..]), Some(g));
        }
    }

    #[test]
    fn the_logical_clock_is_read_back_from_a_gtid_event() {
        let clock = LogicalClock { last_committed: 41, sequence_number: 43 };
        for gtid in [None, Some(Gtid { uuid: Uuid([3; 16]), gno: 9 })] {
            let mut e = Events::default();
            e.transaction_gtid(&F, gtid, clock, 1, 200);
            assert_eq!(clock_of(&e.bytes[HEADER_LEN..]), Some(clock));
        }
        assert_eq!(clock_of(&[0; 20]), None, "too short");
    }
}
