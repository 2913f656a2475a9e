//! A playtest from the Population view: its folder followed live (read
//! every two seconds on a job: the journals replayed, nothing changed), a
//! refit when enough new games arrived, and a server run on a job until
//! stopped (its cancel is the server's shutdown).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tenten_engine::model::board::BoardSize;
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::play::dealing::Dealing;
use tenten_playtest::{Assign, Config, Generator, Limits, Server, Status};

use super::job::{Background, Job};

/// How often a followed folder is read again.
pub const EVERY: Duration = Duration::from_secs(2);

/// What a server job says.
pub enum ServerMessage {
    /// Listening: the link testers open, and what the folder held.
    Started {
        link: String,
        resumed: String,
    },
    Failed(String),
}

/// A server to start: the generator testers are dealt by, the game's
/// rules, the folder, and whether other devices may reach it.
pub struct ServeRequest {
    pub generator: String,
    pub set: PieceSet,
    pub size: BoardSize,
    pub k: usize,
    pub folder: PathBuf,
    pub open: bool,
}

#[derive(Default)]
pub struct PlaytestLive {
    /// The folder followed, if any.
    pub folder: Option<PathBuf>,
    pub status: Option<Result<Status, String>>,
    /// When the folder was last read.
    pub read_at: Option<Instant>,
    reading: Option<Job<Result<Status, String>>>,
    /// Refit when this many games arrived since the last fit.
    pub refit_every: Option<u64>,
    /// Games in the folder when its population was last fitted.
    pub fitted_at: Option<u64>,
    pub server: Option<Job<ServerMessage>>,
    pub link: Option<String>,
    pub served: Option<PathBuf>,
    pub server_error: Option<String>,
}

impl Background for PlaytestLive {
    type Message = ServerMessage;
    fn job(&self) -> Option<&Job<ServerMessage>> {
        self.server.as_ref()
    }
}

impl PlaytestLive {
    pub fn follow(&mut self, folder: Option<PathBuf>) {
        if let Some(j) = self.reading.take() {
            j.cancel();
        }
        self.folder = folder;
        self.status = None;
        self.read_at = None;
        self.fitted_at = None;
    }

    /// Games in the folder, as last read.
    pub fn games(&self) -> Option<u64> {
        match &self.status {
            Some(Ok(s)) => Some(s.total().games),
            _ => None,
        }
    }

    /// Takes what the jobs sent, reads the folder again when due; true
    /// when a refit is due (enough new games since the last fit).
    pub fn poll(&mut self, ctx: &egui::Context) -> bool {
        if let Some(job) = &mut self.reading {
            if let Some(r) = job.drain().pop() {
                self.status = Some(r);
            }
            if job.ended() {
                self.reading = None;
            }
        }
        if let Some(job) = &mut self.server {
            for m in job.drain() {
                match m {
                    ServerMessage::Started { link, .. } => self.link = Some(link),
                    ServerMessage::Failed(e) => self.server_error = Some(e),
                }
            }
            if job.ended() {
                self.server = None;
                self.link = None;
            }
        }
        let Some(folder) = self.folder.clone() else {
            return false;
        };
        let due = self.read_at.is_none_or(|t| t.elapsed() >= EVERY);
        if due && self.reading.is_none() {
            self.read_at = Some(Instant::now());
            let read = Job::spawn("playtest-status", ctx, move |send, _| {
                send(tenten_playtest::status(&folder).map_err(|e| e.to_string()));
            });
            match read {
                Ok(j) => self.reading = Some(j),
                Err(e) => self.status = Some(Err(format!("cannot read the folder: {e}"))),
            }
        }
        ctx.request_repaint_after(EVERY);
        match (self.refit_every, self.games()) {
            (Some(n), Some(games)) if games > 0 => games >= self.fitted_at.unwrap_or(0) + n,
            _ => false,
        }
    }

    /// Starts a server on `req` (on a job; its cancel stops it).
    pub fn serve(&mut self, req: ServeRequest, ctx: &egui::Context) {
        if self.server.is_some() {
            return;
        }
        self.server_error = None;
        self.link = None;
        self.served = Some(req.folder.clone());
        let job = Job::spawn("playtest-server", ctx, move |send, progress| {
            let dealing = match Dealing::by_name(&req.generator, &req.set) {
                Ok(d) => d,
                Err(e) => return send(ServerMessage::Failed(e.to_string())),
            };
            let config = Config {
                generators: vec![Generator {
                    name: req.generator.clone(),
                    dealing,
                }],
                set: req.set,
                size: req.size,
                k: req.k,
                out: req.folder,
                bind: if req.open {
                    ([0, 0, 0, 0], 8080).into()
                } else {
                    ([127, 0, 0, 1], 8080).into()
                },
                assign: Assign::Alternate,
                token: req.open.then(|| tenten_playtest::ids::random_hex(16)),
                limits: Limits::default(),
            };
            let server = match Server::bind(config) {
                Ok(s) => s,
                Err(e) => return send(ServerMessage::Failed(e.to_string())),
            };
            let r = &server.recovery;
            send(ServerMessage::Started {
                link: server.link(),
                resumed: format!("{} testers so far, {} sessions resumed", r.testers, r.resumed),
            });
            let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
                Ok(rt) => rt,
                Err(e) => return send(ServerMessage::Failed(format!("cannot start the server: {e}"))),
            };
            let stopped = async {
                while !progress.cancelled() {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            };
            if let Err(e) = runtime.block_on(server.run(stopped)) {
                send(ServerMessage::Failed(format!("the server failed: {e}")));
            }
        });
        match job {
            Ok(j) => self.server = Some(j),
            Err(e) => self.server_error = Some(format!("cannot start the server: {e}")),
        }
    }
}
