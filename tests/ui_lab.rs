//! The Lab tab, driven like a user would: a tiny simulation of every
//! generator that ends with the plots, the table and the headline filled, a
//! game replayed round by round on the board, and a cancel.

mod common;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use tenten::app::App;
use tenten::app::jobs::job::Background as _;
use tenten::app::shell::command::Command;
use tenten::app::shell::settings::LabSettings;
use tenten_engine::play::game::End;

use common::ui::{harness_on_tab, press, step_until};

fn harness() -> Harness<'static, App> {
    let h = harness_on_tab("Lab");
    assert_eq!(h.state().state.settings.inspector_tab, 5);
    h
}

fn wait_until_stopped(h: &mut Harness<'static, App>) {
    step_until(h, "the simulation's end", |a| !a.live.lab.running());
}

#[test]
fn a_tiny_simulation_fills_the_plots_the_table_and_the_answers() {
    let mut h = harness();
    h.state_mut().push(Command::SetLab(LabSettings {
        games: 40,
        seed: 3,
        ..LabSettings::default()
    }));
    h.run();
    h.get_by_label("Run").click();
    h.run();
    wait_until_stopped(&mut h);
    let lab = &h.state().live.lab;
    assert_eq!(lab.finished, Some(true));
    // Every (player, generator), player by player: the ladder's rows.
    let pairs: Vec<(&str, &str)> = lab
        .results
        .iter()
        .map(|r| (r.player.as_str(), r.name.as_str()))
        .collect();
    let generators = ["random", "repair", "reject", "bag"];
    let expected: Vec<(&str, &str)> = ["novice", "casual"]
        .iter()
        .flat_map(|p| generators.iter().map(move |g| (*p, *g)))
        .collect();
    assert_eq!(pairs, expected);
    for r in &lab.results {
        assert_eq!(r.games.len(), 40, "{}", r.name);
        assert_eq!(r.summary.games, 40);
    }
    let repair = &lab.results[1].summary;
    assert_eq!(repair.unfair, 0, "repair never loses unfairly");
    assert!(
        lab.results[0].summary.unfair > 0,
        "random does, on 40 novice games"
    );
    // The ladder first: medians with intervals, unfair shares, the sentence.
    h.get_by_label("Skill ladder");
    // One header, a row per (player, generator): a ladder of many
    // generators stays as narrow as four columns.
    assert_eq!(h.query_all_by_label("median rounds\n[95 % CI]").count(), 1);
    h.get_by_label_contains("With random, ");
    h.get_by_label_contains("of novice's losses are unfair; with repair, none");
    // A click on casual shows casual's details.
    h.get_by_label("novice: details");
    // (The settings' checkbox has the same name; the ladder's row is after.)
    let ladder_row = |h: &mut Harness<'static, App>, player: &str| {
        h.query_all_by_label(player).last().unwrap().click();
        h.run();
    };
    ladder_row(&mut h, "casual");
    assert_eq!(h.state().state.settings.lab.detail, "casual");
    assert_eq!(
        h.state().state.settings.lab.players,
        ["novice", "casual"],
        "the row, not the checkbox"
    );
    h.get_by_label("casual: details");
    ladder_row(&mut h, "novice");
    // The answers, the plots' headings and the table are there.
    h.get_by_label_contains("With repair, games last");
    h.get_by_label_contains("losses with random were unfair");
    h.get_by_label_contains("repair dealt pieces of 1-3 cells");
    for heading in [
        "Survival",
        "Hazard: the difficulty curve",
        "How games ended",
        "Pieces dealt against the weights",
        "Distortion by board fill",
        "Every figure",
    ] {
        h.get_by_label(heading);
    }
    h.get_by_label("rounds, mean");
    h.get_by_label("rounds, restricted mean");
    h.get_by_label("unfair share");
    h.get_by_label_contains("repair minus random:");
    h.get_by_label("Export CSV…");

    // Replay the first unfair game of random, to its end, on the board.
    press(&mut h, "unfair");
    // The list shows only unfair games now: take the first row.
    h.query_all_by_label_contains(" rounds, unfair, score ")
        .next()
        .unwrap()
        .scroll_to_me();
    h.run();
    h.query_all_by_label_contains(" rounds, unfair, score ")
        .next()
        .unwrap()
        .click();
    step_until(&mut h, "the replay's rounds", |a| {
        a.live.lab.replay.as_ref().is_some_and(|r| r.rounds.is_some())
    });
    h.run();
    let replay = h.state().live.lab.replay.as_ref().unwrap();
    let (game, rounds) = replay.rounds.as_ref().unwrap();
    assert_eq!(game.end, End::Unfair);
    assert_eq!(
        rounds.len() as u32,
        game.rounds + 1,
        "the last round is the one that ended it"
    );
    h.get_by_label_contains("Round 1: dealt");
    assert!(
        h.state().live.debug_board.is_some(),
        "the step is shown on the board"
    );
    press(&mut h, ">|");
    h.get_by_label_contains("An unfair loss");
    // Step back into the last placement, then open that deal in the document.
    press(&mut h, "<");
    h.get_by_label_contains(", placement ");
    press(&mut h, "Open this deal");
    assert_eq!(
        h.state().state.settings.inspector_tab,
        0,
        "{}",
        h.state().live.status
    );
    assert!(!h.state().state.doc.holder().is_empty());
    assert!(h.state().state.doc.board.filled() > 0);
    // A new run keeps the replay while the old run's figures are shown;
    // its first figures drop the replay, whose rounds belong to the old
    // plan, and take its step off the board.
    h.state_mut().push(Command::SetInspectorTab(5));
    h.run();
    assert!(h.state().live.debug_board.is_some());
    h.state_mut().push(Command::StartLab);
    h.run();
    wait_until_stopped(&mut h);
    assert!(h.state().live.lab.replay.is_none());
    assert!(h.state().live.debug_board.is_none());
}

#[test]
fn cancel_stops_the_simulation_and_keeps_the_games_played() {
    let mut h = harness();
    h.state_mut().push(Command::SetLab(LabSettings {
        games: 100_000,
        generators: vec!["repair".to_owned()],
        ..LabSettings::default()
    }));
    h.run();
    h.get_by_label("Run").click();
    h.run();
    assert!(h.state().live.lab.running());
    for _ in 0..2000 {
        h.step();
        if h.state()
            .live
            .lab
            .results
            .first()
            .is_some_and(|r| !r.games.is_empty())
        {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    h.get_by_label("Cancel").click();
    h.run();
    wait_until_stopped(&mut h);
    let lab = &h.state().live.lab;
    assert_eq!(lab.finished, Some(false));
    let kept = lab.results[0].games.len();
    assert!(kept > 0 && kept < 100_000, "{kept}");
    h.get_by_label_contains("Cancelled: the Results page covers the games finished.");
    // The worker has returned (joined), so nothing more can arrive.
    let latency = common::ui::all_jobs_end(&mut h);
    eprintln!("generator lab: threads ended within {latency:?} of the last frame");
    h.run();
    assert_eq!(h.state().live.lab.results[0].games.len(), kept);
}

/// The time warning before a coelho run scales with the holder and the
/// board: the 16x8 with holders of 4 warns at 4 games, while 10x10
/// with holders of 3 does not.
#[test]
fn the_coelho_warning_scales_with_holder_and_board() {
    use tenten::app::shell::settings::LabSize;
    use tenten_engine::model::board::BoardSize;
    let mut h = harness();
    let coelho = |size: BoardSize, k: usize| LabSettings {
        players: vec!["coelho".to_owned()],
        generators: vec!["random".to_owned()],
        games: 4,
        max_rounds: 2000,
        holder_size: k,
        size: LabSize::Fixed(size),
        ..LabSettings::default()
    };
    h.state_mut().push(Command::SetLab(coelho(BoardSize::CLASSIC, 3)));
    h.run();
    assert!(h.query_by_label_contains("this may take up to").is_none());
    let wide = BoardSize { width: 16, height: 8 };
    h.state_mut().push(Command::SetLab(coelho(wide, 4)));
    h.run();
    let warning = h.get_by_label_contains("this may take up to");
    let text = format!("{warning:?}");
    assert!(
        text.contains("one round every") && text.contains("16x8") && text.contains("holders of 4"),
        "{text}"
    );
}

/// A whole-number box says what it did with what was typed: 2.7 games is
/// rounded to 3, -5 is brought to 1, letters keep the old value; each with
/// a note beside the box.
#[test]
fn typed_numbers_that_are_not_whole_are_explained() {
    use egui::{Event, Modifiers};
    let mut h = harness();
    let type_games = |h: &mut Harness<'static, App>, text: &str| {
        h.get_by_label("Games").click();
        h.run();
        h.key_press_modifiers(Modifiers::COMMAND, egui::Key::A);
        h.run();
        for c in text.chars() {
            h.event(Event::Text(c.to_string()));
            h.run();
        }
        h.key_press(egui::Key::Enter);
        h.run();
        h.run();
    };
    type_games(&mut h, "2.7");
    assert_eq!(h.state().state.settings.lab.games, 3);
    h.get_by_label("Games is a whole number: 2.7 was rounded to 3.");
    type_games(&mut h, "-5");
    assert_eq!(h.state().state.settings.lab.games, 1);
    h.get_by_label("Games is at least 1: -5 was set to 1.");
    type_games(&mut h, "ten");
    assert_eq!(h.state().state.settings.lab.games, 1);
    h.get_by_label("Games takes a whole number; \"ten\" is not one, so it stays 1.");
}

/// The results name the set as the top bar does, go stale (and say what
/// changed) when the settings move on, and a run can be pinned to compare
/// with the next one.
#[test]
fn results_name_their_set_go_stale_and_can_be_pinned() {
    let mut h = harness();
    let dot = h.state().state.doc.set.index_of("dot").unwrap();
    h.state_mut().push(Command::SetWeight {
        piece: dot,
        weight: 0,
        stroke: 1,
    });
    h.state_mut().push(Command::SetLab(LabSettings {
        games: 20,
        generators: vec!["random".to_owned(), "repair".to_owned()],
        ..LabSettings::default()
    }));
    h.run();
    press(&mut h, "Run");
    wait_until_stopped(&mut h);
    h.get_by_label_contains("novice, casual, classic 1010! (modified), 10x10 board");
    assert!(h.query_by_label_contains("Stale:").is_none());
    // Pin it, then change the seeds: the results are stale and say why.
    press(&mut h, "Pin this run");
    h.get_by_label_contains("Pinned: novice, casual, classic 1010! (modified)");
    let mut moved = h.state().state.settings.lab.clone();
    moved.seed = 77;
    h.state_mut().push(Command::SetLab(moved));
    h.run();
    h.get_by_label_contains("Stale: the seeds changed since this run");
    // The next run keeps the pinned one, drawn beside it in the legend.
    press(&mut h, "Run");
    wait_until_stopped(&mut h);
    assert!(h.query_by_label_contains("Stale:").is_none());
    assert!(h.state().live.lab.pinned.is_some());
    h.get_by_label("pinned random (20 games)");
    press(&mut h, "Unpin");
    assert!(h.state().live.lab.pinned.is_none());
}

/// A playtest log open in the document offers "Fit a player" in the Lab:
/// the estimates with their intervals hold casual's temperature and slip,
/// the likelihood curves are drawn, and the player can be saved.
#[test]
fn a_playtest_log_fits_a_player_in_the_lab() {
    let mut h = harness();
    assert!(h.query_by_label("Fit a player").is_none(), "no log open, no fit");
    common::ui::open(&mut h, common::ui::preset("logs/casual-playtest.ron"));
    h.get_by_label("Lab").click();
    h.run();
    // The Lab's Players page (the first "Players": the page row).
    h.query_all_by_label("Players").next().unwrap().click();
    h.run();
    press(&mut h, "Fit a player");
    step_until(&mut h, "the fit", |a| !a.live.fit.running());
    let fitted = h.state().live.fit.result.clone().expect("a fit");
    let f = &fitted.fit;
    // presets/players/casual.ron wrote it: temperature 0.5, slip 0.02.
    assert!(
        f.temperature_ci.0 <= 0.5 && 0.5 <= f.temperature_ci.1,
        "{}",
        f.line()
    );
    assert!(f.slip_ci.0 <= 0.02 && 0.02 <= f.slip_ci.1, "{}", f.line());
    h.get_by_label_contains("temperature 0.");
    h.get_by_label("profile log-likelihood of temperature");
    h.get_by_label("profile log-likelihood of slip");
    h.get_by_label("Save player…");
    // The file it saves reads back as the fitted player.
    let back = tenten_engine::play::player::Player::parse(&fitted.player_file(), "fitted.ron").unwrap();
    assert_eq!(back, fitted.player());
}

/// A result file written elsewhere (here: two shards played through the
/// engine and merged) opens in the Lab as if it had run there: the plan,
/// every (player, generator), the ladder; a lone shard is refused.
#[test]
fn a_merged_result_opens_in_the_lab_as_if_it_had_run_there() {
    use tenten_engine::progress::Progress;
    use tenten_engine::study::results::{ResultFile, Shard, merge};
    use tenten_engine::study::runner::{Plan, run_games};

    let plan = Plan {
        games: 30,
        seed: 8,
        max_rounds: 500,
        ..Plan::named(
            tenten_engine::model::pieces::PieceSet::classic(),
            &["novice", "greedy"],
            &["random", "repair"],
            tenten_engine::play::coelho::CoelhoWeights::BEST,
        )
        .unwrap()
    };
    let dir = common::cli::scratch("lab-result");
    let mut parts = Vec::new();
    for i in 0..2 {
        let mut part = ResultFile::new(plan.clone(), Shard { index: i, of: 2 });
        for pair in 0..part.pairs.len() {
            let (p, g) = (
                part.pairs[pair].player.clone(),
                part.pairs[pair].generator.clone(),
            );
            let games = part.missing(pair);
            let played = run_games(&plan, &p, &g, &games, 1, &Progress::default()).unwrap();
            part.add(pair, games.into_iter().zip(played), 0.25);
        }
        let path = dir.join(format!("part-{i}.ron"));
        std::fs::write(&path, part.to_ron()).unwrap();
        parts.push((path.display().to_string(), part));
    }
    let merged = dir.join("merged.ron");
    std::fs::write(&merged, merge(&parts).unwrap().to_ron()).unwrap();

    let mut h = common::ui::harness();
    // A shard alone would describe a slice of the seeds: refused, with the way out.
    h.state_mut().push(Command::Load(dir.join("part-1.ron")));
    h.run();
    let error = h.state().live.error.clone().unwrap_or_default();
    assert!(
        error.contains("is shard 1/2 of a run: merge every shard first"),
        "{error}"
    );
    assert!(h.state().live.lab.plan.is_none());
    h.state_mut().live.error = None;

    common::ui::open(&mut h, merged);
    h.run();
    let app = h.state();
    assert_eq!(app.state.settings.inspector_tab, tenten::app::tabs::LAB_TAB);
    let lab = &app.live.lab;
    assert_eq!(lab.finished, Some(true));
    assert_eq!(lab.source.as_deref(), Some("merged.ron"));
    let pairs: Vec<(&str, &str, usize)> = lab
        .results
        .iter()
        .map(|r| (r.player.as_str(), r.name.as_str(), r.games.len()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("novice", "random", 30),
            ("novice", "repair", 30),
            ("greedy", "random", 30),
            ("greedy", "repair", 30)
        ]
    );
    // Seeds back in order, as one process would have played them.
    let seeds: Vec<u64> = lab.results[0].games.iter().map(|g| g.seed).collect();
    assert_eq!(seeds, (8..38).collect::<Vec<u64>>());
    assert!((lab.seconds - 2.0).abs() < 1e-9);
    h.get_by_label_contains("Opened from merged.ron: a run made elsewhere with its own settings");
    h.get_by_label_contains("With random, ");
    // The figures name the run they came from.
    h.get_by_label_contains(&format!("run {}", plan.fingerprint()));
}
