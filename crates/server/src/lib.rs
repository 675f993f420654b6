//! quire's MySQL server (`DESIGN.md`: server/): the client/server wire
//! protocol (`proto`), configuration from `my.cnf` and the command line
//! (`config`), and the glue that serves SQL sessions over connections.

#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod backend;
pub mod config;
pub mod proto;
pub mod serve;
pub mod thread_pool;
