//! Statement texts that are not UTF-8: string literals holding raw bytes.
//!
//! mariadb-dump and mysqldump write BINARY, VARBINARY, BLOB and BIT values
//! as quoted strings of their raw bytes (only NUL, quotes, backslash,
//! newline, CR and ^Z escaped), so a dump's INSERT is usually not UTF-8
//! text. MySQL reads such a literal as bytes of the connection character
//! set, which a binary column then stores as they are. quire's statements
//! are Rust strings, so [`to_text`] rewrites each such literal to the hex
//! literal of the same bytes (`X'00FF10'`), a binary string, before the
//! statement is parsed. Only literals that are not UTF-8 are rewritten;
//! everything outside string literals must still be UTF-8 (else `None`,
//! and the caller answers 1300 as before).
//!
//! Escapes are read as quire's lexer reads them (backslash escapes on:
//! quire has no NO_BACKSLASH_ESCAPES): `\0 \' \" \b \n \r \t \Z \\`, a
//! doubled quote, `\%` and `\_` kept with their backslash, any other
//! `\x` as `x`. Comments (`/* */`, `-- `, `#`) and backquoted identifiers
//! are copied as they are. A UTF-8 text never comes here: the hot path
//! pays nothing.

/// `sql` with every string literal that is not UTF-8 replaced by the hex
/// literal of its bytes; `None` when bytes outside a string literal are
/// not UTF-8 (or a literal is not closed).
pub fn to_text(sql: &[u8]) -> Option<String> {
    let mut out: Vec<u8> = Vec::with_capacity(sql.len() * 2);
    let mut i = 0;
    while i < sql.len() {
        let b = sql[i];
        match b {
            b'\'' | b'"' => {
                let (end, bytes) = literal(sql, i)?;
                let source = &sql[i..end];
                if std::str::from_utf8(source).is_ok() {
                    out.extend_from_slice(source);
                } else {
                    // `_binary'..'` becomes `_binary X'..'`.
                    if out.last().is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
                        out.push(b' ');
                    }
                    out.extend_from_slice(b"X'");
                    for x in bytes {
                        out.extend_from_slice(format!("{x:02X}").as_bytes());
                    }
                    out.push(b'\'');
                }
                i = end;
            }
            b'`' => {
                let end = sql[i + 1..].iter().position(|&c| c == b'`').map(|p| i + 2 + p)?;
                out.extend_from_slice(&sql[i..end]);
                i = end;
            }
            b'/' if sql.get(i + 1) == Some(&b'*') => {
                let end = sql[i + 2..].windows(2).position(|w| w == b"*/").map_or(sql.len(), |p| i + 4 + p);
                out.extend_from_slice(&sql[i..end]);
                i = end;
            }
            b'#' => i = copy_line(sql, i, &mut out),
            b'-' if sql.get(i + 1) == Some(&b'-') && sql.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) => {
                i = copy_line(sql, i, &mut out)
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// Copies a comment running to the end of the line; the index after it.
fn copy_line(sql: &[u8], i: usize, out: &mut Vec<u8>) -> usize {
    let end = sql[i..].iter().position(|&c| c == b'\n').map_or(sql.len(), |p| i + p);
    out.extend_from_slice(&sql[i..end]);
    end
}

/// The literal opening at `start` (a quote): the index after its closing
/// quote and the bytes it denotes.
fn literal(sql: &[u8], start: usize) -> Option<(usize, Vec<u8>)> {
    let q = sql[start];
    let mut bytes = Vec::new();
    let mut i = start + 1;
    loop {
        let b = *sql.get(i)?;
        if b == q {
            if sql.get(i + 1) == Some(&q) {
                bytes.push(q);
                i += 2;
                continue;
            }
            return Some((i + 1, bytes));
        }
        if b == b'\\' {
            let e = *sql.get(i + 1)?;
            match e {
                b'0' => bytes.push(0),
                b'b' => bytes.push(8),
                b'n' => bytes.push(b'\n'),
                b'r' => bytes.push(b'\r'),
                b't' => bytes.push(b'\t'),
                b'Z' => bytes.push(26),
                b'%' | b'_' => bytes.extend_from_slice(&[b'\\', e]),
                other => bytes.push(other),
            }
            i += 2;
            continue;
        }
        bytes.push(b);
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_of_raw_bytes_become_hex_literals_of_the_same_bytes() {
        let sql = b"INSERT INTO t VALUES (1,'\\0\xff\\'\\\\x','ok \xc3\xa9',\"\xff\xfe\")";
        assert_eq!(to_text(sql).unwrap(), "INSERT INTO t VALUES (1,X'00FF275C78','ok \u{e9}',X'FFFE')");
    }

    #[test]
    fn text_outside_literals_must_be_utf8_and_comments_are_kept() {
        assert_eq!(to_text(b"SELECT \xff"), None);
        assert_eq!(to_text(b"SELECT '\xff"), None, "an unclosed literal");
        let sql = b"/* it's */ SELECT `a'b`, '\xff' -- don't\n# o'k\n";
        assert_eq!(to_text(sql).unwrap(), "/* it's */ SELECT `a'b`, X'FF' -- don't\n# o'k\n");
        assert_eq!(to_text(b"SELECT 'a''\x80'").unwrap(), "SELECT X'612780'");
        assert_eq!(to_text(b"SELECT _binary'\xff'").unwrap(), "SELECT _binary X'FF'");
    }
}
