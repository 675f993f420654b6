//! JSON values: MySQL 8.0's JSON type (a document tree, not text).
//!
//! - [`text`]: JSON text in (RFC 8259, with the error messages and
//!   positions MySQL reports from its rapidjson parser) and MySQL's
//!   normalised text out (`{"a": 1, "b": [1, 2]}`).
//! - [`binary`]: the compact form a JSON column stores in its rows
//!   (docs/FORMAT.md, "JSON documents").
//! - [`order`]: MySQL's comparison of JSON values and a memcomparable sort
//!   key.
//!
//! Invariants:
//! 1. An [`Object`]'s members are sorted by key — shorter keys first,
//!    keys of one length by their bytes (MySQL's order, which its output
//!    shows) — and keys are unique; [`Object::insert`] replaces, so a
//!    document read with a key twice keeps the last value (MySQL 8.0.3+).
//! 2. Doubles are finite.
//! 3. A document nests arrays and objects at most [`MAX_DEPTH`] deep:
//!    the parser, the binary decoder and the SQL functions that build
//!    documents refuse deeper ones, so walks over a document recurse at
//!    most that far.
//!
//! Besides JSON's own scalars a document may hold the SQL scalars MySQL
//! keeps typed inside JSON (DECIMAL, DATE, DATETIME, TIME: from
//! JSON_OBJECT(), JSON_ARRAY(), CAST(.. AS JSON) of such values); JSON
//! text has no spelling for them, so they print as numbers or strings.

pub mod binary;
pub mod order;
pub mod text;

use std::cmp::Ordering;
use std::fmt;

use super::{Date, DateTime, Decimal};

/// The deepest nesting of arrays and objects MySQL accepts (its
/// JSON_DOCUMENT_MAX_DEPTH): error 3157 beyond.
pub const MAX_DEPTH: usize = 100;

/// A JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// An integer that fits a signed 64-bit integer.
    Int(i64),
    /// An integer above `i64::MAX` (JSON_TYPE says `UNSIGNED INTEGER`).
    UInt(u64),
    Double(f64),
    Str(String),
    Array(Vec<Json>),
    Object(Object),
    /// An exact number from SQL (JSON_TYPE `DECIMAL`).
    Decimal(Decimal),
    Date(Date),
    DateTime(DateTime),
    /// A TIME: signed microseconds.
    Time(i64),
}

/// A JSON object: members in MySQL's key order, keys unique (invariant 1).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Object(Vec<(String, Json)>);

/// MySQL's order of object keys: by length, then by bytes.
pub fn key_order(a: &str, b: &str) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

impl Object {
    pub fn new() -> Self {
        Self(Vec::new())
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| key_order(k, key))
    }

    pub fn get(&self, key: &str) -> Option<&Json> {
        self.find(key).ok().map(|i| &self.0[i].1)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self.find(key) {
            Ok(i) => Some(&mut self.0[i].1),
            Err(_) => None,
        }
    }

    /// Sets `key` to `v`, replacing a value already there.
    pub fn insert(&mut self, key: String, v: Json) {
        match self.find(&key) {
            Ok(i) => self.0[i].1 = v,
            Err(i) => self.0.insert(i, (key, v)),
        }
    }

    pub fn remove(&mut self, key: &str) -> Option<Json> {
        self.find(key).ok().map(|i| self.0.remove(i).1)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The members in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Json)> + '_ {
        self.0.iter().map(|(k, v)| (k, v))
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Json> + '_ {
        self.0.iter_mut().map(|(_, v)| v)
    }

    /// Builds an object from members already in key order with unique
    /// keys (the binary decoder, which checks that first).
    fn from_sorted(members: Vec<(String, Json)>) -> Self {
        debug_assert!(members.windows(2).all(|w| key_order(&w[0].0, &w[1].0) == Ordering::Less));
        Self(members)
    }
}

impl Json {
    /// JSON_TYPE's name for the value.
    pub fn type_name(&self) -> &'static str {
        match self {
            Json::Null => "NULL",
            Json::Bool(_) => "BOOLEAN",
            Json::Int(_) => "INTEGER",
            Json::UInt(_) => "UNSIGNED INTEGER",
            Json::Double(_) => "DOUBLE",
            Json::Str(_) => "STRING",
            Json::Array(_) => "ARRAY",
            Json::Object(_) => "OBJECT",
            Json::Decimal(_) => "DECIMAL",
            Json::Date(_) => "DATE",
            Json::DateTime(_) => "DATETIME",
            Json::Time(_) => "TIME",
        }
    }

    /// How deep arrays and objects nest: 1 for a scalar (JSON_DEPTH's
    /// answer; an empty array or object is 1 too).
    pub fn depth(&self) -> usize {
        match self {
            Json::Array(a) => 1 + a.iter().map(Json::depth).max().unwrap_or(0),
            Json::Object(o) => 1 + o.0.iter().map(|(_, v)| v.depth()).max().unwrap_or(0),
            _ => 1,
        }
    }

    /// Whether arrays and objects nest deeper than [`MAX_DEPTH`]
    /// (stops looking once they do).
    pub fn too_deep(&self) -> bool {
        fn walk(j: &Json, level: usize) -> bool {
            match j {
                Json::Array(a) => level >= MAX_DEPTH || a.iter().any(|v| walk(v, level + 1)),
                Json::Object(o) => level >= MAX_DEPTH || o.0.iter().any(|(_, v)| walk(v, level + 1)),
                _ => false,
            }
        }
        walk(self, 0)
    }

    pub fn is_scalar(&self) -> bool {
        !matches!(self, Json::Array(_) | Json::Object(_))
    }

    /// A number as a double (`None` for anything else).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Int(i) => Some(*i as f64),
            Json::UInt(u) => Some(*u as f64),
            Json::Double(f) => Some(*f),
            Json::Decimal(d) => Some(d.to_f64()),
            _ => None,
        }
    }
}

/// MySQL's normalised text (`{"a": 1, "b": [1, 2]}`), see [`text`].
impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        text::write(self, &mut s);
        f.write_str(&s)
    }
}
