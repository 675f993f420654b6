//! `NUMERIC` is `DECIMAL` in MySQL (a synonym, shown as `decimal` by SHOW
//! CREATE TABLE). sqlparser reads `DECIMAL(p[,s]) UNSIGNED` but not the
//! same with `NUMERIC`: a CREATE or ALTER TABLE that failed to parse is
//! retried with the type word replaced. `NUMERIC` is a reserved word in
//! MySQL, so an unquoted one is always the type (a quoted identifier or a
//! string is a different token and stays).

use sqlparser::tokenizer::{Token, Tokenizer};

/// The statement with each unquoted `NUMERIC` written `DECIMAL`, if it is
/// a CREATE / ALTER TABLE that has one.
pub fn as_decimal(text: &str) -> Option<String> {
    let tokens = Tokenizer::new(&sqlparser::dialect::MySqlDialect {}, text).tokenize().ok()?;
    let mut words = tokens.iter().filter_map(|t| match t {
        Token::Word(w) => Some(w.value.to_ascii_uppercase()),
        _ => None,
    });
    if !matches!(words.next().as_deref(), Some("CREATE" | "ALTER")) {
        return None;
    }
    let mut changed = false;
    let mut out = String::with_capacity(text.len());
    for t in &tokens {
        match t {
            Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("numeric") => {
                out.push_str("DECIMAL");
                changed = true;
            }
            _ => out.push_str(&t.to_string()),
        }
    }
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::as_decimal;

    #[test]
    fn only_the_unquoted_type_word_changes() {
        assert_eq!(
            as_decimal("CREATE TABLE t (a NUMERIC(5) UNSIGNED, `numeric` int DEFAULT 'numeric')").as_deref(),
            Some("CREATE TABLE t (a DECIMAL(5) UNSIGNED, `numeric` int DEFAULT 'numeric')")
        );
        assert_eq!(as_decimal("SELECT 1 AS numeric"), None);
        assert_eq!(as_decimal("CREATE TABLE t (a int)"), None);
    }
}
