//! Rows: column types, values, table schemas, and their encodings.
//! - [`key`]: memcomparable index keys (compare as bytes = compare as SQL).
//! - [`codec`]: the row format stored in the clustered index.

pub mod bit;
pub mod choice;
pub mod codec;
pub mod collation;
pub mod datetime;
pub mod decimal;
pub mod extras;
pub mod float;
pub mod instant;
pub mod json;
pub mod key;
pub mod time;
pub mod tz;
pub mod year;

use std::fmt;

pub use choice::{Choice, Members};
pub use datetime::{Date, DateTime};
pub use decimal::Decimal;
pub use extras::{CheckDef, GeneratedDef, TableExtras};

use crate::{Error, Result};

/// How strings compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collation {
    /// `utf8mb4_bin`: by code point, trailing spaces ignored (PAD SPACE).
    Utf8mb4Bin,
    /// `utf8mb4_general_ci`: case-insensitive (simple uppercase, Latin-1
    /// accents folded), trailing spaces ignored. The default.
    Utf8mb4GeneralCi,
    /// `utf8mb4_unicode_ci`: UCA 4.0.0 primary weights, PAD SPACE.
    Utf8mb4UnicodeCi,
    /// `utf8mb4_0900_ai_ci`: UCA 9.0.0 primary weights, NO PAD (MySQL
    /// 8.0's default).
    Utf8mb40900AiCi,
    /// `latin1_swedish_ci`: latin1 (cp1252) with MariaDB's swedish order.
    Latin1SwedishCi,
    /// `latin1_bin`: latin1 by byte, PAD SPACE.
    Latin1Bin,
}

impl Collation {
    pub fn name(self) -> &'static str {
        match self {
            Collation::Utf8mb4Bin => "utf8mb4_bin",
            Collation::Utf8mb4GeneralCi => "utf8mb4_general_ci",
            Collation::Utf8mb4UnicodeCi => "utf8mb4_unicode_ci",
            Collation::Utf8mb40900AiCi => "utf8mb4_0900_ai_ci",
            Collation::Latin1SwedishCi => "latin1_swedish_ci",
            Collation::Latin1Bin => "latin1_bin",
        }
    }

    pub fn from_name(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "utf8mb4_bin" | "utf8_bin" | "utf8mb3_bin" | "binary" => Some(Collation::Utf8mb4Bin),
            "utf8mb4_general_ci" | "utf8_general_ci" | "utf8mb3_general_ci" => Some(Collation::Utf8mb4GeneralCi),
            "utf8mb4_unicode_ci" | "utf8_unicode_ci" | "utf8mb3_unicode_ci" => Some(Collation::Utf8mb4UnicodeCi),
            "utf8mb4_0900_ai_ci" => Some(Collation::Utf8mb40900AiCi),
            "latin1_swedish_ci" => Some(Collation::Latin1SwedishCi),
            "latin1_bin" => Some(Collation::Latin1Bin),
            _ => None,
        }
    }
}

/// Column types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    TinyInt {
        unsigned: bool,
    },
    /// TINYINT(1), which BOOL and BOOLEAN are: a TINYINT in every way but
    /// its spelling, `tinyint(1)` in SHOW CREATE TABLE as MySQL 8.0 keeps
    /// that display width (and only that one) for applications that read
    /// such columns as booleans.
    TinyInt1 {
        unsigned: bool,
    },
    SmallInt {
        unsigned: bool,
    },
    MediumInt {
        unsigned: bool,
    },
    Int {
        unsigned: bool,
    },
    BigInt {
        unsigned: bool,
    },
    /// DECIMAL(p, s) [UNSIGNED]: `unsigned` refuses negative values (0
    /// and 1264 in their place, as MariaDB), nothing else.
    Decimal {
        precision: u8,
        scale: u8,
        unsigned: bool,
    },
    /// FLOAT: an IEEE single (4 bytes). `digits` is `(M, D)` of the
    /// deprecated FLOAT(M,D): values are rounded to D decimals and must
    /// have at most M - D digits before the point.
    Float {
        digits: Option<(u8, u8)>,
        unsigned: bool,
    },
    /// DOUBLE / REAL / DOUBLE PRECISION / FLOAT(p > 24): an IEEE double
    /// (8 bytes); `digits` as for [`ColumnType::Float`].
    Double {
        digits: Option<(u8, u8)>,
        unsigned: bool,
    },
    /// CHAR(n): n characters, trailing spaces removed on storage.
    Char {
        len: u32,
    },
    /// VARCHAR(n): up to n characters.
    Varchar {
        len: u32,
    },
    /// TEXT: up to 65535 bytes.
    Text,
    Date,
    DateTime {
        fsp: u8,
    },
    Timestamp {
        fsp: u8,
    },
    /// TIME(fsp): a signed duration (see [`time`]).
    Time {
        fsp: u8,
    },
    /// BINARY(n): exactly n bytes, right-padded with 0x00 on storage (as
    /// MySQL; the padding is part of the value and is shown).
    Binary {
        len: u32,
    },
    /// VARBINARY(n): up to n bytes.
    VarBinary {
        len: u32,
    },
    /// TINYBLOB / BLOB / MEDIUMBLOB / LONGBLOB: up to `max_bytes` bytes
    /// (255, 65535, 2^24 - 1, 2^32 - 1); long values go to overflow pages.
    Blob {
        max_bytes: u32,
    },
    /// JSON (MySQL 8.0's type): a document, validated when stored, kept
    /// in a compact binary form ([`json::binary`]), long ones in overflow
    /// pages as TEXT's; never part of a key.
    Json,
    /// ENUM('a', ...): one member, stored as its 1-based index (see
    /// [`choice`]); values are [`Value::Choice`].
    Enum {
        members: &'static Members,
    },
    /// SET('a', ...): any members, stored as a bitmap (see [`choice`]).
    Set {
        members: &'static Members,
    },
    /// YEAR: 1901..=2155 or 0, one byte (see [`year`]); values are
    /// [`Value::Int`].
    Year,
    /// BIT(bits), 1..=64 bits (see [`bit`]); values are [`Value::UInt`].
    Bit {
        bits: u8,
    },
}

pub const TEXT_MAX_BYTES: usize = 65_535;

/// The `max_bytes` of TINYBLOB, BLOB, MEDIUMBLOB and LONGBLOB.
pub const BLOB_SIZES: [u32; 4] = [255, 65_535, 16_777_215, u32::MAX];

impl ColumnType {
    pub fn is_integer(&self) -> bool {
        matches!(
            self,
            ColumnType::TinyInt { .. }
                | ColumnType::TinyInt1 { .. }
                | ColumnType::SmallInt { .. }
                | ColumnType::MediumInt { .. }
                | ColumnType::Int { .. }
                | ColumnType::BigInt { .. }
        )
    }

    /// FLOAT or DOUBLE.
    pub fn is_approx(&self) -> bool {
        matches!(self, ColumnType::Float { .. } | ColumnType::Double { .. })
    }

    pub fn is_string(&self) -> bool {
        matches!(self, ColumnType::Char { .. } | ColumnType::Varchar { .. } | ColumnType::Text)
    }

    /// BINARY, VARBINARY or a BLOB: its values are [`Value::Bytes`].
    pub fn is_binary(&self) -> bool {
        matches!(self, ColumnType::Binary { .. } | ColumnType::VarBinary { .. } | ColumnType::Blob { .. })
    }

    pub fn is_unsigned(&self) -> bool {
        matches!(
            self,
            ColumnType::TinyInt { unsigned: true }
                | ColumnType::TinyInt1 { unsigned: true }
                | ColumnType::SmallInt { unsigned: true }
                | ColumnType::MediumInt { unsigned: true }
                | ColumnType::Int { unsigned: true }
                | ColumnType::BigInt { unsigned: true }
        )
    }

    /// Width in bytes of an integer type.
    pub fn int_width(&self) -> usize {
        match self {
            ColumnType::TinyInt { .. } | ColumnType::TinyInt1 { .. } => 1,
            ColumnType::SmallInt { .. } => 2,
            ColumnType::MediumInt { .. } => 3,
            ColumnType::Int { .. } => 4,
            _ => 8,
        }
    }

    /// Range of an integer type as (min, max) in i128.
    pub fn int_range(&self) -> (i128, i128) {
        let bits = self.int_width() as u32 * 8;
        if self.is_unsigned() {
            (0, (1i128 << bits) - 1)
        } else {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        }
    }

    /// The SQL spelling, as SHOW CREATE TABLE prints it.
    pub fn sql(&self) -> String {
        let u = |un: bool| if un { " unsigned" } else { "" };
        match *self {
            ColumnType::TinyInt { unsigned } => format!("tinyint{}", u(unsigned)),
            ColumnType::TinyInt1 { unsigned } => format!("tinyint(1){}", u(unsigned)),
            ColumnType::SmallInt { unsigned } => format!("smallint{}", u(unsigned)),
            ColumnType::MediumInt { unsigned } => format!("mediumint{}", u(unsigned)),
            ColumnType::Int { unsigned } => format!("int{}", u(unsigned)),
            ColumnType::BigInt { unsigned } => format!("bigint{}", u(unsigned)),
            ColumnType::Decimal { precision, scale, unsigned } => {
                format!("decimal({precision},{scale}){}", u(unsigned))
            }
            ColumnType::Float { digits: None, unsigned } => format!("float{}", u(unsigned)),
            ColumnType::Float { digits: Some((m, d)), unsigned } => format!("float({m},{d}){}", u(unsigned)),
            ColumnType::Double { digits: None, unsigned } => format!("double{}", u(unsigned)),
            ColumnType::Double { digits: Some((m, d)), unsigned } => format!("double({m},{d}){}", u(unsigned)),
            ColumnType::Char { len } => format!("char({len})"),
            ColumnType::Varchar { len } => format!("varchar({len})"),
            ColumnType::Text => "text".into(),
            ColumnType::Date => "date".into(),
            ColumnType::DateTime { fsp: 0 } => "datetime".into(),
            ColumnType::DateTime { fsp } => format!("datetime({fsp})"),
            ColumnType::Timestamp { fsp: 0 } => "timestamp".into(),
            ColumnType::Timestamp { fsp } => format!("timestamp({fsp})"),
            ColumnType::Time { fsp: 0 } => "time".into(),
            ColumnType::Time { fsp } => format!("time({fsp})"),
            ColumnType::Binary { len } => format!("binary({len})"),
            ColumnType::VarBinary { len } => format!("varbinary({len})"),
            ColumnType::Blob { max_bytes } => match max_bytes {
                255 => "tinyblob".into(),
                65_535 => "blob".into(),
                16_777_215 => "mediumblob".into(),
                _ => "longblob".into(),
            },
            ColumnType::Json => "json".into(),
            ColumnType::Enum { members } | ColumnType::Set { members } => members.sql(),
            // MariaDB 10.11 prints the display width MySQL 8.0 dropped.
            ColumnType::Year => "year(4)".into(),
            ColumnType::Bit { bits } => format!("bit({bits})"),
        }
    }

    /// ENUM or SET: its values are [`Value::Choice`].
    pub fn members(&self) -> Option<&'static Members> {
        match *self {
            ColumnType::Enum { members } | ColumnType::Set { members } => Some(members),
            _ => None,
        }
    }
}

/// A value of some column.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    UInt(u64),
    Decimal(Decimal),
    /// FLOAT and DOUBLE values: finite, -0 normalised to 0 (see
    /// [`float`]).
    Double(f64),
    Str(String),
    Date(Date),
    DateTime(DateTime),
    /// A TIME: signed microseconds within ±838:59:59.999999 (see [`time`]).
    Time(i64),
    /// A binary string: BINARY / VARBINARY / BLOB values, hex and bit
    /// literals, `_binary '..'`, CAST(.. AS BINARY), and what string
    /// functions make of them. Bytes, not text: they need not be UTF-8,
    /// and they compare byte by byte.
    Bytes(Vec<u8>),
    /// A JSON value: a JSON column's, or what a JSON function or
    /// CAST(.. AS JSON) makes. Boxed so that `Value` stays its size.
    Json(Box<json::Json>),
    /// An ENUM or SET value: a number with its column's member list (see
    /// [`choice`]). Shown as its members' text, compared and sorted by
    /// the number.
    Choice(Choice),
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("NULL"),
            Value::Int(v) => write!(f, "{v}"),
            Value::UInt(v) => write!(f, "{v}"),
            Value::Decimal(d) => write!(f, "{d}"),
            Value::Double(v) => f.write_str(&float::format_double(*v)),
            Value::Str(s) => f.write_str(s),
            Value::Date(d) => write!(f, "{d}"),
            Value::DateTime(d) => f.write_str(&d.format(if d.micros == 0 { 0 } else { 6 })),
            Value::Time(us) => f.write_str(&time::format(*us, time::natural_fsp(*us))),
            // Text needs UTF-8: other bytes show as U+FFFD (the wire sends
            // the bytes themselves, see the server's `cell`).
            Value::Bytes(b) => f.write_str(&String::from_utf8_lossy(b)),
            Value::Json(j) => write!(f, "{j}"),
            Value::Choice(c) => write!(f, "{c}"),
        }
    }
}

/// The width a ZEROFILL column of type `ty` pads to when its declaration
/// gave none (`display` is the `INT(w)` width if it did, which integers
/// keep): MariaDB's and MySQL's display lengths of the unsigned types,
/// `INT(0)` is the type's width. `M` (plus the point) for DECIMAL(M,D) and FLOAT / DOUBLE (M,D), 12 for
/// FLOAT and 22 for DOUBLE. `None` for a type that takes no ZEROFILL.
pub fn zerofill_width(ty: ColumnType, display: Option<u8>) -> Option<u8> {
    Some(match ty {
        _ if display == Some(0) => return zerofill_width(ty, None),
        ColumnType::TinyInt { .. } | ColumnType::TinyInt1 { .. } => display.unwrap_or(3),
        ColumnType::SmallInt { .. } => display.unwrap_or(5),
        ColumnType::MediumInt { .. } => display.unwrap_or(8),
        ColumnType::Int { .. } => display.unwrap_or(10),
        ColumnType::BigInt { .. } => display.unwrap_or(20),
        ColumnType::Decimal { precision, scale, .. } => precision + u8::from(scale > 0),
        ColumnType::Float { digits: Some((m, _)), .. } | ColumnType::Double { digits: Some((m, _)), .. } => m,
        ColumnType::Float { digits: None, .. } => 12,
        ColumnType::Double { digits: None, .. } => 22,
        _ => return None,
    })
}

/// One column of a table.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub name: String,
    pub ty: ColumnType,
    pub nullable: bool,
    pub collation: Collation,
    /// Default value (already coerced to the type), if any.
    pub default: Option<Value>,
    pub auto_increment: bool,
    /// `DEFAULT CURRENT_TIMESTAMP[(fsp)]` (DATETIME and TIMESTAMP only; the
    /// fsp is the column's): the statement's time when no value is given.
    pub default_now: bool,
    /// `ON UPDATE CURRENT_TIMESTAMP[(fsp)]`: an UPDATE that changes the row
    /// and does not set this column sets it to the statement's time.
    pub on_update_now: bool,
    /// `Some(v)`: the column was added by an instant ADD COLUMN
    /// ([`instant`]) and rows written before it, which lack its field,
    /// read it as `v` (its default at the ADD, whatever the default is
    /// now). Such columns are always the last ones of the schema.
    pub instant_default: Option<Value>,
    /// ZEROFILL: `Some(w)` pads the column's values with leading zeros to
    /// `w` characters when they are sent as text (the display width,
    /// `INT(w)`, else the type's: see [`zerofill_width`]). Only numeric
    /// types, always UNSIGNED ones, carry it.
    pub zerofill: Option<u8>,
}

impl Column {
    pub fn new(name: &str, ty: ColumnType) -> Self {
        Self {
            name: name.to_string(),
            ty,
            nullable: true,
            collation: Collation::Utf8mb4GeneralCi,
            default: None,
            auto_increment: false,
            default_now: false,
            on_update_now: false,
            instant_default: None,
            zerofill: None,
        }
    }

    /// The type as SHOW CREATE TABLE and information_schema print it: a
    /// ZEROFILL column's with its display width on integers and
    /// `zerofill` after `unsigned` (MariaDB's and MySQL 8.0's spelling).
    pub fn sql_type(&self) -> String {
        let Some(w) = self.zerofill else { return self.ty.sql() };
        let base = match self.ty {
            ColumnType::TinyInt { .. } | ColumnType::TinyInt1 { .. } => format!("tinyint({w}) unsigned"),
            ColumnType::SmallInt { .. } => format!("smallint({w}) unsigned"),
            ColumnType::MediumInt { .. } => format!("mediumint({w}) unsigned"),
            ColumnType::Int { .. } => format!("int({w}) unsigned"),
            ColumnType::BigInt { .. } => format!("bigint({w}) unsigned"),
            other => other.sql(),
        };
        format!("{base} zerofill")
    }

    pub fn not_null(mut self) -> Self {
        self.nullable = false;
        self
    }

    pub fn auto_increment(mut self) -> Self {
        self.auto_increment = true;
        self.nullable = false;
        self
    }

    pub fn default(mut self, v: Value) -> Self {
        self.default = Some(v);
        self
    }

    pub fn collation(mut self, c: Collation) -> Self {
        self.collation = c;
        self
    }

    /// Converts `v` to this column's type, applying MySQL's strict-mode
    /// checks: NULL into NOT NULL, out-of-range numbers, strings too long,
    /// invalid dates are errors.
    pub fn coerce(&self, v: Value) -> Result<Value> {
        let col = || self.name.clone();
        if v.is_null() {
            return if self.nullable { Ok(Value::Null) } else { Err(Error::NullNotAllowed { column: col() }) };
        }
        let bad = |reason: &str| Error::BadValue { column: col(), reason: reason.to_string() };
        match self.ty {
            t if t.is_integer() => {
                let n: i128 = match v {
                    Value::Int(i) => i as i128,
                    Value::UInt(u) => u as i128,
                    Value::Decimal(d) => d.rescale(0).ok_or_else(|| Error::OutOfRange { column: col() })?.coef,
                    Value::Double(f) if f.abs() < 1.8e19 => f.round_ties_even() as i128,
                    Value::Double(_) => return Err(Error::OutOfRange { column: col() }),
                    Value::Str(s) => parse_int_str(&s).ok_or_else(|| bad("not an integer"))?,
                    _ => return Err(bad("not an integer")),
                };
                let (lo, hi) = t.int_range();
                if n < lo || n > hi {
                    return Err(Error::OutOfRange { column: col() });
                }
                Ok(if t.is_unsigned() { Value::UInt(n as u64) } else { Value::Int(n as i64) })
            }
            ColumnType::Decimal { precision, scale, .. } => {
                let d = match v {
                    Value::Int(i) => Decimal::from_i64(i),
                    Value::UInt(u) => Decimal::new(u as i128, 0),
                    Value::Decimal(d) => d,
                    Value::Double(f) => {
                        Decimal::parse(&format!("{f:e}")).ok_or_else(|| Error::OutOfRange { column: col() })?
                    }
                    Value::Str(s) => Decimal::parse(&s).ok_or_else(|| bad("not a number"))?,
                    _ => return Err(bad("not a number")),
                };
                let d = d.rescale(scale).ok_or_else(|| Error::OutOfRange { column: col() })?;
                if !d.fits(precision, scale) {
                    return Err(Error::OutOfRange { column: col() });
                }
                Ok(Value::Decimal(d))
            }
            ColumnType::Float { digits, .. } | ColumnType::Double { digits, .. } => {
                let f = match v {
                    Value::Int(i) => i as f64,
                    Value::UInt(u) => u as f64,
                    Value::Double(f) => f,
                    Value::Decimal(d) => d.to_f64(),
                    Value::Str(s) => {
                        // Only a number's characters: Rust would also read "inf" and "NaN".
                        let t = s.trim();
                        let numeric = t.bytes().all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b));
                        t.parse::<f64>().ok().filter(|_| numeric).ok_or_else(|| bad("not a number"))?
                    }
                    _ => return Err(bad("not a number")),
                };
                approx_in_range(self.ty, f, digits)
                    .ok_or_else(|| Error::OutOfRange { column: col() })
                    .map(Value::Double)
            }
            ColumnType::Char { len } | ColumnType::Varchar { len } => {
                let mut s = value_to_string(v);
                if matches!(self.ty, ColumnType::Char { .. }) {
                    s.truncate(s.trim_end_matches(' ').len());
                }
                if s.chars().count() > len as usize {
                    // Trailing spaces beyond the length are silently cut.
                    let trimmed = s.trim_end_matches(' ');
                    if trimmed.chars().count() > len as usize {
                        return Err(Error::DataTooLong { column: col() });
                    }
                    s = s.chars().take(len as usize).collect();
                }
                Ok(Value::Str(s))
            }
            ColumnType::Text => {
                let s = value_to_string(v);
                if s.len() > TEXT_MAX_BYTES {
                    return Err(Error::DataTooLong { column: col() });
                }
                Ok(Value::Str(s))
            }
            ColumnType::Date => match v {
                Value::Date(d) => Ok(Value::Date(d)),
                Value::DateTime(dt) => Ok(Value::Date(dt.date)),
                Value::Str(s) => Date::parse(&s)
                    .or_else(|| DateTime::parse(&s).map(|d| d.date))
                    .map(Value::Date)
                    .ok_or_else(|| bad("incorrect date value")),
                _ => Err(bad("incorrect date value")),
            },
            ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } => match v {
                Value::DateTime(d) => Ok(Value::DateTime(d.with_fsp(fsp))),
                Value::Date(d) => Ok(Value::DateTime(DateTime { date: d, hour: 0, minute: 0, second: 0, micros: 0 })),
                Value::Str(s) => DateTime::parse(&s)
                    .map(|d| Value::DateTime(d.with_fsp(fsp)))
                    .ok_or_else(|| bad("incorrect datetime value")),
                _ => Err(bad("incorrect datetime value")),
            },
            ColumnType::Time { fsp } => {
                let read = match v {
                    Value::Time(us) => time::TimeRead::Exact(us),
                    Value::Str(s) => time::parse(&s),
                    Value::Int(i) => time::from_number(i as i128, 0),
                    Value::UInt(u) => time::from_number(u as i128, 0),
                    Value::Decimal(d) => {
                        let micros = d.rescale(6).map(|d| d.coef).unwrap_or(0);
                        time::from_number(micros / 1_000_000, micros % 1_000_000)
                    }
                    Value::Double(f) => {
                        let micros = (f * 1e6) as i128;
                        time::from_number(micros / 1_000_000, micros % 1_000_000)
                    }
                    Value::DateTime(dt) => time::TimeRead::Exact(
                        ((dt.hour as i64 * 60 + dt.minute as i64) * 60 + dt.second as i64) * 1_000_000
                            + dt.micros as i64,
                    ),
                    _ => time::TimeRead::Invalid,
                };
                match read {
                    time::TimeRead::Exact(us) => Ok(Value::Time(time::with_fsp(us, fsp))),
                    time::TimeRead::Clipped(_) => Err(Error::OutOfRange { column: col() }),
                    time::TimeRead::Invalid => Err(bad("incorrect time value")),
                }
            }
            ColumnType::Binary { len } | ColumnType::VarBinary { len } | ColumnType::Blob { max_bytes: len } => {
                let mut b = value_to_bytes(v);
                if b.len() > len as usize {
                    return Err(Error::DataTooLong { column: col() });
                }
                if matches!(self.ty, ColumnType::Binary { .. }) {
                    b.resize(len as usize, 0);
                }
                Ok(Value::Bytes(b))
            }
            ColumnType::Json => match v {
                Value::Json(j) => Ok(Value::Json(j)),
                Value::Str(s) => {
                    json::text::parse(&s).map(|j| Value::Json(Box::new(j))).map_err(|_| bad("invalid JSON text"))
                }
                _ => Err(bad("not a JSON text")),
            },
            ColumnType::Enum { members } | ColumnType::Set { members } => {
                coerce_choice(members, self.collation, v).ok_or_else(|| bad("not a member"))
            }
            ColumnType::Year => {
                let y = match v {
                    Value::Str(s) => {
                        let n = parse_int_str(&s).ok_or_else(|| bad("not a year"))?;
                        year::from_text_number(n, s.len())
                    }
                    Value::Double(f) if f.abs() < 1e9 => year::from_number(f.round_ties_even() as i128),
                    Value::Int(i) => year::from_number(i.into()),
                    Value::UInt(u) => year::from_number(u.into()),
                    Value::Decimal(d) => d.rescale(0).and_then(|d| year::from_number(d.coef)),
                    _ => return Err(bad("not a year")),
                };
                y.map(Value::Int).ok_or_else(|| Error::OutOfRange { column: col() })
            }
            ColumnType::Bit { bits } => {
                let n = match v {
                    Value::UInt(u) => Some(u),
                    Value::Int(i) => u64::try_from(i).ok(),
                    Value::Str(s) => bit::from_bytes(s.as_bytes()),
                    Value::Bytes(b) => bit::from_bytes(&b),
                    Value::Decimal(d) => d.rescale(0).and_then(|d| u64::try_from(d.coef).ok()),
                    Value::Double(f) if (0.0..1.8e19).contains(&f) => Some(f.round_ties_even() as u64),
                    _ => None,
                };
                n.filter(|&n| n <= bit::max(bits)).map(Value::UInt).ok_or_else(|| Error::OutOfRange { column: col() })
            }
            _ => unreachable!("all column types are handled"),
        }
    }
}

/// A value as a member of `members` (strictly: `None` unless it names
/// members or is a number of them). Text names members under `coll`; a
/// number is an ENUM index or a SET bitmap; a text that names none but is
/// all digits is that number (MySQL's rule); a fraction is cut.
pub fn coerce_choice(members: &'static Members, coll: Collation, v: Value) -> Option<Value> {
    let number = |n: u64| members.holds(n).then_some(Value::Choice(Choice { n, members }));
    let text = |s: &str| -> Option<Value> {
        let found = if members.set {
            match members.parse_set(coll, s) {
                (bits, true) => Some(bits),
                _ => None,
            }
        } else {
            members.find(coll, s)
        };
        match found {
            Some(n) => Some(Value::Choice(Choice { n, members })),
            None if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => number(s.parse().ok()?),
            None => None,
        }
    };
    match v {
        Value::Choice(c) if std::ptr::eq(c.members, members) => Some(Value::Choice(c)),
        Value::Choice(c) => text(&c.text()),
        Value::Str(s) => text(&s),
        Value::Bytes(b) => text(std::str::from_utf8(&b).ok()?),
        Value::Int(i) => number(u64::try_from(i).ok()?),
        Value::UInt(u) => number(u),
        Value::Decimal(d) => number(u64::try_from(d.coef / 10i128.pow(u32::from(d.scale))).ok()?),
        Value::Double(f) if (0.0..1.8e19).contains(&f) => number(f.trunc() as u64),
        other => text(&other.to_string()),
    }
}

/// A value's bytes, as a binary column stores them (text as its UTF-8).
pub fn value_to_bytes(v: Value) -> Vec<u8> {
    match v {
        Value::Bytes(b) => b,
        Value::Str(s) => s.into_bytes(),
        other => other.to_string().into_bytes(),
    }
}

/// `f` as a value of the FLOAT or DOUBLE type `ty`: rounded to `D`
/// decimals for `(M, D)` as MySQL's `truncate_double` (the fraction
/// scaled, rounded half to even, scaled back: 1.0005 is 1.000 in a
/// DOUBLE(10,3)), and to a single for FLOAT; `None` when it is
/// out of the type's range (beyond `10^(M-D)`, a single's or a double's
/// finite range).
pub fn approx_in_range(ty: ColumnType, f: f64, digits: Option<(u8, u8)>) -> Option<f64> {
    if !f.is_finite() {
        return None;
    }
    let mut f = f;
    if let Some((m, d)) = digits {
        // MySQL's and MariaDB's `truncate_double`: the fraction is
        // rounded (half to even) apart from the integer part, so 12.345
        // (a double just above it) stores 12.35 and 2.675 (just below)
        // 2.67, where rounding `f * 100` would give 12.34 and 2.68.
        let p = 10f64.powi(i32::from(d));
        let whole = f.floor();
        let r = whole + ((f - whole) * p).round_ties_even() / p;
        f = if r.is_finite() { r } else { f };
        if f.abs() >= 10f64.powi(i32::from(m) - i32::from(d)) {
            return None;
        }
    }
    if matches!(ty, ColumnType::Float { .. }) {
        if f.abs() > f64::from(f32::MAX) {
            return None;
        }
        f = f64::from(f as f32);
    }
    Some(float::normalize(f))
}

fn parse_int_str(s: &str) -> Option<i128> {
    let t = s.trim();
    if let Ok(v) = t.parse::<i128>() {
        return Some(v);
    }
    Decimal::parse(t).and_then(|d| d.rescale(0)).map(|d| d.coef)
}

fn value_to_string(v: Value) -> String {
    match v {
        Value::Str(s) => s,
        other => other.to_string(),
    }
}

/// An index of a table.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexDef {
    pub name: String,
    /// Positions of the key columns in the table.
    pub columns: Vec<usize>,
    pub unique: bool,
    /// Prefix lengths (`KEY (a(10))`): empty when no column is cut, else
    /// one per column, 0 for a whole column; characters for a text
    /// column, bytes for a binary one. The key holds the prefix only
    /// ([`key::encode_prefix`]), so a lookup through it is a superset
    /// that the reader re-checks, and UNIQUE refuses equal prefixes.
    pub prefix: Vec<u32>,
}

impl IndexDef {
    /// The prefix length of the `i`-th key column (`None`: the whole
    /// column).
    #[inline]
    pub fn prefix_of(&self, i: usize) -> Option<u32> {
        self.prefix.get(i).copied().filter(|&n| n > 0)
    }

    /// Whether some key column is cut to a prefix.
    #[inline]
    pub fn has_prefix(&self) -> bool {
        self.prefix.iter().any(|&n| n > 0)
    }
}

/// What a foreign key does to the child rows when a parent key is
/// deleted or changed (`ON DELETE` / `ON UPDATE`). InnoDB refuses
/// `SET DEFAULT`, so there is none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FkAction {
    /// Nothing written: `RESTRICT` and the default.
    #[default]
    Restrict,
    NoAction,
    Cascade,
    SetNull,
}

impl FkAction {
    /// The stored tag (docs/FORMAT.md, "Catalog").
    pub fn tag(self) -> u8 {
        match self {
            FkAction::Restrict => 0,
            FkAction::NoAction => 1,
            FkAction::Cascade => 2,
            FkAction::SetNull => 3,
        }
    }

    pub fn from_tag(t: u8) -> Option<FkAction> {
        Some(match t {
            0 => FkAction::Restrict,
            1 => FkAction::NoAction,
            2 => FkAction::Cascade,
            3 => FkAction::SetNull,
            _ => return None,
        })
    }
}

/// A FOREIGN KEY of a (child) table, stored with the child's definition
/// as InnoDB stores it in its dictionary: the parent and its columns by
/// name, so that the parent's definition need not change when a child
/// names it. The engine only keeps it; the SQL layer enforces it.
#[derive(Clone, Debug, PartialEq)]
pub struct ForeignKeyDef {
    /// The constraint's name (`t_ibfk_1` unless given), unique per database.
    pub name: String,
    /// Positions of the child's columns.
    pub columns: Vec<usize>,
    /// The parent's engine table name (`db/table`).
    pub parent: String,
    /// The parent's columns, by name, in the order of `columns`.
    pub parent_columns: Vec<String>,
    pub on_delete: FkAction,
    pub on_update: FkAction,
}

/// The name of the hidden row id column of a table without a usable key
/// (InnoDB's system column; users may not name a column so, error 1166).
pub const ROW_ID_COLUMN: &str = "DB_ROW_ID";

/// The name InnoDB gives the clustered index of a table clustered on its
/// hidden row id (its statistics and CHECK TABLE name it so).
pub const ROW_ID_INDEX: &str = "GEN_CLUST_INDEX";

/// What the clustered index was declared as. InnoDB's rule: the PRIMARY
/// KEY; without one, the first UNIQUE key whose columns are all NOT NULL;
/// without one, a hidden row id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ClusterKey {
    /// `primary_key` is the declared PRIMARY KEY.
    #[default]
    Primary,
    /// `primary_key` is the UNIQUE key of this name (SHOW CREATE TABLE
    /// prints it as a UNIQUE KEY, duplicates name it).
    Unique(String),
    /// The last column is the hidden [`ROW_ID_COLUMN`] (BIGINT UNSIGNED
    /// NOT NULL, assigned by the engine from its persistent row id
    /// counter) and `primary_key` is `[that column]`. It is invisible to
    /// SQL: rows are given without it and come back with it last.
    RowId,
}

/// A table's schema.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableSchema {
    pub columns: Vec<Column>,
    /// Positions of the primary key columns.
    pub primary_key: Vec<usize>,
    /// Secondary indexes.
    pub indexes: Vec<IndexDef>,
    /// What `primary_key` was declared as.
    pub cluster: ClusterKey,
}

impl TableSchema {
    /// The position of a visible column (never the hidden row id).
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.visible_columns().iter().position(|c| c.name.eq_ignore_ascii_case(name))
    }

    /// Whether the rows are clustered on the hidden row id.
    #[inline]
    pub fn has_row_id(&self) -> bool {
        self.cluster == ClusterKey::RowId
    }

    /// The columns SQL sees: all of them but the hidden row id.
    pub fn visible_columns(&self) -> &[Column] {
        let n = self.columns.len() - self.has_row_id() as usize;
        &self.columns[..n]
    }

    /// The clustered index's name: `PRIMARY`, the UNIQUE key's, or
    /// [`ROW_ID_INDEX`].
    pub fn primary_name(&self) -> &str {
        match &self.cluster {
            ClusterKey::Primary => "PRIMARY",
            ClusterKey::Unique(n) => n,
            ClusterKey::RowId => ROW_ID_INDEX,
        }
    }

    /// A schema clustered on a hidden row id: `columns` (none named
    /// [`ROW_ID_COLUMN`]) and `indexes`, with the row id column appended.
    pub fn with_row_id(mut columns: Vec<Column>, indexes: Vec<IndexDef>) -> Self {
        let pos = columns.len();
        columns.push(Column::new(ROW_ID_COLUMN, ColumnType::BigInt { unsigned: true }).not_null());
        Self { columns, primary_key: vec![pos], indexes, cluster: ClusterKey::RowId }
    }

    /// Checks the schema is one quire can store.
    pub fn validate(&self, page_size: usize) -> Result<()> {
        if self.columns.is_empty() {
            return Err(Error::InvalidSchema("a table must have at least one column".into()));
        }
        if self.primary_key.is_empty() {
            return Err(Error::InvalidSchema("a primary key is required".into()));
        }
        let row_id_at = self.columns.iter().position(|c| c.name.eq_ignore_ascii_case(ROW_ID_COLUMN));
        let row_id_ok = match row_id_at {
            None => !self.has_row_id(),
            Some(p) => {
                self.has_row_id()
                    && p + 1 == self.columns.len()
                    && self.primary_key == [p]
                    && self.columns[p] == Column::new(ROW_ID_COLUMN, ColumnType::BigInt { unsigned: true }).not_null()
            }
        };
        if !row_id_ok {
            return Err(Error::InvalidSchema(format!(
                "'{ROW_ID_COLUMN}' is the hidden row id: the last column of a table clustered on it, and no other"
            )));
        }
        if let ClusterKey::Unique(n) = &self.cluster {
            if n.eq_ignore_ascii_case("PRIMARY") || self.indexes.iter().any(|i| i.name.eq_ignore_ascii_case(n)) {
                return Err(Error::InvalidSchema(format!("duplicate key name '{n}'")));
            }
        }
        let mut names = std::collections::HashSet::new();
        for c in &self.columns {
            if !names.insert(c.name.to_ascii_lowercase()) {
                return Err(Error::InvalidSchema(format!("duplicate column name '{}'", c.name)));
            }
            if let ColumnType::Float { digits: Some((m, d)), .. } | ColumnType::Double { digits: Some((m, d)), .. } =
                c.ty
            {
                if m == 0 || d > m || d > decimal::MAX_SCALE {
                    return Err(Error::InvalidSchema(format!(
                        "{} for '{}': M must be >= D and D <= 30",
                        c.ty.sql(),
                        c.name
                    )));
                }
            }
            if let ColumnType::Decimal { precision, scale, .. } = c.ty {
                if precision == 0
                    || precision > decimal::MAX_PRECISION
                    || scale > precision
                    || scale > decimal::MAX_SCALE
                {
                    return Err(Error::InvalidSchema(format!(
                        "DECIMAL({precision},{scale}) for '{}': precision must be 1..=38 and scale <= precision",
                        c.name
                    )));
                }
            }
        }
        let no_prefix: &[u32] = &[];
        let all_keys = std::iter::once((&self.primary_key, no_prefix))
            .chain(self.indexes.iter().map(|i| (&i.columns, i.prefix.as_slice())));
        for (cols, prefix) in all_keys {
            if !prefix.is_empty() && prefix.len() != cols.len() {
                return Err(Error::InvalidSchema("one prefix length per key column".into()));
            }
            for (i, &c) in cols.iter().enumerate() {
                let col = self.columns.get(c).ok_or_else(|| Error::InvalidSchema(format!("no column #{c}")))?;
                let cut = prefix.get(i).is_some_and(|&n| n > 0);
                if matches!(col.ty, ColumnType::Json) {
                    return Err(Error::InvalidSchema(format!("JSON column '{}' cannot be part of a key", col.name)));
                }
                if cut && !(col.ty.is_string() || col.ty.is_binary()) {
                    return Err(Error::InvalidSchema(format!("a prefix of non-string column '{}'", col.name)));
                }
                if !cut && matches!(col.ty, ColumnType::Text | ColumnType::Blob { .. }) {
                    return Err(Error::InvalidSchema(format!(
                        "BLOB/TEXT column '{}' used in key specification without a key length",
                        col.name
                    )));
                }
            }
        }
        for &c in &self.primary_key {
            if self.columns[c].nullable {
                return Err(Error::InvalidSchema(format!(
                    "all parts of a PRIMARY KEY must be NOT NULL ('{}')",
                    self.columns[c].name
                )));
            }
        }
        let mut inames = std::collections::HashSet::new();
        for ix in &self.indexes {
            if !inames.insert(ix.name.to_ascii_lowercase()) || ix.name.eq_ignore_ascii_case("PRIMARY") {
                return Err(Error::InvalidSchema(format!("duplicate key name '{}'", ix.name)));
            }
        }
        let max = crate::btree::node::max_key_len(page_size);
        let pk_len: usize = self.primary_key.iter().map(|&c| key::max_encoded_len(&self.columns[c])).sum();
        if pk_len > max {
            return Err(Error::KeyTooLong { len: pk_len, max });
        }
        for ix in &self.indexes {
            let len: usize = ix
                .columns
                .iter()
                .enumerate()
                .map(|(i, &c)| key::max_encoded_len_prefix(&self.columns[c], ix.prefix_of(i)))
                .sum::<usize>()
                + pk_len;
            if len > max {
                return Err(Error::KeyTooLong { len, max });
            }
        }
        Ok(())
    }
}
