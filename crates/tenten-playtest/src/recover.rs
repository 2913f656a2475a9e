//! What a server finds in its folder when it starts: the identity it must
//! match, the join token it keeps, and every session replayed from its
//! journal, its log levelled with it. A journal that cannot be replayed is
//! set aside (moved to `journal/set-aside/` with its log) and reported; it
//! never stops the other testers from being served.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use tenten_engine::play::adaptive::History;

use tenten_engine::io::jsonl_log::Record;

use crate::config::{Config, Identity, Token};
use crate::disk::{self, Faults};
use crate::ids;
use crate::journal::{self, Torn, now};
use crate::replay::{Replayed, replay_lines};
use crate::store::{Error, Session, Tester, identity_path, io_error, journal_dir};
use crate::table::{self, Table};

/// What a server found in its folder when it started.
#[derive(Debug, Default)]
pub struct Recovery {
    pub testers: usize,
    pub resumed: usize,
    pub closed_idle: usize,
    /// Deals written to logs from their journals (the crash came between).
    pub restored: usize,
    pub torn: Vec<Torn>,
    /// Journals and logs set aside, each with why.
    pub set_aside: Vec<String>,
    /// Sessions left as they are for now (the disk failed reading or
    /// writing them), each with why.
    pub skipped: Vec<String>,
}

/// Where journals and logs that cannot be replayed are kept.
pub fn set_aside_dir(dir: &Path) -> PathBuf {
    journal_dir(dir).join("set-aside")
}

/// Every session of the folder replayed: the testers, their open sessions
/// resumed (or closed when idle too long), and what was found. Nothing
/// about one session stops the others: a journal whose content cannot be
/// replayed is set aside; one that cannot be read now (or a log that
/// cannot be levelled, or a close that cannot be written) is reported and
/// left in place for the next start.
pub fn recover(config: &Config, dir: &Path) -> Result<(HashMap<String, Tester>, Recovery), Error> {
    let jdir = journal_dir(dir);
    remove_temporaries(&jdir);
    remove_temporaries(dir);
    let mut names = ids::journals_in(&jdir).map_err(|e| io_error(&jdir, "read the folder", e))?;
    names.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    let mut recovery = Recovery::default();
    let mut testers: HashMap<String, Tester> = HashMap::new();
    for (id, number) in names {
        let tester = testers
            .entry(id.clone())
            .or_insert_with(|| Tester::known(id.clone(), usize::MAX));
        // Numbers stay unique even past a session set aside or skipped.
        tester.sessions = tester.sessions.max(number.saturating_add(1));
        // The games before this session: the open one's (closed below), or
        // every session's before it.
        let before = tester.games_so_far();
        let (g, r) = match replay(config, dir, &id, number, before.clone(), &mut recovery) {
            Ok(x) => x,
            Err(Unreplayable::Content(why)) => {
                recovery.set_aside.push(set_aside(dir, &id, number, &why));
                continue;
            }
            Err(Unreplayable::Io(why)) => {
                recovery
                    .skipped
                    .push(format!("{why}; left in place, served again once it can be read"));
                continue;
            }
        };
        tester.generator = g;
        if r.agreed.is_some() {
            tester.agreed = r.agreed.clone();
        }
        // Only the newest session may stay open.
        close_now(config, tester, &mut recovery);
        tester.history = if r.ended { r.history.clone() } else { before };
        if r.ended {
            continue;
        }
        let journal = jdir.join(ids::journal_name(&id, number));
        let log = dir.join(ids::log_name(&id, number));
        match session_from(number, g, journal, log, r, config) {
            Ok(s) => tester.session = Some(s),
            Err(e) => {
                recovery
                    .skipped
                    .push(format!("{e}; the session stays as its journal has it"));
                continue;
            }
        }
        let idle = config.limits.idle_session.as_secs();
        if tester
            .session
            .as_ref()
            .is_some_and(|s| now().saturating_sub(s.last) > idle)
        {
            close_now(config, tester, &mut recovery);
        }
    }
    // A tester whose every session was set aside keeps no arm.
    testers.retain(|_, t| t.generator != usize::MAX);
    recovery.testers = testers.len();
    recovery.resumed = testers.values().filter(|t| t.session.is_some()).count();
    Ok((testers, recovery))
}

/// Why a session was not resumed: its journal says something that cannot
/// be (set aside), or the disk failed now (left for the next start).
enum Unreplayable {
    Content(Error),
    Io(Error),
}

/// The log records of the deals a replayed session closed.
pub(crate) fn records(config: &Config, tester: &str, number: u32, g: usize, r: &Replayed) -> Vec<Record> {
    let generator = &config.generators[g].name;
    r.closed
        .iter()
        .map(|c| table::record(config, tester, number, generator, c))
        .collect()
}

/// A session replayed from its journal, its log levelled with it (a log
/// that cannot be is reported: the journal, the truth, is untouched).
fn replay(
    config: &Config,
    dir: &Path,
    tester: &str,
    number: u32,
    history: History,
    recovery: &mut Recovery,
) -> Result<(usize, Replayed), Unreplayable> {
    let path = journal_dir(dir).join(ids::journal_name(tester, number));
    let (lines, torn) = journal::read(&config.faults, &path)
        .map_err(|e| Unreplayable::Io(io_error(&path, "read the journal", e)))?;
    recovery.torn.extend(torn);
    let (g, r) =
        replay_lines(config, &path, &lines, tester, number, history).map_err(Unreplayable::Content)?;
    let log = dir.join(ids::log_name(tester, number));
    if let Err(e) = level_log(
        config,
        dir,
        &log,
        &records(config, tester, number, g, &r),
        recovery,
    ) {
        recovery.skipped.push(format!(
            "{e}; the log is levelled from its journal at the next start"
        ));
    }
    Ok((g, r))
}

/// A session open at the end of its journal, resumed where it stands.
pub fn session_from(
    number: u32,
    g: usize,
    journal: PathBuf,
    log: PathBuf,
    r: Replayed,
    config: &Config,
) -> Result<Session, Error> {
    let history = r.history.clone();
    let table = match r.table {
        Some(t) => t,
        // Journals are made with their first game; one without it was
        // written by an older server: deal game 0 now, journalled first.
        None => {
            let seed = ids::random_seed();
            let e = journal::Event::Game {
                game: 0,
                seed,
                at: now(),
            };
            journal::append(&config.faults, &journal, &e).map_err(|e| io_error(&journal, "write", e))?;
            Table::new(config, &config.generators[g].dealing, 0, seed, history)
        }
    };
    Ok(Session::resumed(number, g, journal, log, table, r.last))
}

/// Closes a tester's open session during recovery (a newer one exists,
/// or it sat idle past the limit). A close that cannot be written leaves
/// the session open and served (the sweep tries again), reported.
fn close_now(config: &Config, t: &mut Tester, recovery: &mut Recovery) {
    let Some(s) = t.session.as_mut() else {
        return;
    };
    if let Err(e) = journal::append(&config.faults, &s.journal, &journal::Event::Close { at: now() }) {
        recovery.skipped.push(format!(
            "{}: cannot write its close ({e}); the session stays open",
            s.journal.display()
        ));
        return;
    }
    let left: Vec<_> = s.table.leave().into_iter().collect();
    let generator = &config.generators[s.generator].name;
    let text: String = left
        .iter()
        .map(|c| table::log_line(&table::record(config, &t.id, s.number, generator, c)))
        .collect();
    // The journal holds it: a failure here is levelled at the next start.
    let _ = disk::append(&config.faults, &s.log, text.as_bytes(), false, true);
    t.history = s.table.episode.history.clone();
    t.session = None;
    recovery.closed_idle += 1;
}

/// The log at `path` made to hold exactly `records` (those its journal
/// closed): a torn line cut off, missing records appended; a log that says
/// otherwise than its journal is set aside and written again from it.
pub(crate) fn level_log(
    config: &Config,
    dir: &Path,
    path: &Path,
    records: &[Record],
    recovery: &mut Recovery,
) -> Result<(), Error> {
    let lines = if path.exists() {
        let (lines, torn) =
            journal::read(&config.faults, path).map_err(|e| io_error(path, "read the log", e))?;
        recovery.torn.extend(torn);
        lines
    } else {
        Vec::new()
    };
    let agrees = lines.len() <= records.len()
        && lines
            .iter()
            .zip(records)
            .all(|(line, r)| serde_json::from_str::<Record>(line).ok().as_ref() == Some(r));
    let from = if agrees {
        lines.len()
    } else {
        let kept = move_aside(dir, path).map_err(|e| io_error(path, "set the log aside", e))?;
        recovery.set_aside.push(format!(
            "{}: its {} lines differ from the {} deals its journal closed; kept as {}, written again from the journal",
            path.display(),
            lines.len(),
            records.len(),
            kept.display()
        ));
        0
    };
    let text: String = records[from..].iter().map(table::log_line).collect();
    if !text.is_empty() {
        disk::append(&config.faults, path, text.as_bytes(), false, true)
            .map_err(|e| io_error(path, "write", e))?;
        recovery.restored += records.len() - from;
    }
    Ok(())
}

/// Moves a session's journal and log aside; the report line.
fn set_aside(dir: &Path, tester: &str, number: u32, why: &Error) -> String {
    let journal = journal_dir(dir).join(ids::journal_name(tester, number));
    let log = dir.join(ids::log_name(tester, number));
    let mut moved = Vec::new();
    // The log first: a crash between leaves the journal, which the next
    // start sets aside with it, never a log without its journal.
    for path in [&log, &journal] {
        if path.exists() {
            match move_aside(dir, path) {
                Ok(to) => moved.push(to.display().to_string()),
                Err(e) => moved.push(format!("{} (could not be moved: {e}; skipped)", path.display())),
            }
        }
    }
    format!("{why}; moved to {}", moved.join(", "))
}

/// Moves `path` into the set-aside folder, under a name not taken; where.
fn move_aside(dir: &Path, path: &Path) -> std::io::Result<PathBuf> {
    let aside = set_aside_dir(dir);
    std::fs::create_dir_all(&aside)?;
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let mut to = aside.join(&name);
    let mut n = 1;
    while to.exists() {
        to = aside.join(format!("{name}.{n}"));
        n += 1;
    }
    std::fs::rename(path, &to)?;
    disk::sync_dir(&Faults::default(), path)?;
    Ok(to)
}

/// Removes the hidden files a crash left mid-make (never acknowledged).
fn remove_temporaries(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.filter_map(|e| e.ok()) {
        if disk::is_temp(&e.file_name().to_string_lossy()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// The token of the folder: none, the one it keeps (made on first use), or
/// a new one replacing it.
pub fn token(dir: &Path, want: &Token, faults: &Faults) -> Result<Option<String>, Error> {
    let path = dir.join("token");
    let make = |path: &Path| {
        let t = ids::random_hex(16);
        disk::create_mode(faults, path, format!("{t}\n").as_bytes(), true, 0o600)
            .map_err(|e| io_error(path, "write the token", e))?;
        Ok(Some(t))
    };
    match want {
        Token::None => Ok(None),
        Token::New => make(&path),
        Token::Kept => match std::fs::read_to_string(&path) {
            Ok(text) => {
                let t = text.trim();
                if !ids::is_tester(t) {
                    return Err(Error::Folder(format!(
                        "{}: not a token (32 lower-case hex digits); serve with --new-token to make one",
                        path.display()
                    )));
                }
                Ok(Some(t.to_owned()))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => make(&path),
            Err(e) => Err(io_error(&path, "read the token", e)),
        },
    }
}

/// Refuses a folder begun by a newer server than this one (its journals
/// were dealt in a way this one does not know).
pub fn known_behaviour(path: &Path, behaviour: u32) -> Result<(), Error> {
    if behaviour > crate::BEHAVIOUR {
        return Err(Error::Folder(format!(
            "{}: this folder was begun by a newer server (behaviour {behaviour}; this one knows up to {}); \
             use that version of tenten",
            path.display(),
            crate::BEHAVIOUR
        )));
    }
    Ok(())
}

/// Refuses a folder served before with other generators or rules; writes
/// the identity of a new one (whole or not at all). The behaviour the
/// folder is served with: its own, where an older server began it (its
/// journals were dealt so, and replay so), or this server's for a new one.
pub fn check_identity(dir: &Path, identity: &Identity, faults: &Faults) -> Result<u32, Error> {
    let path = identity_path(dir);
    let text = serde_json::to_string_pretty(identity).expect("plain data");
    match std::fs::read_to_string(&path) {
        Ok(old) => {
            let before: Identity = serde_json::from_str(&old)
                .map_err(|e| Error::Folder(format!("{}: not a playtest's identity: {e}", path.display())))?;
            known_behaviour(&path, before.behaviour)?;
            let same = Identity {
                behaviour: before.behaviour,
                ..identity.clone()
            };
            if before != same {
                return Err(Error::Folder(differs(&path, &before, identity)));
            }
            Ok(before.behaviour)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            refuse_foreign(dir)?;
            disk::create(faults, &path, text.as_bytes(), false).map_err(|e| io_error(&path, "write", e))?;
            Ok(identity.behaviour)
        }
        Err(e) => Err(io_error(&path, "read", e)),
    }
}

/// Refuses a folder holding logs but no `playtest.json`: a cohort's or
/// someone's, not a playtest's, never mixed into one.
pub fn refuse_foreign(dir: &Path) -> Result<(), Error> {
    if identity_path(dir).exists() {
        return Ok(());
    }
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
    Ok(())
}

fn differs(path: &Path, before: &Identity, now: &Identity) -> String {
    let names = |i: &Identity| {
        i.generators
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "{}: this folder's playtest was served with generators [{}] on {} boards, holders of {}, assigned {:?}, \
         and this server with [{}] on {}, {}, {:?} (or their rules differ); serve it as it began, or give another --out",
        path.display(),
        names(before),
        before.board,
        before.holder,
        before.assign,
        names(now),
        now.board,
        now.holder,
        now.assign
    )
}
