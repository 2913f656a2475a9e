//! What a generator fit needs of each distinct board, computed once: its
//! unsolvable holders (the engine's exact danger with every piece
//! dealable, each multiset's orderings), whether it is dead, and for the
//! paper's repair the slot F picks in each unsolvable holder. The
//! likelihood of any weights is then sums over these lists.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::danger::danger_until;
use crate::model::board::Bits;
use crate::model::pieces::{PieceIdx, PieceSet};
use crate::model::shapes::Shapes;
use crate::progress::Progress;
use crate::search::heuristic::{FMatrix, Policy, Reading};
use crate::search::validator::validate;

/// A board's unsolvable holders.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BoardInfo {
    /// No holder of this size can be placed.
    pub dead: bool,
    /// The unsolvable ordered holders, as codes (`code`), sorted.
    pub killers: Vec<u32>,
    /// For each killer, the slot F picks under each policy that was asked
    /// for (in `Boards::policies` order).
    pub slots: Vec<Vec<u8>>,
}

impl BoardInfo {
    /// The killer's index, or `None` for a solvable holder.
    pub fn find(&self, code: u32) -> Option<usize> {
        self.killers.binary_search(&code).ok()
    }
}

/// Every distinct board of a log, with its `BoardInfo`.
#[derive(Clone, Debug, Default)]
pub struct Boards {
    pub n: usize,
    pub k: usize,
    pub infos: Vec<BoardInfo>,
    /// Each deal's board, an index into `infos`.
    pub of_deal: Vec<usize>,
    pub policies: Vec<Policy>,
}

/// A holder as a number: its pieces, the first most significant, base n.
pub fn code(holder: &[PieceIdx], n: usize) -> u32 {
    holder.iter().fold(0u32, |c, &p| c * n as u32 + u32::from(p))
}

/// The holder of a code.
pub fn decode(mut c: u32, n: usize, k: usize) -> Vec<PieceIdx> {
    let mut h = vec![0; k];
    for slot in h.iter_mut().rev() {
        *slot = (c % n as u32) as PieceIdx;
        c /= n as u32;
    }
    h
}

/// Every distinct ordering of a multiset (sorted input).
fn orderings(sorted: &[PieceIdx]) -> Vec<Vec<PieceIdx>> {
    let mut out = Vec::new();
    let mut h = sorted.to_vec();
    loop {
        out.push(h.clone());
        // The next permutation in lexicographic order.
        let Some(i) = (1..h.len()).rev().find(|&i| h[i - 1] < h[i]) else {
            break;
        };
        let j = (i..h.len()).rev().find(|&j| h[j] > h[i - 1]).unwrap_or(i);
        h.swap(i - 1, j);
        h[i..].reverse();
    }
    out
}

/// The unsolvable holders of `board` over every piece of `set`.
pub fn board_info(
    shapes: &Shapes,
    every: &PieceSet,
    board: Bits,
    k: usize,
    policies: &[Policy],
    progress: &Progress,
) -> Result<Option<BoardInfo>, String> {
    let n = every.pieces.len();
    let Some(d) = danger_until(shapes, every, board, k, progress)? else {
        return Ok(None);
    };
    let dead = d.killers.len() as u64 == d.multisets;
    let with_slots = !dead && !policies.is_empty();
    // Each killer validated once as a multiset: F's row sums follow the
    // pieces when the slots are permuted (every order is searched and each
    // order's failures depend only on its sequence of pieces), so every
    // ordering's slot is read off the same sums, the lowest slot on ties as
    // equation (5) breaks them.
    let mut rows: Vec<(u32, Vec<u8>)> = Vec::new();
    for m in &d.killers {
        let sums: Vec<Vec<u64>> = if with_slots {
            let v = validate(shapes, board, &m.pieces);
            policies
                .iter()
                .map(|&p| FMatrix::with_reading(&v, p, Reading::Slot).row_sums)
                .collect()
        } else {
            Vec::new()
        };
        for h in orderings(&m.pieces) {
            let slots = sums
                .iter()
                .map(|sum| {
                    let of = |i: usize| sum[m.pieces.iter().position(|&p| p == h[i]).unwrap_or(0)];
                    (0..k).fold(0, |best, i| if of(i) > of(best) { i } else { best }) as u8
                })
                .collect();
            rows.push((code(&h, n), slots));
        }
    }
    rows.sort_unstable_by_key(|r| r.0);
    let killers = rows.iter().map(|r| r.0).collect();
    let slots = if with_slots {
        (0..policies.len())
            .map(|p| rows.iter().map(|r| r.1[p]).collect())
            .collect()
    } else {
        vec![Vec::new(); if dead { 0 } else { policies.len() }]
    };
    Ok(Some(BoardInfo { dead, killers, slots }))
}

impl Boards {
    /// The info of every distinct board of `boards` (in parallel), with F's
    /// slots under `policies`; `Ok(None)` when cancelled.
    pub fn of(
        shapes: &Shapes,
        set: &PieceSet,
        boards: &[Bits],
        k: usize,
        policies: &[Policy],
        progress: &Progress,
    ) -> Result<Option<Boards>, String> {
        // Every piece dealable: the weights are what the fit learns.
        let mut every = set.clone();
        for p in &mut every.pieces {
            p.weight = 1;
        }
        let mut index: HashMap<Bits, usize> = HashMap::new();
        let mut distinct = Vec::new();
        let of_deal = boards
            .iter()
            .map(|&b| {
                *index.entry(b).or_insert_with(|| {
                    distinct.push(b);
                    distinct.len() - 1
                })
            })
            .collect();
        progress.set_total(distinct.len());
        let infos: Result<Vec<Option<BoardInfo>>, String> = distinct
            .par_iter()
            .map(|&b| {
                let r = board_info(shapes, &every, b, k, policies, progress);
                progress.advance(1);
                r
            })
            .collect();
        let infos: Option<Vec<BoardInfo>> = infos?.into_iter().collect();
        Ok(infos.map(|infos| Boards {
            n: set.pieces.len(),
            k,
            infos,
            of_deal,
            policies: policies.to_vec(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        /// F's slot read off the multiset's row sums is the slot F picks
        /// in each ordering validated on its own, under every policy, with
        /// repeated pieces: on random boards, classic 10x10 and 41 pieces
        /// never rotated on 8x8.
        #[test]
        fn each_orderings_slot_equals_its_own_validation(seed: u64, fill in 0.2f64..0.7, fixed in proptest::bool::ANY) {
            let (set, shapes) = crate::fixtures::classic_or_fixed41(fixed);
            let board = crate::fixtures::random_board(&shapes, fill, seed);
            let policies = [Policy::Deepest, Policy::Last, Policy::Frequency];
            let info = board_info(&shapes, &set, board, 3, &policies, &Progress::default())
                .unwrap()
                .unwrap();
            proptest::prop_assume!(!info.dead);
            for (u, &c) in info.killers.iter().enumerate().step_by(7) {
                let v = validate(&shapes, board, &decode(c, set.pieces.len(), 3));
                proptest::prop_assert!(!v.solvable);
                for (p, &policy) in policies.iter().enumerate() {
                    let own = FMatrix::with_reading(&v, policy, Reading::Slot).chosen as u8;
                    proptest::prop_assert_eq!(info.slots[p][u], own, "killer {:?} {:?}", decode(c, set.pieces.len(), 3), policy);
                }
            }
        }
    }

    #[test]
    fn codes_round_trip_and_orderings_are_distinct() {
        let h = vec![3, 0, 18];
        assert_eq!(decode(code(&h, 19), 19, 3), h);
        assert_eq!(orderings(&[1, 2, 3]).len(), 6);
        assert_eq!(orderings(&[1, 1, 3]).len(), 3);
        assert_eq!(orderings(&[2, 2, 2]).len(), 1);
    }
}
