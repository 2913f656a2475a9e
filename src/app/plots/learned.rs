//! The learned generator's weights beside the file's: each piece's share
//! learned from the deals (a point on its 95 % interval) and the share the
//! active generator's file (or the palette) gives it (a grey mark).

use egui::{Color32, Ui};
use egui_plot::{AxisHints, Line, LineStyle, MarkerShape, Plot, PlotPoints, Points, uniform_grid_spacer};

use tenten_engine::model::pieces::PieceSet;

use crate::app::plots::lab::named_axis;
use crate::app::plots::legend::{self, Entry};
use crate::app::plots::ticks;

const LEARNED: &str = "learned (95 % interval)";
const LEARNED_COLOR: Color32 = Color32::from_rgb(40, 110, 200);

/// `learned[i]` with `intervals[i]` against `file`'s weights (`file_name`
/// says whose), in percent of the pieces dealt.
pub fn learned_plot(
    ui: &mut Ui,
    set: &PieceSet,
    learned: &[f64],
    intervals: &[(f64, f64)],
    file: &[f64],
    file_name: &str,
) {
    let n = set.pieces.len();
    let y_of = |i: usize| (n - 1 - i) as f64;
    let names: Vec<String> = (0..n).rev().map(|i| set.pieces[i].id.clone()).collect();
    let most = intervals
        .iter()
        .map(|c| c.1)
        .chain(file.iter().copied())
        .fold(0.0, f64::max)
        * 100.0;
    let file_label = format!("{file_name} (the file's weights)");
    let entries = vec![
        Entry::line(&file_label, Color32::from_gray(150), LineStyle::Solid, None),
        Entry::line(
            LEARNED,
            LEARNED_COLOR,
            LineStyle::Solid,
            Some(MarkerShape::Circle),
        ),
    ];
    let hidden = legend::show(ui, "learned_weights", &entries);
    Plot::new("learned_weights")
        .height(30.0 + 21.0 * n as f32)
        .y_grid_spacer(uniform_grid_spacer(|_| [1.0, 1.0, 1.0]))
        .custom_y_axes(vec![named_axis(AxisHints::new_y(), "piece", names)])
        .custom_x_axes(vec![ticks::value_x_hints("share of pieces drawn (%)")])
        .x_grid_spacer(ticks::decimal_x)
        .set_margin_fraction(egui::vec2(0.0, 0.0))
        .include_x(0.0)
        .include_x(most * 1.08)
        .include_y(-0.5)
        .include_y(n as f64 - 0.5)
        .allow_scroll(false)
        .label_formatter(|pos: &egui_plot::HoverPosition<'_>| match pos {
            egui_plot::HoverPosition::NearDataPoint {
                plot_name, position, ..
            } => Some(format!("{plot_name}\n{:.2} %", position.x)),
            egui_plot::HoverPosition::Elsewhere { .. } => None,
        })
        .show(ui, |plot| {
            if !hidden.contains(&file_label) {
                for (i, p) in set.pieces.iter().enumerate() {
                    let t = file[i] * 100.0;
                    let y = y_of(i);
                    plot.line(
                        Line::new(
                            format!("{}: the file's share", p.id),
                            PlotPoints::from(vec![[t, y - 0.4], [t, y + 0.4]]),
                        )
                        .color(Color32::from_gray(150))
                        .width(2.5),
                    );
                }
            }
            if !hidden.contains(LEARNED) {
                for (i, p) in set.pieces.iter().enumerate() {
                    let (lo, hi) = intervals[i];
                    let y = y_of(i);
                    plot.line(
                        Line::new(
                            format!(
                                "{}: learned, 95 % interval {:.2}-{:.2} %",
                                p.id,
                                lo * 100.0,
                                hi * 100.0
                            ),
                            PlotPoints::from(vec![[lo * 100.0, y], [hi * 100.0, y]]),
                        )
                        .color(LEARNED_COLOR)
                        .width(1.5),
                    );
                }
                let dots: Vec<[f64; 2]> = (0..n).map(|i| [learned[i] * 100.0, y_of(i)]).collect();
                plot.points(
                    Points::new("learned", PlotPoints::from(dots))
                        .shape(MarkerShape::Circle)
                        .radius(4.0)
                        .filled(true)
                        .color(LEARNED_COLOR),
                );
            }
        });
}
