//! The convergence of a tune: the loss of every candidate and the best so
//! far against evaluations, on a log scale (a loss falls by decades).

use egui::{Color32, Ui};
use egui_plot::{AxisHints, HoverPosition, Line, LineStyle, MarkerShape, Plot, PlotPoints, Points};

use tenten_engine::study::tune::{Evaluation, GOOD_ENOUGH};

use crate::app::plots::legend::{self, Entry};

const EACH: Color32 = Color32::from_rgb(0x8c, 0x8c, 0x9c);
const BEST: Color32 = Color32::from_rgb(0x2e, 0xa0, 0x5a);
const ENOUGH: Color32 = Color32::from_rgb(0xd0, 0x5a, 0x4a);

/// log10 of a loss, floored where a loss of 0 would have none.
fn log_loss(l: f64) -> f64 {
    l.max(1e-8).log10()
}

pub fn convergence_plot(ui: &mut Ui, evaluations: &[Evaluation]) {
    let (each, best, enough) = (
        "each candidate's loss".to_owned(),
        "best so far".to_owned(),
        // The loss is in squared tolerances: below this every target is
        // within a tenth of its tolerance, and the search stops.
        format!("search stops (loss {GOOD_ENOUGH})"),
    );
    let entries = [
        Entry::line(each.clone(), EACH, LineStyle::Solid, Some(MarkerShape::Circle)),
        Entry::line(best.clone(), BEST, LineStyle::Solid, None),
        Entry::line(enough.clone(), ENOUGH, LineStyle::Dashed { length: 6.0 }, None),
    ];
    let hidden = legend::show(ui, "lab_tune", &entries);
    Plot::new("lab_tune")
        .height(170.0)
        .custom_x_axes(vec![
            AxisHints::new_x().label("evaluations").label_spacing(24.0..=40.0),
        ])
        .custom_y_axes(vec![
            AxisHints::new_y()
                .label("log10 of the loss")
                .label_spacing(14.0..=20.0),
        ])
        .include_x(0.0)
        .include_y(log_loss(GOOD_ENOUGH))
        .allow_scroll(false)
        .label_formatter(|pos: &HoverPosition<'_>| match pos {
            HoverPosition::NearDataPoint {
                plot_name, position, ..
            } => Some(format!(
                "{plot_name}\nevaluation {:.0}: loss {:.2e}",
                position.x,
                10f64.powf(position.y)
            )),
            HoverPosition::Elsewhere { position } => Some(format!(
                "evaluation {:.0}, loss {:.2e}",
                position.x,
                10f64.powf(position.y)
            )),
        })
        .show(ui, |plot| {
            if !hidden.contains(&enough) {
                plot.hline(
                    egui_plot::HLine::new(enough.clone(), log_loss(GOOD_ENOUGH))
                        .color(ENOUGH)
                        .style(LineStyle::Dashed { length: 6.0 }),
                );
            }
            if !hidden.contains(&each) {
                let points: Vec<[f64; 2]> = evaluations
                    .iter()
                    .map(|e| [e.n as f64, log_loss(e.loss)])
                    .collect();
                plot.points(
                    Points::new(each.clone(), PlotPoints::from(points))
                        .color(EACH)
                        .radius(2.0),
                );
            }
            if !hidden.contains(&best) {
                let points: Vec<[f64; 2]> = evaluations
                    .iter()
                    .map(|e| [e.n as f64, log_loss(e.best)])
                    .collect();
                plot.line(
                    Line::new(best.clone(), PlotPoints::from(points))
                        .color(BEST)
                        .width(2.0),
                );
            }
        });
}
