//! A plain brute-force search shared by the property tests: cell grids,
//! every order, every position, every row and column scanned after every
//! placement. Deliberately nothing like the engine's bitboards.

use std::collections::HashSet;

use tenten_engine::model::board::{Bits, BoardSize};
use tenten_engine::model::pieces::{Piece, PieceSet};

pub type Grid = Vec<Vec<bool>>;

pub fn grid_of(size: BoardSize, bits: Bits) -> Grid {
    (0..size.h())
        .map(|y| (0..size.w()).map(|x| bits >> size.bit(x, y) & 1 == 1).collect())
        .collect()
}

pub fn fits(grid: &Grid, piece: &Piece, x: usize, y: usize) -> bool {
    piece.cells().iter().all(|&(dx, dy)| {
        let (cx, cy) = (x + usize::from(dx), y + usize::from(dy));
        cy < grid.len() && cx < grid[0].len() && !grid[cy][cx]
    })
}

/// Places and clears every full row and column at once.
pub fn place(grid: &Grid, piece: &Piece, x: usize, y: usize) -> Grid {
    let mut g = grid.clone();
    for &(dx, dy) in piece.cells() {
        g[y + usize::from(dy)][x + usize::from(dx)] = true;
    }
    clear_full(&g)
}

pub fn clear_full(grid: &Grid) -> Grid {
    let (h, w) = (grid.len(), grid[0].len());
    let rows: Vec<bool> = (0..h).map(|y| grid[y].iter().all(|&c| c)).collect();
    let cols: Vec<bool> = (0..w).map(|x| (0..h).all(|y| grid[y][x])).collect();
    let mut g = grid.clone();
    for y in 0..h {
        for x in 0..w {
            if rows[y] || cols[x] {
                g[y][x] = false;
            }
        }
    }
    g
}

/// Can the pieces left be placed, in some order, at some positions?
/// Failed states are remembered so 4-piece holders stay quick.
pub fn brute(grid: &Grid, left: &mut Vec<&Piece>, failed: &mut HashSet<(Grid, Vec<String>)>) -> bool {
    if left.is_empty() {
        return true;
    }
    let mut key: Vec<String> = left.iter().map(|p| p.id.clone()).collect();
    key.sort();
    let key = (grid.clone(), key);
    if failed.contains(&key) {
        return false;
    }
    for i in 0..left.len() {
        let piece = left.remove(i);
        for y in 0..grid.len() {
            for x in 0..grid[0].len() {
                if fits(grid, piece, x, y) && brute(&place(grid, piece, x, y), left, failed) {
                    left.insert(i, piece);
                    return true;
                }
            }
        }
        left.insert(i, piece);
    }
    failed.insert(key);
    false
}

/// The classic pieces and three odd shapes to choose random sets from.
pub fn pool() -> Vec<Piece> {
    let mut pieces = PieceSet::classic().pieces;
    for (id, rows) in [("plus", ".#./###/.#."), ("zig", "##./.##"), ("gap", "#.#")] {
        let rows: Vec<String> = rows.split('/').map(str::to_owned).collect();
        pieces.push(Piece::from_rows(id, "", 1, &rows).unwrap());
    }
    pieces
}
