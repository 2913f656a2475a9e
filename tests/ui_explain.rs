//! The Lab's Fit view: a playtest log, RON or JSON Lines, opens as the same
//! deals; "Compare models" answers which model explains it and shows the
//! comparison, the best model's check and its plots; a JSON Lines log is
//! never written over. (Its cancel test is in `ui_jobs.rs`.)

mod common;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use tenten::app::App;
use tenten::app::jobs::job::Background as _;
use tenten::app::shell::command::Command;
use tenten_engine::io::formats::Deal;

use common::ui::{harness_on_tab, open, preset, press, step_until, temp_copy};

/// The Lab's Players page, where a log is fitted and explained.
fn players_page(h: &mut Harness<'static, App>) {
    h.state_mut().state.settings.inspector_tab = 5;
    h.run();
    h.query_all_by_label("Players").next().unwrap().click();
    h.run();
}

/// The deals of the open batch (board, holder, seed), in file order.
fn deals(h: &Harness<'static, App>) -> Vec<Deal> {
    let b = h.state().state.doc.batch.as_ref().expect("a batch is open");
    b.source.entries.iter().map(|e| e.deal.clone()).collect()
}

#[test]
fn a_json_lines_log_opens_as_the_same_deals_as_its_ron_log() {
    let mut h = harness_on_tab("Lab");
    open(&mut h, preset("logs/casual-playtest.ron"));
    let ron = deals(&h);
    open(&mut h, preset("logs/casual-playtest.jsonl"));
    assert!(
        h.state().live.status.contains("deal 1 of 200"),
        "{}",
        h.state().live.status
    );
    let jsonl = deals(&h);
    assert_eq!(jsonl.len(), 200);
    assert_eq!(jsonl, ron, "the same 200 deals, in the same order");
    players_page(&mut h);
    // The Lab knows it for a log: it offers the fit and the comparison.
    assert!(h.query_by_label("Fit a player").is_some());
    assert!(h.query_by_label("Compare models").is_some());
}

#[test]
fn compare_models_shows_the_comparison_and_the_best_models_check() {
    let mut h = harness_on_tab("Lab");
    open(&mut h, preset("logs/casual-playtest.jsonl"));
    players_page(&mut h);
    press(&mut h, "Compare models");
    step_until(&mut h, "the comparison's end", |a| {
        !a.live.explain.running() && (a.live.explain.result.is_some() || a.live.explain.error.is_some())
    });
    assert!(
        h.state().live.explain.error.is_none(),
        "{:?}",
        h.state().live.explain.error
    );
    let done = h.state().live.explain.result.clone().expect("an explanation");
    assert!(done.file.ends_with("casual-playtest.jsonl"), "{}", done.file);
    let e = &done.e;
    // Every model of the comparison has its row, with its name.
    assert_eq!(e.comparison.ranked.len(), 4, "rank and value, piece and holder");
    for s in &e.comparison.ranked {
        assert!(
            h.query_by_label(&s.model.name()).is_some(),
            "the table lists {}",
            s.model.name()
        );
    }
    // Two games cannot name a best model, however wide the margin looks.
    let why = e.comparison.undecided().expect("two games name no best model");
    assert!(why.starts_with("2 games cannot tell models apart"), "{why}");
    assert!(
        h.query_by_label(&format!("Undecided: {why}.")).is_some(),
        "the view says why"
    );
    assert_eq!(e.moves.moves, 599, "all 599 moves of the log are checked");
    assert!((0.0..=1.0).contains(&e.moves.top1));
    assert!(
        h.query_by_label_contains(&format!("{:.1} % of the time (599 moves)", 100.0 * e.moves.top1))
            .is_some()
    );
    // The calibration and the survival check, with the log's two games.
    assert!(
        h.query_by_label("Calibration: moves binned by predicted chance")
            .is_some()
    );
    let s = e.survival.as_ref().expect("random is a generator preset");
    assert_eq!(s.observed.len(), 2, "the log holds two games");
    assert_eq!(s.simulated.len(), done.ask.games);
    assert!(
        h.query_by_label("Survival: the log's games and the fitted player's")
            .is_some()
    );
    let status = &h.state().live.status;
    assert!(
        status.contains("casual-playtest.jsonl cannot name a best model"),
        "{status}"
    );
}

#[test]
fn a_json_lines_log_is_never_written_over() {
    let path = temp_copy("logs/casual-playtest.jsonl", "jsonl-save");
    let before = std::fs::read(&path).unwrap();
    let mut h = harness_on_tab("Lab");
    open(&mut h, path.clone());
    // An edit, then Save: the log is refused, with a message naming it.
    h.state_mut().push(Command::ClearBoard);
    h.run();
    h.state_mut().push(Command::Save);
    h.run();
    let error = h.state().live.error.clone().unwrap_or_default();
    assert!(
        error.contains("casual-playtest.jsonl is a JSON Lines playtest log")
            && error.contains("nothing was written"),
        "{error}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before, "the log is as it was");
}
