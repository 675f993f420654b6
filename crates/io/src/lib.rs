//! quire-io — every byte quire reads or writes goes through [`Vfs`] and
//! [`FileHandle`].
//!
//! The engine never touches `std::fs` directly, so that the same code runs on
//! real files ([`OsVfs`], direct or buffered I/O), in memory ([`MemVfs`]) and
//! under fault injection ([`FaultVfs`]: torn writes, lost unsynced data,
//! failing operations), as LevelDB's `Env` and redb's backends do.
//!
//! Contract for callers:
//! 1. `read_exact_at` / `write_all_at` are positional and may be called
//!    concurrently from many threads on one handle.
//! 2. A write is durable only after `sync_data` on the same file returned Ok.
//! 3. Handles opened with `direct` need buffers, offsets and lengths aligned to
//!    [`DIRECT_IO_ALIGN`]; an [`AlignedBuf`] always is. Implementations bounce
//!    through an aligned copy when given an unaligned buffer, so alignment is a
//!    matter of speed, never of correctness.

#![cfg_attr(not(test), deny(clippy::unwrap_used))]

mod aligned;
mod fault;
mod mem;
mod os;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use aligned::AlignedBuf;
pub use fault::{CrashPolicy, FaultKind, FaultVfs, OpKind, TearBoundary};
pub use mem::MemVfs;
pub use os::OsVfs;

/// Alignment of buffers, offsets and lengths for direct I/O. 4 KiB satisfies
/// every device this project meets (512 B and 4 KiB logical sectors).
pub const DIRECT_IO_ALIGN: usize = 4096;

/// A shared handle to an open file.
pub type FileRef = Arc<dyn FileHandle>;

/// How a file is opened.
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    /// Create the file if it does not exist.
    pub create: bool,
    /// Fail if the file already exists (implies `create`).
    pub create_new: bool,
    /// Ask for direct I/O (`O_DIRECT`). Where the file system refuses it the
    /// file is opened buffered and a warning is logged once per directory.
    pub direct: bool,
}

impl OpenOptions {
    pub fn existing() -> Self {
        Self::default()
    }
    pub fn create() -> Self {
        Self { create: true, ..Self::default() }
    }
    pub fn create_new() -> Self {
        Self { create_new: true, ..Self::default() }
    }
    pub fn direct(mut self, direct: bool) -> Self {
        self.direct = direct;
        self
    }
}

/// A file system: a directory tree of files.
pub trait Vfs: Send + Sync + 'static {
    fn open(&self, path: &Path, opts: &OpenOptions) -> io::Result<FileRef>;
    fn exists(&self, path: &Path) -> bool;
    fn remove_file(&self, path: &Path) -> io::Result<()>;
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    fn create_dir_all(&self, path: &Path) -> io::Result<()>;
    /// The names (not full paths) of the entries of a directory.
    fn list_dir(&self, path: &Path) -> io::Result<Vec<String>>;
    /// Make the directory's entries (creations, removals, renames) durable.
    fn sync_dir(&self, path: &Path) -> io::Result<()>;
    /// Every file below `dir`, recursively, as full paths.
    fn walk(&self, dir: &Path) -> io::Result<Vec<PathBuf>>;
}

/// An open file.
pub trait FileHandle: Send + Sync {
    /// Reads exactly `buf.len()` bytes at `offset`; reading past the end of
    /// the file is `ErrorKind::UnexpectedEof`.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    /// Writes all of `buf` at `offset`, extending the file if needed.
    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()>;
    /// Makes every completed write durable (`fdatasync`).
    fn sync_data(&self) -> io::Result<()>;
    fn len(&self) -> io::Result<u64>;
    fn is_empty(&self) -> io::Result<bool> {
        Ok(self.len()? == 0)
    }
    /// Grows or shrinks the file; new bytes read as zeros. Growing this way
    /// may leave a hole (no blocks reserved): a later write into it can
    /// still fail with ENOSPC. Use [`FileHandle::allocate`] for space that
    /// must be there.
    fn set_len(&self, len: u64) -> io::Result<()>;
    /// Reserves blocks for `[offset, offset + len)`, growing the file if
    /// that ends past it (new bytes read as zeros), like `posix_fallocate`:
    /// once it returned Ok, writes inside the range never fail for lack of
    /// space. A full disk is ENOSPC here, when the caller can still refuse
    /// cleanly, instead of at a later write. The default (for files with no
    /// notion of blocks) only grows the file.
    fn allocate(&self, offset: u64, len: u64) -> io::Result<()> {
        let end = offset + len;
        if self.len()? < end {
            self.set_len(end)?;
        }
        Ok(())
    }
    /// [`FileHandle::allocate`], and more: the blocks are also written
    /// (zeros) and synced, so that a later write there followed by a sync
    /// changes no file system metadata. A block that is only allocated
    /// (`fallocate`'s unwritten extent) has to be converted on its first
    /// write, and the sync that follows then writes metadata too: on ext4
    /// that made each small sequential write + fdatasync of the redo log
    /// cost 1.3-1.5x one into written blocks. For files written in small
    /// synced pieces (the redo log). The default only allocates.
    fn initialize(&self, offset: u64, len: u64) -> io::Result<()> {
        self.allocate(offset, len)
    }
    /// Whether this handle really bypasses the page cache.
    fn is_direct(&self) -> bool;
    fn path(&self) -> &Path;
}

/// Joins a directory and a file name; a helper so callers need not care which
/// Vfs they have.
pub fn join(dir: &Path, name: &str) -> PathBuf {
    dir.join(name)
}

/// An `io::Error` for a read past the end of a file.
pub(crate) fn eof(path: &Path, offset: u64, len: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!("read of {len} bytes at offset {offset} past the end of {}", path.display()),
    )
}
