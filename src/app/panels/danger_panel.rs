//! The danger panel of the Deal tab: the exact chance that the next deal
//! cannot be placed on this board, the deals that kill it, and the toggles of
//! the two board overlays (per-cell heatmap, dead regions).

use egui::{Color32, RichText, Ui};

use tenten_engine::danger::odds;

use crate::app::panels::danger_overlay;
use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::state::State;
use crate::app::widgets::paint;

/// Killer deals listed before the rest are counted.
const SHOWN_KILLERS: usize = 6;

pub fn ui(ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
    let d = &live.danger;
    let stale = d.stale(state);
    let k = state.doc.slots.len();
    ui.horizontal(|ui| {
        ui.label(RichText::new("Danger of the next deal").strong());
        // A still label, not a spinner: the job asks for a repaint when
        // its figures arrive, so nothing needs to animate meanwhile.
        if stale {
            ui.weak("updating…");
        }
    });
    let Some(summary) = &d.summary else {
        ui.weak("Computing…");
        return;
    };
    let summary = match summary {
        Ok(s) => s,
        Err(e) => {
            ui.colored_label(paint::WARN, format!("No exact danger here: {e}"));
            return;
        }
    };
    let danger = &summary.danger;
    // Stale figures stay readable but grey until the new ones arrive.
    let fade = |c: Color32| if stale { c.gamma_multiply(0.45) } else { c };
    let p = danger.probability;
    let color = if p == 0.0 {
        paint::OK
    } else if p < 0.01 {
        paint::WARN
    } else {
        paint::BAD
    };
    ui.horizontal(|ui| {
        ui.label(RichText::new(percent(p)).size(22.0).strong().color(fade(color)))
            .on_hover_text(format!("{p:.9}"));
        ui.label(
            RichText::new(odds(p))
                .size(15.0)
                .color(fade(ui.visuals().text_color())),
        );
    });
    ui.weak(format!(
        "{} of {} deals of {} cannot be placed: exact, with {}, \
         each deal drawn piece by piece{}",
        danger.killers.len(),
        danger.multisets,
        danger.k,
        weights_in_force(state),
        if danger.cleared_first.is_empty() {
            String::new()
        } else {
            format!(
                "; the board's full {} clear first",
                danger.cleared_first.describe()
            )
        }
    ));
    if danger.k != k {
        ui.weak(format!("(computed for a holder of {})", danger.k));
    }
    killers(ui, state, live, cmds);
    ui.add_space(4.0);
    overlays(ui, state, live, cmds);
}

fn percent(p: f64) -> String {
    if p == 0.0 {
        "0 %".to_owned()
    } else if p < 0.0001 {
        format!("{:.4} %", p * 100.0)
    } else {
        format!("{:.2} %", p * 100.0)
    }
}

/// The most probable killer deals, drawn as pieces; a click puts one in the
/// holder and opens the tree on it.
fn killers(ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
    let Some(Ok(summary)) = &live.danger.summary else {
        return;
    };
    let danger = &summary.danger;
    if danger.killers.is_empty() {
        ui.colored_label(paint::OK, "Every deal of this size can be placed.");
        return;
    }
    let set = &state.doc.set;
    // A changed piece set may no longer hold the killers' pieces.
    if live.danger.input.as_ref().is_none_or(|i| &i.set != set) {
        return;
    }
    ui.label("Killer deals, most probable first (click one to deal it)")
        .on_hover_text("Puts the deal in the holder and opens the AND-OR tree on it");
    for killer in danger.killers.iter().take(SHOWN_KILLERS) {
        let ids = set.ids(&killer.pieces);
        let clicked = ui
            .horizontal(|ui| {
                let mut clicked = false;
                for &piece in &killer.pieces {
                    let p = set.piece(piece);
                    clicked |= paint::piece_tile(
                        ui,
                        p,
                        paint::piece_color(p, piece),
                        30.0,
                        false,
                        format!("killer piece {}", p.id),
                    )
                    .clicked();
                }
                let text = format!("{ids}   {}", percent(killer.probability));
                clicked |= ui
                    .selectable_label(false, text)
                    .on_hover_text(format!(
                        "P = {:.9}, in any order; click to deal it",
                        killer.probability
                    ))
                    .clicked();
                clicked
            })
            .inner;
        if clicked {
            cmds.push(Command::OpenKillerDeal(killer.pieces.clone()));
        }
    }
    if danger.killers.len() > SHOWN_KILLERS {
        let rest: f64 = danger.killers[SHOWN_KILLERS..]
            .iter()
            .map(|k| k.probability)
            .sum();
        ui.weak(format!(
            "… and {} more killer deals ({} in all)",
            danger.killers.len() - SHOWN_KILLERS,
            percent(rest)
        ));
    }
}

/// The two overlay toggles, the heatmap's legend and its progress.
fn overlays(ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
    let s = &state.settings;
    let mut heat = s.danger_heatmap;
    if ui
        .checkbox(&mut heat, "Heatmap: the danger after flipping each cell")
        .on_hover_text(
            "For an empty cell, the danger if it were filled; for a filled cell, \
             if it were emptied; shown as the change from now (Alt+H)",
        )
        .changed()
    {
        cmds.push(Command::ToggleHeatmap);
    }
    if heat {
        if let Some(f) = live.danger.map_progress() {
            ui.add(egui::ProgressBar::new(f).show_percentage().desired_height(12.0));
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(100));
        }
        danger_overlay::legend(ui, live);
    }
    let mut dead = s.danger_dead_regions;
    let regions = match &live.danger.summary {
        Some(Ok(summary)) => summary.dead.len(),
        _ => 0,
    };
    let cells: u32 = match &live.danger.summary {
        Some(Ok(summary)) => summary.dead.iter().map(|r| r.count_ones()).sum(),
        _ => 0,
    };
    let text = match regions {
        0 => "Dead regions (hatched): none".to_owned(),
        n => format!(
            "Dead regions (hatched): {}, {}",
            tenten_engine::text::count(n as u64, "region", "regions"),
            tenten_engine::text::count(cells as u64, "cell", "cells")
        ),
    };
    if ui
        .checkbox(&mut dead, text)
        .on_hover_text(
            "Connected empty regions where no dealable piece fits whole; \
             only a line clear can bring them back into play (Alt+D)",
        )
        .changed()
    {
        cmds.push(Command::ToggleDeadRegions);
    }
}

/// Whose weights the danger is computed with.
fn weights_in_force(state: &crate::app::shell::state::State) -> String {
    match &state.doc.generator {
        Some(rules) => format!(
            "the weights generator \"{}\" uses on a board this full",
            rules.name
        ),
        None => "the palette's weights".to_owned(),
    }
}
