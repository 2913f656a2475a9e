//! Difficulty as survival analysis (Isaksen, Gopstein and Nealen, "Exploring
//! Game Space Using Survival Analysis", FDG 2015): how long games last when
//! some are cut off by the round cap, and the chance to lose at each round.
//!
//! A game is `(rounds, censored)`: the holders it placed, and whether the
//! cap stopped it (then it was still alive). Every figure is defined for
//! every input: 0 games, 1 game and all games censored give `None` or an
//! open end, never NaN.

use statrs::distribution::{ContinuousCDF, Gamma};

/// The normal law's 97.5th percentile: the half-width of a 95 % interval in
/// standard errors.
const Z: f64 = 1.959_963_984_540_054;

/// One step of the Kaplan-Meier curve: after the losses at `rounds`, the
/// estimated chance to survive more than `rounds` rounds, with its 95 %
/// pointwise band (Greenwood's variance on the log-log scale, so the band
/// stays inside [0, 1]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    pub rounds: u32,
    pub survival: f64,
    pub lo: f64,
    pub hi: f64,
}

/// The binned hazard: the chance to lose the next deal having survived
/// `from..to` rounds, with its exact 95 % Poisson interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HazardBin {
    pub from: u32,
    pub to: u32,
    pub losses: u64,
    /// Game-rounds at risk in the bin.
    pub exposure: u64,
    pub hazard: f64,
    pub lo: f64,
    pub hi: f64,
}

/// The survival figures of one (generator, player).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Survival {
    pub games: usize,
    pub censored: usize,
    /// The curve: starts at (0, 1) and steps down at every loss.
    pub steps: Vec<Step>,
    /// The longest game seen (the cap when any game was censored).
    pub last: u32,
    /// The first round count at which survival falls to one half or below;
    /// `None` when more than half the games outlived every loss.
    pub median: Option<u32>,
    /// The median's 95 % interval, read where the band crosses one half
    /// (Brookmeyer and Crowley); an end is `None` when the band never gets
    /// there: "beyond the longest game".
    pub median_ci: (Option<u32>, Option<u32>),
    /// The restricted mean: the area under the curve up to `last`, the
    /// expected rounds with every game cut at `last`; `None` for no games.
    pub rmean: Option<f64>,
    /// Its 95 % interval (low, high), within 0 and `last`; `None` below two
    /// games. With no loss at all (every game censored) the curve has no
    /// variance, yet a loss at any round was possible: the interval is then
    /// the exact one-sided bound, from `last` times 0.05^(1/n) (the chance
    /// every one of n games survives when a loss comes with probability
    /// 1 - 0.05^(1/n)) to `last`.
    pub rmean_ci: Option<(f64, f64)>,
}

/// Losses and games at risk at each round count where something happened.
fn events(games: &[(u32, bool)]) -> Vec<(u32, u64, u64, u64)> {
    let mut sorted = games.to_vec();
    sorted.sort_unstable();
    let mut at_risk = sorted.len() as u64;
    let mut out = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let t = sorted[i].0;
        let (mut losses, mut leaving) = (0, 0);
        while i < sorted.len() && sorted[i].0 == t {
            losses += u64::from(!sorted[i].1);
            leaving += 1;
            i += 1;
        }
        // (rounds, at risk, losses, leaving)
        out.push((t, at_risk, losses, leaving));
        at_risk -= leaving;
    }
    out
}

/// Kaplan-Meier's product-limit estimate with Greenwood's variance.
pub fn kaplan_meier(games: &[(u32, bool)]) -> Survival {
    kaplan_meier_at(games, Z)
}

/// The normal law's quantile for a two-sided interval of confidence
/// `level` (0.95 gives 1.96): how many standard errors its half-width is.
pub fn z_of(level: f64) -> f64 {
    use statrs::distribution::Normal;
    Normal::new(0.0, 1.0).map_or(Z, |n| n.inverse_cdf(0.5 + level.clamp(0.5, 1.0 - 1e-12) / 2.0))
}

/// Kaplan-Meier with bands and intervals `z` standard errors wide (`Z`:
/// 95 %): a sequential check spends its error over several looks.
pub fn kaplan_meier_at(games: &[(u32, bool)], z: f64) -> Survival {
    let mut steps = vec![Step {
        rounds: 0,
        survival: 1.0,
        lo: 1.0,
        hi: 1.0,
    }];
    let mut s = 1.0;
    let mut greenwood = 0.0;
    let evs = events(games);
    for &(t, n, d, _) in &evs {
        if d == 0 {
            continue;
        }
        s *= 1.0 - d as f64 / n as f64;
        if n > d {
            greenwood += d as f64 / (n as f64 * (n - d) as f64);
        }
        let (lo, hi) = log_log_band(s, greenwood, z);
        steps.push(Step {
            rounds: t,
            survival: s,
            lo,
            hi,
        });
    }
    let last = games.iter().map(|g| g.0).max().unwrap_or(0);
    // A half reached as a product of fractions may round to just above it.
    let first_at_or_below =
        |f: fn(&Step) -> f64| steps.iter().find(|st| f(st) <= 0.5 + 1e-12).map(|st| st.rounds);
    let (rmean, rmean_ci) = restricted_mean(&evs, &steps, last, games.len(), z);
    Survival {
        games: games.len(),
        censored: games.iter().filter(|g| g.1).count(),
        median: first_at_or_below(|st| st.survival),
        median_ci: (first_at_or_below(|st| st.lo), first_at_or_below(|st| st.hi)),
        steps,
        last,
        rmean,
        rmean_ci,
    }
}

/// The 95 % band of S on the log-log scale (Kalbfleisch and Prentice):
/// S^exp(±z·se), se = sqrt(Greenwood) / |ln S|. At S = 1 or 0 it is S.
fn log_log_band(s: f64, greenwood: f64, z: f64) -> (f64, f64) {
    if s <= 0.0 || s >= 1.0 {
        return (s, s);
    }
    let se = greenwood.sqrt() / s.ln().abs();
    (s.powf((z * se).exp()), s.powf((-z * se).exp()))
}

/// The area under the curve up to `last` and the half-width of its 95 %
/// interval: Var = sum over losses of A_i² d_i / (n_i (n_i - d_i)), A_i the
/// area from t_i to `last` (Klein and Moeschberger, 4.5).
fn restricted_mean(
    evs: &[(u32, u64, u64, u64)],
    steps: &[Step],
    last: u32,
    n: usize,
    z: f64,
) -> (Option<f64>, Option<(f64, f64)>) {
    if n == 0 {
        return (None, None);
    }
    // Area from each step to `last`, from the end backwards.
    let mut area_after = vec![0.0; steps.len()];
    let mut area = 0.0;
    for i in (0..steps.len()).rev() {
        let end = steps.get(i + 1).map_or(last, |s| s.rounds);
        area += steps[i].survival * f64::from(end - steps[i].rounds);
        area_after[i] = area;
    }
    let mut var = 0.0;
    let mut step = 0;
    for &(_, at_risk, d, _) in evs.iter().filter(|e| e.2 > 0) {
        step += 1;
        if at_risk > d {
            var += area_after[step].powi(2) * d as f64 / (at_risk as f64 * (at_risk - d) as f64);
        }
    }
    let last = f64::from(last);
    let ci = if evs.iter().all(|e| e.2 == 0) {
        (last * 0.05f64.powf(1.0 / n as f64), last)
    } else {
        let h = z * var.sqrt();
        ((area - h).max(0.0), (area + h).min(last))
    };
    (Some(area), (n >= 2).then_some(ci))
}

/// Bins of round counts: one round wide up to 10, then each 25 % wider, so
/// the early rounds, where most games are lost, keep their detail.
fn bin_edges(last: u32) -> Vec<u32> {
    let mut edges = vec![0];
    let mut at = 0u32;
    while at <= last {
        let next = if at < 10 {
            at + 1
        } else {
            (f64::from(at) * 1.25).ceil() as u32
        };
        edges.push(next);
        at = next;
    }
    edges
}

/// The hazard: in each bin, losses over game-rounds at risk, the chance to
/// lose the next deal per round survived. Smoothed by the bins; the band is
/// the exact Poisson interval of the losses. Bins nobody reached are left
/// out.
pub fn hazard(games: &[(u32, bool)]) -> Vec<HazardBin> {
    let last = games.iter().map(|g| g.0).max().unwrap_or(0);
    // at_risk[t]: games that had survived t rounds and were dealt again
    // (lost at t or survived longer); losses[t]: those lost at t.
    let mut losses = vec![0u64; last as usize + 1];
    let mut ending = vec![0u64; last as usize + 2];
    for &(t, censored) in games {
        ending[t as usize] += 1;
        losses[t as usize] += u64::from(!censored);
    }
    let mut alive = games.len() as u64;
    let mut at_risk = vec![0u64; last as usize + 1];
    for t in 0..=last as usize {
        // A game censored at t was not dealt again.
        at_risk[t] = alive - (ending[t] - losses[t]);
        alive -= ending[t];
    }
    let edges = bin_edges(last);
    edges
        .windows(2)
        .filter_map(|w| {
            let (from, to) = (w[0], w[1].min(last + 1));
            let range = from as usize..to as usize;
            let exposure: u64 = at_risk[range.clone()].iter().sum();
            let lost: u64 = losses[range].iter().sum();
            (exposure > 0).then(|| {
                let (lo, hi) = poisson_interval(lost);
                let e = exposure as f64;
                HazardBin {
                    from,
                    to,
                    losses: lost,
                    exposure,
                    hazard: lost as f64 / e,
                    lo: lo / e,
                    hi: (hi / e).min(1.0),
                }
            })
        })
        .collect()
}

/// The exact (Garwood) 95 % interval of a Poisson count.
fn poisson_interval(k: u64) -> (f64, f64) {
    let q = |shape: f64, p: f64| Gamma::new(shape, 1.0).map_or(0.0, |g| g.inverse_cdf(p));
    let lo = if k == 0 { 0.0 } else { q(k as f64, 0.025) };
    (lo, q(k as f64 + 1.0, 0.975))
}

/// A share with its Wilson 95 % interval; `None` when there is nothing to
/// share out.
pub fn share(part: usize, whole: usize) -> Option<(f64, f64, f64)> {
    share_at(part, whole, Z)
}

/// A share with its exact (Clopper-Pearson) 95 % interval, which holds the
/// true share in at least 95 % of samples of any size (Wilson's can hold
/// it far less often in a handful: after 0 of 1 it ends at 0.79, which a
/// share of 0.8 gives in one sample of five); `None` when there is nothing
/// to share out. For verdicts on a few runs (`playtest rehearse`).
pub fn exact_share(part: usize, whole: usize) -> Option<(f64, f64, f64)> {
    if whole == 0 || part > whole {
        return None;
    }
    let (k, n) = (part as f64, whole as f64);
    let q =
        |a: f64, b: f64, p: f64| statrs::distribution::Beta::new(a, b).map_or(f64::NAN, |d| d.inverse_cdf(p));
    let lo = if part == 0 { 0.0 } else { q(k, n - k + 1.0, 0.025) };
    let hi = if part == whole {
        1.0
    } else {
        q(k + 1.0, n - k, 0.975)
    };
    Some((k / n, lo, hi))
}

/// A share with its Wilson interval `z` standard errors wide.
pub fn share_at(part: usize, whole: usize, z: f64) -> Option<(f64, f64, f64)> {
    if whole == 0 {
        return None;
    }
    let n = whole as f64;
    let p = part as f64 / n;
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Some((p, (centre - half).max(0.0), (centre + half).min(1.0)))
}

#[cfg(test)]
#[path = "survival_tests.rs"]
mod tests;
