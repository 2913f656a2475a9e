//! The log-rank test of two survival curves (Mantel 1966): at each time a
//! game ends in either group, the ends the first group saw against those
//! expected if both groups shared one hazard; censored games leave the risk
//! set without an event. Defined for every input: with no ends at all, or
//! one group empty, there is nothing to test (`None`).

use statrs::distribution::{ChiSquared, ContinuousCDF};

/// The test's statistic (chi-square, one degree of freedom) and p-value,
/// with the first group's observed and expected ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogRank {
    pub chi2: f64,
    pub p: f64,
    pub observed: f64,
    pub expected: f64,
}

/// Compares games given as (rounds, censored), as `survival` takes them.
pub fn log_rank(a: &[(u32, bool)], b: &[(u32, bool)]) -> Option<LogRank> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    // Counts per round: ends and games (ended or censored) at each, so the
    // risk sets are running sums (a forecast's many games stay quick).
    let top = a.iter().chain(b).map(|g| g.0).max().unwrap_or(0) as usize;
    let tally = |g: &[(u32, bool)]| {
        let (mut ends, mut leave) = (vec![0.0f64; top + 1], vec![0.0f64; top + 1]);
        for x in g {
            leave[x.0 as usize] += 1.0;
            if !x.1 {
                ends[x.0 as usize] += 1.0;
            }
        }
        (ends, leave)
    };
    let ((ea, la), (eb, lb)) = (tally(a), tally(b));
    let (mut n1, mut n2) = (a.len() as f64, b.len() as f64);
    let (mut observed, mut expected, mut variance) = (0.0, 0.0, 0.0);
    for t in 0..=top {
        let (d1, d2) = (ea[t], eb[t]);
        let (n, d) = (n1 + n2, d1 + d2);
        if d > 0.0 && n >= 1.0 {
            observed += d1;
            expected += d * n1 / n;
            if n > 1.0 {
                variance += n1 * n2 * d * (n - d) / (n * n * (n - 1.0));
            }
        }
        n1 -= la[t];
        n2 -= lb[t];
    }
    if variance <= 0.0 {
        return None;
    }
    let chi2 = (observed - expected).powi(2) / variance;
    let p = ChiSquared::new(1.0).map_or(f64::NAN, |c| 1.0 - c.cdf(chi2));
    Some(LogRank {
        chi2,
        p,
        observed,
        expected,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_games_do_not_differ_and_shifted_ones_do() {
        let a: Vec<(u32, bool)> = (1..=40).map(|r| (r, false)).collect();
        let same = log_rank(&a, &a).unwrap();
        assert!(same.chi2 < 1e-12 && (same.p - 1.0).abs() < 1e-9, "{same:?}");
        let longer: Vec<(u32, bool)> = (1..=40).map(|r| (r + 30, false)).collect();
        let shifted = log_rank(&a, &longer).unwrap();
        assert!(shifted.p < 1e-6, "{shifted:?}");
        assert!(shifted.observed > shifted.expected);
    }

    /// A textbook case worked by hand: group a ends at 1 and 3, group b at
    /// 2 and is censored at 4. Times 1, 2, 3: risk sets (2,2), (1,2), (1,1).
    #[test]
    fn a_small_case_matches_the_hand_computation() {
        let a = [(1, false), (3, false)];
        let b = [(2, false), (4, true)];
        let r = log_rank(&a, &b).unwrap();
        // E = 2/4 + 1/3 + 1/2; V = 4/16 + 2/9 + 1/4.
        let e = 0.5 + 1.0 / 3.0 + 0.5;
        let v = 0.25 + 2.0 / 9.0 + 0.25;
        assert!((r.expected - e).abs() < 1e-12);
        assert!((r.chi2 - (2.0 - e).powi(2) / v).abs() < 1e-12);
    }

    #[test]
    fn nothing_to_test_is_none() {
        assert_eq!(log_rank(&[], &[(3, false)]), None);
        assert_eq!(log_rank(&[(3, true)], &[(4, true)]), None);
    }
}
