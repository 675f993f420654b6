//! INNODB_METRICS: the counters of MySQL 8.0's list (srv0mon.cc: names,
//! subsystems, types and comments) that quire keeps, read live from the
//! engine through the same [`Figures`] SHOW STATUS reads. A counter
//! quire has no equivalent of (compression, page-type I/O but for index
//! pages read, purge internals, the change buffer's delete-marks, which
//! quire's secondary indexes never have) is left out rather than shown as
//! a made-up 0. Two are quire's own, under `change_buffer`: the
//! secondary-index reads made to apply a change that was not buffered
//! (docs/BENCHMARKS.md, "Change buffering").
//!
//! Every metric listed is always counted: STATUS is 'enabled' and
//! TIME_ENABLED the server's start (`innodb_monitor_enable` / `_disable`
//! / `_reset` do not apply: nothing here can be switched off or reset).
//! TYPE follows InnoDB's rule: 'value' for a figure shown as it is now,
//! 'status_counter' for one SHOW STATUS also has, else 'counter'. For
//! counters MAX_COUNT is the count (they only grow) and AVG_COUNT the
//! count per second since the start; for values MAX_COUNT / MIN_COUNT
//! are the extremes seen by the reads of this table (InnoDB, too,
//! samples them when they are read).

use std::collections::HashMap;
use std::sync::atomic::Ordering::Relaxed;

use quire_engine::row::Value;

use super::innodb_trx::{datetime_ms, wall_ms};
use super::s;
use crate::session::Session;
use crate::status::Figures;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Counter,
    StatusCounter,
    Value,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::StatusCounter => "status_counter",
            Kind::Value => "value",
        }
    }
}

/// (name, subsystem, type, comment, count)
type Metric = (&'static str, &'static str, Kind, &'static str, i64);

/// The metrics and their values now.
fn metrics(sess: &Session) -> Vec<Metric> {
    use Kind::{Counter as C, StatusCounter as S, Value as V};
    let e = sess.engine();
    let f = Figures::read(e);
    let log = e.log();
    let txn = e.txn();
    let locks = &txn.locks.stats;
    let i = |n: u64| n as i64;
    let waits = locks.waits.get();
    let ibuf = e.change_buffer();
    let mut m: Vec<Metric> = vec![
        ("lock_deadlocks", "lock", C, "Number of deadlocks", i(locks.deadlocks.get())),
        ("lock_timeouts", "lock", C, "Number of lock timeouts", i(locks.timeouts.get())),
        (
            "lock_threads_waiting",
            "lock",
            V,
            "Number of query threads sleeping waiting for a lock",
            i(locks.current.load(Relaxed)),
        ),
        ("lock_rec_lock_waits", "lock", C, "Number of times enqueued into record lock wait queue", i(waits)),
        ("lock_rec_locks", "lock", C, "Current number of record locks on tables", i(txn.locks.lock_count() as u64)),
        (
            "lock_row_lock_current_waits",
            "lock",
            S,
            "Number of row locks currently being waited for (innodb_row_lock_current_waits)",
            i(locks.current.load(Relaxed)),
        ),
        (
            "lock_row_lock_time",
            "lock",
            S,
            "Time spent in acquiring row locks, in milliseconds (innodb_row_lock_time)",
            i(locks.wait_us.get() / 1000),
        ),
        (
            "lock_row_lock_time_max",
            "lock",
            V,
            "The maximum time to acquire a row lock, in milliseconds (innodb_row_lock_time_max)",
            i(locks.max_wait_us.load(Relaxed) / 1000),
        ),
        (
            "lock_row_lock_waits",
            "lock",
            S,
            "Number of times a row lock had to be waited for (innodb_row_lock_waits)",
            i(waits),
        ),
        (
            "lock_row_lock_time_avg",
            "lock",
            V,
            "The average time to acquire a row lock, in milliseconds (innodb_row_lock_time_avg)",
            i(locks.wait_us.get() / 1000 / waits.max(1)),
        ),
        (
            "buffer_pool_size",
            "server",
            V,
            "Server buffer pool size (all buffer pools) in bytes",
            i(f.pages_total * f.page_size),
        ),
        (
            "buffer_pool_reads",
            "buffer",
            S,
            "Number of reads directly from disk (innodb_buffer_pool_reads)",
            i(f.pages_read),
        ),
        (
            "buffer_pool_read_requests",
            "buffer",
            S,
            "Number of logical read requests (innodb_buffer_pool_read_requests)",
            i(f.read_requests),
        ),
        (
            "buffer_pool_wait_free",
            "buffer",
            S,
            "Number of times waited for free buffer (innodb_buffer_pool_wait_free)",
            i(f.wait_free),
        ),
        (
            "buffer_pool_read_ahead",
            "buffer",
            S,
            "Number of pages read as read ahead (innodb_buffer_pool_read_ahead)",
            i(f.read_ahead),
        ),
        (
            "buffer_pool_read_ahead_evicted",
            "buffer",
            S,
            "Read-ahead pages evicted without being accessed (innodb_buffer_pool_read_ahead_evicted)",
            i(f.read_ahead_evicted),
        ),
        (
            "buffer_pool_pages_total",
            "buffer",
            V,
            "Total buffer pool size in pages (innodb_buffer_pool_pages_total)",
            i(f.pages_total),
        ),
        (
            "buffer_pool_pages_misc",
            "buffer",
            V,
            "Buffer pages for misc use such as row locks or the adaptive hash index (innodb_buffer_pool_pages_misc)",
            i(f.pages_misc()),
        ),
        (
            "buffer_pool_pages_data",
            "buffer",
            V,
            "Buffer pages containing data (innodb_buffer_pool_pages_data)",
            i(f.pages_data),
        ),
        (
            "buffer_pool_bytes_data",
            "buffer",
            V,
            "Buffer bytes containing data (innodb_buffer_pool_bytes_data)",
            i(f.pages_data * f.page_size),
        ),
        (
            "buffer_pool_pages_dirty",
            "buffer",
            V,
            "Buffer pages currently dirty (innodb_buffer_pool_pages_dirty)",
            i(f.pages_dirty),
        ),
        (
            "buffer_pool_bytes_dirty",
            "buffer",
            V,
            "Buffer bytes currently dirty (innodb_buffer_pool_bytes_dirty)",
            i(f.pages_dirty * f.page_size),
        ),
        (
            "buffer_pool_pages_free",
            "buffer",
            V,
            "Buffer pages currently free (innodb_buffer_pool_pages_free)",
            i(f.pages_free),
        ),
        ("buffer_pages_created", "buffer", S, "Number of pages created (innodb_pages_created)", i(f.pages_created)),
        ("buffer_pages_written", "buffer", S, "Number of pages written (innodb_pages_written)", i(f.pages_written)),
        ("buffer_pages_read", "buffer", S, "Number of pages read (innodb_pages_read)", i(f.pages_read)),
        (
            "buffer_page_read_index_leaf",
            "buffer_page_io",
            C,
            "Number of Index Leaf Pages read",
            i(e.pool().stats.reads_index_leaf.get()),
        ),
        (
            "buffer_page_read_index_non_leaf",
            "buffer_page_io",
            C,
            "Number of Index Non-leaf Pages read",
            i(e.pool().stats.reads_index_non_leaf.get()),
        ),
        (
            "ibuf_merges_insert",
            "change_buffer",
            S,
            "Number of inserted records merged by change buffering",
            i(ibuf.stats.merged_inserts.get()),
        ),
        (
            "ibuf_merges_delete",
            "change_buffer",
            S,
            "Number of purge records merged by change buffering",
            i(ibuf.stats.merged_removes.get()),
        ),
        (
            "ibuf_merges_discard_insert",
            "change_buffer",
            S,
            "Number of insert merged operations discarded",
            i(ibuf.stats.discarded_inserts.get()),
        ),
        (
            "ibuf_merges_discard_delete",
            "change_buffer",
            S,
            "Number of purge merged  operations discarded",
            i(ibuf.stats.discarded_removes.get()),
        ),
        ("ibuf_merges", "change_buffer", S, "Number of change buffer merges", i(ibuf.stats.merges.get())),
        ("ibuf_size", "change_buffer", S, "Change buffer size in pages", i(ibuf.size_pages())),
        // quire's own: the reads a change buffer saves, where it did not.
        (
            "change_buffer_leaf_reads",
            "change_buffer",
            C,
            "Leaf pages of non-unique secondary indexes read to apply an insert or a purge (not buffered: the page was in the pool, the change buffer was off, full, or had no room recorded for the page) (quire)",
            i(e.pool().stats.reads_for_change_leaf.get()),
        ),
        (
            "change_buffer_non_leaf_reads",
            "change_buffer",
            C,
            "Non-leaf pages of non-unique secondary indexes read on the way to those leaves (quire)",
            i(e.pool().stats.reads_for_change_non_leaf.get()),
        ),
        (
            "buffer_data_reads",
            "buffer",
            S,
            "Amount of data read in bytes (innodb_data_read)",
            i(f.pages_read * f.page_size),
        ),
        (
            "buffer_data_written",
            "buffer",
            S,
            "Amount of data written in bytes (innodb_data_written)",
            i(f.data_written_bytes()),
        ),
        ("os_data_reads", "os", S, "Number of reads initiated (innodb_data_reads)", i(f.pages_read)),
        ("os_data_writes", "os", S, "Number of writes initiated (innodb_data_writes)", i(f.data_writes())),
        ("os_data_fsyncs", "os", S, "Number of fsync() calls (innodb_data_fsyncs)", i(f.fsyncs.done)),
        ("os_pending_reads", "os", C, "Number of reads pending", i(f.pending_reads)),
        ("os_pending_writes", "os", C, "Number of writes pending", i(f.pending_writes)),
        ("os_log_bytes_written", "os", S, "Bytes of log written (innodb_os_log_written)", i(f.log_bytes)),
        ("os_log_fsyncs", "os", S, "Number of fsync log writes (innodb_os_log_fsyncs)", i(f.log_syncs)),
        (
            "os_log_pending_fsyncs",
            "os",
            C,
            "Number of pending fsync write (innodb_os_log_pending_fsyncs)",
            i(f.fsyncs.log_pending),
        ),
        ("trx_rw_commits", "transaction", C, "Number of read-write transactions committed", i(f.rw_commits)),
        ("trx_ro_commits", "transaction", C, "Number of read-only transactions committed", i(f.ro_commits)),
        ("trx_rollbacks", "transaction", C, "Number of transactions rolled back", i(f.rollbacks)),
        (
            "trx_rollbacks_savepoint",
            "transaction",
            C,
            "Number of transactions rolled back to savepoint",
            i(f.rollbacks_savepoint),
        ),
        (
            "trx_active_transactions",
            "transaction",
            C,
            "Number of active transactions",
            i(txn.trx_sys.active_count() as u64),
        ),
        ("trx_rseg_history_len", "transaction", V, "Length of the TRX_RSEG_HISTORY list", i(txn.history_len() as u64)),
        ("log_lsn_last_flush", "log", V, "LSN of last flush", i(log.flushed_lsn())),
        ("log_lsn_last_checkpoint", "log", V, "LSN at last checkpoint", i(log.checkpoint_lsn())),
        ("log_lsn_current", "log", V, "Current LSN value", i(log.current_lsn())),
        ("log_lsn_checkpoint_age", "log", V, "Current LSN value minus LSN at last checkpoint", i(log.checkpoint_age())),
        (
            "log_lsn_buf_pool_oldest_approx",
            "log",
            V,
            "Approximation for the oldest modified block LSN in the buffer pool",
            i(e.pool().oldest_modification().unwrap_or_else(|| log.current_lsn())),
        ),
        ("log_waits", "log", S, "Number of log waits due to small log buffer (innodb_log_waits)", i(f.log_waits)),
        (
            "log_write_requests",
            "log",
            S,
            "Number of log write requests (innodb_log_write_requests)",
            i(f.log_write_requests),
        ),
        ("log_writes", "log", S, "Number of log writes", i(f.log_writes)),
        ("dml_reads", "dml", S, "Number of rows read", i(f.rows_read)),
        ("dml_inserts", "dml", S, "Number of rows inserted", i(f.rows_inserted)),
        ("dml_deletes", "dml", S, "Number of rows deleted", i(f.rows_deleted)),
        ("dml_updates", "dml", S, "Number of rows updated", i(f.rows_updated)),
        ("dml_system_reads", "dml", S, "Number of system rows read", i(f.system_rows_read)),
        ("dml_system_inserts", "dml", S, "Number of system rows inserted", i(f.system_rows_inserted)),
        ("dml_system_deletes", "dml", S, "Number of system rows deleted", i(f.system_rows_deleted)),
        ("dml_system_updates", "dml", S, "Number of system rows updated", i(f.system_rows_updated)),
        ("innodb_page_size", "server", V, "InnoDB page size in bytes (innodb_page_size)", i(f.page_size)),
        (
            "adaptive_hash_searches",
            "adaptive_hash_index",
            S,
            "Number of successful searches using Adaptive Hash Index",
            i(e.pool().adaptive_hash.searches.get()),
        ),
        (
            "adaptive_hash_searches_btree",
            "adaptive_hash_index",
            S,
            "Number of searches using B-tree on an index search",
            i(e.pool().adaptive_hash.searches_btree.get()),
        ),
        (
            "adaptive_hash_rows_added",
            "adaptive_hash_index",
            C,
            "Number of Adaptive Hash Index rows added",
            i(e.pool().adaptive_hash.rows_added.get()),
        ),
    ];
    if e.pool().dblwr().is_some() {
        m.push((
            "innodb_dblwr_writes",
            "server",
            S,
            "Number of doublewrite operations that have been performed (innodb_dblwr_writes)",
            i(f.dblwr_batches),
        ));
        m.push((
            "innodb_dblwr_pages_written",
            "server",
            S,
            "Number of pages that have been written for doublewrite operations (innodb_dblwr_pages_written)",
            i(f.dblwr_pages),
        ));
    }
    m
}

/// The extremes of the 'value' metrics seen by reads so far.
pub type Extremes = HashMap<&'static str, (i64, i64)>;

pub(super) fn rows(sess: &Session) -> Vec<Vec<Value>> {
    let elapsed_s = sess.shared.stats.started.get().map_or(0, |t| t.elapsed().as_secs());
    let enabled = datetime_ms(wall_ms().saturating_sub(elapsed_s * 1000));
    let mut seen = sess.shared.innodb_views.metrics.lock();
    metrics(sess)
        .into_iter()
        .map(|(name, subsystem, kind, comment, count)| {
            let (max, min, avg) = match kind {
                Kind::Value => {
                    let e = seen.entry(name).or_insert((count, count));
                    *e = (e.0.min(count), e.1.max(count));
                    (Value::Int(e.1), Value::Int(e.0), Value::Null)
                }
                _ => {
                    let avg = if elapsed_s > 0 { Value::Double(count as f64 / elapsed_s as f64) } else { Value::Null };
                    (Value::Int(count), Value::Null, avg)
                }
            };
            vec![
                s(name),
                s(subsystem),
                Value::Int(count),
                max.clone(),
                min.clone(),
                avg,
                Value::Int(count),
                max,
                min,
                Value::Null,
                enabled.clone(),
                Value::Null,
                Value::Int(elapsed_s as i64),
                Value::Null,
                s("enabled"),
                s(kind.name()),
                s(comment),
            ]
        })
        .collect()
}
