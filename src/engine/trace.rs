//! The validator's event trace, for stepping through the AND-OR tree. The fast
//! path uses `NoTrace`, whose `ENABLED = false` compiles every event away.

use super::board::{Bits, Lines};

/// One step of the search, named after the step of Fig. 4 it performs.
/// Positions (`depth`) are 1-based like the paper's ub(j).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// 1(a): adjust the holder to permutation `order` (its slots in turn).
    Order { order: u8, slots: [u8; 4] },
    /// Permutation `order` deals the same sequence as `same_as`: skipped.
    DuplicateOrder { order: u8, same_as: u8 },
    /// 1(b)i / 1(b)ii.A: the block at position `depth` (holder slot `slot`)
    /// put with its box's top-left at (x, y); `board` after clearing `lines`.
    Place {
        depth: u8,
        slot: u8,
        x: u8,
        y: u8,
        board: Bits,
        lines: Lines,
    },
    /// 1(b)ii.C / 1(b)iii / 1(c): no location for the block at `depth`;
    /// the position is noted into unfitBlock.
    NoFit { depth: u8, slot: u8 },
    /// Every location of the block at `depth` has been tried.
    Backtrack { depth: u8 },
    /// 1(b)ii.B: the last block fits: SUCCESS.
    Solved,
    /// 2: no permutation left: FAILURE.
    Unsolvable,
}

/// Where the search reports its events.
pub trait Recorder {
    const ENABLED: bool;
    fn push(&mut self, event: Event);
}

/// The fast path: records nothing.
pub struct NoTrace;

impl Recorder for NoTrace {
    const ENABLED: bool = false;
    #[inline(always)]
    fn push(&mut self, _: Event) {}
}

/// Every event, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    pub events: Vec<Event>,
}

impl Recorder for Trace {
    const ENABLED: bool = true;
    fn push(&mut self, event: Event) {
        self.events.push(event);
    }
}
