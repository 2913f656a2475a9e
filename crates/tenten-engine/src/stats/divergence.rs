//! How far dealt pieces drift from the weights that dealt them: Pearson's
//! chi-square and the Kullback-Leibler divergence. Pieces of weight 0 are
//! never dealt and left out; nothing dealt is no evidence (0, not 0/0).

/// The count observed and the total weight; `None` when either is 0.
fn totals(observed: &[u64], weights: &[u32]) -> Option<(u64, f64)> {
    let n: u64 = observed.iter().sum();
    let total: f64 = weights.iter().map(|&w| f64::from(w)).sum();
    (n > 0 && total > 0.0).then_some((n, total))
}

/// Pearson's chi-square of observed counts against `weights`.
pub fn chi_square(observed: &[u64], weights: &[u32]) -> f64 {
    let Some((n, total)) = totals(observed, weights) else {
        return 0.0;
    };
    weights
        .iter()
        .zip(observed)
        .filter(|(w, _)| **w > 0)
        .map(|(&w, &o)| {
            let e = n as f64 * f64::from(w) / total;
            (o as f64 - e).powi(2) / e
        })
        .sum()
}

/// Kullback-Leibler divergence (nats) of the observed frequencies from
/// `weights`.
pub fn kl_divergence(observed: &[u64], weights: &[u32]) -> f64 {
    let Some((n, total)) = totals(observed, weights) else {
        return 0.0;
    };
    weights
        .iter()
        .zip(observed)
        .filter(|(w, o)| **w > 0 && **o > 0)
        .map(|(&w, &o)| {
            let q = o as f64 / n as f64;
            q * (q / (f64::from(w) / total)).ln()
        })
        .sum::<f64>()
        // Never below 0, as KL is not; rounding could make it -1e-17.
        .max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_in_proportion_to_the_weights_do_not_drift_and_nothing_dealt_is_no_evidence() {
        let w = [1, 2, 0, 7];
        assert_eq!(chi_square(&[10, 20, 0, 70], &w), 0.0);
        assert!(kl_divergence(&[10, 20, 0, 70], &w).abs() < 1e-12);
        assert_eq!((chi_square(&[0; 4], &w), kl_divergence(&[0; 4], &w)), (0.0, 0.0));
        assert_eq!(chi_square(&[1, 2], &[0, 0]), 0.0);
        // All on one piece: both see it.
        assert!(chi_square(&[100, 0, 0, 0], &w) > 100.0);
        assert!((kl_divergence(&[100, 0, 0, 0], &w) - 10f64.ln()).abs() < 1e-12);
    }
}
