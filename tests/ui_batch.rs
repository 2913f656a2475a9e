//! The deal browser as a designer uses it: open a playtest log, filter the
//! unsolvable deals, walk them from the keyboard, fix one, add a painted
//! deal, save, and reopen with nothing lost.

mod common;

use std::path::{Path, PathBuf};

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use tenten::app::App;
use tenten::app::shell::command::Command;
use tenten::app::shell::state::State;
use tenten_engine::io::batch::{Filter, SortKey, Verdict};
use tenten_engine::model::board::Cell;

use common::ui::{harness_built, step_until, temp_copy};

/// The window as on first launch; judging's spinner may repaint a while.
fn harness() -> Harness<'static, App> {
    harness_built(App::new(State::default()), [1400.0, 880.0], 64)
}

/// A copy of the preset deal `name` in a fresh temporary folder.
fn copy_of(name: &str, tag: &str) -> PathBuf {
    temp_copy(&format!("deals/{name}"), tag)
}

fn open(h: &mut Harness<'static, App>, path: &Path) {
    common::ui::open(h, path.to_path_buf());
}

fn wait_until_judged(h: &mut Harness<'static, App>) {
    step_until(h, "the batch's judging", |a| {
        let n = a.state.doc.batch.as_ref().map_or(0, |b| b.len());
        a.live.deals.settled(n)
    });
}

fn key(h: &mut Harness<'static, App>, modifiers: Modifiers, k: Key) {
    h.key_press_modifiers(modifiers, k);
    h.run();
}

fn pos(h: &Harness<'static, App>) -> usize {
    h.state().state.doc.batch.as_ref().unwrap().pos
}

#[test]
fn a_playtest_log_is_filtered_walked_fixed_extended_saved_and_reopened() {
    let path = copy_of("playtest-1000.ron", "browse");
    let mut h = harness();
    open(&mut h, &path);
    assert_eq!(h.state().state.settings.inspector_tab, 4, "the Deals tab opens");
    wait_until_judged(&mut h);
    let counts = h.state().live.deals.counts().clone();
    assert_eq!(
        counts[&Verdict::Solvable]
            + counts.get(&Verdict::Unsolvable).unwrap_or(&0)
            + counts.get(&Verdict::Dead).unwrap_or(&0),
        1000
    );
    let unsolvable = counts[&Verdict::Unsolvable];
    assert!(unsolvable > 10, "{unsolvable} unsolvable deals");

    // Filter the unsolvable ones with one click and walk them.
    h.get_by_label(&format!("unsolvable {unsolvable}")).click();
    h.run();
    assert_eq!(h.state().live.deals.filter, Filter::Only(Verdict::Unsolvable));
    let rows = h.state().live.deals.rows().to_vec();
    assert_eq!(rows.len(), unsolvable);
    key(&mut h, Modifiers::COMMAND, Key::PageDown);
    assert_eq!(pos(&h), rows[0], "from deal 0 (not in the list) to the first row");
    for &want in &rows[1..4] {
        key(&mut h, Modifiers::COMMAND, Key::PageDown);
        assert_eq!(pos(&h), want);
        // The deal on screen is that deal, and it is unsolvable.
        let verdict = h.state().live.verdict.as_ref().unwrap();
        assert!(!verdict.validation.solvable);
    }
    key(&mut h, Modifiers::COMMAND, Key::PageUp);
    assert_eq!(pos(&h), rows[2]);

    // Fix it from the Deals tab: repair and apply. The row is marked modified.
    let fixed = pos(&h);
    assert_eq!(h.state().state.settings.inspector_tab, 4, "the Deals tab is open");
    h.get_by_label("Repair this deal").click();
    h.run();
    step_until(&mut h, "the repair", |a| a.live.repair.is_some());
    h.get_by_label("Apply the repaired holder").click();
    h.run();
    h.get_by_label_contains("Repaired and applied");
    let repaired = h.state().state.doc.holder();
    assert!(h.state().live.verdict.as_ref().unwrap().validation.solvable);
    let current = h.state().state.doc.current_deal();
    assert!(
        h.state()
            .state
            .doc
            .batch
            .as_ref()
            .unwrap()
            .is_modified(fixed, &current)
    );

    // Undo takes the fix back; redo brings it again.
    h.state_mut().push(Command::Undo);
    h.run();
    assert_ne!(h.state().state.doc.holder(), repaired);
    h.state_mut().push(Command::Redo);
    h.run();
    assert_eq!(h.state().state.doc.holder(), repaired);

    // The fixed deal has left the "unsolvable" list, yet the walk keeps its
    // place: the next is the row after it, the previous the row before.
    assert!(!h.state().live.deals.rows().contains(&fixed));
    key(&mut h, Modifiers::COMMAND, Key::PageDown);
    assert_eq!(pos(&h), rows[3], "the deal after the fixed one, not the first");
    h.state_mut().push(Command::SelectDeal(fixed));
    h.run();
    key(&mut h, Modifiers::COMMAND, Key::PageUp);
    assert_eq!(pos(&h), rows[1], "the deal before the fixed one, not the last");
    key(&mut h, Modifiers::COMMAND, Key::PageDown);
    assert_eq!(pos(&h), rows[3]);

    // Walk away (the fix stays in the batch), then paint and add a deal.
    assert_ne!(pos(&h), fixed);
    h.state_mut().push(Command::ClearBoard);
    h.state_mut().push(Command::Paint {
        x: 0,
        y: 0,
        cell: Cell::Painted,
        stroke: 77,
    });
    h.run();
    key(&mut h, Modifiers::COMMAND, Key::B);
    assert_eq!(h.state().state.doc.batch.as_ref().unwrap().len(), 1001);
    let added = h.state().state.doc.current_deal();

    // Save writes the whole batch; reopening loses nothing.
    let before = std::fs::read_to_string(&path).unwrap();
    key(&mut h, Modifiers::COMMAND, Key::S);
    assert!(h.state().live.error.is_none(), "{:?}", h.state().live.error);
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(
        after.starts_with("// 1000 deals met in self-play"),
        "the comments stay"
    );
    assert_ne!(before, after);

    let mut again = harness();
    open(&mut again, &path);
    let b = again.state().state.doc.batch.as_ref().unwrap();
    assert_eq!(b.len(), 1001);
    assert!(b.source.bad.is_empty());
    assert_eq!(b.original(fixed).unwrap().holder, repaired, "the fix was saved");
    assert_eq!(
        b.original(1000).unwrap().board,
        added.board,
        "the added deal was saved"
    );
    std::fs::remove_dir_all(path.parent().unwrap()).ok();
}

#[test]
fn a_batch_with_bad_deals_opens_the_good_ones_and_lists_the_bad() {
    let dir = std::env::temp_dir().join(format!("tenten-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("mixed.ron");
    std::fs::write(
        &path,
        "[\n  (board: [\"....\", \"....\", \"....\", \"....\"], holder: [\"sq2\"]),\n  (board: [\"....\", \"....\", \"....\", \"....\"], holder: [\"nope\"]),\n  (board: [\"...\", \"....\", \"....\", \"....\"], holder: [\"dot\"]),\n  (board: [\"#...\", \"....\", \"....\", \"....\"], holder: [\"dot\"]),\n]\n",
    )
    .unwrap();
    let mut h = harness();
    let before = h.state().state.doc.clone();
    // A file that is not a deal list at all changes nothing.
    let broken = dir.join("broken.ron");
    std::fs::write(&broken, "[ (board: [\"..\"], ").unwrap();
    h.state_mut().push(Command::Load(broken));
    h.run();
    assert!(h.state().live.error.is_some());
    assert_eq!(h.state().state.doc, before);
    h.state_mut().push(Command::DismissError);
    open(&mut h, &path);
    let b = h.state().state.doc.batch.as_ref().unwrap();
    assert_eq!(b.len(), 2);
    assert_eq!(
        b.source.entries.iter().map(|e| e.index).collect::<Vec<_>>(),
        [0, 3]
    );
    assert_eq!(b.source.bad.len(), 2);
    assert!(b.source.bad[0].contains("mixed.ron:3:"), "{}", b.source.bad[0]);
    assert!(b.source.bad[1].contains("mixed.ron:4:"), "{}", b.source.bad[1]);
    h.get_by_label("2 deals could not be read");
    h.state_mut().push(Command::SetDealsView {
        filter: Filter::All,
        sort: SortKey::Index,
        descending: true,
    });
    h.run();
    wait_until_judged(&mut h);
    assert_eq!(h.state().live.deals.rows(), [1, 0]);
    std::fs::remove_dir_all(dir).ok();
}

/// After a restart the batch is not open any more, but the window still
/// names its file: Save must not guess which deal the one on screen is.
#[test]
fn save_without_the_batch_open_never_rewrites_the_batch_file() {
    tenten::app::disable_dialogs();
    let path = copy_of("teaching-batch.ron", "restart");
    let mut h = harness();
    open(&mut h, &path);
    h.state_mut().push(Command::SelectDeal(3));
    h.run();
    let mut state = h.state().state.clone();
    state.doc.batch = None; // as after a restart: not persisted
    let before = std::fs::read_to_string(&path).unwrap();
    let mut again = harness_built(App::new(state), [1400.0, 880.0], 64);
    again.state_mut().push(Command::Save);
    again.run();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    std::fs::remove_dir_all(path.parent().unwrap()).ok();
}

/// A large log is read on a thread: the window answers meanwhile, and the
/// batch opens when it is read.
#[test]
fn a_large_batch_is_read_without_blocking_the_window() {
    use tenten_engine::model::board::{Board, BoardSize};
    use tenten_engine::model::generator::Generator;
    use tenten_engine::model::pieces::PieceSet;
    use tenten_engine::model::shapes::Shapes;
    let set = PieceSet::classic();
    let shapes = Shapes::new(&set, BoardSize::CLASSIC);
    let deals =
        tenten_engine::play::random_fill::played_deals(&shapes, &set, 3, 3000, &mut Generator::new(4));
    let texts: Vec<String> = deals
        .iter()
        .map(|d| {
            tenten_engine::io::formats::deal_to_ron(
                &Board::from_bits(BoardSize::CLASSIC, d.board),
                &d.holder,
                &set,
                None,
                None,
            )
        })
        .collect();
    let dir = std::env::temp_dir().join(format!("tenten-large-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("large.ron");
    std::fs::write(
        &path,
        tenten_engine::io::batch_file::batch_to_ron(&texts, "3000 deals"),
    )
    .unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() > 1 << 20);
    let mut h = harness();
    h.state_mut().push(Command::Load(path.clone()));
    h.step();
    assert!(
        h.state().live.status.starts_with("Reading large.ron"),
        "{}",
        h.state().live.status
    );
    for _ in 0..2000 {
        h.step();
        if h.state().state.doc.batch.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(h.state().state.doc.batch.as_ref().map(|b| b.len()), Some(3000));
    std::fs::remove_dir_all(dir).ok();
}
