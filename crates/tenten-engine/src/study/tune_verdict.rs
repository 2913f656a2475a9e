//! A tune's verdicts, decided from intervals, not from point estimates.
//!
//! A goal is **met** when the hold-out's interval lies inside the goal's
//! tolerance band, **missed** when it lies outside it, and **undecided**
//! otherwise. An undecided goal grows the hold-out on fresh seeds: looks
//! at n, 2n, 4n, ... games up to `holdout_max`, each look's interval at
//! confidence 1 − 0.05/K for K planned looks (Bonferroni), so the chance
//! that any look's interval misses the truth, and a verdict is wrong, stays
//! at most 5 % however many looks are taken. A goal still undecided at the
//! last look says how many games would decide it.

use crate::stats::survival::z_of;

use crate::fits::population::forecast::Forecast;
use crate::study::tune_goal::{Goal, Measured, Target};

/// The error a tune's verdicts may make, spent over the looks.
pub const ALPHA: f64 = 0.05;

/// What the hold-out says of a goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The interval lies inside the tolerance band.
    Met,
    /// The interval lies outside it.
    Missed,
    /// The interval straddles an edge of the band.
    Undecided,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Met => "met",
            Verdict::Missed => "missed",
            Verdict::Undecided => "undecided",
        }
    }
}

/// One goal for one player checked on the hold-out games: the start and
/// the tuned generator, each with its interval, and the verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    pub player: String,
    pub goal: Goal,
    /// The start on the first look's games, at 95 %.
    pub start: Measured,
    /// The tuned generator at the look that decided it (or the last).
    pub holdout: Measured,
    pub verdict: Verdict,
    /// Hold-out games (or players) behind `holdout`.
    pub games: usize,
    /// The confidence of `holdout`'s interval (0.95 with one look).
    pub level: f64,
    /// For an undecided goal, about how many games would decide it (the
    /// interval narrowing as 1/√n around the same estimate); `None` when
    /// decided, or when no number would (the estimate on the band's edge,
    /// or an interval open past the cap).
    pub needed: Option<usize>,
}

impl Checked {
    /// A goal before its first look: undecided, nothing measured yet.
    pub fn pending(player: &str, goal: Goal, start: Measured, level: f64) -> Self {
        Self {
            player: player.to_owned(),
            goal,
            start,
            holdout: Measured {
                value: None,
                ci: None,
            },
            verdict: Verdict::Undecided,
            games: 0,
            level,
            needed: None,
        }
    }
}

impl Goal {
    /// The band the figure must lie in: the goal ± the tolerance, or up to
    /// goal + tolerance for a ceiling (`unfair_share`).
    pub fn band(&self) -> (f64, f64) {
        let g = self.target.goal();
        match self.target {
            Target::UnfairShare(_) => (f64::NEG_INFINITY, g + self.tolerance),
            _ => (g - self.tolerance, g + self.tolerance),
        }
    }

    /// The verdict of `m`'s interval. Without an interval nothing is
    /// decided, except a ceiling on a share of losses when there were no
    /// losses (none of them can be unfair).
    pub fn verdict(&self, m: &Measured) -> Verdict {
        let (blo, bhi) = self.band();
        match m.ci {
            Some((lo, hi)) if blo <= lo && hi <= bhi => Verdict::Met,
            Some((lo, hi)) if hi < blo || lo > bhi => Verdict::Missed,
            Some(_) => Verdict::Undecided,
            None if matches!(self.target, Target::UnfairShare(_)) && m.value == Some(0.0) => Verdict::Met,
            None => Verdict::Undecided,
        }
    }

    /// About how many games `n` would have to become to decide `m`: the
    /// interval's half-width shrinks as 1/√n until it clears the band's
    /// nearer edge.
    pub fn needed(&self, m: &Measured, n: usize) -> Option<usize> {
        let (v, (lo, hi)) = (m.value?, m.ci?);
        if !hi.is_finite() {
            return None;
        }
        let (blo, bhi) = self.band();
        let margin = if v < blo {
            blo - v
        } else if v > bhi {
            v - bhi
        } else {
            (v - blo).min(bhi - v)
        };
        let half = (v - lo).max(hi - v);
        (margin > 0.0 && half > 0.0).then(|| (n as f64 * (half / margin).powi(2)).ceil() as usize)
    }
}

/// The hold-out's looks: `first`, doubling, up to `max` (the last look at
/// `max` itself).
pub fn looks(first: usize, max: usize) -> Vec<usize> {
    let first = first.max(1);
    let mut out = vec![first];
    while *out.last().unwrap_or(&first) < max {
        let next = out.last().unwrap_or(&first).saturating_mul(2).min(max);
        out.push(next);
    }
    out
}

/// The confidence of each look's interval when `k` looks are planned.
pub fn level(k: usize) -> f64 {
    1.0 - ALPHA / k.max(1) as f64
}

/// An audience's figure with its interval widened from 95 % to `level`,
/// on the scale the forecast made it on (`forecast::summarize`): a share's
/// interval is normal on the logit scale, a mean of games' on the log
/// scale, so each end moves away from the figure on that scale (widening
/// on the plain scale would make an asymmetric interval symmetric again
/// and cut it at 0). A figure at its bound (a share of 0 or 1) had a
/// plain interval and is widened on the plain scale.
pub(crate) fn audience_at(target: &Target, f: &Forecast, level: f64) -> Measured {
    let m = target.audience_interval(f);
    let (Some(v), Some((lo, hi))) = (m.value, m.ci) else {
        return m;
    };
    let games = matches!(target, Target::GamesPerSession(_));
    Measured {
        value: Some(v),
        ci: Some(widened(v, (lo, hi), z_of(level) / z_of(0.95), games)),
    }
}

/// `(lo, hi)` around `v` with each end's distance on its scale times `scale`.
fn widened(v: f64, (lo, hi): (f64, f64), scale: f64, games: bool) -> (f64, f64) {
    let logit = |x: f64| (x / (1.0 - x)).ln();
    let back = |x: f64| 1.0 / (1.0 + (-x).exp());
    if games && v > 0.0 && lo > 0.0 {
        let (l, a, b) = (v.ln(), lo.ln(), hi.ln());
        ((l - (l - a) * scale).exp().max(1.0), (l + (b - l) * scale).exp())
    } else if !games && v > 0.0 && v < 1.0 && lo > 0.0 && hi < 1.0 {
        let (l, a, b) = (logit(v), logit(lo), logit(hi));
        (back(l - (l - a) * scale), back(l + (b - l) * scale))
    } else {
        let (floor, ceiling) = if games { (1.0, f64::INFINITY) } else { (0.0, 1.0) };
        (
            (v - (v - lo) * scale).max(floor),
            (v + (hi - v) * scale).min(ceiling),
        )
    }
}

#[cfg(test)]
#[path = "tune_verdict_tests.rs"]
mod tests;
