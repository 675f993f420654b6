//! The embedded table API: an [`Engine`] owns the data directory, the
//! buffer pool, the catalog and the transaction system; a [`Table`] offers
//! insert / get / update / delete by primary key and range scans on any
//! index, inside a transaction ([`Trx`], `*_tx` methods) or each as its own
//! transaction (the plain methods, autocommit).
//!
//! Storage of one table (its own space, `<datadir>/<db>/<table>.qbd`):
//! - the clustered index: memcomparable primary key -> record header
//!   (delete mark, transaction id, roll pointer: `txn/record.rs`) + row.
//!   A table without a primary key is clustered on its first NOT NULL
//!   UNIQUE key, or on a hidden last column `DB_ROW_ID` (`row::ClusterKey`)
//!   that the engine fills from its row id counter (`row_id.rs`): callers
//!   give such rows without it, and get them back with it last;
//! - one B+tree per secondary index: memcomparable (index columns, then
//!   primary key columns) -> u16 length of the index-column part.
//!
//! Concurrency:
//! 1. Row changes X-lock the clustered key (`txn/lock.rs`) until their
//!    transaction ends; reads use MVCC read views or locks (`read.rs`).
//! 2. Unique secondary checks and the insert that follows run under the
//!    table's unique-check mutex (never held across a lock wait).
//! 3. DDL on a table (CREATE / DROP INDEX) holds the table's state latch
//!    exclusively; every DML statement holds it shared.
//! 4. Readers going through a secondary index fetch the row from the
//!    clustered index and skip it unless the version they see carries the
//!    entry's values.

pub mod catalog;
mod check;
mod dml;
mod engine;
mod purge;
mod read;
mod row_id;
pub mod row_log;
mod rowop;
mod rowop_buffer;
pub mod stats;
mod trx;
mod undo_apply;
mod upsert;

use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

pub use check::CheckReport;
pub use dml::RowUpdate;
pub use stats::{IndexStats, TableStats};
pub use trx::{LockWait, Savepoint, Trx, TxnSys};
pub use upsert::{Duplicate, Inserted};

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

/// One index of a table ([`Table::index_layout`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexLayout {
    /// The index id (locks and pages name it).
    pub index_id: u32,
    /// The root page's number in the table's space.
    pub root_page: u32,
    /// Its position in `TableSchema::indexes`; `None`: the clustered index.
    pub secondary: Option<usize>,
}

pub struct Table {
    name: String,
    clustered: BTree,
    state: crate::wait::RwLock<TableState>,
    /// Next AUTO_INCREMENT value.
    auto_inc: AtomicU64,
    unique_lock: Mutex<()>,
    /// Open cursors on the table (DROP TABLE waits for them).
    pub(crate) users: Arc<Users>,
    /// The transaction system (autocommit statements start transactions).
    txn: Arc<TxnSys>,
    /// Opened by `innodb_force_recovery` despite damage (or while it makes
    /// every table read-only): row changes are refused.
    read_only: std::sync::atomic::AtomicBool,
    /// The optimizer's statistics (`stats.rs`), installed by the SQL layer.
    stats: RwLock<Option<Arc<TableStats>>>,
    /// Row changes ever (striped: writers on many cores share no line),
    /// and their count when `stats` was installed.
    modified: crate::sync::counter::Counter,
    modified_at_stats: AtomicU64,
    /// A table of the `mysql` schema: its rows count as system rows
    /// (`Innodb_system_rows_*`).
    system: bool,
}

/// Which index a scan uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexRef {
    Primary,
    /// Position in `TableSchema::indexes`.
    Secondary(usize),
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
    pub(crate) fn new(
        def: TableDef,
        clustered: BTree,
        secondary: Vec<Secondary>,
        auto_inc: u64,
        txn: Arc<TxnSys>,
    ) -> Self {
        let system = def.name.starts_with("mysql/");
        Self {
            name: def.name.clone(),
            clustered,
            state: crate::wait::RwLock::new(crate::wait::Instrument::TableState, TableState { def, secondary }),
            auto_inc: AtomicU64::new(auto_inc),
            unique_lock: Mutex::new(()),
            users: Arc::new(Users::default()),
            txn,
            read_only: Default::default(),
            stats: RwLock::new(None),
            system,
            modified: Default::default(),
            modified_at_stats: AtomicU64::new(0),
        }
    }

    pub(crate) fn set_read_only(&self, on: bool) {
        self.read_only.store(on, Ordering::Relaxed);
    }

    /// Refuses a row change to a read-only table.
    pub(crate) fn check_writable(&self) -> Result<()> {
        if self.read_only.load(Ordering::Relaxed) {
            return Err(Error::ReadOnly(self.name.clone()));
        }
        Ok(())
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// A copy of the current schema.
    pub fn schema(&self) -> TableSchema {
        self.state.read().def.schema.clone()
    }

    /// A copy of the table's FOREIGN KEYs (as a child).
    pub fn foreign_keys(&self) -> Vec<crate::row::ForeignKeyDef> {
        self.state.read().def.foreign_keys.clone()
    }

    /// A copy of the table's extras (CHECK constraints, COMMENTs,
    /// AUTO_INCREMENT start).
    pub fn extras(&self) -> crate::row::TableExtras {
        self.state.read().def.extras.clone()
    }

    /// A copy of the table's CHECK constraints (empty, unallocated, for
    /// a table without any).
    pub fn checks(&self) -> Vec<crate::row::CheckDef> {
        self.state.read().def.extras.checks.clone()
    }

    /// A copy of the table's generated columns (empty, unallocated, for
    /// a table without any).
    pub fn generated(&self) -> Vec<crate::row::GeneratedDef> {
        self.state.read().def.extras.generated.clone()
    }

    pub fn space_id(&self) -> u32 {
        self.state.read().def.space_id
    }

    /// The row counters this table's reads and writes go to.
    pub(crate) fn row_counters(&self) -> &crate::txn::trx_info::RowCounters {
        if self.system {
            &self.txn.counters.system_rows
        } else {
            &self.txn.counters.rows
        }
    }

    /// The table's indexes as the data dictionary records them
    /// (information_schema.INNODB_INDEXES): the clustered index first,
    /// then the secondary ones in `TableSchema::indexes` order.
    pub fn index_layout(&self) -> Vec<IndexLayout> {
        let st = self.state.read();
        let (root_page, index_id) = st.def.clustered;
        let mut out = vec![IndexLayout { index_id, root_page, secondary: None }];
        out.extend(st.def.secondary.iter().enumerate().map(|(i, &(root_page, index_id))| IndexLayout {
            index_id,
            root_page,
            secondary: Some(i),
        }));
        out
    }

    pub(crate) fn state(&self) -> &crate::wait::RwLock<TableState> {
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
    fn prepare_row(&self, schema: &TableSchema, mut row: Vec<Value>) -> Result<(Vec<Value>, Option<u64>)> {
        if row.len() != schema.columns.len() || schema.has_row_id() {
            self.add_row_id(schema, &mut row)?;
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

    /// Completes the row of a table clustered on a hidden row id (given
    /// without it) with a new id from the engine's counter; any other row
    /// must have one value per column.
    fn add_row_id(&self, schema: &TableSchema, row: &mut Vec<Value>) -> Result<()> {
        let visible = schema.visible_columns().len();
        if row.len() != visible {
            return Err(Error::InvalidSchema(format!(
                "column count doesn't match value count: {visible} columns, {} values",
                row.len()
            )));
        }
        if schema.has_row_id() {
            row.push(Value::UInt(self.txn.row_ids.assign(self.clustered.pool())?));
        }
        Ok(())
    }

    /// Keeps the hidden row id of an updated row: the new version (with or
    /// without the id) takes the old version's. Any other row must have
    /// one value per column.
    fn keep_row_id(schema: &TableSchema, old: &[Value], new: &mut Vec<Value>) -> Result<()> {
        let visible = schema.visible_columns().len();
        match (schema.has_row_id(), new.len()) {
            (true, n) if n == visible => new.push(old[visible].clone()),
            (true, n) if n == visible + 1 => new[visible] = old[visible].clone(),
            _ => return Err(Error::InvalidSchema("update produced a row of the wrong width".into())),
        }
        Ok(())
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
        if def.prefix.is_empty() {
            key::encode_key(def.columns.iter().map(|&c| (&schema.columns[c], &row[c])), &mut k);
        } else {
            for (i, &c) in def.columns.iter().enumerate() {
                key::encode_prefix(&schema.columns[c], &row[c], def.prefix_of(i), &mut k);
            }
        }
        let prefix = k.len() as u16;
        k.extend_from_slice(pk);
        (k, prefix)
    }

    /// The name of this table's index `index_id` (`PRIMARY` for the
    /// clustered one) and lock key `key` of it as text (see
    /// [`crate::row::key::describe`]; `None` is the supremum: `supremum
    /// pseudo-record`, as InnoDB says); `None` if the index is not this
    /// table's.
    pub fn lock_key_text(&self, index_id: u32, key: Option<&[u8]>) -> Option<(String, String)> {
        let st = self.state.read();
        let schema = &st.def.schema;
        let pk = schema.primary_key.iter().map(|&c| &schema.columns[c]);
        let (name, text) = if self.clustered.index_id() == index_id {
            ("PRIMARY".to_string(), key.map(|k| crate::row::key::describe(pk, k)))
        } else {
            let ix = st.secondary.iter().position(|s| s.tree.index_id() == index_id)?;
            let def = schema.indexes.get(ix)?;
            let cols = def.columns.iter().map(|&c| &schema.columns[c]);
            // A prefix part's encoding is not its column's: shown in hex.
            let text = if def.prefix.is_empty() {
                key.map(|k| crate::row::key::describe(cols.chain(pk), k))
            } else {
                key.map(|k| crate::row::key::describe(std::iter::empty(), k))
            };
            (def.name.clone(), text)
        };
        Some((name, text.unwrap_or_else(|| "supremum pseudo-record".to_string())))
    }

    fn describe_key(cols: &[usize], row: &[Value]) -> String {
        cols.iter().map(|&c| row[c].to_string()).collect::<Vec<_>>().join("-")
    }

    /// Runs `f` as its own transaction (autocommit): committed if it
    /// succeeds, rolled back if it fails.
    fn autocommit<T>(&self, f: impl FnOnce(&mut Trx) -> Result<T>) -> Result<T> {
        let mut trx = Trx::new(self.txn.clone(), crate::txn::Isolation::RepeatableRead);
        match f(&mut trx) {
            Ok(v) => {
                trx.commit()?;
                Ok(v)
            }
            Err(e) => {
                trx.rollback()?;
                Err(e)
            }
        }
    }

    /// Inserts a full row (one value per column, in order) as its own
    /// transaction. NULL or 0 in an AUTO_INCREMENT column generates the
    /// next value, which is returned.
    pub fn insert(&self, row: Vec<Value>) -> Result<Option<u64>> {
        self.autocommit(|trx| self.insert_tx(trx, row))
    }

    /// Frees the overflow chains of new values a failed write did not use.
    fn free_unused_chains(&self, plan: &[TreeOps<'_>]) {
        for t in plan {
            for op in &t.ops {
                if let Op::Insert { val, .. } | Op::Ensure { val, .. } | Op::Replace { val, .. } = op {
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

    /// An index found out of step with the clustered index.
    fn inconsistent(&self, st: &TableState, what: RowWrite) -> Error {
        let tree = match what {
            RowWrite::Duplicate { tree } | RowWrite::Missing { tree } => tree,
            RowWrite::Done | RowWrite::LockWait(_) => 0,
        };
        let index = if tree == 0 {
            st.def.schema.primary_name().to_string()
        } else {
            st.def.schema.indexes[tree - 1].name.clone()
        };
        let root = if tree == 0 { self.clustered.root() } else { st.secondary[tree - 1].tree.root() };
        Error::corruption(root, format!("index '{index}' of {} is out of step with the table ({what:?})", self.name))
    }

    fn dup_primary(&self, schema: &TableSchema, row: &[Value]) -> Error {
        Error::DuplicateKey { index: schema.primary_name().into(), key: Self::describe_key(&schema.primary_key, row) }
    }

    /// The latest committed row with primary key `pk` (one value per
    /// primary key column), as its own read-only transaction.
    pub fn get(&self, pk: &[Value]) -> Result<Option<Vec<Value>>> {
        self.autocommit(|trx| self.get_tx(trx, pk))
    }

    fn decode(&self, schema: &TableSchema, k: &[u8], v: &[u8]) -> Result<Vec<Value>> {
        codec::decode_row(schema, v).ok_or_else(|| {
            Error::corruption(self.clustered.root(), format!("undecodable row under key {k:02x?} of {}", self.name))
        })
    }

    /// Replaces the row with primary key `pk` by `new_row` (which may change
    /// the primary key), as its own transaction. `Ok(false)` if there is no
    /// such row.
    pub fn update(&self, pk: &[Value], new_row: Vec<Value>) -> Result<bool> {
        self.update_with(pk, |_| Ok(new_row.clone()))
    }

    /// Reads the row with primary key `pk`, lets `f` compute its new
    /// version, and writes it, under the row's lock, as its own
    /// transaction. `Ok(false)` if there is no such row.
    pub fn update_with(&self, pk: &[Value], f: impl Fn(&[Value]) -> Result<Vec<Value>>) -> Result<bool> {
        self.autocommit(|trx| self.update_tx(trx, pk, f)).map(|u| u != RowUpdate::NotFound)
    }

    /// Deletes the row with primary key `pk` as its own transaction;
    /// `Ok(false)` if absent.
    pub fn delete(&self, pk: &[Value]) -> Result<bool> {
        self.autocommit(|trx| self.delete_tx(trx, pk))
    }

    /// Encodes scan bounds given as values of a prefix of `index`'s
    /// columns; `None` if the range is empty.
    #[allow(clippy::type_complexity)]
    fn encode_bounds(
        &self,
        schema: &TableSchema,
        index: IndexRef,
        lower: Bound<&[Value]>,
        upper: Bound<&[Value]>,
    ) -> Result<Option<(Bound<Vec<u8>>, Bound<Vec<u8>>)>> {
        let (cols, prefix): (Vec<usize>, &[u32]) = match index {
            IndexRef::Primary => (schema.primary_key.clone(), &[]),
            IndexRef::Secondary(i) => {
                let def = schema.indexes.get(i).ok_or_else(|| Error::NoSuchIndex(format!("#{i}")))?;
                (def.columns.clone(), &def.prefix)
            }
        };
        let enc = |vals: &[Value]| -> Result<Vec<u8>> {
            if vals.len() > cols.len() {
                return Err(Error::InvalidSchema("more bound values than index columns".into()));
            }
            let mut k = Vec::new();
            for (i, (&c, v)) in cols.iter().zip(vals).enumerate() {
                let col = &schema.columns[c];
                let cut = prefix.get(i).copied().filter(|&n| n > 0);
                key::encode_prefix(col, &col.coerce(v.clone())?, cut, &mut k);
            }
            Ok(k)
        };
        // A bound on a column cut to a prefix is a bound on the prefix,
        // which rows beyond the value share: it becomes inclusive (the
        // range a superset, which the reader's re-check narrows).
        let cut = |vals: &[Value]| prefix.iter().take(vals.len()).any(|&n| n > 0);
        let lower = match lower {
            Bound::Excluded(v) if cut(v) => Bound::Included(v),
            b => b,
        };
        let upper = match upper {
            Bound::Excluded(v) if cut(v) => Bound::Included(v),
            b => b,
        };
        let lo: Bound<Vec<u8>> = match lower {
            Bound::Unbounded => Bound::Unbounded,
            Bound::Included(v) => Bound::Included(enc(v)?),
            Bound::Excluded(v) => match prefix_successor(&enc(v)?) {
                Some(s) => Bound::Included(s),
                None => return Ok(None),
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
        Ok(Some((lo, hi)))
    }

    /// Rows of `index` whose key columns lie between `lower` and `upper`,
    /// in `dir` order, as a consistent read of the latest committed data.
    /// Bounds give values for a prefix of the index's columns (all of
    /// them, or the first few); an empty prefix is unbounded. Rows come
    /// back whole.
    pub fn scan(
        &self,
        index: IndexRef,
        lower: Bound<&[Value]>,
        upper: Bound<&[Value]>,
        dir: Direction,
    ) -> Result<RowCursor> {
        let mut c = self.scan_with(index, lower, upper, dir)?;
        let (view, handle) = self.txn.trx_sys.open_view(0);
        c.view = Some((view, Arc::new(handle)));
        Ok(c)
    }

    /// Entries physically present in each index (the clustered index
    /// first, delete-marked records included; then each secondary index,
    /// stale entries included): what purge has not yet removed.
    pub fn physical_entries(&self) -> Result<Vec<u64>> {
        let st = self.state.read();
        let count = |tree: &BTree| -> Result<u64> {
            let mut c = tree.range(Bound::Unbounded, Bound::Unbounded, Direction::Forward);
            let mut n = 0;
            while c.next()?.is_some() {
                n += 1;
            }
            Ok(n)
        };
        let mut out = vec![count(&self.clustered)?];
        for s in &st.secondary {
            out.push(count(&s.tree)?);
        }
        Ok(out)
    }

    /// A cursor over the index entries between the bounds, without a view.
    fn scan_with(
        &self,
        index: IndexRef,
        lower: Bound<&[Value]>,
        upper: Bound<&[Value]>,
        dir: Direction,
    ) -> Result<RowCursor> {
        let st = self.state.read();
        let schema = &st.def.schema;
        let Some((lo, hi)) = self.encode_bounds(schema, index, lower, upper)? else {
            return Ok(RowCursor::empty(self, schema.clone()));
        };
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
            view: None,
            need: None,
            read_by: None,
            returned: 0,
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

/// Rows of a range scan, as its read view sees them.
pub struct RowCursor {
    /// Keeps the table (and index) from being dropped under the cursor.
    uses: Vec<UseGuard>,
    clustered: BTree,
    name: String,
    schema: TableSchema,
    index: IndexRef,
    cursor: Option<Cursor>,
    buf: Vec<u8>,
    /// The view, kept registered while the cursor lives.
    view: Option<(crate::txn::view::ReadView, Arc<crate::txn::view::ViewHandle>)>,
    /// The columns to decode ([`RowCursor::only_columns`]); `None`: all.
    need: Option<Vec<bool>>,
    /// A statement's scan (`Table::scan_tx`): the rows it returned are
    /// added to `Innodb_rows_read` when it is dropped (one striped add per
    /// scan, not per row).
    read_by: Option<(Arc<TxnSys>, bool)>,
    returned: u64,
}

impl Drop for RowCursor {
    fn drop(&mut self) {
        if let Some((t, system)) = &self.read_by {
            let c = if *system { &t.counters.system_rows } else { &t.counters.rows };
            c.read.add(self.returned);
        }
    }
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
            view: None,
            need: None,
            read_by: None,
            returned: 0,
        }
    }

    /// The next row, or `None`.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<Vec<Value>>> {
        let mut row = Vec::new();
        Ok(self.next_into(&mut row)?.then_some(row))
    }

    /// Reads the next row into `row`, reusing its storage (a scan that
    /// reads every row into one buffer allocates nothing per row once the
    /// buffer's strings have grown); `false` at the end.
    pub fn next_into(&mut self, row: &mut Vec<Value>) -> Result<bool> {
        crate::txn::admission::enter();
        if self.uses.iter().any(|u| u.dropped()) {
            return Err(Error::NoSuchIndex(format!("an index of {} was dropped during the scan", self.name)));
        }
        let more = self.next_visible(row)?;
        crate::wait::note_rows_read(u64::from(more));
        Ok(more)
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
