//! Number boxes that never change what was typed without saying so: a value
//! outside the documented range is brought into it and a note explains why.

use std::cell::RefCell;
use std::ops::RangeInclusive;

use egui::emath::Numeric;
use egui::{DragValue, Response, Ui};

use crate::app::widgets::paint;

pub use tenten_engine::text::{count, grouped, rounded};

/// Brings `value` into `range`; returns the note to show when it had to.
pub fn clamp_with_note(value: &mut u64, range: RangeInclusive<u64>, what: &str) -> Option<String> {
    let (lo, hi) = (*range.start(), *range.end());
    let typed = *value;
    let (bound, side) = if typed > hi {
        (hi, "at most")
    } else if typed < lo {
        (lo, "at least")
    } else {
        return None;
    };
    *value = bound;
    Some(format!(
        "{what} is {side} {}: {} was set to {}.",
        grouped(bound),
        grouped(typed),
        grouped(bound)
    ))
}

/// How long a field's note stays beside it.
const NOTE_SECONDS: f64 = 8.0;

/// A number box for a whole number in `range` that never changes what was
/// typed without a word: letters keep the old value, 2.7 is rounded, -5 or
/// 200000 is brought into range, and a note beside the box says which (for
/// a few seconds). `tune` sets the rest (speed, suffix).
pub fn whole<T: Numeric + std::fmt::Display>(
    ui: &mut Ui,
    value: &mut T,
    range: RangeInclusive<T>,
    what: &str,
    tune: impl FnOnce(DragValue<'_>) -> DragValue<'_>,
) -> Response {
    let note_id = ui.make_persistent_id(("whole-number-note", what));
    let (lo, hi) = (range.start().to_f64(), range.end().to_f64());
    let old = value.to_string();
    let note: RefCell<Option<String>> = RefCell::new(None);
    let parser = |text: &str| {
        let (parsed, message) = read_whole(text, lo, hi, what, &old);
        *note.borrow_mut() = message;
        parsed
    };
    let inner = ui.horizontal(|ui| {
        let drag = DragValue::new(value)
            .range(range)
            .update_while_editing(false)
            .custom_parser(parser);
        let response = ui.add(tune(drag));
        let now = ui.input(|i| i.time);
        if let Some(message) = note.borrow_mut().take() {
            ui.data_mut(|d| d.insert_temp(note_id, (message, now)));
        }
        if let Some((message, at)) = ui.data(|d| d.get_temp::<(String, f64)>(note_id))
            && now - at < NOTE_SECONDS
        {
            ui.colored_label(paint::WARN, message);
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_secs_f64(NOTE_SECONDS));
        }
        response
    });
    inner.inner
}

/// What a whole-number box makes of `text`: the number to take (`None`
/// keeps the old one) and the note saying what was done, if anything was.
fn read_whole(text: &str, lo: f64, hi: f64, what: &str, old: &str) -> (Option<f64>, Option<String>) {
    let t: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != ',')
        .map(|c| if c == '\u{2212}' { '-' } else { c })
        .collect();
    let Some(x) = t.parse::<f64>().ok().filter(|x| x.is_finite()) else {
        let note = format!(
            "{what} takes a whole number; \"{}\" is not one, so it stays {old}.",
            text.trim()
        );
        return (None, Some(note));
    };
    let whole = x.round();
    let kept = whole.clamp(lo, hi);
    let note = if kept != whole {
        let side = if whole < lo { "at least" } else { "at most" };
        let k = signed_grouped(kept);
        Some(format!("{what} is {side} {k}: {t} was set to {k}."))
    } else if whole != x {
        Some(format!(
            "{what} is a whole number: {t} was rounded to {}.",
            signed_grouped(whole)
        ))
    } else {
        None
    };
    (Some(kept), note)
}

fn signed_grouped(v: f64) -> String {
    if v < 0.0 {
        format!("-{}", grouped(v.abs() as u64))
    } else {
        grouped(v as u64)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn whole_number_boxes_say_what_they_did() {
        use super::read_whole;
        let r = |t| read_whole(t, 1.0, 100_000.0, "Games", "500");
        assert_eq!(r("42"), (Some(42.0), None));
        assert_eq!(r("1,000"), (Some(1000.0), None));
        let (v, note) = r("2.7");
        assert_eq!(v, Some(3.0));
        assert_eq!(note.unwrap(), "Games is a whole number: 2.7 was rounded to 3.");
        let (v, note) = r("-5");
        assert_eq!(v, Some(1.0));
        assert_eq!(note.unwrap(), "Games is at least 1: -5 was set to 1.");
        let (v, note) = r("200000");
        assert_eq!(v, Some(100_000.0));
        assert!(note.unwrap().contains("at most 100,000"));
        let (v, note) = r("ten");
        assert_eq!(v, None);
        assert_eq!(
            note.unwrap(),
            "Games takes a whole number; \"ten\" is not one, so it stays 500."
        );
    }

    use super::*;

    #[test]
    fn values_out_of_range_are_clamped_and_explained() {
        let mut v = 500_000_000;
        let note = clamp_with_note(&mut v, 1_000..=50_000_000, "The node budget");
        assert_eq!(v, 50_000_000);
        assert_eq!(
            note.as_deref(),
            Some("The node budget is at most 50,000,000: 500,000,000 was set to 50,000,000.")
        );
        let mut w = 7;
        assert!(clamp_with_note(&mut w, 0..=100, "A weight").is_none());
        assert_eq!(w, 7);
        let mut z = 3;
        assert!(
            clamp_with_note(&mut z, 10..=20, "x")
                .unwrap()
                .contains("at least 10")
        );
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
    }
}
