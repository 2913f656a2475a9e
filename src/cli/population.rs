//! `tenten cohort`, `fit-population` and `forecast`: an audience drawn from
//! a population, fitted back from its testers' logs, and forecast under
//! generators (checked against logs with `--check`).

use super::piece_set;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use tenten_engine::fits::population::check::{REFERENCE_COHORTS, check, reference, testers_of};
use tenten_engine::fits::population::cohort::{self, cohort};
use tenten_engine::fits::population::design;
use tenten_engine::fits::population::file;
use tenten_engine::fits::population::fit::{Model, fit_population};
use tenten_engine::fits::population::forecast::{Outcome, deciles, play_players, summarize};
use tenten_engine::fits::population::session::Table;
use tenten_engine::fits::population::shard::{ForecastPlan, ForecastShard, merge};
use tenten_engine::fits::population::uncertainty::Uncertainty;
use tenten_engine::io::formats::{self, FormatError};
use tenten_engine::io::jsonl_log;
use tenten_engine::model::board::BoardSize;
use tenten_engine::model::shapes::Shapes;
use tenten_engine::play::coelho::CoelhoWeights;
use tenten_engine::play::dealing::Dealing;
use tenten_engine::play::player::{Choice, Lookahead};
use tenten_engine::progress::Progress;
use tenten_engine::study::calibrate::{Estimator, measured};

/// Where sessions are played.
pub(super) struct Rules {
    pub pieces: Option<PathBuf>,
    pub size: BoardSize,
    pub k: usize,
    pub max_rounds: u32,
}

pub(super) struct CohortArgs {
    pub population: String,
    pub testers: usize,
    pub sessions: usize,
    pub generator: String,
    pub seed: u64,
    pub out: PathBuf,
    /// Replace the cohort already in `out`.
    pub force: bool,
}

/// Writes one JSON Lines log per tester into `out` (made if missing; a
/// folder with logs in it only with --force, and then replaced whole),
/// and the run's identity beside them.
pub(super) fn cmd_cohort(a: &CohortArgs, rules: &Rules, out: &mut String) -> Result<(), FormatError> {
    let population = file::by_name(&a.population)?;
    let set = piece_set(rules.pieces.as_deref())?;
    let dealing = Dealing::by_name(&a.generator, &set)?;
    let shapes = Shapes::new(&set, rules.size);
    let table = Table::new(&shapes, &set, rules.k, &dealing, rules.max_rounds);
    let dir = a.out.display().to_string();
    cohort::check_size(a.testers, a.sessions).map_err(|m| FormatError::new("cohort", None, m))?;
    cohort::check_folder(&a.out, a.force)?;
    eprintln!(
        "playing {} testers of {} ({} session{} each) under {}...",
        a.testers,
        population.name,
        a.sessions,
        if a.sessions == 1 { "" } else { "s" },
        a.generator
    );
    let progress = Progress::default();
    let logs = cohort(
        &population,
        &table,
        &a.generator,
        a.testers,
        a.sessions,
        a.seed,
        &progress,
    )
    .unwrap_or_else(|| unreachable!("not cancelled"));
    let run = cohort::CohortRun {
        run: ForecastPlan::new(
            &population,
            &set,
            rules.size,
            rules.k,
            rules.max_rounds,
            a.testers,
            a.seed,
            &table.options,
            &[(a.generator.clone(), dealing.clone())],
        ),
        sessions: a.sessions,
    };
    cohort::write_folder(&a.out, &logs, &run, a.force)?;
    let games: usize = logs.iter().map(|l| l.games).sum();
    let deals: usize = logs.iter().map(|l| l.deals).sum();
    let _ = writeln!(
        out,
        "cohort population={} generator={} testers={} sessions={} games={games} deals={deals} seed={} out={dir}",
        population.name,
        a.generator,
        a.testers,
        a.sessions * a.testers,
        a.seed
    );
    Ok(())
}

pub(super) struct FitArgs {
    pub logs: Vec<PathBuf>,
    pub choice: Choice,
    pub lookahead: Lookahead,
    pub evaluation: CoelhoWeights,
    pub criteria: [bool; 5],
    pub name: Option<String>,
    pub out: PathBuf,
}

/// Fits a population to the logs and writes it.
pub(super) fn cmd_fit_population(
    a: &FitArgs,
    pieces: Option<&Path>,
    out: &mut String,
) -> Result<(), FormatError> {
    let set = piece_set(pieces)?;
    let logs = logs_given(&a.logs)?;
    eprintln!(
        "fitting every tester of {} log{}...",
        logs.len(),
        if logs.len() == 1 { "" } else { "s" }
    );
    let model = Model {
        choice: a.choice,
        lookahead: a.lookahead,
        evaluation: a.evaluation,
        free: a.criteria,
    };
    let name = a.name.clone().unwrap_or_else(|| {
        a.out
            .file_stem()
            .map_or("fitted".into(), |s| s.to_string_lossy().into_owned())
    });
    let fitted = fit_population(&name, &model, &logs, &set, &Progress::default())?
        .unwrap_or_else(|| unreachable!("not cancelled"));
    for note in &fitted.notes {
        eprintln!("note: {note}");
    }
    let _ = writeln!(out, "{}", fitted.line());
    if let Some(l) = measured::of_population(&fitted.population, Estimator::FitPopulation) {
        let _ = writeln!(out, "{l}");
    }
    if let Some(words) = design::below_calibrated(&fitted.population) {
        let _ = writeln!(out, "note: {words}");
    }
    formats::write_atomic(&a.out, &fitted.file_text("tenten fit-population"))
}

/// The logs named on the command line, a cohort's `cohort.ron` among
/// them (`tenten fit-population cohort/*`) left out with a note.
fn logs_given(paths: &[PathBuf]) -> Result<Vec<jsonl_log::LogFile>, FormatError> {
    let (logs, notes) = cohort::without_identity(paths);
    for note in &notes {
        eprintln!("note: {note}");
    }
    if logs.is_empty()
        && let Some(first) = paths.first()
    {
        return Err(FormatError::new(
            &first.display().to_string(),
            None,
            "a cohort's identity, not a log: give its folder or its .jsonl logs",
        ));
    }
    jsonl_log::read_logs(&logs)
}

pub(super) struct ForecastArgs {
    pub population: String,
    pub generators: Vec<String>,
    pub players: usize,
    pub seed: u64,
    pub by_skill: bool,
    pub check: Vec<PathBuf>,
    /// Play one shard and write it here.
    pub shard: Option<(tenten_engine::study::results::Shard, PathBuf)>,
}

/// Forecasts each generator; with `--check`, compares the one the logs
/// were played under with them.
pub(super) fn cmd_forecast(a: &ForecastArgs, rules: &Rules, out: &mut String) -> Result<(), FormatError> {
    tenten_engine::fits::population::forecast::check_size(a.players, a.generators.len())
        .map_err(|m| FormatError::new("forecast", None, m))?;
    let population = file::by_name(&a.population)?;
    let set = piece_set(rules.pieces.as_deref())?;
    let shapes = Shapes::new(&set, rules.size);
    let dealings: Vec<Dealing> = a
        .generators
        .iter()
        .map(|g| Dealing::by_name(g, &set))
        .collect::<Result<_, _>>()?;
    let checked = if a.check.is_empty() {
        None
    } else {
        let logs = logs_given(&a.check)?;
        let (sessions, named) = testers_of(&logs, &set)?;
        let generator = match named {
            Some(g) if a.generators.contains(&g) => g,
            Some(g) => {
                return Err(FormatError::new(
                    &logs[0].name(),
                    None,
                    format!("the logs were played under {g:?}, which --generator does not forecast; add it"),
                ));
            }
            None if a.generators.len() == 1 => a.generators[0].clone(),
            None => {
                return Err(FormatError::new(
                    &logs[0].name(),
                    None,
                    "the logs do not name their generator; forecast that one generator alone",
                ));
            }
        };
        Some((generator, sessions))
    };
    let uncertainty = Uncertainty::of(&population);
    let with_fit = uncertainty.is_some();
    eprintln!(
        "forecasting {} players of {} under {} ({})...",
        a.players,
        population.name,
        a.generators.join(", "),
        if with_fit {
            "intervals: the fit's uncertainty (delta method) and the simulation's noise; skill deciles: the noise alone"
        } else {
            "intervals: the simulation's noise alone (the population was not fitted)"
        }
    );
    if let Some((shard, file)) = &a.shard {
        let mut per = Vec::new();
        for dealing in &dealings {
            let table = Table::new(&shapes, &set, rules.k, dealing, rules.max_rounds);
            let mine: Vec<usize> = (0..a.players).filter(|i| i % shard.of == shard.index).collect();
            per.push(
                play_players(&population, &table, mine, a.seed, &Progress::default())
                    .unwrap_or_else(|| unreachable!("not cancelled")),
            );
        }
        let named: Vec<(String, Dealing)> = a.generators.iter().cloned().zip(dealings).collect();
        let plan = ForecastPlan::new(
            &population,
            &set,
            rules.size,
            rules.k,
            rules.max_rounds,
            a.players,
            a.seed,
            &tenten_engine::search::changer::ChangeOptions::default(),
            &named,
        );
        let played: usize = per.first().map_or(0, Vec::len);
        formats::write_atomic(file, &ForecastShard::new(plan, *shard, &per).to_ron())?;
        let _ = writeln!(
            out,
            "forecast shard={shard} players={played} of {} generators={} out={}",
            a.players,
            a.generators.join(","),
            file.display()
        );
        return Ok(());
    }
    for (name, dealing) in a.generators.iter().zip(&dealings) {
        let table = Table::new(&shapes, &set, rules.k, dealing, rules.max_rounds);
        let outcomes: Vec<Outcome> =
            play_players(&population, &table, 0..a.players, a.seed, &Progress::default())
                .unwrap_or_else(|| unreachable!("not cancelled"));
        let all: Vec<&Outcome> = outcomes.iter().collect();
        let f = summarize(name, &all, uncertainty.as_ref());
        let _ = writeln!(out, "{}", f.line());
        if a.by_skill {
            for (d, part) in deciles(&outcomes).iter().enumerate() {
                // A decile is chosen by its players' draws: its interval
                // holds the simulation's noise alone, and says so.
                let g = summarize(name, part, None);
                let _ = writeln!(out, "skill_decile={} {} interval=simulation", d + 1, g.line());
            }
        }
        if let Some((generator, testers)) = &checked
            && generator == name
        {
            let reference = reference(
                &population,
                &table,
                testers,
                REFERENCE_COHORTS,
                a.seed,
                &Progress::default(),
            )
            .unwrap_or_else(|| unreachable!("not cancelled"));
            for line in check(&f, &outcomes, testers, &reference).lines() {
                let _ = writeln!(out, "{line}");
            }
        }
    }
    if let Some(l) = measured::of_population(&population, Estimator::Forecast) {
        let _ = writeln!(out, "{l}");
    }
    Ok(())
}

/// The files as a forecast's shards; `None` when the first is no forecast
/// shard (a simulation's result file: `merge` reads those).
pub(super) fn forecast_shards(
    files: &[PathBuf],
) -> Option<Result<Vec<(String, ForecastShard)>, FormatError>> {
    super::shard_files(
        files,
        |text, _| ForecastShard::parse(text),
        "not a forecast's shard (forecast --shard I/N --out FILE writes one)",
    )
}

/// Prints the merged forecast's lines, as one process prints them.
pub(super) fn cmd_merge_forecast(
    shards: &[(String, ForecastShard)],
    out: &mut String,
) -> Result<(), FormatError> {
    let merged = merge(shards).map_err(|m| FormatError::new("merge", None, m))?;
    for f in merged {
        let _ = writeln!(out, "{}", f.line());
    }
    if let Some((_, s)) = shards.first()
        && let Some(l) = measured::of_population(&s.forecast.population, Estimator::Forecast)
    {
        let _ = writeln!(out, "{l}");
    }
    Ok(())
}
