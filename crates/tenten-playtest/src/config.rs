//! What a playtest is served with, and the part of it that decides its
//! deals (kept in the folder, so a restart deals on as it began).

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tenten_engine::model::board::BoardSize;
use tenten_engine::model::pieces::{PieceSet, PieceSetDef};
use tenten_engine::play::dealing::{Dealing, DealingDef};

use crate::disk::Faults;

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
    /// Connections at once from one client address (the trusted proxy's
    /// own connections excepted): one client cannot take every slot. High
    /// enough for a room of phones behind one NAT (an office's Wi-Fi, a
    /// carrier's shared address), a sixteenth of the connection cap.
    pub per_address: usize,
    /// New testers a second, all together, on average and in a burst.
    pub arrivals_per_second: f64,
    pub arrival_burst: f64,
    /// New testers a second from one client address (a burst of twelve
    /// seconds' worth: a room of phones behind one NAT arrives at once):
    /// one client making up ids cannot take every arrival.
    pub arrivals_per_address: f64,
    /// The longest a tester may take over a deal, in the page's `ms`
    /// (a day: a tab left open overnight); more is refused as malformed.
    pub max_ms: u64,
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
            per_address: 256,
            arrivals_per_second: 50.0,
            arrival_burst: 200.0,
            arrivals_per_address: 10.0,
            max_ms: 24 * 3600 * 1000,
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
    /// Whether every request must carry a token, and which: see `Token`.
    pub token: Token,
    pub limits: Limits,
    /// What testers are told before their first game and agree to (the
    /// agreement is journalled); `None` asks nothing.
    pub study: Option<Study>,
    /// A reverse proxy in front: its connections are not capped per
    /// address, and a request through it is the client's named last in
    /// `X-Forwarded-For` (trusted from this address only).
    pub trusted_proxy: Option<IpAddr>,
    /// Host names (besides IP literals and `localhost`) requests may be
    /// addressed to: the proxy's public name, this machine's name. Only an
    /// IP literal or a listed name passes, so no rebinding of a name an
    /// attacker owns reaches the server.
    pub allowed_hosts: Vec<String>,
    /// Failures injected under the journal and the logs (tests only; none
    /// by default).
    pub faults: Arc<Faults>,
    /// Who serves, as a second server on the folder is told
    /// ("tenten playtest serve", "the workbench's window").
    pub who: String,
    /// The server's behaviour (`crate::BEHAVIOUR` for a new folder; a
    /// folder begun by an older server keeps its own, `Store::open`).
    pub behaviour: u32,
}

/// The join token of a playtest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    /// No token (the loopback address only, unless the caller insists).
    None,
    /// The folder's token (`token` in the folder, mode 0600), made on the
    /// first start: a restart keeps every tester's link working.
    Kept,
    /// A new token replaces the folder's (old links stop working).
    New,
}

/// A study's text, shown before a tester's first game (`--study FILE`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Study {
    /// The study's name, the page's heading.
    pub title: String,
    /// What is recorded and why, in plain words (paragraphs split by a
    /// blank line).
    pub text: String,
    /// Whom to ask, and how to be forgotten.
    pub contact: String,
}

impl Study {
    /// Reads a study file (RON: `(title: "…", text: "…", contact: "…")`),
    /// checked: every field given, none empty, none absurdly long.
    pub fn read(path: &std::path::Path) -> Result<Self, String> {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        if text.len() > 64 * 1024 {
            return Err(format!(
                "{}: {} bytes; a study text is at most 64 KiB",
                path.display(),
                text.len()
            ));
        }
        let s: Study = ron::from_str(&text).map_err(|e| {
            format!(
                "{}:{}:{}: {} (a study is (title: \"…\", text: \"…\", contact: \"…\"))",
                path.display(),
                e.span.start.line,
                e.span.start.col,
                e.code
            )
        })?;
        for (name, v) in [("title", &s.title), ("text", &s.text), ("contact", &s.contact)] {
            if v.trim().is_empty() {
                return Err(format!("{}: the study's {name} is empty", path.display()));
            }
        }
        Ok(s)
    }

    /// What a tester agrees to, as the journal records it.
    pub fn hash(&self) -> String {
        let text = serde_json::to_string(self).expect("plain data");
        format!("{:016x}", tenten_engine::io::formats::content_hash(&text))
    }
}

/// Everything that decides a playtest's deals, as `playtest.json` holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Identity {
    pub pieces: PieceSetDef,
    pub board: String,
    pub holder: usize,
    pub generators: Vec<(String, DealingDef)>,
    pub assign: Assign,
    /// The server's behaviour the folder began with (`crate::BEHAVIOUR`);
    /// a folder written before it was recorded is behaviour 1.
    #[serde(default = "first_behaviour")]
    pub behaviour: u32,
}

fn first_behaviour() -> u32 {
    1
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
            behaviour: self.behaviour,
        }
    }

    pub fn generator(&self, name: &str) -> Option<usize> {
        self.generators.iter().position(|g| g.name == name)
    }
}
