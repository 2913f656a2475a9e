//! Which model explains a log: every choice model and lookahead fitted on
//! part of the games and scored on the rest (k-fold over whole games), by
//! the held-out log-likelihood per move with its standard error over games.
//! Every model is fitted and scored on the same moves: those all of them
//! explain (a planner cannot explain a move in a deal no plan places
//! whole), so the scores and the paired margin compare like with like.

use crate::fits::player::{self as fit, Decision, Decisions};
use crate::fits::player_value as fit_value;
use crate::io::playtest_log::Log;
use crate::model::shapes::Shapes;
use crate::play::coelho::CoelhoWeights;
use crate::play::player::Lookahead;
use crate::progress::Progress;
use crate::stats::inference::{MIN_PAIRED, t_975};

/// A model of how a player chooses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Model {
    Rank {
        lookahead: Lookahead,
        evaluation: CoelhoWeights,
    },
    Value {
        lookahead: Lookahead,
        free: [bool; 5],
    },
}

impl Model {
    /// "rank-piece-10025", "value-holder", "value-piece-145" (a subset of
    /// the criteria, numbered from 1).
    pub fn name(&self) -> String {
        let look = |l: &Lookahead| match l {
            Lookahead::Piece => "piece",
            Lookahead::Holder => "holder",
        };
        match self {
            Model::Rank {
                lookahead,
                evaluation,
            } => format!("rank-{}-{evaluation}", look(lookahead)),
            Model::Value { lookahead, free } => {
                let mut n = format!("value-{}", look(lookahead));
                if free.iter().any(|f| !f) {
                    n.push('-');
                    n.extend((0..5).filter(|&j| free[j]).map(|j| char::from(b'1' + j as u8)));
                }
                n
            }
        }
    }

    pub fn lookahead(&self) -> Lookahead {
        match self {
            Model::Rank { lookahead, .. } | Model::Value { lookahead, .. } => *lookahead,
        }
    }

    /// The four models `--compare` fits: each choice model with each
    /// lookahead (rank under `evaluation`, value over `free`).
    pub fn all(evaluation: CoelhoWeights, free: [bool; 5]) -> Vec<Model> {
        [Lookahead::Piece, Lookahead::Holder]
            .into_iter()
            .flat_map(|lookahead| {
                [
                    Model::Rank {
                        lookahead,
                        evaluation,
                    },
                    Model::Value { lookahead, free },
                ]
            })
            .collect()
    }

    /// Fits the model to `train` and scores each of `test`.
    fn fit_and_score(&self, train: &Decisions, test: &[&Decision]) -> Vec<f64> {
        match self {
            Model::Rank { .. } => {
                let f = fit::fit_point(&train.list);
                test.iter().map(|d| d.rank_chance(f.0, f.1).ln()).collect()
            }
            Model::Value { free, .. } => {
                // The point alone: the folds need no intervals.
                let (beta, slip) = fit_value::fit_value_point(train, *free);
                test.iter()
                    .map(|d| fit_value::log_chance(d, &beta, slip))
                    .collect()
            }
        }
    }
}

/// A model's held-out score.
#[derive(Clone, Debug, PartialEq)]
pub struct Scored {
    pub model: Model,
    pub per_move: f64,
    /// Its standard error, over games (the games are the folds' units).
    pub se: f64,
    /// Each game's held-out log-likelihood and moves.
    pub per_game: Vec<(f64, usize)>,
    /// Moves the model could not score (a planner's in deals no plan
    /// places whole), left out.
    pub unexplained: usize,
}

/// The models ranked, best first.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub ranked: Vec<Scored>,
    pub folds: usize,
    pub games: usize,
    /// The moves every model was scored on, and the log's moves left out
    /// because some model could not explain them.
    pub moves: usize,
    pub left_out: usize,
    /// The best's margin over the next in standard errors of their paired
    /// per-game difference; `None` with fewer than two models or games.
    pub margin_se: Option<f64>,
}

impl Comparison {
    /// The margin a best model needs, in standard errors: Student's t at
    /// 95 % with one degree of freedom fewer than the games.
    pub fn needed_margin(&self) -> f64 {
        t_975(self.games.saturating_sub(1))
    }

    /// A best model needs `MIN_PAIRED` games (below that a standard error
    /// over games is itself a guess: two games can put a margin at 60 of
    /// them) and a margin of Student's t at 95 % over the next.
    pub fn decided(&self) -> bool {
        self.games >= MIN_PAIRED && self.margin_se.is_some_and(|m| m >= self.needed_margin())
    }

    /// Why the log cannot name a best model, when it cannot: the sentence
    /// the CLI prints (after "undecided: ") and the Fit view shows.
    pub fn undecided(&self) -> Option<String> {
        let name = |i: usize| {
            self.ranked
                .get(i)
                .map_or("another model".to_owned(), |s| s.model.name())
        };
        if self.decided() {
            return None;
        }
        Some(if self.games < MIN_PAIRED {
            format!(
                "{} cannot tell models apart: a standard error over games needs at least {MIN_PAIRED}; log more games",
                crate::text::count(self.games as u64, "game", "games")
            )
        } else {
            format!(
                "{} games in {} folds cannot tell {} from {} apart (a margin under {:.2} standard errors, Student's t at 95 %); log more games",
                self.games,
                self.folds,
                name(0),
                name(1),
                self.needed_margin()
            )
        })
    }
}

/// Σ over games of (ll - r·moves)², the spread of a per-move ratio.
fn ratio_se(per_game: &[(f64, usize)]) -> f64 {
    let per_game: Vec<(f64, usize)> = per_game.iter().copied().filter(|x| x.1 > 0).collect();
    let g = per_game.len();
    let moves: usize = per_game.iter().map(|x| x.1).sum();
    if g < 2 || moves == 0 {
        return f64::INFINITY;
    }
    let r = per_game.iter().map(|x| x.0).sum::<f64>() / moves as f64;
    let ss: f64 = per_game.iter().map(|(l, n)| (l - r * *n as f64).powi(2)).sum();
    (ss * g as f64 / (g as f64 - 1.0)).sqrt() / moves as f64
}

/// Scores every model by k-fold cross-validation over whole games (game
/// g in fold g mod k). Decisions are built once per lookahead. `None` when
/// cancelled.
pub fn compare(
    shapes: &Shapes,
    log: &Log,
    models: &[Model],
    folds: usize,
    progress: &Progress,
) -> Option<Comparison> {
    let games = log.games.last().map_or(0, |g| g + 1);
    let folds = folds.clamp(2, games.max(2));
    let mut built: Vec<(Lookahead, CoelhoWeights, Decisions)> = Vec::new();
    let mut uses = Vec::new();
    for model in models {
        let evaluation = match model {
            Model::Rank { evaluation, .. } => *evaluation,
            Model::Value { .. } => built
                .iter()
                .find(|b| b.0 == model.lookahead())
                .map_or(CoelhoWeights::BEST, |b| b.1),
        };
        let at = match built
            .iter()
            .position(|b| b.0 == model.lookahead() && b.1 == evaluation)
        {
            Some(i) => i,
            None => {
                let d = fit::decisions(shapes, model.lookahead(), evaluation, log, progress)?;
                built.push((model.lookahead(), evaluation, d));
                built.len() - 1
            }
        };
        uses.push(at);
    }
    let common = common_moves(built.iter().map(|b| &b.2.list));
    let mut ranked = Vec::new();
    for (model, &at) in models.iter().zip(&uses) {
        let all = Decisions {
            list: built[at]
                .2
                .list
                .iter()
                .filter(|d| common.contains(&d.at))
                .cloned()
                .collect(),
            unexplained: built[at].2.unexplained,
        };
        let all = &all;
        let mut per_game = vec![(0.0, 0usize); games];
        for f in 0..folds {
            if progress.cancelled() {
                return None;
            }
            let train = Decisions {
                list: all.list.iter().filter(|d| d.game % folds != f).cloned().collect(),
                unexplained: 0,
            };
            let test: Vec<&Decision> = all.list.iter().filter(|d| d.game % folds == f).collect();
            if train.list.is_empty() || test.is_empty() {
                continue;
            }
            for (d, ll) in test.iter().zip(model.fit_and_score(&train, &test)) {
                per_game[d.game].0 += ll;
                per_game[d.game].1 += 1;
            }
        }
        let moves: usize = per_game.iter().map(|g| g.1).sum();
        ranked.push(Scored {
            model: *model,
            per_move: per_game.iter().map(|g| g.0).sum::<f64>() / moves.max(1) as f64,
            se: ratio_se(&per_game),
            // By game number (games without moves too), for paired
            // differences.
            per_game,
            unexplained: all.unexplained,
        });
    }
    ranked.sort_by(|a, b| b.per_move.total_cmp(&a.per_move));
    let margin_se = match ranked.as_slice() {
        [a, b, ..] if a.per_game.len() == b.per_game.len() && a.per_game.len() >= 2 => {
            let diff: Vec<(f64, usize)> = a
                .per_game
                .iter()
                .zip(&b.per_game)
                .map(|(x, y)| (x.0 - y.0, x.1))
                .collect();
            let moves: usize = diff.iter().map(|d| d.1).sum();
            let margin = diff.iter().map(|d| d.0).sum::<f64>() / moves.max(1) as f64;
            Some(margin / ratio_se(&diff))
        }
        _ => None,
    };
    Some(Comparison {
        ranked,
        folds,
        games,
        moves: common.len(),
        left_out: log.moves.saturating_sub(common.len()),
        margin_se,
    })
}

/// The moves (deal, place) every list of decisions holds.
fn common_moves<'a>(
    lists: impl Iterator<Item = &'a Vec<Decision>>,
) -> std::collections::HashSet<(usize, usize)> {
    let mut common: Option<std::collections::HashSet<(usize, usize)>> = None;
    for list in lists {
        let keys: std::collections::HashSet<(usize, usize)> = list.iter().map(|d| d.at).collect();
        common = Some(match common {
            None => keys,
            Some(c) => c.intersection(&keys).copied().collect(),
        });
    }
    common.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::classic;
    use crate::io::playtest_log::Log;
    use crate::model::board::BoardSize;
    use crate::play::player::{Choice, Player};

    /// A log whose lost deals carry the placements made before the player
    /// was stuck: a planner cannot explain those moves (no plan places the
    /// whole holder), a piece-at-a-time player can. Every model is still
    /// scored on the same moves.
    #[test]
    fn every_model_is_scored_on_the_moves_all_of_them_explain() {
        let (set, shapes) = classic();
        let player = Player {
            name: "p".to_owned(),
            choice: Choice::Rank,
            beta: [0.0; 5],
            evaluation: CoelhoWeights::BEST,
            lookahead: Lookahead::Piece,
            temperature: 0.5,
            slip: 0.05,
        };
        let places = fit::record_places(&shapes, &set, 3, &player, 5, 400);
        let mut deals = Vec::new();
        let mut games = Vec::new();
        let mut stuck = 0;
        for (d, place) in places {
            if place.ended {
                stuck += d.moves.len();
            }
            deals.push(d);
            games.push(place.game as usize);
        }
        let moves = deals.iter().map(|d| d.moves.len()).sum();
        let log = Log {
            size: BoardSize::CLASSIC,
            deals,
            moves,
            after_gap: vec![false; games.len()],
            games,
            generator: None,
            notes: Vec::new(),
        };
        let models = Model::all(CoelhoWeights::BEST, [true; 5]);
        let c = compare(&shapes, &log, &models, 3, &Progress::default()).unwrap();
        assert!(stuck > 0, "the log has a lost deal with a placement");
        assert!(
            c.left_out > 0 && c.left_out <= stuck,
            "left out {} of {stuck}",
            c.left_out
        );
        assert_eq!(c.moves + c.left_out, log.moves);
        for s in &c.ranked {
            let scored: usize = s.per_game.iter().map(|g| g.1).sum();
            assert_eq!(scored, c.moves, "{} scored {scored} moves", s.model.name());
        }
        // The intersection itself.
        let at = |keys: &[(usize, usize)]| -> Vec<Decision> {
            keys.iter()
                .map(|&at| Decision {
                    game: 0,
                    at,
                    slip: fit::SlipLaw::AnyMove(0.1),
                    options: Vec::new(),
                })
                .collect()
        };
        let (a, b) = (at(&[(0, 0), (0, 1), (1, 0)]), at(&[(0, 1), (1, 0), (2, 0)]));
        let common = common_moves([&a, &b].into_iter());
        assert_eq!(common.len(), 2);
        assert!(common.contains(&(0, 1)) && common.contains(&(1, 0)));
        assert!(common_moves(std::iter::empty()).is_empty());
    }

    fn comparison(games: usize, margin_se: Option<f64>) -> Comparison {
        Comparison {
            ranked: Vec::new(),
            folds: games.clamp(2, 5),
            games,
            moves: 0,
            left_out: 0,
            margin_se,
        }
    }

    #[test]
    fn a_best_model_needs_ten_games_and_students_margin() {
        // Two long games (the casual preset's log) can put a margin at 62
        // standard errors: no verdict.
        let two = comparison(2, Some(62.2));
        assert!(!two.decided());
        let why = two.undecided().unwrap();
        assert!(why.starts_with("2 games cannot tell models apart"), "{why}");
        assert!(why.contains("at least 10"), "{why}");
        // Forty-nine games: t at 95 % with 48 degrees of freedom is 2.01.
        assert!((comparison(49, None).needed_margin() - 2.0106).abs() < 1e-3);
        assert!(comparison(49, Some(24.4)).decided());
        assert!(comparison(49, Some(24.4)).undecided().is_none());
        let close = comparison(49, Some(2.0));
        assert!(!close.decided(), "2.0 is under 2.01");
        assert!(close.undecided().unwrap().contains("under 2.01 standard errors"));
        // Ten games: t with 9 degrees of freedom is 2.26.
        assert!(!comparison(10, Some(2.2)).decided());
        assert!(comparison(10, Some(2.3)).decided());
        // No margin (fewer than two models), or none games at all.
        assert!(!comparison(49, None).decided());
        assert!(comparison(0, None).undecided().unwrap().starts_with("0 games"));
    }
}
