//! A simulation's result as a file: the run's plan (everything that decided its games, by value), which shard of
//! its games the file holds, and a record per game, which is everything
//! `tenten merge` needs to print exactly what one process would have
//! printed. Shards (`--shard I/N --out`), checkpoints and merged results
//! are all this one format.
//!
//! Game g of a run is seeded seed + g whichever process plays it, so
//! shard I of N plays the games g with g mod N = I, and a merge puts every
//! game back in its place: the same games in the same order, the same
//! figures, bit for bit.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::io::formats::{self, FormatError};
use crate::play::game::{BANDS, End, Game};
use crate::stats::histogram::TimeHistogram;
use crate::study::plan::Plan;
use crate::study::runner::Row;

/// The version of this file format; a file of another version is refused.
/// Format 2 stores the run's plan by value (format 1 stored file texts
/// with their paths).
pub const FORMAT: u32 = 2;

pub use crate::study::plan::ENGINE;

/// Whether `text` looks like a result file (of any format, so that one of
/// another format is refused by its version, not read as something else).
pub fn is_result(text: &str) -> bool {
    text.contains("format:") && text.contains("pairs:") && text.contains("shard:")
}

/// Which games a file holds: those with g mod `of` = `index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub of: usize,
}

impl Shard {
    /// The whole run.
    pub const ALL: Self = Self { index: 0, of: 1 };

    /// "I/N", with 0 <= I < N.
    pub fn parse(s: &str) -> Result<Self, String> {
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| format!("a shard is I/N, like 2/8 (the third of eight); got {s:?}"))?;
        let num = |v: &str| {
            v.trim()
                .parse::<usize>()
                .map_err(|_| format!("{v:?} is not a number in the shard {s:?}"))
        };
        let (index, of) = (num(i)?, num(n)?);
        if of == 0 || index >= of {
            return Err(format!("shard {s:?}: I/N needs N >= 1 and 0 <= I < N"));
        }
        Ok(Self { index, of })
    }

    /// The games of a run of `games` this shard plays, in order.
    pub fn games(self, games: usize) -> impl Iterator<Item = usize> {
        (self.index..games).step_by(self.of)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.of)
    }
}

/// Times in a game's histogram: its nonzero buckets and exact maximum.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Times {
    pub buckets: Vec<(u16, u32)>,
    pub max_us: f64,
}

/// One game, as the summaries need it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game's number in the run (its seed is the run's seed + g).
    pub g: usize,
    pub seed: u64,
    pub rounds: u32,
    pub score: u64,
    pub end: End,
    pub unsolvable_dealt: u32,
    pub repairs: u32,
    /// Pieces dealt, by piece and fill band.
    pub dealt: Vec<[u32; BANDS]>,
    pub validate_us: Times,
    pub change_us: Times,
}

impl GameRecord {
    pub fn of(g: usize, game: &Game) -> Self {
        let times = |h: &TimeHistogram| Times {
            buckets: h.sparse(),
            max_us: h.max_us,
        };
        Self {
            g,
            seed: game.seed,
            rounds: game.rounds,
            score: game.score,
            end: game.end,
            unsolvable_dealt: game.unsolvable_dealt,
            repairs: game.repairs,
            dealt: game.dealt.clone(),
            validate_us: times(&game.validate_us),
            change_us: times(&game.change_us),
        }
    }

    pub fn game(&self) -> Result<Game, String> {
        Ok(Game {
            seed: self.seed,
            rounds: self.rounds,
            score: self.score,
            end: self.end,
            unsolvable_dealt: self.unsolvable_dealt,
            repairs: self.repairs,
            dealt: self.dealt.clone(),
            validate_us: TimeHistogram::from_sparse(&self.validate_us.buckets, self.validate_us.max_us)?,
            change_us: TimeHistogram::from_sparse(&self.change_us.buckets, self.change_us.max_us)?,
        })
    }
}

/// The games of one (player, generator) a file holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairRecord {
    pub player: String,
    pub generator: String,
    /// Seconds spent playing them (summed over shards in a merge).
    pub seconds: f64,
    /// In the order of g.
    pub games: Vec<GameRecord>,
}

/// A result file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultFile {
    pub format: u32,
    /// The plan's fingerprint, for a person reading the file (the plan
    /// itself is what is compared).
    pub fingerprint: String,
    /// Everything that decided the games, by value.
    pub plan: Plan,
    pub shard: Shard,
    /// Every (player, generator) of the plan, players first.
    pub pairs: Vec<PairRecord>,
}

impl ResultFile {
    /// A file for `shard` of a run of `plan`, holding no game yet.
    pub fn new(plan: Plan, shard: Shard) -> Self {
        let pairs = plan
            .player_names()
            .into_iter()
            .flat_map(|p| {
                plan.generator_names().into_iter().map(move |g| PairRecord {
                    player: p.to_owned(),
                    generator: g.to_owned(),
                    seconds: 0.0,
                    games: Vec::new(),
                })
            })
            .collect();
        Self {
            format: FORMAT,
            fingerprint: plan.fingerprint(),
            plan,
            shard,
            pairs,
        }
    }

    /// The games of pair `pair` this file's shard still lacks.
    pub fn missing(&self, pair: usize) -> Vec<usize> {
        let have: std::collections::HashSet<usize> = self.pairs[pair].games.iter().map(|g| g.g).collect();
        self.shard
            .games(self.plan.games)
            .filter(|g| !have.contains(g))
            .collect()
    }

    /// Games held, and games this shard plays in all.
    pub fn done(&self) -> (usize, usize) {
        let per_pair = self.shard.games(self.plan.games).count();
        (
            self.pairs.iter().map(|p| p.games.len()).sum(),
            per_pair * self.pairs.len(),
        )
    }

    /// Adds games of pair `pair`, keeping them in the order of g.
    pub fn add(&mut self, pair: usize, games: impl IntoIterator<Item = (usize, Game)>, seconds: f64) {
        let p = &mut self.pairs[pair];
        p.games
            .extend(games.into_iter().map(|(g, game)| GameRecord::of(g, &game)));
        p.games.sort_by_key(|r| r.g);
        p.seconds += seconds;
    }

    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new()
            .indentor(" ".to_owned())
            .depth_limit(4);
        let mut text = format!(
            "// A tenten simulation result: shard {} of the games (tenten merge reads it).\n",
            self.shard
        );
        text.push_str(&ron::ser::to_string_pretty(self, config).unwrap_or_default());
        text.push('\n');
        text
    }

    /// Reads a result file, refusing another format version and records
    /// that do not fit its plan.
    pub fn parse(text: &str, file: &str) -> Result<Self, FormatError> {
        #[derive(Deserialize)]
        struct Head {
            format: u32,
        }
        let other_format = |format: u32| {
            FormatError::new(
                file,
                None,
                format!("a result file of format {format}; this tenten reads format {FORMAT}"),
            )
        };
        // One parse for a good file (they run to megabytes); the head is read
        // apart only to explain a failure by another format's fields.
        let r: Self = match formats::parse_ron(text, file) {
            Ok(r) => r,
            Err(e) => {
                return Err(match formats::parse_ron::<Head>(text, file) {
                    Ok(head) if head.format != FORMAT => other_format(head.format),
                    _ => e,
                });
            }
        };
        if r.format != FORMAT {
            return Err(other_format(r.format));
        }
        r.check().map_err(|m| FormatError::new(file, None, m))?;
        Ok(r)
    }

    pub fn load(path: &Path) -> Result<Self, FormatError> {
        Self::parse(&formats::read_text(path)?, &path.display().to_string())
    }

    /// The records fit the plan: the shard exists, the pairs are the
    /// plan's, each game belongs to the shard and appears once, and its
    /// seed is the run's for its number.
    fn check(&self) -> Result<(), String> {
        let s = &self.plan;
        if self.fingerprint != s.fingerprint() {
            return Err(format!(
                "its fingerprint {} is not its plan's ({}): the file was edited; rerun it",
                self.fingerprint,
                s.fingerprint()
            ));
        }
        if self.shard.of == 0 || self.shard.index >= self.shard.of {
            return Err(format!("shard {} does not exist", self.shard));
        }
        let expected = ResultFile::new(s.clone(), self.shard);
        let names = |r: &ResultFile| -> Vec<(String, String)> {
            r.pairs
                .iter()
                .map(|p| (p.player.clone(), p.generator.clone()))
                .collect()
        };
        if names(self) != names(&expected) {
            return Err("its (player, generator) pairs are not those of its plan".to_owned());
        }
        let pieces = s.set.pieces.len();
        for p in &self.pairs {
            for (i, r) in p.games.iter().enumerate() {
                let place = format!("game {} of {} against {}", r.g, p.player, p.generator);
                if r.g >= s.games || r.g % self.shard.of != self.shard.index {
                    return Err(format!(
                        "{place} is not one of shard {} of {} games",
                        self.shard, s.games
                    ));
                }
                if i > 0 && p.games[i - 1].g >= r.g {
                    return Err(format!("{place} is out of order or twice"));
                }
                if r.seed != s.seed.wrapping_add(r.g as u64) {
                    return Err(format!(
                        "{place} has seed {}, not the run's {}",
                        r.seed,
                        s.seed.wrapping_add(r.g as u64)
                    ));
                }
                if r.dealt.len() != pieces {
                    return Err(format!(
                        "{place} counts {} pieces; the set has {pieces}",
                        r.dealt.len()
                    ));
                }
            }
        }
        Ok(())
    }

    /// Every pair's games, as the summaries and the CSV take them.
    pub fn rows(&self) -> Result<Vec<(Row, f64)>, String> {
        self.pairs
            .iter()
            .map(|p| {
                let games = p
                    .games
                    .iter()
                    .map(GameRecord::game)
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(((p.player.clone(), p.generator.clone(), games), p.seconds))
            })
            .collect()
    }
}

/// Merges the shards of one run (each named by its file) into the whole
/// run, refusing: no shard, shards of different formats, engines, plans
/// or shard counts, a shard missing, a shard twice, and a shard that does
/// not hold all its games (an unfinished one, such as a checkpoint).
pub fn merge(parts: &[(String, ResultFile)]) -> Result<ResultFile, String> {
    let (first_name, first) = parts.first().ok_or("no result files to merge")?;
    for (name, part) in parts {
        if let Some(what) = first.plan.first_difference(&part.plan, (first_name, name)) {
            return Err(format!(
                "{name} and {first_name} are shards of different runs: {what}"
            ));
        }
        if part.shard.of != first.shard.of {
            return Err(format!(
                "{name} is shard {} and {first_name} shard {}: a run is cut into one number of shards",
                part.shard, first.shard
            ));
        }
    }
    let of = first.shard.of;
    let mut by_index: Vec<Option<&str>> = vec![None; of];
    for (name, part) in parts {
        if let Some(other) = by_index[part.shard.index] {
            return Err(format!("shard {} appears twice: {other} and {name}", part.shard));
        }
        by_index[part.shard.index] = Some(name);
        let (done, all) = part.done();
        if done != all {
            return Err(format!(
                "{name} holds {done} of shard {}'s {all} games: it is unfinished (a checkpoint?); finish it by rerunning its command",
                part.shard
            ));
        }
    }
    let missing: Vec<String> = (0..of)
        .filter(|&i| by_index[i].is_none())
        .map(|i| format!("{i}/{of}"))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "shard{} {} missing: a merge needs all {of} shards",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", ") + if missing.len() == 1 { " is" } else { " are" }
        ));
    }
    let mut whole = ResultFile::new(first.plan.clone(), Shard::ALL);
    for (pair, record) in whole.pairs.iter_mut().enumerate() {
        for (_, part) in parts {
            record.games.extend(part.pairs[pair].games.iter().cloned());
            record.seconds += part.pairs[pair].seconds;
        }
        record.games.sort_by_key(|r| r.g);
    }
    Ok(whole)
}

#[cfg(test)]
#[path = "results_tests.rs"]
mod tests;
