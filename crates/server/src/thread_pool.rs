//! `thread_handling=pool-of-threads`: the pool ([`crate::proto::pool`])
//! started with the configured variables, their runtime changes pushed
//! into it, and its status variables.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use quire_engine::row::Value;
use quire_sql::infoschema::PoolTable;
use quire_sql::sysvars::{SysVars, VarValue};

use crate::config::ServerConfig;
use crate::proto::pool::{Priority, Settings, ThreadPool};

/// The pool, when configured.
pub fn start(cfg: &ServerConfig) -> std::io::Result<Option<Arc<ThreadPool>>> {
    if !cfg.thread_pool() {
        return Ok(None);
    }
    let settings = Arc::new(Settings::default());
    bind(&cfg.sysvars, &settings);
    let pool = ThreadPool::start(cfg.thread_pool_size(), settings)?;
    tracing::info!("thread pool: {} groups", cfg.thread_pool_size());
    // SET GLOBAL thread_pool_size: up to the larger of 128 and the
    // startup value, as MariaDB's `threadpool_max_size`.
    cfg.sysvars.thread_pool_size_cap.store(cfg.thread_pool_size().max(128) as u64, Ordering::Relaxed);
    let weak = Arc::downgrade(&pool);
    let _ = cfg.sysvars.on_change(
        "thread_pool_size",
        Box::new(move |v| {
            if let (Some(pool), Some(n)) = (weak.upgrade(), v.as_u64()) {
                if let Err(e) = pool.set_size(n as usize) {
                    tracing::error!("thread pool: cannot start {n} groups ({e}); {} run", pool.size());
                }
            }
        }),
    );
    let weak = Arc::downgrade(&pool);
    let _ = cfg.sysvars.on_change(
        "thread_pool_stall_limit",
        Box::new(move |_| {
            if let Some(pool) = weak.upgrade() {
                pool.retime();
            }
        }),
    );
    Ok(Some(pool))
}

/// Sets `settings` from the variables now and whenever they change.
fn bind(sv: &Arc<SysVars>, settings: &Arc<Settings>) {
    type Apply = fn(&Settings, u64);
    let numbers: [(&str, Apply); 5] = [
        ("thread_pool_max_threads", |s, v| s.max_threads.store(v as usize, Ordering::Relaxed)),
        ("thread_pool_oversubscribe", |s, v| s.oversubscribe.store(v as usize, Ordering::Relaxed)),
        ("thread_pool_stall_limit", |s, v| s.stall_limit_ms.store(v, Ordering::Relaxed)),
        ("thread_pool_idle_timeout", |s, v| s.idle_timeout_s.store(v, Ordering::Relaxed)),
        ("thread_pool_prio_kickup_timer", |s, v| s.kickup_ms.store(v, Ordering::Relaxed)),
    ];
    for (name, apply) in numbers {
        if let Some(v) = sv.global(name).and_then(|v| v.as_u64()) {
            apply(settings, v);
        }
        let s = Arc::clone(settings);
        let _ = sv.on_change(
            name,
            Box::new(move |v| {
                if let Some(v) = v.as_u64() {
                    apply(&s, v);
                }
            }),
        );
    }
    let priority = |v: &VarValue| match v {
        VarValue::Str(s) => Priority::parse(s),
        _ => None,
    };
    if let Some(p) = sv.global("thread_pool_priority").as_ref().and_then(priority) {
        settings.set_priority(p);
    }
    let s = Arc::clone(settings);
    let _ = sv.on_change(
        "thread_pool_priority",
        Box::new(move |v| {
            if let Some(p) = priority(v) {
                s.set_priority(p);
            }
        }),
    );
}

/// `Threadpool_threads` and `Threadpool_idle_threads` (0 without a pool,
/// as MariaDB shows them).
pub fn status(pool: Option<&ThreadPool>) -> Vec<(String, String)> {
    let c = pool.map(ThreadPool::counts).unwrap_or_default();
    vec![
        ("Threadpool_idle_threads".to_string(), c.idle.to_string()),
        ("Threadpool_threads".to_string(), c.threads.to_string()),
    ]
}

/// information_schema's THREAD_POOL_* rows, in MariaDB's columns
/// (`quire_sql::infoschema::shape`).
pub fn rows(pool: &ThreadPool, table: PoolTable) -> Vec<Vec<Value>> {
    let n = |v: usize| Value::Int(v as i64);
    let count = |v: u64| Value::Int(v as i64);
    match table {
        PoolTable::Groups => pool
            .groups_info()
            .into_iter()
            .map(|g| {
                vec![
                    n(g.id),
                    n(g.connections),
                    n(g.threads),
                    n(g.active),
                    n(g.standby),
                    n(g.queue_length),
                    Value::Int(g.has_listener.into()),
                    Value::Int(g.is_stalled.into()),
                ]
            })
            .collect(),
        PoolTable::Queues => pool
            .queues_info()
            .into_iter()
            .map(|q| {
                vec![
                    n(q.group),
                    n(q.position),
                    Value::Int(q.priority.into()),
                    Value::UInt(q.connection_id.into()),
                    count(q.waited.as_micros() as u64),
                ]
            })
            .collect(),
        PoolTable::Stats => pool
            .groups_info()
            .into_iter()
            .map(|g| {
                let s = g.stats;
                vec![
                    n(g.id),
                    count(s.thread_creations),
                    count(s.thread_creations_due_to_stall),
                    count(s.wakes),
                    count(s.wakes_due_to_stall),
                    count(s.throttles),
                    count(s.stalls),
                    count(s.polls_by_listener),
                    count(s.polls_by_worker),
                    count(s.dequeues_by_listener),
                    count(s.dequeues_by_worker),
                ]
            })
            .collect(),
        PoolTable::Waits => pool.waits().into_iter().map(|(r, c)| vec![Value::Str(r.to_string()), count(c)]).collect(),
    }
}
