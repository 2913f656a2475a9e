//! A file means the same thing in the window as in the CLI: a deal without a
//! `pieces:` line is a classic-set deal, whatever set the window had before,
//! and the status bar names the set a file opened with.

mod common;

use common::ui::{harness, open, open_deal, preset, temp_copy};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use tenten::app::App;
use tenten::app::shell::command::Command;
use tenten_engine::model::pieces::PieceSet;

#[test]
fn a_deal_without_a_pieces_line_opens_with_the_classic_set() {
    let mut h = harness();
    // The no-dot set, from a deal that names it.
    open_deal(&mut h, "danger-pockets-no-dot.ron");
    assert_eq!(h.state().state.doc.set.name, "classic 1010! without the dot");
    let copy = temp_copy("deals/mid-game.ron", "files-classic");
    open(&mut h, copy.clone());
    let app = h.state();
    assert!(
        app.state.doc.set == PieceSet::classic(),
        "{}",
        app.state.doc.set.name
    );
    assert!(app.state.settings.pieces_file.is_none());
    assert!(
        app.live.status.contains("with the classic 1010! set"),
        "{}",
        app.live.status
    );
    // The same danger as `tenten danger` on the file (classic set).
    let holder: Vec<String> = app
        .state
        .doc
        .holder()
        .iter()
        .map(|&p| app.state.doc.set.piece(p).id.clone())
        .collect();
    assert_eq!(holder, ["sq2", "l3_br", "h4"]);
    // Saving writes no `pieces:` line for the other set into it.
    h.state_mut().push(Command::Save);
    h.run();
    let saved = std::fs::read_to_string(&copy).unwrap();
    assert!(!saved.contains("pieces:"), "{saved}");
}

#[test]
fn opening_a_file_over_an_edited_set_asks_says_so_and_undo_brings_the_edits_back() {
    let mut h = harness();
    let dot = h.state().state.doc.set.index_of("dot").unwrap();
    h.state_mut().push(Command::SetWeight {
        piece: dot,
        weight: 0,
        stroke: 1,
    });
    h.run();
    assert!(h.state().state.doc.set_modified());
    open(&mut h, preset("deals/mid-game.ron"));
    // The question first (tests/ui_keeps.rs: Cancel opens nothing).
    h.get_by_label("Open it").click();
    h.run();
    assert!(!h.state().state.doc.set_modified());
    assert!(
        h.state().live.status.contains("your edited set was replaced"),
        "{}",
        h.state().live.status
    );
    h.state_mut().push(Command::Undo);
    h.run();
    assert!(
        h.state().state.doc.set_modified(),
        "undo brings back the edited set"
    );
    assert_eq!(h.state().state.doc.set.pieces[usize::from(dot)].weight, 0);
}

/// Without a desktop file dialog (no xdg-desktop-portal, no zenity), Open
/// and Save as use one drawn in the window.
#[test]
fn without_a_desktop_dialog_files_are_chosen_in_the_window() {
    use egui_kittest::kittest::Queryable;
    tenten::app::use_window_dialogs();
    let mut h = common::ui::harness_for_file_dialogs();
    let copy = temp_copy("deals/mid-game.ron", "files-dialog");
    let folder = copy.parent().unwrap().to_path_buf();
    // Open: the dialog appears in the window; pick the file and open it.
    h.state_mut().push(Command::OpenDeal);
    h.run();
    assert!(h.state().live.file_dialog.is_some(), "{}", h.state().live.status);
    h.get_by_label_contains("Open deal or board");
    common::ui::dialog_in(&mut h, &folder);
    h.get_by_label_contains("mid-game.ron").click();
    h.run();
    h.get_by_label("Open").click();
    h.run();
    assert!(h.state().live.file_dialog.is_none());
    assert_eq!(h.state().state.settings.file.as_deref(), Some(copy.as_path()));
    // Save as: the same dialog proposes a name; Save writes there.
    h.state_mut().push(Command::SaveAs);
    h.run();
    h.get_by_label_contains("Save deal");
    common::ui::dialog_in(&mut h, &folder);
    h.get_by_label("Save").click();
    h.run();
    let saved = folder.join("deal.ron");
    assert!(saved.is_file(), "{}", h.state().live.status);
    assert!(std::fs::read_to_string(&saved).unwrap().contains("holder"));
    // Cancel closes it, choosing nothing.
    h.state_mut().push(Command::OpenDeal);
    h.run();
    h.get_by_label("Cancel").click();
    h.run();
    assert!(h.state().live.file_dialog.is_none());
    assert!(h.state().live.status.starts_with("No file chosen"));
}

/// In the window's own dialog a typed file name and Open open the file
/// (egui_file's open dialog ignored a typed name), and each kind of file
/// remembers the folder it was last chosen in, across a restart.
#[test]
fn a_typed_name_opens_and_each_kind_of_file_remembers_its_folder() {
    use egui_kittest::kittest::Queryable;
    tenten::app::use_window_dialogs();
    let mut h = common::ui::harness_for_file_dialogs();
    let copy = temp_copy("deals/mid-game.ron", "files-typed");
    let folder = copy.parent().unwrap().to_path_buf();
    h.state_mut().push(Command::OpenDeal);
    h.run();
    common::ui::dialog_in(&mut h, &folder);
    // The dialog's second text box is the file name (the first, its folder).
    let boxes: Vec<_> = h
        .query_all_by(|n| n.role() == egui::accesskit::Role::TextInput)
        .collect();
    assert!(boxes.len() >= 2, "{} text boxes", boxes.len());
    boxes[boxes.len() - 1].focus();
    h.run();
    let boxes: Vec<_> = h
        .query_all_by(|n| n.role() == egui::accesskit::Role::TextInput)
        .collect();
    boxes[boxes.len() - 1].type_text("mid-game.ron");
    h.run();
    h.get_by_label("Open").click();
    h.run();
    assert!(h.state().live.file_dialog.is_none());
    assert_eq!(h.state().state.settings.file.as_deref(), Some(copy.as_path()));
    assert_eq!(h.state().state.settings.last_folders.get("deals"), Some(&folder));
    // A restart (the session as eframe keeps it): the next Open starts there,
    // while a piece set's dialog, never used, starts in presets/.
    let saved = ron::ser::to_string(&h.state().state).unwrap();
    let state: tenten::app::shell::state::State = ron::from_str(&saved).unwrap();
    let mut h = Harness::builder()
        .with_size([1400.0, 880.0])
        .with_max_steps(16)
        .with_accessibility_check(false)
        .build_ui_state(|ui, app: &mut App| app.show(ui), App::new(state));
    h.run();
    h.state_mut().push(Command::OpenDeal);
    h.run();
    let dialog = &h.state().live.file_dialog.as_ref().unwrap().dialog;
    assert_eq!(dialog.directory(), folder.as_path());
    h.get_by_label("Cancel").click();
    h.run();
    h.state_mut().push(Command::OpenPieceSet);
    h.run();
    let dialog = &h.state().live.file_dialog.as_ref().unwrap().dialog;
    assert_ne!(dialog.directory(), folder.as_path());
}

/// A log is read, not dealt from: opened over the classic-with-mercy
/// generator (classic pieces, its own weights), it leaves the generator,
/// its file and the palette's weights as they were (it used to make the
/// generator "untitled (modified)" with the classic weights).
#[test]
fn opening_a_log_leaves_the_active_generator_and_piece_set_as_they_were() {
    let mut h = harness();
    open(&mut h, preset("generators/classic-with-mercy.ron"));
    let (title, path, set) = {
        let doc = &h.state().state.doc;
        assert!(!doc.generator_modified());
        assert!(doc.generator_path.is_some());
        (doc.generator_title(), doc.generator_path.clone(), doc.set.clone())
    };
    assert_ne!(
        set.weights(),
        PieceSet::classic().weights(),
        "the generator's weights are its own"
    );
    open(&mut h, preset("logs/casual-playtest.jsonl"));
    let app = h.state();
    let doc = &app.state.doc;
    assert_eq!(doc.batch.as_ref().map(|b| b.len()), Some(200), "the log is open");
    assert!(app.live.confirm.is_none(), "nothing to ask: nothing is replaced");
    assert_eq!(doc.generator_title(), title);
    assert_eq!(doc.generator_path, path);
    assert!(!doc.generator_modified(), "{:?}", doc.generator_title());
    assert!(doc.set == set, "the palette's weights stay");
    assert!(!doc.set_modified());
    let status = &app.live.status;
    assert!(
        status.starts_with("Opened casual-playtest.jsonl (deal 1 of 200)") && !status.contains("let go"),
        "{status}"
    );
}

/// A log over a set of other pieces (its deals name the classic ones)
/// would replace the set, and the active generator would deal other
/// weights (letting go of its file, if it has one): it asks first, and
/// Cancel leaves everything as it was.
#[test]
fn opening_a_log_over_another_set_with_a_generator_asks_first() {
    let mut h = harness();
    // The classic set without its last piece: not the pieces a log names.
    let classic = std::fs::read_to_string(preset("pieces/classic-1010.ron")).unwrap();
    let fewer: String = classic
        .lines()
        .filter(|l| !l.contains("id: \"l5_br\""))
        .map(|l| l.replace("classic 1010!", "classic but one") + "\n")
        .collect();
    let dir = std::env::temp_dir().join(format!("tenten-files-log-set-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("fewer.ron");
    std::fs::write(&file, fewer).unwrap();
    open(&mut h, file);
    h.state_mut().push(Command::NewGenerator("random"));
    h.run();
    let set = h.state().state.doc.set.clone();
    assert_eq!(set.pieces.len(), 18, "{}", set.name);
    assert!(h.state().state.doc.generator.is_some());
    h.state_mut()
        .push(Command::Load(preset("logs/casual-playtest.jsonl")));
    h.run();
    let confirm = h.state().live.confirm.clone().expect("a question first");
    assert_eq!(confirm.title, "Open the log with the classic set?");
    assert!(
        confirm
            .message
            .contains("the generator \"random\" would deal the classic set's weights"),
        "{}",
        confirm.message
    );
    h.state_mut().push(Command::DismissConfirm);
    h.run();
    let doc = &h.state().state.doc;
    assert!(doc.set == set && doc.batch.is_none() && doc.generator.is_some());
}
