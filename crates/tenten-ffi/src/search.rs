//! The paper's searches through the ABI: validation (Fig. 4), the changer
//! (equations 4 and 5), and the danger of a board.

use tenten_engine::danger::danger;
use tenten_engine::model::generator::Generator;
use tenten_engine::search::changer::{Outcome, repair};
use tenten_engine::search::validator::verdict;

use crate::TENTEN_MAX_HOLDER;
use crate::args::{board, obj, out, put};
use crate::rules::{Rules, TentenRules};
use crate::status::{Failure, TentenStatus, guard};
use tenten_engine::model::board::Bits;

/// The rules, the board and the holder of a validate or repair call.
///
/// # Safety
/// As for tenten_validate.
#[inline(always)]
unsafe fn deal<'a>(
    rules: *const TentenRules,
    cells: *const u8,
    cell_count: usize,
    holder: *const u8,
    holder_count: usize,
) -> Result<(&'a Rules, Bits, &'a [u8]), Failure> {
    // SAFETY: the caller's promises.
    unsafe {
        let rules = &obj(rules, "rules")?.inner;
        Ok((
            rules,
            board(rules.shapes.size(), cells, cell_count)?,
            crate::args::holder(&rules.spec.set, holder, holder_count)?,
        ))
    }
}

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
        let (rules, bits, pieces) = unsafe { deal(rules, cells, cell_count, holder, holder_count) }?;
        let result = out(result, "result")?;
        // The same search as the workbench's validate, without copying out
        // the per-order records the ABI does not return.
        let v = verdict(&rules.shapes, bits, pieces);
        let mut answer = TentenValidation {
            placements: v.nodes,
            solvable: u8::from(v.solvable),
            ..TentenValidation::default()
        };
        if let Some(solution) = &v.solution {
            answer.order = solution.order;
            answer.step_count = solution.steps().len() as u8;
            for (to, s) in answer.steps.iter_mut().zip(solution.steps()) {
                *to = TentenStep {
                    slot: s.slot,
                    piece: pieces[usize::from(s.slot)],
                    x: s.x,
                    y: s.y,
                    // One count for rows and columns together.
                    lines: (u32::from(s.lines.rows) | u32::from(s.lines.cols) << 16).count_ones(),
                };
            }
        }
        // SAFETY: checked by `out`.
        unsafe { put(result, answer) };
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
        let (rules, bits, pieces) = unsafe { deal(rules, cells, cell_count, holder, holder_count) }?;
        let result = out(result, "result")?;
        let r = repair(
            &rules.shapes,
            &rules.spec.set,
            bits,
            pieces,
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
        let bits = unsafe { board(rules.shapes.size(), cells, cell_count) }?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{cells, rules};
    use crate::{TentenPlay, tenten_play, tenten_rules_free};
    use proptest::prelude::*;
    use tenten_engine::model::board::{BoardSize, Geometry};
    use tenten_engine::model::pieces::PieceSet;
    use tenten_engine::model::shapes::Shapes;
    use tenten_engine::search::validator::validate;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The ABI's verdict is the engine's, and its solution, played
        /// through the ABI, places the whole holder.
        #[test]
        fn validate_through_the_abi_is_the_engines_and_its_solution_plays(
            raw in any::<u128>(),
            density in 0u32..4,
            holder in proptest::collection::vec(0u8..19, 1..=3),
        ) {
            let size = BoardSize::new(8, 8).unwrap();
            let geometry = Geometry::new(size);
            // A board half to 94 % full before its full lines clear.
            let mut bits = raw;
            for i in 0..density {
                bits |= raw.rotate_left(13 * i + 7);
            }
            bits &= geometry.full;
            bits &= !geometry.mask_of(geometry.full_lines(bits));
            let r = rules("random", 8, 8, 3);
            let c = cells(bits, 64);
            let mut v = TentenValidation::default();
            // SAFETY: live handle, arrays of the stated lengths, writable output.
            let status = unsafe { tenten_validate(r, c.as_ptr(), c.len(), holder.as_ptr(), holder.len(), &mut v) };
            prop_assert_eq!(status, TentenStatus::Ok);
            let shapes = Shapes::new(&PieceSet::classic(), size);
            let engine = validate(&shapes, bits, &holder);
            prop_assert_eq!(v.solvable == 1, engine.solvable);
            prop_assert_eq!(v.placements, engine.nodes);
            if engine.solvable {
                prop_assert_eq!(usize::from(v.step_count), holder.len());
                let mut board = c.clone();
                let mut used = vec![false; holder.len()];
                for s in &v.steps[..usize::from(v.step_count)] {
                    prop_assert!(!used[usize::from(s.slot)]);
                    used[usize::from(s.slot)] = true;
                    prop_assert_eq!(s.piece, holder[usize::from(s.slot)]);
                    let mut play = TentenPlay::default();
                    // SAFETY: as above.
                    let status = unsafe { tenten_play(r, board.as_mut_ptr(), board.len(), s.piece, s.x, s.y, &mut play) };
                    prop_assert_eq!(status, TentenStatus::Ok);
                    prop_assert_eq!(play.rows + play.columns, s.lines);
                }
            } else {
                prop_assert_eq!(v.step_count, 0);
            }
            // SAFETY: made above, freed once.
            unsafe { tenten_rules_free(r) };
        }
    }

    /// Boards of a game, empty to jammed, and a holder for each.
    fn corpus() -> Vec<(u128, Vec<u8>)> {
        let set = PieceSet::classic();
        let shapes = Shapes::new(&set, BoardSize::CLASSIC);
        let mut g = Generator::new(5);
        tenten_engine::play::random_fill::played_deals(&shapes, &set, 3, 300, &mut g)
            .into_iter()
            .map(|d| (d.board, d.holder))
            .collect()
    }

    #[test]
    fn repair_and_danger_through_the_abi_are_the_engines() {
        let r = rules("repair", 10, 10, 3);
        let set = PieceSet::classic();
        let shapes = Shapes::new(&set, BoardSize::CLASSIC);
        let mut changed = 0;
        for (i, (board, holder)) in corpus().iter().enumerate().step_by(3) {
            let c = cells(*board, 100);
            let mut got = TentenRepair::default();
            // SAFETY: live handle, arrays of the stated lengths, writable output.
            let status = unsafe {
                tenten_repair(
                    r,
                    c.as_ptr(),
                    100,
                    holder.as_ptr(),
                    holder.len(),
                    i as u64,
                    &mut got,
                )
            };
            assert_eq!(status, TentenStatus::Ok);
            let options = tenten_engine::search::changer::ChangeOptions::default();
            let want = repair(
                &shapes,
                &set,
                *board,
                holder,
                &mut Generator::new(i as u64),
                options,
            );
            assert_eq!(
                &got.pieces[..got.count as usize],
                want.holder.as_slice(),
                "deal {i}"
            );
            assert_eq!(got.attempts as usize, want.attempts.len());
            assert_eq!(got.dead == 1, want.outcome == Outcome::Dead);
            changed += usize::from(got.changed);
            if i % 30 == 0 {
                let mut d = TentenDanger::default();
                // SAFETY: as above.
                assert_eq!(
                    unsafe { tenten_danger(r, c.as_ptr(), 100, &mut d) },
                    TentenStatus::Ok
                );
                let engine = danger(&shapes, &set, *board, 3).unwrap();
                assert_eq!(
                    (d.probability, d.killers),
                    (engine.probability, engine.killers.len() as u64)
                );
            }
        }
        assert!(changed > 0, "some holders of the corpus needed the changer");
        // SAFETY: made above, freed once.
        unsafe { tenten_rules_free(r) };
    }

    #[test]
    fn one_rules_handle_serves_many_threads_at_once() {
        let r = rules("random", 10, 10, 3);
        let corpus = corpus();
        let verdicts = |handle: usize| -> Vec<(u8, u64)> {
            let r = handle as *const TentenRules;
            corpus
                .iter()
                .map(|(board, holder)| {
                    let c = cells(*board, 100);
                    let mut v = TentenValidation::default();
                    // SAFETY: the rules live until every thread is joined.
                    let status =
                        unsafe { tenten_validate(r, c.as_ptr(), 100, holder.as_ptr(), holder.len(), &mut v) };
                    assert_eq!(status, TentenStatus::Ok);
                    (v.solvable, v.placements)
                })
                .collect()
        };
        let address = r as usize;
        let alone = verdicts(address);
        let together: Vec<_> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4).map(|_| scope.spawn(|| verdicts(address))).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(alone.iter().any(|v| v.0 == 0) && alone.iter().any(|v| v.0 == 1));
        for t in together {
            assert_eq!(t, alone);
        }
        // SAFETY: made above, freed once, after the threads.
        unsafe { tenten_rules_free(r) };
    }
}
