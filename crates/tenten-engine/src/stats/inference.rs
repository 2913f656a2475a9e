//! The inference every comparison in the workbench uses, defined for every
//! input: Student's t for intervals and paired tests (statrs), "too few"
//! below a stated count instead of a figure that pretends. Games cut off by
//! the round cap are `survival`'s.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// Pairs below this count get "too few games", not a test: with fewer the
/// t test's assumption of normal differences cannot be checked at all.
pub const MIN_PAIRED: usize = 10;

/// The 97.5th percentile of Student's t with `df` degrees of freedom: the
/// half-width of a 95 % interval in standard errors.
pub fn t_975(df: usize) -> f64 {
    StudentsT::new(0.0, 1.0, df.max(1) as f64).map_or(f64::NAN, |t| t.inverse_cdf(0.975))
}

/// The mean of `xs` and the half-width of its 95 % interval (Student's t);
/// `None` for fewer than two values, where no interval exists.
pub fn mean_interval(xs: &[f64]) -> Option<(f64, f64)> {
    let n = xs.len();
    if n < 2 {
        return None;
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    Some((mean, t_975(n - 1) * (var / n as f64).sqrt()))
}

/// A paired comparison: the mean difference, its 95 % interval (Student's
/// t) and the two-sided p-value of the paired t statistic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Paired {
    pub n: usize,
    pub mean_difference: f64,
    pub ci95: f64,
    pub p_value: f64,
}

/// The paired t test on differences `d`; `None` below `MIN_PAIRED` pairs.
pub fn paired_t(d: &[f64]) -> Option<Paired> {
    let n = d.len();
    if n < MIN_PAIRED {
        return None;
    }
    let (mean, ci95) = mean_interval(d)?;
    let se = ci95 / t_975(n - 1);
    let p_value = if se == 0.0 {
        if mean == 0.0 { 1.0 } else { 0.0 }
    } else {
        let t = StudentsT::new(0.0, 1.0, (n - 1) as f64).ok()?;
        2.0 * (1.0 - t.cdf((mean / se).abs()))
    };
    Some(Paired {
        n,
        mean_difference: mean,
        ci95,
        p_value,
    })
}

/// A relative gain of arm A over arm B on a ratio figure (Σa / Σn, each
/// cluster a player or a tester seen under both arms): R_A / R_B − 1 and its
/// 95 % interval, made on the log scale by the delta method with each
/// cluster's paired influence, (a_i/Σa − n_i/Σn) − (b_i/Σb − m_i/Σm), so the
/// pairing's correlation is used and the interval never crosses −100 %.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gain {
    pub clusters: usize,
    pub gain: f64,
    /// `None` below `MIN_PAIRED` clusters ("too few"), or where either
    /// arm's figure is 0.
    pub ci: Option<(f64, f64)>,
}

impl Gain {
    /// better, worse or undecided: by whether the interval excludes 0.
    pub fn verdict(&self) -> &'static str {
        match self.ci {
            Some((lo, _)) if lo > 0.0 => "better",
            Some((_, hi)) if hi < 0.0 => "worse",
            _ => "undecided",
        }
    }
}

/// The paired gain of `a` over `b`, clusters in the same order; `None`
/// when either arm has nothing to divide by (no clusters, Σn = 0).
pub fn paired_gain(a: &[(f64, f64)], b: &[(f64, f64)]) -> Option<Gain> {
    let m = a.len().min(b.len());
    let sum = |x: &[(f64, f64)]| x[..m].iter().fold((0.0, 0.0), |s, c| (s.0 + c.0, s.1 + c.1));
    let ((sa, na), (sb, nb)) = (sum(a), sum(b));
    if m == 0 || na <= 0.0 || nb <= 0.0 {
        return None;
    }
    let gain = (sa / na) / (sb / nb) - 1.0;
    if m < MIN_PAIRED || sa <= 0.0 || sb <= 0.0 || !gain.is_finite() {
        return Some(Gain {
            clusters: m,
            gain,
            ci: None,
        });
    }
    let var = m as f64 / (m - 1) as f64
        * (0..m)
            .map(|i| ((a[i].0 / sa - a[i].1 / na) - (b[i].0 / sb - b[i].1 / nb)).powi(2))
            .sum::<f64>();
    let half = t_975(m - 1) * var.sqrt();
    let log = (gain + 1.0).ln();
    Some(Gain {
        clusters: m,
        gain,
        ci: Some(((log - half).exp() - 1.0, (log + half).exp() - 1.0)),
    })
}

/// A ratio of sums over clusters (players, or testers), Σa / Σn, and its
/// variance by the ratio estimator's formula, m/(m-1) Σ (a_i - R n_i)² /
/// (Σn)²: the clusters are independent, the sessions within one are not.
/// NaN with nothing to divide by; an infinite variance with one cluster.
pub fn clustered_ratio(clusters: &[(f64, f64)]) -> (f64, f64) {
    let (a, n) = clusters.iter().fold((0.0, 0.0), |s, c| (s.0 + c.0, s.1 + c.1));
    if n <= 0.0 {
        return (f64::NAN, f64::NAN);
    }
    let r = a / n;
    let m = clusters.len() as f64;
    let var = if m > 1.0 {
        m / (m - 1.0) * clusters.iter().map(|(ai, ni)| (ai - r * ni).powi(2)).sum::<f64>() / (n * n)
    } else {
        f64::INFINITY
    };
    (r, var)
}

/// A relative gain of arm A over arm B on a ratio figure when the arms'
/// clusters are different people (a playtest's testers each play one arm):
/// R_A / R_B − 1, each ratio's variance by the ratio estimator over its own
/// clusters (the sessions within a tester are not independent), the log
/// ratio's variance their sum, Student's t on the smaller arm's clusters
/// less one. `None` when either arm has nothing to divide by; no interval
/// below `MIN_PAIRED` clusters in either arm.
pub fn unpaired_gain(a: &[(f64, f64)], b: &[(f64, f64)]) -> Option<Gain> {
    let ratio = |x: &[(f64, f64)]| {
        let (r, var) = clustered_ratio(x);
        r.is_finite().then_some((r, var))
    };
    let ((ra, va), (rb, vb)) = (ratio(a)?, ratio(b)?);
    let gain = ra / rb - 1.0;
    let m = a.len().min(b.len());
    let ci = (m >= MIN_PAIRED && ra > 0.0 && rb > 0.0 && gain.is_finite()).then(|| {
        let half = t_975(m - 1) * (va / (ra * ra) + vb / (rb * rb)).sqrt();
        let log = (gain + 1.0).ln();
        ((log - half).exp() - 1.0, (log + half).exp() - 1.0)
    });
    Some(Gain {
        clusters: a.len() + b.len(),
        gain,
        ci,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unpaired_gain_is_defined_for_every_input() {
        assert_eq!(unpaired_gain(&[], &[(1.0, 1.0)]), None);
        assert_eq!(unpaired_gain(&[(1.0, 1.0)], &[(0.0, 0.0)]), None);
        let few = unpaired_gain(&[(3.0, 1.0)], &[(2.0, 1.0)]).unwrap();
        assert!((few.gain - 0.5).abs() < 1e-12 && few.ci.is_none());
        // Clusters of several sessions: the ratio is of sums, not a mean of
        // means, and its interval widens with the spread between testers.
        let a: Vec<(f64, f64)> = (0..20).map(|i| (f64::from(4 + i % 3) * 2.0, 2.0)).collect();
        let b: Vec<(f64, f64)> = (0..20).map(|i| (f64::from(3 + i % 3) * 3.0, 3.0)).collect();
        let g = unpaired_gain(&a, &b).unwrap();
        let r = |x: &[(f64, f64)]| x.iter().map(|c| c.0).sum::<f64>() / x.iter().map(|c| c.1).sum::<f64>();
        let (ra, rb) = (r(&a), r(&b));
        assert!((g.gain - (ra / rb - 1.0)).abs() < 1e-12);
        let (lo, hi) = g.ci.unwrap();
        assert!(lo < g.gain && g.gain < hi && lo > -1.0);
        // Against the formula: var(ln R) = var_A/R_A² + var_B/R_B².
        let var = |x: &[(f64, f64)], r: f64| {
            let n: f64 = x.iter().map(|c| c.1).sum();
            20.0 / 19.0 * x.iter().map(|(s, k)| (s - r * k).powi(2)).sum::<f64>() / (n * n)
        };
        let half = t_975(19) * (var(&a, ra) / (ra * ra) + var(&b, rb) / (rb * rb)).sqrt();
        assert!((hi - ((ra / rb).ln() + half).exp() + 1.0).abs() < 1e-12);
        assert_eq!(g.verdict(), if lo > 0.0 { "better" } else { "undecided" });
        // No spread at all: a decided gain with no width.
        let same = unpaired_gain(&[(2.0, 1.0); 12], &[(1.0, 1.0); 12]).unwrap();
        assert_eq!((same.gain, same.ci), (1.0, Some((1.0, 1.0))));
        assert_eq!(same.verdict(), "better");
    }

    #[test]
    fn a_paired_gain_is_defined_for_every_input() {
        assert_eq!(paired_gain(&[], &[]), None);
        assert_eq!(paired_gain(&[(1.0, 0.0)], &[(1.0, 0.0)]), None);
        let one = paired_gain(&[(3.0, 1.0)], &[(2.0, 1.0)]).unwrap();
        assert!((one.gain - 0.5).abs() < 1e-12 && one.ci.is_none());
        assert_eq!(one.verdict(), "undecided");
        // Too few clusters: a gain, no interval.
        let few = [(3.0, 1.0), (5.0, 1.0), (4.0, 1.0)];
        assert_eq!(paired_gain(&few, &few).unwrap().ci, None);
        // The same arm: no gain, no width.
        let x: Vec<(f64, f64)> = (0..12).map(|i| (f64::from(i % 5 + 2), 1.0)).collect();
        let same = paired_gain(&x, &x).unwrap();
        assert_eq!(same.gain, 0.0);
        assert_eq!(same.ci, Some((0.0, 0.0)));
        // Every cluster 10 % up: decided better, whatever the spread
        // between clusters (the pairing removes it).
        let a: Vec<(f64, f64)> = x.iter().map(|&(v, n)| (v * 1.1, n)).collect();
        let g = paired_gain(&a, &x).unwrap();
        assert!((g.gain - 0.1).abs() < 1e-12);
        let (lo, hi) = g.ci.unwrap();
        assert!((lo - 0.1).abs() < 1e-9 && (hi - 0.1).abs() < 1e-9, "{lo} {hi}");
        assert_eq!(g.verdict(), "better");
        // Against the plain formula for means (n = 1): the log ratio's
        // variance is that of a_i/Σa − b_i/Σb.
        let a: Vec<(f64, f64)> = [2.0, 6.0, 5.0, 3.0]
            .repeat(3)
            .into_iter()
            .map(|v| (v, 1.0))
            .collect();
        let b: Vec<(f64, f64)> = [3.0, 4.0, 4.0, 4.0]
            .repeat(3)
            .into_iter()
            .map(|v| (v, 1.0))
            .collect();
        let g = paired_gain(&a, &b).unwrap();
        assert!((g.gain - (16.0 / 15.0 - 1.0)).abs() < 1e-12);
        let d: Vec<f64> = (0..12).map(|i| a[i].0 / 48.0 - b[i].0 / 45.0).collect();
        let var = 12.0 / 11.0 * d.iter().map(|x| x * x).sum::<f64>();
        let (lo, hi) = g.ci.unwrap();
        let log = (16.0f64 / 15.0).ln();
        assert!((lo - ((log - t_975(11) * var.sqrt()).exp() - 1.0)).abs() < 1e-12);
        assert!(hi > g.gain && lo > -1.0);
        // An arm of zeros: a gain of −100 %, no interval on the log scale.
        let zero = paired_gain(&[(0.0, 1.0); 12], &[(1.0, 1.0); 12]).unwrap();
        assert_eq!((zero.gain, zero.ci), (-1.0, None));
    }

    #[test]
    fn t_quantiles_match_the_table() {
        assert!((t_975(1) - 12.706).abs() < 1e-3);
        assert!((t_975(9) - 2.262).abs() < 1e-3);
        assert!((t_975(1000) - 1.962).abs() < 1e-3);
    }

    #[test]
    fn no_interval_from_zero_or_one_value() {
        assert_eq!(mean_interval(&[]), None);
        assert_eq!(mean_interval(&[7.0]), None);
        let (m, h) = mean_interval(&[1.0, 3.0]).unwrap();
        assert_eq!(m, 2.0);
        // s = sqrt(2), se = 1, t(1) = 12.706: not the normal law's 1.96.
        assert!((h - 12.706).abs() < 1e-3, "{h}");
    }

    #[test]
    fn too_few_pairs_give_no_test_and_enough_give_students_t() {
        assert_eq!(paired_t(&[5.0, 6.0]), None, "two games never 'really differ'");
        assert_eq!(paired_t(&[1.0; MIN_PAIRED - 1]), None);
        let d: Vec<f64> = (0..10).map(|i| f64::from(i) - 3.0).collect();
        let p = paired_t(&d).unwrap();
        assert_eq!(p.n, 10);
        assert!((p.mean_difference - 1.5).abs() < 1e-12);
        // sd of 0..9 is 3.0277, se 0.9574; t = 1.567 on 9 df: p = 0.1516.
        assert!((p.p_value - 0.1516).abs() < 1e-3, "{}", p.p_value);
        let same = paired_t(&[0.0; 12]).unwrap();
        assert_eq!(same.p_value, 1.0);
    }
}
