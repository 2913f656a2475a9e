//! The danger panel's board overlays: the per-cell influence map (a red ring
//! with + where flipping a cell raises the danger, a green one with − where
//! it lowers it) with its key under the board and hover values, and the dead
//! regions, hatched.

use egui::{Color32, CornerRadius, Painter, Rect, Sense, Stroke, Ui, pos2, vec2};

use tenten_engine::danger::Danger;

use crate::app::panels::grid::Grid;
use crate::app::shell::live::Live;
use crate::app::shell::state::State;
use crate::app::widgets::paint;

/// The map's largest change, to scale colours; `None` when nothing changes.
fn scale(map: &[f64]) -> Option<f64> {
    let max = map.iter().fold(0.0f64, |m, d| m.max(d.abs()));
    (max > 1e-12).then_some(max)
}

fn heat_color(delta: f64, max: f64) -> Color32 {
    let t = (delta.abs() / max).clamp(0.0, 1.0) as f32;
    let base = if delta > 0.0 { paint::BAD } else { paint::OK };
    base.gamma_multiply(0.3 + 0.7 * t)
}

/// Both overlays, when switched on and computed for the board on screen.
pub(crate) fn draw(painter: &Painter, grid: &Grid, state: &State, live: &Live) {
    let d = &live.danger;
    if d.stale(state) {
        return;
    }
    let Some(Ok(summary)) = &d.summary else {
        return;
    };
    let size = grid.size;
    if state.settings.danger_heatmap
        && let Some(map) = &d.map
        && let Some(max) = scale(map)
    {
        for y in 0..size.h() {
            for x in 0..size.w() {
                let delta = map[size.bit(x, y) as usize];
                if delta.abs() > 1e-12 {
                    mark(painter, grid.cell_rect(x, y).center(), grid.cell, delta, max);
                }
            }
        }
    }
    if state.settings.danger_dead_regions {
        let stroke = Stroke::new((grid.cell * 0.06).max(1.0), Color32::from_rgb(0x5a, 0x2a, 0x2a));
        for region in &summary.dead {
            for y in 0..size.h() {
                for x in 0..size.w() {
                    if region >> size.bit(x, y) & 1 == 1 {
                        hatch(painter, grid.cell_rect(x, y).shrink(grid.cell * 0.05), stroke);
                    }
                }
            }
        }
    }
}

/// One cell's mark: a ring with a + (flipping raises the danger, red) or a
/// − (lowers it, green), thicker and stronger the larger the change. Rings
/// and signs, not filled squares, so a mark is never taken for a piece.
fn mark(painter: &Painter, center: egui::Pos2, cell: f32, delta: f64, max: f64) {
    let t = (delta.abs() / max).clamp(0.0, 1.0) as f32;
    let color = heat_color(delta, max);
    let radius = cell * 0.3;
    painter.circle_stroke(center, radius, Stroke::new(1.0 + 3.0 * t, color));
    let arm = radius * 0.5;
    let stroke = Stroke::new(1.0 + 1.5 * t, color);
    painter.line_segment([center - vec2(arm, 0.0), center + vec2(arm, 0.0)], stroke);
    if delta > 0.0 {
        painter.line_segment([center - vec2(0.0, arm), center + vec2(0.0, arm)], stroke);
    }
}

/// The heatmap's key under the board while it is on: what a ring with + or
/// − means, so nobody reads the marks as pieces.
pub(crate) fn board_legend(ui: &mut Ui, state: &State, live: &Live) {
    let d = &live.danger;
    if !state.settings.danger_heatmap || d.stale(state) {
        return;
    }
    let Some(max) = d.map.as_deref().and_then(scale) else {
        return;
    };
    ui.horizontal(|ui| {
        ui.add_space(((ui.available_width() - 520.0) / 2.0).max(0.0));
        ui.weak("Danger map:");
        for (delta, text) in [
            (max, "filling or emptying raises the danger"),
            (-max, "lowers it"),
        ] {
            let (rect, _) = ui.allocate_exact_size(vec2(22.0, 18.0), Sense::hover());
            mark(ui.painter(), rect.center(), 22.0, delta, max);
            ui.weak(text);
        }
        ui.weak(format!("(largest {:.2} points; hover a cell)", max * 100.0));
    });
}

/// Diagonal hatching inside `rect`.
fn hatch(painter: &Painter, rect: Rect, stroke: Stroke) {
    let clipped = painter.with_clip_rect(rect);
    let step = rect.width() / 4.0;
    for i in -4..=4 {
        let x = rect.left() + i as f32 * step;
        clipped.line_segment(
            [pos2(x, rect.bottom()), pos2(x + rect.height(), rect.top())],
            stroke,
        );
    }
}

/// What flipping the cell under the pointer does, as a tooltip.
pub(crate) fn hover(response: &egui::Response, grid: &Grid, state: &State, live: &Live) {
    let d = &live.danger;
    if !state.settings.danger_heatmap || d.stale(state) || response.dragged() {
        return;
    }
    let (Some(map), Some(Ok(summary))) = (&d.map, &d.summary) else {
        return;
    };
    let Some((x, y)) = response.hover_pos().and_then(|p| grid.cell_at(p)) else {
        return;
    };
    let delta = map[grid.size.bit(x, y) as usize];
    let text = describe(
        &summary.danger,
        state.doc.board.get(x, y).is_filled(),
        x,
        y,
        delta,
    );
    response.clone().on_hover_text_at_pointer(text);
}

fn describe(danger: &Danger, filled: bool, x: usize, y: usize, delta: f64) -> String {
    let verb = if filled { "Emptying" } else { "Filling" };
    let after = danger.probability + delta;
    if delta.abs() <= 1e-12 {
        return format!("{verb} ({x}, {y}) leaves the danger at {:.3} %", after * 100.0);
    }
    format!(
        "{verb} ({x}, {y}) makes the danger {:.3} % ({:+.3} points)",
        after * 100.0,
        delta * 100.0
    )
}

/// The heatmap's colour scale: green lowers the danger, red raises it.
pub fn legend(ui: &mut Ui, live: &Live) {
    let Some(max) = live.danger.map.as_deref().and_then(scale) else {
        if live.danger.map.is_some() {
            ui.weak("No single cell changes the danger.");
        }
        return;
    };
    ui.horizontal(|ui| {
        ui.weak(format!("{:+.2} pt", -max * 100.0));
        let (rect, _) = ui.allocate_exact_size(vec2(140.0, 12.0), Sense::hover());
        let n = 28;
        for i in 0..n {
            let t = i as f64 / (n - 1) as f64 * 2.0 - 1.0;
            let w = rect.width() / n as f32;
            let r = Rect::from_min_size(
                pos2(rect.left() + i as f32 * w, rect.top()),
                vec2(w, rect.height()),
            );
            let color = if t.abs() < 1e-9 {
                paint::EMPTY
            } else {
                heat_color(t * max, max)
            };
            ui.painter().rect_filled(r, CornerRadius::ZERO, color);
        }
        ui.weak(format!("{:+.2} pt", max * 100.0));
    });
    ui.weak("On the board: a red ring with + where flipping the cell raises the danger, a green ring with − where it lowers it; thicker is more (hover a cell for its value)");
}
