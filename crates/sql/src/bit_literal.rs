//! MySQL's `0b101` spelling of a bit literal (the same value as `b'101'`).
//!
//! sqlparser's MySQL dialect lets identifiers start with digits, so it
//! reads `0b101` as one word; MySQL reads a word that is `0b` and binary
//! digits as a bit literal (`0b102` or `0B101` stay identifiers, as
//! there). Before parsing, such words become the token `b'101'` makes.

use sqlparser::tokenizer::Token;

/// Whether `w` is `0b` followed by binary digits (only those).
fn is_bit_word(w: &str) -> bool {
    w.strip_prefix("0b").is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b == b'0' || b == b'1'))
}

/// `tokens` (or `text` tokenized, when `tokens` is `None`) with each
/// `0b...` word made a bit literal; `None` when there is none (the common
/// case: a scan of the text for `0b` decides without tokenizing).
pub fn rewrite(text: &str, tokens: Option<Vec<Token>>) -> Option<Vec<Token>> {
    if !text.contains("0b") {
        return tokens;
    }
    let mut tokens = match tokens {
        Some(t) => t,
        None => {
            let dialect = sqlparser::dialect::MySqlDialect {};
            sqlparser::tokenizer::Tokenizer::new(&dialect, text).tokenize().ok()?
        }
    };
    for t in &mut tokens {
        if let Token::Word(w) = t {
            if w.quote_style.is_none() && is_bit_word(&w.value) {
                *t = Token::SingleQuotedByteStringLiteral(w.value[2..].to_string());
            }
        }
    }
    Some(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_lowercase_0b_with_binary_digits_is_a_bit_literal() {
        let t = rewrite("SELECT 0b101, 0b102, 0B1, `0b1`", None).unwrap();
        let lits: Vec<&Token> = t.iter().filter(|t| matches!(t, Token::SingleQuotedByteStringLiteral(_))).collect();
        assert_eq!(lits, vec![&Token::SingleQuotedByteStringLiteral("101".into())]);
        assert!(rewrite("SELECT 1", None).is_none());
    }
}
