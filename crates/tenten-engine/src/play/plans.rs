//! A planner's options: every plan for the pieces still in the holder (each
//! order of the pieces, each placement), grouped by the move it starts with
//! and counted by the criteria of the board it ends on. A planner with
//! judgement errors picks a plan by softmax over those end boards and plays
//! its first move; the fitter sums the plans that start with the move made.
//! Plans that reach boards with equal criteria are one row with a count, so
//! a holder of three on an open board (millions of plans) is a few thousand
//! rows.

use crate::model::board::Bits;
use crate::model::pieces::PieceIdx;
use crate::model::shapes::Shapes;
use crate::play::coelho::{Criteria, Evaluator, Move};
use crate::progress::Progress;

/// The plans that start with one move.
#[derive(Clone, Debug, PartialEq)]
pub struct FirstMove {
    pub first: Move,
    /// The criteria of the end boards, each with how many plans reach it.
    pub ends: Vec<(Criteria, u64)>,
}

/// Criteria packed into one word, to count end boards by sorting: free
/// cells (9 bits), the 5x5 square (1), large pieces (2), alignment (16),
/// surface (16); every board up to 16x16 fits.
pub(crate) fn pack(c: &Criteria) -> u64 {
    u64::from(c.free)
        | u64::from(c.square5_fits) << 9
        | u64::from(c.large_fit) << 10
        | u64::from(c.alignment) << 12
        | u64::from(c.surface) << 28
}

fn unpack(w: u64) -> Criteria {
    Criteria {
        free: (w & 0x1ff) as u32,
        square5_fits: w >> 9 & 1 == 1,
        large_fit: (w >> 10 & 3) as u32,
        alignment: (w >> 12 & 0xffff) as u32,
        surface: (w >> 28 & 0xffff) as u32,
    }
}

/// The slots of `left` holding a piece not seen earlier in it: two copies
/// of one piece make the same plans, so each is tried once.
fn distinct_slots(left: &[PieceIdx]) -> impl Iterator<Item = usize> + '_ {
    (0..left.len()).filter(|&s| !left[..s].contains(&left[s]))
}

fn without(left: &[PieceIdx], slot: usize) -> Vec<PieceIdx> {
    let mut rest = left.to_vec();
    rest.remove(slot);
    rest
}

/// Every plan's end board from `board` with `left` to place, packed.
fn collect(shapes: &Shapes, eval: &Evaluator, board: Bits, left: &[PieceIdx], out: &mut Vec<u64>) {
    if left.is_empty() {
        out.push(pack(&eval.criteria(board)));
        return;
    }
    for slot in distinct_slots(left) {
        let piece = left[slot];
        let rest = without(left, slot);
        let mut fits = shapes.shape(piece).fits(board, shapes.geometry.full);
        while fits != 0 {
            let anchor = fits.trailing_zeros();
            fits &= fits - 1;
            collect(shapes, eval, shapes.place(board, piece, anchor).0, &rest, out);
        }
    }
}

/// Every plan that places all of `left` on `board`, by first move; first
/// moves after which the rest cannot all be placed are left out, so an
/// empty list means no plan places the whole holder. `None` when cancelled
/// (checked after each first move).
pub fn plans(
    shapes: &Shapes,
    eval: &Evaluator,
    board: Bits,
    left: &[PieceIdx],
    progress: &Progress,
) -> Option<Vec<FirstMove>> {
    let mut out = Vec::new();
    let mut leaves = Vec::new();
    for slot in distinct_slots(left) {
        let piece = left[slot];
        let rest = without(left, slot);
        let mut fits = shapes.shape(piece).fits(board, shapes.geometry.full);
        while fits != 0 {
            if progress.cancelled() {
                return None;
            }
            let anchor = fits.trailing_zeros();
            fits &= fits - 1;
            leaves.clear();
            collect(
                shapes,
                eval,
                shapes.place(board, piece, anchor).0,
                &rest,
                &mut leaves,
            );
            if leaves.is_empty() {
                continue;
            }
            leaves.sort_unstable();
            let mut ends: Vec<(Criteria, u64)> = Vec::new();
            for chunk in leaves.chunk_by(|a, b| a == b) {
                ends.push((unpack(chunk[0]), chunk.len() as u64));
            }
            out.push(FirstMove {
                first: (piece, anchor),
                ends,
            });
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::classic;
    use crate::model::board::BoardSize;
    use proptest::prelude::*;

    /// Plans counted one by one, as sequences of moves.
    fn brute(
        shapes: &Shapes,
        eval: &Evaluator,
        board: Bits,
        left: &[PieceIdx],
        path: &mut Vec<Move>,
        out: &mut Vec<(Vec<Move>, Criteria)>,
    ) {
        if left.is_empty() {
            out.push((path.clone(), eval.criteria(board)));
            return;
        }
        for slot in 0..left.len() {
            let piece = left[slot];
            for anchor in 0..size_cells(shapes) {
                if shapes.shape(piece).fits(board, shapes.geometry.full) >> anchor & 1 == 0 {
                    continue;
                }
                let rest = without(left, slot);
                path.push((piece, anchor));
                brute(
                    shapes,
                    eval,
                    shapes.place(board, piece, anchor).0,
                    &rest,
                    path,
                    out,
                );
                path.pop();
            }
        }
    }

    fn size_cells(shapes: &Shapes) -> u32 {
        shapes.size().cells() as u32
    }

    #[test]
    fn packing_keeps_every_criterion() {
        let c = Criteria {
            free: 256,
            square5_fits: true,
            large_fit: 3,
            alignment: 8192,
            surface: 480,
        };
        assert_eq!(unpack(pack(&c)), c);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// Every distinct sequence of moves is counted once, under its first
        /// move, with its end board's criteria (copies of a piece included).
        #[test]
        fn plans_count_every_sequence_once(fill in proptest::collection::vec(any::<bool>(), 25), picks in proptest::collection::vec(0usize..6, 1..=3)) {
            let (set, _) = classic();
            let size = BoardSize::new(5, 5).unwrap();
            let shapes = Shapes::new(&set, size);
            let eval = Evaluator::new(size);
            let ids = ["dot", "h2", "v2", "sq2", "l3_tl", "h3"];
            let left: Vec<PieceIdx> = picks.iter().map(|&i| set.index_of(ids[i]).unwrap()).collect();
            let board: Bits = fill.iter().enumerate().filter(|(i, f)| **f && i % 3 == 0).map(|(i, _)| 1 << i).sum();
            let mut seqs = Vec::new();
            brute(&shapes, &eval, board, &left, &mut Vec::new(), &mut seqs);
            seqs.sort_by(|a, b| a.0.cmp(&b.0));
            seqs.dedup_by(|a, b| a.0 == b.0);
            let got = plans(&shapes, &eval, board, &left, &Progress::default()).unwrap();
            let total: u64 = got.iter().flat_map(|f| f.ends.iter().map(|e| e.1)).sum();
            prop_assert_eq!(total, seqs.len() as u64);
            for f in &got {
                let mut want: Vec<(Criteria, u64)> = Vec::new();
                for (seq, c) in seqs.iter().filter(|s| s.0[0] == f.first) {
                    let _ = seq;
                    match want.iter_mut().find(|w| w.0 == *c) {
                        Some(w) => w.1 += 1,
                        None => want.push((*c, 1)),
                    }
                }
                let mut have = f.ends.clone();
                let key = |x: &(Criteria, u64)| pack(&x.0);
                want.sort_by_key(key);
                have.sort_by_key(key);
                prop_assert_eq!(have, want);
            }
        }
    }
}
