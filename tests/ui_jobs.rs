//! Every background job stops when cancelled: each test starts a job on a
//! heavy input, cancels it as a user would, and joins its thread (with a
//! generous timeout, so these are not timing tests). The latencies printed
//! (`cargo test --test ui_jobs -- --nocapture`) are the figures in the
//! closing note of the hardening issue.

mod common;

use std::time::{Duration, Instant};
use tenten::app::jobs::job::Background as _;

use common::ui::{harness, harness_with, jobs_end, open, preset, step_until};
use egui_kittest::kittest::Queryable;
use tenten::app::App;
use tenten::app::shell::command::Command;
use tenten::app::shell::settings::{LabSettings, LabSize};
use tenten::app::shell::state::{Slot, State};
use tenten_engine::model::board::{BoardSize, Cell};

/// Cancels, then joins every job's thread; prints how long that took.
fn cancel_and_join(h: &mut egui_kittest::Harness<'static, App>, what: &str, cancel: Command) {
    // Watches taken before (a Cancel may drop its job at once) and after
    // (a job started in the same frame as its Cancel).
    let mut watches = h.state().job_watches();
    let started = Instant::now();
    h.state_mut().push(cancel);
    h.step();
    watches.extend(h.state().job_watches());
    assert!(!watches.is_empty(), "{what}: no job was running");
    let slowest = jobs_end(h, watches);
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
        players: vec!["coelho".to_owned()],
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
    // No game ended before the cancel: the page says so in one sentence.
    let note = h.state().live.lab.note.clone().unwrap_or_default();
    assert!(note.contains("cancelled before its first game"), "{note:?}");
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
    // 1,000 playtest deals are judged in a few milliseconds, sometimes
    // within the frame the batch opens (a CI run saw that), so the cancelled
    // batch is one no frame can finish: 200 deals of three 3x3 squares on a
    // board dotted so none fits, under a set that deals only 3x3 squares,
    // with 10,000 redraws each before the fallback finds them dead.
    let dir = std::env::temp_dir().join(format!("tenten-judge-cancel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let classic = std::fs::read_to_string(preset("pieces/classic-1010.ron")).unwrap();
    let only_sq3: String = classic
        .lines()
        .map(|l| match l.find("weight: ") {
            Some(at) if l.contains("(id: ") => {
                let end = at + l[at..].find(',').unwrap();
                let w = if l.contains("\"sq3\"") { "1" } else { "0" };
                format!("{}weight: {w}{}", &l[..at], &l[end..])
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(dir.join("only-sq3.ron"), only_sq3).unwrap();
    let rows: Vec<String> = (0..10)
        .map(|y| {
            (0..10)
                .map(|x| if x % 3 == 1 && y % 3 == 1 { '#' } else { '.' })
                .collect()
        })
        .collect();
    let deal = format!("(board: {rows:?}, holder: [\"sq3\", \"sq3\", \"sq3\"], pieces: \"only-sq3.ron\")");
    let deals = vec![deal; 200];
    let path = dir.join("dead.ron");
    std::fs::write(
        &path,
        tenten_engine::io::batch_file::batch_to_ron(&deals, "dead deals"),
    )
    .unwrap();
    let mut state = State::default();
    state.settings.max_redraws = 10_000;
    let mut h = harness_with(App::new(state));
    // Stepped, not run: judging starts in the frame the batch opens, and
    // is cancelled in the next.
    h.state_mut().push(Command::Load(path));
    h.step();
    assert_eq!(h.state().live.error, None);
    assert!(h.state().live.deals.watch().is_some(), "judging started");
    cancel_and_join(&mut h, "batch judging (200 dead deals)", Command::CancelJudging);
    for _ in 0..3 {
        h.step();
    }
    let judged: Vec<_> = (0..200)
        .filter_map(|p| h.state().live.deals.judged_at(p))
        .collect();
    eprintln!(
        "batch judging: {} of 200 deals judged before the cancel took effect",
        judged.len()
    );
    assert!(judged.len() < 200, "the cancel stopped the judging early");
    assert!(h.state().live.deals.cancelled, "the list says it was cancelled");
    assert!(
        judged
            .iter()
            .all(|j| j.verdict == tenten_engine::io::batch::Verdict::Dead),
        "every verdict kept is the deal's own"
    );
    let _ = std::fs::remove_dir_all(&dir);
    // Judged again in full: the job ends on disconnect, with every verdict.
    let mut h = harness();
    open(&mut h, preset("deals/playtest-1000.ron"));
    step_until(&mut h, "every deal judged", |a| a.live.deals.settled(1000));
}

/// A large log is read on a thread; Cancel in the status bar stops it, the
/// thread ends, and the document is as it was (nothing applied later).
#[test]
fn reading_a_large_file_stops_on_cancel_and_changes_nothing() {
    let dir = std::env::temp_dir().join(format!("tenten-load-cancel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.ron");
    let deal = std::fs::read_to_string(preset("deals/mid-game.ron")).unwrap();
    let deals: Vec<String> = (0..8_000).map(|_| deal.clone()).collect();
    std::fs::write(
        &path,
        tenten_engine::io::batch_file::batch_to_ron(&deals, "a big log"),
    )
    .unwrap();
    assert!(
        std::fs::metadata(&path).unwrap().len() > 1 << 20,
        "read on a thread"
    );
    let mut h = harness();
    let before = h.state().state.doc.clone();
    h.state_mut().push(Command::Load(path.clone()));
    h.step();
    assert!(h.state().live.loading.is_some(), "the file is read on a thread");
    h.step();
    h.get_by_label("Cancel"); // the status bar offers it while reading
    cancel_and_join(&mut h, "reading an 8,000-deal file", Command::CancelLoad);
    for _ in 0..5 {
        h.step();
    }
    assert!(h.state().live.loading.is_none());
    assert!(h.state().live.error.is_none(), "{:?}", h.state().live.error);
    assert!(
        h.state().state.doc == before,
        "a cancelled load changed the document"
    );
    assert_eq!(h.state().state.settings.file, None);
    assert!(
        h.state().live.status.starts_with("Stopped reading"),
        "{}",
        h.state().live.status
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Closing a replay that is still playing its game again stops it.
#[test]
fn a_replay_closed_while_it_plays_stops() {
    let mut h = harness();
    h.state_mut().push(Command::SetLab(LabSettings {
        generators: vec!["random".to_owned()],
        players: vec!["coelho".to_owned()],
        games: 1,
        max_rounds: 400,
        ..LabSettings::default()
    }));
    h.state_mut().push(Command::StartLab);
    h.run();
    step_until(&mut h, "the coelho game", |a| !a.live.lab.running());
    let rounds = h.state().live.lab.results[0].games[0].rounds;
    h.state_mut().push(Command::ReplayLabGame {
        player: "coelho".to_owned(),
        generator: "random".to_owned(),
        game: 0,
    });
    h.step();
    assert!(
        h.state()
            .live
            .lab
            .replay
            .as_ref()
            .is_some_and(|r| r.rounds.is_none()),
        "the replay of {rounds} coelho rounds is still playing"
    );
    cancel_and_join(
        &mut h,
        &format!("replay ({rounds} coelho rounds)"),
        Command::CloseLabReplay,
    );
    assert!(h.state().live.lab.replay.is_none());
}

#[test]
fn fitting_a_holder_player_to_a_log_stops_on_cancel() {
    // Each deal of the log costs a full search of its holder in debug
    // builds: seconds for the 200 deals.
    let mut h = harness();
    open(&mut h, preset("logs/casual-playtest.ron"));
    h.state_mut()
        .push(Command::FitPlayer(tenten_engine::play::player::Lookahead::Holder));
    h.step();
    assert!(h.state().live.fit.running(), "the fit is running");
    cancel_and_join(&mut h, "fitting a holder player to 200 deals", Command::CancelFit);
    h.run();
    assert!(!h.state().live.fit.running());
    assert!(
        h.state().live.fit.result.is_none(),
        "a cancelled fit leaves no result"
    );
    assert!(
        h.state().live.status.contains("cancelled"),
        "{}",
        h.state().live.status
    );
}

#[test]
fn comparing_models_on_a_log_stops_on_cancel() {
    let mut h = harness();
    open(&mut h, preset("logs/casual-playtest.ron"));
    h.state_mut().push(Command::ExplainLog);
    h.step();
    assert!(h.state().live.explain.running(), "the comparison is running");
    cancel_and_join(
        &mut h,
        "comparing four models on 200 deals",
        Command::CancelExplain,
    );
    h.run();
    assert!(!h.state().live.explain.running());
    assert!(
        h.state().live.explain.result.is_none(),
        "a cancelled comparison leaves no result"
    );
    assert!(
        h.state().live.status.contains("cancelled"),
        "{}",
        h.state().live.status
    );
}

#[test]
fn a_tune_stops_on_cancel() {
    let mut h = harness();
    let mut s = h.state().state.settings.lab.clone();
    s.tune.budget_seconds = 600.0;
    s.tune.games = 400;
    h.state_mut().push(Command::SetLab(s));
    h.state_mut().push(Command::StartTune);
    h.step();
    assert!(h.state().live.tune.running(), "the tune is running");
    cancel_and_join(&mut h, "a 600 s tune", Command::CancelTune);
    h.run();
    assert!(!h.state().live.tune.running());
    assert!(h.state().live.status.contains("cancelled") || h.state().live.tune.report.is_some());
}

#[test]
fn fitting_a_population_stops_on_cancel() {
    let mut h = harness();
    h.state_mut().push(Command::FitPopulation(
        "presets/cohorts/demo/block-blast-like".into(),
    ));
    h.step();
    assert!(h.state().live.population_fit.running(), "the fit is running");
    cancel_and_join(&mut h, "fitting 60 testers", Command::CancelPopulationFit);
    h.run();
    assert!(!h.state().live.population_fit.running());
    assert!(
        h.state().live.population_fit.result.is_none(),
        "a cancelled fit leaves no result"
    );
    assert!(
        h.state().live.status.contains("cancelled"),
        "{}",
        h.state().live.status
    );
}

#[test]
fn a_forecast_stops_on_cancel() {
    let mut h = harness();
    h.state_mut().push(Command::ForecastPopulation {
        players: 100_000,
        fitted: false,
        check: None,
    });
    h.step();
    assert!(h.state().live.forecast.running(), "the forecast is running");
    cancel_and_join(&mut h, "forecasting 100,000 players", Command::CancelForecast);
    h.run();
    assert!(!h.state().live.forecast.running());
    assert!(
        h.state().live.forecast.result.is_none(),
        "a cancelled forecast leaves no result"
    );
    assert!(
        h.state().live.status.contains("cancelled"),
        "{}",
        h.state().live.status
    );
}

#[test]
fn a_calibration_study_stops_on_cancel() {
    let mut h = harness();
    let plan = tenten_engine::study::calibrate::Plan::new(
        tenten_engine::study::calibrate::Estimator::FitPopulation,
        tenten_engine::study::calibrate::Design::DEFAULT,
        1_000,
        1,
    );
    h.state_mut().push(Command::StartCalibration(Box::new(plan)));
    h.step();
    assert!(h.state().live.calibration.running(), "the study is running");
    cancel_and_join(&mut h, "a 1,000-replication study", Command::CancelCalibration);
    h.run();
    assert!(!h.state().live.calibration.running());
    assert!(
        h.state().live.calibration.result.is_none(),
        "a cancelled study leaves no result"
    );
    assert!(
        h.state().live.status.contains("cancelled"),
        "{}",
        h.state().live.status
    );
}

#[test]
fn a_playtest_plan_stops_on_cancel() {
    let mut h = harness();
    h.state_mut().push(Command::PlanPlaytest {
        fitted: false,
        figure: "reach_50".to_owned(),
        sessions: 2,
        question: tenten::app::jobs::playtest_plan::Question::Width {
            generator: "random".to_owned(),
            width: 0.001,
        },
    });
    h.step();
    assert!(h.state().live.playtest_plan.running(), "the plan is running");
    cancel_and_join(&mut h, "a playtest plan", Command::CancelPlanPlaytest);
    h.run();
    assert!(!h.state().live.playtest_plan.running());
    assert!(
        h.state().live.playtest_plan.result.is_none(),
        "a cancelled plan leaves no answer"
    );
    assert!(
        h.state().live.status.contains("cancelled"),
        "{}",
        h.state().live.status
    );
}

#[test]
fn learning_a_generator_from_a_log_stops_on_cancel() {
    let mut h = harness();
    open(&mut h, preset("logs/casual-playtest.ron"));
    h.state_mut().push(Command::LearnGenerator);
    h.step();
    assert!(h.state().live.learn.running(), "learning is running");
    cancel_and_join(
        &mut h,
        "learning a generator from 200 deals",
        Command::CancelLearn,
    );
    h.run();
    assert!(!h.state().live.learn.running());
    assert!(
        h.state().live.learn.result.is_none(),
        "a cancelled learning leaves no result"
    );
    assert!(
        h.state().live.status.contains("cancelled"),
        "{}",
        h.state().live.status
    );
}
