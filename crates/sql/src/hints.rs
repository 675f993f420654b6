//! Optimizer hints quire honours: `/*+ MAX_EXECUTION_TIME(n) */` right
//! after a query's leading SELECT (MySQL 8.0's only place for it). The
//! parser drops comments, so hints are read from the statement text
//! before parsing. Other hints are ignored, as MySQL ignores hints it does
//! not know.

/// The `MAX_EXECUTION_TIME(n)` hint of `sql` in milliseconds, if its
/// leading SELECT carries one.
pub fn max_execution_time(sql: &str) -> Option<u64> {
    let rest = sql.trim_start();
    let head = rest.get(..6)?;
    if !head.eq_ignore_ascii_case("select") {
        return None;
    }
    let body = rest[6..].trim_start().strip_prefix("/*+")?;
    let body = &body[..body.find("*/")?];
    let upper = body.to_ascii_uppercase();
    let at = upper.find("MAX_EXECUTION_TIME")?;
    let args = body[at + "MAX_EXECUTION_TIME".len()..].trim_start().strip_prefix('(')?;
    let args = &args[..args.find(')')?];
    args.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::max_execution_time as met;

    #[test]
    fn the_hint_is_read_only_right_after_the_leading_select() {
        assert_eq!(met("SELECT /*+ MAX_EXECUTION_TIME(1000) */ * FROM t"), Some(1000));
        assert_eq!(met("  select/*+ NO_ICP(t) max_execution_time ( 5 ) */ 1"), Some(5));
        assert_eq!(met("SELECT 1 /*+ MAX_EXECUTION_TIME(10) */"), None);
        assert_eq!(met("UPDATE /*+ MAX_EXECUTION_TIME(10) */ t SET a = 1"), None);
        assert_eq!(met("SELECT /* MAX_EXECUTION_TIME(10) */ 1"), None, "a plain comment is no hint");
        assert_eq!(met("SELECT /*+ MAX_EXECUTION_TIME(x) */ 1"), None);
        assert_eq!(met("SEL"), None);
    }
}
