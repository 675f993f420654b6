//! The replication commands of the protocol, source side:
//!
//! | command                   | payload after the command byte                                   |
//! |---------------------------|-------------------------------------------------------------------|
//! | COM_REGISTER_SLAVE 0x15   | server_id u32, host/user/password (u8 length + bytes), port u16, rank u32, master_id u32 |
//! | COM_BINLOG_DUMP 0x12      | pos u32, flags u16, server_id u32, file name (rest of the packet)  |
//! | COM_BINLOG_DUMP_GTID 0x1e | flags u16, server_id u32, name_len u32, name, pos u64, data_len u32, GTID set |
//!
//! A dump answers with one packet per event (`0x00` then the event), and
//! ends with EOF (BINLOG_DUMP_NON_BLOCK, caught up) or ERR; the
//! connection then closes, as MySQL's does after a dump. A payload that
//! does not parse gets ERR 1835 (ER_MALFORMED_PACKET), never a panic.

use std::io;

use super::codec::Cursor;
use super::ErrPacket;

pub const REGISTER_SLAVE: u8 = 0x15;
pub const BINLOG_DUMP: u8 = 0x12;
pub const BINLOG_DUMP_GTID: u8 = 0x1e;

/// COM_REGISTER_SLAVE's fields (the password is not kept).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterReplica {
    pub server_id: u32,
    pub host: String,
    pub user: String,
    pub port: u16,
    pub rank: u32,
    pub master_id: u32,
}

/// COM_BINLOG_DUMP's (or COM_BINLOG_DUMP_GTID's) fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinlogDump {
    pub pos: u64,
    pub flags: u16,
    pub server_id: u32,
    pub file: String,
    /// COM_BINLOG_DUMP_GTID: the replica's executed GTID set (encoded).
    pub gtid_set: Option<Vec<u8>>,
}

/// Where a dump writes: each event as a packet of its own.
pub trait EventSink {
    fn event(&mut self, ev: &[u8]) -> io::Result<()>;
    fn flush(&mut self) -> io::Result<()>;
}

/// How a dump ended, for the connection to answer.
#[derive(Debug)]
pub enum DumpOutcome {
    /// Caught up under BINLOG_DUMP_NON_BLOCK: EOF.
    Eof,
    /// Killed, stopped or the connection failed: nothing more to send.
    Closed,
    /// ERR (1227, 1236 ...).
    Error(ErrPacket),
}

/// ER_MALFORMED_PACKET.
pub fn malformed() -> ErrPacket {
    ErrPacket::new(1835, "HY000", "Malformed communication packet.")
}

fn short_str(c: &mut Cursor<'_>) -> Option<String> {
    let n = c.u8().ok()? as usize;
    let b = c.bytes(n).ok()?;
    Some(String::from_utf8_lossy(b).into_owned())
}

/// Parses COM_REGISTER_SLAVE's payload.
pub fn parse_register(body: &[u8]) -> Result<RegisterReplica, ErrPacket> {
    let mut c = Cursor::new(body);
    let r = (|| {
        let server_id = c.u32().ok()?;
        let host = short_str(&mut c)?;
        let user = short_str(&mut c)?;
        let _password = short_str(&mut c)?;
        let port = c.u16().ok()?;
        // rank and master_id: MySQL accepts a packet that stops early.
        let rank = c.u32().unwrap_or(0);
        let master_id = c.u32().unwrap_or(0);
        Some(RegisterReplica { server_id, host, user, port, rank, master_id })
    })();
    r.ok_or_else(malformed)
}

/// Parses COM_BINLOG_DUMP's payload.
pub fn parse_dump(body: &[u8]) -> Result<BinlogDump, ErrPacket> {
    let mut c = Cursor::new(body);
    let r = (|| {
        let pos = u64::from(c.u32().ok()?);
        let flags = c.u16().ok()?;
        let server_id = c.u32().ok()?;
        let rest = c.rest();
        let file = String::from_utf8_lossy(rest).trim_end_matches('\0').to_string();
        Some(BinlogDump { pos, flags, server_id, file, gtid_set: None })
    })();
    r.ok_or_else(malformed)
}

/// Parses COM_BINLOG_DUMP_GTID's payload.
pub fn parse_dump_gtid(body: &[u8]) -> Result<BinlogDump, ErrPacket> {
    let mut c = Cursor::new(body);
    let r = (|| {
        let flags = c.u16().ok()?;
        let server_id = c.u32().ok()?;
        let name_len = c.u32().ok()? as usize;
        let file = String::from_utf8_lossy(c.bytes(name_len).ok()?).into_owned();
        let pos = c.u64().ok()?;
        let data_len = c.u32().unwrap_or(0) as usize;
        let set = c.bytes(data_len.min(c.remaining())).ok()?.to_vec();
        Some(BinlogDump { pos, flags, server_id, file, gtid_set: Some(set) })
    })();
    r.ok_or_else(malformed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_slave_payload_parses_and_a_short_one_is_refused() {
        let mut b = vec![];
        b.extend_from_slice(&7u32.to_le_bytes());
        b.extend_from_slice(&[4, b'h', b'o', b's', b't', 4, b'r', b'e', b'p', b'l', 0]);
        b.extend_from_slice(&3307u16.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&1u32.to_le_bytes());
        let r = parse_register(&b).unwrap();
        assert_eq!((r.server_id, r.host.as_str(), r.user.as_str(), r.port, r.master_id), (7, "host", "repl", 3307, 1));
        assert_eq!(parse_register(&b[..6]).unwrap_err().code, 1835);
    }

    #[test]
    fn dump_payloads_parse() {
        let mut b = vec![];
        b.extend_from_slice(&4u32.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&9u32.to_le_bytes());
        b.extend_from_slice(b"binlog.000002");
        let d = parse_dump(&b).unwrap();
        assert_eq!((d.pos, d.flags, d.server_id, d.file.as_str()), (4, 1, 9, "binlog.000002"));
        assert_eq!(parse_dump(&b[..5]).unwrap_err().code, 1835);

        let mut g = vec![];
        g.extend_from_slice(&4u16.to_le_bytes());
        g.extend_from_slice(&9u32.to_le_bytes());
        g.extend_from_slice(&0u32.to_le_bytes());
        g.extend_from_slice(&4u64.to_le_bytes());
        g.extend_from_slice(&8u32.to_le_bytes());
        g.extend_from_slice(&0u64.to_le_bytes());
        let d = parse_dump_gtid(&g).unwrap();
        assert_eq!((d.pos, d.server_id, d.file.as_str(), d.gtid_set.as_ref().map(Vec::len)), (4, 9, "", Some(8)));
        assert_eq!(parse_dump_gtid(&g[..7]).unwrap_err().code, 1835);
    }
}
