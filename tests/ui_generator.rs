//! The Generator tab and the active generator: opened from a file or a
//! preset, edited (a bad edit refused, every edit undoable), dealt from,
//! saved so that it reads back.

mod common;

use egui_kittest::kittest::{NodeT as _, Queryable};
use tenten::app::jobs::job::Background as _;
use tenten::app::shell::command::Command;
use tenten_engine::play::generator_file::{self, Band};

use common::ui::{harness, harness_on_tab, open, preset, press, step_until};

#[test]
fn a_generator_opens_deals_edits_undoes_and_saves() {
    tenten::app::disable_dialogs();
    let mut h = harness_on_tab("Generator");
    h.get_by_label_contains("Deal (Ctrl+D) draws from the palette's weights");
    let before = h.state().state.doc.clone();
    // A bad file changes nothing and says where.
    let dir = std::env::temp_dir().join(format!("tenten-gen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.ron");
    std::fs::write(
        &bad,
        "(name: \"x\", by_fill: [(up_to: 0.8), (up_to: 0.5)], check: none)",
    )
    .unwrap();
    h.state_mut().push(Command::LoadGenerator(bad));
    h.run();
    assert!(
        h.state()
            .live
            .error
            .as_deref()
            .unwrap_or("")
            .contains("bands rise in order")
    );
    assert_eq!(h.state().state.doc, before, "a failed load changed the document");
    h.state_mut().push(Command::DismissError);
    // The example opens (a copy, without its set's path, so saving over it
    // is harmless): its weights in the palette, its rules active.
    let text = std::fs::read_to_string(preset("generators/classic-with-mercy.ron")).unwrap();
    let copy = dir.join("mercy.ron");
    std::fs::write(
        &copy,
        text.replace("    pieces: \"../pieces/classic-1010.ron\",\n", ""),
    )
    .unwrap();
    h.state_mut().push(Command::LoadGenerator(copy.clone()));
    h.run();
    let doc = &h.state().state.doc;
    assert_eq!(doc.generator.as_ref().unwrap().name, "classic with mercy");
    assert_eq!(doc.set.piece(doc.set.index_of("dot").unwrap()).weight, 3);
    h.get_by_label("Generator: classic with mercy");
    h.get_by_label_contains("In force on this board: 0 % full, band 1");
    // An edit that makes every weight 0 in a band is refused.
    let mut rules = h.state().state.doc.generator.clone().unwrap();
    let everything_off: std::collections::BTreeMap<String, f64> = h
        .state()
        .state
        .doc
        .set
        .pieces
        .iter()
        .map(|p| (p.id.clone(), 0.0))
        .collect();
    rules.by_fill[0].scale = everything_off.clone();
    h.state_mut().push(Command::SetGenerator {
        rules: Box::new(rules),
        stroke: 0,
    });
    h.run();
    assert!(
        h.state().live.status.starts_with("Not applied:"),
        "{}",
        h.state().live.status
    );
    // Only dots on boards up to half full: Deal deals dots.
    let mut rules = h.state().state.doc.generator.clone().unwrap();
    let mut only_dots = everything_off;
    only_dots.remove("dot");
    rules.by_fill = vec![Band {
        up_to: 1.0,
        scale: only_dots,
    }];
    rules.check = generator_file::Check::None;
    h.state_mut().push(Command::SetGenerator {
        rules: Box::new(rules),
        stroke: 0,
    });
    h.run();
    h.get_by_label_contains("mercy.ron (modified)");
    h.state_mut().push(Command::Deal);
    h.run();
    let doc = &h.state().state.doc;
    assert_eq!(doc.set.ids(&doc.holder()), "dot,dot,dot");
    // Undo the deal, then the edit: the example's rules are back.
    h.state_mut().push(Command::Undo);
    h.state_mut().push(Command::Undo);
    h.run();
    let doc = &h.state().state.doc;
    assert_eq!(doc.generator.as_ref().unwrap().by_fill.len(), 3);
    assert!(
        !doc.generator_modified(),
        "back to the rules and weights as opened"
    );
    // A small edit, saved over its file: it reads back with the same rules
    // and the palette's weights, and is no longer modified.
    let mut rules = h.state().state.doc.generator.clone().unwrap();
    rules.repeat_previous = 0.25;
    h.state_mut().push(Command::SetGenerator {
        rules: Box::new(rules.clone()),
        stroke: 0,
    });
    h.state_mut().push(Command::SaveGenerator);
    h.run();
    assert!(h.query_by_label_contains("mercy.ron (modified)").is_none());
    assert!(
        h.state().live.status.starts_with("Saved the generator to"),
        "{}",
        h.state().live.status
    );
    let back = generator_file::load(&copy, &tenten_engine::model::pieces::PieceSet::classic()).unwrap();
    assert_eq!(back.file.repeat_previous, 0.25);
    assert_eq!(
        (back.file.by_fill, back.file.mercy, back.file.check),
        (rules.by_fill, rules.mercy, rules.check)
    );
    assert_eq!(back.set, h.state().state.doc.set, "the palette's weights");
    h.state_mut().push(Command::CloseGenerator);
    h.run();
    assert!(h.state().state.doc.generator.is_none());
    h.get_by_label("Open generator…");
    std::fs::remove_dir_all(dir).ok();
}

/// File > Open (and `tenten open`) takes a generator file too: it becomes
/// the active generator and its tab shows.
#[test]
fn opening_a_generator_file_shows_its_tab() {
    let mut h = common::ui::harness();
    assert_eq!(h.state().state.settings.inspector_tab, 0);
    h.state_mut().push(Command::Load(preset("generators/repair.ron")));
    h.run();
    assert_eq!(
        h.state().state.settings.inspector_tab,
        tenten::app::tabs::GENERATOR_TAB
    );
    assert_eq!(h.state().state.doc.generator.as_ref().unwrap().name, "repair");
    h.get_by_label("Generator: repair");
}

/// The Lab compares generator files and the generator being edited beside
/// the built-in generators, on the same seeds; a file that does not read
/// stops the run with its place.
#[test]
fn the_lab_compares_generator_files_and_the_one_being_edited() {
    use tenten::app::shell::settings::LabSettings;
    let mut h = harness_on_tab("Lab");
    h.state_mut().push(Command::NewGenerator("bag"));
    h.state_mut().push(Command::SetLab(LabSettings {
        generators: vec!["random".to_owned()],
        files: vec![
            preset("generators/classic-with-mercy.ron"),
            preset("generators/random-tuned-casual-x2.ron"),
            preset("generators/random.ron"),
        ],
        players: vec!["novice".to_owned()],
        games: 30,
        ..LabSettings::default()
    }));
    h.state_mut().push(Command::StartLab);
    h.run();
    common::ui::step_until(&mut h, "the lab", |a| !a.live.lab.running());
    let lab = &h.state().live.lab;
    let names: Vec<&str> = lab.results.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "random",
            "classic-with-mercy.ron",
            "random-tuned-casual-x2.ron",
            "random.ron",
            "edited: bag"
        ]
    );
    // The preset file plays exactly as the built-in generator.
    let games = |i: usize| -> Vec<(u64, u32, u64)> {
        lab.results[i]
            .games
            .iter()
            .map(|g| (g.seed, g.rounds, g.score))
            .collect()
    };
    assert!(games(0) == games(3), "random.ron plays as random");
    assert!(lab.results.iter().all(|r| r.games.len() == 30));
    // Named in the settings' file list, the ladder and the table at least.
    assert!(h.query_all_by_label("classic-with-mercy.ron").count() >= 3);
    // Editing the generator makes the results stale.
    let mut rules = h.state().state.doc.generator.clone().unwrap();
    rules.repeat_previous = 0.5;
    h.state_mut().push(Command::SetGenerator {
        rules: Box::new(rules),
        stroke: 0,
    });
    h.run();
    h.get_by_label_contains("the generator being edited changed since this run");
    // A file that does not read stops the next run, naming its place.
    let dir = std::env::temp_dir().join(format!("tenten-labgen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.ron");
    std::fs::write(&bad, "(name: \"x\", repeat_previous: 2.0, check: none)").unwrap();
    let mut s = h.state().state.settings.lab.clone();
    s.files.push(bad);
    h.state_mut().push(Command::SetLab(s));
    h.state_mut().push(Command::StartLab);
    h.run();
    let e = h.state().live.lab.error.clone().unwrap_or_default();
    assert!(e.contains("bad.ron:1:") && e.contains("a chance, 0 to 1"), "{e}");
    std::fs::remove_dir_all(dir).ok();
}

/// Makes the active generator the random preset with one band, up to a
/// full board, that scales every piece but `piece` to 0.
fn deal_only(h: &mut egui_kittest::Harness<'static, tenten::app::App>, piece: &str) {
    h.state_mut().push(Command::NewGenerator("random"));
    h.run();
    let mut rules = h.state().state.doc.generator.clone().unwrap();
    let others = h.state().state.doc.set.pieces.iter().filter(|p| p.id != piece);
    rules.by_fill = vec![Band {
        up_to: 1.0,
        scale: others.map(|p| (p.id.clone(), 0.0)).collect(),
    }];
    h.state_mut().push(Command::SetGenerator {
        rules: Box::new(rules),
        stroke: 0,
    });
}

/// The danger of a board is computed with the weights the active generator
/// uses on a board that full.
#[test]
fn the_danger_uses_the_weights_in_force() {
    let mut h = common::ui::harness();
    deal_only(&mut h, "dot");
    h.run();
    common::ui::step_until(&mut h, "the danger", |a| a.live.danger.settled(&a.state));
    let input = h.state().live.danger.input.clone().unwrap();
    let dealt: Vec<&str> = input
        .set
        .pieces
        .iter()
        .filter(|p| p.weight > 0)
        .map(|p| p.id.as_str())
        .collect();
    assert_eq!(dealt, ["dot"]);
    h.get_by_label_contains("with the weights generator \"random\" uses on a board this full");
}

/// The Lab's Tune view: a short tune of the random generator for novice,
/// its convergence plot and hold-out check, applied to the palette and the
/// Generator tab in one undoable step.
#[test]
fn a_tune_in_the_lab_applies_and_undoes() {
    use tenten::app::shell::settings::{LabSettings, TuneSettings};
    let mut h = harness_on_tab("Lab");
    h.state_mut().push(Command::SetLab(LabSettings {
        tune: TuneSettings {
            player: "novice".to_owned(),
            median_rounds: 35.0,
            unfair_share: None,
            games: 20,
            holdout: 20,
            budget_seconds: 3.0,
            keep_mix: 0.0,
        },
        page: tenten::app::shell::settings::LabPage::Tune,
        ..LabSettings::default()
    }));
    h.state_mut().push(Command::StartTune);
    h.run();
    common::ui::step_until(&mut h, "the tune", |a| !a.live.tune.running());
    let report = h.state().live.tune.report.clone().expect("a report");
    assert!(report.best.loss <= report.start.loss);
    assert_eq!(report.holdout.len(), 1);
    h.get_by_label("best so far");
    // A verdict, then the goal, the tuned and the start on the same games.
    let c = &report.holdout[0];
    h.get_by_label(match c.verdict {
        tenten_engine::study::tune::Verdict::Met => "Met",
        tenten_engine::study::tune::Verdict::Missed => "Missed",
        tenten_engine::study::tune::Verdict::Undecided => "Undecided",
    });
    h.get_by_label_contains("median_rounds for novice: goal 35 within 1.75; tuned ");
    // Medians are whole rounds ("22 [19-25]", never "22.00"), and the view
    // says what stopped the search.
    let verdict = h
        .query_all_by_label_contains("median_rounds for novice")
        .next()
        .and_then(|n| n.accesskit_node().label())
        .unwrap_or_default();
    assert!(!verdict.contains(".0"), "{verdict}");
    h.get_by_label_contains(&format!("it stopped because {}", report.stop.words()));
    let before = h.state().state.doc.clone();
    press(&mut h, "Apply to the generator");
    let doc = &h.state().state.doc;
    assert_eq!(doc.generator.as_ref().unwrap().name, "random tuned");
    let weights: Vec<u32> = doc.set.pieces.iter().map(|p| p.weight).collect();
    assert_eq!(weights, report.weights_after);
    // The tuned weights (tenths of the base's) leave every slider room:
    // none sits pinned at its end with its value beyond it.
    let sliders: Vec<(f64, f64)> = h
        .query_all_by(|n| n.role() == egui::accesskit::Role::Slider)
        .filter_map(|n| {
            let a = n.accesskit_node();
            Some((a.numeric_value()?, a.max_numeric_value()?))
        })
        .collect();
    assert!(sliders.len() >= doc.set.pieces.len(), "{sliders:?}");
    for (value, end) in &sliders {
        assert!(value < end, "a slider at {value} of {end}");
    }
    h.state_mut().push(Command::Undo);
    h.run();
    assert_eq!(h.state().state.doc, before, "one undo takes the tune back");
}

/// The Timing corpora draw their holders as the active generator does.
#[test]
fn a_timing_sweep_draws_its_holders_from_the_active_generator() {
    use tenten::app::shell::settings::TimingSettings;
    let mut h = harness_on_tab("Timing");
    deal_only(&mut h, "sq2");
    h.state_mut().push(Command::SetTiming(TimingSettings {
        deals: 30,
        factors: vec![1.0],
        ..Default::default()
    }));
    h.state_mut().push(Command::StartSweep);
    h.run();
    common::ui::step_until(&mut h, "the sweep", |a| !a.live.timing.running());
    let sq2 = h.state().state.doc.set.index_of("sq2").unwrap();
    let deals = &h.state().live.timing.deals;
    assert_eq!(deals.len(), 30);
    assert!(deals.iter().all(|d| d.holder.iter().all(|&p| p == sq2)));
    h.get_by_label_contains("holders drawn as the generator \"random\" draws them");
}

#[test]
fn a_generator_learned_from_the_open_log_becomes_the_active_one() {
    let mut h = harness();
    open(&mut h, preset("logs/casual-playtest.ron"));
    h.state_mut().push(Command::LearnGenerator);
    step_until(&mut h, "learning to end", |a| {
        !a.live.learn.running() && (a.live.learn.result.is_some() || a.live.learn.error.is_some())
    });
    let learn = &h.state().live.learn;
    assert!(learn.error.is_none(), "{:?}", learn.error);
    let (source, learned) = learn.result.as_ref().unwrap();
    assert!(source.ends_with("casual-playtest.ron"), "{source}");
    assert_eq!(learned.deals, 200);
    assert!(
        h.state()
            .live
            .status
            .contains("Learned a generator from 200 deals"),
        "{}",
        h.state().live.status
    );
    // Dealt by random to a careful player: no unsolvable holder came where
    // few were expected, so no kind of check is ruled out, and it says so.
    assert!(
        learned.lines[0].contains("check_verdict=undecided"),
        "{}",
        learned.lines[0]
    );
    assert!(learned.runner_up.split(',').count() >= 1);
    h.state_mut().push(Command::OpenLearned);
    h.run();
    let doc = &h.state().state.doc;
    let rules = doc.generator.as_ref().expect("the learned generator is active");
    assert_eq!(rules.name, "learned from casual-playtest");
    assert!(doc.generator_path.is_none(), "untitled: Save asks where");
    // Without a data folder, Compare in the Lab says why and writes nothing.
    h.state_mut().push(Command::LearnedToLab);
    h.run();
    assert!(
        h.state()
            .live
            .error
            .as_deref()
            .is_some_and(|e| e.contains("No data folder"))
    );
}

/// Beside the board at 1280x720, under classic-with-mercy's rules, the
/// Learn section keeps to the panel: its Cancel is whole (the mercy row,
/// wider than the panel, widened the tab and Cancel read "Ca").
#[test]
fn the_learn_sections_cancel_is_whole_beside_the_board() {
    let mut h = common::ui::harness_sized(
        tenten::app::App::new(tenten::app::shell::state::State::default()),
        [1280.0, 720.0],
    );
    open(&mut h, preset("logs/casual-playtest.jsonl"));
    h.state_mut()
        .push(Command::SetInspectorTab(tenten::app::tabs::GENERATOR_TAB));
    h.state_mut().push(Command::NewGenerator("classic-with-mercy"));
    h.run();
    assert!(!h.state().state.settings.inspector_large);
    h.state_mut().push(Command::LearnGenerator);
    h.step();
    h.step();
    assert!(h.state().live.learn.running());
    let right = 1280.0 - 4.0;
    let cancel = h.get_by_label("Cancel").rect();
    assert!(
        cancel.max.x <= right,
        "Cancel at {cancel:?}, the panel ends at {right}"
    );
    let folder = h.get_by_label("Learn from a folder…").rect();
    assert!(folder.max.x <= right, "{folder:?}");
    h.get_by_label("Cancel").click();
    step_until(&mut h, "learning to stop", |a| !a.live.learn.running());
}

/// At 800x600 (the Generator tab in the large view) the learned model
/// table scrolls sideways to its last column, and the buttons after it are
/// not pushed past the window's edge.
#[test]
fn the_learned_models_table_scrolls_sideways_at_800_by_600() {
    let mut h = common::ui::harness_sized(
        tenten::app::App::new(tenten::app::shell::state::State::default()),
        [800.0, 600.0],
    );
    open(&mut h, preset("logs/casual-playtest.jsonl"));
    h.state_mut()
        .push(Command::SetInspectorTab(tenten::app::tabs::GENERATOR_TAB));
    h.state_mut().push(Command::ToggleLargeInspector);
    h.state_mut().push(Command::LearnGenerator);
    h.run();
    step_until(&mut h, "learning to end", |a| {
        !a.live.learn.running() && (a.live.learn.result.is_some() || a.live.learn.error.is_some())
    });
    press(&mut h, "Models compared");
    for label in [
        "Open as the generator",
        "Compare in the Lab",
        "Save learned file…",
    ] {
        let r = h.get_by_label(label).rect();
        assert!(r.max.x <= 800.0, "{label} at {r:?}");
    }
    // The last column is reached by scrolling the table, not cut off.
    h.get_by_label("LR test p").scroll_to_me();
    h.run();
    let last = h.get_by_label("LR test p").rect();
    assert!(last.max.x <= 800.0 && last.min.x >= 0.0, "LR test p at {last:?}");
    // The buttons stay where they were.
    let save = h.get_by_label("Save learned file…").rect();
    assert!(save.min.x >= 0.0 && save.max.x <= 800.0, "{save:?}");
}

/// The Generator tab edits a generator's adaptive rules: turned on with a
/// first rule, a rule added, undone; a tilt a bag cannot follow refused.
#[test]
fn the_adaptive_rules_are_edited_in_the_generator_tab() {
    let mut h = harness_on_tab("Generator");
    h.state_mut().push(Command::NewGenerator("random"));
    h.run();
    h.get_by_label("Adaptive rules");
    h.get_by_label("read the player").click();
    h.run();
    let rules = |h: &egui_kittest::Harness<'static, tenten::app::App>| {
        h.state()
            .state
            .doc
            .generator
            .as_ref()
            .and_then(|g| g.adaptive.as_ref())
            .map(|a| a.rules.len())
    };
    assert_eq!(rules(&h), Some(1));
    h.get_by_label("Rule 1");
    h.get_by_label("after an unfair loss");
    h.get_by_label("Add rule").click();
    h.run();
    assert_eq!(rules(&h), Some(2));
    h.get_by_label("Rule 2");
    h.state_mut().push(Command::Undo);
    h.run();
    assert_eq!(rules(&h), Some(1));
    // A bag: the first rule's tilt, with no check of its own, is refused.
    h.state_mut().push(Command::NewGenerator("bag"));
    h.run();
    h.get_by_label("read the player").click();
    h.run();
    assert_eq!(rules(&h), None);
    assert!(h.state().live.status.contains("bag"), "{}", h.state().live.status);
}
