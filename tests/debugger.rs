//! The search as the tree debugger sees it: the event trace of small
//! hand-made deals, the sentences that explain it, the tree rebuilt from it,
//! exhaustive exploration and the exports.

use std::sync::Arc;

use tenten_engine::io::export::{self, Extent};
use tenten_engine::model::board::{Bits, BoardSize, Lines};
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::model::shapes::Shapes;
use tenten_engine::search::explain::Context;
use tenten_engine::search::heuristic::{FMatrix, Policy};
use tenten_engine::search::trace::{Event, Exhaustive};
use tenten_engine::search::tree::{Status, Tree};
use tenten_engine::search::validator::{explore, validate, validate_traced};

fn four() -> BoardSize {
    BoardSize::new(4, 4).unwrap()
}

/// A 4x4 checkerboard with (0, 0) filled: 8 free cells, none touching.
fn checker4() -> Bits {
    (0..16)
        .filter(|i| (i % 4 + i / 4) % 2 == 0)
        .fold(0, |b, i| b | 1 << i)
}

fn setup() -> (PieceSet, Shapes) {
    let set = PieceSet::classic();
    let shapes = Shapes::new(&set, four());
    (set, shapes)
}

#[test]
fn the_trace_of_a_hand_made_unsolvable_deal() {
    let (set, shapes) = setup();
    let holder = [set.index_of("dot").unwrap(), set.index_of("h2").unwrap()];
    let (v, trace) = validate_traced(&shapes, checker4(), &holder);
    assert!(!v.solvable);
    // Order 0 (dot, h2): the dot at each free cell, row by row, and each
    // time no place for h2. Then order 1 (h2, dot): no place for h2 at all.
    let mut expected = vec![Event::Order {
        order: 0,
        slots: [0, 1, 2, 3],
    }];
    let free = [(1, 0), (3, 0), (0, 1), (2, 1), (1, 2), (3, 2), (0, 3), (2, 3)];
    for (x, y) in free {
        let board = checker4() | 1 << (y * 4 + x);
        expected.push(Event::Place {
            depth: 1,
            slot: 0,
            x,
            y,
            board,
            lines: Lines::default(),
        });
        expected.push(Event::NoFit { depth: 2, slot: 1 });
    }
    expected.push(Event::Backtrack { depth: 1 });
    expected.push(Event::Order {
        order: 1,
        slots: [1, 0, 2, 3],
    });
    expected.push(Event::NoFit { depth: 1, slot: 1 });
    expected.push(Event::Unsolvable);
    assert_eq!(trace.events, expected);
    // The fast path finds the same verdict, nodes and failures.
    let fast = validate(&shapes, checker4(), &holder);
    assert_eq!(fast, v);
}

#[test]
fn the_trace_of_a_deal_solved_by_a_clear() {
    let (set, shapes) = setup();
    // "..##" / "##.#" / "#.##" / ".##.": no full line; h2 fits first at
    // (0,0) and completes row 0, then the dot fits at (0,0).
    let cells = [2, 3, 4, 5, 7, 8, 10, 11, 13, 14];
    let board: Bits = cells.iter().fold(0, |b, i| b | 1 << i);
    let holder = [set.index_of("h2").unwrap(), set.index_of("dot").unwrap()];
    let (v, trace) = validate_traced(&shapes, board, &holder);
    assert!(v.solvable);
    assert!(v.cleared_first.is_empty());
    let after_h2 = board & !0xF;
    let lines = Lines { rows: 1, cols: 0 };
    assert_eq!(
        trace.events,
        vec![
            Event::Order {
                order: 0,
                slots: [0, 1, 2, 3]
            },
            Event::Place {
                depth: 1,
                slot: 0,
                x: 0,
                y: 0,
                board: after_h2,
                lines
            },
            Event::Place {
                depth: 2,
                slot: 1,
                x: 0,
                y: 0,
                board: after_h2 | 1,
                lines: Lines::default()
            },
            Event::Solved,
        ]
    );
}

#[test]
fn every_event_is_explained_in_the_papers_terms() {
    let (set, shapes) = setup();
    let holder = [set.index_of("dot").unwrap(), set.index_of("h2").unwrap()];
    let (_, trace) = validate_traced(&shapes, checker4(), &holder);
    let tree = Tree::build(&trace.events);
    let ctx = Context {
        set: &set,
        holder: &holder,
        events: &trace.events,
        tree: &tree,
    };
    let sentences: Vec<String> = (0..trace.events.len()).map(|i| ctx.sentence(i)).collect();
    assert_eq!(sentences[0], "1(a): adjust the holder to order 0: dot, then h2");
    assert_eq!(sentences[1], "1(b)i: put p(0,1) = dot at (1,0)");
    assert_eq!(
        sentences[2],
        "1(b)ii.C: no place for p(0,2) = h2 after placing dot at (1,0); note position 2 into unfitBlock[0]"
    );
    assert_eq!(
        sentences[17],
        "1(d): every position of p(0,1) = dot tried: order 0 fails; use the next permutation"
    );
    assert_eq!(sentences[18], "1(a): adjust the holder to order 1: h2, then dot");
    assert_eq!(
        sentences[19],
        "1(c): no place for p(1,1) = h2 on the board; note position 1 into unfitBlock[1]"
    );
    assert_eq!(
        sentences[20],
        "2: no permutation left: return FAILURE, the deal is unsolvable"
    );
    // unfitBlock fills in as the search goes.
    assert_eq!(ctx.unfit_block(1, Policy::Deepest, 2), vec![0, 0]);
    assert_eq!(ctx.unfit_block(2, Policy::Deepest, 2), vec![2, 0]);
    assert_eq!(ctx.unfit_block(20, Policy::Deepest, 2), vec![2, 1]);
}

#[test]
fn f_by_policy_matches_equation_4_by_hand() {
    let (set, shapes) = setup();
    let holder = [set.index_of("dot").unwrap(), set.index_of("h2").unwrap()];
    let v = validate(&shapes, checker4(), &holder);
    // Order 0 (dot, h2): 8 failures of h2 at position 2; order 1 (h2, dot):
    // one failure of h2 at position 1.
    // deepest/last: fail(b2, 0) = 5 * 2, fail(b2, 1) = 5 * 1.
    for policy in [Policy::Deepest, Policy::Last] {
        let f = FMatrix::new(&v, policy);
        assert_eq!(f.fail, vec![0, 0, 10, 5], "{policy}");
        assert_eq!(f.chosen, 1);
    }
    // frequency: 8 failures * 5 * 2 + 1 * 5 * 1.
    let f = FMatrix::new(&v, Policy::Frequency);
    assert_eq!(f.fail, vec![0, 0, 80, 5]);
    assert_eq!(f.row_sums, vec![0, 85]);
}

#[test]
fn the_tree_has_the_shape_of_fig_3() {
    let (set, shapes) = setup();
    let holder = [set.index_of("dot").unwrap(), set.index_of("h2").unwrap()];
    let (_, trace) = validate_traced(&shapes, checker4(), &holder);
    let tree = Tree::build(&trace.events);
    let orders: Vec<u32> = tree.children(Tree::ROOT).collect();
    assert_eq!(orders.len(), 2);
    let positions: Vec<u32> = tree.children(orders[0]).collect();
    assert_eq!(positions.len(), 8, "an OR over the dot's 8 positions");
    for &p in &positions {
        let leaf: Vec<u32> = tree.children(p).collect();
        assert_eq!(leaf.len(), 1, "each placement leaves one failing AND child");
        assert_eq!(
            tree.status(leaf[0], &trace.events, trace.events.len() - 1),
            Status::Failed
        );
    }
    let last = trace.events.len() - 1;
    assert_eq!(tree.status(orders[1], &trace.events, 0), Status::Unexplored);
    assert_eq!(tree.status(orders[0], &trace.events, 3), Status::InProgress);
    assert_eq!(tree.status(orders[0], &trace.events, last), Status::Failed);
    assert_eq!(tree.node(orders[0]).fails, [0, 8, 0, 0]);
    assert_eq!(tree.node(Tree::ROOT).fails, [1, 8, 0, 0]);
}

fn exhaustive(budget: u64) -> Exhaustive {
    Exhaustive::new(budget, Arc::default())
}

#[test]
fn exhaustive_mode_counts_every_solution_and_the_branching() {
    let (set, shapes) = setup();
    let dot = set.index_of("dot").unwrap();
    let h2 = set.index_of("h2").unwrap();
    // Two dots on an empty 4x4 board: orders (dot, dot) once, the repeat pruned;
    // 16 first positions, 15 second positions each.
    let e = explore(&shapes, 0, &[dot, dot], &mut exhaustive(2_000_000));
    assert!(e.complete);
    assert_eq!(e.solutions, 16 * 15);
    assert_eq!(e.branching(), vec![16.0, 15.0]);
    assert_eq!(e.trace.events.last(), Some(&Event::Solved));
    let tree = Tree::build(&e.trace.events);
    assert_eq!(tree.len(), 1 + 2 + 16 + 16 * 15);
    // A dot and an h2: 12 h2 spots; after a dot the h2 has fewer.
    let e = explore(&shapes, 0, &[h2, dot], &mut exhaustive(2_000_000));
    assert_eq!(e.validation.nodes_per_depth[0], 12 + 16);
    // The budget stops it, and says so.
    let e = explore(&shapes, 0, &[dot, dot], &mut exhaustive(50));
    assert!(!e.complete);
    assert_eq!(e.trace.events.last(), Some(&Event::Stopped));
    assert!(e.validation.nodes <= 50);
}

/// A capped trace keeps its beginning, ends as a stopped search, and the
/// failure counts still cover the whole run: they equal the counts of an
/// uncapped run of the same deal.
#[test]
fn a_capped_trace_bounds_memory_and_keeps_whole_run_counts() {
    let (set, shapes) = setup();
    let holder = [set.index_of("dot").unwrap(), set.index_of("h2").unwrap()];
    let mut full = exhaustive(2_000_000);
    let whole = explore(&shapes, checker4(), &holder, &mut full);
    let tree = Tree::build(&whole.trace.events);
    let root = tree.node(Tree::ROOT).fails;
    assert_eq!(full.fails_by_depth[..2], [u64::from(root[0]), u64::from(root[1])]);
    assert_eq!(
        full.fails_by_depth[..2].iter().sum::<u64>(),
        full.fails_by_order.iter().sum::<u64>()
    );
    assert_eq!(full.dropped, 0);

    let mut capped = exhaustive(2_000_000);
    capped.trace_limit = 10;
    let part = explore(&shapes, checker4(), &holder, &mut capped);
    assert_eq!(part.trace.events.len(), 10);
    assert_eq!(part.trace.events[..9], whole.trace.events[..9]);
    assert_eq!(part.trace.events.last(), Some(&Event::Stopped));
    assert_eq!(capped.dropped as usize, whole.trace.events.len() - 9);
    assert_eq!(capped.fails_by_depth, full.fails_by_depth);
    assert_eq!(capped.fails_by_order, full.fails_by_order);
    assert_eq!(part.validation.nodes, whole.validation.nodes);
    // The debugger's tree still builds on the kept part.
    assert!(Tree::build(&part.trace.events).len() > 1);
}

#[test]
fn exports_name_every_node() {
    let (set, shapes) = setup();
    let holder = [set.index_of("dot").unwrap(), set.index_of("h2").unwrap()];
    let (v, trace) = validate_traced(&shapes, checker4(), &holder);
    let tree = Tree::build(&trace.events);
    let dot = export::dot(&tree, &trace.events, &set, &holder, Extent::levels(3));
    assert!(dot.starts_with("digraph andor {"));
    assert_eq!(dot.matches(" -> ").count(), tree.len() - 1);
    assert!(dot.contains("order 1: h2, dot"));
    assert!(dot.contains("dot b(0,0) at (1,0)"));
    let shallow = export::dot(&tree, &trace.events, &set, &holder, Extent::levels(1));
    assert_eq!(shallow.matches(" -> ").count(), 2, "down to the orders only");
    let svg = export::svg(&tree, &trace.events, &set, &holder, Extent::levels(3));
    assert!(svg.starts_with("<svg"));
    assert_eq!(svg.matches("<rect").count(), tree.len());
    // Folding: at most 3 children per node, the rest one "+ N more" box. The
    // dot has 8 places on the checkerboard: 5 fold.
    let widest = (0..tree.len() as u32)
        .map(|n| tree.children(n).count())
        .max()
        .unwrap();
    assert_eq!(widest, 8);
    let folded = export::svg(
        &tree,
        &trace.events,
        &set,
        &holder,
        Extent {
            max_level: 3,
            max_children: 3,
        },
    );
    assert!(folded.contains("+ 5 more"), "{folded}");
    assert!(folded.matches("<rect").count() < tree.len());
    let width = |svg: &str| -> f64 {
        let at = svg.find("width=\"").unwrap() + 7;
        svg[at..at + svg[at..].find('"').unwrap()].parse().unwrap()
    };
    assert!(width(&folded) < width(&svg), "folding narrows the drawing");
    let dot_folded = export::dot(
        &tree,
        &trace.events,
        &set,
        &holder,
        Extent {
            max_level: 3,
            max_children: 3,
        },
    );
    assert!(dot_folded.contains("+ 5 more"));
    let csv = export::f_csv(&FMatrix::new(&v, Policy::Frequency), &set, &holder);
    assert_eq!(csv.lines().nth(2), Some("b2,h2,80,5,85,true"));
}
