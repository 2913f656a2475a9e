//! The paper's searches through the ABI: validation (Fig. 4), the changer
//! (equations 4 and 5), and the danger of a board.

use tenten_engine::danger::danger;
use tenten_engine::model::generator::Generator;
use tenten_engine::search::changer::{Outcome, repair};
use tenten_engine::search::validator::validate;

use crate::TENTEN_MAX_HOLDER;
use crate::args::{board, obj, out, put};
use crate::rules::TentenRules;
use crate::status::{Failure, TentenStatus, guard};

/// One placement of a solution.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TentenStep {
    /// The holder slot placed, and its piece index.
    pub slot: u8,
    pub piece: u8,
    /// Column and row of the top-left of the piece's box (row 0 on top).
    pub x: u8,
    pub y: u8,
    /// Rows and columns this placement cleared.
    pub lines: u32,
}

/// The validator's verdict on a holder (Fig. 4).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TentenValidation {
    /// Placements tried in the search.
    pub placements: u64,
    /// 1 when every piece of the holder can be placed, in some order.
    pub solvable: u8,
    /// The order j that placed them (the paper's Permute matrix row).
    pub order: u8,
    /// Steps of the solution: the holder's size when solvable, else 0.
    pub step_count: u8,
    pub steps: [TentenStep; TENTEN_MAX_HOLDER],
}

/// Validates `holder` (`holder_count` piece indices, 1 to
/// TENTEN_MAX_HOLDER) on the board `cells` (`cell_count` bytes, nonzero
/// filled). Full lines on the board are cleared first, as in a game.
///
/// # Safety
/// `rules` is NULL or a live handle; `cells` and `holder` are NULL or that
/// many readable bytes; `result` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_validate(
    rules: *const TentenRules,
    cells: *const u8,
    cell_count: usize,
    holder: *const u8,
    holder_count: usize,
    result: *mut TentenValidation,
) -> TentenStatus {
    guard(|| {
        // SAFETY: the caller's promises.
        let rules = &unsafe { obj(rules, "rules") }?.inner;
        // SAFETY: the caller's promises.
        let (bits, pieces) = unsafe { (board(rules, cells, cell_count)?, crate::args::holder(rules, holder, holder_count)?) };
        let result = out(result, "result")?;
        let v = validate(&rules.shapes, bits, &pieces);
        let mut verdict = TentenValidation {
            placements: v.nodes,
            solvable: u8::from(v.solvable),
            ..TentenValidation::default()
        };
        if let Some(solution) = &v.solution {
            verdict.order = solution.order;
            verdict.step_count = solution.steps().len() as u8;
            for (to, s) in verdict.steps.iter_mut().zip(solution.steps()) {
                *to = TentenStep {
                    slot: s.slot,
                    piece: pieces[usize::from(s.slot)],
                    x: s.x,
                    y: s.y,
                    lines: s.lines.count(),
                };
            }
        }
        // SAFETY: checked by `out`.
        unsafe { put(result, verdict) };
        Ok(())
    })
}

/// The changer's answer for a holder.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TentenRepair {
    /// The holder to deal: solvable, or the given one when `dead`.
    pub count: u32,
    pub pieces: [u8; TENTEN_MAX_HOLDER],
    /// Holders validated, the given one first.
    pub attempts: u32,
    /// 1 when the changer replaced a piece, else 0.
    pub changed: u8,
    /// 1 when no holder of this size can be placed on the board.
    pub dead: u8,
}

/// Runs the changer on `holder`: validate, and when it cannot be placed,
/// let F pick the block to replace (equations 4 and 5) and redraw it by the
/// rules' weights, from the stream `seed`, with the generator's policy and
/// redraws when it repairs (else the workbench's defaults), then the exact
/// fallback.
///
/// # Safety
/// As for tenten_validate.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_repair(
    rules: *const TentenRules,
    cells: *const u8,
    cell_count: usize,
    holder: *const u8,
    holder_count: usize,
    seed: u64,
    result: *mut TentenRepair,
) -> TentenStatus {
    guard(|| {
        // SAFETY: the caller's promises.
        let rules = &unsafe { obj(rules, "rules") }?.inner;
        // SAFETY: the caller's promises.
        let (bits, pieces) = unsafe { (board(rules, cells, cell_count)?, crate::args::holder(rules, holder, holder_count)?) };
        let result = out(result, "result")?;
        let r = repair(
            &rules.shapes,
            &rules.spec.set,
            bits,
            &pieces,
            &mut Generator::new(seed),
            rules.options,
        );
        let mut answer = TentenRepair {
            count: r.holder.len() as u32,
            attempts: r.attempts.len() as u32,
            changed: u8::from(r.outcome == Outcome::Repaired),
            dead: u8::from(r.outcome == Outcome::Dead),
            ..TentenRepair::default()
        };
        answer.pieces[..r.holder.len()].copy_from_slice(&r.holder);
        // SAFETY: checked by `out`.
        unsafe { put(result, answer) };
        Ok(())
    })
}

/// How dangerous a board is for the next deal.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TentenDanger {
    /// The chance that a fresh holder of the rules' size, drawn by the
    /// rules' weights, cannot be placed.
    pub probability: f64,
    /// Multisets of pieces judged, and how many of them cannot be placed.
    pub multisets: u64,
    pub killers: u64,
}

/// The danger of the board `cells`: every multiset of the rules' holder
/// size validated, weighted by the chance of dealing it.
///
/// # Safety
/// `rules` is NULL or a live handle; `cells` is NULL or `cell_count`
/// readable bytes; `result` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_danger(
    rules: *const TentenRules,
    cells: *const u8,
    cell_count: usize,
    result: *mut TentenDanger,
) -> TentenStatus {
    guard(|| {
        // SAFETY: the caller's promises.
        let rules = &unsafe { obj(rules, "rules") }?.inner;
        // SAFETY: the caller's promise on `cells`.
        let bits = unsafe { board(rules, cells, cell_count) }?;
        let result = out(result, "result")?;
        let d = danger(&rules.shapes, &rules.spec.set, bits, rules.k)
            .map_err(|m| Failure::new(TentenStatus::InvalidArgument, m))?;
        let answer = TentenDanger {
            probability: d.probability,
            multisets: d.multisets,
            killers: d.killers.len() as u64,
        };
        // SAFETY: checked by `out`.
        unsafe { put(result, answer) };
        Ok(())
    })
}
