//! Planning a block's joins: inner joins are flattened into groups whose
//! members are ordered greedily, each WHERE / ON term is placed where its
//! slots are first bound, and each table gets its access path from the
//! terms placed on it (an index lookup keyed by the tables before it when
//! one helps, else a hash table over its rows when an equality joins it,
//! else a rescan).
//!
//! The order is chosen by estimated cost (`cost.rs`, from the tables'
//! statistics): every order of a group of up to six members, greedily
//! beyond; ties keep the order written. STRAIGHT_JOIN keeps the order
//! written.
//! Outer joins are not reordered across: a LEFT join is one member of its
//! group, its two sides planned as groups of their own (the right side
//! with the left side's slots bound, so its ON terms key its lookups) —
//! unless a term of the group rejects its NULL-extended rows, in which
//! case it is an inner join (`simplify_outer`). ON clauses are split
//! into their AND terms. A semi- or anti-join member runs by index
//! lookups, by a hash table, or as the subquery term it came from,
//! whichever `semicost.rs` estimates cheapest.

mod semicost;

use crate::optimizer_switch::Switch;
use quire_engine::row::Collation;

use super::bind::{Level, Tree};
use super::{JoinKind, Node, Source, SourceKind};
use crate::cost;
use crate::expr::{BinOp, Expr, SubKind};
use crate::plan::{and_terms, choose_access_at, constant_with, infer, Access, ColTypes, MetaType};

/// Adds the slots `e` reads to `out` (a subquery's through its captures).
pub(super) fn slots(e: &Expr, out: &mut Vec<usize>) {
    match e {
        Expr::Col(i) => out.push(*i),
        Expr::Lit(_) | Expr::Param(_) | Expr::Agg(_) | Expr::Window(_) | Expr::SysVar { .. } | Expr::Outer(_) => {}
        Expr::Bin(_, l, r) => {
            slots(l, out);
            slots(r, out);
        }
        Expr::Chain(first, steps) => {
            slots(first, out);
            for s in steps {
                slots(&s.rhs, out);
            }
        }
        Expr::Not(x) | Expr::Neg(x) | Expr::IsNull(x, _) | Expr::Collate(_, x) => slots(x, out),
        Expr::Between { expr, low, high, .. } => {
            slots(expr, out);
            slots(low, out);
            slots(high, out);
        }
        Expr::InList { expr, list, .. } => {
            slots(expr, out);
            list.iter().for_each(|x| slots(x, out));
        }
        Expr::Like { expr, pattern, .. } => {
            slots(expr, out);
            slots(pattern, out);
        }
        Expr::Case { operand, whens, otherwise } => {
            operand.iter().for_each(|x| slots(x, out));
            for (w, t) in whens {
                slots(w, out);
                slots(t, out);
            }
            otherwise.iter().for_each(|x| slots(x, out));
        }
        Expr::Func(_, args) => args.iter().for_each(|x| slots(x, out)),
        Expr::Subquery(s) => {
            s.query.captures.iter().for_each(|x| slots(x, out));
            match &s.kind {
                SubKind::In(lhs) => lhs.iter().for_each(|x| slots(x, out)),
                SubKind::Quantified { lhs, .. } => slots(lhs, out),
                SubKind::Scalar | SubKind::Exists => {}
            }
        }
    }
}

fn slots_of(e: &Expr) -> Vec<usize> {
    let mut v = Vec::new();
    slots(e, &mut v);
    v
}

/// Slots of a set of bound columns.
#[derive(Clone)]
struct SlotSet(Vec<bool>);

impl SlotSet {
    fn has(&self, i: usize) -> bool {
        self.0.get(i).copied().unwrap_or(false)
    }
    fn covers(&self, e: &Expr) -> bool {
        slots_of(e).into_iter().all(|i| self.has(i))
    }
    fn add(&mut self, other: &SlotSet) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= *b;
        }
    }
}

/// Places `terms` (the WHERE clause's AND terms) in the block's join tree;
/// returns the tree and the terms left for the block (all of them when it
/// has no FROM clause).
pub(super) fn plan(
    sources: &mut [Source],
    tree: Option<Tree>,
    terms: Vec<Expr>,
    level: &Level,
    colls: &[Collation],
    switch: Switch,
) -> (Option<Node>, Vec<Expr>) {
    let Some(tree) = tree else { return (None, terms) };
    let mut p = Planner { sources, level, colls, switch };
    let none = SlotSet(vec![false; colls.len()]);
    (Some(p.group(tree, terms, &none)), Vec::new())
}

struct Planner<'s, 'l> {
    sources: &'s mut [Source],
    level: &'l Level,
    colls: &'l [Collation],
    /// `optimizer_switch`'s flags that choose strategies.
    switch: Switch,
}

/// A member of an inner-join group: a source, or an outer join.
struct Unit {
    tree: Tree,
    slots: SlotSet,
    /// Slots outside the unit its ON terms read (bound before it).
    needs: SlotSet,
}

impl Planner<'_, '_> {
    fn tree_slots(&self, t: &Tree, set: &mut SlotSet) {
        match t {
            Tree::Leaf(i) => {
                let s = &self.sources[*i];
                for k in s.offset..s.offset + s.width {
                    set.0[k] = true;
                }
            }
            Tree::Join { left, right, .. } => {
                self.tree_slots(left, set);
                self.tree_slots(right, set);
            }
            Tree::Semi { inner, .. } => self.tree_slots(inner, set),
        }
    }

    /// The slots the ON terms of `t` read, and those its table
    /// functions' documents read (a unit waits for both).
    fn on_slots(&self, t: &Tree, out: &mut Vec<usize>) {
        match t {
            Tree::Leaf(i) => {
                if let SourceKind::JsonTable(f) = &self.sources[*i].kind {
                    out.extend(f.reads());
                }
            }
            Tree::Join { left, right, on, .. } => {
                on.iter().for_each(|x| slots(x, out));
                self.on_slots(left, out);
                self.on_slots(right, out);
            }
            Tree::Semi { inner, on, .. } => {
                on.iter().for_each(|x| slots(x, out));
                self.on_slots(inner, out);
            }
        }
    }

    /// An ON clause's AND terms, each placed on its own (as WHERE's are).
    fn on_terms(&self, on: Vec<Expr>) -> Vec<Expr> {
        // Their collations were derived with the block's (`select::bind_on`).
        on.into_iter().flat_map(|x| and_terms(&x).into_iter().cloned().collect::<Vec<_>>()).collect()
    }

    fn empty(&self) -> SlotSet {
        SlotSet(vec![false; self.colls.len()])
    }

    /// Splits the inner joins of `t` into units, their ON terms into
    /// `pool`; true when one of them is a STRAIGHT_JOIN.
    fn flatten(&self, t: Tree, units: &mut Vec<Unit>, pool: &mut Vec<Expr>) -> bool {
        match t {
            Tree::Join { kind: JoinKind::Inner, left, right, on, straight } => {
                pool.extend(self.on_terms(on));
                let l = self.flatten(*left, units, pool);
                let r = self.flatten(*right, units, pool);
                straight || l || r
            }
            t => {
                let mut set = self.empty();
                self.tree_slots(&t, &mut set);
                let mut reads = Vec::new();
                self.on_slots(&t, &mut reads);
                let mut needs = self.empty();
                for i in reads.into_iter().filter(|&i| !set.has(i)) {
                    needs.0[i] = true;
                }
                units.push(Unit { tree: t, slots: set, needs });
                false
            }
        }
    }

    /// Plans an inner-join group: `bound` are the slots bound around it.
    fn group(&mut self, tree: Tree, pool: Vec<Expr>, bound: &SlotSet) -> Node {
        let mut pool = pool;
        let mut units = Vec::new();
        let straight = self.flatten(tree, &mut units, &mut pool);
        let straight = self.simplify_outer(&mut units, &mut pool) || straight;
        let order = if straight { (0..units.len()).collect() } else { self.order(&units, &pool, bound) };
        let mut order = self.keep_subqueries(&mut units, &mut pool, order, bound);
        // A semi-join filters the rows of the members before it: some
        // member comes first (nothing reads a semi-join's slots, so any
        // other member may).
        if let Some(p) = order.iter().position(|&u| semi_kind(&units[u]).is_none()) {
            let u = order.remove(p);
            order.insert(0, u);
        }
        let mut units: Vec<Option<Unit>> = units.into_iter().map(Some).collect();
        let mut pool: Vec<Option<Expr>> = pool.into_iter().map(Some).collect();
        let mut avail = bound.clone();
        let mut node: Option<Node> = None;
        let mut card = 1.0;
        for u in order {
            let unit = units[u].take().expect("each unit placed once");
            let semi = semi_kind(&unit);
            let mut after = avail.clone();
            after.add(&unit.slots);
            // Terms of the pool never read a semi-join's slots (its own
            // terms are in it): none is placed at one.
            let covering = if semi.is_some() { &avail } else { &after };
            let here: Vec<Expr> = pool
                .iter_mut()
                .filter(|t| t.as_ref().is_some_and(|t| covering.covers(t)))
                .filter_map(Option::take)
                .collect();
            let (_, out) = self.step(&unit, &here, &avail, card);
            let right_slots = if semi.is_some() { ranges(&unit.slots) } else { Vec::new() };
            let n = self.unit(unit, here, &avail, card);
            card = out;
            node = Some(match node {
                None => n,
                Some(prev) => Node::Join {
                    kind: semi.unwrap_or(JoinKind::Inner),
                    left: Box::new(prev),
                    right: Box::new(n),
                    right_slots,
                },
            });
            avail = after;
        }
        let node = node.expect("a group has a member");
        // Terms reading slots nothing binds cannot occur; keep them anyway.
        let rest: Vec<Expr> = pool.into_iter().flatten().collect();
        if rest.is_empty() {
            node
        } else {
            Node::Filter { input: Box::new(node), terms: rest }
        }
    }

    /// Takes out of `order` the semi- and anti-join members that cost
    /// less as the subquery they came from (`semicost.rs`), putting their
    /// terms back in `pool`, where they are placed as any term is.
    fn keep_subqueries(
        &self,
        units: &mut [Unit],
        pool: &mut Vec<Expr>,
        order: Vec<usize>,
        bound: &SlotSet,
    ) -> Vec<usize> {
        let mut avail = bound.clone();
        let mut card = 1.0;
        let mut kept = Vec::with_capacity(order.len());
        for u in order {
            let (_, out) = self.step(&units[u], pool, &avail, card);
            // The term filters as the semi-join would have.
            let card_before = std::mem::replace(&mut card, out);
            if self.semi_choice(&units[u], &avail, card_before).1 == semicost::Strategy::Subquery {
                if let Tree::Semi { sub: Some(t), .. } = &mut units[u].tree {
                    pool.push(std::mem::replace(&mut **t, Expr::Lit(quire_engine::row::Value::Null)));
                    continue;
                }
            }
            avail.add(&units[u].slots);
            kept.push(u);
        }
        kept
    }

    /// Outer-join simplification (MySQL's): a LEFT join member whose
    /// right side's rows a term of the group rejects when NULL-extended
    /// (`WHERE t2.x = 5`, `t2.x IS NOT NULL`, an inner join's ON over it)
    /// keeps only rows it would have joined anyway, so it becomes an
    /// inner join: its sides join the group as members, its ON terms the
    /// pool, and the join order is free. Repeated until none is left
    /// (a converted ON may reject another). True when a converted join
    /// held a STRAIGHT_JOIN.
    fn simplify_outer(&self, units: &mut Vec<Unit>, pool: &mut Vec<Expr>) -> bool {
        let mut straight = false;
        loop {
            let found = units.iter().position(|u| match &u.tree {
                Tree::Join { kind: JoinKind::Left, right, .. } => {
                    let mut set = self.empty();
                    self.tree_slots(right, &mut set);
                    pool.iter().any(|t| rejects_null(t, &set))
                }
                _ => false,
            });
            let Some(p) = found else { return straight };
            let Tree::Join { left, right, on, straight: s, .. } = units.remove(p).tree else {
                unreachable!("found a LEFT join")
            };
            let mut inner = Vec::new();
            let tree = Tree::Join { kind: JoinKind::Inner, left, right, on, straight: s };
            straight |= self.flatten(tree, &mut inner, pool);
            units.splice(p..p, inner);
        }
    }

    /// Plans one unit with the terms evaluable once it is joined (`card`:
    /// the rows estimated before it).
    fn unit(&mut self, unit: Unit, here: Vec<Expr>, avail: &SlotSet, card: f64) -> Node {
        match unit.tree {
            Tree::Leaf(i) => {
                self.leaf(i, here, avail, false);
                Node::Leaf(i)
            }
            Tree::Semi { inner, on, .. } => {
                debug_assert!(here.is_empty(), "no pool term reads a semi-join's slots");
                // One inner table: an index keyed by the outer row, or a
                // hash table on the equality, whichever costs less.
                if let Tree::Leaf(i) = *inner {
                    let (_, how) = self.semi_leaf(i, &on, avail, card);
                    self.leaf(i, on, avail, how == semicost::Strategy::Hash);
                    return Node::Leaf(i);
                }
                self.group(*inner, on, avail)
            }
            Tree::Join { kind: JoinKind::Left, left, right, on, .. } => {
                let mut left_slots = avail.clone();
                self.tree_slots(&left, &mut left_slots);
                // Terms over the preserved side filter it before the join.
                let (down, after): (Vec<Expr>, Vec<Expr>) = here.into_iter().partition(|t| left_slots.covers(t));
                let l = self.group(*left, down, avail);
                let on = self.on_terms(on);
                let r_bound = left_slots;
                let mut right_set = self.empty();
                self.tree_slots(&right, &mut right_set);
                let r = self.group(*right, on, &r_bound);
                let right_slots = ranges(&right_set);
                let j = Node::Join { kind: JoinKind::Left, left: Box::new(l), right: Box::new(r), right_slots };
                if after.is_empty() {
                    j
                } else {
                    Node::Filter { input: Box::new(j), terms: after }
                }
            }
            Tree::Join { .. } => unreachable!("inner joins are flattened"),
        }
    }

    /// Sets a source's access path, filter and hash keys from its terms;
    /// `prefer_hash`: a hash table on an equality with the slots bound
    /// before it rather than an index keyed by them (a semi-join's
    /// choice, `semi_costs`).
    fn leaf(&mut self, i: usize, terms: Vec<Expr>, avail: &SlotSet, prefer_hash: bool) {
        let (offset, width) = (self.sources[i].offset, self.sources[i].width);
        let own = |k: usize| k >= offset && k < offset + width;
        // `block_nested_loop=off`: no hash join (a semi-join's key set or
        // hash table is `materialization`'s, chosen in `semicost`).
        // A table function's rows depend on the row before it: never
        // read once into a hash table.
        let lateral = matches!(self.sources[i].kind, SourceKind::JsonTable(_));
        let pairs = if !lateral && (prefer_hash || self.switch.block_nested_loop) {
            self.hash_pairs(i, &terms, avail)
        } else {
            Vec::new()
        };
        let access = if prefer_hash && !pairs.is_empty() {
            self.access_for(i, &terms, &self.empty())
        } else {
            self.access_for(i, &terms, avail)
        };
        let mut access_slots = Vec::new();
        access_exprs(&access, &mut |e| slots(e, &mut access_slots));
        let independent = access_slots.is_empty();
        let hash_keys = if independent { pairs } else { Vec::new() };
        let local: Vec<Expr> = terms.iter().filter(|t| slots_of(t).iter().all(|&k| own(k))).cloned().collect();
        let filter: Vec<Expr> = if hash_keys.is_empty() {
            terms
        } else {
            terms.into_iter().filter(|t| !slots_of(t).iter().all(|&k| own(k))).collect()
        };
        let hash_colls = hash_keys.iter().map(|(mine, _)| crate::expr::key_collation(mine, self.colls)).collect();
        let s = &mut self.sources[i];
        s.hash_colls = hash_colls;
        s.access = access;
        s.hash_keys = hash_keys;
        s.local = local;
        s.filter = filter;
    }

    /// The equalities of `terms` between source `i` and the slots bound
    /// before it that a hash table can answer: (its side, the other).
    fn hash_pairs(&self, i: usize, terms: &[Expr], avail: &SlotSet) -> Vec<(Expr, Expr)> {
        let (offset, width) = (self.sources[i].offset, self.sources[i].width);
        let own = |k: usize| k >= offset && k < offset + width;
        let mut pairs = Vec::new();
        for t in terms {
            let Expr::Bin(BinOp::Eq, l, r) = t else { continue };
            let (ls, rs) = (slots_of(l), slots_of(r));
            let mine = |s: &[usize]| !s.is_empty() && s.iter().all(|&k| own(k));
            let before = |s: &[usize]| !s.is_empty() && s.iter().all(|&k| avail.has(k) && !own(k));
            let pair = if mine(&ls) && before(&rs) {
                ((**l).clone(), (**r).clone())
            } else if mine(&rs) && before(&ls) {
                ((**r).clone(), (**l).clone())
            } else {
                continue;
            };
            if self.hashable(&pair.0, &pair.1) {
                pairs.push(pair);
            }
        }
        pairs
    }

    /// The access path of a table source from the terms on it.
    fn access_for(&self, i: usize, terms: &[Expr], avail: &SlotSet) -> Access {
        let s = &self.sources[i];
        let SourceKind::Table(t) = &s.kind else { return Access::Full };
        // A comparison under another collation than the column's own
        // cannot key its index from another table's column.
        let usable: Vec<&Expr> = terms
            .iter()
            .filter(|t| !matches!(t, Expr::Collate(_, x) if slots_of(x).iter().any(|&k| avail.has(k))))
            .collect();
        choose_access_at(t, s.offset, &usable, &|e| constant_with(e, &|k| avail.has(k)))
    }

    /// Whether an equality may be answered through a hash table: both
    /// sides numbers, or both strings compared by one collation.
    fn hashable(&self, mine: &Expr, other: &Expr) -> bool {
        let ty = |e: &Expr| infer(e, Some(self.level as &dyn ColTypes), &[]);
        let coll = |e: &Expr| crate::expr::key_collation(e, self.colls);
        let numeric = |m: MetaType| matches!(m, MetaType::Int { .. } | MetaType::Decimal { .. });
        let string = |m: MetaType| matches!(m, MetaType::Str { .. } | MetaType::Text);
        let (a, b) = (ty(mine), ty(other));
        (numeric(a) && numeric(b)) || (string(a) && string(b) && coll(mine) == coll(other))
    }

    /// The order of a group's units (see the module's notes): every
    /// order for a few units, else greedily, by estimated cost. Only
    /// units whose ON terms' outside slots are bound may come next (an
    /// outer join stays after what it reads).
    fn order(&self, units: &[Unit], pool: &[Expr], bound: &SlotSet) -> Vec<usize> {
        if units.len() <= EXHAUSTIVE_UNITS {
            let mut best = (f64::INFINITY, Vec::new());
            let mut prefix = Vec::new();
            let mut used = vec![false; units.len()];
            self.search(units, pool, bound.clone(), 1.0, 0.0, &mut prefix, &mut used, &mut best);
            if best.1.len() == units.len() {
                return best.1;
            }
        }
        let mut avail = bound.clone();
        let mut left: Vec<usize> = (0..units.len()).collect();
        let mut order = Vec::new();
        let mut card = 1.0;
        while !left.is_empty() {
            let ready: Vec<usize> = left.iter().copied().filter(|&u| self.ready(&units[u], &avail)).collect();
            let candidates = if ready.is_empty() { vec![left[0]] } else { ready };
            let mut pick = (f64::INFINITY, candidates[0], card);
            for &u in &candidates {
                let (cost, out) = self.step(&units[u], pool, &avail, card);
                if cost < pick.0 {
                    pick = (cost, u, out);
                }
            }
            order.push(pick.1);
            card = pick.2;
            avail.add(&units[pick.1].slots);
            left.retain(|&u| u != pick.1);
        }
        order
    }

    fn ready(&self, u: &Unit, avail: &SlotSet) -> bool {
        u.needs.0.iter().enumerate().all(|(k, &n)| !n || avail.has(k))
    }

    /// Branch and bound over the orders of `units`, keeping the cheapest.
    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        units: &[Unit],
        pool: &[Expr],
        avail: SlotSet,
        card: f64,
        cost: f64,
        prefix: &mut Vec<usize>,
        used: &mut [bool],
        best: &mut (f64, Vec<usize>),
    ) {
        if cost >= best.0 {
            return;
        }
        if prefix.len() == units.len() {
            *best = (cost, prefix.clone());
            return;
        }
        let ready: Vec<usize> = (0..units.len()).filter(|&u| !used[u] && self.ready(&units[u], &avail)).collect();
        let next = if ready.is_empty() { (0..units.len()).filter(|&u| !used[u]).take(1).collect() } else { ready };
        for u in next {
            let (c, out) = self.step(&units[u], pool, &avail, card);
            let mut after = avail.clone();
            after.add(&units[u].slots);
            used[u] = true;
            prefix.push(u);
            self.search(units, pool, after, out, cost + c, prefix, used, best);
            prefix.pop();
            used[u] = false;
        }
    }

    /// The cost of joining `u` to `card` rows with `avail` bound, and the
    /// rows after it (see `cost.rs`): an index lookup per outer row, a
    /// hash table built once when an equality joins it to what is
    /// bound and no index serves, else a scan per outer row.
    fn step(&self, u: &Unit, pool: &[Expr], avail: &SlotSet, card: f64) -> (f64, f64) {
        let mut after = avail.clone();
        after.add(&u.slots);
        let terms: Vec<Expr> = pool.iter().filter(|t| after.covers(t)).cloned().collect();
        let own = |e: &Expr| {
            let s = slots_of(e);
            !s.is_empty() && s.iter().all(|&k| u.slots.has(k))
        };
        if let Tree::Semi { .. } = &u.tree {
            // A semi-join keeps some of the rows before it, each once.
            let (cost, _) = self.semi_choice(u, avail, card);
            return (cost, (card * SEMI_FILTER).max(1.0));
        }
        let (access, rows, lookup) = match u.tree {
            Tree::Leaf(i) => match &self.sources[i].kind {
                SourceKind::Table(t) => {
                    let a = self.access_for(i, &terms, avail);
                    let (r, c) = (cost::rows_per_lookup(t, &a), cost::lookup_cost(t, &a));
                    (a, r, c)
                }
                _ => (Access::Full, cost::UNKNOWN_ROWS, cost::UNKNOWN_ROWS),
            },
            _ => (Access::Full, cost::UNKNOWN_ROWS, cost::UNKNOWN_ROWS),
        };
        // Terms on this unit alone that no index applied filter its rows.
        let mut filtered = rows;
        if matches!(access, Access::Full) {
            for t in terms.iter().filter(|t| own(t)) {
                filtered *= cost::filter_factor(t);
            }
        }
        let joins_bound = terms.iter().any(|t| {
            let Expr::Bin(BinOp::Eq, l, r) = t else { return false };
            let (ls, rs) = (slots_of(l), slots_of(r));
            let mine = |s: &[usize]| !s.is_empty() && s.iter().all(|&k| u.slots.has(k));
            let before = |s: &[usize]| !s.is_empty() && s.iter().all(|&k| avail.has(k));
            (mine(&ls) && before(&rs)) || (mine(&rs) && before(&ls))
        });
        let lateral = matches!(u.tree, Tree::Leaf(i) if matches!(self.sources[i].kind, SourceKind::JsonTable(_)));
        if matches!(access, Access::Full) && joins_bound && self.switch.block_nested_loop && !lateral {
            // A hash table: built once, probed per outer row.
            let matches = (filtered * cost::FILTER_EQUALITY).max(1.0);
            return (rows + card, card * matches);
        }
        (card * lookup, (card * filtered).max(1.0))
    }
}

/// Whether term `t` is never true when every slot of `set` is NULL (it
/// then rejects the rows an outer join NULL-extends over `set`).
/// Conservative: only comparisons, IS NOT NULL, BETWEEN, IN lists and
/// LIKE over expressions NULL whenever their operands are, and AND / OR
/// of such terms.
fn rejects_null(t: &Expr, set: &SlotSet) -> bool {
    match t {
        Expr::Bin(BinOp::And, l, r) => rejects_null(l, set) || rejects_null(r, set),
        Expr::Bin(BinOp::Or, l, r) => rejects_null(l, set) && rejects_null(r, set),
        Expr::Chain(first, steps) if steps.iter().all(|s| s.op == BinOp::And) => {
            rejects_null(first, set) || steps.iter().any(|s| rejects_null(&s.rhs, set))
        }
        Expr::Collate(_, x) => rejects_null(x, set),
        Expr::IsNull(x, true) => null_if_null(x, set),
        Expr::Between { expr, low, high, negated } => {
            null_if_null(expr, set) || (!negated && (null_if_null(low, set) || null_if_null(high, set)))
        }
        Expr::InList { expr, .. } => null_if_null(expr, set),
        Expr::Like { expr, pattern, .. } => null_if_null(expr, set) || null_if_null(pattern, set),
        other => null_if_null(other, set),
    }
}

/// Whether `e` is NULL whenever every slot of `set` is: a column of
/// `set`, or an arithmetic operator, comparison (not `<=>`), XOR, NOT or
/// minus over such an expression.
fn null_if_null(e: &Expr, set: &SlotSet) -> bool {
    match e {
        Expr::Col(i) => set.has(*i),
        Expr::Bin(BinOp::And | BinOp::Or | BinOp::NullSafeEq, ..) => false,
        Expr::Bin(_, l, r) => null_if_null(l, set) || null_if_null(r, set),
        Expr::Not(x) | Expr::Neg(x) | Expr::Collate(_, x) => null_if_null(x, set),
        _ => false,
    }
}

/// The share of rows a semi- or anti-join is assumed to keep.
const SEMI_FILTER: f64 = 0.5;

/// A semi- or anti-join member's join kind.
fn semi_kind(u: &Unit) -> Option<JoinKind> {
    match u.tree {
        Tree::Semi { anti: false, .. } => Some(JoinKind::Semi),
        Tree::Semi { anti: true, .. } => Some(JoinKind::Anti),
        _ => None,
    }
}

/// Units up to which every join order is considered (6! orders).
const EXHAUSTIVE_UNITS: usize = 6;

/// The expressions an access path evaluates.
fn access_exprs(a: &Access, f: &mut dyn FnMut(&Expr)) {
    use std::ops::Bound;
    match a {
        Access::Point(keys) | Access::Points { keys, .. } => keys.iter().for_each(f),
        Access::Range { lo, hi, .. } => {
            for b in [lo, hi] {
                if let Bound::Included(v) | Bound::Excluded(v) = b {
                    v.iter().for_each(&mut *f);
                }
            }
        }
        Access::Full => {}
    }
}

/// Runs of set slots as (start, end) ranges.
fn ranges(s: &SlotSet) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, &b) in s.0.iter().chain(std::iter::once(&false)).enumerate() {
        match (b, start) {
            (true, None) => start = Some(i),
            (false, Some(st)) => {
                out.push((st, i));
                start = None;
            }
            _ => {}
        }
    }
    out
}
