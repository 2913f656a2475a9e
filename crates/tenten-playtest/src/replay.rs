//! A session's journal played again: by a server starting (its games
//! resumed, its log levelled), by `playtest status` (read-only) and by
//! `playtest forget` (is the session closed?).

use tenten_engine::play::adaptive::History;
use tenten_engine::play::game::End;

use crate::config::Config;
use crate::journal::Event;
use crate::store::{Closed, Error};
use crate::table::Table;

/// A session's first line read: its generator, start, the tester's games
/// before it if the journal holds them, and the events after it.
pub type SessionEvents = (String, u64, Option<History>, Vec<(usize, Result<Event, Error>)>);

/// A journal's lines read: its first line's fields (`SessionEvents`), and
/// each event after with its line's index.
pub fn session_events(lines: &[String], at: &dyn Fn(usize) -> String) -> Result<SessionEvents, Error> {
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
                generator,
                at: start,
                history,
                ..
            }),
        )) => Ok((generator, start, history, events.collect())),
        None => Err(Error::Folder(format!(
            "{}: empty (a crash between making the journal and writing its first line)",
            at(0)
        ))),
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
    /// The study the tester agreed to in this session (its hash), if any.
    pub agreed: Option<String>,
    /// Games played: a move made, or over on the first deal.
    pub games: u64,
    pub moves: u64,
    pub unfair: u64,
    /// The tester's games through this session's last.
    pub history: History,
}

/// Replays the events after a session's first line (`start` its time),
/// dealt by generator `g` to a tester whose games before the session are
/// `history`; `at(i)` names line `i` in messages.
pub fn replay_events(
    config: &Config,
    g: usize,
    start: u64,
    events: Vec<(usize, Result<Event, Error>)>,
    at: &dyn Fn(usize) -> String,
    history: History,
) -> Result<Replayed, Error> {
    let mut base = history;
    base.new_session();
    let mut r = Replayed {
        table: None,
        closed: Vec::new(),
        last: start,
        ended: false,
        agreed: None,
        games: 0,
        moves: 0,
        unfair: 0,
        history: History::default(),
    };
    for (i, e) in events {
        if r.ended {
            return Err(Error::Folder(format!(
                "{}: an event after the session's close",
                at(i)
            )));
        }
        let mut was_over = r.table.as_ref().is_some_and(|t| t.over().is_some());
        match e? {
            Event::Session { .. } => return Err(Error::Folder(format!("{}: a second session line", at(i)))),
            Event::Agree { study, at: when } => {
                r.agreed = Some(study);
                r.last = when;
            }
            Event::Game { game, seed, at: when } => {
                leave(&mut r);
                // The games so far: the session's last game's, which holds
                // the ones before it.
                let games = r
                    .table
                    .as_ref()
                    .map_or_else(|| base.clone(), |t| t.episode.history.clone());
                let mut t = Table::new(config, &config.generators[g].dealing, game, seed, games);
                t.first(&mut r.closed);
                // A game over on its first deal was played, as the log
                // reader counts it, and its end is judged below as the
                // new game's, not after the last one's.
                r.games += u64::from(t.over().is_some());
                was_over = false;
                r.table = Some(t);
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
                // A game is played from its first move, as the log reader
                // counts it: one begun and left before any is no game.
                r.games += u64::from(t.moves == 0);
                t.play(slot, anchor, ms, &mut r.closed);
                r.moves += 1;
                r.last = when;
            }
            Event::Close { .. } => {
                leave(&mut r);
                r.ended = true;
            }
        }
        let now_over = r.table.as_ref().and_then(Table::over);
        if !was_over && now_over == Some(End::Unfair) {
            r.unfair += 1;
        }
    }
    r.history = r.table.as_ref().map_or(base, |t| t.episode.history.clone());
    Ok(r)
}

/// The open game left (a new game, the close): its open deal closed, and
/// counted among the unfair losses where it was left on a holder that
/// could not all be placed, as the log reads it.
fn leave(r: &mut Replayed) {
    if let Some(t) = r.table.as_mut() {
        r.closed.extend(t.leave());
        r.unfair += u64::from(t.left() == Some(End::Unfair));
    }
}

/// Session `number` of `tester` read from the journal's `lines` at `path`:
/// its generator's index and its events replayed.
pub fn replay_lines(
    config: &Config,
    path: &std::path::Path,
    lines: &[String],
    tester: &str,
    number: u32,
    history: History,
) -> Result<(usize, Replayed), Error> {
    let at = |i: usize| format!("{}:{}", path.display(), i + 1);
    let first = lines.first().and_then(|l| serde_json::from_str::<Event>(l).ok());
    if let Some(Event::Session {
        tester: t, session, ..
    }) = &first
        && (t != tester || *session != number)
    {
        return Err(Error::Folder(format!(
            "{}: the journal says it is session {session} of {t}, not the file's name",
            at(0)
        )));
    }
    let (generator, start, own, events) = session_events(lines, &at)?;
    // The journal's own record of the games before it, where it has one.
    let history = own.unwrap_or(history);
    let g = config.generator(&generator).ok_or_else(|| {
        Error::Folder(format!(
            "{}: the session was dealt by {generator:?}, which this playtest was not given",
            at(0)
        ))
    })?;
    Ok((g, replay_events(config, g, start, events, &at, history)?))
}
