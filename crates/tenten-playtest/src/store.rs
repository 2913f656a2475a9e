//! A playtest's testers and their sessions: opened, played, left and
//! closed. Every event is journalled (synced) before it changes anything in
//! memory, and a request whose write fails leaves the session as it was
//! and says so. The logs follow the journal: a log write that fails is
//! retried with the next, and the journal restores it at the next start.
//! No file is held open between requests.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tenten_engine::play::adaptive::History;

use tenten_engine::io::jsonl_log::{Place, Record};
use tenten_engine::io::playtest_log::Logged;

use crate::config::{Assign, Config};
use crate::ids;
use crate::journal::{self, Event, now};
use crate::lock::FolderLock;
use crate::recover::{self, Recovery};
use crate::table::{self, Placed, Refusal, Table};

/// A closed deal: the deal, where it sits, the times of its moves.
pub type Closed = (Logged, Place, Vec<u64>);

/// What went wrong with a request or the folder.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Refused(Refusal),
    #[error("{0}")]
    Bad(String),
    #[error("no open session {0} for this tester; reload the page")]
    NoSession(u32),
    #[error("no such tester here; reload the page")]
    Unknown,
    #[error("the playtest is full ({0} testers are playing); try again later")]
    Full(usize),
    /// Too many testers arriving at once (the arrival rate).
    #[error("many testers are arriving at once; try again in a moment")]
    Busy,
    /// The tester has not agreed to the study yet.
    #[error("agree to the study first; reload the page")]
    NotAgreed,
    /// A write failed; nothing was changed.
    #[error("{0}")]
    Folder(String),
    /// A write failed and could not be taken back: the session is read
    /// again from its journal before the tester's next request.
    #[error("{0}")]
    Doubt(String),
}

pub(crate) fn io_error(path: &Path, what: &str, e: std::io::Error) -> Error {
    Error::Folder(format!("{}: cannot {what}: {e}", path.display()))
}

/// Appends `event` to the tester's journal at `path`. On failure nothing
/// changed, unless taking the line back failed too: then the tester's
/// session is read again from the journal before their next request.
fn journal_event(
    faults: &crate::disk::Faults,
    reload: &mut bool,
    path: &Path,
    event: &Event,
) -> Result<(), Error> {
    journal::append(faults, path, event).map_err(|e| {
        let message = format!("{}: cannot write: {e}", path.display());
        if crate::disk::in_doubt(&e) {
            *reload = true;
            Error::Doubt(message)
        } else {
            Error::Folder(message)
        }
    })
}

/// One tester's open session.
pub struct Session {
    pub number: u32,
    pub generator: usize,
    pub journal: PathBuf,
    pub log: PathBuf,
    pub table: Table,
    /// Seconds since 1970 of the last event.
    pub last: u64,
    /// Closed deals whose log line is not written yet (a log write failed).
    pending: Vec<Record>,
}

/// A tester: their generator (kept across sessions) and their session.
pub struct Tester {
    pub id: String,
    pub generator: usize,
    /// Sessions begun so far (the next is numbered this).
    pub sessions: u32,
    pub session: Option<Session>,
    /// The study the tester agreed to (its hash).
    pub agreed: Option<String>,
    /// A write could not be taken back: the session is read again from
    /// its journal (the truth) before the next request.
    reload: bool,
    /// Taken back by `forget_new` (its first session refused): a request
    /// that waited on its lock must look the id up again.
    pub gone: bool,
    /// The tester's games before the open session (all of them, with none
    /// open): a generator's adaptive rules read them, across sessions and
    /// restarts (`recover` replays every session in order).
    pub history: History,
}

impl Tester {
    /// The tester's games so far, the open session's included (its open
    /// game as if left now: what the next session is dealt from).
    pub fn games_so_far(&self) -> History {
        self.session
            .as_ref()
            .map_or_else(|| self.history.clone(), |s| s.table.games_if_left())
    }
}

pub struct Store {
    pub config: Config,
    pub dir: PathBuf,
    token: Option<String>,
    testers: Mutex<HashMap<String, Arc<Mutex<Tester>>>>,
    open: AtomicUsize,
    /// Testers given a generator so far (alternate assignment); a tester
    /// whose first session is refused gives its turn back.
    arrivals: AtomicUsize,
    _lock: FolderLock,
}

/// The journal folder of a playtest folder.
pub fn journal_dir(dir: &Path) -> PathBuf {
    dir.join("journal")
}

/// The identity file of a playtest folder.
pub fn identity_path(dir: &Path) -> PathBuf {
    dir.join("playtest.json")
}

impl Store {
    /// Opens (or makes) the playtest folder, held by this process alone: a
    /// folder served before must be served with the same generators and
    /// rules. Every session is replayed (one that cannot be is set aside
    /// and reported); open ones idle too long are closed.
    pub fn open(mut config: Config) -> Result<(Self, Recovery), Error> {
        let dir = config.out.clone();
        std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, "make the folder", e))?;
        // A folder of someone else's logs is refused before anything (the
        // lock file included) is made in it.
        recover::refuse_foreign(&dir)?;
        let lock = FolderLock::take(&dir, &config.who).map_err(Error::Folder)?;
        config.behaviour = recover::check_identity(&dir, &config.identity(), &config.faults)?;
        let token = recover::token(&dir, &config.token, &config.faults)?;
        let jdir = journal_dir(&dir);
        std::fs::create_dir_all(&jdir).map_err(|e| io_error(&jdir, "make the folder", e))?;
        let (testers, recovery) = recover::recover(&config, &dir)?;
        let alternate = testers.values().filter(|t| t.sessions > 0).count();
        let store = Self {
            token,
            open: AtomicUsize::new(recovery.resumed),
            arrivals: AtomicUsize::new(alternate),
            testers: Mutex::new(
                testers
                    .into_iter()
                    .map(|(id, t)| (id, Arc::new(Mutex::new(t))))
                    .collect(),
            ),
            config,
            dir,
            _lock: lock,
        };
        Ok((store, recovery))
    }

    /// The token every request must carry, if any.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// The tester `id`, if known. The id's form is checked first, so
    /// nothing is made or looked up for a made-up string.
    pub fn tester(&self, id: &str) -> Result<Arc<Mutex<Tester>>, Error> {
        check_id(id)?;
        self.testers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
            .ok_or(Error::Unknown)
    }

    /// The tester `id`, made (no generator yet, nothing on disk) if new;
    /// `forget_new` takes it back when its first session is refused.
    pub fn arrive(&self, id: &str) -> Result<Arc<Mutex<Tester>>, Error> {
        check_id(id)?;
        let mut map = self.testers.lock().unwrap_or_else(|e| e.into_inner());
        Ok(map
            .entry(id.to_owned())
            .or_insert_with(|| Arc::new(Mutex::new(Tester::known(id.to_owned(), usize::MAX))))
            .clone())
    }

    /// Forgets a tester made by `arrive` whose first session was refused,
    /// so a refusal leaves nothing behind, in memory as on disk. Only this
    /// very tester is removed (not a newer one under the same id), and it is
    /// marked gone for a request that waits on its lock.
    pub fn forget_new(&self, handle: &Arc<Mutex<Tester>>, t: &mut Tester) {
        if t.sessions > 0 || t.session.is_some() {
            return;
        }
        let mut map = self.testers.lock().unwrap_or_else(|e| e.into_inner());
        if map.get(&t.id).is_some_and(|m| Arc::ptr_eq(m, handle)) {
            map.remove(&t.id);
        }
        t.gone = true;
    }

    /// Every tester known, for the idle sweep and the status line.
    pub fn testers(&self) -> Vec<Arc<Mutex<Tester>>> {
        self.testers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect()
    }

    pub fn open_sessions(&self) -> usize {
        self.open.load(Ordering::SeqCst)
    }

    /// Whether the tester must agree to the study before playing.
    pub fn needs_agreement(&self, t: &Tester) -> bool {
        self.config
            .study
            .as_ref()
            .is_some_and(|s| t.agreed.as_deref() != Some(s.hash().as_str()))
    }

    /// The tester agrees to the study: journalled in their open session,
    /// or in the first lines of the one begun now.
    pub fn agree<'t>(&self, t: &'t mut Tester) -> Result<&'t mut Session, Error> {
        let Some(study) = &self.config.study else {
            return self.session(t, false);
        };
        let hash = study.hash();
        if t.agreed.as_deref() == Some(hash.as_str()) {
            return self.session(t, false);
        }
        self.reload(t)?;
        if let Some(s) = &t.session {
            let e = Event::Agree {
                study: hash.clone(),
                at: now(),
            };
            journal_event(&self.config.faults, &mut t.reload, &s.journal, &e)?;
            t.agreed = Some(hash);
            return self.session(t, false);
        }
        let s = self.begin(t, Some(hash.clone()), false)?;
        t.agreed = Some(hash);
        t.session = Some(s);
        Ok(t.session.as_mut().expect("just begun"))
    }

    /// The tester's open session, begun now if there is none, the last is
    /// idle too long, or `fresh` (the tester started one). The new session
    /// is made before the old one is closed, and taken back if the close
    /// fails, so a failed request leaves the tester as they were.
    pub fn session<'t>(&self, t: &'t mut Tester, fresh: bool) -> Result<&'t mut Session, Error> {
        if self.needs_agreement(t) {
            return Err(Error::NotAgreed);
        }
        self.reload(t)?;
        let idle = self.config.limits.idle_session.as_secs();
        // A fresh session for one with no move yet is that one: a client
        // asking again and again makes no file.
        let stale = t.session.as_ref().is_some_and(|s| {
            (fresh && (s.table.game > 0 || s.table.moves > 0)) || now().saturating_sub(s.last) > idle
        });
        if stale {
            let s = self.begin(t, None, true)?;
            if let Err(e) = self.end(t) {
                // Take the new session back, so nothing of this request stays
                // (a crash here instead leaves both open: the next start
                // closes the older).
                let faults = &self.config.faults;
                if !faults.dead() && std::fs::remove_file(&s.journal).is_ok() {
                    let _ = crate::disk::sync_dir(faults, &s.journal);
                    t.sessions -= 1;
                }
                return Err(e);
            }
            t.session = Some(s);
        } else if t.session.is_none() {
            let s = self.begin(t, None, false)?;
            t.session = Some(s);
        }
        Ok(t.session.as_mut().expect("just opened"))
    }

    /// Reads the tester's session again from its journal after a write
    /// that could not be taken back.
    fn reload(&self, t: &mut Tester) -> Result<(), Error> {
        if !t.reload {
            return Ok(());
        }
        if t.session.take().is_some() {
            self.open.fetch_sub(1, Ordering::SeqCst);
        }
        let number = t.sessions - 1;
        let path = journal_dir(&self.dir).join(ids::journal_name(&t.id, number));
        let (lines, _) = journal::read(&self.config.faults, &path).map_err(|e| io_error(&path, "read", e))?;
        let (g, r) =
            crate::replay::replay_lines(&self.config, &path, &lines, &t.id, number, t.history.clone())?;
        let log = self.dir.join(ids::log_name(&t.id, number));
        let records = recover::records(&self.config, &t.id, number, g, &r);
        recover::level_log(&self.config, &self.dir, &log, &records, &mut Recovery::default())?;
        if r.ended {
            // Its close landed: its games are the tester's now.
            t.history = r.history.clone();
        } else {
            let s = recover::session_from(number, g, path, log, r, &self.config)?;
            t.session = Some(s);
            self.open.fetch_add(1, Ordering::SeqCst);
        }
        t.reload = false;
        Ok(())
    }

    /// Begins the tester's next session: its journal made whole (its
    /// session line, the agreement if any, its first game) or not at all.
    /// A refusal (full, or a failed write) leaves nothing behind.
    /// `replacing`: the tester's open session is closed after (it takes
    /// no place of its own).
    fn begin(&self, t: &mut Tester, agreed: Option<String>, replacing: bool) -> Result<Session, Error> {
        let limit = self.config.limits.open_sessions;
        if !replacing && self.open.fetch_add(1, Ordering::SeqCst) >= limit {
            self.open.fetch_sub(1, Ordering::SeqCst);
            return Err(Error::Full(limit));
        }
        // A new tester's arm: their turn taken now, given back if refused.
        let new = t.sessions == 0 && t.generator == usize::MAX;
        let g = if new {
            let count = self.config.generators.len();
            match self.config.assign {
                Assign::Alternate => self.arrivals.fetch_add(1, Ordering::SeqCst) % count,
                Assign::Random => (ids::random_seed() % count as u64) as usize,
            }
        } else {
            t.generator
        };
        let number = t.sessions;
        let path = journal_dir(&self.dir).join(ids::journal_name(&t.id, number));
        let at = now();
        let seed = ids::random_seed();
        let mut games = t.games_so_far();
        games.new_session();
        let mut events = vec![Event::Session {
            tester: t.id.clone(),
            session: number,
            generator: self.config.generators[g].name.clone(),
            at,
            history: self.config.generators[g]
                .dealing
                .adaptive()
                .then(|| games.clone()),
        }];
        events.extend(agreed.map(|study| Event::Agree { study, at }));
        events.push(Event::Game { game: 0, seed, at });
        if let Err(e) = journal::create(&self.config.faults, &path, &events) {
            if !replacing {
                self.open.fetch_sub(1, Ordering::SeqCst);
            }
            if new && self.config.assign == Assign::Alternate {
                self.arrivals.fetch_sub(1, Ordering::SeqCst);
            }
            return Err(io_error(&path, "make the journal", e));
        }
        t.generator = g;
        t.sessions += 1;
        let mut table = Table::new(&self.config, &self.config.generators[g].dealing, 0, seed, games);
        let mut closed = Vec::new();
        table.first(&mut closed);
        let mut s = Session {
            number,
            generator: g,
            journal: path,
            log: self.dir.join(ids::log_name(&t.id, number)),
            table,
            last: at,
            pending: Vec::new(),
        };
        self.queue(&mut s, &t.id, &closed);
        Ok(s)
    }

    /// Ends the tester's open session: its close journalled, then its open
    /// deal logged. A failed write leaves it open.
    pub fn close(&self, t: &mut Tester) -> Result<(), Error> {
        if t.session.is_some() {
            self.end(t)?;
            self.open.fetch_sub(1, Ordering::SeqCst);
        }
        Ok(())
    }

    /// As `close`, the count of open sessions left to the caller.
    fn end(&self, t: &mut Tester) -> Result<(), Error> {
        let Some(s) = t.session.as_mut() else {
            return Ok(());
        };
        journal_event(
            &self.config.faults,
            &mut t.reload,
            &s.journal,
            &Event::Close { at: now() },
        )?;
        let left: Vec<Closed> = s.table.leave().into_iter().collect();
        let id = t.id.clone();
        self.queue(s, &id, &left);
        t.history = s.table.episode.history.clone();
        t.session = None;
        Ok(())
    }

    /// Closes every session idle longer than the limit; how many.
    pub fn sweep(&self) -> usize {
        let idle = self.config.limits.idle_session.as_secs();
        let mut n = 0;
        for t in self.testers() {
            let Ok(mut t) = t.try_lock() else { continue };
            let stale = t
                .session
                .as_ref()
                .is_some_and(|s| now().saturating_sub(s.last) > idle);
            if stale {
                match self.close(&mut t) {
                    Ok(()) => n += 1,
                    Err(e) => eprintln!("playtest: closing an idle session: {e}"),
                }
            }
        }
        n
    }

    /// A move the page sent: checked, journalled (synced), then played and
    /// the deals it closed logged. A refused or failed move changes nothing.
    pub fn play(&self, t: &mut Tester, req: &MoveRequest) -> Result<Placed, Error> {
        if self.needs_agreement(t) {
            return Err(Error::NotAgreed);
        }
        self.reload(t)?;
        let id = t.id.clone();
        let s = match t.session.as_mut() {
            Some(s) if s.number == req.session => s,
            _ => return Err(Error::NoSession(req.session)),
        };
        let anchor = s
            .table
            .check(req.game, req.seen, req.slot, req.x, req.y)
            .map_err(Error::Refused)?;
        let at = now();
        let event = Event::Move {
            game: req.game,
            slot: req.slot,
            x: req.x,
            y: req.y,
            ms: req.ms,
            at,
        };
        journal_event(&self.config.faults, &mut t.reload, &s.journal, &event)?;
        s.last = at;
        let mut closed = Vec::new();
        let placed = s.table.play(req.slot, anchor, req.ms, &mut closed);
        self.queue(s, &id, &closed);
        Ok(placed)
    }

    /// A new game in the tester's session (the one open is left as it is):
    /// its seed journalled first, so a failed write leaves the game open.
    pub fn new_game(&self, t: &mut Tester, session: u32, game: u64) -> Result<(), Error> {
        if self.needs_agreement(t) {
            return Err(Error::NotAgreed);
        }
        self.reload(t)?;
        let id = t.id.clone();
        let s = match t.session.as_mut() {
            Some(s) if s.number == session => s,
            _ => return Err(Error::NoSession(session)),
        };
        if game != s.table.game {
            return Err(Error::Refused(Refusal::Stale(format!(
                "the page asked for a new game after game {game}, and this session is at game {}",
                s.table.game
            ))));
        }
        let (seed, at) = (ids::random_seed(), now());
        let event = Event::Game {
            game: game + 1,
            seed,
            at,
        };
        journal_event(&self.config.faults, &mut t.reload, &s.journal, &event)?;
        let mut closed: Vec<Closed> = s.table.leave().into_iter().collect();
        let mut table = Table::new(
            &self.config,
            &self.config.generators[s.generator].dealing,
            game + 1,
            seed,
            s.table.episode.history.clone(),
        );
        table.first(&mut closed);
        s.table = table;
        s.last = at;
        self.queue(s, &id, &closed);
        Ok(())
    }

    /// Queues the records of closed deals for the session's log, and
    /// writes what is queued.
    fn queue(&self, s: &mut Session, tester: &str, closed: &[Closed]) {
        let generator = &self.config.generators[s.generator].name;
        s.pending.extend(
            closed
                .iter()
                .map(|c| table::record(&self.config, tester, s.number, generator, c)),
        );
        flush(&self.config, s);
    }
}

/// Writes a session's queued log lines in one append. The journal holds
/// what they say, so a failure loses nothing: they stay queued for the next
/// write, and a restart levels the log from the journal.
pub(crate) fn flush(config: &Config, s: &mut Session) {
    if s.pending.is_empty() {
        return;
    }
    let text: String = s.pending.iter().map(table::log_line).collect();
    match crate::disk::append(&config.faults, &s.log, text.as_bytes(), false, true) {
        Ok(()) => s.pending.clear(),
        Err(e) => eprintln!(
            "playtest: {}: cannot write ({e}); {} deal{} kept for the next write (the journal holds them)",
            s.log.display(),
            s.pending.len(),
            if s.pending.len() == 1 { "" } else { "s" }
        ),
    }
}

impl Session {
    pub(crate) fn resumed(
        number: u32,
        generator: usize,
        journal: PathBuf,
        log: PathBuf,
        table: Table,
        last: u64,
    ) -> Self {
        Self {
            number,
            generator,
            journal,
            log,
            table,
            last,
            pending: Vec::new(),
        }
    }
}

impl Tester {
    pub(crate) fn known(id: String, generator: usize) -> Self {
        Self {
            id,
            generator,
            sessions: 0,
            session: None,
            agreed: None,
            reload: false,
            gone: false,
            history: History::default(),
        }
    }
}

fn check_id(id: &str) -> Result<(), Error> {
    if ids::is_tester(id) {
        return Ok(());
    }
    Err(Error::Bad(format!(
        "tester id {:?} is not {} lower-case hex digits",
        id.chars().take(40).collect::<String>(),
        ids::TESTER_LEN
    )))
}

/// A move as the page sends it.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    pub tester: String,
    pub session: u32,
    pub game: u64,
    /// Moves the page had seen made in the game.
    pub seen: u64,
    pub slot: usize,
    pub x: usize,
    pub y: usize,
    /// Milliseconds since the deal was shown.
    #[serde(default)]
    pub ms: u64,
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
