//! Semi- and anti-joins answered by a set of keys: when the only terms a
//! hashed inner table checks against the outer row are the equalities
//! its hash keys come from, and the keys decide them (`decides`), the
//! join needs to know only whether the outer row's key occurs among the
//! inner rows' keys. The inner table is read once into the set of its
//! distinct keys (no rows), and each outer row costs one key and one
//! lookup: MySQL's semi-join materialisation (MaterializeLookup), whose
//! temporary table holds the subquery's distinct rows.
//!
//! Bounded as MySQL and MariaDB bound that temporary table in memory:
//! at most min(`tmp_table_size`, `max_heap_table_size`) bytes of keys
//! (read when the set is built). Past that the set is dropped and the
//! join runs as any hash join, its rows in chunks of `join_buffer_size`
//! (`spill.rs`): the inner table is then read a second time.
//!
//! Invariants:
//! 1. The set is built before the first outer row is read (an empty
//!    outer side still reads the inner table once, as MySQL's hash join
//!    reads its build input first), once per execution of the block.
//! 2. Keys equal exactly when the equalities hold: both sides of each
//!    pair are columns, numbers with numbers (keys normalise INT and
//!    DECIMAL) or strings of one collation (keys are its weights); a
//!    NULL key matches nothing.

use std::collections::HashSet;
use std::rc::Rc;

use quire_engine::row::Value;

use super::{passes, resolve, BlockRun, Emit, JoinNode};
use crate::cost::same_expr;
use crate::error::Result;
use crate::explain::profile::{key, Tag};
use crate::expr::{eval, BinOp, Env, Expr};
use crate::query::push_group_key;
use crate::rel::{JoinKind, Node, Source, SourceKind};

/// The distinct keys of a semi- or anti-join's inner table.
pub(super) struct KeySet {
    keys: HashSet<Vec<u8>>,
}

/// Bytes a key is counted for: its own and the set's entry.
fn key_bytes(k: &[u8]) -> usize {
    k.len() + 48
}

/// Whether the keys of hashed source `s` decide every term it checks
/// against the rows before it (invariant 2).
pub(super) fn decides(s: &Source) -> bool {
    let plain = |e: &Expr| matches!(e, Expr::Col(_));
    if s.hash_keys.is_empty() || !s.hash_keys.iter().all(|(a, b)| plain(a) && plain(b)) {
        return false;
    }
    s.filter.iter().all(|t| {
        let Expr::Bin(BinOp::Eq, l, r) = t else { return false };
        s.hash_keys.iter().any(|(a, b)| (same_expr(l, a) && same_expr(r, b)) || (same_expr(l, b) && same_expr(r, a)))
    })
}

/// The key of `row` on `exprs` (one side of each pair) into `out`;
/// false when a part is NULL.
fn key_of(
    exprs: &mut dyn Iterator<Item = &Expr>,
    colls: &[quire_engine::row::Collation],
    row: &[Value],
    env: &dyn Env,
    out: &mut Vec<u8>,
) -> Result<bool> {
    out.clear();
    for (e, &coll) in exprs.zip(colls) {
        let owned;
        let v = match e {
            Expr::Col(c) if *c < row.len() => &row[*c],
            other => {
                owned = eval(other, row, env)?;
                &owned
            }
        };
        if v.is_null() {
            return Ok(false);
        }
        push_group_key(v, coll, out);
    }
    Ok(true)
}

impl BlockRun<'_, '_> {
    /// Whether join `j`, whose right side starts with hashed source `i`,
    /// can run on the inner table's keys alone.
    pub(super) fn keys_decide(&self, j: &JoinNode<'_>, i: usize) -> bool {
        matches!(j.kind, JoinKind::Semi | JoinKind::Anti)
            && matches!(j.right, Node::Leaf(r) if *r == i)
            && decides(&self.b.sources[i])
    }

    /// Source `i`'s distinct keys, read on first use; `None` when they
    /// pass the budget (see the module's notes).
    fn key_set(&self, i: usize, buf: &mut Vec<Value>, env: &dyn Env) -> Result<Option<Rc<KeySet>>> {
        if let Some(set) = self.keysets.borrow().get(&i) {
            return Ok(Some(set.clone()));
        }
        let t0 = self.ex.profile.map(|_| std::time::Instant::now());
        let s = &self.b.sources[i];
        let budget = self.ex.subquery_cache_budget();
        let mut keys = HashSet::new();
        let mut bytes = 0usize;
        let mut over = false;
        let mut k = Vec::new();
        let mut add = |row: &[Value], buf: &mut Vec<Value>| -> Result<bool> {
            env.check_interrupt()?;
            buf[s.offset..s.offset + s.width].clone_from_slice(&row[..s.width]);
            if !passes(&s.local, buf, env)? {
                return Ok(true);
            }
            if !key_of(&mut s.hash_keys.iter().map(|(mine, _)| mine), &s.hash_colls, buf, env, &mut k)? {
                return Ok(true);
            }
            if !keys.contains(&k) {
                bytes += key_bytes(&k);
                if bytes > budget {
                    over = true;
                    return Ok(false);
                }
                keys.insert(k.clone());
            }
            Ok(true)
        };
        match &s.kind {
            SourceKind::Table(_) => {
                let keyed = resolve(s, buf, env)?;
                self.read_table_profiled(s, keyed, &mut |row| add(&row, buf))?;
            }
            SourceKind::JsonTable(_) => {
                return Err(crate::error::SqlError::internal("a table function as a semi-join's key set"))
            }
            SourceKind::Derived(_) | SourceKind::Working(_) | SourceKind::System(_) => {
                let rows = self.ex.materialised_rows(s, env)?;
                let mut probe = self.ex.profile.map(|p| p.open(key(s), Tag::Read));
                for r in rows.iter() {
                    let go = match probe.as_mut() {
                        Some(probe) => probe.emit(|| add(r, buf))?,
                        None => add(r, buf)?,
                    };
                    if !go {
                        break;
                    }
                }
                if let Some(probe) = probe {
                    probe.close();
                }
            }
        }
        if over {
            return Ok(None);
        }
        if let (Some(p), Some(t0)) = (self.ex.profile, t0) {
            p.record(key(s), Tag::Groups, keys.len() as u64, t0.elapsed(), t0.elapsed());
        }
        let set = Rc::new(KeySet { keys });
        self.keysets.borrow_mut().insert(i, set.clone());
        Ok(Some(set))
    }

    /// Join `j` (a semi- or anti-join whose right side is hashed source
    /// `i`, `keys_decide`) through the inner table's keys; `None` when
    /// they pass the budget (nothing was produced then).
    pub(super) fn key_join(
        &self,
        j: &JoinNode<'_>,
        i: usize,
        buf: &mut Vec<Value>,
        env: &dyn Env,
        k: &mut Emit<'_>,
    ) -> Result<Option<bool>> {
        let Some(set) = self.key_set(i, buf, env)? else { return Ok(None) };
        let s = &self.b.sources[i];
        let semi = j.kind == JoinKind::Semi;
        let mut kb = Vec::new();
        let profile = self.ex.profile;
        let go = self.walk(j.left, buf, env, &mut |row| {
            let hit = key_of(&mut s.hash_keys.iter().map(|(_, other)| other), &s.hash_colls, row, env, &mut kb)?
                && set.keys.contains(&kb);
            if let Some(p) = profile {
                // The inner side's rows for this outer row: its first
                // match, as a walk of it would count.
                let mut probe = p.open(key(j.right), Tag::Node);
                if hit {
                    probe.emit(|| ());
                }
                probe.close();
            }
            if hit == semi {
                k(row)
            } else {
                Ok(true)
            }
        })?;
        Ok(Some(go))
    }
}
