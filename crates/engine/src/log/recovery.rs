//! Crash recovery: replay the redo log from the last checkpoint.
//!
//! 1. Read groups from the checkpoint LSN; a group whose header names
//!    another LSN, or whose checksum fails, is the end of the log (the tail
//!    of the last write before the crash, or older data of the circular
//!    file).
//! 2. For each group, latch its pages; a record applies to a page whose
//!    LSN is below the group's end LSN (so replay is idempotent: a page
//!    written after the change is left alone, and a crash during recovery
//!    just means recovering again). A page whose first record in the group
//!    creates it (PAGE_ZERO) is not read: everything after its creation is
//!    in the log.
//! 3. Replayed pages are stamped and dirtied like any change; the caller
//!    then resumes the log at the end found and checkpoints.
//!
//! Records for spaces that no longer exist (dropped tables) are skipped.
//! So are, from the first one on, the records of a table space one of
//! whose pages cannot be read (fails its checksum): the space is reported
//! in `damaged`, the caller discards its pages and marks its table corrupt,
//! and every other table recovers. Damage in the system space stays fatal.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::record::{self, Records};
use super::{group, RedoLog};
use crate::buffer::{BufferPool, ExclusiveGuard};
use crate::page;
use crate::{Error, Lsn, PageId, Result};

#[derive(Debug, Default, Clone)]
pub struct RecoveryReport {
    pub start_lsn: Lsn,
    pub end_lsn: Lsn,
    pub groups: u64,
    pub records: u64,
    /// Distinct pages changed by replay.
    pub pages: usize,
    pub elapsed: Duration,
    /// Torn pages restored from the doublewrite buffer before replay.
    pub repaired: Vec<PageId>,
    /// Torn pages found that could not be restored (DETECT_ONLY).
    pub torn_unrepaired: Vec<PageId>,
    /// Table spaces whose replay stopped at a page that cannot be read:
    /// space -> (that page, why).
    pub damaged: HashMap<crate::SpaceId, (PageId, String)>,
}

/// Replays the log from `from`; returns where it ends.
pub fn recover(log: &RedoLog, pool: &BufferPool, from: Lsn) -> Result<RecoveryReport> {
    let started = Instant::now();
    let mut report = RecoveryReport { start_lsn: from, end_lsn: from, ..Default::default() };
    let max = log.max_group();
    let cap = log.capacity();
    let mut touched: std::collections::HashSet<PageId> = std::collections::HashSet::new();
    let mut lsn = from;
    let mut buf = Vec::new();
    loop {
        if lsn - from + group::HEADER as u64 > cap {
            break;
        }
        let mut h = [0u8; group::HEADER];
        log.file().read_at(lsn, &mut h)?;
        let (len, _, start) = group::header(&h);
        if start != lsn || len < group::HEADER || len > max || len % 8 != 0 || lsn - from + len as u64 > cap {
            break;
        }
        buf.resize(len, 0);
        log.file().read_at(lsn, &mut buf)?;
        if !group::verify(&buf, lsn) {
            break;
        }
        let end = lsn + len as u64;
        report.records += apply_group(pool, &buf[group::HEADER..], lsn, end, &mut touched, &mut report.damaged)?;
        report.groups += 1;
        lsn = end;
    }
    report.end_lsn = lsn;
    report.pages = touched.len();
    report.elapsed = started.elapsed();
    Ok(report)
}

fn apply_group(
    pool: &BufferPool,
    payload: &[u8],
    start: Lsn,
    end: Lsn,
    touched: &mut std::collections::HashSet<PageId>,
    damaged: &mut HashMap<crate::SpaceId, (PageId, String)>,
) -> Result<u64> {
    let malformed =
        |page: PageId| Error::corruption(page, format!("malformed redo record in the group at LSN {start}"));
    // The pages of the group, latched until all its records are applied:
    // (guard, whether records apply to it).
    let mut pages: HashMap<PageId, (ExclusiveGuard<'_>, bool)> = HashMap::new();
    let mut recs = Records::new(payload);
    let mut n = 0;
    while let Some(rec) = recs.next_record().map_err(|_| malformed(PageId::new(0, 0)))? {
        n += 1;
        let id = rec.page;
        let (g, applies) = match pages.entry(id) {
            std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                if pool.files().get(id.space).is_err() || damaged.contains_key(&id.space) {
                    continue; // the space was dropped, or is damaged
                }
                let entry = if rec.ty == record::PAGE_ZERO {
                    (pool.create_page(id)?, true)
                } else {
                    let g = match pool.fix_exclusive(id) {
                        Ok(g) => g,
                        Err(e) if e.is_corruption() && id.space != crate::SYSTEM_SPACE => {
                            tracing::error!("recovery: skipping the rest of space {}'s redo: {e}", id.space);
                            let why = match e {
                                Error::Corruption { reason, .. } => reason,
                                other => other.to_string(),
                            };
                            damaged.insert(id.space, (id, why));
                            continue;
                        }
                        Err(e) => return Err(e),
                    };
                    let applies = page::page_lsn(g.data()) < end;
                    (g, applies)
                };
                v.insert(entry)
            }
        };
        if *applies {
            record::apply(&rec, g.data_mut()).map_err(|_| malformed(id))?;
        }
    }
    for (id, (mut g, applies)) in pages {
        if applies && !damaged.contains_key(&id.space) {
            g.stamp(start, end);
            touched.insert(id);
        }
    }
    Ok(n)
}
