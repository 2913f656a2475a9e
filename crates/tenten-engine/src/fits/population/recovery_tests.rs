//! A population fits back from cohorts drawn from it: the true parameters
//! taken from a seeded range, every population parameter inside its 95 %
//! interval in at least 18 of 20 cohorts (a 95 % interval misses one time
//! in twenty; 18 of 20 or more happens with chance 0.92 when it is honest).
//! A population with no spread fits spreads whose intervals hold 0. A
//! forecast under another generator holds the truth; a check passes.

use rayon::prelude::*;

use crate::fits::population::cohort::cohort;
use crate::fits::population::file::{LogNormal, LogitNormal, Population, by_name};
use crate::fits::population::fit::{Model, PopulationFit, fit_population};
use crate::fits::population::forecast::{Outcome, play_players, summarize};
use crate::fits::population::quit::Quit;
use crate::fits::population::session::Table as Rules;
use crate::fits::population::session::Table;
use crate::fits::population::uncertainty::Uncertainty;
use crate::io::jsonl_log::LogFile;
use crate::model::board::BoardSize;
use crate::model::generator::Generator;
use crate::model::pieces::PieceSet;
use crate::model::shapes::Shapes;
use crate::play::dealing::Dealing;
use crate::play::player::{Choice, Lookahead};
use crate::progress::Progress;
use crate::search::changer::ChangeOptions;

fn rank_model() -> Model {
    Model {
        choice: Choice::Rank,
        lookahead: Lookahead::Piece,
        evaluation: crate::play::coelho::CoelhoWeights::BEST,
        free: [true; 5],
    }
}

/// A cohort of `population` under `generator`, fitted back.
fn fit_cohort(
    population: &Population,
    size: BoardSize,
    generator: &str,
    (testers, sessions): (usize, usize),
    seed: u64,
) -> (PopulationFit, Vec<LogFile>) {
    let set = PieceSet::classic();
    let shapes = Shapes::new(&set, size);
    let dealing = Dealing::by_name(generator, &set).unwrap();
    let table = Table {
        shapes: &shapes,
        set: &set,
        k: 3,
        dealing: &dealing,
        options: ChangeOptions::default(),
        max_rounds: 1_000,
    };
    let never = Progress::default();
    let logs: Vec<LogFile> = cohort(population, &table, generator, testers, sessions, seed, &never)
        .unwrap()
        .into_iter()
        .map(|l| LogFile::Text {
            name: format!("{}.jsonl", l.id),
            text: l.text,
        })
        .collect();
    let fit = fit_population("fitted", &rank_model(), &logs, &set, &never)
        .unwrap()
        .unwrap();
    (fit, logs)
}

/// Draws a population from the seeded range.
fn drawn(seed: u64) -> Population {
    let mut rng = Generator::new(seed);
    let mut between = |lo: f64, hi: f64| lo + (hi - lo) * rng.unit();
    let mut p = by_name("demo").unwrap();
    p.temperature = Some(LogNormal {
        median: between(0.4, 1.5),
        log_sd: between(0.2, 0.6),
    });
    p.slip = LogitNormal {
        median: between(0.01, 0.06),
        logit_sd: between(0.2, 0.8),
    };
    p.quit = Quit {
        base: between(0.15, 0.3),
        unfair_odds: between(1.5, 4.0),
        per_log_round: between(-0.2, 0.0),
        ..p.quit
    };
    p
}

fn inside(x: f64, (lo, hi): (f64, f64)) -> bool {
    lo <= x && x <= hi
}

#[test]
fn populations_fit_back_from_twenty_seeded_cohorts() {
    let size = BoardSize::new(8, 8).unwrap();
    let covered: Vec<[bool; 7]> = (0..20u64)
        .into_par_iter()
        .map(|c| {
            let truth = drawn(100 + c);
            let (fit, _) = fit_cohort(&truth, size, "random", (40, 3), 1_000 + c);
            let t = truth.temperature.unwrap();
            let [temperature, slip] = [&fit.parameters[0].effects, &fit.parameters[1].effects];
            [
                inside(t.median.ln(), temperature.mean_ci),
                inside(t.log_sd, temperature.sd_ci),
                inside(
                    crate::fits::population::quit::logit(truth.slip.median),
                    slip.mean_ci,
                ),
                inside(truth.slip.logit_sd, slip.sd_ci),
                inside(truth.quit.unfair_odds, fit.unfair_odds_ci()),
                inside(truth.quit.base, fit.quit_base_ci()),
                inside(truth.quit.per_log_round, fit.quit_per_log_round_ci()),
            ]
        })
        .collect();
    let names = [
        "temperature median",
        "temperature spread",
        "slip median",
        "slip spread",
        "unfair odds",
        "quit base",
        "quit per log round",
    ];
    for (j, name) in names.iter().enumerate() {
        let hits = covered.iter().filter(|c| c[j]).count();
        eprintln!("{name}: inside its 95 % interval in {hits} of 20 cohorts");
        assert!(hits >= 18, "{name}: inside its interval in {hits} of 20 cohorts");
    }
}

#[test]
fn a_population_without_spread_fits_spreads_that_hold_zero() {
    let mut flat = by_name("demo").unwrap();
    flat.temperature = Some(LogNormal {
        median: 0.8,
        log_sd: 0.0,
    });
    flat.slip.logit_sd = 0.0;
    let (fit, _) = fit_cohort(&flat, BoardSize::new(8, 8).unwrap(), "random", (40, 3), 77);
    for p in &fit.parameters {
        assert_eq!(p.effects.sd_ci.0, 0.0, "{}: {:?}", p.name, p.effects);
        assert!(p.effects.sd < 0.2, "{}: {:?}", p.name, p.effects);
    }
    // And the line says so.
    let line = fit.line();
    assert!(line.contains("temperature_log_sd_ci=0.0000,"), "{line}");
    // The population file round-trips with its fit.
    let text = fit.population.to_ron();
    assert_eq!(Population::parse(&text, "fitted.ron").unwrap(), fit.population);
}

/// Fit a cohort played under `random`, forecast `block-blast-like`, and
/// compare with 20,000 players of the true population under it: every
/// reach and games per session inside the forecast's interval, no reach's
/// interval wider than ±0.06.
#[test]
fn a_population_fitted_under_random_forecasts_block_blast_like() {
    let truth = by_name("demo").unwrap();
    let (fit, _) = fit_cohort(&truth, BoardSize::CLASSIC, "random", (150, 2), 11);
    let set = PieceSet::classic();
    let shapes = Shapes::new(&set, BoardSize::CLASSIC);
    let dealing = Dealing::by_name("block-blast-like", &set).unwrap();
    let table = Rules {
        shapes: &shapes,
        set: &set,
        k: 3,
        dealing: &dealing,
        options: ChangeOptions::default(),
        max_rounds: 1_000,
    };
    let never = Progress::default();
    let forecast_players: Vec<Outcome> = play_players(&fit.population, &table, 0..4_000, 21, &never).unwrap();
    let forecast = summarize(
        "block-blast-like",
        &forecast_players.iter().collect::<Vec<_>>(),
        Uncertainty::of(&fit.population).as_ref(),
    );
    let true_players: Vec<Outcome> = play_players(&truth, &table, 0..20_000, 31, &never).unwrap();
    let real = summarize("block-blast-like", &true_players.iter().collect::<Vec<_>>(), None);
    for name in [
        "reach_10",
        "reach_25",
        "reach_50",
        "reach_100",
        "games_per_session",
    ] {
        let (f, t) = (forecast.figure(name).unwrap(), real.figure(name).unwrap());
        let (lo, hi) = f.ci.unwrap();
        eprintln!(
            "{name}: truth {:.4}, forecast {:.4} [{lo:.4}, {hi:.4}]",
            t.value, f.value
        );
        assert!(
            lo <= t.value && t.value <= hi,
            "{name}: truth {} outside [{lo}, {hi}]",
            t.value
        );
    }
    // The shares compared: each reach's interval within ±0.06.
    for name in ["reach_10", "reach_25", "reach_50", "reach_100"] {
        let (lo, hi) = forecast.figure(name).unwrap().ci.unwrap();
        assert!((hi - lo) / 2.0 <= 0.06, "{name}: ±{}", (hi - lo) / 2.0);
    }
}
