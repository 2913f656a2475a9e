//! `fit_player`: a player fitted to a playtest log, as `tenten fit-player`
//! fits it, and the fitted player as an object (its estimates as columns,
//! the CLI's lines, its file).

use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use tenten_engine::fits::compare::Model;
use tenten_engine::fits::fit_player::{
    PlayerFit as EngineFit, Request, default_name, fit_player as engine_fit_player,
};
use tenten_engine::io::playtest_log;

use crate::args;
use crate::errors::{format, input};
use crate::interrupt::interruptible;
use crate::studies::weights;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(fit_player, m)?)?;
    m.add_class::<PlayerFit>()?;
    Ok(())
}

/// A player fitted to a log: a model of the logged play, not a measurement
/// of a person.
#[pyclass(module = "tenten._tenten", frozen)]
pub struct PlayerFit {
    inner: EngineFit,
    /// The log it was fitted to (the file's comment names it).
    source: String,
}

#[pymethods]
impl PlayerFit {
    /// The fitted player's name.
    #[getter]
    fn name(&self) -> String {
        self.inner.name.clone()
    }

    /// The model fitted (with compare=True, the best): "rank-piece-10025",
    /// "value-holder", ...
    #[getter]
    fn model(&self) -> String {
        self.inner.model.name()
    }

    /// What `tenten fit-player` prints, line for line.
    #[getter]
    fn line(&self) -> String {
        self.inner.lines.join("\n")
    }

    /// The estimates as columns: "parameter" (temperature and slip, or
    /// each fitted beta and slip), "estimate", and the 95 % interval "lo",
    /// "hi" (profile likelihood; hi is inf when the data cannot bound it).
    #[getter]
    fn estimates<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let rows = self.inner.estimates();
        let out = PyDict::new(py);
        out.set_item("parameter", rows.iter().map(|r| r.0.clone()).collect::<Vec<_>>())?;
        out.set_item(
            "estimate",
            rows.iter().map(|r| r.1).collect::<Vec<_>>().into_pyarray(py),
        )?;
        out.set_item(
            "lo",
            rows.iter().map(|r| r.2).collect::<Vec<_>>().into_pyarray(py),
        )?;
        out.set_item(
            "hi",
            rows.iter().map(|r| r.3).collect::<Vec<_>>().into_pyarray(py),
        )?;
        Ok(out)
    }

    /// With compare=True, every model ranked by held-out log-likelihood
    /// per move: "model", "heldout_loglik_per_move", "se"; else None.
    #[getter]
    fn comparison<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(e) = &self.inner.explanation else {
            return Ok(None);
        };
        let ranked = &e.comparison.ranked;
        let out = PyDict::new(py);
        out.set_item("model", ranked.iter().map(|s| s.model.name()).collect::<Vec<_>>())?;
        out.set_item(
            "heldout_loglik_per_move",
            ranked
                .iter()
                .map(|s| s.per_move)
                .collect::<Vec<_>>()
                .into_pyarray(py),
        )?;
        out.set_item(
            "se",
            ranked.iter().map(|s| s.se).collect::<Vec<_>>().into_pyarray(py),
        )?;
        Ok(Some(out))
    }

    /// The player file's text (what `tenten fit-player --out` writes).
    fn to_ron(&self) -> String {
        self.inner.file(&self.source)
    }

    /// Writes the player file (atomically). An existing file is replaced
    /// only with overwrite=True.
    #[pyo3(signature = (path, overwrite=false))]
    fn save(&self, path: &str, overwrite: bool) -> PyResult<()> {
        args::save(path, &self.to_ron(), overwrite)
    }

    fn __repr__(&self) -> String {
        format!(
            "<tenten.PlayerFit {:?} {}>",
            self.inner.name,
            self.inner.model.name()
        )
    }
}

/// Fits a player to a playtest log by maximum likelihood over every
/// recorded move, as `tenten fit-player` does.
///
/// log: a RON batch of deals with moves, or JSON Lines; or a folder of
///     JSON Lines logs (a playtest's or a cohort's), every tester's moves
///     fitted as one player.
/// model: "rank" (a softmax over the moves' ranks under `evaluation`, at a
///     temperature, with a slip) or "value" (the conditional logit over
///     the five criteria, beta fitted).
/// lookahead: "piece" (one piece at a time) or "holder" (a planner).
/// evaluation: the five criteria weights a rank player judges boards with.
/// criteria: value model: the criteria fitted, numbered 1 to 5 (free cells,
///     5x5 square, large pieces, alignment, surface); the rest held at 0.
/// compare: fit every model (rank and value, piece and holder), rank them
///     by held-out log-likelihood per move (k-fold over whole games) and
///     check the best: top-1 agreement, calibration, survival.
/// folds: the comparison's folds, 2 to 100.
/// generator: the survival check's generator (default: the one the log
///     names, else random).
/// games: games the fitted player plays for the survival check.
/// seed: the survival check's first seed (game g on seed + g).
/// name: the fitted player's name (default "fitted to <the log's stem>").
/// pieces: a piece-set file; the classic set when None.
///
/// Returns a tenten.PlayerFit: `estimates` (columns), `comparison`
/// (columns, with compare=True), `line` (the CLI's lines), `save`.
#[pyfunction]
#[pyo3(
    signature = (log, model="rank", lookahead="piece", evaluation="10025", criteria=vec![1, 2, 3, 4, 5], compare=false, folds=5, generator=None, games=200, seed=1, name=None, pieces=None),
    text_signature = "(log, model='rank', lookahead='piece', evaluation='10025', criteria=[1, 2, 3, 4, 5], compare=False, folds=5, generator=None, games=200, seed=1, name=None, pieces=None)"
)]
#[allow(clippy::too_many_arguments)]
fn fit_player(
    py: Python<'_>,
    log: std::path::PathBuf,
    model: &str,
    lookahead: &str,
    evaluation: &str,
    criteria: Vec<i64>,
    compare: bool,
    folds: usize,
    generator: Option<String>,
    games: usize,
    seed: u64,
    name: Option<String>,
    pieces: Option<&str>,
) -> PyResult<PlayerFit> {
    let set = args::pieces(pieces)?;
    let evaluation = weights(evaluation)?;
    let lookahead = args::lookahead("lookahead", lookahead)?;
    let mut free = [false; 5];
    for &c in &criteria {
        match c {
            1..=5 => free[c as usize - 1] = true,
            _ => {
                return Err(input(
                    "criteria",
                    format!(
                        "{c} is not a criterion: number them 1 to 5 (free cells, 5x5 square, large pieces, alignment, surface)"
                    ),
                ));
            }
        }
    }
    if !free.contains(&true) {
        return Err(input("criteria", "name at least one criterion, 1 to 5"));
    }
    if !(2..=100).contains(&folds) {
        return Err(input("folds", format!("is {folds}; use 2 to 100")));
    }
    if !(1..=100_000).contains(&games) {
        return Err(input("games", format!("is {games}; use 1 to 100,000")));
    }
    let model = match args::choice("model", model)? {
        tenten_engine::play::player::Choice::Rank => Model::Rank {
            lookahead,
            evaluation,
        },
        tenten_engine::play::player::Choice::Value => Model::Value { lookahead, free },
    };
    let source = log.display().to_string();
    let parsed = playtest_log::read_path(&log, &set).map_err(format)?;
    let req = Request {
        model,
        evaluation,
        criteria: free,
        compare,
        folds,
        generator,
        games,
        seed,
        name: name.unwrap_or_else(|| default_name(&log)),
    };
    let inner = interruptible(py, |progress| engine_fit_player(&set, &parsed, &req, progress))?;
    Ok(PlayerFit { inner, source })
}
