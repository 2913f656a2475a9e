//! The 1010! analysis's strategy ("coelho"): for the whole holder, every
//! order and every placement of every piece; keep the end board with the best
//! weighted sum of the analysis's five criteria, in its order:
//!
//! 1. free cells (the raw count, 0 to 100 on 10x10),
//! 2. a 5x5 square still fits (0 or 1),
//! 3. the large pieces `sq3`, `h5`, `v5` still fit (the fraction that fit),
//! 4. alignment: the sum of squared filled counts of every row and column,
//!    divided by its largest possible value,
//! 5. surface: the count of differing neighbours (shift and xor; the border
//!    counts as the cell itself, so a lone cell inside has 4 and in a corner
//!    2, as in the analysis), divided by its largest possible value and
//!    minimised (one minus it is added).
//!
//! Free cells stay raw and the other four lie in 0..1, so with the analysis's
//! best weights "10025" free cells decide and the others break ties, which is
//! how the analysis reads its own result.
//!
//! Speed (the analysis's C evaluates about 583,000 end boards a round;
//! docs/benchmarks.md has the figures):
//! - a prefix placed out of slot order that has cleared no line yet reaches
//!   exactly the board its sorted order reaches, so it is skipped (the same
//!   holds for two copies of one piece placed the "wrong" way round);
//! - the placements that clear a line are found from the row and column
//!   counts without placing (`clearing`); every other placement's board and
//!   counts are the old ones plus the piece's own;
//! - end boards already evaluated in the round are skipped (a table);
//! - the free-cell count is carried down the search, and the boards the
//!   last piece leaves without clearing are bounded all at once (free
//!   cells, surface, alignment): when the bound cannot beat the best, only
//!   the clearing placements are visited;
//! - the criteria are bit tricks on the whole board: runs of empty cells by
//!   shift-and for the large pieces, a table that adds a row's cells into
//!   per-column nibbles for the alignment, shift-xor-popcount for the surface,
//!   and the weighted terms are tabled (`coelho_terms`).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::board::{Bits, BoardSize, Geometry, Lines};
use crate::model::pieces::MAX_HOLDER;
use crate::model::pieces::PieceIdx;
use crate::model::shapes::{Shapes, score};
use crate::progress::Progress;

use super::coelho_terms::Terms;

/// The five criteria weights, written as the analysis writes them: "10025"
/// is free cells 1, 5x5 square 0, large pieces 0, alignment 2, surface 5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CoelhoWeights(pub [u8; 5]);

impl CoelhoWeights {
    /// The analysis's best strategy.
    pub const BEST: Self = Self([1, 0, 0, 2, 5]);

    pub fn parse(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let digits: Vec<u8> = s.bytes().map(|b| b.wrapping_sub(b'0')).collect();
        if digits.len() != 5 || digits.iter().any(|&d| d > 9) {
            return Err(format!(
                "weights are five digits, one per criterion (free cells, 5x5 square, large pieces, alignment, surface), like 10025; got {s:?}"
            ));
        }
        let mut w = [0; 5];
        w.copy_from_slice(&digits);
        Ok(Self(w))
    }
}

impl Default for CoelhoWeights {
    fn default() -> Self {
        Self::BEST
    }
}

impl fmt::Display for CoelhoWeights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in self.0 {
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

/// The five criteria of one board, raw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Criteria {
    pub free: u32,
    pub square5_fits: bool,
    /// How many of `sq3`, `h5` and `v5` fit (0 to 3).
    pub large_fit: u32,
    /// Sum over rows and columns of the filled count squared.
    pub alignment: u32,
    /// Pairs of side-by-side cells, one filled and one empty.
    pub surface: u32,
}

/// Filled cells of every row and of every column, and the alignment. Four
/// entries past the largest side, always 0, so that a piece's five rows or
/// columns can be added from any of its anchors without a bound to check.
pub(crate) type LineCounts = ([u8; LINES], [u8; LINES], u32);
/// Room for a board's rows, or its columns.
pub(crate) const LINES: usize = crate::model::board::MAX_SIDE as usize;

/// The criteria of boards of one size, with the masks and tables they use.
#[derive(Clone, Debug)]
pub struct Evaluator {
    size: BoardSize,
    full: Bits,
    /// The row and column masks, for boards too large for the table.
    geometry: crate::model::board::Geometry,
    /// Cells with a right neighbour, and cells with one below.
    right: Bits,
    below: Bits,
    /// Anchors where a box of that size stays on the board.
    square5: Bits,
    square3: Bits,
    row5: Bits,
    col5: Bits,
    pub max_alignment: u32,
    pub max_surface: u32,
    /// For boards up to 12 wide and 15 high: each row pattern spread into
    /// one nibble per column (a column's count is at most 15) plus its cell
    /// count in the top byte, so adding the rows' entries counts every
    /// column at once.
    spread: Vec<u64>,
}

/// Anchors of a `bw` x `bh` box on a `size` board.
fn box_anchors(size: BoardSize, bw: usize, bh: usize) -> Bits {
    let (w, h) = (size.w(), size.h());
    let mut a: Bits = 0;
    if bw <= w && bh <= h {
        for y in 0..=h - bh {
            for x in 0..=w - bw {
                a |= 1 << (y * w + x);
            }
        }
    }
    a
}

impl Evaluator {
    pub fn new(size: BoardSize) -> Self {
        let (w, h) = (size.w(), size.h());
        let geometry = crate::model::board::Geometry::new(size);
        let spread = if w <= 12 && h <= 15 {
            (0u32..1 << w)
                .map(|r| {
                    let nibbles: u64 = (0..w).filter(|x| r >> x & 1 == 1).map(|x| 1u64 << (4 * x)).sum();
                    nibbles | u64::from(r.count_ones()) << 56
                })
                .collect()
        } else {
            Vec::new()
        };
        let (w32, h32) = (w as u32, h as u32);
        Self {
            size,
            full: geometry.full,
            geometry,
            right: box_anchors(size, 2, 1),
            below: box_anchors(size, 1, 2),
            square5: box_anchors(size, 5, 5),
            square3: box_anchors(size, 3, 3),
            row5: box_anchors(size, 5, 1),
            col5: box_anchors(size, 1, 5),
            max_alignment: h32 * w32 * w32 + w32 * h32 * h32,
            max_surface: h32 * (w32 - 1) + w32 * (h32 - 1),
            spread,
        }
    }

    pub fn size(&self) -> BoardSize {
        self.size
    }

    /// Criteria 2 and 3: runs of empty cells by shift-and, first along rows
    /// then down columns.
    #[inline]
    pub(crate) fn large_fits(&self, board: Bits) -> (bool, u32) {
        let w = self.size.w();
        let e = !board & self.full;
        let h2 = e & e >> 1;
        let h3 = h2 & e >> 2;
        let h5 = h3 & h2 >> 3;
        let square3 = h3 & h3 >> w & h3 >> (2 * w) & self.square3 != 0;
        let row5 = h5 & self.row5 != 0;
        let v2 = e & e >> w;
        let col5 = v2 & v2 >> (2 * w) & e >> (4 * w) & self.col5 != 0;
        let s2 = h5 & h5 >> w;
        let square5 = s2 & s2 >> (2 * w) & h5 >> (4 * w) & self.square5 != 0;
        (square5, u32::from(square3) + u32::from(row5) + u32::from(col5))
    }

    /// Criterion 4: the sum of squared filled counts of rows and columns.
    #[inline]
    pub(crate) fn alignment(&self, board: Bits) -> u32 {
        self.line_counts(board).2
    }

    /// Filled cells of every row and column, and the alignment they give.
    #[inline]
    pub(crate) fn line_counts(&self, board: Bits) -> LineCounts {
        let (w, h) = (self.size.w(), self.size.h());
        let (mut rows, mut cols) = ([0u8; LINES], [0u8; LINES]);
        if self.spread.is_empty() {
            // Wider than 12 or higher than 15 (sides are at most 16): the
            // plain way.
            let g = &self.geometry;
            for (row, &m) in rows.iter_mut().zip(&g.rows[..h]) {
                *row = (board & m).count_ones() as u8;
            }
            for (col, &m) in cols.iter_mut().zip(&g.cols[..w]) {
                *col = (board & m).count_ones() as u8;
            }
        } else {
            let row_mask: Bits = (1 << w) - 1;
            let mut columns = 0u64;
            let mut b = board;
            for row in rows.iter_mut().take(h) {
                let entry = self.spread[(b & row_mask) as usize];
                *row = (entry >> 56) as u8;
                columns += entry & ((1 << 56) - 1);
                b >>= w;
            }
            for col in cols.iter_mut().take(w) {
                *col = (columns & 15) as u8;
                columns >>= 4;
            }
        }
        let sq = |c: &u8| u32::from(*c).pow(2);
        (
            rows,
            cols,
            rows.iter().map(sq).sum::<u32>() + cols.iter().map(sq).sum::<u32>(),
        )
    }

    /// Criterion 5: differing neighbours, by shift and xor (the analysis's
    /// `count(((grid >> 1) ...) ^ grid)` with the border counted as the cell).
    #[inline]
    pub(crate) fn surface(&self, board: Bits) -> u32 {
        let w = self.size.w();
        ((board ^ board >> 1) & self.right).count_ones() + ((board ^ board >> w) & self.below).count_ones()
    }

    pub fn criteria(&self, board: Bits) -> Criteria {
        let (square5_fits, large_fit) = self.large_fits(board);
        Criteria {
            free: (!board & self.full).count_ones(),
            square5_fits,
            large_fit,
            alignment: self.alignment(board),
            surface: self.surface(board),
        }
    }

    /// The weighted sum of the criteria (free cells raw, the rest in 0..1).
    pub fn value(&self, c: &Criteria, weights: CoelhoWeights) -> f64 {
        // Written out, not as a dot product with `features`: the rounding
        // of this order is what every seeded figure was measured with.
        let w = weights.0.map(f64::from);
        w[0] * f64::from(c.free)
            + w[1] * f64::from(u8::from(c.square5_fits))
            + w[2] * f64::from(c.large_fit) / 3.0
            + w[3] * f64::from(c.alignment) / f64::from(self.max_alignment.max(1))
            + w[4] * (1.0 - f64::from(c.surface) / f64::from(self.max_surface.max(1)))
    }

    /// `value`'s five terms tabulated for `weights`: the same sum, to the
    /// bit, by five lookups (a piece player values every placement).
    pub fn table(&self, weights: CoelhoWeights) -> ValueTable {
        let w = weights.0.map(f64::from);
        let free = (0..=self.size.cells() as u32)
            .map(|f| w[0] * f64::from(f))
            .collect();
        let large = (0..=3u32).map(|l| w[2] * f64::from(l) / 3.0).collect();
        let alignment = (0..=self.max_alignment)
            .map(|a| w[3] * f64::from(a) / f64::from(self.max_alignment.max(1)))
            .collect();
        let surface = (0..=self.max_surface)
            .map(|s| w[4] * (1.0 - f64::from(s) / f64::from(self.max_surface.max(1))))
            .collect();
        ValueTable {
            weights,
            free,
            square5: [w[1] * 0.0, w[1] * 1.0],
            large,
            alignment,
            surface,
        }
    }

    /// The five criteria on their natural scales, the ones the analysis's
    /// weights multiply: free cells (a count), a 5x5 square fits (0 or 1),
    /// the share of the large pieces that fit, alignment over its largest
    /// value, and one minus the surface over its largest value (so more is
    /// better for each). A value player's β multiply these.
    pub fn features(&self, c: &Criteria) -> [f64; 5] {
        [
            f64::from(c.free),
            f64::from(u8::from(c.square5_fits)),
            f64::from(c.large_fit) / 3.0,
            f64::from(c.alignment) / f64::from(self.max_alignment.max(1)),
            1.0 - f64::from(c.surface) / f64::from(self.max_surface.max(1)),
        ]
    }
}

/// The terms of `Evaluator::value` for one set of weights, by criterion
/// value (`Evaluator::table`).
#[derive(Clone, Debug, PartialEq)]
pub struct ValueTable {
    pub weights: CoelhoWeights,
    free: Vec<f64>,
    square5: [f64; 2],
    large: Vec<f64>,
    alignment: Vec<f64>,
    surface: Vec<f64>,
}

impl ValueTable {
    /// `Evaluator::value` of `c`, summed in its order.
    #[inline]
    pub fn value(&self, c: &Criteria) -> f64 {
        self.rest(
            self.first(c.free, c.square5_fits, c.large_fit),
            c.alignment,
            c.surface,
        )
    }

    /// The sum of `value`'s first three terms: the same for every
    /// placement of a piece that clears nothing when criteria 2 and 3 are
    /// not weighed, so made once per piece.
    #[inline]
    pub fn first(&self, free: u32, square5_fits: bool, large_fit: u32) -> f64 {
        self.free[free as usize] + self.square5[usize::from(square5_fits)] + self.large[large_fit as usize]
    }

    /// `value` from the sum of its first three terms, in its order.
    #[inline]
    pub fn rest(&self, first: f64, alignment: u32, surface: u32) -> f64 {
        first + self.alignment[alignment as usize] + self.surface[surface as usize]
    }
}

/// A placement: the piece and its anchor bit.
pub type Move = (PieceIdx, u32);

/// What one round's search did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchCounts {
    /// Boards with the whole holder placed, before any skipping.
    pub end_boards: u64,
    /// End boards whose criteria were computed.
    pub evaluations: u64,
}

/// The best end board for a holder, with its moves and points.
#[derive(Clone, Debug, PartialEq)]
pub struct Best {
    pub board: Bits,
    pub points: u64,
    pub value: f64,
    pub moves: Vec<Move>,
}

struct Search<'a> {
    shapes: &'a Shapes,
    eval: &'a Evaluator,
    terms: &'a Terms,
    holder: &'a [PieceIdx],
    /// Filled cells of each piece per row and per column of its box.
    pieces: &'a [PieceCounts],
    seen: &'a mut SeenBoards,
    dedup: bool,
    path: [Move; MAX_HOLDER],
    best: Option<(f64, Bits, u64, [Move; MAX_HOLDER])>,
    counts: SearchCounts,
    /// Read before every last piece, so a cancel stops a round of millions
    /// of end boards (holders of 4 on large boards) within milliseconds.
    progress: &'a Progress,
    stopped: bool,
}

/// Where the search stands after some placements.
#[derive(Clone, Copy)]
struct Step {
    board: Bits,
    free: u32,
    used: u8,
    depth: usize,
    /// Slot and anchor of the last placement, and whether it cleared lines.
    last: Option<(usize, u32, bool)>,
    /// The slots so far are out of order / some line has cleared.
    inverted: bool,
    cleared: bool,
    points: u64,
}

impl Search<'_> {
    /// The line counts after placing `piece` at `anchor` with no line
    /// cleared: the piece's own counts added, the alignment updated by
    /// (n + m)² - n² = m (2n + m).
    #[inline]
    fn grown(&self, counts: &LineCounts, piece: PieceIdx, anchor: u32) -> LineCounts {
        let (mut rows, mut cols, mut align) = *counts;
        let p = &self.pieces[usize::from(piece)];
        let (x0, y0) = self.shapes.xy(anchor);
        let shape = self.shapes.shape(piece);
        for (row, &n) in rows[y0..].iter_mut().zip(&p.rows[..usize::from(shape.height)]) {
            align += u32::from(n) * (2 * u32::from(*row) + u32::from(n));
            *row += n;
        }
        for (col, &n) in cols[x0..].iter_mut().zip(&p.cols[..usize::from(shape.width)]) {
            align += u32::from(n) * (2 * u32::from(*col) + u32::from(n));
            *col += n;
        }
        (rows, cols, align)
    }

    /// Whether placing `slot` next is worth trying, and whether the prefix is
    /// then out of slot order.
    fn next_slot(&self, s: &Step, slot: usize) -> Option<bool> {
        let piece = self.holder[slot];
        // Copies of one piece are taken in slot order.
        if s.used & 1 << slot != 0 || (0..slot).any(|t| s.used & 1 << t == 0 && self.holder[t] == piece) {
            return None;
        }
        Some(s.inverted || s.last.is_some_and(|(l, _, _)| slot < l))
    }

    /// Skips a placement whose board another path reaches with the same
    /// pieces left: out of slot order with no line cleared (the sorted order
    /// reaches it), or a second copy of a piece placed before the first's
    /// anchor with neither clearing.
    #[inline]
    fn duplicate(s: &Step, inverted: bool, same_as_last: bool, clears: bool, anchor: u32) -> bool {
        (inverted && !s.cleared && !clears)
            || (same_as_last && !clears && s.last.is_some_and(|(_, a, c)| !c && anchor < a))
    }

    /// `counts` are the board's line counts.
    fn run(&mut self, s: Step, counts: &LineCounts) {
        let k = self.holder.len();
        if self.stopped || self.progress.cancelled() {
            self.stopped = true;
            return;
        }
        if s.depth + 1 == k {
            self.last_piece(s, counts);
            return;
        }
        // The line counts tell which placements clear a line; the others
        // need no look at the lines, and their boards' counts grow by the
        // piece's own.
        let full = self.shapes.geometry.full;
        for slot in 0..k {
            let Some(inverted) = self.next_slot(&s, slot) else {
                continue;
            };
            let piece = self.holder[slot];
            let same_as_last = s.last.is_some_and(|(l, _, _)| self.holder[l] == piece);
            let shape = self.shapes.shape(piece);
            let cells = shape.cells() as u32;
            let mut fits = shape.fits(s.board, full);
            let clearing = clearing(
                &self.shapes.geometry,
                &self.pieces[usize::from(piece)],
                s.board,
                fits,
                counts,
            );
            while fits != 0 {
                let bit = fits & fits.wrapping_neg();
                fits ^= bit;
                let anchor = bit.trailing_zeros();
                let (next, lines) = if clearing & bit != 0 {
                    self.shapes.place(s.board, piece, anchor)
                } else {
                    (s.board | shape.mask << anchor, Lines::default())
                };
                let clears = !lines.is_empty();
                if Self::duplicate(&s, inverted, same_as_last, clears, anchor) {
                    continue;
                }
                let free = if clears {
                    (!next & full).count_ones()
                } else {
                    s.free - cells
                };
                self.path[s.depth] = (piece, anchor);
                let next_counts = if clears {
                    self.eval.line_counts(next)
                } else {
                    self.grown(counts, piece, anchor)
                };
                self.run(
                    Step {
                        board: next,
                        free,
                        used: s.used | 1 << slot,
                        depth: s.depth + 1,
                        last: Some((slot, anchor, clears)),
                        inverted,
                        cleared: s.cleared || clears,
                        points: s.points + score(cells as usize, lines),
                    },
                    &next_counts,
                );
            }
        }
    }

    /// The last piece: where most of the work is, so the lines it could
    /// complete and the row and column counts are found once, and a
    /// placement that clears nothing gets its free cells and alignment by
    /// adding the piece's own counts (incremental criteria).
    fn last_piece(&mut self, s: Step, counts: &LineCounts) {
        let Some(slot) = (0..self.holder.len()).find(|&t| s.used & 1 << t == 0) else {
            return self.leaf(s.board, s.free, None, s.points, s.depth);
        };
        let Some(inverted) = self.next_slot(&s, slot) else {
            return;
        };
        let piece = self.holder[slot];
        let same_as_last = s.last.is_some_and(|(l, _, _)| self.holder[l] == piece);
        let g = &self.shapes.geometry;
        let shape = self.shapes.shape(piece);
        let cells = shape.cells() as u32;
        let (rows, cols, alignment) = *counts;
        let PieceCounts { rows: a, cols: b, .. } = self.pieces[usize::from(piece)];
        let mut fits = shape.fits(s.board, g.full);
        let clearing = clearing(g, &self.pieces[usize::from(piece)], s.board, fits, counts);
        // Every placement that clears nothing leaves the same free cells, a
        // surface no lower and an alignment no higher than `plain_most`
        // assumes: when even that cannot win, skip them all. (The free cells
        // with every other criterion at its best often settle it first.)
        let loose = self.terms.weights[0] * f64::from(s.free - cells) + self.terms.rest_max;
        let (plain_most, align_most) = if self.best.as_ref().is_some_and(|b| loose <= b.0) {
            (loose, None)
        } else {
            let (most, align) = self.plain_most(&s, piece, counts);
            (most, Some(align))
        };
        if self.best.as_ref().is_some_and(|b| plain_most <= b.0) {
            // Already hopeless at the start: visit only the placements that
            // clear, and count the others as met, as the loop would have (the
            // duplicates left out).
            let plain = fits & !clearing;
            let met = match s.last {
                _ if inverted && !s.cleared => 0,
                Some((_, a, false)) if same_as_last => plain & !((1 << a) - 1),
                _ => plain,
            };
            self.counts.end_boards += u64::from(met.count_ones());
            fits = clearing;
        }
        while fits != 0 {
            let bit = fits & fits.wrapping_neg();
            fits ^= bit;
            let anchor = bit.trailing_zeros();
            if clearing & bit != 0 {
                let (next, lines) = self.shapes.place(s.board, piece, anchor);
                debug_assert!(!lines.is_empty());
                if Self::duplicate(&s, inverted, same_as_last, true, anchor) {
                    continue;
                }
                self.path[s.depth] = (piece, anchor);
                self.leaf(
                    next,
                    (!next & g.full).count_ones(),
                    None,
                    s.points + score(cells as usize, lines),
                    s.depth + 1,
                );
                continue;
            }
            if Self::duplicate(&s, inverted, same_as_last, false, anchor) {
                continue;
            }
            let after = s.board | shape.mask << anchor;
            if let (Some(best), Some(align_most)) = (&self.best, align_most) {
                // With this board's surface known, the alignment's bound
                // alone may settle it before the alignment is counted.
                let most = self
                    .terms
                    .most(s.free - cells, self.eval.surface(after), align_most);
                if plain_most <= best.0 || most <= best.0 {
                    self.counts.end_boards += 1;
                    continue;
                }
            }
            // Nothing cleared: the alignment grows by the piece's own counts.
            let (x0, y0) = self.shapes.xy(anchor);
            let mut align = alignment;
            for (dy, &n) in a.iter().enumerate().take(usize::from(shape.height)) {
                align += u32::from(n) * (2 * u32::from(rows[y0 + dy]) + u32::from(n));
            }
            for (dx, &n) in b.iter().enumerate().take(usize::from(shape.width)) {
                align += u32::from(n) * (2 * u32::from(cols[x0 + dx]) + u32::from(n));
            }
            self.path[s.depth] = (piece, anchor);
            self.leaf(
                after,
                s.free - cells,
                Some(align),
                s.points + u64::from(cells),
                s.depth + 1,
            );
        }
    }

    /// The most a board can be worth that `piece` leaves without clearing a
    /// line: its free cells known, the surface lowered by at most the
    /// piece's perimeter, each row and column it enters no fuller than the
    /// fullest one now plus its cells there, and every other criterion at
    /// its best. Summed in the order `Terms::known` sums, so it is never
    /// below the value of such a board.
    #[inline]
    fn plain_most(&self, s: &Step, piece: PieceIdx, counts: &LineCounts) -> (f64, u32) {
        let p = &self.pieces[usize::from(piece)];
        let cells = self.shapes.shape(piece).cells() as u32;
        let (rows, cols, alignment) = counts;
        let fullest = |lines: &[u8; LINES]| u32::from(lines.iter().fold(0, |m, &n| m.max(n)));
        let (fullest_row, fullest_col) = (fullest(rows), fullest(cols));
        let grow = |n: &u8, fullest: u32| u32::from(*n) * (2 * fullest + u32::from(*n));
        let align = alignment
            + p.rows.iter().map(|n| grow(n, fullest_row)).sum::<u32>()
            + p.cols.iter().map(|n| grow(n, fullest_col)).sum::<u32>();
        let surface = self.eval.surface(s.board).saturating_sub(p.perimeter);
        (self.terms.most(s.free - cells, surface, align), align)
    }

    /// The part of the value that is cheap with the free cells (and maybe
    /// the alignment) known, and the most the other criteria can add.
    #[inline]
    fn known(&self, board: Bits, free: u32, alignment: Option<u32>) -> (f64, f64) {
        let w = &self.terms.weights;
        let mut v = w[0] * f64::from(free);
        if w[4] != 0.0 {
            v += self.terms.surface(self.eval.surface(board));
        }
        let mut most = w[1] + w[2];
        match alignment {
            Some(a) if w[3] != 0.0 => v += self.terms.alignment(a),
            _ => most += w[3],
        }
        (v, most)
    }

    /// The rest of `known`'s value: the large-piece room and, when it was
    /// not carried down, the alignment.
    #[inline]
    fn rest(&self, board: Bits, alignment: Option<u32>) -> f64 {
        let w = &self.terms.weights;
        let mut v = 0.0;
        if w[1] != 0.0 || w[2] != 0.0 {
            let (square5, large) = self.eval.large_fits(board);
            v += w[1] * f64::from(u8::from(square5)) + w[2] * f64::from(large) / 3.0;
        }
        if w[3] != 0.0 && alignment.is_none() {
            v += self.terms.alignment(self.eval.alignment(board));
        }
        v
    }

    #[inline]
    fn leaf(&mut self, board: Bits, free: u32, alignment: Option<u32>, points: u64, depth: usize) {
        debug_assert_eq!(depth, self.holder.len());
        self.counts.end_boards += 1;
        let best = self.best.as_ref().map_or(f64::NEG_INFINITY, |b| b.0);
        // Not even every other criterion at its best would win: ties keep the
        // board found first, so "not greater" is enough to skip.
        if self.terms.weights[0] * f64::from(free) + self.terms.rest_max <= best {
            return;
        }
        // The cheap criteria next (surface is two popcounts, the alignment
        // often carried down): if the rest at their best still would not win,
        // skip before the table and the costly criteria.
        let (known, unknown_max) = self.known(board, free, alignment);
        if known + unknown_max <= best {
            return;
        }
        if self.dedup && !self.seen.insert(board) {
            return;
        }
        self.counts.evaluations += 1;
        let value = known + self.rest(board, alignment);
        if value > best {
            self.best = Some((value, board, points, self.path));
        }
    }
}

/// The end boards evaluated this round, in a direct-mapped table of 4,096
/// boards: a board met again while still in the table is skipped. A board
/// pushed out by another is evaluated again if met again (never skipped
/// wrongly); in practice the repeats come close together (two orders of the
/// same pieces), and a table this size costs a memset per round and stays
/// in the first-level cache, where a growing hash set did not pay for itself.
#[derive(Clone, Debug)]
struct SeenBoards {
    slots: Vec<Bits>,
}

impl SeenBoards {
    const BITS: u32 = 12;
    /// Never an end board: a board with every cell filled has its lines cleared.
    const EMPTY: Bits = Bits::MAX;

    fn new() -> Self {
        Self {
            slots: vec![Self::EMPTY; 1 << Self::BITS],
        }
    }

    fn clear(&mut self) {
        self.slots.fill(Self::EMPTY);
    }

    /// True when `board` was not in the table (and now is).
    #[inline]
    fn insert(&mut self, board: Bits) -> bool {
        let mixed =
            (board as u64 ^ (board >> 64) as u64 ^ (board >> 37) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let slot = &mut self.slots[(mixed >> (64 - Self::BITS)) as usize];
        if *slot == board {
            return false;
        }
        *slot = board;
        true
    }
}

/// Which lines a piece can complete, sixteen lines at once: a line's
/// filled count `n` sits in one byte, and a byte holding `n + 128 - k` (no
/// carry, as `n`, `k` <= 16) has its top bit set exactly when `n >= k`.
#[derive(Clone, Copy, Debug)]
struct NearLines {
    /// `128 - (side - most)` and `128 - side` in every byte, and the bytes
    /// of lines on the board.
    at_least: u128,
    full: u128,
    lanes: u128,
}

impl NearLines {
    const LOW: u128 = u128::MAX / 255;

    /// Lines of `side` cells, `count` of them, and a piece with at most
    /// `most` cells in one of them.
    fn new(count: usize, side: usize, most: u32) -> Self {
        let byte = |k: usize| Self::LOW * (128 - k.min(128)) as u128;
        Self {
            at_least: byte(side.saturating_sub(most as usize)),
            full: byte(side),
            lanes: if count >= 16 {
                u128::MAX
            } else {
                (1 << (8 * count)) - 1
            },
        }
    }

    /// The top bit of the byte of each line with 1 to `most` empty cells.
    #[inline]
    fn of(&self, filled: &[u8; 16]) -> u128 {
        let n = u128::from_le_bytes(*filled);
        let top = Self::LOW << 7;
        (n + self.at_least) & !(n + self.full) & top & self.lanes
    }
}

/// The anchors among `fits` at which a piece completes a row or a column:
/// for each line with no more empty cells than the piece has in one such
/// line, the anchors covering every one of its empty cells. (A line already
/// full is left out: a game clears it before anyone searches.)
#[inline]
fn clearing(g: &Geometry, p: &PieceCounts, board: Bits, fits: Bits, counts: &LineCounts) -> Bits {
    let mut clearing: Bits = 0;
    let mut complete = |line: Bits| {
        let mut empty = !board & line;
        let mut at = fits;
        while empty != 0 && at != 0 {
            at &= p.covering(empty.trailing_zeros());
            empty &= empty - 1;
        }
        clearing |= at;
    };
    let mut near_rows = p.near_rows.of(&counts.0);
    while near_rows != 0 {
        complete(g.rows[near_rows.trailing_zeros() as usize / 8]);
        near_rows &= near_rows - 1;
    }
    let mut near_cols = p.near_cols.of(&counts.1);
    while near_cols != 0 {
        complete(g.cols[near_cols.trailing_zeros() as usize / 8]);
        near_cols &= near_cols - 1;
    }
    clearing
}

/// What the search needs of each piece: its filled cells per row and per
/// column of its box, and its cells reflected (bit `top - offset` for each
/// cell's offset), so that the anchors placing a cell on board cell `e` are
/// one shift of `reflected`.
#[derive(Clone, Copy, Debug)]
struct PieceCounts {
    rows: [u8; 5],
    cols: [u8; 5],
    reflected: Bits,
    top: u32,
    /// The rows and the columns it could complete, by their filled counts:
    /// not those with more empty cells than it has cells in one line.
    near_rows: NearLines,
    near_cols: NearLines,
    /// Sides between one of its cells and a cell not its own: placing it
    /// without clearing lowers the surface by at most that.
    perimeter: u32,
}

impl PieceCounts {
    /// Anchors at which the piece covers board cell `e`.
    #[inline]
    fn covering(&self, e: u32) -> Bits {
        if e >= self.top {
            self.reflected << (e - self.top)
        } else {
            self.reflected >> (self.top - e)
        }
    }
}

fn piece_counts(shapes: &Shapes) -> Vec<PieceCounts> {
    let (w, h) = (shapes.size().w(), shapes.size().h());
    shapes
        .shapes
        .iter()
        .map(|shape| {
            let (mut rows, mut cols) = ([0u8; 5], [0u8; 5]);
            let at = |x: i64, y: i64| {
                (0..w as i64).contains(&x) && y >= 0 && shape.mask >> (y * w as i64 + x) & 1 == 1
            };
            let mut perimeter = 0;
            let top = Bits::BITS - 1 - shape.mask.leading_zeros();
            let mut reflected: Bits = 0;
            let mut m = shape.mask;
            while m != 0 {
                let i = m.trailing_zeros();
                m &= m - 1;
                reflected |= 1 << (top - i);
                let (x, y) = (i as usize % w, i as usize / w);
                let (xi, yi) = (x as i64, y as i64);
                perimeter += [(1, 0), (-1, 0), (0, 1), (0, -1)]
                    .iter()
                    .filter(|(dx, dy)| !at(xi + dx, yi + dy))
                    .count() as u32;
                if x < 5 && y < 5 {
                    rows[y] += 1;
                    cols[x] += 1;
                }
            }
            PieceCounts {
                rows,
                cols,
                reflected,
                top,
                near_rows: NearLines::new(h, w, rows.iter().copied().max().map_or(0, u32::from)),
                near_cols: NearLines::new(w, h, cols.iter().copied().max().map_or(0, u32::from)),
                perimeter,
            }
        })
        .collect()
}

/// About how many rounds a second one core plays with the coelho strategy
/// on a board of `cells` cells and holders of `k`, for warnings before a
/// long run. The search tries every order and placement of the whole
/// holder, about k!·cells^k end boards; with pruning and deduplication the
/// time grows as that count to the power 0.7. Both anchors were measured
/// with `tenten simulate --strategy coelho --max-rounds 60` on the
/// development machine: about 300 rounds a second per core over whole games
/// at 10x10 with holders of 3, and the exponent fitted to 8x8 and 10x10
/// with holders of 2, 3 and 4 (within a factor of 2 of each).
pub fn rounds_per_second_estimate(k: usize, cells: usize) -> f64 {
    let end_boards = |k: usize, cells: usize| {
        let orders: f64 = (1..=k).map(|i| i as f64).product();
        orders * (cells.max(1) as f64).powi(k as i32)
    };
    300.0 * (end_boards(3, 100) / end_boards(k, cells)).powf(0.7)
}

/// The analysis's strategy with its weights.
#[derive(Clone, Debug)]
pub struct CoelhoStrategy {
    pub weights: CoelhoWeights,
    /// Skip end boards already evaluated this round (on by default; off only
    /// to measure what the skipping saves).
    pub dedup: bool,
    eval: Option<Evaluator>,
    terms: Option<(CoelhoWeights, BoardSize, Terms)>,
    seen: SeenBoards,
    /// Totals over every round played.
    pub counts: SearchCounts,
}

impl CoelhoStrategy {
    pub fn new(weights: CoelhoWeights) -> Self {
        Self {
            weights,
            dedup: true,
            eval: None,
            terms: None,
            seen: SeenBoards::new(),
            counts: SearchCounts::default(),
        }
    }

    /// The best end board for `holder` on `board`, or `None` when the holder
    /// cannot be placed whole.
    pub fn best(&mut self, shapes: &Shapes, board: Bits, holder: &[PieceIdx]) -> Option<Best> {
        self.best_until(shapes, board, holder, &Progress::default())
    }

    /// `best`, stopping with `None` as soon as `progress` is cancelled.
    pub fn best_until(
        &mut self,
        shapes: &Shapes,
        board: Bits,
        holder: &[PieceIdx],
        progress: &Progress,
    ) -> Option<Best> {
        assert!(
            holder.len() <= MAX_HOLDER,
            "a holder has at most {MAX_HOLDER} pieces"
        );
        if self.eval.as_ref().is_none_or(|e| e.size() != shapes.size()) {
            self.eval = Some(Evaluator::new(shapes.size()));
        }
        let eval = self.eval.as_ref()?;
        if self
            .terms
            .as_ref()
            .is_none_or(|t| (t.0, t.1) != (self.weights, eval.size()))
        {
            let w = self.weights.0.map(f64::from);
            let terms = Terms::new(w, eval.max_surface.max(1), eval.max_alignment.max(1));
            self.terms = Some((self.weights, eval.size(), terms));
        }
        let terms = &self.terms.as_ref()?.2;
        self.seen.clear();
        let pieces = piece_counts(shapes);
        let mut search = Search {
            shapes,
            eval,
            terms,
            holder,
            pieces: &pieces,
            seen: &mut self.seen,
            dedup: self.dedup,
            path: [(0, 0); MAX_HOLDER],
            best: None,
            counts: SearchCounts::default(),
            progress,
            stopped: false,
        };
        search.run(
            Step {
                board,
                free: (!board & shapes.geometry.full).count_ones(),
                used: 0,
                depth: 0,
                last: None,
                inverted: false,
                cleared: false,
                points: 0,
            },
            &eval.line_counts(board),
        );
        if search.stopped {
            return None;
        }
        let (found, counts) = (search.best, search.counts);
        self.counts.end_boards += counts.end_boards;
        self.counts.evaluations += counts.evaluations;
        found.map(|(value, board, points, path)| Best {
            board,
            points,
            value,
            moves: path[..holder.len()].to_vec(),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::fixtures::{board, classic};
    #[test]
    fn the_rate_estimate_falls_with_holder_and_board() {
        use super::rounds_per_second_estimate as rate;
        assert!((rate(3, 100) - 300.0).abs() < 1e-9);
        assert!(rate(4, 100) < rate(3, 100) / 50.0);
        assert!(rate(3, 128) < rate(3, 100) && rate(3, 64) > rate(3, 100));
        // The 16x8 with holders of 4: a round or two a second.
        assert!(rate(4, 128) < 3.0 && rate(4, 128) > 0.5, "{}", rate(4, 128));
    }

    use super::*;

    use crate::model::pieces::PieceSet;

    #[test]
    fn weights_read_and_write_as_the_analysis_writes_them() {
        assert_eq!(CoelhoWeights::parse("10025").unwrap(), CoelhoWeights::BEST);
        assert_eq!(CoelhoWeights::BEST.to_string(), "10025");
        for bad in ["1002", "100250", "1002x", "", "-1002"] {
            assert!(CoelhoWeights::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn criteria_of_hand_made_boards() {
        let e = Evaluator::new(BoardSize::CLASSIC);
        assert_eq!((e.max_alignment, e.max_surface), (2000, 180));
        // Empty: everything fits, no alignment, no surface.
        let c = e.criteria(0);
        assert_eq!(
            c,
            Criteria {
                free: 100,
                square5_fits: true,
                large_fit: 3,
                alignment: 0,
                surface: 0
            }
        );
        // A lone cell inside has surface 4, in a corner 2 (the analysis).
        let mut rows = [".........."; 10];
        rows[4] = "....#.....";
        let inside = e.criteria(board(&rows));
        assert_eq!((inside.surface, inside.alignment, inside.free), (4, 2, 99));
        rows[4] = "..........";
        rows[0] = "#.........";
        assert_eq!(e.criteria(board(&rows)).surface, 2);
        rows[0] = "..........";
        rows[9] = ".........#";
        assert_eq!(e.criteria(board(&rows)).surface, 2);
        // A full first row and a full first column: rows 10² + 9·1², columns
        // the same; surface: row 1 under row 0 differs in 9 cells, column 1
        // beside column 0 in 9.
        let lshape = board(&[
            "##########",
            "#.........",
            "#.........",
            "#.........",
            "#.........",
            "#.........",
            "#.........",
            "#.........",
            "#.........",
            "#.........",
        ]);
        let c = e.criteria(lshape);
        assert_eq!((c.alignment, c.surface, c.free), (2 * (100 + 9), 18, 81));
        assert!(c.square5_fits);
        // A checkerboard: every neighbour differs, nothing large fits.
        let check: Vec<String> = (0..10)
            .map(|y| {
                (0..10)
                    .map(|x| if (x + y) % 2 == 0 { '#' } else { '.' })
                    .collect()
            })
            .collect();
        let check: Vec<&str> = check.iter().map(String::as_str).collect();
        let c = e.criteria(board(&check));
        assert_eq!(
            (c.surface, c.square5_fits, c.large_fit, c.alignment),
            (180, false, 0, 20 * 25)
        );
        // Only a vertical 5 fits: one empty column.
        let column = board(&["####.#####"; 10]);
        let c = e.criteria(column);
        assert_eq!((c.square5_fits, c.large_fit), (false, 1));
        // Values: 10025 on the empty board = 100 + 0 + 0 + 2·0 + 5·1.
        assert_eq!(e.value(&e.criteria(0), CoelhoWeights::BEST), 105.0);
        let v = e.value(&c, CoelhoWeights::BEST);
        let expected =
            10.0 + 2.0 * f64::from(c.alignment) / 2000.0 + 5.0 * (1.0 - f64::from(c.surface) / 180.0);
        assert!((v - expected).abs() < 1e-12);
    }

    #[test]
    fn the_table_path_and_the_plain_path_agree() {
        let size = BoardSize::new(10, 10).unwrap();
        let e = Evaluator::new(size);
        let mut plain = e.clone();
        plain.spread.clear();
        let mut rng = crate::model::generator::Generator::new(9);
        for _ in 0..500 {
            let b = (0..100)
                .filter(|_| rng.below(3) == 0)
                .fold(0 as Bits, |b, i| b | 1 << i);
            assert_eq!(e.alignment(b), plain.alignment(b));
        }
    }

    /// A plain search: every order, every placement, no skipping; calls
    /// `f` with every end board met.
    fn every_end_board(shapes: &Shapes, board: Bits, holder: &[PieceIdx], f: &mut impl FnMut(Bits)) {
        if holder.is_empty() {
            return f(board);
        }
        for i in 0..holder.len() {
            let mut rest = holder.to_vec();
            let piece = rest.remove(i);
            let mut fits = shapes.shape(piece).fits(board, shapes.geometry.full);
            while fits != 0 {
                let a = fits.trailing_zeros();
                fits &= fits - 1;
                every_end_board(shapes, shapes.place(board, piece, a).0, &rest, f);
            }
        }
    }

    /// The plain search's best value, `None` when the holder cannot be placed.
    fn brute(
        shapes: &Shapes,
        e: &Evaluator,
        w: CoelhoWeights,
        board: Bits,
        holder: &[PieceIdx],
    ) -> Option<f64> {
        let mut best: Option<f64> = None;
        every_end_board(shapes, board, holder, &mut |b| {
            let v = e.value(&e.criteria(b), w);
            best = Some(best.map_or(v, |x: f64| x.max(v)));
        });
        best
    }

    #[test]
    fn the_skipping_search_finds_the_plain_searchs_best() {
        let set = PieceSet::classic();
        let mut rng = crate::model::generator::Generator::new(4);
        for (round, size) in [(6, 6), (7, 5), (8, 8)].into_iter().cycle().take(60).enumerate() {
            let size = BoardSize::new(size.0, size.1).unwrap();
            let shapes = Shapes::new(&set, size);
            let e = Evaluator::new(size);
            let fill = 0.3 + 0.4 * (round % 3) as f64 / 2.0;
            let b = crate::play::random_fill::random_fill(&shapes, &set, fill, &mut rng).bits();
            let k = 2 + round % 2;
            let mut holder = rng.deal(&set, k);
            if round % 5 == 0 {
                holder[1] = holder[0];
            }
            let weights = [
                CoelhoWeights::BEST,
                CoelhoWeights([1, 1, 1, 1, 1]),
                CoelhoWeights([0, 3, 2, 9, 1]),
            ][round % 3];
            let mut s = CoelhoStrategy::new(weights);
            let got = s.best(&shapes, b, &holder);
            let want = brute(&shapes, &e, weights, b, &holder);
            match (got, want) {
                (None, None) => {}
                (Some(g), Some(w)) => {
                    assert!((g.value - w).abs() < 1e-9, "round {round}: {} vs {w}", g.value);
                    // The moves replay to the board it reports.
                    let mut replay = b;
                    for &(p, a) in &g.moves {
                        assert!(shapes.shape(p).fits(replay, shapes.geometry.full) >> a & 1 == 1);
                        replay = shapes.place(replay, p, a).0;
                    }
                    assert_eq!(replay, g.board, "round {round}");
                    assert!((e.value(&e.criteria(g.board), weights) - g.value).abs() < 1e-9);
                }
                (g, w) => panic!("round {round}: {g:?} vs {w:?}"),
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// The anchors found to clear a line are exactly those at which
        /// placing the piece clears one, for every piece of the classic set
        /// on boards of every fill and several sizes.
        #[test]
        fn clearing_anchors_are_the_placements_that_clear(seed in 0u64..1_000_000, fill in 0.0f64..0.9, side in 0usize..4) {
            let set = PieceSet::classic();
            let size = [(10, 10), (8, 8), (16, 8), (5, 7)][side];
            let size = BoardSize::new(size.0, size.1).unwrap();
            let shapes = Shapes::new(&set, size);
            let eval = Evaluator::new(size);
            let pieces = piece_counts(&shapes);
            let mut rng = crate::model::generator::Generator::new(seed);
            let board = crate::play::random_fill::random_fill(&shapes, &set, fill, &mut rng).bits();
            let counts = eval.line_counts(board);
            for piece in 0..shapes.shapes.len() {
                let piece = piece as PieceIdx;
                let fits = shapes.shape(piece).fits(board, shapes.geometry.full);
                let mut want: Bits = 0;
                let mut m = fits;
                while m != 0 {
                    let a = m.trailing_zeros();
                    m &= m - 1;
                    if !shapes.place(board, piece, a).1.is_empty() {
                        want |= 1 << a;
                    }
                }
                let got = clearing(&shapes.geometry, &pieces[usize::from(piece)], board, fits, &counts);
                proptest::prop_assert_eq!(got, want, "piece {} on {:?}", piece, size);
            }
        }

        /// Sixteen lines at once give the lines a plain loop picks.
        #[test]
        fn near_lines_are_the_lines_a_loop_picks(filled in proptest::array::uniform16(0u8..=16), count in 1usize..=16, side in 1usize..=16, most in 0u32..=16) {
            let filled = filled.map(|n| n.min(side as u8));
            let got = NearLines::new(count, side, most).of(&filled);
            let want: u128 = (0..count)
                .filter(|&i| usize::from(filled[i]) < side && side - usize::from(filled[i]) <= most as usize)
                .map(|i| 1u128 << (8 * i + 7))
                .sum();
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn skipping_meets_and_evaluates_far_fewer_boards_than_a_plain_search() {
        let (set, shapes) = classic();
        let holder: Vec<PieceIdx> = ["sq2", "h3", "v2"]
            .iter()
            .map(|id| set.index_of(id).unwrap())
            .collect();
        let mut s = CoelhoStrategy::new(CoelhoWeights::BEST);
        let best = s.best(&shapes, 0, &holder).unwrap();
        // On an empty board the best keeps 100 - 4 - 3 - 2 free cells.
        assert_eq!(best.board.count_ones(), 9);
        // Orders out of slot order are skipped: about a sixth of the boards.
        let mut naive = 0u64;
        every_end_board(&shapes, 0, &holder, &mut |_| naive += 1);
        assert!(s.counts.end_boards * 5 < naive, "{:?} of {naive}", s.counts);
        // On a crowded board the free-cell bound skips most evaluations.
        let mut rng = crate::model::generator::Generator::new(1);
        let crowded = crate::play::random_fill::random_fill(&shapes, &set, 0.45, &mut rng).bits();
        let mut s = CoelhoStrategy::new(CoelhoWeights::BEST);
        let holder: Vec<PieceIdx> = ["dot", "h2", "v2"]
            .iter()
            .map(|id| set.index_of(id).unwrap())
            .collect();
        s.best(&shapes, crowded, &holder).unwrap();
        assert!(s.counts.evaluations * 2 < s.counts.end_boards, "{:?}", s.counts);
    }
}
