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
