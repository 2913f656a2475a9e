//! The validator is complete: it never calls a solvable deal unsolvable.
//! Checked against a plain brute-force search (cell grids, every order, every
//! position, every row and column scanned after every placement) on random
//! boards of every allowed size and holders of 1 to 4 pieces.

use std::collections::HashSet;

mod common;
use common::brute::{brute, clear_full, fits, grid_of, place};

use proptest::prelude::*;
use tenten_engine::model::board::{Bits, BoardSize, MAX_SIDE, MIN_SIDE};
use tenten_engine::model::generator::Generator;
use tenten_engine::model::pieces::{Piece, PieceIdx, PieceSet};
use tenten_engine::model::shapes::Shapes;
use tenten_engine::search::validator::{validate, validate_traced, verdict};

/// The classic pieces plus three odd custom shapes.
fn test_set() -> PieceSet {
    let mut set = PieceSet::classic();
    for (id, rows) in [("plus", ".#./###/.#."), ("zig", "##./.##"), ("gap", "#.#")] {
        let rows: Vec<String> = rows.split('/').map(str::to_owned).collect();
        set.pieces.push(Piece::from_rows(id, "", 1, &rows).unwrap());
    }
    set
}

/// Validates one deal both ways and checks the verdicts and the solution.
fn check(set: &PieceSet, size: BoardSize, bits: Bits, holder: &[PieceIdx]) -> Result<(), TestCaseError> {
    let shapes = Shapes::new(set, size);
    let v = validate(&shapes, bits, holder);
    // The fast path's shortcuts must note exactly what the traced search notes.
    let (traced, _) = validate_traced(&shapes, bits, holder);
    prop_assert_eq!(&v, &traced);
    // The verdict alone (the C library's validate) is the same search's.
    let brief = verdict(&shapes, bits, holder);
    prop_assert_eq!(
        (brief.solvable, brief.nodes, brief.solution),
        (v.solvable, v.nodes, v.solution)
    );
    let start = clear_full(&grid_of(size, bits));
    let mut left: Vec<&Piece> = holder.iter().map(|&i| set.piece(i)).collect();
    let expected = brute(&start, &mut left, &mut HashSet::new());
    prop_assert_eq!(
        v.solvable,
        expected,
        "size {} holder {} board {:#x}",
        size,
        set.ids(holder),
        bits
    );
    if let Some(sol) = v.solution {
        // Replay the solution by the brute force's own rules.
        let mut grid = start;
        let mut used = vec![false; holder.len()];
        for step in sol.steps() {
            let slot = usize::from(step.slot);
            prop_assert!(!used[slot], "slot {} placed twice", slot);
            used[slot] = true;
            let piece = set.piece(holder[slot]);
            let (x, y) = (usize::from(step.x), usize::from(step.y));
            prop_assert!(
                fits(&grid, piece, x, y),
                "{} does not fit at ({}, {})",
                piece.id,
                x,
                y
            );
            grid = place(&grid, piece, x, y);
            prop_assert_eq!(&grid, &grid_of(size, step.board));
        }
        prop_assert!(used.iter().all(|&u| u));
    } else {
        // Unsolvable: every order searched noted at least one failure.
        for o in v.orders().iter().filter(|o| o.same_as.is_none()) {
            prop_assert!(o.deepest >= 1 && usize::from(o.deepest) <= holder.len());
        }
        prop_assert_eq!(v.orders().len(), (1..=holder.len()).product::<usize>());
    }
    Ok(())
}

fn all_sizes() -> Vec<BoardSize> {
    let side = MIN_SIDE..=MAX_SIDE;
    side.clone()
        .flat_map(|w| side.clone().map(move |h| (w, h)))
        .filter_map(|(w, h)| BoardSize::new(usize::from(w), usize::from(h)).ok())
        .collect()
}

fn random_board(size: BoardSize, density_pct: usize, rng: &mut Generator) -> Bits {
    (0..size.cells()).fold(0, |b, i| {
        if rng.below(100) < density_pct {
            b | 1 << i
        } else {
            b
        }
    })
}

/// Every allowed board size, every holder size, boards from sparse to jammed.
#[test]
fn complete_on_every_board_size_and_holder_size() {
    let set = test_set();
    let mut rng = Generator::new(2019);
    let sizes = all_sizes();
    assert!(sizes.len() > 60, "{} sizes", sizes.len());
    let (mut solvable, mut unsolvable) = (0, 0);
    for &size in &sizes {
        for k in 1..=4 {
            for density in [30, 55, 70, 80] {
                let bits = random_board(size, density, &mut rng);
                let holder: Vec<PieceIdx> = (0..k).map(|_| rng.below(set.pieces.len()) as PieceIdx).collect();
                check(&set, size, bits, &holder).unwrap();
                let shapes = Shapes::new(&set, size);
                if validate(&shapes, bits, &holder).solvable {
                    solvable += 1;
                } else {
                    unsolvable += 1;
                }
            }
        }
    }
    // Both verdicts must be well represented for the comparison to mean much.
    assert!(
        solvable > 200 && unsolvable > 200,
        "{solvable} solvable, {unsolvable} unsolvable"
    );
}

fn deal_strategy() -> impl Strategy<Value = (BoardSize, Bits, Vec<PieceIdx>)> {
    let n = test_set().pieces.len() as PieceIdx;
    let words = (any::<u128>(), any::<u128>(), any::<u128>());
    (
        proptest::sample::select(all_sizes()),
        0..5usize,
        words,
        proptest::collection::vec(0..n, 1..=4),
    )
        .prop_map(|(size, density, (a, b, c), holder)| {
            // Random words combined for densities of 1/8 to 7/8.
            let bits = [a & b & c, a & b, a, a | b, a | b | c][density];
            (size, bits & Shapes::new(&test_set(), size).geometry.full, holder)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn never_calls_a_solvable_deal_unsolvable((size, bits, holder) in deal_strategy()) {
        check(&test_set(), size, bits, &holder)?;
    }
}
