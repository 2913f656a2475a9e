//! `tune` as one asks for it, for the CLI and the Python package alike:
//! the options read into a request (each bad one named), the lines the CLI
//! prints, and the tuned generator file's text.

use std::fmt::Write as _;
use std::path::Path;

use crate::fits::population::file::Population;
use crate::io::formats::{self, FormatError};
use crate::model::pieces::{PieceIdx, PieceSet};
use crate::play::coelho::CoelhoWeights;
use crate::play::generator_file::{self, GeneratorSpec};
use crate::study::runner::Plan;
use crate::study::tune::{self, Goal, Measured, TuneReport, TuneRequest};

/// How far an undecided target grows the hold-out unless told: four
/// times its first look (three looks).
pub const HOLDOUT_GROWTH: usize = 4;
/// The most hold-out games (or players) a target may grow to.
pub const MAX_HOLDOUT: usize = 400_000;
/// A planned hold-out (no `--holdout`): its least and, unless told, most
/// games.
pub const PLANNED_LEAST: usize = 200;
pub const PLANNED_MOST: usize = 20_000;

/// The options, as the CLI takes them.
#[derive(Clone, Debug)]
pub struct Options {
    /// A generator file (.ron) or a preset's name.
    pub generator: String,
    pub players: Vec<String>,
    pub population: Option<String>,
    pub targets: Vec<String>,
    pub keep_mix: f64,
    /// Piece ids, comma separated (`None`: all).
    pub free: Option<String>,
    /// "LO,HI".
    pub bounds: String,
    pub games: usize,
    /// The hold-out's first look (`None`: planned from the tuned
    /// candidate's spread, `PLANNED_LEAST` to `holdout_max`).
    pub holdout: Option<usize>,
    /// An undecided target grows the hold-out up to this many (`None`:
    /// four times `holdout`, or `PLANNED_MOST` when planned).
    pub holdout_max: Option<usize>,
    pub budget: f64,
    pub max_evaluations: Option<usize>,
    pub seed: u64,
    pub max_rounds: u32,
}

fn bad(message: String) -> FormatError {
    FormatError::new("tune", None, message)
}

/// The request the options ask for, checked; `population` is a file or a
/// preset's name.
pub fn request(a: &Options) -> Result<TuneRequest, FormatError> {
    let audience = a
        .population
        .as_deref()
        .map(crate::fits::population::file::by_name)
        .transpose()?;
    request_for(a, audience)
}

/// The request for `audience` (in place of `a.population`), checked.
pub fn request_for(a: &Options, audience: Option<Population>) -> Result<TuneRequest, FormatError> {
    let classic = PieceSet::classic();
    let base = generator_file::spec_by_name(&a.generator, &classic).unwrap_or_else(|| {
        Err(bad(format!(
            "unknown generator {:?}; give a generator file (.ron) or {}",
            a.generator,
            crate::play::dealing::names().join(", ")
        )))
    })?;
    let goals = a
        .targets
        .iter()
        .map(|t| Goal::parse(t).map_err(bad))
        .collect::<Result<Vec<_>, _>>()?;
    let free: Vec<PieceIdx> = match &a.free {
        None => (0..base.set.pieces.len() as PieceIdx).collect(),
        Some(ids) => ids
            .split(',')
            .map(|id| {
                base.set.index_of(id.trim()).ok_or_else(|| {
                    bad(format!(
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
            bad(format!(
                "--bounds is LO,HI with 0 <= LO < HI <= 1000 (weights are 0 to 1000), like 1,200; got {:?}",
                a.bounds
            ))
        })?;
    if a.budget.is_nan() || a.budget <= 0.0 {
        return Err(bad(format!(
            "--budget is a positive number of seconds; got {}",
            a.budget
        )));
    }
    if a.max_evaluations == Some(0) {
        return Err(bad("--max-evaluations is at least 1".to_owned()));
    }
    let players: Vec<&str> = if audience.is_some() {
        Vec::new()
    } else {
        a.players.iter().map(String::as_str).collect()
    };
    let least = a.holdout.unwrap_or(PLANNED_LEAST);
    let holdout_max = a.holdout_max.unwrap_or(match a.holdout {
        Some(n) => n.saturating_mul(HOLDOUT_GROWTH),
        None => PLANNED_MOST,
    });
    if holdout_max < least || holdout_max > MAX_HOLDOUT {
        return Err(bad(format!(
            "--holdout-max is from {} ({least}) to {MAX_HOLDOUT}; got {holdout_max}",
            if a.holdout.is_some() {
                "--holdout"
            } else {
                "a planned hold-out's least"
            }
        )));
    }
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
        max_evaluations: a.max_evaluations,
        holdout_games: least,
        holdout_max,
        plan_holdout: a.holdout.is_none(),
    };
    req.check().map_err(bad)?;
    Ok(req)
}

/// Who the tune is for: the players, or the population's audience.
pub fn who(req: &TuneRequest, a: &Options) -> String {
    match &req.audience {
        Some(p) => format!("the audience of population {}", p.name),
        None => a.players.join(", "),
    }
}

/// What one candidate plays: "games", or "players" for an audience.
pub fn unit(req: &TuneRequest) -> &'static str {
    if req.audience.is_some() {
        "players"
    } else {
        "games"
    }
}

/// The tuned generator's file, written to `out`: a comment saying what
/// tuned it, for whom, toward what, and `note`; a piece set the base names
/// is referred to from `out`'s folder.
pub fn tuned_file(req: &TuneRequest, a: &Options, spec: &GeneratorSpec, out: &Path, note: &str) -> String {
    let mut tuned = spec.clone();
    tuned.file.name = format!("{} tuned", req.base.file.name);
    if let Some(p) = &req.base.file.pieces {
        let set_file = formats::resolve_pieces_path(Path::new(&a.generator), p);
        tuned.file.pieces = Some(formats::pieces_reference(out, &set_file));
    }
    format!(
        "// Tuned by tenten tune from {} for {}: {}; {note}\n{}",
        a.generator,
        who(req, a),
        a.targets.join(" "),
        tuned.to_ron()
    )
}

/// The note the final file carries: what was evaluated and the verdicts.
pub fn final_note(req: &TuneRequest, a: &Options, report: &TuneReport) -> String {
    let cap = report.cap;
    let verdicts: Vec<String> = report
        .holdout
        .iter()
        .map(|c| {
            format!(
                "{} for {} {} ({} at {:.1} % on {})",
                c.goal.target.name(),
                c.player,
                c.verdict.word(),
                c.holdout.show(cap),
                100.0 * c.level,
                c.games
            )
        })
        .collect();
    format!(
        "{} evaluations of {} {} (seeds {}..) followed to round {}, {} finalists validated, hold-out {} to {}{}: {}.",
        report.evaluations.len(),
        if report.best.games > a.games {
            format!("{} (sharpened to {})", a.games, report.best.games)
        } else {
            a.games.to_string()
        },
        unit(req),
        a.seed,
        cap,
        report.finalists.len(),
        report.holdout_looks.0,
        report.holdout_looks.1,
        if req.plan_holdout { " (planned)" } else { "" },
        verdicts.join("; ")
    )
}

/// A figure, or "beyond_<cap>" when past the round cap.
pub fn value(m: &Measured, cap: u32) -> String {
    m.value
        .map_or(format!("beyond_{cap}"), |v| format!("{:.3}", v + 0.0))
}

/// A figure's interval "lo,hi", or "none".
pub fn interval(m: &Measured, cap: u32) -> String {
    m.ci.map_or("none".to_owned(), |(lo, hi)| {
        if hi.is_finite() {
            format!("{lo:.3},{hi:.3}")
        } else {
            format!("{lo:.3},beyond_{cap}")
        }
    })
}

/// "id:weight,..." over the base's set.
pub fn weights(set: &PieceSet, w: &[u32]) -> String {
    set.pieces
        .iter()
        .zip(w)
        .map(|(p, w)| format!("{}:{w}", p.id))
        .collect::<Vec<_>>()
        .join(",")
}

/// The lines the CLI prints: a verdict per target and player, the weights
/// before and after, the finalists, and the search's figures.
pub fn lines(req: &TuneRequest, report: &TuneReport) -> Vec<String> {
    let set = &req.plan.set;
    let cap = report.cap;
    let unit = unit(req);
    let mut out = String::new();
    for c in &report.holdout {
        let _ = writeln!(
            out,
            "target={} player={} goal={} tolerance={} verdict={} holdout={} holdout_ci={} level={} start={} start_ci={} holdout_{unit}={} needed_{unit}={}",
            c.goal.target.name(),
            c.player,
            c.goal.target.goal(),
            c.goal.tolerance,
            c.verdict.word(),
            value(&c.holdout, cap),
            interval(&c.holdout, cap),
            (c.level * 1e4).round() / 1e4,
            value(&c.start, cap),
            interval(&c.start, cap),
            c.games,
            c.needed.map_or("none".to_owned(), |n| n.to_string())
        );
    }
    let _ = writeln!(out, "weights_before={}", weights(set, &report.weights_before));
    let _ = writeln!(out, "weights_after={}", weights(set, &report.weights_after));
    for f in &report.finalists {
        let _ = writeln!(
            out,
            "finalist weights={} tuning_loss={:.5} validation_loss={:.5}",
            weights(set, &tune::candidate(req, &f.x).set.weights()),
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
        "loss_start={:.5} loss_best={:.5} evaluations={} seconds={:.1} evaluations_per_s={:.2} stopped_early={} rounds_cap={} holdout_looks={},{} holdout_planned={}",
        report.start.loss,
        report.best.loss,
        report.evaluations.len(),
        report.seconds,
        report.evaluations_per_second(),
        report.stopped_early,
        report.cap,
        report.holdout_looks.0,
        report.holdout_looks.1,
        req.plan_holdout
    );
    out.lines().map(str::to_owned).collect()
}

/// What the CLI says once the start is measured: how far games are
/// followed, and how long the hold-out may take at the start's pace
/// (its looks planned a priori, before any candidate's spread is known).
pub fn outlook(req: &TuneRequest, start: &tune::Evaluation) -> String {
    let capped = tune::capped(req);
    let planned = tune::planned_holdout(&capped, None);
    let (first, most) = (
        planned.holdout_games,
        planned.holdout_max.max(planned.holdout_games),
    );
    let players = req.plan.players.len().max(1);
    let per_game = start.seconds / (req.plan.games * players).max(1) as f64;
    let cap = capped.plan.max_rounds;
    let followed = if cap < req.plan.max_rounds {
        format!("games are followed to round {cap} (twice the widest median band: no target needs more); ")
    } else {
        String::new()
    };
    let medians = req
        .goals
        .iter()
        .any(|g| matches!(g.target, tune::Target::MedianRounds(_)));
    let planned = match (req.plan_holdout, medians) {
        (true, true) => {
            " (planned a priori from the exponential law; planned again from the tuned candidate's spread)"
        }
        (true, false) => " (a share's or an audience's hold-out grows while undecided)",
        (false, _) => "",
    };
    let each = if req.audience.is_some() { "" } else { " a player" };
    format!(
        "{followed}the start took {:.1} s for {} {}; the hold-out plays {first} to {most} {}{each}{planned}, about {} to {} s at that pace",
        start.seconds,
        req.plan.games * players,
        unit(req),
        unit(req),
        seconds(per_game * (2 * first * players) as f64),
        seconds(per_game * ((first + most) * players) as f64),
    )
}

/// Seconds as the outlook says them: under one as "under 1".
fn seconds(s: f64) -> String {
    if s < 1.0 {
        "under 1".to_owned()
    } else {
        format!("{s:.0}")
    }
}
