//! What a playtest is served with, and the part of it that decides its
//! deals (kept in the folder, so a restart deals on as it began).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tenten_engine::model::board::BoardSize;
use tenten_engine::model::pieces::{PieceSet, PieceSetDef};
use tenten_engine::play::dealing::{Dealing, DealingDef};

/// A generator testers may be dealt by: the name the designer gave (the
/// logs' `generator`; the page never sees it) and its rules by value.
#[derive(Clone, Debug)]
pub struct Generator {
    pub name: String,
    pub dealing: Dealing,
}

/// How testers are shared among several generators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Assign {
    /// The first tester to arrive gets the first generator, the next the
    /// second, and so on round: equal arms.
    Alternate,
    /// Each new tester's generator drawn at random.
    Random,
}

/// What keeps one client from hurting the others.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The largest request body read; a larger one is refused (413).
    pub body_bytes: usize,
    /// Requests a second a tester may make on average, and in a burst.
    pub per_second: f64,
    pub burst: f64,
    /// Testers with an open session at once; a new one beyond is refused (503).
    pub open_sessions: usize,
    /// Connections at once; one beyond is closed unanswered.
    pub connections: usize,
    /// A client that sends no complete request head in this time is cut off.
    pub header_timeout: Duration,
    /// A request whose handling (its body included) takes longer fails (408).
    pub request_timeout: Duration,
    /// A session with no move for this long ends; the tester's next visit
    /// starts a new one.
    pub idle_session: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            body_bytes: 4096,
            per_second: 20.0,
            burst: 60.0,
            open_sessions: 10_000,
            connections: 4096,
            header_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(10),
            idle_session: Duration::from_secs(30 * 60),
        }
    }
}

/// A playtest server's settings.
#[derive(Clone, Debug)]
pub struct Config {
    pub generators: Vec<Generator>,
    pub set: PieceSet,
    pub size: BoardSize,
    /// Pieces in a holder.
    pub k: usize,
    pub out: PathBuf,
    pub bind: SocketAddr,
    pub assign: Assign,
    /// The token every request must carry; `None` serves without one (on
    /// the loopback address only, unless the caller insists).
    pub token: Option<String>,
    pub limits: Limits,
}

/// Everything that decides a playtest's deals, as `playtest.json` holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Identity {
    pub pieces: PieceSetDef,
    pub board: String,
    pub holder: usize,
    pub generators: Vec<(String, DealingDef)>,
    pub assign: Assign,
}

impl Config {
    pub fn identity(&self) -> Identity {
        Identity {
            pieces: self.set.to_def(),
            board: self.size.to_string(),
            holder: self.k,
            generators: self
                .generators
                .iter()
                .map(|g| (g.name.clone(), g.dealing.to_def()))
                .collect(),
            assign: self.assign,
        }
    }

    pub fn generator(&self, name: &str) -> Option<usize> {
        self.generators.iter().position(|g| g.name == name)
    }
}
