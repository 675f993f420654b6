//! Open tablespace files, by space id: the only place page-sized I/O on data
//! files happens (InnoDB's `fil0fil`). The buffer pool reads and writes
//! through here; it holds no latch of this module while doing I/O.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::RwLock;
use quire_io::{FileRef, OpenOptions, Vfs};

use super::write_io::WriteIo;
use crate::fsyncs::Fsyncs;
use crate::{Error, PageNo, Result, SpaceId};

/// One open tablespace file.
pub struct SpaceFile {
    pub id: SpaceId,
    pub path: PathBuf,
    file: FileRef,
    page_size: usize,
    fsyncs: Arc<Fsyncs>,
}

impl SpaceFile {
    pub fn read_page(&self, page_no: PageNo, buf: &mut [u8]) -> Result<()> {
        debug_assert_eq!(buf.len(), self.page_size);
        let off = page_no as u64 * self.page_size as u64;
        let n = buf.len();
        crate::wait::file_io(crate::wait::Instrument::DataFile, crate::wait::FileOp::Read, n, || {
            self.file.read_exact_at(buf, off)
        })
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                Error::corruption(
                    crate::PageId::new(self.id, page_no),
                    format!("page lies beyond the end of {}", self.path.display()),
                )
            } else {
                Error::io(format!("read of page {page_no} of {}", self.path.display()), e)
            }
        })
    }

    /// Reads consecutive pages from `first` into `buf` (a whole number of
    /// pages) with one system call.
    pub fn read_pages(&self, first: PageNo, buf: &mut [u8]) -> Result<()> {
        debug_assert_eq!(buf.len() % self.page_size, 0);
        let off = first as u64 * self.page_size as u64;
        let n = buf.len();
        crate::wait::file_io(crate::wait::Instrument::DataFile, crate::wait::FileOp::Read, n, || {
            self.file.read_exact_at(buf, off)
        })
        .map_err(|e| Error::io(format!("read of pages from {first} of {}", self.path.display()), e))
    }

    pub fn write_page(&self, page_no: PageNo, buf: &[u8]) -> Result<()> {
        debug_assert_eq!(buf.len(), self.page_size);
        let off = page_no as u64 * self.page_size as u64;
        crate::wait::file_io(crate::wait::Instrument::DataFile, crate::wait::FileOp::Write, buf.len(), || {
            self.file.write_all_at(buf, off)
        })
        .map_err(|e| Error::io(format!("write of page {page_no} of {}", self.path.display()), e))
    }

    /// Writes consecutive pages from `first` (`buf` a whole number of
    /// pages) with one system call.
    pub fn write_pages(&self, first: PageNo, buf: &[u8]) -> Result<()> {
        debug_assert_eq!(buf.len() % self.page_size, 0);
        let off = first as u64 * self.page_size as u64;
        crate::wait::file_io(crate::wait::Instrument::DataFile, crate::wait::FileOp::Write, buf.len(), || {
            self.file.write_all_at(buf, off)
        })
        .map_err(|e| Error::io(format!("write of pages from {first} of {}", self.path.display()), e))
    }

    pub fn sync(&self) -> Result<()> {
        self.fsyncs
            .sync_data(crate::wait::Instrument::DataFile, &self.file)
            .map_err(|e| Error::io(format!("sync of {}", self.path.display()), e))
    }

    /// The file's size in whole pages.
    pub fn size_pages(&self) -> Result<u32> {
        let len = self.file.len().map_err(|e| Error::io(format!("stat of {}", self.path.display()), e))?;
        Ok((len / self.page_size as u64) as u32)
    }

    /// Grows the file to `pages` pages (new pages read as zeros), with
    /// their blocks reserved: page writes into them never meet a full disk
    /// later, in a flusher that could only retry. A full disk (or quota) is
    /// [`Error::TableFull`] here, while the statement that needs the space
    /// can still fail cleanly (InnoDB's 1114).
    pub fn extend_to(&self, pages: u32) -> Result<()> {
        let have = self.size_pages()?;
        if have >= pages {
            return Ok(());
        }
        let ps = self.page_size as u64;
        self.file.allocate(have as u64 * ps, (pages - have) as u64 * ps).map_err(|e| {
            if matches!(e.raw_os_error(), Some(libc::ENOSPC) | Some(libc::EDQUOT)) {
                // InnoDB logs each one too ("The table 't' is full").
                tracing::error!(
                    "cannot extend {} to {pages} pages: {e}; the statement fails (1114)",
                    self.path.display()
                );
                Error::TableFull { path: self.path.display().to_string() }
            } else {
                Error::io(format!("extension of {}", self.path.display()), e)
            }
        })
    }

    pub fn is_direct(&self) -> bool {
        self.file.is_direct()
    }
}

/// The registry of open spaces.
pub struct SpaceFiles {
    vfs: Arc<dyn Vfs>,
    page_size: usize,
    direct: bool,
    map: crate::wait::RwLock<HashMap<SpaceId, Arc<SpaceFile>>>,
    /// The write I/O threads, once started.
    write_io: RwLock<Option<Arc<WriteIo>>>,
    /// Syncs of every data file.
    pub fsyncs: Arc<Fsyncs>,
}

impl SpaceFiles {
    pub fn new(vfs: Arc<dyn Vfs>, page_size: usize, direct: bool) -> Self {
        Self {
            vfs,
            page_size,
            direct,
            map: crate::wait::RwLock::new(crate::wait::Instrument::FilSpaces, HashMap::new()),
            write_io: RwLock::new(None),
            fsyncs: Arc::default(),
        }
    }

    /// Starts `threads` write I/O threads (`innodb_write_io_threads`) for
    /// [`Self::write_pages`].
    pub fn start_write_io(&self, threads: usize) -> Result<()> {
        let pool = Arc::new(WriteIo::start(threads)?);
        if let Some(old) = self.write_io.write().replace(pool) {
            old.stop();
        }
        Ok(())
    }

    /// Stops the write I/O threads; later writes are made by their callers.
    pub fn stop_write_io(&self) {
        if let Some(pool) = self.write_io.write().take() {
            pool.stop();
        }
    }

    /// Writes page images in place, each run of consecutive pages with one
    /// write, the runs in parallel on the write I/O threads
    /// (`write_io.rs`). Returns when all are written (not synced).
    pub fn write_pages(&self, pages: &[(crate::PageId, &[u8])]) -> Result<()> {
        let pool = self.write_io.read().clone();
        super::write_io::write_pages(self, pool.as_deref(), pages)
    }

    pub fn vfs(&self) -> &Arc<dyn Vfs> {
        &self.vfs
    }

    pub fn page_size(&self) -> usize {
        self.page_size
    }

    /// Opens (or with `create`, creates) the file of a space and registers it.
    pub fn open(&self, id: SpaceId, path: &Path, create: bool) -> Result<Arc<SpaceFile>> {
        let opts = if create { OpenOptions::create_new() } else { OpenOptions::existing() }.direct(self.direct);
        let file = self.vfs.open(path, &opts).map_err(|e| Error::io(format!("open of {}", path.display()), e))?;
        if create {
            if let Some(dir) = path.parent() {
                self.vfs.sync_dir(dir).map_err(|e| Error::io(format!("sync of {}", dir.display()), e))?;
            }
        }
        let sf = Arc::new(SpaceFile {
            id,
            path: path.to_path_buf(),
            file,
            page_size: self.page_size,
            fsyncs: self.fsyncs.clone(),
        });
        self.map.write().insert(id, sf.clone());
        Ok(sf)
    }

    pub fn get(&self, id: SpaceId) -> Result<Arc<SpaceFile>> {
        self.map.read().get(&id).cloned().ok_or_else(|| Error::Config(format!("space {id} is not open")))
    }

    /// Unregisters a space and deletes its file.
    pub fn remove(&self, id: SpaceId) -> Result<()> {
        let sf = self.map.write().remove(&id);
        if let Some(sf) = sf {
            self.vfs.remove_file(&sf.path).map_err(|e| Error::io(format!("removal of {}", sf.path.display()), e))?;
            if let Some(dir) = sf.path.parent() {
                let _ = self.vfs.sync_dir(dir);
            }
        }
        Ok(())
    }

    /// Moves an open space's file to `to` (its handle stays open) and
    /// makes the move durable in both directories.
    pub fn rename(&self, id: SpaceId, to: &Path) -> Result<()> {
        let mut map = self.map.write();
        let sf = map.get(&id).cloned().ok_or_else(|| Error::Config(format!("space {id} is not open")))?;
        if let Some(dir) = to.parent() {
            self.vfs.create_dir_all(dir).map_err(|e| Error::io(format!("creation of {}", dir.display()), e))?;
        }
        self.vfs.rename(&sf.path, to).map_err(|e| Error::io(format!("rename of {}", sf.path.display()), e))?;
        for dir in [sf.path.parent(), to.parent()].into_iter().flatten() {
            let _ = self.vfs.sync_dir(dir);
        }
        let moved = SpaceFile {
            id,
            path: to.to_path_buf(),
            file: sf.file.clone(),
            page_size: sf.page_size,
            fsyncs: sf.fsyncs.clone(),
        };
        map.insert(id, Arc::new(moved));
        Ok(())
    }

    pub fn ids(&self) -> Vec<SpaceId> {
        self.map.read().keys().copied().collect()
    }

    pub fn sync_all(&self) -> Result<()> {
        let files: Vec<_> = self.map.read().values().cloned().collect();
        for f in files {
            f.sync()?;
        }
        Ok(())
    }
}
