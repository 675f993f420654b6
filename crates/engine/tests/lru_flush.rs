//! LRU flushers (seeds 000 and 003): free frames are produced ahead of
//! demand by one flusher thread per instance, woken by an event; user
//! threads never write a page to get a frame; a pool nearly all dirty with
//! many writers keeps making progress.

use std::sync::Arc;
use std::time::{Duration, Instant};

use quire_engine::config::FlushMethod;
use quire_engine::row::{Column, ColumnType, TableSchema, Value};
use quire_engine::{Engine, EngineConfig};
use quire_io::{MemVfs, Vfs};

const FRAMES: usize = 256;

fn engine(instances: usize) -> Arc<Engine> {
    let vfs: Arc<dyn Vfs> = MemVfs::new();
    let cfg = EngineConfig::new("/data")
        .page_size(4096)
        .buffer_pool_size(FRAMES * 4096)
        .buffer_pool_instances(instances)
        .flush_method(FlushMethod::Fsync);
    Engine::open(cfg, vfs).unwrap()
}

fn schema() -> TableSchema {
    TableSchema {
        columns: vec![
            Column::new("id", ColumnType::BigInt { unsigned: false }).not_null(),
            Column::new("v", ColumnType::BigInt { unsigned: false }).not_null(),
            Column::new("pad", ColumnType::Varchar { len: 200 }).not_null(),
        ],
        primary_key: vec![0],
        indexes: vec![],
    }
}

fn row(id: i64, v: i64) -> Vec<Value> {
    vec![Value::Int(id), Value::Int(v), Value::Str(format!("{id:0>150}"))]
}

/// Many writers on a pool several times smaller than the data: every
/// frame they need comes from the LRU flusher or is a clean page; none of
/// them writes a page.
#[test]
fn writers_on_a_pool_nearly_all_dirty_progress_without_writing_pages() {
    let e = engine(2);
    let t = e.create_table("t", schema()).unwrap();
    const ROWS: i64 = 8000; // ~1.6 MB of rows: about 6x the pool
    std::thread::scope(|s| {
        for w in 0..4 {
            let t = &t;
            s.spawn(move || {
                for id in (w..ROWS).step_by(4) {
                    t.insert(row(id, 0)).unwrap();
                }
            });
        }
    });
    // Dirty everything again, from several threads at once.
    std::thread::scope(|s| {
        for w in 0..4 {
            let t = &t;
            s.spawn(move || {
                for id in (w..ROWS).step_by(4) {
                    assert!(t.update(&[Value::Int(id)], row(id, id)).unwrap());
                }
            });
        }
    });
    let st = &e.pool().stats;
    println!(
        "evictions {}, LRU-flushed {}, waits for a free frame {}",
        st.evictions.get(),
        st.flushed_lru.get(),
        st.wait_free.get()
    );
    assert!(st.evictions.get() > 1000, "the pool was under pressure");
    assert!(st.flushed_lru.get() > 0, "the LRU flushers wrote pages");
    assert_eq!(st.flushed_by_user.get(), 0, "no user thread wrote a page to get a frame");
    for id in (0..ROWS).step_by(97) {
        assert_eq!(t.get(&[Value::Int(id)]).unwrap(), Some(row(id, id)), "row {id}");
    }
    e.shutdown().unwrap();
}

/// The flusher is woken by demand, not by a timer: after one frame is
/// taken from a full pool of dirty pages, the free list is back at its
/// target within milliseconds (a flusher polling with a sleep of its idle
/// timeout, 1 s, would not be).
#[test]
fn free_frames_come_back_within_milliseconds_of_demand() {
    let e = engine(1);
    let t = e.create_table("t", schema()).unwrap();
    const ROWS: i64 = 4000;
    for id in 0..ROWS {
        t.insert(row(id, 0)).unwrap();
    }
    let pool = e.pool();
    let target = pool.free_frames_target();
    let mut worst = Duration::ZERO;
    for round in 0..20 {
        // Dirty the most recent rows' pages (resident), then let the
        // flusher settle at its target.
        for id in (ROWS - 300)..ROWS {
            t.update(&[Value::Int(id)], row(id, round)).unwrap();
        }
        let settle = Instant::now() + Duration::from_secs(5);
        while pool.free_frames() < target && Instant::now() < settle {
            std::thread::sleep(Duration::from_millis(1));
        }
        std::thread::sleep(Duration::from_millis(20));
        // Demand: read rows from the other end (not resident).
        let started = Instant::now();
        for id in (round * 50)..(round * 50 + 50) {
            t.get(&[Value::Int(id)]).unwrap();
        }
        while pool.free_frames() < target && started.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_micros(200));
        }
        worst = worst.max(started.elapsed());
    }
    println!("slowest refill after demand: {worst:?} (target {target} free frames)");
    assert!(worst < Duration::from_millis(500), "free frames came back after {worst:?}");
    assert_eq!(pool.stats.flushed_by_user.get(), 0);
    e.shutdown().unwrap();
}
