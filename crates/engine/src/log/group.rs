//! A group: the redo records of one mini-transaction, the unit the log
//! appends and recovery replays atomically.
//!
//! ```text
//!  0  u32  length of the whole group, a multiple of 8
//!  4  u32  CRC-32C of bytes [8, length)
//!  8  u64  start LSN of the group (tells a stale group from a previous
//!          pass over the circular file)
//! 16       records (log::record), then zero padding (record type 0 ends)
//! ```
//! Recovery reads groups from the checkpoint LSN and stops at the first
//! whose header or checksum does not match: that is the end of the log.

use crate::Lsn;

pub const HEADER: usize = 16;

/// A fresh group buffer: the header's room, then records get appended.
pub fn new_buffer() -> Vec<u8> {
    let mut v = Vec::with_capacity(256);
    v.resize(HEADER, 0);
    v
}

/// The length the group will have once padded.
pub fn padded_len(buf: &[u8]) -> usize {
    buf.len().next_multiple_of(8)
}

/// Pads the group and fills in its header for start LSN `lsn`.
pub fn seal(buf: &mut Vec<u8>, lsn: Lsn) {
    buf.resize(padded_len(buf), 0);
    let len = buf.len() as u32;
    buf[0..4].copy_from_slice(&len.to_le_bytes());
    buf[8..16].copy_from_slice(&lsn.to_le_bytes());
    let crc = crc32c::crc32c(&buf[8..]);
    buf[4..8].copy_from_slice(&crc.to_le_bytes());
}

/// Parses a header: (length, crc, start LSN).
pub fn header(h: &[u8]) -> (usize, u32, Lsn) {
    (
        u32::from_le_bytes(h[0..4].try_into().expect("4")) as usize,
        u32::from_le_bytes(h[4..8].try_into().expect("4")),
        u64::from_le_bytes(h[8..16].try_into().expect("8")),
    )
}

/// Whether `group` is intact and starts at `lsn`.
pub fn verify(group: &[u8], lsn: Lsn) -> bool {
    if group.len() < HEADER {
        return false;
    }
    let (len, crc, start) = header(group);
    len == group.len() && start == lsn && crc == crc32c::crc32c(&group[8..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_groups_verify_and_damaged_ones_do_not() {
        let mut g = new_buffer();
        g.extend_from_slice(b"some records");
        seal(&mut g, 4096);
        assert_eq!(g.len() % 8, 0);
        assert!(verify(&g, 4096));
        assert!(!verify(&g, 4104), "a group from another pass over the file");
        let mut bad = g.clone();
        bad[20] ^= 1;
        assert!(!verify(&bad, 4096));
    }
}
