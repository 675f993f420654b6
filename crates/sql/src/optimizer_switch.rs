//! `optimizer_switch`: MySQL 8.0's flag list (`name=on|off,...`).
//!
//! The value is always the full list, in MySQL 8.0's order, as
//! `SELECT @@optimizer_switch` shows it. `SET optimizer_switch = 'a=off,b=on'`
//! changes only the flags it names, relative to the value it replaces
//! (the session's for SET SESSION, the global one for SET GLOBAL); a flag
//! set to `default` takes its default; the word `default` alone resets
//! every flag. An unknown flag or value is 1231, as MySQL and MariaDB say.
//!
//! Flags that choose plans in quire ([`Switch`]):
//! - `derived_merge` (`rel::merge`);
//! - `semijoin`: IN / EXISTS terms become semi- and anti-joins
//!   (`rel::semijoin`); off, they run as subqueries;
//! - `firstmatch`: the semi-join read through the inner table per outer
//!   row, stopping at the first match (EXPLAIN's FirstMatch);
//! - `materialization`: the semi-join through a set of the inner table's
//!   keys or a hash table of its rows. With both of these off a semi-join
//!   has no strategy left in quire (MySQL would still have LooseScan and
//!   DuplicateWeedout, which quire lacks), so its term runs as a subquery;
//! - `block_nested_loop`: in MySQL 8.0.20 and later it allows hash joins
//!   (`hash_join` no longer acts there, nor here); off, a join reads the
//!   inner table per outer row, by an index when one serves.
//!
//! The other flags allow strategies quire does not have (index merge, MRR,
//! skip scan, LooseScan, DuplicateWeedout, condition pushdown into derived
//! tables, index extensions...): `off` is what quire does anyway. The four
//! that are off by default ask, when on, for something quire cannot do
//! (batched key access, subquery-to-derived rewriting, the hypergraph
//! optimizer) or has nothing to act on (invisible indexes: quire has none),
//! and setting one of them on is refused (1235) rather than ignored, except
//! `use_invisible_indexes`, which every index quire has already satisfies.

/// MySQL 8.0's flags and their defaults, in its order.
pub const FLAGS: &[(&str, bool)] = &[
    ("index_merge", true),
    ("index_merge_union", true),
    ("index_merge_sort_union", true),
    ("index_merge_intersection", true),
    ("engine_condition_pushdown", true),
    ("index_condition_pushdown", true),
    ("mrr", true),
    ("mrr_cost_based", true),
    ("block_nested_loop", true),
    ("batched_key_access", false),
    ("materialization", true),
    ("semijoin", true),
    ("loosescan", true),
    ("firstmatch", true),
    ("duplicateweedout", true),
    ("subquery_materialization_cost_based", true),
    ("use_index_extensions", true),
    ("condition_fanout_filter", true),
    ("derived_merge", true),
    ("use_invisible_indexes", false),
    ("skip_scan", true),
    ("hash_join", true),
    ("subquery_to_derived", false),
    ("prefer_ordering_index", true),
    ("hypergraph_optimizer", false),
    ("derived_condition_pushdown", true),
];

/// The default value: every flag at its default.
pub const DEFAULT: &str = "index_merge=on,index_merge_union=on,index_merge_sort_union=on,index_merge_intersection=on,engine_condition_pushdown=on,index_condition_pushdown=on,mrr=on,mrr_cost_based=on,block_nested_loop=on,batched_key_access=off,materialization=on,semijoin=on,loosescan=on,firstmatch=on,duplicateweedout=on,subquery_materialization_cost_based=on,use_index_extensions=on,condition_fanout_filter=on,derived_merge=on,use_invisible_indexes=off,skip_scan=on,hash_join=on,subquery_to_derived=off,prefer_ordering_index=on,hypergraph_optimizer=off,derived_condition_pushdown=on";

/// The flags of a full list (unknown names and values are ignored: the
/// stored value is always canonical).
fn flags_of(value: &str) -> Vec<bool> {
    FLAGS
        .iter()
        .map(|(name, default)| {
            value
                .split(',')
                .filter_map(|p| p.split_once('='))
                .find(|(n, _)| n.trim().eq_ignore_ascii_case(name))
                .map_or(*default, |(_, v)| v.trim().eq_ignore_ascii_case("on"))
        })
        .collect()
}

fn render(flags: &[bool]) -> String {
    FLAGS
        .iter()
        .zip(flags)
        .map(|((name, _), on)| format!("{name}={}", if *on { "on" } else { "off" }))
        .collect::<Vec<_>>()
        .join(",")
}

/// `current` with the changes `text` lists applied; `None` when `text`
/// names an unknown flag or value (1231).
pub fn apply(current: &str, text: &str) -> Option<String> {
    let mut flags = flags_of(current);
    // An empty list changes nothing (MariaDB accepts it).
    for part in text.split(',').filter(|_| !text.trim().is_empty()) {
        let part = part.trim();
        if part.eq_ignore_ascii_case("default") {
            flags = FLAGS.iter().map(|(_, d)| *d).collect();
            continue;
        }
        let (name, value) = part.split_once('=')?;
        let at = FLAGS.iter().position(|(n, _)| n.eq_ignore_ascii_case(name.trim()))?;
        flags[at] = match value.trim().to_ascii_lowercase().as_str() {
            "on" => true,
            "off" => false,
            "default" => FLAGS[at].1,
            _ => return None,
        };
    }
    Some(render(&flags))
}

/// The flags that are off by default and ask for a strategy quire lacks.
const UNSUPPORTED_ON: &[&str] = &["batched_key_access", "subquery_to_derived", "hypergraph_optimizer"];

/// The first flag of a full list that is on and that quire cannot honour.
pub fn unsupported(value: &str) -> Option<&'static str> {
    let flags = flags_of(value);
    FLAGS.iter().zip(flags).find(|((name, _), on)| *on && UNSUPPORTED_ON.contains(name)).map(|((name, _), _)| *name)
}

/// The flags of `optimizer_switch` that choose plans in quire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Switch {
    pub derived_merge: bool,
    pub semijoin: bool,
    pub firstmatch: bool,
    pub materialization: bool,
    pub block_nested_loop: bool,
}

impl Default for Switch {
    fn default() -> Switch {
        Switch::DEFAULT
    }
}

impl Switch {
    pub const DEFAULT: Switch = Switch {
        derived_merge: true,
        semijoin: true,
        firstmatch: true,
        materialization: true,
        block_nested_loop: true,
    };

    /// The flags of a full list.
    pub fn of(value: &str) -> Switch {
        let flags = flags_of(value);
        let on = |name: &str| FLAGS.iter().position(|(n, _)| *n == name).is_none_or(|i| flags[i]);
        Switch {
            derived_merge: on("derived_merge"),
            semijoin: on("semijoin"),
            firstmatch: on("firstmatch"),
            materialization: on("materialization"),
            block_nested_loop: on("block_nested_loop"),
        }
    }

    /// Whether IN / EXISTS terms may become semi-joins: `semijoin` and at
    /// least one strategy quire has.
    pub fn semijoins(&self) -> bool {
        self.semijoin && (self.firstmatch || self.materialization)
    }

    /// What sets a plan made under these flags apart in the plan cache
    /// (empty for the defaults).
    pub fn cache_tag(&self) -> String {
        if *self == Switch::DEFAULT {
            return String::new();
        }
        let bit = |b: bool| if b { '1' } else { '0' };
        [
            "\u{0}switch ",
            &[self.derived_merge, self.semijoin, self.firstmatch, self.materialization, self.block_nested_loop]
                .map(bit)
                .iter()
                .collect::<String>(),
        ]
        .concat()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_lists_every_flag_in_order() {
        assert_eq!(render(&FLAGS.iter().map(|(_, d)| *d).collect::<Vec<_>>()), DEFAULT);
        assert_eq!(Switch::of(DEFAULT), Switch::DEFAULT);
        assert_eq!(Switch::DEFAULT.cache_tag(), "");
    }

    #[test]
    fn a_change_list_changes_only_the_flags_it_names() {
        let off = apply(DEFAULT, "derived_merge=off").unwrap();
        assert!(!Switch::of(&off).derived_merge);
        assert!(Switch::of(&off).semijoin);
        assert_ne!(Switch::of(&off).cache_tag(), "");
        assert_eq!(off, DEFAULT.replace("derived_merge=on", "derived_merge=off"));
        let both = apply(&off, " HASH_JOIN = OFF , mrr=off").unwrap();
        assert!(both.contains("hash_join=off") && both.contains("mrr=off") && both.contains("derived_merge=off"));
        assert_eq!(apply(&both, "derived_merge=default").unwrap(), apply(DEFAULT, "hash_join=off,mrr=off").unwrap());
        assert_eq!(apply(&both, "default").unwrap(), DEFAULT);
        assert_eq!(apply(&both, "default,derived_merge=off").unwrap(), off);
    }

    #[test]
    fn semijoins_need_a_strategy_quire_has() {
        let s = |t: &str| Switch::of(&apply(DEFAULT, t).unwrap());
        assert!(s("firstmatch=off").semijoins());
        assert!(s("materialization=off").semijoins());
        assert!(!s("firstmatch=off,materialization=off").semijoins());
        assert!(!s("semijoin=off").semijoins());
        assert!(!s("block_nested_loop=off").block_nested_loop);
    }

    #[test]
    fn strategies_quire_lacks_are_named_when_asked_for() {
        assert_eq!(unsupported(DEFAULT), None);
        assert_eq!(unsupported(&apply(DEFAULT, "mrr=off,skip_scan=off").unwrap()), None);
        assert_eq!(unsupported(&apply(DEFAULT, "use_invisible_indexes=on").unwrap()), None);
        assert_eq!(unsupported(&apply(DEFAULT, "batched_key_access=on").unwrap()), Some("batched_key_access"));
        assert_eq!(unsupported(&apply(DEFAULT, "hypergraph_optimizer=on").unwrap()), Some("hypergraph_optimizer"));
    }

    #[test]
    fn unknown_flags_and_values_are_refused() {
        assert_eq!(apply(DEFAULT, "no_such_flag=on"), None);
        assert_eq!(apply(DEFAULT, "derived_merge=maybe"), None);
        assert_eq!(apply(DEFAULT, "derived_merge"), None);
        assert_eq!(apply(DEFAULT, "derived_merge=on,"), None);
        assert_eq!(apply(&apply(DEFAULT, "mrr=off").unwrap(), " ").unwrap(), apply(DEFAULT, "mrr=off").unwrap());
    }
}
