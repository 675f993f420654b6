//! The connection's character set and collation variables and SET NAMES,
//! checked against what quire has (`create::charset`): an unknown
//! character set is 1115, an unknown collation 1273, a collation of another
//! character set 1253.
//!
//! quire's connections speak UTF-8 (utf8mb4) and string literals compare
//! as utf8mb4_general_ci, so a client character set other than the utf8
//! family, or a collation_connection other than utf8mb4_general_ci, is
//! refused with 1235 rather than accepted and ignored. character_set_server
//! and character_set_database likewise (a table's default is utf8mb4
//! unless its CREATE TABLE names another).

use quire_engine::row::Collation;

use crate::create::charset;
use crate::error::{Result, SqlError};

fn utf8_family(name: &str) -> bool {
    matches!(name.to_ascii_lowercase().as_str(), "utf8mb4" | "utf8" | "utf8mb3")
}

/// Checks a value for one of the character set / collation variables;
/// returns the value to store (the canonical name), or `None` for another
/// variable.
pub fn check_var(name: &str, value: &str) -> Result<Option<String>> {
    match name {
        "character_set_client"
        | "character_set_connection"
        | "character_set_results"
        | "character_set_server"
        | "character_set_database" => {
            charset::charset(value)?;
            let binary_results = name == "character_set_results" && value.eq_ignore_ascii_case("binary");
            if !(utf8_family(value) || binary_results) {
                return Err(SqlError::unsupported(format!(
                    "{name} = {value} (connections speak utf8mb4 and tables default to it)"
                )));
            }
            Ok(Some("utf8mb4".into()))
        }
        "collation_connection" | "collation_server" | "collation_database" => {
            let c = charset::collation(value)?;
            if c != Collation::Utf8mb4GeneralCi {
                return Err(SqlError::unsupported(format!(
                    "{name} = {} (string literals compare as utf8mb4_general_ci)",
                    c.name()
                )));
            }
            Ok(Some(c.name().into()))
        }
        _ => Ok(None),
    }
}

/// `SET NAMES cs [COLLATE coll]`: the variables it sets, checked.
pub fn set_names(cs: &str, coll: Option<&str>) -> Result<Vec<(&'static str, String)>> {
    let chosen = charset::resolve(Some(cs), coll)?.unwrap_or(Collation::Utf8mb4GeneralCi);
    let cs = check_var("character_set_client", cs)?.unwrap_or_default();
    let coll = check_var("collation_connection", chosen.name())?.unwrap_or_default();
    Ok(vec![
        ("character_set_client", cs.clone()),
        ("character_set_connection", cs.clone()),
        ("character_set_results", cs),
        ("collation_connection", coll),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_and_what_quire_cannot_do_is_refused() {
        assert_eq!(set_names("utf8mb4", None).unwrap().len(), 4);
        assert_eq!(set_names("latin1", Some("utf8mb4_bin")).unwrap_err().code, 1253);
        assert_eq!(set_names("klingon", None).unwrap_err().code, 1115);
        assert_eq!(set_names("utf8mb4", Some("nope")).unwrap_err().code, 1273);
        assert_eq!(set_names("latin1", None).unwrap_err().code, 1235);
        assert_eq!(check_var("collation_connection", "utf8mb4_unicode_ci").unwrap_err().code, 1235);
        assert_eq!(check_var("sql_mode", "x").unwrap(), None);
    }
}
