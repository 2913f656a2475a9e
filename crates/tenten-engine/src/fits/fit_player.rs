//! `fit-player` as one call, for the CLI and the Python package alike: the
//! model asked for fitted to a log (or, with `compare`, every model ranked
//! and the best fitted and checked), and the lines the CLI prints.

use std::fmt::Write as _;

use crate::fits::compare::Model;
use crate::fits::explain::{self, Explanation, Fitted};
use crate::fits::player_check as fit_check;
use crate::io::playtest_log::Log;
use crate::model::pieces::PieceSet;
use crate::model::shapes::Shapes;
use crate::play::coelho::CoelhoWeights;
use crate::progress::Progress;
use crate::stats::survival::kaplan_meier;

/// What `fit-player` is asked besides the log.
#[derive(Clone, Debug)]
pub struct Request {
    /// The model fitted without `compare` (its lookahead; rank models
    /// judge boards by `evaluation`, value models fit `criteria`).
    pub model: Model,
    pub evaluation: CoelhoWeights,
    pub criteria: [bool; 5],
    /// Rank every model on held-out games instead, and check the best.
    pub compare: bool,
    pub folds: usize,
    /// The survival check's generator, games and first seed (`compare`).
    pub generator: Option<String>,
    pub games: usize,
    pub seed: u64,
    /// The fitted player's name.
    pub name: String,
}

/// A fitted player and what `fit-player` prints about it.
#[derive(Clone, Debug)]
pub struct PlayerFit {
    pub model: Model,
    pub fitted: Fitted,
    /// The comparison and checks (`compare` only).
    pub explanation: Option<Explanation>,
    pub name: String,
    /// The lines the CLI prints.
    pub lines: Vec<String>,
}

/// The fitted player's default name: "fitted to <the log's stem>".
pub fn default_name(log_path: &std::path::Path) -> String {
    let stem = log_path.file_stem().map_or("log".into(), |s| s.to_string_lossy());
    format!("fitted to {stem}")
}

/// Fits as asked. `None` when cancelled.
pub fn fit_player(set: &PieceSet, log: &Log, req: &Request, progress: &Progress) -> Option<PlayerFit> {
    if req.compare {
        let ask = explain::Ask {
            folds: req.folds,
            evaluation: req.evaluation,
            criteria: req.criteria,
            generator: req.generator.clone(),
            games: req.games,
            seed: req.seed,
            name: req.name.clone(),
        };
        let e = explain::explain(set, log, &ask, progress)?;
        return Some(PlayerFit {
            model: e.best,
            fitted: e.fitted.clone(),
            lines: explanation_lines(&e),
            explanation: Some(e),
            name: req.name.clone(),
        });
    }
    let shapes = Shapes::new(set, log.size);
    let fitted = explain::fit_model(&shapes, log, &req.model, progress)?;
    let line = match &fitted {
        Fitted::Rank(f, _) => f.line(),
        Fitted::Value(f) => {
            let player = fitted.player(&req.name, req.model.lookahead());
            let p = fit_check::predictions(&shapes, &player, &log.deals, progress)?;
            f.line(fit_check::check_moves(&p).top1)
        }
    };
    Some(PlayerFit {
        model: req.model,
        fitted,
        explanation: None,
        name: req.name.clone(),
        lines: vec![format!("{line} intervals=profile_likelihood")],
    })
}

impl PlayerFit {
    /// The player file, its comment naming `source` (the log).
    pub fn file(&self, source: &str) -> String {
        self.fitted.file(
            &format!("{source} by tenten fit-player"),
            &self.name,
            self.model.lookahead(),
        )
    }

    /// The fitted parameters as rows: (name, estimate, 95 % low, high).
    /// Rank: temperature and slip; value: each fitted β and the slip.
    pub fn estimates(&self) -> Vec<(String, f64, f64, f64)> {
        match &self.fitted {
            Fitted::Rank(f, _) => vec![
                (
                    "temperature".into(),
                    f.temperature,
                    f.temperature_ci.0,
                    f.temperature_ci.1,
                ),
                ("slip".into(), f.slip, f.slip_ci.0, f.slip_ci.1),
            ],
            Fitted::Value(f) => (0..5)
                .filter(|&j| f.free[j])
                .map(|j| {
                    (
                        format!(
                            "beta_{}",
                            crate::fits::player_value::CRITERIA[j].replace(' ', "_")
                        ),
                        f.beta[j],
                        f.beta_ci[j].0,
                        f.beta_ci[j].1,
                    )
                })
                .chain([("slip".into(), f.slip, f.slip_ci.0, f.slip_ci.1)])
                .collect(),
        }
    }
}

/// `--compare`'s lines: every model's held-out score, the best and its
/// margin, then the best's fit and its checks.
fn explanation_lines(e: &Explanation) -> Vec<String> {
    let mut out = String::new();
    let c = &e.comparison;
    for s in &c.ranked {
        let _ = writeln!(
            out,
            "model={} heldout_loglik_per_move={:.4} se={:.4}",
            s.model.name(),
            s.per_move,
            s.se
        );
    }
    let margin = c.margin_se.map_or("none".to_owned(), |m| format!("{m:.2}"));
    let _ = writeln!(
        out,
        "best={} margin_se={margin} moves={} left_out={}",
        e.best.name(),
        c.moves,
        c.left_out
    );
    if let Some(why) = c.undecided() {
        let _ = writeln!(out, "undecided: {why}");
    }
    match &e.fitted {
        Fitted::Rank(f, _) => {
            let _ = writeln!(
                out,
                "fit: model={} {} intervals=profile_likelihood",
                e.best.name(),
                f.line()
            );
        }
        Fitted::Value(f) => {
            let _ = writeln!(out, "fit: {} intervals=profile_likelihood", f.line(e.moves.top1));
        }
    }
    let m = &e.moves;
    let _ = writeln!(
        out,
        "check: moves={} top1={:.3} mean_chance={:.3}",
        m.moves, m.top1, m.mean_chance
    );
    for b in &m.calibration {
        let _ = writeln!(
            out,
            "calibration: predicted={:.2}-{:.2} moves={} mean_predicted={:.4} observed={:.4}",
            b.lo, b.hi, b.moves, b.predicted, b.observed
        );
    }
    match &e.survival {
        Some(s) => {
            let median = |g: &[(u32, bool)]| {
                kaplan_meier(g)
                    .median
                    .map_or("none".to_owned(), |m| m.to_string())
            };
            let test = s.test.map_or("logrank=none".to_owned(), |t| {
                format!("logrank_chi2={:.2} p={:.3}", t.chi2, t.p)
            });
            let _ = writeln!(
                out,
                "survival: generator={} seed={} cap={} observed_games={} observed_median={} simulated_games={} simulated_median={} {test}",
                s.generator,
                s.seed,
                e.cap,
                s.observed.len(),
                median(&s.observed),
                s.simulated.len(),
                median(&s.simulated),
            );
        }
        None => {
            let _ = writeln!(
                out,
                "survival: no check: {:?} is not a generator preset",
                e.generator
            );
        }
    }
    out.lines().map(str::to_owned).collect()
}
