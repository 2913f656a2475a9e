//! A file means the same thing in the window as in the CLI: a deal without a
//! `pieces:` line is a classic-set deal, whatever set the window had before,
//! and the status bar names the set a file opened with.

mod common;

use common::ui::{harness, open, open_deal, preset, temp_copy};
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
fn opening_a_file_over_an_edited_set_says_so_and_undo_brings_the_edits_back() {
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
