//! The check every holder goes through before it is dealt, as a generator
//! file writes it (its own module: the file and its adaptive rules both
//! name it).

use serde::{Deserialize, Serialize};

use crate::search::heuristic::Policy;

/// The most redraws a check makes before its exact fallback.
pub const MAX_REDRAWS: usize = 100_000;

/// What every holder goes through before it is dealt.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Check {
    /// The paper: validate, and let F pick the block to replace, with up to
    /// `redraws` weighted redraws before the exhaustive fallback.
    Repair {
        #[serde(with = "policy_name")]
        policy: Policy,
        redraws: usize,
    },
    /// Redraw the whole holder until it is solvable (at most `redraws`).
    Reject { redraws: u32 },
    /// Deal from a shuffled bag of the base weights' multiset.
    Bag,
    /// Deal as drawn (validated only to record whether it was fair).
    None,
}

impl Check {
    /// Its name in a generator file.
    pub fn name(&self) -> &'static str {
        match self {
            Check::Repair { .. } => "repair",
            Check::Reject { .. } => "reject",
            Check::Bag => "bag",
            Check::None => "none",
        }
    }

    /// Whether it deals a solvable holder whenever one exists (repair and
    /// reject fall back to an exact answer when their redraws run out): an
    /// unfair loss then needs a board on which no holder fits.
    pub fn solvable_when_possible(&self) -> bool {
        matches!(self, Check::Repair { .. } | Check::Reject { .. })
    }

    /// Its redraws in range, or why not.
    pub fn check(&self) -> Result<(), String> {
        let redraws = match *self {
            Check::Repair { redraws, .. } => Some(redraws),
            Check::Reject { redraws } => Some(redraws as usize),
            _ => None,
        };
        match redraws.filter(|&r| r > MAX_REDRAWS) {
            Some(r) => Err(format!("{r} redraws; a check redraws 0 to {MAX_REDRAWS} times")),
            None => Ok(()),
        }
    }
}

/// The failure policy written as in the CLI: `deepest`, `last`, `frequency`.
mod policy_name {
    use super::Policy;
    use serde::{Deserialize, Deserializer, Serializer};

    #[derive(Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Name {
        Deepest,
        Last,
        Frequency,
    }

    pub fn serialize<S: Serializer>(p: &Policy, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_unit_variant(
            "Policy",
            0,
            match p {
                Policy::Deepest => "deepest",
                Policy::Last => "last",
                Policy::Frequency => "frequency",
            },
        )
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Policy, D::Error> {
        Ok(match Name::deserialize(d)? {
            Name::Deepest => Policy::Deepest,
            Name::Last => Policy::Last,
            Name::Frequency => Policy::Frequency,
        })
    }
}
