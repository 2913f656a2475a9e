//! Who plays a game, resolved: a bot (greedy, or the analysis's search with
//! its criteria weights) or a player model with its parameters. A run holds
//! these by value, so a player file is read once, when the run starts, and
//! a result file replays its games without any file on disk.

use serde::{Deserialize, Serialize};

use crate::io::formats::FormatError;
use crate::play::coelho::{CoelhoStrategy, CoelhoWeights};
use crate::play::game::{GreedyStrategy, Strategy};
use crate::play::player::{self, Player, PlayerStrategy};

/// The names `tenten simulate` and the Lab take besides player files,
/// cheapest first.
pub const NAMES: [&str; 8] = [
    "random", "greedy", "coelho", "novice", "casual", "skilled", "expert", "machine",
];

/// A player, everything about it that decides its moves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Who {
    /// Each piece where it leaves the most free cells.
    Greedy,
    /// The analysis's whole-holder search with these criteria weights.
    Coelho {
        #[serde(with = "digits")]
        criteria: CoelhoWeights,
    },
    /// A player model (a preset or a player file), by value.
    Model(Player),
}

impl Who {
    /// A player by name: `greedy`, `coelho` (with `criteria`), a preset
    /// player, or a player file (a name ending in `.ron`, read now).
    pub fn by_name(name: &str, criteria: CoelhoWeights) -> Result<Self, FormatError> {
        match name {
            "greedy" => Ok(Who::Greedy),
            "coelho" => Ok(Who::Coelho { criteria }),
            file if file.ends_with(".ron") => player::load(std::path::Path::new(file)).map(Who::Model),
            preset => player::preset(preset).map(Who::Model).ok_or_else(|| {
                FormatError::new(
                    preset,
                    None,
                    format!(
                        "unknown player {preset:?}; choose from {}, or give a player file (.ron)",
                        NAMES.join(", ")
                    ),
                )
            }),
        }
    }

    /// The strategy that plays as this player.
    pub fn strategy(&self) -> Box<dyn Strategy> {
        match self {
            Who::Greedy => Box::new(GreedyStrategy),
            Who::Coelho { criteria } => Box::new(CoelhoStrategy::new(*criteria)),
            Who::Model(p) => Box::new(PlayerStrategy::new(p.clone())),
        }
    }

    /// The criteria weights it judges boards by, if any.
    pub fn criteria(&self) -> Option<CoelhoWeights> {
        match self {
            Who::Greedy => None,
            Who::Coelho { criteria } => Some(*criteria),
            Who::Model(p) => Some(p.evaluation),
        }
    }
}

/// Criteria weights written as the analysis writes them, "10025".
mod digits {
    use super::CoelhoWeights;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(w: &CoelhoWeights, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&w.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<CoelhoWeights, D::Error> {
        CoelhoWeights::parse(&String::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_a_player_and_a_file_is_read_once() {
        for name in NAMES {
            assert!(Who::by_name(name, CoelhoWeights::BEST).is_ok(), "{name}");
        }
        let e = Who::by_name("nobody", CoelhoWeights::BEST).unwrap_err();
        assert!(e.message.contains("unknown player \"nobody\""), "{e}");
        let dir = std::env::temp_dir().join(format!("tenten-who-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("p.ron");
        std::fs::write(&file, player::PRESETS[1].1).unwrap();
        let who = Who::by_name(file.to_str().unwrap(), CoelhoWeights::BEST).unwrap();
        std::fs::remove_file(&file).unwrap();
        // Gone from disk, still the same player.
        assert_eq!(who, Who::Model(player::preset("novice").unwrap()));
        let _ = who.strategy();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
