//! Reading the caller's arguments: every pointer checked for null, every
//! size and index checked against the rules, before anything is computed
//! or written.

use std::ffi::{CStr, c_char};

use tenten_engine::model::board::{Bits, BoardSize};
use tenten_engine::model::pieces::{PieceIdx, PieceSet};

use crate::TENTEN_MAX_HOLDER;
use crate::status::{Failure, TentenStatus};

#[cold]
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
#[inline(always)]
pub(crate) unsafe fn board(size: BoardSize, cells: *const u8, count: usize) -> Result<Bits, Failure> {
    if cells.is_null() {
        return Err(null("cells"));
    }
    if count != size.cells() {
        return Err(wrong_size(count, size));
    }
    // SAFETY: non-null, and `count` bytes by the caller's promise.
    let cells = unsafe { std::slice::from_raw_parts(cells, count) };
    Ok(pack(cells))
}

/// Bit i set when byte i is nonzero. A game's validate is a fraction of a
/// microsecond, so reading its board must cost nanoseconds: on x86-64,
/// sixteen cells per SSE2 compare (SSE2 is part of every x86-64 CPU), the
/// last sixteen overlapping the chunk before (a board has at least 16
/// cells, and a cell read twice sets the same bit).
#[cfg(target_arch = "x86_64")]
#[inline]
fn pack(cells: &[u8]) -> Bits {
    use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_setzero_si128};
    let n = cells.len();
    if n < 16 {
        return plain_pack(cells);
    }
    let filled = |at: usize| -> Bits {
        let chunk = &cells[at..at + 16];
        // SAFETY: an unaligned load of the 16 bytes of `chunk`, and SSE2.
        // One bit per byte that equals zero.
        let empty = unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) as u16
        };
        Bits::from(!empty) << at
    };
    let mut bits = filled(n - 16);
    for at in (0..n - 16).step_by(16) {
        bits |= filled(at);
    }
    bits
}

/// Bit i set when byte i is nonzero (elsewhere the compiler vectorises
/// the plain loop itself).
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn pack(cells: &[u8]) -> Bits {
    plain_pack(cells)
}

fn plain_pack(cells: &[u8]) -> Bits {
    cells
        .iter()
        .enumerate()
        .fold(0, |bits, (i, &c)| bits | Bits::from(c != 0) << i)
}

#[cold]
fn wrong_size(count: usize, size: BoardSize) -> Failure {
    Failure::new(
        TentenStatus::InvalidArgument,
        format!(
            "the board has {count} cells; these rules play on a {size} board of {} cells",
            size.cells()
        ),
    )
}

/// A piece index of the rules' set.
pub(crate) fn piece(set: &PieceSet, index: u8) -> Result<PieceIdx, Failure> {
    let n = set.pieces.len();
    if usize::from(index) < n {
        Ok(index)
    } else {
        Err(unknown_piece(set, index))
    }
}

#[cold]
fn unknown_piece(set: &PieceSet, index: u8) -> Failure {
    let n = set.pieces.len();
    Failure::new(
        TentenStatus::UnknownPiece,
        format!(
            "piece index {index} is not in the set {:?} (its {n} pieces are 0 to {})",
            set.name,
            n - 1
        ),
    )
}

/// A holder of 1 to TENTEN_MAX_HOLDER piece indices.
///
/// # Safety
/// `pieces` is NULL or points to `count` readable bytes.
#[inline(always)]
pub(crate) unsafe fn holder<'a>(
    set: &PieceSet,
    pieces: *const u8,
    count: usize,
) -> Result<&'a [PieceIdx], Failure> {
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
    for (slot, &p) in raw.iter().enumerate() {
        piece(set, p).map_err(|f| Failure::new(f.status, format!("holder slot {slot}: {}", f.message)))?;
    }
    Ok(raw)
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

#[cfg(test)]
mod tests {
    use super::{pack, plain_pack};
    use proptest::prelude::*;

    proptest! {
        /// Packing sixteen at a time is the plain loop over the cells.
        #[test]
        fn pack_sets_the_bit_of_every_nonzero_cell(cells in proptest::collection::vec(
            prop_oneof![Just(0u8), Just(1u8), any::<u8>()], 0..=128,
        )) {
            let bit_by_bit = cells.iter().enumerate().fold(0u128, |b, (i, &c)| if c != 0 { b | 1 << i } else { b });
            prop_assert_eq!(pack(&cells), bit_by_bit);
            prop_assert_eq!(plain_pack(&cells), bit_by_bit);
        }
    }
}
