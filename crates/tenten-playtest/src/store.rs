//! A playtest's folder and its testers: sessions opened, played, left and
//! closed; every event journalled and synced before it changes anything a
//! tester is shown; and, when a server starts, every session replayed from
//! its journal, its log brought level, and the open games resumed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tenten_engine::io::jsonl_log::{Place, Record};
use tenten_engine::io::playtest_log::Logged;

use crate::config::{Assign, Config, Identity};
use crate::ids;
use crate::journal::{Event, Lines, Torn, now};
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
    #[error("{0}")]
    Folder(String),
}

fn io_error(path: &Path, what: &str, e: std::io::Error) -> Error {
    Error::Folder(format!("{}: cannot {what}: {e}", path.display()))
}

/// One tester's open session.
pub struct Session {
    pub number: u32,
    pub generator: usize,
    journal: Lines,
    log: Lines,
    pub table: Table,
    /// Seconds since 1970 of the last event.
    pub last: u64,
}

/// A tester: their generator (kept across sessions) and their session.
pub struct Tester {
    pub id: String,
    pub generator: usize,
    /// Sessions begun so far (the next is numbered this).
    pub sessions: u32,
    pub session: Option<Session>,
    /// A write failed after the journal took an event: the session is read
    /// back from its journal on the tester's next request.
    broken: bool,
}

/// What a server found in its folder when it started.
#[derive(Debug, Default)]
pub struct Recovery {
    pub testers: usize,
    pub resumed: usize,
    pub closed_idle: usize,
    /// Deals written to logs from their journals (the crash came between).
    pub restored: usize,
    pub torn: Vec<Torn>,
}

pub struct Store {
    pub config: Config,
    pub dir: PathBuf,
    testers: Mutex<HashMap<String, Arc<Mutex<Tester>>>>,
    open: AtomicUsize,
    arrivals: AtomicUsize,
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
    /// Opens (or makes) the playtest folder: a folder served before must
    /// be served with the same generators and rules. Every session is
    /// replayed; open ones idle too long are closed.
    pub fn open(config: Config) -> Result<(Self, Recovery), Error> {
        let dir = config.out.clone();
        std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, "make the folder", e))?;
        check_identity(&dir, &config.identity())?;
        std::fs::create_dir_all(journal_dir(&dir)).map_err(|e| io_error(&dir, "make the folder", e))?;
        let store = Self {
            config,
            dir,
            testers: Mutex::new(HashMap::new()),
            open: AtomicUsize::new(0),
            arrivals: AtomicUsize::new(0),
        };
        let recovery = store.recover()?;
        Ok((store, recovery))
    }

    fn recover(&self) -> Result<Recovery, Error> {
        let jdir = journal_dir(&self.dir);
        let mut names: Vec<(String, u32)> = std::fs::read_dir(&jdir)
            .map_err(|e| io_error(&jdir, "read the folder", e))?
            .filter_map(|e| e.ok())
            .filter_map(|e| ids::parse_journal_name(&e.file_name().to_string_lossy()))
            .collect();
        names.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
        let mut recovery = Recovery::default();
        let idle = self.config.limits.idle_session.as_secs();
        let mut testers: HashMap<String, Tester> = HashMap::new();
        for (id, number) in names {
            let (generator, mut session) = self.replay(&id, number, &mut recovery)?;
            let tester = testers.entry(id.clone()).or_insert_with(|| Tester {
                id: id.clone(),
                // A returning tester keeps their arm, open session or not.
                generator,
                sessions: 0,
                session: None,
                broken: false,
            });
            tester.sessions = tester.sessions.max(number + 1);
            if let Some(s) = session.take() {
                tester.generator = s.generator;
                // Only the newest session may stay open.
                if let Some(old) = tester.session.take() {
                    self.end(old, &tester.id)?;
                    recovery.closed_idle += 1;
                }
                if now().saturating_sub(s.last) > idle {
                    self.end(s, &id)?;
                    recovery.closed_idle += 1;
                } else {
                    tester.session = Some(s);
                }
            }
        }
        recovery.testers = testers.len();
        recovery.resumed = testers.values().filter(|t| t.session.is_some()).count();
        self.open.store(recovery.resumed, Ordering::SeqCst);
        self.arrivals.store(testers.len(), Ordering::SeqCst);
        let mut map = self.testers.lock().expect("not poisoned");
        for (id, t) in testers {
            map.insert(id, Arc::new(Mutex::new(t)));
        }
        Ok(recovery)
    }

    /// Session `number` of `tester` from its journal: its generator, and the
    /// session (`None` if it was closed), its log brought level with it.
    fn replay(
        &self,
        tester: &str,
        number: u32,
        recovery: &mut Recovery,
    ) -> Result<(usize, Option<Session>), Error> {
        let path = journal_dir(&self.dir).join(ids::journal_name(tester, number));
        let (journal, lines, torn) =
            Lines::open(&path).map_err(|e| io_error(&path, "read the journal", e))?;
        recovery.torn.extend(torn);
        let at = |i: usize| format!("{}:{}", path.display(), i + 1);
        let (generator, start, events) = session_events(&lines, &at)?;
        let g = self.config.generator(&generator).ok_or_else(|| {
            Error::Folder(format!(
                "{}: the session was dealt by {generator:?}, which this server was not given",
                at(0)
            ))
        })?;
        let Replayed {
            table,
            closed,
            last,
            ended,
            ..
        } = replay_events(&self.config, g, start, events, &at)?;
        let log_path = self.dir.join(ids::log_name(tester, number));
        let records: Vec<Record> = closed
            .iter()
            .map(|c| table::record(&self.config, tester, number, &generator, c))
            .collect();
        let log = level_log(&log_path, &records, recovery)?;
        if ended {
            return Ok((g, None));
        }
        let table = match table {
            Some(t) => t,
            None => {
                // The crash came between the session's line and its game's.
                let mut journal = journal;
                let t = new_game(&self.config, g, 0, &mut journal)?;
                return Ok((
                    g,
                    Some(Session {
                        number,
                        generator: g,
                        journal,
                        log,
                        table: t,
                        last: now(),
                    }),
                ));
            }
        };
        Ok((
            g,
            Some(Session {
                number,
                generator: g,
                journal,
                log,
                table,
                last,
            }),
        ))
    }

    /// The tester `id`, made and given a generator on first sight if `make`
    /// (only a request that opens a session makes one, so a flood of
    /// made-up ids in moves holds no memory).
    pub fn tester(&self, id: &str, make: bool) -> Result<Arc<Mutex<Tester>>, Error> {
        if !ids::is_tester(id) {
            return Err(Error::Bad(format!(
                "tester id {:?} is not {} lower-case hex digits",
                id.chars().take(40).collect::<String>(),
                ids::TESTER_LEN
            )));
        }
        let mut map = self.testers.lock().expect("not poisoned");
        if let Some(t) = map.get(id) {
            return Ok(t.clone());
        }
        if !make {
            return Err(Error::Unknown);
        }
        let n = self.config.generators.len();
        let arrival = self.arrivals.fetch_add(1, Ordering::SeqCst);
        let generator = match self.config.assign {
            Assign::Alternate => arrival % n,
            Assign::Random => (ids::random_seed() % n as u64) as usize,
        };
        let t = Arc::new(Mutex::new(Tester {
            id: id.to_owned(),
            generator,
            sessions: 0,
            session: None,
            broken: false,
        }));
        map.insert(id.to_owned(), t.clone());
        Ok(t)
    }

    /// Every tester known, for the idle sweep and the status line.
    pub fn testers(&self) -> Vec<Arc<Mutex<Tester>>> {
        self.testers
            .lock()
            .expect("not poisoned")
            .values()
            .cloned()
            .collect()
    }

    pub fn open_sessions(&self) -> usize {
        self.open.load(Ordering::SeqCst)
    }

    /// The tester's open session, begun now if there is none, the last is
    /// idle too long, or `fresh` (the tester started one).
    pub fn session<'t>(&self, t: &'t mut Tester, fresh: bool) -> Result<&'t mut Session, Error> {
        let idle = self.config.limits.idle_session.as_secs();
        if t.broken && t.session.is_none() && t.sessions > 0 {
            let mut r = Recovery::default();
            t.session = self.replay(&t.id, t.sessions - 1, &mut r)?.1;
            t.broken = false;
            if t.session.is_some() {
                self.open.fetch_add(1, Ordering::SeqCst);
            }
        }
        if let Some(s) = t.session.take() {
            if fresh || now().saturating_sub(s.last) > idle {
                self.close(s, &t.id)?;
            } else {
                t.session = Some(s);
            }
        }
        if t.session.is_none() {
            let limit = self.config.limits.open_sessions;
            if self.open.fetch_add(1, Ordering::SeqCst) >= limit {
                self.open.fetch_sub(1, Ordering::SeqCst);
                return Err(Error::Full(limit));
            }
            match self.begin(t) {
                Ok(s) => t.session = Some(s),
                Err(e) => {
                    self.open.fetch_sub(1, Ordering::SeqCst);
                    return Err(e);
                }
            }
        }
        Ok(t.session.as_mut().expect("just opened"))
    }

    fn begin(&self, t: &mut Tester) -> Result<Session, Error> {
        let number = t.sessions;
        let g = t.generator;
        let path = journal_dir(&self.dir).join(ids::journal_name(&t.id, number));
        let first = Event::Session {
            tester: t.id.clone(),
            session: number,
            generator: self.config.generators[g].name.clone(),
            at: now(),
        };
        let line = serde_json::to_string(&first).expect("plain data");
        let mut journal =
            Lines::create(&path, Some(&line)).map_err(|e| io_error(&path, "make the journal", e))?;
        t.sessions += 1;
        let log_path = self.dir.join(ids::log_name(&t.id, number));
        let log = Lines::create(&log_path, None).map_err(|e| io_error(&log_path, "make the log", e))?;
        let table = new_game(&self.config, g, 0, &mut journal)?;
        Ok(Session {
            number,
            generator: g,
            journal,
            log,
            table,
            last: now(),
        })
    }

    /// Ends an open session (one of those counted open).
    pub fn close(&self, s: Session, tester: &str) -> Result<(), Error> {
        self.open.fetch_sub(1, Ordering::SeqCst);
        self.end(s, tester)
    }

    /// Ends a session: its open deal logged, then its journal closed.
    fn end(&self, mut s: Session, tester: &str) -> Result<(), Error> {
        let left: Vec<Closed> = s.table.leave().into_iter().collect();
        self.log(&mut s, tester, &left)?;
        s.journal
            .event(&Event::Close { at: now() })
            .map_err(|e| io_error(&s.journal.path, "write", e))
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
            if stale && let Some(s) = t.session.take() {
                let id = t.id.clone();
                if let Err(e) = self.close(s, &id) {
                    eprintln!("playtest: closing an idle session: {e}");
                }
                n += 1;
            }
        }
        n
    }

    /// A move the page sent: checked, journalled (synced), played, and the
    /// deals it closed logged.
    pub fn play(&self, t: &mut Tester, req: &MoveRequest) -> Result<Placed, Error> {
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
        if let Err(e) = s.journal.event(&event) {
            return Err(io_error(&s.journal.path, "write", e));
        }
        s.last = at;
        let mut closed = Vec::new();
        let placed = s.table.play(req.slot, anchor, req.ms, &mut closed);
        let result = self.log(s, &id, &closed);
        if result.is_err() {
            // The journal holds the move: reload the session from it (the
            // log is levelled then) rather than go on with a log behind.
            t.session = None;
            t.broken = true;
            self.open.fetch_sub(1, Ordering::SeqCst);
        }
        result.map(|()| placed)
    }

    /// A new game in the tester's session (the one open is left as it is).
    pub fn new_game(&self, t: &mut Tester, session: u32, game: u64) -> Result<(), Error> {
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
        let mut left: Vec<Closed> = s.table.leave().into_iter().collect();
        let mut table = new_game(&self.config, s.generator, game + 1, &mut s.journal)?;
        table.first(&mut left);
        s.table = table;
        s.last = now();
        let result = self.log(s, &id, &left);
        if result.is_err() {
            t.session = None;
            t.broken = true;
            self.open.fetch_sub(1, Ordering::SeqCst);
        }
        result
    }

    fn log(&self, s: &mut Session, tester: &str, closed: &[Closed]) -> Result<(), Error> {
        let generator = &self.config.generators[s.generator].name;
        for c in closed {
            let r = table::record(&self.config, tester, s.number, generator, c);
            let line = serde_json::to_string(&r).expect("a record is plain data");
            s.log
                .append(&line)
                .map_err(|e| io_error(&s.log.path, "write", e))?;
        }
        Ok(())
    }
}

/// Game `game` on a fresh seed, its seed journalled (synced) first.
fn new_game(config: &Config, g: usize, game: u64, journal: &mut Lines) -> Result<Table, Error> {
    let seed = ids::random_seed();
    journal
        .event(&Event::Game {
            game,
            seed,
            at: now(),
        })
        .map_err(|e| io_error(&journal.path, "write", e))?;
    Ok(Table::new(config, &config.generators[g].dealing, game, seed))
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

/// The log at `path` made to hold exactly `records` (those its journal
/// closed): a torn line cut off, missing records appended.
fn level_log(path: &Path, records: &[Record], recovery: &mut Recovery) -> Result<Lines, Error> {
    let (mut log, lines, torn) = if path.exists() {
        Lines::open(path).map_err(|e| io_error(path, "read the log", e))?
    } else {
        (
            Lines::create(path, None).map_err(|e| io_error(path, "make the log", e))?,
            Vec::new(),
            None,
        )
    };
    recovery.torn.extend(torn);
    if lines.len() > records.len() {
        return Err(Error::Folder(format!(
            "{}: holds {} deals but its journal closed {}; the folder was changed by hand",
            path.display(),
            lines.len(),
            records.len()
        )));
    }
    for (i, (line, r)) in lines.iter().zip(records).enumerate() {
        let read: Result<Record, _> = serde_json::from_str(line);
        if read.as_ref().ok() != Some(r) {
            return Err(Error::Folder(format!(
                "{}:{}: the deal differs from its journal's; the folder was changed by hand",
                path.display(),
                i + 1
            )));
        }
    }
    for r in &records[lines.len()..] {
        log.append(&serde_json::to_string(r).expect("plain data"))
            .map_err(|e| io_error(path, "write", e))?;
        recovery.restored += 1;
    }
    Ok(log)
}

/// Refuses a folder served before with other generators or rules; writes
/// the identity of a new one (atomically).
fn check_identity(dir: &Path, identity: &Identity) -> Result<(), Error> {
    let path = identity_path(dir);
    let text = serde_json::to_string_pretty(identity).expect("plain data");
    match std::fs::read_to_string(&path) {
        Ok(old) => {
            let before: Identity = serde_json::from_str(&old)
                .map_err(|e| Error::Folder(format!("{}: not a playtest's identity: {e}", path.display())))?;
            if &before != identity {
                let names = |i: &Identity| {
                    i.generators
                        .iter()
                        .map(|(n, _)| n.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                return Err(Error::Folder(format!(
                    "{}: this folder's playtest was served with generators [{}] on {} boards, holders of {}, assigned {:?}, \
                     and this server with [{}] on {}, {}, {:?} (or their rules differ); serve it as it began, or give another --out",
                    path.display(),
                    names(&before),
                    before.board,
                    before.holder,
                    before.assign,
                    names(identity),
                    identity.board,
                    identity.holder,
                    identity.assign
                )));
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // Logs without an identity: a cohort's or someone's folder, not
            // a playtest's; never mixed into one.
            let logs = std::fs::read_dir(dir)
                .map_err(|e| io_error(dir, "read the folder", e))?
                .filter_map(|e| e.ok())
                .any(|e| e.path().extension().is_some_and(|x| x == "jsonl"));
            if logs {
                return Err(Error::Folder(format!(
                    "{}: holds logs but no playtest.json, so it is not a playtest's folder (a cohort's?); \
                     give a new or empty folder",
                    dir.display()
                )));
            }
            let tmp = dir.join(".playtest.json.tmp");
            std::fs::write(&tmp, text)
                .and_then(|()| std::fs::File::open(&tmp)?.sync_all())
                .and_then(|()| std::fs::rename(&tmp, &path))
                .map_err(|e| io_error(&path, "write", e))
        }
        Err(e) => Err(io_error(&path, "read", e)),
    }
}

/// A journal's lines read: its generator and start (its first line), and
/// each event after with its line's index.
#[allow(clippy::type_complexity)]
pub fn session_events(
    lines: &[String],
    at: &dyn Fn(usize) -> String,
) -> Result<(String, u64, Vec<(usize, Result<Event, Error>)>), Error> {
    let mut events = lines.iter().enumerate().map(|(i, l)| {
        (
            i,
            serde_json::from_str::<Event>(l)
                .map_err(|e| Error::Folder(format!("{}: not a journal event: {e}", at(i)))),
        )
    });
    match events.next() {
        Some((
            _,
            Ok(Event::Session {
                generator, at: start, ..
            }),
        )) => Ok((generator, start, events.collect())),
        _ => Err(Error::Folder(format!(
            "{}: a journal starts with its session",
            at(0)
        ))),
    }
}

/// A session's events played again: the game they leave open, the deals
/// they closed, and what they add up to.
pub struct Replayed {
    pub table: Option<Table>,
    pub closed: Vec<Closed>,
    /// Seconds since 1970 of the last event.
    pub last: u64,
    /// The session was closed.
    pub ended: bool,
    pub games: u64,
    pub moves: u64,
    pub unfair: u64,
}

/// Replays the events after a session's first line (`start` its time),
/// dealt by generator `g`; `at(i)` names line `i` in messages.
pub fn replay_events(
    config: &Config,
    g: usize,
    start: u64,
    events: Vec<(usize, Result<Event, Error>)>,
    at: &dyn Fn(usize) -> String,
) -> Result<Replayed, Error> {
    let mut r = Replayed {
        table: None,
        closed: Vec::new(),
        last: start,
        ended: false,
        games: 0,
        moves: 0,
        unfair: 0,
    };
    for (i, e) in events {
        let was_over = r.table.as_ref().is_some_and(|t| t.over().is_some());
        match e? {
            Event::Session { .. } => return Err(Error::Folder(format!("{}: a second session line", at(i)))),
            Event::Game { game, seed, at: when } => {
                r.closed.extend(r.table.as_mut().and_then(Table::leave));
                let mut t = Table::new(config, &config.generators[g].dealing, game, seed);
                t.first(&mut r.closed);
                r.table = Some(t);
                r.games += 1;
                r.last = when;
            }
            Event::Move {
                game,
                slot,
                x,
                y,
                ms,
                at: when,
            } => {
                let t = r
                    .table
                    .as_mut()
                    .ok_or_else(|| Error::Folder(format!("{}: a move before any game", at(i))))?;
                let anchor = t.check(game, t.moves, slot, x, y).map_err(|why| {
                    Error::Folder(format!("{}: the journal's move is refused: {why}", at(i)))
                })?;
                t.play(slot, anchor, ms, &mut r.closed);
                r.moves += 1;
                r.last = when;
            }
            Event::Close { .. } => {
                r.closed.extend(r.table.as_mut().and_then(Table::leave));
                r.ended = true;
            }
        }
        let now_over = r.table.as_ref().and_then(Table::over);
        if !was_over && now_over == Some(tenten_engine::play::game::End::Unfair) {
            r.unfair += 1;
        }
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Generator, Limits};
    use tenten_engine::model::board::BoardSize;
    use tenten_engine::model::pieces::PieceSet;
    use tenten_engine::play::dealing::Dealing;

    fn config(dir: &Path) -> Config {
        let set = PieceSet::classic();
        Config {
            generators: ["random", "repair"]
                .iter()
                .map(|n| Generator {
                    name: (*n).to_owned(),
                    dealing: Dealing::by_name(n, &set).unwrap(),
                })
                .collect(),
            set,
            size: BoardSize::CLASSIC,
            k: 3,
            out: dir.to_owned(),
            bind: ([127, 0, 0, 1], 0).into(),
            assign: Assign::Alternate,
            token: None,
            limits: Limits::default(),
        }
    }

    fn folder(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tenten-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    /// Plays the first placement that fits.
    fn play_first(store: &Store, t: &mut Tester) -> bool {
        let id = t.id.clone();
        let s = store.session(t, false).unwrap();
        let e = &s.table.episode;
        if e.end.is_some() {
            return false;
        }
        for (slot, p) in e.holder.iter().enumerate() {
            let Some(p) = p else { continue };
            let fits = e.shapes.shape(*p).fits(e.board, e.shapes.geometry.full);
            if fits != 0 {
                let (x, y) = e.shapes.xy(fits.trailing_zeros());
                let req = MoveRequest {
                    tester: id,
                    session: s.number,
                    game: s.table.game,
                    seen: s.table.moves,
                    slot,
                    x,
                    y,
                    ms: 5,
                };
                store.play(t, &req).unwrap();
                return true;
            }
        }
        unreachable!("a game not over has a move")
    }

    #[test]
    fn a_reopened_folder_resumes_games_keeps_arms_and_levels_its_logs() {
        let dir = folder("reopen");
        let (a, b) = (ids::random_hex(16), ids::random_hex(16));
        let (board, holder, moves) = {
            let (store, r) = Store::open(config(&dir)).unwrap();
            assert_eq!(r.testers, 0);
            let ta = store.tester(&a, true).unwrap();
            let tb = store.tester(&b, true).unwrap();
            let (mut ta, mut tb) = (ta.lock().unwrap(), tb.lock().unwrap());
            assert_eq!((ta.generator, tb.generator), (0, 1), "alternate");
            for _ in 0..7 {
                assert!(play_first(&store, &mut ta));
            }
            play_first(&store, &mut tb);
            // b leaves: a new session closes the first.
            store.session(&mut tb, true).unwrap();
            assert_eq!(tb.sessions, 2);
            let s = ta.session.as_ref().unwrap();
            (
                s.table.episode.board,
                s.table.episode.holder.clone(),
                s.table.moves,
            )
        };
        // The last record of a's log lost, as a crash between the journal's
        // sync and the log's write would.
        let log = dir.join(ids::log_name(&a, 0));
        let text = std::fs::read_to_string(&log).unwrap();
        let kept: Vec<&str> = text.lines().collect();
        assert!(kept.len() >= 2, "seven moves close two deals");
        std::fs::write(&log, format!("{}\n", kept[..kept.len() - 1].join("\n"))).unwrap();
        let (store, r) = Store::open(config(&dir)).unwrap();
        assert_eq!((r.testers, r.resumed, r.restored), (2, 2, 1));
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            text,
            "the log is level again"
        );
        let ta = store.tester(&a, false).unwrap();
        let mut ta = ta.lock().unwrap();
        let s = store.session(&mut ta, false).unwrap();
        assert_eq!(s.table.episode.board, board);
        assert_eq!(s.table.episode.holder, holder);
        assert_eq!(s.table.moves, moves);
        // b keeps the second generator in a session begun after the restart.
        let tb = store.tester(&b, false).unwrap();
        let mut tb = tb.lock().unwrap();
        assert_eq!(tb.generator, 1);
        store.session(&mut tb, true).unwrap();
        assert_eq!(tb.session.as_ref().unwrap().generator, 1);
        // Another generator list is refused, naming both.
        drop((ta, tb, store));
        let mut other = config(&dir);
        other.generators.pop();
        let e = Store::open(other).err().expect("refused");
        assert!(e.to_string().contains("[random, repair]"), "{e}");
        // A folder of logs that is not a playtest's is refused, untouched.
        let cohort = folder("cohort");
        std::fs::create_dir_all(&cohort).unwrap();
        std::fs::write(cohort.join("t00.jsonl"), "{}\n").unwrap();
        let e = Store::open(config(&cohort)).err().expect("refused");
        assert!(e.to_string().contains("not a playtest's folder"), "{e}");
        assert!(!identity_path(&cohort).exists() && !journal_dir(&cohort).exists());
        let _ = std::fs::remove_dir_all(&cohort);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_refused_move_writes_nothing_and_an_idle_session_closes() {
        let dir = folder("idle");
        let mut c = config(&dir);
        c.limits.idle_session = std::time::Duration::from_secs(0);
        let (store, _) = Store::open(c).unwrap();
        let id = ids::random_hex(16);
        let t = store.tester(&id, true).unwrap();
        let mut t = t.lock().unwrap();
        let s = store.session(&mut t, false).unwrap();
        let journal = journal_dir(&dir).join(ids::journal_name(&id, 0));
        let before = std::fs::metadata(&journal).unwrap().len();
        let req = MoveRequest {
            tester: id.clone(),
            session: s.number,
            game: 0,
            seen: 0,
            slot: 0,
            x: 10,
            y: 0,
            ms: 0,
        };
        assert!(matches!(
            store.play(&mut t, &req),
            Err(Error::Refused(Refusal::OutOfBounds(_)))
        ));
        assert_eq!(std::fs::metadata(&journal).unwrap().len(), before);
        // Idle past the limit (0 s, a second later): the sweep closes it.
        std::thread::sleep(std::time::Duration::from_millis(1100));
        drop(t);
        assert_eq!(store.sweep(), 1);
        assert_eq!(store.open_sessions(), 0);
        let lines = std::fs::read_to_string(&journal).unwrap();
        assert!(
            lines.lines().last().unwrap().contains(r#""e":"close""#),
            "{lines}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
