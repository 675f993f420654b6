//! The redo log file (docs/FORMAT.md, "Redo log"): one circular file.
//!
//! ```text
//! offset 0      header block (4 KiB)
//!     0  8  magic "QUIRERDO"
//!     8  4  format version (1)
//!    12  4  block size (4096)
//!    16  8  file size in bytes
//!    24  8  data area start (12288)
//!    32  4  CRC-32C of bytes [0, 32)
//! offset 4096   checkpoint block 0 } written alternately (even checkpoint
//! offset 8192   checkpoint block 1 } numbers to block 0, odd to block 1)
//!     0  8  checkpoint number
//!     8  8  checkpoint LSN: recovery starts reading here
//!    16  4  CRC-32C of bytes [0, 16)
//! offset 12288  data area: the byte of LSN L lives at 12288 + L mod capacity
//! ```
//!
//! The data area holds mini-transaction groups back to back (see
//! `log::group`). The LSN is the byte position in the endless log stream, so
//! an offset never needs a table: wrapping is arithmetic.

use crate::{Error, Lsn, Result};
use quire_io::FileRef;

pub const MAGIC: &[u8; 8] = b"QUIRERDO";
pub const FORMAT_VERSION: u32 = 1;
pub const BLOCK: u64 = 4096;
pub const DATA_START: u64 = 3 * BLOCK;
/// The smallest log file accepted.
pub const MIN_FILE_SIZE: u64 = DATA_START + (1 << 20);

/// Positions and I/O of the log file.
pub struct LogFile {
    pub file: FileRef,
    pub capacity: u64,
    /// Every sync of the file: the log's and the checkpoints'.
    pub fsyncs: crate::fsyncs::Fsyncs,
}

fn bad(file: &FileRef, reason: impl Into<String>) -> Error {
    Error::CorruptFile { path: file.path().display().to_string(), reason: reason.into() }
}

impl LogFile {
    /// Formats a new log file of `size` bytes with a checkpoint at `lsn`.
    pub fn create(file: FileRef, size: u64, lsn: Lsn) -> Result<Self> {
        if size < MIN_FILE_SIZE {
            return Err(Error::Config(format!("innodb_log_file_size must be at least {MIN_FILE_SIZE} bytes")));
        }
        let io = |e| Error::io(format!("formatting {}", file.path().display()), e);
        // Every block reserved and written now: appending to the log never
        // needs new space, so a full disk cannot fail a commit (InnoDB
        // preallocates its redo log for the same reason), and a commit's
        // sync writes only its data, no extent conversion.
        file.initialize(0, size).map_err(io)?;
        let mut hdr = vec![0u8; BLOCK as usize];
        hdr[0..8].copy_from_slice(MAGIC);
        hdr[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        hdr[12..16].copy_from_slice(&(BLOCK as u32).to_le_bytes());
        hdr[16..24].copy_from_slice(&size.to_le_bytes());
        hdr[24..32].copy_from_slice(&DATA_START.to_le_bytes());
        let crc = crc32c::crc32c(&hdr[..32]);
        hdr[32..36].copy_from_slice(&crc.to_le_bytes());
        file.write_all_at(&hdr, 0).map_err(io)?;
        let lf = LogFile { file, capacity: size - DATA_START, fsyncs: Default::default() };
        lf.write_checkpoint(0, lsn)?;
        lf.write_checkpoint(1, lsn)?;
        Ok(lf)
    }

    /// Opens an existing log file; returns it and its newest valid
    /// checkpoint (number, LSN).
    pub fn open(file: FileRef) -> Result<(Self, u64, Lsn)> {
        let mut hdr = vec![0u8; BLOCK as usize];
        file.read_exact_at(&mut hdr, 0).map_err(|_| bad(&file, "too short for a redo log header"))?;
        if &hdr[0..8] != MAGIC {
            return Err(bad(&file, "not a quire redo log"));
        }
        let crc = u32::from_le_bytes(hdr[32..36].try_into().expect("4"));
        if crc != crc32c::crc32c(&hdr[..32]) {
            return Err(bad(&file, "redo log header checksum mismatch"));
        }
        let version = u32::from_le_bytes(hdr[8..12].try_into().expect("4"));
        if version != FORMAT_VERSION {
            return Err(bad(&file, format!("unknown redo log format {version}")));
        }
        let size = u64::from_le_bytes(hdr[16..24].try_into().expect("8"));
        let actual = file.len().map_err(|e| Error::io("redo log size", e))?;
        if actual < size {
            return Err(bad(&file, format!("redo log is {actual} bytes, its header says {size}")));
        }
        // A log made before logs were preallocated may have holes: reserve
        // them now if the disk allows (a full disk only gets a warning: the
        // log still works, and its writer waits out ENOSPC).
        if let Err(e) = file.allocate(0, size) {
            tracing::warn!("could not reserve the blocks of the redo log {} ({e})", file.path().display());
        }
        let lf = LogFile { file, capacity: size - DATA_START, fsyncs: Default::default() };
        let mut best: Option<(u64, Lsn)> = None;
        for i in 0..2u64 {
            if let Some(cp) = lf.read_checkpoint(i) {
                if best.is_none_or(|b| cp.0 > b.0) {
                    best = Some(cp);
                }
            }
        }
        let (no, lsn) = best.ok_or_else(|| bad(&lf.file, "no valid checkpoint block"))?;
        Ok((lf, no, lsn))
    }

    fn read_checkpoint(&self, slot: u64) -> Option<(u64, Lsn)> {
        let mut b = [0u8; 20];
        self.file.read_exact_at(&mut b, BLOCK * (1 + slot)).ok()?;
        let crc = u32::from_le_bytes(b[16..20].try_into().ok()?);
        if crc != crc32c::crc32c(&b[..16]) {
            return None;
        }
        Some((u64::from_le_bytes(b[0..8].try_into().ok()?), u64::from_le_bytes(b[8..16].try_into().ok()?)))
    }

    /// Writes checkpoint `no` (to block `no % 2`) and syncs.
    pub fn write_checkpoint(&self, no: u64, lsn: Lsn) -> Result<()> {
        let mut b = vec![0u8; BLOCK as usize];
        b[0..8].copy_from_slice(&no.to_le_bytes());
        b[8..16].copy_from_slice(&lsn.to_le_bytes());
        let crc = crc32c::crc32c(&b[..16]);
        b[16..20].copy_from_slice(&crc.to_le_bytes());
        let io = |e| Error::io("writing a redo log checkpoint", e);
        crate::wait::file_io(crate::wait::Instrument::LogFile, crate::wait::FileOp::Write, b.len(), || {
            self.file.write_all_at(&b, BLOCK * (1 + no % 2))
        })
        .map_err(io)?;
        self.fsyncs.sync_data(crate::wait::Instrument::LogFile, &self.file).map_err(io)
    }

    /// File offset of the byte with LSN `lsn`.
    pub fn offset(&self, lsn: Lsn) -> u64 {
        DATA_START + lsn % self.capacity
    }

    /// Writes log bytes starting at LSN `lsn`, wrapping at the end.
    pub fn write_at(&self, lsn: Lsn, mut bytes: &[u8]) -> Result<()> {
        let mut lsn = lsn;
        while !bytes.is_empty() {
            let room = (self.capacity - lsn % self.capacity) as usize;
            let n = room.min(bytes.len());
            let at = self.offset(lsn);
            crate::wait::file_io(crate::wait::Instrument::LogFile, crate::wait::FileOp::Write, n, || {
                self.file.write_all_at(&bytes[..n], at)
            })
            .map_err(|e| Error::io("writing the redo log", e))?;
            bytes = &bytes[n..];
            lsn += n as u64;
        }
        Ok(())
    }

    /// Reads log bytes starting at LSN `lsn`, wrapping at the end.
    pub fn read_at(&self, lsn: Lsn, buf: &mut [u8]) -> Result<()> {
        let mut lsn = lsn;
        let mut done = 0;
        while done < buf.len() {
            let room = (self.capacity - lsn % self.capacity) as usize;
            let n = room.min(buf.len() - done);
            self.file
                .read_exact_at(&mut buf[done..done + n], self.offset(lsn))
                .map_err(|e| Error::io("reading the redo log", e))?;
            done += n;
            lsn += n as u64;
        }
        Ok(())
    }

    pub fn sync(&self) -> Result<()> {
        self.fsyncs
            .sync_data(crate::wait::Instrument::LogFile, &self.file)
            .map_err(|e| Error::io("syncing the redo log", e))
    }
}
