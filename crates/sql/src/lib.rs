//! quire's SQL layer (`DESIGN.md`: sql/): the catalog of databases and
//! users, sessions, system variables, and statements parsed with
//! `sqlparser` (MySQL dialect), planned and executed against the engine.

#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod sysvars;
