//! The AND-OR tree of Fig. 3, rebuilt from the validator's event trace so a
//! stepper can walk it: the root is an OR over orders; under an order, an OR
//! over the positions of its first block; each placement leaves an AND node
//! (every block still to place must fit), and so on to the leaves.
//!
//! Nodes are stored in depth-first order, so a node's subtree is the index
//! range `i..end` and its children are found by hopping from `i + 1` to each
//! child's `end`. A node's status at a point of the trace follows from the
//! events that open and close it.

use crate::model::pieces::MAX_HOLDER;
use crate::search::trace::Event;

pub type NodeId = u32;

/// A node's status at some event of the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Unexplored,
    InProgress,
    Solved,
    Failed,
    /// A repeated order, skipped.
    Pruned,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    pub parent: NodeId,
    /// One past the last node of this subtree.
    pub end: NodeId,
    /// The event that created the node (`u32::MAX` for the root).
    pub event: u32,
    /// The event at which the subtree was known to be finished.
    pub close: u32,
    /// The subtree holds a solution.
    pub solved: bool,
    /// Children tried.
    pub children: u32,
    /// Failures noted in the subtree at positions 1..=k.
    pub fails: [u32; MAX_HOLDER],
    /// 0 for the root, 1 for an order, 1 + d for a block placed at position d
    /// (a failure leaf sits at the level its block would have had).
    pub level: u8,
}

#[derive(Clone, Debug, Default)]
pub struct Tree {
    pub nodes: Vec<Node>,
    /// For each event, the node it created or finished.
    pub event_node: Vec<NodeId>,
}

impl Tree {
    pub const ROOT: NodeId = 0;

    pub fn build(events: &[Event]) -> Self {
        let mut nodes = vec![Node {
            parent: 0,
            end: 0,
            event: u32::MAX,
            close: u32::MAX,
            solved: false,
            children: 0,
            fails: [0; MAX_HOLDER],
            level: 0,
        }];
        let mut event_node = Vec::with_capacity(events.len());
        // stack[l] is the open node at level l.
        let mut stack: Vec<NodeId> = vec![Self::ROOT];
        let close_from = |nodes: &mut Vec<Node>, stack: &mut Vec<NodeId>, level: usize, at: u32| {
            let len = nodes.len() as NodeId;
            while stack.len() > level {
                if let Some(id) = stack.pop() {
                    let n = &mut nodes[id as usize];
                    n.end = len;
                    n.close = n.close.min(at);
                }
            }
        };
        let add = |nodes: &mut Vec<Node>, stack: &[NodeId], level: usize, at: u32, leaf: bool| -> NodeId {
            let parent = stack[level - 1];
            let id = nodes.len() as NodeId;
            nodes[parent as usize].children += 1;
            nodes.push(Node {
                parent,
                end: if leaf { id + 1 } else { 0 },
                event: at,
                close: if leaf { at } else { u32::MAX },
                solved: false,
                children: 0,
                fails: [0; MAX_HOLDER],
                level: level as u8,
            });
            id
        };
        for (i, e) in events.iter().enumerate() {
            let at = i as u32;
            let node = match *e {
                Event::Order { .. } => {
                    close_from(&mut nodes, &mut stack, 1, at);
                    let id = add(&mut nodes, &stack, 1, at, false);
                    stack.push(id);
                    id
                }
                Event::DuplicateOrder { .. } => {
                    close_from(&mut nodes, &mut stack, 1, at);
                    add(&mut nodes, &stack, 1, at, true)
                }
                Event::Place { depth, .. } => {
                    let level = 1 + usize::from(depth);
                    close_from(&mut nodes, &mut stack, level, at);
                    let id = add(&mut nodes, &stack, level, at, false);
                    stack.push(id);
                    id
                }
                Event::NoFit { depth, .. } => {
                    let level = 1 + usize::from(depth);
                    close_from(&mut nodes, &mut stack, level, at);
                    let id = add(&mut nodes, &stack, level, at, true);
                    for &a in &stack {
                        nodes[a as usize].fails[usize::from(depth) - 1] += 1;
                    }
                    id
                }
                Event::Backtrack { depth } => {
                    // Every position at `depth` tried: that block's parent is done.
                    let level = usize::from(depth);
                    let id = stack.get(level).copied().unwrap_or(Self::ROOT);
                    close_from(&mut nodes, &mut stack, level, at);
                    id
                }
                Event::Solution => {
                    for &a in &stack {
                        nodes[a as usize].solved = true;
                    }
                    stack.last().copied().unwrap_or(Self::ROOT)
                }
                Event::Solved => {
                    for &a in &stack {
                        nodes[a as usize].solved = true;
                    }
                    nodes[0].solved = true;
                    close_from(&mut nodes, &mut stack, 0, at);
                    Self::ROOT
                }
                Event::Unsolvable | Event::Stopped => {
                    close_from(&mut nodes, &mut stack, 0, at);
                    Self::ROOT
                }
            };
            event_node.push(node);
        }
        close_from(&mut nodes, &mut stack, 0, events.len() as u32);
        Self { nodes, event_node }
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// The children of `id`, in the order they were tried.
    pub fn children(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        let end = self.node(id).end;
        let mut next = id + 1;
        std::iter::from_fn(move || {
            if next >= end {
                return None;
            }
            let c = next;
            next = self.node(c).end.max(c + 1);
            Some(c)
        })
    }

    /// The nodes from the root down to `id`.
    pub fn path(&self, id: NodeId) -> Vec<NodeId> {
        let mut path = vec![id];
        let mut n = id;
        while n != Self::ROOT {
            n = self.node(n).parent;
            path.push(n);
        }
        path.reverse();
        path
    }

    /// The status of `id` once the events up to `cursor` have happened.
    pub fn status(&self, id: NodeId, events: &[Event], cursor: usize) -> Status {
        let n = self.node(id);
        let cursor = cursor as u32;
        if id != Self::ROOT && n.event > cursor {
            return Status::Unexplored;
        }
        if id != Self::ROOT && matches!(events[n.event as usize], Event::DuplicateOrder { .. }) {
            return Status::Pruned;
        }
        let is_fail_leaf = id != Self::ROOT && matches!(events[n.event as usize], Event::NoFit { .. });
        if is_fail_leaf {
            return Status::Failed;
        }
        match (n.close <= cursor, n.solved) {
            (true, true) => Status::Solved,
            (true, false) => Status::Failed,
            // The fast path ends at its first solution, which closes the path.
            (false, _) => Status::InProgress,
        }
    }

    /// Node `id`'s counts as of event `cursor`: the children tried so far
    /// and the failures noted so far in its subtree, by position 1..=k.
    /// Once the node is closed these are its final `children` and `fails`.
    /// Only the one open child (on the cursor's path) is descended into, so
    /// this costs the children along that path, not the subtree: the outline
    /// asks it for every row, every frame, of trees of millions of nodes.
    pub fn counts_at(&self, id: NodeId, events: &[Event], cursor: usize) -> (u32, [u32; MAX_HOLDER]) {
        let n = self.node(id);
        let at = cursor as u32;
        if n.close <= at {
            return (n.children, n.fails);
        }
        let mut tried = 0;
        let mut fails = [0; MAX_HOLDER];
        for c in self.children(id) {
            let child = self.node(c);
            if child.event > at {
                break; // children come in the order they were tried
            }
            tried += 1;
            let below = match events[child.event as usize] {
                // A failure leaf is noted in its ancestors' counts, not its own.
                Event::NoFit { depth, .. } => {
                    fails[usize::from(depth) - 1] += 1;
                    continue;
                }
                _ if child.close <= at => child.fails,
                _ => self.counts_at(c, events, cursor).1,
            };
            for (f, b) in fails.iter_mut().zip(below) {
                *f += b;
            }
        }
        (tried, fails)
    }

    /// Whether `a` is `b` or one of its ancestors.
    pub fn is_ancestor(&self, a: NodeId, b: NodeId) -> bool {
        a <= b && b < self.node(a).end.max(a + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::classic;
    use crate::model::board::{BoardSize, checkerboard};

    use crate::search::validator::validate_traced;

    #[test]
    fn the_tree_mirrors_the_trace() {
        let (set, shapes) = classic();
        let board = checkerboard(BoardSize::CLASSIC) & !(1 << 11) & !(1 << 22) | 1 << 12 | 1 << 21;
        let holder = [set.index_of("sq2").unwrap(), set.index_of("dot").unwrap()];
        let (v, trace) = validate_traced(&shapes, board, &holder);
        let tree = Tree::build(&trace.events);
        assert_eq!(tree.event_node.len(), trace.events.len());
        // Root, the orders, every placement, every failure leaf.
        let fails: u32 = v.orders().iter().flat_map(|o| o.counts).sum();
        assert_eq!(
            tree.len() as u64,
            1 + v.orders().len() as u64 + v.nodes + u64::from(fails)
        );
        let orders: Vec<NodeId> = tree.children(Tree::ROOT).collect();
        assert_eq!(orders.len(), v.orders().len());
        let last = trace.events.len() - 1;
        let status = tree.status(Tree::ROOT, &trace.events, last);
        assert_eq!(
            status,
            if v.solvable {
                Status::Solved
            } else {
                Status::Failed
            }
        );
        assert_eq!(tree.status(orders[0], &trace.events, 0), Status::InProgress);
        assert_eq!(tree.node(Tree::ROOT).fails.iter().sum::<u32>(), fails);
        for &o in &orders {
            assert_eq!(tree.node(o).parent, Tree::ROOT);
            assert_eq!(tree.path(o), vec![Tree::ROOT, o]);
        }
    }

    /// While stepping, a node's counts are those of the events so far; they
    /// grow one event at a time to the whole search's.
    #[test]
    fn counts_so_far_grow_to_the_whole_searchs() {
        let (set, shapes) = classic();
        let board = checkerboard(BoardSize::CLASSIC);
        let holder = [
            set.index_of("v3").unwrap(),
            set.index_of("h5").unwrap(),
            set.index_of("v5").unwrap(),
        ];
        let (_, trace) = validate_traced(&shapes, board, &holder);
        let tree = Tree::build(&trace.events);
        let root = tree.node(Tree::ROOT);
        let last = trace.events.len() - 1;
        assert_eq!(
            tree.counts_at(Tree::ROOT, &trace.events, last),
            (root.children, root.fails)
        );
        let (tried0, fails0) = tree.counts_at(Tree::ROOT, &trace.events, 0);
        assert_eq!(tried0, 1, "the first event opens the first order");
        assert_eq!(fails0.iter().sum::<u32>(), 0);
        // Against a plain scan of each subtree, at every event, for every node.
        let brute = |id: NodeId, at: usize| {
            let n = tree.node(id);
            let mut tried = 0;
            let mut fails = [0; MAX_HOLDER];
            for c in (id + 1)..n.end.max(id + 1) {
                let child = tree.node(c);
                if child.event as usize > at {
                    continue;
                }
                tried += u32::from(child.parent == id);
                if let Event::NoFit { depth, .. } = trace.events[child.event as usize] {
                    fails[usize::from(depth) - 1] += 1;
                }
            }
            (tried, fails)
        };
        for at in 0..=last {
            for id in 0..tree.len() as NodeId {
                if id == Tree::ROOT || tree.node(id).event as usize <= at {
                    assert_eq!(
                        tree.counts_at(id, &trace.events, at),
                        brute(id, at),
                        "node {id} at {at}"
                    );
                }
            }
        }
        let mut before = 0;
        for at in 0..=last {
            let (tried, fails) = tree.counts_at(Tree::ROOT, &trace.events, at);
            let noted: u32 = fails.iter().sum();
            assert!(tried <= root.children && noted >= before, "event {at}");
            let new_fail = matches!(trace.events[at], Event::NoFit { .. });
            assert_eq!(noted, before + u32::from(new_fail), "event {at}");
            before = noted;
        }
    }
}
