//! One number style for the window and the CLI: thousands separators,
//! plurals that agree, and no more significant digits than a figure has.

/// `n` with thousands separators: 4,000,000.
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

/// "1 deal", "2 deals", "1,000 deals": a count with the word that agrees.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", grouped(n), if n == 1 { one } else { many })
}

/// `x` to `digits` significant digits, grouped, without spurious decimals:
/// `rounded(1332.7, 2)` is "1,300", `rounded(0.8437, 2)` is "0.84".
pub fn rounded(x: f64, digits: u32) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    if x == 0.0 {
        return "0".to_owned();
    }
    let magnitude = x.abs().log10().floor() as i32;
    let decimals = (digits as i32 - 1 - magnitude).max(0) as usize;
    let scale = 10f64.powi(magnitude - digits as i32 + 1);
    let r = (x / scale).round() * scale;
    if decimals == 0 {
        let sign = if r < 0.0 { "-" } else { "" };
        format!("{sign}{}", grouped(r.abs().round() as u64))
    } else {
        format!("{r:.decimals$}")
    }
}

/// `rounded` without trailing zeros: "100", "16.7", "0.84".
pub fn figure(x: f64, digits: u32) -> String {
    let r = rounded(x, digits);
    if r.contains('.') {
        r.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        r
    }
}

/// A time in microseconds with its unit, three significant digits and no
/// spurious decimals: "0.12 µs", "34.5 µs", "1.23 ms", "100 ms", "2 s".
pub fn time(us: f64) -> String {
    if us < 1_000.0 {
        format!("{} µs", figure(us, 3))
    } else if us < 1_000_000.0 {
        format!("{} ms", figure(us / 1e3, 3))
    } else {
        format!("{} s", figure(us / 1e6, 3))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_one_way() {
        assert_eq!(grouped(392_999_887), "392,999,887");
        assert_eq!(grouped(7), "7");
        assert_eq!(count(1, "deal", "deals"), "1 deal");
        assert_eq!(count(0, "deal", "deals"), "0 deals");
        assert_eq!(count(4000, "cell", "cells"), "4,000 cells");
        assert_eq!(rounded(1332.7, 2), "1,300");
        assert_eq!(rounded(0.8437, 2), "0.84");
        assert_eq!(rounded(16.66, 3), "16.7");
        assert_eq!(rounded(99.96, 2), "100");
        assert_eq!(rounded(-5.0, 2), "-5.0");
        assert_eq!(rounded(0.0, 2), "0");
        assert_eq!(figure(100.0, 3), "100");
        assert_eq!(figure(0.840, 3), "0.84");
        assert_eq!(time(100_000.0), "100 ms");
        assert_eq!(time(16_666.7), "16.7 ms");
        assert_eq!(time(0.123_4), "0.123 µs");
        assert_eq!(time(1.0), "1 µs");
        assert_eq!(time(2_000_000.0), "2 s");
    }
}
