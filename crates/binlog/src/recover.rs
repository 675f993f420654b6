//! Checking the last file at open: a crash can leave it with IN_USE set
//! and a torn tail (a transaction written in part). The file is walked
//! event by event (lengths, and CRCs when the file has them) and cut
//! after the last whole transaction: an XID, a DDL QUERY (a QUERY that is
//! not `BEGIN`), or the file's header events. Then IN_USE is cleared.
//!
//! This recovers the log alone; `reconcile.rs` then cuts what the engine
//! did not commit.

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;
use std::path::Path;

use crate::crc::crc32;
use crate::event::{kind, Checksum, CHECKSUM_LEN, FLAGS_OFFSET, FLAG_IN_USE, HEADER_LEN, MAGIC};
use crate::log::LogError;

/// The offset just past the last whole transaction of `bytes` (a whole
/// file), or `None` when the file does not start with the magic and an FDE.
pub fn last_whole_end(bytes: &[u8]) -> Option<u64> {
    if bytes.len() < MAGIC.len() + HEADER_LEN || bytes[..4] != MAGIC {
        return None;
    }
    let mut pos = MAGIC.len();
    let mut good = None;
    let mut crc = false;
    let mut in_trx = false;
    // Inside BEGIN ... (XID | COMMIT).
    let mut in_begin = false;
    while pos + HEADER_LEN <= bytes.len() {
        let h = &bytes[pos..pos + HEADER_LEN];
        let ty = h[4];
        let len = u32::from_le_bytes([h[9], h[10], h[11], h[12]]) as usize;
        if len < HEADER_LEN || pos + len > bytes.len() {
            break;
        }
        let ev = &bytes[pos..pos + len];
        if ty == kind::FORMAT_DESCRIPTION {
            // The algorithm byte precedes the 4-byte checksum slot.
            crc = len > HEADER_LEN + CHECKSUM_LEN && ev[len - CHECKSUM_LEN - 1] == 1;
            let mut h2 = ev[..len - CHECKSUM_LEN].to_vec();
            let flags = u16::from_le_bytes([h2[FLAGS_OFFSET], h2[FLAGS_OFFSET + 1]]) & !FLAG_IN_USE;
            h2[FLAGS_OFFSET..FLAGS_OFFSET + 2].copy_from_slice(&flags.to_le_bytes());
            if crc32(&h2).to_le_bytes() != ev[len - CHECKSUM_LEN..] {
                break;
            }
        } else if crc
            && (len < HEADER_LEN + CHECKSUM_LEN || crc32(&ev[..len - CHECKSUM_LEN]).to_le_bytes() != ev[len - 4..])
        {
            break;
        }
        pos += len;
        match ty {
            kind::FORMAT_DESCRIPTION | kind::PREVIOUS_GTIDS | kind::ROTATE | kind::STOP if !in_trx => {
                good = Some(pos as u64)
            }
            kind::XID => {
                in_trx = false;
                in_begin = false;
                good = Some(pos as u64);
            }
            kind::ANONYMOUS_GTID => in_trx = true,
            kind::QUERY => {
                let body = &ev[HEADER_LEN..len - if crc { CHECKSUM_LEN } else { 0 }];
                let text = query_text(body).unwrap_or_default();
                if text.eq_ignore_ascii_case(b"BEGIN") {
                    in_trx = true;
                    in_begin = true;
                } else if !in_begin || text.eq_ignore_ascii_case(b"COMMIT") {
                    // A DDL statement, or the COMMIT of a BEGIN group.
                    in_trx = false;
                    in_begin = false;
                    good = Some(pos as u64);
                }
            }
            _ => {}
        }
    }
    good
}

/// The SQL text of a QUERY event's body.
fn query_text(body: &[u8]) -> Option<&[u8]> {
    if body.len() < 13 {
        return None;
    }
    let db_len = body[8] as usize;
    let sv_len = u16::from_le_bytes([body[11], body[12]]) as usize;
    let start = 13 + sv_len + db_len + 1;
    body.get(start..)
}

/// Cuts the file at `path` after its last whole transaction and clears
/// its IN_USE flag.
pub fn close_torn(path: &Path, _checksum: Checksum) -> Result<(), LogError> {
    let err = |e: std::io::Error| LogError(format!("cannot recover binary log '{}': {e}", path.display()));
    let bytes = std::fs::read(path).map_err(err)?;
    let Some(end) = last_whole_end(&bytes) else {
        return Err(LogError(format!("'{}' is not a binary log file", path.display())));
    };
    let f = OpenOptions::new().read(true).write(true).open(path).map_err(err)?;
    if end < bytes.len() as u64 {
        tracing::warn!("binary log '{}': cut the torn tail at {end} (was {} bytes)", path.display(), bytes.len());
        f.set_len(end).map_err(err)?;
    }
    let at = MAGIC.len() + FLAGS_OFFSET;
    let flags = u16::from_le_bytes([bytes[at], bytes[at + 1]]);
    if flags & FLAG_IN_USE != 0 {
        f.write_all_at(&(flags & !FLAG_IN_USE).to_le_bytes(), at as u64).map_err(err)?;
    }
    f.sync_all().map_err(err)
}
