//! A run's identity: everything that decides its games, by value. The piece
//! set (ids, shapes, weights), the board, the holder's size, the round cap,
//! the seeds, the repair options, every player's parameters and every
//! generator's resolved rules. Files are read once, when a plan is made; a
//! result file, a shard and a checkpoint store the plan itself, so a merge,
//! a resume and a replay never read a file again, and two runs are the same
//! run exactly when their plans are equal. The fingerprint is a hash of the
//! plan's canonical form (with the engine's version), printed wherever a
//! run's figures are, so a figure can be traced to the run that made it.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::model::board::BoardSize;
use crate::model::pieces::{MAX_HOLDER, PieceSet, PieceSetDef};
use crate::play::dealing::{Dealing, DealingDef};
use crate::play::who::Who;
use crate::search::changer::ChangeOptions;

/// The engine's behaviour version: it moves whenever the same seeds play
/// different games (a rank tie broken otherwise, a dealer drawing in
/// another order), not with the package's version. Plans of different
/// behaviours could play the same seeds differently, so it is part of the
/// identity; `golden_tests` holds a digest of games played by every player
/// under every generator and fails, until this and its digest are moved
/// together, when games change.
pub const ENGINE: &str = "2";

/// The most games a run plays per (player, generator), and the longest cap:
/// numbers a person types, held where no structure can grow past memory.
pub const MAX_GAMES: usize = 10_000_000;
pub const MAX_ROUNDS: u32 = 100_000_000;

/// What to simulate: who plays, against what, on which board, seeds and cap.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "PlanDef", into = "PlanDef")]
pub struct Plan {
    pub set: PieceSet,
    pub shapes_size: BoardSize,
    pub k: usize,
    /// Who plays, each against every generator on the same seeds, by label.
    pub players: Vec<(String, Who)>,
    /// The generators, by label.
    pub generators: Vec<(String, Dealing)>,
    pub games: usize,
    pub seed: u64,
    pub max_rounds: u32,
    /// The repair options of the built-in `repair` generator.
    pub options: ChangeOptions,
}

/// The plan as stored: every field by value, in a fixed order (the order a
/// difference is looked for in).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanDef {
    pub engine: String,
    pub pieces: PieceSetDef,
    pub board: BoardSize,
    pub holder: usize,
    pub max_rounds: u32,
    pub games: usize,
    pub seed: u64,
    pub repair: RepairDef,
    pub players: Vec<Labelled<Who>>,
    pub generators: Vec<Labelled<DealingDef>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepairDef {
    pub policy: String,
    pub reading: String,
    pub redraws: usize,
}

impl RepairDef {
    /// The repair options as stored.
    pub fn of(o: &ChangeOptions) -> Self {
        Self {
            policy: o.policy.name().to_owned(),
            reading: o.reading.name().to_owned(),
            redraws: o.max_redraws,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Labelled<T> {
    pub label: String,
    pub rules: T,
}

impl From<Plan> for PlanDef {
    fn from(p: Plan) -> Self {
        PlanDef {
            engine: ENGINE.to_owned(),
            pieces: p.set.to_def(),
            board: p.shapes_size,
            holder: p.k,
            max_rounds: p.max_rounds,
            games: p.games,
            seed: p.seed,
            repair: RepairDef::of(&p.options),
            players: p
                .players
                .into_iter()
                .map(|(label, rules)| Labelled { label, rules })
                .collect(),
            generators: p
                .generators
                .iter()
                .map(|(label, d)| Labelled {
                    label: label.clone(),
                    rules: d.to_def(),
                })
                .collect(),
        }
    }
}

impl TryFrom<PlanDef> for Plan {
    type Error = String;
    fn try_from(d: PlanDef) -> Result<Self, String> {
        if d.engine != ENGINE {
            return Err(format!(
                "it was played by engine behaviour {}, this is engine behaviour {ENGINE}: another behaviour may play the same seeds differently; rerun it",
                d.engine
            ));
        }
        let set = PieceSet::from_def(&d.pieces).map_err(|m| format!("pieces: {m}"))?;
        let size = BoardSize::new(d.board.w(), d.board.h()).map_err(|m| format!("board: {m}"))?;
        let generators = d
            .generators
            .iter()
            .map(|g| {
                Dealing::from_def(&g.rules, &set, &g.label)
                    .map(|r| (g.label.clone(), r))
                    .map_err(|m| format!("generator {:?}: {m}", g.label))
            })
            .collect::<Result<_, _>>()?;
        let plan = Plan {
            set,
            shapes_size: size,
            k: d.holder,
            players: d.players.into_iter().map(|p| (p.label, p.rules)).collect(),
            generators,
            games: d.games,
            seed: d.seed,
            max_rounds: d.max_rounds,
            options: ChangeOptions {
                policy: d.repair.policy.parse().map_err(|m| format!("repair: {m}"))?,
                reading: d.repair.reading.parse().map_err(|m| format!("repair: {m}"))?,
                max_redraws: d.repair.redraws,
            },
        };
        plan.check()?;
        Ok(plan)
    }
}

impl Plan {
    /// A plan of `players` against `generators` by name (presets, bots,
    /// built-in generators, or files, read now), on `set`, with `criteria`
    /// for the coelho bot; the rest the defaults (10x10, holders of 3, 100
    /// games from seed 1, a cap of 10,000 rounds), for struct update.
    pub fn named(
        set: PieceSet,
        players: &[&str],
        generators: &[&str],
        criteria: crate::play::coelho::CoelhoWeights,
    ) -> Result<Self, crate::io::formats::FormatError> {
        let players = players
            .iter()
            .map(|p| Who::by_name(p, criteria).map(|w| ((*p).to_owned(), w)))
            .collect::<Result<_, _>>()?;
        let generators = generators
            .iter()
            .map(|g| Dealing::by_name(g, &set).map(|d| ((*g).to_owned(), d)))
            .collect::<Result<_, _>>()?;
        Ok(Plan {
            set,
            shapes_size: BoardSize::CLASSIC,
            k: 3,
            players,
            generators,
            games: 100,
            seed: 1,
            max_rounds: 10_000,
            options: ChangeOptions::default(),
        })
    }

    /// The numbers in their ranges and the labels unique: what every plan
    /// must hold, whether a person typed it or a file gave it.
    pub fn check(&self) -> Result<(), String> {
        if !(1..=MAX_HOLDER).contains(&self.k) {
            return Err(format!(
                "holder: {} pieces; a holder holds 1 to {MAX_HOLDER}",
                self.k
            ));
        }
        if self.games > MAX_GAMES {
            return Err(format!("games: {}; a run plays at most {MAX_GAMES}", self.games));
        }
        // Every (player, generator) plays `games`: the product is bounded
        // too, so no list of games grows past memory from numbers typed.
        crate::bounds::product(
            &[
                (self.players.len(), "players"),
                (self.generators.len(), "generators"),
                (self.games, "games"),
            ],
            "games",
            MAX_GAMES,
            "a run plays",
        )?;
        if !(1..=MAX_ROUNDS).contains(&self.max_rounds) {
            return Err(format!(
                "max_rounds: {}; the cap is 1 to {MAX_ROUNDS}",
                self.max_rounds
            ));
        }
        if self.options.max_redraws > crate::play::generator_file::MAX_REDRAWS {
            return Err(format!(
                "repair: {} redraws; at most {}",
                self.options.max_redraws,
                crate::play::generator_file::MAX_REDRAWS
            ));
        }
        for (what, labels) in [
            ("player", self.player_names()),
            ("generator", self.generator_names()),
        ] {
            for (i, l) in labels.iter().enumerate() {
                if labels[..i].contains(l) {
                    return Err(format!("two {what}s are labelled {l:?}"));
                }
            }
        }
        Ok(())
    }

    pub fn player_names(&self) -> Vec<&str> {
        self.players.iter().map(|(n, _)| n.as_str()).collect()
    }

    pub fn generator_names(&self) -> Vec<&str> {
        self.generators.iter().map(|(n, _)| n.as_str()).collect()
    }

    pub fn who(&self, label: &str) -> Option<&Who> {
        self.players.iter().find(|(n, _)| n == label).map(|(_, w)| w)
    }

    pub fn dealing(&self, label: &str) -> Option<&Dealing> {
        self.generators.iter().find(|(n, _)| n == label).map(|(_, d)| d)
    }

    /// The canonical form: the stored plan as compact JSON, its fields in
    /// their declared order.
    pub fn canonical(&self) -> String {
        serde_json::to_string(&PlanDef::from(self.clone())).unwrap_or_default()
    }

    /// The first 16 hex digits of the SHA-256 of the canonical form.
    pub fn fingerprint(&self) -> String {
        let hash = Sha256::digest(self.canonical().as_bytes());
        hash.iter().take(8).map(|b| format!("{b:02x}")).collect()
    }

    /// The first thing that differs from `other`, in words: "pieces: sq3
    /// weight 2 in A, 40 in B" where `names` are (A, B).
    pub fn first_difference(&self, other: &Plan, names: (&str, &str)) -> Option<String> {
        let a = serde_json::to_value(PlanDef::from(self.clone())).ok()?;
        let b = serde_json::to_value(PlanDef::from(other.clone())).ok()?;
        let (path, x, y) = crate::study::difference::first(&a, &b)?;
        Some(format!("{path} {x} in {}, {y} in {}", names.0, names.1))
    }
}
