//! `tenten tune`: a generator file's weights tuned toward targets for a
//! player, the best checked on fresh seeds and written as a generator file.

use std::sync::atomic::Ordering;

use super::*;
use tenten_engine::play::generator_file::{self, GeneratorSpec};
use tenten_engine::study::runner::Plan;
use tenten_engine::study::tune::{self, Goal, TuneRequest};

pub(super) struct Args {
    pub generator: String,
    pub players: Vec<String>,
    pub population: Option<String>,
    pub targets: Vec<String>,
    pub keep_mix: f64,
    pub free: Option<String>,
    pub bounds: String,
    pub games: usize,
    pub holdout: usize,
    pub budget: f64,
    pub seed: u64,
    pub max_rounds: u32,
    pub out: PathBuf,
}

fn arg_error(message: String) -> FormatError {
    FormatError::new("tune", None, message)
}

/// Tunes; whether every target was met on the hold-out.
pub(super) fn cmd_tune(a: Args, out: &mut String) -> Result<bool, FormatError> {
    let classic = PieceSet::classic();
    let base = if a.generator.ends_with(".ron") {
        generator_file::load(Path::new(&a.generator), &classic)?
    } else {
        generator_file::preset(&a.generator, &classic).ok_or_else(|| {
            arg_error(format!(
                "unknown generator {:?}; give a generator file (.ron) or {}",
                a.generator,
                tenten_engine::play::dealing::names().join(", ")
            ))
        })?
    };
    let goals = a
        .targets
        .iter()
        .map(|t| Goal::parse(t).map_err(arg_error))
        .collect::<Result<Vec<_>, _>>()?;
    let free: Vec<PieceIdx> = match &a.free {
        None => (0..base.set.pieces.len() as PieceIdx).collect(),
        Some(ids) => ids
            .split(',')
            .map(|id| {
                base.set.index_of(id.trim()).ok_or_else(|| {
                    arg_error(format!(
                        "--free: unknown piece {:?} (not in \"{}\")",
                        id.trim(),
                        base.set.name
                    ))
                })
            })
            .collect::<Result<_, _>>()?,
    };
    let bounds = a
        .bounds
        .split_once(',')
        .and_then(|(lo, hi)| Some((lo.trim().parse::<f64>().ok()?, hi.trim().parse::<f64>().ok()?)))
        .filter(|(lo, hi)| *lo >= 0.0 && lo < hi && *hi <= 1000.0)
        .ok_or_else(|| {
            arg_error(format!(
                "--bounds is LO,HI with 0 <= LO < HI <= 1000 (weights are 0 to 1000), like 1,200; got {:?}",
                a.bounds
            ))
        })?;
    if a.budget.is_nan() || a.budget <= 0.0 {
        return Err(arg_error(format!(
            "--budget is a positive number of seconds; got {}",
            a.budget
        )));
    }
    let audience = a
        .population
        .as_deref()
        .map(tenten_engine::study::population::file::by_name)
        .transpose()?;
    let players: Vec<&str> = if audience.is_some() {
        Vec::new()
    } else {
        a.players.iter().map(String::as_str).collect()
    };
    let req = TuneRequest {
        plan: Plan {
            games: a.games,
            seed: a.seed,
            max_rounds: a.max_rounds,
            ..Plan::named(base.set.clone(), &players, &[], CoelhoWeights::BEST)?
        },
        audience,
        base,
        goals,
        free,
        bounds,
        keep_mix: a.keep_mix,
        budget_seconds: a.budget,
        max_evaluations: None,
        holdout_games: a.holdout,
    };
    req.check().map_err(arg_error)?;
    let who = match &req.audience {
        Some(p) => format!("the audience of population {}", p.name),
        None => a.players.join(", "),
    };
    eprintln!(
        "tuning {} weights of {} for {} ({} {} a candidate, {:.0} s)...",
        req.free.len(),
        req.base.file.name,
        who,
        a.games,
        if req.audience.is_some() {
            "players"
        } else {
            "games"
        },
        a.budget
    );
    let count = std::sync::atomic::AtomicUsize::new(0);
    // Each new best is written at once (atomically), so a run stopped by
    // Ctrl+C or a kill keeps the best generator found so far.
    let write = |spec: &GeneratorSpec, note: &str| -> Result<(), FormatError> {
        let mut tuned = spec.clone();
        tuned.file.name = format!("{} tuned", req.base.file.name);
        if let Some(p) = &req.base.file.pieces {
            let set_file = formats::resolve_pieces_path(Path::new(&a.generator), p);
            tuned.file.pieces = Some(formats::pieces_reference(&a.out, &set_file));
        }
        let text = format!(
            "// Tuned by tenten tune from {} for {}: {}; {note}\n{}",
            a.generator,
            who,
            a.targets.join(" "),
            tuned.to_ron()
        );
        formats::write_atomic(&a.out, &text)
    };
    let failed = std::cell::RefCell::new(None);
    let report = tune::tune(&req, &Progress::default(), |e| {
        if count.fetch_add(1, Ordering::Relaxed).is_multiple_of(10) {
            eprintln!("  evaluation {} loss {:.5} best {:.5}", e.n, e.loss, e.best);
        }
        if e.loss == e.best && failed.borrow().is_none() {
            let note = format!(
                "the best so far, evaluation {} (loss {:.5}), not yet checked on the hold-out.",
                e.n, e.loss
            );
            if let Err(err) = write(&tune::candidate(&req, &e.x), &note) {
                *failed.borrow_mut() = Some(err);
            }
        }
    })
    .ok_or_else(|| arg_error("the tune stopped before its first evaluation".to_owned()))?;
    if let Some(err) = failed.into_inner() {
        return Err(err);
    }
    let set = &req.plan.set;
    let cap = req.plan.max_rounds;
    let unit = if req.audience.is_some() {
        "players"
    } else {
        "games"
    };
    for c in &report.holdout {
        let ci = |m: &tune::Measured| {
            m.ci.map_or("none".to_owned(), |(lo, hi)| {
                if hi.is_finite() {
                    format!("{lo:.3},{hi:.3}")
                } else {
                    format!("{lo:.3},beyond_{cap}")
                }
            })
        };
        let value = |m: &tune::Measured| {
            m.value
                .map_or(format!("beyond_{cap}"), |v| format!("{:.3}", v + 0.0))
        };
        let _ = writeln!(
            out,
            "target={} player={} goal={} tolerance={} verdict={} holdout={} holdout_ci={} start={} start_ci={} holdout_{unit}={}",
            c.goal.target.name(),
            c.player,
            c.goal.target.goal(),
            c.goal.tolerance,
            if c.met { "met" } else { "missed" },
            value(&c.holdout),
            ci(&c.holdout),
            value(&c.start),
            ci(&c.start),
            req.holdout_games
        );
        if !c.met {
            eprintln!(
                "MISSED: {} for {}: {} on {} fresh {unit}, goal {} within {}",
                c.goal.target.name(),
                c.player,
                c.holdout.show(cap),
                req.holdout_games,
                c.goal.target.goal(),
                c.goal.tolerance
            );
        }
    }
    let weights = |w: &[u32]| {
        set.pieces
            .iter()
            .zip(w)
            .map(|(p, w)| format!("{}:{w}", p.id))
            .collect::<Vec<_>>()
            .join(",")
    };
    let _ = writeln!(out, "weights_before={}", weights(&report.weights_before));
    let _ = writeln!(out, "weights_after={}", weights(&report.weights_after));
    for f in &report.finalists {
        let _ = writeln!(
            out,
            "finalist weights={} tuning_loss={:.5} validation_loss={:.5}",
            weights(&tune::candidate(&req, &f.x).set.weights()),
            f.tuning_loss,
            f.validation_loss
        );
    }
    let _ = writeln!(
        out,
        "divergence={:.4} steps_per_base_weight={} keep_mix={}",
        report.divergence, report.steps, req.keep_mix
    );
    let _ = writeln!(
        out,
        "loss_start={:.5} loss_best={:.5} evaluations={} seconds={:.1} evaluations_per_s={:.2} stopped_early={}",
        report.start.loss,
        report.best.loss,
        report.evaluations.len(),
        report.seconds,
        report.evaluations_per_second(),
        report.stopped_early
    );
    let verdicts: Vec<String> = report
        .holdout
        .iter()
        .map(|c| {
            format!(
                "{} for {} {} ({})",
                c.goal.target.name(),
                c.player,
                if c.met { "met" } else { "MISSED" },
                c.holdout.show(cap)
            )
        })
        .collect();
    let note = format!(
        "{} evaluations of {} {} (seeds {}..), {} finalists validated, hold-out {}: {}.",
        report.evaluations.len(),
        a.games,
        unit,
        a.seed,
        report.finalists.len(),
        a.holdout,
        verdicts.join("; ")
    );
    write(&report.tuned, &note)?;
    Ok(report.all_met())
}
