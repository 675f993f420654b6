//! Membership in a long IN list of constants by binary search.
//!
//! `x IN (v1, ..., vn)` compares `x` with each item in turn (`expr::eval`),
//! which costs n comparisons a row. MySQL sorts a list of constants once
//! and binary-searches it; so does an [`InSet`], attached to an
//! `Expr::InList` whose items are all literals or `?` markers when it is
//! compiled. The keys of a list of literals are built with the set; those
//! of a list with `?` markers once per execution, when the markers have
//! their values ([`crate::expr::Env::in_keys`], kept in a [`Memo`]; an
//! environment without one scans the list). Literals of a statement are
//! `?` markers too when it goes through the plan cache (`normalize`).
//!
//! The search must answer exactly as the linear loop does, under MySQL's
//! comparison rules (`expr::compare`). It does so for the cases where the
//! comparison with every item is one of two kinds, decided by the probe's
//! and the item's types:
//!
//! * string against string: equal when the collation's weight strings are
//!   (`key::weights`, what `compare` compares), so the string items'
//!   weights are kept sorted, one set per collation, built on first use;
//! * anything else without a date (a number against a number or a string,
//!   a string against a number, a date against a number): equal when the
//!   two values are as exact decimals (`to_decimal`).
//!
//! Decimals are compared as fixed-point integers with 18 fractional digits.
//! A value that is not exactly such a number below 10^20 (more than 18
//! fractional digits, or too large) is not searched for: `Decimal`'s own
//! comparison with such a value could overflow and fall back to floating
//! point, which this would not reproduce. Such a probe value falls back to
//! the linear loop; such list items are compared one by one with `compare`
//! after the search. A date probed against a list with strings is scanned
//! too (a date compares with a string by parsing it, and an unparsable one
//! makes the comparison unknown), and a list holding a date has no keys.
//!
//! The answer, as the loop's: 1 on a match, otherwise NULL if the list holds
//! a NULL, otherwise 0; NULL for a NULL probe.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

use quire_engine::row::key::weights;
use quire_engine::row::{Collation, Decimal, Value};

use crate::error::{Result, SqlError};
use crate::expr::{compare, str_to_decimal, to_decimal, Env, Expr};

/// Lists shorter than this are scanned (a search gains nothing there).
pub const MIN_LEN: usize = 9;

/// Fractional digits of the fixed-point keys.
const SCALE: u8 = 18;

/// The lookup structure of an IN list of constants (`Expr::InList::set`):
/// made from that list, and only valid for it.
pub struct InSet {
    /// The keys, when the items are all literals (else built per
    /// execution).
    keys: Option<Keys>,
}

impl fmt::Debug for InSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.keys {
            Some(k) => k.fmt(f),
            None => write!(f, "InSet(per execution)"),
        }
    }
}

/// The sorted keys of a list's values.
pub struct Keys {
    has_null: bool,
    has_num: bool,
    /// The numeric items (INT, UNSIGNED, DECIMAL) as fixed-point keys,
    /// sorted.
    nums: Vec<i128>,
    /// Every non-NULL item as a fixed-point key (strings by their numeric
    /// prefix, as a number compares with a string), sorted.
    all_nums: Vec<i128>,
    /// The numeric items out of the keys' range, compared one by one.
    odd_nums: Vec<Value>,
    /// The string items whose numbers are out of the keys' range.
    odd_str_nums: Vec<Value>,
    /// The string items.
    strs: Vec<String>,
    /// Their weight strings, sorted, per collation; built on first use.
    bin: OnceLock<Vec<Vec<u8>>>,
    general_ci: OnceLock<Vec<Vec<u8>>>,
    /// The other collations' (unicode_ci, 0900_ai_ci, latin1_swedish_ci,
    /// latin1_bin), likewise.
    others: [OnceLock<Vec<Vec<u8>>>; 4],
}

impl fmt::Debug for Keys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "InSet {{ null: {}, strings: {}, numbers: {} }}", self.has_null, self.strs.len(), self.has_num)
    }
}

/// `d` as an integer count of 10^-18, if exact and below 10^38 in size.
fn fixed(d: Decimal) -> Option<i128> {
    if d.scale > SCALE {
        return None;
    }
    let k = d.coef.checked_mul(10i128.pow(u32::from(SCALE - d.scale)))?;
    (k.unsigned_abs() < 10u128.pow(38)).then_some(k)
}

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort_unstable();
    v.dedup();
    v
}

impl InSet {
    /// The set of `list`, if it is long enough and all literals of the
    /// types it handles (NULL, numbers, strings) or `?` markers.
    pub fn new(list: &[Expr]) -> Option<InSet> {
        if list.len() < MIN_LEN || !list.iter().all(|x| matches!(x, Expr::Lit(_) | Expr::Param(_))) {
            return None;
        }
        if list.iter().any(|x| matches!(x, Expr::Param(_))) {
            return Some(InSet { keys: None });
        }
        let keys = Keys::build(list.iter().map(|x| match x {
            Expr::Lit(v) => Ok(v.clone()),
            _ => Err(SqlError::internal("not a literal")),
        }))?;
        Some(InSet { keys: Some(keys) })
    }
}

/// Whether `v` is in `list` (the list `set` was made from), as far as the
/// search can tell: `Some(Some(b))` for 1 / 0, `Some(None)` for NULL,
/// `None` when the list must be scanned.
pub fn probe(set: &Arc<InSet>, v: &Value, list: &[Expr], env: &dyn Env) -> Option<Option<bool>> {
    let coll = env.collation();
    if let Some(k) = &set.keys {
        return k.probe(v, coll);
    }
    let build = || {
        Keys::build(list.iter().map(|x| match x {
            Expr::Lit(v) => Ok(v.clone()),
            Expr::Param(i) => env.param(*i),
            _ => Err(SqlError::internal("not a constant")),
        }))
    };
    env.in_keys(set, &build)?.probe(v, coll)
}

/// The keys of the IN lists with `?` markers of one execution (see
/// [`crate::expr::Env::in_keys`]).
#[derive(Default)]
pub struct Memo(RefCell<HashMap<usize, Built>>);

/// A set (kept alive, so its address stays its own) and its keys.
type Built = (Arc<InSet>, Option<Arc<Keys>>);

impl Memo {
    /// `set`'s keys, built by `build` the first time.
    pub fn get(&self, set: &Arc<InSet>, build: &dyn Fn() -> Option<Keys>) -> Option<Arc<Keys>> {
        // The set is kept with its keys, so its address names it for as
        // long as the memo lives.
        let id = Arc::as_ptr(set) as usize;
        if let Some((_, k)) = self.0.borrow().get(&id) {
            return k.clone();
        }
        let k = build().map(Arc::new);
        self.0.borrow_mut().insert(id, (set.clone(), k.clone()));
        k
    }

    /// How many lists' keys were built.
    pub fn len(&self) -> usize {
        self.0.borrow().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Keys {
    /// The keys of a list's values (`None` when one is a date or could not
    /// be had: the list is then scanned).
    pub fn build(values: impl Iterator<Item = Result<Value>>) -> Option<Keys> {
        let (mut has_null, mut has_num) = (false, false);
        let (mut nums, mut all_nums, mut odd_nums, mut odd_str_nums, mut strs) =
            (vec![], vec![], vec![], vec![], vec![]);
        for v in values {
            let v = v.ok()?;
            match v {
                Value::Null => has_null = true,
                Value::Str(s) => {
                    match str_to_decimal(&s).and_then(fixed) {
                        Some(k) => all_nums.push(k),
                        None => odd_str_nums.push(Value::Str(s.clone())),
                    }
                    strs.push(s);
                }
                Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => {
                    has_num = true;
                    match to_decimal(&v).and_then(fixed) {
                        Some(k) => {
                            nums.push(k);
                            all_nums.push(k);
                        }
                        None => odd_nums.push(v),
                    }
                }
                // Binary strings compare byte-wise: by scanning.
                Value::Date(_)
                | Value::DateTime(_)
                | Value::Double(_)
                | Value::Time(_)
                | Value::Bytes(_)
                | Value::Json(_)
                | Value::Choice(_) => return None,
            }
        }
        Some(Keys {
            has_null,
            has_num,
            nums: sorted(nums),
            all_nums: sorted(all_nums),
            odd_nums,
            odd_str_nums,
            strs,
            bin: OnceLock::new(),
            general_ci: OnceLock::new(),
            others: Default::default(),
        })
    }

    /// The string items' weights under `coll`, built once.
    fn strings(&self, coll: Collation) -> &[Vec<u8>] {
        let cell = match coll {
            Collation::Utf8mb4Bin => &self.bin,
            Collation::Utf8mb4GeneralCi => &self.general_ci,
            Collation::Utf8mb4UnicodeCi => &self.others[0],
            Collation::Utf8mb40900AiCi => &self.others[1],
            Collation::Latin1SwedishCi => &self.others[2],
            Collation::Latin1Bin => &self.others[3],
        };
        cell.get_or_init(|| {
            sorted(
                self.strs
                    .iter()
                    .map(|s| {
                        let mut w = Vec::with_capacity(s.len() * 2);
                        weights(coll, s, &mut w);
                        w
                    })
                    .collect(),
            )
        })
    }

    /// Whether `v` is among the keys, strings compared under `coll`: as
    /// [`probe`].
    pub fn probe(&self, v: &Value, coll: Collation) -> Option<Option<bool>> {
        let has_str = !self.strs.is_empty();
        // `v` as a number among `keys` and then `odd` (each compared as
        // numbers with any value but a date or a string).
        let has = |keys: &[i128], odd: &[&[Value]]| -> Option<bool> {
            let k = fixed(to_decimal(v)?)?;
            Some(
                keys.binary_search(&k).is_ok()
                    || odd.iter().flat_map(|o| o.iter()).any(|x| compare(v, x, coll) == Some(Ordering::Equal)),
            )
        };
        let hit = match v {
            Value::Null => return Some(None),
            // Compared as doubles, as times, or byte-wise: by scanning.
            // JSON compares as JSON, an ENUM / SET as text against text and a
            // number against numbers: by scanning too.
            Value::Double(_) | Value::Time(_) | Value::Bytes(_) | Value::Json(_) | Value::Choice(_) => return None,
            Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => {
                has(&self.all_nums, &[&self.odd_nums, &self.odd_str_nums])?
            }
            Value::Date(_) | Value::DateTime(_) if has_str => return None,
            Value::Date(_) | Value::DateTime(_) => has(&self.nums, &[&self.odd_nums])?,
            Value::Str(s) => {
                let by_weight = has_str && {
                    let mut w = Vec::with_capacity(s.len() * 2);
                    weights(coll, s, &mut w);
                    self.strings(coll).binary_search(&w).is_ok()
                };
                by_weight || (self.has_num && has(&self.nums, &[&self.odd_nums])?)
            }
        };
        Some(in_result(hit, self.has_null))
    }
}

/// `x IN (...)` by SQL's three-valued logic: true on a match, else unknown
/// when the list holds a NULL, else false.
pub(crate) fn in_result(hit: bool, has_null: bool) -> Option<bool> {
    if hit {
        Some(true)
    } else if has_null {
        None
    } else {
        Some(false)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use quire_engine::row::{Date, DateTime};

    use super::*;
    use crate::diag::{Condition, Mode};
    use crate::error::Result;
    use crate::expr::{eval, with_collations, Env, Scope};

    /// Strings compare by the collation; `?` markers have the values.
    struct TestEnv(Collation, Vec<Value>, Memo);

    fn test_env(coll: Collation) -> TestEnv {
        TestEnv(coll, vec![], Memo::default())
    }

    impl Env for TestEnv {
        fn param(&self, i: usize) -> Result<Value> {
            Ok(self.1[i].clone())
        }
        fn in_keys(&self, set: &Arc<InSet>, build: &dyn Fn() -> Option<Keys>) -> Option<Arc<Keys>> {
            self.2.get(set, build)
        }
        fn agg(&self, _: usize) -> Result<Value> {
            Ok(Value::Null)
        }
        fn sysvar(&self, _: &str, _: bool) -> Result<Value> {
            Ok(Value::Null)
        }
        fn func(&self, _: &str, _: &[Value]) -> Result<Value> {
            Ok(Value::Null)
        }
        fn warn(&self, _: Condition) -> Result<()> {
            Ok(())
        }
        fn mode(&self) -> Mode {
            Mode::default()
        }
        fn collation(&self) -> Collation {
            self.0
        }
    }

    /// xorshift64*: reproducible without a dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
            xs[self.below(xs.len())].clone()
        }
    }

    fn dec(coef: i128, scale: u8) -> Value {
        Value::Decimal(Decimal::new(coef, scale))
    }

    const STRINGS: &[&str] = &[
        "a",
        "A",
        "a ",
        "A  ",
        "b",
        "abc",
        "ABC",
        "abc ",
        "é",
        "É",
        "e",
        "E",
        "ß",
        "s",
        "S",
        "ss",
        "",
        " ",
        "1",
        "1abc",
        "1.0",
        "01",
        " 1",
        "1 ",
        "2",
        "2.5",
        "2.50",
        "-3",
        "1e2",
        "100",
        "abc1",
        "2020-01-02",
        "20200102",
        "2020-01-02 00:00:00",
        "9999999999999999999999",
        "0.0000000000000000001",
        "18446744073709551615",
    ];

    fn numbers() -> Vec<Value> {
        vec![
            Value::Int(0),
            Value::Int(1),
            Value::Int(-1),
            Value::Int(2),
            Value::Int(-3),
            Value::Int(100),
            Value::Int(20200102),
            Value::Int(i64::MAX),
            Value::Int(i64::MIN),
            Value::UInt(u64::MAX),
            Value::UInt(1),
            dec(10, 1),
            dec(25, 1),
            dec(250, 2),
            dec(-3000, 3),
            dec(1, 20),
            dec(10i128.pow(37), 0),
            dec(10i128.pow(37), 18),
            dec(1, 18),
        ]
    }

    fn random_string(rng: &mut Rng) -> String {
        let chars = ['a', 'A', 'b', 'B', ' ', '1', '.', 'é', 'É', 'ß'];
        (0..rng.below(4)).map(|_| rng.pick(&chars)).collect()
    }

    fn random_value(rng: &mut Rng, kind: usize) -> Value {
        match kind {
            0 => Value::Str(rng.pick(STRINGS).to_string()),
            1 => Value::Str(random_string(rng)),
            2 => rng.pick(&numbers()),
            3 => Value::Int(rng.below(7) as i64 - 3),
            4 => dec(rng.below(40) as i128 - 20, rng.below(3) as u8),
            _ => Value::Null,
        }
    }

    fn probes(rng: &mut Rng) -> Vec<Value> {
        let mut out: Vec<Value> = STRINGS.iter().map(|s| Value::Str(s.to_string())).collect();
        out.extend(numbers());
        out.push(Value::Null);
        out.push(Value::Date(Date { year: 2020, month: 1, day: 2 }));
        out.push(Value::DateTime(DateTime {
            date: Date { year: 2020, month: 1, day: 2 },
            hour: 0,
            minute: 0,
            second: 0,
            micros: 0,
        }));
        for k in 0..5 {
            for _ in 0..10 {
                out.push(random_value(rng, k));
            }
        }
        out
    }

    fn in_list(list: Vec<Expr>, negated: bool, with_set: bool) -> Expr {
        let set = if with_set { InSet::new(&list).map(Arc::new) } else { None };
        Expr::InList { expr: Box::new(Expr::Col(0)), list, negated, set }
    }

    /// Random lists (strings, numbers, both, with and without NULLs) and
    /// probe values of every type: the set answers as the linear scan,
    /// under both collations, plain and negated.
    #[test]
    fn search_agrees_with_the_scan() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let (mut fast, mut total) = (0usize, 0usize);
        for round in 0..300 {
            // Which kinds of items the list draws from.
            let kinds: Vec<usize> = match round % 6 {
                0 => vec![0, 1],
                1 => vec![2, 3, 4],
                2 => vec![0, 1, 2, 3, 4],
                3 => vec![0, 1, 5],
                4 => vec![3, 4, 5],
                _ => vec![0, 1, 2, 3, 4, 5],
            };
            let len = MIN_LEN + rng.below(30);
            let list: Vec<Expr> = (0..len)
                .map(|_| {
                    let k = rng.pick(&kinds);
                    Expr::Lit(random_value(&mut rng, k))
                })
                .collect();
            let set = Keys::build(list.iter().map(|x| match x {
                Expr::Lit(v) => Ok(v.clone()),
                _ => unreachable!(),
            }))
            .expect("a list of literals has keys");
            let probes = probes(&mut rng);
            for negated in [false, true] {
                let with = in_list(list.clone(), negated, true);
                let without = in_list(list.clone(), negated, false);
                for coll in [Collation::Utf8mb4GeneralCi, Collation::Utf8mb4Bin] {
                    let env = test_env(coll);
                    for p in &probes {
                        let row = [p.clone()];
                        let a = eval(&with, &row, &env).unwrap();
                        let b = eval(&without, &row, &env).unwrap();
                        assert_eq!(a, b, "{p:?} IN {list:?} (negated: {negated}, {coll:?})");
                        total += 1;
                        fast += set.probe(p, coll).is_some() as usize;
                        // The same under a COLLATE node, as `with_collations`
                        // makes for a column of another collation.
                        let other = match coll {
                            Collation::Utf8mb4Bin => Collation::Utf8mb4GeneralCi,
                            _ => Collation::Utf8mb4Bin,
                        };
                        let a = eval(&Expr::Collate(other, Box::new(with.clone())), &row, &env).unwrap();
                        let b = eval(&Expr::Collate(other, Box::new(without.clone())), &row, &env).unwrap();
                        assert_eq!(a, b, "{p:?} IN {list:?} (negated: {negated}, COLLATE {other:?})");
                    }
                }
            }
        }
        // Most probes are answered by the search, not the scan.
        assert!(fast * 10 > total * 8, "{fast} of {total} searched");
    }

    #[test]
    fn mysql_rules_hold() {
        let ci = test_env(Collation::Utf8mb4GeneralCi);
        let bin = test_env(Collation::Utf8mb4Bin);
        let strs = |xs: &[&str]| -> Vec<Expr> { xs.iter().map(|s| Expr::Lit(Value::Str(s.to_string()))).collect() };
        let pad = ["x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8"];
        let run = |list: &[Expr], negated: bool, v: Value, env: &TestEnv| -> Value {
            let e = in_list(list.to_vec(), negated, true);
            assert!(matches!(&e, Expr::InList { set: Some(_), .. }));
            eval(&e, &[v], env).unwrap()
        };
        let mut list = strs(&pad);
        list.extend(strs(&["1abc", "ABC  ", "é"]));
        // A number against strings compares numerically: '1abc' = 1.
        assert_eq!(run(&list, false, Value::Int(1), &ci), Value::Int(1));
        assert_eq!(run(&list, false, dec(10, 1), &ci), Value::Int(1));
        assert_eq!(run(&list, false, Value::Int(2), &ci), Value::Int(0));
        // Strings by collation: case and trailing spaces.
        assert_eq!(run(&list, false, Value::Str("abc".into()), &ci), Value::Int(1));
        assert_eq!(run(&list, false, Value::Str("abc".into()), &bin), Value::Int(0));
        assert_eq!(run(&list, false, Value::Str("ABC".into()), &bin), Value::Int(1));
        assert_eq!(run(&list, false, Value::Str("E".into()), &ci), Value::Int(1));
        assert_eq!(run(&list, true, Value::Str("E".into()), &bin), Value::Int(1));
        // NULL: a NULL probe, and a NULL in the list without a match.
        assert_eq!(run(&list, false, Value::Null, &ci), Value::Null);
        list.push(Expr::Lit(Value::Null));
        assert_eq!(run(&list, false, Value::Str("zz".into()), &ci), Value::Null);
        assert_eq!(run(&list, true, Value::Str("zz".into()), &ci), Value::Null);
        assert_eq!(run(&list, false, Value::Str("abc".into()), &ci), Value::Int(1));
        assert_eq!(run(&list, true, Value::Str("abc".into()), &ci), Value::Int(0));
        // Numbers: 1.0 = 1, a string probe by its numeric prefix.
        let nums: Vec<Expr> = (1..=10).map(|i| Expr::Lit(Value::Int(i))).collect();
        assert_eq!(run(&nums, false, dec(1000, 3), &ci), Value::Int(1));
        assert_eq!(run(&nums, false, dec(1001, 3), &ci), Value::Int(0));
        assert_eq!(run(&nums, false, Value::Str("3abc".into()), &ci), Value::Int(1));
        assert_eq!(run(&nums, true, Value::Str("11".into()), &ci), Value::Int(1));
        assert_eq!(run(&nums, false, Value::UInt(7), &ci), Value::Int(1));
    }

    /// `with_collations` keeps the set and wraps the list in the column's
    /// collation, which the set then compares by.
    #[test]
    fn collations_of_columns_apply() {
        let mut list: Vec<Expr> = (0..10).map(|i| Expr::Lit(Value::Str(format!("k{i}")))).collect();
        list.push(Expr::Lit(Value::Str("Abc".into())));
        let e = with_collations(in_list(list, false, true), &[Collation::Utf8mb4Bin]);
        let Expr::Collate(Collation::Utf8mb4Bin, inner) = &e else { panic!("not wrapped: {e:?}") };
        assert!(matches!(&**inner, Expr::InList { set: Some(_), .. }));
        let env = test_env(Collation::Utf8mb4GeneralCi);
        assert_eq!(eval(&e, &[Value::Str("abc".into())], &env).unwrap(), Value::Int(0));
        assert_eq!(eval(&e, &[Value::Str("Abc  ".into())], &env).unwrap(), Value::Int(1));
    }

    /// Compiled from SQL: a long list of literals (and `?` markers) gets a
    /// set, a short one or one with a column does not, and `?` markers
    /// keep their text order.
    #[test]
    fn compile_attaches_sets() {
        let compile = |sql: &str| -> (Expr, usize) {
            let dialect = sqlparser::dialect::MySqlDialect {};
            let ast = sqlparser::parser::Parser::new(&dialect).try_with_sql(sql).unwrap().parse_expr().unwrap();
            let columns = ["s".to_string()];
            let mut scope =
                Scope { table: None, columns: &columns, aggs: None, params: 0, place: "where clause", rel: None };
            let e = crate::expr::compile(&ast, &mut scope).unwrap();
            (e, scope.params)
        };
        let long: Vec<String> = (0..20).map(|i| format!("'v{i}'")).collect();
        let (e, _) = compile(&format!("s IN ({})", long.join(",")));
        assert!(matches!(e, Expr::InList { set: Some(_), .. }));
        let (e, _) = compile("s IN ('a', 'b', 'c')");
        assert!(matches!(e, Expr::InList { set: None, .. }));
        let (e, _) = compile(&format!("s IN (s, {})", long.join(",")));
        assert!(matches!(e, Expr::InList { set: None, .. }));
        let (e, n) = compile(&format!("? IN ({}, ?)", long.join(",")));
        assert_eq!(n, 2);
        let Expr::InList { expr, list, set: Some(set), .. } = e else { panic!("{e:?}") };
        assert!(matches!(*expr, Expr::Param(0)));
        assert!(matches!(list.last(), Some(Expr::Param(1))));
        assert!(set.keys.is_none(), "keys per execution");
        let env = test_env(Collation::Utf8mb4GeneralCi);
        let (e, _) = compile(&format!("s NOT IN ({})", long.join(",")));
        assert_eq!(eval(&e, &[Value::Str("V7".into())], &env).unwrap(), Value::Int(0));
        assert_eq!(eval(&e, &[Value::Str("v77".into())], &env).unwrap(), Value::Int(1));
    }

    /// A list of `?` markers (as the plan cache makes of literals): its
    /// keys are built once per execution, from that execution's values,
    /// and answer as the scan does.
    #[test]
    fn markers_are_searched_per_execution() {
        let mut rng = Rng(42);
        for round in 0..100 {
            let len = MIN_LEN + rng.below(20);
            let list: Vec<Expr> =
                (0..len).map(|i| if i % 3 == 0 { Expr::Lit(Value::Int(7)) } else { Expr::Param(i) }).collect();
            let with = in_list(list.clone(), round % 2 == 1, true);
            let without = in_list(list.clone(), round % 2 == 1, false);
            assert!(matches!(&with, Expr::InList { set: Some(s), .. } if s.keys.is_none()));
            // Two executions of the same expression with other values.
            for _ in 0..2 {
                let kinds = [rng.below(6), rng.below(6)];
                let params: Vec<Value> = (0..len)
                    .map(|_| {
                        let k = rng.pick(&kinds);
                        random_value(&mut rng, k)
                    })
                    .collect();
                let env = TestEnv(Collation::Utf8mb4GeneralCi, params, Memo::default());
                for p in probes(&mut rng) {
                    let row = [p.clone()];
                    let a = eval(&with, &row, &env).unwrap();
                    let b = eval(&without, &row, &env).unwrap();
                    assert_eq!(a, b, "{p:?} IN {list:?} with {:?}", env.1);
                }
                assert_eq!(env.2.len(), 1);
            }
        }
        // Without a memo, the list is scanned.
        let list: Vec<Expr> = (0..10).map(Expr::Param).collect();
        let e = in_list(list, false, true);
        struct Plain(Vec<Value>);
        impl Env for Plain {
            fn param(&self, i: usize) -> Result<Value> {
                Ok(self.0[i].clone())
            }
            fn agg(&self, _: usize) -> Result<Value> {
                Ok(Value::Null)
            }
            fn sysvar(&self, _: &str, _: bool) -> Result<Value> {
                Ok(Value::Null)
            }
            fn func(&self, _: &str, _: &[Value]) -> Result<Value> {
                Ok(Value::Null)
            }
            fn warn(&self, _: Condition) -> Result<()> {
                Ok(())
            }
            fn mode(&self) -> Mode {
                Mode::default()
            }
        }
        let env = Plain((0..10).map(Value::Int).collect());
        assert_eq!(eval(&e, &[Value::Str("9".into())], &env).unwrap(), Value::Int(1));
        assert_eq!(eval(&e, &[Value::Int(10)], &env).unwrap(), Value::Int(0));
    }

    /// A 40 000-item list probed by 75 000 rows: every row is answered by
    /// the search (none falls back to the scan, which would cost 40 000
    /// comparisons), and the sorted weights are built once.
    #[test]
    fn a_long_list_is_searched_not_scanned() {
        let list: Vec<Expr> = (0..40_000).map(|i| Expr::Lit(Value::Str(format!("s{}", i * 2)))).collect();
        let Some(set) = InSet::new(&list).and_then(|s| s.keys) else { panic!("no keys") };
        let first = set.strings(Collation::Utf8mb4GeneralCi).as_ptr();
        let mut hits = 0;
        for i in 0..75_000 {
            let v = Value::Str(format!("S{i}"));
            match set.probe(&v, Collation::Utf8mb4GeneralCi) {
                Some(Some(true)) => hits += 1,
                Some(Some(false)) => {}
                other => panic!("{v:?}: {other:?}"),
            }
        }
        assert_eq!(hits, 37_500);
        assert_eq!(set.strings(Collation::Utf8mb4GeneralCi).as_ptr(), first);
        let e = in_list(list, false, true);
        let env = test_env(Collation::Utf8mb4GeneralCi);
        assert_eq!(eval(&e, &[Value::Str("s79998".into())], &env).unwrap(), Value::Int(1));
        // A number against strings: 's0' and the others are 0 as numbers.
        assert_eq!(eval(&e, &[Value::Int(0)], &env).unwrap(), Value::Int(1));
        assert_eq!(eval(&e, &[Value::Int(1)], &env).unwrap(), Value::Int(0));
    }
}
