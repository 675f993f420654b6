//! A replica's relay log (MySQL's `relay_log`): files
//! `<basename>.NNNNNN` in the binary log format and `<basename>.index`,
//! written by the receiver, read by the applier.
//!
//! Each file is the magic, a FORMAT_DESCRIPTION of the replica's own
//! (server id and checksum algorithm of the stream it relays), then the
//! source's events byte for byte as they arrived, their headers' positions
//! the source's (as in MySQL's relay logs: the applier reads the source
//! position from them). A finished file ends with a ROTATE naming the next
//! one, so `mariadb-binlog` can read the files in turn.
//!
//! Invariants:
//! 1. Bytes reach a reader only up to [`RelayWriter::synced_end`]: the
//!    receiver syncs (`fdatasync`) before it publishes a position.
//! 2. [`RelayWriter::create`] starts from an empty relay log: the files
//!    the index lists are deleted first. The relay log is never trusted
//!    across a restart (MySQL's `relay_log_recovery=ON`): what was
//!    received and not applied is fetched again from the source position
//!    the applier stored.
//! 3. The index lists exactly the files that exist (a new file is created
//!    and synced before the index names it; the index is replaced
//!    atomically).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::event::{Checksum, Events, Frame, MAGIC};

/// The writer of a relay log.
pub struct RelayWriter {
    dir: PathBuf,
    basename: String,
    server_id: u32,
    checksum: Checksum,
    /// The open file, its number and name, its length.
    file: File,
    number: u32,
    name: String,
    len: u64,
    /// The length at the last sync (invariant 1).
    synced: u64,
    /// Files still listed in the index, oldest first.
    files: Vec<String>,
    /// The algorithm of the next file, when it changes.
    next_checksum: Option<Checksum>,
}

fn file_name(base: &str, n: u32) -> String {
    format!("{base}.{n:06}")
}

fn read_index(path: &Path) -> Vec<String> {
    fs::read_to_string(path)
        .map(|s| s.lines().map(|l| l.trim().trim_start_matches("./").to_string()).filter(|l| !l.is_empty()).collect())
        .unwrap_or_default()
}

fn now_secs() -> u32 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as u32)
}

impl RelayWriter {
    /// Deletes the relay log `dir/basename.*` and starts a new file
    /// (invariant 2), numbered after the last one the index named.
    pub fn create(dir: &Path, basename: &str, server_id: u32, checksum: Checksum) -> io::Result<RelayWriter> {
        fs::create_dir_all(dir)?;
        let index = dir.join(format!("{basename}.index"));
        let old = read_index(&index);
        let last = old.iter().filter_map(|n| n.rsplit('.').next()?.parse::<u32>().ok()).max().unwrap_or(0);
        for f in &old {
            match fs::remove_file(dir.join(f)) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        let number = last + 1;
        let name = file_name(basename, number);
        let file = Self::start_file(dir, &name, server_id, checksum)?;
        let len = file.metadata()?.len();
        let w = RelayWriter {
            dir: dir.to_path_buf(),
            basename: basename.to_string(),
            server_id,
            checksum,
            file,
            number,
            name: name.clone(),
            len,
            synced: len,
            files: vec![name],
            next_checksum: None,
        };
        w.write_index()?;
        Ok(w)
    }

    fn start_file(dir: &Path, name: &str, server_id: u32, checksum: Checksum) -> io::Result<File> {
        let mut file = OpenOptions::new().create(true).write(true).truncate(true).open(dir.join(name))?;
        let f = Frame { server_id, timestamp: now_secs(), checksum };
        let mut ev = Events::default();
        ev.format_description(&f, f.timestamp, false);
        ev.place(MAGIC.len() as u64, checksum);
        file.write_all(&MAGIC)?;
        file.write_all(&ev.bytes)?;
        file.sync_data()?;
        Ok(file)
    }

    fn write_index(&self) -> io::Result<()> {
        let index = self.dir.join(format!("{}.index", self.basename));
        let tmp = self.dir.join(format!("{}.index.tmp", self.basename));
        let mut f = File::create(&tmp)?;
        for n in &self.files {
            writeln!(f, "./{n}")?;
        }
        f.sync_data()?;
        fs::rename(&tmp, &index)?;
        File::open(&self.dir)?.sync_all()
    }

    /// Appends one event as received.
    pub fn append(&mut self, ev: &[u8]) -> io::Result<()> {
        self.file.write_all(ev)?;
        self.len += ev.len() as u64;
        Ok(())
    }

    /// Makes everything appended durable; returns the synced end.
    pub fn sync(&mut self) -> io::Result<(u32, u64)> {
        if self.synced < self.len {
            self.file.sync_data()?;
            self.synced = self.len;
        }
        Ok(self.synced_end())
    }

    /// (file number, length) of what a reader may read (invariant 1).
    pub fn synced_end(&self) -> (u32, u64) {
        (self.number, self.synced)
    }

    /// (file number, length) of everything appended, synced or not.
    pub fn end(&self) -> (u32, u64) {
        (self.number, self.len)
    }

    pub fn checksum(&self) -> Checksum {
        self.checksum
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len <= MAGIC.len() as u64
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn basename(&self) -> &str {
        &self.basename
    }

    /// The checksum algorithm of the next file's FORMAT_DESCRIPTION (the
    /// stream of a new connection may differ).
    pub fn set_checksum(&mut self, checksum: Checksum) {
        self.next_checksum = Some(checksum);
    }

    /// Ends the file with a ROTATE to the next and opens it (synced, then
    /// listed: invariant 3). The old file is synced too.
    pub fn rotate(&mut self) -> io::Result<()> {
        let next = file_name(&self.basename, self.number + 1);
        let f = Frame { server_id: self.server_id, timestamp: now_secs(), checksum: self.checksum };
        let mut ev = Events::default();
        ev.rotate(&f, &next);
        ev.place(self.len, self.checksum);
        self.append(&ev.bytes)?;
        self.file.sync_data()?;
        if let Some(c) = self.next_checksum.take() {
            self.checksum = c;
        }
        let file = Self::start_file(&self.dir, &next, self.server_id, self.checksum)?;
        self.files.push(next.clone());
        self.write_index()?;
        self.len = file.metadata()?.len();
        self.synced = self.len;
        self.file = file;
        self.number += 1;
        self.name = next;
        Ok(())
    }

    /// Deletes the files before number `keep_from` (the applier has
    /// finished them: MySQL's `relay_log_purge`).
    pub fn purge_before(&mut self, keep_from: u32) -> io::Result<()> {
        let n0 = self.files.len();
        let mut gone = Vec::new();
        self.files.retain(|n| {
            let num = n.rsplit('.').next().and_then(|x| x.parse::<u32>().ok()).unwrap_or(u32::MAX);
            if num < keep_from {
                gone.push(n.clone());
                false
            } else {
                true
            }
        });
        if self.files.len() != n0 {
            self.write_index()?;
            for g in gone {
                let _ = fs::remove_file(self.dir.join(g));
            }
        }
        Ok(())
    }

    /// The path of relay file number `n`.
    pub fn path_of(&self, n: u32) -> PathBuf {
        self.dir.join(file_name(&self.basename, n))
    }
}

/// The path of relay file `n` of `dir/basename`.
pub fn path_of(dir: &Path, basename: &str, n: u32) -> PathBuf {
    dir.join(file_name(basename, n))
}

/// The name of relay file `n`.
pub fn name_of(basename: &str, n: u32) -> String {
    file_name(basename, n)
}

/// The offset of the first relayed event in every relay file: after the
/// magic and the replica's own FORMAT_DESCRIPTION.
pub fn first_event_offset(checksum: Checksum) -> u64 {
    let f = Frame { server_id: 0, timestamp: 0, checksum };
    let mut ev = Events::default();
    ev.format_description(&f, 0, false);
    (MAGIC.len() + ev.len()) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_discards_the_old_relay_log_and_continues_the_numbering() {
        let d = tempfile::tempdir().unwrap();
        let mut w = RelayWriter::create(d.path(), "relay_log", 2, Checksum::Crc32).unwrap();
        assert_eq!(w.name(), "relay_log.000001");
        w.append(b"0123456789").unwrap();
        let (n, end) = w.sync().unwrap();
        assert_eq!((n, end), (1, first_event_offset(Checksum::Crc32) + 10));
        w.rotate().unwrap();
        assert_eq!(w.name(), "relay_log.000002");
        w.purge_before(2).unwrap();
        assert!(!d.path().join("relay_log.000001").exists());
        drop(w);
        let w = RelayWriter::create(d.path(), "relay_log", 2, Checksum::Crc32).unwrap();
        assert_eq!(w.name(), "relay_log.000003");
        assert!(!d.path().join("relay_log.000002").exists());
        let index = fs::read_to_string(d.path().join("relay_log.index")).unwrap();
        assert_eq!(index, "./relay_log.000003\n");
    }
}
