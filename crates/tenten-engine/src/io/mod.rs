//! Files: RON piece sets and deals, batches and their in-place editing, and
//! the DOT/SVG/CSV exports.

pub mod batch;
pub mod batch_file;
pub mod export;
pub mod formats;
pub mod jsonl_log;
pub mod logged;
pub mod playtest_log;
pub mod ron_scan;
