//! The validator's event trace, for stepping through the AND-OR tree. The fast
//! path uses `NoTrace`, whose `ENABLED = false` compiles every event away.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::model::board::{Bits, Lines};
use crate::progress::Progress;

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
    /// Exhaustive mode: the last block fits; the search goes on.
    Solution,
    /// 1(b)ii.B: the last block fits: SUCCESS (in exhaustive mode: the end
    /// of a search that found at least one solution).
    Solved,
    /// 2: no permutation left: FAILURE.
    Unsolvable,
    /// Exhaustive mode: the node budget ran out or the user cancelled.
    Stopped,
}

/// Where the search reports its events.
pub trait Recorder {
    const ENABLED: bool;
    /// Explore the whole tree instead of stopping at the first solution.
    const EXHAUSTIVE: bool = false;
    fn push(&mut self, event: Event);
    /// Exhaustive mode: whether to go on after `nodes` placements.
    fn keep_going(&mut self, _nodes: u64) -> bool {
        true
    }
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

/// Events an exhaustive run keeps for stepping and the outline: about 32
/// bytes each, plus the tree built on them, so at most about 300 MB. Past it
/// the search goes on counting (nodes, solutions, failures, branching).
pub const MAX_TRACE_EVENTS: usize = 4_000_000;

/// The whole tree, with a node budget, a cancel flag and a progress counter
/// that another thread may watch. The trace is capped at `trace_limit`
/// events; the failure counts cover the whole run.
pub struct Exhaustive {
    pub trace: Trace,
    pub budget: u64,
    /// Cancel, and nodes done out of the budget.
    pub progress: Arc<Progress>,
    pub trace_limit: usize,
    /// Events not kept because the trace was full.
    pub dropped: u64,
    /// Failures (NoFit) noted at positions 1..=k, and in each order.
    pub fails_by_depth: [u64; 4],
    pub fails_by_order: Vec<u64>,
    order: usize,
}

impl Exhaustive {
    pub fn new(budget: u64, progress: Arc<Progress>) -> Self {
        progress.set_total(usize::try_from(budget).unwrap_or(usize::MAX));
        Self {
            trace: Trace::default(),
            budget,
            progress,
            trace_limit: MAX_TRACE_EVENTS,
            dropped: 0,
            fails_by_depth: [0; 4],
            fails_by_order: Vec::new(),
            order: 0,
        }
    }

    /// Whether the user asked the run to stop.
    pub fn cancelled(&self) -> bool {
        self.progress.cancelled()
    }
}

impl Recorder for Exhaustive {
    const ENABLED: bool = true;
    const EXHAUSTIVE: bool = true;
    fn push(&mut self, event: Event) {
        match event {
            Event::Order { order, .. } => {
                self.order = usize::from(order);
                if self.fails_by_order.len() <= self.order {
                    self.fails_by_order.resize(self.order + 1, 0);
                }
            }
            Event::DuplicateOrder { order, .. } => {
                let order = usize::from(order);
                if self.fails_by_order.len() <= order {
                    self.fails_by_order.resize(order + 1, 0);
                }
            }
            Event::NoFit { depth, .. } => {
                if let Some(n) = self.fails_by_depth.get_mut(usize::from(depth).saturating_sub(1)) {
                    *n += 1;
                }
                if let Some(n) = self.fails_by_order.get_mut(self.order) {
                    *n += 1;
                }
            }
            _ => {}
        }
        let events = &mut self.trace.events;
        if events.len() + 1 < self.trace_limit {
            events.push(event);
        } else if events.len() + 1 == self.trace_limit {
            // The kept trace ends as a stopped search does.
            events.push(Event::Stopped);
            self.dropped += 1;
        } else {
            self.dropped += 1;
        }
    }
    fn keep_going(&mut self, nodes: u64) -> bool {
        if nodes.is_multiple_of(4096) {
            let done = usize::try_from(nodes).unwrap_or(usize::MAX);
            self.progress.done.store(done, Ordering::Relaxed);
        }
        nodes < self.budget && !self.progress.cancelled()
    }
}
