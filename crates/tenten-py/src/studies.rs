//! The engine's studies as the CLI runs them, with the CLI's options as
//! keyword arguments and results as plain dicts of NumPy columns (so that
//! `pandas.DataFrame(result)` works without this package needing pandas).

use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use tenten_engine::fits::population::file::{self, Population as EnginePopulation};
use tenten_engine::fits::population::fit::{Model, fit_population as engine_fit_population};
use tenten_engine::fits::population::forecast::{NAMES, Outcome, deciles, play_players, summarize};
use tenten_engine::fits::population::session::Table;
use tenten_engine::fits::population::uncertainty::Uncertainty;
use tenten_engine::io::jsonl_log;
use tenten_engine::model::shapes::Shapes;
use tenten_engine::play::coelho::CoelhoWeights;
use tenten_engine::play::dealing::Dealing;
use tenten_engine::study::runner::{self, Plan};

use crate::args;
use crate::errors::{format, input};
use crate::interrupt::interruptible;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(fit_population, m)?)?;
    m.add_function(wrap_pyfunction!(forecast, m)?)?;
    m.add_class::<Population>()?;
    Ok(())
}

pub fn weights(w: &str) -> PyResult<CoelhoWeights> {
    CoelhoWeights::parse(w).map_err(|e| input("weights", e))
}

/// Self-play games, as `tenten simulate --csv` writes them: each player
/// against each generator, game g seeded seed + g (paired).
///
/// players: who plays: player presets, bots or player files (.ron).
/// generators: generator presets, built-in generators or files (.ron).
/// games: games a (player, generator), on the same seeds for each.
/// seed: game g plays on seed + g.
/// board: (height, width), 1 to 10 cells a side.
/// holder: pieces a deal, 1 to 4.
/// max_rounds: the round cap; a game that reaches it ends "capped".
/// weights: the coelho bot's criteria ("10025").
/// pieces: a piece-set file; the classic set when None.
///
/// Returns {"generator", "player", "seed", "rounds", "score", "end",
/// "unsolvable_dealt", "repairs"}: one row a game, in the CSV's order.
#[pyfunction]
#[pyo3(
    signature = (players=vec!["greedy".to_owned()], generators=vec!["random".to_owned()], games=100, seed=0, board=(10, 10), holder=3, max_rounds=10_000, weights="10025", pieces=None),
    text_signature = "(players=['greedy'], generators=['random'], games=100, seed=0, board=(10, 10), holder=3, max_rounds=10000, weights='10025', pieces=None)"
)]
#[allow(clippy::too_many_arguments)]
fn simulate<'py>(
    py: Python<'py>,
    players: Vec<String>,
    generators: Vec<String>,
    games: usize,
    seed: u64,
    board: (usize, usize),
    holder: usize,
    max_rounds: u32,
    weights: &str,
    pieces: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let set = args::pieces(pieces)?;
    let who: Vec<&str> = players.iter().map(String::as_str).collect();
    let dealt: Vec<&str> = generators.iter().map(String::as_str).collect();
    let plan = Plan {
        shapes_size: args::size("board", board)?,
        k: holder,
        games,
        seed,
        max_rounds,
        ..Plan::named(set, &who, &dealt, self::weights(weights)?).map_err(format)?
    };
    plan.check().map_err(|m| input("simulate", m))?;
    let runs = interruptible(py, |progress| {
        let mut all = Vec::new();
        for g in &generators {
            for p in &players {
                all.push((g.clone(), p.clone(), runner::run(&plan, p, g, progress)?));
            }
        }
        Some(all)
    })?;
    let (mut generator, mut player, mut seeds, mut rounds, mut score, mut end, mut unsolvable, mut repairs) =
        (vec![], vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
    for (g, p, played) in runs {
        for game in played {
            generator.push(g.clone());
            player.push(p.clone());
            seeds.push(game.seed);
            rounds.push(game.rounds);
            score.push(game.score);
            end.push(format!("{:?}", game.end));
            unsolvable.push(game.unsolvable_dealt);
            repairs.push(game.repairs);
        }
    }
    let out = PyDict::new(py);
    out.set_item("generator", generator)?;
    out.set_item("player", player)?;
    out.set_item("seed", seeds.into_pyarray(py))?;
    out.set_item("rounds", rounds.into_pyarray(py))?;
    out.set_item("score", score.into_pyarray(py))?;
    out.set_item("end", end)?;
    out.set_item("unsolvable_dealt", unsolvable.into_pyarray(py))?;
    out.set_item("repairs", repairs.into_pyarray(py))?;
    Ok(out)
}

/// A population: a preset's or a file's, or one `fit_population` made (a
/// model of an audience, not measured people).
#[pyclass(module = "tenten._tenten", frozen)]
pub struct Population {
    inner: EnginePopulation,
    /// The fit's line, as `tenten fit-population` prints it (fitted ones).
    line: Option<String>,
}

#[pymethods]
impl Population {
    /// A preset by name ("demo") or a population file.
    #[staticmethod]
    fn load(name: &str) -> PyResult<Self> {
        Ok(Self {
            inner: file::by_name(name).map_err(format)?,
            line: None,
        })
    }

    #[getter]
    fn name(&self) -> String {
        self.inner.name.clone()
    }

    /// The fit's summary line, as `tenten fit-population` prints it.
    #[getter]
    fn line(&self) -> Option<String> {
        self.line.clone()
    }

    /// The population file's text.
    fn to_ron(&self) -> String {
        self.inner.to_ron()
    }

    /// Writes the population file (atomically). An existing file is
    /// replaced only with overwrite=True.
    #[pyo3(signature = (path, overwrite=false))]
    fn save(&self, path: &str, overwrite: bool) -> PyResult<()> {
        args::save(path, &self.inner.to_ron(), overwrite)
    }

    fn __repr__(&self) -> String {
        format!("<tenten.Population {:?}>", self.inner.name)
    }
}

pub fn population_of(population: &Bound<'_, PyAny>) -> PyResult<EnginePopulation> {
    if let Ok(p) = population.cast::<Population>() {
        return Ok(p.get().inner.clone());
    }
    let name: String = population.extract().map_err(|_| {
        input(
            "population",
            "a preset's name, a population file, or a tenten.Population",
        )
    })?;
    file::by_name(&name).map_err(format)
}

/// Fits a population to testers' JSON Lines logs, as `tenten
/// fit-population` does: every tester, the mean and spread of each
/// parameter by a random-effects model, the shrunken estimates, and the
/// quit model.
///
/// logs: files or folders of JSON Lines logs (one tester a player id).
/// model: "rank" (temperature and slip) or "value" (the five criteria's beta
///     and slip).
/// lookahead: "piece" (one piece at a time) or "holder" (a planner).
/// evaluation: the five criteria weights rank players judge boards with.
/// name: the population's name.
/// pieces: a piece-set file; the classic set when None.
///
/// Returns a tenten.Population (its `line` is the CLI's line; `save`
/// writes the file).
#[pyfunction]
#[pyo3(signature = (logs, model="rank", lookahead="piece", evaluation="10025", name="fitted", pieces=None))]
fn fit_population(
    py: Python<'_>,
    logs: Vec<std::path::PathBuf>,
    model: &str,
    lookahead: &str,
    evaluation: &str,
    name: &str,
    pieces: Option<&str>,
) -> PyResult<Population> {
    let set = args::pieces(pieces)?;
    let choice = args::choice("model", model)?;
    let lookahead = args::lookahead("lookahead", lookahead)?;
    let model = Model {
        choice,
        lookahead,
        evaluation: weights(evaluation)?,
        free: [true; 5],
    };
    let texts = jsonl_log::read_logs(&logs).map_err(format)?;
    let fitted = interruptible(py, |progress| {
        Some(
            engine_fit_population(name, &model, &texts, &set, progress)
                .map(|f| f.map(|f| (f.line(), f.population))),
        )
        .and_then(|r| r.transpose())
    })?
    .map_err(format)?;
    Ok(Population {
        inner: fitted.1,
        line: Some(fitted.0),
    })
}

/// Forecasts an audience, as `tenten forecast` does: N players drawn from
/// the population each play one session under its quit model, under each
/// generator (player i the same under every one). Intervals (95 %) hold
/// the fit's uncertainty (20 replicates drawing the parameters from the
/// fit's sampling distribution) and the simulation's noise.
///
/// population: a preset's name ("demo"), a population file, or a
///     tenten.Population (fit_population's).
/// generators: the generators to forecast, presets or files (.ron).
/// players: players drawn from the population, 1 to 10,000,000; player i
///     is the same under every generator.
/// seed: the players' and their games' seed.
/// by_skill: ten more rows a generator, one a skill decile.
/// board: (height, width), 1 to 10 cells a side.
/// holder: pieces a deal, 1 to 4.
/// max_rounds: the round cap of every game.
/// pieces: a piece-set file; the classic set when None.
///
/// Returns one row a generator (with by_skill, ten more a generator, by
/// skill decile): "generator", "skill_decile" (0 for all players),
/// "players", "games", and each figure with "_lo" and "_hi".
#[pyfunction]
#[pyo3(
    signature = (population, generators=vec!["random".to_owned(), "block-blast-like".to_owned()], players=10_000, seed=1, by_skill=false, board=(10, 10), holder=3, max_rounds=1000, pieces=None),
    text_signature = "(population, generators=['random', 'block-blast-like'], players=10000, seed=1, by_skill=False, board=(10, 10), holder=3, max_rounds=1000, pieces=None)"
)]
#[allow(clippy::too_many_arguments)]
fn forecast<'py>(
    py: Python<'py>,
    population: &Bound<'py, PyAny>,
    generators: Vec<String>,
    players: usize,
    seed: u64,
    by_skill: bool,
    board: (usize, usize),
    holder: usize,
    max_rounds: u32,
    pieces: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    if !(1..=10_000_000).contains(&players) {
        return Err(input(
            "players",
            format!("is {players}; forecast 1 to 10,000,000 players"),
        ));
    }
    tenten_engine::fits::population::forecast::check_size(players, generators.len())
        .map_err(|m| input("forecast", m))?;
    let population = population_of(population)?;
    let set = args::pieces(pieces)?;
    let shapes = Shapes::new(&set, args::size("board", board)?);
    let holder = args::holder_size("holder", holder)?;
    let dealings: Vec<Dealing> = generators
        .iter()
        .map(|g| Dealing::by_name(g, &set).map_err(format))
        .collect::<PyResult<_>>()?;
    let uncertainty = Uncertainty::of(&population);
    let outcomes: Vec<Vec<Outcome>> = interruptible(py, |progress| {
        dealings
            .iter()
            .map(|dealing| {
                let table = Table::new(&shapes, &set, holder, dealing, max_rounds);
                play_players(&population, &table, 0..players, seed, progress)
            })
            .collect()
    })?;
    let mut rows = Vec::new();
    for (name, played) in generators.iter().zip(&outcomes) {
        let all: Vec<&Outcome> = played.iter().collect();
        rows.push((0u8, summarize(name, &all, uncertainty.as_ref())));
        if by_skill {
            for (d, part) in deciles(played).iter().enumerate() {
                rows.push((d as u8 + 1, summarize(name, part, None)));
            }
        }
    }
    let out = PyDict::new(py);
    out.set_item(
        "generator",
        rows.iter().map(|r| r.1.generator.clone()).collect::<Vec<_>>(),
    )?;
    out.set_item(
        "skill_decile",
        rows.iter().map(|r| r.0).collect::<Vec<_>>().into_pyarray(py),
    )?;
    // What a row's interval holds: a fitted population's whole row also
    // its fit's uncertainty; a skill decile the simulation's noise alone.
    out.set_item(
        "interval",
        rows.iter()
            .map(|r| {
                if r.1.with_fit {
                    "fit+simulation"
                } else {
                    "simulation"
                }
            })
            .collect::<Vec<_>>(),
    )?;
    out.set_item(
        "players",
        rows.iter()
            .map(|r| r.1.players as u64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    out.set_item(
        "games",
        rows.iter()
            .map(|r| r.1.games as u64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    for (j, name) in NAMES.iter().enumerate() {
        let f = |pick: fn(&tenten_engine::fits::population::forecast::Figure) -> f64| {
            rows.iter().map(|r| pick(&r.1.figures[j])).collect::<Vec<f64>>()
        };
        out.set_item(*name, f(|x| x.value).into_pyarray(py))?;
        out.set_item(
            format!("{name}_lo"),
            f(|x| x.ci.map_or(f64::NAN, |c| c.0)).into_pyarray(py),
        )?;
        out.set_item(
            format!("{name}_hi"),
            f(|x| x.ci.map_or(f64::NAN, |c| c.1)).into_pyarray(py),
        )?;
    }
    Ok(out)
}
