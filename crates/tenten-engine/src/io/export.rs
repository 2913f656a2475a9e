//! Exports for slides and papers: the tree as Graphviz DOT or SVG (down to a
//! chosen level), F and the changer's history as CSV.

use std::fmt::Write as _;

use crate::model::pieces::{PieceIdx, PieceSet};
use crate::search::changer::Repair;
use crate::search::heuristic::FMatrix;
use crate::search::trace::Event;
use crate::search::tree::{NodeId, Status, Tree};

/// A node's one-line label: "order 2: h5, sq2, dot", "h5 b(6,0) at (0,3) clears row 3".
pub fn node_label(tree: &Tree, id: NodeId, events: &[Event], set: &PieceSet, holder: &[PieceIdx]) -> String {
    let name = |slot: u8| set.piece(holder[usize::from(slot)]).title();
    if id == Tree::ROOT {
        return "root (OR over orders)".to_owned();
    }
    match events[tree.node(id).event as usize] {
        Event::Order { order, slots } => {
            let seq: Vec<&str> = slots[..holder.len()]
                .iter()
                .map(|&s| set.piece(holder[usize::from(s)]).id.as_str())
                .collect();
            format!("order {order}: {}", seq.join(", "))
        }
        Event::DuplicateOrder { order, same_as } => format!("order {order}: same as order {same_as}"),
        Event::Place {
            slot, x, y, lines, ..
        } => {
            let clears = if lines.is_empty() {
                String::new()
            } else {
                format!(" clears {}", lines.describe())
            };
            format!("{} at ({x},{y}){clears}", name(slot))
        }
        Event::NoFit { slot, .. } => format!("{}: no place", name(slot)),
        _ => String::new(),
    }
}

/// The fill of a "+ N more" box.
const MORE: &str = "#6b6b6b";

fn color(status: Status) -> &'static str {
    match status {
        Status::Solved => "#2e9e5b",
        Status::Failed => "#d2453c",
        Status::Pruned => "#9a9a9a",
        Status::InProgress => "#317bd6",
        Status::Unexplored => "#cccccc",
    }
}

/// How much of the tree an export draws: the levels (0 root, 1 orders,
/// 1 + d placements) and, per node, the children drawn before the rest are
/// folded into one "+ N more" box, which bounds an SVG's width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extent {
    pub max_level: u8,
    pub max_children: usize,
}

impl Extent {
    /// Down to `max_level`, every child.
    pub fn levels(max_level: u8) -> Self {
        Self {
            max_level,
            max_children: usize::MAX,
        }
    }
}

/// What an export draws: the nodes, depth first, and for each parent whose
/// children were cut, how many were folded away.
struct Shown {
    nodes: Vec<NodeId>,
    folded: std::collections::HashMap<NodeId, usize>,
}

impl Shown {
    fn of(tree: &Tree, extent: Extent) -> Self {
        let mut nodes = Vec::new();
        let mut folded = std::collections::HashMap::new();
        let mut stack = vec![Tree::ROOT];
        while let Some(id) = stack.pop() {
            nodes.push(id);
            if tree.node(id).level < extent.max_level {
                let children: Vec<NodeId> = tree.children(id).collect();
                if children.len() > extent.max_children {
                    folded.insert(id, children.len() - extent.max_children);
                }
                stack.extend(children.into_iter().take(extent.max_children).rev());
            }
        }
        Self { nodes, folded }
    }

    fn kids(&self, tree: &Tree, id: NodeId, extent: Extent) -> Vec<NodeId> {
        if tree.node(id).level >= extent.max_level {
            return Vec::new();
        }
        tree.children(id).take(extent.max_children).collect()
    }
}

fn more_label(n: usize) -> String {
    format!("+ {n} more")
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Graphviz DOT of the tree at its final state.
pub fn dot(tree: &Tree, events: &[Event], set: &PieceSet, holder: &[PieceIdx], extent: Extent) -> String {
    let last = events.len().saturating_sub(1);
    let mut out = String::from(
        "digraph andor {\n  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontcolor=white];\n",
    );
    let shown = Shown::of(tree, extent);
    for &id in &shown.nodes {
        let label = node_label(tree, id, events, set, holder).replace('"', "'");
        let fill = color(tree.status(id, events, last));
        let _ = writeln!(out, "  n{id} [label=\"{label}\", fillcolor=\"{fill}\"];");
        if id != Tree::ROOT {
            let _ = writeln!(out, "  n{} -> n{id};", tree.node(id).parent);
        }
        if let Some(n) = shown.folded.get(&id) {
            let _ = writeln!(
                out,
                "  m{id} [label=\"{}\", fillcolor=\"{MORE}\", style=\"rounded,filled,dashed\"];\n  n{id} -> m{id};",
                more_label(*n)
            );
        }
    }
    out.push_str("}\n");
    out
}

/// A self-contained SVG drawing of the tree, leaves side by side, each parent
/// centred over its children; children past `extent.max_children` are one
/// dashed "+ N more" box.
pub fn svg(tree: &Tree, events: &[Event], set: &PieceSet, holder: &[PieceIdx], extent: Extent) -> String {
    let last = events.len().saturating_sub(1);
    let shown = Shown::of(tree, extent);
    let (w, h, gap) = (170.0_f64, 34.0_f64, 70.0_f64);
    let mut x = std::collections::HashMap::new();
    let mut more_x = std::collections::HashMap::new();
    let mut next_leaf = 0.0;
    // Post-order: leaves take the next column, parents the middle of theirs.
    let mut stack: Vec<(NodeId, bool)> = vec![(Tree::ROOT, false)];
    while let Some((id, done)) = stack.pop() {
        let kids = shown.kids(tree, id, extent);
        if kids.is_empty() && !shown.folded.contains_key(&id) {
            x.insert(id, next_leaf);
            next_leaf += 1.0;
        } else if !done {
            stack.push((id, true));
            stack.extend(kids.iter().rev().map(|&k| (k, false)));
        } else {
            let mut xs: Vec<f64> = kids.iter().map(|k| x[k]).collect();
            if shown.folded.contains_key(&id) {
                more_x.insert(id, next_leaf);
                xs.push(next_leaf);
                next_leaf += 1.0;
            }
            x.insert(id, (xs[0] + xs[xs.len() - 1]) / 2.0);
        }
    }
    let levels = shown.nodes.iter().map(|&n| tree.node(n).level).max().unwrap_or(0);
    let levels = levels + u8::from(shown.folded.keys().any(|&p| tree.node(p).level == levels));
    let width = next_leaf.max(1.0) * (w + 20.0) + 20.0;
    let height = f64::from(levels + 1) * gap + 20.0;
    let px = |col: f64| 20.0 + col * (w + 20.0);
    let py = |level: u8| 10.0 + f64::from(level) * gap;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
    );
    let line = |out: &mut String, parent: NodeId, col: f64, level: u8| {
        let p = tree.node(parent);
        let _ = writeln!(
            out,
            "  <line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#888\"/>",
            px(x[&parent]) + w / 2.0,
            py(p.level) + h,
            px(col) + w / 2.0,
            py(level)
        );
    };
    for &id in &shown.nodes {
        if id != Tree::ROOT {
            line(&mut out, tree.node(id).parent, x[&id], tree.node(id).level);
        }
        if let Some(&col) = more_x.get(&id) {
            line(&mut out, id, col, tree.node(id).level + 1);
        }
    }
    let boxed = |out: &mut String, col: f64, level: u8, fill: &str, dash: &str, label: &str| {
        let (cx, cy) = (px(col), py(level));
        let _ = writeln!(
            out,
            "  <rect x=\"{cx:.1}\" y=\"{cy:.1}\" width=\"{w}\" height=\"{h}\" rx=\"6\" fill=\"{fill}\"{dash}/>\n  <text x=\"{:.1}\" y=\"{:.1}\" fill=\"white\" text-anchor=\"middle\">{label}</text>",
            cx + w / 2.0,
            cy + h / 2.0 + 4.0
        );
    };
    for &id in &shown.nodes {
        let fill = color(tree.status(id, events, last));
        let label = escape(&node_label(tree, id, events, set, holder));
        boxed(&mut out, x[&id], tree.node(id).level, fill, "", &label);
        if let (Some(&col), Some(&n)) = (more_x.get(&id), shown.folded.get(&id)) {
            let dash = " stroke=\"#555\" stroke-dasharray=\"4 3\"";
            boxed(&mut out, col, tree.node(id).level + 1, MORE, dash, &more_label(n));
        }
    }
    out.push_str("</svg>\n");
    out
}

/// F as CSV: one row per slot, one column per order, then the row sum.
pub fn f_csv(f: &FMatrix, set: &PieceSet, holder: &[PieceIdx]) -> String {
    let mut out = String::from("slot,piece");
    for j in 0..f.orders {
        let _ = write!(out, ",order {j}");
    }
    out.push_str(",sum,chosen\n");
    for (i, &piece) in holder.iter().enumerate().take(f.k) {
        let _ = write!(out, "b{},{}", i + 1, set.piece(piece).id);
        for j in 0..f.orders {
            let _ = write!(out, ",{}", f.get(i, j));
        }
        let _ = writeln!(out, ",{},{}", f.row_sums[i], i == f.chosen);
    }
    let ub: Vec<String> = f.unfit_block.iter().map(u8::to_string).collect();
    let _ = writeln!(out, "unfitBlock,{},{}", f.policy, ub.join(","));
    out
}

/// The changer's history as CSV, one attempt per row.
pub fn history_csv(r: &Repair, set: &PieceSet) -> String {
    let mut out =
        String::from("attempt,phase,holder,verdict,nodes,microseconds,row sums,chosen slot,new piece\n");
    for (n, a) in r.attempts.iter().enumerate() {
        let phase = a.phase.name();
        let verdict = if a.solvable { "solvable" } else { "unsolvable" };
        let sums = a.f.as_ref().map_or(String::new(), |f| {
            f.row_sums
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        });
        // Several slots when the fallback changed more than one.
        let slot: Vec<String> = a.change.iter().map(|(s, _)| format!("b{}", s + 1)).collect();
        let piece: Vec<&str> = a.change.iter().map(|&(_, p)| set.piece(p).id.as_str()).collect();
        let (slot, piece) = (slot.join(" "), piece.join(" "));
        let _ = writeln!(
            out,
            "{n},{phase},\"{}\",{verdict},{},{:.3},{sums},{slot},{piece}",
            set.ids(&a.holder),
            a.nodes,
            a.micros
        );
    }
    out
}
