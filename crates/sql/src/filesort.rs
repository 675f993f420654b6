//! ORDER BY's sort (MySQL's filesort): the rows to sort are kept with
//! their sort keys in a buffer of at most `sort_buffer_size` bytes; a full
//! buffer is sorted and written to a temporary file in `tmpdir` as a run,
//! and the runs are merged when the rows are sent (in passes of at most
//! [`MERGE_FAN_IN`] runs, each pass counted in `Sort_merge_passes`), so a
//! sort of any size holds one buffer and one read buffer per run in
//! memory. With ORDER BY ... LIMIT n only the first n rows can leave
//! (top-N): the buffer is cut to them whenever it holds twice as many,
//! and a row that sorts after the last one kept is dropped on arrival.
//!
//! Invariants:
//! 1. The sort is stable: rows of equal keys leave in the order they
//!    came. Within the buffer rows are ordered by (keys, arrival); every
//!    row of run i arrived before every row of run i + 1 and a merge
//!    breaks ties by run number.
//! 2. A run's records are fixed in shape (as many keys and values as the
//!    sort has), so they carry no counts; the codec below is private to
//!    this module and the file is unnamed (gone when the sort is).

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;

use quire_engine::row::{Date, DateTime, Decimal, Value};

use crate::error::{Result, SqlError};
use crate::query::{cmp_keys, SortKey};

/// Runs merged at once; more are merged in passes.
pub const MERGE_FAN_IN: usize = 64;

/// Read buffer per run during a merge.
const RUN_READ_BUFFER: usize = 32 * 1024;

/// Where a sort may spill and how much it may hold.
#[derive(Clone, Debug)]
pub struct SortLimits {
    /// `sort_buffer_size`.
    pub buffer: usize,
    /// `tmpdir`.
    pub tmpdir: String,
    /// What grouping may hold in memory before the rows of further groups
    /// go to disk: the smaller of `tmp_table_size` and
    /// `max_heap_table_size`, as MySQL bounds its in-memory temporary
    /// tables (`finish::Groups`).
    pub heap: usize,
}

impl SortLimits {
    /// The session's `sort_buffer_size` and `tmpdir`.
    pub fn of(env: &dyn crate::expr::Env) -> Self {
        let d = Self::default();
        let size = |name: &str, default: usize| {
            env.sysvar(name, false)
                .ok()
                .and_then(|v| crate::expr::to_i128(&v))
                .map_or(default, |b| b.clamp(0, usize::MAX as i128) as usize)
        };
        let tmpdir = match env.sysvar("tmpdir", true) {
            Ok(Value::Str(s)) if !s.is_empty() => s,
            _ => d.tmpdir,
        };
        let heap = size("tmp_table_size", d.heap).min(size("max_heap_table_size", d.heap));
        Self { buffer: size("sort_buffer_size", d.buffer), tmpdir, heap }
    }
}

impl Default for SortLimits {
    fn default() -> Self {
        Self { buffer: 262_144, tmpdir: std::env::temp_dir().to_string_lossy().into_owned(), heap: 16 << 20 }
    }
}

/// What a sort did, for SHOW STATUS (`Sort_rows`, `Sort_merge_passes`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SortStats {
    pub rows: u64,
    pub merge_passes: u64,
    /// Groupings that went beyond `tmp_table_size` to disk
    /// (`Created_tmp_disk_tables`; see `finish::Groups`).
    pub disk_tables: u64,
    /// Temporary files created (`Created_tmp_files`).
    pub files: u64,
}

/// A row being sorted: its keys, arrival number and output values.
type Entry = (Vec<SortKey>, u64, Vec<Value>);

/// The rows of one ORDER BY (see the module note).
pub struct Sorter {
    desc: Vec<bool>,
    limits: SortLimits,
    rows: Vec<Entry>,
    /// Estimated bytes held by `rows`.
    bytes: usize,
    /// ORDER BY ... LIMIT: at most this many rows can leave (OFFSET +
    /// LIMIT), so no more are kept.
    cap: Option<usize>,
    arrived: u64,
    /// Top-N: the keys of the last row kept at the last cut; a row that
    /// does not sort before them cannot be among the first `cap`.
    worst: Option<Vec<SortKey>>,
    spill: Option<Runs>,
    pub stats: SortStats,
}

impl Sorter {
    pub fn new(desc: Vec<bool>, cap: Option<usize>, limits: SortLimits) -> Self {
        Self {
            desc,
            limits,
            rows: Vec::new(),
            bytes: 0,
            cap,
            arrived: 0,
            worst: None,
            spill: None,
            stats: SortStats::default(),
        }
    }

    /// No row can leave (LIMIT 0).
    pub fn closed(&self) -> bool {
        self.cap == Some(0)
    }

    /// A row with these keys cannot be among the rows that leave.
    pub(crate) fn beyond(&self, keys: &[SortKey]) -> bool {
        self.worst.as_ref().is_some_and(|w| cmp_keys(keys, w, &self.desc) != Ordering::Less)
    }

    pub(crate) fn keep(&mut self, keys: Vec<SortKey>, vals: Vec<Value>) -> Result<()> {
        self.bytes += entry_bytes(&keys, &vals);
        self.rows.push((keys, self.arrived, vals));
        self.arrived += 1;
        self.stats.rows += 1;
        if let Some(cap) = self.cap {
            // Cut when twice the size: n log n per cap rows kept.
            if self.rows.len() >= cap.saturating_mul(2).max(64) {
                self.order();
                self.worst = self.rows.last().map(|(k, _, _)| k.clone());
            }
        }
        if self.bytes > self.limits.buffer {
            self.write_run()?;
        }
        Ok(())
    }

    /// Sorts the buffer by key, then arrival, and cuts it to `cap`.
    fn order(&mut self) {
        let desc = &self.desc;
        self.rows.sort_by(|(a, i, _), (b, j, _)| cmp_keys(a, b, desc).then(i.cmp(j)));
        if let Some(cap) = self.cap {
            if self.rows.len() > cap {
                self.rows.truncate(cap);
                self.bytes = self.rows.iter().map(|(k, _, v)| entry_bytes(k, v)).sum();
            }
        }
    }

    /// Sorts the buffer and writes it out as a run.
    fn write_run(&mut self) -> Result<()> {
        self.order();
        if self.rows.is_empty() {
            return Ok(());
        }
        // A run of `cap` rows bounds the rows that can still leave.
        if self.cap == Some(self.rows.len()) {
            let last = &self.rows[self.rows.len() - 1].0;
            if self.worst.as_ref().is_none_or(|w| cmp_keys(w, last, &self.desc) != Ordering::Less) {
                self.worst = Some(last.clone());
            }
        }
        if self.spill.is_none() {
            self.spill = Some(Runs::new(&self.limits.tmpdir)?);
            self.stats.files += 1;
        }
        let runs = self.spill.as_mut().expect("made above");
        let rows = std::mem::take(&mut self.rows);
        self.bytes = 0;
        runs.write(rows.into_iter().map(|(k, _, v)| (k, v)))
    }

    /// Hands the rows to `out` in order until it says stop (`Ok(false)`);
    /// `check` runs every few thousand rows (KILL, time limits).
    pub fn drain(
        mut self,
        out: &mut dyn FnMut(Vec<Value>) -> Result<bool>,
        check: &dyn Fn() -> Result<()>,
    ) -> Result<SortStats> {
        if self.spill.is_none() {
            self.order();
            for (i, (_, _, vals)) in self.rows.into_iter().enumerate() {
                if i % 4096 == 4095 {
                    check()?;
                }
                if !out(vals)? {
                    break;
                }
            }
            return Ok(self.stats);
        }
        self.write_run()?;
        let mut runs = self.spill.take().expect("spilled");
        let (nk, nv) = runs.shape.expect("a run was written");
        while runs.runs.len() > MERGE_FAN_IN {
            check()?;
            let mut next = Runs::new(&self.limits.tmpdir)?;
            self.stats.files += 1;
            next.shape = runs.shape;
            for group in runs.runs.chunks(MERGE_FAN_IN) {
                let merged = Merge::new(&runs.file, group, nk, nv, &self.desc)?;
                next.write_records(merged)?;
            }
            self.stats.merge_passes += 1;
            runs = next;
        }
        self.stats.merge_passes += 1;
        let mut left = self.cap.unwrap_or(usize::MAX);
        for (i, r) in Merge::new(&runs.file, &runs.runs, nk, nv, &self.desc)?.enumerate() {
            if i % 4096 == 4095 {
                check()?;
            }
            let (_, vals) = r?;
            if left == 0 || !out(vals)? {
                break;
            }
            left -= 1;
        }
        Ok(self.stats)
    }
}

/// Sorted runs in one unnamed temporary file: (offset, length) each.
struct Runs {
    file: File,
    end: u64,
    runs: Vec<(u64, u64)>,
    /// Keys and values per record, fixed by the first run.
    shape: Option<(usize, usize)>,
}

impl Runs {
    fn new(tmpdir: &str) -> Result<Self> {
        let file = tempfile::tempfile_in(tmpdir).map_err(|e| create_error(tmpdir, &e))?;
        Ok(Self { file, end: 0, runs: Vec::new(), shape: None })
    }

    fn write(&mut self, rows: impl Iterator<Item = (Vec<SortKey>, Vec<Value>)>) -> Result<()> {
        self.write_records(rows.map(Ok))
    }

    fn write_records(&mut self, rows: impl Iterator<Item = Result<(Vec<SortKey>, Vec<Value>)>>) -> Result<()> {
        let start = self.end;
        let mut w = BufWriter::with_capacity(64 * 1024, OffsetWriter { file: &self.file, at: start });
        let mut buf = Vec::new();
        let mut len = 0u64;
        for r in rows {
            let (keys, vals) = r?;
            self.shape.get_or_insert((keys.len(), vals.len()));
            buf.clear();
            keys.iter().for_each(|k| put_key(&mut buf, k));
            vals.iter().for_each(|v| put_value(&mut buf, v));
            w.write_all(&buf).map_err(|e| io_error("a sort run", &e))?;
            len += buf.len() as u64;
        }
        w.flush().map_err(|e| io_error("a sort run", &e))?;
        self.end += len;
        self.runs.push((start, len));
        Ok(())
    }
}

/// Sequential writes at an offset of a file shared by reference.
struct OffsetWriter<'f> {
    file: &'f File,
    at: u64,
}

impl Write for OffsetWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write_all_at(buf, self.at)?;
        self.at += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Reads one run's records in order.
struct RunReader<'f> {
    file: &'f File,
    /// Next file offset to read and the run's end.
    at: u64,
    end: u64,
    buf: Vec<u8>,
    pos: usize,
    nk: usize,
    nv: usize,
}

impl RunReader<'_> {
    fn next(&mut self) -> Result<Option<(Vec<SortKey>, Vec<Value>)>> {
        if self.pos == self.buf.len() && self.at == self.end {
            return Ok(None);
        }
        loop {
            let mut r = Reader { b: &self.buf[self.pos..], used: 0 };
            let rec = (|| -> Option<(Vec<SortKey>, Vec<Value>)> {
                let keys = (0..self.nk).map(|_| r.key()).collect::<Option<Vec<_>>>()?;
                let vals = (0..self.nv).map(|_| r.value()).collect::<Option<Vec<_>>>()?;
                Some((keys, vals))
            })();
            if let Some(rec) = rec {
                self.pos += r.used;
                return Ok(Some(rec));
            }
            // A record cut by the buffer's end: read on.
            if self.at == self.end {
                return Err(SqlError::internal("a sort run ends inside a record"));
            }
            self.buf.drain(..self.pos);
            self.pos = 0;
            let want = RUN_READ_BUFFER.max(self.buf.len() * 2).min((self.end - self.at) as usize + self.buf.len());
            let have = self.buf.len();
            self.buf.resize(want, 0);
            let n = (want - have).min((self.end - self.at) as usize);
            self.file.read_exact_at(&mut self.buf[have..have + n], self.at).map_err(|e| io_error("a sort run", &e))?;
            self.buf.truncate(have + n);
            self.at += n as u64;
        }
    }
}

/// A k-way merge of runs; ties go to the lower run (invariant 1).
struct Merge<'f, 'd> {
    readers: Vec<RunReader<'f>>,
    heap: BinaryHeap<Head<'d>>,
    desc: &'d [bool],
    failed: bool,
}

struct Head<'d> {
    keys: Vec<SortKey>,
    vals: Vec<Value>,
    run: usize,
    desc: &'d [bool],
}

impl Ord for Head<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: the row to leave first is the greatest.
        cmp_keys(&self.keys, &other.keys, self.desc).then(self.run.cmp(&other.run)).reverse()
    }
}

impl PartialOrd for Head<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Head<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Head<'_> {}

impl<'f, 'd> Merge<'f, 'd> {
    fn new(file: &'f File, runs: &[(u64, u64)], nk: usize, nv: usize, desc: &'d [bool]) -> Result<Self> {
        let mut readers: Vec<RunReader<'f>> = runs
            .iter()
            .map(|&(at, len)| RunReader { file, at, end: at + len, buf: Vec::new(), pos: 0, nk, nv })
            .collect();
        let mut heap = BinaryHeap::with_capacity(readers.len());
        for (run, r) in readers.iter_mut().enumerate() {
            if let Some((keys, vals)) = r.next()? {
                heap.push(Head { keys, vals, run, desc });
            }
        }
        Ok(Self { readers, heap, desc, failed: false })
    }
}

impl Iterator for Merge<'_, '_> {
    type Item = Result<(Vec<SortKey>, Vec<Value>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let top = self.heap.pop()?;
        match self.readers[top.run].next() {
            Ok(Some((keys, vals))) => self.heap.push(Head { keys, vals, run: top.run, desc: self.desc }),
            Ok(None) => {}
            Err(e) => {
                self.failed = true;
                return Some(Err(e));
            }
        }
        Some(Ok((top.keys, top.vals)))
    }
}

/// EE_CANTCREATEFILE (1), as MySQL and MariaDB report a temporary file
/// they cannot create: "Can't create/write to file ...".
pub(crate) fn create_error(dir: &str, e: &std::io::Error) -> SqlError {
    let errno = e.raw_os_error().unwrap_or(0);
    SqlError::new(1, "HY000", format!("Can't create/write to file '{dir}/MYfd' (Errcode: {errno} \"{e}\")"))
}

/// EE_WRITE (3): a temporary file that failed while being written.
pub(crate) fn io_error(what: &str, e: &std::io::Error) -> SqlError {
    let errno = e.raw_os_error().unwrap_or(0);
    SqlError::new(3, "HY000", format!("Error writing file '{what}' (Errcode: {errno} \"{e}\")"))
}

/// Rough bytes a kept row holds (its vectors, strings and keys).
pub(crate) fn entry_bytes(keys: &[SortKey], vals: &[Value]) -> usize {
    let key = |k: &SortKey| match k {
        SortKey::Str(w) => 32 + w.len(),
        _ => 32,
    };
    let val = |v: &Value| match v {
        Value::Str(s) => 32 + s.len(),
        _ => 32,
    };
    64 + keys.iter().map(key).sum::<usize>() + vals.iter().map(val).sum::<usize>()
}

fn put_key(b: &mut Vec<u8>, k: &SortKey) {
    match k {
        SortKey::Null => b.push(0),
        SortKey::Num(d) => {
            b.push(1);
            put_decimal(b, d);
        }
        SortKey::Temporal(t) => {
            b.push(2);
            put_datetime(b, t);
        }
        SortKey::Str(w) => {
            b.push(3);
            put_bytes(b, w);
        }
        SortKey::Approx(bits) => {
            b.push(4);
            b.extend_from_slice(&bits.to_le_bytes());
        }
    }
}

pub(crate) fn put_value(b: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => b.push(0),
        Value::Int(i) => {
            b.push(1);
            b.extend_from_slice(&i.to_le_bytes());
        }
        Value::UInt(u) => {
            b.push(2);
            b.extend_from_slice(&u.to_le_bytes());
        }
        Value::Decimal(d) => {
            b.push(3);
            put_decimal(b, d);
        }
        Value::Str(s) => {
            b.push(4);
            put_bytes(b, s.as_bytes());
        }
        Value::Date(d) => {
            b.push(5);
            put_date(b, d);
        }
        Value::DateTime(t) => {
            b.push(6);
            put_datetime(b, t);
        }
        Value::Double(f) => {
            b.push(7);
            b.extend_from_slice(&f.to_le_bytes());
        }
        Value::Time(us) => {
            b.push(8);
            b.extend_from_slice(&us.to_le_bytes());
        }
        Value::Bytes(s) => {
            b.push(9);
            put_bytes(b, s);
        }
        // Tags 50-59: JSON (its compact form, `row::json::binary`).
        Value::Json(j) => {
            b.push(50);
            let mut doc = Vec::new();
            quire_engine::row::json::binary::encode(j, &mut doc);
            put_bytes(b, &doc);
        }
        // An ENUM / SET value: its number and its interned list's id
        // (run files never outlive the process that interned it).
        Value::Choice(c) => {
            b.push(40);
            b.extend_from_slice(&c.n.to_le_bytes());
            b.extend_from_slice(&c.members.id().to_le_bytes());
        }
    }
}

pub(crate) fn put_bytes(b: &mut Vec<u8>, s: &[u8]) {
    b.extend_from_slice(&(s.len() as u64).to_le_bytes());
    b.extend_from_slice(s);
}

fn put_decimal(b: &mut Vec<u8>, d: &Decimal) {
    b.extend_from_slice(&d.coef.to_le_bytes());
    b.push(d.scale);
}

fn put_date(b: &mut Vec<u8>, d: &Date) {
    b.extend_from_slice(&d.year.to_le_bytes());
    b.extend_from_slice(&[d.month, d.day]);
}

fn put_datetime(b: &mut Vec<u8>, t: &DateTime) {
    put_date(b, &t.date);
    b.extend_from_slice(&[t.hour, t.minute, t.second]);
    b.extend_from_slice(&t.micros.to_le_bytes());
}

/// Decodes what the `put_` functions wrote; `None` when the bytes end
/// inside a record.
pub(crate) struct Reader<'b> {
    b: &'b [u8],
    pub(crate) used: usize,
}

impl<'b> Reader<'b> {
    pub(crate) fn new(b: &'b [u8]) -> Self {
        Self { b, used: 0 }
    }

    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let s = self.b.get(self.used..self.used.checked_add(n)?)?;
        self.used += n;
        Some(s)
    }

    fn byte(&mut self) -> Option<u8> {
        self.take(1).map(|s| s[0])
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N).map(|s| s.try_into().expect("length taken"))
    }

    pub(crate) fn bytes(&mut self) -> Option<Vec<u8>> {
        let n = u64::from_le_bytes(self.array()?);
        self.take(usize::try_from(n).ok()?).map(<[u8]>::to_vec)
    }

    fn decimal(&mut self) -> Option<Decimal> {
        let coef = i128::from_le_bytes(self.array()?);
        Some(Decimal { coef, scale: self.byte()? })
    }

    fn date(&mut self) -> Option<Date> {
        let year = u16::from_le_bytes(self.array()?);
        let [month, day] = self.array()?;
        Some(Date { year, month, day })
    }

    fn datetime(&mut self) -> Option<DateTime> {
        let date = self.date()?;
        let [hour, minute, second] = self.array()?;
        let micros = u32::from_le_bytes(self.array()?);
        Some(DateTime { date, hour, minute, second, micros })
    }

    fn key(&mut self) -> Option<SortKey> {
        Some(match self.byte()? {
            0 => SortKey::Null,
            1 => SortKey::Num(self.decimal()?),
            2 => SortKey::Temporal(self.datetime()?),
            4 => SortKey::Approx(u64::from_le_bytes(self.array()?)),
            _ => SortKey::Str(self.bytes()?),
        })
    }

    pub(crate) fn value(&mut self) -> Option<Value> {
        Some(match self.byte()? {
            0 => Value::Null,
            1 => Value::Int(i64::from_le_bytes(self.array()?)),
            2 => Value::UInt(u64::from_le_bytes(self.array()?)),
            3 => Value::Decimal(self.decimal()?),
            4 => Value::Str(String::from_utf8(self.bytes()?).ok()?),
            5 => Value::Date(self.date()?),
            7 => Value::Double(f64::from_le_bytes(self.array()?)),
            8 => Value::Time(i64::from_le_bytes(self.array()?)),
            9 => Value::Bytes(self.bytes()?),
            50 => Value::Json(Box::new(quire_engine::row::json::binary::decode(&self.bytes()?)?)),
            40 => {
                let n = u64::from_le_bytes(self.array()?);
                let members = quire_engine::row::Members::by_id(u32::from_le_bytes(self.array()?))?;
                Value::Choice(quire_engine::row::Choice { n, members })
            }
            _ => Value::DateTime(self.datetime()?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::sort_key;
    use quire_engine::row::Collation;

    fn limits(buffer: usize, dir: &tempfile::TempDir) -> SortLimits {
        SortLimits { buffer, tmpdir: dir.path().to_string_lossy().into_owned(), heap: 16 << 20 }
    }

    fn sorted(rows: &[(i64, &str)], desc: bool, cap: Option<usize>, buffer: usize) -> (Vec<Vec<Value>>, SortStats) {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Sorter::new(vec![desc], cap, limits(buffer, &dir));
        for (k, v) in rows {
            let keys = vec![sort_key(&Value::Int(*k), Collation::Utf8mb4GeneralCi)];
            if s.beyond(&keys) {
                continue;
            }
            s.keep(keys, vec![Value::Int(*k), Value::Str(v.to_string())]).unwrap();
        }
        let mut out = Vec::new();
        let stats = s
            .drain(
                &mut |r| {
                    out.push(r);
                    Ok(true)
                },
                &|| Ok(()),
            )
            .unwrap();
        (out, stats)
    }

    /// Rows with many equal keys, so stability shows.
    fn input(n: i64) -> Vec<(i64, String)> {
        (0..n).map(|i| ((i * 7919) % 97, format!("row{i}"))).collect()
    }

    fn expected(rows: &[(i64, String)], desc: bool, cap: Option<usize>) -> Vec<Vec<Value>> {
        let mut v: Vec<(i64, String)> = rows.to_vec();
        // A stable sort: equal keys keep their order.
        v.sort_by(|a, b| if desc { b.0.cmp(&a.0) } else { a.0.cmp(&b.0) });
        v.truncate(cap.unwrap_or(usize::MAX));
        v.into_iter().map(|(k, s)| vec![Value::Int(k), Value::Str(s)]).collect()
    }

    #[test]
    fn a_sort_larger_than_its_buffer_spills_runs_and_merges_them_stably() {
        let rows = input(20_000);
        let refs: Vec<(i64, &str)> = rows.iter().map(|(k, s)| (*k, s.as_str())).collect();
        for desc in [false, true] {
            let (in_memory, st) = sorted(&refs, desc, None, usize::MAX);
            assert_eq!(st.merge_passes, 0);
            assert_eq!(in_memory, expected(&rows, desc, None));
            // ~150 bytes a row: a 16 KiB buffer makes ~200 runs, more than
            // one merge's fan-in.
            let (spilled, st) = sorted(&refs, desc, None, 16 * 1024);
            assert!(st.merge_passes >= 2, "{st:?}");
            assert_eq!(spilled, in_memory);
        }
    }

    #[test]
    fn top_n_keeps_the_rows_a_stable_sort_puts_first_spilled_or_not() {
        let rows = input(5_000);
        let refs: Vec<(i64, &str)> = rows.iter().map(|(k, s)| (*k, s.as_str())).collect();
        for cap in [0, 1, 10, 200, 4_000] {
            for buffer in [usize::MAX, 4 * 1024] {
                let (got, _) = sorted(&refs, false, Some(cap), buffer);
                assert_eq!(got, expected(&rows, false, Some(cap)), "cap {cap} buffer {buffer}");
            }
        }
    }

    #[test]
    fn every_value_and_key_kind_survives_a_run() {
        let vals = vec![
            Value::Null,
            Value::Int(-5),
            Value::UInt(u64::MAX),
            Value::Decimal(Decimal { coef: -123_456, scale: 3 }),
            Value::Str("héllo".into()),
            Value::Date(Date { year: 2026, month: 11, day: 26 }),
            Value::DateTime(DateTime {
                date: Date { year: 1999, month: 1, day: 2 },
                hour: 3,
                minute: 4,
                second: 5,
                micros: 6,
            }),
        ];
        let keys: Vec<SortKey> = vals.iter().map(|v| sort_key(v, Collation::Utf8mb4GeneralCi)).collect();
        let mut b = Vec::new();
        keys.iter().for_each(|k| put_key(&mut b, k));
        vals.iter().for_each(|v| put_value(&mut b, v));
        let mut r = Reader { b: &b, used: 0 };
        let back_keys: Vec<SortKey> = (0..keys.len()).map(|_| r.key().unwrap()).collect();
        let back_vals: Vec<Value> = (0..vals.len()).map(|_| r.value().unwrap()).collect();
        assert!(back_keys == keys);
        assert_eq!(back_vals, vals);
        assert_eq!(r.used, b.len());
        // Cut short, a record is not decoded.
        let mut r = Reader { b: &b[..b.len() - 1], used: 0 };
        let whole = (0..keys.len()).all(|_| r.key().is_some()) && (0..vals.len()).all(|_| r.value().is_some());
        assert!(!whole);
    }
}
