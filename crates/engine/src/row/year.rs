//! YEAR: a year 1901..=2155, or 0 (shown `0000`), held as
//! `Value::Int(year)` and stored in one byte: 0 for 0, else year - 1900
//! (so byte order is year order, in rows and index keys alike).
//!
//! Two-digit input is read as MySQL reads it: 1..=69 are 2001..=2069,
//! 70..=99 are 1970..=1999; the number 0 is 0000 but the strings `'0'` and
//! `'00'` are 2000 (only a four-character `'0000'` is 0000).

/// The year a number stands for (`None`: out of YEAR's range).
pub fn from_number(n: i128) -> Option<i64> {
    match n {
        0 => Some(0),
        1..=69 => Some(2000 + n as i64),
        70..=99 => Some(1900 + n as i64),
        1901..=2155 => Some(n as i64),
        _ => None,
    }
}

/// The year the number `n` read from a string of `len` bytes stands for:
/// as [`from_number`], except that a zero not written as four characters
/// is 2000.
pub fn from_text_number(n: i128, len: usize) -> Option<i64> {
    if n == 0 && len != 4 {
        return Some(2000);
    }
    from_number(n)
}

/// Whether `y` is a YEAR value.
pub fn is_valid(y: i64) -> bool {
    y == 0 || (1901..=2155).contains(&y)
}

/// The stored byte of a valid year.
pub fn to_byte(y: i64) -> u8 {
    debug_assert!(is_valid(y), "{y} is no YEAR");
    if y == 0 {
        0
    } else {
        (y - 1900) as u8
    }
}

/// The year of a stored byte.
pub fn from_byte(b: u8) -> i64 {
    if b == 0 {
        0
    } else {
        1900 + i64::from(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_digit_years_read_as_mysql() {
        assert_eq!(from_number(5), Some(2005));
        assert_eq!(from_number(69), Some(2069));
        assert_eq!(from_number(70), Some(1970));
        assert_eq!(from_number(0), Some(0));
        assert_eq!(from_text_number(0, 1), Some(2000));
        assert_eq!(from_text_number(0, 4), Some(0));
        assert_eq!(from_number(100), None);
        assert_eq!(from_number(1900), None);
        assert_eq!(from_number(2156), None);
    }

    #[test]
    fn bytes_order_like_years() {
        let ys = [0, 1901, 1999, 2000, 2155];
        let bs: Vec<u8> = ys.iter().map(|&y| to_byte(y)).collect();
        assert!(bs.windows(2).all(|w| w[0] < w[1]));
        assert!(ys.iter().all(|&y| from_byte(to_byte(y)) == y));
    }
}
