//! GET DIAGNOSTICS and RESIGNAL sent by a client, outside any program:
//! each runs as a program of one statement. GET DIAGNOSTICS reads the
//! area the previous statement left and adds to it what it raises
//! itself (1758); GET STACKED DIAGNOSTICS and RESIGNAL find no handler
//! running (1887, 1645).

use super::ast::{Kind, Stmt};
use super::exec::{prepare, Names, Prepared};
use crate::error::Result;

/// `sql` as a program when it is GET DIAGNOSTICS or RESIGNAL.
pub fn parse(sql: &str) -> Result<Option<Prepared>> {
    let text = sql.trim_start();
    let first = &text[..text.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(text.len())];
    if !(first.eq_ignore_ascii_case("GET") || first.eq_ignore_ascii_case("RESIGNAL")) {
        return Ok(None);
    }
    let stmt = super::parse::program_of(sql, Kind::Procedure).map_err(|mut e| {
        // The parser reads bodies, whose lines count from their CREATE.
        if e.code == 1064 && !sql.contains('\n') {
            e.message.push_str(" at line 1");
        }
        e
    })?;
    if !matches!(stmt, Stmt::GetDiagnostics(_) | Stmt::Resignal { .. }) {
        return Ok(None);
    }
    prepare(&stmt, &Names::routine(Kind::Procedure, vec![])).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_get_diagnostics_and_resignal_are_taken() {
        assert!(parse("GET DIAGNOSTICS @n = NUMBER").unwrap().is_some());
        assert!(parse("  resignal SET MESSAGE_TEXT = 'x'").unwrap().is_some());
        assert!(parse("SELECT 1").unwrap().is_none());
        assert!(parse("GETX").unwrap().is_none());
        assert_eq!(parse("GET DIAGNOSTICS x = NUMBER").err().map(|e| e.code), Some(1327));
        assert_eq!(parse("GET DIAGNOSTICS CONDITION 1+0 @m = MESSAGE_TEXT").err().map(|e| e.code), Some(1064));
    }
}
