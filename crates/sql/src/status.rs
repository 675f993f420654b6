//! Engine counters for SHOW STATUS, under InnoDB's names where the concept
//! is the same.

use std::sync::atomic::Ordering::Relaxed;

use quire_engine::Engine;

pub fn engine_status(e: &Engine) -> Vec<(String, String)> {
    let pool = e.pool();
    let log = e.log();
    let s = &pool.stats;
    let v: Vec<(&str, String)> = vec![
        ("Innodb_page_size", pool.page_size().to_string()),
        ("Innodb_buffer_pool_pages_total", pool.frames_total().to_string()),
        ("Innodb_buffer_pool_pages_data", pool.resident_pages().to_string()),
        ("Innodb_buffer_pool_pages_dirty", pool.dirty_pages().to_string()),
        ("Innodb_buffer_pool_pages_free", pool.free_frames().to_string()),
        ("Innodb_buffer_pool_wait_free", s.wait_free.get().to_string()),
        ("Innodb_buffer_pool_pages_flushed_by_page_cleaners", s.flushed_by_cleaners.get().to_string()),
        ("Innodb_buffer_pool_sync_flushes", s.sync_flushes.get().to_string()),
        ("Innodb_buffer_pool_pages_sync_flushed", s.flushed_sync.get().to_string()),
        ("Innodb_buffer_pool_read_requests", s.requests.get().to_string()),
        ("Innodb_buffer_pool_reads", s.reads.get().to_string()),
        ("Innodb_buffer_pool_pages_flushed", s.writes.get().to_string()),
        ("Innodb_buffer_pool_pages_LRU_flushed", s.flushed_lru.get().to_string()),
        ("Innodb_buffer_pool_pages_space_flushed", s.flushed_space.get().to_string()),
        ("Innodb_buffer_pool_pages_made_young", s.made_young.get().to_string()),
        ("Innodb_buffer_pool_pages_made_not_young", s.not_made_young.get().to_string()),
        ("Innodb_buffer_pool_pages_evicted", s.evictions.get().to_string()),
        ("Innodb_buffer_pool_read_ahead", pool.read_ahead.stats.pages.get().to_string()),
        ("Innodb_buffer_pool_read_ahead_rnd", pool.read_ahead.stats.random_requests.get().to_string()),
        ("Innodb_buffer_pool_read_ahead_evicted", pool.read_ahead.stats.evicted_unused.get().to_string()),
        ("Innodb_lsn_current", log.current_lsn().to_string()),
        ("Innodb_lsn_last_checkpoint", log.checkpoint_lsn().to_string()),
        ("Innodb_checkpoint_age", log.checkpoint_age().to_string()),
        ("Innodb_redo_log_capacity", log.capacity().to_string()),
        ("Innodb_log_waits", log.stats.buffer_waits.get().to_string()),
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
    if let Some(d) = pool.dblwr() {
        out.push(("Innodb_dblwr_writes".into(), d.stats.batches.get().to_string()));
        out.push(("Innodb_dblwr_pages_written".into(), d.stats.pages.get().to_string()));
    }
    out
}
