//! Generators: a preset by name, a generator file (from a path or a RON
//! string), or a piece set dealt as drawn.

use std::ffi::c_char;
use std::path::Path;

use tenten_engine::io::formats;
use tenten_engine::play::generator_file::{self, GeneratorSpec, PRESETS};

use crate::args::{out, put, text};
use crate::pieces::{TentenPieces, parse_error, read, set_or_classic};
use crate::status::{Done, Failure, TentenStatus, guard};

/// What a dealer deals: pieces, weights (by board fill, with mercy),
/// repeats and the check every holder goes through, as a generator file
/// says. Never changes: share it between threads.
pub struct TentenGenerator {
    pub(crate) spec: GeneratorSpec,
}

fn give(spec: GeneratorSpec, result: *mut *mut TentenGenerator) -> Done {
    // SAFETY: `result` was checked by `out`.
    unsafe { put(result, Box::into_raw(Box::new(TentenGenerator { spec }))) };
    Ok(())
}

/// A built-in generator by name: "random" (as drawn), "repair" (the
/// paper's validator and changer), "reject" (redraw until solvable) or
/// "bag"; the files in presets/generators/. It deals `pieces` (NULL: the
/// classic set).
///
/// # Safety
/// `name` is NULL or a NUL-terminated string; `pieces` is NULL or a live
/// handle; `result` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_generator_preset(
    name: *const c_char,
    pieces: *const TentenPieces,
    result: *mut *mut TentenGenerator,
) -> TentenStatus {
    guard(|| {
        // SAFETY: the caller's promises.
        let (name, set) = unsafe { (text(name, "name")?, set_or_classic(pieces)) };
        let result = out(result, "result")?;
        let spec = generator_file::preset(name, &set).ok_or_else(|| {
            let names: Vec<&str> = PRESETS.iter().map(|(n, _)| *n).collect();
            Failure::new(
                TentenStatus::InvalidArgument,
                format!(
                    "no preset generator {name:?}; the presets are {}",
                    names.join(", ")
                ),
            )
        })?;
        give(spec, result)
    })
}

/// Reads a generator file at `path`. Its `pieces:` path is read relative to
/// the file; a file naming none deals `pieces` (NULL: the classic set).
///
/// # Safety
/// `path` is NULL or a NUL-terminated string; `pieces` is NULL or a live
/// handle; `result` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_generator_load(
    path: *const c_char,
    pieces: *const TentenPieces,
    result: *mut *mut TentenGenerator,
) -> TentenStatus {
    guard(|| {
        // SAFETY: the caller's promises.
        let (path, set) = unsafe { (text(path, "path")?, set_or_classic(pieces)) };
        let result = out(result, "result")?;
        read(path)?;
        let spec = generator_file::load(Path::new(path), &set).map_err(parse_error)?;
        give(spec, result)
    })
}

/// Reads a generator written in RON (the text of a generator file). A
/// `pieces:` path in it is read relative to the current directory; without
/// one it deals `pieces` (NULL: the classic set).
///
/// # Safety
/// `ron` is NULL or a NUL-terminated string; `pieces` is NULL or a live
/// handle; `result` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_generator_parse(
    ron: *const c_char,
    pieces: *const TentenPieces,
    result: *mut *mut TentenGenerator,
) -> TentenStatus {
    guard(|| {
        // SAFETY: the caller's promises.
        let (ron, set) = unsafe { (text(ron, "ron")?, set_or_classic(pieces)) };
        let result = out(result, "result")?;
        let name = "<ron string>";
        let mut spec = generator_file::parse(ron, name, &set).map_err(parse_error)?;
        if let Some(p) = spec.file.pieces.clone() {
            let (own, _) = formats::load_pieces_of(Path::new("./generator.ron"), &p).map_err(parse_error)?;
            spec = generator_file::parse(ron, name, &own).map_err(parse_error)?;
        }
        give(spec, result)
    })
}

/// A generator dealing `pieces` by their weights, as drawn (the "random"
/// preset on that set).
///
/// # Safety
/// `pieces` is NULL or a live handle; `result` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_generator_from_pieces(
    pieces: *const TentenPieces,
    result: *mut *mut TentenGenerator,
) -> TentenStatus {
    guard(|| {
        // SAFETY: the caller's promise on `pieces`.
        let set = unsafe { crate::args::obj(pieces, "pieces") }?.set.clone();
        let result = out(result, "result")?;
        let spec = generator_file::preset("random", &set)
            .ok_or_else(|| Failure::new(TentenStatus::Panic, "the random preset is missing"))?;
        give(spec, result)
    })
}

/// Frees a generator. NULL does nothing.
///
/// # Safety
/// `generator` is NULL or a handle from this library not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_generator_free(generator: *mut TentenGenerator) {
    if !generator.is_null() {
        // SAFETY: made by Box::into_raw in `give`, freed once by the caller's promise.
        drop(unsafe { Box::from_raw(generator) });
    }
}
