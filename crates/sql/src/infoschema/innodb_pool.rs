//! INNODB_BUFFER_POOL_STATS (one row per buffer pool instance, from its
//! lists and its own counters: `engine::buffer::instance_stats`),
//! INNODB_CMP and INNODB_CMPMEM.
//!
//! Rates and the per-thousand-gets figures are over the time since the
//! previous read of the table (the first: since the server started), as
//! InnoDB computes them since its previous printout. LRU_IO_TOTAL is the
//! instance's page reads and writes, LRU_IO_CURRENT those since the
//! previous read (InnoDB sums its LRU I/O over a window of 50 one-second
//! intervals, which quire does not keep). quire compresses nothing: no
//! page waits for decompression, and INNODB_CMP / INNODB_CMPMEM have
//! InnoDB's rows (one per compressed page size, and per instance) with
//! every count 0, which is what happened.

use std::time::Instant;

use quire_engine::buffer::InstanceCounters;
use quire_engine::row::Value;

use super::u;
use crate::session::Session;

/// The counters of the previous read (the rates' base).
pub struct Previous {
    at: Instant,
    instances: Vec<InstanceCounters>,
}

/// InnoDB's compressed page sizes (1K to 16K).
const ZIP_SIZES: [i64; 5] = [1024, 2048, 4096, 8192, 16384];

pub(super) fn buffer_pool_stats(sess: &Session) -> Vec<Vec<Value>> {
    let pool = sess.engine().pool();
    let inst = pool.instance_summaries();
    let now = Instant::now();
    let started = sess.shared.stats.started.get().copied().unwrap_or(now);
    let before = sess
        .shared
        .innodb_views
        .pool
        .lock()
        .replace(Previous { at: now, instances: inst.iter().map(|i| i.counters).collect() })
        .filter(|p| p.instances.len() == inst.len())
        .unwrap_or(Previous { at: started, instances: vec![InstanceCounters::default(); inst.len()] });
    let secs = now.duration_since(before.at).as_secs_f64().max(1e-3);
    inst.iter()
        .zip(before.instances.iter())
        .enumerate()
        .map(|(n, (i, b))| {
            let c = &i.counters;
            let rate = |now: u64, was: u64| Value::Double(now.saturating_sub(was) as f64 / secs);
            let gets = c.requests.saturating_sub(b.requests);
            let per_thousand = |now: u64, was: u64| u((now.saturating_sub(was) * 1000).checked_div(gets).unwrap_or(0));
            let hit_rate = match gets {
                0 => 0,
                g => 1000u64.saturating_sub(c.reads.saturating_sub(b.reads) * 1000 / g),
            };
            vec![
                u(n as u64),
                u(i.frames as u64),
                u(i.free as u64),
                u(i.lru as u64),
                u(i.old as u64),
                u(i.dirty as u64),
                u(0),
                u(c.pending_reads),
                u(c.pending_flush_lru),
                u(c.pending_flush_list),
                u(c.made_young),
                u(c.not_made_young),
                rate(c.made_young, b.made_young),
                rate(c.not_made_young, b.not_made_young),
                u(c.reads),
                u(c.created),
                u(c.written),
                rate(c.reads, b.reads),
                rate(c.created, b.created),
                rate(c.written, b.written),
                u(c.requests),
                u(hit_rate),
                per_thousand(c.made_young, b.made_young),
                per_thousand(c.not_made_young, b.not_made_young),
                u(c.read_ahead),
                u(c.read_ahead_evicted),
                rate(c.read_ahead, b.read_ahead),
                rate(c.read_ahead_evicted, b.read_ahead_evicted),
                u(c.reads + c.written),
                u((c.reads + c.written).saturating_sub(b.reads + b.written)),
                u(0),
                u(0),
            ]
        })
        .collect()
}

pub(super) fn cmp() -> Vec<Vec<Value>> {
    ZIP_SIZES
        .iter()
        .map(|&size| std::iter::once(Value::Int(size)).chain((0..5).map(|_| Value::Int(0))).collect::<Vec<Value>>())
        .collect()
}

pub(super) fn cmpmem(sess: &Session) -> Vec<Vec<Value>> {
    let instances = sess.engine().pool().instance_summaries().len();
    let mut out = Vec::new();
    for n in 0..instances {
        for &size in &ZIP_SIZES {
            out.push(vec![
                Value::Int(size),
                Value::Int(n as i64),
                Value::Int(0),
                Value::Int(0),
                Value::Int(0),
                Value::Int(0),
            ]);
        }
    }
    out
}
