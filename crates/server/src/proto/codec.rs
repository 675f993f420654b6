//! Primitive encodings of the protocol: little-endian fixed-width integers,
//! length-encoded integers and strings, NUL-terminated strings.
//!
//! Writers append to a `Vec<u8>`. [`Cursor`] reads a received payload and
//! returns [`DecodeError`] for anything short or malformed: a payload comes
//! from the network and is never trusted, so no read here can panic.
//!
//! Length-encoded integer (`int<lenenc>`), first byte `b`:
//!
//! | `b`          | value                       |
//! |--------------|-----------------------------|
//! | `0x00..0xfb` | `b` itself                  |
//! | `0xfb`       | NULL (only in text rows)    |
//! | `0xfc`       | next 2 bytes, little-endian |
//! | `0xfd`       | next 3 bytes                |
//! | `0xfe`       | next 8 bytes                |
//! | `0xff`       | undefined (an ERR header)   |

use std::fmt;

/// A received payload did not parse: too short, or a field out of range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeError(pub &'static str);

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed packet: {}", self.0)
    }
}

impl std::error::Error for DecodeError {}

/// Appends `v` as a length-encoded integer.
pub fn put_lenenc_int(buf: &mut Vec<u8>, v: u64) {
    if v < 0xfb {
        buf.push(v as u8);
    } else if v <= 0xffff {
        buf.push(0xfc);
        buf.extend_from_slice(&(v as u16).to_le_bytes());
    } else if v <= 0xff_ffff {
        buf.push(0xfd);
        buf.extend_from_slice(&(v as u32).to_le_bytes()[..3]);
    } else {
        buf.push(0xfe);
        buf.extend_from_slice(&v.to_le_bytes());
    }
}

/// Appends `s` as a length-encoded string (its length, then its bytes).
pub fn put_lenenc_str(buf: &mut Vec<u8>, s: &[u8]) {
    put_lenenc_int(buf, s.len() as u64);
    buf.extend_from_slice(s);
}

/// Appends `s` and a terminating NUL.
pub fn put_nul_str(buf: &mut Vec<u8>, s: &[u8]) {
    buf.extend_from_slice(s);
    buf.push(0);
}

/// A read position in a received payload.
#[derive(Clone, Debug)]
pub struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The next `n` bytes.
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.remaining() {
            return Err(DecodeError("field runs past the end of the packet"));
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// Everything left (`string<EOF>`).
    pub fn rest(&mut self) -> &'a [u8] {
        let out = &self.buf[self.pos..];
        self.pos = self.buf.len();
        out
    }

    pub fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.bytes(1)?[0])
    }

    pub fn u16(&mut self) -> Result<u16, DecodeError> {
        let b = self.bytes(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub fn u32(&mut self) -> Result<u32, DecodeError> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn u64(&mut self) -> Result<u64, DecodeError> {
        let b = self.bytes(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// A length-encoded integer; NULL (0xfb) and 0xff are errors here.
    pub fn lenenc_int(&mut self) -> Result<u64, DecodeError> {
        match self.u8()? {
            b @ 0..=0xfa => Ok(u64::from(b)),
            0xfc => Ok(u64::from(self.u16()?)),
            0xfd => {
                let b = self.bytes(3)?;
                Ok(u64::from(b[0]) | u64::from(b[1]) << 8 | u64::from(b[2]) << 16)
            }
            0xfe => self.u64(),
            _ => Err(DecodeError("invalid length-encoded integer")),
        }
    }

    /// A length-encoded string.
    pub fn lenenc_bytes(&mut self) -> Result<&'a [u8], DecodeError> {
        let n = self.lenenc_int()?;
        let n = usize::try_from(n).map_err(|_| DecodeError("length out of range"))?;
        self.bytes(n)
    }

    /// A NUL-terminated string (without its NUL).
    pub fn nul_bytes(&mut self) -> Result<&'a [u8], DecodeError> {
        let rest = &self.buf[self.pos..];
        let n = rest.iter().position(|&b| b == 0).ok_or(DecodeError("string lacks its NUL"))?;
        self.pos += n + 1;
        Ok(&rest[..n])
    }

    /// A NUL-terminated string, or the rest of the packet if it has no NUL
    /// (clients differ in whether the last string is terminated).
    pub fn nul_or_rest(&mut self) -> &'a [u8] {
        let rest = &self.buf[self.pos..];
        match rest.iter().position(|&b| b == 0) {
            Some(n) => {
                self.pos += n + 1;
                &rest[..n]
            }
            None => self.rest(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenenc_int_round_trips_at_every_width_boundary() {
        for v in [0u64, 250, 251, 0xffff, 0x1_0000, 0xff_ffff, 0x100_0000, u64::MAX] {
            let mut buf = Vec::new();
            put_lenenc_int(&mut buf, v);
            let mut c = Cursor::new(&buf);
            assert_eq!(c.lenenc_int(), Ok(v));
            assert!(c.is_empty());
        }
    }

    #[test]
    fn short_reads_are_errors_not_panics() {
        let mut c = Cursor::new(&[0xfe, 1, 2]);
        assert!(c.lenenc_int().is_err());
        let mut c = Cursor::new(&[5, b'a']);
        assert!(c.lenenc_bytes().is_err());
        let mut c = Cursor::new(b"abc");
        assert!(c.nul_bytes().is_err());
        assert_eq!(c.nul_or_rest(), b"abc");
        let mut c = Cursor::new(&[0xfb]);
        assert!(c.lenenc_int().is_err());
    }
}
