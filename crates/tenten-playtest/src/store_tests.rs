//! The store against its folder: reopened, refused, idle; and a scripted
//! session run with a failure injected at each of its writes and syncs in
//! turn (the request refused changes nothing, and the folder serves again
//! with every acknowledged move once and in order), and with the process
//! "dying" at each of them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::*;
use crate::config::{Generator, Limits, Study, Token};
use crate::disk::Faults;
use tenten_engine::model::board::BoardSize;
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::play::dealing::Dealing;
use tenten_engine::play::game::End;
use tenten_engine::search::validator::validate;

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
        token: Token::None,
        limits: Limits::default(),
        study: None,
        trusted_proxy: None,
        allowed_hosts: Vec::new(),
        faults: Arc::new(Faults::default()),
        who: "a test".to_owned(),
        behaviour: crate::BEHAVIOUR,
    }
}

fn folder(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tenten-store-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The first placement that fits in the tester's open game, as the page
/// would send it; `None` when the game is over.
fn first_move(t: &Tester) -> Option<MoveRequest> {
    let s = t.session.as_ref()?;
    let e = &s.table.episode;
    if e.end.is_some() {
        return None;
    }
    for (slot, p) in e.holder.iter().enumerate() {
        let Some(p) = p else { continue };
        let fits = e.shapes.shape(*p).fits(e.board, e.shapes.geometry.full);
        if fits != 0 {
            let (x, y) = e.shapes.xy(fits.trailing_zeros());
            return Some(MoveRequest {
                tester: t.id.clone(),
                session: s.number,
                game: s.table.game,
                seen: s.table.moves,
                slot,
                x,
                y,
                ms: 5,
            });
        }
    }
    unreachable!("a game not over has a move")
}

/// Plays the first placement that fits (the session begun if need be).
fn play_first(store: &Store, t: &mut Tester) -> bool {
    store.session(t, false).unwrap();
    match first_move(t) {
        Some(req) => {
            store.play(t, &req).unwrap();
            true
        }
        None => false,
    }
}

#[test]
fn a_reopened_folder_resumes_games_keeps_arms_and_levels_its_logs() {
    let dir = folder("reopen");
    let (a, b) = (ids::random_hex(16), ids::random_hex(16));
    let (board, holder, moves) = {
        let (store, r) = Store::open(config(&dir)).unwrap();
        assert_eq!(r.testers, 0);
        let ta = store.arrive(&a).unwrap();
        let tb = store.arrive(&b).unwrap();
        let (mut ta, mut tb) = (ta.lock().unwrap(), tb.lock().unwrap());
        for _ in 0..7 {
            assert!(play_first(&store, &mut ta));
        }
        play_first(&store, &mut tb);
        assert_eq!((ta.generator, tb.generator), (0, 1), "alternate");
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
    let ta = store.tester(&a).unwrap();
    let mut ta = ta.lock().unwrap();
    let s = store.session(&mut ta, false).unwrap();
    assert_eq!(s.table.episode.board, board);
    assert_eq!(s.table.episode.holder, holder);
    assert_eq!(s.table.moves, moves);
    // b keeps the second generator in a session begun after the restart.
    let tb = store.tester(&b).unwrap();
    let mut tb = tb.lock().unwrap();
    assert_eq!(tb.generator, 1);
    store.session(&mut tb, true).unwrap();
    assert_eq!(tb.session.as_ref().unwrap().generator, 1);
    // While it is open, a second store on the folder is refused, naming it.
    let e = Store::open(config(&dir)).err().expect("refused");
    assert!(
        e.to_string().contains("a test") && e.to_string().contains("stop it first"),
        "{e}"
    );
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
    let t = store.arrive(&id).unwrap();
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

#[test]
fn a_full_playtest_refuses_a_tester_and_keeps_nothing_of_them() {
    let dir = folder("full");
    let mut c = config(&dir);
    c.limits.open_sessions = 1;
    let (store, _) = Store::open(c).unwrap();
    let (a, b) = (ids::random_hex(16), ids::random_hex(16));
    let ta = store.arrive(&a).unwrap();
    store.session(&mut ta.lock().unwrap(), false).unwrap();
    let handle = store.arrive(&b).unwrap();
    let mut tb = handle.lock().unwrap();
    assert!(matches!(store.session(&mut tb, false), Err(Error::Full(1))));
    store.forget_new(&handle, &mut tb);
    assert!(tb.gone);
    assert!(
        matches!(store.tester(&b), Err(Error::Unknown)),
        "not kept in memory"
    );
    let names: Vec<String> = std::fs::read_dir(journal_dir(&dir))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        vec![ids::journal_name(&a, 0)],
        "nothing on disk for the refused"
    );
    // A refused tester took no turn: the next to arrive gets the second arm.
    drop(tb);
    let c = store.arrive(&ids::random_hex(16)).unwrap();
    let mut c = c.lock().unwrap();
    store.close(&mut ta.lock().unwrap()).unwrap();
    store.session(&mut c, false).unwrap();
    assert_eq!(c.generator, 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_study_is_agreed_before_anything_is_kept_and_the_agreement_is_journalled() {
    let dir = folder("study");
    let mut c = config(&dir);
    c.study = Some(Study {
        title: "Block puzzle study".into(),
        text: "We record your moves.".into(),
        contact: "designer@example.com".into(),
    });
    let hash = c.study.as_ref().unwrap().hash();
    let id = ids::random_hex(16);
    {
        let (store, _) = Store::open(c.clone()).unwrap();
        let t = store.arrive(&id).unwrap();
        let mut t = t.lock().unwrap();
        assert!(store.needs_agreement(&t));
        assert!(matches!(store.session(&mut t, false), Err(Error::NotAgreed)));
        assert_eq!(std::fs::read_dir(journal_dir(&dir)).unwrap().count(), 0);
        store.agree(&mut t).unwrap();
        assert!(!store.needs_agreement(&t));
        play_first(&store, &mut t);
    }
    let journal = std::fs::read_to_string(journal_dir(&dir).join(ids::journal_name(&id, 0))).unwrap();
    let second = journal.lines().nth(1).unwrap();
    assert_eq!(
        serde_json::from_str::<Event>(second).unwrap(),
        Event::Agree {
            study: hash,
            at: serde_json::from_str::<serde_json::Value>(second).unwrap()["at"]
                .as_u64()
                .unwrap()
        }
    );
    // Known after a restart: not asked again.
    let (store, _) = Store::open(c).unwrap();
    let t = store.tester(&id).unwrap();
    assert!(!store.needs_agreement(&t.lock().unwrap()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn journals_that_cannot_be_replayed_are_set_aside_and_the_rest_served() {
    let dir = folder("aside");
    let (good, empty, cut, bad) = (
        ids::random_hex(16),
        ids::random_hex(16),
        ids::random_hex(16),
        ids::random_hex(16),
    );
    {
        let (store, _) = Store::open(config(&dir)).unwrap();
        for id in [&good, &bad] {
            let t = store.arrive(id).unwrap();
            let mut t = t.lock().unwrap();
            for _ in 0..4 {
                play_first(&store, &mut t);
            }
        }
    }
    let jdir = journal_dir(&dir);
    std::fs::write(jdir.join(ids::journal_name(&empty, 0)), "").unwrap();
    std::fs::write(jdir.join(ids::journal_name(&cut, 0)), "{\"e\":\"sess").unwrap();
    // A move the journal cannot replay (slot 7 of a holder of three).
    let path = jdir.join(ids::journal_name(&bad, 0));
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"e\":\"move\",\"game\":0,\"slot\":7,\"x\":0,\"y\":0,\"ms\":1,\"at\":1}\n");
    std::fs::write(&path, text).unwrap();
    let status = crate::status::status(&dir).unwrap();
    assert_eq!(status.bad.len(), 3, "{:?}", status.bad);
    let (store, r) = Store::open(config(&dir)).unwrap();
    assert_eq!(r.set_aside.len(), 3, "{:?}", r.set_aside);
    let all = r.set_aside.join("\n");
    assert!(all.contains("empty") && all.contains("slot 7"), "{all}");
    assert_eq!(r.testers, 1, "the good tester is served");
    assert!(store.tester(&good).is_ok());
    let aside = crate::recover::set_aside_dir(&dir);
    assert!(aside.join(ids::journal_name(&bad, 0)).exists());
    assert!(
        aside.join(ids::log_name(&bad, 0)).exists(),
        "its log went with it"
    );
    assert!(!path.exists());
    drop(store);
    let status = crate::status::status(&dir).unwrap();
    assert!(status.bad.is_empty());
    assert_eq!(status.set_aside.len(), 4);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every file's bytes in the folder (journals and logs), by name.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for d in [dir.to_owned(), journal_dir(dir)] {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_file() {
                out.insert(
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                );
            }
        }
    }
    out.remove("playtest.lock");
    out
}

/// What a tester is shown: their session, game, board, holder and score.
fn shown(t: &Tester) -> String {
    match &t.session {
        None => format!("{} sessions, none open", t.sessions),
        Some(s) => {
            let e = &s.table.episode;
            format!(
                "{} s{} g{} m{} {:?} {:?} {}",
                t.sessions, s.number, s.table.game, s.table.moves, e.board, e.holder, e.score
            )
        }
    }
}

/// Acknowledged moves: (tester, session, game, slot's piece, x, y).
type Acked = Vec<(String, u32, u64, String, usize, usize)>;

/// One request of the script: retried once after a failure (the page
/// reloads and tries again), after checking the failure changed nothing.
/// `Err` when the process "died".
fn request<T>(
    store: &Store,
    dir: &Path,
    t: &mut Tester,
    mut work: impl FnMut(&Store, &mut Tester) -> Result<T, Error>,
) -> Result<T, ()> {
    let (before_files, before_shown) = (files(dir), shown(t));
    match work(store, t) {
        Ok(v) => Ok(v),
        Err(_) if store.config.faults.dead() => Err(()),
        Err(e) => {
            assert!(
                matches!(e, Error::Folder(_)),
                "a failed write is a storage error: {e}"
            );
            assert_eq!(
                shown(t),
                before_shown,
                "the refused request changed the session ({e})"
            );
            assert!(
                files(dir) == before_files,
                "the refused request changed the folder ({e})"
            );
            work(store, t).map_err(|e| panic!("the retry failed: {e}"))
        }
    }
}

/// The scripted session: two testers, moves, a new game, a fresh session.
/// The moves acknowledged, until the process "died" (if it did).
fn script(store: &Store, dir: &Path, a: &str, b: &str) -> Acked {
    let mut acked = Acked::new();
    let mut go = || -> Result<(), ()> {
        for (id, moves, new_game, fresh) in [(a, 9, true, false), (b, 3, false, false), (a, 2, false, true)] {
            let t = store.arrive(id).unwrap();
            let mut t = t.lock().unwrap();
            request(store, dir, &mut t, |s, t| s.session(t, fresh).map(|_| ()))?;
            for _ in 0..moves {
                let Some(req) = first_move(&t) else { break };
                let piece = {
                    let s = t.session.as_ref().unwrap();
                    let p = s.table.episode.holder[req.slot].unwrap();
                    store.config.set.piece(p).id.clone()
                };
                request(store, dir, &mut t, |s, t| s.play(t, &req).map(|_| ()))?;
                acked.push((t.id.clone(), req.session, req.game, piece, req.x, req.y));
            }
            if new_game {
                let (session, game) = {
                    let s = t.session.as_ref().unwrap();
                    (s.number, s.table.game)
                };
                request(store, dir, &mut t, |s, t| s.new_game(t, session, game))?;
                let Some(req) = first_move(&t) else { continue };
                let p = t.session.as_ref().unwrap().table.episode.holder[req.slot].unwrap();
                let piece = store.config.set.piece(p).id.clone();
                request(store, dir, &mut t, |s, t| s.play(t, &req).map(|_| ()))?;
                acked.push((t.id.clone(), req.session, req.game, piece, req.x, req.y));
            }
        }
        Ok(())
    };
    let _ = go();
    acked
}

/// Every move the folder's logs hold, in order, as `Acked`.
fn logged(dir: &Path, ids: &[&str]) -> Acked {
    let mut out = Acked::new();
    for id in ids {
        for session in 0..4 {
            let Ok(text) = std::fs::read_to_string(dir.join(ids::log_name(id, session))) else {
                continue;
            };
            for line in text.lines() {
                let r: serde_json::Value = serde_json::from_str(line).unwrap();
                for m in r["moves"].as_array().unwrap() {
                    out.push((
                        (*id).to_owned(),
                        session,
                        r["game"].as_u64().unwrap(),
                        m[0].as_str().unwrap().to_owned(),
                        m[1].as_u64().unwrap() as usize,
                        m[2].as_u64().unwrap() as usize,
                    ));
                }
            }
        }
    }
    out
}

/// Runs the script under `faults`, "crashes" (drops the store), serves the
/// folder again without faults: it must open, and its logs must hold every
/// acknowledged move once and in order (at most the one in flight more,
/// when the process died after its line reached the file).
fn run_with(faults: Faults, name: &str) -> (u64, Option<String>) {
    let dir = folder(name);
    let (a, b) = (ids::random_hex(16), ids::random_hex(16));
    let mut c = config(&dir);
    let faults = Arc::new(faults);
    c.faults = faults.clone();
    // The start's own writes (the identity, the token) fail in turn too:
    // then nothing is served, and the next start must still work.
    let acked = match Store::open(c) {
        Ok((store, _)) => script(&store, &dir, &a, &b),
        Err(e) => {
            assert!(matches!(e, Error::Folder(_)), "{e}");
            Acked::new()
        }
    };
    let dead = faults.dead();
    let (store, r) = Store::open(config(&dir))
        .unwrap_or_else(|e| panic!("the folder does not serve again after {:?}: {e}", faults.failed()));
    assert!(
        r.set_aside.is_empty(),
        "{:?} set aside {:?}",
        faults.failed(),
        r.set_aside
    );
    // Every session closed, so the logs hold the open deals too.
    for t in store.testers() {
        store.close(&mut t.lock().unwrap()).unwrap();
    }
    let logs = logged(&dir, &[&a, &b]);
    let by = |id: &str, v: &Acked| v.iter().filter(|m| m.0 == id).cloned().collect::<Acked>();
    for id in [&a, &b] {
        let (want, got) = (by(id, &acked), by(id, &logs));
        let extra = got.len().saturating_sub(want.len());
        assert!(
            got.starts_with(&want) && extra <= usize::from(dead),
            "after {:?}: acknowledged {want:?}, logged {got:?}",
            faults.failed()
        );
    }
    // It plays on.
    for t in store.testers() {
        let mut t = t.lock().unwrap();
        store.session(&mut t, false).unwrap();
        let req = first_move(&t).expect("a new game has a move");
        store.play(&mut t, &req).unwrap();
    }
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
    (faults.ops(), faults.failed())
}

#[test]
fn a_failure_at_each_write_and_sync_changes_nothing_and_loses_nothing() {
    let (ops, failed) = run_with(Faults::default(), "faults-none");
    assert_eq!(failed, None);
    assert!(ops > 30, "the script makes {ops} writes and syncs");
    let mut seen = std::collections::BTreeSet::new();
    for n in 0..ops {
        // The deals differ run to run (seeds from the system), the writes
        // they make barely: an operation past this run's end fails nothing.
        if let (_, Some(failed)) = run_with(Faults::fail_at(n), &format!("faults-{n}")) {
            seen.insert(failed.split(' ').next().unwrap().to_owned());
        }
    }
    assert!(seen.contains("write") && seen.contains("sync"), "{seen:?}");
}

#[test]
fn a_crash_at_each_write_and_sync_leaves_a_folder_that_serves_again() {
    let (ops, _) = run_with(Faults::default(), "crash-none");
    let mut crashed = 0;
    for n in 0..ops {
        crashed += usize::from(run_with(Faults::crash_at(n), &format!("crash-{n}")).1.is_some());
    }
    assert!(crashed + 2 >= ops as usize, "{crashed} of {ops} crashes reached");
}

#[test]
fn a_forgotten_tester_leaves_no_record_and_others_are_untouched() {
    let dir = folder("forget");
    let mut c = config(&dir);
    c.limits.idle_session = std::time::Duration::from_secs(0);
    let (a, b) = (ids::random_hex(16), ids::random_hex(16));
    {
        let (store, _) = Store::open(c.clone()).unwrap();
        for id in [&a, &b] {
            let t = store.arrive(id).unwrap();
            let mut t = t.lock().unwrap();
            for _ in 0..4 {
                play_first(&store, &mut t);
            }
        }
        let e = crate::forget::forget(&dir, &a).unwrap_err();
        assert!(
            e.to_string().contains("stop it first"),
            "a served folder is refused: {e}"
        );
        std::thread::sleep(std::time::Duration::from_millis(1100));
        assert_eq!(store.sweep(), 2);
    }
    let kept = files(&dir);
    let f = crate::forget::forget(&dir, &a).unwrap();
    assert_eq!(
        f,
        crate::forget::Forgot {
            files: 2,
            sessions: 1
        }
    );
    let left = files(&dir);
    assert!(left.keys().all(|n| !n.contains(&a)), "{:?}", left.keys());
    assert_eq!(left.len(), kept.len() - 2, "b's records untouched");
    assert!(
        crate::forget::forget(&dir, &a)
            .unwrap_err()
            .to_string()
            .contains("no records")
    );
    let status = crate::status::status(&dir).unwrap();
    assert_eq!(status.total().testers, 1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The player's history as the folder's logs read it: each session's
/// games in order, each ended as the log says (one idea: the server deals
/// the next game to the player its logs describe).
fn history_the_logs_read(dir: &Path, set: &PieceSet) -> tenten_engine::play::adaptive::History {
    let logs = tenten_engine::io::jsonl_log::read_logs(&[dir.to_owned()]).unwrap();
    let (testers, _) = tenten_engine::fits::population::check::testers_of(&logs, set).unwrap();
    assert_eq!(testers.len(), 1);
    let mut h = tenten_engine::play::adaptive::History::default();
    for session in &testers[0].1 {
        h.new_session();
        for g in &session.games {
            h.ended(g.rounds, g.end == tenten_engine::play::game::End::Unfair);
        }
    }
    h
}

#[test]
fn the_history_a_server_deals_from_is_the_one_its_logs_read() {
    // Games ended, games left part way by a new game (before any move, in
    // the middle of a deal, after whole rounds) and a game left by the
    // session's close, over two sessions and a restart: the history the
    // next game is dealt from is the one the logs describe, game for game.
    let dir = folder("left-games");
    let mut rng = tenten_engine::model::generator::Generator::new(7);
    let id = ids::random_hex(16);
    let (mut ended, mut left, mut unfair, mut unplayed, mut ended_unfair) = (0, 0, 0, 0, 0);
    for session in 0..2 {
        let (store, _) = Store::open(config(&dir)).unwrap();
        let t = if session == 0 {
            store.arrive(&id)
        } else {
            store.tester(&id)
        }
        .unwrap();
        let mut t = t.lock().unwrap();
        store.session(&mut t, session > 0).unwrap();
        for game in 0..12 {
            // Up to 7 moves (none too: a game left unplayed is no game), the
            // game to its end, or whole rounds until one starts on a holder
            // that cannot all be placed (left there: an unfair loss).
            let mode = rng.below(3);
            let moves = match (game, mode) {
                // Each session leaves one game before any move.
                (5, _) => 0,
                (_, 0) => usize::MAX,
                _ => rng.below(8),
            };
            let mode = if game == 5 { 1 } else { mode };
            let mut made = 0;
            loop {
                let s = t.session.as_ref().unwrap();
                let e = &s.table.episode;
                let placeable = validate(&e.shapes, e.board, &e.dealt.holder).solvable;
                let round_start = e.holder.iter().all(Option::is_some);
                let stop = if mode == 2 {
                    round_start && !placeable
                } else {
                    made >= moves
                };
                if stop || !play_first(&store, &mut t) {
                    break;
                }
                made += 1;
            }
            let s = t.session.as_ref().unwrap();
            let e = &s.table.episode;
            if let Some(end) = s.table.over() {
                ended += 1;
                ended_unfair += usize::from(end == End::Unfair);
            } else if s.table.moves == 0 {
                unplayed += 1;
            } else {
                left += 1;
                unfair += usize::from(e.history_if_left().1 == Some(End::Unfair));
            }
            if game < 11 {
                let (number, at) = (s.number, s.table.game);
                store.new_game(&mut t, number, at).unwrap();
            }
        }
        store.close(&mut t).unwrap();
        assert_eq!(
            t.history,
            history_the_logs_read(&dir, &store.config.set),
            "after session {session}"
        );
    }
    assert!(
        ended >= 2 && left >= 2 && unfair >= 1 && unplayed >= 2,
        "every kind played: {ended} ended, {left} left ({unfair} on an unfair holder), {unplayed} unplayed"
    );
    // `playtest status` counts the games the logs read, unfair losses
    // left and ended alike, and no game left before any move.
    let status = crate::status::status(&dir).unwrap().total();
    assert_eq!(
        (status.games, status.unfair),
        ((ended + left) as u64, (unfair + ended_unfair) as u64)
    );
    // A restart replays the journals to the same history.
    let (store, _) = Store::open(config(&dir)).unwrap();
    let t = store.tester(&id).unwrap();
    let t = t.lock().unwrap();
    assert_eq!(t.history, history_the_logs_read(&dir, &store.config.set));
    drop((t, store));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A generator with adaptive rules deals each tester by their games so far:
/// a game ended joins their history, a new session carries their typical
/// game, and a restart rebuilds it from the journals.
#[test]
fn a_testers_games_reach_the_adaptive_rules_across_sessions_and_restarts() {
    let dir = folder("adaptive");
    let adaptive = |dir: &Path| {
        let mut c = config(dir);
        let text = "(name: \"adaptive\", check: none, adaptive: Some((rules: [(when: [first_game], tilt: 3.0), (when: [session_games(1)], tilt: -3.0)])))";
        let spec = tenten_engine::play::generator_file::parse(text, "adaptive", &c.set).unwrap();
        c.generators = vec![Generator {
            name: "adaptive".to_owned(),
            dealing: Dealing::file(spec, &c.set).unwrap(),
        }];
        c
    };
    let id = ids::random_hex(16);
    // The engine's own deal for a game on `seed` to a player with `history`.
    let engine_holder = |c: &Config, seed: u64, history: &tenten_engine::play::adaptive::History| {
        let mut e = tenten_engine::play::episode::Episode::new(
            c.generators[0].dealing.clone(),
            c.set.clone(),
            c.size,
            c.k,
            crate::table::MAX_ROUNDS,
        );
        e.history = history.clone();
        e.reset(seed);
        e.holder
    };
    let (history, holder) = {
        let (store, _) = Store::open(adaptive(&dir)).unwrap();
        let t = store.arrive(&id).unwrap();
        let mut t = t.lock().unwrap();
        while play_first(&store, &mut t) {}
        let s = t.session.as_ref().unwrap();
        assert_eq!(
            s.table.episode.history.session_games, 1,
            "the game that ended is in it"
        );
        let (number, game) = (s.number, s.table.game);
        store.new_game(&mut t, number, game).unwrap();
        let s = t.session.as_ref().unwrap();
        let h = s.table.episode.history.clone();
        assert_eq!(h.session_games, 1);
        assert_eq!(
            s.table.episode.holder,
            engine_holder(&store.config, s.table.seed, &h),
            "the second game is dealt as the engine deals it to this player"
        );
        assert!(play_first(&store, &mut t));
        (h, t.session.as_ref().unwrap().table.episode.holder.clone())
    };
    // A restart: the open session's games are replayed with the history.
    let (store, r) = Store::open(adaptive(&dir)).unwrap();
    assert_eq!(r.resumed, 1);
    let t = store.tester(&id).unwrap();
    let mut t = t.lock().unwrap();
    {
        let s = store.session(&mut t, false).unwrap();
        assert_eq!(s.table.episode.history, history);
        assert_eq!(s.table.episode.holder, holder);
    }
    // A new session: its first game, with the player's games carried.
    store.session(&mut t, true).unwrap();
    let s = t.session.as_ref().unwrap();
    let h = s.table.episode.history.clone();
    // The game left open by the close is the player's second.
    assert_eq!((h.session_games, h.earlier_games), (0, 2));
    let mut closed = history.clone();
    closed.ended(0, false);
    assert_eq!(t.history, closed, "the closed session's games are the tester's");
    drop((t, store));
    let (store, _) = Store::open(adaptive(&dir)).unwrap();
    let t = store.tester(&id).unwrap();
    let t = t.lock().unwrap();
    assert_eq!(t.session.as_ref().unwrap().table.episode.history, h);
    assert_eq!(t.history, closed);
    // status replays every session in order: none is bad.
    drop((t, store));
    let status = crate::status::status(&dir).unwrap();
    assert!(status.bad.is_empty(), "{:?}", status.bad);
    // The open session's journal holds the games before it: it replays
    // alone, even with the first session's journal gone.
    std::fs::remove_file(journal_dir(&dir).join(ids::journal_name(&id, 0))).unwrap();
    let (store, r) = Store::open(adaptive(&dir)).unwrap();
    assert_eq!((r.resumed, r.set_aside.len()), (1, 0));
    let t = store.tester(&id).unwrap();
    let t = t.lock().unwrap();
    assert_eq!(t.session.as_ref().unwrap().table.episode.history, h);
    drop((t, store));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A folder begun by a server of behaviour 1 (a left game never joined the
/// history) is served and replayed as it was dealt, ever after: its
/// journals replay whole, no session set aside; a folder of a newer server
/// than this one is refused, saying so.
#[test]
fn a_folder_is_served_with_the_behaviour_it_began_with() {
    let dir = folder("behaviour");
    let adaptive = |dir: &Path, behaviour: u32| {
        let mut c = config(dir);
        // The first game of a session large, the next small: a game left
        // counts or not, and the second game's deal says which.
        let text = "(name: \"adaptive\", check: none, adaptive: Some((rules: [(when: [first_game], tilt: 3.0), (when: [session_games(1)], tilt: -3.0)])))";
        let spec = tenten_engine::play::generator_file::parse(text, "adaptive", &c.set).unwrap();
        c.generators = vec![Generator {
            name: "adaptive".to_owned(),
            dealing: Dealing::file(spec, &c.set).unwrap(),
        }];
        c.behaviour = behaviour;
        c
    };
    let id = ids::random_hex(16);
    let second_deal = {
        let (store, _) = Store::open(adaptive(&dir, 1)).unwrap();
        let t = store.arrive(&id).unwrap();
        let mut t = t.lock().unwrap();
        assert!(play_first(&store, &mut t));
        let (number, game) = (t.session.as_ref().unwrap().number, 0);
        store.new_game(&mut t, number, game).unwrap();
        let s = t.session.as_ref().unwrap();
        assert_eq!(
            s.table.episode.history.session_games, 0,
            "behaviour 1: the left game is not in it"
        );
        let holder = s.table.episode.holder.clone();
        for _ in 0..4 {
            assert!(play_first(&store, &mut t));
        }
        holder
    };
    let text = std::fs::read_to_string(identity_path(&dir)).unwrap();
    assert!(text.contains("\"behaviour\": 1"), "{text}");
    // Today's server on it: behaviour 1 still, every journal replayed.
    let (store, r) = Store::open(adaptive(&dir, crate::BEHAVIOUR)).unwrap();
    assert_eq!(store.config.behaviour, 1);
    assert_eq!((r.resumed, r.set_aside.len()), (1, 0), "{:?}", r.set_aside);
    {
        let t = store.tester(&id).unwrap();
        let mut t = t.lock().unwrap();
        let s = store.session(&mut t, false).unwrap();
        assert_eq!(s.table.episode.holder.len(), second_deal.len());
        assert_eq!(s.table.episode.history.session_games, 0);
    }
    drop(store);
    let status = crate::status::status(&dir).unwrap();
    assert!(status.bad.is_empty(), "{:?}", status.bad);
    // Read as behaviour 2, the second game is dealt from another history
    // (its moves may not even replay): what the recorded behaviour prevents.
    let identity = text.replace("\"behaviour\": 1", "\"behaviour\": 2");
    std::fs::write(identity_path(&dir), &identity).unwrap();
    let (store, r) = Store::open(adaptive(&dir, crate::BEHAVIOUR)).unwrap();
    let misread = r.set_aside.len() == 1 || {
        let t = store.tester(&id).unwrap();
        let t = t.lock().unwrap();
        t.session.as_ref().unwrap().table.episode.history.session_games == 1
    };
    assert!(misread, "the old journal read the new way");
    drop(store);
    // A newer server's folder is refused with the reason.
    std::fs::write(
        identity_path(&dir),
        text.replace("\"behaviour\": 1", "\"behaviour\": 99"),
    )
    .unwrap();
    let why = Store::open(adaptive(&dir, crate::BEHAVIOUR))
        .err()
        .unwrap()
        .to_string();
    assert!(why.contains("newer server") && why.contains("99"), "{why}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_game_over_on_its_first_deal_is_a_game_played() {
    // A set of one piece wider than the board: every deal is over before
    // any move, and each such game counts in status as the logs count it.
    let dir = folder("first-deal");
    let mut c = config(&dir);
    let line =
        tenten_engine::model::pieces::Piece::from_rows("i5", "line", 1, &["#####".to_owned()]).unwrap();
    c.set = PieceSet::new("too-wide", vec![line]).unwrap();
    c.size = BoardSize::new(4, 4).unwrap();
    c.generators
        .iter_mut()
        .for_each(|g| g.dealing = Dealing::by_name("random", &c.set).unwrap());
    let (store, _) = Store::open(c).unwrap();
    let id = ids::random_hex(16);
    let t = store.arrive(&id).unwrap();
    let mut t = t.lock().unwrap();
    store.session(&mut t, false).unwrap();
    for _ in 0..2 {
        let s = t.session.as_ref().unwrap();
        assert!(s.table.over().is_some(), "no piece fits the empty board");
        let (number, at) = (s.number, s.table.game);
        store.new_game(&mut t, number, at).unwrap();
    }
    store.close(&mut t).unwrap();
    drop((t, store));
    let status = crate::status::status(&dir).unwrap().total();
    assert_eq!((status.games, status.moves), (3, 0));
    let _ = std::fs::remove_dir_all(&dir);
}
