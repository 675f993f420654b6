//! CHECK TABLE: a read-only audit of one table's space and indexes.
//!
//! What is checked, in order (the first three stop at the first damaged
//! index, the cross-check needs readable trees):
//! 1. Every used page of the space (page 0, the allocation bitmaps and
//!    every page the bitmaps mark used) is read and passes its checksum,
//!    page id and (for B+tree nodes) structure checks; page 0 must be a
//!    valid space header.
//! 2. Every index is walked from its root (`BTree::verify`): node
//!    invariants, key order within and across pages, levels, index ids and
//!    that each child's keys lie within its parent's separators. Leaves
//!    have no sibling links in quire (scans use fences), so there are none
//!    to check.
//! 3. Every clustered record decodes (record header and row).
//! 4. Every secondary index holds exactly the entries the clustered index
//!    implies: one per clustered record (delete-marked ones included, as
//!    purge removes both together), with the right value. An entry no
//!    clustered record implies is reported only when nothing awaits purge
//!    (history list empty, no active transaction): until then it may be an
//!    old version's entry that purge has yet to remove.
//!
//! Latching: the table's state latch is held shared (no DDL runs
//! meanwhile); pages are read under shared latches one at a time, so DML
//! runs concurrently and a busy table may show transient differences in
//! step 4 that a second CHECK does not repeat.

use std::ops::Bound;

use super::Table;
use crate::btree::{BTree, Direction};
use crate::row::codec;
use crate::txn::record::RecHeader;
use crate::{space, Error, PageId, Result};

/// What CHECK TABLE found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct CheckReport {
    /// One line per problem; empty means the table is sound.
    pub problems: Vec<String>,
    /// Pages read in step 1.
    pub pages: u64,
    /// Clustered records examined.
    pub records: u64,
}

impl CheckReport {
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// How long CHECK waits for purge to empty the history list before it
/// cross-checks, so that entries awaiting purge are not counted as extra.
const PURGE_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

impl Table {
    /// Audits the table (see the module note). Errors only if the check
    /// itself cannot run; damage goes into the report.
    pub fn check(&self) -> Result<CheckReport> {
        let mut report = CheckReport::default();
        let st = self.state.read();
        let space_id = st.def.space_id;
        let pool = self.clustered.pool().clone();
        let path = pool.files().get(space_id).map(|f| f.path.display().to_string()).unwrap_or_default();
        let describe = |e: Error| -> String {
            match e {
                Error::Corruption { page, reason } => {
                    let reason = reason.replace(&format!(" in file {path}"), "");
                    format!("page {} of {path} is corrupt: {reason}", page.page_no)
                }
                other => other.to_string(),
            }
        };
        // 1. Pages.
        match space::check_header(&pool, space_id).and_then(|()| space::used_pages(&pool, space_id)) {
            Err(e) => report.problems.push(describe(e)),
            Ok(pages) => {
                for page_no in pages {
                    report.pages += 1;
                    if let Err(e) = pool.fix_shared(PageId::new(space_id, page_no)) {
                        report.problems.push(describe(e));
                    }
                }
            }
        }
        // 2. Trees.
        let names = std::iter::once(st.def.schema.primary_name().to_string())
            .chain(st.def.schema.indexes.iter().map(|i| i.name.clone()));
        let trees = std::iter::once(&self.clustered).chain(st.secondary.iter().map(|s| &s.tree));
        let mut sound = true;
        for (name, tree) in names.zip(trees) {
            if let Err(e) = tree.verify() {
                report.problems.push(format!("index {name}: {}", describe(e)));
                sound = false;
            }
        }
        if !sound {
            return Ok(report);
        }
        // 3 and 4 together: one pass over the clustered index builds what
        // each secondary index must hold.
        let schema = &st.def.schema;
        let settled_before = self.nothing_awaits_purge(true);
        let mut expected: Vec<Vec<(Vec<u8>, u16)>> = vec![Vec::new(); schema.indexes.len()];
        let mut c = self.clustered.range(Bound::Unbounded, Bound::Unbounded, Direction::Forward);
        while let Some((pk, v)) = c.next()? {
            report.records += 1;
            let Some((_, row)) = RecHeader::split(v) else {
                report.problems.push(format!("index PRIMARY: record {pk:02x?} has an invalid record header"));
                continue;
            };
            let Some(row) = codec::decode_row(schema, row) else {
                report.problems.push(format!("index PRIMARY: record {pk:02x?} does not decode as a row"));
                continue;
            };
            for (ix, exp) in expected.iter_mut().enumerate() {
                exp.push(Table::sec_key(schema, ix, &row, pk));
            }
        }
        let settled = settled_before && self.nothing_awaits_purge(false);
        for ((exp, sec), def) in expected.iter_mut().zip(&st.secondary).zip(&schema.indexes) {
            exp.sort();
            Self::cross_check(&def.name, exp, &sec.tree, settled, &mut report)?;
        }
        Ok(report)
    }

    /// Whether no old version can still have secondary entries: the
    /// history list is empty and no transaction is active. With `wait`,
    /// gives purge a moment to get there first.
    fn nothing_awaits_purge(&self, wait: bool) -> bool {
        let settled = || self.txn.history_len() == 0 && self.txn.trx_sys.active_count() == 0;
        let deadline = std::time::Instant::now() + PURGE_WAIT;
        while wait && !settled() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        settled()
    }

    /// Merges the sorted expected entries of one index with its contents.
    fn cross_check(
        name: &str,
        expected: &[(Vec<u8>, u16)],
        tree: &BTree,
        settled: bool,
        report: &mut CheckReport,
    ) -> Result<()> {
        const SHOWN: usize = 3;
        let (mut missing, mut extra, mut wrong, mut found) = (0usize, 0usize, 0usize, 0u64);
        let mut shown = 0;
        let mut note = |report: &mut CheckReport, what: String| {
            if shown < SHOWN {
                report.problems.push(format!("index {name}: {what}"));
            }
            shown += 1;
        };
        let mut want = expected.iter().peekable();
        let mut c = tree.range(Bound::Unbounded, Bound::Unbounded, Direction::Forward);
        while let Some((k, v)) = c.next()? {
            found += 1;
            while let Some((wk, _)) = want.peek().filter(|(wk, _)| wk.as_slice() < k) {
                missing += 1;
                note(report, format!("entry {wk:02x?} is missing"));
                want.next();
            }
            match want.peek() {
                Some((wk, prefix)) if wk.as_slice() == k => {
                    if v != prefix.to_le_bytes() {
                        wrong += 1;
                        note(report, format!("entry {k:02x?} has value {v:02x?}, not {:02x?}", prefix.to_le_bytes()));
                    }
                    want.next();
                }
                _ if settled => {
                    extra += 1;
                    note(report, format!("entry {k:02x?} matches no row"));
                }
                _ => {}
            }
        }
        for (wk, _) in want {
            missing += 1;
            note(report, format!("entry {wk:02x?} is missing"));
        }
        if missing + extra + wrong > 0 {
            report.problems.push(format!(
                "index {name} contains {found} entries, should be {} ({missing} missing, {extra} extra, {wrong} wrong)",
                expected.len()
            ));
        }
        Ok(())
    }

    /// Test hook: the B+tree of secondary index `ix`, to damage it on
    /// purpose (an entry removed or added behind the table's back).
    #[doc(hidden)]
    pub fn secondary_tree_for_tests(&self, ix: usize) -> BTree {
        self.state.read().secondary[ix].tree.clone()
    }
}
