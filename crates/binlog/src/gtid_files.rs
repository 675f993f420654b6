//! The GTIDs the log's files hold, read at open (after the torn tail and
//! the engine reconciliation cut the last files): each file's
//! PREVIOUS_GTIDS and the GTIDs of its GTID (33) events.
//!
//! From them (MySQL's `MYSQL_BIN_LOG::init_gtid_sets`, without the
//! `mysql.gtid_executed` table, which quire does not keep):
//! - `gtid_executed` = the last file's PREVIOUS_GTIDS ∪ its GTIDs;
//! - `gtid_purged` = `gtid_executed` − the GTIDs of every file's events:
//!   what the server executed and no remaining file holds (removed by
//!   PURGE BINARY LOGS, or declared by SET GLOBAL gtid_purged, which
//!   rotates the log so that the next file's PREVIOUS_GTIDS holds it).
//!
//! Files are read sequentially, event headers only except PREVIOUS_GTIDS
//! and GTID bodies. A file whose events do not frame stops being read at
//! that point (the torn-tail check already cut the last file; an older
//! file that does not frame is reported).

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use crate::event::{gtid_of, kind, HEADER_LEN, MAGIC};
use crate::gtid::GtidSet;
use crate::log::LogError;

/// What one file says about GTIDs.
#[derive(Debug, Default)]
pub struct FileGtids {
    /// Its PREVIOUS_GTIDS (empty when it has none).
    pub previous: GtidSet,
    /// The GTIDs of its GTID events.
    pub logged: GtidSet,
}

/// Reads `path`'s GTIDs.
pub fn scan(path: &Path) -> Result<FileGtids, LogError> {
    let err = |e: std::io::Error| LogError(format!("cannot read binary log '{}': {e}", path.display()));
    let mut r = BufReader::with_capacity(1 << 16, File::open(path).map_err(err)?);
    let mut out = FileGtids::default();
    let mut magic = [0u8; 4];
    if r.read_exact(&mut magic).is_err() || magic != MAGIC {
        return Ok(out);
    }
    let mut h = [0u8; HEADER_LEN];
    loop {
        if r.read_exact(&mut h).is_err() {
            break;
        }
        let len = u32::from_le_bytes([h[9], h[10], h[11], h[12]]) as usize;
        if len < HEADER_LEN {
            tracing::error!("binary log '{}': an event does not frame; GTIDs after it are not read", path.display());
            break;
        }
        let body_len = len - HEADER_LEN;
        match h[4] {
            kind::PREVIOUS_GTIDS | kind::GTID => {
                let mut body = vec![0u8; body_len];
                if r.read_exact(&mut body).is_err() {
                    break;
                }
                if h[4] == kind::GTID {
                    if let Some(g) = gtid_of(&body) {
                        out.logged.add(&g);
                    }
                } else {
                    // The set, then maybe a 4-byte checksum: decode the
                    // set's own length.
                    out.previous = decode_prefix(&body).ok_or_else(|| {
                        LogError(format!("binary log '{}': a PREVIOUS_GTIDS event does not decode", path.display()))
                    })?;
                }
            }
            _ => {
                if r.seek_relative(body_len as i64).is_err() {
                    break;
                }
            }
        }
    }
    Ok(out)
}

/// Decodes a GTID set at the start of `body` (followed by a checksum or
/// nothing).
pub fn decode_prefix(body: &[u8]) -> Option<GtidSet> {
    GtidSet::decode(body).or_else(|| GtidSet::decode(body.get(..body.len().checked_sub(4)?)?))
}

/// The log's `gtid_executed` and `gtid_purged` from its files (oldest
/// first, in `dir`), without `cut`: the GTIDs startup's reconciliation
/// just cut from the files (a later file's PREVIOUS_GTIDS, written at a
/// rotation before the crash, still names those of an earlier file).
pub fn recover(dir: &Path, files: &[String], cut: &GtidSet) -> Result<(GtidSet, GtidSet), LogError> {
    let mut logged = GtidSet::new();
    let mut executed = GtidSet::new();
    for (i, name) in files.iter().enumerate() {
        let g = scan(&dir.join(name))?;
        logged.union(&g.logged);
        if i + 1 == files.len() {
            executed = g.previous;
            executed.union(&g.logged);
        }
    }
    let executed = executed.subtract(cut);
    let purged = executed.subtract(&logged);
    Ok((executed, purged))
}

/// The PREVIOUS_GTIDS of `path` (its second event), read without the
/// rest of the file; empty when it has none.
pub fn read_previous(path: &Path) -> Result<GtidSet, LogError> {
    let err = |e: std::io::Error| LogError(format!("cannot read binary log '{}': {e}", path.display()));
    let mut r = BufReader::new(File::open(path).map_err(err)?);
    let mut magic = [0u8; 4];
    r.read_exact(&mut magic).map_err(err)?;
    let mut h = [0u8; HEADER_LEN];
    for _ in 0..2 {
        r.read_exact(&mut h).map_err(err)?;
        let len = u32::from_le_bytes([h[9], h[10], h[11], h[12]]) as usize;
        let body_len =
            len.checked_sub(HEADER_LEN).ok_or_else(|| LogError(format!("'{}': bad event", path.display())))?;
        if h[4] == kind::PREVIOUS_GTIDS {
            let mut body = vec![0u8; body_len];
            r.read_exact(&mut body).map_err(err)?;
            return decode_prefix(&body).ok_or_else(|| {
                LogError(format!("binary log '{}': a PREVIOUS_GTIDS event does not decode", path.display()))
            });
        }
        r.seek_relative(body_len as i64).map_err(err)?;
    }
    Ok(GtidSet::new())
}
