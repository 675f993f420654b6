//! Files in memory: fast, for tests that need no durability model.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use crate::{FileHandle, FileRef, OpenOptions, Vfs};

/// An in-memory file system. Every write is immediately "durable"; use
/// [`crate::FaultVfs`] to model crashes.
#[derive(Default)]
pub struct MemVfs {
    files: Mutex<BTreeMap<PathBuf, Arc<MemFile>>>,
}

impl MemVfs {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }
}

impl Vfs for MemVfs {
    fn open(&self, path: &Path, opts: &OpenOptions) -> io::Result<FileRef> {
        let mut files = self.files.lock();
        if let Some(f) = files.get(path) {
            if opts.create_new {
                return Err(io::Error::new(io::ErrorKind::AlreadyExists, path.display().to_string()));
            }
            return Ok(f.clone());
        }
        if !(opts.create || opts.create_new) {
            return Err(io::Error::new(io::ErrorKind::NotFound, path.display().to_string()));
        }
        let f = Arc::new(MemFile { path: path.to_path_buf(), data: RwLock::new(Vec::new()) });
        files.insert(path.to_path_buf(), f.clone());
        Ok(f)
    }

    fn exists(&self, path: &Path) -> bool {
        let files = self.files.lock();
        files.contains_key(path) || files.keys().any(|p| p.starts_with(path))
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        match self.files.lock().remove(path) {
            Some(_) => Ok(()),
            None => Err(io::Error::new(io::ErrorKind::NotFound, path.display().to_string())),
        }
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut files = self.files.lock();
        let f =
            files.remove(from).ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, from.display().to_string()))?;
        files.insert(to.to_path_buf(), f);
        Ok(())
    }

    fn create_dir_all(&self, _path: &Path) -> io::Result<()> {
        Ok(())
    }

    fn list_dir(&self, path: &Path) -> io::Result<Vec<String>> {
        Ok(self
            .files
            .lock()
            .keys()
            .filter(|p| p.parent() == Some(path))
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect())
    }

    fn sync_dir(&self, _path: &Path) -> io::Result<()> {
        Ok(())
    }

    fn walk(&self, dir: &Path) -> io::Result<Vec<PathBuf>> {
        Ok(self.files.lock().keys().filter(|p| p.starts_with(dir)).cloned().collect())
    }
}

struct MemFile {
    path: PathBuf,
    data: RwLock<Vec<u8>>,
}

impl FileHandle for MemFile {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let data = self.data.read();
        let start = offset as usize;
        let end = start.checked_add(buf.len()).filter(|&e| e <= data.len());
        match end {
            Some(end) => {
                buf.copy_from_slice(&data[start..end]);
                Ok(())
            }
            None => Err(crate::eof(&self.path, offset, buf.len())),
        }
    }

    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        let mut data = self.data.write();
        let end = offset as usize + buf.len();
        if data.len() < end {
            data.resize(end, 0);
        }
        data[offset as usize..end].copy_from_slice(buf);
        Ok(())
    }

    fn sync_data(&self) -> io::Result<()> {
        Ok(())
    }

    fn len(&self) -> io::Result<u64> {
        Ok(self.data.read().len() as u64)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.data.write().resize(len as usize, 0);
        Ok(())
    }

    fn is_direct(&self) -> bool {
        false
    }

    fn path(&self) -> &Path {
        &self.path
    }
}
