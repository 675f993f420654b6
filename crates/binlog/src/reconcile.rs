//! The log and the engine made to agree at startup (docs/ARCHITECTURE.md
//! "Binary log", "Crash, log and engine").
//!
//! The engine records, in the mini-transaction that commits a logged
//! transaction, that transaction's position (file number, end offset),
//! and commits in log order (`order.rs`); its recovery returns the
//! highest recorded position. Every transaction of the log up to that
//! position is committed in the engine; none after it is (its engine
//! commit never reached the redo log, so no client was told it
//! committed). At open, before the new file is started, the log is cut
//! back to that position: in the position's file, at the first
//! transaction that starts at or after it; in every later file, at its
//! first transaction (the file keeps its header events). What follows a
//! cut in a file (transactions, a ROTATE) is dropped, and logged.
//!
//! Positions the log cannot place (see `reconcile`): the engine's file
//! is older than the log's first file (PURGE removed it: every file the
//! log holds comes after the position, so all their transactions are
//! cut); newer than its last file, or past the end of its own file (the
//! log lost what the engine committed: `sync_binlog` was not 1, or files
//! were removed by hand) — nothing can be cut then, and it is reported.
//! No position at all (the log was off at the last start, or the data
//! directory predates the field): nothing is cut.

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;
use std::path::Path;

use crate::event::{kind, FLAGS_OFFSET, FLAG_IN_USE, HEADER_LEN, MAGIC};
use crate::log::{file_number, LogError};

/// What a cut dropped from one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    pub file: String,
    /// The file's new length.
    pub at: u64,
    /// Transactions (and DDL statements) dropped.
    pub transactions: usize,
    pub bytes: u64,
    /// The GTIDs of the GTID events dropped: never committed, so not
    /// executed (a later file's PREVIOUS_GTIDS, written before the crash,
    /// may still name them; `gtid_files::recover` takes them out).
    pub gtids: crate::GtidSet,
}

/// The GTIDs of the GTID events in `bytes` from `from` on (whole events).
fn gtids_from(bytes: &[u8], from: usize) -> crate::GtidSet {
    let mut out = crate::GtidSet::new();
    let mut pos = from;
    while pos + HEADER_LEN <= bytes.len() {
        let h = &bytes[pos..pos + HEADER_LEN];
        let len = u32::from_le_bytes([h[9], h[10], h[11], h[12]]) as usize;
        if len < HEADER_LEN || pos + len > bytes.len() {
            break;
        }
        if h[4] == kind::GTID {
            if let Some(g) = crate::event::gtid_of(&bytes[pos + HEADER_LEN..pos + len]) {
                out.add(&g);
            }
        }
        pos += len;
    }
    out
}

/// Transaction starts (ANONYMOUS_GTID, or a GTID event) in `bytes` (a
/// whole file), by offset, walking whole events only.
fn transaction_starts(bytes: &[u8]) -> Vec<u64> {
    let mut out = Vec::new();
    let mut pos = MAGIC.len();
    while pos + HEADER_LEN <= bytes.len() {
        let h = &bytes[pos..pos + HEADER_LEN];
        let len = u32::from_le_bytes([h[9], h[10], h[11], h[12]]) as usize;
        if len < HEADER_LEN || pos + len > bytes.len() {
            break;
        }
        if h[4] == kind::ANONYMOUS_GTID || h[4] == kind::GTID {
            out.push(pos as u64);
        }
        pos += len;
    }
    out
}

/// Cuts `path` at its first transaction starting at or after `from`, and
/// clears its IN_USE flag. `None` when there was nothing to cut.
fn cut_file(path: &Path, name: &str, from: u64) -> Result<Option<Cut>, LogError> {
    let err = |e: std::io::Error| LogError(format!("cannot cut binary log '{}': {e}", path.display()));
    let bytes = std::fs::read(path).map_err(err)?;
    let starts: Vec<u64> = transaction_starts(&bytes).into_iter().filter(|&s| s >= from).collect();
    let Some(&at) = starts.first() else { return Ok(None) };
    let f = OpenOptions::new().read(true).write(true).open(path).map_err(err)?;
    f.set_len(at).map_err(err)?;
    let flags_at = MAGIC.len() + FLAGS_OFFSET;
    if bytes.len() > flags_at + 2 {
        let flags = u16::from_le_bytes([bytes[flags_at], bytes[flags_at + 1]]);
        if flags & FLAG_IN_USE != 0 {
            f.write_all_at(&(flags & !FLAG_IN_USE).to_le_bytes(), flags_at as u64).map_err(err)?;
        }
    }
    f.sync_all().map_err(err)?;
    let gtids = gtids_from(&bytes, at as usize);
    Ok(Some(Cut { file: name.to_string(), at, transactions: starts.len(), bytes: bytes.len() as u64 - at, gtids }))
}

/// Cuts the log (`files`, oldest first, in `dir`) back to the engine's
/// position `(file number, end offset)`. Returns what was cut.
pub fn reconcile(dir: &Path, files: &[String], engine: (u32, u64)) -> Result<Vec<Cut>, LogError> {
    let (file_no, end) = engine;
    let (Some(first), Some(last)) = (files.first(), files.last()) else { return Ok(Vec::new()) };
    let (first_no, last_no) = (file_number(first), file_number(last));
    if file_no > last_no {
        tracing::error!(
            "binary log: the engine's last logged commit ends in file number {file_no} at {end}, past the \
             log's last file '{last}': the log lacks transactions the engine committed (sync_binlog was not \
             1, or files were removed); nothing cut"
        );
        return Ok(Vec::new());
    }
    if file_no < first_no {
        tracing::warn!(
            "binary log: the engine's last logged commit is in file number {file_no}, before the log's first \
             file '{first}' (purged): every transaction of the log's files comes after it"
        );
    }
    let mut cuts = Vec::new();
    for name in files.iter().filter(|f| file_number(f) >= file_no) {
        let path = dir.join(name);
        let from = if file_number(name) == file_no {
            let len = std::fs::metadata(&path).map_err(|e| LogError(format!("'{}': {e}", path.display())))?.len();
            if len < end {
                tracing::error!(
                    "binary log '{name}' ends at {len}, before the engine's last logged commit (at {end}): the \
                     log lacks transactions the engine committed (sync_binlog was not 1)"
                );
            }
            end
        } else {
            0
        };
        if let Some(c) = cut_file(&path, name, from)? {
            tracing::warn!(
                "binary log '{}': cut at {} after the engine's last logged commit (file number {file_no}, \
                 offset {end}), dropping {} transactions ({} bytes) the engine did not commit",
                c.file,
                c.at,
                c.transactions,
                c.bytes
            );
            cuts.push(c);
        }
    }
    Ok(cuts)
}
