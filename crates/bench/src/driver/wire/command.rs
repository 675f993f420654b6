//! The commands the driver sends, encoded into a buffer (each one packet,
//! sequence id 0):
//!
//! - COM_QUERY (0x03): the SQL text;
//! - COM_STMT_PREPARE (0x16): the SQL text;
//! - COM_STMT_EXECUTE (0x17): statement id (4), flags 0 (no cursor),
//!   iteration count 1 (4); with parameters: the NULL bitmap (none are
//!   NULL), new-params-bound 1, a type per parameter (LONGLONG signed, or
//!   VAR_STRING), then the values (8 bytes LE, or length-encoded text).
//!
//! The types are sent with every execution (the `mysql` crate does the
//! same), so a statement needs no state beyond its id.

use super::packet::{begin, finish, put_lenenc_bytes, WireError};

pub const COM_QUERY: u8 = 0x03;
pub const COM_STMT_PREPARE: u8 = 0x16;
pub const COM_STMT_EXECUTE: u8 = 0x17;

const TYPE_LONGLONG: u8 = 0x08;
const TYPE_VAR_STRING: u8 = 0xFD;

/// A value bound to a `?`.
#[derive(Debug, Clone, Copy)]
pub enum Param<'a> {
    Int(i64),
    Text(&'a str),
}

/// Appends a COM_QUERY or COM_STMT_PREPARE of `sql`.
pub fn put_text(out: &mut Vec<u8>, command: u8, sql: &str) -> Result<(), WireError> {
    let at = begin(out, 0);
    out.push(command);
    out.extend_from_slice(sql.as_bytes());
    finish(out, at)
}

/// Appends a COM_STMT_EXECUTE of statement `id` with `params`.
pub fn put_execute(out: &mut Vec<u8>, id: u32, params: &[Param<'_>]) -> Result<(), WireError> {
    let at = begin(out, 0);
    out.push(COM_STMT_EXECUTE);
    out.extend_from_slice(&id.to_le_bytes());
    out.push(0);
    out.extend_from_slice(&1u32.to_le_bytes());
    if !params.is_empty() {
        out.resize(out.len() + params.len().div_ceil(8), 0);
        out.push(1);
        for p in params {
            match p {
                Param::Int(_) => out.extend_from_slice(&[TYPE_LONGLONG, 0]),
                Param::Text(_) => out.extend_from_slice(&[TYPE_VAR_STRING, 0]),
            }
        }
        for p in params {
            match p {
                Param::Int(v) => out.extend_from_slice(&v.to_le_bytes()),
                Param::Text(s) => put_lenenc_bytes(out, s.as_bytes()),
            }
        }
    }
    finish(out, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn execute_encodes_types_then_values() {
        let mut b = Vec::new();
        put_execute(&mut b, 7, &[Param::Int(-2), Param::Text("ab")]).expect("small");
        let expect: &[u8] = &[
            0x17, 7, 0, 0, 0, 0, 1, 0, 0, 0, // command, id, flags, iterations
            0, 1, 0x08, 0, 0xFD, 0, // bitmap, bound, types
            0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 2, b'a', b'b',
        ];
        assert_eq!(&b[4..], expect);
        assert_eq!(usize::from(b[0]), expect.len());
        let mut b = Vec::new();
        put_execute(&mut b, 1, &[]).expect("small");
        assert_eq!(b.len(), 4 + 10);
    }
}
