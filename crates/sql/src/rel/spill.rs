//! A hash join's rows beyond `join_buffer_size`, kept in an unnamed
//! temporary file in `tmpdir` (gone when the join is).
//!
//! A hash join whose build side does not fit in `join_buffer_size` bytes
//! is run in chunks (`exec.rs`, `BlockRun::chunked_join`): the build
//! side's rows are written here as records cut into chunks of at most
//! `join_buffer_size` bytes each (counted as [`row_bytes`]); each chunk in
//! turn is loaded into a hash table and the outer side's rows, written
//! here too on the first pass, are probed against it.
//!
//! Invariants:
//! 1. A file's records all have the same shape (a key or not, `width`
//!    values), so they carry no counts; the codec is `filesort`'s.
//! 2. Records are read back in the order they were written; a chunk is
//!    a byte range of whole records.
//! 3. A chunk holds at least one record, and more only while their
//!    [`row_bytes`] stay within the limit it was cut by.

use std::fs::File;
use std::os::unix::fs::FileExt;

use quire_engine::row::Value;

use crate::error::{Result, SqlError};
use crate::filesort::{create_error, io_error, put_bytes, put_value, Reader};

/// Bytes gathered before they are written, and read at a time.
const IO_BUFFER_BYTES: usize = 64 * 1024;

/// Rough bytes a row held in a hash table costs: the row's vector and
/// values, its key, and the table's entry.
pub(super) fn row_bytes(key: &[u8], row: &[Value]) -> usize {
    let val = |v: &Value| match v {
        Value::Str(s) => 32 + s.len(),
        _ => 32,
    };
    64 + key.len() + row.iter().map(val).sum::<usize>()
}

/// Records of (optional key, row) appended to a temporary file.
pub(super) struct RowFile {
    file: File,
    /// Bytes written to the file so far.
    end: u64,
    /// Records not yet written.
    pending: Vec<u8>,
    keyed: bool,
    width: usize,
}

impl RowFile {
    /// An empty file in `tmpdir`; records of `width` values, each with a
    /// key when `keyed`.
    pub(super) fn new(tmpdir: &str, keyed: bool, width: usize) -> Result<Self> {
        let file = tempfile::tempfile_in(tmpdir).map_err(|e| create_error(tmpdir, &e))?;
        Ok(Self { file, end: 0, pending: Vec::new(), keyed, width })
    }

    /// Appends a record (`key` is ignored unless the file is keyed).
    pub(super) fn push(&mut self, key: &[u8], row: &[Value]) -> Result<()> {
        debug_assert_eq!(row.len(), self.width, "invariant 1");
        if self.keyed {
            put_bytes(&mut self.pending, key);
        }
        row.iter().for_each(|v| put_value(&mut self.pending, v));
        if self.pending.len() >= IO_BUFFER_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes the pending records; returns the file's length, the end of
    /// every record pushed so far (a chunk boundary).
    pub(super) fn flush(&mut self) -> Result<u64> {
        if !self.pending.is_empty() {
            self.file.write_all_at(&self.pending, self.end).map_err(|e| io_error("a hash join chunk", &e))?;
            self.end += self.pending.len() as u64;
            self.pending.clear();
        }
        Ok(self.end)
    }

    /// Reads the records of bytes `from .. to` (written and flushed).
    pub(super) fn read(&self, from: u64, to: u64) -> RowReader<'_> {
        debug_assert!(to <= self.end, "invariant 2");
        RowReader { f: self, at: from, end: to, buf: Vec::new(), pos: 0 }
    }
}

/// Reads a range of a [`RowFile`]'s records in order.
pub(super) struct RowReader<'f> {
    f: &'f RowFile,
    /// Next file offset to read, and the range's end.
    at: u64,
    end: u64,
    buf: Vec<u8>,
    pos: usize,
}

impl RowReader<'_> {
    /// The next (key, row); the key is empty for a file without keys.
    pub(super) fn next(&mut self) -> Result<Option<(Vec<u8>, Vec<Value>)>> {
        loop {
            if self.pos == self.buf.len() && self.at == self.end {
                return Ok(None);
            }
            let mut r = Reader::new(&self.buf[self.pos..]);
            let rec = (|| -> Option<(Vec<u8>, Vec<Value>)> {
                let key = if self.f.keyed { r.bytes()? } else { Vec::new() };
                let row = (0..self.f.width).map(|_| r.value()).collect::<Option<Vec<_>>>()?;
                Some((key, row))
            })();
            if let Some(rec) = rec {
                self.pos += r.used;
                return Ok(Some(rec));
            }
            // A record cut by the buffer's end: read on.
            if self.at == self.end {
                return Err(SqlError::internal("a hash join chunk ends inside a record"));
            }
            self.buf.drain(..self.pos);
            self.pos = 0;
            let left = (self.end - self.at) as usize;
            let n = IO_BUFFER_BYTES.max(self.buf.len()).min(left);
            let have = self.buf.len();
            self.buf.resize(have + n, 0);
            self.f.file.read_exact_at(&mut self.buf[have..], self.at).map_err(|e| io_error("a hash join chunk", &e))?;
            self.at += n as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(i: i64) -> Vec<Value> {
        vec![Value::Int(i), if i % 3 == 0 { Value::Null } else { Value::Str("x".repeat(i as usize % 50)) }]
    }

    #[test]
    fn records_read_back_in_order_across_chunks_and_buffers() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = RowFile::new(&dir.path().to_string_lossy(), true, 2).unwrap();
        let mut bounds = vec![0];
        for i in 0..5000 {
            f.push(&i.to_string().into_bytes(), &row(i)).unwrap();
            if i % 1000 == 999 {
                bounds.push(f.flush().unwrap());
            }
        }
        let mut i = 0;
        for w in bounds.windows(2) {
            let mut r = f.read(w[0], w[1]);
            while let Some((k, v)) = r.next().unwrap() {
                assert_eq!(k, i.to_string().into_bytes());
                assert_eq!(v, row(i));
                i += 1;
            }
            assert_eq!(i % 1000, 0, "a chunk ends on its last record");
        }
        assert_eq!(i, 5000);
    }

    #[test]
    fn an_unwritable_tmpdir_is_error_1() {
        let e = RowFile::new("/nonexistent/quire-tmpdir", false, 1).err().unwrap();
        assert_eq!(e.code, 1);
    }
}
