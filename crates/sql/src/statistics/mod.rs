//! The optimizer's statistics, kept as InnoDB keeps them: computed by the
//! engine (`Table::analyze`, sampling leaves), stored in
//! `mysql.innodb_table_stats` / `mysql.innodb_index_stats` (`persist.rs`),
//! and held by each open table (`Table::stats`) for the planners.
//!
//! When they are computed (InnoDB's rules):
//! 1. `ANALYZE TABLE` (`analyze.rs`), always.
//! 2. The first time a statement names a table that has none in memory
//!    ([`ensure`], at compile time only): they are loaded from the stats
//!    tables, or computed (and stored) when there are none there.
//! 3. In the background ([`spawn_auto_recalc`]) when more than 10 % of a
//!    table's rows changed since (`innodb_stats_auto_recalc`; with
//!    transient statistics, InnoDB's 1/16 + 16 rows).
//!
//! `innodb_stats_persistent` = OFF keeps statistics in memory only,
//! sampled from `innodb_stats_transient_sample_pages` leaves instead of
//! `innodb_stats_persistent_sample_pages`. Tables of database `mysql`
//! (the catalog and these very tables) get none.
//!
//! Plans are cached, so new statistics must reach them: ANALYZE TABLE
//! empties the plan cache (a DDL epoch bump); a background recalculation
//! does so only when an estimate moved by more than a factor of two
//! (drift smaller than that changes no choice worth a re-plan, and the
//! plans of a busy write workload stay cached).

pub mod analyze;
pub mod persist;

use std::sync::{Arc, Weak};
use std::time::Duration;

use quire_engine::table::TableStats;
use quire_engine::Table;

use crate::error::Result;
use crate::session::Shared;

/// How often the background thread looks for tables to recalculate.
const AUTO_RECALC_PERIOD: Duration = Duration::from_secs(1);

/// What the system variables ask for.
struct Settings {
    persistent: bool,
    sample_pages: usize,
    auto_recalc: bool,
}

fn settings(shared: &Shared) -> Settings {
    let b = |n: &str, d: bool| shared.sysvars.global(n).and_then(|v| v.as_bool()).unwrap_or(d);
    let persistent = b("innodb_stats_persistent", true);
    let pages = if persistent { "innodb_stats_persistent_sample_pages" } else { "innodb_stats_transient_sample_pages" };
    let sample_pages = shared.sysvars.global(pages).and_then(|v| v.as_u64()).unwrap_or(20) as usize;
    Settings { persistent, sample_pages, auto_recalc: b("innodb_stats_auto_recalc", true) }
}

fn seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
}

fn wants_stats(db: &str) -> bool {
    !db.eq_ignore_ascii_case("mysql")
}

/// Computes, stores (if persistent) and installs statistics of `t`.
pub fn recalc(shared: &Shared, db: &str, name: &str, t: &Table) -> Result<Arc<TableStats>> {
    let cfg = settings(shared);
    let st = Arc::new(t.analyze(cfg.sample_pages, seed())?);
    t.set_stats(Some(st.clone()));
    if cfg.persistent {
        persist::save(&shared.engine, db, name, &st)?;
    }
    Ok(st)
}

/// Gives `t` statistics if it has none in memory: the stored ones, else
/// newly computed ones. Failures are logged, not raised: a statement
/// must not fail because its table could not be sampled.
pub fn ensure(shared: &Shared, db: &str, name: &str, t: &Table) {
    if t.stats().is_some() || !wants_stats(db) {
        return;
    }
    let cfg = settings(shared);
    if cfg.persistent {
        match persist::load(&shared.engine, db, name, &t.schema()) {
            Ok(Some(st)) => {
                t.set_stats(Some(Arc::new(st)));
                return;
            }
            Ok(None) => {}
            Err(e) => tracing::warn!("reading the statistics of {db}.{name}: {}", e.message),
        }
    }
    if let Err(e) = recalc(shared, db, name, t) {
        tracing::warn!("computing the statistics of {db}.{name}: {}", e.message);
    }
}

/// Forgets the statistics of a dropped (or truncated) table.
pub fn forget(shared: &Shared, db: &str, name: &str) {
    if let Err(e) = persist::delete(&shared.engine, db, name) {
        tracing::warn!("deleting the statistics of {db}.{name}: {}", e.message);
    }
}

/// Whether `t`'s changes since its statistics call for new ones.
fn stale(t: &Table, st: &TableStats, persistent: bool) -> bool {
    let changed = t.rows_modified();
    if persistent {
        changed > st.n_rows / 10
    } else {
        changed > 16 + st.n_rows / 16
    }
}

/// Whether `new` differs from `old` enough to re-plan.
fn moved(old: &TableStats, new: &TableStats) -> bool {
    let far = |a: u64, b: u64| {
        let (a, b) = (a.max(1) as f64, b.max(1) as f64);
        a / b > 2.0 || b / a > 2.0
    };
    far(old.n_rows, new.n_rows)
        || new.indexes.iter().any(|n| match old.index(&n.name) {
            None => true,
            Some(o) => o.n_diff.iter().zip(&n.n_diff).any(|(&a, &b)| far(a, b)),
        })
}

/// One pass of the background recalculation over the open tables.
fn auto_recalc_pass(shared: &Shared) {
    let cfg = settings(shared);
    if !cfg.auto_recalc {
        return;
    }
    for full in shared.engine.table_names() {
        let Some((db, name)) = full.split_once('/') else { continue };
        if !wants_stats(db) {
            continue;
        }
        let Ok(t) = shared.engine.table(&full) else { continue };
        let Some(old) = t.stats() else { continue };
        if !stale(&t, &old, cfg.persistent) {
            continue;
        }
        match recalc(shared, db, name, &t) {
            Ok(new) if moved(&old, &new) => shared.bump_epoch(),
            Ok(_) => {}
            Err(e) => tracing::warn!("recalculating the statistics of {full}: {}", e.message),
        }
    }
}

/// Starts the thread that recalculates statistics of much-changed tables
/// (InnoDB's `dict_stats_thread`). It ends when the server does.
pub fn spawn_auto_recalc(shared: &Arc<Shared>) {
    let weak: Weak<Shared> = Arc::downgrade(shared);
    let r = std::thread::Builder::new().name("quire-stats".into()).spawn(move || loop {
        std::thread::sleep(AUTO_RECALC_PERIOD);
        let Some(shared) = weak.upgrade() else { return };
        if shared.shutdown_requested() {
            return;
        }
        auto_recalc_pass(&shared);
    });
    if let Err(e) = r {
        tracing::warn!("could not start the statistics thread: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_engine::table::IndexStats;

    fn stats(n_rows: u64, n_diff: u64) -> TableStats {
        TableStats {
            n_rows,
            clustered_index_size: 1,
            sum_of_other_index_sizes: 0,
            indexes: vec![IndexStats {
                name: "PRIMARY".into(),
                columns: vec!["id".into()],
                n_diff: vec![n_diff],
                sample_pages: 1,
                leaf_pages: 1,
                size_pages: 1,
            }],
        }
    }

    #[test]
    fn only_a_change_beyond_a_factor_of_two_re_plans() {
        assert!(!moved(&stats(1000, 1000), &stats(1500, 1500)));
        assert!(moved(&stats(1000, 1000), &stats(2500, 1000)));
        assert!(moved(&stats(1000, 1000), &stats(1000, 400)));
    }
}
