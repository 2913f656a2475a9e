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
    let mut killers: Vec<u32> = d
        .killers
        .iter()
        .flat_map(|m| orderings(&m.pieces))
        .map(|h| code(&h, n))
        .collect();
    killers.sort_unstable();
    // Each killer validated once; F read under every policy asked for.
    let mut slots = vec![Vec::with_capacity(killers.len()); if dead { 0 } else { policies.len() }];
    if !dead && !policies.is_empty() {
        for &c in &killers {
            let v = validate(shapes, board, &decode(c, n, k));
            for (s, &policy) in slots.iter_mut().zip(policies) {
                s.push(FMatrix::with_reading(&v, policy, Reading::Slot).chosen as u8);
            }
        }
    }
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

    #[test]
    fn codes_round_trip_and_orderings_are_distinct() {
        let h = vec![3, 0, 18];
        assert_eq!(decode(code(&h, 19), 19, 3), h);
        assert_eq!(orderings(&[1, 2, 3]).len(), 6);
        assert_eq!(orderings(&[1, 1, 3]).len(), 3);
        assert_eq!(orderings(&[2, 2, 2]).len(), 1);
    }
}
