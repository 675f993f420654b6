//! Buffer pool behaviour a user relies on: concurrent misses on one page
//! read it once; a large scan does not evict the hot set; evicted dirty
//! pages come back with their changes.

use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use quire_engine::buffer::{BufferPool, PoolConfig};
use quire_engine::mtr::Mtr;
use quire_engine::page::{self, PageType};
use quire_engine::space::{self, files::SpaceFiles};
use quire_engine::PageId;
use quire_io::{FileHandle, FileRef, MemVfs, OpenOptions, Vfs};

/// A file system whose reads take a while and are counted.
struct SlowVfs {
    inner: Arc<MemVfs>,
    reads: Arc<AtomicU64>,
}

struct SlowFile {
    inner: FileRef,
    reads: Arc<AtomicU64>,
}

impl FileHandle for SlowFile {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(30));
        self.inner.read_exact_at(buf, offset)
    }
    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.inner.write_all_at(buf, offset)
    }
    fn sync_data(&self) -> io::Result<()> {
        self.inner.sync_data()
    }
    fn len(&self) -> io::Result<u64> {
        self.inner.len()
    }
    fn set_len(&self, len: u64) -> io::Result<()> {
        self.inner.set_len(len)
    }
    fn is_direct(&self) -> bool {
        false
    }
    fn path(&self) -> &Path {
        self.inner.path()
    }
}

impl Vfs for SlowVfs {
    fn open(&self, path: &Path, opts: &OpenOptions) -> io::Result<FileRef> {
        Ok(Arc::new(SlowFile { inner: self.inner.open(path, opts)?, reads: self.reads.clone() }))
    }
    fn exists(&self, path: &Path) -> bool {
        self.inner.exists(path)
    }
    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.inner.remove_file(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.inner.rename(from, to)
    }
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        self.inner.create_dir_all(path)
    }
    fn list_dir(&self, path: &Path) -> io::Result<Vec<String>> {
        self.inner.list_dir(path)
    }
    fn sync_dir(&self, path: &Path) -> io::Result<()> {
        self.inner.sync_dir(path)
    }
    fn walk(&self, dir: &Path) -> io::Result<Vec<std::path::PathBuf>> {
        self.inner.walk(dir)
    }
}

fn pool_over(vfs: Arc<dyn Vfs>, frames: usize, old_blocks_time_ms: u32) -> Arc<BufferPool> {
    let files = Arc::new(SpaceFiles::new(vfs, 4096, false));
    files.open(1, Path::new("/d/s.qbd"), true).unwrap();
    let pool = Arc::new(
        BufferPool::new(
            PoolConfig {
                page_size: 4096,
                size_bytes: frames * 4096,
                instances: 1,
                old_blocks_pct: 37,
                old_blocks_time_ms,
            },
            files,
            Arc::new(AtomicU64::new(0)),
        )
        .unwrap(),
    );
    space::init_space(&pool, 1).unwrap();
    pool
}

/// Allocates `n` pages, each holding its number at byte 100.
fn make_pages(pool: &BufferPool, n: u32) -> Vec<PageId> {
    let mut ids = Vec::new();
    for _ in 0..n {
        let mut mtr = Mtr::new(pool);
        let no = space::alloc_page(pool, 1, &mut mtr).unwrap();
        let id = PageId::new(1, no);
        let mut g = pool.create_page(id).unwrap();
        page::init_header(g.data_mut(), id, PageType::Overflow);
        g.data_mut()[100..104].copy_from_slice(&no.to_le_bytes());
        mtr.keep(g);
        mtr.commit();
        ids.push(id);
    }
    ids
}

#[test]
fn concurrent_misses_on_one_page_cause_one_read() {
    let reads = Arc::new(AtomicU64::new(0));
    let vfs: Arc<dyn Vfs> = Arc::new(SlowVfs { inner: MemVfs::new(), reads: reads.clone() });
    let pool = pool_over(vfs.clone(), 64, 1000);
    let ids = make_pages(&pool, 4);
    pool.flush_all().unwrap();
    // A fresh pool over the same files: nothing cached.
    let pool = {
        let files = Arc::new(SpaceFiles::new(vfs, 4096, false));
        files.open(1, Path::new("/d/s.qbd"), false).unwrap();
        Arc::new(
            BufferPool::new(
                PoolConfig {
                    page_size: 4096,
                    size_bytes: 64 * 4096,
                    instances: 1,
                    old_blocks_pct: 37,
                    old_blocks_time_ms: 1000,
                },
                files,
                Arc::new(AtomicU64::new(0)),
            )
            .unwrap(),
        )
    };
    let before = reads.load(Ordering::SeqCst);
    let target = ids[2];
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let pool = pool.clone();
            std::thread::spawn(move || {
                if i % 2 == 0 {
                    let g = pool.fix_shared(target).unwrap();
                    u32::from_le_bytes(g.data()[100..104].try_into().unwrap())
                } else {
                    let g = pool.fix_optimistic(target).unwrap();
                    let v = quire_engine::sync::PageView::u32_at(&g.view(), 100);
                    g.validate().unwrap();
                    v
                }
            })
        })
        .collect();
    for t in threads {
        assert_eq!(t.join().unwrap(), target.page_no);
    }
    assert_eq!(reads.load(Ordering::SeqCst) - before, 1, "eight concurrent misses, one read");
}

#[test]
fn a_large_scan_does_not_evict_the_hot_set() {
    let pool = pool_over(MemVfs::new(), 100, 0);
    let ids = make_pages(&pool, 400);
    pool.flush_all().unwrap();
    let (hot, cold) = ids.split_at(20);
    // Touch the hot pages twice: the second touch makes them young
    // (innodb_old_blocks_time = 0 here).
    for _ in 0..3 {
        for &id in hot {
            drop(pool.fix_shared(id).unwrap());
        }
    }
    // One pass over 380 other pages, four times the pool.
    for &id in cold {
        drop(pool.fix_shared(id).unwrap());
    }
    let resident = hot.iter().filter(|&&id| pool.is_resident(id)).count();
    assert_eq!(resident, hot.len(), "the scan evicted hot pages");
    pool.check_lists();
}

#[test]
fn dirty_pages_evicted_under_pressure_come_back_changed() {
    let pool = pool_over(MemVfs::new(), 32, 1000);
    let ids = make_pages(&pool, 200);
    for round in 1..=3u32 {
        for &id in &ids {
            let mut mtr = Mtr::new(&pool);
            let mut g = pool.fix_exclusive(id).unwrap();
            g.data_mut()[200..204].copy_from_slice(&(id.page_no * round).to_le_bytes());
            mtr.keep(g);
            mtr.commit();
        }
        for &id in &ids {
            let g = pool.fix_shared(id).unwrap();
            let v = u32::from_le_bytes(g.data()[200..204].try_into().unwrap());
            assert_eq!(v, id.page_no * round);
        }
    }
    assert!(pool.stats.evictions.get() > 300);
    pool.check_lists();
}

/// Per-table flush (seed 003): flushing one tablespace writes that space's
/// dirty pages and nothing else, found through the flush list's index by
/// space rather than a walk of every dirty page of every instance.
#[test]
fn flushing_one_tablespace_writes_only_its_pages() {
    let vfs: Arc<dyn Vfs> = quire_io::MemVfs::new();
    let files = Arc::new(SpaceFiles::new(vfs, 4096, false));
    files.open(1, Path::new("/d/big.qbd"), true).unwrap();
    files.open(2, Path::new("/d/small.qbd"), true).unwrap();
    let pool = Arc::new(
        BufferPool::new(
            PoolConfig {
                page_size: 4096,
                size_bytes: 2048 * 4096,
                instances: 4,
                old_blocks_pct: 37,
                old_blocks_time_ms: 0,
            },
            files,
            Arc::new(AtomicU64::new(0)),
        )
        .unwrap(),
    );
    space::init_space(&pool, 1).unwrap();
    space::init_space(&pool, 2).unwrap();
    let big = make_pages(&pool, 1000);
    let mut small = Vec::new();
    for _ in 0..5 {
        let mut mtr = Mtr::new(&pool);
        let no = space::alloc_page(&pool, 2, &mut mtr).unwrap();
        let id = PageId::new(2, no);
        let mut g = pool.create_page(id).unwrap();
        page::init_header(g.data_mut(), id, PageType::Overflow);
        mtr.keep(g);
        mtr.commit();
        small.push(id);
    }
    let dirty_before = pool.dirty_pages();
    assert!(dirty_before > 1000, "the big space's pages are dirty: {dirty_before}");
    let written_before = pool.stats.writes.get();
    let n = pool.flush_space(2).unwrap();
    assert!(n >= small.len(), "the small space's pages are written: {n}");
    assert_eq!(pool.stats.writes.get() - written_before, n as u64, "nothing else is written");
    assert_eq!(pool.stats.flushed_space.get(), n as u64);
    assert_eq!(pool.dirty_pages(), dirty_before - n, "the big space's pages stay dirty");
    assert_eq!(pool.flush_space(2).unwrap(), 0, "nothing left to flush in the small space");
    assert!(big.len() == 1000);
}

/// A page created enters the LRU young, as in InnoDB: pages just built
/// (a CREATE INDEX's whole index) outlive a scan of other pages through
/// the old part, where they would otherwise be the first evicted and read
/// back at their first use. (The old part here holds 37 of 100 frames.)
#[test]
fn pages_just_created_are_young_and_outlive_a_scan() {
    let pool = pool_over(MemVfs::new(), 100, 1000);
    let old = make_pages(&pool, 300);
    pool.flush_all().unwrap();
    let built = make_pages(&pool, 40);
    pool.flush_all().unwrap();
    // One pass over 300 older pages (three times the pool), each read once.
    for &id in &old {
        drop(pool.fix_shared(id).unwrap());
    }
    let resident = built.iter().filter(|&&id| pool.is_resident(id)).count();
    assert_eq!(resident, built.len(), "the scan evicted pages just created");
    pool.check_lists();
}

/// When misses turn the old part over faster than `innodb_old_blocks_time`
/// (1 s here), a page in use at shorter intervals is still made young:
/// the wait shrinks to half the old part's turnover. (With the full 1 s
/// no page read ever became young: after sysbench's load the pages in use
/// cycled through the old part and were read again and again.)
#[test]
fn a_page_reused_faster_than_the_old_part_turns_over_becomes_young() {
    let pool = pool_over(MemVfs::new(), 100, 1000);
    let ids = make_pages(&pool, 400);
    pool.flush_all().unwrap();
    let (warm, cold) = (ids[0], &ids[1..]);
    // Empty the pool of the pages just made: every access below misses
    // except the warm page's.
    for &id in &cold[200..] {
        drop(pool.fix_shared(id).unwrap());
    }
    let reads = pool.stats.reads.get();
    let mut cold = cold[..200].iter().cycle();
    let mut cold_reads = 0;
    for _ in 0..25 {
        drop(pool.fix_shared(warm).unwrap());
        // A third of the old part (37 frames) evicted per round: a page
        // read stays about three rounds.
        for _ in 0..12 {
            drop(pool.fix_shared(*cold.next().unwrap()).unwrap());
            cold_reads += 1;
        }
        std::thread::sleep(std::time::Duration::from_millis(30));
    }
    assert_eq!(pool.stats.reads.get() - reads, cold_reads + 1, "the warm page was read more than once");
    pool.check_lists();
}
