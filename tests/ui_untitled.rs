//! A deal opened from a generated source (a timing sweep's deal, a Lab
//! replay's round) is a new, untitled document: Ctrl+S never writes it over
//! the file opened before.

mod common;

use common::ui::{harness, open, step_until, temp_copy};
use tenten::app::jobs::job::Background as _;
use tenten::app::shell::command::Command;
use tenten::app::shell::settings::{LabSettings, TimingSettings};

/// A copy of mid-game.ron in a fresh folder, opened in the window.
fn opened_copy(
    tag: &str,
) -> (
    egui_kittest::Harness<'static, tenten::app::App>,
    std::path::PathBuf,
) {
    tenten::app::disable_dialogs();
    let path = temp_copy("deals/mid-game.ron", &format!("untitled-{tag}"));
    let mut h = harness();
    open(&mut h, path.clone());
    assert_eq!(h.state().state.settings.file.as_deref(), Some(path.as_path()));
    (h, path)
}

fn save_leaves_the_file_alone(
    h: &mut egui_kittest::Harness<'static, tenten::app::App>,
    path: &std::path::Path,
) {
    let before = std::fs::read(path).unwrap();
    assert_eq!(
        h.state().state.settings.file,
        None,
        "the generated deal is untitled"
    );
    h.state_mut().push(Command::Save);
    h.run();
    assert_eq!(
        std::fs::read(path).unwrap(),
        before,
        "Ctrl+S wrote a generated deal over the file"
    );
}

#[test]
fn a_deal_opened_from_the_timing_sweep_is_untitled() {
    let (mut h, path) = opened_copy("sweep");
    h.state_mut().push(Command::SetTiming(TimingSettings {
        deals: 20,
        factors: vec![1.0],
        ..TimingSettings::default()
    }));
    h.state_mut().push(Command::StartSweep);
    h.run();
    step_until(&mut h, "the sweep to end", |a| !a.live.timing.running());
    h.state_mut().push(Command::OpenLabDeal(7));
    h.run();
    assert!(
        h.state().live.status.contains("deal 7 of the timing sweep"),
        "{}",
        h.state().live.status
    );
    save_leaves_the_file_alone(&mut h, &path);
}

#[test]
fn a_round_opened_from_a_lab_replay_is_untitled() {
    let (mut h, path) = opened_copy("replay");
    h.state_mut().push(Command::SetLab(LabSettings {
        generators: vec!["random".to_owned()],
        games: 3,
        ..LabSettings::default()
    }));
    h.state_mut().push(Command::StartLab);
    h.run();
    step_until(&mut h, "the lab to end", |a| !a.live.lab.running());
    h.state_mut().push(Command::ReplayLabGame {
        player: "novice".to_owned(),
        generator: "random".to_owned(),
        game: 0,
    });
    h.run();
    step_until(&mut h, "the replay", |a| {
        a.live.lab.replay.as_ref().is_some_and(|r| r.rounds.is_some())
    });
    h.state_mut().push(Command::OpenLabReplayDeal);
    h.run();
    assert!(
        h.state().live.status.starts_with("Opened round"),
        "{}",
        h.state().live.status
    );
    save_leaves_the_file_alone(&mut h, &path);
}

#[test]
fn a_killer_deal_from_the_danger_map_is_untitled() {
    let (mut h, path) = opened_copy("killer");
    h.state_mut().push(Command::OpenKillerDeal(vec![2, 2, 2]));
    h.run();
    assert!(
        h.state().live.status.contains("killer deal sq3,sq3,sq3"),
        "{}",
        h.state().live.status
    );
    save_leaves_the_file_alone(&mut h, &path);
    // Undo brings back the opened deal and the file it belongs to.
    h.state_mut().push(Command::Undo);
    h.run();
    assert_eq!(h.state().state.settings.file.as_deref(), Some(path.as_path()));
}

/// Undo after opening a second file must not leave the first file's deal
/// titled with the second file's name, or Ctrl+S writes it over that file.
#[test]
fn undo_past_an_open_restores_the_file_with_the_deal() {
    let (mut h, first) = opened_copy("undo");
    let second = first.with_file_name("empty.ron");
    let rows = ["\"..........\""; 10].join(", ");
    std::fs::write(&second, format!("(board: [{rows}], holder: [\"dot\"])\n")).unwrap();
    open(&mut h, second.clone());
    assert_eq!(h.state().state.settings.file.as_deref(), Some(second.as_path()));
    h.state_mut().push(Command::Undo);
    h.run();
    assert_eq!(h.state().state.settings.file.as_deref(), Some(first.as_path()));
    let before = std::fs::read(&second).unwrap();
    h.state_mut().push(Command::Save);
    h.run();
    assert_eq!(
        std::fs::read(&second).unwrap(),
        before,
        "the first deal was written over the second file"
    );
    h.state_mut().push(Command::Redo);
    h.run();
    assert_eq!(h.state().state.settings.file.as_deref(), Some(second.as_path()));
}
