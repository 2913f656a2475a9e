//! Piece sets: the classic 19, or a set file (from a path or a RON string).

use std::ffi::c_char;

use tenten_engine::io::formats::{self, FormatError};
use tenten_engine::model::pieces::PieceSet;

use crate::args::{out, put, text};
use crate::status::{Done, Failure, TentenStatus, guard};

/// A piece set with its weights. Never changes: share it between threads.
pub struct TentenPieces {
    pub(crate) set: PieceSet,
}

pub(crate) fn parse_error(e: FormatError) -> Failure {
    Failure::new(TentenStatus::Parse, e.to_string())
}

/// The file's text, or an I/O failure naming it.
pub(crate) fn read(path: &str) -> Result<String, Failure> {
    std::fs::read_to_string(path)
        .map_err(|e| Failure::new(TentenStatus::Io, format!("{path}: cannot read: {e}")))
}

fn give(set: PieceSet, result: *mut *mut TentenPieces) -> Done {
    // SAFETY: `result` was checked by `out`.
    unsafe { put(result, Box::into_raw(Box::new(TentenPieces { set }))) };
    Ok(())
}

/// The game's 19 pieces with the classic weights (summing to 42).
/// *result receives a new handle; free it with tenten_pieces_free.
///
/// # Safety
/// `result` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_pieces_classic(result: *mut *mut TentenPieces) -> TentenStatus {
    guard(|| give(PieceSet::classic(), out(result, "result")?))
}

/// Reads a piece set file (the workbench's RON format) at `path`.
///
/// # Safety
/// `path` is NULL or a NUL-terminated string; `result` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_pieces_load(
    path: *const c_char,
    result: *mut *mut TentenPieces,
) -> TentenStatus {
    guard(|| {
        // SAFETY: the caller's promise on `path`.
        let path = unsafe { text(path, "path") }?;
        let result = out(result, "result")?;
        let set = formats::parse_piece_set(&read(path)?, path).map_err(parse_error)?;
        give(set, result)
    })
}

/// Reads a piece set written in RON (the text of a set file).
///
/// # Safety
/// `ron` is NULL or a NUL-terminated string; `result` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_pieces_parse(
    ron: *const c_char,
    result: *mut *mut TentenPieces,
) -> TentenStatus {
    guard(|| {
        // SAFETY: the caller's promise on `ron`.
        let ron = unsafe { text(ron, "ron") }?;
        let result = out(result, "result")?;
        let set = formats::parse_piece_set(ron, "<ron string>").map_err(parse_error)?;
        give(set, result)
    })
}

/// Frees a piece set. NULL does nothing.
///
/// # Safety
/// `pieces` is NULL or a handle from this library not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_pieces_free(pieces: *mut TentenPieces) {
    if !pieces.is_null() {
        // SAFETY: made by Box::into_raw in `give`, freed once by the caller's promise.
        drop(unsafe { Box::from_raw(pieces) });
    }
}

/// The set behind an optional handle: the classic set for NULL.
///
/// # Safety
/// `pieces` is NULL or a live handle.
pub(crate) unsafe fn set_or_classic(pieces: *const TentenPieces) -> PieceSet {
    // SAFETY: NULL or live by the caller's promise.
    unsafe { pieces.as_ref() }.map_or_else(PieceSet::classic, |p| p.set.clone())
}
