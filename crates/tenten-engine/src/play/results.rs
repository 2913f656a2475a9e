//! A simulation's result as a file: the run's full settings, which shard of
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
use crate::model::board::BoardSize;
use crate::model::pieces::{PieceSet, PieceSetDef};
use crate::play::coelho::CoelhoWeights;
use crate::play::game::{BANDS, End, Game};
use crate::play::generator_file;
use crate::play::runner::{Plan, Row};
use crate::search::changer::ChangeOptions;
use crate::stats::histogram::TimeHistogram;

/// The version of this file format; a file of another version is refused.
pub const FORMAT: u32 = 1;

/// The engine that wrote a file: shards of different versions could play
/// the same seeds differently, so a merge refuses them.
pub const ENGINE: &str = env!("CARGO_PKG_VERSION");

/// Everything that decides a run's games, with the text of every file it
/// reads (so shards that read different files under one name refuse to
/// merge).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub players: Vec<String>,
    pub generators: Vec<String>,
    /// The coelho strategy's criteria weights, as "10025".
    pub weights: String,
    pub games: usize,
    pub seed: u64,
    pub size: BoardSize,
    pub holder_size: usize,
    pub max_rounds: u32,
    pub policy: String,
    pub reading: String,
    pub max_redraws: usize,
    /// The piece set, as its file writes it.
    pub pieces: PieceSetDef,
    /// Each generator file (name, its rules as RON).
    pub generator_files: Vec<(String, String)>,
    /// Each player file (name, its text).
    pub player_files: Vec<(String, String)>,
}

impl Settings {
    /// The settings of `plan`, reading its player files.
    pub fn of(plan: &Plan) -> Result<Self, FormatError> {
        let player_files = plan
            .players
            .iter()
            .filter(|p| p.ends_with(".ron"))
            .map(|p| formats::read_text(Path::new(p)).map(|text| (p.clone(), text)))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            players: plan.players.clone(),
            generators: plan.generators.clone(),
            weights: plan.weights.to_string(),
            games: plan.games,
            seed: plan.seed,
            size: plan.shapes_size,
            holder_size: plan.k,
            max_rounds: plan.max_rounds,
            policy: plan.options.policy.name().to_owned(),
            reading: plan.options.reading.name().to_owned(),
            max_redraws: plan.options.max_redraws,
            pieces: plan.set.to_def(),
            generator_files: plan.specs.iter().map(|(n, s)| (n.clone(), s.to_ron())).collect(),
            player_files,
        })
    }

    /// The plan these settings describe (`file` names them in messages).
    pub fn plan(&self, file: &str) -> Result<Plan, FormatError> {
        let bad = |m: String| FormatError::new(file, None, m);
        let set = PieceSet::from_def(&self.pieces).map_err(|m| bad(format!("its pieces: {m}")))?;
        let specs = self
            .generator_files
            .iter()
            .map(|(name, text)| generator_file::parse(text, name, &set).map(|s| (name.clone(), s)))
            .collect::<Result<_, _>>()?;
        let size = BoardSize::new(self.size.w(), self.size.h()).map_err(bad)?;
        Ok(Plan {
            set,
            shapes_size: size,
            k: self.holder_size,
            generators: self.generators.clone(),
            players: self.players.clone(),
            games: self.games,
            seed: self.seed,
            max_rounds: self.max_rounds,
            options: ChangeOptions {
                policy: self.policy.parse().map_err(bad)?,
                reading: self.reading.parse().map_err(bad)?,
                max_redraws: self.max_redraws,
            },
            weights: CoelhoWeights::parse(&self.weights).map_err(bad)?,
            specs,
        })
    }

    /// The first setting that differs from `other`'s: its name and both
    /// values (long texts cut short).
    pub fn first_difference(&self, other: &Self) -> Option<(&'static str, String, String)> {
        let cut = |s: String| {
            let s = s.replace('\n', " ");
            if s.chars().count() > 60 {
                format!("{}…", s.chars().take(60).collect::<String>())
            } else {
                s
            }
        };
        let fields: [(&'static str, String, String); 15] = [
            ("players", self.players.join(","), other.players.join(",")),
            (
                "generators",
                self.generators.join(","),
                other.generators.join(","),
            ),
            ("weights", self.weights.clone(), other.weights.clone()),
            ("games", self.games.to_string(), other.games.to_string()),
            ("seed", self.seed.to_string(), other.seed.to_string()),
            ("size", self.size.to_string(), other.size.to_string()),
            (
                "holder_size",
                self.holder_size.to_string(),
                other.holder_size.to_string(),
            ),
            (
                "max_rounds",
                self.max_rounds.to_string(),
                other.max_rounds.to_string(),
            ),
            ("policy", self.policy.clone(), other.policy.clone()),
            ("reading", self.reading.clone(), other.reading.clone()),
            (
                "max_redraws",
                self.max_redraws.to_string(),
                other.max_redraws.to_string(),
            ),
            (
                "pieces",
                format!("{:?}", self.pieces),
                format!("{:?}", other.pieces),
            ),
            (
                "generator_files",
                format!("{:?}", self.generator_files),
                format!("{:?}", other.generator_files),
            ),
            (
                "player_files",
                format!("{:?}", self.player_files),
                format!("{:?}", other.player_files),
            ),
            ("(any)", format!("{self:?}"), format!("{other:?}")),
        ];
        fields
            .into_iter()
            .find(|(_, a, b)| a != b)
            .map(|(name, a, b)| (name, cut(a), cut(b)))
    }
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
    pub engine: String,
    pub settings: Settings,
    pub shard: Shard,
    /// Every (player, generator) of the settings, players first.
    pub pairs: Vec<PairRecord>,
}

impl ResultFile {
    /// A file for `shard` of a run with `settings`, holding no game yet.
    pub fn new(settings: Settings, shard: Shard) -> Self {
        let pairs = settings
            .players
            .iter()
            .flat_map(|p| {
                settings.generators.iter().map(move |g| PairRecord {
                    player: p.clone(),
                    generator: g.clone(),
                    seconds: 0.0,
                    games: Vec::new(),
                })
            })
            .collect();
        Self {
            format: FORMAT,
            engine: ENGINE.to_owned(),
            settings,
            shard,
            pairs,
        }
    }

    /// The games of pair `pair` this file's shard still lacks.
    pub fn missing(&self, pair: usize) -> Vec<usize> {
        let have: std::collections::HashSet<usize> = self.pairs[pair].games.iter().map(|g| g.g).collect();
        self.shard
            .games(self.settings.games)
            .filter(|g| !have.contains(g))
            .collect()
    }

    /// Games held, and games this shard plays in all.
    pub fn done(&self) -> (usize, usize) {
        let per_pair = self.shard.games(self.settings.games).count();
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
    /// that do not fit its settings.
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

    /// The records fit the settings: the shard exists, the pairs are the
    /// settings', each game belongs to the shard and appears once, and its
    /// seed is the run's for its number.
    fn check(&self) -> Result<(), String> {
        let s = &self.settings;
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
            return Err("its (player, generator) pairs are not those of its settings".to_owned());
        }
        let pieces = self.pieces_count()?;
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

    fn pieces_count(&self) -> Result<usize, String> {
        PieceSet::from_def(&self.settings.pieces)
            .map(|s| s.pieces.len())
            .map_err(|m| format!("its pieces: {m}"))
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
/// run, refusing: no shard, shards of different formats, engines, settings
/// or shard counts, a shard missing, a shard twice, and a shard that does
/// not hold all its games (an unfinished one, such as a checkpoint).
pub fn merge(parts: &[(String, ResultFile)]) -> Result<ResultFile, String> {
    let (first_name, first) = parts.first().ok_or("no result files to merge")?;
    for (name, part) in parts {
        if part.engine != first.engine {
            return Err(format!(
                "{name} was written by tenten {}, {first_name} by tenten {}: shards of different versions may play the same seeds differently; rerun them with one version",
                part.engine, first.engine
            ));
        }
        if let Some((field, a, b)) = first.settings.first_difference(&part.settings) {
            return Err(format!(
                "{name} and {first_name} are shards of different runs: their settings differ in {field} ({b} against {a})"
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
    let mut whole = ResultFile::new(first.settings.clone(), Shard::ALL);
    whole.engine = first.engine.clone();
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
