//! The parallel doublewrite buffer (MySQL 8.0.20's design, seeds 000/001).
//!
//! A data page written in place can be torn by a crash: part new, part old,
//! matching neither checksum, and the redo log (physiological) cannot
//! repair it. So every page write first goes, with others of its batch, to
//! a doublewrite file, synced; only then to its place.
//!
//! Layout: `innodb_doublewrite_files` files named `#ib_<page_size>_<n>.dblwr`
//! in `innodb_doublewrite_dir`. There is one *shard* per (buffer pool
//! instance, flush type: LRU or flush list), so flushing threads never share
//! a doublewrite mutex; shard `s` lives in file `s mod files`. A shard has
//! `SEGMENTS` segments of `innodb_doublewrite_pages` page slots; a batch
//! takes a free segment from its shard (a per-shard free list, no global
//! lock) and gives it back after its data writes are synced.
//!
//! A batch (ON):
//! 1. copy the sealed pages into the segment's slots (one sequential write)
//!    and fdatasync the doublewrite file;
//! 2. write each page to its tablespace (runs of consecutive pages as one
//!    write, on the write I/O threads: `space/write_io.rs`);
//! 3. fdatasync the tablespaces written, then free the segment.
//!
//! DETECT_ONLY writes only each page's 32-byte header to its slot (enough
//! to know which pages were in flight and at which LSN); OFF skips step 1.
//!
//! Recovery (`repair`), before the redo log is applied: a slot holding a
//! page that passes its checksum is a candidate copy; per page id the
//! highest-LSN copy at or after the checkpoint LSN is kept (older copies
//! are of writes that were synced before the checkpoint). A data page that
//! fails its checksum or is all zeros is restored from its copy (ON) or
//! reported (DETECT_ONLY: detected, not repairable). Pages never fail
//! silently: without a copy, reading the page reports the corruption.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Condvar;
use quire_io::{AlignedBuf, FileRef, OpenOptions, Vfs};

use crate::page::{self, FIL_HEADER_SIZE};
use crate::space::files::SpaceFiles;
use crate::sync::Counter;
use crate::{Error, Lsn, PageId, Result, SpaceId};

/// `innodb_doublewrite`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DoublewriteMode {
    Off,
    On,
    DetectOnly,
}

impl DoublewriteMode {
    pub fn parse(s: &str) -> Result<Self> {
        match s.to_ascii_uppercase().as_str() {
            "ON" | "1" | "TRUE" => Ok(Self::On),
            "OFF" | "0" | "FALSE" => Ok(Self::Off),
            "DETECT_ONLY" => Ok(Self::DetectOnly),
            "DETECT_AND_RECOVER" => Ok(Self::On),
            _ => Err(Error::Config(format!("innodb_doublewrite must be ON, OFF or DETECT_ONLY, not '{s}'"))),
        }
    }
}

/// Which flush a batch belongs to (the shard's second coordinate).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlushType {
    Lru = 0,
    FlushList = 1,
}

#[derive(Clone, Debug)]
pub struct DoublewriteConfig {
    pub mode: DoublewriteMode,
    /// `innodb_doublewrite_dir` (None: the data directory).
    pub dir: Option<PathBuf>,
    /// `innodb_doublewrite_files`.
    pub files: usize,
    /// `innodb_doublewrite_pages`: slots per segment (the largest batch).
    pub pages: usize,
    /// `innodb_doublewrite_batch_size`: pages per batch; 0 = `pages`.
    pub batch_size: usize,
}

impl Default for DoublewriteConfig {
    fn default() -> Self {
        Self { mode: DoublewriteMode::On, dir: None, files: 2, pages: 64, batch_size: 0 }
    }
}

/// Segments per shard: batches of one shard that may be in flight at once.
pub const SEGMENTS: usize = 4;

struct Shard {
    file: usize,
    /// First slot of this shard in its file.
    base_slot: u64,
    free: crate::wait::Mutex<Vec<usize>>,
    freed: Condvar,
}

#[derive(Default, Debug)]
pub struct DoublewriteStats {
    /// Batches written (`Innodb_dblwr_writes`).
    pub batches: Counter,
    /// Pages written through the buffer (`Innodb_dblwr_pages_written`).
    pub pages: Counter,
    /// Syncs of the doublewrite files (one per batch).
    pub fsyncs: crate::fsyncs::Fsyncs,
}

pub struct Doublewrite {
    mode: DoublewriteMode,
    page_size: usize,
    pages_per_segment: usize,
    batch_size: usize,
    files: Vec<FileRef>,
    shards: Vec<Shard>,
    instances: usize,
    pub stats: DoublewriteStats,
}

/// What recovery found in the doublewrite files.
#[derive(Debug, Default, Clone)]
pub struct RepairReport {
    /// Pages restored from a doublewrite copy.
    pub repaired: Vec<PageId>,
    /// Torn pages found with no usable copy (DETECT_ONLY or too old).
    pub detected: Vec<PageId>,
}

pub fn file_name(page_size: usize, n: usize) -> String {
    format!("#ib_{page_size}_{n}.dblwr")
}

impl Doublewrite {
    /// Opens (creating if needed) the doublewrite files for a pool of
    /// `instances` instances.
    pub fn open(
        vfs: &Arc<dyn Vfs>,
        datadir: &Path,
        cfg: &DoublewriteConfig,
        page_size: usize,
        instances: usize,
    ) -> Result<Self> {
        let dir = cfg.dir.clone().unwrap_or_else(|| datadir.to_path_buf());
        vfs.create_dir_all(&dir).map_err(|e| Error::io(format!("creation of {}", dir.display()), e))?;
        let nfiles = cfg.files.clamp(1, 2 * instances.max(1));
        let pages = cfg.pages.clamp(1, 512);
        let nshards = instances * 2;
        let shards_per_file = nshards.div_ceil(nfiles);
        let file_bytes = (shards_per_file * SEGMENTS * pages * page_size) as u64;
        let mut files = Vec::new();
        for n in 0..nfiles {
            let path = dir.join(file_name(page_size, n));
            let f = vfs
                .open(&path, &OpenOptions::create().direct(true))
                .map_err(|e| Error::io(format!("open of {}", path.display()), e))?;
            // Blocks reserved, not just a length: batch writes then never
            // meet a full disk (docs/ARCHITECTURE.md, "Disk full").
            let long_enough = f.len().map_err(|e| Error::io("doublewrite file size", e))? >= file_bytes;
            match f.allocate(0, file_bytes) {
                Ok(()) => {}
                Err(e) if long_enough => tracing::warn!(
                    "could not reserve the blocks of {} ({e}); its writes may fail while the disk is full",
                    path.display()
                ),
                Err(e) => return Err(Error::io(format!("sizing {}", path.display()), e)),
            }
            files.push(f);
        }
        let shards = (0..nshards)
            .map(|s| Shard {
                file: s % nfiles,
                base_slot: ((s / nfiles) * SEGMENTS * pages) as u64,
                free: crate::wait::Mutex::new(crate::wait::Instrument::Dblwr, (0..SEGMENTS).collect()),
                freed: Condvar::new(),
            })
            .collect();
        let batch_size = if cfg.batch_size == 0 { pages } else { cfg.batch_size.min(pages) };
        Ok(Self {
            mode: cfg.mode,
            page_size,
            pages_per_segment: pages,
            batch_size,
            files,
            shards,
            instances,
            stats: Default::default(),
        })
    }

    pub fn mode(&self) -> DoublewriteMode {
        self.mode
    }

    /// Pages per batch (`innodb_doublewrite_batch_size`, at most a
    /// segment).
    pub fn batch_pages(&self) -> usize {
        self.batch_size
    }

    fn shard(&self, instance: usize, ty: FlushType) -> &Shard {
        &self.shards[(instance % self.instances) * 2 + ty as usize]
    }

    /// Writes sealed page images to their tablespaces through the
    /// doublewrite buffer (see the module note). At most `batch_pages`.
    pub fn write_batch(
        &self,
        instance: usize,
        ty: FlushType,
        pages: &[(PageId, &[u8])],
        spaces: &SpaceFiles,
    ) -> Result<()> {
        debug_assert!(pages.len() <= self.pages_per_segment);
        if pages.is_empty() {
            return Ok(());
        }
        if self.mode == DoublewriteMode::Off {
            return write_in_place(pages, spaces);
        }
        let shard = self.shard(instance, ty);
        let seg = {
            let mut free = shard.free.lock();
            loop {
                if let Some(s) = free.pop() {
                    break s;
                }
                crate::wait::time(crate::wait::Instrument::DblwrSlot, || shard.freed.wait(&mut free));
            }
        };
        let res = self.write_segment(shard, seg, pages, spaces);
        shard.free.lock().push(seg);
        shard.freed.notify_one();
        res
    }

    fn write_segment(&self, shard: &Shard, seg: usize, pages: &[(PageId, &[u8])], spaces: &SpaceFiles) -> Result<()> {
        let ps = self.page_size;
        let mut image = AlignedBuf::zeroed(pages.len() * ps);
        for (i, (_, bytes)) in pages.iter().enumerate() {
            match self.mode {
                DoublewriteMode::On => image[i * ps..(i + 1) * ps].copy_from_slice(bytes),
                // Only the header: which page, which LSN.
                _ => image[i * ps..i * ps + FIL_HEADER_SIZE].copy_from_slice(&bytes[..FIL_HEADER_SIZE]),
            }
        }
        let file = &self.files[shard.file];
        let off = (shard.base_slot + (seg * self.pages_per_segment) as u64) * ps as u64;
        let io = |e| Error::io("writing the doublewrite buffer", e);
        crate::wait::file_io(crate::wait::Instrument::DblwrFile, crate::wait::FileOp::Write, image.len(), || {
            file.write_all_at(&image, off)
        })
        .map_err(io)?;
        self.stats.fsyncs.sync_data(crate::wait::Instrument::DblwrFile, file).map_err(io)?;
        self.stats.batches.inc();
        self.stats.pages.add(pages.len() as u64);
        write_in_place(pages, spaces)?;
        // The copies may be overwritten only once the in-place writes are
        // durable.
        let mut synced: Vec<SpaceId> = Vec::new();
        for (id, _) in pages {
            if !synced.contains(&id.space) {
                spaces.get(id.space)?.sync()?;
                synced.push(id.space);
            }
        }
        Ok(())
    }

    /// Restores torn pages from their doublewrite copies (recovery, before
    /// the redo log is applied). `checkpoint` is the recovery start LSN.
    pub fn repair(&self, spaces: &SpaceFiles, checkpoint: Lsn) -> Result<RepairReport> {
        let ps = self.page_size;
        let mut best: HashMap<PageId, (Lsn, Vec<u8>)> = HashMap::new();
        let mut in_flight: HashMap<PageId, Lsn> = HashMap::new();
        for file in &self.files {
            let len = file.len().map_err(|e| Error::io("doublewrite file size", e))?;
            let mut buf = AlignedBuf::zeroed(ps);
            for slot in 0..len / ps as u64 {
                if file.read_exact_at(&mut buf, slot * ps as u64).is_err() {
                    break;
                }
                let id = page::page_id(&buf);
                let lsn = page::page_lsn(&buf);
                if lsn < checkpoint || buf.iter().all(|&b| b == 0) {
                    continue;
                }
                if page::check(&buf, id).is_ok() {
                    if best.get(&id).is_none_or(|(l, _)| lsn > *l) {
                        best.insert(id, (lsn, buf.to_vec()));
                    }
                } else if self.mode == DoublewriteMode::DetectOnly && buf[FIL_HEADER_SIZE..].iter().all(|&b| b == 0) {
                    // A DETECT_ONLY slot: the header of a page in flight.
                    let e = in_flight.entry(id).or_insert(lsn);
                    *e = (*e).max(lsn);
                }
            }
        }
        let mut report = RepairReport::default();
        let mut data = AlignedBuf::zeroed(ps);
        let torn = |sf: &crate::space::files::SpaceFile, id: PageId, data: &mut AlignedBuf| -> bool {
            match sf.read_page(id.page_no, data) {
                Ok(()) => page::check(data, id).is_err(),
                // Beyond the end of the file: the write never landed.
                Err(_) => true,
            }
        };
        for (id, (_, copy)) in best {
            let Ok(sf) = spaces.get(id.space) else { continue };
            if torn(&sf, id, &mut data) {
                let mut c = AlignedBuf::zeroed(ps);
                c.copy_from_slice(&copy);
                sf.write_page(id.page_no, &c)?;
                sf.sync()?;
                report.repaired.push(id);
            }
        }
        for (id, _) in in_flight {
            let Ok(sf) = spaces.get(id.space) else { continue };
            if torn(&sf, id, &mut data) && !report.repaired.contains(&id) {
                report.detected.push(id);
            }
        }
        report.repaired.sort();
        report.detected.sort();
        Ok(report)
    }
}

fn write_in_place(pages: &[(PageId, &[u8])], spaces: &SpaceFiles) -> Result<()> {
    spaces.write_pages(pages)
}
