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
        ..Default::default()
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
    assert!(st.evictions.get() > 300, "the pool was under pressure: {} evictions", st.evictions.get());
    assert!(st.flushed_lru.get() > 0, "the LRU flushers wrote pages");
    assert_eq!(st.flushed_by_user.get(), 0, "no user thread wrote a page to get a frame");
    for id in (0..ROWS).step_by(97) {
        assert_eq!(t.get(&[Value::Int(id)]).unwrap(), Some(row(id, id)), "row {id}");
    }
    e.shutdown().unwrap();
}

/// The flusher is woken by demand, not by a timer: with every cached page
/// dirty (no clean frame to take), each read of a page not in the pool
/// gets its frame within milliseconds, from the flusher (a flusher polling
/// with a sleep of its idle timeout, 1 s, would not do that).
#[test]
fn free_frames_come_within_milliseconds_of_demand_when_every_page_is_dirty() {
    use quire_engine::buffer::{BufferPool, PoolConfig};
    use quire_engine::mtr::Mtr;
    use quire_engine::page::{self, PageType};
    use quire_engine::space::{self, files::SpaceFiles};
    use quire_engine::PageId;

    let vfs: Arc<dyn Vfs> = MemVfs::new();
    let files = Arc::new(SpaceFiles::new(vfs, 4096, false));
    files.open(1, std::path::Path::new("/d/s.qbd"), true).unwrap();
    let pool = Arc::new(
        BufferPool::new(
            PoolConfig {
                page_size: 4096,
                size_bytes: FRAMES * 4096,
                instances: 1,
                old_blocks_pct: 37,
                old_blocks_time_ms: 0,
            },
            files,
            Arc::new(std::sync::atomic::AtomicU64::new(0)),
        )
        .unwrap(),
    );
    space::init_space(&pool, 1).unwrap();
    // A new page of space 1, dirty.
    let new_page = |pool: &BufferPool| -> PageId {
        let mut mtr = Mtr::new(pool);
        let no = space::alloc_page(pool, 1, &mut mtr).unwrap();
        let id = PageId::new(1, no);
        let mut g = pool.create_page(id).unwrap();
        page::init_header(g.data_mut(), id, PageType::Overflow);
        mtr.keep(g);
        mtr.commit();
        id
    };
    // Pages beyond the pool, written once and gone from it.
    let mut old = Vec::new();
    for _ in 0..FRAMES * 2 {
        old.push(new_page(&pool));
    }
    pool.flush_all().unwrap();
    pool.start_lru_flushers().unwrap();
    let (user_before, lru_before) = (pool.stats.flushed_by_user.get(), pool.stats.flushed_lru.get());
    let mut worst = Duration::ZERO;
    for round in 0..10 {
        // Dirty every cached page: new pages until the pool is all dirty.
        for _ in 0..FRAMES {
            new_page(&pool);
        }
        // Demand: read old pages, one at a time.
        for id in old.iter().skip(round * 20).take(20) {
            let started = Instant::now();
            drop(pool.fix_shared(*id).unwrap());
            worst = worst.max(started.elapsed());
        }
    }
    println!("slowest frame for a read: {worst:?}; waits {}", pool.stats.wait_free.get());
    assert!(pool.stats.flushed_lru.get() > lru_before, "the flusher wrote the dirty tail");
    assert_eq!(pool.stats.flushed_by_user.get(), user_before, "no user thread wrote a page");
    assert!(worst < Duration::from_millis(500), "a read waited {worst:?} for a frame");
    pool.stop_lru_flushers();
}

/// Page cleaners: with the server quiet, dirty pages are written in the
/// background (idle flushing at `innodb_io_capacity` pages a second) until
/// none is left, without a checkpoint asking for it.
#[test]
fn page_cleaners_write_dirty_pages_in_the_background() {
    let vfs: Arc<dyn Vfs> = MemVfs::new();
    let mut cfg = EngineConfig::new("/data")
        .page_size(4096)
        .buffer_pool_size(4096 * 4096)
        .buffer_pool_instances(2)
        .flush_method(FlushMethod::Fsync);
    cfg.flushing.page_cleaners = 2;
    cfg.flushing.io_capacity = 2000;
    let e = Engine::open(cfg, vfs).unwrap();
    let t = e.create_table("t", schema()).unwrap();
    for id in 0..2000 {
        t.insert(row(id, 0)).unwrap();
    }
    let dirty = e.pool().dirty_pages();
    assert!(dirty > 50, "the inserts left dirty pages: {dirty}");
    let deadline = Instant::now() + Duration::from_secs(20);
    while e.pool().dirty_pages() > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(e.pool().dirty_pages(), 0, "the cleaners wrote every dirty page");
    assert!(e.pool().stats.flushed_by_cleaners.get() >= dirty as u64 / 2);
    e.shutdown().unwrap();
}
