//! Index statistics of a table, as InnoDB keeps them (`dict0stats.cc`):
//! per table the estimated row count and the clustered index's size; per
//! index the number of distinct values of each key prefix
//! (`n_diff_pfx01`, ...), its leaf pages and its total pages.
//!
//! Computing them (`Table::analyze`) samples leaves of each index
//! (`BTree::sample_leaves`); this module turns the sampled keys into
//! counts. The table holds the last statistics given to it
//! (`Table::set_stats`) for the optimizer, and counts row changes since
//! (`Table::rows_modified`, InnoDB's `stat_modified_counter`); keeping them
//! on disk and deciding when to recompute belong to the SQL layer.
//!
//! Distinct prefixes: in key order, the number of distinct values of a
//! prefix is one more than the number of adjacent pairs of keys whose
//! prefixes differ. Reading every leaf (a tree of no more leaves than the
//! sample) counts exactly. Otherwise the share of differing pairs within
//! the sampled leaves estimates the share over the whole index, and
//! `n_diff = 1 + share * (n_rows - 1)`; this keeps a column with few
//! values low, where scaling per-page distinct counts by the number of
//! pages (InnoDB's transient estimate) would count each value once per
//! page. The estimated row count is the sampled leaves' mean fill times
//! the leaf pages.
//!
//! Index column lists follow InnoDB: the clustered index's prefixes are
//! its key columns; a unique secondary index's are its own columns; a
//! non-unique one's are its columns then the primary key's (the entry's
//! full key, what makes it unique).

use std::ops::Bound;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::{IndexRef, Table};
use crate::btree::estimate::LeafSample;
use crate::row::{key, TableSchema, Value};
use crate::Result;

/// Statistics of one index.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexStats {
    /// `PRIMARY` for the clustered index.
    pub name: String,
    /// Names of the columns of each prefix counted (`n_diff[i]` is the
    /// distinct count of the first `i + 1`).
    pub columns: Vec<String>,
    /// Distinct values of each key prefix.
    pub n_diff: Vec<u64>,
    /// Leaf pages read to compute `n_diff` (InnoDB's `sample_size`).
    pub sample_pages: u64,
    pub leaf_pages: u64,
    /// Pages of the index (leaves and inner nodes).
    pub size_pages: u64,
}

/// Statistics of a table.
#[derive(Clone, Debug, PartialEq)]
pub struct TableStats {
    /// Estimated rows (entries of the clustered index).
    pub n_rows: u64,
    pub clustered_index_size: u64,
    pub sum_of_other_index_sizes: u64,
    /// The clustered index first, then the secondary indexes.
    pub indexes: Vec<IndexStats>,
}

impl TableStats {
    /// The statistics of the index named `name` (`PRIMARY`: the clustered).
    pub fn index(&self, name: &str) -> Option<&IndexStats> {
        self.indexes.iter().find(|i| i.name.eq_ignore_ascii_case(name))
    }

    /// Estimated rows per distinct value of the first `prefix` columns of
    /// index `name` (at least 1); `None` without statistics for it.
    pub fn rows_per_key(&self, name: &str, prefix: usize) -> Option<f64> {
        let ix = self.index(name)?;
        let d = *ix.n_diff.get(prefix.checked_sub(1)?)?;
        Some((self.n_rows as f64 / d.max(1) as f64).max(1.0))
    }
}

/// The name statistics use for an index of `schema` (InnoDB's: the
/// clustered index of a table without a PRIMARY KEY is named after the
/// UNIQUE key that clusters it, or `GEN_CLUST_INDEX`).
pub fn index_name(schema: &TableSchema, index: IndexRef) -> &str {
    match index {
        IndexRef::Primary => schema.primary_name(),
        IndexRef::Secondary(i) => &schema.indexes[i].name,
    }
}

/// Column positions of the prefixes counted for an index (see the notes).
fn stat_columns(schema: &TableSchema, index: IndexRef) -> Vec<usize> {
    match index {
        IndexRef::Primary => schema.primary_key.clone(),
        IndexRef::Secondary(i) => {
            let def = &schema.indexes[i];
            let mut cols = def.columns.clone();
            if !def.unique {
                cols.extend(schema.primary_key.iter().copied());
            }
            cols
        }
    }
}

/// Byte lengths of each column prefix of `key` (fewer if it is cut short).
fn prefix_ends(schema: &TableSchema, cols: &[usize], key: &[u8]) -> Vec<usize> {
    let mut ends = Vec::with_capacity(cols.len());
    let mut at = 0;
    for &c in cols {
        match key::encoded_len(&schema.columns[c], &key[at..]) {
            Some(n) => at += n,
            None => break,
        }
        ends.push(at);
    }
    ends
}

/// Distinct prefix counts and the estimated entries from a sample.
fn count_distinct(schema: &TableSchema, cols: &[usize], s: &LeafSample) -> (Vec<u64>, u64) {
    let n = cols.len();
    let mut differing = vec![0u64; n];
    let mut pairs = 0u64;
    let mut entries = 0u64;
    for leaf in &s.leaves {
        entries += leaf.len() as u64;
        let mut prev: Option<(&[u8], Vec<usize>)> = None;
        for k in leaf {
            let ends = prefix_ends(schema, cols, k);
            if let Some((pk, pe)) = &prev {
                pairs += 1;
                for (i, d) in differing.iter_mut().enumerate() {
                    let same = match (pe.get(i), ends.get(i)) {
                        (Some(&a), Some(&b)) => pk[..a] == k[..b],
                        _ => false,
                    };
                    *d += !same as u64;
                }
            }
            prev = Some((k, ends));
        }
    }
    let n_rows = if s.exhaustive || s.leaves.is_empty() {
        entries
    } else {
        (entries as f64 / s.leaves.len() as f64 * s.shape.leaf_pages as f64).round() as u64
    };
    let n_diff = differing
        .iter()
        .map(|&d| {
            if n_rows == 0 {
                0
            } else if s.exhaustive || pairs == 0 {
                (d + 1).min(n_rows)
            } else {
                let share = d as f64 / pairs as f64;
                ((1.0 + share * (n_rows - 1) as f64).round() as u64).clamp(1, n_rows)
            }
        })
        .collect();
    (n_diff, n_rows)
}

impl Table {
    /// Computes the table's statistics from `sample_pages` leaves of each
    /// index (every leaf of a smaller index). Does not install them.
    pub fn analyze(&self, sample_pages: usize, seed: u64) -> Result<TableStats> {
        let st = self.state.read();
        let schema = &st.def.schema;
        let sample_pages = sample_pages.max(1);
        let mut indexes = Vec::with_capacity(1 + st.secondary.len());
        let mut n_rows = 0;
        let mut trees = vec![(IndexRef::Primary, &self.clustered)];
        trees.extend(st.secondary.iter().enumerate().map(|(i, s)| (IndexRef::Secondary(i), &s.tree)));
        for (index, tree) in trees {
            let cols = stat_columns(schema, index);
            let sample = tree.sample_leaves(sample_pages, seed.wrapping_add(indexes.len() as u64))?;
            let (n_diff, entries) = count_distinct(schema, &cols, &sample);
            if index == IndexRef::Primary {
                n_rows = entries;
            }
            indexes.push(IndexStats {
                name: index_name(schema, index).to_string(),
                columns: cols.iter().map(|&c| schema.columns[c].name.clone()).collect(),
                n_diff,
                sample_pages: if sample.exhaustive { sample.shape.leaf_pages } else { sample.leaves.len() as u64 },
                leaf_pages: sample.shape.leaf_pages,
                size_pages: sample.shape.total_pages,
            });
        }
        let clustered_index_size = indexes[0].size_pages;
        let sum_of_other_index_sizes = indexes[1..].iter().map(|i| i.size_pages).sum();
        Ok(TableStats { n_rows, clustered_index_size, sum_of_other_index_sizes, indexes })
    }

    /// The statistics the optimizer uses, if any were given.
    pub fn stats(&self) -> Option<Arc<TableStats>> {
        self.stats.read().clone()
    }

    /// Installs statistics (computed or loaded) and restarts the count of
    /// row changes.
    pub fn set_stats(&self, stats: Option<Arc<TableStats>>) {
        *self.stats.write() = stats;
        self.modified_at_stats.store(self.modified.get(), Ordering::Relaxed);
    }

    /// Rows inserted, updated or deleted since statistics were installed.
    pub fn rows_modified(&self) -> u64 {
        self.modified.get().saturating_sub(self.modified_at_stats.load(Ordering::Relaxed))
    }

    pub(crate) fn count_modification(&self) {
        self.modified.inc();
    }

    /// Estimated entries of `index` whose key columns lie between the
    /// bounds (values of a prefix of its columns, as [`Table::scan`]
    /// takes them); `None` when the tree kept changing under the estimate.
    pub fn estimate_rows_in_range(
        &self,
        index: IndexRef,
        lower: Bound<&[Value]>,
        upper: Bound<&[Value]>,
    ) -> Result<Option<u64>> {
        let st = self.state.read();
        let schema = &st.def.schema;
        let Some((lo, hi)) = self.encode_bounds(schema, index, lower, upper)? else { return Ok(Some(0)) };
        let tree = match index {
            IndexRef::Primary => &self.clustered,
            IndexRef::Secondary(i) => &st.secondary[i].tree,
        };
        tree.estimate_range(super::bref(&lo), super::bref(&hi))
    }
}
