//! The embedded table API: an [`Engine`] owns the data directory, the
//! buffer pool and the catalog; a [`Table`] offers insert / get / update /
//! delete by primary key and range scans on any index.
//!
//! Storage of one table (its own space, `<datadir>/<db>/<table>.qbd`):
//! - the clustered index: memcomparable primary key -> encoded row;
//! - one B+tree per secondary index: memcomparable (index columns, then
//!   primary key columns) -> u16 length of the index-column part.
//!
//! Concurrency (until transactions and row locks arrive):
//! 1. Writes to one row are serialised by a striped row mutex keyed by the
//!    primary key, so the clustered and secondary entries of a row change
//!    together with respect to other writers.
//! 2. Unique secondary checks and the insert that follows run under the
//!    table's unique-check mutex.
//! 3. DDL on a table (CREATE / DROP INDEX) holds the table's state latch
//!    exclusively; every DML statement holds it shared.
//! 4. Readers going through a secondary index fetch the row from the
//!    clustered index and skip it if it no longer matches the index entry.

pub mod catalog;
mod engine;
mod rowop;

use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use crate::btree::write::Prepared;
use crate::btree::{BTree, Cursor, Direction};
use rowop::{Op, RowWrite, TreeOps};

/// A small value stored inline (secondary index entries).
fn inline(bytes: &[u8]) -> Prepared {
    Prepared { bytes: bytes.to_vec(), external: false }
}
use crate::row::{codec, key, TableSchema, Value};
use crate::{Error, Result};
use catalog::TableDef;
pub use engine::Engine;

/// Stripes of the row-write mutex.
const ROW_LOCK_STRIPES: usize = 256;

pub(crate) struct Secondary {
    pub tree: BTree,
    /// Open cursors on this index, and whether it was dropped.
    pub users: Arc<Users>,
}

/// Open cursors on an index or table, so that dropping it waits for them
/// (a metadata lock, in MySQL's terms) and they learn of the drop.
#[derive(Default)]
pub struct Users {
    count: std::sync::atomic::AtomicUsize,
    dropped: std::sync::atomic::AtomicBool,
}

impl Users {
    /// Marks the object dropped and waits for its open cursors to close.
    pub(crate) fn drop_and_wait(&self, what: &str) -> Result<()> {
        self.dropped.store(true, Ordering::SeqCst);
        let deadline = std::time::Instant::now() + DDL_WAIT;
        while self.count.load(Ordering::SeqCst) > 0 {
            if std::time::Instant::now() > deadline {
                self.dropped.store(false, Ordering::SeqCst);
                return Err(Error::LockWaitTimeout(format!("{what} is in use by open cursors")));
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        Ok(())
    }
}

/// How long a DROP waits for cursors still open on its object.
const DDL_WAIT: std::time::Duration = std::time::Duration::from_secs(50);

/// A cursor's registration with a [`Users`].
struct UseGuard(Arc<Users>);

impl UseGuard {
    fn new(u: &Arc<Users>) -> Self {
        u.count.fetch_add(1, Ordering::SeqCst);
        UseGuard(u.clone())
    }
    fn dropped(&self) -> bool {
        self.0.dropped.load(Ordering::SeqCst)
    }
}

impl Drop for UseGuard {
    fn drop(&mut self) {
        self.0.count.fetch_sub(1, Ordering::SeqCst);
    }
}

/// What can change under DDL.
pub(crate) struct TableState {
    pub def: TableDef,
    pub secondary: Vec<Secondary>,
}

pub struct Table {
    name: String,
    clustered: BTree,
    state: RwLock<TableState>,
    /// Next AUTO_INCREMENT value.
    auto_inc: AtomicU64,
    row_locks: Box<[Mutex<()>]>,
    unique_lock: Mutex<()>,
    /// Open cursors on the table (DROP TABLE waits for them).
    pub(crate) users: Arc<Users>,
    /// Held by updates that move a row to another primary key (lock order:
    /// this, then row stripes, then `unique_lock`).
    pk_change_lock: Mutex<()>,
}

/// Which index a scan uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexRef {
    Primary,
    /// Position in `TableSchema::indexes`.
    Secondary(usize),
}

fn fnv(b: &[u8]) -> usize {
    let mut h: u64 = 0xcbf29ce484222325;
    for &x in b {
        h = (h ^ x as u64).wrapping_mul(0x100000001b3);
    }
    h as usize
}

/// The smallest byte string greater than every string starting with `p`,
/// or `None` if there is none (all 0xff).
fn prefix_successor(p: &[u8]) -> Option<Vec<u8>> {
    let mut v = p.to_vec();
    while let Some(last) = v.pop() {
        if last != 0xff {
            v.push(last + 1);
            return Some(v);
        }
    }
    None
}

impl Table {
    pub(crate) fn new(def: TableDef, clustered: BTree, secondary: Vec<Secondary>, auto_inc: u64) -> Self {
        Self {
            name: def.name.clone(),
            clustered,
            state: RwLock::new(TableState { def, secondary }),
            auto_inc: AtomicU64::new(auto_inc),
            row_locks: (0..ROW_LOCK_STRIPES).map(|_| Mutex::new(())).collect(),
            unique_lock: Mutex::new(()),
            users: Arc::new(Users::default()),
            pk_change_lock: Mutex::new(()),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// A copy of the current schema.
    pub fn schema(&self) -> TableSchema {
        self.state.read().def.schema.clone()
    }

    pub fn space_id(&self) -> u32 {
        self.state.read().def.space_id
    }

    pub(crate) fn state(&self) -> &RwLock<TableState> {
        &self.state
    }

    pub(crate) fn clustered(&self) -> &BTree {
        &self.clustered
    }

    /// The next AUTO_INCREMENT value (SHOW TABLE STATUS).
    pub fn next_auto_increment(&self) -> u64 {
        self.auto_inc.load(Ordering::Relaxed)
    }

    fn auto_inc_column(schema: &TableSchema) -> Option<usize> {
        schema.columns.iter().position(|c| c.auto_increment)
    }

    /// Coerces a full row to the schema, filling AUTO_INCREMENT. Returns
    /// the generated id, if one was generated.
    fn prepare_row(&self, schema: &TableSchema, row: Vec<Value>) -> Result<(Vec<Value>, Option<u64>)> {
        if row.len() != schema.columns.len() {
            return Err(Error::InvalidSchema(format!(
                "column count doesn't match value count: {} columns, {} values",
                schema.columns.len(),
                row.len()
            )));
        }
        let ai = Self::auto_inc_column(schema);
        let mut generated = None;
        let mut out = Vec::with_capacity(row.len());
        for (i, (col, v)) in schema.columns.iter().zip(row).enumerate() {
            let v = if Some(i) == ai && matches!(v, Value::Null | Value::Int(0) | Value::UInt(0)) {
                let id = self.auto_inc.fetch_add(1, Ordering::AcqRel);
                generated = Some(id);
                if col.ty.is_unsigned() {
                    Value::UInt(id)
                } else {
                    Value::Int(id as i64)
                }
            } else {
                v
            };
            out.push(col.coerce(v)?);
        }
        if let (Some(i), None) = (ai, generated) {
            // An explicit value moves the counter past it.
            let explicit = match &out[i] {
                Value::Int(v) if *v > 0 => Some(*v as u64),
                Value::UInt(v) => Some(*v),
                _ => None,
            };
            if let Some(v) = explicit {
                self.auto_inc.fetch_max(v.saturating_add(1), Ordering::AcqRel);
            }
        }
        Ok((out, generated))
    }

    fn pk_key(schema: &TableSchema, row: &[Value]) -> Vec<u8> {
        let mut k = Vec::with_capacity(16);
        key::encode_key(schema.primary_key.iter().map(|&c| (&schema.columns[c], &row[c])), &mut k);
        k
    }

    /// Encodes a primary key given its column values.
    fn pk_from_values(schema: &TableSchema, pk: &[Value]) -> Result<Vec<u8>> {
        if pk.len() != schema.primary_key.len() {
            return Err(Error::InvalidSchema(format!(
                "the primary key has {} columns, {} values given",
                schema.primary_key.len(),
                pk.len()
            )));
        }
        let mut k = Vec::new();
        for (&c, v) in schema.primary_key.iter().zip(pk) {
            let col = &schema.columns[c];
            key::encode(col, &col.coerce(v.clone())?, &mut k);
        }
        Ok(k)
    }

    /// The secondary key (index columns then primary key) and the length
    /// of the index-column part.
    fn sec_key(schema: &TableSchema, ix: usize, row: &[Value], pk: &[u8]) -> (Vec<u8>, u16) {
        let def = &schema.indexes[ix];
        let mut k = Vec::with_capacity(pk.len() + 16);
        key::encode_key(def.columns.iter().map(|&c| (&schema.columns[c], &row[c])), &mut k);
        let prefix = k.len() as u16;
        k.extend_from_slice(pk);
        (k, prefix)
    }

    fn describe_key(cols: &[usize], row: &[Value]) -> String {
        cols.iter().map(|&c| row[c].to_string()).collect::<Vec<_>>().join("-")
    }

    /// After a write: make it durable as `innodb_flush_log_at_trx_commit`
    /// asks (each DML call is its own transaction until transactions exist).
    fn commit(&self) -> Result<()> {
        match self.clustered.pool().log() {
            Some(log) => log.commit(crate::mtr::last_commit_lsn()),
            None => Ok(()),
        }
    }

    fn row_lock(&self, pk: &[u8]) -> parking_lot::MutexGuard<'_, ()> {
        self.row_locks[fnv(pk) % ROW_LOCK_STRIPES].lock()
    }

    /// Fails with DuplicateKey if a unique index already holds the row's
    /// values (rows with a NULL in the index columns never conflict).
    /// `except` is the primary key of a row being updated.
    fn check_unique(&self, st: &TableState, row: &[Value], except: Option<&[u8]>) -> Result<()> {
        let schema = &st.def.schema;
        for (ix, def) in schema.indexes.iter().enumerate() {
            if !def.unique || def.columns.iter().any(|&c| row[c].is_null()) {
                continue;
            }
            let (k, prefix) = Self::sec_key(schema, ix, row, &[]);
            debug_assert_eq!(k.len(), prefix as usize);
            let upper = prefix_successor(&k);
            let upper_b = upper.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
            let mut c = st.secondary[ix].tree.range(Bound::Included(&k), upper_b, Direction::Forward);
            while let Some((found, _)) = c.next()? {
                if except.is_some_and(|pk| &found[k.len()..] == pk) {
                    continue;
                }
                return Err(Error::DuplicateKey {
                    index: def.name.clone(),
                    key: Self::describe_key(&def.columns, row),
                });
            }
        }
        Ok(())
    }

    /// Inserts a full row (one value per column, in order). NULL or 0 in an
    /// AUTO_INCREMENT column generates the next value, which is returned.
    pub fn insert(&self, row: Vec<Value>) -> Result<Option<u64>> {
        let generated = self.insert_inner(row)?;
        self.commit()?;
        Ok(generated)
    }

    fn insert_inner(&self, row: Vec<Value>) -> Result<Option<u64>> {
        let st = self.state.read();
        let schema = &st.def.schema;
        let (row, generated) = self.prepare_row(schema, row)?;
        let pk = Self::pk_key(schema, &row);
        let mut value = Vec::with_capacity(64);
        codec::encode_row(schema, &row, &mut value);
        let _row = self.row_lock(&pk);
        let has_unique = schema.indexes.iter().any(|i| i.unique);
        let _uniq = has_unique.then(|| self.unique_lock.lock());
        if has_unique {
            if self.clustered.contains(&pk)? {
                return Err(self.dup_primary(schema, &row));
            }
            self.check_unique(&st, &row, None)?;
        }
        let mut plan = vec![TreeOps::new(
            &self.clustered,
            vec![Op::Insert { key: pk.clone(), val: self.clustered.prepare_value(&pk, &value)? }],
        )];
        for (ix, sec) in st.secondary.iter().enumerate() {
            let (k, prefix) = Self::sec_key(schema, ix, &row, &pk);
            plan.push(TreeOps::new(&sec.tree, vec![Op::Insert { key: k, val: inline(&prefix.to_le_bytes()) }]));
        }
        match self.write(plan)? {
            RowWrite::Done => Ok(generated),
            RowWrite::Duplicate { tree: 0 } => Err(self.dup_primary(schema, &row)),
            other => Err(self.inconsistent(&st, other)),
        }
    }

    /// Runs a row write; frees a new overflow chain the write did not use.
    fn write(&self, plan: Vec<TreeOps<'_>>) -> Result<RowWrite> {
        let res = rowop::write_row(self.clustered.pool(), &plan);
        if !matches!(res, Ok(RowWrite::Done)) {
            for t in &plan {
                for op in &t.ops {
                    if let Op::Insert { val, .. } | Op::Replace { val, .. } = op {
                        if val.external {
                            t.tree.after_commit(crate::btree::overflow::free_chain(
                                self.clustered.pool(),
                                t.tree.space(),
                                &val.bytes,
                            ));
                        }
                    }
                }
            }
        }
        res
    }

    /// An index found out of step with the clustered index.
    fn inconsistent(&self, st: &TableState, what: RowWrite) -> Error {
        let (tree, index) = match what {
            RowWrite::Duplicate { tree } | RowWrite::Missing { tree } => {
                let name = if tree == 0 { "PRIMARY".to_string() } else { st.def.schema.indexes[tree - 1].name.clone() };
                (tree, name)
            }
            RowWrite::Done => (0, String::new()),
        };
        let root = if tree == 0 { self.clustered.root() } else { st.secondary[tree - 1].tree.root() };
        Error::corruption(root, format!("index '{index}' of {} is out of step with the table ({what:?})", self.name))
    }

    fn dup_primary(&self, schema: &TableSchema, row: &[Value]) -> Error {
        Error::DuplicateKey { index: "PRIMARY".into(), key: Self::describe_key(&schema.primary_key, row) }
    }

    /// The row with primary key `pk` (one value per primary key column).
    pub fn get(&self, pk: &[Value]) -> Result<Option<Vec<Value>>> {
        let st = self.state.read();
        let k = Self::pk_from_values(&st.def.schema, pk)?;
        self.get_by_key(&st.def.schema, &k)
    }

    fn get_by_key(&self, schema: &TableSchema, k: &[u8]) -> Result<Option<Vec<Value>>> {
        let mut buf = Vec::new();
        if !self.clustered.get(k, &mut buf)? {
            return Ok(None);
        }
        self.decode(schema, k, &buf).map(Some)
    }

    fn decode(&self, schema: &TableSchema, k: &[u8], v: &[u8]) -> Result<Vec<Value>> {
        codec::decode_row(schema, v).ok_or_else(|| {
            Error::corruption(self.clustered.root(), format!("undecodable row under key {k:02x?} of {}", self.name))
        })
    }

    /// Replaces the row with primary key `pk` by `new_row` (which may change
    /// the primary key). `Ok(false)` if there is no such row.
    pub fn update(&self, pk: &[Value], new_row: Vec<Value>) -> Result<bool> {
        self.update_with(pk, |_| Ok(new_row.clone()))
    }

    /// Reads the row with primary key `pk`, lets `f` compute its new
    /// version, and writes it, all under the row's write lock. `f` may run
    /// twice when the primary key changes (the locks are then retaken in
    /// order).
    pub fn update_with(&self, pk: &[Value], f: impl Fn(&[Value]) -> Result<Vec<Value>>) -> Result<bool> {
        let changed = self.update_inner(pk, f)?;
        if changed {
            self.commit()?;
        }
        Ok(changed)
    }

    fn update_inner(&self, pk: &[Value], f: impl Fn(&[Value]) -> Result<Vec<Value>>) -> Result<bool> {
        let st = self.state.read();
        let schema = &st.def.schema;
        let old_pk = Self::pk_from_values(schema, pk)?;
        let old_stripe = fnv(&old_pk) % ROW_LOCK_STRIPES;
        let mut pk_change_guard = None;
        loop {
            let _row = self.row_locks[old_stripe].lock();
            let Some(old) = self.get_by_key(schema, &old_pk)? else { return Ok(false) };
            let new_row = f(&old)?;
            if new_row.len() != schema.columns.len() {
                return Err(Error::InvalidSchema("update produced a row of the wrong width".into()));
            }
            let new_row =
                new_row.into_iter().zip(&schema.columns).map(|(v, c)| c.coerce(v)).collect::<Result<Vec<_>>>()?;
            let new_pk = Self::pk_key(schema, &new_row);
            let pk_changed = new_pk != old_pk;
            if pk_changed && pk_change_guard.is_none() {
                // Two row locks are needed: serialise such updates so no
                // two threads ever wait for each other's second lock.
                drop(_row);
                pk_change_guard = Some(self.pk_change_lock.lock());
                continue;
            }
            let new_stripe = fnv(&new_pk) % ROW_LOCK_STRIPES;
            let _other = (pk_changed && new_stripe != old_stripe).then(|| self.row_locks[new_stripe].lock());
            let has_unique = schema.indexes.iter().any(|i| i.unique);
            let _uniq = has_unique.then(|| self.unique_lock.lock());
            if pk_changed && self.clustered.contains(&new_pk)? {
                return Err(self.dup_primary(schema, &new_row));
            }
            if has_unique {
                self.check_unique(&st, &new_row, Some(&old_pk))?;
            }
            let mut value = Vec::with_capacity(64);
            codec::encode_row(schema, &new_row, &mut value);
            let val = self.clustered.prepare_value(&new_pk, &value)?;
            let clustered_ops = if pk_changed {
                vec![Op::Remove { key: old_pk.clone() }, Op::Insert { key: new_pk.clone(), val }]
            } else {
                vec![Op::Replace { key: old_pk.clone(), val }]
            };
            let mut plan = vec![TreeOps::new(&self.clustered, clustered_ops)];
            for (ix, sec) in st.secondary.iter().enumerate() {
                let (ok, _) = Self::sec_key(schema, ix, &old, &old_pk);
                let (nk, prefix) = Self::sec_key(schema, ix, &new_row, &new_pk);
                if ok != nk {
                    plan.push(TreeOps::new(
                        &sec.tree,
                        vec![Op::Remove { key: ok }, Op::Insert { key: nk, val: inline(&prefix.to_le_bytes()) }],
                    ));
                }
            }
            match self.write(plan)? {
                RowWrite::Done => {}
                RowWrite::Duplicate { tree: 0 } => return Err(self.dup_primary(schema, &new_row)),
                other => return Err(self.inconsistent(&st, other)),
            }
            return Ok(true);
        }
    }

    /// Deletes the row with primary key `pk`; `Ok(false)` if absent.
    pub fn delete(&self, pk: &[Value]) -> Result<bool> {
        let deleted = self.delete_inner(pk)?;
        if deleted {
            self.commit()?;
        }
        Ok(deleted)
    }

    fn delete_inner(&self, pk: &[Value]) -> Result<bool> {
        let st = self.state.read();
        let schema = &st.def.schema;
        let k = Self::pk_from_values(schema, pk)?;
        let _row = self.row_lock(&k);
        let Some(old) = self.get_by_key(schema, &k)? else { return Ok(false) };
        let mut plan = vec![TreeOps::new(&self.clustered, vec![Op::Remove { key: k.clone() }])];
        for (ix, sec) in st.secondary.iter().enumerate() {
            let (sk, _) = Self::sec_key(schema, ix, &old, &k);
            plan.push(TreeOps::new(&sec.tree, vec![Op::Remove { key: sk }]));
        }
        match self.write(plan)? {
            RowWrite::Done => Ok(true),
            other => Err(self.inconsistent(&st, other)),
        }
    }

    /// Rows of `index` whose key columns lie between `lower` and `upper`,
    /// in `dir` order. Bounds give values for a prefix of the index's
    /// columns (all of them, or the first few); an empty prefix is
    /// unbounded. Rows come back whole.
    pub fn scan(
        &self,
        index: IndexRef,
        lower: Bound<&[Value]>,
        upper: Bound<&[Value]>,
        dir: Direction,
    ) -> Result<RowCursor> {
        let st = self.state.read();
        let schema = &st.def.schema;
        let cols: Vec<usize> = match index {
            IndexRef::Primary => schema.primary_key.clone(),
            IndexRef::Secondary(i) => {
                schema.indexes.get(i).ok_or_else(|| Error::NoSuchIndex(format!("#{i}")))?.columns.clone()
            }
        };
        let enc = |vals: &[Value]| -> Result<Vec<u8>> {
            if vals.len() > cols.len() {
                return Err(Error::InvalidSchema("more bound values than index columns".into()));
            }
            let mut k = Vec::new();
            for (&c, v) in cols.iter().zip(vals) {
                let col = &schema.columns[c];
                key::encode(col, &col.coerce(v.clone())?, &mut k);
            }
            Ok(k)
        };
        let lo: Bound<Vec<u8>> = match lower {
            Bound::Unbounded => Bound::Unbounded,
            Bound::Included(v) => Bound::Included(enc(v)?),
            Bound::Excluded(v) => match prefix_successor(&enc(v)?) {
                Some(s) => Bound::Included(s),
                None => return Ok(RowCursor::empty(self, schema.clone())),
            },
        };
        let hi: Bound<Vec<u8>> = match upper {
            Bound::Unbounded => Bound::Unbounded,
            Bound::Excluded(v) => Bound::Excluded(enc(v)?),
            Bound::Included(v) => match prefix_successor(&enc(v)?) {
                Some(s) => Bound::Excluded(s),
                None => Bound::Unbounded,
            },
        };
        let as_ref = |b: &Bound<Vec<u8>>| match b {
            Bound::Included(k) => Bound::Included(k.clone()),
            Bound::Excluded(k) => Bound::Excluded(k.clone()),
            Bound::Unbounded => Bound::Unbounded,
        };
        let (lo, hi) = (as_ref(&lo), as_ref(&hi));
        let tree = match index {
            IndexRef::Primary => self.clustered.clone(),
            IndexRef::Secondary(i) => st.secondary[i].tree.clone(),
        };
        let mut uses = vec![UseGuard::new(&self.users)];
        if let IndexRef::Secondary(i) = index {
            uses.push(UseGuard::new(&st.secondary[i].users));
        }
        if uses.iter().any(|u| u.dropped()) {
            return Err(Error::NoSuchTable(self.name.clone()));
        }
        let cursor = tree.range(bref(&lo), bref(&hi), dir);
        Ok(RowCursor {
            uses,
            clustered: self.clustered.clone(),
            name: self.name.clone(),
            schema: schema.clone(),
            index,
            cursor: Some(cursor),
            buf: Vec::new(),
        })
    }
}

fn bref(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Included(k) => Bound::Included(k.as_slice()),
        Bound::Excluded(k) => Bound::Excluded(k.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// Rows of a range scan.
pub struct RowCursor {
    /// Keeps the table (and index) from being dropped under the cursor.
    uses: Vec<UseGuard>,
    clustered: BTree,
    name: String,
    schema: TableSchema,
    index: IndexRef,
    cursor: Option<Cursor>,
    buf: Vec<u8>,
}

impl RowCursor {
    fn empty(t: &Table, schema: TableSchema) -> Self {
        Self {
            uses: Vec::new(),
            clustered: t.clustered.clone(),
            name: t.name.clone(),
            schema,
            index: IndexRef::Primary,
            cursor: None,
            buf: Vec::new(),
        }
    }

    /// The next row, or `None`.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<Vec<Value>>> {
        if self.uses.iter().any(|u| u.dropped()) {
            return Err(Error::NoSuchIndex(format!("an index of {} was dropped during the scan", self.name)));
        }
        let Some(cursor) = self.cursor.as_mut() else { return Ok(None) };
        loop {
            let Some((k, v)) = cursor.next()? else { return Ok(None) };
            let corrupt = |what: &str| Error::corruption(self.clustered.root(), format!("{what} in {}", self.name));
            match self.index {
                IndexRef::Primary => {
                    return codec::decode_row(&self.schema, v).map(Some).ok_or_else(|| corrupt("undecodable row"));
                }
                IndexRef::Secondary(ix) => {
                    if v.len() != 2 {
                        return Err(corrupt("bad secondary index entry"));
                    }
                    let prefix = u16::from_le_bytes([v[0], v[1]]) as usize;
                    if prefix > k.len() {
                        return Err(corrupt("bad secondary index entry"));
                    }
                    let (sec, pk) = k.split_at(prefix);
                    if !self.clustered.get(pk, &mut self.buf)? {
                        continue; // deleted meanwhile
                    }
                    let row = codec::decode_row(&self.schema, &self.buf).ok_or_else(|| corrupt("undecodable row"))?;
                    let (again, _) = Table::sec_key(&self.schema, ix, &row, &[]);
                    if again != sec {
                        continue; // updated meanwhile: the entry is stale
                    }
                    return Ok(Some(row));
                }
            }
        }
    }

    /// All remaining rows.
    pub fn collect_all(&mut self) -> Result<Vec<Vec<Value>>> {
        let mut out = Vec::new();
        while let Some(r) = self.next()? {
            out.push(r);
        }
        Ok(out)
    }
}
