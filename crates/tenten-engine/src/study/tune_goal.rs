//! What a tune aims for: targets (a player's median, an unfair share, a
//! share of small pieces in a fill band; an audience's reach and games per
//! session), goals with their tolerances, and a figure measured on games
//! with its interval.

use crate::fits::population::forecast::{Forecast, REACH};
use crate::fits::population::quit::MAX_GAMES;
use crate::model::pieces::PieceSet;
use crate::play::game::BANDS;
use crate::stats::survival::{self, Survival};
use crate::study::runner::Summary;

/// What the tuned generator should do.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    /// The player's median rounds.
    MedianRounds(f64),
    /// At most this share of the player's losses unfair.
    UnfairShare(f64),
    /// This share of pieces of 1-3 cells dealt on boards in fill band `band`
    /// (0: 0-20 %, ... 4: 80-100 %).
    SmallShare { band: usize, share: f64 },
    /// An audience's share of games reaching round `round` (a population's).
    Reach { round: u32, share: f64 },
    /// An audience's games per session (a population's).
    GamesPerSession(f64),
}

impl Target {
    pub fn name(&self) -> String {
        match self {
            Target::MedianRounds(_) => "median_rounds".to_owned(),
            Target::UnfairShare(_) => "unfair_share".to_owned(),
            Target::SmallShare { band, .. } => format!("small_share_band{band}"),
            Target::Reach { round, .. } => format!("reach_{round}"),
            Target::GamesPerSession(_) => "games_per_session".to_owned(),
        }
    }

    /// Whether it is measured on an audience (a population's players in
    /// sessions) rather than on each player's games.
    pub fn of_audience(&self) -> bool {
        matches!(self, Target::Reach { .. } | Target::GamesPerSession(_))
    }

    /// The audience's figure, from a forecast's players, and its 95 %
    /// interval (`forecast::summarize`).
    pub fn audience_interval(&self, f: &Forecast) -> Measured {
        let name = match *self {
            Target::Reach { round, .. } => format!("reach_{round}"),
            Target::GamesPerSession(_) => "games_per_session".to_owned(),
            Target::UnfairShare(_) => "unfair_share".to_owned(),
            _ => String::new(),
        };
        match f.figure(&name) {
            // No losses at all: no unfair ones.
            Some(x) if !x.value.is_finite() && name == "unfair_share" => Measured {
                value: Some(0.0),
                ci: None,
            },
            Some(x) => Measured {
                value: x.value.is_finite().then_some(x.value),
                ci: x.ci,
            },
            None => Measured {
                value: None,
                ci: None,
            },
        }
    }

    pub fn goal(&self) -> f64 {
        match *self {
            Target::MedianRounds(v)
            | Target::UnfairShare(v)
            | Target::SmallShare { share: v, .. }
            | Target::Reach { share: v, .. }
            | Target::GamesPerSession(v) => v,
        }
    }

    /// Parses `median_rounds=200`, `unfair_share=0.1`, `small_share=3:0.6`
    /// (band 3, share 0.6).
    pub fn parse(s: &str) -> Result<Self, String> {
        let (key, value) = s
            .split_once('=')
            .ok_or_else(|| format!("a target is KEY=VALUE, like median_rounds=200; got {s:?}"))?;
        let number = |v: &str| {
            v.trim()
                .parse::<f64>()
                .map_err(|_| format!("{v:?} is not a number in {s:?}"))
        };
        match key.trim() {
            "median_rounds" => {
                let v = number(value)?;
                if v >= 1.0 {
                    Ok(Target::MedianRounds(v))
                } else {
                    Err(format!("median_rounds is at least 1; got {v}"))
                }
            }
            "unfair_share" => {
                let v = number(value)?;
                if (0.0..=1.0).contains(&v) {
                    Ok(Target::UnfairShare(v))
                } else {
                    Err(format!("unfair_share is a share, 0 to 1; got {v}"))
                }
            }
            "small_share" => {
                let (band, share) = value
                    .split_once(':')
                    .ok_or_else(|| format!("small_share is BAND:SHARE, like small_share=3:0.6; got {s:?}"))?;
                let band = band
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|&b| b < BANDS)
                    .ok_or_else(|| {
                        format!(
                            "the band of small_share is 0 to {} (0-20 % ... 80-100 % full); got {band:?}",
                            BANDS - 1
                        )
                    })?;
                let share = number(share)?;
                if (0.0..=1.0).contains(&share) {
                    Ok(Target::SmallShare { band, share })
                } else {
                    Err(format!("small_share is a share, 0 to 1; got {share}"))
                }
            }
            "reach" => {
                let (round, share) = value
                    .split_once(':')
                    .ok_or_else(|| format!("reach is ROUND:SHARE, like reach=50:0.6; got {s:?}"))?;
                let round = round
                    .trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|r| REACH.contains(r))
                    .ok_or_else(|| format!("the round of reach is one of 10, 25, 50, 100; got {round:?}"))?;
                let share = number(share)?;
                if (0.0..=1.0).contains(&share) {
                    Ok(Target::Reach { round, share })
                } else {
                    Err(format!("reach is a share, 0 to 1; got {share}"))
                }
            }
            "games_per_session" => {
                let v = number(value)?;
                if (1.0..=f64::from(MAX_GAMES as u32)).contains(&v) {
                    Ok(Target::GamesPerSession(v))
                } else {
                    Err(format!("games_per_session is 1 to {MAX_GAMES}; got {v}"))
                }
            }
            other => Err(format!(
                "unknown target {other:?}; choose median_rounds, unfair_share, small_share, or for a population reach or games_per_session"
            )),
        }
    }

    /// What the games measured for this target.
    pub fn measure(&self, s: &Summary, set: &PieceSet) -> f64 {
        match *self {
            Target::MedianRounds(_) => {
                s.km.median
                    .map_or_else(|| median_past_cap(&s.km).unwrap_or(s.rounds_median), f64::from)
            }
            Target::UnfairShare(_) => s.unfair_share.map_or(0.0, |x| x.0),
            Target::SmallShare { band, .. } => small_share(s, set, band).map_or(0.0, |x| x.0),
            Target::Reach { .. } | Target::GamesPerSession(_) => f64::NAN,
        }
    }

    /// The tolerance a goal gets unless one is given: 5 % of a median (at
    /// least one round), two points of a share.
    pub fn default_tolerance(&self) -> f64 {
        match *self {
            // Rounded to a millionth, so 5 % of 7 prints as 0.35.
            Target::MedianRounds(t) => ((0.05 * t).max(1.0) * 1e6).round() / 1e6,
            Target::GamesPerSession(t) => ((0.05 * t).max(0.1) * 1e6).round() / 1e6,
            Target::UnfairShare(_) | Target::SmallShare { .. } | Target::Reach { .. } => 0.02,
        }
    }

    /// How far `measured` is from the goal (for unfair_share, only above
    /// it: it is a ceiling).
    pub fn miss(&self, measured: f64) -> f64 {
        match *self {
            Target::MedianRounds(t) | Target::GamesPerSession(t) => (measured - t).abs(),
            Target::UnfairShare(t) => (measured - t).max(0.0),
            Target::SmallShare { share, .. } | Target::Reach { share, .. } => (measured - share).abs(),
        }
    }

    /// The measure on the hold-out games with its 95 % interval; a median
    /// past the round cap (more than half the games alive at it) is
    /// `None`: beyond the cap, not the cap.
    pub fn interval(&self, s: &Summary, set: &PieceSet) -> Measured {
        self.interval_at(s, &s.km, set, survival::z_of(0.95))
    }

    /// The measure with its interval `z` standard errors wide, the median
    /// read from `km` (made at the same `z`).
    pub fn interval_at(&self, s: &Summary, km: &Survival, set: &PieceSet, z: f64) -> Measured {
        let share = |x: Option<(f64, f64, f64)>| Measured {
            value: Some(x.map_or(0.0, |x| x.0)),
            ci: x.map(|(_, lo, hi)| (lo, hi)),
        };
        match *self {
            Target::MedianRounds(_) => {
                let (lo, hi) = km.median_ci;
                // A lower end past the last game (more than half alive at
                // the cap even at the band's edge) is the cap at least: the
                // median is known to lie beyond it.
                let past = (km.games > 0 && km.censored > 0).then(|| f64::from(km.last));
                Measured {
                    value: km.median.map(f64::from),
                    ci: lo
                        .map(f64::from)
                        .or(past)
                        .map(|lo| (lo, hi.map_or(f64::INFINITY, f64::from))),
                }
            }
            Target::UnfairShare(_) => share(survival::share_at(s.unfair, s.games - s.censored, z)),
            Target::SmallShare { band, .. } => {
                let (small, whole) = small_counts(s, set, band);
                share(survival::share_at(small, whole, z))
            }
            Target::Reach { .. } | Target::GamesPerSession(_) => Measured {
                value: None,
                ci: None,
            },
        }
    }
}

/// A median past the round cap, for the search's loss only (a verdict
/// says "beyond the cap"): the median of the exponential law that survives
/// to the cap as often as the games did, so candidates past the cap still
/// differ (every one scored at the cap would be a plateau Nelder-Mead
/// stalls on). No loss at all counts as a survival of 1 - 1/(2n).
fn median_past_cap(km: &Survival) -> Option<f64> {
    let seen = km.steps.last()?.survival;
    let s = seen.min(1.0 - 0.5 / km.games.max(1) as f64);
    (km.last > 0 && s > 0.0 && s < 1.0).then(|| f64::from(km.last) * std::f64::consts::LN_2 / -s.ln())
}

/// A figure measured on games: its value (`None`: a median beyond the
/// round cap) and its 95 % interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    pub value: Option<f64>,
    pub ci: Option<(f64, f64)>,
}

impl Measured {
    /// "35", "0.302 [0.260-0.349]" or "beyond 12" (a median past the cap).
    pub fn show(&self, cap: u32) -> String {
        let v = match self.value {
            Some(v) if v.fract() == 0.0 && v.abs() >= 1.0 => format!("{v:.0}"),
            Some(v) => format!("{:.3}", v + 0.0),
            None => format!("beyond {cap}"),
        };
        match self.ci {
            Some((lo, hi)) if hi.is_finite() => format!("{v} [{}-{}]", short(lo), short(hi)),
            Some((lo, _)) => format!("{v} [{}-beyond {cap}]", short(lo)),
            None => v,
        }
    }
}

fn short(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() >= 1.0 {
        format!("{x:.0}")
    } else {
        format!("{:.3}", x + 0.0)
    }
}

/// A loss this small means every goal is met within a tenth of its
/// tolerance: the search stops there (on the tuning seeds any closer is
/// overfitting them).
pub const GOOD_ENOUGH: f64 = 1e-2;

/// One evaluation of a candidate.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    pub n: usize,
    pub loss: f64,
    pub best: f64,
    /// Per player, per goal, player by player.
    pub measures: Vec<f64>,
    /// The divergence of the candidate's mix from the base's (nats).
    pub divergence: f64,
    /// The free weights tried (see `tune::candidate`).
    pub x: Vec<f64>,
    /// Per measure, its value with its 95 % interval on the tuning games.
    pub intervals: Vec<Measured>,
    /// The wall time this evaluation took.
    pub seconds: f64,
    /// The tuning games (a player's) it was measured on: fewer than the
    /// plan's when its race's first leg already put it behind the best.
    pub games: usize,
}

/// A target with the tolerance its miss is measured in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Goal {
    pub target: Target,
    pub tolerance: f64,
}

impl Goal {
    pub fn new(target: Target) -> Self {
        Self {
            target,
            tolerance: target.default_tolerance(),
        }
    }

    /// `KEY=VALUE` (the default tolerance) or `KEY=VALUE@TOL`.
    pub fn parse(s: &str) -> Result<Self, String> {
        let (t, tol) = match s.rsplit_once('@') {
            Some((t, tol)) => (
                t,
                Some(
                    tol.trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|x| *x > 0.0 && x.is_finite())
                        .ok_or_else(|| format!("the tolerance of {s:?} (after @) is a positive number"))?,
                ),
            ),
            None => (s, None),
        };
        let target = Target::parse(t)?;
        Ok(Self {
            target,
            tolerance: tol.unwrap_or_else(|| target.default_tolerance()),
        })
    }

    /// The miss in tolerances: 1 or less is met.
    pub fn misses_by(&self, measured: f64) -> f64 {
        self.target.miss(measured) / self.tolerance
    }

    /// The miss in tolerances with its sign (a ceiling's only above it):
    /// the residual a line search drives to zero.
    pub fn residual(&self, measured: f64) -> f64 {
        let t = self.target.goal();
        match self.target {
            Target::UnfairShare(_) => (measured - t).max(0.0) / self.tolerance,
            _ => (measured - t) / self.tolerance,
        }
    }

    /// The least miss, in tolerances, that `m`'s interval allows (0 when
    /// it reaches the goal). A median with no interval and no value lay
    /// past `cap` on more than half the games: it misses by cap - goal at
    /// least.
    pub fn least_miss(&self, m: &Measured, cap: f64) -> f64 {
        let t = self.target.goal();
        let d = match (m.ci, self.target) {
            (Some((lo, _)), Target::UnfairShare(_)) => lo - t,
            (Some((lo, hi)), _) => (lo - t).max(t - hi),
            (None, Target::MedianRounds(_)) if m.value.is_none() => cap - t,
            (None, _) => 0.0,
        };
        d.max(0.0) / self.tolerance
    }
}

/// The share of pieces of 1-3 cells among those dealt in `band`, with its
/// Wilson interval.
pub fn small_share(s: &Summary, set: &PieceSet, band: usize) -> Option<(f64, f64, f64)> {
    let (small, whole) = small_counts(s, set, band);
    survival::share(small, whole)
}

/// The pieces of 1-3 cells dealt on boards in `band`, and all pieces dealt
/// there.
pub fn small_counts(s: &Summary, set: &PieceSet, band: usize) -> (usize, usize) {
    let small: u64 = s
        .dealt
        .iter()
        .zip(&set.pieces)
        .filter(|(_, p)| p.cells().len() <= 3)
        .map(|(d, _)| d[band])
        .sum();
    (small as usize, s.dealt_by_band[band] as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Past the cap the search still sees which candidate lasts longer:
    /// fewer losses before the cap, a longer median; the exponential law's
    /// median is recovered from its own survival at the cap.
    #[test]
    fn a_median_past_the_cap_grows_with_the_games_alive_there() {
        let games = |lost: u32| -> Vec<(u32, bool)> {
            (0..100)
                .map(|i| if i < lost { (10 + i, false) } else { (200, true) })
                .collect()
        };
        let m = |lost| median_past_cap(&survival::kaplan_meier(&games(lost))).unwrap();
        assert!(m(10) > m(20) && m(20) > m(40), "{} {} {}", m(10), m(20), m(40));
        assert!(m(40) > 200.0);
        // Survival 0.6 at 200 rounds: the exponential law's median is
        // 200 ln 2 / -ln 0.6.
        assert!((m(40) - 200.0 * std::f64::consts::LN_2 / -(0.6f64).ln()).abs() < 1e-9);
        // No loss at all still gives a finite figure; no games give none.
        let alive = median_past_cap(&survival::kaplan_meier(&games(0))).unwrap();
        assert!(alive.is_finite() && alive > m(10));
        assert!(median_past_cap(&survival::kaplan_meier(&[])).is_none());
    }
}
