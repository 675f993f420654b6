//! Helpers shared by the engine's scenario tests.
#![allow(dead_code)]

use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use quire_engine::buffer::{BufferPool, PoolConfig};
use quire_engine::space::{self, files::SpaceFiles};
use quire_io::{MemVfs, Vfs};

/// A pool over an in-memory file system with space 1 created.
pub fn mem_pool(page_size: usize, pool_bytes: usize, instances: usize) -> Arc<BufferPool> {
    let vfs: Arc<dyn Vfs> = MemVfs::new();
    let files = Arc::new(SpaceFiles::new(vfs, page_size, false));
    files.open(1, std::path::Path::new("/t/s1.qbd"), true).unwrap();
    let pool = Arc::new(
        BufferPool::new(
            PoolConfig { page_size, size_bytes: pool_bytes, instances, old_blocks_pct: 37, old_blocks_time_ms: 1000 },
            files,
            Arc::new(AtomicU64::new(0)),
        )
        .unwrap(),
    );
    space::init_space(&pool, 1).unwrap();
    pool
}

/// The fault tests' table: `id INT` primary key and a 200-byte payload, so
/// that a few thousand rows outgrow a small pool.
pub fn payload_schema() -> quire_engine::row::TableSchema {
    use quire_engine::row::{Column, ColumnType, TableSchema};
    TableSchema {
        columns: vec![
            Column::new("id", ColumnType::Int { unsigned: false }).not_null(),
            Column::new("payload", ColumnType::Varchar { len: 200 }).not_null(),
        ],
        primary_key: vec![0],
        indexes: vec![],
        ..Default::default()
    }
}

/// Row `i` of [`payload_schema`].
pub fn payload_row(i: i64) -> Vec<quire_engine::row::Value> {
    use quire_engine::row::Value;
    vec![Value::Int(i), Value::Str(format!("{i:0>200}"))]
}

/// Creates table `t` ([`payload_schema`]) on `fault` with rows `0..rows`
/// and shuts the engine down cleanly: the starting point of the fault
/// tests, which then reopen it with faults armed.
pub fn payload_table_on_faults(fault: &Arc<quire_io::FaultVfs>, pool_pages: usize, rows: i64) {
    let e = open_on_faults(fault, pool_pages);
    let t = e.create_table("t", payload_schema()).unwrap();
    for i in 0..rows {
        t.insert(payload_row(i)).unwrap();
    }
    e.shutdown().unwrap();
}

/// An engine on `fault` at `/data` with 4 KiB pages and a pool of
/// `pool_pages` pages, syncing with fsync.
pub fn open_on_faults(fault: &Arc<quire_io::FaultVfs>, pool_pages: usize) -> Arc<quire_engine::Engine> {
    use quire_engine::config::FlushMethod;
    let vfs: Arc<dyn Vfs> = Arc::new(fault.clone());
    let cfg = quire_engine::EngineConfig::new("/data")
        .page_size(4096)
        .buffer_pool_size(pool_pages * 4096)
        .flush_method(FlushMethod::Fsync);
    quire_engine::Engine::open(cfg, vfs).unwrap()
}

/// `id INT` primary key, `k INT` with an index (UNIQUE or not) and a
/// 100-byte payload: the secondary-index tests' table (change reads, the
/// change buffer).
pub fn k_indexed_schema(unique: bool) -> quire_engine::row::TableSchema {
    use quire_engine::row::{Column, ColumnType, IndexDef, TableSchema};
    TableSchema {
        columns: vec![
            Column::new("id", ColumnType::Int { unsigned: false }).not_null(),
            Column::new("k", ColumnType::Int { unsigned: false }).not_null(),
            Column::new("pad", ColumnType::Varchar { len: 100 }).not_null(),
        ],
        primary_key: vec![0],
        indexes: vec![IndexDef { name: "k".into(), columns: vec![1], unique, prefix: vec![] }],
        ..Default::default()
    }
}
