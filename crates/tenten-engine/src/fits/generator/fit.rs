//! One model of a generator fitted to deals by maximum likelihood: EM on
//! the complete data (every piece drawn, copies of the previous piece
//! marked), which climbs the exact likelihood of `likelihood` at every
//! step; 95 % intervals from the outer product of each deal's score (the
//! Fisher identity gives it from the same counts), on the logit scale of
//! each share so they stay inside 0 to 1.

use rayon::prelude::*;

use crate::fits::generator::boards::Boards;
use crate::fits::generator::deals::Seen;
use crate::fits::generator::likelihood::{self, Check, Deal, Fallback, Law, Stats};
use crate::progress::Progress;

/// The normal quantile of a two-sided 95 % interval.
pub const Z_95: f64 = 1.959_963_984_540_054;

/// EM stops when a step gains less than this much log-likelihood: far
/// below what a likelihood-ratio test or AIC can tell apart (EM creeps
/// when an estimate sits at a bound, as a repeat chance of 0 does).
const TOLERANCE: f64 = 1e-3;
/// At most this many EM steps (each a pass over every deal).
pub const MAX_STEPS: usize = 2_000;

/// A model's rules: its check and which adaptive rules it has.
#[derive(Clone, Debug, PartialEq)]
pub struct Rules {
    pub check: Check,
    pub repeat: bool,
    /// The fill bands' upper ends (the last 1.0); empty: one set of weights.
    pub bands: Vec<f64>,
    /// Mercy after this many rounds in a row without a clear.
    pub mercy: Option<u32>,
}

impl Rules {
    pub fn plain(check: Check) -> Self {
        Rules {
            check,
            repeat: false,
            bands: Vec::new(),
            mercy: None,
        }
    }

    /// Sets of weights: one per band, each with and without mercy.
    pub fn contexts(&self) -> usize {
        self.bands.len().max(1) * if self.mercy.is_some() { 2 } else { 1 }
    }

    /// The set of weights a deal is dealt from.
    pub fn context(&self, d: &Seen) -> usize {
        let band = if self.bands.is_empty() {
            0
        } else {
            self.bands
                .iter()
                .position(|&u| d.fill <= u + 1e-12)
                .unwrap_or(self.bands.len() - 1)
        };
        match self.mercy {
            Some(k) => band * 2 + usize::from(d.dry_rounds.is_some_and(|r| r >= k)),
            None => band,
        }
    }

    /// Which policy index of `Boards::policies` the check reads.
    fn policy_index(&self, boards: &Boards) -> usize {
        match self.check {
            Check::Repair { policy, .. } => boards.policies.iter().position(|&p| p == policy).unwrap_or(0),
            _ => 0,
        }
    }
}

/// A model fitted.
#[derive(Clone, Debug, PartialEq)]
pub struct Fitted {
    pub rules: Rules,
    /// Each context's shares of the pieces (summing to 1).
    pub weights: Vec<Vec<f64>>,
    /// Each share's 95 % interval; a piece never dealt in a context has
    /// (0, its 95 % upper bound). Empty for a fold's fit (`fit_point`).
    pub intervals: Vec<Vec<(f64, f64)>>,
    pub repeat: Option<f64>,
    /// (NaN, NaN) for a fold's fit.
    pub repeat_ci: (f64, f64),
    pub loglik: f64,
    /// Free parameters.
    pub params: usize,
    pub deals: usize,
    /// Deals the model cannot deal (chance 0): unsolvable holders dealt
    /// where the check would have fixed them.
    pub impossible: usize,
    pub steps: usize,
    pub converged: bool,
}

/// The shares each context starts from: the pieces dealt in it.
fn dealt_shares(deals: &[Seen], rules: &Rules, n: usize) -> Vec<Vec<f64>> {
    let mut counts = vec![vec![0.0; n]; rules.contexts()];
    for d in deals {
        let c = rules.context(d);
        for &p in &d.holder {
            counts[c][usize::from(p)] += 1.0;
        }
    }
    counts.into_iter().map(normalised).collect()
}

fn normalised(mut v: Vec<f64>) -> Vec<f64> {
    let t: f64 = v.iter().sum();
    if t > 0.0 {
        v.iter_mut().for_each(|x| *x /= t);
    }
    v
}

/// Everything one pass needs.
pub struct Data<'a> {
    pub deals: &'a [Seen],
    pub boards: &'a Boards,
    pub fallback: Fallback<'a>,
    /// Which deals this fit reads (all, or one fold's).
    pub include: Option<&'a [bool]>,
    /// Read before each chunk of deals: a cancel stops a pass at once.
    pub progress: &'a Progress,
}

impl Data<'_> {
    fn included(&self, i: usize) -> bool {
        self.include.is_none_or(|m| m[i])
    }

    /// log P of deal `i` under `rules` with the weights `w` in force,
    /// adding its expected counts to `s` when given.
    fn judge(
        &self,
        i: usize,
        rules: &Rules,
        policy: usize,
        w: &[f64],
        repeat: Option<f64>,
        s: Option<&mut Stats>,
    ) -> f64 {
        let d = &self.deals[i];
        let deal = Deal {
            info: &self.boards.infos[self.boards.of_deal[i]],
            board: d.board,
            holder: &d.holder,
            previous: d.previous,
        };
        likelihood::deal(&deal, rules.check, policy, &Law { w, repeat }, &self.fallback, s)
    }

    /// The log-likelihood of the included deals and, with `stats`, each
    /// context's expected counts; also the number of impossible deals.
    pub fn pass(
        &self,
        rules: &Rules,
        weights: &[Vec<f64>],
        repeat: Option<f64>,
        stats: bool,
    ) -> (f64, Vec<Stats>, usize) {
        let n = self.boards.n;
        let contexts = rules.contexts();
        let policy = rules.policy_index(self.boards);
        let chunks: Vec<(f64, Vec<Stats>, usize)> = self
            .deals
            .par_chunks(256)
            .enumerate()
            .map(|(ci, chunk)| {
                let mut ll = 0.0;
                let mut acc = vec![Stats::new(n); if stats { contexts } else { 0 }];
                let mut impossible = 0;
                if self.progress.cancelled() {
                    return (ll, acc, impossible);
                }
                for (j, d) in chunk.iter().enumerate() {
                    let i = ci * 256 + j;
                    if !self.included(i) {
                        continue;
                    }
                    let c = rules.context(d);
                    let mut s = stats.then(|| Stats::new(n));
                    let l = self.judge(i, rules, policy, &weights[c], repeat, s.as_mut());
                    if l.is_finite() {
                        ll += l;
                        if let Some(s) = s {
                            acc[c].add(&s);
                        }
                    } else {
                        impossible += 1;
                    }
                }
                (ll, acc, impossible)
            })
            .collect();
        let mut ll = 0.0;
        let mut acc = vec![Stats::new(n); if stats { contexts } else { 0 }];
        let mut impossible = 0;
        for (l, a, imp) in chunks {
            ll += l;
            impossible += imp;
            for (x, y) in acc.iter_mut().zip(&a) {
                x.add(y);
            }
        }
        (ll, acc, impossible)
    }
}

impl Data<'_> {
    /// Each included deal's log-likelihood under a fitted model, in order
    /// (`-inf` for a deal it cannot deal): what Vuong's test compares.
    pub fn per_deal(&self, f: &Fitted) -> Vec<f64> {
        let policy = f.rules.policy_index(self.boards);
        (0..self.deals.len())
            .into_par_iter()
            .filter(|&i| self.included(i))
            .map(|i| {
                let c = f.rules.context(&self.deals[i]);
                self.judge(i, &f.rules, policy, &f.weights[c], f.repeat, None)
            })
            .collect()
    }
}

/// Fits `rules` to the data by EM; `None` when cancelled.
pub fn fit(data: &Data, rules: &Rules, progress: &Progress) -> Option<Fitted> {
    fit_from(data, rules, None, progress)
}

/// `fit`, EM starting from `near` (a fit of one context close to this
/// one's answer, such as reject's for repair) where its pieces are free.
pub fn fit_from(data: &Data, rules: &Rules, near: Option<&[f64]>, progress: &Progress) -> Option<Fitted> {
    fit_with(data, rules, near, true, progress)
}

/// `fit` without the intervals (a pass over the deals as dear as an EM
/// step): for the held-out folds, whose weights are all that is read.
pub(crate) fn fit_point(data: &Data, rules: &Rules, progress: &Progress) -> Option<Fitted> {
    fit_with(data, rules, None, false, progress)
}

fn fit_with(
    data: &Data,
    rules: &Rules,
    near: Option<&[f64]>,
    with_intervals: bool,
    progress: &Progress,
) -> Option<Fitted> {
    let n = data.boards.n;
    let included: Vec<Seen> = data
        .deals
        .iter()
        .enumerate()
        .filter(|(i, _)| data.included(*i))
        .map(|(_, d)| d.clone())
        .collect();
    let start = dealt_shares(&included, rules, n);
    // Pieces dealt in a context are free there; the rest stay at 0.
    let free: Vec<Vec<bool>> = start
        .iter()
        .map(|w| w.iter().map(|&x| x > 0.0).collect())
        .collect();
    // A context nothing was dealt in keeps the set's own shares (the
    // prior), with nothing fitted.
    let prior = normalised(
        data.fallback
            .set
            .pieces
            .iter()
            .map(|p| f64::from(p.weight))
            .collect(),
    );
    let mut weights: Vec<Vec<f64>> = start
        .into_iter()
        .zip(&free)
        .map(|(w, f)| match near {
            _ if !f.iter().any(|&x| x) => prior.clone(),
            // A context's own pieces must all be free to start from `near`.
            Some(near) if near.len() == n => normalised(
                near.iter()
                    .zip(f)
                    .map(|(&x, &f)| if f { x.max(1e-6) } else { 0.0 })
                    .collect(),
            ),
            _ => w,
        })
        .collect();
    let mut repeat = rules.repeat.then_some(0.1);
    let mut last = f64::NEG_INFINITY;
    let mut steps = 0;
    let mut converged = false;
    let mut impossible = 0;
    while steps < MAX_STEPS {
        if progress.cancelled() {
            return None;
        }
        let (ll, stats, imp) = data.pass(rules, &weights, repeat, true);
        if progress.cancelled() {
            return None;
        }
        impossible = imp;
        steps += 1;
        if imp > 0 {
            // A deal this model cannot deal: its likelihood is 0 whatever
            // the weights; the rest are fitted all the same, for the table.
            last = ll;
        }
        let gained = ll - last;
        last = ll;
        for (c, s) in stats.iter().enumerate() {
            let mut w: Vec<f64> = s
                .draws
                .iter()
                .zip(&free[c])
                .map(|(&x, &f)| if f { x.max(0.0) } else { 0.0 })
                .collect();
            if w.iter().sum::<f64>() > 0.0 {
                w = normalised(w);
                weights[c] = w;
            }
        }
        if let Some(r) = repeat.as_mut() {
            let (c, f) = stats
                .iter()
                .fold((0.0, 0.0), |(c, f), s| (c + s.copies, f + s.fresh));
            if c + f > 0.0 {
                *r = (c / (c + f)).clamp(1e-9, 1.0 - 1e-9);
            }
        }
        // A repeat chance creeping to its bound of 0: what is left to gain
        // is as small as the chance.
        let at_bound = repeat.is_some_and(|r| r < 1e-3) && steps > 5 && gained.abs() < 0.05;
        if (steps > 1 && gained.abs() < TOLERANCE) || at_bound {
            converged = true;
            break;
        }
        // None and plain weights: the first step is the answer.
        if rules.check == Check::None && !rules.repeat && steps > 1 {
            converged = true;
            break;
        }
    }
    let (loglik, _, imp) = data.pass(rules, &weights, repeat, false);
    impossible = impossible.max(imp);
    let loglik = if impossible > 0 { f64::NEG_INFINITY } else { loglik };
    let params = free
        .iter()
        .map(|f| f.iter().filter(|&&x| x).count().saturating_sub(1))
        .sum::<usize>()
        + usize::from(rules.repeat);
    let (intervals, repeat_ci) = if with_intervals {
        intervals(data, rules, &weights, repeat, &free, &included)
    } else {
        (Vec::new(), (f64::NAN, f64::NAN))
    };
    progress.advance(crate::fits::generator::fit_unit(data.boards));
    Some(Fitted {
        rules: rules.clone(),
        weights,
        intervals,
        repeat,
        repeat_ci,
        loglik,
        params,
        deals: included.len(),
        impossible,
        steps,
        converged,
    })
}

/// Each share's interval from the outer product of the deals' scores.
#[allow(clippy::type_complexity)]
fn intervals(
    data: &Data,
    rules: &Rules,
    weights: &[Vec<f64>],
    repeat: Option<f64>,
    free: &[Vec<bool>],
    included: &[Seen],
) -> (Vec<Vec<(f64, f64)>>, (f64, f64)) {
    let n = data.boards.n;
    // θ: per context, the log-odds of each free piece against the context's
    // most dealt one (held at 0); then the repeat chance's logit.
    let refs: Vec<usize> = weights
        .iter()
        .map(|w| (0..n).max_by(|&a, &b| w[a].total_cmp(&w[b])).unwrap_or(0))
        .collect();
    let mut index = vec![vec![None; n]; weights.len()];
    let mut dim = 0;
    for c in 0..weights.len() {
        for j in 0..n {
            if free[c][j] && j != refs[c] {
                index[c][j] = Some(dim);
                dim += 1;
            }
        }
    }
    let r_index = repeat.map(|_| {
        dim += 1;
        dim - 1
    });
    let policy = rules.policy_index(data.boards);
    let scores: Vec<Vec<f64>> = (0..data.deals.len())
        .into_par_iter()
        .filter(|&i| data.included(i))
        .map(|i| {
            let d = &data.deals[i];
            let c = rules.context(d);
            let mut s = Stats::new(n);
            let l = data.judge(i, rules, policy, &weights[c], repeat, Some(&mut s));
            let mut g = vec![0.0; dim];
            if !l.is_finite() {
                return g;
            }
            let total: f64 = s.draws.iter().sum();
            for j in 0..n {
                if let Some(x) = index[c][j] {
                    g[x] = s.draws[j] - total * weights[c][j];
                }
            }
            if let (Some(x), Some(r)) = (r_index, repeat) {
                g[x] = s.copies * (1.0 - r) - s.fresh * r;
            }
            g
        })
        .collect();
    let mut info = vec![0.0; dim * dim];
    for g in &scores {
        for a in 0..dim {
            if g[a] == 0.0 {
                continue;
            }
            for b in 0..dim {
                info[a * dim + b] += g[a] * g[b];
            }
        }
    }
    let cov = invert(&info, dim);
    let mut out = Vec::with_capacity(weights.len());
    for (c, w) in weights.iter().enumerate() {
        let dealt: usize = included
            .iter()
            .filter(|d| rules.context(d) == c)
            .map(|d| d.holder.len())
            .sum();
        let row = (0..n)
            .map(|i| {
                if !free[c][i] {
                    // Never dealt here: the one-sided 95 % upper bound of a
                    // share seen 0 times in `dealt` pieces.
                    let upper = if dealt == 0 {
                        1.0
                    } else {
                        1.0 - 0.05f64.powf(1.0 / dealt as f64)
                    };
                    return (0.0, upper);
                }
                let Some(cov) = &cov else {
                    return (0.0, 1.0);
                };
                // d logit(p_i) / d θ_j = (δ_ij - p_j) / (1 - p_i).
                let p = w[i];
                let grad: Vec<(usize, f64)> = (0..n)
                    .filter_map(|j| {
                        index[c][j].map(|x| (x, (f64::from(u8::from(i == j)) - w[j]) / (1.0 - p).max(1e-12)))
                    })
                    .collect();
                let var: f64 = grad
                    .iter()
                    .flat_map(|&(a, ga)| grad.iter().map(move |&(b, gb)| ga * gb * cov[a * dim + b]))
                    .sum();
                logit_interval(p, var)
            })
            .collect();
        out.push(row);
    }
    let repeat_ci = match (r_index, repeat, &cov) {
        (Some(x), Some(r), Some(cov)) => logit_interval(r, cov[x * dim + x]),
        (Some(_), Some(_), None) => (0.0, 1.0),
        _ => (0.0, 0.0),
    };
    (out, repeat_ci)
}

/// A share's interval from its logit's variance; (0, 1) when the variance
/// is not a number.
pub fn logit_interval(p: f64, var: f64) -> (f64, f64) {
    if !(var.is_finite() && var >= 0.0) || p <= 0.0 || p >= 1.0 {
        return (0.0, 1.0);
    }
    let l = (p / (1.0 - p)).ln();
    let h = Z_95 * var.sqrt();
    let f = |x: f64| 1.0 / (1.0 + (-x).exp());
    (f(l - h), f(l + h))
}

/// The inverse of a symmetric matrix by Gauss-Jordan with partial
/// pivoting; `None` when it is singular.
pub fn invert(m: &[f64], dim: usize) -> Option<Vec<f64>> {
    let mut a = m.to_vec();
    let mut inv = vec![0.0; dim * dim];
    for i in 0..dim {
        inv[i * dim + i] = 1.0;
    }
    let scale = (0..dim)
        .map(|i| a[i * dim + i].abs())
        .fold(0.0, f64::max)
        .max(1e-300);
    for col in 0..dim {
        let pivot = (col..dim).max_by(|&x, &y| a[x * dim + col].abs().total_cmp(&a[y * dim + col].abs()))?;
        if a[pivot * dim + col].abs() < 1e-12 * scale {
            return None;
        }
        if pivot != col {
            for j in 0..dim {
                a.swap(pivot * dim + j, col * dim + j);
                inv.swap(pivot * dim + j, col * dim + j);
            }
        }
        let d = a[col * dim + col];
        for j in 0..dim {
            a[col * dim + j] /= d;
            inv[col * dim + j] /= d;
        }
        for r in 0..dim {
            if r != col {
                let f = a[r * dim + col];
                if f != 0.0 {
                    for j in 0..dim {
                        a[r * dim + j] -= f * a[col * dim + j];
                        inv[r * dim + j] -= f * inv[col * dim + j];
                    }
                }
            }
        }
    }
    Some(inv)
}
