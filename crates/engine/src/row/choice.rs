//! ENUM and SET: a column's member list ([`Members`]) and the values
//! chosen from it ([`Choice`]).
//!
//! An ENUM value is the 1-based index of its member (0 is the error value
//! `''` that non-strict mode stores for bad input); a SET value is a
//! bitmap, bit i for member i. Both compare and sort by that number (as
//! MySQL), show as the member text (a SET as its members in definition
//! order, comma-separated), and read as that number in numeric context
//! (`e + 0`).
//!
//! A member list is **interned**: [`ColumnType`](super::ColumnType) is
//! `Copy` and carried by value everywhere, so it refers to its list by a
//! `&'static Members`. Each distinct list (kind + names) is allocated once
//! for the life of the process and never freed: the memory is bounded by
//! the distinct ENUM / SET definitions created since start, not by rows or
//! statements.
//!
//! Invariants (the SQL layer checks 1-3 when a column is declared):
//! 1. An ENUM has 1..=65535 members, a SET 1..=64.
//! 2. Names carry no trailing spaces and are distinct under the column's
//!    collation; no SET member contains a comma.
//! 3. A [`Choice`] of an ENUM has `n <= len`; of a SET, no bit at or above
//!    `len` (see [`Members::mask`]).

use std::collections::HashSet;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, OnceLock};

use super::Collation;

/// The most members an ENUM may have.
pub const MAX_ENUM_MEMBERS: usize = 65_535;
/// The most members a SET may have.
pub const MAX_SET_MEMBERS: usize = 64;

/// The members of an ENUM or SET column, in definition order. Equal (and
/// hashed) by kind and names; `id` only numbers the interned copy.
#[derive(Debug)]
pub struct Members {
    /// SET (a bitmap of members) rather than ENUM (one member).
    pub set: bool,
    pub names: Vec<String>,
    /// The position of this list among the interned ones (see [`Members::by_id`]).
    id: u32,
}

impl PartialEq for Members {
    fn eq(&self, o: &Self) -> bool {
        self.set == o.set && self.names == o.names
    }
}

impl Eq for Members {}

impl Hash for Members {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.set.hash(h);
        self.names.hash(h);
    }
}

/// Every interned list: by content, and by id.
#[derive(Default)]
struct Interned {
    lists: HashSet<&'static Members>,
    by_id: Vec<&'static Members>,
}

fn interned() -> std::sync::MutexGuard<'static, Interned> {
    static LISTS: OnceLock<Mutex<Interned>> = OnceLock::new();
    LISTS.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner())
}

impl Members {
    /// The one shared copy of this list.
    pub fn intern(set: bool, names: Vec<String>) -> &'static Members {
        let mut all = interned();
        let m = Members { set, names, id: all.by_id.len() as u32 };
        if let Some(&found) = all.lists.get(&m) {
            return found;
        }
        let leaked: &'static Members = Box::leak(Box::new(m));
        all.lists.insert(leaked);
        all.by_id.push(leaked);
        leaked
    }

    /// A number naming this list for the life of the process (sort run
    /// files carry it instead of the list).
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The interned list numbered `id`.
    pub fn by_id(id: u32) -> Option<&'static Members> {
        interned().by_id.get(id as usize).copied()
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The bits a SET value may have (all members).
    pub fn mask(&self) -> u64 {
        if self.names.len() >= 64 {
            u64::MAX
        } else {
            (1u64 << self.names.len()) - 1
        }
    }

    /// Whether `n` is a value of this list (invariant 3).
    pub fn holds(&self, n: u64) -> bool {
        if self.set {
            n & !self.mask() == 0
        } else {
            n <= self.names.len() as u64
        }
    }

    /// Bytes of the row (and index key) form: an ENUM's index in 1 or 2
    /// bytes, a SET's bitmap in 1, 2, 3, 4 or 8 (as MySQL sizes them).
    pub fn width(&self) -> usize {
        let n = self.names.len();
        if !self.set {
            return if n < 256 { 1 } else { 2 };
        }
        match n.div_ceil(8) {
            0 | 1 => 1,
            2 => 2,
            3 => 3,
            4 => 4,
            _ => 8,
        }
    }

    /// The longest text a value can show, in characters (result
    /// metadata): an ENUM's longest member, a SET's members and commas.
    pub fn max_chars(&self) -> u32 {
        let chars = self.names.iter().map(|s| s.chars().count());
        let n =
            if self.set { chars.sum::<usize>() + self.names.len().saturating_sub(1) } else { chars.max().unwrap_or(0) };
        n.max(1) as u32
    }

    /// The SQL spelling: `enum('a','it''s')` as MariaDB's SHOW CREATE
    /// TABLE prints it (quotes doubled; backslash, NUL, CR, LF and ^Z
    /// escaped with a backslash).
    pub fn sql(&self) -> String {
        let mut s = String::from(if self.set { "set(" } else { "enum(" });
        for (i, name) in self.names.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push('\'');
            for ch in name.chars() {
                match ch {
                    '\'' => s.push_str("''"),
                    '\\' => s.push_str("\\\\"),
                    '\0' => s.push_str("\\0"),
                    '\n' => s.push_str("\\n"),
                    '\r' => s.push_str("\\r"),
                    '\x1a' => s.push_str("\\Z"),
                    c => s.push(c),
                }
            }
            s.push('\'');
        }
        s.push(')');
        s
    }

    /// The 1-based index of the member equal to `s` under `coll`
    /// (trailing spaces of `s` ignored, as MySQL strips them).
    pub fn find(&self, coll: Collation, s: &str) -> Option<u64> {
        let s = s.trim_end_matches(' ');
        self.names
            .iter()
            .position(|m| super::collation::compare(coll, m, s) == std::cmp::Ordering::Equal)
            .map(|i| i as u64 + 1)
    }

    /// A SET value from its text: the bitmap of the members named
    /// (duplicates folded, any order) and whether every element named one
    /// (an empty element does not; `''` is the empty set).
    pub fn parse_set(&self, coll: Collation, s: &str) -> (u64, bool) {
        if s.is_empty() {
            return (0, true);
        }
        let mut bits = 0u64;
        let mut all = true;
        for part in s.split(',') {
            match self.find(coll, part) {
                Some(i) => bits |= 1 << (i - 1),
                None => all = false,
            }
        }
        (bits, all)
    }

    /// The text of value `n` (`''` for an ENUM's 0 or an empty SET).
    pub fn text(&self, n: u64) -> String {
        let mut s = String::new();
        self.write_text(n, &mut s);
        s
    }

    fn write_text(&self, n: u64, out: &mut String) {
        if !self.set {
            if let Some(name) = n.checked_sub(1).and_then(|i| self.names.get(i as usize)) {
                out.push_str(name);
            }
            return;
        }
        let mut first = true;
        for (i, name) in self.names.iter().enumerate() {
            if n & (1 << i) != 0 {
                if !first {
                    out.push(',');
                }
                out.push_str(name);
                first = false;
            }
        }
    }
}

/// A value of an ENUM or SET column (see the module note).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    /// ENUM: the 1-based member index (0 = `''`); SET: the member bitmap.
    pub n: u64,
    pub members: &'static Members,
}

impl Choice {
    pub fn text(&self) -> String {
        self.members.text(self.n)
    }
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        self.members.write_text(self.n, &mut s);
        f.write_str(&s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(names: &[&str]) -> &'static Members {
        Members::intern(false, names.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn identical_lists_are_one_allocation() {
        let a = e(&["a", "b"]);
        let b = e(&["a", "b"]);
        assert!(std::ptr::eq(a, b));
        let s = Members::intern(true, vec!["a".into(), "b".into()]);
        assert!(!std::ptr::eq(a, s));
        assert!(std::ptr::eq(Members::by_id(s.id()).unwrap(), s));
    }

    #[test]
    fn members_are_found_case_insensitively_without_trailing_spaces() {
        let m = e(&["x", "B", "it's"]);
        assert_eq!(m.find(Collation::Utf8mb4GeneralCi, "b  "), Some(2));
        assert_eq!(m.find(Collation::Utf8mb4Bin, "b"), None);
        assert_eq!(m.find(Collation::Utf8mb4GeneralCi, " x"), None);
        assert_eq!(m.text(3), "it's");
        assert_eq!(m.text(0), "");
        assert_eq!(m.sql(), "enum('x','B','it''s')");
    }

    #[test]
    fn sets_parse_in_any_order_and_show_in_definition_order() {
        let m = Members::intern(true, vec!["a".into(), "b".into(), "c".into()]);
        assert_eq!(m.parse_set(Collation::Utf8mb4GeneralCi, "c,A,a"), (5, true));
        assert_eq!(m.parse_set(Collation::Utf8mb4GeneralCi, "b,z"), (2, false));
        assert_eq!(m.parse_set(Collation::Utf8mb4GeneralCi, "a,,b"), (3, false));
        assert_eq!(m.parse_set(Collation::Utf8mb4GeneralCi, ""), (0, true));
        assert_eq!(m.text(7), "a,b,c");
        assert_eq!(m.max_chars(), 5);
        assert!(m.holds(7) && !m.holds(8));
    }

    #[test]
    fn widths_are_mysqls() {
        let names = |n: usize| (0..n).map(|i| format!("m{i}")).collect::<Vec<_>>();
        assert_eq!(Members::intern(false, names(255)).width(), 1);
        assert_eq!(Members::intern(false, names(256)).width(), 2);
        assert_eq!(Members::intern(true, names(8)).width(), 1);
        assert_eq!(Members::intern(true, names(17)).width(), 3);
        assert_eq!(Members::intern(true, names(33)).width(), 8);
        assert_eq!(Members::intern(true, names(64)).mask(), u64::MAX);
    }
}
