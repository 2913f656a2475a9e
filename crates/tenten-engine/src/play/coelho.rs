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
//! Speed (the analysis's C evaluates about 583,000 end boards a round):
//! - a prefix placed out of slot order that has cleared no line yet reaches
//!   exactly the board its sorted order reaches, so it is skipped (the same
//!   holds for two copies of one piece placed the "wrong" way round);
//! - end boards already evaluated in the round are skipped (a hash set);
//! - the free-cell count is carried down the search, and a board whose free
//!   cells cannot beat the best even with every other criterion at its best
//!   is not evaluated at all;
//! - the criteria are bit tricks on the whole board: runs of empty cells by
//!   shift-and for the large pieces, a table that adds a row's cells into
//!   per-column nibbles for the alignment, shift-xor-popcount for the surface.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::board::{Bits, BoardSize};
use crate::model::pieces::MAX_HOLDER;
use crate::model::pieces::PieceIdx;
use crate::model::shapes::{Shapes, score};
use crate::progress::Progress;

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
    fn large_fits(&self, board: Bits) -> (bool, u32) {
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
    fn alignment(&self, board: Bits) -> u32 {
        self.line_counts(board).2
    }

    /// Filled cells of every row and column, and the alignment they give.
    #[inline]
    fn line_counts(&self, board: Bits) -> ([u8; 16], [u8; 16], u32) {
        let (w, h) = (self.size.w(), self.size.h());
        let (mut rows, mut cols) = ([0u8; 16], [0u8; 16]);
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
    fn surface(&self, board: Bits) -> u32 {
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

    /// The part of the value that is cheap with the free cells (and maybe
    /// the alignment) known, and the most the other criteria can add.
    #[inline]
    fn value_known(&self, board: Bits, free: u32, alignment: Option<u32>, weights: &[f64; 5]) -> (f64, f64) {
        let mut v = weights[0] * f64::from(free);
        if weights[4] != 0.0 {
            v += weights[4] * (1.0 - f64::from(self.surface(board)) / f64::from(self.max_surface.max(1)));
        }
        let mut most = weights[1] + weights[2];
        match alignment {
            Some(a) if weights[3] != 0.0 => {
                v += weights[3] * f64::from(a) / f64::from(self.max_alignment.max(1))
            }
            _ => most += weights[3],
        }
        (v, most)
    }

    /// The rest of `value_known`'s value: the large-piece room and, when it
    /// was not carried down, the alignment.
    #[inline]
    fn value_rest(&self, board: Bits, alignment: Option<u32>, weights: &[f64; 5]) -> f64 {
        let mut v = 0.0;
        if weights[1] != 0.0 || weights[2] != 0.0 {
            let (square5, large) = self.large_fits(board);
            v += weights[1] * f64::from(u8::from(square5)) + weights[2] * f64::from(large) / 3.0;
        }
        if weights[3] != 0.0 && alignment.is_none() {
            v += weights[3] * f64::from(self.alignment(board)) / f64::from(self.max_alignment.max(1));
        }
        v
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
    weights: [f64; 5],
    /// The most the four normalised criteria can add.
    rest_max: f64,
    holder: &'a [PieceIdx],
    /// Filled cells of each piece per row and per column of its box.
    piece_lines: &'a [([u8; 5], [u8; 5])],
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

    fn run(&mut self, s: Step) {
        let k = self.holder.len();
        if self.stopped || self.progress.cancelled() {
            self.stopped = true;
            return;
        }
        if s.depth + 1 == k {
            self.last_piece(s);
            return;
        }
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
            while fits != 0 {
                let anchor = fits.trailing_zeros();
                fits &= fits - 1;
                let (next, lines) = self.shapes.place(s.board, piece, anchor);
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
                self.run(Step {
                    board: next,
                    free,
                    used: s.used | 1 << slot,
                    depth: s.depth + 1,
                    last: Some((slot, anchor, clears)),
                    inverted,
                    cleared: s.cleared || clears,
                    points: s.points + score(cells as usize, lines),
                });
            }
        }
    }

    /// The last piece: where most of the work is, so the lines it could
    /// complete and the row and column counts are found once, and a
    /// placement that clears nothing gets its free cells and alignment by
    /// adding the piece's own counts (incremental criteria).
    fn last_piece(&mut self, s: Step) {
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
        let (rows, cols, alignment) = self.eval.line_counts(s.board);
        let (w, h) = (g.size.w(), g.size.h());
        // Lines with no more empty cells than the piece has: only a piece
        // touching one of them can complete a line.
        let mut near: Bits = 0;
        for (&n, &m) in rows.iter().zip(&g.rows[..h]) {
            if w as u32 - u32::from(n) <= cells {
                near |= m;
            }
        }
        for (&n, &m) in cols.iter().zip(&g.cols[..w]) {
            if h as u32 - u32::from(n) <= cells {
                near |= m;
            }
        }
        let (a, b) = self.piece_lines[usize::from(piece)];
        // Every placement that clears nothing leaves the same free cells: when
        // even those with every other criterion at its best cannot win, skip
        // them before their alignment is counted (the leaf's own bound).
        let plain_most = self.weights[0] * f64::from(s.free - cells) + self.rest_max;
        let mut fits = shape.fits(s.board, g.full);
        if self.best.as_ref().is_some_and(|b| plain_most <= b.0) {
            // Already hopeless at the start: visit only the anchors where the
            // piece touches a line it could complete, and count the others as
            // met, as the loop would have (the duplicates left out).
            let mut touching: Bits = 0;
            let mut m = shape.mask;
            while m != 0 {
                touching |= near >> m.trailing_zeros();
                m &= m - 1;
            }
            let plain = fits & !touching;
            let met = match s.last {
                _ if inverted && !s.cleared => 0,
                Some((_, a, false)) if same_as_last => plain & !((1 << a) - 1),
                _ => plain,
            };
            self.counts.end_boards += u64::from(met.count_ones());
            fits &= touching;
        }
        while fits != 0 {
            let anchor = fits.trailing_zeros();
            fits &= fits - 1;
            let cells_at = shape.mask << anchor;
            if cells_at & near == 0 {
                if Self::duplicate(&s, inverted, same_as_last, false, anchor) {
                    continue;
                }
                if self.best.as_ref().is_some_and(|b| plain_most <= b.0) {
                    self.counts.end_boards += 1;
                    continue;
                }
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
                    s.board | cells_at,
                    s.free - cells,
                    Some(align),
                    s.points + u64::from(cells),
                    s.depth + 1,
                );
            } else {
                let (next, lines) = self.shapes.place(s.board, piece, anchor);
                let clears = !lines.is_empty();
                if Self::duplicate(&s, inverted, same_as_last, clears, anchor) {
                    continue;
                }
                let free = if clears {
                    (!next & g.full).count_ones()
                } else {
                    s.free - cells
                };
                let align = if clears {
                    None
                } else {
                    Some(self.eval.alignment(next))
                };
                self.path[s.depth] = (piece, anchor);
                self.leaf(
                    next,
                    free,
                    align,
                    s.points + score(cells as usize, lines),
                    s.depth + 1,
                );
            }
        }
    }

    #[inline]
    fn leaf(&mut self, board: Bits, free: u32, alignment: Option<u32>, points: u64, depth: usize) {
        debug_assert_eq!(depth, self.holder.len());
        self.counts.end_boards += 1;
        let best = self.best.as_ref().map_or(f64::NEG_INFINITY, |b| b.0);
        // Not even every other criterion at its best would win: ties keep the
        // board found first, so "not greater" is enough to skip.
        if self.weights[0] * f64::from(free) + self.rest_max <= best {
            return;
        }
        // The cheap criteria next (surface is two popcounts, the alignment
        // often carried down): if the rest at their best still would not win,
        // skip before the table and the costly criteria.
        let (known, unknown_max) = self.eval.value_known(board, free, alignment, &self.weights);
        if known + unknown_max <= best {
            return;
        }
        if self.dedup && !self.seen.insert(board) {
            return;
        }
        self.counts.evaluations += 1;
        let value = known + self.eval.value_rest(board, alignment, &self.weights);
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

/// Each piece's filled cells per row and per column of its box.
fn piece_lines(shapes: &Shapes) -> Vec<([u8; 5], [u8; 5])> {
    let w = shapes.size().w();
    shapes
        .shapes
        .iter()
        .map(|shape| {
            let (mut a, mut b) = ([0u8; 5], [0u8; 5]);
            let mut m = shape.mask;
            while m != 0 {
                let i = m.trailing_zeros() as usize;
                m &= m - 1;
                let (x, y) = (i % w, i / w);
                if x < 5 && y < 5 {
                    a[y] += 1;
                    b[x] += 1;
                }
            }
            (a, b)
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
        self.seen.clear();
        let weights = self.weights.0.map(f64::from);
        let lines = piece_lines(shapes);
        let mut search = Search {
            shapes,
            eval,
            weights,
            rest_max: weights[1] + weights[2] + weights[3] + weights[4],
            holder,
            piece_lines: &lines,
            seen: &mut self.seen,
            dedup: self.dedup,
            path: [(0, 0); MAX_HOLDER],
            best: None,
            counts: SearchCounts::default(),
            progress,
            stopped: false,
        };
        search.run(Step {
            board,
            free: (!board & shapes.geometry.full).count_ones(),
            used: 0,
            depth: 0,
            last: None,
            inverted: false,
            cleared: false,
            points: 0,
        });
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
