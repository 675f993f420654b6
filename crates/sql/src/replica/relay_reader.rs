//! The applier's reads of one relay log file, through a buffer: one
//! `pread` of up to [`CHUNK`] bytes serves the events in it, where reading
//! each event by itself took two `pread`s and a zeroed allocation (9 % of
//! the serial applier's time, measured in docs/BENCHMARKS.md "The
//! replica's apply path").
//!
//! Invariant: the buffer holds only bytes below the `limit` it was filled
//! under (the relay log's synced end, mod.rs invariant 2). Those bytes are
//! never rewritten (a relay file only grows, and every START begins a new
//! relay log), so the buffer stays valid while `limit` moves on; a read
//! past it fills again from the event's start.

use std::fs::File;
use std::os::unix::fs::FileExt;

use quire_binlog::event::HEADER_LEN;

use super::applier::relay_error;
use crate::error::Result;

/// Bytes read at a time (more when an event is larger).
const CHUNK: usize = 256 << 10;

pub(super) struct RelayReader {
    /// The relay file's number.
    pub(super) file_no: u32,
    pub(super) file: File,
    buf: Vec<u8>,
    /// The file offset of `buf[0]`.
    start: u64,
}

impl RelayReader {
    pub(super) fn new(file_no: u32, file: File) -> RelayReader {
        RelayReader { file_no, file, buf: Vec::new(), start: 0 }
    }

    /// Makes the buffer cover `[pos, pos + need)`, reading no byte at or
    /// past `limit` (the invariant). The caller checked `pos + need <= limit`.
    fn cover(&mut self, pos: u64, need: usize, limit: u64) -> Result<()> {
        let end = self.start + self.buf.len() as u64;
        if pos >= self.start && pos + need as u64 <= end {
            return Ok(());
        }
        let len = (need.max(CHUNK) as u64).min(limit - pos) as usize;
        self.buf.clear();
        self.buf.resize(len, 0);
        self.start = pos;
        self.file.read_exact_at(&mut self.buf, pos).map_err(|e| {
            self.buf.clear();
            relay_error(format!("reading the relay log: {e}"))
        })
    }

    /// The event at `pos`, whole and ending at or before `limit`.
    pub(super) fn event(&mut self, pos: u64, limit: u64) -> Result<Vec<u8>> {
        let bad = |len: u64| relay_error(format!("a bad event of {len} bytes at {pos} in the relay log"));
        if pos + HEADER_LEN as u64 > limit {
            return Err(bad(limit.saturating_sub(pos)));
        }
        self.cover(pos, HEADER_LEN, limit)?;
        let at = (pos - self.start) as usize;
        let h = &self.buf[at..at + HEADER_LEN];
        let len = u64::from(u32::from_le_bytes([h[9], h[10], h[11], h[12]]));
        if len < HEADER_LEN as u64 || pos + len > limit {
            return Err(bad(len));
        }
        self.cover(pos, len as usize, limit)?;
        let at = (pos - self.start) as usize;
        Ok(self.buf[at..at + len as usize].to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// An event of `len` bytes whose header says so, filled with `fill`.
    fn event(len: usize, fill: u8) -> Vec<u8> {
        let mut e = vec![fill; len];
        e[9..13].copy_from_slice(&(len as u32).to_le_bytes());
        e
    }

    #[test]
    fn events_are_read_whole_across_chunks_and_a_growing_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("relay.000001");
        let mut f = File::create(&path).unwrap();
        f.write_all(b"\xfebin").unwrap();
        // Small events, one larger than a chunk, small ones again.
        let sizes = [40usize, 100, 5000, CHUNK + 300, 19, 77, 64 << 10, 33];
        let events: Vec<Vec<u8>> = sizes.iter().enumerate().map(|(i, &n)| event(n, i as u8 + 1)).collect();
        for e in &events {
            f.write_all(e).unwrap();
        }
        let total = 4 + sizes.iter().sum::<usize>() as u64;
        let mut r = RelayReader::new(1, File::open(&path).unwrap());
        // The synced end first covers only the first three events.
        let mut limit = 4 + 40 + 100 + 5000;
        let mut pos = 4;
        for (i, e) in events.iter().enumerate() {
            if pos + e.len() as u64 > limit {
                assert!(r.event(pos, limit).is_err(), "event {i} must not be read past the limit");
                limit = total;
            }
            assert_eq!(&r.event(pos, limit).unwrap(), e, "event {i}");
            pos += e.len() as u64;
        }
        // Reading again from an earlier position (a retried transaction).
        assert_eq!(r.event(4 + 40, limit).unwrap(), events[1]);
    }

    #[test]
    fn a_header_claiming_fewer_bytes_than_a_header_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("relay.000001");
        std::fs::write(&path, [&b"\xfebin"[..], &event(19, 0)[..], &[0u8; 30][..]].concat()).unwrap();
        let mut r = RelayReader::new(1, File::open(&path).unwrap());
        assert!(r.event(4, 53).is_ok());
        let e = r.event(23, 53).unwrap_err();
        assert_eq!(e.code, 1594, "{}", e.message);
    }
}
