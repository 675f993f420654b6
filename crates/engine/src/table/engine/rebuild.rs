//! Table rebuilds (ALTER TABLE's copy, TRUNCATE) and renames, each one
//! durable step in the catalog so that a crash at any moment leaves the
//! old table or the new one, never neither and never both.
//!
//! A rebuild, under the DDL mutex and the table's state latch held
//! exclusively (no DML on the table meanwhile: MySQL's ALGORITHM=COPY,
//! LOCK=EXCLUSIVE):
//! 1. waits until no active transaction has changed a row of the table
//!    (its metadata lock, in MySQL's terms; 1205 after [`DDL_WAIT`]);
//! 2. creates a new space `<db>/#sql-alter-<space>.qbd` (a name
//!    `table_path` never produces: it encodes `#`), writes its page 0;
//! 3. copies every live row, converted by the caller, into its trees
//!    (redo-logged, no undo: nothing else sees the space yet);
//! 4. makes the redo durable, then **swaps**: one catalog update points
//!    the table's entry at the new space (one mini-transaction), made
//!    durable at once;
//! 5. deletes the old space's file, then renames the new file to the
//!    table's own path.
//!
//! Recovery (`Engine::finish_interrupted_ddl`, run after the catalog is
//! loaded): files are found by the space id in their page 0, so the
//! catalog alone says which space is the table. A `#sql-` file no catalog
//! entry names is a copy a crash interrupted before step 4: deleted. A
//! file at a table's own path holding another space than the catalog
//! names is the old copy of a swap interrupted in step 5: deleted, and the
//! new file is renamed into place.
//!
//! RENAME TABLE changes two catalog keys. It writes an intent record
//! `R<new name>` = old name first, then `T<new>`, removes `T<old>`, and
//! removes the intent; recovery (`replay_renames`, before the catalog is
//! loaded) finishes any rename whose intent it finds. The file follows
//! (renamed after the catalog; at recovery when a crash came between).
//!
//! Test-only fault points: with `QUIRE_DDL_PAUSE_AT=<point>` in the
//! environment the DDL thread stops forever at that named point (the
//! crash tests SIGKILL the server there): `rebuild.created`,
//! `rebuild.copied`, `rebuild.swapped`, `rebuild.old_dropped`,
//! `rename.intent`, `rename.inserted`.

use std::collections::HashSet;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::super::catalog::{self, TableDef};
use super::super::{Secondary, Table, DDL_WAIT};
use super::{table_path, Engine};
use crate::btree::{BTree, Direction};
use crate::row::{codec, ForeignKeyDef, TableExtras, TableSchema, Value};
use crate::space;
use crate::txn::record::{clustered_value, RecHeader};
use crate::{Error, Result, SYSTEM_SPACE};

/// The file name prefix of a space being built by a rebuild.
pub const REBUILD_PREFIX: &str = "#sql-alter-";

/// Stops forever at a named point when `QUIRE_DDL_PAUSE_AT` names it
/// (crash tests only; see the module note).
fn fault_point(name: &str) {
    static AT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    if AT.get_or_init(|| std::env::var("QUIRE_DDL_PAUSE_AT").ok()).as_deref() == Some(name) {
        tracing::warn!("QUIRE_DDL_PAUSE_AT: paused at {name}");
        eprintln!("quire: paused at DDL point {name}");
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
}

fn rename_key(to: &str) -> Vec<u8> {
    let mut k = b"R".to_vec();
    k.extend_from_slice(to.as_bytes());
    k
}

fn is_rebuild_file(p: &Path) -> bool {
    p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(REBUILD_PREFIX))
}

impl Engine {
    /// Rebuilds `name` with `schema` and `foreign_keys`: every live row
    /// (without its hidden row id) goes through `convert` (the 1-based
    /// row number, the row) and the result (visible columns of `schema`)
    /// is stored in a new space, which then replaces the table's in one
    /// durable catalog write. With `copy` false the new table is empty
    /// (TRUNCATE: AUTO_INCREMENT starts again at 1). Returns the rows
    /// copied. A duplicate in a unique key of the new definition is
    /// `Error::DuplicateKey`; on any error the table is unchanged.
    pub fn rebuild_table<E: From<Error>>(
        &self,
        name: &str,
        schema: TableSchema,
        foreign_keys: Vec<ForeignKeyDef>,
        copy: bool,
        convert: &mut dyn FnMut(u64, Vec<Value>) -> std::result::Result<Vec<Value>, E>,
    ) -> std::result::Result<u64, E> {
        self.rebuild_table_with_extras(name, schema, foreign_keys, None, copy, convert)
    }

    /// [`Engine::rebuild_table`], the new definition carrying `extras`
    /// when given (an ALTER TABLE that adds a generated column), else the
    /// old extras less the COMMENTs and generated-column expressions of
    /// columns the new schema lacks.
    pub fn rebuild_table_with_extras<E: From<Error>>(
        &self,
        name: &str,
        schema: TableSchema,
        foreign_keys: Vec<ForeignKeyDef>,
        new_extras: Option<TableExtras>,
        copy: bool,
        convert: &mut dyn FnMut(u64, Vec<Value>) -> std::result::Result<Vec<Value>, E>,
    ) -> std::result::Result<u64, E> {
        self.check_ddl_allowed(name)?;
        // Every row is written whole: the table leaves the instant format.
        let mut schema = schema;
        crate::row::instant::clear(&mut schema);
        schema.validate(self.cfg.page_size)?;
        let _ddl = self.ddl.lock();
        let old = self.table(name)?;
        let st = Self::quiesce(&old)?;
        let old_schema = st.def.schema.clone();
        let extras = st.def.extras.clone();
        let old_space = st.def.space_id;
        let space_id = self.next_counter(super::SYS_NEXT_SPACE_ID, 1)?;
        let first_index = self.next_counter(super::SYS_NEXT_INDEX_ID, 1 + schema.indexes.len() as u32)?;
        let canonical = table_path(&self.cfg.datadir, name);
        let tmp = canonical.with_file_name(format!("{REBUILD_PREFIX}{space_id}.qbd"));
        self.pool.files().open(space_id, &tmp, true).map_err(E::from)?;
        let mut rows = 0u64;
        let mut auto_inc = 1u64;
        let built = (|| -> std::result::Result<(TableDef, BTree, Vec<Secondary>), E> {
            space::init_space(&self.pool, space_id)?;
            let clustered = BTree::create(&self.pool, space_id, first_index)?;
            let mut secondary = Vec::new();
            let mut roots = Vec::new();
            for i in 0..schema.indexes.len() as u32 {
                let t = BTree::create(&self.pool, space_id, first_index + 1 + i)?;
                roots.push((t.root().page_no, t.index_id()));
                secondary.push(Secondary { tree: t, users: Default::default() });
            }
            // Page 0 on disk before anything refers to the space: recovery
            // identifies files by it.
            self.pool.flush_space(space_id)?;
            fault_point("rebuild.created");
            if copy {
                let ai = schema.columns.iter().position(|c| c.auto_increment);
                let visible = old_schema.visible_columns().len();
                let mut c = old.clustered().range(Bound::Unbounded, Bound::Unbounded, Direction::Forward);
                let mut rec = Vec::new();
                while let Some((pk, v)) = c.next()? {
                    let (h, row) = old.split_record(pk, v)?;
                    if h.deleted {
                        continue;
                    }
                    let mut row = codec::decode_row(&old_schema, row)
                        .ok_or_else(|| Error::corruption(old.clustered().root(), "undecodable row"))?;
                    row.truncate(visible);
                    rows += 1;
                    let mut new = convert(rows, row)?;
                    if schema.has_row_id() {
                        new.push(Value::UInt(self.txn.row_ids.assign(&self.pool)?));
                    }
                    let new = new
                        .into_iter()
                        .zip(&schema.columns)
                        .map(|(v, col)| col.coerce(v))
                        .collect::<Result<Vec<_>>>()?;
                    if let Some(ai) = ai {
                        let n = match &new[ai] {
                            Value::Int(i) if *i > 0 => *i as u64,
                            Value::UInt(u) => *u,
                            _ => 0,
                        };
                        auto_inc = auto_inc.max(n.saturating_add(1));
                    }
                    self.copy_row(&schema, &clustered, &secondary, &new, &mut rec)?;
                }
                auto_inc = auto_inc.max(old.next_auto_increment());
            }
            fault_point("rebuild.copied");
            let def = TableDef {
                name: name.to_string(),
                space_id,
                schema: schema.clone(),
                clustered: (clustered.root().page_no, first_index),
                secondary: roots,
                foreign_keys: foreign_keys.clone(),
                // CHECKs, COMMENTs and the AUTO_INCREMENT start stay; the
                // comments of columns the new definition lacks go.
                extras: new_extras.clone().unwrap_or_else(|| {
                    let mut x = extras.clone();
                    let has = |c: &str| schema.columns.iter().any(|k| k.name.eq_ignore_ascii_case(c));
                    x.column_comments.retain(|(c, _)| has(c));
                    x.generated.retain(|g| has(&g.column));
                    x
                }),
            };
            // Cursors still open on the old table finish first.
            old.users.drop_and_wait(&format!("table '{name}'"))?;
            Ok((def, clustered, secondary))
        })();
        let (def, clustered, secondary) = match built {
            Ok(b) => b,
            Err(e) => {
                self.discard_space(space_id);
                let _ = self.pool.files().remove(space_id);
                return Err(e);
            }
        };
        // The copy is durable before the catalog names it; then the swap,
        // one catalog write, durable before the old file goes.
        let swapped = (|| -> Result<()> {
            self.log.flush_up_to(crate::mtr::last_commit_lsn())?;
            self.catalog.update(&catalog::table_key(name), &catalog::encode(&def))?;
            self.log.flush_up_to(crate::mtr::last_commit_lsn())
        })();
        if let Err(e) = swapped {
            old.users.dropped.store(false, std::sync::atomic::Ordering::SeqCst);
            self.discard_space(space_id);
            let _ = self.pool.files().remove(space_id);
            return Err(e.into());
        }
        fault_point("rebuild.swapped");
        drop(st);
        self.txn.unregister(old_space);
        self.discard_space(old_space);
        self.pool.files().remove(old_space)?;
        fault_point("rebuild.old_dropped");
        self.pool.files().rename(space_id, &canonical)?;
        let t = Arc::new(Table::new(def, clustered, secondary, auto_inc, self.txn.clone()));
        self.txn.register(&t);
        self.tables.write().insert(name.to_string(), t);
        Ok(rows)
    }

    /// TRUNCATE TABLE: a rebuild with no rows, the same definition.
    pub fn truncate_table(&self, name: &str) -> Result<()> {
        let t = self.table(name)?;
        let (schema, fks) = (t.schema(), t.foreign_keys());
        drop(t);
        self.rebuild_table::<Error>(name, schema, fks, false, &mut |_, r| Ok(r))?;
        Ok(())
    }

    /// Holds the table's state latch exclusively once no active
    /// transaction has a change in it, waiting up to [`DDL_WAIT`].
    pub(super) fn quiesce(t: &Table) -> Result<parking_lot::RwLockWriteGuard<'_, super::super::TableState>> {
        let deadline = std::time::Instant::now() + DDL_WAIT;
        loop {
            let st = t.state().write();
            let (view, _handle) = t.txn.trx_sys.open_view(0);
            let mut busy = false;
            let mut c = t.clustered().range(Bound::Unbounded, Bound::Unbounded, Direction::Forward);
            while let Some((pk, v)) = c.next()? {
                let (h, _) = t.split_record(pk, v)?;
                if !view.sees(h.trx) {
                    busy = true;
                    break;
                }
            }
            if !busy {
                return Ok(st);
            }
            drop(st);
            if std::time::Instant::now() > deadline {
                return Err(Error::LockWaitTimeout(format!("table '{}' has uncommitted changes", t.name())));
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// Stores one row of a rebuild in the new trees: the clustered record
    /// (visible to every read view: no transaction wrote it) and its
    /// secondary entries, unique ones checked.
    fn copy_row(
        &self,
        schema: &TableSchema,
        clustered: &BTree,
        secondary: &[Secondary],
        row: &[Value],
        rec: &mut Vec<u8>,
    ) -> Result<()> {
        let pk = Table::pk_key(schema, row);
        rec.clear();
        codec::encode_row(schema, row, rec);
        if !clustered.insert(&pk, &clustered_value(RecHeader::new(0, 0, false), rec))? {
            let index = match &schema.cluster {
                crate::row::ClusterKey::Unique(n) => n.clone(),
                _ => "PRIMARY".to_string(),
            };
            return Err(Error::DuplicateKey { index, key: Table::describe_key(&schema.primary_key, row) });
        }
        for (ix, sec) in secondary.iter().enumerate() {
            let (key, prefix) = Table::sec_key(schema, ix, row, &pk);
            let def = &schema.indexes[ix];
            if def.unique && !def.columns.iter().any(|&c| row[c].is_null()) {
                let head = &key[..prefix as usize];
                let mut probe = sec.tree.range(Bound::Included(head), Bound::Unbounded, Direction::Forward);
                if let Some((found, _)) = probe.next()? {
                    if found.starts_with(head) {
                        return Err(Error::DuplicateKey {
                            index: def.name.clone(),
                            key: Table::describe_key(&def.columns, row),
                        });
                    }
                }
            }
            sec.tree.insert(&key, &prefix.to_le_bytes())?;
        }
        Ok(())
    }

    /// Renames a table (`db/a` to `db2/b`): the catalog entry moves under
    /// an intent record (see the module note), then the file follows.
    pub fn rename_table(&self, from: &str, to: &str) -> Result<()> {
        self.check_ddl_allowed(from)?;
        if to.is_empty() || to.split('/').any(|p| p.is_empty()) {
            return Err(Error::InvalidSchema(format!("invalid table name '{to}'")));
        }
        let _ddl = self.ddl.lock();
        let old = self.table(from)?;
        if self.tables.read().contains_key(to) || self.broken.read().contains_key(to) {
            return Err(Error::TableExists(to.to_string()));
        }
        let st = old.state().write();
        old.users.drop_and_wait(&format!("table '{from}'"))?;
        let mut def = st.def.clone();
        def.name = to.to_string();
        let moved = (|| -> Result<()> {
            self.catalog.insert(&rename_key(to), from.as_bytes())?;
            self.log.flush_up_to(crate::mtr::last_commit_lsn())?;
            fault_point("rename.intent");
            self.catalog.insert(&catalog::table_key(to), &catalog::encode(&def))?;
            fault_point("rename.inserted");
            self.catalog.remove(&catalog::table_key(from))?;
            self.catalog.remove(&rename_key(to))?;
            self.log.flush_up_to(crate::mtr::last_commit_lsn())
        })();
        if let Err(e) = moved {
            old.users.dropped.store(false, std::sync::atomic::Ordering::SeqCst);
            return Err(e);
        }
        self.pool.files().rename(def.space_id, &table_path(&self.cfg.datadir, to))?;
        let clustered = BTree::open(&self.pool, old.clustered().root(), old.clustered().index_id())?;
        let secondary = st
            .secondary
            .iter()
            .map(|s| {
                Ok(Secondary {
                    tree: BTree::open(&self.pool, s.tree.root(), s.tree.index_id())?,
                    users: Default::default(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let auto_inc = old.next_auto_increment();
        drop(st);
        let t = Arc::new(Table::new(def, clustered, secondary, auto_inc, self.txn.clone()));
        self.txn.register(&t);
        let mut tables = self.tables.write();
        tables.remove(from);
        tables.insert(to.to_string(), t);
        Ok(())
    }

    /// Finishes the renames a crash interrupted (their intent records),
    /// before the catalog is loaded.
    pub(super) fn replay_renames(&self) -> Result<()> {
        let intents =
            self.catalog.range(Bound::Included(b"R"), Bound::Excluded(b"S"), Direction::Forward).collect_all()?;
        if intents.is_empty() {
            // Nothing written: no flush to wait for (and this thread's last
            // commit LSN may belong to an engine opened before, in a test).
            return Ok(());
        }
        for (k, from) in intents {
            let to = String::from_utf8_lossy(&k[1..]).into_owned();
            let from = String::from_utf8_lossy(&from).into_owned();
            let mut v = Vec::new();
            if self.catalog.get(&catalog::table_key(&from), &mut v)? {
                let mut have = Vec::new();
                if !self.catalog.get(&catalog::table_key(&to), &mut have)? {
                    self.catalog.insert(&catalog::table_key(&to), &v)?;
                }
                self.catalog.remove(&catalog::table_key(&from))?;
            }
            self.catalog.remove(&k)?;
            tracing::warn!("finished RENAME TABLE '{from}' to '{to}', interrupted by a crash");
        }
        self.log.flush_up_to(crate::mtr::last_commit_lsn())
    }

    /// Deletes what interrupted rebuilds left and moves files to their
    /// tables' paths (see the module note). After `load_tables`.
    pub(super) fn finish_interrupted_ddl(&self) -> Result<()> {
        let mut named: Vec<(PathBuf, u32)> = Vec::new();
        let mut referenced = HashSet::new();
        for (name, t) in self.tables.read().iter() {
            named.push((table_path(&self.cfg.datadir, name), t.space_id()));
            referenced.insert(t.space_id());
        }
        for b in self.broken.read().values() {
            referenced.insert(b.page.space);
        }
        let files = self.pool.files();
        for id in files.ids() {
            if id == SYSTEM_SPACE || referenced.contains(&id) {
                continue;
            }
            let Ok(f) = files.get(id) else { continue };
            let stale_old = named.iter().any(|(p, sid)| p == &f.path && *sid != id);
            if is_rebuild_file(&f.path) || stale_old {
                tracing::warn!(
                    "removing {} (space {id}), left by an ALTER TABLE / TRUNCATE a crash interrupted",
                    f.path.display()
                );
                self.discard_space(id);
                files.remove(id)?;
            }
        }
        for (path, id) in named {
            let Ok(f) = files.get(id) else { continue };
            if f.path != path && !self.vfs.exists(&path) {
                tracing::warn!("moving {} to {} (a DDL a crash interrupted)", f.path.display(), path.display());
                files.rename(id, &path)?;
            }
        }
        Ok(())
    }
}
