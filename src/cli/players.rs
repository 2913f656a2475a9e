//! `tenten deal --log N --player P` (a playtest log with the moves a model
//! player made) and `tenten fit-player` (a player fitted to such a log).

use super::*;
use tenten_engine::io::playtest_log;
use tenten_engine::play::player::{self, Lookahead, Player};
use tenten_engine::study::explain::{self, Fitted};
use tenten_engine::study::{compare, fit, fit_check};

/// A player model: a preset name or a player file, read when parsed.
#[derive(Clone, Debug)]
pub(super) struct Model {
    pub named: String,
    pub player: Player,
}

pub(super) fn parse_model(s: &str) -> Result<Model, String> {
    let player = if s.ends_with(".ron") {
        player::load(Path::new(s)).map_err(|e| e.to_string())?
    } else {
        player::preset(s).ok_or_else(|| {
            let names: Vec<&str> = player::PRESETS.iter().map(|(n, _)| *n).collect();
            format!(
                "unknown player {s:?}; choose from {}, or give a player file (.ron)",
                names.join(", ")
            )
        })?
    };
    Ok(Model {
        named: s.to_owned(),
        player,
    })
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(crate) enum LookaheadArg {
    Piece,
    Holder,
}

impl From<LookaheadArg> for Lookahead {
    fn from(l: LookaheadArg) -> Self {
        match l {
            LookaheadArg::Piece => Lookahead::Piece,
            LookaheadArg::Holder => Lookahead::Holder,
        }
    }
}

fn piece_set(pieces: Option<&Path>) -> Result<PieceSet, FormatError> {
    match pieces {
        Some(p) => formats::load_piece_set(p),
        None => Ok(PieceSet::classic()),
    }
}

/// `n` deals that `model` met in self-play on an empty 10x10 board with the
/// random generator, each with its moves.
/// How `deal --log N --player P` writes its log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum LogFormat {
    /// A RON batch of deals with their moves.
    Ron,
    /// JSON Lines: one record per deal, with player, session, game, round
    /// and whether the game ended there.
    Jsonl,
}

pub(super) fn cmd_player_log(
    seed: u64,
    pieces: Option<&Path>,
    k: usize,
    n: usize,
    (model, format): (&Model, LogFormat),
    out: &mut String,
) -> Result<(), FormatError> {
    let set = piece_set(pieces)?;
    let size = BoardSize::CLASSIC;
    let shapes = Shapes::new(&set, size);
    let placed = fit::record_places(&shapes, &set, k, &model.player, seed, n);
    if format == LogFormat::Jsonl {
        let session = format!("seed-{seed}");
        let text = tenten_engine::io::playtest_log::to_jsonl(
            &placed,
            size,
            &set,
            &model.named,
            &session,
            Some("random"),
        );
        out.push_str(&text);
        return Ok(());
    }
    let log: Vec<_> = placed.into_iter().map(|(d, _)| d).collect();
    let p = &model.player;
    let comment = format!(
        "A playtest log of {n} deals: tenten deal --seed {seed} --log {n} --player {}{}.\n\
         Played by the model player {:?} ({}),\n\
         with the random generator ({}) on an empty {size} board, game g on seed {seed} + g.\n\
         moves: (piece, column, row) of each piece's top-left corner, in the order placed;\n\
         the deal a game was lost in has the placements made before the player was stuck.",
        model.named,
        if k == 3 {
            String::new()
        } else {
            format!(" --holder-size {k}")
        },
        p.name,
        p.describe(),
        set.name,
    );
    out.push_str(&playtest_log::to_ron(&log, size, &set, &comment));
    Ok(())
}

/// `--model`: the choice law fitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ModelArg {
    Rank,
    Value,
}

/// `--criteria 1,4,5`: which of the five criteria a value fit frees.
pub(super) fn parse_criteria(s: &str) -> Result<[bool; 5], String> {
    let mut free = [false; 5];
    for part in s.split(',').map(str::trim) {
        match part.parse::<usize>() {
            Ok(j @ 1..=5) => free[j - 1] = true,
            _ => {
                return Err(format!(
                    "{part:?} is not a criterion: number them 1 to 5 (free cells, 5x5 square, large pieces, \
                     alignment, surface), like 1,4,5"
                ));
            }
        }
    }
    Ok(free)
}

/// What `fit-player` is asked besides the log.
pub(super) struct FitArgs {
    pub lookahead: Lookahead,
    pub model: ModelArg,
    pub evaluation: CoelhoWeights,
    pub criteria: [bool; 5],
    pub compare: bool,
    pub folds: usize,
    pub generator: Option<String>,
    pub games: usize,
    pub seed: u64,
    pub name: Option<String>,
}

/// Fits a player to the log at `file`; prints the estimates (with
/// `--compare`, every model's held-out score and the best's checks) and
/// writes the player file when asked.
pub(super) fn cmd_fit_player(
    file: &Path,
    pieces: Option<&Path>,
    args: &FitArgs,
    save: Option<&Path>,
    out: &mut String,
) -> Result<(), FormatError> {
    let set = piece_set(pieces)?;
    let text = formats::read_text(file)?;
    let log = playtest_log::parse(&text, &file.display().to_string(), &set)?;
    let shapes = Shapes::new(&set, log.size);
    let games = log.games.last().map_or(0, |g| g + 1);
    eprintln!(
        "fitting {} moves of {} deals ({games} game{})...",
        log.moves,
        log.deals.len(),
        if games == 1 { "" } else { "s" }
    );
    let progress = Progress::default();
    let name = args.name.clone().unwrap_or_else(|| {
        let stem = file.file_stem().map_or("log".into(), |s| s.to_string_lossy());
        format!("fitted to {stem}")
    });
    let (model, fitted) = if args.compare {
        let ask = explain::Ask {
            folds: args.folds,
            evaluation: args.evaluation,
            criteria: args.criteria,
            generator: args.generator.clone(),
            games: args.games,
            seed: args.seed,
            name: name.clone(),
        };
        let e =
            explain::explain(&set, &log, &ask, &progress).unwrap_or_else(|| unreachable!("not cancelled"));
        print_explanation(&e, out);
        (e.best, e.fitted)
    } else {
        let model = match args.model {
            ModelArg::Rank => compare::Model::Rank {
                lookahead: args.lookahead,
                evaluation: args.evaluation,
            },
            ModelArg::Value => compare::Model::Value {
                lookahead: args.lookahead,
                free: args.criteria,
            },
        };
        let fitted = explain::fit_model(&shapes, &log, &model, &progress)
            .unwrap_or_else(|| unreachable!("not cancelled"));
        match &fitted {
            Fitted::Rank(f, _) => {
                let _ = writeln!(out, "{} intervals=profile_likelihood", f.line());
            }
            Fitted::Value(f) => {
                let player = fitted.player(&name, model.lookahead());
                let p = fit_check::predictions(&shapes, &player, &log.deals, &progress).unwrap_or_default();
                let top1 = fit_check::check_moves(&p).top1;
                let _ = writeln!(out, "{} intervals=profile_likelihood", f.line(top1));
            }
        }
        (model, fitted)
    };
    if let Some(path) = save {
        let text = fitted.file(
            &format!("{} by tenten fit-player", file.display()),
            &name,
            model.lookahead(),
        );
        formats::write_atomic(path, &text)?;
    }
    Ok(())
}

/// `--compare`'s lines: every model's held-out score, the best and its
/// margin, then the best's fit and its checks.
fn print_explanation(e: &explain::Explanation, out: &mut String) {
    let c = &e.comparison;
    for s in &c.ranked {
        let _ = writeln!(
            out,
            "model={} heldout_loglik_per_move={:.4} se={:.4}",
            s.model.name(),
            s.per_move,
            s.se
        );
    }
    let margin = c.margin_se.map_or("none".to_owned(), |m| format!("{m:.2}"));
    let _ = writeln!(out, "best={} margin_se={margin}", e.best.name());
    if let Some(why) = c.undecided() {
        let _ = writeln!(out, "undecided: {why}");
    }
    match &e.fitted {
        Fitted::Rank(f, _) => {
            let _ = writeln!(
                out,
                "fit: model={} {} intervals=profile_likelihood",
                e.best.name(),
                f.line()
            );
        }
        Fitted::Value(f) => {
            let _ = writeln!(out, "fit: {} intervals=profile_likelihood", f.line(e.moves.top1));
        }
    }
    let m = &e.moves;
    let _ = writeln!(
        out,
        "check: moves={} top1={:.3} mean_chance={:.3}",
        m.moves, m.top1, m.mean_chance
    );
    for b in &m.calibration {
        let _ = writeln!(
            out,
            "calibration: predicted={:.2}-{:.2} moves={} mean_predicted={:.4} observed={:.4}",
            b.lo, b.hi, b.moves, b.predicted, b.observed
        );
    }
    match &e.survival {
        Some(s) => {
            let median = |g: &[(u32, bool)]| {
                tenten_engine::stats::survival::kaplan_meier(g)
                    .median
                    .map_or("none".to_owned(), |m| m.to_string())
            };
            let test = s.test.map_or("logrank=none".to_owned(), |t| {
                format!("logrank_chi2={:.2} p={:.3}", t.chi2, t.p)
            });
            let _ = writeln!(
                out,
                "survival: generator={} seed={} cap={} observed_games={} observed_median={} simulated_games={} simulated_median={} {test}",
                s.generator,
                s.seed,
                e.cap,
                s.observed.len(),
                median(&s.observed),
                s.simulated.len(),
                median(&s.simulated),
            );
        }
        None => {
            let _ = writeln!(
                out,
                "survival: no check: {:?} is not a generator preset",
                e.generator
            );
        }
    }
}
