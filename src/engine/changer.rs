//! The unfit-block changer (section III.C): while the holder is unsolvable,
//! replace the block that equation (5) picks with a fresh weighted draw and
//! validate again.
//!
//! The paper's loop need not end (a redraw can be as bad as the block it
//! replaces, and some boards admit no holder at all), so after a bounded
//! number of redraws it falls back to an exhaustive search: every dealable
//! piece in the chosen slot (heaviest first), then in the other slots, then
//! every pair of slots, then every holder of that size. If none is solvable
//! the board is dead.

use std::time::Instant;

use super::board::Bits;
use super::generator::Generator;
use super::heuristic::{FMatrix, Policy};
use super::pieces::{PieceIdx, PieceSet};
use super::shapes::Shapes;
use super::validator::{Validation, validate};

pub const DEFAULT_MAX_REDRAWS: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChangeOptions {
    pub policy: Policy,
    /// Weighted redraws before the exhaustive fallback.
    pub max_redraws: usize,
}

impl Default for ChangeOptions {
    fn default() -> Self {
        Self {
            policy: Policy::Deepest,
            max_redraws: DEFAULT_MAX_REDRAWS,
        }
    }
}

/// How an attempt's holder was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The holder as dealt.
    Dealt,
    /// Equation (5)'s slot redrawn from the weighted generator.
    Redraw,
    /// The exhaustive fallback.
    Fallback,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Dealt => "dealt",
            Phase::Redraw => "redraw",
            Phase::Fallback => "fallback",
        }
    }
}

/// One validation of the changer's history.
#[derive(Clone, Debug, PartialEq)]
pub struct Attempt {
    pub phase: Phase,
    pub holder: Vec<PieceIdx>,
    pub solvable: bool,
    pub nodes: u64,
    /// Wall time of this validation and, when unsolvable, of computing F.
    pub micros: f64,
    /// F, when the attempt was unsolvable and a redraw followed it.
    pub f: Option<FMatrix>,
    /// The slot changed after this attempt and the piece put there.
    pub change: Option<(usize, PieceIdx)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The dealt holder was already solvable.
    Unchanged,
    /// A solvable holder was found after `changes` replacements.
    Repaired,
    /// No holder of this size can be placed on the board.
    Dead,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Repair {
    pub outcome: Outcome,
    /// The solvable holder (the dealt one when dead).
    pub holder: Vec<PieceIdx>,
    /// Every holder validated, the dealt one first.
    pub attempts: Vec<Attempt>,
    /// The validation of the final holder (of the dealt one when dead).
    pub validation: Validation,
    pub total_micros: f64,
}

impl Repair {
    /// Replacements made: holders validated after the dealt one.
    pub fn changes(&self) -> usize {
        self.attempts.len().saturating_sub(1)
    }
}

/// Runs the changer on `holder` over `board`, redrawing from `generator`.
pub fn repair(
    shapes: &Shapes,
    set: &PieceSet,
    board: Bits,
    holder: &[PieceIdx],
    generator: &mut Generator,
    options: ChangeOptions,
) -> Repair {
    let started = Instant::now();
    let mut attempts = Vec::new();
    let first = timed_validate(shapes, board, holder, Phase::Dealt, &mut attempts);
    if first.solvable {
        return finish(Outcome::Unchanged, first, attempts, started);
    }
    let mut current = holder.to_vec();
    let mut last = first.clone();
    let mut slot = 0;
    // Equations (4) and (5), then a fresh weighted draw for the chosen slot.
    for _ in 0..options.max_redraws {
        let f = FMatrix::new(&last, options.policy);
        slot = f.chosen;
        let piece = generator.draw(set);
        current[slot] = piece;
        if let Some(a) = attempts.last_mut() {
            a.f = Some(f);
            a.change = Some((slot, piece));
        }
        last = timed_validate(shapes, board, &current, Phase::Redraw, &mut attempts);
        if last.solvable {
            return finish(Outcome::Repaired, last, attempts, started);
        }
    }
    // The fallback, from the dealt holder.
    for candidate in fallback_holders(shapes, set, board, holder, slot) {
        if let Some(a) = attempts.last_mut()
            && let Some(changed) = (0..holder.len()).find(|&i| candidate[i] != a.holder[i])
        {
            a.change = Some((changed, candidate[changed]));
        }
        let v = timed_validate(shapes, board, &candidate, Phase::Fallback, &mut attempts);
        if v.solvable {
            return finish(Outcome::Repaired, v, attempts, started);
        }
    }
    let mut dead = finish(Outcome::Dead, first, attempts, started);
    dead.holder = holder.to_vec();
    dead
}

fn finish(outcome: Outcome, v: Validation, attempts: Vec<Attempt>, started: Instant) -> Repair {
    Repair {
        outcome,
        holder: v.holder().to_vec(),
        attempts,
        validation: v,
        total_micros: started.elapsed().as_secs_f64() * 1e6,
    }
}

fn timed_validate(
    shapes: &Shapes,
    board: Bits,
    holder: &[PieceIdx],
    phase: Phase,
    attempts: &mut Vec<Attempt>,
) -> Validation {
    let t = Instant::now();
    let v = validate(shapes, board, holder);
    attempts.push(Attempt {
        phase,
        holder: holder.to_vec(),
        solvable: v.solvable,
        nodes: v.nodes,
        micros: t.elapsed().as_secs_f64() * 1e6,
        f: None,
        change: None,
    });
    v
}

/// The fallback's holders, in the order they are tried: the chosen slot
/// with every dealable piece, the other slots likewise, every pair of slots,
/// then every holder of this size (smallest pieces first). Empty when no
/// dealable piece fits anywhere, since then no holder can be placed.
fn fallback_holders(
    shapes: &Shapes,
    set: &PieceSet,
    board: Bits,
    dealt: &[PieceIdx],
    chosen: usize,
) -> Vec<Vec<PieceIdx>> {
    let g = &shapes.geometry;
    let start = board & !g.mask_of(g.full_lines(board));
    // Heaviest first; pieces that never fit the board cannot help.
    let mut pieces: Vec<PieceIdx> = (0..set.pieces.len() as PieceIdx)
        .filter(|&i| set.piece(i).weight > 0 && shapes.fits_anywhere(start, i))
        .collect();
    if pieces.is_empty() {
        return Vec::new();
    }
    pieces.sort_by_key(|&i| std::cmp::Reverse(set.piece(i).weight));
    let k = dealt.len();
    let mut out = Vec::new();
    let slots: Vec<usize> = std::iter::once(chosen)
        .chain((0..k).filter(|&s| s != chosen))
        .collect();
    for &s in &slots {
        for &p in &pieces {
            let mut h = dealt.to_vec();
            h[s] = p;
            out.push(h);
        }
    }
    for a in 0..k {
        for b in a + 1..k {
            for &p in &pieces {
                for &q in &pieces {
                    let mut h = dealt.to_vec();
                    h[a] = p;
                    h[b] = q;
                    out.push(h);
                }
            }
        }
    }
    if k > 2 {
        // Every multiset of k pieces (the validator tries every order),
        // fewest cells first: those are the likeliest to fit.
        let mut by_size = pieces.clone();
        by_size.sort_by_key(|&i| set.piece(i).size());
        let mut all = Vec::new();
        multisets(&by_size, k, 0, &mut Vec::new(), &mut all);
        all.sort_by_key(|h| h.iter().map(|&i| set.piece(i).size()).sum::<usize>());
        out.extend(all);
    }
    out
}

fn multisets(
    pieces: &[PieceIdx],
    k: usize,
    from: usize,
    cur: &mut Vec<PieceIdx>,
    out: &mut Vec<Vec<PieceIdx>>,
) {
    if cur.len() == k {
        out.push(cur.clone());
        return;
    }
    for i in from..pieces.len() {
        cur.push(pieces[i]);
        multisets(pieces, k, i, cur, out);
        cur.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::board::BoardSize;

    fn setup() -> (PieceSet, Shapes) {
        let set = PieceSet::classic();
        let shapes = Shapes::new(&set, BoardSize::CLASSIC);
        (set, shapes)
    }

    fn idx(set: &PieceSet, names: &[&str]) -> Vec<PieceIdx> {
        names.iter().map(|n| set.index_of(n).unwrap()).collect()
    }

    #[test]
    fn a_solvable_holder_is_never_changed() {
        let (set, shapes) = setup();
        let holder = idx(&set, &["sq3", "h5", "v5"]);
        let r = repair(
            &shapes,
            &set,
            0,
            &holder,
            &mut Generator::new(1),
            ChangeOptions::default(),
        );
        assert_eq!(r.outcome, Outcome::Unchanged);
        assert_eq!(r.holder, holder);
        assert_eq!(r.attempts.len(), 1);
    }

    #[test]
    fn the_block_f_chooses_is_replaced_until_the_holder_fits() {
        let (set, shapes) = setup();
        let g = &shapes.geometry;
        // Rows 2, 5 and 8 filled but for their ends: no sq3 fits, and no
        // row can be completed with one dot and an h2.
        let board = (g.rows[2] | g.rows[5] | g.rows[8]) & !g.cols[0] & !g.cols[9];
        let holder = idx(&set, &["dot", "sq3", "h2"]);
        let r = repair(
            &shapes,
            &set,
            board,
            &holder,
            &mut Generator::new(3),
            ChangeOptions::default(),
        );
        assert_eq!(r.outcome, Outcome::Repaired);
        assert!(validate(&shapes, board, &r.holder).solvable);
        // sq3 (slot 1) is the block F blames first.
        let first = &r.attempts[0];
        assert_eq!(first.f.as_ref().unwrap().chosen, 1);
        assert_eq!(first.change.unwrap().0, 1);
        assert_eq!(r.holder[0], holder[0]);
        assert!(r.attempts.last().unwrap().solvable);
        assert!(r.attempts[..r.attempts.len() - 1].iter().all(|a| !a.solvable));
    }

    #[test]
    fn without_redraws_the_fallback_still_finds_a_holder() {
        let (set, shapes) = setup();
        let g = &shapes.geometry;
        let board = (g.rows[2] | g.rows[5] | g.rows[8]) & !g.cols[8] & !g.cols[9];
        let holder = idx(&set, &["sq3", "sq3", "sq3"]);
        let options = ChangeOptions {
            max_redraws: 0,
            ..ChangeOptions::default()
        };
        let r = repair(&shapes, &set, board, &holder, &mut Generator::new(3), options);
        assert_eq!(r.outcome, Outcome::Repaired);
        assert!(validate(&shapes, board, &r.holder).solvable);
        assert!(r.attempts[1..].iter().all(|a| a.phase == Phase::Fallback));
    }

    #[test]
    fn a_board_where_no_dealable_piece_fits_is_dead() {
        let (set, shapes) = setup();
        // No two free cells touch: no h2 fits and no line can be completed.
        let board = crate::engine::board::checkerboard(BoardSize::CLASSIC);
        let mut only_h2 = set.clone();
        for p in &mut only_h2.pieces {
            if p.id != "h2" {
                p.weight = 0;
            }
        }
        let h2 = idx(&set, &["h2", "h2", "h2"]);
        let r = repair(
            &shapes,
            &only_h2,
            board,
            &h2,
            &mut Generator::new(5),
            ChangeOptions::default(),
        );
        assert_eq!(r.outcome, Outcome::Dead);
        assert_eq!(r.holder, h2);
        // With dots dealable it is not dead.
        let dots = idx(&set, &["dot", "dot", "dot"]);
        let r = repair(
            &shapes,
            &set,
            board,
            &dots,
            &mut Generator::new(5),
            ChangeOptions::default(),
        );
        assert_eq!(r.outcome, Outcome::Unchanged);
    }
}
