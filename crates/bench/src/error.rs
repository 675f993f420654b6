//! One error type for the whole benchmark: a message a user can act on
//! ("cannot connect to 127.0.0.1:3317 (target mariadb): Connection
//! refused"), built with context as it travels up.

use std::fmt;

/// A failed benchmark step, as a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub message: String,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Error { message: message.into() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// Adds "what we were doing" in front of an error's message.
pub trait Context<T> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T, E: fmt::Display> Context<T> for std::result::Result<T, E> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| Error::new(format!("{}: {}", what(), describe(&e))))
    }
}

/// An error as a sentence: the `mysql` crate's `MySqlError { ERROR 1238
/// (HY000): ... }` wrapper becomes `ERROR 1238 (HY000): ...`.
pub fn describe(e: &impl fmt::Display) -> String {
    let text = e.to_string();
    for wrapper in ["MySqlError { ", "DriverError { ", "IoError { ", "CodecError { ", "UrlError { "] {
        if let Some(inner) = text.strip_prefix(wrapper).and_then(|t| t.strip_suffix(" }")) {
            return inner.to_string();
        }
    }
    text
}

/// The MySQL error code of a server error (`None` for I/O and driver
/// errors).
pub fn server_code(e: &mysql::Error) -> Option<u16> {
    match e {
        mysql::Error::MySqlError(m) => Some(m.code),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describe_drops_the_client_crates_wrapper() {
        assert_eq!(describe(&"MySqlError { ERROR 1238 (HY000): read only }"), "ERROR 1238 (HY000): read only");
        assert_eq!(describe(&"plain words"), "plain words");
    }
}
