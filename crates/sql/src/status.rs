//! Engine counters for SHOW STATUS, under InnoDB's names where the concept
//! is the same. [`Figures`] is read once per statement and shared with
//! information_schema.INNODB_METRICS (`infoschema/innodb_metrics.rs`), so
//! that `Innodb_rows_inserted` and `dml_inserts` can never disagree.

use std::sync::atomic::Ordering::Relaxed;

use quire_engine::Engine;

use crate::session::Session;

/// The engine's figures at one moment (each read once, without a global
/// latch: they may be a moment apart from one another).
pub struct Figures {
    pub page_size: u64,
    pub pages_total: u64,
    /// Pages on the LRU lists (holding data).
    pub pages_data: u64,
    pub pages_dirty: u64,
    pub pages_free: u64,
    /// Pages read from disk (read-ahead included).
    pub pages_read: u64,
    pub pages_written: u64,
    pub pages_created: u64,
    pub read_requests: u64,
    pub wait_free: u64,
    pub read_ahead: u64,
    pub read_ahead_evicted: u64,
    /// Page reads and writes under way.
    pub pending_reads: u64,
    pub pending_writes: u64,
    /// Redo bytes appended, write requests (mini-transactions), writes to
    /// the file, syncs, waits for buffer room.
    pub log_bytes: u64,
    pub log_write_requests: u64,
    pub log_writes: u64,
    pub log_syncs: u64,
    pub log_waits: u64,
    /// Syncs of every engine file (data, doublewrite, redo log).
    pub fsyncs: quire_engine::fsyncs::FsyncTotals,
    /// Doublewrite batches and the pages they carried.
    pub dblwr_batches: u64,
    pub dblwr_pages: u64,
    /// Rows of user tables, and of the `mysql` schema's.
    pub rows_read: u64,
    pub rows_inserted: u64,
    pub rows_updated: u64,
    pub rows_deleted: u64,
    pub system_rows_read: u64,
    pub system_rows_inserted: u64,
    pub system_rows_updated: u64,
    pub system_rows_deleted: u64,
    pub rw_commits: u64,
    pub ro_commits: u64,
    pub rollbacks: u64,
    pub rollbacks_savepoint: u64,
}

impl Figures {
    pub fn read(e: &Engine) -> Self {
        let pool = e.pool();
        let log = e.log();
        let c = &e.txn().counters;
        let inst = pool.instance_summaries();
        let (dblwr_batches, dblwr_pages) =
            pool.dblwr().map_or((0, 0), |d| (d.stats.batches.get(), d.stats.pages.get()));
        Figures {
            page_size: pool.page_size() as u64,
            pages_total: pool.frames_total() as u64,
            pages_data: inst.iter().map(|i| i.lru as u64).sum(),
            pages_dirty: inst.iter().map(|i| i.dirty as u64).sum(),
            pages_free: inst.iter().map(|i| i.free as u64).sum(),
            pages_read: pool.stats.reads.get(),
            pages_written: pool.stats.writes.get(),
            pages_created: pool.pages_created(),
            read_requests: pool.page_requests(),
            wait_free: pool.stats.wait_free.get(),
            read_ahead: pool.read_ahead.stats.pages.get(),
            read_ahead_evicted: pool.read_ahead.stats.evicted_unused.get(),
            pending_reads: inst.iter().map(|i| i.counters.pending_reads).sum(),
            pending_writes: inst.iter().map(|i| i.counters.pending_flush_lru + i.counters.pending_flush_list).sum(),
            log_bytes: log.stats.bytes.get(),
            log_write_requests: log.stats.groups.get(),
            log_writes: log.stats.writes.load(Relaxed),
            log_syncs: log.stats.syncs.load(Relaxed),
            log_waits: log.stats.buffer_waits.get(),
            fsyncs: e.fsyncs(),
            dblwr_batches,
            dblwr_pages,
            rows_read: c.rows.read.get(),
            rows_inserted: c.rows.inserted.get(),
            rows_updated: c.rows.updated.get(),
            rows_deleted: c.rows.deleted.get(),
            system_rows_read: c.system_rows.read.get(),
            system_rows_inserted: c.system_rows.inserted.get(),
            system_rows_updated: c.system_rows.updated.get(),
            system_rows_deleted: c.system_rows.deleted.get(),
            rw_commits: c.rw_commits.get(),
            ro_commits: c.ro_commits.get(),
            rollbacks: c.rollbacks.get(),
            rollbacks_savepoint: c.rollbacks_savepoint.get(),
        }
    }

    /// Pages neither free nor holding data: frames taken for a read or an
    /// eviction under way (InnoDB's "misc" pages hold its lock and
    /// adaptive hash memory; quire keeps those outside the pool).
    pub fn pages_misc(&self) -> u64 {
        self.pages_total.saturating_sub(self.pages_free + self.pages_data)
    }

    /// Data file and redo log writes (`Innodb_data_writes`): page writes,
    /// doublewrite batches and redo log writes, each one I/O request.
    pub fn data_writes(&self) -> u64 {
        self.pages_written + self.dblwr_batches + self.log_writes
    }

    /// Bytes written to data files and the redo log
    /// (`Innodb_data_written`).
    pub fn data_written_bytes(&self) -> u64 {
        (self.pages_written + self.dblwr_pages) * self.page_size + self.log_bytes
    }
}

pub fn engine_status(e: &Engine) -> Vec<(String, String)> {
    let pool = e.pool();
    let log = e.log();
    let s = &pool.stats;
    let f = Figures::read(e);
    let old: u64 = pool.instance_summaries().iter().map(|i| i.old as u64).sum();
    let ibuf = e.change_buffer();
    let v: Vec<(&str, String)> = vec![
        ("Innodb_page_size", f.page_size.to_string()),
        ("Innodb_buffer_pool_pages_total", f.pages_total.to_string()),
        ("Innodb_buffer_pool_pages_data", f.pages_data.to_string()),
        ("Innodb_buffer_pool_bytes_data", (f.pages_data * f.page_size).to_string()),
        ("Innodb_buffer_pool_pages_dirty", f.pages_dirty.to_string()),
        ("Innodb_buffer_pool_bytes_dirty", (f.pages_dirty * f.page_size).to_string()),
        ("Innodb_buffer_pool_pages_free", f.pages_free.to_string()),
        ("Innodb_buffer_pool_pages_misc", f.pages_misc().to_string()),
        ("Innodb_buffer_pool_pages_old", old.to_string()),
        ("Innodb_buffer_pool_wait_free", f.wait_free.to_string()),
        ("Innodb_buffer_pool_pages_flushed_by_page_cleaners", s.flushed_by_cleaners.get().to_string()),
        ("Innodb_buffer_pool_sync_flushes", s.sync_flushes.get().to_string()),
        ("Innodb_buffer_pool_pages_sync_flushed", s.flushed_sync.get().to_string()),
        ("Innodb_buffer_pool_read_requests", f.read_requests.to_string()),
        ("Innodb_buffer_pool_reads", f.pages_read.to_string()),
        ("Innodb_buffer_pool_pages_flushed", f.pages_written.to_string()),
        ("Innodb_buffer_pool_pages_LRU_flushed", s.flushed_lru.get().to_string()),
        ("Innodb_buffer_pool_pages_space_flushed", s.flushed_space.get().to_string()),
        ("Innodb_buffer_pool_pages_made_young", pool.made_young().to_string()),
        ("Innodb_buffer_pool_pages_made_not_young", pool.not_made_young().to_string()),
        ("Innodb_buffer_pool_pages_evicted", s.evictions.get().to_string()),
        ("Innodb_buffer_pool_read_ahead", f.read_ahead.to_string()),
        ("Innodb_ibuf_discarded_delete_marks", "0".to_string()),
        ("Innodb_ibuf_discarded_deletes", ibuf.stats.discarded_removes.get().to_string()),
        ("Innodb_ibuf_discarded_inserts", ibuf.stats.discarded_inserts.get().to_string()),
        ("Innodb_ibuf_merged_delete_marks", "0".to_string()),
        ("Innodb_ibuf_merged_deletes", ibuf.stats.merged_removes.get().to_string()),
        ("Innodb_ibuf_merged_inserts", ibuf.stats.merged_inserts.get().to_string()),
        ("Innodb_ibuf_merges", ibuf.stats.merges.get().to_string()),
        ("Innodb_ibuf_size", ibuf.size_pages().to_string()),
        ("Innodb_buffer_pool_read_ahead_rnd", pool.read_ahead.stats.random_requests.get().to_string()),
        ("Innodb_buffer_pool_read_ahead_evicted", f.read_ahead_evicted.to_string()),
        ("Innodb_pages_created", f.pages_created.to_string()),
        ("Innodb_pages_read", f.pages_read.to_string()),
        ("Innodb_pages_written", f.pages_written.to_string()),
        ("Innodb_data_read", (f.pages_read * f.page_size).to_string()),
        ("Innodb_data_reads", f.pages_read.to_string()),
        ("Innodb_data_writes", f.data_writes().to_string()),
        ("Innodb_data_written", f.data_written_bytes().to_string()),
        ("Innodb_data_pending_reads", f.pending_reads.to_string()),
        ("Innodb_data_pending_writes", f.pending_writes.to_string()),
        ("Innodb_data_fsyncs", f.fsyncs.done.to_string()),
        ("Innodb_data_pending_fsyncs", f.fsyncs.pending.to_string()),
        ("Innodb_log_write_requests", f.log_write_requests.to_string()),
        ("Innodb_log_writes", f.log_writes.to_string()),
        ("Innodb_os_log_written", f.log_bytes.to_string()),
        ("Innodb_os_log_fsyncs", f.log_syncs.to_string()),
        ("Innodb_os_log_pending_fsyncs", f.fsyncs.log_pending.to_string()),
        ("Innodb_rows_read", f.rows_read.to_string()),
        ("Innodb_rows_inserted", f.rows_inserted.to_string()),
        ("Innodb_rows_updated", f.rows_updated.to_string()),
        ("Innodb_rows_deleted", f.rows_deleted.to_string()),
        ("Innodb_system_rows_read", f.system_rows_read.to_string()),
        ("Innodb_system_rows_inserted", f.system_rows_inserted.to_string()),
        ("Innodb_system_rows_updated", f.system_rows_updated.to_string()),
        ("Innodb_system_rows_deleted", f.system_rows_deleted.to_string()),
        // The handler calls that reach InnoDB: a row written, changed,
        // removed; a transaction committed or rolled back (MySQL counts
        // the same calls of every engine; quire has one).
        ("Handler_write", (f.rows_inserted + f.system_rows_inserted).to_string()),
        ("Handler_update", (f.rows_updated + f.system_rows_updated).to_string()),
        ("Handler_delete", (f.rows_deleted + f.system_rows_deleted).to_string()),
        ("Handler_commit", (f.rw_commits + f.ro_commits).to_string()),
        ("Handler_rollback", f.rollbacks.to_string()),
        ("Handler_savepoint_rollback", f.rollbacks_savepoint.to_string()),
        ("Innodb_lsn_current", log.current_lsn().to_string()),
        ("Innodb_lsn_flushed", log.flushed_lsn().to_string()),
        ("Innodb_lsn_last_checkpoint", log.checkpoint_lsn().to_string()),
        ("Innodb_checkpoint_age", log.checkpoint_age().to_string()),
        ("Innodb_redo_log_capacity", log.capacity().to_string()),
        ("Innodb_log_waits", f.log_waits.to_string()),
        ("Innodb_checkpoint_waits", log.stats.checkpoint_waits.get().to_string()),
    ];
    let mut out: Vec<(String, String)> = v.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    // `innodb_thread_concurrency`'s seats: InnoDB prints the first two in
    // SHOW ENGINE INNODB STATUS ("queries inside InnoDB, queries in
    // queue"); as status variables they are quire's.
    let gate = &e.txn().admission;
    let (inside, queued) = gate.occupancy();
    out.extend([
        ("Innodb_threads_inside".to_string(), inside.to_string()),
        ("Innodb_threads_queued".to_string(), queued.to_string()),
        ("Innodb_threads_inside_max".to_string(), gate.peak.load(Relaxed).to_string()),
        ("Innodb_thread_concurrency_waits".to_string(), gate.waits.load(Relaxed).to_string()),
        ("Innodb_thread_concurrency_wait_time".to_string(), (gate.wait_us.load(Relaxed) / 1000).to_string()),
    ]);
    if pool.dblwr().is_some() {
        out.push(("Innodb_dblwr_writes".into(), f.dblwr_batches.to_string()));
        out.push(("Innodb_dblwr_pages_written".into(), f.dblwr_pages.to_string()));
    }
    out
}

/// Status the process list answers: `Threads_running`, the connections
/// running a statement now (the one asking included, as MySQL counts it).
/// `Open_tables`: the base tables open now (every table that opened: the
/// engine keeps each open until it is dropped, see
/// `infoschema/open_tables.rs`), temporary ones left out as MySQL's table
/// cache leaves them out; `Opened_tables`: the tables opened since
/// startup.
pub fn table_status(e: &Engine) -> Vec<(String, String)> {
    let (open, opened) = table_counts(e);
    vec![("Open_tables".to_string(), open.to_string()), ("Opened_tables".to_string(), opened.to_string())]
}

/// (`Open_tables`, `Opened_tables`): see [`table_status`].
pub fn table_counts(e: &Engine) -> (usize, u64) {
    let open = e
        .table_names()
        .iter()
        .filter(|n| n.split_once('/').is_some_and(|(db, _)| db != crate::temp_table::ENGINE_DB) && e.table(n).is_ok())
        .count();
    (open, e.opened_tables())
}

pub fn session_status(s: &Session) -> Vec<(String, String)> {
    let running =
        s.shared.processes.all().iter().filter(|p| matches!(p.row(false).command, "Query" | "Execute")).count();
    // An embedded session (no connection) still runs this statement.
    vec![("Threads_running".to_string(), running.max(1).to_string())]
}
