//! The Calibration page: a small fit-player study runs from the page, its
//! table says per parameter the coverage with its interval and whether the
//! interval is calibrated, and both plots are drawn with their legends; a
//! fit-generator study shows its rates and goals, its progress the study's
//! own. (Its cancel test is in `ui_jobs.rs`.)

mod common;

use egui_kittest::kittest::Queryable;
use tenten::app::jobs::job::Background as _;

use common::ui::{harness_on_tab, press, step_until};
use tenten::app::shell::command::Command;
use tenten_engine::study::calibrate::{Design, Estimator, Plan};

#[test]
fn a_study_runs_from_the_page_and_shows_its_table_and_plots() {
    let mut h = harness_on_tab("Calibration");
    assert!(h.query_by_label("Run the study").is_some());
    press(&mut h, "Run the study");
    step_until(&mut h, "the study's end", |a| {
        !a.live.calibration.running()
            && (a.live.calibration.result.is_some() || a.live.calibration.error.is_some())
    });
    let study = h.state().live.calibration.result.clone().expect("a study");
    assert_eq!(study.replications.len(), 60);
    assert_eq!(study.plan.estimator.name(), "fit-player");
    assert!(
        h.state()
            .live
            .status
            .contains("Calibrated fit-player over 60 replications"),
        "{}",
        h.state().live.status
    );
    h.run();
    assert!(
        h.query_all_by_label_contains("60 replications (0 failed)")
            .next()
            .is_some(),
        "the study says what it measured"
    );
    for label in ["temperature", "slip", "coverage [95 % CI]", "calibrated"] {
        assert!(h.query_all_by_label(label).next().is_some(), "{label}");
    }
    // Every coverage shown with its count, as the engine's table has it.
    let rows = tenten_engine::study::calibrate::summary::rows(&study.replications);
    for r in &rows {
        let shown = format!(", {}/{}", r.covered, r.with_interval);
        assert!(h.query_all_by_label_contains(&shown).next().is_some(), "{shown}");
    }
    assert!(h.query_by_label("nominal 95 %").is_some(), "the coverage legend");
    assert!(
        h.query_all_by_label_contains("interval that missed (")
            .next()
            .is_some(),
        "the zipper's legend"
    );
}

#[test]
fn a_fit_generator_study_shows_its_rates_goals_and_a_true_progress() {
    let mut h = harness_on_tab("Calibration");
    // The estimator is one of the page's choices.
    h.run();
    let design = Design {
        deals: 200,
        deals_max: 300,
        ..Design::GENERATOR
    };
    let plan = Plan::new(Estimator::FitGenerator, design, 2, 3);
    h.state_mut().push(Command::StartCalibration(Box::new(plan)));
    // The progress while it runs: the study's own, never going back, and
    // short of the end while the first of two replications plays (an
    // estimator's own total once made it read 100 % from the start).
    let mut seen: Vec<f32> = Vec::new();
    for _ in 0..12_000 {
        h.step();
        let live = &h.state().live.calibration;
        if !live.running() {
            break;
        }
        if let Some((f, _)) = live.progress() {
            seen.push(f);
        }
        if let Some((done, of)) = live.replications_done() {
            assert!(done <= of && of == 2, "{done} of {of}");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    h.run_steps(4);
    assert!(!seen.is_empty(), "a progress was shown");
    assert!(seen[0] < 0.9, "the first look: {}", seen[0]);
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "never back: {seen:?}");
    let study = h.state().live.calibration.result.clone().expect("a study");
    assert_eq!(study.replications.len(), 2);
    assert!(
        study
            .replications
            .iter()
            .all(|r| r.generator.is_some() || r.failed.is_some())
    );
    h.run();
    for label in [
        "check decided right",
        "check decided wrong",
        "rules kept without rules",
        "share coverage",
        "rules match, with a repeat chance",
        "rate [95 % CI]",
        "verdict",
    ] {
        assert!(h.query_all_by_label(label).next().is_some(), "{label}");
    }
    assert!(
        h.query_all_by_label_contains("under generators drawn at random")
            .next()
            .is_some(),
        "the study says what it measured"
    );
    let t = tenten_engine::study::calibrate::generator::tally(&study.replications);
    let shown = format!(", {}/{}", t.wrong.count, t.wrong.of);
    assert!(h.query_all_by_label_contains(&shown).next().is_some(), "{shown}");
}

/// A study the CLI ran for hours (here a small one written as the CLI
/// writes it) opens on the Calibration page, saying where it came from;
/// a study missing replications says so, and a running study is not
/// replaced.
#[test]
fn a_study_file_opens_on_the_page_and_says_what_it_holds() {
    use tenten_engine::study::calibrate::{self, file::Study};
    let plan = Plan::new(Estimator::FitPlayer, Design::SMALL, 6, 3);
    plan.check().unwrap();
    let reps = calibrate::run(&plan, 0..6, &tenten_engine::progress::Progress::default(), |_| {}).unwrap();
    let dir = common::cli::scratch("open-study");
    let whole = dir.join("study.ron");
    std::fs::write(&whole, Study::new(plan.clone(), (0, 1), reps.clone()).to_ron()).unwrap();
    let part = dir.join("shard.ron");
    let shard: Vec<_> = reps.iter().filter(|r| r.index % 2 == 0).cloned().collect();
    std::fs::write(&part, Study::new(plan.clone(), (0, 2), shard).to_ron()).unwrap();

    let mut h = harness_on_tab("Lab");
    common::ui::open(&mut h, whole.clone());
    assert_eq!(
        h.state().state.settings.inspector_tab,
        tenten::app::tabs::CALIBRATION_TAB
    );
    let shown = h
        .state()
        .live
        .calibration
        .result
        .clone()
        .expect("the study shown");
    assert_eq!(shown.replications, reps);
    assert!(
        h.state().live.status.contains("over 6 replications"),
        "{}",
        h.state().live.status
    );
    h.run();
    assert!(
        h.query_all_by_label_contains("Opened from study.ron")
            .next()
            .is_some()
    );
    assert!(
        h.query_all_by_label_contains("6 replications (0 failed)")
            .next()
            .is_some()
    );

    common::ui::open(&mut h, part);
    assert!(
        h.state().live.status.contains("only 3 of its 6 replications"),
        "{}",
        h.state().live.status
    );
    h.run();
    assert!(
        h.query_all_by_label_contains("3 of its 6 replications (0 failed)")
            .next()
            .is_some()
    );

    // A study run here leaves the file's figures behind (nothing run here
    // shows under the file's name), and a study under way is not replaced
    // by a file.
    press(&mut h, "Run the study");
    assert!(h.state().live.calibration.running());
    assert!(h.state().live.calibration.result.is_none());
    assert!(h.state().live.calibration.opened.is_none());
    h.state_mut().push(Command::Load(whole));
    h.run();
    let error = h.state().live.error.clone().unwrap_or_default();
    assert!(error.contains("cancel it before opening study.ron"), "{error}");
    assert!(
        h.state().live.calibration.result.is_none(),
        "the refused file shows nothing"
    );
    h.state_mut().push(Command::CancelCalibration);
    step_until(&mut h, "the study's cancel", |a| !a.live.calibration.running());
}
