//! The window under egui_kittest, as every UI test drives it.

use std::path::PathBuf;
use std::time::Duration;

use egui_kittest::Harness;
use tenten::app::App;
use tenten::app::shell::command::Command;
use tenten::app::shell::state::State;

/// A preset shipped in `presets/`, e.g. `deals/mid-game.ron`.
pub fn preset(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("presets")
        .join(path)
}

/// The window at 1400x880 (its default size) around `app`.
pub fn harness_with(app: App) -> Harness<'static, App> {
    let mut h = Harness::builder()
        .with_size([1400.0, 880.0])
        .with_max_steps(16)
        .build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.run();
    h
}

/// The classic preset, as on first launch.
pub fn harness() -> Harness<'static, App> {
    harness_with(App::new(State::default()))
}

/// Opens a file as File > Open would.
pub fn open(h: &mut Harness<'static, App>, path: PathBuf) {
    h.state_mut().push(Command::Load(path));
    h.run();
    assert!(h.state().live.error.is_none(), "{:?}", h.state().live.error);
}

/// Steps frames until `done` holds, for at most a generous minute.
pub fn step_until(h: &mut Harness<'static, App>, what: &str, done: impl Fn(&App) -> bool) {
    for _ in 0..12_000 {
        h.step();
        if done(h.state()) {
            // A few frames to settle, stepped (a job elsewhere may still
            // show a spinner).
            h.run_steps(4);
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("{what} never happened");
}

/// Every job's thread has returned within a generous 30 s of a cancel
/// (the test is not a timing test); returns the slowest latency seen.
pub fn all_jobs_end(h: &mut Harness<'static, App>) -> Duration {
    let watches = h.state().job_watches();
    let mut slowest = Duration::ZERO;
    for w in watches {
        let took = w.join_within(Duration::from_secs(30));
        assert!(
            took.is_some(),
            "the {} thread is still running after Cancel",
            w.name()
        );
        slowest = slowest.max(took.unwrap_or_default());
    }
    h.run();
    slowest
}
