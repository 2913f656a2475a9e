//! The Timing tab, driven like a user would: a tiny sweep that fills the
//! plots, a cancel that stops the worker, and a slowest deal opened in the
//! tree tab.

mod common;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use tenten::app::App;
use tenten::app::jobs::job::Background as _;
use tenten::app::shell::command::Command;
use tenten::app::shell::settings::TimingSettings;

use common::ui::{harness_on_tab, step_until};

fn harness() -> Harness<'static, App> {
    let h = harness_on_tab("Timing");
    assert_eq!(h.state().state.settings.inspector_tab, 3);
    h
}

fn settings(deals: usize, factors: &[f64]) -> TimingSettings {
    TimingSettings {
        deals,
        factors: factors.to_vec(),
        selected: factors[factors.len() - 1],
        seed: 7,
        ..TimingSettings::default()
    }
}

/// Steps frames until the sweep is no longer running.
fn wait_until_stopped(h: &mut Harness<'static, App>) {
    step_until(h, "the sweep's end", |a| !a.live.timing.running());
}

#[test]
fn a_tiny_sweep_fills_the_plots_and_the_table() {
    let mut h = harness();
    h.state_mut().push(Command::SetTiming(settings(8, &[1.0, 4.0])));
    h.run();
    h.get_by_label("Run sweep").click();
    h.run();
    assert!(
        h.state().live.timing.running() || h.state().live.timing.finished.is_some(),
        "the click on Run sweep started the sweep"
    );
    wait_until_stopped(&mut h);
    let lab = &h.state().live.timing;
    assert_eq!(
        lab.finished,
        Some(true),
        "error {:?}, {} measurements, status {:?}",
        lab.error,
        lab.measurements.len(),
        h.state().live.status
    );
    assert_eq!(lab.measurements.len(), 16);
    assert_eq!(lab.summaries.len(), 2);
    assert_eq!(lab.summaries[1].factor, 4.0);
    h.get_by_label("Fits a phone up to N x slower than this machine");
    // The throttle plot's legend sits above it, one entry per series; a
    // click hides a series and another shows it again.
    for op in ["validate", "validate + change"] {
        for p in ["p50", "p95", "p99", "max"] {
            h.get_by_label(&format!("{op} {p}"));
        }
    }
    h.get_by_label("validate max").click();
    h.run();
    h.get_by_label("validate max").hover();
    h.run();
    h.get_by_label("Click to show");
    h.get_by_label("validate max").click();
    h.run();
    h.get_by_label("16.7 ms (one frame)");
    h.get_by_label_contains("Table II and Fig. 5 at 4x mid-tier mobile");
    h.get_by_label_contains("Distribution at 4x mid-tier mobile");
    h.get_by_label("Export CSV…");
    // Every row of Table II is listed beside the paper's figure.
    h.get_by_label("k<21");
    h.get_by_label("5.736 ms");
    // The slowest deal opens on the board and in the tree tab.
    h.get_by_label_contains("Slowest deals at 4x");
    // Scrolled into view first, as a user would.
    h.query_all_by_label("Open").next().unwrap().scroll_to_me();
    h.run();
    h.query_all_by_label("Open").next().unwrap().click();
    h.run();
    assert_eq!(h.state().state.settings.inspector_tab, 1);
    assert!(!h.state().state.doc.holder().is_empty());
}

#[test]
fn cancel_stops_the_worker_and_keeps_what_was_measured() {
    let mut h = harness();
    h.state_mut()
        .push(Command::SetTiming(settings(5_000, &[1.0, 20.0])));
    h.run();
    h.get_by_label("Run sweep").click();
    h.run();
    assert!(h.state().live.timing.running());
    // Let some chunks arrive, then cancel from the button.
    for _ in 0..400 {
        h.step();
        if !h.state().live.timing.measurements.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    h.get_by_label("Cancel").click();
    h.run();
    wait_until_stopped(&mut h);
    let lab = &h.state().live.timing;
    assert_eq!(lab.finished, Some(false));
    let kept = lab.measurements.len();
    assert!(kept < 10_000, "{kept}");
    h.get_by_label_contains("Cancelled after");
    // The header says how much of the run was measured, not the corpus size.
    h.get_by_label_contains(" of 5,000 deals measured");
    h.get_by_label_contains("; cancelled");
    // The worker has returned (joined), so nothing more can arrive.
    common::ui::all_jobs_end(&mut h);
    h.run();
    assert_eq!(h.state().live.timing.measurements.len(), kept);
    assert!(h.query_by_label("Cancel").is_none());
}
