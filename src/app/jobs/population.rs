//! The Population view's work, on jobs: a folder of testers' logs fitted to
//! a population, and a population forecast under the Lab's generators
//! (reach curves with bands, and a check against a folder of logs).

use std::path::{Path, PathBuf};

use tenten_engine::fits::population::check::{Check, REFERENCE_COHORTS, check, reference, testers_of};
use tenten_engine::fits::population::file::Population;
use tenten_engine::fits::population::fit::{Model, PopulationFit, fit_population};
use tenten_engine::fits::population::forecast::{
    Figure, Forecast, Outcome, observed_reach, paired_gains, play_players, reach_curve, summarize,
};
use tenten_engine::fits::population::session::{Session, Table};
use tenten_engine::fits::population::uncertainty::Uncertainty;
use tenten_engine::model::board::BoardSize;
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::model::shapes::Shapes;
use tenten_engine::play::dealing::Dealing;
use tenten_engine::play::player::{Choice, Lookahead};

use tenten_engine::stats::inference::Gain;

use crate::app::jobs::job::{Background, Job};

/// Every `.jsonl` log of a folder, read as the CLI reads them.
pub fn read_folder(folder: &Path) -> Result<Vec<tenten_engine::io::jsonl_log::LogFile>, String> {
    tenten_engine::io::jsonl_log::read_logs(&[folder.to_path_buf()]).map_err(|e| e.to_string())
}

/// A fitted population and the folder it came from.
#[derive(Clone, Debug)]
pub struct FittedPopulation {
    pub folder: PathBuf,
    pub fit: PopulationFit,
}

#[derive(Default)]
pub struct PopulationFitJob {
    pub result: Option<FittedPopulation>,
    pub error: Option<String>,
    job: Option<Job<Result<FittedPopulation, String>>>,
}

impl Background for PopulationFitJob {
    type Message = Result<FittedPopulation, String>;
    fn job(&self) -> Option<&Job<Self::Message>> {
        self.job.as_ref()
    }
}

impl PopulationFitJob {
    /// Fits rank choice with piece lookahead under `evaluation` to every
    /// tester of `folder`.
    pub fn start(
        &mut self,
        folder: PathBuf,
        set: PieceSet,
        evaluation: tenten_engine::play::coelho::CoelhoWeights,
        ctx: &egui::Context,
    ) -> std::io::Result<()> {
        self.cancel();
        let job = Job::spawn("fit-population", ctx, move |send, progress| {
            let logs = match read_folder(&folder) {
                Ok(l) => l,
                Err(e) => return send(Err(e)),
            };
            let model = Model {
                choice: Choice::Rank,
                lookahead: Lookahead::Piece,
                evaluation,
                free: [true; 5],
            };
            let name = folder
                .file_name()
                .map_or("fitted".into(), |s| s.to_string_lossy().into_owned());
            match fit_population(&format!("fitted to {name}"), &model, &logs, &set, progress) {
                Ok(Some(fit)) => send(Ok(FittedPopulation { folder, fit })),
                Ok(None) => {}
                Err(e) => send(Err(e.to_string())),
            }
        })?;
        self.job = Some(job);
        self.error = None;
        Ok(())
    }

    pub fn poll(&mut self) -> bool {
        crate::app::jobs::job::poll_answer(&mut self.job, &mut self.result, &mut self.error)
    }
}

/// What to forecast.
#[derive(Clone, Debug)]
pub struct ForecastAsk {
    pub population: Population,
    /// The Lab's generators, each with its name (`lab::generators`).
    pub generators: Vec<(String, Dealing)>,
    pub set: PieceSet,
    pub size: BoardSize,
    pub k: usize,
    pub players: usize,
    pub seed: u64,
    pub max_rounds: u32,
    /// A folder of logs played under one of the generators, to check.
    pub check: Option<PathBuf>,
}

/// One generator's forecast: its figures, its reach curve, and the check
/// when its logs were given.
#[derive(Clone, Debug)]
pub struct GeneratorForecast {
    pub forecast: Forecast,
    pub curve: Vec<(u32, Figure)>,
    pub check: Option<(Check, Vec<(u32, f64)>)>,
    /// Games per session against the first generator, the same players
    /// under both: over all, and per skill decile (none for the first).
    pub gain: Option<Gain>,
    pub decile_gains: Vec<Option<Gain>>,
}

/// A finished forecast, with everything that decided it.
#[derive(Clone, Debug)]
pub struct ForecastResult {
    pub population: String,
    pub players: usize,
    pub seed: u64,
    pub max_rounds: u32,
    pub generators: Vec<GeneratorForecast>,
    /// The checked folder, and the generator its logs name.
    pub checked: Option<(PathBuf, String)>,
}

/// The rounds the reach curves run to: where the longest curve falls below
/// 1 %, or the cap.
pub const CURVE_ROUNDS: u32 = 400;

#[derive(Default)]
pub struct ForecastJob {
    pub result: Option<ForecastResult>,
    /// A forecast kept to compare the next with.
    pub pinned: Option<ForecastResult>,
    pub error: Option<String>,
    job: Option<Job<Result<ForecastResult, String>>>,
}

impl Background for ForecastJob {
    type Message = Result<ForecastResult, String>;
    fn job(&self) -> Option<&Job<Self::Message>> {
        self.job.as_ref()
    }
}

impl ForecastJob {
    pub fn start(&mut self, ask: ForecastAsk, ctx: &egui::Context) -> std::io::Result<()> {
        self.cancel();
        let job = Job::spawn("forecast", ctx, move |send, progress| {
            let checked = match &ask.check {
                None => None,
                // The generator the logs were played under is forecast too.
                Some(folder) => match read_folder(folder)
                    .and_then(|logs| testers_of(&logs, &ask.set).map_err(|e| e.to_string()))
                {
                    Ok((sessions, Some(g))) => Some((folder.clone(), g, sessions)),
                    Ok((_, None)) => {
                        return send(Err(format!(
                            "the logs of {} do not name their generator",
                            folder.display()
                        )));
                    }
                    Err(e) => return send(Err(e)),
                },
            };
            let mut generators = ask.generators.clone();
            if let Some((_, g, _)) = &checked
                && !generators.iter().any(|(name, _)| name == g)
            {
                match Dealing::by_name(g, &ask.set) {
                    Ok(d) => generators.push((g.clone(), d)),
                    Err(e) => return send(Err(e.to_string())),
                }
            }
            progress.set_total(ask.players * generators.len());
            let shapes = Shapes::new(&ask.set, ask.size);
            let uncertainty = Uncertainty::of(&ask.population);
            let mut out = Vec::new();
            let mut first: Option<Vec<Outcome>> = None;
            for (g, dealing) in &generators {
                let table = Table::new(&shapes, &ask.set, ask.k, dealing, ask.max_rounds);
                let Some(outcomes) =
                    play_players(&ask.population, &table, 0..ask.players, ask.seed, progress)
                else {
                    return;
                };
                let all: Vec<&Outcome> = outcomes.iter().collect();
                let forecast = summarize(g, &all, uncertainty.as_ref());
                let last = CURVE_ROUNDS.min(ask.max_rounds);
                let check = match checked.as_ref().filter(|(_, name, _)| name == g) {
                    None => None,
                    Some((_, _, testers)) => {
                        let Some(reference) = reference(
                            &ask.population,
                            &table,
                            testers,
                            REFERENCE_COHORTS,
                            ask.seed,
                            progress,
                        ) else {
                            return;
                        };
                        let sessions: Vec<Session> = testers.iter().flat_map(|t| t.1.clone()).collect();
                        Some((
                            check(&forecast, &outcomes, testers, &reference),
                            observed_reach(&sessions, last),
                        ))
                    }
                };
                let (gain, decile_gains) = match &first {
                    Some(base) => paired_gains(
                        &outcomes,
                        base,
                        tenten_engine::study::adapt::Objective::GamesPerSession.index(),
                    ),
                    None => (None, Vec::new()),
                };
                out.push(GeneratorForecast {
                    curve: reach_curve(&all, uncertainty.as_ref(), last),
                    forecast,
                    check,
                    gain,
                    decile_gains,
                });
                if first.is_none() {
                    first = Some(outcomes);
                }
            }
            send(Ok(ForecastResult {
                population: ask.population.name.clone(),
                players: ask.players,
                seed: ask.seed,
                max_rounds: ask.max_rounds,
                generators: out,
                checked: checked.map(|(f, g, _)| (f, g)),
            }));
        })?;
        self.job = Some(job);
        self.error = None;
        Ok(())
    }

    pub fn poll(&mut self) -> bool {
        crate::app::jobs::job::poll_answer(&mut self.job, &mut self.result, &mut self.error)
    }
}
