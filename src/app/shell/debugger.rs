//! A debugging session over one traced search: the cursor (an index into the
//! event trace), stepping, breakpoints, and the outline's expanded nodes.

use std::collections::HashSet;
use std::sync::Arc;

use crate::app::jobs::job::{Job, Watch};

use tenten_engine::model::board::{Bits, BoardSize, Lines};
use tenten_engine::model::pieces::{PieceIdx, PieceSet};
use tenten_engine::model::shapes::Shapes;
use tenten_engine::search::explain::UnfitBlock;
use tenten_engine::search::heuristic::Policy;
use tenten_engine::search::trace::{Event, Exhaustive};
use tenten_engine::search::tree::{NodeId, Tree};
use tenten_engine::search::validator::{Validation, explore, validate_traced};

/// The deal a session traces.
#[derive(Clone, Debug, PartialEq)]
pub struct DealKey {
    pub set: PieceSet,
    pub size: BoardSize,
    pub board: Bits,
    pub holder: Vec<PieceIdx>,
}

/// Exhaustive-mode figures.
#[derive(Clone, Debug, PartialEq)]
pub struct ExploreStats {
    pub solutions: u64,
    pub complete: bool,
    /// The user pressed Cancel during the run.
    pub cancelled: bool,
    pub branching: Vec<f64>,
    /// Failures at positions 1..=k and in each order, over the whole run
    /// (the kept trace may hold only its beginning).
    pub fails_by_depth: Vec<u64>,
    pub fails_by_order: Vec<u64>,
    /// Events past `MAX_TRACE_EVENTS`, counted but not kept.
    pub events_dropped: u64,
}

impl ExploreStats {
    /// How the run ended, in the words the tab shows.
    pub fn ending(&self) -> &'static str {
        if self.complete && self.cancelled {
            "complete (it finished before the cancel took effect)"
        } else if self.complete {
            "complete"
        } else if self.cancelled {
            "cancelled"
        } else {
            "stopped by the budget"
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Breakpoints {
    /// Stop at any placement at this position (1..=k).
    pub depth: Option<u8>,
    /// Stop at any placement or failure of this piece.
    pub piece: Option<PieceIdx>,
    /// Stop at the first failure in this order.
    pub first_failure_in: Option<u8>,
}

pub struct Session {
    pub key: DealKey,
    pub validation: Validation,
    pub events: Arc<Vec<Event>>,
    pub tree: Arc<Tree>,
    pub explored: Option<ExploreStats>,
    pub cursor: usize,
    pub expanded: HashSet<NodeId>,
    pub breakpoints: Breakpoints,
    pub playing: bool,
    /// Events per second while playing.
    pub speed: f32,
    play_debt: f64,
    /// unfitBlock every `CHECKPOINT` events, so any cursor is quick to show.
    checkpoints: Vec<UnfitBlock>,
    /// The first failure event of each order, for its breakpoint.
    first_failure: Vec<Option<usize>>,
}

const CHECKPOINT: usize = 1 << 14;

/// What the board shows for the current event.
#[derive(Clone, Debug, PartialEq)]
pub struct DebugBoard {
    /// The board at the current node (after its clears).
    pub board: Bits,
    /// Each placement on the path (1st, 2nd, ...): its cells.
    pub placed: Vec<Bits>,
    /// The current candidate position (cells), and whether it fits.
    pub candidate: Option<(Bits, bool)>,
    /// Lines the current placement cleared.
    pub cleared: Lines,
}

impl Session {
    pub fn new(
        key: DealKey,
        validation: Validation,
        events: Vec<Event>,
        explored: Option<ExploreStats>,
    ) -> Self {
        let tree = Tree::build(&events);
        let orders = (1..=key.holder.len()).product::<usize>();
        let mut checkpoints = Vec::with_capacity(events.len() / CHECKPOINT + 1);
        let mut ub = UnfitBlock::new(orders);
        let mut first_failure = vec![None; orders];
        let mut order = 0;
        for (i, e) in events.iter().enumerate() {
            if i % CHECKPOINT == 0 {
                checkpoints.push(ub.clone());
            }
            ub.note(e);
            match *e {
                Event::Order { order: j, .. } => order = usize::from(j),
                Event::NoFit { .. } if order < orders && first_failure[order].is_none() => {
                    first_failure[order] = Some(i);
                }
                _ => {}
            }
        }
        let mut s = Self {
            key,
            validation,
            events: Arc::new(events),
            tree: Arc::new(tree),
            explored,
            cursor: 0,
            expanded: HashSet::from([Tree::ROOT]),
            breakpoints: Breakpoints::default(),
            playing: false,
            speed: 8.0,
            play_debt: 0.0,
            checkpoints,
            first_failure,
        };
        s.reveal();
        s
    }

    /// Traces the fast-path search of `key` (quick: it stops at the first success).
    pub fn trace(key: DealKey) -> Self {
        let shapes = Shapes::new(&key.set, key.size);
        let (v, trace) = validate_traced(&shapes, key.board, &key.holder);
        Self::new(key, v, trace.events, None)
    }

    pub fn last(&self) -> usize {
        self.events.len().saturating_sub(1)
    }

    pub fn node(&self) -> NodeId {
        self.tree
            .event_node
            .get(self.cursor)
            .copied()
            .unwrap_or(Tree::ROOT)
    }

    /// Moves the cursor and opens the outline down to its node.
    pub fn go(&mut self, cursor: usize) {
        self.cursor = cursor.min(self.last());
        self.reveal();
    }

    fn reveal(&mut self) {
        for n in self.tree.path(self.node()) {
            self.expanded.insert(n);
        }
    }

    pub fn step_into(&mut self) {
        self.go(self.cursor + 1);
    }

    pub fn step_back(&mut self) {
        self.go(self.cursor.saturating_sub(1));
    }

    /// The first event after `node`'s subtree is finished.
    fn after(&self, node: NodeId) -> usize {
        let close = self.tree.node(node).close;
        if close == u32::MAX {
            return self.last();
        }
        let mut t = close as usize;
        // The closing event may belong to the subtree itself (a backtrack).
        if self
            .tree
            .event_node
            .get(t)
            .is_some_and(|&n| self.tree.is_ancestor(node, n))
        {
            t += 1;
        }
        t.max(self.cursor + 1)
    }

    /// Finishes the current node's subtree.
    pub fn step_over(&mut self) {
        self.go(self.after(self.node()));
    }

    /// Finishes the parent's subtree.
    pub fn step_out(&mut self) {
        let parent = self.tree.node(self.node()).parent;
        self.go(self.after(parent));
    }

    /// Runs until `stop` holds for an event (or a breakpoint, or the end).
    fn run_until(&mut self, stop: impl Fn(&Event) -> bool) {
        let mut i = self.cursor + 1;
        while i < self.last() && !stop(&self.events[i]) && !self.breaks_at(i) {
            i += 1;
        }
        self.go(i);
    }

    pub fn run_to_failure(&mut self) {
        self.run_until(|e| matches!(e, Event::NoFit { .. }));
    }

    pub fn run_to_end(&mut self) {
        self.run_until(|e| matches!(e, Event::Solved | Event::Unsolvable | Event::Stopped));
    }

    pub fn restart(&mut self) {
        self.playing = false;
        self.go(0);
    }

    /// Whether a breakpoint stops at event `i`.
    pub fn breaks_at(&self, i: usize) -> bool {
        let b = self.breakpoints;
        let piece_of = |slot: u8| self.key.holder.get(usize::from(slot)).copied();
        match self.events[i] {
            Event::Place { depth, slot, .. } => {
                b.depth == Some(depth) || (b.piece.is_some() && b.piece == piece_of(slot))
            }
            Event::NoFit { slot, .. } => {
                if b.piece.is_some() && b.piece == piece_of(slot) {
                    return true;
                }
                b.first_failure_in
                    .is_some_and(|j| self.first_failure.get(usize::from(j)).copied().flatten() == Some(i))
            }
            _ => false,
        }
    }

    /// Advances playback by `dt` seconds; stops at breakpoints and the end.
    pub fn play(&mut self, dt: f64) {
        if !self.playing {
            return;
        }
        self.play_debt += dt * f64::from(self.speed);
        while self.play_debt >= 1.0 {
            self.play_debt -= 1.0;
            if self.cursor >= self.last() {
                self.playing = false;
                return;
            }
            self.step_into();
            if self.breaks_at(self.cursor) {
                self.playing = false;
                return;
            }
        }
    }

    /// unfitBlock once the events up to the cursor have happened.
    pub fn unfit_block(&self, policy: Policy) -> Vec<u8> {
        let from = self.cursor / CHECKPOINT;
        let mut ub = self
            .checkpoints
            .get(from)
            .cloned()
            .unwrap_or_else(|| UnfitBlock::new(0));
        for e in &self.events[from * CHECKPOINT..=self.cursor.min(self.last())] {
            ub.note(e);
        }
        ub.get(policy)
    }

    /// The board at the current event, with the path's placements.
    pub fn board(&self, shapes: &Shapes) -> DebugBoard {
        let start = self.validation.start;
        let node = self.node();
        let mut placed = Vec::new();
        let mut board = start;
        let mut cleared = Lines::default();
        let mut candidate = None;
        for n in self.tree.path(node) {
            if n == Tree::ROOT {
                continue;
            }
            match self.events[self.tree.node(n).event as usize] {
                Event::Place {
                    slot,
                    x,
                    y,
                    board: after,
                    lines,
                    ..
                } => {
                    let piece = self.key.holder[usize::from(slot)];
                    let mask = shapes.shape(piece).mask << shapes.size().bit(usize::from(x), usize::from(y));
                    placed.push(mask);
                    board = after;
                    cleared = lines;
                    if n == node {
                        candidate = Some((mask, true));
                    }
                }
                Event::Order { .. } => {
                    board = start;
                    cleared = Lines::default();
                }
                _ => {}
            }
        }
        if !matches!(self.events.get(self.cursor), Some(Event::Place { .. })) {
            cleared = Lines::default();
        }
        DebugBoard {
            board,
            placed,
            candidate,
            cleared,
        }
    }
}

/// An exhaustive exploration on a job; the budget's progress in placements.
pub struct ExploreJob {
    pub key: DealKey,
    pub budget: u64,
    job: Job<Session>,
}

impl ExploreJob {
    pub fn spawn(key: DealKey, budget: u64, ctx: &egui::Context) -> std::io::Result<Self> {
        let job_key = key.clone();
        let job = Job::spawn("explore", ctx, move |send, progress| {
            let shapes = Shapes::new(&job_key.set, job_key.size);
            let mut rec = Exhaustive::new(budget, Arc::clone(progress));
            let e = explore(&shapes, job_key.board, &job_key.holder, &mut rec);
            let k = job_key.holder.len();
            let stats = ExploreStats {
                solutions: e.solutions,
                complete: e.complete,
                cancelled: rec.cancelled(),
                branching: e.branching(),
                fails_by_depth: rec.fails_by_depth[..k].to_vec(),
                fails_by_order: rec.fails_by_order.clone(),
                events_dropped: rec.dropped,
            };
            send(Session::new(job_key, e.validation, e.trace.events, Some(stats)));
        })?;
        Ok(Self { key, budget, job })
    }

    pub fn cancel(&self) {
        self.job.cancel();
    }

    /// Placements explored so far.
    pub fn done(&self) -> u64 {
        self.job.done() as u64
    }

    pub fn fraction(&self) -> f32 {
        self.job.progress().0
    }

    pub fn watch(&self) -> Watch {
        self.job.watch()
    }

    /// The session, once it has arrived; `Err` when the worker ended
    /// without one (it panicked).
    pub fn poll(&mut self) -> Option<Result<Session, ()>> {
        if let Some(s) = self.job.drain().pop() {
            return Some(Ok(s));
        }
        self.job.ended().then_some(Err(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> Session {
        let set = PieceSet::classic();
        // A 4x4 checkerboard: 8 free cells, none touching. (dot, h2) fails:
        // the dot fits 8 times, h2 never.
        let board: Bits = (0..16)
            .filter(|i| (i % 4 + i / 4) % 2 == 0)
            .fold(0, |b, i| b | 1 << i);
        let holder = vec![set.index_of("dot").unwrap(), set.index_of("h2").unwrap()];
        Session::trace(DealKey {
            set,
            size: BoardSize::new(4, 4).unwrap(),
            board,
            holder,
        })
    }

    #[test]
    fn stepping_moves_through_the_events() {
        let mut s = session();
        assert_eq!(s.events.len(), 21);
        s.step_into();
        assert!(matches!(
            s.events[s.cursor],
            Event::Place {
                depth: 1,
                x: 1,
                y: 0,
                ..
            }
        ));
        // Over the first dot's subtree (its failing h2): the next dot.
        s.step_over();
        assert_eq!(s.cursor, 3);
        assert!(matches!(
            s.events[s.cursor],
            Event::Place {
                depth: 1,
                x: 3,
                y: 0,
                ..
            }
        ));
        // Out of order 0: order 1 begins.
        s.step_out();
        assert!(
            matches!(s.events[s.cursor], Event::Order { order: 1, .. }),
            "{:?}",
            s.events[s.cursor]
        );
        s.step_back();
        assert!(matches!(s.events[s.cursor], Event::Backtrack { depth: 1 }));
        s.restart();
        s.run_to_failure();
        assert!(matches!(s.events[s.cursor], Event::NoFit { depth: 2, .. }));
        s.run_to_end();
        assert_eq!(s.cursor, s.last());
    }

    #[test]
    fn checkpointed_unfit_block_matches_a_full_replay() {
        let set = PieceSet::classic();
        let size = BoardSize::new(8, 8).unwrap();
        let holder = vec![
            set.index_of("sq3").unwrap(),
            set.index_of("dot").unwrap(),
            set.index_of("h5").unwrap(),
        ];
        let key = DealKey {
            set: set.clone(),
            size,
            board: 0,
            holder: holder.clone(),
        };
        let shapes = Shapes::new(&set, size);
        let mut rec = Exhaustive::new(60_000, Arc::default());
        let e = explore(&shapes, 0, &holder, &mut rec);
        let mut s = Session::new(key, e.validation, e.trace.events, None);
        assert!(s.events.len() > 2 * CHECKPOINT, "{} events", s.events.len());
        let events = s.events.clone();
        let tree = Tree::build(&events);
        let ctx = tenten_engine::search::explain::Context {
            set: &set,
            holder: &holder,
            events: &events,
            tree: &tree,
        };
        for cursor in [0, CHECKPOINT - 1, CHECKPOINT, CHECKPOINT + 7, s.last()] {
            s.go(cursor);
            for policy in Policy::ALL {
                assert_eq!(
                    s.unfit_block(policy),
                    ctx.unfit_block(cursor, policy, 6),
                    "{cursor} {policy}"
                );
            }
        }
    }

    #[test]
    fn breakpoints_stop_runs_and_playback() {
        let mut s = session();
        s.breakpoints.first_failure_in = Some(1);
        s.run_to_end();
        assert!(matches!(s.events[s.cursor], Event::NoFit { depth: 1, .. }));
        s.restart();
        s.breakpoints = Breakpoints {
            depth: Some(1),
            ..Breakpoints::default()
        };
        s.playing = true;
        s.speed = 100.0;
        s.play(1.0);
        assert!(!s.playing, "a breakpoint pauses playback");
        assert_eq!(s.cursor, 1);
        let board = s.board(&Shapes::new(&s.key.set, s.key.size));
        assert_eq!(board.placed.len(), 1);
        assert_eq!(board.candidate.map(|c| c.0), Some(1 << 1));
    }

    #[test]
    fn a_cancelled_exploration_says_cancelled_not_budget() {
        let set = PieceSet::classic();
        let holder = ["dot", "h2", "sq2"].map(|id| set.index_of(id).unwrap()).to_vec();
        let key = DealKey {
            set,
            size: BoardSize::CLASSIC,
            board: 0,
            holder,
        };
        let mut job = ExploreJob::spawn(key.clone(), 50_000_000, &egui::Context::default()).unwrap();
        job.cancel();
        let latency = job.watch().join_within(std::time::Duration::from_secs(30));
        assert!(latency.is_some(), "the explore thread ended after Cancel");
        eprintln!("explore: ended {:?} after Cancel", latency.unwrap_or_default());
        let session = loop {
            if let Some(s) = job.poll() {
                break s.unwrap();
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        let stats = session.explored.expect("an exploration");
        assert!(!stats.complete);
        assert_eq!(stats.ending(), "cancelled");
        // The budget alone ends one the other way.
        let mut job = ExploreJob::spawn(key, 2_000, &egui::Context::default()).unwrap();
        let session = loop {
            if let Some(s) = job.poll() {
                break s.unwrap();
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        assert_eq!(session.explored.unwrap().ending(), "stopped by the budget");
    }
}
