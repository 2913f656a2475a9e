//! The unfit-block changer (section III.C): while the holder is unsolvable,
//! replace the block that equation (5) picks with a fresh weighted draw and
//! validate again.
//!
//! The paper's loop need not end (a redraw can be as bad as the block it
//! replaces, and some boards admit no holder at all), so after a bounded
//! number of redraws it falls back to an exhaustive search. The fallback is
//! a function of the dealt holder alone (so a likelihood can follow it): it
//! starts from the dealt holder, not from the last redraw, and tries every
//! dealable piece in the slot equation (5) chose on the dealt holder (under
//! the changer's policy), then in the other slots, then every pair of
//! slots, then every holder of that size, each multiset of pieces once;
//! pieces are tried heaviest first, ties by piece order. If none is
//! solvable the board is dead: `dead` is exact for every piece set, because
//! the candidates are all the dealable pieces that fit an empty board of
//! this size (a piece that fits nowhere now may fit after another piece of
//! the holder clears a line; only the first piece placed must fit the board
//! as it is).

use std::collections::HashSet;
use std::time::Instant;

use crate::model::board::Bits;
use crate::model::generator::Generator;
use crate::model::pieces::{PieceIdx, PieceSet};
use crate::model::shapes::Shapes;
use crate::progress::Progress;
use crate::search::heuristic::{FMatrix, Policy, Reading};
use crate::search::validator::{Validation, validate};

pub const DEFAULT_MAX_REDRAWS: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChangeOptions {
    pub policy: Policy,
    /// How repeated pieces share their failures in F.
    pub reading: Reading,
    /// Weighted redraws before the exhaustive fallback.
    pub max_redraws: usize,
}

impl Default for ChangeOptions {
    fn default() -> Self {
        Self {
            policy: Policy::Deepest,
            reading: Reading::Slot,
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
    /// F, when the attempt was unsolvable and the changer went on.
    pub f: Option<FMatrix>,
    /// The slots changed after this attempt and the pieces put there: one
    /// for a redraw, one or more for the fallback.
    pub change: Vec<(usize, PieceIdx)>,
}

impl Attempt {
    /// "b2 -> dot, b3 -> h2"; empty when nothing changed after this attempt.
    pub fn describe_change(&self, set: &PieceSet) -> String {
        self.change
            .iter()
            .map(|&(slot, piece)| format!("b{} -> {}", slot + 1, set.piece(piece).id))
            .collect::<Vec<_>>()
            .join(", ")
    }
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
    let never = Progress::default();
    repair_until(shapes, set, board, holder, generator, options, &never)
        .unwrap_or_else(|| unreachable!("a progress nobody holds is never cancelled"))
}

/// `repair`, checking `progress` for a cancel before every validation
/// after the first; `None` when cancelled.
pub fn repair_until(
    shapes: &Shapes,
    set: &PieceSet,
    board: Bits,
    holder: &[PieceIdx],
    generator: &mut Generator,
    options: ChangeOptions,
    progress: &Progress,
) -> Option<Repair> {
    let started = Instant::now();
    let mut attempts = Vec::new();
    let first = timed_validate(shapes, board, holder, Phase::Dealt, &mut attempts);
    if first.solvable {
        return Some(finish(Outcome::Unchanged, first, attempts, started));
    }
    let mut current = holder.to_vec();
    let mut last = first.clone();
    // Equation (5) on the dealt holder: the slot the fallback starts from,
    // whatever the redraws chose after it, and even when no redraw is
    // allowed.
    let f = FMatrix::with_reading(&first, options.policy, options.reading);
    let chosen = f.chosen;
    if let Some(a) = attempts.last_mut() {
        a.f = Some(f);
    }
    // Equations (4) and (5), then a fresh weighted draw for the chosen slot.
    for _ in 0..options.max_redraws {
        if progress.cancelled() {
            return None;
        }
        let f = FMatrix::with_reading(&last, options.policy, options.reading);
        let slot = f.chosen;
        let piece = generator.draw(set);
        current[slot] = piece;
        if let Some(a) = attempts.last_mut() {
            a.f = Some(f);
            a.change = vec![(slot, piece)];
        }
        last = timed_validate(shapes, board, &current, Phase::Redraw, &mut attempts);
        if last.solvable {
            return Some(finish(Outcome::Repaired, last, attempts, started));
        }
    }
    // The fallback, from the dealt holder, skipping every multiset tried
    // (all unsolvable: skipping them cannot change the holder it finds).
    let mut tried: HashSet<Vec<PieceIdx>> = attempts.iter().map(|a| sorted(&a.holder)).collect();
    let pieces = fallback_pieces(shapes, &integer_weights(set));
    for candidate in fallback_holders(shapes, set, board, holder, chosen, pieces) {
        if progress.cancelled() {
            return None;
        }
        if !tried.insert(sorted(&candidate)) {
            continue;
        }
        if let Some(a) = attempts.last_mut() {
            a.change = (0..holder.len())
                .filter(|&i| candidate[i] != a.holder[i])
                .map(|i| (i, candidate[i]))
                .collect();
        }
        let v = timed_validate(shapes, board, &candidate, Phase::Fallback, &mut attempts);
        if v.solvable {
            return Some(finish(Outcome::Repaired, v, attempts, started));
        }
    }
    let mut dead = finish(Outcome::Dead, first, attempts, started);
    dead.holder = holder.to_vec();
    Some(dead)
}

/// The fallback's holder for an unsolvable dealt holder, `chosen` the slot
/// equation (5) picks in it and `weights` the weights in force (any scale;
/// only their order counts): the first solvable holder the fallback tries,
/// or `None` when the board is dead for the pieces of positive weight. What
/// `repair` deals when its redraws all fail, whatever they drew.
pub fn fallback(
    shapes: &Shapes,
    set: &PieceSet,
    board: Bits,
    dealt: &[PieceIdx],
    chosen: usize,
    weights: &[f64],
) -> Option<Vec<PieceIdx>> {
    let mut tried: HashSet<Vec<PieceIdx>> = HashSet::from([sorted(dealt)]);
    let pieces = fallback_pieces(shapes, weights);
    fallback_holders(shapes, set, board, dealt, chosen, pieces)
        .filter(|h| tried.insert(sorted(h)))
        .find(|h| validate(shapes, board, h).solvable)
}

fn integer_weights(set: &PieceSet) -> Vec<f64> {
    set.pieces.iter().map(|p| f64::from(p.weight)).collect()
}

/// The fallback's candidate pieces in the order it tries them: the pieces
/// of positive weight that fit an empty board, heaviest first, ties by
/// piece order (the sort is stable).
fn fallback_pieces(shapes: &Shapes, weights: &[f64]) -> Vec<PieceIdx> {
    let mut pieces: Vec<PieceIdx> = (0..weights.len() as PieceIdx)
        .filter(|&i| weights[usize::from(i)] > 0.0 && shapes.fits_anywhere(0, i))
        .collect();
    pieces.sort_by(|&a, &b| weights[usize::from(b)].total_cmp(&weights[usize::from(a)]));
    pieces
}

fn sorted(holder: &[PieceIdx]) -> Vec<PieceIdx> {
    let mut h = holder.to_vec();
    h.sort_unstable();
    h
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
        change: Vec::new(),
    });
    v
}

/// The fallback's holders, lazily, in the order they are tried: the chosen
/// slot with every candidate piece (in `pieces`' order: `fallback_pieces`),
/// the other slots likewise, every pair of slots, then every holder of this
/// size (fewest cells first). Holders none of whose pieces fits the board
/// as it is are left out (no first placement exists), and the whole
/// fallback is empty when no candidate fits the board: then no holder can
/// be placed.
fn fallback_holders<'a>(
    shapes: &'a Shapes,
    set: &'a PieceSet,
    board: Bits,
    dealt: &'a [PieceIdx],
    chosen: usize,
    mut pieces: Vec<PieceIdx>,
) -> impl Iterator<Item = Vec<PieceIdx>> + 'a {
    let g = &shapes.geometry;
    let start = board & !g.mask_of(g.full_lines(board));
    let fits_now: Vec<bool> = (0..set.pieces.len() as PieceIdx)
        .map(|i| shapes.fits_anywhere(start, i))
        .collect();
    if !pieces.iter().any(|&p| fits_now[usize::from(p)]) {
        pieces.clear();
    }
    let k = dealt.len();
    let slots: Vec<usize> = std::iter::once(chosen)
        .chain((0..k).filter(move |&s| s != chosen))
        .collect();
    let singles = {
        let pieces = pieces.clone();
        slots.into_iter().flat_map(move |s| {
            pieces.clone().into_iter().map(move |p| {
                let mut h = dealt.to_vec();
                h[s] = p;
                h
            })
        })
    };
    let pairs = {
        let pieces = pieces.clone();
        (0..k)
            .flat_map(move |a| (a + 1..k).map(move |b| (a, b)))
            .flat_map(move |(a, b)| {
                let pieces = pieces.clone();
                let inner = pieces.clone();
                pieces.into_iter().flat_map(move |p| {
                    inner.clone().into_iter().map(move |q| {
                        let mut h = dealt.to_vec();
                        h[a] = p;
                        h[b] = q;
                        h
                    })
                })
            })
    };
    // Every multiset of k candidates (the validator tries every order),
    // built only if everything before failed.
    let all = std::iter::once(()).flat_map(move |()| {
        let mut out = Vec::new();
        if k > 2 {
            let mut by_size = pieces.clone();
            by_size.sort_by_key(|&i| set.piece(i).size());
            multisets(&by_size, k, 0, &mut Vec::new(), &mut out);
            out.sort_by_key(|h| h.iter().map(|&i| set.piece(i).size()).sum::<usize>());
        }
        out
    });
    singles
        .chain(pairs)
        .chain(all)
        .filter(move |h| h.iter().any(|&p| fits_now[usize::from(p)]))
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
    use crate::fixtures::{classic, holder};
    use crate::model::board::BoardSize;

    #[test]
    fn a_solvable_holder_is_never_changed() {
        let (set, shapes) = classic();
        let holder = holder(&set, &["sq3", "h5", "v5"]);
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
        let (set, shapes) = classic();
        let g = &shapes.geometry;
        // Rows 2, 5 and 8 filled but for their ends: no sq3 fits, and no
        // row can be completed with one dot and an h2.
        let board = (g.rows[2] | g.rows[5] | g.rows[8]) & !g.cols[0] & !g.cols[9];
        let holder = holder(&set, &["dot", "sq3", "h2"]);
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
        assert_eq!(first.change, vec![(1, r.attempts[1].holder[1])]);
        assert_eq!(r.holder[0], holder[0]);
        assert!(r.attempts.last().unwrap().solvable);
        assert!(r.attempts[..r.attempts.len() - 1].iter().all(|a| !a.solvable));
    }

    #[test]
    fn without_redraws_the_fallback_still_finds_a_holder() {
        let (set, shapes) = classic();
        let g = &shapes.geometry;
        let board = (g.rows[2] | g.rows[5] | g.rows[8]) & !g.cols[8] & !g.cols[9];
        let holder = holder(&set, &["sq3", "sq3", "sq3"]);
        let options = ChangeOptions {
            max_redraws: 0,
            ..ChangeOptions::default()
        };
        let r = repair(&shapes, &set, board, &holder, &mut Generator::new(3), options);
        assert_eq!(r.outcome, Outcome::Repaired);
        assert!(validate(&shapes, board, &r.holder).solvable);
        assert!(r.attempts[1..].iter().all(|a| a.phase == Phase::Fallback));
        // Without redraws the fallback still starts from F's argmax (sq3 in
        // every slot ties: the lowest slot), and F is kept for the dealt holder.
        let f = r.attempts[0].f.as_ref().unwrap();
        assert_eq!(r.attempts[0].change[0].0, f.chosen);
        // Each multiset is tried once, and never the dealt one again.
        let mut seen = std::collections::HashSet::new();
        for a in &r.attempts {
            assert!(seen.insert(sorted(&a.holder)), "{:?} tried twice", a.holder);
        }
    }

    #[test]
    fn the_fallback_depends_on_the_dealt_holder_alone() {
        // On crowded boards of play, with few redraws: whatever the redraws
        // drew and whichever slots they chose, a holder they could not fix
        // gets the fallback's holder from the dealt one, starting at the
        // slot equation (5) chose in it.
        let (set, shapes) = classic();
        let weights: Vec<f64> = set.pieces.iter().map(|p| f64::from(p.weight)).collect();
        let mut rng = Generator::new(8);
        let deals = crate::play::random_fill::played_deals(&shapes, &set, 3, 1500, &mut rng);
        let (mut fallbacks, mut moved) = (0, 0);
        for d in deals.iter().filter(|d| d.board.count_ones() > 55) {
            for policy in Policy::ALL {
                let dealt = rng.deal(&set, 3);
                let first = validate(&shapes, d.board, &dealt);
                if first.solvable {
                    continue;
                }
                let options = ChangeOptions {
                    policy,
                    max_redraws: 2,
                    ..ChangeOptions::default()
                };
                let r = repair(&shapes, &set, d.board, &dealt, &mut rng, options);
                if r.attempts.last().unwrap().phase != Phase::Fallback {
                    continue;
                }
                let chosen = FMatrix::with_reading(&first, policy, Reading::Slot).chosen;
                assert_eq!(r.attempts[0].f.as_ref().unwrap().chosen, chosen);
                let fb = fallback(&shapes, &set, d.board, &dealt, chosen, &weights);
                assert_eq!(Some(r.holder.clone()), fb, "{policy:?} from {dealt:?}");
                fallbacks += 1;
                // A redraw chose another slot than the dealt holder's.
                moved += usize::from(
                    r.attempts
                        .iter()
                        .filter(|a| a.phase == Phase::Redraw)
                        .filter_map(|a| a.f.as_ref())
                        .any(|f| f.chosen != chosen),
                );
            }
        }
        assert!(
            fallbacks > 10 && moved > 0,
            "{fallbacks} fallbacks, {moved} after another slot"
        );
    }

    #[test]
    fn every_change_recorded_turns_one_attempt_into_the_next() {
        let (set, shapes) = classic();
        // A checkerboard with one cell of row 0 opened: one h2 fits, never
        // two, no v2, and no line can be completed. The fallback runs
        // through singles, pairs and every multiset before calling it dead,
        // and consecutive holders differ in up to three slots.
        let board = crate::model::board::checkerboard(BoardSize::CLASSIC) & !(1 << 2);
        let mut lines = set.clone();
        for p in &mut lines.pieces {
            if !["h2", "v2", "h3", "v3"].contains(&p.id.as_str()) {
                p.weight = 0;
            }
        }
        let holder = holder(&set, &["h2", "h2", "h2"]);
        let options = ChangeOptions {
            max_redraws: 0,
            ..ChangeOptions::default()
        };
        let r = repair(&shapes, &lines, board, &holder, &mut Generator::new(2), options);
        assert_eq!(r.outcome, Outcome::Dead);
        for pair in r.attempts.windows(2) {
            let mut next = pair[0].holder.clone();
            for &(slot, piece) in &pair[0].change {
                next[slot] = piece;
            }
            assert_eq!(next, pair[1].holder);
        }
        assert!(r.attempts.iter().any(|a| a.change.len() >= 2));
    }

    #[test]
    fn a_board_where_no_dealable_piece_fits_is_dead() {
        let (set, shapes) = classic();
        // No two free cells touch: no h2 fits and no line can be completed.
        let board = crate::model::board::checkerboard(BoardSize::CLASSIC);
        let mut only_h2 = set.clone();
        for p in &mut only_h2.pieces {
            if p.id != "h2" {
                p.weight = 0;
            }
        }
        let h2 = holder(&set, &["h2", "h2", "h2"]);
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
        let dots = holder(&set, &["dot", "dot", "dot"]);
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
