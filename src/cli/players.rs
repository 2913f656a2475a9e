//! `tenten deal --log N --player P` (a playtest log with the moves a model
//! player made) and `tenten fit-player` (a player fitted to such a log).

use super::*;
use tenten_engine::fits::{fit_player, player as fit};
use tenten_engine::io::playtest_log;
use tenten_engine::play::player::{self, Lookahead, Player};

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
    (pieces, size): (Option<&Path>, BoardSize),
    k: usize,
    n: usize,
    (model, format, generator): (&Model, LogFormat, Option<&str>),
    out: &mut String,
) -> Result<(), FormatError> {
    let set = piece_set(pieces)?;
    let shapes = Shapes::new(&set, size);
    let generator = generator.unwrap_or("random");
    let dealing = tenten_engine::play::dealing::Dealing::by_name(generator, &set)?;
    let placed = fit::record_places_dealt(&shapes, &set, k, &model.player, seed, n, &dealing);
    if format == LogFormat::Jsonl {
        let session = format!("seed-{seed}");
        let text = tenten_engine::io::playtest_log::to_jsonl(
            &placed,
            size,
            &set,
            &model.named,
            &session,
            Some(generator),
        );
        out.push_str(&text);
        return Ok(());
    }
    let log: Vec<_> = placed.into_iter().map(|(d, _)| d).collect();
    let p = &model.player;
    let comment = format!(
        "A playtest log of {n} deals: tenten deal --seed {seed} --log {n} --player {}{}{}{}.\n\
         Played by the model player {:?} ({}),\n\
         with the {generator} generator ({}) on an empty {size} board, game g on seed {seed} + g.\n\
         moves: (piece, column, row) of each piece's top-left corner, in the order placed;\n\
         the deal a game was lost in has the placements made before the player was stuck.",
        model.named,
        if k == 3 {
            String::new()
        } else {
            format!(" --holder-size {k}")
        },
        if generator == "random" {
            String::new()
        } else {
            format!(" --generator {generator}")
        },
        if size == BoardSize::CLASSIC {
            String::new()
        } else {
            format!(" --size {size}")
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

/// Fits a player to the log at `file`; prints the estimates (with
/// `--compare`, every model's held-out score and the best's checks) and
/// writes the player file when asked.
pub(super) fn cmd_fit_player(
    file: &Path,
    pieces: Option<&Path>,
    req: &fit_player::Request,
    save: Option<&Path>,
    out: &mut String,
) -> Result<(), FormatError> {
    let set = piece_set(pieces)?;
    let log = playtest_log::read_path(file, &set)?;
    for note in &log.notes {
        eprintln!("note: {note}");
    }
    let games = log.games.last().map_or(0, |g| g + 1);
    eprintln!(
        "fitting {} moves of {} deals ({games} game{})...",
        log.moves,
        log.deals.len(),
        if games == 1 { "" } else { "s" }
    );
    let fitted = fit_player::fit_player(&set, &log, req, &Progress::default())
        .unwrap_or_else(|| unreachable!("not cancelled"));
    for line in &fitted.lines {
        let _ = writeln!(out, "{line}");
    }
    if let Some(path) = save {
        formats::write_atomic(path, &fitted.file(&file.display().to_string()))?;
    }
    Ok(())
}
