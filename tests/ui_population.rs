//! The Population view: a folder of testers' logs fits to a population
//! (the testers' points and the population's figures shown), a forecast of
//! the Lab's generators shows its table, its reach curves and, against the
//! demo cohort played under block-blast-like, the check's verdict; a pin
//! keeps it to compare. (Its cancel tests are in `ui_jobs.rs`.)

mod common;

use egui_kittest::kittest::Queryable;
use tenten::app::jobs::job::Background as _;
use tenten::app::shell::command::Command;

use common::ui::{harness_on_tab, press, step_until};

/// Runs `ask` to its end: the forecast and its generators' names.
fn forecast(
    h: &mut egui_kittest::Harness<'static, tenten::app::App>,
    ask: Command,
) -> (tenten::app::jobs::population::ForecastResult, Vec<String>) {
    h.state_mut().push(ask);
    step_until(h, "the forecast's end", |a| {
        !a.live.forecast.running() && (a.live.forecast.result.is_some() || a.live.forecast.error.is_some())
    });
    let r = h.state().live.forecast.result.clone().expect("a forecast");
    let names = r
        .generators
        .iter()
        .map(|g| g.forecast.generator.clone())
        .collect();
    (r, names)
}

#[test]
fn a_folder_of_logs_fits_then_forecasts_and_checks() {
    let mut h = harness_on_tab("Population");
    assert!(h.query_by_label("Fit the testers").is_some());
    press(&mut h, "Fit the testers");
    step_until(&mut h, "the population fit's end", |a| {
        !a.live.population_fit.running()
            && (a.live.population_fit.result.is_some() || a.live.population_fit.error.is_some())
    });
    let fit = h.state().live.population_fit.result.clone().expect("a fit");
    assert_eq!(fit.fit.testers.len(), 60);
    assert!(
        h.state().live.status.contains("60 testers"),
        "{}",
        h.state().live.status
    );
    assert!(
        h.query_all_by_label_contains("60 testers, 64,117 moves, 308 games")
            .next()
            .is_some(),
        "the fit's summary is shown"
    );
    assert!(
        h.query_by_label("each tester's own fit (60)").is_some(),
        "the testers' legend"
    );
    // A forecast of the Lab's generators and of block-blast-like, which the
    // checked logs were played under.
    let (r, names) = forecast(
        &mut h,
        Command::ForecastPopulation {
            players: 400,
            fitted: true,
            check: Some("presets/cohorts/demo/block-blast-like".into()),
        },
    );
    assert!(
        names.iter().any(|n| n == "random") && names.last().is_some_and(|n| n == "block-blast-like"),
        "{names:?}"
    );
    // Each generator against the first on games per session, paired by
    // player: over all and per skill decile.
    assert!(r.generators[0].gain.is_none() && r.generators[0].decile_gains.is_empty());
    for g in &r.generators[1..] {
        let gain = g.gain.expect("a gain against the first");
        assert!(gain.ci.is_some(), "400 players give an interval");
        assert_eq!(g.decile_gains.len(), 10);
    }
    h.get_by_label_contains("Games per session against random, the same players under both");
    let checked = r.generators.last().unwrap().check.as_ref().expect("the check");
    assert_eq!(checked.0.testers, 60);
    assert!(
        h.query_all_by_label_contains("verdict: ").next().is_some(),
        "the check's verdict is shown"
    );
    // The check in the table's units: shares in %, as the table above.
    h.get_by_label_contains("Checked against the logs played under block-blast-like (60 testers");
    let reach = checked.0.rows.iter().find(|r| r.name == "reach_50").unwrap();
    assert!(
        h.query_all_by_label(&format!("{:.1} %", 100.0 * reach.observed))
            .next()
            .is_some(),
        "reach 50 observed, in %"
    );
    assert!(
        h.query_by_label("block-blast-like: observed (60 testers)")
            .is_some()
    );
    // Pin, forecast the demo population, and both are on the plot.
    press(&mut h, "Pin to compare");
    assert!(h.state().live.forecast.pinned.is_some());
    h.state_mut().push(Command::ForecastPopulation {
        players: 200,
        fitted: false,
        check: None,
    });
    step_until(&mut h, "the second forecast's end", |a| {
        !a.live.forecast.running()
            && a.live
                .forecast
                .result
                .as_ref()
                .is_some_and(|r| r.population == "demo")
    });
    assert!(h.query_by_label("pinned random (fitted to random)").is_some());
    press(&mut h, "Unpin");
    assert!(h.state().live.forecast.pinned.is_none());
}

#[test]
fn a_bad_folder_says_so_and_a_forecast_needs_a_fit() {
    let mut h = harness_on_tab("Population");
    h.state_mut()
        .push(Command::FitPopulation("presets/no-such-folder".into()));
    step_until(&mut h, "the fit's error", |a| {
        !a.live.population_fit.running() && a.live.population_fit.error.is_some()
    });
    let e = h.state().live.population_fit.error.clone().unwrap();
    assert!(e.contains("presets/no-such-folder"), "{e}");
    h.state_mut().push(Command::ForecastPopulation {
        players: 100,
        fitted: true,
        check: None,
    });
    h.run();
    let e = h.state().live.forecast.error.clone().unwrap();
    assert!(e.contains("Fit a population"), "{e}");
}

/// The planner answers "how many testers for this width" with the check
/// of its own answer, in the view, on the Lab's board and round cap.
#[test]
fn the_playtest_planner_answers_with_its_check() {
    use tenten::app::jobs::playtest_plan::Question;
    use tenten::app::shell::settings::{LabSettings, LabSize};
    let mut h = harness_on_tab("Population");
    assert!(h.query_by_label("Plan a playtest").is_some());
    assert!(h.query_by_label("Plan").is_some(), "the Plan button");
    h.state_mut().push(Command::SetLab(LabSettings {
        generators: vec!["random".to_owned(), "repair".to_owned()],
        size: LabSize::Fixed(tenten_engine::model::board::BoardSize::new(8, 8).unwrap()),
        max_rounds: 40,
        ..LabSettings::default()
    }));
    h.state_mut().push(Command::PlanPlaytest {
        fitted: false,
        figure: "reach_10".to_owned(),
        sessions: 1,
        question: Question::Width {
            generator: "random".to_owned(),
            width: 0.4,
        },
    });
    step_until(&mut h, "the plan's end", |a| {
        !a.live.playtest_plan.running()
            && (a.live.playtest_plan.result.is_some() || a.live.playtest_plan.error.is_some())
    });
    let p = h.state().live.playtest_plan.result.clone().expect("a plan");
    assert!(p.testers >= 1, "{p:?}");
    assert_eq!(p.request.ask.board, (8, 8));
    assert_eq!(p.request.ask.max_rounds, 40);
    assert!(
        p.lines[0].starts_with("plan figure=reach_10 width=0.4 generator=random sessions=1 testers="),
        "{:?}",
        p.lines
    );
    let check = p.lines.last().unwrap();
    assert!(
        check.starts_with("check estimator=playtest") && check.contains("replications=100"),
        "{check}"
    );
    h.get_by_label_contains(&format!(
        "{} testers x 1 sessions under random give reach_10",
        p.testers
    ));
    assert!(h.query_by_label(check).is_some(), "the check's line is shown");
    assert!(
        h.state().live.status.contains("Planned a playtest"),
        "{}",
        h.state().live.status
    );
    // Planning for the fitted population before a fit says what to do.
    h.state_mut().push(Command::PlanPlaytest {
        fitted: true,
        figure: "reach_10".to_owned(),
        sessions: 1,
        question: Question::Width {
            generator: "random".to_owned(),
            width: 0.4,
        },
    });
    h.run();
    let e = h.state().live.playtest_plan.error.clone().unwrap();
    assert!(e.contains("Fit a population"), "{e}");
}

/// The forecast deals from the Lab's generators as the Lab's runs do: its
/// generator files too (an adaptive file against a static one, the first
/// the baseline of the gains), named as the Lab names them; with none
/// chosen at all it says where to choose.
#[test]
fn the_forecast_compares_the_labs_generator_files() {
    use tenten::app::shell::settings::{LabSettings, LabSize};
    let mut h = harness_on_tab("Population");
    let lab = |files: Vec<std::path::PathBuf>| LabSettings {
        generators: Vec::new(),
        files,
        size: LabSize::Fixed(tenten_engine::model::board::BoardSize::new(8, 8).unwrap()),
        max_rounds: 40,
        ..LabSettings::default()
    };
    h.state_mut().push(Command::SetLab(lab(Vec::new())));
    h.state_mut().push(Command::ForecastPopulation {
        players: 50,
        fitted: false,
        check: None,
    });
    h.run();
    let e = h
        .state()
        .live
        .forecast
        .error
        .clone()
        .expect("nothing to forecast");
    assert!(e.contains("files"), "{e}");
    let files = vec![
        "presets/generators/repair.ron".into(),
        "docs/examples/adaptive.ron".into(),
    ];
    h.state_mut().push(Command::SetLab(lab(files)));
    h.run();
    h.get_by_label_contains("repair.ron, adaptive.ron (and the generator checked logs were played under)");
    let (r, names) = forecast(
        &mut h,
        Command::ForecastPopulation {
            players: 100,
            fitted: false,
            check: None,
        },
    );
    assert_eq!(names, ["repair.ron", "adaptive.ron"]);
    // The adaptive file deals otherwise than the static one: a gain with an
    // interval, and per decile.
    let g = r.generators[1].gain.expect("a gain against the first");
    assert!(g.ci.is_some());
    assert_ne!(r.generators[0].forecast.figures, r.generators[1].forecast.figures);
    assert_eq!(r.generators[1].decile_gains.len(), 10);
    h.get_by_label_contains("Games per session against repair.ron, the same players under both");
}
