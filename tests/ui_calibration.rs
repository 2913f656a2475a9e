//! The Calibration page: a small fit-player study runs from the page, its
//! table says per parameter the coverage with its interval and whether the
//! interval is calibrated, and both plots are drawn with their legends.
//! (Its cancel test is in `ui_jobs.rs`.)

mod common;

use egui_kittest::kittest::Queryable;
use tenten::app::jobs::job::Background as _;

use common::ui::{harness_on_tab, press, step_until};

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
