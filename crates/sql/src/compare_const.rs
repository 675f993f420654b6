//! Constants compared with a YEAR, ENUM or SET column, converted at plan
//! time to the column's own values (MariaDB's `convert_const_to_int` for
//! YEAR; for ENUM / SET, what lets an index on the column serve a
//! comparison with text).
//!
//! Runs once per compiled statement, before `expr::with_collations`, over
//! the comparisons whose one side is such a column and whose other side
//! is a constant (literals, `?` markers, expressions of them; never a
//! column nor a correlated outer value). A literal is converted on the
//! spot; any other constant is wrapped in an internal function
//! ([`YEAR_CONST`], [`MEMBER_CONST`]) that converts its value once per
//! evaluation, so a cached plan converts each execution's parameters. The
//! names hold a space, so no SQL text can call them.
//!
//! YEAR (`=`, `<>`, `<`, `<=`, `>`, `>=`, `<=>`, BETWEEN, IN; the column
//! on either side): the constant is stored as the column would store it
//! (`y > 50` is `y > 2050`, `y IN (0, '0')` is `y IN (0, 2000)`); when
//! storing would fail (out of range, a negative or no number) it stays as
//! it is. MariaDB 10.11's rules, checked against it:
//!
//! | constant | becomes |
//! |---|---|
//! | integer 0, 1..=69, 70..=99, 1901..=2155 | 0000, 2001..=2069, 1970..=1999, itself |
//! | DECIMAL | rounded half away from zero, then as an integer (negative: kept) |
//! | DOUBLE | in 0..=2155: truncated, then as an integer |
//! | text | its leading number rounded; `'0'`/`'00'`/`'0.0'` 2000, only four characters of zero 0000 |
//! | DATE / DATETIME | its year |
//!
//! ENUM / SET (`=`, `<=>`, IN): text naming a member under the column's
//! collation becomes that member's value (an ENUM's index, the SET
//! bitmap whose text it is), and text equal to `''` the value 0; the
//! comparison then goes by number, which is the index's order. This
//! changes no answer: members are distinct under the collation (1291),
//! so text equal to a member's text is that member. Other text (`'zz'`,
//! a SET's members out of order) stays text and is compared as text.
//! Numbers are left alone: they already compare by number.
//!
//! Invariant: a rewritten comparison gives the answer MariaDB gives for
//! every row; only the form of the constant changes. Tables without
//! such columns are not looked at (the OLTP hot path pays nothing).

use quire_engine::row::collation::{self, ALL};
use quire_engine::row::{year, Choice, Collation, ColumnType, Members, Value};

use crate::expr::{BinOp, Expr};

/// The internal function converting a constant for a YEAR column.
pub const YEAR_CONST: &str = "year constant";
/// The internal function converting a constant for an ENUM / SET column:
/// `(a value of the list, the collation's id, the constant)`.
pub const MEMBER_CONST: &str = "member constant";

/// Whether a table with these column types has comparisons to rewrite.
pub fn wanted(mut types: impl Iterator<Item = ColumnType>) -> bool {
    types.any(|t| {
        matches!(t, ColumnType::Year | ColumnType::Enum { .. } | ColumnType::Set { .. } | ColumnType::Bit { .. })
    })
}

/// [`rewrite`] over the columns of the single table `t`.
pub fn for_table(e: Expr, t: &crate::plan::TableRef, colls: &[Collation]) -> Expr {
    let cols = &t.schema.columns;
    if !wanted(cols.iter().map(|c| c.ty)) && !cols.iter().any(|c| crate::number_text::wanted(c.ty, c.zerofill)) {
        return e;
    }
    let types: Vec<Option<ColumnType>> = cols.iter().map(|c| Some(c.ty)).collect();
    let zerofill: Vec<Option<u8>> = cols.iter().map(|c| c.zerofill).collect();
    rewrite(e, &types, colls, &zerofill)
}

/// Rewrites the comparisons of `e` between a YEAR / ENUM / SET column
/// (slot types `types`, collations `colls`) and a constant, after reading
/// the YEAR / BIT columns that string functions and LIKE take as text
/// (`yearbit::as_text`; `zerofill` the slots' ZEROFILL widths).
pub fn rewrite(e: Expr, types: &[Option<ColumnType>], colls: &[Collation], zerofill: &[Option<u8>]) -> Expr {
    // YEAR / BIT / ZEROFILL / FLOAT columns read as text first
    // (`yearbit::as_text`, which returns at once when there are none).
    let e = crate::yearbit::as_text(e, types, zerofill);
    if !wanted(types.iter().flatten().copied()) {
        return e;
    }
    let slot = |x: &Expr| match x {
        Expr::Col(i) => {
            types.get(*i).copied().flatten().map(|t| (t, colls.get(*i).copied().unwrap_or(Collation::Utf8mb4GeneralCi)))
        }
        _ => None,
    };
    let mut f = |x: &Expr| -> Option<crate::error::Result<Expr>> {
        match x {
            // An explicit COLLATE decides text comparisons itself.
            Expr::Collate(..) => Some(Ok(x.clone())),
            Expr::Bin(op, l, r) if is_comparison(*op) => {
                let (l2, r2) = match (slot(l), slot(r)) {
                    (Some(c), None) if constant(r) => ((**l).clone(), convert(c, *op, (**r).clone())?),
                    (None, Some(c)) if constant(l) => (convert(c, *op, (**l).clone())?, (**r).clone()),
                    _ => return None,
                };
                Some(Ok(Expr::Bin(*op, Box::new(l2), Box::new(r2))))
            }
            Expr::Between { expr, low, high, negated } => {
                let c @ (ColumnType::Year, _) = slot(expr)? else { return None };
                let bound = |b: &Expr| {
                    if constant(b) {
                        convert(c, BinOp::Ge, b.clone()).unwrap_or_else(|| b.clone())
                    } else {
                        b.clone()
                    }
                };
                Some(Ok(Expr::Between {
                    expr: expr.clone(),
                    low: Box::new(bound(low)),
                    high: Box::new(bound(high)),
                    negated: *negated,
                }))
            }
            Expr::InList { expr, list, negated, .. } => {
                let c = slot(expr)?;
                let list: Vec<Expr> = list
                    .iter()
                    .map(|x| if constant(x) { convert(c, BinOp::Eq, x.clone()) } else { None }.unwrap_or(x.clone()))
                    .collect();
                let set = crate::inset::InSet::new(&list).map(std::sync::Arc::new);
                Some(Ok(Expr::InList { expr: expr.clone(), list, negated: *negated, set }))
            }
            _ => None,
        }
    };
    crate::expr::map_expr(e.clone(), &mut f).unwrap_or(e)
}

fn is_comparison(op: BinOp) -> bool {
    matches!(op, BinOp::Eq | BinOp::NullSafeEq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge)
}

/// A constant for one execution, as MariaDB's `const_item()`: no column,
/// no correlated outer value, no aggregate.
fn constant(e: &Expr) -> bool {
    crate::plan::is_constant(e) && !crate::expr::any_expr(e, &|x| matches!(x, Expr::Outer(_)))
}

/// `x` converted for a column of type `ty` compared by `op` (`None`: the
/// comparison is left as it is).
fn convert((ty, coll): (ColumnType, Collation), op: BinOp, x: Expr) -> Option<Expr> {
    match ty {
        ColumnType::Year => Some(match x {
            Expr::Lit(v) => Expr::Lit(year_constant(v)),
            x => Expr::Func(YEAR_CONST.into(), vec![x]),
        }),
        ColumnType::Enum { members } | ColumnType::Set { members } if matches!(op, BinOp::Eq | BinOp::NullSafeEq) => {
            Some(match x {
                Expr::Lit(v) => Expr::Lit(member_constant(members, coll, v)),
                x => Expr::Func(
                    MEMBER_CONST.into(),
                    vec![
                        Expr::Lit(Value::Choice(Choice { n: 0, members })),
                        Expr::Lit(Value::Int(i64::from(coll.id()))),
                        x,
                    ],
                ),
            })
        }
        _ => None,
    }
}

/// The internal functions' values (`None`: `name` is not one of them).
pub fn call(name: &str, args: &[Value]) -> Option<Value> {
    match (name, args) {
        (YEAR_CONST, [v]) => Some(year_constant(v.clone())),
        (MEMBER_CONST, [Value::Choice(c), Value::Int(id), v]) => {
            let coll = ALL.into_iter().find(|c| i64::from(c.id()) == *id).unwrap_or(Collation::Utf8mb4GeneralCi);
            Some(member_constant(c.members, coll, v.clone()))
        }
        _ => None,
    }
}

/// A constant compared with a YEAR column: the year it stores as, or
/// itself when it stores as none (see the module note).
pub fn year_constant(v: Value) -> Value {
    year_of(&v).map_or(v, Value::Int)
}

fn year_of(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => year::from_number(i128::from(*i)),
        Value::UInt(u) => year::from_number(i128::from(*u)),
        Value::Decimal(d) if d.coef >= 0 => year::from_number(d.rescale(0)?.coef),
        Value::Double(f) if (0.0..=2155.0).contains(f) => year::from_number(f.trunc() as i128),
        Value::Str(s) => {
            if crate::expr::numeric_prefix_len(s.trim_start()) == 0 {
                return None;
            }
            let n = crate::expr::str_to_decimal(s)?.rescale(0)?.coef;
            if n < 0 {
                return None;
            }
            year::from_text_number(n, s.len())
        }
        Value::Date(d) => year::from_number(i128::from(d.year)),
        Value::DateTime(dt) => year::from_number(i128::from(dt.date.year)),
        // Bit and hex literals keep quire's rule (a number: MySQL 8.0's),
        // which the conversion above already gives their value.
        _ => None,
    }
}

/// A constant compared with an ENUM / SET column: the member value whose
/// text it is under `coll`, or itself (see the module note).
pub fn member_constant(members: &'static Members, coll: Collation, v: Value) -> Value {
    let text = match &v {
        Value::Str(s) => s.as_str(),
        _ => return v,
    };
    let same = |a: &str| collation::compare(coll, a, text).is_eq();
    // A member spelled `''` shares its text with the value 0 (and, in a
    // SET, with the sets adding it): such text names no single value.
    let empty_member = members.names.iter().any(|m| collation::compare(coll, m, "").is_eq());
    let n = if empty_member && (members.set || same("")) {
        None
    } else if members.set {
        match members.parse_set(coll, text) {
            (bits, true) if same(&members.text(bits)) => Some(bits),
            _ => None,
        }
    } else if same("") {
        Some(0)
    } else {
        members.names.iter().position(|m| same(m)).map(|i| i as u64 + 1)
    };
    match n {
        Some(n) => Value::Choice(Choice { n, members }),
        None => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_engine::row::Decimal;

    #[test]
    fn year_constants_convert_as_mariadb_stores_them() {
        let y = |v: Value| year_constant(v);
        assert_eq!(y(Value::Int(50)), Value::Int(2050));
        assert_eq!(y(Value::Int(70)), Value::Int(1970));
        assert_eq!(y(Value::Int(0)), Value::Int(0));
        assert_eq!(y(Value::Int(100)), Value::Int(100));
        assert_eq!(y(Value::Decimal(Decimal::new(695, 1))), Value::Int(1970));
        assert_eq!(y(Value::Decimal(Decimal::new(-4, 1))), Value::Decimal(Decimal::new(-4, 1)));
        assert_eq!(y(Value::Double(69.5)), Value::Int(2069));
        assert_eq!(y(Value::Str("0".into())), Value::Int(2000));
        assert_eq!(y(Value::Str("0000".into())), Value::Int(0));
        assert_eq!(y(Value::Str("10x".into())), Value::Int(2010));
        assert_eq!(y(Value::Str("abc".into())), Value::Str("abc".into()));
        assert_eq!(y(Value::Str("-1".into())), Value::Str("-1".into()));
    }

    #[test]
    fn member_constants_name_members_under_the_collation() {
        let m = Members::intern(false, vec!["a".into(), "b".into()]);
        let c = |s: &str| member_constant(m, Collation::Utf8mb4GeneralCi, Value::Str(s.into()));
        assert_eq!(c("B "), Value::Choice(Choice { n: 2, members: m }));
        assert_eq!(c(" "), Value::Choice(Choice { n: 0, members: m }));
        assert_eq!(c("zz"), Value::Str("zz".into()));
        let s = Members::intern(true, vec!["a".into(), "b".into()]);
        let c = |s2: &str| member_constant(s, Collation::Utf8mb4GeneralCi, Value::Str(s2.into()));
        assert_eq!(c("A,b"), Value::Choice(Choice { n: 3, members: s }));
        assert_eq!(c("b,a"), Value::Str("b,a".into()));
    }
}
