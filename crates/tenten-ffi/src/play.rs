//! Playing a piece: where it fits, and the board after it with its clears
//! and points (the 1010! scoring: a point a cell, 5 r (r + 1) for r lines).

use tenten_engine::model::board::Bits;
use tenten_engine::model::pieces::PieceIdx;
use tenten_engine::model::shapes::score;

use crate::args::{board, obj, out, piece, put, write_board};
use crate::rules::{Rules, TentenRules};
use crate::status::{Failure, TentenStatus, guard};

/// What a placement did.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TentenPlay {
    /// Points scored: the piece's cells plus 5 r (r + 1) for r lines.
    pub points: u64,
    /// Rows and columns cleared.
    pub rows: u32,
    pub columns: u32,
}

/// The anchor bit of (x, y) when `piece` fits there, or why not.
fn fitting_anchor(rules: &Rules, bits: Bits, piece: PieceIdx, x: u8, y: u8) -> Result<u32, Failure> {
    let shape = rules.shapes.shape(piece);
    let size = rules.shapes.size();
    let id = &rules.spec.set.piece(piece).id;
    let (x, y) = (usize::from(x), usize::from(y));
    if x + usize::from(shape.width) > size.w() || y + usize::from(shape.height) > size.h() {
        return Err(Failure::new(
            TentenStatus::NoFit,
            format!("piece {id} at ({x}, {y}) runs off the {size} board"),
        ));
    }
    let anchor = size.bit(x, y);
    let clash = bits & shape.mask << anchor;
    if clash != 0 {
        let cell = clash.trailing_zeros() as usize;
        return Err(Failure::new(
            TentenStatus::NoFit,
            format!(
                "piece {id} at ({x}, {y}) covers the filled cell ({}, {})",
                cell % size.w(),
                cell / size.w()
            ),
        ));
    }
    Ok(anchor)
}

/// *fits = 1 when piece `piece_index` fits with its box's top-left at column
/// `x`, row `y` of the board `cells`, else 0.
///
/// # Safety
/// `rules` is NULL or a live handle; `cells` is NULL or `cell_count`
/// readable bytes; `fits` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_fits(
    rules: *const TentenRules,
    cells: *const u8,
    cell_count: usize,
    piece_index: u8,
    x: u8,
    y: u8,
    fits: *mut u8,
) -> TentenStatus {
    guard(|| {
        // SAFETY: the caller's promises.
        let rules = &unsafe { obj(rules, "rules") }?.inner;
        // SAFETY: the caller's promise on `cells`.
        let bits = unsafe { board(rules.shapes.size(), cells, cell_count) }?;
        let fits = out(fits, "fits")?;
        let p = piece(&rules.spec.set, piece_index)?;
        let answer = fitting_anchor(rules, bits, p, x, y).is_ok();
        // SAFETY: checked by `out`.
        unsafe { put(fits, u8::from(answer)) };
        Ok(())
    })
}

/// Places piece `piece_index` with its box's top-left at column `x`, row `y` and
/// clears the rows and columns it completes, all at once. On success
/// `cells` holds the board after (1 filled, 0 empty); on any failure,
/// TENTEN_STATUS_NO_FIT among them, it is untouched.
///
/// # Safety
/// `rules` is NULL or a live handle; `cells` is NULL or `cell_count`
/// readable and writable bytes; `result` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_play(
    rules: *const TentenRules,
    cells: *mut u8,
    cell_count: usize,
    piece_index: u8,
    x: u8,
    y: u8,
    result: *mut TentenPlay,
) -> TentenStatus {
    guard(|| {
        // SAFETY: the caller's promises.
        let rules = &unsafe { obj(rules, "rules") }?.inner;
        // SAFETY: the caller's promise on `cells`.
        let bits = unsafe { board(rules.shapes.size(), cells, cell_count) }?;
        let result = out(result, "result")?;
        let p = piece(&rules.spec.set, piece_index)?;
        let anchor = fitting_anchor(rules, bits, p, x, y)?;
        let (after, lines) = rules.shapes.place(bits, p, anchor);
        let answer = TentenPlay {
            points: score(rules.shapes.shape(p).cells(), lines),
            rows: lines.rows.count_ones(),
            columns: lines.cols.count_ones(),
        };
        // SAFETY: `cells` and `cell_count` checked by `board`; `result` by `out`.
        unsafe {
            write_board(cells, cell_count, after);
            put(result, answer);
        }
        Ok(())
    })
}
