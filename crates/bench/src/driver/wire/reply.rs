//! The reply to one command (COM_STMT_EXECUTE or COM_QUERY), parsed as its
//! bytes arrive, just enough to count rows and find errors.
//!
//! States, and the packet that moves each on ([`Reply::feed`]):
//!
//! | state | packet | next |
//! |---|---|---|
//! | `First` | OK (0x00) | done, or `First` if more results follow |
//! | `First` | ERR (0xFF) | done with the error |
//! | `First` | column count n | `Columns(n)` |
//! | `Columns(k > 0)` | column definition | `Columns(k - 1)` |
//! | `Columns(0)` | EOF (0xFE) — not sent under CLIENT_DEPRECATE_EOF | `Rows` |
//! | `Rows` | row | `Rows` |
//! | `Rows` | EOF, or OK with header 0xFE under CLIENT_DEPRECATE_EOF | done, or `First` if more results follow |
//! | `Rows` | ERR | done with the error |
//!
//! Invariants:
//! 1. `feed` consumes whole packets only, and none after the one that
//!    ended the reply (the bytes after it belong to no command).
//! 2. A reply ends exactly once; a new command needs a new [`Reply`]
//!    (or [`Reply::reset`]).

use super::packet::{self, eof_status, ok_status, parse_err, protocol, Reader, ServerError, WireError, MORE_RESULTS};

/// How a reply ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// OK, or result sets with this many rows in all.
    Done { rows: u64 },
    /// ERR.
    Failed(ServerError),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    First,
    /// Column definitions still to come.
    Columns(u64),
    Rows,
}

/// One reply being read.
#[derive(Debug, Clone)]
pub struct Reply {
    state: State,
    /// CLIENT_DEPRECATE_EOF was agreed: no EOF after column definitions,
    /// and an OK packet (header 0xFE) ends the rows.
    deprecate_eof: bool,
    rows: u64,
}

impl Reply {
    pub fn new(deprecate_eof: bool) -> Self {
        Reply { state: State::First, deprecate_eof, rows: 0 }
    }

    /// Ready for the next command's reply.
    pub fn reset(&mut self) {
        self.state = State::First;
        self.rows = 0;
    }

    /// Consumes the complete packets at the start of `buf`: returns the
    /// bytes consumed and, once the reply ended, how.
    pub fn feed(&mut self, buf: &[u8]) -> Result<(usize, Option<Outcome>), WireError> {
        let mut pos = 0;
        while let Some((_, len)) = packet::next(&buf[pos..])? {
            let payload = &buf[pos + 4..pos + 4 + len];
            pos += 4 + len;
            if let Some(outcome) = self.packet(payload)? {
                return Ok((pos, Some(outcome)));
            }
        }
        Ok((pos, None))
    }

    fn packet(&mut self, p: &[u8]) -> Result<Option<Outcome>, WireError> {
        let head = *p.first().ok_or_else(|| protocol("an empty packet in a reply"))?;
        match self.state {
            State::First => match head {
                0x00 => self.end(ok_status(p)?),
                0xFF => Ok(Some(Outcome::Failed(parse_err(p)?))),
                0xFB => Err(protocol("the server asked for LOCAL INFILE")),
                _ => {
                    let n = Reader::new(p).lenenc_int()?;
                    if n == 0 {
                        return Err(protocol("a result set of no columns"));
                    }
                    self.state = State::Columns(n);
                    Ok(None)
                }
            },
            State::Columns(0) => {
                // Only without CLIENT_DEPRECATE_EOF (else Rows follows at once).
                if head != 0xFE {
                    return Err(protocol("no EOF after the column definitions"));
                }
                self.state = State::Rows;
                Ok(None)
            }
            State::Columns(k) => {
                self.state = if k == 1 && self.deprecate_eof { State::Rows } else { State::Columns(k - 1) };
                Ok(None)
            }
            State::Rows => match head {
                0xFF => Ok(Some(Outcome::Failed(parse_err(p)?))),
                0xFE if !self.deprecate_eof && p.len() < 9 => self.end(eof_status(p)?),
                0xFE if self.deprecate_eof && p.len() < packet::MAX_PAYLOAD => self.end(ok_status(p)?),
                _ => {
                    self.rows += 1;
                    Ok(None)
                }
            },
        }
    }

    /// A result (or OK) ended with `status`.
    fn end(&mut self, status: u16) -> Result<Option<Outcome>, WireError> {
        if status & MORE_RESULTS != 0 {
            self.state = State::First;
            return Ok(None);
        }
        Ok(Some(Outcome::Done { rows: self.rows }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(out: &mut Vec<u8>, seq: u8, payload: &[u8]) {
        let at = packet::begin(out, seq);
        out.extend_from_slice(payload);
        packet::finish(out, at).expect("small");
    }

    const OK: &[u8] = b"\x00\x00\x00\x02\x00\x00\x00";
    const EOF: &[u8] = b"\xfe\x00\x00\x02\x00";
    const OK_FE: &[u8] = b"\xfe\x00\x00\x02\x00\x00\x00";

    /// A 1-column result of `rows` binary rows, both ways of ending.
    fn result_set(deprecate_eof: bool, rows: u8) -> Vec<u8> {
        let mut b = Vec::new();
        pkt(&mut b, 1, b"\x01");
        pkt(
            &mut b,
            2,
            b"\x03def\x06sbtest\x07sbtest1\x07sbtest1\x01c\x01c\x0c\x2d\x00\xe0\x01\x00\x00\xfe\x00\x00\x00\x00\x00",
        );
        if !deprecate_eof {
            pkt(&mut b, 3, EOF);
        }
        for i in 0..rows {
            pkt(&mut b, 4 + i, b"\x00\x00\x03abc");
        }
        pkt(&mut b, 4 + rows, if deprecate_eof { OK_FE } else { EOF });
        b
    }

    #[test]
    fn counts_rows_with_and_without_deprecate_eof() {
        for deprecate_eof in [false, true] {
            let b = result_set(deprecate_eof, 3);
            let mut r = Reply::new(deprecate_eof);
            assert_eq!(r.feed(&b).expect("parses"), (b.len(), Some(Outcome::Done { rows: 3 })));
            // Byte by byte: nothing ends early, and it ends at the last byte.
            let mut r = Reply::new(deprecate_eof);
            let mut start = 0;
            for end in 1..=b.len() {
                let (used, out) = r.feed(&b[start..end]).expect("parses");
                start += used;
                assert_eq!(out.is_some(), end == b.len(), "deprecate_eof={deprecate_eof} at byte {end}");
            }
        }
    }

    #[test]
    fn ok_err_and_more_results() {
        let mut b = Vec::new();
        pkt(&mut b, 1, OK);
        assert_eq!(Reply::new(false).feed(&b).expect("parses").1, Some(Outcome::Done { rows: 0 }));
        let mut b = Vec::new();
        pkt(&mut b, 1, b"\xff\xbd\x04#40001Deadlock found when trying to get lock");
        match Reply::new(true).feed(&b).expect("parses").1 {
            Some(Outcome::Failed(e)) => assert_eq!(e.code, 1213),
            other => panic!("{other:?}"),
        }
        // A result with SERVER_MORE_RESULTS_EXISTS, then OK: one reply.
        let mut b = Vec::new();
        pkt(&mut b, 1, b"\x01");
        pkt(&mut b, 2, b"\x03def");
        pkt(&mut b, 3, EOF);
        pkt(&mut b, 4, b"\x01x");
        pkt(&mut b, 5, b"\xfe\x00\x00\x0a\x00");
        pkt(&mut b, 6, OK);
        let tail = b.len();
        pkt(&mut b, 0, OK);
        assert_eq!(Reply::new(false).feed(&b).expect("parses"), (tail, Some(Outcome::Done { rows: 1 })));
    }
}
