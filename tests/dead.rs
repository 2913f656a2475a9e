//! `dead` is exact for every piece set: the changer answers `dead` exactly
//! when no holder of that size can be placed, judged by the grid brute force
//! over every multiset of dealable pieces. Sets are random subsets of the
//! classic pieces and three odd shapes, with weights of 0 and often without
//! the one-cell piece, on crowded 4x4 to 6x6 boards.

use std::collections::HashSet;

use tenten_engine::model::board::{Bits, BoardSize};
use tenten_engine::model::generator::Generator;
use tenten_engine::model::pieces::{Piece, PieceIdx, PieceSet};
use tenten_engine::model::shapes::Shapes;
use tenten_engine::search::changer::{ChangeOptions, Outcome, repair};
use tenten_engine::search::validator::validate;

mod common;
use common::brute::{Grid, brute, clear_full, grid_of, pool};

/// Every multiset of `k` of `pieces`.
fn multisets(pieces: &[PieceIdx], k: usize) -> Vec<Vec<PieceIdx>> {
    if k == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for (i, &p) in pieces.iter().enumerate() {
        for mut rest in multisets(&pieces[i..], k - 1) {
            rest.insert(0, p);
            out.push(rest);
        }
    }
    out
}

fn brute_solvable(
    set: &PieceSet,
    start: &Grid,
    holder: &[PieceIdx],
    failed: &mut HashSet<(Grid, Vec<String>)>,
) -> bool {
    let mut left: Vec<&Piece> = holder.iter().map(|&i| set.piece(i)).collect();
    brute(start, &mut left, failed)
}

#[test]
fn dead_agrees_with_a_brute_force_over_every_holder() {
    let all = pool();
    let mut rng = Generator::new(11);
    let (mut dead, mut alive, mut revived_by_a_clear) = (0, 0, 0);
    for case in 0..400 {
        let size = BoardSize::new(4 + rng.below(3), 4 + rng.below(3)).unwrap();
        // 2 to 5 pieces, weights 0 to 3, the dot usually left out.
        let n = 2 + rng.below(4);
        let mut pieces: Vec<Piece> = Vec::new();
        while pieces.len() < n {
            let mut p = all[rng.below(all.len())].clone();
            if pieces.iter().any(|q| q.id == p.id) || (p.id == "dot" && rng.below(4) != 0) {
                continue;
            }
            p.weight = rng.below(4) as u32;
            pieces.push(p);
        }
        let Ok(set) = PieceSet::new("random", pieces) else {
            continue;
        };
        let k = 1 + rng.below(3);
        let density = 55 + rng.below(30);
        let bits: Bits =
            (0..size.cells()).fold(0, |b, i| if rng.below(100) < density { b | 1 << i } else { b });
        let shapes = Shapes::new(&set, size);
        let dealable: Vec<PieceIdx> = (0..set.pieces.len() as PieceIdx)
            .filter(|&i| set.piece(i).weight > 0)
            .collect();
        let start = clear_full(&grid_of(size, bits));
        let mut failed = HashSet::new();
        let solvable: Vec<Vec<PieceIdx>> = multisets(&dealable, k)
            .into_iter()
            .filter(|h| brute_solvable(&set, &start, h, &mut failed))
            .collect();
        let dealt: Vec<PieceIdx> = (0..k).map(|_| dealable[rng.below(dealable.len())]).collect();
        // Every other case without redraws, so the exhaustive fallback alone
        // must find what a lucky redraw might otherwise have hidden.
        let options = ChangeOptions {
            max_redraws: if case % 2 == 0 {
                0
            } else {
                ChangeOptions::default().max_redraws
            },
            ..ChangeOptions::default()
        };
        let r = repair(&shapes, &set, bits, &dealt, &mut Generator::new(case), options);
        if solvable.is_empty() {
            assert_eq!(
                r.outcome,
                Outcome::Dead,
                "case {case}: {size} {} k={k} board {bits:#x}",
                set.ids(&dealt)
            );
            dead += 1;
        } else {
            assert_ne!(
                r.outcome,
                Outcome::Dead,
                "case {case}: {size} k={k} board {bits:#x}: {} can be placed",
                set.ids(&solvable[0])
            );
            assert!(
                brute_solvable(&set, &start, &r.holder, &mut failed),
                "case {case}"
            );
            alive += 1;
            // Holders only a line clear makes placeable: a piece fits nowhere now.
            let fits_now = |p: PieceIdx| shapes.fits_anywhere(shapes.geometry.full & bits, p);
            if solvable.iter().all(|h| h.iter().any(|&p| !fits_now(p))) {
                revived_by_a_clear += 1;
            }
        }
    }
    // Both verdicts, and the case the old fallback got wrong, must occur.
    assert!(dead > 30 && alive > 30, "{dead} dead, {alive} alive");
    assert!(revived_by_a_clear > 0, "no board where only a clear makes room");
}

/// The case the old fallback called dead: its candidates were the pieces that
/// fit the board as it is, so with the dealt `l3_tr, l3_tr` it never tried
/// `h4`, which fits only in the row that the first `l3_tr` clears.
#[test]
fn a_piece_that_fits_only_after_a_clear_is_a_candidate() {
    let rows = |r: &[&str]| r.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let set = PieceSet::new(
        "no dot",
        vec![
            Piece::from_rows("l3_tr", "", 1, &rows(&["##", ".#"])).unwrap(),
            Piece::from_rows("h4", "", 1, &rows(&["####"])).unwrap(),
        ],
    )
    .unwrap();
    let size = BoardSize::new(4, 4).unwrap();
    let picture = ["##..", ".##.", "#.#.", ".#.#"];
    let bits: Bits = picture.iter().enumerate().fold(0, |b, (y, row)| {
        row.bytes()
            .enumerate()
            .fold(b, |b, (x, c)| if c == b'#' { b | 1 << size.bit(x, y) } else { b })
    });
    let shapes = Shapes::new(&set, size);
    let (l3, h4) = (0, 1);
    assert!(
        !shapes.fits_anywhere(bits, h4),
        "h4 must not fit before the clear"
    );
    assert!(!validate(&shapes, bits, &[l3, l3]).solvable);
    assert!(validate(&shapes, bits, &[l3, h4]).solvable);
    for max_redraws in [0, 3] {
        let options = ChangeOptions {
            max_redraws,
            ..ChangeOptions::default()
        };
        let r = repair(&shapes, &set, bits, &[l3, l3], &mut Generator::new(1), options);
        assert_eq!(r.outcome, Outcome::Repaired, "max_redraws {max_redraws}");
        let mut got = r.holder.clone();
        got.sort();
        assert_eq!(got, vec![l3, h4]);
    }
}
