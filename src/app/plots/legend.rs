//! A legend above a plot, never on its data: each series with its colour,
//! its line style and its marker as drawn, so series that share a colour
//! (p50 and p99 of one operation) still read apart. A click hides or shows
//! a series, as egui_plot's own legend does.

use std::collections::BTreeSet;

use egui::{Color32, Id, Pos2, Sense, Shape, Stroke, Ui, vec2};
use egui_plot::{LineStyle, MarkerShape};

/// How a series is drawn, for its legend entry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Swatch {
    /// A line in this style, with a marker in its middle when it has one.
    Line(LineStyle, Option<MarkerShape>),
    /// A filled block (bars, boxes).
    Block,
}

/// One legend entry.
pub struct Entry {
    pub name: String,
    pub color: Color32,
    pub swatch: Swatch,
}

impl Entry {
    pub fn line(
        name: impl Into<String>,
        color: Color32,
        style: LineStyle,
        marker: Option<MarkerShape>,
    ) -> Self {
        Self {
            name: name.into(),
            color,
            swatch: Swatch::Line(style, marker),
        }
    }

    pub fn block(name: impl Into<String>, color: Color32) -> Self {
        Self {
            name: name.into(),
            color,
            swatch: Swatch::Block,
        }
    }
}

/// Draws the legend of plot `plot_id` (wrapping as the width needs) and
/// returns the names of the series the user has hidden.
pub fn show(ui: &mut Ui, plot_id: &str, entries: &[Entry]) -> BTreeSet<String> {
    let id = Id::unique(("plot-legend", plot_id));
    let mut hidden: BTreeSet<String> = ui.data(|d| d.get_temp(id)).unwrap_or_default();
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 10.0;
        for e in entries {
            let off = hidden.contains(&e.name);
            let r = entry(ui, e, off).on_hover_text(if off { "Click to show" } else { "Click to hide" });
            if r.clicked() && !hidden.remove(&e.name) {
                hidden.insert(e.name.clone());
            }
        }
    });
    ui.data_mut(|d| d.insert_temp(id, hidden.clone()));
    hidden
}

fn entry(ui: &mut Ui, e: &Entry, off: bool) -> egui::Response {
    let text = egui::RichText::new(&e.name).small();
    let text = if off { text.weak().strikethrough() } else { text };
    let galley = egui::WidgetText::from(text).into_galley(
        ui,
        Some(egui::TextWrapMode::Extend),
        f32::INFINITY,
        egui::TextStyle::Small,
    );
    let swatch = vec2(34.0, 12.0);
    let size = vec2(swatch.x + 4.0 + galley.size().x, swatch.y.max(galley.size().y));
    let (rect, response) = ui.allocate_exact_size(size, Sense::click());
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &e.name));
    let color = if off { e.color.gamma_multiply(0.3) } else { e.color };
    let painter = ui.painter();
    let mid = rect.left_center() + vec2(0.0, 0.0);
    let (a, b) = (mid, mid + vec2(swatch.x, 0.0));
    match e.swatch {
        Swatch::Line(style, marker) => {
            let stroke = Stroke::new(2.0, color);
            match style {
                LineStyle::Solid => {
                    painter.line_segment([a, b], stroke);
                }
                LineStyle::Dashed { length } => {
                    painter.extend(Shape::dashed_line(&[a, b], stroke, length, length * 0.6));
                }
                LineStyle::Dotted { spacing } => {
                    painter.extend(Shape::dotted_line(&[a, b], color, spacing, 1.2));
                }
            }
            if let Some(m) = marker {
                marker_shape(painter, mid + vec2(swatch.x / 2.0, 0.0), 4.5, m, color);
            }
        }
        Swatch::Block => {
            let block = egui::Rect::from_center_size(mid + vec2(swatch.x / 2.0, 0.0), vec2(20.0, 10.0));
            painter.rect_filled(block, 2.0, color);
        }
    }
    let text_pos = Pos2::new(
        rect.left() + swatch.x + 4.0,
        rect.center().y - galley.size().y / 2.0,
    );
    painter.galley(text_pos, galley, ui.visuals().text_color());
    response
}

/// A marker as egui_plot draws `m`, for the legend.
fn marker_shape(painter: &egui::Painter, c: Pos2, r: f32, m: MarkerShape, color: Color32) {
    let poly = |points: Vec<Pos2>| Shape::convex_polygon(points, color, Stroke::NONE);
    let shape = match m {
        MarkerShape::Circle => Shape::circle_filled(c, r, color),
        MarkerShape::Square => {
            Shape::rect_filled(egui::Rect::from_center_size(c, vec2(r, r) * 1.6), 0.0, color)
        }
        MarkerShape::Diamond => poly(vec![
            c + vec2(0.0, -r),
            c + vec2(r, 0.0),
            c + vec2(0.0, r),
            c + vec2(-r, 0.0),
        ]),
        MarkerShape::Up => poly(vec![
            c + vec2(0.0, -r),
            c + vec2(r, r * 0.8),
            c + vec2(-r, r * 0.8),
        ]),
        MarkerShape::Down => poly(vec![
            c + vec2(-r, -r * 0.8),
            c + vec2(r, -r * 0.8),
            c + vec2(0.0, r),
        ]),
        _ => Shape::line_segment([c + vec2(-r, -r), c + vec2(r, r)], Stroke::new(2.0, color)),
    };
    painter.add(shape);
}
