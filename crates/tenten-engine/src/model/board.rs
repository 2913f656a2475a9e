//! The board: the paper's matrix A = {a(x, y)} (equation 2), as cells for display
//! and as a `u128` bitboard for the search (bit `y * width + x`, row 0 on top).

use serde::{Deserialize, Serialize};

/// Smallest and largest side, and the most cells a `u128` bitboard holds.
pub const MIN_SIDE: u8 = 4;
pub const MAX_SIDE: u8 = 16;
pub const MAX_CELLS: usize = 128;

/// A bitboard: bit `y * width + x` is set when cell (x, y) is filled.
pub type Bits = u128;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BoardSize {
    pub width: u8,
    pub height: u8,
}

impl BoardSize {
    /// The game's 10x10 board.
    pub const CLASSIC: Self = Self {
        width: 10,
        height: 10,
    };

    /// A size within the engine's limits: each side 4..=16 and at most 128 cells.
    pub fn new(width: usize, height: usize) -> Result<Self, String> {
        let side = usize::from(MIN_SIDE)..=usize::from(MAX_SIDE);
        if !side.contains(&width) || !side.contains(&height) {
            return Err(format!(
                "board is {width}x{height}; each side must be {MIN_SIDE} to {MAX_SIDE}"
            ));
        }
        if width * height > MAX_CELLS {
            return Err(format!(
                "board is {width}x{height} = {} cells; at most {MAX_CELLS} are allowed",
                width * height
            ));
        }
        Ok(Self {
            width: width as u8,
            height: height as u8,
        })
    }

    pub fn w(self) -> usize {
        usize::from(self.width)
    }

    pub fn h(self) -> usize {
        usize::from(self.height)
    }

    pub fn cells(self) -> usize {
        self.w() * self.h()
    }

    pub fn bit(self, x: usize, y: usize) -> u32 {
        (y * self.w() + x) as u32
    }
}

impl std::fmt::Display for BoardSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

/// Masks of the whole board and of every row and column, for one size.
#[derive(Clone, Debug)]
pub struct Geometry {
    pub size: BoardSize,
    pub full: Bits,
    pub rows: [Bits; MAX_SIDE as usize],
    pub cols: [Bits; MAX_SIDE as usize],
}

impl Geometry {
    pub fn new(size: BoardSize) -> Self {
        let (w, h) = (size.w(), size.h());
        let row0: Bits = (1u128 << w) - 1;
        let mut rows = [0; MAX_SIDE as usize];
        let mut cols = [0; MAX_SIDE as usize];
        for (y, row) in rows.iter_mut().enumerate().take(h) {
            *row = row0 << (y * w);
        }
        let mut col0: Bits = 0;
        for y in 0..h {
            col0 |= 1 << (y * w);
        }
        for (x, col) in cols.iter_mut().enumerate().take(w) {
            *col = col0 << x;
        }
        let full = if w * h == 128 {
            Bits::MAX
        } else {
            (1u128 << (w * h)) - 1
        };
        Self {
            size,
            full,
            rows,
            cols,
        }
    }

    /// The full rows and columns of `bits`, checking only rows `y0..y1` and
    /// columns `x0..x1` (a placement can only complete lines it touches).
    #[inline]
    pub fn full_lines_in(&self, bits: Bits, y0: usize, y1: usize, x0: usize, x1: usize) -> Lines {
        let mut lines = Lines::default();
        for y in y0..y1 {
            let m = self.rows[y];
            if bits & m == m {
                lines.rows |= 1 << y;
            }
        }
        for x in x0..x1 {
            let m = self.cols[x];
            if bits & m == m {
                lines.cols |= 1 << x;
            }
        }
        lines
    }

    /// Every full row and column of `bits`.
    pub fn full_lines(&self, bits: Bits) -> Lines {
        // Fewer filled cells than the shorter side: no line can be full.
        if (bits.count_ones() as usize) < self.size.w().min(self.size.h()) {
            return Lines::default();
        }
        self.full_lines_in(bits, 0, self.size.h(), 0, self.size.w())
    }

    /// The cells of the given lines.
    #[inline]
    pub fn mask_of(&self, lines: Lines) -> Bits {
        let mut m = 0;
        let (mut r, mut c) = (lines.rows, lines.cols);
        while r != 0 {
            m |= self.rows[r.trailing_zeros() as usize];
            r &= r - 1;
        }
        while c != 0 {
            m |= self.cols[c.trailing_zeros() as usize];
            c &= c - 1;
        }
        m
    }
}

/// A set of rows and columns, as bit sets (bit y for row y, bit x for column x).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Lines {
    pub rows: u16,
    pub cols: u16,
}

impl Lines {
    pub fn is_empty(self) -> bool {
        self.rows == 0 && self.cols == 0
    }

    pub fn count(self) -> u32 {
        self.rows.count_ones() + self.cols.count_ones()
    }

    /// "rows 2, 5 and column 7", for messages.
    pub fn describe(self) -> String {
        let list = |bits: u16| -> Vec<String> {
            (0..16)
                .filter(|i| bits & (1 << i) != 0)
                .map(|i| i.to_string())
                .collect()
        };
        let mut parts = Vec::new();
        let rows = list(self.rows);
        if !rows.is_empty() {
            let word = if rows.len() == 1 { "row" } else { "rows" };
            parts.push(format!("{word} {}", rows.join(", ")));
        }
        let cols = list(self.cols);
        if !cols.is_empty() {
            let word = if cols.len() == 1 { "column" } else { "columns" };
            parts.push(format!("{word} {}", cols.join(", ")));
        }
        if parts.is_empty() {
            "no lines".to_owned()
        } else {
            parts.join(" and ")
        }
    }
}

/// One cell of A: empty (-1 in the paper), painted by hand, or the kind of
/// piece that filled it (the paper's block type, here an index into the piece set).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Cell {
    #[default]
    Empty,
    Painted,
    Piece(u8),
}

impl Cell {
    pub fn is_filled(self) -> bool {
        self != Cell::Empty
    }
}

/// A board with what fills each cell, so a window can colour it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "BoardDef")]
pub struct Board {
    size: BoardSize,
    cells: Vec<Cell>,
}

/// A stored board, checked on load: a size within the limits and one cell each.
#[derive(Deserialize)]
struct BoardDef {
    size: BoardSize,
    cells: Vec<Cell>,
}

impl TryFrom<BoardDef> for Board {
    type Error = String;
    fn try_from(d: BoardDef) -> Result<Self, String> {
        let size = BoardSize::new(d.size.w(), d.size.h())?;
        if d.cells.len() != size.cells() {
            return Err(format!(
                "a {size} board needs {} cells, not {}",
                size.cells(),
                d.cells.len()
            ));
        }
        Ok(Board { size, cells: d.cells })
    }
}

impl Board {
    pub fn empty(size: BoardSize) -> Self {
        Self {
            size,
            cells: vec![Cell::Empty; size.cells()],
        }
    }

    /// A board whose filled cells are `bits`, all painted.
    pub fn from_bits(size: BoardSize, bits: Bits) -> Self {
        let mut board = Self::empty(size);
        for (i, cell) in board.cells.iter_mut().enumerate() {
            if bits >> i & 1 == 1 {
                *cell = Cell::Painted;
            }
        }
        board
    }

    pub fn size(&self) -> BoardSize {
        self.size
    }

    pub fn get(&self, x: usize, y: usize) -> Cell {
        self.cells[y * self.size.w() + x]
    }

    pub fn set(&mut self, x: usize, y: usize, cell: Cell) {
        let w = self.size.w();
        self.cells[y * w + x] = cell;
    }

    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    pub fn bits(&self) -> Bits {
        self.cells
            .iter()
            .enumerate()
            .filter(|(_, c)| c.is_filled())
            .fold(0, |acc, (i, _)| acc | 1 << i)
    }

    pub fn filled(&self) -> usize {
        self.cells.iter().filter(|c| c.is_filled()).count()
    }

    pub fn empty_cells(&self) -> usize {
        self.size.cells() - self.filled()
    }

    /// Empties every cell of `lines`.
    pub fn clear(&mut self, lines: Lines) {
        let (w, h) = (self.size.w(), self.size.h());
        for y in 0..h {
            for x in 0..w {
                if lines.rows & (1 << y) != 0 || lines.cols & (1 << x) != 0 {
                    self.cells[y * w + x] = Cell::Empty;
                }
            }
        }
    }

    /// Clears the full lines a painted board may already hold; returns them.
    pub fn clear_full_lines(&mut self) -> Lines {
        let lines = Geometry::new(self.size).full_lines(self.bits());
        self.clear(lines);
        lines
    }

    /// The same picture on another size, cropped or padded with empty cells.
    pub fn resized(&self, size: BoardSize) -> Self {
        let mut out = Self::empty(size);
        for y in 0..self.size.h().min(size.h()) {
            for x in 0..self.size.w().min(size.w()) {
                out.set(x, y, self.get(x, y));
            }
        }
        out
    }

    /// The rows as text, '.' for empty and '#' for filled (the deal format).
    pub fn to_rows(&self) -> Vec<String> {
        self.cells
            .chunks(self.size.w())
            .map(|row| {
                row.iter()
                    .map(|c| if c.is_filled() { '#' } else { '.' })
                    .collect()
            })
            .collect()
    }
}

/// A checkerboard with (0, 0) filled: no line is full and no two free cells touch.
#[cfg(test)]
pub(crate) fn checkerboard(size: BoardSize) -> Bits {
    let mut bits = 0;
    for y in 0..size.h() {
        for x in 0..size.w() {
            if (x + y) % 2 == 0 {
                bits |= 1 << size.bit(x, y);
            }
        }
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_outside_the_limits_are_refused() {
        assert!(BoardSize::new(10, 10).is_ok());
        assert!(BoardSize::new(16, 8).is_ok());
        assert!(BoardSize::new(3, 10).is_err());
        assert!(BoardSize::new(17, 4).is_err());
        let err = BoardSize::new(12, 12).unwrap_err();
        assert!(err.contains("144 cells"), "{err}");
    }

    #[test]
    fn geometry_masks_cover_the_board_exactly() {
        for (w, h) in [(10, 10), (8, 8), (16, 8), (4, 16), (11, 11)] {
            let g = Geometry::new(BoardSize::new(w, h).unwrap());
            let rows = g.rows.iter().fold(0, |a, r| a | r);
            let cols = g.cols.iter().fold(0, |a, c| a | c);
            assert_eq!(rows, g.full);
            assert_eq!(cols, g.full);
            assert_eq!(g.full.count_ones() as usize, w * h);
            assert_eq!(g.rows[h - 1].count_ones() as usize, w);
            assert_eq!(g.cols[w - 1].count_ones() as usize, h);
        }
    }

    #[test]
    fn full_lines_are_found_and_cleared_together() {
        let size = BoardSize::CLASSIC;
        let g = Geometry::new(size);
        let bits = g.rows[3] | g.cols[7] | 1;
        let lines = g.full_lines(bits);
        assert_eq!(
            lines,
            Lines {
                rows: 1 << 3,
                cols: 1 << 7
            }
        );
        assert_eq!(bits & !g.mask_of(lines), 1);
        let mut board = Board::from_bits(size, bits);
        assert_eq!(board.clear_full_lines(), lines);
        assert_eq!(board.bits(), 1);
        assert_eq!(lines.describe(), "row 3 and column 7");
    }

    #[test]
    fn rows_round_trip_and_resize_keeps_the_corner() {
        let mut board = Board::empty(BoardSize::new(4, 4).unwrap());
        board.set(1, 2, Cell::Piece(3));
        assert_eq!(board.to_rows(), vec!["....", "....", ".#..", "...."]);
        let big = board.resized(BoardSize::CLASSIC);
        assert_eq!(big.get(1, 2), Cell::Piece(3));
        assert_eq!(big.filled(), 1);
    }
}
