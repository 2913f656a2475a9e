//! What a tune plays, planned from its goals and the spread its games
//! show: how far each game is followed, and how many hold-out games a
//! verdict will need.
//!
//! A median of rounds needs to know of each game only whether it lasted
//! past the median: a game followed to a cap a little past the goal and
//! then stopped (censored, Kaplan-Meier counts it alive there) tells the
//! median as well as the whole game. For a skilled player whose games last
//! hundreds of rounds toward a target a third of that, most of each game
//! is never played.
//!
//! A median's interval narrows as 1/√n: from the spread seen on n games
//! (or, before any, the exponential law's, whose median has a standard
//! error of median/(ln 2 √n)) the hold-out games a goal needs follow.

use crate::stats::survival::z_of;
use crate::study::tune_goal::{Goal, Measured, Target};
use crate::study::tune_verdict::level;

/// How far past a median goal's band a game is followed, as a multiple of
/// the band's top: room for the interval of a candidate near the goal and
/// for the search to see candidates that miss long.
pub const CAP_FACTOR: f64 = 2.0;

/// The rounds a tune's games are followed to: with only median goals (of
/// players), twice the largest band's top, within `max_rounds`; otherwise
/// `max_rounds` (a share of losses or of pieces dealt needs whole games).
pub fn rounds_needed(goals: &[Goal], audience: bool, max_rounds: u32) -> u32 {
    if audience || goals.is_empty() {
        return max_rounds;
    }
    let mut top: f64 = 0.0;
    for g in goals {
        match g.target {
            Target::MedianRounds(_) => top = top.max(g.band().1),
            _ => return max_rounds,
        }
    }
    let cap = (CAP_FACTOR * top).ceil();
    if cap >= f64::from(max_rounds) {
        max_rounds
    } else {
        (cap as u32).max(1)
    }
}

/// A median's standard error times √n, in rounds: read off a measured
/// interval (its half-width at 95 % over 1.96, times √n), or the
/// exponential law's `median / ln 2` when there is none to read.
pub fn median_spread(m: Option<(&Measured, usize)>, median: f64) -> f64 {
    let measured = m.and_then(|(m, n)| {
        let (lo, hi) = m.ci?;
        (hi.is_finite() && hi > lo && n > 0).then(|| (hi - lo) / 2.0 / z_of(0.95) * (n as f64).sqrt())
    });
    measured.unwrap_or(median / std::f64::consts::LN_2)
}

/// The looks a planned hold-out takes: its interval's half-width at each
/// of three looks (`tune_verdict::level(3)`) half the tolerance at the
/// middle one, so a tuned median within half a tolerance of the goal is
/// met there; the looks at half and twice that (the first and last look
/// returned). `spread` is `median_spread`'s. Within `least..=most` games.
pub fn holdout_looks(goal: &Goal, spread: f64, least: usize, most: usize) -> (usize, usize) {
    let z = z_of(level(3));
    let n = (2.0 * z * spread / goal.tolerance.max(1e-9)).powi(2).ceil();
    let n = if n.is_finite() {
        n.min(most as f64) as usize
    } else {
        most
    };
    let first = (n / 2).clamp(least.min(most), most);
    // Four times the first, so the looks double exactly: three of them.
    (first, (4 * first).clamp(first, most))
}

/// The most tuning games a sharpened candidate plays.
pub const MAX_TUNING_GAMES: usize = 100_000;

/// The tuning games that would bring every median goal's standard error
/// within a quarter of its tolerance, read from `seen` (the best's
/// intervals on `n` games, per player and goal): at most four times `n`,
/// `affordable` and `MAX_TUNING_GAMES`. `None` when that is not half as
/// many again as `n`: then more games would not pay.
pub fn sharper_games(goals: &[Goal], seen: &[Measured], n: usize, affordable: usize) -> Option<usize> {
    let mut needed = 0;
    for (g, m) in goals.iter().cycle().zip(seen) {
        if let Target::MedianRounds(t) = g.target {
            let want = (4.0 * median_spread(Some((m, n)), t) / g.tolerance.max(1e-9))
                .powi(2)
                .ceil();
            needed = needed.max(if want.is_finite() {
                want.min(1e9) as usize
            } else {
                4 * n
            });
        }
    }
    let next = needed.min(4 * n).min(affordable).min(MAX_TUNING_GAMES);
    (2 * next >= 3 * n).then_some(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn median(t: f64, tol: f64) -> Goal {
        Goal {
            target: Target::MedianRounds(t),
            tolerance: tol,
        }
    }

    #[test]
    fn only_medians_stop_games_early() {
        assert_eq!(rounds_needed(&[median(200.0, 10.0)], false, 10_000), 420);
        assert_eq!(
            rounds_needed(&[median(200.0, 10.0), median(90.0, 5.0)], false, 10_000),
            420
        );
        assert_eq!(rounds_needed(&[median(200.0, 10.0)], false, 300), 300);
        let unfair = Goal::new(Target::UnfairShare(0.1));
        assert_eq!(
            rounds_needed(&[median(200.0, 10.0), unfair], false, 10_000),
            10_000
        );
        assert_eq!(rounds_needed(&[median(200.0, 10.0)], true, 10_000), 10_000);
        assert_eq!(rounds_needed(&[], false, 77), 77);
    }

    /// The exponential law's spread, and a measured interval's: a half-width
    /// of 19.6 rounds on 100 games is a standard error of 10, 100 times √n.
    #[test]
    fn the_spread_is_read_off_an_interval_or_the_exponential_law() {
        let none = median_spread(None, 200.0);
        assert!((none - 288.539).abs() < 1e-3, "{none}");
        let m = Measured {
            value: Some(200.0),
            ci: Some((180.4, 219.6)),
        };
        let read = median_spread(Some((&m, 100)), 200.0);
        assert!((read - 100.0).abs() < 0.01, "{read}");
        let open = Measured {
            value: Some(200.0),
            ci: Some((180.0, f64::INFINITY)),
        };
        assert_eq!(median_spread(Some((&open, 100)), 200.0), none);
    }

    /// Sharpening: a median whose standard error on 200 games is 28
    /// rounds against a tolerance of 40 wants (4 x 28 / 40)^2 x 200, about
    /// 1,570 games; one step is at most four times as many, and no more
    /// than the budget affords; a noise already small enough, or a step
    /// too small to pay, asks for none.
    #[test]
    fn sharpening_asks_for_the_games_a_tolerance_needs() {
        let g = median(270.0, 40.0);
        let se = |se: f64| Measured {
            value: Some(270.0),
            ci: Some((270.0 - se * z_of(0.95), 270.0 + se * z_of(0.95))),
        };
        let m = se(28.0);
        assert_eq!(sharper_games(&[g], &[m], 200, 1_000_000), Some(800));
        // On 800 games the same candidate's error is half as large.
        assert_eq!(sharper_games(&[g], &[se(14.0)], 800, 1_000_000), Some(1568));
        assert_eq!(sharper_games(&[g], &[m], 200, 250), None);
        assert_eq!(sharper_games(&[median(270.0, 400.0)], &[m], 200, 1_000_000), None);
        let share = Goal::new(Target::UnfairShare(0.1));
        assert_eq!(sharper_games(&[share], &[m], 200, 1_000_000), None);
    }

    /// The planned looks: at the middle look the interval at 98.3 % has a
    /// half-width of half the tolerance; three looks, doubling; bounded by
    /// the least and most asked for.
    #[test]
    fn the_holdout_is_planned_from_the_spread() {
        let g = median(200.0, 20.0);
        let (first, last) = holdout_looks(&g, 100.0, 100, 100_000);
        let middle = 2 * first;
        let half = z_of(level(3)) * 100.0 / (middle as f64).sqrt();
        assert!((half - 10.0).abs() < 0.05, "{half}");
        assert_eq!(last, 2 * middle);
        assert_eq!(crate::study::tune_verdict::looks(first, last).len(), 3);
        let odd = holdout_looks(&g, 101.0, 100, 100_000);
        assert_eq!(
            crate::study::tune_verdict::looks(odd.0, odd.1).len(),
            3,
            "{odd:?}"
        );
        assert_eq!(holdout_looks(&g, 100.0, 5_000, 100_000).0, 5_000);
        assert_eq!(holdout_looks(&g, 100.0, 100, 600), (287, 600));
        assert_eq!(holdout_looks(&g, f64::INFINITY, 100, 600), (300, 600));
    }
}
