//! Each event of the trace as a sentence in the paper's terms, naming the
//! step of Fig. 4 it performs, and unfitBlock as it fills in.

use crate::model::board::Lines;
use crate::model::pieces::MAX_HOLDER;
use crate::model::pieces::{PieceIdx, PieceSet};
use crate::search::heuristic::{Policy, unfit_block};
use crate::search::trace::Event;
use crate::search::tree::{NodeId, Tree};
use crate::search::validator::OrderRecord;

/// The deal a trace belongs to, for naming its pieces.
pub struct Context<'a> {
    pub set: &'a PieceSet,
    pub holder: &'a [PieceIdx],
    pub events: &'a [Event],
    pub tree: &'a Tree,
}

impl Context<'_> {
    fn piece(&self, slot: u8) -> &str {
        &self.set.piece(self.holder[usize::from(slot)]).id
    }

    /// The order (index j and slots) the node at `id` belongs to.
    fn order_of(&self, id: NodeId) -> Option<(u8, [u8; MAX_HOLDER])> {
        self.tree
            .path(id)
            .iter()
            .find_map(|&n| match self.events.get(self.tree.node(n).event as usize) {
                Some(Event::Order { order, slots }) => Some((*order, *slots)),
                _ => None,
            })
    }

    /// "h5 at (0,3) and sq2 at (4,4)": the placements on the way to `id`.
    fn placed_before(&self, id: NodeId) -> Vec<String> {
        self.tree
            .path(id)
            .iter()
            .filter(|&&n| n != id)
            .filter_map(|&n| match self.events.get(self.tree.node(n).event as usize) {
                Some(Event::Place { slot, x, y, .. }) => Some(format!("{} at ({x},{y})", self.piece(*slot))),
                _ => None,
            })
            .collect()
    }

    /// The sentence for event `i`.
    pub fn sentence(&self, i: usize) -> String {
        let Some(event) = self.events.get(i) else {
            return String::new();
        };
        let node = self.tree.event_node[i];
        let k = self.holder.len() as u8;
        let order = self.order_of(node);
        let j = order.map_or(0, |o| o.0);
        let p = |d: u8| -> String {
            let slot = order.map_or(0, |o| o.1[usize::from(d) - 1]);
            format!("p({j},{d}) = {}", self.piece(slot))
        };
        let after = |id: NodeId| -> String {
            let before = self.placed_before(id);
            if before.is_empty() {
                String::new()
            } else {
                format!(" after placing {}", join_and(&before))
            }
        };
        match *event {
            Event::Order { order, slots } => {
                let seq: Vec<&str> = slots[..usize::from(k)].iter().map(|&s| self.piece(s)).collect();
                format!(
                    "1(a): adjust the holder to order {order}: {}",
                    seq.join(", then ")
                )
            }
            Event::DuplicateOrder { order, same_as } => {
                format!(
                    "1(d): order {order} deals the same pieces in the same sequence as order {same_as}: pruned"
                )
            }
            Event::Place {
                depth, x, y, lines, ..
            } => {
                let step = match depth {
                    1 => "1(b)i",
                    d if d == k => "1(b)ii.B",
                    _ => "1(b)ii.A",
                };
                let what = if depth == k && depth > 1 {
                    "a location for"
                } else {
                    "put"
                };
                let clears = clears(lines);
                if depth == k {
                    format!(
                        "{step}: {what} {} at ({x},{y}){}{clears}: every block placed",
                        p(depth),
                        after(node)
                    )
                } else {
                    format!("{step}: {what} {} at ({x},{y}){}{clears}", p(depth), after(node))
                }
            }
            Event::NoFit { depth, .. } => {
                let step = match depth {
                    1 => "1(c)",
                    d if d == k => "1(b)ii.C",
                    _ => "1(b)iii",
                };
                let parent = self.tree.node(node).parent;
                let on = if depth == 1 {
                    " on the board".to_owned()
                } else {
                    after_parent(self, parent)
                };
                format!(
                    "{step}: no place for {}{on}; note position {depth} into unfitBlock[{j}]",
                    p(depth)
                )
            }
            Event::Backtrack { depth } => match depth {
                1 => format!(
                    "1(d): every position of {} tried: order {j} fails; use the next permutation",
                    p(1)
                ),
                2 => format!(
                    "1(b)iv: every position of {} tried: move the location of {}",
                    p(2),
                    p(1)
                ),
                d => format!(
                    "1(b)ii.C: every position of {} tried: move {}'s location",
                    p(d),
                    p(d - 1)
                ),
            },
            Event::Solution => format!("exhaustive: a solution in order {j}; the search goes on"),
            Event::Solved => "1(b)ii.B: return SUCCESS and stop: the deal is solvable".to_owned(),
            Event::Unsolvable => "2: no permutation left: return FAILURE, the deal is unsolvable".to_owned(),
            Event::Stopped => "the node budget ran out (or the search was cancelled): stopped".to_owned(),
        }
    }

    /// unfitBlock once events `0..=cursor` have happened, under `policy`
    /// (0 where nothing is noted yet); one entry per order.
    pub fn unfit_block(&self, cursor: usize, policy: Policy, orders: usize) -> Vec<u8> {
        let mut ub = UnfitBlock::new(orders);
        for e in self.events.iter().take(cursor + 1) {
            ub.note(e);
        }
        ub.get(policy)
    }
}

/// unfitBlock as the events go by: the validator's order records rebuilt
/// from the events, read through the one `heuristic::unfit_block`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnfitBlock {
    order: usize,
    records: Vec<OrderRecord>,
}

impl UnfitBlock {
    pub fn new(orders: usize) -> Self {
        Self {
            order: 0,
            records: vec![OrderRecord::default(); orders],
        }
    }

    /// Takes one event into account ("note p(j, d) into unfitBlock").
    pub fn note(&mut self, e: &Event) {
        match *e {
            Event::Order { order, slots } => {
                self.order = usize::from(order);
                if let Some(r) = self.records.get_mut(self.order) {
                    r.slots = slots;
                }
            }
            Event::DuplicateOrder { order, same_as } => {
                self.order = usize::from(order);
                if let Some(r) = self.records.get_mut(self.order) {
                    r.same_as = Some(same_as);
                }
            }
            Event::NoFit { depth, .. } => {
                if let Some(r) = self.records.get_mut(self.order) {
                    r.deepest = r.deepest.max(depth);
                    r.last = depth;
                    r.counts[usize::from(depth) - 1] += 1;
                }
            }
            _ => {}
        }
    }

    /// ub(j) per order (0: nothing noted yet); frequency shows the deepest.
    pub fn get(&self, policy: Policy) -> Vec<u8> {
        unfit_block(&self.records, policy)
    }
}

fn after_parent(c: &Context, parent: NodeId) -> String {
    let mut before = c.placed_before(parent);
    if let Some(Event::Place { slot, x, y, .. }) = c.events.get(c.tree.node(parent).event as usize) {
        before.push(format!("{} at ({x},{y})", c.piece(*slot)));
    }
    if before.is_empty() {
        String::new()
    } else {
        format!(" after placing {}", join_and(&before))
    }
}

fn clears(lines: Lines) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        format!(", clearing {}", lines.describe())
    }
}

/// "a", "a and b", "a, b and c".
fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}
