//! MySQL packets and their field codecs, client side.
//!
//! A packet is a 4-byte header — payload length (3 bytes, little-endian)
//! and a sequence id (1 byte) — then the payload. A command starts at
//! sequence 0; each packet of the exchange takes the next id.
//!
//! Invariants:
//! 1. This client never sends a payload of [`MAX_PAYLOAD`] bytes or more
//!    (such a payload would continue in another packet); [`finish`] refuses.
//! 2. A reply packet of [`MAX_PAYLOAD`] bytes is refused as unsupported
//!    ([`next`]): the driver's results are far smaller.

use std::fmt;

/// The largest payload one packet carries; a longer one continues.
pub const MAX_PAYLOAD: usize = 0xFF_FFFF;

/// `SERVER_MORE_RESULTS_EXISTS` in an OK / EOF packet's status.
pub const MORE_RESULTS: u16 = 0x0008;

/// Why a connection failed.
#[derive(Debug)]
pub enum WireError {
    /// The socket failed, or the server closed it.
    Io(std::io::Error),
    /// The server answered with an ERR packet.
    Server(ServerError),
    /// The server sent something this client does not understand.
    Protocol(String),
}

/// An ERR packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerError {
    pub code: u16,
    /// The SQLSTATE, `HY000` when the server gave none.
    pub state: String,
    pub message: String,
}

impl fmt::Display for ServerError {
    /// As the `mysql` client prints it: `ERROR 1213 (40001): Deadlock ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ERROR {} ({}): {}", self.code, self.state, self.message)
    }
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Io(e) => write!(f, "{e}"),
            WireError::Server(e) => write!(f, "{e}"),
            WireError::Protocol(p) => write!(f, "protocol error: {p}"),
        }
    }
}

impl From<std::io::Error> for WireError {
    fn from(e: std::io::Error) -> Self {
        WireError::Io(e)
    }
}

pub fn protocol(what: impl Into<String>) -> WireError {
    WireError::Protocol(what.into())
}

/// Starts a packet with sequence id `seq` in `out`; returns where its
/// header is, for [`finish`].
pub fn begin(out: &mut Vec<u8>, seq: u8) -> usize {
    let at = out.len();
    out.extend_from_slice(&[0, 0, 0, seq]);
    at
}

/// Writes the length of the packet begun at `at` (everything after its
/// header). REQUIRES: `at` came from [`begin`] on this buffer.
pub fn finish(out: &mut [u8], at: usize) -> Result<(), WireError> {
    let len = out.len() - at - 4;
    if len >= MAX_PAYLOAD {
        return Err(protocol(format!("a {len}-byte command is over this client's packet size")));
    }
    out[at..at + 3].copy_from_slice(&(len as u32).to_le_bytes()[..3]);
    Ok(())
}

/// The first complete packet at the start of `buf`: `(sequence id,
/// payload length)`, or None while it is incomplete.
pub fn next(buf: &[u8]) -> Result<Option<(u8, usize)>, WireError> {
    if buf.len() < 4 {
        return Ok(None);
    }
    let len = usize::from(buf[0]) | usize::from(buf[1]) << 8 | usize::from(buf[2]) << 16;
    if len == MAX_PAYLOAD {
        return Err(protocol("a reply packet of 16 MiB or more (not supported by the bench driver)"));
    }
    Ok((buf.len() >= 4 + len).then_some((buf[3], len)))
}

/// Length-encoded integers and strings: the server's own writers.
pub use quire_server::proto::codec::{put_lenenc_int, put_lenenc_str as put_lenenc_bytes};

/// Reads the fields of one payload; running past its end is an error.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

fn short() -> WireError {
    protocol("a packet ended before its fields")
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    pub fn u8(&mut self) -> Result<u8, WireError> {
        let b = *self.buf.get(self.pos).ok_or_else(short)?;
        self.pos += 1;
        Ok(b)
    }

    pub fn u16(&mut self) -> Result<u16, WireError> {
        let b = self.bytes(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub fn u32(&mut self) -> Result<u32, WireError> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        let end = self.pos.checked_add(n).filter(|e| *e <= self.buf.len()).ok_or_else(short)?;
        let b = &self.buf[self.pos..end];
        self.pos = end;
        Ok(b)
    }

    pub fn lenenc_int(&mut self) -> Result<u64, WireError> {
        Ok(match self.u8()? {
            0xFC => u64::from(self.u16()?),
            0xFD => {
                let b = self.bytes(3)?;
                u64::from(u32::from_le_bytes([b[0], b[1], b[2], 0]))
            }
            0xFE => {
                let b = self.bytes(8)?;
                u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
            }
            0xFB | 0xFF => return Err(protocol("a NULL or ERR marker where a length was expected")),
            n => u64::from(n),
        })
    }

    /// A NUL-terminated string (or the rest, when no NUL follows).
    pub fn nul_str(&mut self) -> &'a [u8] {
        let rest = &self.buf[self.pos..];
        let end = rest.iter().position(|b| *b == 0).unwrap_or(rest.len());
        self.pos += (end + 1).min(rest.len());
        &rest[..end]
    }

    pub fn rest(&mut self) -> &'a [u8] {
        let r = &self.buf[self.pos..];
        self.pos = self.buf.len();
        r
    }
}

/// Parses an ERR packet's payload (first byte 0xFF), protocol 4.1.
pub fn parse_err(payload: &[u8]) -> Result<ServerError, WireError> {
    let mut r = Reader::new(payload);
    r.u8()?;
    let code = r.u16()?;
    let rest = r.rest();
    let (state, message) = match rest.first() {
        Some(b'#') if rest.len() >= 6 => (&rest[1..6], &rest[6..]),
        _ => (&b"HY000"[..], rest),
    };
    Ok(ServerError {
        code,
        state: String::from_utf8_lossy(state).into_owned(),
        message: String::from_utf8_lossy(message).into_owned(),
    })
}

/// The status flags of an OK packet (header 0x00, or 0xFE ending a result
/// set under CLIENT_DEPRECATE_EOF).
pub fn ok_status(payload: &[u8]) -> Result<u16, WireError> {
    let mut r = Reader::new(payload);
    r.u8()?;
    r.lenenc_int()?;
    r.lenenc_int()?;
    // A bare OK from an old server may stop here.
    Ok(r.u16().unwrap_or(0))
}

/// The status flags of an EOF packet (0xFE, warnings, status).
pub fn eof_status(payload: &[u8]) -> Result<u16, WireError> {
    let mut r = Reader::new(payload);
    r.u8()?;
    r.u16()?;
    Ok(r.u16().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenenc_round_trips_at_every_width() {
        for n in [0u64, 250, 251, 0xFFFF, 0x1_0000, 0xFF_FFFF, 0x100_0000, u64::MAX] {
            let mut b = Vec::new();
            put_lenenc_int(&mut b, n);
            assert_eq!(Reader::new(&b).lenenc_int().expect("decodes"), n);
        }
    }

    #[test]
    fn framing_finds_whole_packets_only() {
        let mut b = Vec::new();
        let at = begin(&mut b, 3);
        b.extend_from_slice(b"hello");
        finish(&mut b, at).expect("small");
        assert_eq!(next(&b).expect("valid"), Some((3, 5)));
        assert_eq!(next(&b[..6]).expect("valid"), None);
        assert!(next(&[0xFF, 0xFF, 0xFF, 0]).is_err());
    }

    #[test]
    fn err_packets_with_and_without_sqlstate() {
        let e = parse_err(b"\xff\xbd\x04#40001Deadlock found").expect("parses");
        assert_eq!((e.code, e.state.as_str(), e.message.as_str()), (1213, "40001", "Deadlock found"));
        assert_eq!(e.to_string(), "ERROR 1213 (40001): Deadlock found");
        let e = parse_err(b"\xff\xb5\x04Lock wait").expect("parses");
        assert_eq!((e.code, e.state.as_str()), (1205, "HY000"));
    }
}
