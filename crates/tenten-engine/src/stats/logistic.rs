//! Logistic regression by iteratively reweighted least squares (Newton's
//! method on the log-likelihood), with the coefficients' covariance from
//! the Fisher information. A column that never varies (no unfair loss in
//! the data, say) cannot be estimated: its coefficient is 0 with an
//! infinite standard error, said rather than guessed. Complete separation
//! (every quit predicted exactly) stops the iteration with large
//! coefficients and large standard errors.

/// A fitted logistic regression.
#[derive(Clone, Debug, PartialEq)]
pub struct Logistic {
    pub coefficients: Vec<f64>,
    /// The coefficients' covariance (infinite on a column that never varies).
    pub covariance: Vec<Vec<f64>>,
    pub rows: usize,
    pub loglik: f64,
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// `a`⁻¹ `b` (nalgebra's LU); `None` when `a` is singular.
fn solve(a: &[Vec<f64>], b: &[f64]) -> Option<Vec<f64>> {
    let n = a.len();
    let m = nalgebra::DMatrix::from_fn(n, n, |i, j| a[i][j]);
    let x = m.lu().solve(&nalgebra::DVector::from_column_slice(b))?;
    Some(x.iter().copied().collect())
}

/// `a`⁻¹; `None` when singular.
fn inverse(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let m = nalgebra::DMatrix::from_fn(n, n, |i, j| a[i][j]).try_inverse()?;
    Some((0..n).map(|i| (0..n).map(|j| m[(i, j)]).collect()).collect())
}

/// Fits P(y) = logistic(x · β) to rows (x, y); x's first entry is usually
/// 1 (the intercept). `None` with no rows.
pub fn fit(rows: &[(Vec<f64>, bool)]) -> Option<Logistic> {
    let k = rows.first()?.0.len();
    // Columns that vary: the others are held at 0.
    let varies: Vec<bool> = (0..k)
        .map(|j| {
            let first = rows[0].0[j];
            (j == 0 && first != 0.0) || rows.iter().any(|r| r.0[j] != first)
        })
        .collect();
    let cols: Vec<usize> = (0..k).filter(|&j| varies[j]).collect();
    let m = cols.len();
    let mut beta = vec![0.0; m];
    let mut info = vec![vec![0.0; m]; m];
    for _ in 0..100 {
        let mut grad = vec![0.0; m];
        info = vec![vec![0.0; m]; m];
        for (x, y) in rows {
            let eta: f64 = cols.iter().zip(&beta).map(|(&j, b)| x[j] * b).sum();
            let p = sigmoid(eta);
            let w = (p * (1.0 - p)).max(1e-12);
            for (a, &ja) in cols.iter().enumerate() {
                grad[a] += x[ja] * (f64::from(u8::from(*y)) - p);
                for (b, &jb) in cols.iter().enumerate() {
                    info[a][b] += w * x[ja] * x[jb];
                }
            }
        }
        let Some(step) = solve(&info, &grad) else {
            break;
        };
        let mut largest: f64 = 0.0;
        for (b, s) in beta.iter_mut().zip(&step) {
            *b += s;
            largest = largest.max(s.abs());
        }
        // Separation drives the coefficients off to infinity: stop there.
        if largest < 1e-10 || beta.iter().any(|b| b.abs() > 30.0) {
            break;
        }
    }
    let inverse = inverse(&info).unwrap_or_else(|| vec![vec![f64::INFINITY; m]; m]);
    let mut coefficients = vec![0.0; k];
    let mut covariance = vec![vec![0.0; k]; k];
    for j in 0..k {
        if !varies[j] {
            covariance[j][j] = f64::INFINITY;
        }
    }
    for (a, &ja) in cols.iter().enumerate() {
        coefficients[ja] = beta[a];
        for (b, &jb) in cols.iter().enumerate() {
            covariance[ja][jb] = inverse[a][b];
        }
    }
    let loglik = rows
        .iter()
        .map(|(x, y)| {
            let eta: f64 = x.iter().zip(&coefficients).map(|(a, b)| a * b).sum();
            let p = sigmoid(eta).clamp(1e-300, 1.0 - 1e-16);
            if *y { p.ln() } else { (1.0 - p).ln() }
        })
        .sum();
    Some(Logistic {
        coefficients,
        covariance,
        rows: rows.len(),
        loglik,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::generator::Generator;

    #[test]
    fn recovers_coefficients_within_their_intervals() {
        let truth = [-1.2, 0.9, -0.3];
        let mut rng = Generator::new(5);
        let rows: Vec<(Vec<f64>, bool)> = (0..4000)
            .map(|_| {
                let x = vec![
                    1.0,
                    f64::from(u8::from(rng.unit() < 0.3)),
                    (1.0 + 200.0 * rng.unit()).ln(),
                ];
                let p = sigmoid(x.iter().zip(&truth).map(|(a, b)| a * b).sum());
                (x, rng.unit() < p)
            })
            .collect();
        let f = fit(&rows).unwrap();
        for (j, t) in truth.iter().enumerate() {
            let se = f.covariance[j][j].sqrt();
            assert!((f.coefficients[j] - t).abs() < 2.6 * se, "{j}: {f:?}");
        }
    }

    #[test]
    fn a_column_that_never_varies_is_unknown_not_zero_with_confidence() {
        let rows: Vec<(Vec<f64>, bool)> = (0..50)
            .map(|i| (vec![1.0, 0.0, f64::from(i)], i % 3 == 0))
            .collect();
        let f = fit(&rows).unwrap();
        assert_eq!(f.coefficients[1], 0.0);
        assert!(f.covariance[1][1].is_infinite());
        assert!(f.covariance[0][0].is_finite());
        assert_eq!(fit(&[]), None);
        // Separation ends, finite or not, without a panic.
        let sep: Vec<(Vec<f64>, bool)> = (0..20).map(|i| (vec![1.0, f64::from(i)], i >= 10)).collect();
        assert!(fit(&sep).is_some());
        // One row.
        assert!(fit(&[(vec![1.0], true)]).is_some());
    }
}
