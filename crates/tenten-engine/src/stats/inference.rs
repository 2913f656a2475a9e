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

#[cfg(test)]
mod tests {
    use super::*;

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
