//! The learned generator's weights beside the palette's: each piece's
//! share learned from the deals (a point on its 95 % interval) and the
//! share the palette gives it (a grey mark), which is what the active
//! generator deals (it carries no weights of its own).

use egui::{Color32, Ui};
use egui_plot::{Line, LineStyle, MarkerShape, PlotPoints, Points};

use tenten_engine::model::pieces::PieceSet;

use crate::app::plots::lab::piece_rows_plot;
use crate::app::plots::legend::{self, Entry};

const LEARNED: &str = "learned (95 % interval)";
const LEARNED_COLOR: Color32 = Color32::from_rgb(40, 110, 200);

/// `learned[i]` with `intervals[i]` against the `shown` shares (`label`,
/// the legend's words for them: what is drawn), in percent of the pieces
/// dealt.
pub fn learned_plot(
    ui: &mut Ui,
    set: &PieceSet,
    learned: &[f64],
    intervals: &[(f64, f64)],
    shown: &[f64],
    label: &str,
) {
    let n = set.pieces.len();
    let y_of = |i: usize| (n - 1 - i) as f64;
    let names: Vec<String> = (0..n).rev().map(|i| set.pieces[i].id.clone()).collect();
    let most = intervals
        .iter()
        .map(|c| c.1)
        .chain(shown.iter().copied())
        .fold(0.0, f64::max)
        * 100.0;
    let file_label = label.to_owned();
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
    piece_rows_plot("learned_weights", names, "share of pieces drawn (%)", most * 1.08).show(ui, |plot| {
        if !hidden.contains(&file_label) {
            for (i, p) in set.pieces.iter().enumerate() {
                let t = shown[i] * 100.0;
                let y = y_of(i);
                plot.line(
                    Line::new(
                        format!("{}: {label}", p.id),
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
