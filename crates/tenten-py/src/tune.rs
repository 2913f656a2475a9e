//! `tune`: a generator's weights tuned toward targets, as `tenten tune`
//! tunes them, and the result as an object (its verdicts and weights as
//! columns, the CLI's lines, the tuned generator's file).

use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use tenten_engine::study::tune::{Checked, Measured, TuneReport, TuneRequest, tune as engine_tune};
use tenten_engine::study::tune_run::{self, Options};

use crate::args;
use crate::errors::{format, input};
use crate::interrupt::interruptible;
use crate::studies::population_of;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tune, m)?)?;
    m.add_class::<Tuned>()?;
    Ok(())
}

/// A tuned generator, with the hold-out's verdicts.
#[pyclass(module = "tenten._tenten", frozen)]
pub struct Tuned {
    req: TuneRequest,
    options: Options,
    report: TuneReport,
}

#[pymethods]
impl Tuned {
    /// Whether every target was met on the hold-out.
    #[getter]
    fn all_met(&self) -> bool {
        self.report.all_met()
    }

    /// The whole tune's verdict: "missed" if any target is, else
    /// "undecided" if any is, else "met".
    #[getter]
    fn verdict(&self) -> &'static str {
        self.report.verdict().word()
    }

    /// What `tenten tune` prints, line for line.
    #[getter]
    fn line(&self) -> String {
        tune_run::lines(&self.req, &self.report).join("\n")
    }

    /// One row a target and player: "target", "player", "goal",
    /// "tolerance", "verdict" ("met", "missed" or "undecided"), the
    /// hold-out's figure "holdout" with its interval "holdout_lo",
    /// "holdout_hi" at confidence "level" on "holdout_games", "needed" (the
    /// games an undecided target would need; 0: decided or none would), and
    /// the base generator's "start", "start_lo", "start_hi" at 95 % (inf:
    /// past the round cap; nan: no interval).
    #[getter]
    fn verdicts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let rows = &self.report.holdout;
        let out = PyDict::new(py);
        let col = |f: &dyn Fn(&Checked) -> f64| rows.iter().map(f).collect::<Vec<f64>>().into_pyarray(py);
        let value = |m: &Measured| m.value.unwrap_or(f64::INFINITY);
        let lo = |m: &Measured| m.ci.map_or(f64::NAN, |c| c.0);
        let hi = |m: &Measured| m.ci.map_or(f64::NAN, |c| c.1);
        out.set_item(
            "target",
            rows.iter().map(|c| c.goal.target.name()).collect::<Vec<_>>(),
        )?;
        out.set_item(
            "player",
            rows.iter().map(|c| c.player.clone()).collect::<Vec<_>>(),
        )?;
        out.set_item("goal", col(&|c| c.goal.target.goal()))?;
        out.set_item("tolerance", col(&|c| c.goal.tolerance))?;
        out.set_item(
            "verdict",
            rows.iter().map(|c| c.verdict.word()).collect::<Vec<_>>(),
        )?;
        out.set_item("level", col(&|c| c.level))?;
        out.set_item(
            "holdout_games",
            rows.iter()
                .map(|c| c.games as u64)
                .collect::<Vec<_>>()
                .into_pyarray(py),
        )?;
        out.set_item(
            "needed",
            rows.iter()
                .map(|c| c.needed.unwrap_or(0) as u64)
                .collect::<Vec<_>>()
                .into_pyarray(py),
        )?;
        out.set_item("holdout", col(&|c| value(&c.holdout)))?;
        out.set_item("holdout_lo", col(&|c| lo(&c.holdout)))?;
        out.set_item("holdout_hi", col(&|c| hi(&c.holdout)))?;
        out.set_item("start", col(&|c| value(&c.start)))?;
        out.set_item("start_lo", col(&|c| lo(&c.start)))?;
        out.set_item("start_hi", col(&|c| hi(&c.start)))?;
        Ok(out)
    }

    /// One row a piece: "piece", "before" and "after" (its weight).
    #[getter]
    fn weights<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let set = &self.req.plan.set;
        let out = PyDict::new(py);
        out.set_item(
            "piece",
            set.pieces.iter().map(|p| p.id.clone()).collect::<Vec<_>>(),
        )?;
        out.set_item("before", self.report.weights_before.clone().into_pyarray(py))?;
        out.set_item("after", self.report.weights_after.clone().into_pyarray(py))?;
        Ok(out)
    }

    /// Candidates evaluated.
    #[getter]
    fn evaluations(&self) -> usize {
        self.report.evaluations.len()
    }

    /// The tuned generator file's text, a piece set it names referred to
    /// from the current folder.
    fn to_ron(&self) -> String {
        self.text(std::path::Path::new("tuned.ron"))
    }

    /// Writes the tuned generator file (atomically). An existing file is
    /// replaced only with overwrite=True.
    #[pyo3(signature = (path, overwrite=false))]
    fn save(&self, path: &str, overwrite: bool) -> PyResult<()> {
        args::save(path, &self.text(std::path::Path::new(path)), overwrite)
    }

    fn __repr__(&self) -> String {
        format!(
            "<tenten.Tuned {} tuned: {}>",
            self.req.base.file.name,
            match self.report.verdict() {
                tenten_engine::study::tune::Verdict::Met => "all met",
                v => v.word(),
            }
        )
    }
}

impl Tuned {
    fn text(&self, out: &std::path::Path) -> String {
        let note = tune_run::final_note(&self.req, &self.options, &self.report);
        tune_run::tuned_file(&self.req, &self.options, &self.report.tuned, out, &note)
    }
}

/// Tunes a generator's piece weights toward targets, as `tenten tune`
/// does: every candidate plays the same seeds, the finalists are validated
/// on more, and the best is checked on a fresh hold-out, each target with
/// a verdict (met or missed).
///
/// generator: the base: a generator file (.ron) or a preset's name.
/// targets: each "KEY=VALUE[@TOL]": median_rounds=N, unfair_share=S (at
///     most), small_share=BAND:S; with a population reach=ROUND:S (ROUND
///     10, 25, 50 or 100) and games_per_session=N. Each is met within a
///     tolerance, 5 % of a median or of games per session (at least a
///     round, or 0.1 game) or 0.02 of a share, or as given after @
///     ("median_rounds=35@2").
/// players: who plays: presets, bots or player files; every target holds
///     for each of them (their misses summed).
/// population: tune for an audience instead: a population file, a
///     preset's name or a tenten.Population; `games` of its players, one
///     session each, every candidate on the same players.
/// keep_mix: keep the mix near the base's: the strength of a penalty on
///     the divergence (KL, nats) of the tuned weights from the base's.
/// free: the piece ids whose weights move (None: all).
/// bounds: (LO, HI): every free weight stays within, in tenths of a base
///     weight, at most 1000.
/// games: games (or players) a candidate, all on the same seeds.
/// holdout: hold-out games (or players) on fresh seeds for the check, at
///     least 20 (None: planned from the tuned candidate's spread).
/// holdout_max: an undecided target grows the hold-out, doubling, up to
///     this many (None: 4 x holdout, or 20,000 when planned).
/// budget: seconds to search.
/// max_evaluations: stop after this many evaluations too: a run cut by
///     evaluations, not seconds, is repeatable on any machine.
/// seed: the first seed of the candidates' games.
/// max_rounds: the round cap of every game.
///
/// Returns a tenten.Tuned: `verdicts` and `weights` (columns), `all_met`,
/// `line` (the CLI's lines), `save`.
#[pyfunction]
#[pyo3(
    signature = (generator, targets, players=vec!["casual".to_owned()], population=None, keep_mix=0.0, free=None, bounds=(1.0, 200.0), games=200, holdout=400, holdout_max=None, budget=120.0, max_evaluations=None, seed=1, max_rounds=10_000),
    text_signature = "(generator, targets, players=['casual'], population=None, keep_mix=0.0, free=None, bounds=(1.0, 200.0), games=200, holdout=400, holdout_max=None, budget=120.0, max_evaluations=None, seed=1, max_rounds=10000)"
)]
#[allow(clippy::too_many_arguments)]
fn tune(
    py: Python<'_>,
    generator: String,
    targets: Vec<String>,
    players: Vec<String>,
    population: Option<&Bound<'_, PyAny>>,
    keep_mix: f64,
    free: Option<Vec<String>>,
    bounds: (f64, f64),
    games: usize,
    holdout: Option<usize>,
    holdout_max: Option<usize>,
    budget: f64,
    max_evaluations: Option<usize>,
    seed: u64,
    max_rounds: u32,
) -> PyResult<Tuned> {
    for (name, n) in [("games", Some(games)), ("holdout", holdout)]
        .into_iter()
        .filter_map(|(name, n)| Some((name, n?)))
    {
        let least = if name == "holdout" {
            tenten_engine::study::tune::MIN_HOLDOUT
        } else {
            1
        };
        if !(least..=100_000).contains(&n) {
            return Err(input(name, format!("is {n}; use {least} to 100,000")));
        }
    }
    if max_rounds == 0 {
        return Err(input("max_rounds", "is 0; a game needs a round"));
    }
    let audience = population.map(population_of).transpose()?;
    let options = Options {
        generator,
        players,
        population: audience.as_ref().map(|p| p.name.clone()),
        targets,
        keep_mix,
        free: free.map(|ids| ids.join(",")),
        bounds: format!("{},{}", bounds.0, bounds.1),
        games,
        holdout,
        holdout_max,
        budget,
        max_evaluations,
        seed,
        max_rounds,
    };
    let req = tune_run::request_for(&options, audience).map_err(format)?;
    let report = interruptible(py, |progress| engine_tune(&req, progress, |_| {}))?;
    Ok(Tuned { req, options, report })
}
