//! The changer's heuristic: the matrix F of equation (4) and the argmax of
//! equation (5), built from what the validator noted into unfitBlock.
//!
//! Two choices the paper leaves open are settings here. The failure policy
//! says which failure of an order becomes ub(j). The reading says how
//! repeated pieces share failures: equation (4) sets fail(i, j) when "the
//! block p(j, ub(j)) is b_i". Read by slot (the default, as the validator
//! records which slot sat at each position), only the copy that failed is
//! blamed, so two copies of `sq3` split their failures and the tie rule can
//! then blame a third piece. Read by piece identity, every copy of the
//! failing piece carries the full value. Both are offered so a teacher can
//! show the difference; they choose different blocks in a few per cent of
//! the unsolvable deals that repeat a piece.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::search::validator::{OrderRecord, Validation};

/// Which failure of an order becomes ub(j). The paper leaves this open when
/// an order fails at several positions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Policy {
    /// The deepest failing position (as the one public implementation does).
    #[default]
    Deepest,
    /// The last failure noted (a literal reading of Fig. 4).
    Last,
    /// Every failure counts, weighted by its depth ("how often the block fails").
    Frequency,
}

impl Policy {
    pub const ALL: [Policy; 3] = [Policy::Deepest, Policy::Last, Policy::Frequency];

    pub fn name(self) -> &'static str {
        match self {
            Policy::Deepest => "deepest",
            Policy::Last => "last",
            Policy::Frequency => "frequency",
        }
    }

    /// ub(j) for one order record under this policy (0 when nothing was noted).
    /// For `Frequency` there is no single position; the deepest is shown.
    pub fn ub(self, record: &OrderRecord) -> u8 {
        match self {
            Policy::Deepest | Policy::Frequency => record.deepest,
            Policy::Last => record.last,
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Policy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Policy::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("unknown policy {s:?}; use deepest, last or frequency"))
    }
}

/// How repeated pieces share the failures in F (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Reading {
    /// fail(i, j) for the slot that sat at the failing position.
    #[default]
    Slot,
    /// fail(i, j) for every slot holding the failing piece.
    Piece,
}

impl Reading {
    pub const ALL: [Reading; 2] = [Reading::Slot, Reading::Piece];

    pub fn name(self) -> &'static str {
        match self {
            Reading::Slot => "slot",
            Reading::Piece => "piece",
        }
    }

    /// A sentence for the F tab and `--explain`.
    pub fn describe(self) -> &'static str {
        match self {
            Reading::Slot => "by slot: only the copy that failed is blamed",
            Reading::Piece => "by piece: every copy of the failing piece is blamed",
        }
    }
}

impl fmt::Display for Reading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Reading {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Reading::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| format!("unknown reading {s:?}; use slot or piece"))
    }
}

/// unfitBlock: ub(j) for every order under `policy` (0 where nothing was
/// noted; `Frequency` shows the deepest). An order skipped because it
/// repeats an earlier sequence failed exactly as that one did, so it shows
/// that order's value. The one implementation: the F matrix, the tree
/// debugger, the Fig. 4 sentences and `--explain` all read it from here.
pub fn unfit_block(records: &[OrderRecord], policy: Policy) -> Vec<u8> {
    records
        .iter()
        .map(|own| {
            let noted = own.same_as.map_or(own, |i| &records[usize::from(i)]);
            policy.ub(noted)
        })
        .collect()
}

/// F = {fail(i, j)}: one row per holder slot i, one column per order j.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FMatrix {
    pub policy: Policy,
    pub reading: Reading,
    /// k, the rows.
    pub k: usize,
    /// The orders, the columns (k!).
    pub orders: usize,
    /// ub(j) per order under the policy.
    pub unfit_block: Vec<u8>,
    /// Row-major, k x orders.
    pub fail: Vec<u64>,
    /// Σ_j fail(i, j) per slot.
    pub row_sums: Vec<u64>,
    /// Equation (5): the slot with the largest row sum (ties: the lowest slot).
    pub chosen: usize,
}

impl FMatrix {
    pub fn get(&self, slot: usize, order: usize) -> u64 {
        self.fail[slot * self.orders + order]
    }

    /// Builds F from an unsolvable validation, reading repeated pieces by slot.
    pub fn new(v: &Validation, policy: Policy) -> Self {
        Self::with_reading(v, policy, Reading::Slot)
    }

    /// Builds F from an unsolvable validation. An order skipped because it
    /// repeats an earlier sequence fails exactly as that one did, so its
    /// column uses that order's failures with its own slots.
    pub fn with_reading(v: &Validation, policy: Policy, reading: Reading) -> Self {
        let k = usize::from(v.k);
        let holder = v.holder();
        let orders = v.orders();
        let n = orders.len();
        let mut fail = vec![0u64; k * n];
        let unfit_block = unfit_block(orders, policy);
        // Equation (4): the block at position `pos` of order j is blamed.
        let mut blame = |j: usize, own: &OrderRecord, pos: u8, value: u64| {
            let failed = own.slot_at(pos);
            for i in 0..k {
                let hit = match reading {
                    Reading::Slot => i == failed,
                    Reading::Piece => holder[i] == holder[failed],
                };
                if hit {
                    fail[i * n + j] += value;
                }
            }
        };
        for (j, own) in orders.iter().enumerate() {
            let noted = own.same_as.map_or(own, |i| &orders[usize::from(i)]);
            match policy {
                Policy::Deepest | Policy::Last => {
                    // fail(i, j) = 5 ub(j) where p(j, ub(j)) = b_i.
                    let ub = unfit_block[j];
                    if ub > 0 {
                        blame(j, own, ub, 5 * u64::from(ub));
                    }
                }
                Policy::Frequency => {
                    // Equation (4) summed over every failure noted in order j.
                    for pos in 1..=k as u8 {
                        let count = u64::from(noted.counts[usize::from(pos) - 1]);
                        if count > 0 {
                            blame(j, own, pos, 5 * u64::from(pos) * count);
                        }
                    }
                }
            }
        }
        let row_sums: Vec<u64> = (0..k).map(|i| fail[i * n..(i + 1) * n].iter().sum()).collect();
        // Equation (5); `max_by_key` keeps the last maximum, so scan by hand
        // to keep the lowest slot on ties.
        let mut chosen = 0;
        for (i, &s) in row_sums.iter().enumerate() {
            if s > row_sums[chosen] {
                chosen = i;
            }
        }
        Self {
            policy,
            reading,
            k,
            orders: n,
            unfit_block,
            fail,
            row_sums,
            chosen,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::classic;

    use crate::search::validator::validate;

    #[test]
    fn policies_parse_and_print() {
        for p in Policy::ALL {
            assert_eq!(p.name().parse::<Policy>().unwrap(), p);
        }
        assert!(
            "deep"
                .parse::<Policy>()
                .unwrap_err()
                .contains("deepest, last or frequency")
        );
    }

    #[test]
    fn f_follows_equation_4_on_a_hand_made_deal() {
        // Rows 2, 5, 8 filled but for columns 8 and 9: no 3x3 square fits,
        // a dot fits 76 times and can complete nothing.
        let (set, shapes) = classic();
        let g = &shapes.geometry;
        let board = (g.rows[2] | g.rows[5] | g.rows[8]) & !g.cols[8] & !g.cols[9];
        let holder = [set.index_of("dot").unwrap(), set.index_of("sq3").unwrap()];
        let v = validate(&shapes, board, &holder);
        assert!(!v.solvable);
        // Orders: j=0 (dot, sq3) fails at position 2 on sq3 (76 times);
        //         j=1 (sq3, dot) fails at position 1 on sq3 (once).
        let deepest = FMatrix::new(&v, Policy::Deepest);
        assert_eq!(deepest.fail, vec![0, 0, 10, 5]);
        assert_eq!(deepest.row_sums, vec![0, 15]);
        assert_eq!(deepest.chosen, 1);
        assert_eq!(deepest.unfit_block, vec![2, 1]);
        let last = FMatrix::new(&v, Policy::Last);
        assert_eq!(last.fail, deepest.fail);
        let freq = FMatrix::new(&v, Policy::Frequency);
        assert_eq!(freq.fail, vec![0, 0, 10 * 76, 5]);
        assert_eq!(freq.chosen, 1);
    }

    #[test]
    fn by_piece_every_copy_of_the_failing_piece_is_blamed() {
        let (set, shapes) = classic();
        let g = &shapes.geometry;
        let (sq3, dot) = (set.index_of("sq3").unwrap(), set.index_of("dot").unwrap());
        let board = (g.rows[2] | g.rows[5] | g.rows[8]) & !g.cols[8] & !g.cols[9];
        let v = validate(&shapes, board, &[sq3, dot, sq3]);
        assert!(!v.solvable);
        let slot = FMatrix::with_reading(&v, Policy::Deepest, Reading::Slot);
        let piece = FMatrix::with_reading(&v, Policy::Deepest, Reading::Piece);
        // By piece both sq3 rows carry every order's value; the dot none.
        assert_eq!(piece.row_sums[0], piece.row_sums[2]);
        assert_eq!(piece.row_sums[1], 0);
        assert!(piece.row_sums[0] >= slot.row_sums[0].max(slot.row_sums[2]));
        assert_eq!(piece.row_sums[0], slot.row_sums[0] + slot.row_sums[2]);
        assert_eq!(piece.unfit_block, slot.unfit_block);
        assert_eq!("piece".parse::<Reading>().unwrap(), Reading::Piece);
        assert!("copy".parse::<Reading>().unwrap_err().contains("slot or piece"));
    }

    #[test]
    fn ties_choose_the_lowest_slot() {
        let (set, shapes) = classic();
        let g = &shapes.geometry;
        let sq3 = set.index_of("sq3").unwrap();
        let board = (g.rows[2] | g.rows[5] | g.rows[8]) & !g.cols[8] & !g.cols[9];
        let v = validate(&shapes, board, &[sq3, sq3]);
        let f = FMatrix::new(&v, Policy::Deepest);
        // (sq3, sq3) is one sequence; the repeated order mirrors it.
        assert_eq!(f.fail, vec![5, 0, 0, 5]);
        assert_eq!(f.chosen, 0);
    }
}
