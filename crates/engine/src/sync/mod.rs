//! Synchronisation primitives: the hybrid frame latch, optimistic page views
//! and contention-free counters. All `unsafe` concerning concurrent access to
//! page memory lives in this module and in `buffer::frame`.

pub mod counter;
pub mod latch;
pub mod priority;
pub mod view;

pub use counter::Counter;
pub use latch::HybridLatch;
pub use view::{OptPage, PageView};
