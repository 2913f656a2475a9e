//! Saves that write what the user meant, in the window: the in-window file
//! dialog asks before replacing a file; a generator and a batch saved into
//! another folder keep naming their piece set; opening a file that changes
//! the weights makes the generator let go of its file; a file changed on
//! disk since it was read is not overwritten without asking; a save whose
//! document was closed says nothing was saved.

mod common;

use std::path::{Path, PathBuf};

use egui_kittest::kittest::Queryable;
use tenten::app::shell::command::Command;
use tenten::app::shell::dialogs::Purpose;
use tenten_engine::io::formats;
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::play::generator_file;

/// A fresh folder with `pieces/x.ron` (the classic set with sq3 at 40) and
/// `gens/g.ron` naming it.
fn custom_set(tag: &str) -> (PathBuf, PathBuf, PathBuf) {
    let root = common::cli::scratch(tag);
    std::fs::create_dir_all(root.join("pieces")).unwrap();
    std::fs::create_dir_all(root.join("gens")).unwrap();
    let mut set = PieceSet::classic();
    set.name = "x".to_owned();
    let sq3 = set.index_of("sq3").unwrap();
    set.pieces[usize::from(sq3)].weight = 40;
    let pieces = root.join("pieces/x.ron");
    std::fs::write(&pieces, formats::piece_set_to_ron(&set)).unwrap();
    let generator = root.join("gens/g.ron");
    std::fs::write(
        &generator,
        "(name: \"g\", pieces: \"../pieces/x.ron\", repeat_previous: 0.1, check: none)\n",
    )
    .unwrap();
    (root, pieces, generator)
}

fn weights(set: &PieceSet) -> Vec<u32> {
    set.weights()
}

#[test]
fn the_window_dialog_asks_before_replacing_a_file() {
    tenten::app::use_window_dialogs();
    let mut h = common::ui::harness_for_file_dialogs();
    let copy = common::ui::temp_copy("deals/mid-game.ron", "replace");
    let before = std::fs::read_to_string(&copy).unwrap();
    let folder = copy.parent().unwrap().to_path_buf();
    h.state_mut().push(Command::ClearBoard);
    h.state_mut().push(Command::SaveAs);
    h.run();
    common::ui::dialog_in(&mut h, &folder);
    // A double-click on the file confirms the dialog at once.
    let file = h.get_by_label_contains("mid-game.ron");
    file.click();
    file.click();
    h.run();
    if h.state().live.file_dialog.is_some() {
        // Not taken as a double-click here: Save with the file chosen is
        // the same answer.
        h.get_by_label("Save").click();
        h.run();
    }
    assert!(h.state().live.file_dialog.is_none());
    assert_eq!(
        std::fs::read_to_string(&copy).unwrap(),
        before,
        "nothing written yet"
    );
    h.get_by_label("Replace mid-game.ron?");
    h.get_by_label("Cancel").click();
    h.run();
    assert!(h.state().live.confirm.is_none());
    assert_eq!(
        std::fs::read_to_string(&copy).unwrap(),
        before,
        "cancelled: nothing written"
    );
    // Asked again, and answered Replace: written.
    h.state_mut().push(Command::SaveAs);
    h.run();
    common::ui::dialog_in(&mut h, &folder);
    h.get_by_label_contains("mid-game.ron").click();
    h.run();
    h.get_by_label("Save").click();
    h.run();
    h.get_by_label("Replace").click();
    h.run();
    assert_ne!(std::fs::read_to_string(&copy).unwrap(), before);
}

/// A generator opened with its own piece set, saved into another folder,
/// opens again with the same set and weights (it used to write the
/// previous set's reference, or none, and no longer opened).
#[test]
fn a_generator_saved_elsewhere_keeps_its_piece_set() {
    let (root, _, generator) = custom_set("gen-ref");
    let mut h = common::ui::harness();
    h.state_mut().push(Command::LoadGenerator(generator.clone()));
    h.run();
    assert!(h.state().live.error.is_none(), "{:?}", h.state().live.error);
    let shown = h.state().state.doc.set.clone();
    assert_eq!(shown.piece(shown.index_of("sq3").unwrap()).weight, 40);
    assert!(!h.state().state.doc.generator_modified());
    let elsewhere = root.join("out/deeper/h.ron");
    std::fs::create_dir_all(elsewhere.parent().unwrap()).unwrap();
    h.state_mut().push(Command::SaveTo {
        purpose: Purpose::SaveGenerator,
        path: elsewhere.clone(),
    });
    h.run();
    let text = std::fs::read_to_string(&elsewhere).unwrap();
    assert!(text.contains("\"../../pieces/x.ron\""), "{text}");
    let back = generator_file::load(&elsewhere, &PieceSet::classic()).unwrap();
    assert_eq!(weights(&back.set), weights(&shown));
    assert_eq!(back.file.repeat_previous, 0.1);
}

/// The case: a generator with its own weights, then a playtest log
/// (the classic set) opened. The weights in force are the log's, so the
/// generator shows it is modified and lets go of its file: Save asks where
/// instead of writing the classic weights into it.
#[test]
fn opening_a_file_that_changes_the_weights_lets_the_generator_go_of_its_file() {
    let (_root, _, generator) = custom_set("gen-log");
    let before = std::fs::read_to_string(&generator).unwrap();
    // Save asks where: a file dialog may open (egui_file's lacks names).
    let mut h = common::ui::harness_for_file_dialogs();
    h.state_mut().push(Command::LoadGenerator(generator.clone()));
    h.run();
    common::ui::open(&mut h, common::ui::preset("logs/casual-playtest.ron"));
    let doc = &h.state().state.doc;
    assert_eq!(weights(&doc.set), weights(&PieceSet::classic()));
    assert!(doc.generator.is_some());
    assert!(
        doc.generator_modified(),
        "the weights in force are not the file's"
    );
    assert_eq!(doc.generator_path, None);
    assert!(
        h.state().live.status.contains("let go of g.ron"),
        "{}",
        h.state().live.status
    );
    h.state_mut().push(Command::SaveGenerator);
    h.run();
    assert_eq!(
        std::fs::read_to_string(&generator).unwrap(),
        before,
        "g.ron untouched"
    );
    h.state_mut().live.file_dialog = None;
    // Undo brings the generator back with its file.
    h.state_mut().push(Command::Undo);
    h.run();
    assert_eq!(
        h.state().state.doc.generator_path.as_deref(),
        Some(generator.as_path())
    );
    assert!(!h.state().state.doc.generator_modified());
}

/// A batch whose deals name their piece set, saved into another folder:
/// every deal's reference is written from there (untouched deals used to
/// keep their old relative paths byte for byte).
#[test]
fn a_batch_saved_into_another_folder_keeps_its_references() {
    let (root, pieces, _) = custom_set("batch-ref");
    std::fs::create_dir_all(root.join("deals")).unwrap();
    let set = formats::load_piece_set(&pieces).unwrap();
    let deal = |sq: &str| {
        formats::deal_to_ron(
            &tenten_engine::model::board::Board::empty(tenten_engine::model::board::BoardSize::CLASSIC),
            &[set.index_of(sq).unwrap()],
            &set,
            Some("../pieces/x.ron"),
            None,
        )
    };
    let batch = root.join("deals/b.ron");
    std::fs::write(
        &batch,
        tenten_engine::io::batch_file::batch_to_ron(&[deal("sq3"), deal("dot"), deal("h2")], "three"),
    )
    .unwrap();
    let mut h = common::ui::harness();
    common::ui::open(&mut h, batch.clone());
    assert!(h.state().state.doc.batch.is_some());
    let elsewhere = root.join("out/b2.ron");
    std::fs::create_dir_all(elsewhere.parent().unwrap()).unwrap();
    h.state_mut().push(Command::SaveTo {
        purpose: Purpose::SaveDeal { batch: true },
        path: elsewhere.clone(),
    });
    h.run();
    assert!(h.state().live.error.is_none(), "{:?}", h.state().live.error);
    let text = std::fs::read_to_string(&elsewhere).unwrap();
    let raws = formats::parse_deals(&text, "b2.ron").unwrap();
    assert_eq!(raws.len(), 3);
    for r in &raws {
        let p = r.pieces.as_deref().unwrap();
        let (back, _) = formats::load_pieces_of(&elsewhere, p).unwrap();
        assert_eq!(weights(&back), weights(&set), "{p}");
    }
    assert!(text.contains("three"), "the batch's comment is kept");
}

/// The file was changed by another program since it was opened: Save asks
/// (overwrite, reload, save elsewhere) and writes only on Overwrite.
#[test]
fn a_file_changed_on_disk_is_not_overwritten_without_asking() {
    let copy = common::ui::temp_copy("deals/mid-game.ron", "changed");
    let mut h = common::ui::harness();
    common::ui::open(&mut h, copy.clone());
    h.state_mut().push(Command::ClearBoard);
    h.run();
    let theirs = std::fs::read_to_string(&copy).unwrap() + "\n// edited elsewhere\n";
    std::fs::write(&copy, &theirs).unwrap();
    h.state_mut().push(Command::Save);
    h.run();
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), theirs, "not written yet");
    h.get_by_label("The file changed on disk");
    h.get_by_label("Reload it");
    h.get_by_label("Save elsewhere…");
    h.get_by_label("Overwrite").click();
    h.run();
    assert_ne!(std::fs::read_to_string(&copy).unwrap(), theirs);
    assert!(h.state().live.confirm.is_none());
    // Saved here: the next Save writes without asking.
    h.state_mut().push(Command::Save);
    h.run();
    assert!(h.state().live.confirm.is_none());
}

/// The generator was closed while its Save dialog was open: nothing is
/// written, and the window says so.
#[test]
fn a_save_that_did_nothing_says_so() {
    let mut h = common::ui::harness();
    let path: &Path = &std::env::temp_dir().join(format!("tenten-nothing-{}.ron", std::process::id()));
    h.state_mut().push(Command::SaveTo {
        purpose: Purpose::SaveGenerator,
        path: path.to_path_buf(),
    });
    h.run();
    let e = h.state().live.error.clone().unwrap_or_default();
    assert!(
        e.contains("Nothing was saved") && e.contains("the generator was closed"),
        "{e}"
    );
    assert!(!path.exists());
}

/// A deal naming its piece set, saved into another folder, opens again
/// with the same set and weights.
#[test]
fn a_deal_saved_elsewhere_keeps_its_piece_set() {
    let (root, pieces, _) = custom_set("deal-ref");
    let set = formats::load_piece_set(&pieces).unwrap();
    std::fs::create_dir_all(root.join("deals")).unwrap();
    let deal = root.join("deals/d.ron");
    std::fs::write(
        &deal,
        formats::deal_to_ron(
            &tenten_engine::model::board::Board::empty(tenten_engine::model::board::BoardSize::CLASSIC),
            &[set.index_of("sq3").unwrap()],
            &set,
            Some("../pieces/x.ron"),
            None,
        ),
    )
    .unwrap();
    let mut h = common::ui::harness();
    common::ui::open(&mut h, deal);
    let elsewhere = root.join("a/b/c/d2.ron");
    std::fs::create_dir_all(elsewhere.parent().unwrap()).unwrap();
    h.state_mut().push(Command::SaveTo {
        purpose: Purpose::SaveDeal { batch: false },
        path: elsewhere.clone(),
    });
    h.run();
    let text = std::fs::read_to_string(&elsewhere).unwrap();
    let raw = &formats::parse_deals(&text, "d2.ron").unwrap()[0];
    let (back, _) = formats::load_pieces_of(&elsewhere, raw.pieces.as_deref().unwrap()).unwrap();
    assert_eq!(weights(&back), weights(&set));
}
