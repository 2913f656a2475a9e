//! Golden-section search for the maximum of a function with one peak on
//! an interval (a log-likelihood concave in its one parameter).

/// Narrows `[a, b]` around the maximum of `f` by 60 golden-section steps
/// (each keeps 0.618 of the interval: 60 of them leave 3e-13 of it) and
/// returns the midpoint. The ends themselves are not compared: a caller
/// whose optimum may sit on one compares them.
pub fn maximize(f: impl Fn(f64) -> f64, (mut a, mut b): (f64, f64)) -> f64 {
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let (x1, x2) = (b - phi * (b - a), a + phi * (b - a));
        if f(x1) < f(x2) {
            a = x1;
        } else {
            b = x2;
        }
    }
    0.5 * (a + b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_peak_inside_and_one_near_an_end() {
        let peak = maximize(|x| -(x - 0.3).powi(2), (0.0, 1.0));
        assert!((peak - 0.3).abs() < 1e-9, "{peak}");
        // A function rising to the right end: the search ends beside it.
        let end = maximize(|x| x, (0.0, 2.0));
        assert!((end - 2.0).abs() < 1e-9, "{end}");
    }
}
