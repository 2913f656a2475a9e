//! Rules: a generator's pieces and weights on a board size with a holder
//! size, compiled once (the placement masks every other call uses).

use std::ffi::{CString, c_char};
use std::sync::Arc;

use tenten_engine::model::board::BoardSize;
use tenten_engine::model::shapes::Shapes;
use tenten_engine::play::generator_file::{Check, GeneratorSpec};
use tenten_engine::search::changer::ChangeOptions;

use crate::TENTEN_MAX_HOLDER;
use crate::args::{obj, out, piece, put, text};
use crate::generator::TentenGenerator;
use crate::status::{Failure, TentenStatus, guard};

pub(crate) struct Rules {
    pub spec: GeneratorSpec,
    pub shapes: Shapes,
    pub k: usize,
    /// The pieces' ids as C strings, handed out by tenten_rules_piece_id.
    pub ids: Vec<CString>,
    /// The changer's options: the generator's own when it repairs.
    pub options: ChangeOptions,
}

/// A generator on a board of `width` x `height` with holders of
/// `holder_size`. Never changes: share it between threads.
pub struct TentenRules {
    pub(crate) inner: Arc<Rules>,
}

/// Rules for `generator` on a `width` x `height` board (each side 4 to 16,
/// at most 128 cells) with holders of `holder_size` (1 to
/// TENTEN_MAX_HOLDER). The rules keep their own copy of the generator.
///
/// # Safety
/// `generator` is NULL or a live handle; `result` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_rules_new(
    generator: *const TentenGenerator,
    width: u8,
    height: u8,
    holder_size: u8,
    result: *mut *mut TentenRules,
) -> TentenStatus {
    guard(|| {
        // SAFETY: the caller's promise on `generator`.
        let spec = unsafe { obj(generator, "generator") }?.spec.clone();
        let result = out(result, "result")?;
        let size = BoardSize::new(usize::from(width), usize::from(height))
            .map_err(|m| Failure::new(TentenStatus::InvalidArgument, m))?;
        let k = usize::from(holder_size);
        if !(1..=TENTEN_MAX_HOLDER).contains(&k) {
            return Err(Failure::new(
                TentenStatus::InvalidArgument,
                format!("a holder has 1 to {TENTEN_MAX_HOLDER} pieces, not {k}"),
            ));
        }
        let options = match spec.file.check {
            Check::Repair { policy, redraws } => ChangeOptions {
                policy,
                max_redraws: redraws,
                ..ChangeOptions::default()
            },
            _ => ChangeOptions::default(),
        };
        let ids = spec
            .set
            .pieces
            .iter()
            .map(|p| CString::new(p.id.replace('\0', "?")).unwrap_or_default())
            .collect();
        let rules = Rules {
            shapes: Shapes::new(&spec.set, size),
            spec,
            k,
            ids,
            options,
        };
        // SAFETY: checked by `out`.
        unsafe {
            put(
                result,
                Box::into_raw(Box::new(TentenRules {
                    inner: Arc::new(rules),
                })),
            );
        }
        Ok(())
    })
}

/// Frees rules. NULL does nothing; dealers made from them keep working.
///
/// # Safety
/// `rules` is NULL or a handle from this library not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_rules_free(rules: *mut TentenRules) {
    if !rules.is_null() {
        // SAFETY: made by Box::into_raw in tenten_rules_new, freed once.
        drop(unsafe { Box::from_raw(rules) });
    }
}

/// How many pieces the rules' set has (indices 0 to count - 1).
///
/// # Safety
/// `rules` is NULL or a live handle; `count` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_rules_piece_count(
    rules: *const TentenRules,
    count: *mut u32,
) -> TentenStatus {
    guard(|| {
        // SAFETY: the caller's promise on `rules`.
        let rules = unsafe { obj(rules, "rules") }?;
        let count = out(count, "count")?;
        // SAFETY: checked by `out`.
        unsafe { put(count, rules.inner.spec.set.pieces.len() as u32) };
        Ok(())
    })
}

/// The id of piece `index` ("I5", "L3", ...). *id belongs to the rules and
/// lives as long as they do.
///
/// # Safety
/// `rules` is NULL or a live handle; `id` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_rules_piece_id(
    rules: *const TentenRules,
    index: u8,
    id: *mut *const c_char,
) -> TentenStatus {
    guard(|| {
        // SAFETY: the caller's promise on `rules`.
        let rules = unsafe { obj(rules, "rules") }?;
        let id = out(id, "id")?;
        let p = piece(&rules.inner.spec.set, index)?;
        // SAFETY: checked by `out`.
        unsafe { put(id, rules.inner.ids[usize::from(p)].as_ptr()) };
        Ok(())
    })
}

/// The index of the piece with id `id` (TENTEN_STATUS_UNKNOWN_PIECE when
/// the set has none).
///
/// # Safety
/// `rules` is NULL or a live handle; `id` is NULL or a NUL-terminated
/// string; `index` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_rules_piece_index(
    rules: *const TentenRules,
    id: *const c_char,
    index: *mut u8,
) -> TentenStatus {
    guard(|| {
        // SAFETY: the caller's promises.
        let (rules, id) = unsafe { (obj(rules, "rules")?, text(id, "id")?) };
        let index = out(index, "index")?;
        let set = &rules.inner.spec.set;
        let found = set.index_of(id).ok_or_else(|| {
            Failure::new(
                TentenStatus::UnknownPiece,
                format!("no piece {id:?} in the set {:?}", set.name),
            )
        })?;
        // SAFETY: checked by `out`.
        unsafe { put(index, found) };
        Ok(())
    })
}
