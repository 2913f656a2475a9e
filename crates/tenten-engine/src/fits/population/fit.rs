//! Fitting a population to many testers' logs, in two stages:
//!
//! 1. every tester's own fit (in parallel), by maximum likelihood on the
//!    working scales, ln(temperature) and logit(slip) (or the β and
//!    logit(slip)), with standard errors from the observed information;
//! 2. each parameter's mean and spread across testers by the random-effects
//!    model with those standard errors as measurement error
//!    (`stats::meta`: REML, a spread below the noise near zero), and each
//!    tester's shrunken estimate;
//!
//! and the quit model by logistic regression over game ends: after each
//! game, did the player stop? A game lost on an unsolvable deal that a
//! solvable one could have replaced is unfair (`game::lost_to`, as in
//! self-play); a session's last game is a quit, unless the session ran to
//! `quit::MAX_GAMES` or its last game never ended.

use std::collections::BTreeMap;

use nalgebra::DMatrix;
use rayon::prelude::*;

use crate::fits::player::{Ranked, decisions, fit_point};
use crate::fits::player_value::{CRITERIA, fit_value_working};
use crate::fits::population::churn;
use crate::fits::population::file::{BetaNormal, Fitted, LogNormal, LogitNormal, Population, Tester};
use crate::fits::population::quit::{MAX_GAMES, Quit, logistic as sigmoid, logit};
use crate::fits::population::session::{Played, Session};
use crate::io::formats::FormatError;
use crate::io::jsonl_log::{self, LogFile};
use crate::io::playtest_log::{self, Log, Logged};
use crate::model::board::BoardSize;
use crate::model::pieces::PieceSet;
use crate::model::shapes::Shapes;
use crate::play::coelho::CoelhoWeights;
use crate::play::game::{End, lost_to};
use crate::play::player::{Choice, Lookahead};
use crate::progress::Progress;
use crate::stats::logistic;
use crate::stats::meta::{RandomEffects, random_effects};

/// What model the testers are fitted under.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub choice: Choice,
    pub lookahead: Lookahead,
    /// Rank choice's criteria.
    pub evaluation: CoelhoWeights,
    /// Value choice: the criteria fitted (the others held at 0).
    pub free: [bool; 5],
}

/// One tester's deals, gathered from every log that names it, in
/// (session, game, round) order.
#[derive(Debug, Default)]
pub struct TesterData {
    pub id: String,
    pub deals: Vec<Logged>,
    /// Each deal's (session, game in session, ended).
    pub keys: Vec<(String, u64, bool)>,
    /// Each deal: whether it comes after a missing round of its game.
    pub after_gap: Vec<bool>,
}

/// The testers of a set of logs.
#[derive(Debug)]
pub struct Gathered {
    pub size: BoardSize,
    pub testers: Vec<TesterData>,
    /// What reading noticed: records out of order, gaps.
    pub notes: Vec<String>,
    /// The generator the logs name (the first record that does).
    pub generator: Option<String>,
}

/// Reads the logs (JSON Lines: they say whose deal each is and in which
/// session), streamed, and gathers each tester's deals in key order,
/// testers sorted by id.
pub fn gather(logs: &[LogFile], set: &PieceSet) -> Result<Gathered, FormatError> {
    let ordered = jsonl_log::Reader::read_all(set, logs)?;
    let generator = ordered.entries.iter().find_map(|e| e.generator.clone());
    let mut testers: Vec<TesterData> = Vec::new();
    for e in ordered.entries {
        if testers.last().is_none_or(|t| t.id != e.key.player) {
            testers.push(TesterData {
                id: e.key.player.clone(),
                ..Default::default()
            });
        }
        if let Some(t) = testers.last_mut() {
            t.deals.push(e.deal);
            t.keys.push((e.key.session, e.key.game, e.ended));
            t.after_gap.push(e.after_gap);
        }
    }
    Ok(Gathered {
        size: ordered.size,
        testers,
        notes: ordered.notes,
        generator,
    })
}

impl TesterData {
    /// The deals as one log (games numbered in order).
    fn log(&self, size: BoardSize) -> Log {
        let games = playtest_log::game_numbers(&self.keys, |a, b| a.0 == b.0 && a.1 == b.1);
        Log {
            size,
            moves: self.deals.iter().map(|d| d.moves.len()).sum(),
            deals: self.deals.clone(),
            games,
            after_gap: self.after_gap.clone(),
            generator: None,
            notes: Vec::new(),
        }
    }

    /// The sessions the log holds: each game's length and end, and whether
    /// the player stopped after its last game. A game cut by a gap is
    /// censored at the gap. A game left before any move (a new game asked
    /// for at once, or a session left on the game just begun) was not
    /// played: it is no game, and a session of none is no session (the
    /// playtest server's history skips it alike, `Table::leave`).
    pub fn sessions(&self, shapes: &Shapes, set: &PieceSet) -> Vec<Session> {
        let mut out: Vec<(String, Session)> = Vec::new();
        let mut i = 0;
        while i < self.deals.len() {
            let (session, game) = (&self.keys[i].0, self.keys[i].1);
            let mut j = i;
            while j < self.deals.len() && &self.keys[j].0 == session && self.keys[j].1 == game {
                j += 1;
            }
            // A game seen only after a gap was played in the rounds missing.
            let played =
                self.keys[j - 1].2 || (i..j).any(|d| !self.deals[d].moves.is_empty() || self.after_gap[d]);
            if !played {
                i = j;
                continue;
            }
            let cut = (i..j).find(|&d| self.after_gap[d]);
            let last = &self.deals[j - 1];
            let ended = cut.is_none() && (self.keys[j - 1].2 || last.moves.len() < last.holder.len());
            let rounds = (i..cut.unwrap_or(j))
                .filter(|&d| self.deals[d].moves.len() == self.deals[d].holder.len() && !self.keys[d].2)
                .count() as u32;
            let end = if ended {
                lost_to(shapes, set, last.board, &last.holder, false)
            } else {
                End::Censored
            };
            if out.last().is_none_or(|s| &s.0 != session) {
                out.push((
                    session.clone(),
                    Session {
                        games: Vec::new(),
                        quit: false,
                    },
                ));
            }
            if let Some(s) = out.last_mut() {
                s.1.games.push(Played { rounds, end });
            }
            i = j;
        }
        // A session stopped unless it ran to the cap; a session whose last
        // game never ended was cut off (telemetry often is), not quit: it
        // is censored for the quit model.
        out.into_iter()
            .map(|(_, mut s)| {
                let last_ended = s.games.last().is_some_and(|g| g.end != End::Censored);
                s.quit = s.games.len() < MAX_GAMES && last_ended;
                s
            })
            .collect()
    }
}

/// A tester's fit on the working scales.
#[derive(Clone, Debug, PartialEq)]
pub struct TesterFit {
    pub moves: usize,
    pub estimate: Vec<f64>,
    pub se: Vec<f64>,
}

/// Bounds of the rank fit's working scales: temperatures 0.005 to 200,
/// slips e^-10 (4.5e-5) to 0.9975.
const LN_T: (f64, f64) = (-5.298_317_366_548_036, 5.298_317_366_548_036);
const LOGIT_S: (f64, f64) = (-10.0, 6.0);

/// The observed information's inverse at `x` of log-likelihood `ll`
/// (central differences); infinite variances where it is singular.
fn covariance(ll: &dyn Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let h = 1e-3;
    let f0 = ll(x);
    let at = |d: &[(usize, f64)]| {
        let mut y = x.to_vec();
        for &(i, s) in d {
            y[i] += s;
        }
        ll(&y)
    };
    let mut m = DMatrix::<f64>::zeros(n, n);
    for i in 0..n {
        m[(i, i)] = -(at(&[(i, h)]) - 2.0 * f0 + at(&[(i, -h)])) / (h * h);
        for j in 0..i {
            let v = -(at(&[(i, h), (j, h)]) - at(&[(i, h), (j, -h)]) - at(&[(i, -h), (j, h)])
                + at(&[(i, -h), (j, -h)]))
                / (4.0 * h * h);
            m[(i, j)] = v;
            m[(j, i)] = v;
        }
    }
    match m.clone().cholesky() {
        Some(c) => {
            let inv = c.inverse();
            (0..n).map(|i| inv[(i, i)].sqrt()).collect()
        }
        None => (0..n)
            .map(|i| {
                if m[(i, i)] > 1e-9 {
                    (1.0 / m[(i, i)]).sqrt()
                } else {
                    f64::INFINITY
                }
            })
            .collect(),
    }
}

/// A tester's fit, its sessions, and (rank choice) its decisions, kept for
/// the slip's standard error at the testers' median.
type FitAndDecisions = (TesterFit, Vec<Session>, Vec<crate::fits::player::Decision>);

/// A rank tester's log-likelihood at (ln temperature, logit slip) with
/// Jeffreys' penalty on the slip, ½ ln(s (1 − s)) (Firth 1993 for a
/// share): a tester who never slipped gets a small slip, not the bound, and
/// the logit's small-sample bias shrinks. The calibration study measured
/// the population's slip median 0.0018 too high at 20 testers x 2
/// sessions without it.
fn penalised(ranked: &[Ranked], x: &[f64]) -> f64 {
    let (t, s) = (x[0].exp(), sigmoid(x[1]));
    let jeffreys = 0.5 * (sigmoid(x[1]).ln() + sigmoid(-x[1]).ln());
    ranked
        .iter()
        .map(|d| d.with_slip(d.chances(t), s).ln())
        .sum::<f64>()
        + jeffreys
}

/// The slip's standard error of each rank tester read at the testers'
/// median slip (its own temperature kept), so the weights of the
/// population's mean do not follow each tester's own estimate: a tester
/// whose slip came out high has a smaller standard error on the logit
/// scale, and weighting by it biased the mean upwards.
fn slip_se_at_median(fits: &[FitAndDecisions]) -> Vec<f64> {
    let mut slips: Vec<f64> = fits.iter().map(|f| f.0.estimate[1]).collect();
    slips.sort_by(f64::total_cmp);
    let mid = slips.get(slips.len() / 2).copied().unwrap_or(0.0);
    fits.par_iter()
        .map(|(fit, _, list)| {
            if list.is_empty() {
                return f64::INFINITY;
            }
            let ranked: Vec<Ranked> = list.iter().map(Ranked::new).collect();
            let ll = |x: &[f64]| penalised(&ranked, x);
            covariance(&ll, &[fit.estimate[0], mid])[1]
        })
        .collect()
}

/// Rank choice: (ln temperature, logit slip) by maximum likelihood, from
/// the grid's best point by Newton's method with halving steps, kept in
/// the bounds (a tester at a bound has a flat likelihood there: a large
/// standard error, and little weight in the population).
fn fit_rank(list: &[crate::fits::player::Decision]) -> TesterFit {
    if list.is_empty() {
        return TesterFit {
            moves: 0,
            estimate: vec![0.0, 0.0],
            se: vec![f64::INFINITY; 2],
        };
    }
    let ranked: Vec<Ranked> = list.iter().map(Ranked::new).collect();
    let ll = |x: &[f64]| penalised(&ranked, x);
    let clamp = |x: [f64; 2]| [x[0].clamp(LN_T.0, LN_T.1), x[1].clamp(LOGIT_S.0, LOGIT_S.1)];
    let (t, s) = fit_point(list);
    let mut x = clamp([t.max(1e-9).ln(), logit(s.clamp(1e-9, 1.0 - 1e-9))]);
    let mut f = ll(&x);
    for _ in 0..40 {
        let h = 1e-4;
        let g = [
            (ll(&[x[0] + h, x[1]]) - ll(&[x[0] - h, x[1]])) / (2.0 * h),
            (ll(&[x[0], x[1] + h]) - ll(&[x[0], x[1] - h])) / (2.0 * h),
        ];
        let hxx = (ll(&[x[0] + h, x[1]]) - 2.0 * f + ll(&[x[0] - h, x[1]])) / (h * h);
        let hyy = (ll(&[x[0], x[1] + h]) - 2.0 * f + ll(&[x[0], x[1] - h])) / (h * h);
        let hxy = (ll(&[x[0] + h, x[1] + h]) - ll(&[x[0] + h, x[1] - h]) - ll(&[x[0] - h, x[1] + h])
            + ll(&[x[0] - h, x[1] - h]))
            / (4.0 * h * h);
        let det = hxx * hyy - hxy * hxy;
        // Newton where the surface is concave, else a gradient step.
        let mut step = if hxx < 0.0 && det > 0.0 {
            [-(hyy * g[0] - hxy * g[1]) / det, -(hxx * g[1] - hxy * g[0]) / det]
        } else {
            [g[0] * 1e-3, g[1] * 1e-3]
        };
        let mut moved = false;
        for _ in 0..30 {
            let y = clamp([x[0] + step[0], x[1] + step[1]]);
            let fy = ll(&y);
            if fy > f {
                moved = (y[0] - x[0]).abs() + (y[1] - x[1]).abs() > 1e-9;
                x = y;
                f = fy;
                break;
            }
            step = [step[0] / 2.0, step[1] / 2.0];
        }
        if !moved {
            break;
        }
    }
    TesterFit {
        moves: list.len(),
        se: covariance(&ll, &x),
        estimate: x.to_vec(),
    }
}

/// One parameter of the population, fitted: its random effects, and how it
/// reads on its own scale.
#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    pub name: String,
    pub effects: RandomEffects,
}

/// A fitted population and what it was fitted to.
#[derive(Clone, Debug, PartialEq)]
pub struct PopulationFit {
    pub population: Population,
    pub testers: Vec<(String, TesterFit)>,
    /// The parameters on their working scales: ln temperature (or the β),
    /// then logit slip.
    pub parameters: Vec<Parameter>,
    pub quit: logistic::Logistic,
    pub moves: usize,
    pub games: usize,
    /// Game ends the quit model was fitted to, and the unfair ones.
    pub ends: usize,
    pub unfair_ends: usize,
    /// What reading the logs noticed: records out of order, gaps.
    pub notes: Vec<String>,
}

/// Fits `model` to every tester of `logs` and the population to them;
/// `None` when cancelled.
pub fn fit_population(
    name: &str,
    model: &Model,
    logs: &[LogFile],
    set: &PieceSet,
    progress: &Progress,
) -> Result<Option<PopulationFit>, FormatError> {
    let Gathered {
        size, testers, notes, ..
    } = gather(logs, set)?;
    if testers.is_empty() {
        return Err(FormatError::new(
            "fit-population",
            None,
            "the logs hold no testers",
        ));
    }
    let shapes = Shapes::new(set, size);
    progress.set_total(testers.len());
    let never = Progress::default();
    let fits: Option<Vec<FitAndDecisions>> = testers
        .par_iter()
        .map(|t| {
            if progress.cancelled() {
                return None;
            }
            let log = t.log(size);
            let all = decisions(&shapes, model.lookahead, model.evaluation, &log, &never)?;
            let fit = match model.choice {
                Choice::Rank => fit_rank(&all.list),
                Choice::Value => {
                    let (theta, se) = fit_value_working(&all, model.free);
                    TesterFit {
                        moves: all.list.len(),
                        estimate: theta,
                        se,
                    }
                }
            };
            let sessions = t.sessions(&shapes, set);
            progress.advance(1);
            let kept = if model.choice == Choice::Rank {
                all.list
            } else {
                Vec::new()
            };
            Some((fit, sessions, kept))
        })
        .collect();
    let Some(fits) = fits else {
        return Ok(None);
    };
    let names: Vec<String> = match model.choice {
        Choice::Rank => vec!["temperature".to_owned(), "slip".to_owned()],
        Choice::Value => (0..5)
            .filter(|&i| model.free[i])
            .map(|i| format!("beta{}", i + 1))
            .chain(["slip".to_owned()])
            .collect(),
    };
    let slip_se = (model.choice == Choice::Rank).then(|| slip_se_at_median(&fits));
    let last = names.len() - 1;
    let parameters: Vec<Parameter> = names
        .iter()
        .enumerate()
        .map(|(j, name)| Parameter {
            name: name.clone(),
            effects: random_effects(
                &fits
                    .iter()
                    .enumerate()
                    .map(|(i, (f, ..))| {
                        let se = match &slip_se {
                            Some(se) if j == last => se[i],
                            _ => f.se[j],
                        };
                        (f.estimate[j], se)
                    })
                    .collect::<Vec<_>>(),
            )
            .unwrap_or_else(|| unreachable!("there is a tester")),
        })
        .collect();
    let fits: Vec<(TesterFit, Vec<Session>)> = fits.into_iter().map(|(f, s, _)| (f, s)).collect();
    let sessions: Vec<Session> = fits.iter().flat_map(|(_, s)| s.clone()).collect();
    // Every quit decision with all seven covariates, a tester's together;
    // the three-term model reads the first three.
    let tester_rows: Vec<Vec<(Vec<f64>, bool)>> = fits.iter().map(|(_, s)| churn::tester_rows(s)).collect();
    let rows = churn::basic(&tester_rows.concat());
    let quit = logistic::fit(&rows).unwrap_or(logistic::Logistic {
        coefficients: vec![0.0; 3],
        covariance: vec![vec![f64::INFINITY; 3]; 3],
        rows: 0,
        loglik: 0.0,
    });
    let churn = churn::fit(&tester_rows);
    // The population's quit model: the seven terms where the held-out
    // testers chose them, else the three.
    let quit = match &churn {
        Some(c) if c.chosen => logistic::Logistic {
            coefficients: c.coefficients.clone(),
            covariance: c.cov.clone(),
            ..quit
        },
        _ => quit,
    };
    let ends = rows.len();
    let unfair_ends = rows.iter().filter(|r| r.0[1] > 0.0).count();
    let games = sessions.iter().map(|s| s.games.len()).sum();
    let moves = fits.iter().map(|(f, _)| f.moves).sum();
    let mut population = population_of(name, model, &parameters, &quit, &fits, &testers, moves, games);
    if let Some(f) = population.fitted.as_mut() {
        f.churn = churn;
    }
    Ok(Some(PopulationFit {
        population,
        testers: testers
            .iter()
            .map(|t| t.id.clone())
            .zip(fits.into_iter().map(|f| f.0))
            .collect(),
        parameters,
        quit,
        moves,
        games,
        ends,
        unfair_ends,
        notes,
    }))
}

/// The population file of a fit.
#[allow(clippy::too_many_arguments)]
fn population_of(
    name: &str,
    model: &Model,
    parameters: &[Parameter],
    quit: &logistic::Logistic,
    fits: &[(TesterFit, Vec<Session>)],
    testers: &[TesterData],
    moves: usize,
    games: usize,
) -> Population {
    let slip = &parameters[parameters.len() - 1].effects;
    let mut se = BTreeMap::new();
    se.insert("slip_median".to_owned(), slip.mean_se);
    se.insert("slip_logit_sd".to_owned(), slip.sd_se);
    // Back to each parameter's own scale: temperature and slip from their
    // working scales, β as they are.
    let natural = |j: usize, x: f64| -> f64 {
        let last = j + 1 == parameters.len();
        match (model.choice, j, last) {
            (_, _, true) => sigmoid(x),
            (Choice::Rank, 0, _) => x.exp(),
            _ => x,
        }
    };
    let per_tester = testers
        .iter()
        .zip(fits)
        .enumerate()
        .map(|(i, (t, (f, _)))| Tester {
            id: t.id.clone(),
            moves: f.moves,
            estimate: f
                .estimate
                .iter()
                .enumerate()
                .map(|(j, &x)| natural(j, x))
                .collect(),
            shrunk: parameters
                .iter()
                .enumerate()
                .map(|(j, p)| natural(j, p.effects.shrunk[i].0))
                .collect(),
        })
        .collect();
    let (temperature, beta) = match model.choice {
        Choice::Rank => {
            let t = &parameters[0].effects;
            se.insert("temperature_median".to_owned(), t.mean_se);
            se.insert("temperature_log_sd".to_owned(), t.sd_se);
            (
                Some(LogNormal {
                    median: t.mean.exp(),
                    log_sd: t.sd,
                }),
                None,
            )
        }
        Choice::Value => {
            let (mut mean, mut sd) = ([0.0; 5], [0.0; 5]);
            let mut j = 0;
            for i in 0..5 {
                if model.free[i] {
                    let e = &parameters[j].effects;
                    mean[i] = e.mean;
                    sd[i] = e.sd;
                    se.insert(format!("beta{}_mean", i + 1), e.mean_se);
                    se.insert(format!("beta{}_sd", i + 1), e.sd_se);
                    j += 1;
                }
            }
            (
                None,
                Some(BetaNormal {
                    mean: mean.to_vec(),
                    sd: sd.to_vec(),
                    corr: None,
                }),
            )
        }
    };
    let c = &quit.coefficients;
    let quit_cov = std::array::from_fn(|i| std::array::from_fn(|j| quit.covariance[i][j]));
    Population {
        name: name.to_owned(),
        choice: model.choice,
        evaluation: if model.choice == Choice::Rank {
            model.evaluation.to_string()
        } else {
            String::new()
        },
        lookahead: model.lookahead,
        temperature,
        beta,
        slip: LogitNormal {
            median: sigmoid(slip.mean),
            logit_sd: slip.sd,
        },
        quit: if c.len() == churn::COLUMNS {
            Quit::from_coefficients([c[0], c[1], c[2]]).with_churn([c[3], c[4], c[5], c[6]])
        } else {
            Quit::from_coefficients([c[0], c[1], c[2]])
        },
        fitted: Some(Fitted {
            testers: testers.len(),
            moves,
            games,
            sessions: fits.iter().map(|f| f.1.len()).sum(),
            se,
            quit_cov,
            churn: None,
            per_tester,
        }),
    }
}

fn num(x: f64) -> String {
    if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.to_owned()
    } else {
        format!("{:.4}", x + 0.0)
    }
}

impl PopulationFit {
    /// The population file, under a header saying what it is and what it
    /// was fitted to (`by`: "tenten fit-population", "the window"): the one
    /// text the CLI and the window save.
    pub fn file_text(&self, by: &str) -> String {
        format!(
            "// A model of an audience, not measured people: fitted by {by} to {} testers' logs\n\
             // ({} moves, {} games). `fitted` holds the standard errors a forecast draws from and each tester's fit.\n{}",
            self.testers.len(),
            self.moves,
            self.games,
            self.population.to_ron()
        )
    }

    /// The CLI's line: every figure with its 95 % interval.
    pub fn line(&self) -> String {
        let mut out = format!(
            "testers={} moves={} games={}",
            self.testers.len(),
            self.moves,
            self.games
        );
        let last = self.parameters.len() - 1;
        for (j, p) in self.parameters.iter().enumerate() {
            let e = &p.effects;
            let (centre, centre_ci, spread) = if j == last {
                (
                    "slip_median".to_owned(),
                    (sigmoid(e.mean_ci.0), sigmoid(e.mean_ci.1)),
                    "slip_logit_sd".to_owned(),
                )
            } else if p.name == "temperature" {
                (
                    "temperature_median".to_owned(),
                    (e.mean_ci.0.exp(), e.mean_ci.1.exp()),
                    "temperature_log_sd".to_owned(),
                )
            } else {
                (format!("{}_mean", p.name), e.mean_ci, format!("{}_sd", p.name))
            };
            let value = if j == last {
                sigmoid(e.mean)
            } else if p.name == "temperature" {
                e.mean.exp()
            } else {
                e.mean
            };
            if j == last {
                // The order: the slip's median, then the quit model;
                // the slip's spread after.
                out.push_str(&format!(
                    " {centre}={} {centre}_ci={},{}",
                    num(value),
                    num(centre_ci.0),
                    num(centre_ci.1)
                ));
            } else {
                out.push_str(&format!(
                    " {centre}={} {centre}_ci={},{} {spread}={} {spread}_ci={},{}",
                    num(value),
                    num(centre_ci.0),
                    num(centre_ci.1),
                    num(e.sd),
                    num(e.sd_ci.0),
                    num(e.sd_ci.1)
                ));
            }
        }
        let q = &self.population.quit;
        let (lo, hi) = self.unfair_odds_ci();
        let (base, slope) = (self.quit_base_ci(), self.quit_per_log_round_ci());
        let slip = &self.parameters[last].effects;
        out.push_str(&format!(
            " quit_base={} quit_base_ci={},{} quit_unfair_odds={} quit_unfair_odds_ci={},{} slip_logit_sd={} slip_logit_sd_ci={},{} quit_per_log_round={} quit_per_log_round_ci={},{} quit_ends={} quit_unfair_ends={}",
            num(q.base),
            num(base.0),
            num(base.1),
            num(q.unfair_odds),
            num(lo),
            num(hi),
            num(slip.sd),
            num(slip.sd_ci.0),
            num(slip.sd_ci.1),
            num(q.per_log_round),
            num(slope.0),
            num(slope.1),
            self.ends,
            self.unfair_ends
        ));
        out.push_str(&self.churn_fields());
        out
    }

    /// The churn terms' part of the line: whether the held-out testers
    /// chose them, by how much, and the seven-term fit's terms with their
    /// 95 % intervals (Wald), chosen or not.
    fn churn_fields(&self) -> String {
        let Some(c) = self.population.fitted.as_ref().and_then(|f| f.churn.as_ref()) else {
            return String::new();
        };
        let mut out = format!(
            " churn={} churn_heldout_gain={} churn_heldout_se={} churn_folds={}",
            if c.chosen { "chosen" } else { "not_chosen" },
            num(c.heldout_gain()),
            num(c.heldout_se),
            c.folds
        );
        for (j, term) in crate::fits::population::quit::CHURN_TERMS.iter().enumerate() {
            let (x, lo, hi) = c.term(j);
            out.push_str(&format!(
                " churn_{term}={} churn_{term}_ci={},{}",
                num(x),
                num(lo),
                num(hi)
            ));
        }
        out
    }

    /// The quit model's coefficient `j` (a, b, c: logit base, log unfair
    /// odds, per log round) with its 95 % interval (Wald); the whole line
    /// when its estimate or variance is not a finite number at or above 0
    /// (no game ends at all, or a covariance the separation of a few ends
    /// left not positive). Logs that cannot tell it (no unfair end, no
    /// quit) give a finite but huge variance, and an interval as wide.
    fn quit_coefficient_ci(&self, j: usize) -> (f64, f64) {
        let (x, variance) = (self.quit.coefficients[j], self.quit.covariance[j][j]);
        if x.is_finite() && variance.is_finite() && variance >= 0.0 {
            crate::fits::population::quit::wald(x, variance)
        } else {
            (f64::NEG_INFINITY, f64::INFINITY)
        }
    }

    /// The quit chance after a fair loss of one round: its 95 % interval
    /// (Wald, on the logit scale).
    pub fn quit_base_ci(&self) -> (f64, f64) {
        let (lo, hi) = self.quit_coefficient_ci(0);
        (sigmoid(lo), sigmoid(hi))
    }

    /// The quit model's slope in a game's log rounds: its 95 % interval.
    pub fn quit_per_log_round_ci(&self) -> (f64, f64) {
        self.quit_coefficient_ci(2)
    }

    /// The unfair-loss odds ratio's 95 % interval (Wald, on the log scale);
    /// 0 to infinity when no game in the logs ended unfairly.
    pub fn unfair_odds_ci(&self) -> (f64, f64) {
        let (lo, hi) = self.quit_coefficient_ci(1);
        (lo.exp(), hi.exp())
    }

    /// The criteria names of a value fit's β, in the line's order.
    pub fn criteria(&self) -> Vec<&'static str> {
        self.parameters
            .iter()
            .filter_map(|p| p.name.strip_prefix("beta")?.parse::<usize>().ok())
            .map(|i| CRITERIA[i - 1])
            .collect()
    }
}
