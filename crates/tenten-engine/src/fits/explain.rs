//! Which model explains a log, and how well: every model compared on
//! held-out games, the best fitted to the whole log with its intervals, its
//! moves checked (top-1, mean chance, calibration) and its games checked
//! (its survival on the log's generator against the log's). The CLI's
//! `fit-player --compare` prints this; the Lab's Fit view draws it.

use crate::fits::compare::{self, Comparison, Model};
use crate::fits::player::{self as fit, Fit};
use crate::fits::player_check::{self as fit_check, MoveCheck, SurvivalCheck};
use crate::fits::player_value::{self as fit_value, ValueFit};
use crate::io::playtest_log::Log;
use crate::model::board::BoardSize;
use crate::model::pieces::PieceSet;
use crate::model::shapes::Shapes;
use crate::play::coelho::CoelhoWeights;
use crate::play::player::{Lookahead, Player};
use crate::progress::Progress;

/// The fit of one model to a log.
#[derive(Clone, Debug)]
pub enum Fitted {
    Rank(Fit, CoelhoWeights),
    Value(ValueFit),
}

impl Fitted {
    pub fn player(&self, name: &str, lookahead: Lookahead) -> Player {
        match self {
            Fitted::Rank(f, e) => f.player(name, *e, lookahead),
            Fitted::Value(f) => f.player(name, lookahead),
        }
    }

    /// The player file, with a comment naming `source`.
    pub fn file(&self, source: &str, name: &str, lookahead: Lookahead) -> String {
        match self {
            Fitted::Rank(f, e) => f.player_file(source, name, *e, lookahead),
            Fitted::Value(f) => f.player_file(source, name, lookahead),
        }
    }
}

/// Fits `model` to the whole log, with its intervals.
pub fn fit_model(shapes: &Shapes, log: &Log, model: &Model, progress: &Progress) -> Option<Fitted> {
    match *model {
        Model::Rank {
            lookahead,
            evaluation,
        } => {
            let d = fit::decisions(shapes, lookahead, evaluation, log, progress)?;
            Some(Fitted::Rank(fit::fit(&d), evaluation))
        }
        Model::Value { lookahead, free } => {
            let d = fit::decisions(shapes, lookahead, CoelhoWeights::BEST, log, progress)?;
            Some(Fitted::Value(fit_value::fit_value(&d, free)))
        }
    }
}

/// What `explain` is asked.
#[derive(Clone, Debug)]
pub struct Ask {
    pub folds: usize,
    /// The rank models' criteria weights, and the criteria the value
    /// models fit.
    pub evaluation: CoelhoWeights,
    pub criteria: [bool; 5],
    /// The survival check's generator (the log's own when `None`, else
    /// `random`), games and first seed.
    pub generator: Option<String>,
    pub games: usize,
    pub seed: u64,
    pub name: String,
}

/// The answer.
#[derive(Clone, Debug)]
pub struct Explanation {
    /// The log's board (its cells are the free-cell criterion's range).
    pub size: BoardSize,
    pub comparison: Comparison,
    pub best: Model,
    pub fitted: Fitted,
    pub player: Player,
    pub moves: MoveCheck,
    /// The generator asked for, the round cap, and the check (`None` when
    /// the generator is not a preset).
    pub generator: String,
    pub cap: u32,
    pub survival: Option<SurvivalCheck>,
}

/// The survival check's round cap: four times the longest logged game,
/// within 100 to 5,000.
pub fn survival_cap(log: &Log) -> u32 {
    let longest = fit_check::observed_games(log)
        .iter()
        .map(|g| g.0)
        .max()
        .unwrap_or(0);
    longest.saturating_mul(4).clamp(100, 5_000)
}

/// Compares every model, fits the best and checks it. `None` when
/// cancelled.
pub fn explain(set: &PieceSet, log: &Log, ask: &Ask, progress: &Progress) -> Option<Explanation> {
    let shapes = Shapes::new(set, log.size);
    let models = Model::all(ask.evaluation, ask.criteria);
    let comparison = compare::compare(&shapes, log, &models, ask.folds, progress)?;
    let best = comparison.ranked[0].model;
    let fitted = fit_model(&shapes, log, &best, progress)?;
    let player = fitted.player(&ask.name, best.lookahead());
    let predictions = fit_check::predictions(&shapes, &player, &log.deals, progress)?;
    let moves = fit_check::check_moves(&predictions);
    let generator = ask
        .generator
        .clone()
        .or(log.generator.clone())
        .unwrap_or_else(|| "random".to_owned());
    let k = log.deals.first().map_or(3, |d| d.holder.len());
    let cap = survival_cap(log);
    let survival = fit_check::survival_check(
        set, log, k, &player, &generator, ask.games, ask.seed, cap, progress,
    );
    if progress.cancelled() {
        return None;
    }
    Some(Explanation {
        size: log.size,
        comparison,
        best,
        fitted,
        player,
        moves,
        generator,
        cap,
        survival,
    })
}
