//! Testers' logs as telemetry has them: lines repeated, records out of
//! order, rounds missing, sessions cut off, lines too long. Each is read in
//! (player, session, game, round) order, refused or noted with its place,
//! and never counted as something it is not.

use crate::fits::population::cohort::cohort;
use crate::fits::population::file::by_name;
use crate::fits::population::fit::{Gathered, gather};
use crate::fits::population::session::{Session, Table};
use crate::io::jsonl_log::{LogFile, MAX_LINE};
use crate::io::playtest_log;
use crate::model::board::BoardSize;
use crate::model::pieces::PieceSet;
use crate::model::shapes::Shapes;
use crate::play::dealing::Dealing;
use crate::play::game::End;
use crate::progress::Progress;

/// Two testers' logs, three sessions each, as `tenten cohort` writes them.
fn logs() -> (PieceSet, Vec<String>) {
    let set = PieceSet::classic();
    let shapes = Shapes::new(&set, BoardSize::new(8, 8).unwrap());
    let dealing = Dealing::by_name("random", &set).unwrap();
    let table = Table::new(&shapes, &set, 3, &dealing, 200);
    let demo = by_name("demo").unwrap();
    let texts = cohort(&demo, &table, "random", 2, 3, 4, &Progress::default())
        .unwrap()
        .into_iter()
        .map(|l| l.text)
        .collect();
    (set, texts)
}

fn text(name: &str, text: String) -> LogFile {
    LogFile::Text {
        name: name.to_owned(),
        text,
    }
}

fn sessions(g: &Gathered, set: &PieceSet) -> Vec<Vec<Session>> {
    let shapes = Shapes::new(set, g.size);
    g.testers.iter().map(|t| t.sessions(&shapes, set)).collect()
}

fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_owned).collect()
}

fn joined(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn a_repeated_record_is_refused_at_its_line() {
    let (set, texts) = logs();
    let mut l = lines(&texts[0]);
    l.insert(5, l[4].clone());
    let e = gather(&[text("t0.jsonl", joined(&l))], &set).unwrap_err();
    assert_eq!(e.file, "t0.jsonl");
    assert_eq!(e.at.map(|a| a.0), Some(6), "{e}");
    assert!(e.message.contains("repeats the record of t0.jsonl:5"), "{e}");
    // Across files too: the same record in two logs.
    let e = gather(
        &[
            text("a.jsonl", texts[0].clone()),
            text("b.jsonl", joined(&lines(&texts[0])[..1])),
        ],
        &set,
    )
    .unwrap_err();
    assert!(
        e.to_string().starts_with("b.jsonl:1:") && e.message.contains("a.jsonl:1"),
        "{e}"
    );
}

#[test]
fn records_out_of_order_are_read_in_order_and_said() {
    let (set, texts) = logs();
    let ordered = gather(&[text("t0.jsonl", texts[0].clone())], &set).unwrap();
    assert!(ordered.notes.is_empty(), "{:?}", ordered.notes);
    // The sessions' games interleaved, as telemetry from two devices arrives:
    // every record sorted by its round first.
    let mut l = lines(&texts[0]);
    l.sort_by_key(|r| {
        let v: serde_json::Value = serde_json::from_str(r).unwrap();
        (v["round"].as_u64(), v["game"].as_u64())
    });
    let shuffled = gather(&[text("t0.jsonl", joined(&l))], &set).unwrap();
    assert_eq!(shuffled.testers[0].deals, ordered.testers[0].deals);
    assert_eq!(shuffled.testers[0].keys, ordered.testers[0].keys);
    assert_eq!(sessions(&shuffled, &set), sessions(&ordered, &set));
    assert_eq!(shuffled.notes.len(), 1);
    assert!(shuffled.notes[0].contains("out of order"), "{:?}", shuffled.notes);
    // A log for fit-player reads the same way.
    let a = playtest_log::parse(&texts[0], "t0.jsonl", &set).unwrap();
    let b = playtest_log::parse(&joined(&l), "t0.jsonl", &set).unwrap();
    assert_eq!((a.deals, a.games), (b.deals, b.games));
    assert!(b.notes[0].contains("out of order"));
}

#[test]
fn a_missing_round_censors_its_game_there() {
    let (set, texts) = logs();
    let whole = gather(&[text("t0.jsonl", texts[0].clone())], &set).unwrap();
    let before = sessions(&whole, &set);
    // A game of at least four rounds, and its round 2 dropped.
    let l = lines(&texts[0]);
    let at = |r: &str| -> (String, u64, u64) {
        let v: serde_json::Value = serde_json::from_str(r).unwrap();
        (
            v["session"].as_str().unwrap().to_owned(),
            v["game"].as_u64().unwrap(),
            v["round"].as_u64().unwrap(),
        )
    };
    let cut = (0..l.len())
        .find(|&i| at(&l[i]).2 == 2 && i + 1 < l.len() && at(&l[i + 1]).2 == 3)
        .expect("a game of four rounds");
    let (session, game, _) = at(&l[cut]);
    let mut gapped = l.clone();
    gapped.remove(cut);
    let g = gather(&[text("t0.jsonl", joined(&gapped))], &set).unwrap();
    assert!(
        g.notes
            .iter()
            .any(|n| n.contains(&format!("game {game} has no round 2")) && n.contains("censored")),
        "{:?}",
        g.notes
    );
    let after = sessions(&g, &set);
    let s: usize = session[1..].parse().unwrap();
    let played = after[0][s].games[game as usize];
    assert_eq!(played.end, End::Censored, "never joined across the gap");
    assert_eq!(
        played.rounds, 2,
        "rounds 0 and 1 were played whole before the gap"
    );
    assert!(before[0][s].games[game as usize].rounds > 2);
    // Its moves still count: only the one record is gone.
    assert_eq!(g.testers[0].deals.len(), whole.testers[0].deals.len() - 1);
}

#[test]
fn a_session_cut_off_before_its_last_game_ended_is_not_a_quit() {
    let (set, texts) = logs();
    let whole = gather(&[text("t0.jsonl", texts[0].clone())], &set).unwrap();
    let before = sessions(&whole, &set);
    assert!(
        before[0].iter().all(|s| s.quit),
        "each cohort session ended by quitting"
    );
    // Session s0's last record (the deal that ended its last game) lost.
    let l = lines(&texts[0]);
    let last = (0..l.len())
        .rev()
        .find(|&i| l[i].contains("\"session\":\"s0\""))
        .unwrap();
    assert!(l[last].contains("\"ended\":true"), "{}", l[last]);
    let mut cut = l.clone();
    cut.remove(last);
    let g = gather(&[text("t0.jsonl", joined(&cut))], &set).unwrap();
    let after = sessions(&g, &set);
    assert_eq!(after[0][0].games.last().unwrap().end, End::Censored);
    assert!(!after[0][0].quit, "censored for the quit model, not a quit");
    assert!(after[0][1].quit && after[0][2].quit);
}

#[test]
fn a_record_after_the_one_that_ended_its_game_is_refused() {
    let (set, texts) = logs();
    let l = lines(&texts[0]);
    let end = l.iter().position(|r| r.contains("\"ended\":true")).unwrap();
    // The ended record says round r; a copy says round r + 1.
    let v: serde_json::Value = serde_json::from_str(&l[end]).unwrap();
    let r = v["round"].as_u64().unwrap();
    let mut more = l.clone();
    more.insert(
        end + 1,
        l[end].replace(&format!("\"round\":{r},"), &format!("\"round\":{},", r + 1)),
    );
    let e = gather(&[text("t0.jsonl", joined(&more))], &set).unwrap_err();
    assert_eq!(e.at.map(|a| a.0), Some(end + 2), "{e}");
    assert!(
        e.message.contains("follows the record that ended the game"),
        "{e}"
    );
}

#[test]
fn a_line_longer_than_the_cap_is_refused_with_its_number() {
    let (set, texts) = logs();
    let mut l = lines(&texts[0]);
    l.insert(3, format!("{{\"player\":\"{}\"}}", "x".repeat(MAX_LINE)));
    let e = gather(&[text("t0.jsonl", joined(&l))], &set).unwrap_err();
    assert_eq!(e.at, Some((4, 1)), "{e}");
    assert!(e.message.contains("longer than 1,048,576 bytes"), "{e}");
    // From a file, streamed, the same.
    let dir = std::env::temp_dir().join(format!("tenten-cap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t0.jsonl");
    std::fs::write(&path, joined(&l)).unwrap();
    let e = gather(&[LogFile::Path(path)], &set).unwrap_err();
    assert_eq!(e.at, Some((4, 1)), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A cohort read back from its logs is the sessions it played: every
/// game's rounds and end as the simulation had them (a check compares the
/// logs with simulated reference cohorts, so any drift would be a bias).
#[test]
fn a_cohort_read_back_is_the_sessions_it_played() {
    use crate::fits::population::session::{play_session, player_seed, session_seed};
    use crate::model::generator::Generator;
    let set = PieceSet::classic();
    let shapes = Shapes::new(&set, BoardSize::CLASSIC);
    let dealing = Dealing::by_name("random", &set).unwrap();
    let table = Table::new(&shapes, &set, 3, &dealing, 1_000);
    let demo = by_name("demo").unwrap();
    let never = Progress::default();
    let logs: Vec<LogFile> = cohort(&demo, &table, "random", 6, 3, 101, &never)
        .unwrap()
        .into_iter()
        .map(|l| text(&format!("{}.jsonl", l.id), l.text))
        .collect();
    let (testers, _) = crate::fits::population::check::testers_of(&logs, &set).unwrap();
    for (i, (id, read)) in testers.iter().enumerate() {
        let who = player_seed(101, i as u64);
        let player = demo.draw(id, &mut Generator::new(who)).player;
        let mut history = Default::default();
        let played: Vec<Session> = (0..3)
            .map(|j| {
                play_session(
                    &table,
                    &player,
                    &demo.quit,
                    session_seed(who, j),
                    &mut history,
                    None,
                    &never,
                )
                .unwrap()
            })
            .collect();
        assert_eq!(read, &played, "tester {id}");
    }
}

/// A game left before any move (a new game asked for at once, or a
/// session left on the game just begun) is no game, and a session of none
/// no session; a game that ended on its first deal, no move made, is one.
#[test]
fn a_game_left_before_any_move_is_no_game() {
    let (set, texts) = logs();
    let before = sessions(
        &gather(&[text("t0.jsonl", texts[0].clone())], &set).unwrap(),
        &set,
    );
    let first: serde_json::Value = serde_json::from_str(texts[0].lines().next().unwrap()).unwrap();
    let last: serde_json::Value = serde_json::from_str(texts[0].lines().last().unwrap()).unwrap();
    // The same first deal as a later game of the last session, no move made.
    let unplayed = |session: &serde_json::Value, game: u64, ended: bool| {
        let mut r = first.clone();
        r["session"] = session.clone();
        r["game"] = game.into();
        r["moves"] = serde_json::json!([]);
        r["ended"] = ended.into();
        r.to_string()
    };
    let next = last["game"].as_u64().unwrap() + 1;
    let mut l = lines(&texts[0]);
    l.push(unplayed(&last["session"], next, false));
    l.push(unplayed(&serde_json::json!("s9"), 0, false));
    let left = sessions(&gather(&[text("t0.jsonl", joined(&l))], &set).unwrap(), &set);
    assert_eq!(left, before, "neither the unplayed game nor its session counts");
    let mut l = lines(&texts[0]);
    l.push(unplayed(&last["session"], next, true));
    let ended = sessions(&gather(&[text("t0.jsonl", joined(&l))], &set).unwrap(), &set);
    let (a, b) = (before[0].last().unwrap(), ended[0].last().unwrap());
    assert_eq!(
        b.games.len(),
        a.games.len() + 1,
        "a game over on its first deal counts"
    );
}
