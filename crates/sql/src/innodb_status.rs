//! SHOW ENGINE INNODB STATUS: InnoDB's monitor report, in its section
//! order and line shapes (tools such as mysqld-exporter and innotop read
//! lines like "History list length", "Log sequence number", "Buffer pool
//! size", "hash searches/s"), filled with quire's own figures. Only real
//! figures are printed: what quire does not have (the change buffer, row
//! counters) is said to be absent, never a made-up zero.
//!
//! Per-second rates are over the time since the previous report (the
//! first one: since the server started), as InnoDB's are.

use std::fmt::Write;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use quire_engine::txn::lock::{LockKind, LockMode};

use crate::session::Session;

/// The counters a report's rates are computed from.
#[derive(Clone, Copy)]
pub struct Snapshot {
    at: Instant,
    reads: u64,
    writes: u64,
    log_writes: u64,
    fsyncs: u64,
    row_lock_waits: u64,
    hash_searches: u64,
    non_hash_searches: u64,
}

/// The report: one row (Type, Name, Status).
pub fn report(s: &Session) -> String {
    let shared = &s.shared;
    let e = shared.engine.clone();
    let pool = e.pool();
    let log = e.log();
    let txn = e.txn();
    let now = Snapshot {
        at: Instant::now(),
        reads: pool.stats.reads.get(),
        writes: pool.stats.writes.get(),
        log_writes: log.stats.writes.load(Relaxed),
        fsyncs: e.fsyncs().done,
        row_lock_waits: txn.locks.stats.waits.get(),
        hash_searches: pool.adaptive_hash.searches.get(),
        non_hash_searches: pool.adaptive_hash.searches_btree.get(),
    };
    let started = shared.stats.started.get().copied().unwrap_or(now.at);
    let before = shared.monitor.lock().replace(now).unwrap_or(Snapshot {
        at: started,
        reads: 0,
        writes: 0,
        log_writes: 0,
        fsyncs: 0,
        row_lock_waits: 0,
        hash_searches: 0,
        non_hash_searches: 0,
    });
    let secs = now.at.duration_since(before.at).as_secs_f64().max(1e-3);
    let rate = |a: u64, b: u64| a.saturating_sub(b) as f64 / secs;

    let mut o = String::new();
    let stamp = chrono_like_now();
    let _ = writeln!(
        o,
        "\n=====================================\n{stamp} INNODB MONITOR OUTPUT\n====================================="
    );
    let _ = writeln!(o, "Per second averages calculated from the last {} seconds", secs.round() as u64);

    section(&mut o, "SEMAPHORES");
    let gate = &txn.admission;
    let _ = writeln!(
        o,
        "Row lock waits {}, lock wait time {} ms, deadlocks {}",
        txn.locks.stats.waits.get(),
        txn.locks.stats.wait_us.get() / 1000,
        txn.locks.stats.deadlocks.get()
    );
    let _ = writeln!(
        o,
        "Free frame waits {}, redo log buffer waits {}, checkpoint waits {}",
        pool.stats.wait_free.get(),
        log.stats.buffer_waits.get(),
        log.stats.checkpoint_waits.get()
    );
    let _ = writeln!(
        o,
        "Concurrency seat waits {}, wait time {} ms",
        gate.waits.load(Relaxed),
        gate.wait_us.load(Relaxed) / 1000
    );

    section(&mut o, "TRANSACTIONS");
    let trx_sys = &txn.trx_sys;
    let _ = writeln!(o, "Trx id counter {}", trx_sys.next_id());
    let _ = writeln!(o, "Purge done for trx's n:o < {} undo n:o < 0 state: running", trx_sys.oldest_view_limit());
    let _ = writeln!(o, "History list length {}", txn.history_len());
    let _ = writeln!(o, "Total number of lock structs in row lock hash table {}", txn.locks.lock_count());
    let _ = writeln!(o, "LIST OF TRANSACTIONS FOR EACH SESSION:");
    let waits = txn.locks.waits();
    let processes = shared.processes.all();
    for (id, owner) in trx_sys.active_list() {
        let wait = waits.iter().find(|w| w.trx == id);
        let state = if wait.is_some() { "ACTIVE, LOCK WAIT" } else { "ACTIVE" };
        let _ = writeln!(o, "---TRANSACTION {id}, {state}");
        if let Some(p) = processes.iter().find(|p| p.id == owner) {
            let row = p.row(true);
            let _ = writeln!(o, "MySQL thread id {}, {} {} {}", row.id, row.host, row.user, row.state);
            if let Some(info) = row.info {
                let _ = writeln!(o, "{info}");
            }
        }
        if let Some(w) = wait {
            let _ = writeln!(
                o,
                "------- TRX HAS BEEN WAITING {} SEC FOR THIS LOCK TO BE GRANTED:",
                w.since.elapsed().as_secs()
            );
            let _ = writeln!(
                o,
                "RECORD LOCKS index id {} trx id {id} lock_mode {}{} waiting",
                w.key.index,
                mode_name(w.mode),
                kind_suffix(w.kind, w.key.key.is_none())
            );
            let blockers: Vec<String> = w.blockers.iter().map(|b| b.to_string()).collect();
            let _ = writeln!(o, "held by trx id {}\n------------------", blockers.join(", "));
        }
    }

    section(&mut o, "FILE I/O");
    let syncs = e.fsyncs();
    let _ = writeln!(
        o,
        "Pending flushes (fsync) log: {}; buffer pool: {}",
        syncs.log_pending,
        syncs.pending - syncs.log_pending
    );
    let _ = writeln!(
        o,
        "{} OS file reads, {} OS file writes, {} OS fsyncs",
        now.reads,
        now.writes + now.log_writes,
        now.fsyncs
    );
    let _ = writeln!(
        o,
        "{:.2} reads/s, {:.2} writes/s, {:.2} fsyncs/s",
        rate(now.reads, before.reads),
        rate(now.writes + now.log_writes, before.writes + before.log_writes),
        rate(now.fsyncs, before.fsyncs)
    );

    section(&mut o, "INSERT BUFFER AND ADAPTIVE HASH INDEX");
    let ibuf = e.change_buffer();
    let _ = writeln!(
        o,
        "Ibuf: size {}, free list len 0, seg size {}, {} merges",
        ibuf.size_pages(),
        ibuf.size_pages() + 1,
        ibuf.stats.merges.get()
    );
    let _ = writeln!(o, "merged operations:");
    let _ = writeln!(
        o,
        " insert {}, delete mark 0, delete {}",
        ibuf.stats.merged_inserts.get(),
        ibuf.stats.merged_removes.get()
    );
    let _ = writeln!(o, "discarded operations:");
    let _ = writeln!(
        o,
        " insert {}, delete mark 0, delete {}",
        ibuf.stats.discarded_inserts.get(),
        ibuf.stats.discarded_removes.get()
    );
    // One line per part, as InnoDB prints; a table not yet allocated (the
    // index was never on) has size 0. Entries live in the table itself.
    let ahi = &pool.adaptive_hash;
    let (parts, per_part) = ahi.shape().unwrap_or((ahi.parts(), 0));
    for _ in 0..parts {
        let _ = writeln!(o, "Hash table size {per_part}, node heap has 0 buffer(s)");
    }
    let _ = writeln!(
        o,
        "{:.2} hash searches/s, {:.2} non-hash searches/s",
        rate(now.hash_searches, before.hash_searches),
        rate(now.non_hash_searches, before.non_hash_searches)
    );

    section(&mut o, "LOG");
    let _ = writeln!(o, "Log sequence number {}", log.current_lsn());
    let _ = writeln!(o, "Log buffer assigned up to    {}", log.current_lsn());
    let _ = writeln!(o, "Log written up to   {}", log.written_lsn());
    let _ = writeln!(o, "Log flushed up to   {}", log.flushed_lsn());
    let _ = writeln!(o, "Pages flushed up to {}", pool.oldest_modification().unwrap_or(log.current_lsn()));
    let _ = writeln!(o, "Last checkpoint at  {}", log.checkpoint_lsn());
    let _ = writeln!(o, "Checkpoint age {} of capacity {}", log.checkpoint_age(), log.capacity());
    let _ = writeln!(
        o,
        "{} log i/o's done, {:.2} log i/o's/second",
        now.log_writes,
        rate(now.log_writes, before.log_writes)
    );

    section(&mut o, "BUFFER POOL AND MEMORY");
    let inst = pool.instance_summaries();
    let page = pool.page_size();
    let total = |f: fn(&quire_engine::buffer::InstanceSummary) -> usize| inst.iter().map(f).sum::<usize>();
    pool_lines(
        &mut o,
        page,
        total(|i| i.frames),
        total(|i| i.free),
        total(|i| i.lru),
        total(|i| i.old),
        total(|i| i.dirty),
    );
    let _ = writeln!(o, "Pages made young {}, not young {}", pool.made_young(), pool.not_made_young());
    let _ = writeln!(o, "Pages read {}, written {}", now.reads, now.writes);
    let _ =
        writeln!(o, "{:.2} reads/s, {:.2} writes/s", rate(now.reads, before.reads), rate(now.writes, before.writes));
    let _ = writeln!(o, "Buffer pool hit rate: {} page requests, {} reads", pool.page_requests(), now.reads);
    if inst.len() > 1 {
        section(&mut o, "INDIVIDUAL BUFFER POOL INFO");
        for (n, i) in inst.iter().enumerate() {
            let _ = writeln!(o, "---BUFFER POOL {n}");
            pool_lines(&mut o, page, i.frames, i.free, i.lru, i.old, i.dirty);
        }
    }

    section(&mut o, "ROW OPERATIONS");
    let (inside, queued) = gate.occupancy();
    let _ = writeln!(o, "{inside} queries inside InnoDB, {queued} queries in queue");
    let _ = writeln!(o, "{} read views open inside InnoDB", trx_sys.view_count());
    let _ = writeln!(o, "{} read-write transactions active", trx_sys.active_count());
    let _ = writeln!(o, "{:.2} row lock waits/s", rate(now.row_lock_waits, before.row_lock_waits));
    let _ = writeln!(o, "----------------------------\nEND OF INNODB MONITOR OUTPUT\n============================");
    o
}

fn section(o: &mut String, name: &str) {
    let bar = "-".repeat(name.len());
    let _ = writeln!(o, "{bar}\n{name}\n{bar}");
}

fn pool_lines(o: &mut String, page: usize, frames: usize, free: usize, lru: usize, old: usize, dirty: usize) {
    let _ = writeln!(o, "Buffer pool size   {frames}");
    let _ = writeln!(o, "Buffer pool size, bytes {}", frames * page);
    let _ = writeln!(o, "Free buffers       {free}");
    let _ = writeln!(o, "Database pages     {lru}");
    let _ = writeln!(o, "Old database pages {old}");
    let _ = writeln!(o, "Modified db pages  {dirty}");
}

fn mode_name(m: LockMode) -> &'static str {
    match m {
        LockMode::S => "S",
        LockMode::X => "X",
    }
}

/// InnoDB's words for the lock's extent.
fn kind_suffix(k: LockKind, supremum: bool) -> &'static str {
    match k {
        _ if supremum => " (supremum)",
        LockKind::Record => " locks rec but not gap",
        LockKind::Gap => " locks gap before rec",
        LockKind::NextKey => "",
        LockKind::InsertIntention => " insert intention",
    }
}

/// The session's local time as InnoDB stamps its reports:
/// `YYYY-MM-DD HH:MM:SS`.
fn chrono_like_now() -> String {
    crate::temporal::format(&crate::func::now(), "%Y-%m-%d %H:%i:%s")
}
