//! The data dictionary: table definitions stored in a B+tree in the system
//! space (docs/FORMAT.md, "Catalog").
//!
//! Key: `b"T"` + table name. Value (little-endian):
//! ```text
//! u8  version (1)
//! u32 space id
//! u32 clustered index root page, u32 clustered index id
//! u16 column count; per column:
//!     str name, u8 type tag, u32 param a, u32 param b, u8 nullable,
//!     u8 collation (`collation_code`: 0 utf8mb4_bin, 1 general_ci, 2
//!     unicode_ci, 3 0900_ai_ci, 4 latin1_swedish_ci, 5 latin1_bin; 0 and
//!     1 are all that older definitions hold), u8 auto_increment, u8 default flags (1: a value
//!     follows, 2: DEFAULT CURRENT_TIMESTAMP, 4: ON UPDATE
//!     CURRENT_TIMESTAMP, 8: ZEROFILL), [u8 zerofill width, if flag 8],
//!     [value]
//! u16 primary key column count; u16 column positions
//! u16 secondary index count; per index:
//!     str name, u8 unique, u16 column count, u16 positions, u32 root page, u32 index id
//! version 2 and 3: u8 cluster kind (0 = the PRIMARY KEY, version 3 only;
//!     1 = a UNIQUE key, then str its name; 2 = the hidden row id, the
//!     last column)
//! version 3 only: u16 foreign key count; per foreign key:
//!     str name, u16 column count, u16 positions, str parent table,
//!     per column str parent column, u8 ON DELETE, u8 ON UPDATE
//!     (`FkAction::tag`)
//! version 4: as version 3 (cluster kind, foreign keys), then the extras
//!     (`TableExtras`): u64 AUTO_INCREMENT start, str table comment,
//!     u16 count + per column (str name, str comment), u16 check count +
//!     per CHECK (str name, str expression, u8 enforced); then zero or
//!     more tagged sections, each `u8 tag, u32 byte length, payload`, to
//!     the end of the value (an unknown tag is refused, never skipped):
//!     tag 60 = generated columns: u16 count + per column (str column
//!     name, str expression, u8 stored); tag 61 = index prefix lengths:
//!     u16 index count (= the secondary index count), per index u16
//!     column count n and n × u32 prefix lengths (0 = the whole column;
//!     n = 0 for an index without prefixes); tag 62 = the table's
//!     default collation: u8 (`collation_code`), present only when CREATE
//!     TABLE named one. Tags 60-69 are issue 16's
//!     generated-column, prefix-index and table-collation additions; a table with a prefix
//!     index is written as version 4 even without other extras.
//! ```
//! Type tags 40 (ENUM) and 41 (SET) have param a = the member count and
//! are followed, right after param b, by that many `str` member names;
//! 42 is YEAR, 43 BIT (param a = the bits).
//! `str` = u16 length + UTF-8. `value` = u8 tag + payload (see `put_value`;
//! tag 40, an ENUM / SET default: u64 index or bitmap).
//! A table clustered on its PRIMARY KEY is written as version 1, one
//! clustered otherwise as version 2, so such definitions are byte for
//! byte what they were before; only a table with foreign keys is written
//! as version 3, one with extras (CHECK constraints, COMMENTs, an
//! AUTO_INCREMENT start, generated columns, prefix indexes, a stored
//! default collation) as version 4. Every version stays readable.

use crate::row::{
    CheckDef, ClusterKey, Collation, Column, ColumnType, Date, DateTime, Decimal, FkAction, ForeignKeyDef,
    GeneratedDef, IndexDef, TableExtras, TableSchema, Value,
};

/// The version of a table clustered on its PRIMARY KEY.
pub const CATALOG_FORMAT_VERSION: u8 = 1;
/// The version of a table clustered otherwise (`ClusterKey`).
pub const CATALOG_FORMAT_VERSION_CLUSTER: u8 = 2;
/// The version of a table with foreign keys (any clustering).
pub const CATALOG_FORMAT_VERSION_FK: u8 = 3;
/// The version of a table with extras (`TableExtras`: CHECK constraints,
/// COMMENTs, AUTO_INCREMENT start), foreign keys or not.
pub const CATALOG_FORMAT_VERSION_EXTRAS: u8 = 4;

/// The tagged section of a version 4 definition holding its generated
/// columns (`TableExtras::generated`).
const SECTION_GENERATED: u8 = 60;
/// The tagged section holding the prefix lengths of the secondary
/// indexes (`IndexDef::prefix`).
const SECTION_INDEX_PREFIXES: u8 = 61;
/// The tagged section holding the table's default collation
/// (`TableExtras::default_collation`).
const SECTION_DEFAULT_COLLATION: u8 = 62;
/// The tagged section naming the table's instant columns and their
/// instant defaults (`Column::instant_default`, `row::instant`).
const SECTION_INSTANT: u8 = 63;

/// A table as the catalog stores it.
#[derive(Clone, Debug, PartialEq)]
pub struct TableDef {
    pub name: String,
    pub space_id: u32,
    pub schema: TableSchema,
    /// (root page, index id) of the clustered index.
    pub clustered: (u32, u32),
    /// (root page, index id) of each secondary index, in `schema.indexes` order.
    pub secondary: Vec<(u32, u32)>,
    /// The table's FOREIGN KEYs (as a child), in definition order.
    pub foreign_keys: Vec<ForeignKeyDef>,
    /// CHECK constraints, COMMENTs, AUTO_INCREMENT start (version 4).
    pub extras: TableExtras,
}

pub fn table_key(name: &str) -> Vec<u8> {
    let mut k = b"T".to_vec();
    k.extend_from_slice(name.as_bytes());
    k
}

struct W(Vec<u8>);
impl W {
    fn u8(&mut self, v: u8) {
        self.0.push(v)
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes())
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes())
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u16(b.len() as u16);
        self.0.extend_from_slice(b)
    }
}

struct R<'a>(&'a [u8], usize);
impl R<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let s = self.0.get(self.1..self.1 + n)?;
        self.1 += n;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn str(&mut self) -> Option<String> {
        let n = self.u16()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }
}

fn type_tag(t: ColumnType) -> (u8, u32, u32) {
    match t {
        ColumnType::TinyInt { unsigned } => (1, unsigned as u32, 0),
        ColumnType::SmallInt { unsigned } => (2, unsigned as u32, 0),
        ColumnType::MediumInt { unsigned } => (3, unsigned as u32, 0),
        ColumnType::Int { unsigned } => (4, unsigned as u32, 0),
        ColumnType::BigInt { unsigned } => (5, unsigned as u32, 0),
        ColumnType::Decimal { precision, scale, unsigned: false } => (6, precision as u32, scale as u32),
        ColumnType::Char { len } => (7, len, 0),
        ColumnType::Varchar { len } => (8, len, 0),
        ColumnType::Text => (9, 0, 0),
        ColumnType::Date => (10, 0, 0),
        ColumnType::DateTime { fsp } => (11, fsp as u32, 0),
        ColumnType::Timestamp { fsp } => (12, fsp as u32, 0),
        // M = 0: no (M, D) (a declared M is at least 1).
        ColumnType::TinyInt1 { unsigned } => (15, unsigned as u32, 0),
        ColumnType::Float { digits, unsigned: false } => {
            (13, digits.map_or(0, |d| d.0 as u32), digits.map_or(0, |d| d.1 as u32))
        }
        ColumnType::Double { digits, unsigned: false } => {
            (14, digits.map_or(0, |d| d.0 as u32), digits.map_or(0, |d| d.1 as u32))
        }
        // Tags 16-18: the UNSIGNED DECIMAL / FLOAT / DOUBLE.
        ColumnType::Decimal { precision, scale, unsigned: true } => (16, precision as u32, scale as u32),
        ColumnType::Float { digits, unsigned: true } => {
            (17, digits.map_or(0, |d| d.0 as u32), digits.map_or(0, |d| d.1 as u32))
        }
        ColumnType::Double { digits, unsigned: true } => {
            (18, digits.map_or(0, |d| d.0 as u32), digits.map_or(0, |d| d.1 as u32))
        }
        // Tags from 32 on: issue 16's temporal types (TIME, YEAR, ENUM, SET).
        ColumnType::Time { fsp } => (32, fsp as u32, 0),
        // Binary types from 33 up (docs/FORMAT.md, "Catalog").
        ColumnType::Binary { len } => (33, len, 0),
        ColumnType::VarBinary { len } => (34, len, 0),
        ColumnType::Blob { max_bytes } => (35, max_bytes, 0),
        // Tags 50-59: JSON.
        ColumnType::Json => (50, 0, 0),
        // Issue 16's ENUM, SET, YEAR and BIT take 40..=49.
        ColumnType::Enum { members } => (40, members.len() as u32, 0),
        ColumnType::Set { members } => (41, members.len() as u32, 0),
        ColumnType::Year => (42, 0, 0),
        ColumnType::Bit { bits } => (43, u32::from(bits), 0),
    }
}

/// An ENUM / SET column's member names, after its type tag and params.
fn put_members(w: &mut W, t: ColumnType) {
    if let Some(m) = t.members() {
        for name in &m.names {
            w.bytes(name.as_bytes());
        }
    }
}

/// A column type: its tag, params, and for ENUM / SET the member names.
fn get_type(r: &mut R) -> Option<ColumnType> {
    let (tag, a, b) = (r.u8()?, r.u32()?, r.u32()?);
    match tag {
        40 | 41 => {
            let names = (0..a).map(|_| r.str()).collect::<Option<Vec<_>>>()?;
            let members = crate::row::Members::intern(tag == 41, names);
            Some(if tag == 41 { ColumnType::Set { members } } else { ColumnType::Enum { members } })
        }
        _ => type_from_tag(tag, a, b),
    }
}

/// A stored default of type `ty`: an ENUM / SET default is stored as its
/// number (value tag 40) and takes the column's members back here.
fn typed_default(ty: ColumnType, v: Value) -> Option<Value> {
    match (ty.members(), v) {
        (Some(members), Value::UInt(n)) if members.holds(n) => Some(Value::Choice(crate::row::Choice { n, members })),
        (Some(_), _) => None,
        (None, v) => Some(v),
    }
}

/// A column's collation byte. Codes only ever get added, so every stored
/// definition reads as it was written.
fn collation_code(c: Collation) -> u8 {
    match c {
        Collation::Utf8mb4Bin => 0,
        Collation::Utf8mb4GeneralCi => 1,
        Collation::Utf8mb4UnicodeCi => 2,
        Collation::Utf8mb40900AiCi => 3,
        Collation::Latin1SwedishCi => 4,
        Collation::Latin1Bin => 5,
    }
}

fn collation_from_code(code: u8) -> Option<Collation> {
    Some(match code {
        0 => Collation::Utf8mb4Bin,
        1 => Collation::Utf8mb4GeneralCi,
        2 => Collation::Utf8mb4UnicodeCi,
        3 => Collation::Utf8mb40900AiCi,
        4 => Collation::Latin1SwedishCi,
        5 => Collation::Latin1Bin,
        _ => return None,
    })
}

fn type_from_tag(tag: u8, a: u32, b: u32) -> Option<ColumnType> {
    Some(match tag {
        1 => ColumnType::TinyInt { unsigned: a != 0 },
        2 => ColumnType::SmallInt { unsigned: a != 0 },
        3 => ColumnType::MediumInt { unsigned: a != 0 },
        4 => ColumnType::Int { unsigned: a != 0 },
        5 => ColumnType::BigInt { unsigned: a != 0 },
        6 | 16 => ColumnType::Decimal { precision: a as u8, scale: b as u8, unsigned: tag == 16 },
        7 => ColumnType::Char { len: a },
        8 => ColumnType::Varchar { len: a },
        9 => ColumnType::Text,
        10 => ColumnType::Date,
        11 => ColumnType::DateTime { fsp: a as u8 },
        12 => ColumnType::Timestamp { fsp: a as u8 },
        15 => ColumnType::TinyInt1 { unsigned: a != 0 },
        13 | 17 => ColumnType::Float { digits: (a != 0).then_some((a as u8, b as u8)), unsigned: tag == 17 },
        14 | 18 => ColumnType::Double { digits: (a != 0).then_some((a as u8, b as u8)), unsigned: tag == 18 },
        32 => ColumnType::Time { fsp: a as u8 },
        33 => ColumnType::Binary { len: a },
        34 => ColumnType::VarBinary { len: a },
        35 if crate::row::BLOB_SIZES.contains(&a) => ColumnType::Blob { max_bytes: a },
        50 => ColumnType::Json,
        42 => ColumnType::Year,
        43 if (1..=u32::from(crate::row::bit::MAX_BITS)).contains(&a) => ColumnType::Bit { bits: a as u8 },
        _ => return None,
    })
}

fn put_value(w: &mut W, v: &Value) {
    match v {
        Value::Null => w.u8(0),
        Value::Int(i) => {
            w.u8(1);
            w.0.extend_from_slice(&i.to_le_bytes())
        }
        Value::UInt(u) => {
            w.u8(2);
            w.0.extend_from_slice(&u.to_le_bytes())
        }
        Value::Decimal(d) => {
            w.u8(3);
            w.0.extend_from_slice(&d.coef.to_le_bytes());
            w.u8(d.scale)
        }
        Value::Str(s) => {
            w.u8(4);
            w.bytes(s.as_bytes())
        }
        Value::Date(d) => {
            w.u8(5);
            w.u32(d.packed())
        }
        Value::DateTime(d) => {
            w.u8(6);
            w.0.extend_from_slice(&d.packed().to_le_bytes())
        }
        Value::Double(f) => {
            w.u8(7);
            w.0.extend_from_slice(&f.to_le_bytes())
        }
        Value::Time(us) => {
            w.u8(32);
            w.0.extend_from_slice(&us.to_le_bytes())
        }
        Value::Bytes(b) => {
            w.u8(33);
            w.bytes(b)
        }
        // A JSON column has no literal default (MySQL's 1101), so this is
        // for completeness: u16 length, then the compact document.
        Value::Json(j) => {
            let mut doc = Vec::new();
            crate::row::json::binary::encode(j, &mut doc);
            w.u8(50);
            w.bytes(&doc)
        }
        Value::Choice(c) => {
            w.u8(40);
            w.0.extend_from_slice(&c.n.to_le_bytes())
        }
    }
}

fn get_value(r: &mut R) -> Option<Value> {
    Some(match r.u8()? {
        0 => Value::Null,
        1 => Value::Int(i64::from_le_bytes(r.take(8)?.try_into().ok()?)),
        2 => Value::UInt(u64::from_le_bytes(r.take(8)?.try_into().ok()?)),
        3 => {
            let coef = i128::from_le_bytes(r.take(16)?.try_into().ok()?);
            Value::Decimal(Decimal::new(coef, r.u8()?))
        }
        4 => Value::Str(r.str()?),
        5 => Value::Date(Date::from_packed(r.u32()?)),
        6 => Value::DateTime(DateTime::from_packed(i64::from_le_bytes(r.take(8)?.try_into().ok()?))),
        7 => Value::Double(f64::from_le_bytes(r.take(8)?.try_into().ok()?)),
        32 => Value::Time(i64::from_le_bytes(r.take(8)?.try_into().ok()?)),
        50 => {
            let n = r.u16()? as usize;
            Value::Json(Box::new(crate::row::json::binary::decode(r.take(n)?)?))
        }
        33 => {
            let n = r.u16()? as usize;
            Value::Bytes(r.take(n)?.to_vec())
        }
        // An ENUM / SET default's number (`typed_default` makes it a Choice).
        40 => Value::UInt(u64::from_le_bytes(r.take(8)?.try_into().ok()?)),
        _ => return None,
    })
}

pub fn encode(def: &TableDef) -> Vec<u8> {
    let mut w = W(Vec::new());
    let s = &def.schema;
    let prefixes = s.indexes.iter().any(|ix| ix.has_prefix());
    let instant = crate::row::instant::has_instant(s);
    let version = if !def.extras.is_empty() || prefixes || instant {
        CATALOG_FORMAT_VERSION_EXTRAS
    } else if !def.foreign_keys.is_empty() {
        CATALOG_FORMAT_VERSION_FK
    } else if s.cluster == ClusterKey::Primary {
        CATALOG_FORMAT_VERSION
    } else {
        CATALOG_FORMAT_VERSION_CLUSTER
    };
    w.u8(version);
    w.u32(def.space_id);
    w.u32(def.clustered.0);
    w.u32(def.clustered.1);
    w.u16(s.columns.len() as u16);
    for c in &s.columns {
        w.bytes(c.name.as_bytes());
        let (tag, a, b) = type_tag(c.ty);
        w.u8(tag);
        w.u32(a);
        w.u32(b);
        put_members(&mut w, c.ty);
        w.u8(c.nullable as u8);
        w.u8(collation_code(c.collation));
        w.u8(c.auto_increment as u8);
        // Flags: a literal default follows (1), DEFAULT CURRENT_TIMESTAMP
        // (2), ON UPDATE CURRENT_TIMESTAMP (4). Definitions without the
        // last two are the bytes they always were (0 or 1). ZEROFILL (8)
        // is followed by its width.
        let flags = u8::from(c.default.is_some())
            | u8::from(c.default_now) << 1
            | u8::from(c.on_update_now) << 2
            | u8::from(c.zerofill.is_some()) << 3;
        w.u8(flags);
        if let Some(width) = c.zerofill {
            w.u8(width);
        }
        if let Some(v) = &c.default {
            put_value(&mut w, v)
        }
    }
    w.u16(s.primary_key.len() as u16);
    for &p in &s.primary_key {
        w.u16(p as u16);
    }
    w.u16(s.indexes.len() as u16);
    for (ix, &(root, id)) in s.indexes.iter().zip(&def.secondary) {
        w.bytes(ix.name.as_bytes());
        w.u8(ix.unique as u8);
        w.u16(ix.columns.len() as u16);
        for &c in &ix.columns {
            w.u16(c as u16);
        }
        w.u32(root);
        w.u32(id);
    }
    match &s.cluster {
        ClusterKey::Primary if version == CATALOG_FORMAT_VERSION => {}
        ClusterKey::Primary => w.u8(0),
        ClusterKey::Unique(name) => {
            w.u8(1);
            w.bytes(name.as_bytes())
        }
        ClusterKey::RowId => w.u8(2),
    }
    if version >= CATALOG_FORMAT_VERSION_FK {
        w.u16(def.foreign_keys.len() as u16);
        for fk in &def.foreign_keys {
            w.bytes(fk.name.as_bytes());
            w.u16(fk.columns.len() as u16);
            for &c in &fk.columns {
                w.u16(c as u16);
            }
            w.bytes(fk.parent.as_bytes());
            for c in &fk.parent_columns {
                w.bytes(c.as_bytes());
            }
            w.u8(fk.on_delete.tag());
            w.u8(fk.on_update.tag());
        }
    }
    if version >= CATALOG_FORMAT_VERSION_EXTRAS {
        let x = &def.extras;
        w.0.extend_from_slice(&x.auto_increment_start.to_le_bytes());
        w.bytes(x.comment.as_bytes());
        w.u16(x.column_comments.len() as u16);
        for (c, t) in &x.column_comments {
            w.bytes(c.as_bytes());
            w.bytes(t.as_bytes());
        }
        w.u16(x.checks.len() as u16);
        for c in &x.checks {
            w.bytes(c.name.as_bytes());
            w.bytes(c.expr.as_bytes());
            w.u8(c.enforced as u8);
        }
        if !x.generated.is_empty() {
            let mut g = W(Vec::new());
            g.u16(x.generated.len() as u16);
            for d in &x.generated {
                g.bytes(d.column.as_bytes());
                g.bytes(d.expr.as_bytes());
                g.u8(d.stored as u8);
            }
            section(&mut w, SECTION_GENERATED, &g.0);
        }
        if prefixes {
            let mut p = W(Vec::new());
            p.u16(s.indexes.len() as u16);
            for ix in &s.indexes {
                let n = if ix.has_prefix() { ix.prefix.len() } else { 0 };
                p.u16(n as u16);
                for &l in &ix.prefix[..n] {
                    p.u32(l);
                }
            }
            section(&mut w, SECTION_INDEX_PREFIXES, &p.0);
        }
        if let Some(c) = x.default_collation {
            section(&mut w, SECTION_DEFAULT_COLLATION, &[collation_code(c)]);
        }
        if instant {
            let core = crate::row::instant::core_fields(s);
            let mut p = W(Vec::new());
            p.u16(core as u16);
            for c in &s.columns[core..] {
                put_value(&mut p, c.instant_default.as_ref().unwrap_or(&Value::Null));
            }
            section(&mut w, SECTION_INSTANT, &p.0);
        }
    }
    w.0
}

/// Appends a tagged section (`u8 tag, u32 length, payload`).
fn section(w: &mut W, tag: u8, payload: &[u8]) {
    w.u8(tag);
    w.u32(payload.len() as u32);
    w.0.extend_from_slice(payload);
}

pub fn decode(name: &str, b: &[u8]) -> Option<TableDef> {
    let mut r = R(b, 0);
    let version = r.u8()?;
    if !(CATALOG_FORMAT_VERSION..=CATALOG_FORMAT_VERSION_EXTRAS).contains(&version) {
        return None;
    }
    let space_id = r.u32()?;
    let clustered = (r.u32()?, r.u32()?);
    let ncols = r.u16()? as usize;
    let mut columns = Vec::with_capacity(ncols);
    for _ in 0..ncols {
        let name = r.str()?;
        let ty = get_type(&mut r)?;
        let nullable = r.u8()? != 0;
        let collation = collation_from_code(r.u8()?)?;
        let auto_increment = r.u8()? != 0;
        let flags = r.u8()?;
        if flags > 15 {
            return None;
        }
        let zerofill = if flags & 8 != 0 { Some(r.u8()?) } else { None };
        let default = if flags & 1 != 0 { Some(typed_default(ty, get_value(&mut r)?)?) } else { None };
        columns.push(Column {
            name,
            ty,
            nullable,
            collation,
            default,
            auto_increment,
            default_now: flags & 2 != 0,
            on_update_now: flags & 4 != 0,
            instant_default: None,
            zerofill,
        });
    }
    let npk = r.u16()? as usize;
    let primary_key = (0..npk).map(|_| r.u16().map(|v| v as usize)).collect::<Option<Vec<_>>>()?;
    let nix = r.u16()? as usize;
    let mut indexes = Vec::with_capacity(nix);
    let mut secondary = Vec::with_capacity(nix);
    for _ in 0..nix {
        let name = r.str()?;
        let unique = r.u8()? != 0;
        let n = r.u16()? as usize;
        let cols = (0..n).map(|_| r.u16().map(|v| v as usize)).collect::<Option<Vec<_>>>()?;
        secondary.push((r.u32()?, r.u32()?));
        indexes.push(IndexDef { name, columns: cols, unique, prefix: vec![] });
    }
    let cluster = if version == CATALOG_FORMAT_VERSION {
        ClusterKey::Primary
    } else {
        match r.u8()? {
            0 if version >= CATALOG_FORMAT_VERSION_FK => ClusterKey::Primary,
            1 => ClusterKey::Unique(r.str()?),
            2 => ClusterKey::RowId,
            _ => return None,
        }
    };
    let mut foreign_keys = Vec::new();
    if version >= CATALOG_FORMAT_VERSION_FK {
        for _ in 0..r.u16()? {
            let name = r.str()?;
            let n = r.u16()? as usize;
            let columns = (0..n).map(|_| r.u16().map(|v| v as usize)).collect::<Option<Vec<_>>>()?;
            let parent = r.str()?;
            let parent_columns = (0..n).map(|_| r.str()).collect::<Option<Vec<_>>>()?;
            let on_delete = FkAction::from_tag(r.u8()?)?;
            let on_update = FkAction::from_tag(r.u8()?)?;
            foreign_keys.push(ForeignKeyDef { name, columns, parent, parent_columns, on_delete, on_update });
        }
    }
    let mut extras = TableExtras::default();
    if version >= CATALOG_FORMAT_VERSION_EXTRAS {
        extras.auto_increment_start = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
        extras.comment = r.str()?;
        for _ in 0..r.u16()? {
            extras.column_comments.push((r.str()?, r.str()?));
        }
        for _ in 0..r.u16()? {
            extras.checks.push(CheckDef { name: r.str()?, expr: r.str()?, enforced: r.u8()? != 0 });
        }
        while r.1 < b.len() {
            let tag = r.u8()?;
            let len = r.u32()? as usize;
            let mut p = R(r.take(len)?, 0);
            match tag {
                SECTION_GENERATED => {
                    for _ in 0..p.u16()? {
                        extras.generated.push(GeneratedDef { column: p.str()?, expr: p.str()?, stored: p.u8()? != 0 });
                    }
                }
                SECTION_INDEX_PREFIXES => {
                    if p.u16()? as usize != indexes.len() {
                        return None;
                    }
                    for ix in indexes.iter_mut() {
                        let n = p.u16()? as usize;
                        if n != 0 && n != ix.columns.len() {
                            return None;
                        }
                        ix.prefix = (0..n).map(|_| p.u32()).collect::<Option<Vec<_>>>()?;
                    }
                }
                SECTION_DEFAULT_COLLATION => extras.default_collation = Some(collation_from_code(p.u8()?)?),
                SECTION_INSTANT => {
                    let core = p.u16()? as usize;
                    if core == 0 || core >= columns.len() || cluster == ClusterKey::RowId {
                        return None;
                    }
                    for c in &mut columns[core..] {
                        c.instant_default = Some(match get_value(&mut p)? {
                            Value::Null => Value::Null,
                            v => typed_default(c.ty, v)?,
                        });
                    }
                }
                _ => return None,
            }
            if p.1 != p.0.len() {
                return None;
            }
        }
    }
    if r.1 != b.len() {
        return None;
    }
    Some(TableDef {
        name: name.to_string(),
        space_id,
        schema: TableSchema { columns, primary_key, indexes, cluster },
        clustered,
        secondary,
        foreign_keys,
        extras,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Table `name` in space `space_id` holding `columns`, clustered by
    /// the first one, with nothing else: what the round trips start from.
    fn table(name: &str, space_id: u32, columns: Vec<Column>) -> TableDef {
        TableDef {
            name: name.into(),
            space_id,
            schema: TableSchema { columns, primary_key: vec![0], indexes: vec![], cluster: ClusterKey::Primary },
            clustered: (2, 10),
            secondary: vec![],
            foreign_keys: vec![],
            extras: TableExtras::default(),
        }
    }

    #[test]
    fn table_definitions_round_trip() {
        let def = TableDef {
            name: "db/t".into(),
            space_id: 9,
            schema: TableSchema {
                columns: vec![
                    Column::new("id", ColumnType::Int { unsigned: true }).auto_increment(),
                    Column::new("name", ColumnType::Varchar { len: 40 }).default(Value::Str("x".into())),
                    Column::new("amount", ColumnType::Decimal { precision: 10, scale: 2, unsigned: true })
                        .default(Value::Decimal(Decimal::parse("1.50").unwrap())),
                    Column::new("doc", ColumnType::Json),
                    Column::new("doc2", ColumnType::Json)
                        .default(Value::Json(Box::new(crate::row::json::text::parse(r#"{"a": [1, "x"]}"#).unwrap()))),
                ],
                primary_key: vec![0],
                indexes: vec![IndexDef { name: "by_name".into(), columns: vec![1, 2], unique: true, prefix: vec![] }],
                cluster: ClusterKey::Primary,
            },
            clustered: (2, 10),
            secondary: vec![(5, 11)],
            foreign_keys: vec![],
            extras: TableExtras::default(),
        };
        let bytes = encode(&def);
        assert_eq!(bytes[0], CATALOG_FORMAT_VERSION);
        assert_eq!(decode("db/t", &bytes).unwrap(), def);
    }

    #[test]
    fn zerofill_columns_keep_their_width_and_plain_columns_their_old_bytes() {
        let mut z = Column::new("z", ColumnType::Int { unsigned: true }).default(Value::UInt(7));
        z.zerofill = Some(5);
        let mut d = Column::new("d", ColumnType::Decimal { precision: 6, scale: 2, unsigned: true });
        d.zerofill = Some(7);
        let def = table("db/z", 4, vec![Column::new("id", ColumnType::Int { unsigned: false }).not_null(), z, d]);
        let bytes = encode(&def);
        assert_eq!(bytes[0], CATALOG_FORMAT_VERSION);
        assert_eq!(decode("db/z", &bytes).unwrap(), def);
        // Without ZEROFILL a column is the bytes it always was: flags 1
        // (a default follows) and no width byte.
        let mut plain = def.clone();
        for c in &mut plain.schema.columns {
            c.zerofill = None;
        }
        let old = encode(&plain);
        assert_eq!(old.len() + 2, bytes.len());
        assert_eq!(decode("db/z", &old).unwrap(), plain);
    }

    #[test]
    fn instant_columns_keep_their_instant_defaults_in_section_63() {
        use crate::row::{Choice, Members};
        let e = Members::intern(false, vec!["a".into(), "b".into()]);
        let mut c = Column::new("c", ColumnType::Varchar { len: 5 }).default(Value::Str("now".into()));
        c.instant_default = Some(Value::Str("then".into()));
        let mut d = Column::new("d", ColumnType::Enum { members: e });
        d.instant_default = Some(Value::Choice(Choice { n: 2, members: e }));
        let mut n = Column::new("n", ColumnType::Int { unsigned: false });
        n.instant_default = Some(Value::Null);
        let def = table("db/i", 3, vec![Column::new("id", ColumnType::Int { unsigned: false }).not_null(), c, d, n]);
        let bytes = encode(&def);
        assert_eq!(bytes[0], CATALOG_FORMAT_VERSION_EXTRAS);
        assert_eq!(decode("db/i", &bytes).unwrap(), def);
        // Without instant columns the definition is what it always was.
        let mut plain = def.clone();
        crate::row::instant::clear(&mut plain.schema);
        assert_eq!(encode(&plain)[0], CATALOG_FORMAT_VERSION);
    }

    #[test]
    fn enum_set_year_and_bit_columns_keep_their_members_and_defaults() {
        use crate::row::{Choice, Members};
        let e = Members::intern(false, vec!["a".into(), "it's".into(), "".into()]);
        let s = Members::intern(true, vec!["x".into(), "y".into()]);
        let def = table(
            "db/c",
            4,
            vec![
                Column::new("e", ColumnType::Enum { members: e })
                    .not_null()
                    .default(Value::Choice(Choice { n: 2, members: e })),
                Column::new("s", ColumnType::Set { members: s }).default(Value::Choice(Choice { n: 3, members: s })),
                Column::new("y", ColumnType::Year).default(Value::Int(1999)),
                Column::new("b", ColumnType::Bit { bits: 7 }).default(Value::UInt(5)),
            ],
        );
        let back = decode("db/c", &encode(&def)).unwrap();
        assert_eq!(back, def);
        assert!(std::ptr::eq(back.schema.columns[0].ty.members().unwrap(), e));
    }

    #[test]
    fn keyless_and_unique_clustered_definitions_round_trip() {
        let cols = vec![Column::new("a", ColumnType::Int { unsigned: false })];
        let ix = vec![IndexDef { name: "a".into(), columns: vec![0], unique: false, prefix: vec![] }];
        let row_id = TableDef {
            name: "db/k".into(),
            space_id: 3,
            schema: TableSchema::with_row_id(cols.clone(), ix),
            clustered: (2, 10),
            secondary: vec![(5, 11)],
            foreign_keys: vec![],
            extras: TableExtras::default(),
        };
        let bytes = encode(&row_id);
        assert_eq!(bytes[0], CATALOG_FORMAT_VERSION_CLUSTER);
        assert_eq!(decode("db/k", &bytes).unwrap(), row_id);
        let unique = TableDef {
            schema: TableSchema {
                columns: vec![Column::new("a", ColumnType::Int { unsigned: false }).not_null()],
                primary_key: vec![0],
                indexes: vec![],
                cluster: ClusterKey::Unique("ua".into()),
            },
            secondary: vec![],
            ..row_id
        };
        assert_eq!(decode("db/k", &encode(&unique)).unwrap(), unique);
    }

    #[test]
    fn foreign_keys_round_trip_as_version_3_under_every_clustering() {
        let fk = ForeignKeyDef {
            name: "c_ibfk_1".into(),
            columns: vec![1, 0],
            parent: "db/p".into(),
            parent_columns: vec!["x".into(), "y".into()],
            on_delete: FkAction::Cascade,
            on_update: FkAction::SetNull,
        };
        let cols = vec![
            Column::new("a", ColumnType::Int { unsigned: false }).not_null(),
            Column::new("b", ColumnType::Int { unsigned: false }),
        ];
        for schema in [
            TableSchema { columns: cols.clone(), primary_key: vec![0], indexes: vec![], cluster: ClusterKey::Primary },
            TableSchema {
                columns: cols.clone(),
                primary_key: vec![0],
                indexes: vec![],
                cluster: ClusterKey::Unique("a".into()),
            },
            TableSchema::with_row_id(cols.clone(), vec![]),
        ] {
            let def = TableDef {
                schema,
                foreign_keys: vec![
                    fk.clone(),
                    ForeignKeyDef { name: "n2".into(), on_delete: FkAction::NoAction, ..fk.clone() },
                ],
                ..table("db/c", 4, vec![])
            };
            let bytes = encode(&def);
            assert_eq!(bytes[0], CATALOG_FORMAT_VERSION_FK);
            assert_eq!(decode("db/c", &bytes).unwrap(), def);
        }
    }

    #[test]
    fn extras_round_trip_as_version_4_with_and_without_foreign_keys() {
        let fk = ForeignKeyDef {
            name: "c_ibfk_1".into(),
            columns: vec![0],
            parent: "db/p".into(),
            parent_columns: vec!["x".into()],
            on_delete: FkAction::Restrict,
            on_update: FkAction::Cascade,
        };
        let extras = TableExtras {
            auto_increment_start: 1000,
            comment: "a table".into(),
            column_comments: vec![("a".into(), "the key".into())],
            checks: vec![
                CheckDef { name: "c_chk_1".into(), expr: "(`a` > 0)".into(), enforced: true },
                CheckDef { name: "named".into(), expr: "(`a` < 10)".into(), enforced: false },
            ],
            generated: vec![],
            default_collation: None,
        };
        for fks in [vec![], vec![fk]] {
            let def = TableDef {
                foreign_keys: fks,
                extras: extras.clone(),
                ..table("db/c", 4, vec![Column::new("a", ColumnType::Int { unsigned: false }).not_null()])
            };
            let bytes = encode(&def);
            assert_eq!(bytes[0], CATALOG_FORMAT_VERSION_EXTRAS);
            assert_eq!(decode("db/c", &bytes).unwrap(), def);
            assert!(decode("db/c", &bytes[..bytes.len() - 1]).is_none());
            // A stored default collation is a tagged section: six bytes more.
            let mut with = def.clone();
            with.extras.default_collation = Some(Collation::Latin1Bin);
            let more = encode(&with);
            assert_eq!(more[0], CATALOG_FORMAT_VERSION_EXTRAS);
            assert_eq!(more.len(), bytes.len() + 6);
            assert_eq!(decode("db/c", &more).unwrap(), with);
            assert!(decode("db/c", &more[..more.len() - 1]).is_none());
        }
    }

    #[test]
    fn index_prefixes_round_trip_in_tagged_section_61() {
        let def = TableDef {
            name: "db/p".into(),
            space_id: 5,
            schema: TableSchema {
                columns: vec![
                    Column::new("id", ColumnType::Int { unsigned: false }).not_null(),
                    Column::new("t", ColumnType::Text),
                    Column::new("v", ColumnType::Varchar { len: 40 }),
                ],
                primary_key: vec![0],
                indexes: vec![
                    IndexDef { name: "plain".into(), columns: vec![2], unique: false, prefix: vec![] },
                    IndexDef { name: "tv".into(), columns: vec![1, 2], unique: true, prefix: vec![10, 0] },
                ],
                cluster: ClusterKey::Primary,
            },
            clustered: (2, 10),
            secondary: vec![(5, 11), (6, 12)],
            foreign_keys: vec![],
            extras: TableExtras::default(),
        };
        let bytes = encode(&def);
        assert_eq!(bytes[0], CATALOG_FORMAT_VERSION_EXTRAS, "prefixes need the tagged sections");
        assert_eq!(decode("db/p", &bytes).unwrap(), def);
        assert!(decode("db/p", &bytes[..bytes.len() - 1]).is_none());
    }

    #[test]
    fn generated_columns_round_trip_in_tagged_section_60() {
        let def = TableDef {
            extras: TableExtras {
                generated: vec![
                    GeneratedDef { column: "v".into(), expr: "(`a` + 1)".into(), stored: false },
                    GeneratedDef { column: "s".into(), expr: "concat(`a`, 'x')".into(), stored: true },
                ],
                ..TableExtras::default()
            },
            ..table(
                "db/g",
                4,
                vec![
                    Column::new("a", ColumnType::Int { unsigned: false }).not_null(),
                    Column::new("v", ColumnType::Int { unsigned: false }),
                    Column::new("s", ColumnType::Varchar { len: 10 }),
                ],
            )
        };
        let bytes = encode(&def);
        assert_eq!(bytes[0], CATALOG_FORMAT_VERSION_EXTRAS);
        assert_eq!(decode("db/g", &bytes).unwrap(), def);
        assert!(decode("db/g", &bytes[..bytes.len() - 1]).is_none(), "a cut section is refused");
        // An unknown tag is refused: the section starts 5 bytes (tag,
        // length) before its payload, which ends the value.
        let payload: usize =
            2 + def.extras.generated.iter().map(|g| 4 + g.column.len() + g.expr.len() + 1).sum::<usize>();
        let at = bytes.len() - payload - 5;
        assert_eq!(bytes[at], SECTION_GENERATED);
        let mut bad = bytes.clone();
        bad[at] = 69;
        assert!(decode("db/g", &bad).is_none());
    }

    #[test]
    fn a_default_collation_is_tagged_section_62_and_absent_ones_leave_definitions_as_they_were() {
        let mut def = table("db/l", 5, vec![Column::new("a", ColumnType::Int { unsigned: false }).not_null()]);
        let v1 = encode(&def);
        assert_eq!(v1[0], CATALOG_FORMAT_VERSION, "no collation stored: byte for byte as before");
        def.extras.default_collation = Some(Collation::Latin1SwedishCi);
        let v4 = encode(&def);
        assert_eq!(v4[0], CATALOG_FORMAT_VERSION_EXTRAS);
        assert_eq!(v4[v4.len() - 6], SECTION_DEFAULT_COLLATION);
        assert_eq!(decode("db/l", &v4).unwrap(), def);
    }
}
