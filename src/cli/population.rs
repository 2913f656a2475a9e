//! `tenten cohort`, `fit-population` and `forecast`: an audience drawn from
//! a population, fitted back from its testers' logs, and forecast under
//! generators (checked against logs with `--check`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use tenten_engine::io::formats::{self, FormatError};
use tenten_engine::model::board::BoardSize;
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::model::shapes::Shapes;
use tenten_engine::play::coelho::CoelhoWeights;
use tenten_engine::play::dealing::Dealing;
use tenten_engine::play::player::{Choice, Lookahead};
use tenten_engine::progress::Progress;
use tenten_engine::search::changer::ChangeOptions;
use tenten_engine::study::population::check::check;
use tenten_engine::study::population::cohort::cohort;
use tenten_engine::study::population::file;
use tenten_engine::study::population::fit::{self, Model, fit_population};
use tenten_engine::study::population::forecast::{Outcome, deciles, play_players, summarize};
use tenten_engine::study::population::session::Table;

fn piece_set(pieces: Option<&Path>) -> Result<PieceSet, FormatError> {
    match pieces {
        Some(p) => formats::load_piece_set(p),
        None => Ok(PieceSet::classic()),
    }
}

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
}

/// Writes one JSON Lines log per tester into `out` (made if missing).
pub(super) fn cmd_cohort(a: &CohortArgs, rules: &Rules, out: &mut String) -> Result<(), FormatError> {
    let population = file::by_name(&a.population)?;
    let set = piece_set(rules.pieces.as_deref())?;
    let dealing = Dealing::by_name(&a.generator, &set)?;
    let shapes = Shapes::new(&set, rules.size);
    let table = Table {
        shapes: &shapes,
        set: &set,
        k: rules.k,
        dealing: &dealing,
        options: ChangeOptions::default(),
        max_rounds: rules.max_rounds,
    };
    let dir = a.out.display().to_string();
    std::fs::create_dir_all(&a.out)
        .map_err(|e| FormatError::new(&dir, None, format!("cannot make the folder: {e}")))?;
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
    let (mut games, mut deals) = (0, 0);
    for log in &logs {
        formats::write_atomic(&a.out.join(format!("{}.jsonl", log.id)), &log.text)?;
        games += log.games;
        deals += log.deals;
    }
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

/// The logs given: files, and every `.jsonl` file of a folder given
/// (sorted, so the testers' order is the same on every machine).
fn read_logs(paths: &[PathBuf]) -> Result<Vec<(String, String)>, FormatError> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let name = p.display().to_string();
            let mut inside: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| FormatError::new(&name, None, format!("cannot read the folder: {e}")))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "jsonl"))
                .collect();
            inside.sort();
            if inside.is_empty() {
                return Err(FormatError::new(&name, None, "the folder holds no .jsonl logs"));
            }
            files.extend(inside);
        } else {
            files.push(p.clone());
        }
    }
    files
        .iter()
        .map(|f| Ok((f.display().to_string(), formats::read_text(f)?)))
        .collect()
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
    let logs = read_logs(&a.logs)?;
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
    let _ = writeln!(out, "{}", fitted.line());
    let header = format!(
        "// A model of an audience, not measured people: fitted by tenten fit-population to {} testers' logs\n\
         // ({} moves, {} games). `fitted` holds the standard errors a forecast draws from and each tester's fit.\n",
        fitted.testers.len(),
        fitted.moves,
        fitted.games
    );
    formats::write_atomic(&a.out, &format!("{header}{}", fitted.population.to_ron()))
}

pub(super) struct ForecastArgs {
    pub population: String,
    pub generators: Vec<String>,
    pub players: usize,
    pub seed: u64,
    pub by_skill: bool,
    pub check: Vec<PathBuf>,
}

/// Forecasts each generator; with `--check`, compares the one the logs
/// were played under with them.
pub(super) fn cmd_forecast(a: &ForecastArgs, rules: &Rules, out: &mut String) -> Result<(), FormatError> {
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
        let logs = read_logs(&a.check)?;
        let named = logs.iter().find_map(|(_, text)| {
            tenten_engine::io::jsonl_log::records(text, "")
                .ok()?
                .into_iter()
                .find_map(|(_, r)| r.generator)
        });
        let generator = match named {
            Some(g) if a.generators.contains(&g) => g,
            Some(g) => {
                return Err(FormatError::new(
                    &logs[0].0,
                    None,
                    format!("the logs were played under {g:?}, which --generator does not forecast; add it"),
                ));
            }
            None if a.generators.len() == 1 => a.generators[0].clone(),
            None => {
                return Err(FormatError::new(
                    &logs[0].0,
                    None,
                    "the logs do not name their generator; forecast that one generator alone",
                ));
            }
        };
        let (size, testers) = fit::gather(&logs, &set)?;
        let shapes = Shapes::new(&set, size);
        let sessions: Vec<(String, Vec<_>)> = testers
            .iter()
            .map(|t| (t.id.clone(), t.sessions(&shapes, &set)))
            .collect();
        Some((generator, sessions))
    };
    let with_fit = population.fitted.is_some();
    eprintln!(
        "forecasting {} players of {} under {} ({})...",
        a.players,
        population.name,
        a.generators.join(", "),
        if with_fit {
            "intervals: the fit's sampling distribution and the simulation's noise"
        } else {
            "intervals: the simulation's noise alone (the population was not fitted)"
        }
    );
    for (name, dealing) in a.generators.iter().zip(&dealings) {
        let table = Table {
            shapes: &shapes,
            set: &set,
            k: rules.k,
            dealing,
            options: ChangeOptions::default(),
            max_rounds: rules.max_rounds,
        };
        let outcomes: Vec<Outcome> = play_players(
            &population,
            &table,
            a.players,
            0..a.players,
            a.seed,
            &Progress::default(),
        )
        .unwrap_or_else(|| unreachable!("not cancelled"));
        let all: Vec<&Outcome> = outcomes.iter().collect();
        let f = summarize(name, &all, a.players, with_fit);
        let _ = writeln!(out, "{}", f.line());
        if a.by_skill {
            for (d, part) in deciles(&outcomes).iter().enumerate() {
                let g = summarize(name, part, a.players, with_fit);
                let _ = writeln!(out, "skill_decile={} {}", d + 1, g.line());
            }
        }
        if let Some((generator, testers)) = &checked
            && generator == name
        {
            for line in check(&f, &outcomes, testers).lines() {
                let _ = writeln!(out, "{line}");
            }
        }
    }
    Ok(())
}
