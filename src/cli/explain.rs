//! What `--explain` prints: the killer deals, dead regions and influential
//! cells of `danger`; unfitBlock and F of `validate`; every attempt of
//! `repair`.

use super::*;

/// The killer deals, the dead regions and the most influential cells.
pub(super) fn explain_danger(
    set: &PieceSet,
    shapes: &Shapes,
    bits: tenten_engine::model::board::Bits,
    d: &Danger,
    out: &mut String,
) {
    let size = shapes.size();
    if !d.cleared_first.is_empty() {
        let _ = writeln!(
            out,
            "  the board held full lines; cleared first: {}",
            d.cleared_first.describe()
        );
    }
    let _ = writeln!(
        out,
        "  {} of {} deals of {} cannot be placed: {:.4}%, {}",
        d.killers.len(),
        d.multisets,
        d.k,
        d.probability * 100.0,
        d.odds()
    );
    if !d.killers.is_empty() {
        let _ = writeln!(out, "  killer deals, most probable first:");
        for killer in &d.killers {
            let _ = writeln!(
                out,
                "    {:<24} {:.9}",
                set.ids(&killer.pieces),
                killer.probability
            );
        }
    }
    let regions = danger::dead_regions(shapes, set, bits);
    if regions.is_empty() {
        let _ = writeln!(out, "  dead regions: none");
    }
    for (n, region) in regions.iter().enumerate() {
        let cells: Vec<String> = (0..size.cells())
            .filter(|&c| region >> c & 1 == 1)
            .map(|c| format!("({}, {})", c % size.w(), c / size.w()))
            .collect();
        let _ = writeln!(
            out,
            "  dead region {}: {} where no dealable piece fits: {}",
            n + 1,
            tenten_engine::text::count(cells.len() as u64, "cell", "cells"),
            cells.join(" ")
        );
    }
    let Ok(Some(map)) = danger::influence_map(shapes, set, bits, d.k, &Progress::default()) else {
        return;
    };
    let mut cells: Vec<usize> = (0..map.len()).collect();
    cells.sort_by(|&a, &b| map[b].abs().total_cmp(&map[a].abs()).then(a.cmp(&b)));
    let _ = writeln!(
        out,
        "  cells with the largest influence (danger after flipping the cell, minus now):"
    );
    for &c in cells.iter().take(10) {
        let flip = if bits >> c & 1 == 1 { "empty" } else { "fill" };
        let _ = writeln!(
            out,
            "    ({}, {}) {flip:<5} {:+.9}",
            c % size.w(),
            c / size.w(),
            map[c]
        );
    }
}

/// `bench --throttle`: the classic set on 10x10 with holders of 3, the
/// changer's defaults, every deal timed at every factor.
fn slot_name(set: &PieceSet, holder: &[PieceIdx], slot: usize) -> String {
    format!("b{} = {}", slot + 1, set.piece(holder[slot]).title())
}

pub(super) fn explain_validation(
    set: &PieceSet,
    v: &Validation,
    policy: Policy,
    reading: Reading,
    out: &mut String,
) {
    if !v.cleared_first.is_empty() {
        let _ = writeln!(
            out,
            "  the board held full lines; cleared first: {}",
            v.cleared_first.describe()
        );
    }
    let holder = v.holder();
    if let Some(sol) = &v.solution {
        let _ = writeln!(out, "  solution, order {}:", sol.order);
        for (n, step) in sol.steps().iter().enumerate() {
            let slot = usize::from(step.slot);
            let clears = if step.lines.is_empty() {
                String::new()
            } else {
                format!(", clears {}", step.lines.describe())
            };
            let _ = writeln!(
                out,
                "    {}. {} at column {}, row {}{clears}",
                n + 1,
                slot_name(set, holder, slot),
                step.x,
                step.y
            );
        }
        return;
    }
    explain_f(set, &FMatrix::with_reading(v, policy, reading), holder, out);
}

fn explain_f(set: &PieceSet, f: &FMatrix, holder: &[PieceIdx], out: &mut String) {
    let _ = writeln!(
        out,
        "  policy {}, repeated pieces read {}: unfitBlock = {:?}",
        f.policy,
        f.reading.describe(),
        f.unfit_block
    );
    let _ = writeln!(
        out,
        "  F (equation 4), rows b1..b{}, columns orders 0..{}:",
        f.k,
        f.orders - 1
    );
    for i in 0..f.k {
        let row: Vec<String> = (0..f.orders).map(|j| format!("{:>5}", f.get(i, j))).collect();
        let mark = if i == f.chosen {
            "  <- argmax (equation 5)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "    {:<16}{}  sum {:>6}{mark}",
            slot_name(set, holder, i),
            row.join(""),
            f.row_sums[i]
        );
    }
}

pub(super) fn explain_repair(set: &PieceSet, r: &Repair, out: &mut String) {
    for (n, a) in r.attempts.iter().enumerate() {
        let phase = a.phase.name();
        let verdict = if a.solvable { "solvable" } else { "unsolvable" };
        let _ = writeln!(
            out,
            "  attempt {n} ({phase}): {} {verdict} nodes={} {:.3} us",
            set.ids(&a.holder),
            a.nodes,
            a.micros
        );
        if let Some(f) = &a.f {
            explain_f(set, f, &a.holder, out);
        }
        for &(slot, piece) in &a.change {
            let _ = writeln!(
                out,
                "    change slot b{}: {} -> {}",
                slot + 1,
                set.piece(a.holder[slot]).id,
                set.piece(piece).id
            );
        }
    }
}
