//! The likelihood curves of a fitted player: the profile log-likelihood of
//! temperature and of slip, each as the drop from the maximum, with the
//! 95 % cut (a drop of 1.92, half the chi-square quantile with one degree
//! of freedom) where the interval ends, and the estimate.

use egui::{Color32, Ui};
use egui_plot::{AxisHints, HLine, HoverPosition, Line, LineStyle, Plot, PlotPoints, VLine};

use crate::app::plots::legend::{self, Entry};

const CURVE: Color32 = Color32::from_rgb(0x31, 0x7b, 0xd6);
const CUT: Color32 = Color32::from_rgb(0xd0, 0x5a, 0x4a);
const ESTIMATE: Color32 = Color32::GRAY;

/// Drops below this are off the plot: far outside any interval.
const FLOOR: f64 = -12.0;

/// One profile: `(value, log-likelihood)` points, the maximum, the estimate.
pub fn profile_plot(
    ui: &mut Ui,
    id: &str,
    what: &'static str,
    profile: &[(f64, f64)],
    best: f64,
    estimate: f64,
) {
    let points: Vec<[f64; 2]> = profile
        .iter()
        .filter(|(_, ll)| ll.is_finite() && ll - best >= FLOOR)
        .map(|&(x, ll)| [x, ll - best])
        .collect();
    let curve = format!("profile log-likelihood of {what}");
    let cut = "95 % cut: 1.92 below the maximum".to_owned();
    let at = format!("estimate {estimate:.3}");
    let entries = [
        Entry::line(curve.clone(), CURVE, LineStyle::Solid, None),
        Entry::line(cut.clone(), CUT, LineStyle::Dashed { length: 6.0 }, None),
        Entry::line(at.clone(), ESTIMATE, LineStyle::Dotted { spacing: 4.0 }, None),
    ];
    let hidden = legend::show(ui, id, &entries);
    let (lo, hi) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p[0]), b.max(p[0]))
        });
    Plot::new(id)
        .height(150.0)
        .custom_x_axes(vec![AxisHints::new_x().label(what).label_spacing(24.0..=40.0)])
        .custom_y_axes(vec![
            AxisHints::new_y()
                .label("log-likelihood drop")
                .label_spacing(14.0..=20.0),
        ])
        .include_y(0.0)
        .include_y(FLOOR)
        .include_x(if lo.is_finite() { lo } else { 0.0 })
        .include_x(if hi.is_finite() { hi } else { 1.0 })
        .allow_scroll(false)
        .label_formatter(move |pos: &HoverPosition<'_>| match pos {
            HoverPosition::NearDataPoint { position, .. } => Some(format!(
                "{what} {:.3}: {:.2} below the maximum",
                position.x, -position.y
            )),
            HoverPosition::Elsewhere { position } => {
                Some(format!("{what} {:.3}, {:.2}", position.x, position.y))
            }
        })
        .show(ui, |plot| {
            if !hidden.contains(&cut) {
                plot.hline(
                    HLine::new(cut.clone(), -3.841_458_820_694_124 / 2.0)
                        .color(CUT)
                        .style(LineStyle::Dashed { length: 6.0 }),
                );
            }
            if !hidden.contains(&at) {
                plot.vline(
                    VLine::new(at.clone(), estimate)
                        .color(ESTIMATE)
                        .style(LineStyle::Dotted { spacing: 4.0 }),
                );
            }
            if !hidden.contains(&curve) {
                plot.line(
                    Line::new(curve.clone(), PlotPoints::from(points))
                        .color(CURVE)
                        .width(2.0),
                );
            }
        });
}
