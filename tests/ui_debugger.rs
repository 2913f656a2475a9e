//! The AND-OR tree debugger and the heuristic tab, driven from the keyboard
//! and mouse with egui_kittest.

mod common;

use egui::Key;
use egui_kittest::kittest::Queryable;
use egui_kittest::{Harness, SnapshotOptions};
use tenten::app::App;
use tenten::app::shell::command::Command;

use common::ui::open_deal;

/// The window with the preset `deal` open.
fn harness(deal: &str) -> Harness<'static, App> {
    let mut h = common::ui::harness();
    open_deal(&mut h, deal);
    h
}

fn open_tab(h: &mut Harness<'static, App>, title: &str) {
    h.get_by_label(title).click();
    h.run();
}

fn press(h: &mut Harness<'static, App>, key: Key) {
    h.key_press(key);
    h.run();
}

/// The policies-disagree preset: v3, h5, v5 on a crowded board, 22 nodes.
const DEAL: &str = "unsolvable-policies-disagree.ron";

#[test]
fn stepping_explains_each_event_and_steps_back() {
    let mut h = harness(DEAL);
    open_tab(&mut h, "AND-OR tree");
    let expected = [
        "1(a): adjust the holder to order 0: v3, then h5, then v5",
        "1(b)i: put p(0,1) = v3 at (0,0)",
        "1(b)ii.A: put p(0,2) = h5 at (5,9) after placing v3 at (0,0)",
        "1(b)ii.C: no place for p(0,3) = v5 after placing v3 at (0,0) and h5 at (5,9); note position 3 into unfitBlock[0]",
        "1(b)iv: every position of p(0,2) = h5 tried: move the location of p(0,1) = v3",
    ];
    h.get_by_label(expected[0]);
    for sentence in &expected[1..] {
        press(&mut h, Key::F11);
        h.get_by_label(sentence);
    }
    h.get_by_label_contains("unfitBlock (deepest) = [3,");
    // Mid-walk, the root's counts are those so far, and say so.
    h.get_by_label_contains("root (OR over orders)  [so far: 1 tried, 0/0/1]");
    // F9 steps back to the previous event.
    press(&mut h, Key::F9);
    h.get_by_label(expected[3]);
    press(&mut h, Key::F9);
    h.get_by_label(expected[2]);
    // The board shows the node: v3 then h5 in sequence colours.
    let board = h
        .state()
        .live
        .debug_board
        .clone()
        .expect("the board follows the debugger");
    assert_eq!(board.placed.len(), 2);
    // Shift+F5 goes back to the start, F5 runs to the end.
    h.key_press_modifiers(egui::Modifiers::SHIFT, Key::F5);
    h.run();
    h.get_by_label(expected[0]);
    press(&mut h, Key::F5);
    h.get_by_label("2: no permutation left: return FAILURE, the deal is unsolvable");
    // At the end, the whole search's counts, without "so far".
    h.get_by_label_contains("root (OR over orders)  [6 tried; failures 0/4/10]");
}

#[test]
fn step_over_and_out_skip_subtrees() {
    let mut h = harness(DEAL);
    open_tab(&mut h, "AND-OR tree");
    press(&mut h, Key::F11); // v3 at (0,0)
    press(&mut h, Key::F10); // over its subtree: the next v3 position
    h.get_by_label("1(b)i: put p(0,1) = v3 at (0,1)");
    h.key_press_modifiers(egui::Modifiers::SHIFT, Key::F11); // out of order 0
    h.run();
    h.get_by_label("1(a): adjust the holder to order 1: v3, then v5, then h5");
    press(&mut h, Key::F8); // the next failure
    h.get_by_label_contains("no place for");
}

#[test]
fn switching_the_policy_moves_the_argmax() {
    // By hand, from equation (4) on this deal's unfitBlock:
    // deepest: ub = [3,3,3,3,3,3]; row sums v3 30, h5 30, v5 30: tie, b1.
    // last: order 0 last fails at position 2 (h5): h5 40, v3 30, v5 15: b2.
    // frequency: v5 fails 3 times in order 0 and twice in orders 1, 2: v5 120: b3.
    let mut h = harness(DEAL);
    open_tab(&mut h, "Heuristic F");
    h.get_by_label_contains("The changer replaces b1 = v3 (row sum 30)");
    h.get_by_label("last").click();
    h.run();
    h.get_by_label_contains("The changer replaces b2 = h5 (row sum 40)");
    h.get_by_label("frequency").click();
    h.run();
    h.get_by_label_contains("The changer replaces b3 = v5 (row sum 120)");
    h.get_by_label("deepest").click();
    h.run();
    h.get_by_label_contains("The changer replaces b1 = v3");
}

#[test]
fn an_attempt_of_the_history_replays_in_the_tree_tab() {
    let mut h = harness(DEAL);
    h.state_mut().push(Command::Repair);
    h.run();
    common::ui::step_until(&mut h, "the repair's end", |a| a.live.repair.is_some());
    h.run();
    open_tab(&mut h, "Heuristic F");
    h.get_by_label_contains("0 dealt: v3,h5,v5 unsolvable").click();
    h.run();
    assert_eq!(h.state().state.settings.inspector_tab, 1, "the tree tab opens");
    h.get_by_label("Replaying a holder from the changer's history");
    h.get_by_label("Back to the live deal").click();
    h.run();
    assert!(h.state().live.replay.is_none());
}

#[test]
fn exhaustive_mode_counts_solutions_on_a_thread() {
    let mut h = harness("solvable-order-matters.ron");
    open_tab(&mut h, "AND-OR tree");
    h.get_by_label("Exhaustive mode").click();
    h.run();
    h.get_by_label("Explore the whole tree").click();
    for _ in 0..2000 {
        h.step();
        if h.query_by_label_contains("branching factor").is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    h.run();
    h.get_by_label_contains("branching factor at positions 1..3");
    h.get_by_label_contains("complete");
    h.get_by_label_contains("(exhaustive)");
}

#[test]
fn snapshot_tree_tab() {
    let mut h = harness(DEAL);
    open_tab(&mut h, "AND-OR tree");
    for _ in 0..4 {
        press(&mut h, Key::F11);
    }
    h.remove_cursor();
    // Past the short flash of cleared lines, so the picture is steady, and
    // with the danger panel's figures in.
    h.run_steps(8);
    for _ in 0..2000 {
        h.step();
        if h.state().live.danger.settled(&h.state().state) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    h.run();
    common::ui::mask_times(&mut h);
    h.snapshot_options(
        "tree_tab",
        &SnapshotOptions::new().threshold(1.2).max_failed_pixels(400),
    );
}

#[test]
fn the_whole_walk_works_from_the_keyboard() {
    let mut h = harness(DEAL);
    let alt = egui::Modifiers::ALT;
    h.key_press_modifiers(alt, Key::Num2);
    h.run();
    assert_eq!(h.state().state.settings.inspector_tab, 1);
    press(&mut h, Key::F11);
    press(&mut h, Key::F11);
    h.get_by_label("1(b)ii.A: put p(0,2) = h5 at (5,9) after placing v3 at (0,0)");
    press(&mut h, Key::F9);
    h.get_by_label("1(b)i: put p(0,1) = v3 at (0,0)");
    h.key_press_modifiers(alt, Key::Num3);
    h.run();
    h.get_by_label_contains("The changer replaces b1 = v3");
    for expected in ["b2 = h5", "b3 = v5", "b1 = v3"] {
        h.key_press_modifiers(alt, Key::P);
        h.run();
        h.get_by_label_contains(&format!("The changer replaces {expected}"));
    }
}

/// Under the frequency policy the tab prints equation (4) as that policy
/// reads it, so F's sums do not contradict the equation above them.
#[test]
fn the_frequency_policy_shows_its_reading_of_equation_4() {
    use tenten_engine::search::heuristic::Policy;
    let mut h = harness(DEAL);
    open_tab(&mut h, "Heuristic F");
    assert!(h.query_by_label("as the frequency policy reads it").is_none());
    h.state_mut().push(Command::SetPolicy(Policy::Frequency));
    h.run();
    h.get_by_label("as the frequency policy reads it");
    h.get_by_label_contains("n(j,d): failures noted at position d of order j");
    // The unfitBlock labels are body text now, not the 7 px small style.
    let ub = h.get_all_by_label_contains("ub ").next().expect("an ub label");
    assert!(ub.rect().height() >= 12.0, "{:?}", ub.rect());
}
