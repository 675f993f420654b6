//! `optimizer_switch`: MySQL 8.0's flag list (`name=on|off,...`).
//!
//! The value is always the full list, in MySQL 8.0's order, as
//! `SELECT @@optimizer_switch` shows it. `SET optimizer_switch = 'a=off,b=on'`
//! changes only the flags it names, relative to the value it replaces
//! (the session's for SET SESSION, the global one for SET GLOBAL); a flag
//! set to `default` takes its default; the word `default` alone resets
//! every flag. An unknown flag or value is 1231, as MySQL and MariaDB say.
//!
//! Flags that act in quire: `derived_merge` (`rel::merge`). The others
//! are listed as MySQL 8.0 lists them, and may be set, but choose nothing:
//! quire has no index merge, MRR, BKA, semi-join strategies, skip scans
//! or condition pushdown into derived tables, and always may hash-join.

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

/// Whether `derived_merge` is on in a full list.
pub fn derived_merge(value: &str) -> bool {
    !value.split(',').any(|p| p.trim().eq_ignore_ascii_case("derived_merge=off"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_lists_every_flag_in_order() {
        assert_eq!(render(&FLAGS.iter().map(|(_, d)| *d).collect::<Vec<_>>()), DEFAULT);
        assert!(derived_merge(DEFAULT));
    }

    #[test]
    fn a_change_list_changes_only_the_flags_it_names() {
        let off = apply(DEFAULT, "derived_merge=off").unwrap();
        assert!(!derived_merge(&off));
        assert_eq!(off, DEFAULT.replace("derived_merge=on", "derived_merge=off"));
        let both = apply(&off, " HASH_JOIN = OFF , mrr=off").unwrap();
        assert!(both.contains("hash_join=off") && both.contains("mrr=off") && both.contains("derived_merge=off"));
        assert_eq!(apply(&both, "derived_merge=default").unwrap(), apply(DEFAULT, "hash_join=off,mrr=off").unwrap());
        assert_eq!(apply(&both, "default").unwrap(), DEFAULT);
        assert_eq!(apply(&both, "default,derived_merge=off").unwrap(), off);
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
