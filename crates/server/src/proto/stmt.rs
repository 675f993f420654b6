//! Prepared statements on one connection, as the protocol sees them: how
//! many parameters each has, the parameter types last bound (clients send
//! them only when they change: "new params bound" = 0 means "as before";
//! sysbench relies on this), and data sent with COM_STMT_SEND_LONG_DATA.
//!
//! COM_STMT_EXECUTE payload (after the command byte):
//!
//! ```text
//! stmt id u32 | flags u8 | iteration count u32 |
//! if params > 0:
//!   NULL bitmap ((params + 7) / 8 bytes, bit i = param i) | new params bound u8 |
//!   if new params bound: (type u8, flags u8 (0x80 = unsigned)) x params |
//!   values of non-NULL params without long data, by type
//! ```
//!
//! Invariant: long data is consumed by the next execute (and dropped by
//! COM_STMT_RESET), as in MySQL.

use std::collections::HashMap;

use super::codec::{Cursor, DecodeError};
use super::{column_type, ErrPacket, Param};

/// Bit of a parameter type's flag byte marking it unsigned.
pub const PARAM_UNSIGNED: u8 = 0x80;

/// What the protocol keeps per prepared statement.
#[derive(Debug, Default)]
struct StmtState {
    /// Number of `?` placeholders.
    params: u16,
    /// (type, unsigned) per parameter, as last bound.
    types: Option<Vec<(u8, bool)>>,
    /// COM_STMT_SEND_LONG_DATA chunks, joined, by parameter index.
    long_data: HashMap<u16, Vec<u8>>,
    /// Long data exceeded the limit; the next execute fails.
    long_data_too_big: bool,
}

/// The prepared statements of one connection.
#[derive(Debug)]
pub struct Statements {
    map: HashMap<u32, StmtState>,
    /// Cap on one parameter's long data (`max_allowed_packet`).
    max_long_data_bytes: usize,
}

fn wrong_arguments() -> ErrPacket {
    ErrPacket::new(1210, "HY000", "Incorrect arguments to mysqld_stmt_execute")
}

/// ER_UNKNOWN_STMT_HANDLER.
pub fn unknown_statement(id: u32, what: &str) -> ErrPacket {
    ErrPacket::new(1243, "HY000", format!("Unknown prepared statement handler ({id}) given to {what}"))
}

impl Statements {
    pub fn new(max_long_data_bytes: usize) -> Self {
        Self { map: HashMap::new(), max_long_data_bytes }
    }

    /// Registers a statement COM_STMT_PREPARE created.
    pub fn prepared(&mut self, id: u32, params: u16) {
        self.map.insert(id, StmtState { params, ..Default::default() });
    }

    /// COM_STMT_CLOSE: forgets the statement.
    pub fn close(&mut self, id: u32) {
        self.map.remove(&id);
    }

    /// COM_STMT_RESET: drops long data. False if the statement is unknown.
    pub fn reset(&mut self, id: u32) -> bool {
        match self.map.get_mut(&id) {
            Some(s) => {
                s.long_data.clear();
                s.long_data_too_big = false;
                true
            }
            None => false,
        }
    }

    /// COM_RESET_CONNECTION: every statement is gone.
    pub fn clear(&mut self) {
        self.map.clear();
    }

    /// COM_STMT_SEND_LONG_DATA (no reply; errors surface at execute).
    pub fn send_long_data(&mut self, payload: &[u8]) {
        let mut cur = Cursor::new(payload);
        let (Ok(id), Ok(param)) = (cur.u32(), cur.u16()) else {
            return;
        };
        let Some(s) = self.map.get_mut(&id) else {
            return;
        };
        if param >= s.params {
            s.long_data_too_big = true;
            return;
        }
        let data = s.long_data.entry(param).or_default();
        let chunk = cur.rest();
        if data.len() + chunk.len() > self.max_long_data_bytes {
            s.long_data_too_big = true;
        } else {
            data.extend_from_slice(chunk);
        }
    }

    /// Parses COM_STMT_EXECUTE (the payload after the command byte) into
    /// the statement id and its parameters.
    pub fn parse_execute(&mut self, payload: &[u8]) -> Result<(u32, Vec<Param>), ErrPacket> {
        let mut cur = Cursor::new(payload);
        let id = cur.u32().map_err(|_| wrong_arguments())?;
        let s = self.map.get_mut(&id).ok_or_else(|| unknown_statement(id, "mysqld_stmt_execute"))?;
        let long_data = std::mem::take(&mut s.long_data);
        if std::mem::take(&mut s.long_data_too_big) {
            return Err(ErrPacket::new(
                1153,
                "08S01",
                "Parameter of prepared statement which is set through mysql_send_long_data() is longer than 'max_allowed_packet' bytes",
            ));
        }
        let params = decode_params(&mut cur, s, long_data).map_err(|_| wrong_arguments())?;
        Ok((id, params))
    }
}

fn decode_params(
    cur: &mut Cursor<'_>,
    s: &mut StmtState,
    mut long_data: HashMap<u16, Vec<u8>>,
) -> Result<Vec<Param>, DecodeError> {
    let _flags = cur.u8()?;
    let _iterations = cur.u32()?;
    let n = usize::from(s.params);
    if n == 0 {
        return Ok(Vec::new());
    }
    let null_bitmap = cur.bytes(n.div_ceil(8))?;
    if cur.u8()? == 1 {
        let mut types = Vec::with_capacity(n);
        for _ in 0..n {
            let t = cur.u8()?;
            let flags = cur.u8()?;
            types.push((t, flags & PARAM_UNSIGNED != 0));
        }
        s.types = Some(types);
    }
    let types = s.types.as_ref().ok_or(DecodeError("parameters were never bound"))?;
    let mut out = Vec::with_capacity(n);
    for (i, &(t, unsigned)) in types.iter().enumerate() {
        if let Some(data) = long_data.remove(&(i as u16)) {
            out.push(Param::Bytes(data));
        } else if null_bitmap[i / 8] & (1 << (i % 8)) != 0 {
            out.push(Param::Null);
        } else {
            out.push(decode_value(cur, t, unsigned)?);
        }
    }
    Ok(out)
}

fn int_param(v: i64, u: u64, unsigned: bool) -> Param {
    if unsigned {
        Param::UInt(u)
    } else {
        Param::Int(v)
    }
}

/// One binary-protocol value of type `t`.
pub fn decode_value(cur: &mut Cursor<'_>, t: u8, unsigned: bool) -> Result<Param, DecodeError> {
    use column_type as ct;
    Ok(match t {
        ct::NULL => Param::Null,
        ct::TINY => {
            let b = cur.u8()?;
            int_param(i64::from(b as i8), u64::from(b), unsigned)
        }
        ct::SHORT | ct::YEAR => {
            let v = cur.u16()?;
            int_param(i64::from(v as i16), u64::from(v), unsigned)
        }
        ct::LONG | ct::INT24 => {
            let v = cur.u32()?;
            int_param(i64::from(v as i32), u64::from(v), unsigned)
        }
        ct::LONGLONG => {
            let v = cur.u64()?;
            int_param(v as i64, v, unsigned)
        }
        ct::FLOAT => Param::Double(f64::from(f32::from_bits(cur.u32()?))),
        ct::DOUBLE => Param::Double(f64::from_bits(cur.u64()?)),
        ct::DATE | ct::DATETIME | ct::TIMESTAMP => {
            let len = cur.u8()?;
            let mut f = Cursor::new(cur.bytes(usize::from(len))?);
            let (mut year, mut month, mut day, mut hour, mut minute, mut second, mut micros) = (0, 0, 0, 0, 0, 0, 0);
            if len >= 4 {
                year = f.u16()?;
                month = f.u8()?;
                day = f.u8()?;
            }
            if len >= 7 {
                hour = f.u8()?;
                minute = f.u8()?;
                second = f.u8()?;
            }
            if len >= 11 {
                micros = f.u32()?;
            }
            if t == ct::DATE {
                Param::Date { year, month, day }
            } else {
                Param::DateTime { year, month, day, hour, minute, second, micros }
            }
        }
        ct::TIME => {
            let len = cur.u8()?;
            let mut f = Cursor::new(cur.bytes(usize::from(len))?);
            if len < 8 {
                Param::Time { negative: false, days: 0, hours: 0, minutes: 0, seconds: 0, micros: 0 }
            } else {
                let negative = f.u8()? != 0;
                let days = f.u32()?;
                let (hours, minutes, seconds) = (f.u8()?, f.u8()?, f.u8()?);
                let micros = if len >= 12 { f.u32()? } else { 0 };
                Param::Time { negative, days, hours, minutes, seconds, micros }
            }
        }
        // Decimals, strings, blobs, JSON, BIT, ENUM, SET, GEOMETRY.
        ct::DECIMAL | ct::NEWDECIMAL | ct::VARCHAR | 0x10 | 0xf5 | 0xf7..=0xff => {
            Param::Bytes(cur.lenenc_bytes()?.to_vec())
        }
        _ => return Err(DecodeError("unknown parameter type")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn execute_payload(id: u32, nulls: u8, types: Option<&[(u8, u8)]>, values: &[u8]) -> Vec<u8> {
        let mut p = id.to_le_bytes().to_vec();
        p.push(0);
        p.extend_from_slice(&1u32.to_le_bytes());
        p.push(nulls);
        match types {
            Some(ts) => {
                p.push(1);
                for (t, f) in ts {
                    p.extend_from_slice(&[*t, *f]);
                }
            }
            None => p.push(0),
        }
        p.extend_from_slice(values);
        p
    }

    #[test]
    fn types_are_remembered_when_not_resent() {
        let mut st = Statements::new(1 << 20);
        st.prepared(1, 2);
        let mut vals = 7i64.to_le_bytes().to_vec();
        vals.extend_from_slice(&[2, b'h', b'i']);
        let types = [(column_type::LONGLONG, 0x80), (column_type::VAR_STRING, 0)];
        let (_, params) = st.parse_execute(&execute_payload(1, 0, Some(&types), &vals)).unwrap();
        assert_eq!(params, vec![Param::UInt(7), Param::Bytes(b"hi".to_vec())]);
        let (_, params) = st.parse_execute(&execute_payload(1, 0b10, None, &8i64.to_le_bytes())).unwrap();
        assert_eq!(params, vec![Param::UInt(8), Param::Null]);
    }

    #[test]
    fn execute_without_ever_binding_types_is_an_error() {
        let mut st = Statements::new(1 << 20);
        st.prepared(1, 1);
        let e = st.parse_execute(&execute_payload(1, 0, None, &[1, 2, 3, 4])).unwrap_err();
        assert_eq!(e.code, 1210);
        assert_eq!(st.parse_execute(&execute_payload(9, 0, None, &[])).unwrap_err().code, 1243);
    }

    #[test]
    fn long_data_replaces_the_value_once() {
        let mut st = Statements::new(1 << 20);
        st.prepared(3, 1);
        for chunk in [&b"ab"[..], b"cd"] {
            let mut p = 3u32.to_le_bytes().to_vec();
            p.extend_from_slice(&0u16.to_le_bytes());
            p.extend_from_slice(chunk);
            st.send_long_data(&p);
        }
        let types = [(column_type::BLOB, 0)];
        let (_, params) = st.parse_execute(&execute_payload(3, 0, Some(&types), &[])).unwrap();
        assert_eq!(params, vec![Param::Bytes(b"abcd".to_vec())]);
        let (_, params) = st.parse_execute(&execute_payload(3, 0, None, &[1, b'z'])).unwrap();
        assert_eq!(params, vec![Param::Bytes(b"z".to_vec())]);
    }

    #[test]
    fn temporal_params_decode() {
        let mut c = Cursor::new(&[7, 0xe8, 0x07, 2, 29, 13, 5, 9]);
        assert_eq!(
            decode_value(&mut c, column_type::DATETIME, false).unwrap(),
            Param::DateTime { year: 2024, month: 2, day: 29, hour: 13, minute: 5, second: 9, micros: 0 }
        );
        let mut c = Cursor::new(&[8, 1, 2, 0, 0, 0, 3, 4, 5]);
        assert_eq!(
            decode_value(&mut c, column_type::TIME, false).unwrap(),
            Param::Time { negative: true, days: 2, hours: 3, minutes: 4, seconds: 5, micros: 0 }
        );
    }
}
