//! Binding one SELECT block: FROM into sources and a join tree, the select
//! list (`*` and `t.*` expanded), WHERE, GROUP BY, HAVING, ORDER BY and
//! LIMIT; then the join tree's terms are placed (`join::plan`).

use quire_engine::row::Collation;
use quire_engine::txn::lock::LockMode;
use sqlparser::ast;

use super::bind::{position, Binder, LevelKind, NamedCol, Tree};
use super::{join, merge, rollup, Block, JoinKind, Source, SourceKind};
use crate::error::{Result, SqlError};
use crate::expr::{self, any_expr, Agg, Expr};
use crate::group_check::{self, Fd, FdKind, FdSource};
use crate::plan::{and_terms, infer, ColMeta, ColTypes, MetaType};
use crate::query::display_name;

/// MySQL's limit on the tables of one join (1116 beyond).
pub(super) const MAX_JOIN_TABLES: usize = 61;

/// Where an ORDER BY / GROUP BY / HAVING name looks first.
#[derive(Clone, Copy, PartialEq, Eq)]
enum AliasFirst {
    /// ORDER BY and HAVING: a select-list alias before a column.
    Yes,
    /// GROUP BY: a column before an alias (MySQL's rule).
    No,
}

/// The select list as compiled, for ORDER BY / GROUP BY / HAVING to refer
/// to by alias or position.
struct Projection<'q> {
    items: &'q [ast::SelectItem],
    /// Where each select item's (first) expression lands in `exprs`.
    pos: Vec<usize>,
    exprs: Vec<Expr>,
}

impl Binder<'_> {
    /// Binds a SELECT block with its ORDER BY / LIMIT / locking clause.
    pub(super) fn select(
        &mut self,
        sel: &ast::Select,
        order_by: Option<&ast::OrderBy>,
        limit: Option<&ast::LimitClause>,
        lock: Option<LockMode>,
        params: &mut usize,
    ) -> Result<Block> {
        Ok(self.with_level(LevelKind::Block, |b| b.select_block(sel, order_by, limit, lock, params))?.0)
    }

    fn select_block(
        &mut self,
        sel: &ast::Select,
        order_by: Option<&ast::OrderBy>,
        limit: Option<&ast::LimitClause>,
        lock: Option<LockMode>,
        params: &mut usize,
    ) -> Result<Block> {
        crate::depth::check()?;
        crate::query::check_select_clauses(sel)?;
        self.level().takes_windows = true;
        let mut sources = Vec::new();
        let mut tree: Option<Tree> = None;
        let mut star: Vec<NamedCol> = Vec::new();
        for twj in &sel.from {
            let (t, st) = self.joins(twj, &mut sources, params)?;
            star.extend(st);
            tree = Some(match tree {
                None => t,
                Some(prev) => Tree::Join {
                    kind: JoinKind::Inner,
                    left: Box::new(prev),
                    right: Box::new(t),
                    on: Vec::new(),
                    straight: false,
                },
            });
        }
        // SELECT STRAIGHT_JOIN: every inner join of the block in the order
        // written.
        if sel.select_modifiers.as_ref().is_some_and(|m| m.straight_join) {
            if let Some(t) = tree.as_mut() {
                force_straight(t);
            }
        }
        if sources.len() > MAX_JOIN_TABLES {
            return Err(SqlError::new(
                1116,
                "HY000",
                format!("Too many tables; MySQL can only use {MAX_JOIN_TABLES} tables in a join"),
            ));
        }
        let mut aggs: Vec<Agg> = Vec::new();
        let mut proj = Projection { items: &sel.projection, pos: Vec::new(), exprs: Vec::new() };
        let mut columns: Vec<ColMeta> = Vec::new();
        for item in &sel.projection {
            proj.pos.push(proj.exprs.len());
            match item {
                ast::SelectItem::Wildcard(_) => {
                    if sources.is_empty() {
                        return Err(SqlError::new(1096, "HY000", "No tables used"));
                    }
                    for c in star.iter().filter(|c| !c.hidden) {
                        proj.exprs.push(c.expr.clone());
                        columns.push(c.meta.clone());
                    }
                }
                ast::SelectItem::QualifiedWildcard(kind, _) => {
                    let q = match kind {
                        ast::SelectItemQualifiedWildcardKind::ObjectName(n) => {
                            n.0.last().and_then(|p| p.as_ident()).map(|i| i.value.clone()).unwrap_or_default()
                        }
                        ast::SelectItemQualifiedWildcardKind::Expr(_) => {
                            return Err(SqlError::unsupported("expression.*"));
                        }
                    };
                    let Some(i) = sources.iter().position(|s| s.name.eq_ignore_ascii_case(&q)) else {
                        return Err(SqlError::new(1051, "42S02", format!("Unknown table '{q}'")));
                    };
                    let name = sources[i].name.clone();
                    for c in self.star_of(&sources, i).into_iter().filter(|c| c.qual == name) {
                        proj.exprs.push(c.expr.clone());
                        columns.push(c.meta.clone());
                    }
                }
                ast::SelectItem::UnnamedExpr(e) => {
                    let x = self.expr(e, params, "field list", Some(&mut aggs))?;
                    columns.push(self.meta_for(&x, &display_name(e)));
                    proj.exprs.push(x);
                }
                ast::SelectItem::ExprWithAlias { expr: e, alias } => {
                    let x = self.expr(e, params, "field list", Some(&mut aggs))?;
                    columns.push(self.meta_for(&x, &alias.value));
                    proj.exprs.push(x);
                }
                ast::SelectItem::ExprWithAliases { .. } => return Err(SqlError::unsupported("multiple aliases")),
            }
        }
        let filter = sel.selection.as_ref().map(|w| self.expr(w, params, "where clause", None)).transpose()?;
        let (group_by, rollup) = match &sel.group_by {
            ast::GroupByExpr::Expressions(exprs, modifiers) => {
                let rollup = match modifiers.as_slice() {
                    [] => false,
                    [ast::GroupByWithModifier::Rollup] => true,
                    _ => {
                        let m: Vec<String> = modifiers.iter().map(|m| m.to_string()).collect();
                        return Err(SqlError::unsupported(format!("GROUP BY ... {}", m.join(" "))));
                    }
                };
                let g = exprs
                    .iter()
                    .map(|e| self.named(e, &proj, params, "group statement", None, AliasFirst::No))
                    .collect::<Result<Vec<_>>>()?;
                (g, rollup)
            }
            ast::GroupByExpr::All(_) => return Err(SqlError::unsupported("GROUP BY ALL")),
        };
        // Aliases inside a larger HAVING (`HAVING cnt > 1`) first become
        // their expressions (`having_alias`); a bare one `named` resolves.
        let having = sel.having.as_ref().map(|h| {
            let level = self.levels.last().expect("the block's level");
            let is_column = |n: &str| level.cols.iter().any(|c| !c.hidden && c.name.eq_ignore_ascii_case(n));
            crate::having_alias::expand(h, proj.items, &is_column, true).unwrap_or_else(|| h.clone())
        });
        let having = having
            .as_ref()
            .map(|h| self.named(h, &proj, params, "having clause", Some(&mut aggs), AliasFirst::Yes))
            .transpose()?;
        let mut order = Vec::new();
        if let Some(ob) = order_by {
            let ast::OrderByKind::Expressions(list) = &ob.kind else {
                return Err(SqlError::unsupported("ORDER BY ALL"));
            };
            for o in list {
                let x = self.named(&o.expr, &proj, params, "order clause", Some(&mut aggs), AliasFirst::Yes)?;
                order.push((x, matches!(o.options.sort, Some(ast::OrderBySort::Desc))));
            }
        }
        let calls = std::mem::take(&mut self.level().windows);
        let mut windows = self.windows(calls, &sel.named_window, params, &mut aggs)?;
        let (limit, offset) = self.limit(limit, params)?;
        let distinct = match &sel.distinct {
            None | Some(ast::Distinct::All) => false,
            Some(ast::Distinct::Distinct) => true,
            Some(ast::Distinct::On(_)) => return Err(SqlError::unsupported("DISTINCT ON")),
        };
        let window_meta: Vec<MetaType> = {
            let level = self.levels.last().expect("the block's level");
            windows.fns.iter().map(|f| f.meta(level, &aggs)).collect()
        };
        self.level().window_meta = window_meta;
        let level = self.levels.last().expect("the block's level");
        // Aggregates and window functions are typed once all of them are
        // known.
        for (c, x) in columns.iter_mut().zip(&proj.exprs) {
            if matches!(x, Expr::Agg(_)) || holds_window(x) {
                c.ty = infer(x, Some(level as &dyn ColTypes), &aggs);
            }
            if let Expr::Window(i) = x {
                c.not_null = windows.fns[*i].not_null();
            }
        }
        // GROUPING() only where a block WITH ROLLUP evaluates grouped rows.
        let grouped_exprs = || proj.exprs.iter().chain(having.iter()).chain(order.iter().map(|(x, _)| x));
        let misplaced = filter.iter().chain(&group_by).any(rollup::holds_grouping)
            || (!rollup
                && (grouped_exprs().any(rollup::holds_grouping) || windows.exprs().any(rollup::holds_grouping)));
        if misplaced {
            return Err(rollup::misplaced_grouping());
        }
        let fd = self.block_fd(&sources, tree.as_ref(), filter.as_ref());
        if self.group_error.is_none() {
            self.group_error = group_check::check(&group_check::Grouped {
                fd: &fd,
                items: &proj.exprs,
                aggs: &aggs,
                group_by: &group_by,
                rollup,
                having: having.as_ref(),
                order: &order,
                distinct,
            });
        }
        let level = self.levels.last().expect("the block's level");
        let mut exprs = proj.exprs;
        let mut having = having;
        if rollup {
            let n = aggs.len();
            let re = |x: Expr| rollup::rewrite(x, &group_by, n);
            exprs = exprs.into_iter().map(re).collect::<Result<_>>()?;
            having = having.map(re).transpose()?;
            order = order.into_iter().map(|(x, d)| Ok((re(x)?, d))).collect::<Result<_>>()?;
            windows.map_exprs(&mut |x| re(x))?;
        }
        // WHERE and ON over the block's own slots, before semi-joins add
        // the subqueries' (`SlotBind`).
        let own = SlotBind::of(level);
        let terms: Vec<Expr> = match filter {
            Some(f) => and_terms(&own.bind(f)?).into_iter().cloned().collect(),
            None => Vec::new(),
        };
        let tree = tree.map(|t| bind_on(t, &|x| own.bind(x))).transpose()?;
        // IN / EXISTS terms become semi-joins: their tables join the
        // block's, their slots after its own. Not under FOR UPDATE /
        // FOR SHARE, which would lock the subquery's rows too.
        let (mut tree, mut terms) = (tree, terms);
        if lock.is_none() && self.resolver.switch().semijoins() {
            super::semijoin::pull_up(self.level(), &mut sources, &mut tree, &mut terms)?;
        }
        let at = self.levels.len();
        let is_subquery = at >= 2 && self.levels[at - 2].kind == LevelKind::Subquery;
        let level = self.levels.last().expect("the block's level");
        windows.set_collations(&level.slot_colls);
        let sb = SlotBind::of(level);
        let items: Vec<Expr> = exprs.into_iter().map(|x| sb.bind(x)).collect::<Result<_>>()?;
        let having = having.map(|x| sb.bind(x)).transpose()?;
        let order: Vec<(Expr, bool)> = order.into_iter().map(|(x, d)| Ok((sb.bind(x)?, d))).collect::<Result<_>>()?;
        let order_colls = order.iter().map(|(x, _)| sb.key(x)).collect();
        let group_colls = group_by.iter().map(|x| sb.key(x)).collect();
        let item_colls = items.iter().map(|x| sb.key(x)).collect();
        let agg_colls =
            aggs.iter().map(|a| a.arg.as_ref().map_or(Collation::Utf8mb4GeneralCi, |x| sb.key(x))).collect();
        crate::yearbit::group_concat_as_text(&mut aggs, &sb.types, &sb.zerofill);
        let mut items = items;
        let mut group_by = group_by;
        let mut having = having;
        let mut order = order;
        let mut order_colls = order_colls;
        // A derived table's block keeps its unplanned parts for the block
        // that reads it to merge (`merge.rs`); a block merges the derived
        // blocks it reads (those pulled in as semi-joins too).
        let level = self.levels.last_mut().expect("the block's level");
        let (mut sources, tree, terms) = merge::merge_into(
            merge::Outer {
                sources,
                tree,
                terms,
                items: &mut items,
                aggs: &mut aggs,
                group_by: &mut group_by,
                having: &mut having,
                order: &mut order,
                order_colls: &mut order_colls,
                windows: &mut windows,
                distinct,
            },
            level,
        )?;
        let under_barrier = self.levels.len() >= 2
            && self.levels[self.levels.len() - 2].kind == LevelKind::Barrier
            && self.resolver.switch().derived_merge;
        let keep = if under_barrier {
            merge::keep(
                &sources,
                tree.as_ref(),
                &terms,
                &items,
                &aggs,
                &group_by,
                having.as_ref(),
                &windows,
                distinct,
                limit.is_some() || offset.is_some(),
                lock.is_some(),
                self.levels.last().expect("the block's level"),
            )
        } else {
            None
        };
        // A subquery's block keeps its FROM and WHERE, as merged, for the
        // block around it to pull in as a semi-join (`semijoin.rs`).
        let pre = if is_subquery { tree.clone().map(|t| (t, terms.clone())) } else { None };
        let level = self.levels.last().expect("the block's level");
        let colls = level.slot_colls.clone();
        let width = colls.len();
        let (tree, filter) = join::plan(&mut sources, tree, terms, level, &colls, self.resolver.switch());
        let mut block = Block {
            sources,
            tree,
            width,
            filter,
            items,
            columns,
            aggs,
            agg_colls,
            group_by,
            group_colls,
            rollup,
            having,
            windows,
            distinct,
            item_colls,
            order,
            order_colls,
            limit,
            offset,
            lock,
            lock_wait: Default::default(),
            fd,
            merge: keep,
            pullable: None,
        };
        block.pullable = pre.and_then(|(t, terms)| super::semijoin::keep(&block, t, terms, level));
        Ok(block)
    }

    /// What the block's sources, WHERE and inner joins' ON say about
    /// which columns determine which (`group_check`).
    fn block_fd(&self, sources: &[Source], tree: Option<&Tree>, filter: Option<&Expr>) -> Fd {
        let level = self.levels.last().expect("the block's level");
        let mut fd = Fd::default();
        for (i, s) in sources.iter().enumerate() {
            let kind = match &s.kind {
                SourceKind::Table(t) => {
                    fd.table(t, s.offset, &s.name);
                    continue;
                }
                SourceKind::Derived(p) => FdKind::Derived(p.clone()),
                SourceKind::Working(_) | SourceKind::System(_) | SourceKind::JsonTable(_) => FdKind::Opaque,
            };
            let prefix = match level.view_dbs.iter().find(|(k, _)| *k == i) {
                Some((_, db)) => format!("{db}.{}", s.name),
                None => s.name.clone(),
            };
            let names = (s.offset..s.offset + s.width)
                .map(|slot| {
                    let c = level.cols.iter().find(|c| matches!(c.expr, Expr::Col(k) if k == slot));
                    format!("{prefix}.{}", c.map_or("?", |c| c.name.as_str()))
                })
                .collect();
            fd.sources.push(FdSource { offset: s.offset, width: s.width, kind, names });
        }
        if let Some(f) = filter {
            fd.add_cond(f);
        }
        fn inner_on(t: &Tree, fd: &mut Fd) {
            if let Tree::Join { kind, left, right, on, .. } = t {
                inner_on(left, fd);
                // The weak side of an outer join: its equalities do not
                // hold on the NULL-extended rows.
                if *kind == JoinKind::Inner {
                    on.iter().for_each(|x| fd.add_cond(x));
                    inner_on(right, fd);
                }
            }
        }
        if let Some(t) = tree {
            inner_on(t, &mut fd);
        }
        fd
    }

    /// Result metadata of a select item: a column's own, or a computed one.
    fn meta_for(&self, x: &Expr, name: &str) -> ColMeta {
        let level = self.levels.last().expect("the block's level");
        if let Expr::Col(k) = x {
            if let Some(c) = level.cols.iter().find(|c| matches!(c.expr, Expr::Col(j) if j == *k)) {
                let mut m = c.meta.clone();
                m.name = name.to_string();
                return m;
            }
        }
        ColMeta::expr(name, infer(x, Some(level as &dyn ColTypes), &[]))
    }

    /// 3593 for the (first) window function of `x`, a select item named
    /// by position where none may be.
    fn window_out_of_place(&mut self, x: &Expr) -> SqlError {
        let mut first = None;
        let _ = expr::map_expr(x.clone(), &mut |e| {
            if let (Expr::Window(i), None) = (e, first) {
                first = Some(*i);
            }
            None
        });
        let name = first.and_then(|i| self.level().windows.get(i)).map_or("window", |c| c.name.as_str()).to_string();
        super::window::misplaced(&name)
    }

    /// An ORDER BY / GROUP BY / HAVING expression, which may name a select
    /// item by alias or position.
    fn named(
        &mut self,
        e: &ast::Expr,
        proj: &Projection<'_>,
        params: &mut usize,
        place: &'static str,
        aggs: Option<&mut Vec<Agg>>,
        alias_first: AliasFirst,
    ) -> Result<Expr> {
        if let Some(n) = position(e) {
            let x = proj.exprs.get(n.wrapping_sub(1)).cloned();
            let x = x.ok_or_else(|| SqlError::unknown_column(&n.to_string(), place))?;
            if place != "order clause" && holds_window(&x) {
                return Err(self.window_out_of_place(&x));
            }
            return Ok(x);
        }
        if let ast::Expr::Identifier(i) = e {
            let level = self.levels.last().expect("the block's level");
            let is_column = level.cols.iter().any(|c| !c.hidden && c.name.eq_ignore_ascii_case(&i.value));
            if alias_first == AliasFirst::Yes || !is_column {
                for (k, p) in proj.items.iter().enumerate() {
                    if let ast::SelectItem::ExprWithAlias { alias, .. } = p {
                        if alias.value.eq_ignore_ascii_case(&i.value) {
                            let at = proj.pos.get(k).copied().unwrap_or(usize::MAX);
                            let x = proj.exprs.get(at).cloned();
                            let x = x.ok_or_else(|| SqlError::internal("alias out of range"))?;
                            if place != "order clause" && holds_window(&x) {
                                return Err(SqlError::new(
                                    3594,
                                    "HY000",
                                    format!("You cannot use the alias '{}' of an expression containing a window function in this context.'", alias.value),
                                ));
                            }
                            return Ok(x);
                        }
                    }
                }
            }
        }
        self.expr(e, params, place, aggs)
    }
}

/// Whether `x` holds a window function.
fn holds_window(x: &Expr) -> bool {
    any_expr(x, &|e| matches!(e, Expr::Window(_)))
}

/// Marks every inner join of `t` STRAIGHT_JOIN.
fn force_straight(t: &mut Tree) {
    if let Tree::Join { kind, left, right, straight, .. } = t {
        if *kind == JoinKind::Inner {
            *straight = true;
        }
        force_straight(left);
        force_straight(right);
    }
}

/// How a block's expressions are bound to its slots: constants compared
/// with YEAR / ENUM / SET columns are read as the column reads them
/// (`compare_const`), then collations are derived (`coercion`; 1267 here,
/// before any row is read).
struct SlotBind {
    slots: Vec<crate::coercion::Dt>,
    types: Vec<Option<quire_engine::row::ColumnType>>,
    colls: Vec<Collation>,
    /// The ZEROFILL width of each slot that is such a table column.
    zerofill: Vec<Option<u8>>,
}

impl SlotBind {
    fn of(level: &super::bind::Level) -> SlotBind {
        let colls = level.slot_colls.clone();
        let slots = level.slot_meta.iter().zip(&colls).map(|(m, c)| crate::coercion::slot_of(*m, *c)).collect();
        let mut zerofill: Vec<Option<u8>> =
            level.slot_defs.iter().map(|d| d.as_ref().and_then(|c| c.zerofill)).collect();
        zerofill.resize(level.slot_meta.len(), None);
        // A derived table's or view's ZEROFILL column: from its metadata.
        for c in &level.cols {
            if let (Expr::Col(k), Some(w)) = (&c.expr, c.meta.zerofill) {
                if let Some(z) = zerofill.get_mut(*k) {
                    z.get_or_insert(w);
                }
            }
        }
        SlotBind { slots, types: level.slot_types.clone(), colls, zerofill }
    }

    fn bind(&self, x: Expr) -> Result<Expr> {
        crate::coercion::bind(crate::compare_const::rewrite(x, &self.types, &self.colls, &self.zerofill), &self.slots)
    }

    fn key(&self, x: &Expr) -> Collation {
        crate::coercion::key_collation(x, &self.slots)
    }
}

/// The join tree with its ON conditions bound by `bind` (constants for YEAR / ENUM / SET, derived collations).
fn bind_on(t: Tree, bind: &dyn Fn(Expr) -> Result<Expr>) -> Result<Tree> {
    Ok(match t {
        Tree::Join { kind, left, right, on, straight } => Tree::Join {
            kind,
            left: Box::new(bind_on(*left, bind)?),
            right: Box::new(bind_on(*right, bind)?),
            on: on.into_iter().map(bind).collect::<Result<_>>()?,
            straight,
        },
        leaf => leaf,
    })
}
