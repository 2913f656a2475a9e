//! The validator of Fig. 4: an AND-OR search over the orders of the holder
//! (the OR at the root of Fig. 3) and, for each order, the positions of each
//! block in turn (an OR over positions under an AND over the blocks still to
//! place), clearing full lines after every placement.
//!
//! It is complete: every order and every position is tried before a deal is
//! called unsolvable. The one public implementation of the paper did not
//! reset its position cursors between branches and so missed solutions; here
//! each node computes its own set of fitting anchors, so nothing carries over.
//!
//! Failures are noted as Fig. 4 notes them ("note p(i, d) into unfitBlock")
//! for all three readings of the paper at once (deepest, last, frequency), so
//! the changer can switch policy without searching again.

use crate::model::board::{Bits, Lines};
use crate::model::pieces::PieceIdx;
use crate::model::shapes::Shapes;
use crate::search::trace::{Event, Exhaustive, NoTrace, Recorder, Trace};

use crate::model::pieces::MAX_HOLDER;
/// 4! orders.
pub const MAX_ORDERS: usize = 24;

/// What the search noted for one order j: the paper's ub(j) under each policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OrderRecord {
    /// p(j, 1..=k): the holder slot placed at each position of the order.
    pub slots: [u8; MAX_HOLDER],
    /// Set when the order deals the same pieces in the same sequence as an
    /// earlier order (repeated pieces), which is then skipped.
    pub same_as: Option<u8>,
    /// The deepest position (1..=k) that found no place; 0 = none noted.
    pub deepest: u8,
    /// The position of the last failure noted (a literal reading of Fig. 4).
    pub last: u8,
    /// How many failures were noted at each position 1..=k.
    pub counts: [u32; MAX_HOLDER],
}

impl OrderRecord {
    /// The slot at position `pos` (1-based) of this order: p(j, pos).
    pub fn slot_at(&self, pos: u8) -> usize {
        usize::from(self.slots[usize::from(pos) - 1])
    }
}

/// One placement of a solution.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Step {
    /// The holder slot placed.
    pub slot: u8,
    /// Column and row of the top-left of the piece's box (row 0 on top).
    pub x: u8,
    pub y: u8,
    /// The board after the placement and its clears.
    pub board: Bits,
    pub lines: Lines,
}

/// An order and positions that place every piece of the holder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Index j of the order in the paper's Permute matrix.
    pub order: u8,
    len: u8,
    steps: [Step; MAX_HOLDER],
}

impl Solution {
    pub fn steps(&self) -> &[Step] {
        &self.steps[..usize::from(self.len)]
    }
}

/// The outcome of validating one deal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Validation {
    /// k, the holder size.
    pub k: u8,
    /// The holder's pieces by slot.
    pub holder: [PieceIdx; MAX_HOLDER],
    pub solvable: bool,
    /// The board searched from: the input with its full lines cleared.
    pub start: Bits,
    /// Full lines the input already held, cleared before the search.
    pub cleared_first: Lines,
    /// Placements tried, in all and at each position 1..=k.
    pub nodes: u64,
    pub nodes_per_depth: [u64; MAX_HOLDER],
    orders: [OrderRecord; MAX_ORDERS],
    n_orders: u8,
    pub solution: Option<Solution>,
}

impl Validation {
    /// The orders looked at, in the paper's Permute order (all k! when the
    /// deal is unsolvable; up to the one that succeeded otherwise).
    pub fn orders(&self) -> &[OrderRecord] {
        &self.orders[..usize::from(self.n_orders)]
    }

    pub fn holder(&self) -> &[PieceIdx] {
        &self.holder[..usize::from(self.k)]
    }
}

/// Validates `holder` (1 to 4 pieces) on `board` on the fast path: no trace.
pub fn validate(shapes: &Shapes, board: Bits, holder: &[PieceIdx]) -> Validation {
    Search::run(shapes, board, holder, &mut NoTrace)
}

/// What a game asks of a holder: whether it can be placed, the placements
/// tried, and a solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub solvable: bool,
    pub nodes: u64,
    pub solution: Option<Solution>,
}

/// `validate` without the per-order records: the same search, for callers
/// that want only the verdict (the C library's validate), sparing the copy
/// of the records out of the search, which is a tenth of a fast validation.
pub fn verdict(shapes: &Shapes, board: Bits, holder: &[PieceIdx]) -> Verdict {
    Search::run_then(shapes, board, holder, &mut NoTrace, &mut 0, &mut false, |v| {
        Verdict {
            solvable: v.solvable,
            nodes: v.nodes,
            solution: v.solution,
        }
    })
}

/// Validates and records every step of the search, for the tree stepper.
pub fn validate_traced(shapes: &Shapes, board: Bits, holder: &[PieceIdx]) -> (Validation, Trace) {
    let mut trace = Trace::default();
    let v = Search::run(shapes, board, holder, &mut trace);
    (v, trace)
}

/// What an exhaustive search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exploration {
    pub validation: Validation,
    pub trace: Trace,
    pub solutions: u64,
    /// False when the budget ran out or the search was cancelled.
    pub complete: bool,
}

impl Exploration {
    /// Mean children per expanded node at each position 1..=k (the
    /// branching factor the Trix report measures): placements at position d
    /// over the nodes that tried position d (orders for d = 1).
    pub fn branching(&self) -> Vec<f64> {
        let v = &self.validation;
        let k = usize::from(v.k);
        let orders = v.orders().iter().filter(|o| o.same_as.is_none()).count() as f64;
        (0..k)
            .map(|d| {
                let parents = if d == 0 {
                    orders
                } else {
                    v.nodes_per_depth[d - 1] as f64
                };
                if parents == 0.0 {
                    0.0
                } else {
                    v.nodes_per_depth[d] as f64 / parents
                }
            })
            .collect()
    }
}

/// Explores the whole AND-OR tree (every order, every position, not stopping
/// at the first solution), recording every event, within `recorder`'s budget.
pub fn explore(shapes: &Shapes, board: Bits, holder: &[PieceIdx], recorder: &mut Exhaustive) -> Exploration {
    let mut solutions = 0;
    let mut stopped = false;
    let validation = Search::run_then(
        shapes,
        board,
        holder,
        recorder,
        &mut solutions,
        &mut stopped,
        Validation::clone,
    );
    Exploration {
        validation,
        trace: std::mem::take(&mut recorder.trace),
        solutions,
        complete: !stopped,
    }
}

struct Search<'a, R: Recorder> {
    shapes: &'a Shapes,
    full: Bits,
    k: usize,
    /// The pieces in the order being searched, and their slots.
    pieces: [PieceIdx; MAX_HOLDER],
    rec: &'a mut R,
    out: Validation,
    /// The current path: the step made at each position.
    path: [Step; MAX_HOLDER],
    j: usize,
    /// Exhaustive mode: solutions found, and whether the budget stopped it.
    solutions: u64,
    stopped: bool,
}

impl<'a, R: Recorder> Search<'a, R> {
    fn run(shapes: &'a Shapes, board: Bits, holder: &[PieceIdx], rec: &'a mut R) -> Validation {
        Self::run_then(shapes, board, holder, rec, &mut 0, &mut false, Validation::clone)
    }

    /// Runs the search and hands its outcome to `finish` where it lies.
    #[inline]
    fn run_then<T>(
        shapes: &'a Shapes,
        board: Bits,
        holder: &[PieceIdx],
        rec: &'a mut R,
        solutions: &mut u64,
        stopped: &mut bool,
        finish: impl FnOnce(&Validation) -> T,
    ) -> T {
        let k = holder.len();
        assert!(
            (1..=MAX_HOLDER).contains(&k),
            "a holder has 1 to {MAX_HOLDER} pieces"
        );
        let g = &shapes.geometry;
        let board = board & g.full;
        let cleared_first = g.full_lines(board);
        let start = board & !g.mask_of(cleared_first);
        let mut slots_of = [0; MAX_HOLDER];
        slots_of[..k].copy_from_slice(holder);
        let mut search = Search {
            shapes,
            full: g.full,
            k,
            pieces: [0; MAX_HOLDER],
            rec,
            out: Validation {
                k: k as u8,
                holder: slots_of,
                solvable: false,
                start,
                cleared_first,
                nodes: 0,
                nodes_per_depth: [0; MAX_HOLDER],
                orders: [OrderRecord::default(); MAX_ORDERS],
                n_orders: 0,
                solution: None,
            },
            path: [Step::default(); MAX_HOLDER],
            j: 0,
            solutions: 0,
            stopped: false,
        };
        search.orders(start);
        search.out.nodes = search.out.nodes_per_depth.iter().sum();
        *solutions = search.solutions;
        *stopped = search.stopped;
        finish(&search.out)
    }

    /// Fig. 4, step 1: while the next permutation is available.
    fn orders(&mut self, start: Bits) {
        let k = self.k;
        let mut perm = [0u8, 1, 2, 3];
        loop {
            let j = usize::from(self.out.n_orders);
            self.j = j;
            self.out.n_orders += 1;
            let record = &mut self.out.orders[j];
            record.slots = perm;
            // 1(a): adjust the holder to the permutation.
            for (d, &slot) in perm[..k].iter().enumerate() {
                self.pieces[d] = self.out.holder[usize::from(slot)];
            }
            // Repeated pieces make repeated orders: search each sequence once.
            let same_as = (0..j).find(|&i| {
                let other = &self.out.orders[i];
                other.same_as.is_none()
                    && (0..k).all(|d| self.out.holder[usize::from(other.slots[d])] == self.pieces[d])
            });
            if let Some(i) = same_as {
                self.out.orders[j].same_as = Some(i as u8);
                if R::ENABLED {
                    self.rec.push(Event::DuplicateOrder {
                        order: j as u8,
                        same_as: i as u8,
                    });
                }
            } else {
                if R::ENABLED {
                    self.rec.push(Event::Order {
                        order: j as u8,
                        slots: perm,
                    });
                }
                // 1(b): the positions of the first block, and below it the rest.
                if self.place_from(start, 0) && R::EXHAUSTIVE {
                    // Only the budget stops an exhaustive search early.
                    self.out.solvable = self.out.solution.is_some();
                    self.rec.push(Event::Stopped);
                    return;
                }
                if self.out.solution.is_some() && !R::EXHAUSTIVE {
                    self.out.solvable = true;
                    if R::ENABLED {
                        self.rec.push(Event::Solved);
                    }
                    return;
                }
            }
            // 1(d): use the next permutation.
            if !next_permutation(&mut perm[..k]) {
                break;
            }
        }
        // 2: no permutation left.
        self.out.solvable = self.out.solution.is_some();
        if R::ENABLED {
            self.rec.push(if self.out.solvable {
                Event::Solved
            } else {
                Event::Unsolvable
            });
        }
    }

    /// Tries every position of the block at position `depth` (0-based) of the
    /// order on `board`, and below each one the blocks after it. True on SUCCESS.
    fn place_from(&mut self, board: Bits, depth: usize) -> bool {
        let piece = self.pieces[depth];
        let mut fits = self.shapes.shape(piece).fits(board, self.full);
        if fits == 0 {
            // 1(b)ii.C, 1(b)iii, 1(c): no location for p(j, depth + 1).
            self.note_failure(depth);
            return false;
        }
        let slot = self.out.orders[self.j].slots[depth];
        // With two blocks left, once the first position has failed: where
        // did the last block fit before this placement? A placement that
        // clears no line only adds cells, so the last block fits after it
        // exactly where it fitted before and misses this block's cells; if
        // no such place is left, the failure is noted without searching.
        // Fast path only (the trace shows every step), and never before the
        // first position, so a deal solved at once pays nothing for it.
        let two_left = !R::ENABLED && depth + 2 == self.k;
        let mut last_room: Option<Bits> = None;
        let mut first = true;
        while fits != 0 {
            let anchor = fits.trailing_zeros();
            fits &= fits - 1;
            self.out.nodes_per_depth[depth] += 1;
            // 1(b)i, 1(b)ii.A: the new state after putting the block.
            let (next, lines) = self.shapes.place(board, piece, anchor);
            let (x, y) = self.shapes.xy(anchor);
            self.path[depth] = Step {
                slot,
                x: x as u8,
                y: y as u8,
                board: next,
                lines,
            };
            if R::ENABLED {
                self.rec.push(Event::Place {
                    depth: depth as u8 + 1,
                    slot,
                    x: x as u8,
                    y: y as u8,
                    board: next,
                    lines,
                });
            }
            if R::EXHAUSTIVE && !self.rec.keep_going(self.out.nodes_per_depth.iter().sum()) {
                self.stopped = true;
                return true;
            }
            // 1(b)ii.B: the last block placed means SUCCESS.
            if depth + 1 == self.k {
                if self.out.solution.is_none() {
                    self.out.solution = Some(Solution {
                        order: self.j as u8,
                        len: self.k as u8,
                        steps: self.path,
                    });
                }
                if !R::EXHAUSTIVE {
                    return true;
                }
                self.solutions += 1;
                self.rec.push(Event::Solution);
                continue;
            }
            if let Some(room) = last_room
                && lines.is_empty()
                && !self.room_left(room, piece, anchor)
            {
                // Exactly what `place_from(next, depth + 1)` would note.
                self.note_failure(depth + 1);
                continue;
            }
            if self.place_from(next, depth + 1) {
                return true;
            }
            if two_left && std::mem::take(&mut first) {
                let room = self.shapes.shape(self.pieces[self.k - 1]).fits(board, self.full);
                last_room = Some(room);
                if room == 0 && fits != 0 && !self.can_complete_a_line(board, piece) {
                    // No other placement clears a line either: each notes a
                    // failure of the last block, as the search would.
                    let n = fits.count_ones();
                    self.out.nodes_per_depth[depth] += u64::from(n);
                    let record = &mut self.out.orders[self.j];
                    record.deepest = record.deepest.max(depth as u8 + 2);
                    record.last = depth as u8 + 2;
                    record.counts[depth + 1] += n;
                    return false;
                }
            }
        }
        // 1(b)ii.C "move p(i2)'s location", 1(b)iv: every position tried.
        if R::ENABLED {
            self.rec.push(Event::Backtrack {
                depth: depth as u8 + 1,
            });
        }
        false
    }

    /// Whether the last block still has a place among `room` (where it fits
    /// before `piece` goes at `anchor`) that `piece`'s cells leave free.
    #[inline]
    fn room_left(&self, room: Bits, piece: PieceIdx, anchor: u32) -> bool {
        let placed = self.shapes.shape(piece).mask << anchor;
        let last = self.shapes.shape(self.pieces[self.k - 1]).mask;
        let mut r = room;
        while r != 0 {
            let a = r.trailing_zeros();
            if (last << a) & placed == 0 {
                return true;
            }
            r &= r - 1;
        }
        false
    }

    /// Whether some placement of `piece` could complete a line: some row or
    /// column misses no more cells than the piece has.
    #[inline]
    fn can_complete_a_line(&self, board: Bits, piece: PieceIdx) -> bool {
        let cells = self.shapes.shape(piece).cells() as u32;
        let g = &self.shapes.geometry;
        let free = !board & self.full;
        let (w, h) = (g.size.w(), g.size.h());
        g.rows[..h]
            .iter()
            .chain(&g.cols[..w])
            .any(|&line| (free & line).count_ones() <= cells)
    }

    /// Notes position `depth + 1` of the current order into unfitBlock.
    #[inline]
    fn note_failure(&mut self, depth: usize) {
        let pos = depth as u8 + 1;
        let record = &mut self.out.orders[self.j];
        record.deepest = record.deepest.max(pos);
        record.last = pos;
        record.counts[depth] += 1;
        if R::ENABLED {
            self.rec.push(Event::NoFit {
                depth: pos,
                slot: record.slots[depth],
            });
        }
    }
}

/// Steps `p` to the next permutation in lexicographic order (the paper's
/// Permute matrix lists b1 b2 b3, b1 b3 b2, b2 b1 b3, ...). False after the last.
fn next_permutation(p: &mut [u8]) -> bool {
    let n = p.len();
    if n < 2 {
        return false;
    }
    let mut i = n - 1;
    while i > 0 && p[i - 1] >= p[i] {
        i -= 1;
    }
    if i == 0 {
        return false;
    }
    let mut j = n - 1;
    while p[j] <= p[i - 1] {
        j -= 1;
    }
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{classic, holder};
    use crate::model::board::BoardSize;

    #[test]
    fn permutations_follow_the_papers_permute_matrix() {
        let mut p = [0u8, 1, 2];
        let mut all = vec![p];
        while next_permutation(&mut p) {
            all.push(p);
        }
        assert_eq!(
            all,
            [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
        );
    }

    #[test]
    fn an_empty_board_is_solved_by_the_first_positions() {
        let (set, shapes) = classic();
        let v = validate(&shapes, 0, &holder(&set, &["sq3", "h5", "l3_tl"]));
        assert!(v.solvable);
        assert_eq!(v.nodes, 3);
        let sol = v.solution.unwrap();
        assert_eq!(sol.order, 0);
        assert_eq!(sol.steps().len(), 3);
        assert_eq!((sol.steps()[1].x, sol.steps()[1].y), (3, 0));
    }

    #[test]
    fn a_board_without_room_for_sq3_fails_every_order_where_sq3_comes() {
        let (set, shapes) = classic();
        // Rows 2, 5 and 8 filled but for their last two cells: no 3x3 square
        // fits and no dot can complete a row.
        let g = &shapes.geometry;
        let board = (g.rows[2] | g.rows[5] | g.rows[8]) & !g.cols[8] & !g.cols[9];
        let v = validate(&shapes, board, &holder(&set, &["dot", "sq3"]));
        assert!(!v.solvable);
        assert_eq!(v.orders().len(), 2);
        // Order (dot, sq3) fails at position 2, order (sq3, dot) at position 1.
        assert_eq!(v.orders()[0].deepest, 2);
        assert_eq!(v.orders()[0].counts[1], 76);
        assert_eq!(v.nodes, 76);
        assert_eq!(v.orders()[1].deepest, 1);
        assert_eq!(v.orders()[1].slot_at(1), 1);
    }

    #[test]
    fn full_lines_on_the_input_are_cleared_first() {
        let (set, shapes) = classic();
        let g = &shapes.geometry;
        let v = validate(&shapes, g.full, &holder(&set, &["sq3"]));
        assert!(v.solvable);
        assert_eq!(v.cleared_first.count(), 20);
        assert_eq!(v.start, 0);
    }

    #[test]
    fn repeated_pieces_search_each_sequence_once() {
        let (set, shapes) = classic();
        let board = crate::model::board::checkerboard(BoardSize::CLASSIC);
        let v = validate(&shapes, board, &holder(&set, &["h2", "h2", "dot"]));
        assert!(!v.solvable);
        let searched = v.orders().iter().filter(|o| o.same_as.is_none()).count();
        assert_eq!(v.orders().len(), 6);
        assert_eq!(searched, 3);
        assert_eq!(v.orders()[2].same_as, Some(0));
    }
}
