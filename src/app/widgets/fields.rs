//! Number boxes that never change what was typed without saying so: a value
//! outside the documented range is brought into it and a note explains why.

use std::ops::RangeInclusive;

/// `1234567` as "1,234,567".
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

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

#[cfg(test)]
mod tests {
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
