//! A forecast of an audience: N players drawn from a population, each
//! playing one session under its quit model, under each generator (player
//! i is the same player under every generator: paired).
//!
//! Every figure's 95 % interval holds the simulation's noise (each player a
//! cluster, `clustered_ratio`) and, for a fitted population, the fit's
//! uncertainty by the delta method with gradients read off the same players
//! (`uncertainty`): players are drawn from the fit's predictive population,
//! and each carries its score in the fit's parameters. The interval is a
//! prediction interval for the figure of the true population.

use rayon::prelude::*;

use crate::fits::population::file::{Drawn, Population};
use crate::fits::population::session::{Session, Table, mix, play_session, player_seed, session_seed};
use crate::fits::population::uncertainty::Uncertainty;
use crate::model::generator::Generator;
use crate::play::game::End;
use crate::progress::Progress;
use crate::stats::inference::{Gain, paired_gain};

/// The most sessions a forecast holds, players times generators: every
/// player's session is kept until the figures are made, so the product a
/// caller types is bounded, not each number alone.
pub const MAX_SESSIONS: usize = 20_000_000;

/// `players` under `generators` in range, or why not.
pub fn check_size(players: usize, generators: usize) -> Result<(), String> {
    if players == 0 || generators == 0 {
        return Err("a forecast plays at least one player under one generator".to_owned());
    }
    crate::bounds::product(
        &[(players, "players"), (generators, "generators")],
        "sessions",
        MAX_SESSIONS,
        "a forecast plays",
    )
    .map(|_| ())
}
/// The rounds `reach_r` is told at.
pub const REACH: [u32; 4] = [10, 25, 50, 100];
/// The games after which `players_returning_after_k` is told.
pub const RETURNING: [usize; 3] = [1, 3, 10];

const REPLICATE_STREAM: u64 = 0x00FE_CA57_0000_0001;

/// One player's session in a forecast, and its score in the fit's
/// parameters (`Uncertainty::keys`; empty for a population not fitted).
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub player: usize,
    pub skill: f64,
    pub score: Vec<f64>,
    pub session: Session,
}

/// One draw of a fitted population's parameters, for a reference cohort of
/// a check (draw `b` of the fit's sampling distribution).
pub fn replicate(population: &Population, seed: u64, b: usize) -> Population {
    population.sampled(&mut Generator::new(mix(seed ^ REPLICATE_STREAM ^ mix(b as u64))))
}

/// Player `i` of a forecast seeded `seed`, drawn from `predictive`
/// (`Population::predictive`), and the seed of its session.
pub fn player(predictive: &Population, seed: u64, i: usize) -> (Drawn, u64) {
    let who = player_seed(seed, i as u64);
    let drawn = predictive.draw(&format!("p{i}"), &mut Generator::new(who));
    (drawn, session_seed(who, 0))
}

/// Player `i`'s session as a forecast's outcome, its score made from its
/// draws (drawn again: a shard's merge has the session alone).
pub fn outcome(
    population: &Population,
    predictive: &Population,
    uncertainty: Option<&Uncertainty>,
    seed: u64,
    i: usize,
    session: Session,
) -> Outcome {
    let (drawn, _) = player(predictive, seed, i);
    let score = uncertainty.map_or_else(Vec::new, |u| u.score(population, predictive, &drawn, &session));
    Outcome {
        player: i,
        skill: drawn.skill,
        score,
        session,
    }
}

/// Plays players `range` (a shard plays a part), each drawn from the
/// population's predictive distribution, one session each; `None` when
/// cancelled. `progress` advances by one per player.
pub fn play_players(
    population: &Population,
    table: &Table,
    range: impl IntoParallelIterator<Item = usize>,
    seed: u64,
    progress: &Progress,
) -> Option<Vec<Outcome>> {
    let predictive = population.predictive();
    let uncertainty = Uncertainty::of(population);
    range
        .into_par_iter()
        .map(|i| {
            let (drawn, session_seed) = player(&predictive, seed, i);
            let session = play_session(
                table,
                &drawn.player,
                &population.quit,
                session_seed,
                &mut Default::default(),
                None,
                progress,
            )?;
            progress.advance(1);
            Some(outcome(
                population,
                &predictive,
                uncertainty.as_ref(),
                seed,
                i,
                session,
            ))
        })
        .collect()
}

/// The figures of a forecast, in the order printed.
pub const NAMES: [&str; 10] = [
    "reach_10",
    "reach_25",
    "reach_50",
    "reach_100",
    "games_per_session",
    "players_returning_after_1",
    "players_returning_after_3",
    "players_returning_after_10",
    "unfair_share",
    "sessions_ended_by_unfair",
];

/// Each figure as a ratio of two sums over sessions (so a cohort's figure
/// and its standard error are read the same way): (numerator,
/// denominator) per figure.
pub fn ratio_parts(session: &Session) -> [(f64, f64); 10] {
    let games = session.games.len() as f64;
    let reach = |r: u32| {
        (
            session.games.iter().filter(|g| g.rounds >= r).count() as f64,
            games,
        )
    };
    let losses = session.games.iter().filter(|g| g.end != End::Censored).count() as f64;
    let unfair = session.games.iter().filter(|g| g.end == End::Unfair).count() as f64;
    let returning = |k: usize| (f64::from(u8::from(session.games.len() > k)), 1.0);
    [
        reach(REACH[0]),
        reach(REACH[1]),
        reach(REACH[2]),
        reach(REACH[3]),
        (games, 1.0),
        returning(RETURNING[0]),
        returning(RETURNING[1]),
        returning(RETURNING[2]),
        (unfair, losses),
        (f64::from(u8::from(session.ended_by_unfair())), 1.0),
    ]
}

/// The figures of some sessions; NaN where a ratio has nothing to divide
/// by (no losses: no unfair share).
pub fn figures<'a>(sessions: impl Iterator<Item = &'a Session>) -> [f64; 10] {
    let mut sums = [(0.0, 0.0); 10];
    for s in sessions {
        for (sum, part) in sums.iter_mut().zip(ratio_parts(s)) {
            sum.0 += part.0;
            sum.1 += part.1;
        }
    }
    sums.map(|(a, b)| if b > 0.0 { a / b } else { f64::NAN })
}

pub use crate::stats::inference::clustered_ratio;

/// A figure and its 95 % interval (`None`: too few replicates for one).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Figure {
    pub value: f64,
    pub ci: Option<(f64, f64)>,
}

/// The forecast of one generator.
#[derive(Clone, Debug, PartialEq)]
pub struct Forecast {
    pub generator: String,
    pub players: usize,
    pub games: usize,
    pub figures: Vec<Figure>,
    /// Whether the intervals hold the fit's uncertainty (a fitted
    /// population) or the simulation's noise alone.
    pub with_fit: bool,
}

/// The figures of `outcomes` (all of a forecast's players, or a skill
/// decile) with their intervals: the simulation's variance (each player a
/// cluster) plus, with `fit`, the fit's share (`Uncertainty::variance`).
/// A decile's players are chosen by their draws, so their scores do not
/// give its gradient: a decile is summarized without `fit`.
pub fn summarize(generator: &str, outcomes: &[&Outcome], fit: Option<&Uncertainty>) -> Forecast {
    let parts: Vec<[(f64, f64); 10]> = outcomes.iter().map(|o| ratio_parts(&o.session)).collect();
    let scores: Vec<&[f64]> = outcomes.iter().map(|o| o.score.as_slice()).collect();
    let figures = (0..10)
        .map(|j| {
            let column: Vec<(f64, f64)> = parts.iter().map(|p| p[j]).collect();
            // Games per session is a count of at least 1; the rest shares.
            interval(&column, &scores, fit, j != 4)
        })
        .collect();
    Forecast {
        generator: generator.to_owned(),
        players: outcomes.len(),
        games: outcomes.iter().map(|o| o.session.games.len()).sum(),
        figures,
        with_fit: fit.is_some(),
    }
}

/// A ratio figure over players (a `share`, else a mean count, at least
/// one) and its 95 % interval; no interval below two players. The interval is
/// normal on the scale where the figure is unbounded and then mapped back
/// (the delta method): a share's on the logit scale, a mean of games on
/// the log scale, so a share near 0 or 1 or a long-tailed mean of games
/// gets the asymmetric interval it needs (measured: a share of players
/// returning after 10 games, near 0.1, covered 0.870 on the plain scale
/// and 0.926 on the logit scale, `docs/benchmarks.md#calibration`).
fn interval(parts: &[(f64, f64)], scores: &[&[f64]], fit: Option<&Uncertainty>, share: bool) -> Figure {
    let (value, noise) = clustered_ratio(parts);
    let fit = fit.map_or(0.0, |u| u.variance(parts, scores));
    let ci = (value.is_finite() && noise.is_finite()).then(|| {
        let half = 1.96 * (noise + fit).sqrt();
        let (floor, ceiling) = if share { (0.0, 1.0) } else { (1.0, f64::INFINITY) };
        if share && value > 0.0 && value < 1.0 {
            let s = half / (value * (1.0 - value));
            let logit = (value / (1.0 - value)).ln();
            let back = |x: f64| 1.0 / (1.0 + (-x).exp());
            (back(logit - s), back(logit + s))
        } else if !share && value > 0.0 {
            let s = half / value;
            ((value * (-s).exp()).max(floor), (value * s.exp()).min(ceiling))
        } else {
            ((value - half).max(floor), (value + half).min(ceiling))
        }
    });
    Figure { value, ci }
}

/// The rounds a reach curve is told at, to `last`: every round to 50, then
/// about a hundred steps.
pub fn curve_rounds(last: u32) -> Vec<u32> {
    let step = (last / 100).max(1);
    (0..=last.min(50))
        .chain((51..=last).filter(|r| r % step == 0))
        .collect()
}

/// The share of games reaching each round of `curve_rounds(last)`, with
/// its interval as `summarize` gives a reach: a forecast's reach curve.
pub fn reach_curve(outcomes: &[&Outcome], fit: Option<&Uncertainty>, last: u32) -> Vec<(u32, Figure)> {
    let scores: Vec<&[f64]> = outcomes.iter().map(|o| o.score.as_slice()).collect();
    curve_rounds(last)
        .into_iter()
        .map(|r| {
            let parts: Vec<(f64, f64)> = outcomes
                .iter()
                .map(|o| {
                    let games = &o.session.games;
                    (
                        games.iter().filter(|g| g.rounds >= r).count() as f64,
                        games.len() as f64,
                    )
                })
                .collect();
            (r, interval(&parts, &scores, fit, true))
        })
        .collect()
}

/// The share of a log's games reaching each round of `curve_rounds(last)`.
pub fn observed_reach(sessions: &[Session], last: u32) -> Vec<(u32, f64)> {
    let games: Vec<u32> = sessions
        .iter()
        .flat_map(|s| s.games.iter().map(|g| g.rounds))
        .collect();
    let n = games.len().max(1) as f64;
    curve_rounds(last)
        .into_iter()
        .map(|r| (r, games.iter().filter(|&&g| g >= r).count() as f64 / n))
        .collect()
}

/// The gain of `a` over `b` on figure `figure` (`NAMES`' index), the same
/// players under both (a forecast's arms are paired): over every player,
/// and per skill decile of `a`'s players (`deciles`' order). Each a
/// relative gain with its 95 % interval (`stats::inference::paired_gain`).
pub fn paired_gains(a: &[Outcome], b: &[Outcome], figure: usize) -> (Option<Gain>, Vec<Option<Gain>>) {
    let by_player: std::collections::HashMap<usize, &Outcome> = b.iter().map(|o| (o.player, o)).collect();
    let pairs = |group: &[&Outcome]| -> Option<Gain> {
        let (mut pa, mut pb) = (Vec::new(), Vec::new());
        for o in group {
            if let Some(other) = by_player.get(&o.player) {
                pa.push(ratio_parts(&o.session)[figure]);
                pb.push(ratio_parts(&other.session)[figure]);
            }
        }
        paired_gain(&pa, &pb)
    };
    let all: Vec<&Outcome> = a.iter().collect();
    (pairs(&all), deciles(a).iter().map(|d| pairs(d)).collect())
}

/// The players of each skill decile, least skilled first.
pub fn deciles(outcomes: &[Outcome]) -> Vec<Vec<&Outcome>> {
    let mut sorted: Vec<&Outcome> = outcomes.iter().collect();
    sorted.sort_by(|a, b| a.skill.total_cmp(&b.skill).then(a.player.cmp(&b.player)));
    let n = sorted.len();
    (0..10)
        .map(|d| sorted[d * n / 10..(d + 1) * n / 10].to_vec())
        .collect()
}

fn show(x: f64) -> String {
    if x.is_finite() {
        format!("{:.4}", x + 0.0)
    } else {
        "none".to_owned()
    }
}

impl Forecast {
    /// The CLI's line: `generator=G players=N games=M reach_10=.. reach_10_ci=lo,hi ...`.
    pub fn line(&self) -> String {
        let mut out = format!(
            "generator={} players={} games={}",
            self.generator, self.players, self.games
        );
        for (name, f) in NAMES.iter().zip(&self.figures) {
            out.push_str(&format!(" {name}={}", show(f.value)));
            match f.ci {
                Some((lo, hi)) => out.push_str(&format!(" {name}_ci={},{}", show(lo), show(hi))),
                None => out.push_str(&format!(" {name}_ci=none")),
            }
        }
        out
    }

    pub fn figure(&self, name: &str) -> Option<Figure> {
        NAMES.iter().position(|n| *n == name).map(|j| self.figures[j])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A share near 0 gets an interval on the logit scale: inside (0, 1),
    /// longer above than below; a mean of games one on the log scale,
    /// never under its floor; a share of exactly 0 keeps its point.
    #[test]
    fn intervals_respect_their_scales() {
        let parts: Vec<(f64, f64)> = (0..200)
            .map(|i| (f64::from(u8::from(i % 20 == 0)), 1.0))
            .collect();
        let f = interval(&parts, &[], None, true);
        let (lo, hi) = f.ci.unwrap();
        assert!((f.value - 0.05).abs() < 1e-12);
        assert!(lo > 0.0 && hi < 1.0 && hi - f.value > f.value - lo, "{lo} {hi}");
        // The same standard error as the plain interval, at the point.
        let (_, var) = clustered_ratio(&parts);
        let plain = 1.96 * var.sqrt();
        assert!(
            (hi - lo) > 2.0 * plain * 0.9 && (hi - lo) < 2.0 * plain * 1.3,
            "{lo} {hi} {plain}"
        );
        let games: Vec<(f64, f64)> = (0..50).map(|i| (f64::from(1 + i % 7), 1.0)).collect();
        let g = interval(&games, &[], None, false);
        let (lo, hi) = g.ci.unwrap();
        assert!(lo >= 1.0 && hi - g.value > g.value - lo, "{lo} {hi}");
        let none: Vec<(f64, f64)> = (0..10).map(|_| (0.0, 1.0)).collect();
        assert_eq!(interval(&none, &[], None, true).ci, Some((0.0, 0.0)));
        assert_eq!(interval(&none[..1], &[], None, true).ci, None);
    }
}
