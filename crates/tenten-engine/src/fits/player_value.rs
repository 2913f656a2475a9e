//! Fitting value choice (McFadden's conditional logit) to a log: the β of
//! the criteria that are free and the slip, by maximum likelihood with
//! L-BFGS (argmin) on analytic gradients. Without slips the log-likelihood
//! is concave in β; the slip enters through its logit. Every interval is
//! the profile likelihood's (`profile`): a criterion the moves do not
//! inform has a flat profile, so a wide (or unbounded) interval.

use argmin::core::{CostFunction, Error, Executor, Gradient, State};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use rayon::prelude::*;

use crate::fits::player::{Decision, Decisions, SlipLaw};
use crate::play::coelho::CoelhoWeights;
use crate::play::player::{Choice, Lookahead, Player};

/// How far a profile probes a scaled weight: e^FAR between options one
/// standard deviation apart is a hard maximum.
const FAR: f64 = 1e4;

/// The normal quantile of a two-sided 95 % interval.
const Z_95: f64 = 1.959_963_984_540_054;

/// The criteria's names, in order (for messages and the window).
pub const CRITERIA: [&str; 5] = ["free cells", "5x5 square", "large pieces", "alignment", "surface"];

/// A value fit: β and slip with their intervals.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueFit {
    pub beta: [f64; 5],
    /// 95 % intervals; (0, 0) for a criterion held at zero.
    pub beta_ci: [(f64, f64); 5],
    /// Which criteria were fitted (the rest held at zero).
    pub free: [bool; 5],
    pub slip: f64,
    pub slip_ci: (f64, f64),
    pub moves: usize,
    pub unexplained: usize,
    pub loglik: f64,
}

/// The log-likelihood and its gradient over the free β (scaled) and the
/// slip's logit.
#[derive(Clone)]
struct Problem<'a> {
    decisions: &'a [Decision],
    free: Vec<usize>,
    /// Each criterion's scale: the fit works on f / scale, so the free-cell
    /// count (0 to 100) and the shares (0 to 1) are steps of one size.
    scale: [f64; 5],
    /// One coordinate of the full θ held at a value (a profile), the rest
    /// fitted.
    fixed: Option<(usize, f64)>,
    /// The last point's value and gradient: argmin asks for the cost and
    /// the gradient of one point in two calls, and each is a pass over
    /// every option of every move.
    memo: Memo,
}

/// A point θ, its log-likelihood and gradient.
type Evaluated = (Vec<f64>, f64, Vec<f64>);

/// The last θ evaluated and its (log-likelihood, gradient); a clone starts
/// empty.
#[derive(Default)]
struct Memo(std::sync::Mutex<Option<Evaluated>>);

impl Clone for Memo {
    fn clone(&self) -> Self {
        Memo::default()
    }
}

fn logistic(u: f64) -> f64 {
    1.0 / (1.0 + (-u).exp())
}

impl<'a> Problem<'a> {
    /// The log-likelihood of `decisions` with the criteria `free` fitted.
    fn new(decisions: &'a [Decision], free: [bool; 5]) -> Self {
        Problem {
            decisions,
            free: (0..5).filter(|&j| free[j]).collect(),
            scale: scales(decisions),
            fixed: None,
            memo: Memo::default(),
        }
    }

    fn beta(&self, theta: &[f64]) -> [f64; 5] {
        let mut b = [0.0; 5];
        for (k, &j) in self.free.iter().enumerate() {
            b[j] = theta[k] / self.scale[j];
        }
        b
    }

    /// (log-likelihood, gradient) at θ = (scaled free β, logit slip), or
    /// at θ = scaled free β with the slip fixed.
    fn value_and_gradient(&self, theta: &[f64]) -> (f64, Vec<f64>) {
        let mut memo = self.memo.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, ll, g)) = memo.as_ref()
            && at.as_slice() == theta
        {
            return (*ll, g.clone());
        }
        let (ll, g) = self.fresh_value_and_gradient(theta);
        *memo = Some((theta.to_vec(), ll, g.clone()));
        (ll, g)
    }

    fn fresh_value_and_gradient(&self, theta: &[f64]) -> (f64, Vec<f64>) {
        if let Some((i, v)) = self.fixed {
            let mut full = theta.to_vec();
            full.insert(i, v);
            let (ll, mut g) = self.full_value_and_gradient(&full);
            g.remove(i);
            return (ll, g);
        }
        self.full_value_and_gradient(theta)
    }

    fn full_value_and_gradient(&self, theta: &[f64]) -> (f64, Vec<f64>) {
        let beta = self.beta(theta);
        let u = theta[self.free.len()];
        let slip = logistic(u);
        let k = self.free.len();
        // Summed in order, so a fit is the same on any number of cores.
        let parts: Vec<(f64, [f64; 6])> = self
            .decisions
            .par_iter()
            .map(|d| self.one(d, &beta, slip, k))
            .collect();
        let (mut ll, mut g) = (0.0, vec![0.0; k + 1]);
        for (b, gb) in parts {
            ll += b;
            g.iter_mut().zip(gb).for_each(|(x, y)| *x += y);
        }
        (ll, g)
    }

    /// One decision's log-chance and its gradient (the first k + 1 of six).
    fn one(&self, d: &Decision, beta: &[f64; 5], slip: f64, k: usize) -> (f64, [f64; 6]) {
        use crate::play::player::dot;
        let top = d
            .options
            .iter()
            .map(|o| dot(beta, &o.features))
            .fold(f64::NEG_INFINITY, f64::max);
        let (mut z, mut a, mut b) = (0.0, 0.0, 0.0);
        let (mut sz, mut sa, mut sb) = ([0.0; 5], [0.0; 5], [0.0; 5]);
        for o in &d.options {
            let w = (dot(beta, &o.features) - top).exp();
            z += o.all * w;
            a += o.chosen * w;
            b += o.piece * w;
            for j in 0..5 {
                sz[j] += o.all * w * o.features[j];
                sa[j] += o.chosen * w * o.features[j];
                sb[j] += o.piece * w * o.features[j];
            }
        }
        let (c, pp) = (a / z, b / z);
        let (q, dq_of) = match d.slip {
            SlipLaw::AnyMove(q) => (q, 0.0),
            SlipLaw::PlannedPiece(q) => (q * pp, q),
        };
        let p = d.slip.mix((c, pp), slip);
        let mut g = [0.0; 6];
        for (gi, &j) in g.iter_mut().zip(&self.free) {
            let dc = (sa[j] - c * sz[j]) / z;
            let dpp = (sb[j] - pp * sz[j]) / z;
            // d/dθ of f·β where β_j = θ / scale_j.
            *gi = ((1.0 - slip) * dc + slip * dq_of * dpp) / p / self.scale[j];
        }
        g[k] = (q - c) * slip * (1.0 - slip) / p;
        (p.ln(), g)
    }
}

impl CostFunction for Problem<'_> {
    type Param = Vec<f64>;
    type Output = f64;
    // Per move: steps of one size whatever the log's length (summed, the
    // first gradient step of a long log leaps to where the softmax is
    // saturated and flat, and the search stops there).
    fn cost(&self, theta: &Vec<f64>) -> Result<f64, Error> {
        Ok(-self.value_and_gradient(theta).0 / self.decisions.len().max(1) as f64)
    }
}

impl Gradient for Problem<'_> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;
    fn gradient(&self, theta: &Vec<f64>) -> Result<Vec<f64>, Error> {
        let n = self.decisions.len().max(1) as f64;
        Ok(self.value_and_gradient(theta).1.iter().map(|g| -g / n).collect())
    }
}

/// Each criterion's spread over the options, the scale the fit works on.
fn scales(decisions: &[Decision]) -> [f64; 5] {
    let mut n = 0.0;
    let (mut sum, mut sq) = ([0.0; 5], [0.0; 5]);
    for o in decisions.iter().flat_map(|d| &d.options) {
        n += o.all;
        for j in 0..5 {
            sum[j] += o.all * o.features[j];
            sq[j] += o.all * o.features[j] * o.features[j];
        }
    }
    std::array::from_fn(|j| {
        let mean = sum[j] / n.max(1.0);
        let sd = (sq[j] / n.max(1.0) - mean * mean).max(0.0).sqrt();
        if sd > 1e-9 { sd } else { 1.0 }
    })
}

/// The maximum-likelihood β and slip alone, without intervals (a fold
/// of a comparison needs only the point).
pub fn fit_value_point(all: &Decisions, free: [bool; 5]) -> ([f64; 5], f64) {
    let problem = Problem::new(&all.list, free);
    let k = problem.free.len();
    let mut start = vec![0.0; k + 1];
    start[k] = (0.05f64 / 0.95).ln();
    let theta = minimise(&problem, start.clone()).unwrap_or(start);
    (problem.beta(&theta), logistic(theta[k]))
}

/// The maximum-likelihood θ (the free β, then the slip's logit) with each
/// one's standard error: a tester's fit in a population (`population::fit`).
pub fn fit_value_working(all: &Decisions, free: [bool; 5]) -> (Vec<f64>, Vec<f64>) {
    let problem = Problem::new(&all.list, free);
    let k = problem.free.len();
    let mut start = vec![0.0; k + 1];
    start[k] = (0.05f64 / 0.95).ln();
    let theta = minimise(&problem, start.clone()).unwrap_or(start);
    let se = standard_errors(&problem, &theta);
    (theta, se)
}

/// Fits value choice to `decisions` with the criteria `free` fitted and
/// the others held at zero.
pub fn fit_value(all: &Decisions, free: [bool; 5]) -> ValueFit {
    let decisions = all.list.as_slice();
    let problem = Problem::new(decisions, free);
    let k = problem.free.len();
    let mut start = vec![0.0; k + 1];
    start[k] = (0.05f64 / 0.95).ln();
    let theta = minimise(&problem, start.clone()).unwrap_or(start);
    let (loglik, _) = problem.value_and_gradient(&theta);
    // The observed information's standard errors set the profiles' first
    // steps; the intervals are the profiles'.
    let sd = standard_errors(&problem, &theta);
    let first = |i: usize| {
        if sd[i].is_finite() && sd[i] > 1e-6 {
            Z_95 * sd[i]
        } else {
            1.0
        }
    };
    let beta = problem.beta(&theta);
    let mut beta_ci = [(0.0, 0.0); 5];
    for (i, &j) in problem.free.iter().enumerate() {
        // A scaled weight of FAR is a hard maximum on that criterion: a
        // profile still inside the cut there never leaves it (and further
        // out the other criteria drown in rounding).
        let far = FAR.max(2.0 * theta[i].abs());
        let (lo, hi) = profile(&problem, &theta, loglik, i, first(i), (-far, far));
        let open = |x: f64| {
            if x.abs() >= far {
                x.signum() * f64::INFINITY
            } else {
                x
            }
        };
        beta_ci[j] = (open(lo) / problem.scale[j], open(hi) / problem.scale[j]);
    }
    let u = theta[k];
    // Slips from 1e-5 to 1 - 1e-5; an end reaching one reads as 0 or 1.
    let (lo, hi) = profile(
        &problem,
        &theta,
        loglik,
        k,
        first(k),
        ((-11.5f64).min(u), 11.5f64.max(u)),
    );
    let slip_end = |x: f64, edge: f64, v: f64| if x == edge { v } else { logistic(x) };
    ValueFit {
        beta,
        beta_ci,
        free,
        slip: logistic(u),
        slip_ci: (
            slip_end(lo, (-11.5f64).min(u), 0.0),
            slip_end(hi, 11.5f64.max(u), 1.0),
        ),
        moves: decisions.len(),
        unexplained: all.unexplained,
        loglik,
    }
}

/// The 95 % profile-likelihood interval of θ's coordinate `i`: where the
/// log-likelihood, maximised over the others with it held, stays within
/// 1.92 of the maximum. Each end is bracketed by doubling steps from the
/// estimate (infinite when 40 doublings never leave the cut: the data do
/// not bound it), then found by regula falsi. Profiles, not the observed
/// information's Wald intervals: the slip trades off against how sharp the
/// choice is, and the likelihood is far from quadratic there (the slip's
/// information vanishes near 0).
fn profile(
    problem: &Problem,
    theta: &[f64],
    best: f64,
    i: usize,
    step: f64,
    limits: (f64, f64),
) -> (f64, f64) {
    let cut = best - crate::fits::player::CHI2_95 / 2.0;
    // Each point's inner fit starts where the last one ended: the profile
    // moves a little at a time, so the others' optimum does too.
    let warm = std::cell::RefCell::new({
        let mut start = theta.to_vec();
        start.remove(i);
        start
    });
    let at = |v: f64| -> f64 {
        let held = Problem {
            fixed: Some((i, v)),
            ..problem.clone()
        };
        let fit_from = |start: Vec<f64>| {
            let b = if start.is_empty() {
                start
            } else {
                minimise(&held, start.clone()).unwrap_or(start)
            };
            (held.value_and_gradient(&b).0, b)
        };
        let (mut ll, mut b) = fit_from(warm.borrow().clone());
        if ll < cut {
            // Outside, says the warm start. Any start gives a lower bound
            // on the profile, so "inside" is certain and "outside" is
            // checked from the estimate: a warm start can stall on a flat
            // ridge (or where the softmax saturates), and an end placed
            // there would narrow the interval. The profile is the higher.
            let mut cold = theta.to_vec();
            cold.remove(i);
            let (ll_cold, b_cold) = fit_from(cold);
            if ll_cold > ll {
                (ll, b) = (ll_cold, b_cold);
            }
        }
        *warm.borrow_mut() = b;
        ll
    };
    let end = |sign: f64, limit: f64| -> f64 {
        *warm.borrow_mut() = {
            let mut start = theta.to_vec();
            start.remove(i);
            start
        };
        // (point, profile log-likelihood above the cut): inside >= 0 > outside.
        let (mut inside, mut outside) = ((theta[i], best - cut), None);
        let mut d = step;
        for _ in 0..40 {
            let v = theta[i] + sign * d;
            if sign * (v - limit) >= 0.0 {
                let g = at(limit) - cut;
                if g >= 0.0 {
                    return limit;
                }
                outside = Some((limit, g));
                break;
            }
            let g = at(v) - cut;
            if g < 0.0 {
                outside = Some((v, g));
                break;
            }
            inside = (v, g);
            d *= 2.0;
        }
        let Some(mut outside) = outside else {
            return sign * f64::INFINITY;
        };
        // The crossing by regula falsi, Illinois' variant (the end kept
        // twice running has its value halved): the profile is smooth, so
        // a few steps find what bisection took twelve for, and closer.
        let width = (outside.0 - inside.0).abs();
        let mut kept = 0i8;
        for _ in 0..24 {
            if (outside.0 - inside.0).abs() <= width * 1e-6 {
                break;
            }
            let x = inside.0 - inside.1 * (outside.0 - inside.0) / (outside.1 - inside.1);
            let g = at(x) - cut;
            if g.abs() < 1e-9 {
                return x;
            }
            if g >= 0.0 {
                inside = (x, g);
                if kept == 1 {
                    outside.1 /= 2.0;
                }
                kept = 1;
            } else {
                outside = (x, g);
                if kept == -1 {
                    inside.1 /= 2.0;
                }
                kept = -1;
            }
        }
        (inside.0 + outside.0) / 2.0
    };
    (end(-1.0, limits.0), end(1.0, limits.1))
}

fn minimise(problem: &Problem, start: Vec<f64>) -> Option<Vec<f64>> {
    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7)
        .with_tolerance_grad(1e-9)
        .ok()?
        .with_tolerance_cost(1e-12)
        .ok()?;
    let result = Executor::new(problem.clone(), solver)
        .configure(|s| s.param(start).max_iters(300))
        .run()
        .ok()?;
    result.state().get_best_param().cloned()
}

/// The standard errors of θ: the square roots of the inverse observed
/// information's diagonal; infinite where the information is singular.
fn standard_errors(problem: &Problem, theta: &[f64]) -> Vec<f64> {
    let n = theta.len();
    let mut h = nalgebra::DMatrix::<f64>::zeros(n, n);
    for j in 0..n {
        let step = 1e-4 * theta[j].abs().max(1.0);
        let (mut up, mut down) = (theta.to_vec(), theta.to_vec());
        up[j] += step;
        down[j] -= step;
        let (gu, gd) = (
            problem.value_and_gradient(&up).1,
            problem.value_and_gradient(&down).1,
        );
        for i in 0..n {
            // The information is minus the log-likelihood's Hessian.
            h[(i, j)] = -(gu[i] - gd[i]) / (2.0 * step);
        }
    }
    let h = (&h + h.transpose()) / 2.0;
    match h.clone().cholesky() {
        Some(c) => {
            let cov = c.inverse();
            (0..n).map(|i| cov[(i, i)].max(0.0).sqrt()).collect()
        }
        None => {
            // Not positive definite: a direction the data leave flat.
            let cov = h.try_inverse();
            (0..n)
                .map(|i| match &cov {
                    Some(c) if c[(i, i)] > 0.0 && c[(i, i)].is_finite() => c[(i, i)].sqrt(),
                    _ => f64::INFINITY,
                })
                .collect()
        }
    }
}

impl ValueFit {
    /// The line `tenten fit-player --model value` prints (`top1` from the
    /// fit's check).
    pub fn line(&self, top1: f64) -> String {
        let list = |xs: [String; 5]| xs.join(",");
        format!(
            "model=value beta={} beta_ci={} slip={:.4} slip_ci={:.4},{:.4} moves={} loglik={:.2} loglik_per_move={:.4} top1={:.3}",
            list(self.beta.map(|b| format!("{b:.4}"))),
            list(
                self.beta_ci
                    .map(|(lo, hi)| format!("{}:{}", bound(lo), bound(hi)))
            ),
            self.slip,
            self.slip_ci.0,
            self.slip_ci.1,
            self.moves,
            self.loglik,
            self.loglik / self.moves.max(1) as f64,
            top1
        )
    }

    /// The fitted player, rounded as printed.
    pub fn player(&self, name: &str, lookahead: Lookahead) -> Player {
        let round = |x: f64| (x * 1e4).round() / 1e4;
        Player {
            name: name.to_owned(),
            choice: Choice::Value,
            evaluation: CoelhoWeights::BEST,
            beta: self.beta.map(round),
            lookahead,
            temperature: 0.0,
            slip: round(self.slip),
        }
    }

    /// The fitted player as a file, its comment saying what it was fitted
    /// to and how sure the fit is.
    pub fn player_file(&self, source: &str, name: &str, lookahead: Lookahead) -> String {
        let cis: Vec<String> = (0..5)
            .map(|j| {
                if self.free[j] {
                    format!(
                        "{} {}..{}",
                        CRITERIA[j],
                        bound(self.beta_ci[j].0),
                        bound(self.beta_ci[j].1)
                    )
                } else {
                    format!("{} held at 0", CRITERIA[j])
                }
            })
            .collect();
        format!(
            "// Fitted to {source}: {} moves, value choice by maximum likelihood (log-likelihood {:.1});\n\
             // beta 95 % CI (profile likelihood): {};\n\
             // slip 95 % CI {:.4} to {:.4}; {} moves the model cannot make, left out of the fit.\n\
             // A model of the logged play, not a measurement of a person.\n{}",
            self.moves,
            self.loglik,
            cis.join(", "),
            self.slip_ci.0,
            self.slip_ci.1,
            self.unexplained,
            self.player(name, lookahead).to_ron()
        )
    }
}

/// An interval's end as printed: "inf" when the data cannot bound it.
fn bound(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.4}")
    } else if x > 0.0 {
        "inf".to_owned()
    } else {
        "-inf".to_owned()
    }
}

/// The log-chance of one decision's move under value choice at (β, slip).
pub fn log_chance(d: &Decision, beta: &[f64; 5], slip: f64) -> f64 {
    let weights = crate::play::player::logit_weights(d.options.iter().map(|o| &o.features), beta);
    let mut w = weights.iter();
    let c = d.chances(|_| *w.next().unwrap_or(&0.0));
    d.with_slip(c, slip).ln()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::classic;
    use crate::play::player::Lookahead;
    use crate::progress::Progress;

    /// The analytic gradient is the log-likelihood's: central differences
    /// agree at points away from the optimum, for piece and planner logs.
    #[test]
    fn the_gradient_is_the_log_likelihoods() {
        let (set, shapes) = classic();
        let mut player = crate::play::player::preset("casual").unwrap();
        player.slip = 0.1;
        let log = crate::fits::player::record(&shapes, &set, 3, &player, 5, 40);
        let piece = crate::fits::player::piece_decisions(
            &shapes,
            CoelhoWeights::BEST,
            &log,
            &[],
            &Progress::default(),
        )
        .unwrap();
        let holder = crate::fits::player::holder_decisions(
            &shapes,
            CoelhoWeights::BEST,
            &log[..8],
            &[],
            &Progress::default(),
        )
        .unwrap();
        for (d, look) in [(&piece, Lookahead::Piece), (&holder, Lookahead::Holder)] {
            let problem = Problem::new(&d.list, [true; 5]);
            let theta = vec![0.3, -0.2, 0.5, 0.1, 0.4, -1.5];
            let (_, g) = problem.value_and_gradient(&theta);
            for j in 0..theta.len() {
                let h = 1e-5;
                let (mut up, mut down) = (theta.clone(), theta.clone());
                up[j] += h;
                down[j] -= h;
                let numeric =
                    (problem.value_and_gradient(&up).0 - problem.value_and_gradient(&down).0) / (2.0 * h);
                assert!(
                    (numeric - g[j]).abs() < 1e-4 * (1.0 + numeric.abs()),
                    "{look:?} {j}: {numeric} vs {}",
                    g[j]
                );
            }
        }
    }

    /// Each finite end of a β's interval is where the profile crosses the
    /// cut: refitted from a cold start (the estimate), the others' optimum
    /// with that β held there is 1.92 below the maximum (the profile's
    /// inner fits start warm, from the last point's).
    #[test]
    fn each_interval_end_is_on_the_profiles_cut() {
        let (set, shapes) = classic();
        // A value player's own log: the model is right, the profiles smooth.
        let player = Player {
            name: "v".to_owned(),
            choice: Choice::Value,
            evaluation: CoelhoWeights::BEST,
            beta: [0.2, 1.0, 0.5, 2.0, 3.0],
            lookahead: Lookahead::Piece,
            temperature: 0.0,
            slip: 0.05,
        };
        let log = crate::fits::player::record(&shapes, &set, 3, &player, 30, 120);
        let d = crate::fits::player::piece_decisions(
            &shapes,
            CoelhoWeights::BEST,
            &log,
            &[],
            &Progress::default(),
        )
        .unwrap();
        let fit = fit_value(&d, [true; 5]);
        let problem = Problem::new(&d.list, [true; 5]);
        let mut theta: Vec<f64> = (0..5).map(|j| fit.beta[j] * problem.scale[j]).collect();
        theta.push((fit.slip / (1.0 - fit.slip)).ln());
        let cut = fit.loglik - crate::fits::player::CHI2_95 / 2.0;
        let mut ends = 0;
        for j in 0..5 {
            for end in [fit.beta_ci[j].0, fit.beta_ci[j].1] {
                if !end.is_finite() {
                    continue;
                }
                let held = Problem {
                    fixed: Some((j, end * problem.scale[j])),
                    ..problem.clone()
                };
                let mut start = theta.clone();
                start.remove(j);
                let b = minimise(&held, start.clone()).unwrap_or(start);
                let ll = held.value_and_gradient(&b).0;
                // Within 0.1 % of the cut's depth: the inner fits stop at
                // L-BFGS's tolerance, from different starts.
                assert!(
                    (ll - cut).abs() < 1e-3,
                    "β{j} end {end}: {ll} against the cut {cut}"
                );
                ends += 1;
            }
        }
        assert!(ends >= 6, "only {ends} finite ends");
    }
}
