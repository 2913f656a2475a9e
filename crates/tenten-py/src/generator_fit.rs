//! `fit_generator`: a generator learned from the deals it dealt, as
//! `tenten fit-generator` learns it, returned as a dict of the same
//! figures with the learned file's text.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use tenten_engine::fits::generator::{self, BagFit, deals};

use crate::args;
use crate::errors::{format, input};
use crate::interrupt::interruptible;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(fit_generator, m)?)?;
    Ok(())
}

/// Learns a generator from the deals it dealt, as `tenten fit-generator`
/// does: every check (none, reject, repair under each policy, bag) by
/// exact likelihood, the best one's adaptive rules tested, a model table.
///
/// logs: a log file or folder, or a list of them (JSON Lines, RON).
/// pieces: a piece-set file; the classic set when None.
/// board: (rows, columns) the logs must be of (refused otherwise), or None.
/// seed: the predictive check's first seed.
/// replications: the predictive check's replications, 10 to 10,000.
/// held_out: score each model on held-out games (two folds by game).
/// name: the learned generator's name.
///
/// Returns a dict: "deals", "games", "check", "policy", "weights" (piece ->
/// share), "intervals" (piece -> (lo, hi), 95 %), "repeat_previous",
/// "repeat_ci", "bands", "mercy_after", "models" (columns: "model",
/// "params", "loglik", "aic", "bic", "held_out_per_deal", "p"),
/// "smoking_gun" (observed, expected, lo, hi), "predictive", "line" (the
/// CLI's lines) and "file" (the learned generator file's text).
#[pyfunction]
#[pyo3(
    signature = (logs, pieces=None, board=None, seed=1, replications=40, held_out=true, name=None),
    text_signature = "(logs, pieces=None, board=None, seed=1, replications=40, held_out=True, name=None)"
)]
#[allow(clippy::too_many_arguments)]
fn fit_generator<'py>(
    py: Python<'py>,
    logs: &Bound<'py, PyAny>,
    pieces: Option<&str>,
    board: Option<(usize, usize)>,
    seed: u64,
    replications: usize,
    held_out: bool,
    name: Option<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let paths: Vec<PathBuf> = if let Ok(one) = logs.extract::<PathBuf>() {
        vec![one]
    } else {
        logs.extract::<Vec<PathBuf>>()
            .map_err(|_| input("logs", "give a path or a list of paths"))?
    };
    if paths.is_empty() {
        return Err(input("logs", "give at least one log"));
    }
    if !(1..=10_000).contains(&replications) {
        return Err(input(
            "replications",
            format!("is {replications}; use 1 to 10,000"),
        ));
    }
    let set = args::pieces(pieces)?;
    let read = deals::read(&paths, &set).map_err(format)?;
    if let Some(b) = board {
        let size = args::size("board", b)?;
        if size != read.size {
            return Err(input(
                "board",
                format!("the logs' boards are {} but board is {size}", read.size),
            ));
        }
    }
    let req = generator::Request {
        name: name.unwrap_or_else(|| "learned".to_owned()),
        seed,
        replications,
        held_out,
        ..generator::Request::default()
    };
    let learned = interruptible(py, |progress| {
        generator::learn(&set, &read, &req, progress).transpose()
    })?
    .map_err(|m| input("logs", m))?;
    let out = PyDict::new(py);
    out.set_item("deals", learned.deals)?;
    out.set_item("games", learned.games)?;
    let (check, policy) = if learned.bag_best {
        ("bag".to_owned(), None)
    } else {
        match learned.best.as_ref().map(|b| b.rules.check) {
            Some(generator::likelihood::Check::Reject) => ("reject".to_owned(), None),
            Some(generator::likelihood::Check::Repair { policy, .. }) => {
                ("repair".to_owned(), Some(policy.name()))
            }
            _ => ("none".to_owned(), None),
        }
    };
    out.set_item("check", check)?;
    out.set_item("policy", policy)?;
    let weights = PyDict::new(py);
    let intervals = PyDict::new(py);
    if let Some(best) = &learned.best {
        for (i, p) in set.pieces.iter().enumerate() {
            weights.set_item(&p.id, best.weights[0][i])?;
            intervals.set_item(&p.id, best.intervals[0][i])?;
        }
        out.set_item("repeat_previous", best.repeat)?;
        out.set_item("repeat_ci", best.repeat.map(|_| best.repeat_ci))?;
        out.set_item("bands", best.rules.bands.clone())?;
        out.set_item("mercy_after", best.rules.mercy)?;
    } else if let BagFit::Fits { counts, .. } = &learned.bag {
        let total: u32 = counts.iter().sum();
        for (p, &c) in set.pieces.iter().zip(counts) {
            weights.set_item(&p.id, f64::from(c) / f64::from(total.max(1)))?;
        }
        out.set_item("repeat_previous", None::<f64>)?;
        out.set_item("repeat_ci", None::<(f64, f64)>)?;
        out.set_item("bands", Vec::<f64>::new())?;
        out.set_item("mercy_after", None::<u32>)?;
    }
    out.set_item("weights", weights)?;
    out.set_item("intervals", intervals)?;
    let models = PyDict::new(py);
    let rows = &learned.rows;
    models.set_item("model", rows.iter().map(|r| r.name.clone()).collect::<Vec<_>>())?;
    models.set_item("params", rows.iter().map(|r| r.params).collect::<Vec<_>>())?;
    models.set_item("loglik", rows.iter().map(|r| r.loglik).collect::<Vec<_>>())?;
    models.set_item("aic", rows.iter().map(|r| r.aic).collect::<Vec<_>>())?;
    models.set_item("bic", rows.iter().map(|r| r.bic).collect::<Vec<_>>())?;
    models.set_item(
        "held_out_per_deal",
        rows.iter()
            .map(|r| r.held_out.unwrap_or(f64::NAN))
            .collect::<Vec<_>>(),
    )?;
    models.set_item(
        "p",
        rows.iter()
            .map(|r| r.lr.as_ref().map_or(f64::NAN, |l| l.3))
            .collect::<Vec<_>>(),
    )?;
    out.set_item("models", models)?;
    let s = &learned.smoking;
    out.set_item("smoking_gun", (s.observed, s.expected, s.range.0, s.range.1))?;
    if let Some(p) = &learned.predictive {
        let (inside, all) = p.inside();
        let pd = PyDict::new(py);
        pd.set_item("shares_inside", inside)?;
        pd.set_item("shares", all)?;
        pd.set_item("unsolvable", p.unsolvable)?;
        out.set_item("predictive", pd)?;
    } else {
        out.set_item("predictive", None::<i32>)?;
    }
    out.set_item("line", learned.lines.join("\n"))?;
    out.set_item("file", learned.text.clone())?;
    Ok(out)
}
