//! The sysbench 1.0.20 OLTP workloads: their statements, exactly as
//! `/usr/share/sysbench/oltp_common.lua` prepares them, and each script's
//! event as a list of statement groups.
//!
//! One event of each script (defaults: point_selects=10, simple_ranges=1,
//! sum_ranges=1, order_ranges=1, distinct_ranges=1, index_updates=1,
//! non_index_updates=1, delete_inserts=1, range_size=100):
//!
//! | script | statements per event |
//! |---|---|
//! | oltp_point_select | 1 point select (point_selects forced to 1) |
//! | oltp_read_only | BEGIN, 10 point, 1 simple, 1 sum, 1 order, 1 distinct range, COMMIT |
//! | oltp_read_write | read_only's reads, 1 index update, 1 non-index update, 1 delete + 1 insert, between BEGIN and COMMIT |
//! | oltp_write_only | BEGIN, 1 index update, 1 non-index update, 1 delete + 1 insert, COMMIT |
//! | oltp_update_index | 1 index update (autocommit) |
//! | oltp_update_non_index | 1 non-index update (autocommit) |
//! | oltp_insert | 1 INSERT as text (not prepared), id 0 = AUTO_INCREMENT |
//! | oltp_delete | 1 delete (autocommit) |
//!
//! Each group picks its table once (`sysbench.rand.uniform(1, tables)`);
//! ids come from the default (special) distribution.

use std::fmt;

/// The sysbench OLTP scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Workload {
    PointSelect,
    ReadOnly,
    ReadWrite,
    WriteOnly,
    UpdateIndex,
    UpdateNonIndex,
    Insert,
    Delete,
    /// TPC-C's five transactions (`crate::tpcc`), not a sysbench script:
    /// only the `tpcc` scenario runs it.
    Tpcc,
}

impl Workload {
    pub const ALL: [Workload; 8] = [
        Workload::PointSelect,
        Workload::ReadOnly,
        Workload::ReadWrite,
        Workload::WriteOnly,
        Workload::UpdateIndex,
        Workload::UpdateNonIndex,
        Workload::Insert,
        Workload::Delete,
    ];

    /// The short name: `read_write`.
    pub fn name(self) -> &'static str {
        match self {
            Workload::PointSelect => "point_select",
            Workload::ReadOnly => "read_only",
            Workload::ReadWrite => "read_write",
            Workload::WriteOnly => "write_only",
            Workload::UpdateIndex => "update_index",
            Workload::UpdateNonIndex => "update_non_index",
            Workload::Insert => "insert",
            Workload::Delete => "delete",
            Workload::Tpcc => "tpcc",
        }
    }

    /// sysbench's script name: `oltp_read_write` (`tpcc` for TPC-C).
    pub fn script(self) -> String {
        match self {
            Workload::Tpcc => "tpcc".to_string(),
            w => format!("oltp_{}", w.name()),
        }
    }

    /// `read_write`, `oltp_read_write` or `read-write`.
    pub fn parse(text: &str) -> Option<Workload> {
        let t = text.trim().to_ascii_lowercase().replace('-', "_");
        let t = t.strip_prefix("oltp_").unwrap_or(&t);
        Workload::ALL.into_iter().find(|w| w.name() == t)
    }

    /// Whether the event runs between BEGIN and COMMIT.
    pub fn transactional(self) -> bool {
        matches!(self, Workload::ReadOnly | Workload::ReadWrite | Workload::WriteOnly)
    }

    /// The statement groups of one event, in order (BEGIN and COMMIT
    /// excluded). Each group runs `count` statements on one random table.
    pub fn groups(self, mix: &Mix) -> Vec<(Stmt, u32)> {
        let reads = [
            (Stmt::PointSelect, mix.point_selects),
            (Stmt::SimpleRange, mix.simple_ranges),
            (Stmt::SumRange, mix.sum_ranges),
            (Stmt::OrderRange, mix.order_ranges),
            (Stmt::DistinctRange, mix.distinct_ranges),
        ];
        let writes = [
            (Stmt::IndexUpdate, mix.index_updates),
            (Stmt::NonIndexUpdate, mix.non_index_updates),
            (Stmt::DeleteInsert, mix.delete_inserts),
        ];
        match self {
            Workload::PointSelect => vec![(Stmt::PointSelect, 1)],
            Workload::ReadOnly => reads.to_vec(),
            Workload::ReadWrite => reads.iter().chain(writes.iter()).copied().collect(),
            Workload::WriteOnly => writes.to_vec(),
            Workload::UpdateIndex => vec![(Stmt::IndexUpdate, mix.index_updates)],
            Workload::UpdateNonIndex => vec![(Stmt::NonIndexUpdate, mix.non_index_updates)],
            Workload::Insert => vec![(Stmt::TextInsert, 1)],
            Workload::Delete => vec![(Stmt::Delete, 1)],
            Workload::Tpcc => Vec::new(),
        }
    }

    /// Statements of one event by counted kind, as sysbench sends them.
    pub fn per_event(self, mix: &Mix) -> StmtCounts {
        let mut c = StmtCounts::default();
        if self.transactional() {
            c.add(Kind::Begin, 1);
            c.add(Kind::Commit, 1);
        }
        for (stmt, n) in self.groups(mix) {
            for kind in stmt.kinds() {
                c.add(*kind, u64::from(n));
            }
        }
        c
    }

    /// Statements (queries, as sysbench counts them) per event.
    pub fn queries_per_event(self, mix: &Mix) -> u64 {
        self.per_event(mix).total()
    }
}

impl fmt::Display for Workload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The per-event statement counts, sysbench's options of the same names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Mix {
    pub point_selects: u32,
    pub simple_ranges: u32,
    pub sum_ranges: u32,
    pub order_ranges: u32,
    pub distinct_ranges: u32,
    pub index_updates: u32,
    pub non_index_updates: u32,
    pub delete_inserts: u32,
    pub range_size: u32,
}

impl Default for Mix {
    fn default() -> Self {
        Mix {
            point_selects: 10,
            simple_ranges: 1,
            sum_ranges: 1,
            order_ranges: 1,
            distinct_ranges: 1,
            index_updates: 1,
            non_index_updates: 1,
            delete_inserts: 1,
            range_size: 100,
        }
    }
}

/// One prepared statement (or pair, for delete+insert) of oltp_common.lua.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stmt {
    PointSelect,
    SimpleRange,
    SumRange,
    OrderRange,
    DistinctRange,
    IndexUpdate,
    NonIndexUpdate,
    /// DELETE then INSERT of the same id.
    DeleteInsert,
    /// oltp_delete's lone DELETE.
    Delete,
    /// oltp_insert's text INSERT.
    TextInsert,
}

impl Stmt {
    /// The kinds this statement counts as.
    pub fn kinds(self) -> &'static [Kind] {
        match self {
            Stmt::PointSelect => &[Kind::PointSelect],
            Stmt::SimpleRange => &[Kind::SimpleRange],
            Stmt::SumRange => &[Kind::SumRange],
            Stmt::OrderRange => &[Kind::OrderRange],
            Stmt::DistinctRange => &[Kind::DistinctRange],
            Stmt::IndexUpdate => &[Kind::IndexUpdate],
            Stmt::NonIndexUpdate => &[Kind::NonIndexUpdate],
            Stmt::DeleteInsert => &[Kind::Delete, Kind::Insert],
            Stmt::Delete => &[Kind::Delete],
            Stmt::TextInsert => &[Kind::Insert],
        }
    }
}

/// The SQL of each prepared statement on table `n` (oltp_common.lua's
/// `stmt_defs`).
pub fn sql(kind: Kind, table: u32) -> String {
    match kind {
        Kind::PointSelect => format!("SELECT c FROM sbtest{table} WHERE id=?"),
        Kind::SimpleRange => format!("SELECT c FROM sbtest{table} WHERE id BETWEEN ? AND ?"),
        Kind::SumRange => format!("SELECT SUM(k) FROM sbtest{table} WHERE id BETWEEN ? AND ?"),
        Kind::OrderRange => format!("SELECT c FROM sbtest{table} WHERE id BETWEEN ? AND ? ORDER BY c"),
        Kind::DistinctRange => format!("SELECT DISTINCT c FROM sbtest{table} WHERE id BETWEEN ? AND ? ORDER BY c"),
        Kind::IndexUpdate => format!("UPDATE sbtest{table} SET k=k+1 WHERE id=?"),
        Kind::NonIndexUpdate => format!("UPDATE sbtest{table} SET c=? WHERE id=?"),
        Kind::Delete => format!("DELETE FROM sbtest{table} WHERE id=?"),
        Kind::Insert => format!("INSERT INTO sbtest{table} (id, k, c, pad) VALUES (?, ?, ?, ?)"),
        Kind::Begin => "BEGIN".to_string(),
        Kind::Commit => "COMMIT".to_string(),
        Kind::Select | Kind::Update => String::new(),
        Kind::Rollback => "ROLLBACK".to_string(),
    }
}

/// What the driver counts: each statement type of the mix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    PointSelect,
    SimpleRange,
    SumRange,
    OrderRange,
    DistinctRange,
    IndexUpdate,
    NonIndexUpdate,
    Delete,
    Insert,
    Begin,
    Commit,
    /// Any other SELECT (TPC-C's).
    Select,
    /// Any other UPDATE (TPC-C's).
    Update,
    Rollback,
}

impl Kind {
    pub const ALL: [Kind; 14] = [
        Kind::PointSelect,
        Kind::SimpleRange,
        Kind::SumRange,
        Kind::OrderRange,
        Kind::DistinctRange,
        Kind::IndexUpdate,
        Kind::NonIndexUpdate,
        Kind::Delete,
        Kind::Insert,
        Kind::Begin,
        Kind::Commit,
        Kind::Select,
        Kind::Update,
        Kind::Rollback,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::PointSelect => "point_select",
            Kind::SimpleRange => "simple_range",
            Kind::SumRange => "sum_range",
            Kind::OrderRange => "order_range",
            Kind::DistinctRange => "distinct_range",
            Kind::IndexUpdate => "index_update",
            Kind::NonIndexUpdate => "non_index_update",
            Kind::Delete => "delete",
            Kind::Insert => "insert",
            Kind::Begin => "begin",
            Kind::Commit => "commit",
            Kind::Select => "select",
            Kind::Update => "update",
            Kind::Rollback => "rollback",
        }
    }

    /// sysbench's read / write / other split of QPS.
    pub fn class(self) -> Class {
        match self {
            Kind::PointSelect
            | Kind::SimpleRange
            | Kind::SumRange
            | Kind::OrderRange
            | Kind::DistinctRange
            | Kind::Select => Class::Read,
            Kind::IndexUpdate | Kind::NonIndexUpdate | Kind::Delete | Kind::Insert | Kind::Update => Class::Write,
            Kind::Begin | Kind::Commit | Kind::Rollback => Class::Other,
        }
    }
}

/// sysbench's query classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Read,
    Write,
    Other,
}

/// Statements executed, per kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StmtCounts(pub [u64; 14]);

impl StmtCounts {
    pub fn add(&mut self, kind: Kind, n: u64) {
        self.0[kind as usize] += n;
    }

    pub fn get(&self, kind: Kind) -> u64 {
        self.0[kind as usize]
    }

    pub fn merge(&mut self, other: &StmtCounts) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a += b;
        }
    }

    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }

    /// Statements of one class.
    pub fn class_total(&self, class: Class) -> u64 {
        Kind::ALL.iter().filter(|k| k.class() == class).map(|k| self.get(*k)).sum()
    }

    /// `(name, count)` for every kind counted at least once.
    pub fn named_nonzero(&self) -> Vec<(&'static str, u64)> {
        self.named().into_iter().filter(|(_, n)| *n > 0).collect()
    }

    /// `(name, count)` for every kind, zeros included.
    pub fn named(&self) -> Vec<(&'static str, u64)> {
        Kind::ALL.iter().map(|k| (k.name(), self.get(*k))).collect()
    }

    /// Every count multiplied by `n`.
    pub fn times(&self, n: u64) -> StmtCounts {
        let mut c = *self;
        for v in c.0.iter_mut() {
            *v *= n;
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_event_counts_are_sysbench_defaults() {
        let m = Mix::default();
        let rw = Workload::ReadWrite.per_event(&m);
        assert_eq!(rw.class_total(Class::Read), 14);
        assert_eq!(rw.class_total(Class::Write), 4);
        assert_eq!(rw.class_total(Class::Other), 2);
        assert_eq!(Workload::ReadOnly.queries_per_event(&m), 16);
        assert_eq!(Workload::WriteOnly.queries_per_event(&m), 6);
        assert_eq!(Workload::PointSelect.queries_per_event(&m), 1);
        assert_eq!(Workload::Insert.per_event(&m).get(Kind::Insert), 1);
        assert_eq!(Workload::parse("oltp_read-write"), Some(Workload::ReadWrite));
        assert_eq!(Workload::parse("tpcc"), None);
    }
}
