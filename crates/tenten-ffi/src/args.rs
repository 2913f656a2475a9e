//! Reading the caller's arguments: every pointer checked for null, every
//! size and index checked against the rules, before anything is computed
//! or written.

use std::ffi::{CStr, c_char};

use tenten_engine::model::board::Bits;
use tenten_engine::model::pieces::PieceIdx;

use crate::TENTEN_MAX_HOLDER;
use crate::rules::Rules;
use crate::status::{Failure, TentenStatus};

fn null(what: &str) -> Failure {
    Failure::new(TentenStatus::NullPointer, format!("{what} is NULL"))
}

/// The value behind a handle or input pointer.
///
/// # Safety
/// `p` is NULL or points to a live `T`.
pub(crate) unsafe fn obj<'a, T>(p: *const T, what: &str) -> Result<&'a T, Failure> {
    // SAFETY: non-null pointers are the caller's promise of a live value.
    unsafe { p.as_ref() }.ok_or_else(|| null(what))
}

/// A handle the call changes.
///
/// # Safety
/// `p` is NULL or points to a live `T` nobody else uses during the call.
pub(crate) unsafe fn obj_mut<'a, T>(p: *mut T, what: &str) -> Result<&'a mut T, Failure> {
    // SAFETY: as for `obj`, and the caller keeps the handle to one thread.
    unsafe { p.as_mut() }.ok_or_else(|| null(what))
}

/// An output pointer, checked now and written by `put` once the call has
/// succeeded (so a failure leaves it untouched).
pub(crate) fn out<T>(p: *mut T, what: &str) -> Result<*mut T, Failure> {
    if p.is_null() { Err(null(what)) } else { Ok(p) }
}

/// Writes a result through an output pointer checked by `out`.
///
/// # Safety
/// `p` came from `out` and points to writable memory for a `T`.
pub(crate) unsafe fn put<T>(p: *mut T, value: T) {
    // SAFETY: checked non-null; `write` needs no initialised value there.
    unsafe { p.write(value) }
}

/// A NUL-terminated UTF-8 string.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string.
pub(crate) unsafe fn text<'a>(p: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if p.is_null() {
        return Err(null(what));
    }
    // SAFETY: non-null and NUL-terminated by the caller's promise.
    let raw = unsafe { CStr::from_ptr(p) };
    raw.to_str().map_err(|e| {
        Failure::new(
            TentenStatus::InvalidArgument,
            format!("{what} is not UTF-8 text (byte {})", e.valid_up_to()),
        )
    })
}

/// The board of `count` cells at `cells` (row-major, row 0 on top, any
/// nonzero byte filled) as bits, checked against the rules' size.
///
/// # Safety
/// `cells` is NULL or points to `count` readable bytes.
pub(crate) unsafe fn board(rules: &Rules, cells: *const u8, count: usize) -> Result<Bits, Failure> {
    if cells.is_null() {
        return Err(null("cells"));
    }
    let size = rules.shapes.size();
    if count != size.cells() {
        return Err(Failure::new(
            TentenStatus::InvalidArgument,
            format!(
                "the board has {count} cells; these rules play on a {size} board of {} cells",
                size.cells()
            ),
        ));
    }
    // SAFETY: non-null, and `count` bytes by the caller's promise.
    let cells = unsafe { std::slice::from_raw_parts(cells, count) };
    Ok(cells
        .iter()
        .enumerate()
        .fold(0, |bits, (i, &c)| if c != 0 { bits | 1 << i } else { bits }))
}

/// A piece index of the rules' set.
pub(crate) fn piece(rules: &Rules, index: u8) -> Result<PieceIdx, Failure> {
    let n = rules.spec.set.pieces.len();
    if usize::from(index) < n {
        Ok(index)
    } else {
        Err(Failure::new(
            TentenStatus::UnknownPiece,
            format!(
                "piece index {index} is not in the set {:?} (its {n} pieces are 0 to {})",
                rules.spec.set.name,
                n - 1
            ),
        ))
    }
}

/// A holder of 1 to TENTEN_MAX_HOLDER piece indices.
///
/// # Safety
/// `pieces` is NULL or points to `count` readable bytes.
pub(crate) unsafe fn holder(rules: &Rules, pieces: *const u8, count: usize) -> Result<Vec<PieceIdx>, Failure> {
    if pieces.is_null() {
        return Err(null("holder"));
    }
    if !(1..=TENTEN_MAX_HOLDER).contains(&count) {
        return Err(Failure::new(
            TentenStatus::InvalidArgument,
            format!("a holder has 1 to {TENTEN_MAX_HOLDER} pieces, not {count}"),
        ));
    }
    // SAFETY: non-null, and `count` bytes by the caller's promise.
    let raw = unsafe { std::slice::from_raw_parts(pieces, count) };
    raw.iter()
        .enumerate()
        .map(|(slot, &p)| {
            piece(rules, p).map_err(|f| Failure::new(f.status, format!("holder slot {slot}: {}", f.message)))
        })
        .collect()
}

/// Writes `bits` back as cells (1 filled, 0 empty).
///
/// # Safety
/// `cells` points to `count` writable bytes, `count` the rules' cells.
pub(crate) unsafe fn write_board(cells: *mut u8, count: usize, bits: Bits) {
    // SAFETY: checked by `board` on the same pointer and count.
    let cells = unsafe { std::slice::from_raw_parts_mut(cells, count) };
    for (i, c) in cells.iter_mut().enumerate() {
        *c = u8::from(bits >> i & 1 == 1);
    }
}
