//! Tick marks that read at every scale: the step comes from the plot's size
//! in pixels and the width of the widest label, so labels never run
//! together, whatever the range ("1,000 2,000 3,000", never
//! "1000110012001300"); rounds can be shown on a log scale when the games
//! span more than a decade.

use std::ops::RangeInclusive;

use egui_plot::{AxisHints, GridInput, GridMark};

use crate::app::widgets::fields::grouped;

/// egui_plot's `base_step_size` is this many pixels' worth of data (its
/// default smallest grid spacing).
const GRID_MIN_PX: f64 = 8.0;
/// The width of one digit or separator of a tick label, with margin.
const CHAR_PX: f64 = 8.0;
/// Room between two labels.
const GAP_PX: f64 = 12.0;
/// A y label's height with room around it.
const ROW_PX: f64 = 22.0;

/// The smallest of 1, 2, 2.5 or 5 times a power of ten that is at least
/// `x`.
pub fn nice_step(x: f64) -> f64 {
    if !(x.is_finite() && x > 0.0) {
        return 1.0;
    }
    let p = 10f64.powf(x.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= x * (1.0 - 1e-9))
        .unwrap_or(10.0 * p)
}

/// As `nice_step`, never a fraction: for whole-number axes.
fn whole_step(x: f64) -> f64 {
    let s = nice_step(x).max(1.0);
    if s.fract() != 0.0 {
        nice_step(s * 1.01).max(1.0)
    } else {
        s
    }
}

/// Data units per pixel on the axis `input` describes.
fn per_px(input: &GridInput) -> f64 {
    input.base_step_size / GRID_MIN_PX
}

/// Evenly spaced marks over `bounds`, `step` apart; every one labelled.
fn marks(bounds: (f64, f64), step: f64) -> Vec<GridMark> {
    let (lo, hi) = bounds;
    if !(step > 0.0 && lo.is_finite() && hi.is_finite()) || (hi - lo) / step > 1000.0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut v = (lo / step).ceil() * step;
    while v <= hi + step * 1e-9 {
        out.push(GridMark {
            value: v + 0.0,
            step_size: step,
        });
        v += step;
    }
    out
}

/// Characters in the widest label of a whole-number axis over `bounds`.
fn widest_whole(bounds: (f64, f64)) -> usize {
    let biggest = bounds.0.abs().max(bounds.1.abs()).round() as u64;
    grouped(biggest).len().max(1) + usize::from(bounds.0 < 0.0)
}

/// An x axis of values with a decimal or two (shares in percent): a step
/// wide enough for a label like "12.5".
pub fn decimal_x(input: GridInput) -> Vec<GridMark> {
    let width = (widest_whole(input.bounds) + 2) as f64 * CHAR_PX + GAP_PX;
    inside(
        &input,
        width,
        marks(input.bounds, nice_step(per_px(&input) * width)),
    )
}

/// The marks whose label (`width` px, centred on the mark) ends inside the
/// plot on the right: a label cut by the edge reads as another number.
fn inside(input: &GridInput, width: f64, marks: Vec<GridMark>) -> Vec<GridMark> {
    let px = per_px(input);
    let half = (width - GAP_PX) / 2.0;
    marks
        .into_iter()
        .filter(|m| (input.bounds.1 - m.value) / px >= half)
        .collect()
}

/// An x axis of whole numbers (rounds): a step of at least one, wide
/// enough for the widest label.
pub fn whole_x(input: GridInput) -> Vec<GridMark> {
    let width = widest_whole(input.bounds) as f64 * CHAR_PX + GAP_PX;
    inside(
        &input,
        width,
        marks(input.bounds, whole_step(per_px(&input) * width)),
    )
}

/// A y axis: a step of at least a label's height, and at most a quarter of
/// the range, so there are four labels or more on any plot tall enough.
pub fn any_y(input: GridInput) -> Vec<GridMark> {
    let range = (input.bounds.1 - input.bounds.0).abs();
    let by_px = per_px(&input) * ROW_PX;
    let mut step = nice_step(by_px);
    while step > range / 4.0 && step > by_px {
        let smaller = nice_step(step * 0.49);
        if smaller < by_px * 0.999 {
            break;
        }
        step = smaller;
    }
    marks(input.bounds, step)
}

/// Rounds on a log scale: plotted as log10(1 + rounds), so round 0 stays
/// on the axis.
pub fn to_log(rounds: f64) -> f64 {
    (1.0 + rounds.max(0.0)).log10()
}

pub fn from_log(v: f64) -> f64 {
    10f64.powf(v) - 1.0
}

/// Marks at 0, 1, 2, 5, 10, 20, 50, ... rounds on the log axis, skipping
/// any whose label would touch the one before.
pub fn log_rounds_x(input: GridInput) -> Vec<GridMark> {
    let px = per_px(&input);
    let (lo, hi) = input.bounds;
    let mut candidates = vec![0.0];
    let mut p = 1.0;
    while p <= 1e9 {
        candidates.extend([p, 2.0 * p, 5.0 * p]);
        p *= 10.0;
    }
    let mut chosen: Vec<(f64, f64)> = Vec::new(); // (value, half width in px)
    for r in candidates {
        let v = to_log(r);
        let half = (grouped(r as u64).len() as f64 * CHAR_PX + GAP_PX) / 2.0;
        if v < lo - 1e-9 || (hi - v) / px < half - GAP_PX / 2.0 {
            continue;
        }
        let fits = chosen.last().is_none_or(|&(pv, ph)| (v - pv) / px >= ph + half);
        if fits {
            chosen.push((v, half));
        }
    }
    // Each mark's step: the distance to its nearest neighbour, so egui_plot
    // draws every label at full strength (each has the room it needs).
    (0..chosen.len())
        .map(|i| {
            let before = i.checked_sub(1).map(|j| chosen[i].0 - chosen[j].0);
            let after = chosen.get(i + 1).map(|n| n.0 - chosen[i].0);
            let step = match (before, after) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) | (None, Some(a)) => a,
                (None, None) => hi - lo,
            };
            GridMark {
                value: chosen[i].0,
                step_size: step.max(f64::EPSILON),
            }
        })
        .collect()
}

/// Rounds with thousands separators ("12,000"); on the log axis, the
/// rounds the plotted value stands for.
pub fn rounds_label(log: bool) -> impl Fn(GridMark, &RangeInclusive<f64>) -> String {
    move |mark, _| {
        let r = if log { from_log(mark.value) } else { mark.value };
        if r < -0.5 {
            String::new()
        } else {
            grouped(r.round() as u64)
        }
    }
}

/// A value with as many decimals as its step needs ("12.5"), never "-0".
pub fn value_label(mark: GridMark, _range: &RangeInclusive<f64>) -> String {
    let decimals = if mark.step_size >= 1.0 {
        0
    } else {
        (-mark.step_size.log10()).ceil().clamp(0.0, 6.0) as usize
    };
    let v = mark.value + 0.0;
    if decimals == 0 && v.abs() >= 1000.0 {
        return format!(
            "{}{}",
            if v < 0.0 { "-" } else { "" },
            grouped(v.abs().round() as u64)
        );
    }
    let text = format!("{v:.decimals$}");
    if text.trim_start_matches('-').chars().all(|c| c == '0' || c == '.') {
        text.trim_start_matches('-').to_owned()
    } else {
        text
    }
}

/// Axis hints whose labels are drawn at full strength wherever a mark is
/// (the spacers above already leave each label its room).
pub fn x_hints(label: &'static str, log: bool) -> AxisHints<'static> {
    AxisHints::new_x()
        .label(label)
        .formatter(rounds_label(log))
        .label_spacing(1.0..=2.0)
}

pub fn value_x_hints(label: &'static str) -> AxisHints<'static> {
    AxisHints::new_x()
        .label(label)
        .formatter(value_label)
        .label_spacing(1.0..=2.0)
}

pub fn y_hints(label: &'static str) -> AxisHints<'static> {
    AxisHints::new_y()
        .label(label)
        .formatter(value_label)
        .label_spacing(1.0..=2.0)
}

/// Whether games from `short` to `long` rounds span more than a decade:
/// then rounds read better on a log scale.
pub fn spans_a_decade(short: f64, long: f64) -> bool {
    long > 10.0 * short.max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(lo: f64, hi: f64, px: f64) -> GridInput {
        GridInput {
            bounds: (lo, hi),
            base_step_size: (hi - lo) / px * GRID_MIN_PX,
        }
    }

    /// Adjacent labels' rectangles, by the widths the spacers assume.
    fn no_overlap(marks: &[GridMark], lo: f64, hi: f64, px: f64, label: impl Fn(f64) -> String) {
        let to_px = |v: f64| (v - lo) / (hi - lo) * px;
        for w in marks.windows(2) {
            let (a, b) = (label(w[0].value), label(w[1].value));
            let room = (a.len() + b.len()) as f64 * CHAR_PX / 2.0;
            assert!(
                to_px(w[1].value) - to_px(w[0].value) >= room,
                "{a} and {b} touch on {lo}..{hi} at {px} px"
            );
        }
    }

    #[test]
    fn nice_steps_are_one_two_or_five_times_a_power_of_ten() {
        assert_eq!(nice_step(0.7), 1.0);
        assert_eq!(nice_step(1.0), 1.0);
        assert_eq!(nice_step(1.2), 2.0);
        assert_eq!(nice_step(2.2), 2.5);
        assert_eq!(whole_step(2.2), 5.0);
        assert_eq!(nice_step(3.0), 5.0);
        assert_eq!(nice_step(120.0), 200.0);
        assert_eq!(nice_step(2_153.0), 2_500.0);
        assert_eq!(nice_step(0.0), 1.0);
    }

    #[test]
    fn round_labels_never_touch_at_any_range_or_width() {
        for hi in [5.0, 30.0, 120.0, 999.0, 3_100.0, 12_000.0, 250_000.0] {
            for px in [200.0, 420.0, 800.0, 1200.0] {
                let m = whole_x(input(0.0, hi, px));
                assert!(m.len() >= 2, "{hi} at {px} px: {m:?}");
                no_overlap(&m, 0.0, hi, px, |v| grouped(v as u64));
                let lo = to_log(0.0);
                let top = to_log(hi);
                let l = log_rounds_x(input(lo, top, px));
                assert!(l.len() >= 2, "log {hi} at {px} px");
                no_overlap(&l, lo, top, px, |v| grouped(from_log(v).round() as u64));
            }
        }
    }

    #[test]
    fn a_y_axis_gets_four_labels_or_more() {
        for top in [0.3, 1.0, 10.0, 15.0, 45.0, 100.0] {
            let m = any_y(input(0.0, top, 180.0));
            assert!(m.len() >= 4, "0..{top}: {m:?}");
        }
    }

    #[test]
    fn labels_group_thousands_and_never_say_minus_zero() {
        let mark = |value, step_size| GridMark { value, step_size };
        assert_eq!(
            rounds_label(false)(mark(12_000.0, 1000.0), &(0.0..=1.0)),
            "12,000"
        );
        assert_eq!(
            rounds_label(true)(mark(to_log(1000.0), 1.0), &(0.0..=1.0)),
            "1,000"
        );
        assert_eq!(value_label(mark(-0.0, 0.5), &(0.0..=1.0)), "0.0");
        assert_eq!(value_label(mark(2.5, 0.5), &(0.0..=1.0)), "2.5");
        assert_eq!(value_label(mark(2000.0, 1000.0), &(0.0..=1.0)), "2,000");
    }

    #[test]
    fn a_decade_of_rounds_is_where_the_log_scale_starts() {
        // About the 10th and 90th percentiles of the guide's ladder run.
        assert!(!spans_a_decade(10.0, 45.0), "novice");
        assert!(spans_a_decade(150.0, 4_000.0), "expert to the cap");
    }
}
