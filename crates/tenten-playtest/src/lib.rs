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

/// The server's behaviour version: it moves whenever the same requests
/// would be dealt differently (the engine's own is `plan::ENGINE`). A
/// rehearsal's fingerprint holds it, so runs of a server that dealt
/// otherwise are never tallied with today's. 2: a game left before its end
/// joins the player's history, as the log reads it (before, an adaptive
/// generator's rules never heard of it).
pub const BEHAVIOUR: &str = "2";
pub use server::Server;
pub use status::{Status, status};
