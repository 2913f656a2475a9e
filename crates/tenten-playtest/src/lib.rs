//! A playtest with people (`tenten playtest serve`): one page, served with
//! every asset embedded, on which testers play by mouse or finger; the
//! server deals each holder with the designer's generator, checks every
//! move with the engine, and acknowledges a move only once it is on disk.
//!
//! A folder holds one playtest: `playtest.json` (what decides its deals),
//! one JSON Lines log per tester session (`TESTER-sN.jsonl`, the format
//! every fit reads), and `journal/` (each session's events, appended and
//! synced before a reply: the truth a restarted server resumes from).

pub mod config;
pub mod disk;
pub mod forget;
pub mod ids;
pub mod journal;
pub mod lock;
pub mod recover;
pub mod replay;
pub mod server;
pub mod status;
pub mod store;
pub mod table;

mod api;
mod guard;
mod limits;
mod page;

pub use config::{Assign, Config, Generator, Limits, Study, Token};
pub use server::Server;
pub use status::{Status, status};
