//! A file system that fails on purpose, for crash and torn-write tests.
//!
//! Model (after LevelDB's `fault_injection_test` and redb's crash backend):
//! each file has a *durable* image, what survives a crash, and a list of
//! *pending* operations (writes and length changes) completed since its last
//! `sync_data`. Reads see durable + pending. [`FaultVfs::crash`] decides, per
//! the [`CrashPolicy`], what each pending write left on the "platter":
//! nothing, all of it, or a torn prefix/suffix cut at a 512 B or 4 KiB
//! boundary; then the durable images become the files and every handle opened
//! before the crash fails with EIO, as a dead process's would.
//!
//! Independently, [`FaultVfs::fail_nth`] makes the Nth matching operation
//! (counted from the call) fail with EIO or ENOSPC, once or from then on.
//!
//! File creation, removal and renames are durable at once (as if the
//! directory were synced), which is the case the engine is written for: it
//! syncs directories after creating files.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::{FileHandle, FileRef, OpenOptions, Vfs};

/// Where a torn write may be cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TearBoundary {
    Sector512,
    Block4K,
}

impl TearBoundary {
    pub fn bytes(self) -> usize {
        match self {
            TearBoundary::Sector512 => 512,
            TearBoundary::Block4K => 4096,
        }
    }
}

/// What a crash does to writes not yet synced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrashPolicy {
    /// Every unsynced write is lost.
    DropUnsynced,
    /// Every unsynced write survives whole (only the handles die).
    KeepUnsynced,
    /// Each unsynced write independently is lost, survives, or is torn at a
    /// boundary (a random non-empty proper subset of its boundary-sized
    /// chunks survives), chosen by a seeded generator.
    Random { seed: u64, boundary: TearBoundary },
    /// Every unsynced write longer than one boundary is torn: its first
    /// chunk survives and the rest is lost (the classic torn page).
    TearAll { boundary: TearBoundary },
}

/// Which operations a failure rule counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    Read,
    Write,
    Sync,
    /// Operations that need new blocks: `allocate`, and writes that end
    /// past the end of the file. A sticky ENOSPC rule on these is a full
    /// disk: overwrites of space already there still succeed.
    Allocate,
    Any,
}

/// The error a failure rule returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// EIO: the device failed.
    Io,
    /// ENOSPC: the disk is full.
    NoSpace,
}

impl FaultKind {
    fn error(self) -> io::Error {
        match self {
            FaultKind::Io => io::Error::from_raw_os_error(libc::EIO),
            FaultKind::NoSpace => io::Error::from_raw_os_error(libc::ENOSPC),
        }
    }
}

struct FailRule {
    op: OpKind,
    remaining: u64,
    kind: FaultKind,
    sticky: bool,
    fired: bool,
}

enum Pending {
    Write { offset: u64, data: Vec<u8> },
    SetLen(u64),
}

struct FileState {
    durable: Vec<u8>,
    pending: Vec<Pending>,
    /// durable with pending applied: what reads see.
    current: Vec<u8>,
}

struct FaultFileShared {
    path: PathBuf,
    state: Mutex<FileState>,
}

#[derive(Default)]
struct Inner {
    files: BTreeMap<PathBuf, Arc<FaultFileShared>>,
}

/// The fault-injecting file system. Cheap to clone handles from; all state is
/// in memory.
pub struct FaultVfs {
    inner: Mutex<Inner>,
    rule: Mutex<Option<FailRule>>,
    /// Bumped by every crash; handles from an older generation are dead.
    generation: AtomicU64,
    /// Count of write operations, for tests that pick a crash point.
    writes: AtomicU64,
    syncs: AtomicU64,
}

impl Default for FaultVfs {
    fn default() -> Self {
        Self {
            inner: Mutex::new(Inner::default()),
            rule: Mutex::new(None),
            generation: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            syncs: AtomicU64::new(0),
        }
    }
}

impl FaultVfs {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Makes the `n`th (1-based) operation of kind `op` from now fail with
    /// `kind`; with `sticky`, every later one fails too (a full disk stays
    /// full) until [`FaultVfs::clear_faults`].
    pub fn fail_nth(&self, op: OpKind, n: u64, kind: FaultKind, sticky: bool) {
        assert!(n >= 1, "operations are counted from 1");
        *self.rule.lock() = Some(FailRule { op, remaining: n, kind, sticky, fired: false });
    }

    pub fn clear_faults(&self) {
        *self.rule.lock() = None;
    }

    /// Writes and syncs performed so far (all files).
    pub fn write_count(&self) -> u64 {
        self.writes.load(Ordering::Relaxed)
    }
    pub fn sync_count(&self) -> u64 {
        self.syncs.load(Ordering::Relaxed)
    }

    /// Simulates power loss: applies `policy` to every unsynced write, makes
    /// the result the files' contents, and kills every open handle.
    pub fn crash(&self, policy: CrashPolicy) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        let inner = self.inner.lock();
        let mut rng = match policy {
            CrashPolicy::Random { seed, .. } => SmallRng::seed_from_u64(seed),
            _ => SmallRng::seed_from_u64(0),
        };
        for file in inner.files.values() {
            let mut st = file.state.lock();
            let pending = std::mem::take(&mut st.pending);
            for op in pending {
                match op {
                    Pending::SetLen(len) => {
                        // A length change is metadata: keep it unless dropping all.
                        if policy != CrashPolicy::DropUnsynced {
                            st.durable.resize(len as usize, 0);
                        }
                    }
                    Pending::Write { offset, data } => {
                        let keep = survivors(policy, &mut rng, data.len());
                        for (start, end) in keep {
                            apply(&mut st.durable, offset + start as u64, &data[start..end]);
                        }
                    }
                }
            }
            st.current = st.durable.clone();
        }
        drop(inner);
        self.clear_faults();
    }

    /// Flips one byte of a file's durable and current image, as a bad sector
    /// or a stray write would.
    pub fn corrupt_byte(&self, path: &Path, offset: u64) -> io::Result<()> {
        let inner = self.inner.lock();
        let f = inner.files.get(path).ok_or_else(|| not_found(path))?;
        let mut st = f.state.lock();
        let i = offset as usize;
        if i >= st.current.len() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "offset past end"));
        }
        st.current[i] ^= 0xff;
        if i < st.durable.len() {
            st.durable[i] ^= 0xff;
        }
        Ok(())
    }

    fn check(&self, op: OpKind, generation: u64) -> io::Result<()> {
        self.check_any(&[op], generation)
    }

    /// `check` for one operation that is of several kinds at once (a write
    /// that grows the file also allocates): counted once.
    fn check_any(&self, ops: &[OpKind], generation: u64) -> io::Result<()> {
        if generation != self.generation.load(Ordering::SeqCst) {
            return Err(io::Error::other("handle invalidated by a simulated crash"));
        }
        let mut rule = self.rule.lock();
        if let Some(r) = rule.as_mut() {
            if r.op == OpKind::Any || ops.contains(&r.op) {
                if r.fired {
                    if r.sticky {
                        return Err(r.kind.error());
                    }
                } else {
                    r.remaining -= 1;
                    if r.remaining == 0 {
                        r.fired = true;
                        return Err(r.kind.error());
                    }
                }
            }
        }
        Ok(())
    }
}

/// Which byte ranges of an unsynced write of `len` bytes survive a crash.
fn survivors(policy: CrashPolicy, rng: &mut SmallRng, len: usize) -> Vec<(usize, usize)> {
    match policy {
        CrashPolicy::DropUnsynced => vec![],
        CrashPolicy::KeepUnsynced => vec![(0, len)],
        CrashPolicy::TearAll { boundary } => {
            let b = boundary.bytes();
            if len > b {
                vec![(0, b)]
            } else {
                vec![]
            }
        }
        CrashPolicy::Random { boundary, .. } => match rng.gen_range(0..3) {
            0 => vec![],
            1 => vec![(0, len)],
            _ => {
                let b = boundary.bytes();
                let chunks = len.div_ceil(b);
                if chunks < 2 {
                    return if rng.gen_bool(0.5) { vec![(0, len)] } else { vec![] };
                }
                // A proper, non-empty subset of chunks reaches the platter.
                let mut keep = Vec::new();
                loop {
                    keep.clear();
                    for c in 0..chunks {
                        if rng.gen_bool(0.5) {
                            keep.push((c * b, ((c + 1) * b).min(len)));
                        }
                    }
                    if !keep.is_empty() && keep.len() < chunks {
                        return keep;
                    }
                }
            }
        },
    }
}

fn apply(image: &mut Vec<u8>, offset: u64, data: &[u8]) {
    let end = offset as usize + data.len();
    if image.len() < end {
        image.resize(end, 0);
    }
    image[offset as usize..end].copy_from_slice(data);
}

fn not_found(path: &Path) -> io::Error {
    io::Error::new(io::ErrorKind::NotFound, path.display().to_string())
}

impl Vfs for Arc<FaultVfs> {
    fn open(&self, path: &Path, opts: &OpenOptions) -> io::Result<FileRef> {
        let generation = self.generation.load(Ordering::SeqCst);
        let mut inner = self.inner.lock();
        let shared = match inner.files.get(path) {
            Some(f) if opts.create_new => {
                let _ = f;
                return Err(io::Error::new(io::ErrorKind::AlreadyExists, path.display().to_string()));
            }
            Some(f) => f.clone(),
            None if opts.create || opts.create_new => {
                let f = Arc::new(FaultFileShared {
                    path: path.to_path_buf(),
                    state: Mutex::new(FileState { durable: Vec::new(), pending: Vec::new(), current: Vec::new() }),
                });
                inner.files.insert(path.to_path_buf(), f.clone());
                f
            }
            None => return Err(not_found(path)),
        };
        Ok(Arc::new(FaultFile { vfs: self.clone(), shared, generation }))
    }

    fn exists(&self, path: &Path) -> bool {
        let inner = self.inner.lock();
        inner.files.contains_key(path) || inner.files.keys().any(|p| p.starts_with(path))
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.inner.lock().files.remove(path).map(|_| ()).ok_or_else(|| not_found(path))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut inner = self.inner.lock();
        let f = inner.files.remove(from).ok_or_else(|| not_found(from))?;
        inner.files.insert(to.to_path_buf(), f);
        Ok(())
    }

    fn create_dir_all(&self, _path: &Path) -> io::Result<()> {
        Ok(())
    }

    fn list_dir(&self, path: &Path) -> io::Result<Vec<String>> {
        Ok(self
            .inner
            .lock()
            .files
            .keys()
            .filter(|p| p.parent() == Some(path))
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect())
    }

    fn sync_dir(&self, _path: &Path) -> io::Result<()> {
        Ok(())
    }

    fn walk(&self, dir: &Path) -> io::Result<Vec<PathBuf>> {
        Ok(self.inner.lock().files.keys().filter(|p| p.starts_with(dir)).cloned().collect())
    }
}

struct FaultFile {
    vfs: Arc<FaultVfs>,
    shared: Arc<FaultFileShared>,
    generation: u64,
}

impl FileHandle for FaultFile {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.vfs.check(OpKind::Read, self.generation)?;
        let st = self.shared.state.lock();
        let start = offset as usize;
        match start.checked_add(buf.len()).filter(|&e| e <= st.current.len()) {
            Some(end) => {
                buf.copy_from_slice(&st.current[start..end]);
                Ok(())
            }
            None => Err(crate::eof(&self.shared.path, offset, buf.len())),
        }
    }

    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        let grows = offset + buf.len() as u64 > self.shared.state.lock().current.len() as u64;
        let kinds: &[OpKind] = if grows { &[OpKind::Write, OpKind::Allocate] } else { &[OpKind::Write] };
        self.vfs.check_any(kinds, self.generation)?;
        self.vfs.writes.fetch_add(1, Ordering::Relaxed);
        let mut st = self.shared.state.lock();
        apply(&mut st.current, offset, buf);
        st.pending.push(Pending::Write { offset, data: buf.to_vec() });
        Ok(())
    }

    fn sync_data(&self) -> io::Result<()> {
        self.vfs.check(OpKind::Sync, self.generation)?;
        self.vfs.syncs.fetch_add(1, Ordering::Relaxed);
        let mut st = self.shared.state.lock();
        let pending = std::mem::take(&mut st.pending);
        for op in pending {
            match op {
                Pending::Write { offset, data } => apply(&mut st.durable, offset, &data),
                Pending::SetLen(len) => st.durable.resize(len as usize, 0),
            }
        }
        Ok(())
    }

    fn len(&self) -> io::Result<u64> {
        self.vfs.check(OpKind::Read, self.generation)?;
        Ok(self.shared.state.lock().current.len() as u64)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.vfs.check(OpKind::Write, self.generation)?;
        let mut st = self.shared.state.lock();
        st.current.resize(len as usize, 0);
        st.pending.push(Pending::SetLen(len));
        Ok(())
    }

    fn allocate(&self, offset: u64, len: u64) -> io::Result<()> {
        self.vfs.check(OpKind::Allocate, self.generation)?;
        let end = offset + len;
        let mut st = self.shared.state.lock();
        if (st.current.len() as u64) < end {
            st.current.resize(end as usize, 0);
            st.pending.push(Pending::SetLen(end));
        }
        Ok(())
    }

    fn is_direct(&self) -> bool {
        false
    }

    fn path(&self) -> &Path {
        &self.shared.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(vfs: &Arc<FaultVfs>, name: &str) -> FileRef {
        vfs.open(Path::new(name), &OpenOptions::create()).unwrap()
    }

    fn read_all(vfs: &Arc<FaultVfs>, name: &str) -> Vec<u8> {
        let f = open(vfs, name);
        let mut b = vec![0u8; f.len().unwrap() as usize];
        f.read_exact_at(&mut b, 0).unwrap();
        b
    }

    #[test]
    fn crash_drops_unsynced_writes_and_keeps_synced_ones() {
        let vfs = FaultVfs::new();
        let f = open(&vfs, "a");
        f.write_all_at(b"synced", 0).unwrap();
        f.sync_data().unwrap();
        f.write_all_at(b"SYNCED-and-more", 0).unwrap();
        vfs.crash(CrashPolicy::DropUnsynced);
        assert_eq!(read_all(&vfs, "a"), b"synced");
    }

    #[test]
    fn handles_opened_before_a_crash_are_dead() {
        let vfs = FaultVfs::new();
        let f = open(&vfs, "a");
        vfs.crash(CrashPolicy::KeepUnsynced);
        assert!(f.write_all_at(b"x", 0).is_err());
        assert!(open(&vfs, "a").write_all_at(b"x", 0).is_ok());
    }

    #[test]
    fn tear_all_keeps_only_the_first_sector_of_a_page() {
        let vfs = FaultVfs::new();
        let f = open(&vfs, "a");
        f.write_all_at(&[1u8; 4096], 0).unwrap();
        f.sync_data().unwrap();
        f.write_all_at(&[2u8; 4096], 0).unwrap();
        vfs.crash(CrashPolicy::TearAll { boundary: TearBoundary::Sector512 });
        let b = read_all(&vfs, "a");
        assert!(b[..512].iter().all(|&x| x == 2));
        assert!(b[512..].iter().all(|&x| x == 1));
    }

    #[test]
    fn random_tears_are_cut_at_the_boundary() {
        for seed in 0..50 {
            let vfs = FaultVfs::new();
            let f = open(&vfs, "a");
            f.write_all_at(&[1u8; 16384], 0).unwrap();
            f.sync_data().unwrap();
            f.write_all_at(&[2u8; 16384], 0).unwrap();
            vfs.crash(CrashPolicy::Random { seed, boundary: TearBoundary::Block4K });
            let b = read_all(&vfs, "a");
            for chunk in b.chunks(4096) {
                assert!(chunk.iter().all(|&x| x == chunk[0]), "a chunk was split inside the boundary");
            }
        }
    }

    #[test]
    fn a_full_disk_fails_allocations_and_growing_writes_but_not_overwrites() {
        let vfs = FaultVfs::new();
        let f = open(&vfs, "a");
        f.allocate(0, 8192).unwrap();
        assert_eq!(f.len().unwrap(), 8192);
        vfs.fail_nth(OpKind::Allocate, 1, FaultKind::NoSpace, true);
        f.write_all_at(&[7u8; 4096], 4096).unwrap();
        assert_eq!(f.write_all_at(&[7u8; 4096], 8192).unwrap_err().raw_os_error(), Some(libc::ENOSPC));
        assert_eq!(f.allocate(8192, 4096).unwrap_err().raw_os_error(), Some(libc::ENOSPC));
        assert_eq!(f.len().unwrap(), 8192, "a failed allocation leaves the size alone");
        vfs.clear_faults();
        f.allocate(8192, 4096).unwrap();
        assert_eq!(f.len().unwrap(), 12288);
    }

    #[test]
    fn nth_operation_fails_once_or_sticks() {
        let vfs = FaultVfs::new();
        let f = open(&vfs, "a");
        vfs.fail_nth(OpKind::Write, 2, FaultKind::NoSpace, false);
        f.write_all_at(b"1", 0).unwrap();
        let e = f.write_all_at(b"2", 0).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOSPC));
        f.write_all_at(b"3", 0).unwrap();

        vfs.fail_nth(OpKind::Sync, 1, FaultKind::Io, true);
        assert_eq!(f.sync_data().unwrap_err().raw_os_error(), Some(libc::EIO));
        assert_eq!(f.sync_data().unwrap_err().raw_os_error(), Some(libc::EIO));
        vfs.clear_faults();
        f.sync_data().unwrap();
    }
}
