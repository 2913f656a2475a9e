//! `tenten simulate`: self-play games per (player, generator), one line each.

use std::sync::atomic::Ordering;

use super::*;
use tenten_engine::play::game::STRATEGIES;
use tenten_engine::play::runner::{self, Plan};
use tenten_engine::progress::Progress;

/// Generator names, checked against the ones that exist.
#[derive(Clone, Debug)]
pub(super) struct Generators(pub Vec<String>);

pub(super) fn parse_generators(s: &str) -> Result<Generators, String> {
    let names: Vec<String> = s.split(',').map(|g| g.trim().to_owned()).collect();
    for g in &names {
        if g.ends_with(".ron") {
            // A generator file: read now, so a bad one stops here with its
            // place (its piece set is checked against the run's later).
            tenten_engine::play::generator_file::load(Path::new(g), &PieceSet::classic())
                .map_err(|e| e.to_string())?;
            continue;
        }
        if !tenten_engine::play::dealers::NAMES.contains(&g.as_str()) {
            return Err(format!(
                "unknown generator {g:?}; choose from {}, or give a generator file (.ron)",
                tenten_engine::play::dealers::NAMES.join(", ")
            ));
        }
    }
    Ok(Generators(names))
}

/// Player names or files, each checked (a file is read now, so a bad one
/// stops here with its place).
#[derive(Clone, Debug)]
pub(super) struct Players(pub Vec<String>);

pub(super) fn parse_players(s: &str) -> Result<Players, String> {
    s.split(',')
        .map(|p| parse_player(p.trim()))
        .collect::<Result<_, _>>()
        .map(Players)
}

fn parse_player(s: &str) -> Result<String, String> {
    if STRATEGIES.contains(&s) {
        Ok(s.to_owned())
    } else if s.ends_with(".ron") {
        tenten_engine::play::player::load(std::path::Path::new(s))
            .map(|_| s.to_owned())
            .map_err(|e| e.to_string())
    } else {
        Err(format!(
            "unknown player {s:?}; choose from {}, or give a player file (.ron)",
            STRATEGIES.join(", ")
        ))
    }
}

/// The analysis's five criteria weights, written as it writes them ("10025").
pub(super) fn parse_weights(s: &str) -> Result<CoelhoWeights, String> {
    CoelhoWeights::parse(s)
}

pub(super) fn parse_size(s: &str) -> Result<BoardSize, String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("a size is WxH, like 10x10; got {s:?}"))?;
    let side = |v: &str| {
        v.trim()
            .parse::<usize>()
            .map_err(|_| format!("{v:?} is not a number in {s:?}"))
    };
    BoardSize::new(side(w)?, side(h)?)
}

#[allow(clippy::too_many_arguments)]
pub(super) fn cmd_simulate(
    generators: &[String],
    players: &[String],
    weights: CoelhoWeights,
    games: usize,
    seed: u64,
    pieces: Option<&Path>,
    size: BoardSize,
    k: usize,
    max_rounds: u32,
    csv: Option<&Path>,
    out: &mut String,
) -> Result<(), FormatError> {
    let set = match pieces {
        Some(p) => formats::load_piece_set(p)?,
        None => PieceSet::classic(),
    };
    // Generator files, read once for every game.
    let mut specs = Vec::new();
    for g in generators.iter().filter(|g| g.ends_with(".ron")) {
        let spec = tenten_engine::play::generator_file::load(Path::new(g), &set)?;
        if !tenten_engine::play::dealers::same_pieces(&spec.set, &set) {
            return Err(FormatError::new(
                g,
                None,
                format!(
                    "the generator deals the pieces of \"{}\", not those of the run's set \"{}\"; give --pieces its set",
                    spec.set.name, set.name
                ),
            ));
        }
        specs.push((g.clone(), spec));
    }
    let plan = Plan {
        set,
        shapes_size: size,
        k,
        generators: generators.to_vec(),
        players: players.to_vec(),
        games,
        seed,
        max_rounds,
        options: ChangeOptions::default(),
        weights,
        specs,
    };
    let mut rows = Vec::new();
    for player in players {
        for g in generators {
            let (played, seconds) = play_pair(&plan, player, g);
            let summary = runner::summarize(&played, &plan.set);
            let rounds: f64 = played.iter().map(|g| f64::from(g.rounds)).sum();
            let rate = rounds / seconds.max(1e-9);
            let _ = writeln!(out, "{}", runner::cli_line(player, g, &summary, rate));
            rows.push((player.clone(), g.clone(), played));
        }
    }
    if let Some(path) = csv {
        formats::write_atomic(path, &runner::csv(&rows))?;
    }
    Ok(())
}

/// Plays every game of one (player, generator), saying how far it is every
/// 10 s (a long run of a holder player takes minutes); the games and the
/// seconds they took.
fn play_pair(plan: &Plan, player: &str, generator: &str) -> (Vec<tenten_engine::play::game::Game>, f64) {
    let games = plan.games;
    eprintln!("playing {games} games of {player} with the {generator} generator...");
    let t = std::time::Instant::now();
    let progress = Progress::default();
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut last = std::time::Instant::now();
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(100));
                if last.elapsed().as_secs() >= 10 {
                    last = std::time::Instant::now();
                    eprintln!("  {} of {games} games", progress.done.load(Ordering::Relaxed));
                }
            }
        });
        let played = runner::run(plan, player, generator, &progress).unwrap_or_default();
        // Timed before the reporter thread notices and is joined.
        let seconds = t.elapsed().as_secs_f64();
        done.store(true, Ordering::Relaxed);
        (played, seconds)
    })
}
