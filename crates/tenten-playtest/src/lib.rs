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
/// folder's `playtest.json` records the one it began with, and the folder
/// is served and replayed so ever after (its journals were dealt so); a
/// rehearsal's fingerprint holds it, so runs of a server that dealt
/// otherwise are never tallied with today's.
/// - 1: only a game that reached "no piece fits" joined the player's
///   history (a folder's `playtest.json` without `behaviour`).
/// - 2 (session 18): a game left part way (a new game, the session's
///   close) joins it too, as the log reads it; a game left before any move
///   is nobody's game, in the history and the log alike.
pub const BEHAVIOUR: u32 = 2;
pub use server::Server;
pub use status::{Status, status};
