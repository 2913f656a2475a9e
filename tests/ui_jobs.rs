//! Every background job stops when cancelled: each test starts a job on a
//! heavy input, cancels it as a user would, and joins its thread (with a
//! generous timeout, so these are not timing tests). The latencies printed
//! (`cargo test --test ui_jobs -- --nocapture`) are the figures in the
//! closing note of the hardening issue.

mod common;

use std::time::{Duration, Instant};

use common::ui::{all_jobs_end, harness, harness_with, open, preset, step_until};
use tenten::app::App;
use tenten::app::shell::command::Command;
use tenten::app::shell::settings::{LabSettings, LabSize};
use tenten::app::shell::state::{Slot, State};
use tenten_engine::model::board::{BoardSize, Cell};

/// Cancels, then joins every job's thread; prints how long that took.
fn cancel_and_join(h: &mut egui_kittest::Harness<'static, App>, what: &str, cancel: Command) {
    let started = Instant::now();
    h.state_mut().push(cancel);
    h.step();
    let slowest = all_jobs_end(h);
    eprintln!(
        "{what}: every thread ended {:.1} ms after Cancel (slowest join {:.1} ms)",
        started.elapsed().as_secs_f64() * 1e3,
        slowest.as_secs_f64() * 1e3
    );
}

#[test]
fn a_repair_of_ten_thousand_failing_redraws_stops_on_cancel() {
    // Only 3x3 squares are dealt, and a dot every third cell leaves no 3x3
    // room: every redraw fails, then the fallback finds the board dead.
    let mut state = State::default();
    for p in &mut state.doc.set.pieces {
        p.weight = u32::from(p.id == "sq3");
    }
    let sq3 = state.doc.set.index_of("sq3").unwrap();
    state.doc.slots = Slot::holding(&[sq3, sq3, sq3]);
    for y in (1..10).step_by(3) {
        for x in (1..10).step_by(3) {
            state.doc.board.set(x, y, Cell::Painted);
        }
    }
    state.settings.max_redraws = 10_000;
    let mut h = harness_with(App::new(state));
    // Cancel in the frame the repair starts, before its first redraw.
    h.state_mut().push(Command::Repair);
    cancel_and_join(&mut h, "repair", Command::CancelRepair);
    step_until(&mut h, "the repair to end", |a| !a.live.repair_running);
    assert!(
        h.state().live.repair.is_none(),
        "a cancelled repair shows no result"
    );
    assert_eq!(h.state().live.status, "Repair cancelled");
    // Not cancelled, the same repair runs to its verdict.
    h.state_mut().push(Command::Repair);
    // Stepped, not run: the spinner repaints while the repair works.
    h.step();
    step_until(&mut h, "the repair to end", |a| !a.live.repair_running);
    assert!(
        h.state().live.status.contains("dead"),
        "{}",
        h.state().live.status
    );
}

#[test]
fn a_coelho_lab_run_on_16x8_with_holders_of_4_stops_on_cancel() {
    // The case: `simulate --size 16x8 --holder-size 4 --strategy
    // coelho` finished no game in a minute, and Cancel waited for a game.
    let mut h = harness();
    h.state_mut().push(Command::SetLab(LabSettings {
        generators: vec!["random".to_owned()],
        strategy: "coelho".to_owned(),
        size: LabSize::Fixed(BoardSize::new(16, 8).unwrap()),
        holder_size: 4,
        games: 4,
        ..LabSettings::default()
    }));
    h.run();
    h.state_mut().push(Command::StartLab);
    h.run();
    assert!(h.state().live.lab.running());
    std::thread::sleep(Duration::from_millis(300));
    h.step();
    assert!(
        h.state().live.lab.running(),
        "no game of 16x8 coelho ends in 300 ms"
    );
    cancel_and_join(
        &mut h,
        "generator lab (coelho, 16x8, holders of 4)",
        Command::CancelLab,
    );
    step_until(&mut h, "the lab to stop", |a| !a.live.lab.running());
    assert_eq!(h.state().live.lab.finished, Some(false));
}

#[test]
fn an_edit_cancels_the_running_danger_job_before_the_next_starts() {
    // Holders of 4 with the heatmap: about 7,000 deals for every one of the
    // 100 cells, seconds of work per board.
    let mut h = harness();
    h.state_mut().push(Command::SetHolderSize(4));
    h.state_mut().push(Command::ToggleHeatmap);
    h.run();
    let mut seen = Vec::new();
    for i in 0..12 {
        seen.extend(h.state().live.danger.watch());
        h.state_mut().push(Command::Paint {
            x: i % 10,
            y: i / 10,
            cell: Cell::Painted,
            stroke: i as u64 + 1,
        });
        h.step();
        seen.extend(h.state().live.danger.watch());
    }
    let current = h.state().live.danger.watch();
    let started = Instant::now();
    // Every superseded job's thread returns; the one on screen may run on.
    for w in &seen {
        if current.as_ref().is_some_and(|c| c.is(w)) {
            continue;
        }
        assert!(
            w.join_within(Duration::from_secs(30)).is_some(),
            "a superseded danger job runs on"
        );
    }
    let jobs = h.state().live.danger.started();
    assert!(jobs <= 13, "{jobs} danger jobs for 12 edits");
    eprintln!(
        "danger: {jobs} jobs for 12 quick edits; superseded threads joined within {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    step_until(&mut h, "the danger of the last board", |a| {
        a.live.danger.settled(&a.state)
    });
}

#[test]
fn judging_a_batch_stops_on_cancel_and_every_chunk_sent_is_kept() {
    let mut h = harness();
    open(&mut h, preset("deals/playtest-1000.ron"));
    cancel_and_join(&mut h, "batch judging (1,000 deals)", Command::CancelJudging);
    let judged = (0..1000)
        .filter(|&p| h.state().live.deals.judged_at(p).is_some())
        .count();
    eprintln!("batch judging: {judged} of 1000 deals judged before the cancel took effect");
    // Judged again in full: the job ends on disconnect, with every verdict.
    let mut h = harness();
    open(&mut h, preset("deals/playtest-1000.ron"));
    step_until(&mut h, "every deal judged", |a| a.live.deals.settled(1000));
}
