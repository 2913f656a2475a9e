//! The window under egui_kittest, as every UI test drives it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use tenten::app::App;
use tenten::app::jobs::job::Watch;
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
    harness_sized(app, [1400.0, 880.0])
}

/// The window at `size` around `app`.
pub fn harness_sized(app: App, size: [f32; 2]) -> Harness<'static, App> {
    harness_built(app, size, 16)
}

/// The window at `size` around `app`, settling in at most `max_steps`
/// frames per run (more where a job's spinner repaints, as batch judging).
pub fn harness_built(app: App, size: [f32; 2], max_steps: u64) -> Harness<'static, App> {
    let mut h = Harness::builder()
        .with_size(size)
        .with_max_steps(max_steps)
        .build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.run();
    h
}

/// The window as on first launch, without kittest's check that every
/// widget has an accessible name: egui_file's in-window dialog draws its
/// path and file-name boxes without one (upstream), and only the dialog's
/// test needs it.
pub fn harness_for_file_dialogs() -> Harness<'static, App> {
    let mut h = Harness::builder()
        .with_size([1400.0, 880.0])
        .with_max_steps(16)
        .with_accessibility_check(false)
        .build_ui_state(|ui, app: &mut App| app.show(ui), App::new(State::default()));
    h.run();
    h
}

/// A copy of the preset `path` (`deals/mid-game.ron`) in a fresh temporary
/// folder named after `tag`, so saving over it is harmless.
pub fn temp_copy(path: &str, tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tenten-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let to = dir.join(Path::new(path).file_name().unwrap());
    std::fs::copy(preset(path), &to).unwrap();
    to
}

/// The palette alone, 280x900, as its snapshot and weight tests see it.
/// `max_steps`: each weight edit restarts the danger job, whose repaints may
/// keep a loaded machine stepping for a while.
pub fn palette_harness(app: App, max_steps: u64) -> Harness<'static, App> {
    let mut h = Harness::builder()
        .with_size([280.0, 900.0])
        .with_max_steps(max_steps)
        .build_ui_state(|ui, app: &mut App| app.show_palette_only(ui), app);
    h.run();
    h
}

/// The classic preset with the inspector on tab `label` ("Lab", "Timing").
pub fn harness_on_tab(label: &str) -> Harness<'static, App> {
    let mut h = harness();
    h.get_by_label(label).click();
    h.run();
    h
}

/// Scrolls the widget labelled `label` into view, then clicks it, as a
/// user would.
pub fn press(h: &mut Harness<'static, App>, label: &str) {
    h.get_by_label(label).scroll_to_me();
    h.run();
    h.get_by_label(label).click();
    h.run();
}

/// The classic preset, as on first launch.
pub fn harness() -> Harness<'static, App> {
    harness_with(App::new(State::default()))
}

/// Opens a preset deal (`mid-game.ron`) as File > Open would.
pub fn open_deal(h: &mut Harness<'static, App>, name: &str) {
    open(h, preset(&format!("deals/{name}")));
}

/// Points the file dialog drawn in the window at `folder`.
pub fn dialog_in(h: &mut Harness<'static, App>, folder: &Path) {
    h.state_mut()
        .live
        .file_dialog
        .as_mut()
        .expect("a file dialog in the window")
        .dialog
        .set_path(folder);
    h.run();
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
    jobs_end(h, watches)
}

/// Each of `watches` (taken before a Cancel that may drop its job) has
/// returned within a generous 30 s; returns the slowest latency seen.
pub fn jobs_end(h: &mut Harness<'static, App>, watches: Vec<Watch>) -> Duration {
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

/// Hides every time on screen from a snapshot, to the end of its row:
/// times change from run to run, and read "µs" or "ms" depending on the
/// machine's speed.
pub fn mask_times(h: &mut Harness<'static, App>) {
    let timed: Vec<egui::Rect> = ["µs", " ms"]
        .iter()
        .flat_map(|unit| {
            h.query_all_by_label_contains(unit)
                .map(|n| n.rect())
                .collect::<Vec<_>>()
        })
        .collect();
    // A time's label grows and shrinks with its digits, so a mask as wide
    // as the label would differ too: from its left edge to the window's
    // right, or for a right-aligned label (the status bar's) the last
    // 560 points of its row.
    let width = h.ctx.content_rect().width();
    for r in timed {
        let left = if r.max.x > width - 24.0 {
            width - 560.0
        } else {
            r.min.x
        };
        h.mask(egui::Rect::from_x_y_ranges(left..=width, r.y_range()));
    }
}
