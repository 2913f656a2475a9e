//! The random-effects model of a population fitted in two stages: each
//! tester's estimate y_i of a parameter, with its standard error s_i (its
//! measurement error), is y_i = μ + u_i + e_i, u_i ~ N(0, τ²) the spread
//! between testers and e_i ~ N(0, s_i²) the noise of the tester's own fit.
//! μ and τ are fitted by restricted maximum likelihood (REML: unbiased for
//! τ where plain ML shrinks it by a factor (n-1)/n), so a spread smaller
//! than the noise comes out near zero, not inflated: the noise is s_i's.
//! τ's 95 % interval is the profile's (its low end 0 when the likelihood
//! at τ = 0 is within the cut); μ's is Student's t on n - 1 degrees of
//! freedom with the Hartung-Knapp variance. Each tester's shrunken
//! estimate is the empirical-Bayes posterior mean, μ + τ² / (τ² + s_i²)
//! (y_i - μ).

use crate::stats::inference::t_975;

/// Twice the log-likelihood drop at the edge of a 95 % profile interval.
const CHI2_95: f64 = 3.841_458_820_694_124;

/// A population parameter: its mean and spread across testers, each with
/// its 95 % interval, and the testers' shrunken estimates.
#[derive(Clone, Debug, PartialEq)]
pub struct RandomEffects {
    pub n: usize,
    pub mean: f64,
    pub mean_se: f64,
    pub mean_ci: (f64, f64),
    /// τ, the standard deviation between testers.
    pub sd: f64,
    /// τ's 95 % interval (the high end infinite with fewer than two testers).
    pub sd_ci: (f64, f64),
    /// τ's standard error, read off its interval (its width / 3.92).
    pub sd_se: f64,
    /// Per tester: the shrunken estimate and its posterior standard deviation.
    pub shrunk: Vec<(f64, f64)>,
}

/// The restricted log-likelihood at spread `tau`, and μ's estimate there.
fn restricted(estimates: &[(f64, f64)], tau: f64) -> (f64, f64) {
    let (mut sw, mut swy) = (0.0, 0.0);
    let mut logv = 0.0;
    for &(y, s) in estimates {
        let v = tau * tau + s * s;
        sw += 1.0 / v;
        swy += y / v;
        logv += v.ln();
    }
    let mu = swy / sw;
    let q: f64 = estimates
        .iter()
        .map(|&(y, s)| (y - mu).powi(2) / (tau * tau + s * s))
        .sum();
    (-0.5 * (logv + sw.ln() + q), mu)
}

/// The value in [lo, hi] where `f` crosses `cut`, f(lo) and f(hi) on
/// either side (bisection: the profile is smooth, sixty halvings are exact).
fn crossing(f: impl Fn(f64) -> f64, cut: f64, mut lo: f64, mut hi: f64) -> f64 {
    let above_at_lo = f(lo) >= cut;
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if (f(mid) >= cut) == above_at_lo {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Fits the random-effects model to (estimate, standard error) pairs;
/// `None` with no testers. A standard error of 0 or less, or not finite,
/// counts as a very uncertain estimate (1e6), never as an exact one.
pub fn random_effects(estimates: &[(f64, f64)]) -> Option<RandomEffects> {
    let n = estimates.len();
    if n == 0 {
        return None;
    }
    let data: Vec<(f64, f64)> = estimates
        .iter()
        .map(|&(y, s)| (y, if s.is_finite() && s > 0.0 { s.min(1e6) } else { 1e6 }))
        .collect();
    let ys: Vec<f64> = data.iter().map(|d| d.0).collect();
    let mean_y = ys.iter().sum::<f64>() / n as f64;
    let spread = (ys.iter().map(|y| (y - mean_y).powi(2)).sum::<f64>() / n as f64).sqrt();
    // τ beyond three times the estimates' own spread (plus a little) is
    // never likely: the search's end.
    let top = 3.0 * spread + 1e-6;
    let ll = |tau: f64| restricted(&data, tau).0;
    let (tau, best) = if n < 2 {
        (0.0, ll(0.0))
    } else {
        // A coarse grid, then golden section around the best point.
        let grid: Vec<f64> = (0..=200).map(|i| top * f64::from(i) / 200.0).collect();
        let i = (0..grid.len())
            .max_by(|&a, &b| ll(grid[a]).total_cmp(&ll(grid[b])))
            .unwrap_or(0);
        let t = super::golden::maximize(ll, (grid[i.saturating_sub(1)], grid[(i + 1).min(200)]));
        let t = if ll(0.0) >= ll(t) { 0.0 } else { t };
        (t, ll(t))
    };
    let (_, mean) = restricted(&data, tau);
    let sw: f64 = data.iter().map(|&(_, s)| 1.0 / (tau * tau + s * s)).sum();
    // Hartung and Knapp (2001): the weighted spread of the estimates about
    // μ scales μ's variance, so an interval does not rest on each tester's
    // standard error being known exactly (REML takes them as known); never
    // narrower than the plain one (q at least 1: Röver, Knapp and
    // Friede 2015). The calibration study measured the plain interval's
    // coverage of the slip's median at 88 % on 20 testers x 2 sessions.
    let q = if n > 1 {
        data.iter()
            .map(|&(y, s)| (y - mean).powi(2) / (tau * tau + s * s))
            .sum::<f64>()
            / (n - 1) as f64
    } else {
        1.0
    };
    let mean_se = (q.max(1.0) / sw).sqrt();
    let half = t_975(n.saturating_sub(1).max(1)) * mean_se;
    let sd_ci = if n < 2 {
        (0.0, f64::INFINITY)
    } else {
        let cut = best - CHI2_95 / 2.0;
        let lo = if ll(0.0) >= cut {
            0.0
        } else {
            crossing(ll, cut, 0.0, tau)
        };
        let mut far = top.max(2.0 * tau).max(1e-3);
        while ll(far) >= cut && far < 1e6 {
            far *= 2.0;
        }
        let hi = if ll(far) >= cut {
            f64::INFINITY
        } else {
            crossing(ll, cut, tau, far)
        };
        (lo, hi)
    };
    let sd_se = if sd_ci.1.is_finite() {
        (sd_ci.1 - sd_ci.0) / 3.92
    } else {
        f64::INFINITY
    };
    let shrunk = data
        .iter()
        .map(|&(y, s)| {
            let k = tau * tau / (tau * tau + s * s);
            (mean + k * (y - mean), (k * s * s).sqrt())
        })
        .collect();
    Some(RandomEffects {
        n,
        mean,
        mean_se,
        mean_ci: (mean - half, mean + half),
        sd: tau,
        sd_ci,
        sd_se,
        shrunk,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::generator::Generator;

    fn draw(n: usize, mu: f64, tau: f64, s: f64, seed: u64) -> Vec<(f64, f64)> {
        let mut rng = Generator::new(seed);
        (0..n)
            .map(|_| (mu + tau * rng.normal() + s * rng.normal(), s))
            .collect()
    }

    #[test]
    fn defined_for_zero_one_and_equal_testers() {
        assert_eq!(random_effects(&[]), None);
        let one = random_effects(&[(2.0, 0.5)]).unwrap();
        assert_eq!((one.mean, one.sd), (2.0, 0.0));
        assert_eq!(one.sd_ci, (0.0, f64::INFINITY));
        assert!(one.mean_ci.0 < 2.0 && one.mean_ci.1 > 2.0);
        // Identical estimates: no spread, an interval from 0.
        let same = random_effects(&[(1.0, 0.1); 5]).unwrap();
        assert_eq!(same.sd, 0.0);
        assert_eq!(same.sd_ci.0, 0.0);
        assert!(same.sd_ci.1.is_finite() && same.sd_ci.1 > 0.0);
        // A zero or infinite standard error is a very uncertain estimate.
        let odd = random_effects(&[(1.0, 0.0), (3.0, f64::INFINITY), (2.0, 0.1)]).unwrap();
        assert!((odd.mean - 2.0).abs() < 1e-3, "{odd:?}");
    }

    #[test]
    fn recovers_mean_and_spread_and_a_spread_below_the_noise_is_near_zero() {
        let mut covered = [0; 2];
        for seed in 0..40 {
            let f = random_effects(&draw(80, 1.5, 0.4, 0.2, seed)).unwrap();
            covered[0] += usize::from(f.mean_ci.0 <= 1.5 && 1.5 <= f.mean_ci.1);
            covered[1] += usize::from(f.sd_ci.0 <= 0.4 && 0.4 <= f.sd_ci.1);
        }
        assert!(covered.iter().all(|&c| c >= 34), "{covered:?} of 40");
        // No spread at all, noise 0.5: τ's interval holds 0 nearly always.
        let holds_zero = (0..40)
            .filter(|&seed| random_effects(&draw(60, 0.0, 0.0, 0.5, seed)).unwrap().sd_ci.0 == 0.0)
            .count();
        assert!(holds_zero >= 34, "{holds_zero} of 40");
    }

    #[test]
    fn shrinks_noisy_testers_toward_the_mean() {
        let mut est = draw(50, 0.0, 0.3, 0.1, 3);
        est.push((5.0, 10.0));
        let f = random_effects(&est).unwrap();
        let last = f.shrunk.last().unwrap();
        assert!(last.0.abs() < 0.2, "{last:?}");
        // A precise tester keeps most of its own estimate.
        let first = f.shrunk[0];
        assert!((first.0 - est[0].0).abs() < (est[0].0 - f.mean).abs() * 0.5 + 1e-9);
    }
}
