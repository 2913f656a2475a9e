//! `tenten calibrate`: an estimator checked by simulation-based
//! calibration, and the merge of a sharded study.

use std::time::Instant;

use super::*;
use tenten_engine::fits::population::file as population_file;
use tenten_engine::study::calibrate::file::{self as study_file, Study};
use tenten_engine::study::calibrate::summary;
use tenten_engine::study::calibrate::{self, Design, Estimator, Plan, Ranges, Replication};

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    /// Replace output files (--out, --csv) that exist; without it they are refused.
    #[arg(long)]
    pub force: bool,
    /// fit-player (rank, piece lookahead, on one tester's deals), fit-population (a cohort
    /// of testers x sessions), forecast (that fit's forecast against the true population's
    /// players), tune (the verdict on a median target, confirmed on 2,000 fresh games) or
    /// fit-generator (a generator drawn at random, a machine player's log of it, learned back:
    /// the shares' coverage, the rules kept and the check's verdict) or gain (the paired gain
    /// of one generator over another on --forecast-players held-out players, as `adapt`
    /// reports it, against the true gain on --truth-players).
    #[arg(long, value_parser = Estimator::parse)]
    estimator: Estimator,
    #[arg(long, value_name = "R", default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    replications: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Testers and their sessions each (fit-population, forecast); default 50 x 5.
    #[arg(long, value_name = "N", default_value_t = 50)]
    testers: u32,
    #[arg(long, value_name = "N", default_value_t = 5)]
    sessions: u32,
    /// One tester's deals (fit-player; default 300), or the fewest deals of a log
    /// (fit-generator; default 2,000).
    #[arg(long, value_name = "N")]
    deals: Option<u32>,
    /// The most deals of a log (fit-generator; default 50,000): each replication's length is
    /// drawn log-uniformly from --deals to this.
    #[arg(long, value_name = "N")]
    deals_max: Option<u32>,
    /// fit-generator: the chance a true generator has a repeat rule (default the other
    /// rules' 0.206, which leaves half the generators with no rule), to ask how often the
    /// rules are learned right when there is one.
    #[arg(long, value_name = "P")]
    repeat_chance: Option<f64>,
    /// The ranges the truth is drawn from, a RON file of (LO, HI) pairs: temperature_median,
    /// temperature_log_sd, slip_median, slip_logit_sd, quit_base, quit_unfair_odds,
    /// quit_per_log_round, and the churn terms quit_per_unfair_in_row, quit_per_log_longer,
    /// quit_per_log_shorter, quit_per_session_game (0 unless given; any left out keep their
    /// defaults, around the demo population).
    #[arg(long, value_name = "RANGES.ron", conflicts_with = "population")]
    ranges: Option<PathBuf>,
    /// Hold one population fixed instead of drawing (a file or a preset's name).
    #[arg(long, value_name = "POP")]
    population: Option<String>,
    /// The generator the testers play (a built-in).
    #[arg(long, value_name = "G", default_value = "random")]
    generator: String,
    /// The generator a forecast is for (forecast).
    #[arg(long, value_name = "G", default_value = "repair")]
    forecast_generator: String,
    /// gain: the two generator files compared, BASE,ARM (the gain is ARM's over BASE's),
    /// kept by value in the study; default --generator and --forecast-generator.
    #[arg(long, value_name = "BASE.ron,ARM.ron", value_delimiter = ',')]
    arms: Option<Vec<PathBuf>>,
    /// gain: the figure compared: games_per_session (default), reach=R or returning_after=N.
    #[arg(long, value_name = "OBJECTIVE")]
    objective: Option<String>,
    /// Players a forecast plays, and the true population's players its truth is measured on
    /// (default 10,000; a gain's 20,000: its truth's own error counts against the interval).
    #[arg(long, value_name = "N", default_value_t = 2_000)]
    forecast_players: u32,
    #[arg(long, value_name = "N")]
    truth_players: Option<u32>,
    #[arg(long, value_name = "WxH", default_value = "10x10", value_parser = simulate::parse_size)]
    size: BoardSize,
    #[arg(long, value_name = "R", default_value_t = 1_000, value_parser = clap::value_parser!(u32).range(1..))]
    max_rounds: u32,
    /// Play only shard I of N: the replications r with r mod N = I; needs --out. `tenten
    /// merge` puts the shards back together.
    #[arg(long, value_name = "I/N", value_parser = simulate::parse_shard)]
    shard: Option<Shard>,
    /// Write the study (its plan by value and every replication's estimates and truths) to
    /// this file, atomically.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Keep the replications done in this file as they end; the same command run again
    /// resumes from it.
    #[arg(long, value_name = "FILE")]
    checkpoint: Option<PathBuf>,
    /// Write the table (a row per parameter) as CSV.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
}

fn bad(m: impl Into<String>) -> FormatError {
    FormatError::new("calibrate", None, m)
}

/// The study the options ask for, checked.
fn plan(a: &Args) -> Result<Plan, FormatError> {
    let generator = a.estimator == Estimator::FitGenerator;
    if a.deals_max.is_some() && !generator {
        return Err(bad("--deals-max is fit-generator's (a range of log lengths)"));
    }
    let design = Design {
        testers: a.testers as usize,
        sessions: a.sessions as usize,
        deals: a
            .deals
            .map_or(if generator { Design::GENERATOR.deals } else { 300 }, |d| {
                d as usize
            }),
        deals_max: match a.deals_max {
            Some(d) => d as usize,
            None if generator => Design::GENERATOR.deals_max,
            None => 0,
        },
    };
    let mut plan = Plan::new(a.estimator, design, a.replications as usize, a.seed);
    plan.ranges = match (&a.ranges, &a.population) {
        (Some(file), _) => Ranges::parse(&formats::read_text(file)?, &file.display().to_string())?,
        (None, Some(p)) => Ranges::fixed(&population_file::by_name(p)?).map_err(bad)?,
        (None, None) => Ranges::default(),
    };
    if let Some(c) = a.repeat_chance {
        let g = plan.generators.as_mut().ok_or_else(|| {
            bad(
                "--repeat-chance is fit-generator's (the chance a true generator has a repeat rule)"
                    .to_owned(),
            )
        })?;
        g.repeat_chance = Some(c);
    }
    plan.generator = a.generator.clone();
    plan.forecast_generator = a.forecast_generator.clone();
    plan.forecast_players = a.forecast_players as usize;
    if let Some(n) = a.truth_players {
        plan.truth_players = n as usize;
    }
    plan.board = (a.size.w() as u8, a.size.h() as u8);
    plan.max_rounds = a.max_rounds;
    if a.estimator != Estimator::Gain && (a.arms.is_some() || a.objective.is_some()) {
        return Err(bad(
            "--arms and --objective are the gain estimator's (the two generators it compares, on what)",
        ));
    }
    if a.estimator == Estimator::Gain
        && a.arms.is_none()
        && let Some(o) = &a.objective
    {
        tenten_engine::study::adapt::Objective::parse(o).map_err(bad)?;
        if o != "games_per_session" {
            return Err(bad(
                "--objective other than games_per_session needs --arms (the built-in arms compare games per session)",
            ));
        }
    }
    if let Some(files) = &a.arms {
        if files.len() != 2 {
            return Err(bad(format!(
                "--arms is two generator files, BASE.ron,ARM.ron; got {}",
                files.len()
            )));
        }
        let arm = |path: &PathBuf| -> Result<calibrate::gain::Arm, FormatError> {
            let spec = tenten_engine::play::generator_file::load(path, &PieceSet::classic())?;
            // The file's name, not the path as typed: shards started from
            // other folders still merge.
            Ok(calibrate::gain::Arm {
                name: path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                ),
                file: spec.file,
            })
        };
        plan.arms = Some(calibrate::gain::Arms {
            objective: a
                .objective
                .clone()
                .unwrap_or_else(|| "games_per_session".to_owned()),
            base: arm(&files[0])?,
            arm: arm(&files[1])?,
        });
    }
    plan.check().map_err(bad)?;
    Ok(plan)
}

/// Where the study starts: a checkpoint of the same study and shard, or
/// nothing done.
fn resumed(plan: &Plan, shard: (usize, usize), checkpoint: Option<&Path>) -> Result<Study, FormatError> {
    let fresh = Study::new(plan.clone(), shard, Vec::new());
    let Some(path) = checkpoint.filter(|p| p.exists()) else {
        return Ok(fresh);
    };
    let name = path.display().to_string();
    let text = formats::read_text(path)?;
    let study = match Study::parse(&text, &name) {
        Some(Ok(s)) => s,
        Some(Err(e)) => return Err(FormatError::new(&name, None, e)),
        None => return Err(FormatError::new(&name, None, "is not a calibration checkpoint")),
    };
    study
        .plan
        .same_behaviour(&name)
        .map_err(|e| FormatError::new(&name, None, e))?;
    if study.plan != *plan || study.shard != shard {
        return Err(FormatError::new(
            &name,
            None,
            "is a checkpoint of another study (its plan or shard differs); remove it or name another",
        ));
    }
    eprintln!(
        "resuming from {name}: {} replications done",
        study.replications.len()
    );
    Ok(study)
}

pub(super) fn cmd_calibrate(a: &Args, out: &mut String) -> Result<(), FormatError> {
    let plan = plan(a)?;
    let shard = a.shard.unwrap_or(Shard::ALL);
    if shard.of > 1 && a.out.is_none() {
        return Err(bad(format!(
            "--shard {shard} needs --out FILE: a shard's replications are for `tenten merge`"
        )));
    }
    let mut study = resumed(&plan, (shard.index, shard.of), a.checkpoint.as_deref())?;
    let todo = study.remaining();
    eprintln!(
        "calibrating {} ({} design, {} replications to play, seed {})...",
        plan.estimator.name(),
        summary::design(&plan),
        todo.len(),
        plan.seed
    );
    let started = Instant::now();
    let total = todo.len();
    // The ETA weighs each replication by its cost (a fit-generator log's deals).
    let cost_left: usize = todo.iter().map(|&r| plan.cost(r)).sum();
    let mut cost_done = 0usize;
    let mut done = 0usize;
    let mut failed_write = None;
    let progress = Progress::default();
    calibrate::run(&plan, todo, &progress, |rep: &Replication| {
        done += 1;
        cost_done += plan.cost(rep.index);
        study.replications.push(rep.clone());
        let per = started.elapsed().as_secs_f64() / cost_done.max(1) as f64;
        eprintln!(
            "  replication {} ({done} of {total}){}{} eta {:.0} s",
            rep.index,
            rep.generator.as_ref().map_or(String::new(), |o| format!(
                ": {} deals of {}, learned {} ({})",
                o.deals,
                o.truth.name(),
                o.learned.name(),
                if o.decided { "decided" } else { "undecided" }
            )),
            rep.failed
                .as_deref()
                .map_or(String::new(), |w| format!(" failed: {w}")),
            per * cost_left.saturating_sub(cost_done) as f64
        );
        if let Some(path) = &a.checkpoint
            && failed_write.is_none()
            && let Err(e) = formats::write_atomic(path, &study.to_ron())
        {
            failed_write = Some(e);
        }
    })
    .ok_or_else(|| bad("cancelled"))?;
    if let Some(e) = failed_write {
        return Err(e);
    }
    study.replications.sort_by_key(|r| r.index);
    if let Some(file) = &a.out {
        formats::write_atomic(file, &study.to_ron())?;
    }
    if shard.of > 1 {
        let _ = writeln!(
            out,
            "calibrate shard={shard} replications={} of {} out={}",
            study.replications.len(),
            plan.replications,
            a.out
                .as_deref()
                .map_or(String::new(), |p| p.display().to_string())
        );
        return Ok(());
    }
    report(&plan, &study.replications, a.csv.as_deref(), out)
}

/// The lines (and the CSV) of a whole study.
fn report(
    plan: &Plan,
    reps: &[Replication],
    csv: Option<&Path>,
    out: &mut String,
) -> Result<(), FormatError> {
    let rows = summary::rows(reps);
    let lines = if plan.estimator == Estimator::FitGenerator {
        calibrate::generator::lines(plan, reps)
    } else {
        summary::lines(plan, &rows)
    };
    for line in lines {
        let _ = writeln!(out, "{line}");
    }
    if let Some(file) = csv {
        formats::write_atomic(file, &summary::csv(plan, &rows))?;
    }
    Ok(())
}

/// The files as calibration studies, or `None` when the first is none.
pub(super) fn studies(files: &[PathBuf]) -> Option<Result<Vec<(String, Study)>, FormatError>> {
    shard_files(
        files,
        Study::parse,
        "not a calibration study (calibrate --shard I/N --out FILE writes one)",
    )
}

/// Merges a sharded study: the lines one process would have printed.
pub(super) fn cmd_merge(
    shards: &[(String, Study)],
    csv: Option<&Path>,
    merged: Option<&Path>,
    out: &mut String,
) -> Result<(), FormatError> {
    let (plan, reps) = study_file::merge(shards).map_err(|e| FormatError::new("merge", None, e))?;
    if let Some(file) = merged {
        formats::write_atomic(file, &Study::new(plan.clone(), (0, 1), reps.clone()).to_ron())?;
    }
    report(&plan, &reps, csv, out)
}

#[derive(clap::Args, Debug)]
pub(super) struct PlanArgs {
    /// The audience: a population file or a preset's name.
    #[arg(long, value_name = "POP")]
    population: String,
    /// The generator the testers will play (width), or give --compare.
    #[arg(long, value_name = "G", required_unless_present = "compare")]
    generator: Option<String>,
    /// The figure: reach_10, reach_25, reach_50, reach_100, games_per_session, ...
    #[arg(long, value_name = "NAME", default_value = "reach_50")]
    figure: String,
    /// The 95 % interval's full width to reach (hi - lo).
    #[arg(long, value_name = "W", conflicts_with = "compare")]
    width: Option<f64>,
    /// Two generators to compare (an A/B test, testers split between them): built-ins, presets
    /// or generator files (adaptive ones too).
    #[arg(long, value_name = "G1,G2", requires = "difference")]
    compare: Option<String>,
    /// The difference in the figure to detect (two-sided 5 % test).
    #[arg(long, value_name = "D")]
    difference: Option<f64>,
    #[arg(long, value_name = "P", default_value_t = 0.8)]
    power: f64,
    /// Sessions each tester plays.
    #[arg(long, value_name = "S", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=100))]
    sessions: u32,
    /// Cohorts simulated at each design tried.
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u32).range(2..=1_000))]
    pilots: u32,
    /// Cohorts simulated at the answer, to check it.
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u32).range(2..=10_000))]
    checks: u32,
    /// Testers the true figure is measured on (once), each playing --sessions
    /// sessions with their games carried, as the planned testers do.
    #[arg(long, value_name = "N", default_value_t = 20_000, value_parser = clap::value_parser!(u32).range(100..=1_000_000))]
    truth_players: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, value_name = "WxH", default_value = "10x10", value_parser = simulate::parse_size)]
    size: BoardSize,
    #[arg(long, value_name = "R", default_value_t = 1_000, value_parser = clap::value_parser!(u32).range(1..))]
    max_rounds: u32,
    /// The game's pieces (default: the classic set): the testers are dealt them, and a
    /// generator file must deal them.
    #[arg(long, value_name = "SET.ron")]
    pieces: Option<PathBuf>,
}

pub(super) fn cmd_plan_playtest(a: &PlanArgs, out: &mut String) -> Result<(), FormatError> {
    use tenten_engine::study::calibrate::plan_playtest::{self, Ask};
    let bad = |m: String| FormatError::new("plan-playtest", None, m);
    let ask = Ask {
        population: population_file::by_name(&a.population)?,
        figure: a.figure.clone(),
        sessions: a.sessions as usize,
        pilots: a.pilots as usize,
        checks: a.checks as usize,
        truth_players: a.truth_players as usize,
        seed: a.seed,
        board: (a.size.w() as u8, a.size.h() as u8),
        max_rounds: a.max_rounds,
        pieces: piece_set(a.pieces.as_deref())?,
    };
    // Nothing cancels a CLI run; the progress is said every ten seconds.
    let never = Progress::default();
    match (&a.compare, a.width, &a.generator) {
        (Some(pair), _, _) => {
            let (g1, g2) = pair
                .split_once(',')
                .ok_or_else(|| bad(format!("--compare is G1,G2; got {pair:?}")))?;
            let d = a
                .difference
                .ok_or_else(|| bad("--compare needs --difference".to_owned()))?;
            eprintln!("sizing an A/B test of {g1} against {g2} on {}...", a.figure);
            let r = super::ticker::ticking("planning", "sessions played", &never, || {
                plan_playtest::testers_for_difference(&ask, (g1.trim(), g2.trim()), d, a.power, &never)
            })
            .map_err(bad)?
            .ok_or_else(|| bad("cancelled".to_owned()))?;
            for line in r.lines(&ask, d, a.power) {
                let _ = writeln!(out, "{line}");
            }
        }
        (None, Some(width), Some(g)) => {
            eprintln!("sizing a playtest of {g} for {} within {width}...", a.figure);
            let r = super::ticker::ticking("planning", "sessions played", &never, || {
                plan_playtest::testers_for_width(&ask, g, width, &never)
            })
            .map_err(bad)?
            .ok_or_else(|| bad("cancelled".to_owned()))?;
            for line in r.lines(&ask, g, width) {
                let _ = writeln!(out, "{line}");
            }
        }
        _ => {
            return Err(bad(
                "give --width W (with --generator), or --compare G1,G2 --difference D".to_owned(),
            ));
        }
    }
    Ok(())
}
