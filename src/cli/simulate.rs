//! `tenten simulate`: self-play games per (player, generator), one line each.

use super::*;
use tenten_engine::play::{dealing, who};
use tenten_engine::progress::Progress;
use tenten_engine::study::results::{self, ResultFile, Shard};
use tenten_engine::study::runner::{self, Plan};

/// Generator names or files, as given: each is read once, when the run's
/// plan is made (a bad one stops the run there, with its place).
#[derive(Clone, Debug)]
pub(super) struct Generators(pub Vec<String>);

pub(super) fn parse_generators(s: &str) -> Result<Generators, String> {
    let names: Vec<String> = s.split(',').map(|g| g.trim().to_owned()).collect();
    let known = dealing::names();
    for g in &names {
        if !g.ends_with(".ron") && !known.contains(&g.as_str()) {
            return Err(format!(
                "unknown generator {g:?}; choose from {}, or give a generator file (.ron)",
                known.join(", ")
            ));
        }
    }
    Ok(Generators(names))
}

/// Player names or files, as given (files are read with the plan).
#[derive(Clone, Debug)]
pub(super) struct Players(pub Vec<String>);

pub(super) fn parse_players(s: &str) -> Result<Players, String> {
    s.split(',')
        .map(|p| parse_player(p.trim()))
        .collect::<Result<_, _>>()
        .map(Players)
}

fn parse_player(s: &str) -> Result<String, String> {
    if who::NAMES.contains(&s) || s.ends_with(".ron") {
        Ok(s.to_owned())
    } else {
        Err(format!(
            "unknown player {s:?}; choose from {}, or give a player file (.ron)",
            who::NAMES.join(", ")
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

/// Where a run's games go besides the printed lines: a shard of them, a
/// result file, a checkpoint to resume from.
#[derive(Clone, Debug)]
pub(super) struct Output {
    pub shard: Shard,
    pub out: Option<PathBuf>,
    pub checkpoint: Option<PathBuf>,
    /// Write the checkpoint after this many games (if given), or this many
    /// seconds.
    pub every_games: Option<usize>,
    pub every_seconds: f64,
}

pub(super) fn parse_shard(s: &str) -> Result<Shard, String> {
    Shard::parse(s)
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
    output: &Output,
    out: &mut String,
) -> Result<(), FormatError> {
    let set = super::piece_set(pieces)?;
    // Every file read here, once: the run plays from the plan alone.
    let players: Vec<&str> = players.iter().map(String::as_str).collect();
    let generators: Vec<&str> = generators.iter().map(String::as_str).collect();
    let plan = Plan {
        shapes_size: size,
        k,
        games,
        seed,
        max_rounds,
        ..Plan::named(set, &players, &generators, weights)?
    };
    plan.check().map_err(|m| FormatError::new("simulate", None, m))?;
    let fingerprint = plan.fingerprint();
    eprintln!("run {fingerprint}: the fingerprint of everything that decides these games");
    let mut result = match &output.checkpoint {
        Some(cp) if cp.exists() => resume(cp, &plan, output.shard)?,
        _ => ResultFile::new(plan.clone(), output.shard),
    };
    let mut saver = Checkpointer::new(output);
    for pair in 0..result.pairs.len() {
        let (player, generator) = (
            result.pairs[pair].player.clone(),
            result.pairs[pair].generator.clone(),
        );
        let missing = result.missing(pair);
        if missing.is_empty() {
            continue;
        }
        eprintln!(
            "playing {} games of {player} with the {generator} generator{}...",
            missing.len(),
            if output.shard.of > 1 {
                format!(" (shard {})", output.shard)
            } else {
                String::new()
            }
        );
        let mut at = 0;
        while at < missing.len() {
            let chunk = &missing[at..at + saver.chunk(missing.len() - at)];
            let (played, seconds) = play_games(&plan, &player, &generator, chunk)?;
            result.add(pair, chunk.iter().copied().zip(played), seconds);
            at += chunk.len();
            saver.after(chunk.len(), seconds, &result)?;
        }
    }
    saver.finish(&result)?;
    if let Some(path) = &output.out {
        formats::write_atomic(path, &result.to_ron())?;
    }
    if output.shard.of == 1 {
        print_result(&result, csv, out)?;
    } else {
        // A shard prints no partial figures, but its rows are its own.
        if let Some(path) = csv {
            write_csv(&result, path)?;
        }
        let (done, _) = result.done();
        eprintln!(
            "shard {}: {done} games written to {} (run {fingerprint}); `tenten merge` reads every shard's file",
            output.shard,
            output.out.as_deref().unwrap_or(Path::new("?")).display()
        );
    }
    Ok(())
}

/// The checkpoint at `path`, if it is one of this run (the same plan, so
/// the same engine, and the same shard); refused otherwise, naming the
/// first thing that differs, so a stale file never mixes in.
fn resume(path: &Path, plan: &Plan, shard: Shard) -> Result<ResultFile, FormatError> {
    let name = path.display().to_string();
    let refuse = |why: String| {
        FormatError::new(
            &name,
            None,
            format!("this checkpoint is of another run ({why}); remove it or name another file"),
        )
    };
    let saved = ResultFile::load(path).map_err(|e| refuse(e.message))?;
    if let Some(what) = saved.plan.first_difference(plan, ("the checkpoint", "this run")) {
        return Err(refuse(what));
    }
    if saved.shard != shard {
        return Err(refuse(format!(
            "it is shard {}, this run shard {shard}",
            saved.shard
        )));
    }
    let (done, all) = saved.done();
    eprintln!("resuming from {name}: {done} of {all} games already played");
    Ok(saved)
}

/// Writes the checkpoint every so many games or seconds, atomically (a
/// kill leaves the last one whole). A write costs the whole file (megabytes
/// for a long run), so it never follows the games of a fast player: by
/// default it waits for the seconds, and the games between two looks at the
/// clock grow until they take about a second.
struct Checkpointer<'a> {
    output: &'a Output,
    since_games: usize,
    since: std::time::Instant,
    /// Games to play before the next look; doubled while that is quick.
    chunk: usize,
}

impl<'a> Checkpointer<'a> {
    fn new(output: &'a Output) -> Self {
        Self {
            output,
            since_games: 0,
            since: std::time::Instant::now(),
            chunk: 4 * rayon::current_num_threads().max(1),
        }
    }

    /// Games to play before the next look at the checkpoint, of `left`:
    /// all of them without one.
    fn chunk(&self, left: usize) -> usize {
        if self.output.checkpoint.is_none() {
            return left;
        }
        let cap = self.output.every_games.unwrap_or(usize::MAX);
        self.chunk.min(cap).min(left).max(1)
    }

    fn after(&mut self, games: usize, seconds: f64, result: &ResultFile) -> Result<(), FormatError> {
        if seconds < 0.5 {
            self.chunk = self.chunk.saturating_mul(2);
        } else if seconds > 2.0 {
            self.chunk = (self.chunk / 2).max(1);
        }
        self.since_games += games;
        let by_games = self.output.every_games.is_some_and(|n| self.since_games >= n);
        if by_games || self.since.elapsed().as_secs_f64() >= self.output.every_seconds {
            self.write(result)?;
        }
        Ok(())
    }

    fn finish(&mut self, result: &ResultFile) -> Result<(), FormatError> {
        self.write(result)
    }

    fn write(&mut self, result: &ResultFile) -> Result<(), FormatError> {
        if let Some(cp) = &self.output.checkpoint {
            formats::write_atomic(cp, &result.to_ron())?;
        }
        self.since_games = 0;
        self.since = std::time::Instant::now();
        Ok(())
    }
}

/// The lines (and CSV) of a whole run: one per (player, generator), as
/// `tenten simulate` prints them; `tenten merge` prints the same.
pub(super) fn print_result(
    result: &ResultFile,
    csv: Option<&Path>,
    out: &mut String,
) -> Result<(), FormatError> {
    let rows = result.rows().map_err(|m| FormatError::new("result", None, m))?;
    let fingerprint = result.plan.fingerprint();
    for ((player, generator, games), seconds) in &rows {
        let summary = runner::summarize(games, &result.plan.set);
        let rounds: f64 = games.iter().map(|g| f64::from(g.rounds)).sum();
        let rate = rounds / seconds.max(1e-9);
        let _ = writeln!(
            out,
            "{}",
            runner::cli_line(player, generator, &summary, &fingerprint, rate)
        );
    }
    if let Some(path) = csv {
        write_csv(result, path)?;
    }
    Ok(())
}

/// One CSV row per game the result holds.
fn write_csv(result: &ResultFile, path: &Path) -> Result<(), FormatError> {
    let rows = result.rows().map_err(|m| FormatError::new("result", None, m))?;
    let rows: Vec<runner::Row> = rows.into_iter().map(|(row, _)| row).collect();
    formats::write_atomic(path, &runner::csv(&rows))
}

/// `tenten merge`: the shards of one run, checked and put back together.
pub(super) fn cmd_merge(
    files: &[PathBuf],
    csv: Option<&Path>,
    merged: Option<&Path>,
    out: &mut String,
) -> Result<(), FormatError> {
    let parts = files
        .iter()
        .map(|f| ResultFile::load(f).map(|r| (f.display().to_string(), r)))
        .collect::<Result<Vec<_>, _>>()?;
    let whole = results::merge(&parts).map_err(|m| FormatError::new("merge", None, m))?;
    eprintln!("run {}: {} shards merged", whole.fingerprint, parts.len());
    if let Some(path) = merged {
        formats::write_atomic(path, &whole.to_ron())?;
    }
    print_result(&whole, csv, out)
}

/// Plays the games `games` of one (player, generator), saying how far it is
/// every 10 s (a long run of a holder player takes minutes); the games and
/// the seconds they took.
fn play_games(
    plan: &Plan,
    player: &str,
    generator: &str,
    games: &[usize],
) -> Result<(Vec<tenten_engine::play::game::Game>, f64), FormatError> {
    let t = std::time::Instant::now();
    let progress = Progress::default();
    progress.set_total(games.len());
    let played = super::ticker::ticking("playing", "games", &progress, || {
        runner::run_games(plan, player, generator, games, 1, &progress)
    });
    let seconds = t.elapsed().as_secs_f64();
    // Nothing cancels a CLI run: a game that did not come back could not
    // start, and the run stops rather than print or write it short.
    let played = played.ok_or_else(|| {
        FormatError::new(
            "simulate",
            None,
            format!("a game of {player} against {generator} could not be played; nothing was written"),
        )
    })?;
    Ok((played, seconds))
}
