//! The designer's loop in one window: a fitted player or a player file is a
//! player everywhere (the Lab, the Tune view, File > Open), and a new run
//! never throws away the last one's results.

mod common;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use tenten::app::App;
use tenten::app::jobs::job::Background as _;
use tenten::app::shell::command::Command;
use tenten::app::shell::settings::LabSettings;

use common::ui::{harness_on_tab, open, preset, press, step_until};

fn lab<'a>(h: &'a Harness<'static, App>) -> &'a LabSettings {
    &h.state().state.settings.lab
}

/// The task, in the window alone: fit the shipped log, *Use in the
/// Lab*, compare two generators with the fitted player.
#[test]
fn a_fitted_player_plays_in_the_lab_against_two_generators() {
    let mut h = harness_on_tab("Lab");
    open(&mut h, preset("logs/casual-playtest.ron"));
    h.state_mut().state.settings.inspector_tab = 5;
    h.run();
    // The Players page (its tab is the first "Players" on the page).
    h.query_all_by_label("Players").next().unwrap().click();
    h.run();
    press(&mut h, "Fit a player");
    step_until(&mut h, "the fit's end", |a| a.live.fit.result.is_some());
    press(&mut h, "Use in the Lab");
    let label = "casual-playtest (fitted)";
    assert_eq!(lab(&h).extra_players.len(), 1);
    let extra = &lab(&h).extra_players[0];
    assert_eq!(extra.player.name, "casual-playtest", "named after the log");
    assert_eq!(extra.fitted_to.as_deref(), Some("casual-playtest.ron"));
    assert!(extra.plays, "it plays at once");
    assert_eq!(lab(&h).tune.player, label, "the Tune view plays it too");
    // Two generators, the fitted player alone.
    let mut s = lab(&h).clone();
    s.generators = vec!["random".into(), "repair".into()];
    s.players = Vec::new();
    s.games = 24;
    s.max_rounds = 400;
    h.state_mut().push(Command::SetLab(s));
    h.run();
    press(&mut h, "Setup");
    press(&mut h, "Run");
    step_until(&mut h, "the run's end", |a| !a.live.lab.running());
    assert_eq!(
        lab(&h).page,
        tenten::app::shell::settings::LabPage::Results,
        "Run moved to Results"
    );
    let results = &h.state().live.lab.results;
    let pairs: Vec<(&str, &str)> = results
        .iter()
        .map(|r| (r.player.as_str(), r.name.as_str()))
        .collect();
    assert_eq!(pairs, [(label, "random"), (label, "repair")]);
    assert!(results.iter().all(|r| r.games.len() == 24));
    // The fitted temperature and slip, as its player file would hold them,
    // are what played.
    let plan = h.state().live.lab.plan.as_ref().unwrap();
    let fitted = h.state().live.fit.result.as_ref().unwrap().player();
    assert!((fitted.temperature - 0.469).abs() < 0.001, "{fitted:?}");
    match &plan.players[0].1 {
        tenten_engine::play::who::Who::Model(p) => {
            assert_eq!(p.temperature, fitted.temperature);
            assert_eq!(p.slip, fitted.slip);
        }
        other => panic!("played as {other:?}"),
    }
    // The page names the player by its name and where it came from.
    h.get_by_label(&format!("{label}: details"));
}

/// File > Open on a player file (as `tenten open player.ron` does) adds it
/// to the Lab with its parameters shown, and the Tune view offers it.
#[test]
fn opening_a_player_file_adds_it_to_the_lab() {
    let mut h = common::ui::harness();
    open(&mut h, preset("players/expert.ron"));
    assert_eq!(h.state().state.settings.inspector_tab, 5, "the Lab shows");
    let label = "expert (expert.ron)";
    let extra = &lab(&h).extra_players[0];
    assert_eq!(
        extra.file.as_deref(),
        Some(preset("players/expert.ron").as_path())
    );
    assert!(extra.plays);
    h.get_by_label(label);
    assert!(
        h.state().live.status.contains("temperature") && h.state().live.status.contains("slip"),
        "{}",
        h.state().live.status
    );
    // Opened again: the same entry, read afresh, not a second one.
    open(&mut h, preset("players/expert.ron"));
    assert_eq!(lab(&h).extra_players.len(), 1);
    // A bad player file is refused with its place, and adds nothing.
    let dir = common::cli::scratch("bad-player");
    let bad = dir.join("bad.ron");
    std::fs::write(
        &bad,
        "(name: \"b\", evaluation: \"10025\", lookahead: piece, temperature: 5000.0, slip: 0.1)",
    )
    .unwrap();
    h.state_mut().push(Command::Load(bad));
    h.run();
    let error = h.state().live.error.clone().unwrap_or_default();
    assert!(
        error.contains("bad.ron") && error.contains("temperature"),
        "{error}"
    );
    assert_eq!(lab(&h).extra_players.len(), 1);
    // Two files of one name in two folders are two players; when one goes,
    // the other's label changes ("novice (p.ron)") and it still plays.
    h.state_mut().live.error = None;
    for folder in ["a", "b"] {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
        std::fs::copy(preset("players/novice.ron"), dir.join(folder).join("p.ron")).unwrap();
        open(&mut h, dir.join(folder).join("p.ron"));
    }
    let labels = tenten::app::jobs::lab::extra_labels(&lab(&h).extra_players);
    assert_eq!(labels[1..], ["novice (a/p.ron)", "novice (b/p.ron)"]);
    let mut s = lab(&h).clone();
    s.extra_players.remove(1);
    s.extra_players[0].plays = false;
    s.players = Vec::new();
    s.games = 4;
    h.state_mut().push(Command::SetLab(s));
    h.state_mut().push(Command::StartLab);
    h.run();
    step_until(&mut h, "the run's end", |a| !a.live.lab.running());
    assert!(
        h.state().live.lab.error.is_none(),
        "{:?}",
        h.state().live.lab.error
    );
    let played: Vec<&str> = h
        .state()
        .live
        .lab
        .results
        .iter()
        .map(|r| r.player.as_str())
        .collect();
    assert!(
        !played.is_empty() && played.iter().all(|p| *p == "novice (p.ron)"),
        "{played:?}"
    );
    let mut s = lab(&h).clone();
    s.extra_players.truncate(1);
    h.state_mut().push(Command::SetLab(s));
    h.run();
    // A file deleted since it was added stops the run with its name.
    let gone = dir.join("gone.ron");
    std::fs::copy(preset("players/novice.ron"), &gone).unwrap();
    h.state_mut().live.error = None;
    open(&mut h, gone.clone());
    std::fs::remove_file(&gone).unwrap();
    let mut s = lab(&h).clone();
    s.players = Vec::new();
    for e in &mut s.extra_players {
        e.plays = e.file.as_deref() == Some(gone.as_path());
    }
    s.games = 4;
    h.state_mut().push(Command::SetLab(s));
    h.state_mut().push(Command::StartLab);
    h.run();
    let error = h.state().live.lab.error.clone().unwrap_or_default();
    assert!(error.contains("gone.ron"), "{error}");
}

/// Run, run again, cancel at once: the first run's results stay, and the
/// page says so in one sentence, never "Playing the first games".
#[test]
fn a_cancelled_run_keeps_the_last_runs_results() {
    let mut h = harness_on_tab("Lab");
    let s = LabSettings {
        generators: vec!["random".into(), "repair".into()],
        players: vec!["novice".into()],
        games: 30,
        seed: 5,
        ..LabSettings::default()
    };
    h.state_mut().push(Command::SetLab(s.clone()));
    h.run();
    press(&mut h, "Run");
    step_until(&mut h, "the first run's end", |a| !a.live.lab.running());
    let first: Vec<usize> = h.state().live.lab.results.iter().map(|r| r.games.len()).collect();
    assert_eq!(first, [30, 30]);
    // Change times only where the changer ran, with how many deals: random
    // never changes a holder (its unsolvable holders are still timed).
    let random = &h.state().live.lab.results[0].summary;
    assert!(
        random.change_us.n > 0 && random.repairs == 0,
        "random times its unsolvable holders"
    );
    assert_eq!(
        h.query_all_by_label("none ran").count(),
        2,
        "random's change p99 and max"
    );
    let repair = &h.state().live.lab.results[1].summary;
    h.get_by_label_contains(&format!(" on {} deals", repair.change_us.n));
    let fingerprint = h.state().live.lab.fingerprint.clone();
    // A second, longer run, cancelled before its first block of games.
    let second = LabSettings {
        players: vec!["expert".into()],
        max_rounds: 100_000,
        ..lab(&h).clone()
    };
    h.state_mut().push(Command::SetLab(second));
    h.state_mut().push(Command::StartLab);
    h.state_mut().push(Command::CancelLab);
    h.run();
    step_until(&mut h, "the second run's end", |a| !a.live.lab.running());
    let lab = &h.state().live.lab;
    assert_eq!(
        lab.fingerprint, fingerprint,
        "the first run is still the one shown"
    );
    assert_eq!(
        lab.results.iter().map(|r| r.games.len()).collect::<Vec<_>>(),
        first
    );
    h.get_by_label("novice: details");
    h.get_by_label_contains("the Results page still shows the last run's figures");
    assert!(h.query_by_label_contains("Playing the first games").is_none());
    assert!(
        h.query_by_label_contains("Cancelled: the Results page covers")
            .is_none()
    );
}

/// The Lab's interactive widgets, on every page, beside the board and in
/// the large view, at 1280x720, 900x600 and 800x600: no two overlap, and none runs
/// past the window's right edge.
#[test]
fn no_two_of_the_labs_widgets_overlap() {
    use egui_kittest::kittest::NodeT as _;
    use tenten::app::shell::settings::LabPage;
    for size in [[1280.0, 720.0], [900.0, 600.0], [800.0, 600.0]] {
        let mut h = common::ui::harness_sized(App::new(Default::default()), size);
        h.get_by_label("Lab").click();
        h.run();
        // A run's results, with a player file and a generator file listed.
        open(&mut h, preset("players/expert.ron"));
        h.state_mut()
            .state
            .settings
            .lab
            .files
            .push(preset("generators/classic-with-mercy.ron"));
        let mut s = lab(&h).clone();
        s.players = vec!["novice".into(), "casual".into()];
        // Listed, not playing: an expert's games take thousands of rounds.
        s.extra_players[0].plays = false;
        s.generators = vec!["random".into(), "repair".into()];
        s.games = 16;
        h.state_mut().push(Command::SetLab(s));
        h.state_mut().push(Command::StartLab);
        h.run();
        step_until(&mut h, "the run's end", |a| !a.live.lab.running());
        for large in [false, true] {
            if large {
                h.state_mut().push(Command::ToggleLargeInspector);
            }
            for page in LabPage::ALL {
                let mut s = lab(&h).clone();
                s.page = page;
                h.state_mut().push(Command::SetLab(s));
                h.run();
                let what = format!("{size:?}, large {large}, page {}", page.title());
                let left = h.get_by_label("Setup").rect().min.x - 12.0;
                let widgets: Vec<(String, egui::Rect)> = h
                    .query_all_by(|n| {
                        use egui::accesskit::Role;
                        matches!(
                            n.role(),
                            Role::Button
                                | Role::CheckBox
                                | Role::ComboBox
                                | Role::TextInput
                                | Role::Slider
                                | Role::SpinButton
                                | Role::RadioButton
                                | Role::Tab
                        )
                    })
                    .map(|n| {
                        (
                            format!("{:?} {:?}", n.accesskit_node().role(), n.accesskit_node().label()),
                            n.rect(),
                        )
                    })
                    .filter(|(_, r)| {
                        r.min.x >= left && r.min.y >= 0.0 && r.max.y <= size[1] - 24.0 && r.area() > 0.0
                    })
                    .collect();
                assert!(widgets.len() >= 4, "{what}: {widgets:?}");
                for (i, (a, ra)) in widgets.iter().enumerate() {
                    assert!(
                        ra.max.x <= size[0] + 0.5,
                        "{what}: {a} at {ra:?} runs past the window's edge"
                    );
                    for (b, rb) in &widgets[i + 1..] {
                        let o = ra.intersect(*rb);
                        assert!(
                            o.width() <= 0.5 || o.height() <= 0.5,
                            "{what}: {a} at {ra:?} and {b} at {rb:?} overlap"
                        );
                    }
                }
            }
            if large {
                h.state_mut().push(Command::ToggleLargeInspector);
                h.run();
            }
        }
    }
}

/// The paired test compares two generators that ran: with random and bag,
/// bag against random, not the default "repair against random".
#[test]
fn the_paired_test_defaults_to_two_generators_that_ran() {
    let mut h = harness_on_tab("Lab");
    let s = LabSettings {
        generators: vec!["random".into(), "bag".into()],
        players: vec!["greedy".into()],
        games: 12,
        ..LabSettings::default()
    };
    assert_eq!(s.compare, ("repair".to_owned(), "random".to_owned()));
    h.state_mut().push(Command::SetLab(s));
    h.state_mut().push(Command::StartLab);
    h.run();
    step_until(&mut h, "the run's end", |a| !a.live.lab.running());
    h.get_by_label_contains("bag minus random: ");
}
