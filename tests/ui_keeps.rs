//! A window that keeps what it made: a cancelled re-run never replaces a
//! finished run, a name follows its weights, opening a file and quitting
//! ask before they lose edits, the Lab's run and the fitted population
//! survive a restart, and the controls of a run cannot change under it.

mod common;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use tenten::app::App;
use tenten::app::jobs::job::Background as _;
use tenten::app::shell::command::Command;
use tenten::app::shell::settings::LabSettings;
use tenten::app::shell::state::State;

use common::ui::{harness_on_tab, harness_sized, open, preset, press, step_until};

fn lab(games: usize, players: &[&str], generators: &[&str]) -> LabSettings {
    LabSettings {
        games,
        seed: 5,
        players: players.iter().map(|p| (*p).to_owned()).collect(),
        generators: generators.iter().map(|g| (*g).to_owned()).collect(),
        ..LabSettings::default()
    }
}

/// Raises piece `piece`'s weight by `by` in the palette, as a slider would.
fn edit_weight(h: &mut Harness<'static, App>, piece: u8, by: u32) {
    let weight = h.state().state.doc.set.pieces[usize::from(piece)].weight;
    h.state_mut().push(Command::SetWeight {
        piece,
        weight: weight + by,
        stroke: 1,
    });
    h.run();
}

fn finished(h: &mut Harness<'static, App>) {
    step_until(h, "the run's end", |a| !a.live.lab.running());
}

/// The walk: run to the end, run again and cancel as soon as the
/// new run has games of its own. The finished run stays on screen, the
/// partial one is kept beside it, and either can be shown.
#[test]
fn a_cancelled_rerun_never_replaces_a_finished_run() {
    let mut h = harness_on_tab("Lab");
    h.state_mut()
        .push(Command::SetLab(lab(60, &["novice", "casual"], &["random"])));
    h.run();
    h.get_by_label("Run").click();
    h.run();
    finished(&mut h);
    assert_eq!(h.state().live.lab.finished, Some(true));
    let done: Vec<usize> = h.state().live.lab.results.iter().map(|r| r.games.len()).collect();
    assert_eq!(done, [60, 60]);
    h.state_mut()
        .push(Command::SetLab(lab(100_000, &["novice", "casual"], &["random"])));
    h.run();
    press(&mut h, "Run");
    // The new run's first games arrive (they would have replaced the run).
    step_until(&mut h, "the re-run's first games", |a| {
        a.live
            .lab
            .results
            .iter()
            .any(|r| !r.games.is_empty() && r.games.len() != 60)
    });
    h.get_by_label("Cancel").click();
    h.run();
    finished(&mut h);
    let l = &h.state().live.lab;
    assert_eq!(l.finished, Some(true), "the finished run is shown again");
    assert_eq!(l.results.iter().map(|r| r.games.len()).collect::<Vec<_>>(), done);
    assert_eq!(l.plan.as_ref().map(|p| p.games), Some(60));
    let other = l.other.as_ref().expect("the partial run is kept beside it");
    assert_eq!(other.finished, Some(false));
    let partial: usize = other.results.iter().map(|r| r.games.len()).sum();
    assert!(partial > 0 && partial < 200_000, "{partial}");
    assert!(
        other.label().contains("partial, cancelled after"),
        "{}",
        other.label()
    );
    h.get_by_label_contains("Also kept:");
    assert!(
        h.state().live.status.contains("cancelled after"),
        "{}",
        h.state().live.status
    );
    // Either run can be shown; neither is lost.
    press(&mut h, "Show the other run");
    assert_eq!(h.state().live.lab.finished, Some(false));
    assert_eq!(h.state().live.lab.plan.as_ref().map(|p| p.games), Some(100_000));
    press(&mut h, "Show the other run");
    assert_eq!(h.state().live.lab.plan.as_ref().map(|p| p.games), Some(60));
}

/// Cancel keeps its place beside Run while no run plays, the settings are
/// read-only while one does, and a run cancelled before its first game
/// says so, not "after N games" of the run before.
#[test]
fn a_run_cannot_change_under_itself_and_its_end_is_told_right() {
    let mut h = harness_on_tab("Lab");
    h.state_mut()
        .push(Command::SetLab(lab(30, &["novice"], &["random"])));
    h.run();
    // Both buttons are there before any run: nothing moves when one starts.
    h.get_by_label("Run");
    h.get_by_label("Cancel");
    h.get_by_label("Run").click();
    h.run();
    finished(&mut h);
    // A long run of the slowest preset, cancelled at once.
    h.state_mut()
        .push(Command::SetLab(lab(100_000, &["expert"], &["repair"])));
    h.run();
    h.get_by_label("Run").click();
    h.run();
    assert!(h.state().live.lab.running());
    // A click on a generator mid-run changes nothing.
    let before = h.state().state.settings.lab.generators.clone();
    h.get_by_label("bag").click();
    h.run();
    assert_eq!(h.state().state.settings.lab.generators, before);
    h.state_mut().push(Command::CancelLab);
    h.run();
    finished(&mut h);
    let status = h.state().live.status.clone();
    if h.state().live.lab.ended_games == 0 {
        assert_eq!(status, "Generator lab cancelled before its first game finished");
    } else {
        assert!(status.contains("cancelled after"), "{status}");
    }
    // The settings are editable again.
    h.get_by_label("bag").click();
    h.run();
    assert!(h.state().state.settings.lab.generators.iter().any(|g| g == "bag"));
}

/// A generator's name follows its weights: a tuned file's name on weights
/// it was not tuned to is marked, in the state and in the Lab's label.
#[test]
fn a_tuned_name_follows_its_weights() {
    let mut h = harness_on_tab("Lab");
    open(&mut h, preset("generators/random-tuned-casual-x2.ron"));
    assert_eq!(
        h.state().state.doc.generator_title().as_deref(),
        Some("random tuned")
    );
    edit_weight(&mut h, 0, 7);
    let title = h.state().state.doc.generator_title().unwrap();
    assert_eq!(title, "random tuned (weights changed since)");
    h.state_mut()
        .push(Command::SetInspectorTab(tenten::app::tabs::LAB_TAB));
    h.run();
    h.get_by_label("edited: random tuned (weights changed since)");
    // Undone, the name is the tune's again.
    h.state_mut().push(Command::Undo);
    h.run();
    assert_eq!(
        h.state().state.doc.generator_title().as_deref(),
        Some("random tuned")
    );
}

/// Opening a file asks before it replaces a piece set edited here; Cancel
/// opens nothing, "Open it" opens the file.
#[test]
fn opening_a_file_asks_before_replacing_an_edited_set() {
    let mut h = common::ui::harness();
    edit_weight(&mut h, 3, 5);
    assert!(h.state().state.doc.set_modified());
    let deal = preset("deals/mid-game.ron");
    h.state_mut().push(Command::Load(deal.clone()));
    h.run();
    assert!(h.state().live.confirm.is_some(), "the question is asked");
    h.get_by_label("Replace your edited piece set?");
    h.get_by_label("Cancel").click();
    h.run();
    assert!(h.state().state.doc.set_modified(), "the edited set is kept");
    assert_ne!(h.state().state.settings.file.as_ref(), Some(&deal));
    h.state_mut().push(Command::Load(deal.clone()));
    h.run();
    h.get_by_label("Open it").click();
    h.run();
    assert_eq!(h.state().state.settings.file.as_ref(), Some(&deal));
    assert!(!h.state().state.doc.set_modified());
    // An unedited set is replaced without a question, as before.
    h.state_mut().push(Command::Load(preset("deals/empty.ron")));
    h.run();
    assert!(h.state().live.confirm.is_none());
}

/// Quit (Ctrl+Q) with the set "(modified)" asks; without changes it does
/// not.
#[test]
fn quit_asks_when_changes_are_not_saved() {
    let mut h = common::ui::harness();
    h.state_mut().push(Command::Quit);
    h.run();
    assert!(h.state().live.confirm.is_none());
    edit_weight(&mut h, 0, 1);
    h.state_mut().push(Command::Quit);
    h.run();
    let c = h.state().live.confirm.clone().expect("Quit asks");
    assert_eq!(c.title, "Quit with unsaved changes?");
    assert!(c.message.contains("(modified)"), "{}", c.message);
    h.get_by_label("Quit anyway");
    h.get_by_label("Cancel").click();
    h.run();
    assert!(h.state().live.confirm.is_none() && !h.state().live.quit_confirmed);
}

/// The Lab's last run and the fitted population survive a restart: a new
/// window on the same session and data folder shows the same games and
/// fits the same population again; and a population can be saved.
#[test]
fn the_labs_run_and_the_population_survive_a_restart() {
    let data = std::env::temp_dir().join(format!("tenten-keep-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let mut first = App::new(State::default());
    first.set_data_dir(Some(data.clone()));
    let mut h = harness_sized(first, [1280.0, 720.0]);
    h.state_mut()
        .push(Command::SetInspectorTab(tenten::app::tabs::LAB_TAB));
    h.state_mut()
        .push(Command::SetLab(lab(25, &["novice"], &["random", "bag"])));
    h.state_mut().push(Command::StartLab);
    h.run();
    finished(&mut h);
    let games: Vec<usize> = h.state().live.lab.results.iter().map(|r| r.games.len()).collect();
    // Written on a job, off the frame the run ended in.
    let kept = data.join("lab-last-run.ron");
    step_until(&mut h, "the run kept on disk", |a| {
        a.live.keeping.is_none() && kept.is_file()
    });
    let cohort = preset("cohorts/demo/random");
    h.state_mut().push(Command::FitPopulation(cohort.clone()));
    h.run();
    step_until(&mut h, "the population fit", |a| !a.live.population_fit.running());
    let testers = h
        .state()
        .live
        .population_fit
        .result
        .as_ref()
        .map(|f| f.fit.testers.len());
    assert_eq!(testers, Some(60));
    assert_eq!(h.state().state.settings.population_folder.as_ref(), Some(&cohort));
    h.state_mut()
        .push(Command::SetInspectorTab(tenten::app::tabs::POPULATION_TAB));
    h.run();
    h.get_by_label("Save population…");
    // Thousands separated, as everywhere else.
    h.get_by_label_contains("60 testers, ");
    let moves = h.state().live.population_fit.result.as_ref().unwrap().fit.moves;
    h.get_by_label_contains(&format!("{} moves", tenten_engine::text::grouped(moves as u64)));

    // The restart: the same session state, the same data folder.
    let state = h.state().state.clone();
    let mut second = App::new(state);
    second.set_data_dir(Some(data.clone()));
    let mut h2 = harness_sized(second, [1280.0, 720.0]);
    let ctx = h2.ctx.clone();
    h2.state_mut().restore_kept(&ctx);
    h2.run();
    let again: Vec<usize> = h2
        .state()
        .live
        .lab
        .results
        .iter()
        .map(|r| r.games.len())
        .collect();
    assert_eq!(again, games);
    assert_eq!(h2.state().live.lab.finished, Some(true));
    step_until(&mut h2, "the population fitted again", |a| {
        a.live.population_fit.result.is_some()
    });
    assert_eq!(
        h2.state()
            .live
            .population_fit
            .result
            .as_ref()
            .map(|f| f.fit.moves),
        Some(moves)
    );
    std::fs::remove_dir_all(&data).unwrap();
}

/// The start page: what this is, three examples, where each task lives;
/// an example opens, and a returning user turns the page off.
#[test]
fn the_start_page_opens_an_example_and_can_be_turned_off() {
    let mut h = harness_sized(App::new(State::default()), [1280.0, 720.0]);
    h.state_mut().push(Command::ShowWelcome);
    h.run();
    h.get_by_label("Welcome to Tenten Workbench");
    h.get_by_label_contains("Where each task lives");
    h.get_by_label("Population (Alt+7): fit a folder of logs, then Forecast");
    h.get_by_label("Show this page when the workbench opens").click();
    h.run();
    assert!(!h.state().state.settings.show_welcome);
    h.get_by_label("An unsolvable deal: the verdict, the paper's F matrix and Repair")
        .click();
    h.run();
    assert!(!h.state().live.welcome);
    let file = h.state().state.settings.file.clone().unwrap();
    assert!(
        file.ends_with("presets/deals/unsolvable-fit-alone-not-together.ron"),
        "{file:?}"
    );
    assert!(file.is_absolute(), "found wherever the window was started");
    // A log opens from File > Open, which says so.
    h.get_by_label("File").click();
    h.run();
    h.get_by_label_contains("Open deal, board, batch or log");
    h.key_press(egui::Key::Escape);
    h.run();
    // The Help menu brings it back.
    h.get_by_label("Help").click();
    h.run();
    h.get_by_label("Welcome: examples and where each task lives")
        .click();
    h.run();
    assert!(h.state().live.welcome);
}

/// A ladder of four generators fits 800x600: every generator's row is on
/// screen, none cut off to the right.
#[test]
fn a_ladder_of_four_generators_fits_a_small_window() {
    let mut h = harness_sized(App::new(State::default()), [800.0, 600.0]);
    h.state_mut()
        .push(Command::SetInspectorTab(tenten::app::tabs::LAB_TAB));
    h.state_mut().push(Command::SetLab(lab(
        20,
        &["novice", "casual"],
        &["random", "repair", "reject", "bag"],
    )));
    h.state_mut().push(Command::StartLab);
    h.run();
    finished(&mut h);
    h.run();
    // Every unfair share of the ladder, the last column, ends inside the
    // window (the inspector's scroll bar takes the last few pixels).
    // (The ladder's: above the details, whose wide table scrolls sideways.)
    let details = h.get_by_label("novice: details").rect().top();
    let shares: Vec<_> = h
        .query_all_by_label_contains(" % [")
        .filter(|n| n.rect().top() < details)
        .collect();
    assert_eq!(shares.len(), 8, "two players by four generators");
    for s in shares {
        let r = s.rect();
        assert!(r.right() <= 792.0, "{s:?} ends at {}", r.right());
    }
}

/// The Population view's folders are chosen in a folder dialog, not only
/// typed, and its default is found wherever the window was started.
#[test]
fn the_population_folder_is_chosen_in_a_dialog() {
    tenten::app::use_window_dialogs();
    let mut h = common::ui::harness_for_file_dialogs();
    h.state_mut()
        .push(Command::SetInspectorTab(tenten::app::tabs::POPULATION_TAB));
    h.run();
    // The default folder is absolute: it does not depend on where the
    // window was started.
    let default = tenten::app::shell::files::preset_path("cohorts/demo/random");
    assert!(default.is_absolute() && default.is_dir(), "{default:?}");
    assert!(
        h.query_all_by_value(&default.display().to_string())
            .next()
            .is_some()
    );
    h.query_all_by_label("Choose folder…").next().unwrap().click();
    h.run();
    assert!(h.state().live.file_dialog.is_some(), "{}", h.state().live.status);
    let chosen = preset("cohorts/demo/block-blast-like");
    common::ui::dialog_in(&mut h, &chosen);
    h.get_by_label("Open").click();
    h.run();
    assert_eq!(h.state().live.picked_folder, Some((false, chosen.clone())));
    h.run();
    assert!(
        h.query_all_by_value(&chosen.display().to_string())
            .next()
            .is_some()
    );
}

/// Places the first fit of every piece in the holder, by hand; how many.
fn play_holder(h: &mut Harness<'static, App>) -> usize {
    let mut placed = 0;
    for slot in 0..h.state().state.doc.slots.len() {
        let app = h.state();
        let Some(piece) = app.state.doc.slots[slot].piece else {
            continue;
        };
        let shapes = &app.live.shapes;
        let fits = shapes
            .shape(piece)
            .fits(app.state.doc.board.bits(), shapes.geometry.full);
        if fits == 0 {
            continue;
        }
        let (x, y) = shapes.xy(fits.trailing_zeros());
        h.state_mut().push(Command::Place { slot, x, y });
        h.run();
        placed += 1;
    }
    placed
}

/// Games played by hand land in the data folder's log, one record a deal,
/// in the playtest format the fits read, naming the generator that dealt
/// (so `fit-player --compare` runs its survival check); an unplayed first
/// deal is no game; the switch stops it.
#[test]
fn a_game_played_by_hand_is_in_its_log() {
    let dir = std::env::temp_dir().join(format!("tenten-ui-record-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut app = App::new(State::default());
    app.set_data_dir(Some(dir.clone()));
    let mut h = harness_sized(app, [1280.0, 720.0]);
    h.get_by_label("recording play");
    h.state_mut().push(Command::ClearBoard);
    h.run();
    // A first deal never played, dealt over: no game of its own (it was
    // written as a game with no move).
    h.state_mut().push(Command::Deal);
    h.run();
    let mut moves = 0;
    let mut deals = 0;
    while deals < 40 {
        h.state_mut().push(Command::Deal);
        h.run();
        deals += 1;
        let n = play_holder(&mut h);
        moves += n;
        if n < h.state().state.doc.slots.len() {
            break; // stuck: the game is over
        }
    }
    // An edit by hand, then a deal: a new game.
    h.state_mut().push(Command::ClearBoard);
    h.state_mut().push(Command::Deal);
    h.run();
    moves += play_holder(&mut h);
    deals += 1;
    let set = h.state().state.doc.set.clone();
    h.state_mut().recorder.finish(&set);
    let player = h.state().state.settings.player_id.clone();
    let log = dir.join("play-logs").join(format!("{player}-s0.jsonl"));
    let text = std::fs::read_to_string(&log).unwrap();
    let read = tenten_engine::io::playtest_log::parse(&text, "log", &set).unwrap();
    assert_eq!(read.deals.len(), deals, "{text}");
    assert_eq!(read.moves, moves);
    assert_eq!(read.games.last().copied(), Some(1), "two games: {:?}", read.games);
    // The generator that dealt (the palette's draw: random), so the
    // survival check of `fit-player --compare` replays it.
    assert!(text.contains("\"generator\":\"random\"") && text.contains("\"times_ms\":["));
    assert!(!text.contains("\"generator\":\"window\""), "{text}");
    let fit = std::process::Command::new(assert_cmd::cargo::cargo_bin("tenten"))
        .args(["fit-player", "--compare", "--folds", "2", "--games", "20"])
        .arg(&log)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&fit.stdout);
    assert!(
        fit.status.success(),
        "{shown}{}",
        String::from_utf8_lossy(&fit.stderr)
    );
    assert!(
        shown.contains("survival: generator=random seed=") && !shown.contains("no check"),
        "{shown}"
    );
    // Off: nothing more is written.
    h.get_by_label("Edit").click();
    h.run();
    h.get_by_label("Record games played by hand").click();
    h.run();
    assert!(!h.state().state.settings.record_play);
    h.state_mut().push(Command::Deal);
    h.run();
    play_holder(&mut h);
    h.state_mut().recorder.finish(&set);
    assert_eq!(std::fs::read_to_string(&log).unwrap(), text);
    let _ = std::fs::remove_dir_all(&dir);
}
