//! Real files: `pread`/`pwrite`/`fdatasync`, with `O_DIRECT` when asked.
//!
//! Where the file system refuses `O_DIRECT` (tmpfs answers EINVAL at open)
//! the file is opened buffered instead and a warning is logged once per
//! directory; durability then still comes from `fdatasync`.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::{AlignedBuf, FileHandle, FileRef, OpenOptions, Vfs};

/// The operating system's file system.
#[derive(Default)]
pub struct OsVfs {
    /// Directories already warned about refusing O_DIRECT.
    warned: Mutex<HashSet<PathBuf>>,
}

impl OsVfs {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    fn open_std(path: &Path, opts: &OpenOptions, direct: bool) -> io::Result<fs::File> {
        let mut o = fs::OpenOptions::new();
        o.read(true).write(true);
        if opts.create_new {
            o.create_new(true);
        } else if opts.create {
            o.create(true);
        }
        if direct {
            o.custom_flags(libc::O_DIRECT);
        }
        o.open(path)
    }
}

impl Vfs for OsVfs {
    fn open(&self, path: &Path, opts: &OpenOptions) -> io::Result<FileRef> {
        let (file, direct) = if opts.direct {
            match Self::open_std(path, opts, true) {
                Ok(f) => (f, true),
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
                    if self.warned.lock().insert(dir.clone()) {
                        tracing::warn!(
                            "the file system under {} refuses O_DIRECT; using buffered I/O with fdatasync",
                            dir.display()
                        );
                    }
                    (Self::open_std(path, opts, false)?, false)
                }
                Err(e) => return Err(e),
            }
        } else {
            (Self::open_std(path, opts, false)?, false)
        };
        Ok(Arc::new(OsFile { file, direct, path: path.to_path_buf() }))
    }

    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(path)
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        fs::rename(from, to)
    }

    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        fs::create_dir_all(path)
    }

    fn list_dir(&self, path: &Path) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in fs::read_dir(path)? {
            names.push(entry?.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(names)
    }

    fn sync_dir(&self, path: &Path) -> io::Result<()> {
        fs::File::open(path)?.sync_all()
    }

    fn walk(&self, dir: &Path) -> io::Result<Vec<PathBuf>> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for entry in fs::read_dir(&d)? {
                let entry = entry?;
                if entry.file_type()?.is_dir() {
                    stack.push(entry.path());
                } else {
                    out.push(entry.path());
                }
            }
        }
        out.sort();
        Ok(out)
    }
}

struct OsFile {
    file: fs::File,
    direct: bool,
    path: PathBuf,
}

impl FileHandle for OsFile {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        if self.direct && !AlignedBuf::is_aligned(buf, offset) {
            let (start, mut bounce) = bounce_for(offset, buf.len());
            // The covering range may run past EOF; only the asked-for part must exist.
            let got = self.read_upto(&mut bounce, start)?;
            let skip = (offset - start) as usize;
            if got < skip + buf.len() {
                return Err(crate::eof(&self.path, offset, buf.len()));
            }
            buf.copy_from_slice(&bounce[skip..skip + buf.len()]);
            return Ok(());
        }
        self.read_raw(buf, offset)
    }

    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        if self.direct && !AlignedBuf::is_aligned(buf, offset) {
            // Read-modify-write of the covering aligned range.
            let (start, mut bounce) = bounce_for(offset, buf.len());
            let file_len = self.len()?;
            if start < file_len {
                let avail = ((file_len - start) as usize).min(bounce.len());
                let mut head = AlignedBuf::zeroed(avail.div_ceil(crate::DIRECT_IO_ALIGN) * crate::DIRECT_IO_ALIGN);
                // The tail of the last block may lie past EOF: a short read there is fine.
                let _ = self.file.read_at(&mut head, start);
                bounce[..avail].copy_from_slice(&head[..avail]);
            }
            let skip = (offset - start) as usize;
            bounce[skip..skip + buf.len()].copy_from_slice(buf);
            self.file.write_all_at(&bounce, start)?;
            let end = offset + buf.len() as u64;
            if end > file_len && start + bounce.len() as u64 > end {
                self.file.set_len(end.max(file_len))?;
            }
            return Ok(());
        }
        self.file.write_all_at(buf, offset)
    }

    fn sync_data(&self) -> io::Result<()> {
        self.file.sync_data()
    }

    fn len(&self) -> io::Result<u64> {
        Ok(self.file.metadata()?.len())
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.file.set_len(len)
    }

    fn allocate(&self, offset: u64, len: u64) -> io::Result<()> {
        if len == 0 {
            return Ok(());
        }
        let (Ok(off), Ok(n)) = (libc::off_t::try_from(offset), libc::off_t::try_from(len)) else {
            return Err(io::Error::from_raw_os_error(libc::EFBIG));
        };
        loop {
            // SAFETY: a plain system call on a file descriptor we own.
            let rc = unsafe { libc::posix_fallocate(self.file.as_raw_fd(), off, n) };
            match rc {
                0 => return Ok(()),
                libc::EINTR => continue,
                // A file system without fallocate (some network and FUSE
                // ones): write zeros, which reserves the blocks just the same.
                libc::EOPNOTSUPP | libc::EINVAL => return self.allocate_by_writing(offset, len),
                e => return Err(io::Error::from_raw_os_error(e)),
            }
        }
    }

    fn initialize(&self, offset: u64, len: u64) -> io::Result<()> {
        const CHUNK: u64 = 1 << 20;
        // Reserve first: a full disk fails here, before any writing.
        self.allocate(offset, len)?;
        let zeros = AlignedBuf::zeroed(CHUNK as usize);
        let end = offset + len;
        let mut pos = offset;
        while pos < end {
            let n = (end - pos).min(CHUNK) as usize;
            self.write_all_at(&zeros[..n], pos)?;
            pos += n as u64;
        }
        self.sync_data()
    }

    fn is_direct(&self) -> bool {
        self.direct
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

impl OsFile {
    /// `allocate` where fallocate is not supported: zeros written over the
    /// part of the range past the end of the file (the part before it may
    /// hold data and is left alone; it has blocks unless it is a hole).
    fn allocate_by_writing(&self, offset: u64, len: u64) -> io::Result<()> {
        const CHUNK: u64 = 1 << 20;
        let end = offset + len;
        // Unaligned starts are fine: `write_all_at` bounces them.
        let mut pos = self.len()?.max(offset);
        let zeros = AlignedBuf::zeroed(CHUNK as usize);
        while pos < end {
            let n = (end - pos).min(CHUNK) as usize;
            self.write_all_at(&zeros[..n], pos)?;
            pos += n as u64;
        }
        Ok(())
    }

    /// Reads until `buf` is full or EOF; returns the bytes read.
    fn read_upto(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let mut done = 0;
        while done < buf.len() {
            match self.file.read_at(&mut buf[done..], offset + done as u64) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(done)
    }

    fn read_raw(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let mut done = 0;
        while done < buf.len() {
            match self.file.read_at(&mut buf[done..], offset + done as u64) {
                Ok(0) => return Err(crate::eof(&self.path, offset, buf.len())),
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// The aligned range covering `[offset, offset + len)` and a buffer for it.
fn bounce_for(offset: u64, len: usize) -> (u64, AlignedBuf) {
    let a = crate::DIRECT_IO_ALIGN as u64;
    let start = offset / a * a;
    let end = (offset + len as u64).div_ceil(a) * a;
    (start, AlignedBuf::zeroed((end - start) as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direct_io_round_trips_aligned_and_unaligned_buffers() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = OsVfs::new();
        let f = vfs.open(&dir.path().join("f"), &OpenOptions::create().direct(true)).unwrap();
        let mut page = AlignedBuf::zeroed(8192);
        page[..5].copy_from_slice(b"hello");
        f.write_all_at(&page, 4096).unwrap();
        f.write_all_at(b"xyz", 4098).unwrap();
        f.sync_data().unwrap();
        let mut back = vec![0u8; 6];
        f.read_exact_at(&mut back, 4096).unwrap();
        assert_eq!(&back, b"hexyz\0");
        assert_eq!(f.len().unwrap(), 4096 + 8192);
        let mut past = [0u8; 10];
        let err = f.read_exact_at(&mut past, 1 << 20).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn allocate_reserves_blocks_grows_the_file_and_keeps_its_data() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let f = OsVfs::new().open(&path, &OpenOptions::create()).unwrap();
        f.write_all_at(b"keep", 0).unwrap();
        f.allocate(0, 1 << 20).unwrap();
        assert_eq!(f.len().unwrap(), 1 << 20);
        // st_blocks counts 512-byte units actually reserved: no hole.
        assert!(fs::metadata(&path).unwrap().blocks() * 512 >= 1 << 20, "allocate left a hole");
        let mut b = [0u8; 4];
        f.read_exact_at(&mut b, 0).unwrap();
        assert_eq!(&b, b"keep");
        f.allocate(0, 4096).unwrap();
        assert_eq!(f.len().unwrap(), 1 << 20, "allocate never shrinks");
    }

    /// `filefrag -v`'s extent flags for `path`, if the tool is there.
    fn extent_flags(path: &Path) -> Option<String> {
        let out = std::process::Command::new("filefrag").arg("-v").arg(path).output().ok()?;
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    #[test]
    fn initialize_writes_the_blocks_so_no_extent_is_left_unwritten() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("allocated"), dir.path().join("initialized"));
        let vfs = OsVfs::new();
        let fa = vfs.open(&a, &OpenOptions::create()).unwrap();
        fa.allocate(0, 4 << 20).unwrap();
        let fb = vfs.open(&b, &OpenOptions::create()).unwrap();
        fb.initialize(0, 4 << 20).unwrap();
        assert_eq!(fb.len().unwrap(), 4 << 20);
        let mut buf = vec![1u8; 4096];
        fb.read_exact_at(&mut buf, (4 << 20) - 4096).unwrap();
        assert!(buf.iter().all(|&x| x == 0), "initialized blocks read as zeros");
        // Where the file system reports unwritten extents for fallocate
        // (ext4, xfs), the initialized file must have none.
        if let (Some(fa_flags), Some(fb_flags)) = (extent_flags(&a), extent_flags(&b)) {
            if fa_flags.contains("unwritten") {
                assert!(!fb_flags.contains("unwritten"), "initialize left unwritten extents:\n{fb_flags}");
            }
        }
    }

    #[test]
    fn direct_open_works_on_tmpfs_whether_or_not_it_grants_o_direct() {
        // Older kernels' tmpfs refuse O_DIRECT (EINVAL): the open falls back
        // to buffered I/O. Newer ones grant it. Either way the file works.
        let shm = Path::new("/dev/shm");
        if !shm.is_dir() {
            return;
        }
        let dir = tempfile::tempdir_in(shm).unwrap();
        let vfs = OsVfs::new();
        let f = vfs.open(&dir.path().join("f"), &OpenOptions::create().direct(true)).unwrap();
        f.write_all_at(b"abc", 0).unwrap();
        let mut b = [0u8; 3];
        f.read_exact_at(&mut b, 0).unwrap();
        assert_eq!(&b, b"abc");
    }
}
