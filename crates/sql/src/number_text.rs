//! A number column read as text by a string function or LIKE (`CONCAT(c)`,
//! `LENGTH(c)`, `c LIKE '00%'`): MariaDB's `val_str` of the column, not
//! of the number it holds. That differs from the number's own text for
//!
//! - a ZEROFILL column: padded with zeros to its width (`CONCAT(c)` of an
//!   `INT(5) ZEROFILL` 42 is `00042`);
//! - a FLOAT: its 6 significant digits (`1.1`, not the double
//!   `1.100000023841858` it widens to);
//! - a `FLOAT(M,D)` / `DOUBLE(M,D)`: exactly D decimals.
//!
//! `yearbit::as_text` wraps such columns in [`NUMBER_TEXT`] at plan time,
//! where it wraps YEAR and BIT ones; anywhere else (arithmetic,
//! comparisons, sorting) they stay numbers, as in MariaDB.

use quire_engine::row::{float, ColumnType, Value};

use crate::expr::{self, Expr};

/// The internal function: `(column, zerofill width or 0, 1 for a FLOAT,
/// D or -1)`.
pub const NUMBER_TEXT: &str = "number text";

/// Whether a column of type `ty` (ZEROFILL to `zerofill`) reads as text
/// otherwise than its value prints.
pub fn wanted(ty: ColumnType, zerofill: Option<u8>) -> bool {
    zerofill.is_some() || matches!(ty, ColumnType::Float { .. } | ColumnType::Double { digits: Some(_), .. })
}

/// `col` (a column of type `ty`) wrapped to read as its text, if it needs
/// to be.
pub fn wrap(col: Expr, ty: ColumnType, zerofill: Option<u8>) -> Option<Expr> {
    if !wanted(ty, zerofill) {
        return None;
    }
    let (single, scale) = match ty {
        ColumnType::Float { digits, .. } => (true, digits.map(|d| d.1)),
        ColumnType::Double { digits, .. } => (false, digits.map(|d| d.1)),
        _ => (false, None),
    };
    let int = |n: i64| Expr::Lit(Value::Int(n));
    Some(Expr::Func(
        NUMBER_TEXT.into(),
        vec![col, int(zerofill.map_or(0, i64::from)), int(i64::from(single)), int(scale.map_or(-1, i64::from))],
    ))
}

/// `col` (a ZEROFILL column of a derived table or view) wrapped to read
/// as its text padded to `width`.
pub fn padded(col: Expr, width: u8) -> Expr {
    let int = |n: i64| Expr::Lit(Value::Int(n));
    Expr::Func(NUMBER_TEXT.into(), vec![col, int(i64::from(width)), int(0), int(-1)])
}

/// [`NUMBER_TEXT`]'s value (`None`: `name` is another function).
pub fn call(name: &str, args: &[Value]) -> Option<Value> {
    if name != NUMBER_TEXT {
        return None;
    }
    let [v, Value::Int(width), Value::Int(single), Value::Int(scale)] = args else { return None };
    let text = match v {
        Value::Null => return Some(Value::Null),
        Value::Double(f) if *scale >= 0 => float::format_fixed(*f, *scale as u8),
        Value::Double(f) if *single == 1 => float::format_float(*f as f32),
        other => expr::as_string(other),
    };
    let pad = (*width as usize).saturating_sub(text.len());
    Some(Value::Str(format!("{}{text}", "0".repeat(pad))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(v: Value, width: i64, single: i64, scale: i64) -> Value {
        call(NUMBER_TEXT, &[v, Value::Int(width), Value::Int(single), Value::Int(scale)]).unwrap()
    }

    #[test]
    fn zerofill_pads_and_floats_print_their_own_digits() {
        assert_eq!(text(Value::UInt(42), 5, 0, -1), Value::Str("00042".into()));
        assert_eq!(text(Value::UInt(12345), 3, 0, -1), Value::Str("12345".into()));
        assert_eq!(text(Value::Double(f64::from(1.1f32)), 0, 1, -1), Value::Str("1.1".into()));
        assert_eq!(text(Value::Double(4.5), 8, 0, 3), Value::Str("0004.500".into()));
        assert_eq!(text(Value::Null, 5, 0, -1), Value::Null);
    }
}
