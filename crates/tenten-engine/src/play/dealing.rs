//! What deals a game's holders, resolved: one of the built-in generators
//! (decided by its name, the run's piece set and repair options) or a
//! generator file's rules with every weight written out. A run holds these
//! by value, so a generator file and its piece set are read once, when the
//! run starts, and never again.

use serde::{Deserialize, Serialize};

use crate::io::formats::FormatError;
use crate::model::pieces::PieceSet;
use crate::play::adaptive::History;
use crate::play::dealers::{self, Dealer};
use crate::play::file_dealer::FileDealer;
use crate::play::generator_file::{self, GeneratorFile, GeneratorSpec};
use crate::search::changer::ChangeOptions;

/// A generator, everything about it that decides its deals (with the run's
/// piece set and repair options).
// A run holds a handful of these, made once: the file variant's size costs
// nothing, and boxing it would only add a pointer to every deal's lookup.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Dealing {
    /// `random`, `repair`, `reject` or `bag` on the run's set.
    Builtin(&'static str),
    /// A generator file, its set the run's pieces with its own weights.
    File(GeneratorSpec),
}

impl Dealing {
    /// A generator by name: a built-in one, a preset generator file by its
    /// name (`block-blast-like`), or a generator file (a name ending in
    /// `.ron`, read now with its piece set), which must deal `set`'s pieces.
    pub fn by_name(name: &str, set: &PieceSet) -> Result<Self, FormatError> {
        if let Some(b) = dealers::NAMES.iter().find(|n| **n == name) {
            return Ok(Dealing::Builtin(b));
        }
        let spec = generator_file::spec_by_name(name, set).unwrap_or_else(|| {
            Err(FormatError::new(
                name,
                None,
                format!(
                    "unknown generator {name:?}; choose from {}, or give a generator file (.ron)",
                    names().join(", ")
                ),
            ))
        })?;
        Dealing::file(spec, set).map_err(|m| FormatError::new(name, None, m))
    }

    /// A generator file's spec, checked to deal `set`'s pieces, held by
    /// value: no path to its piece set, every weight written.
    pub fn file(mut spec: GeneratorSpec, set: &PieceSet) -> Result<Self, String> {
        if !dealers::same_pieces(&spec.set, set) {
            return Err(format!(
                "the generator deals the pieces of \"{}\", not those of the run's set \"{}\"; give the generator's set (--pieces in the CLI, the palette in the window)",
                spec.set.name, set.name
            ));
        }
        spec.file.pieces = None;
        spec.file.weights = spec.set.pieces.iter().map(|p| (p.id.clone(), p.weight)).collect();
        spec.set.name = set.name.clone();
        Ok(Dealing::File(spec))
    }

    /// A fresh dealer for one game (a session's first, for a file's
    /// adaptive rules).
    pub fn dealer(&self, set: &PieceSet, options: ChangeOptions) -> Box<dyn Dealer> {
        self.dealer_for(set, options, &History::default())
    }

    /// A fresh dealer for one game of a player whose games so far are
    /// `history` (only a file's adaptive rules read it).
    pub fn dealer_for(&self, set: &PieceSet, options: ChangeOptions, history: &History) -> Box<dyn Dealer> {
        match self {
            Dealing::Builtin(name) => dealers::by_name(name, set, options)
                .unwrap_or_else(|| unreachable!("{name} is one of dealers::NAMES")),
            Dealing::File(spec) => Box::new(FileDealer::new(spec.clone()).with_history(history.clone())),
        }
    }

    /// Whether its deals read the player's history (a file with adaptive
    /// rules).
    pub fn adaptive(&self) -> bool {
        matches!(self, Dealing::File(spec) if spec.file.adaptive.as_ref().is_some_and(|a| !a.rules.is_empty()))
    }

    /// A fresh dealer for one game whose deals nobody reads back (a
    /// session's: its lost game's end is judged on its own,
    /// `game::lost_to`). It deals exactly what `dealer` deals, but a holder
    /// it does not check (random's, or a generator file's checked by nothing or a
    /// bag) is not validated to record whether it was fair: that was a
    /// twentieth of a forecast's time. Dealers that check validate as
    /// before: their checks are what they deal.
    pub fn unrecorded_dealer(
        &self,
        set: &PieceSet,
        options: ChangeOptions,
        history: &History,
    ) -> Box<dyn Dealer> {
        match self {
            Dealing::Builtin("random") => Box::new(dealers::UnrecordedRandomDealer),
            Dealing::File(spec) => Box::new(
                FileDealer::new(spec.clone())
                    .with_history(history.clone())
                    .unrecorded(),
            ),
            d => d.dealer(set, options),
        }
    }
}

/// Every generator name `by_name` takes besides files.
pub fn names() -> Vec<&'static str> {
    let mut all: Vec<&str> = dealers::NAMES.to_vec();
    all.extend(
        generator_file::PRESETS
            .iter()
            .map(|(n, _)| *n)
            .filter(|n| !dealers::NAMES.contains(n)),
    );
    all
}

/// As a result file stores it: the built-in's name, or the file's rules
/// with every piece's weight written and no path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DealingDef {
    Builtin(String),
    File(GeneratorFile),
}

impl Dealing {
    pub fn to_def(&self) -> DealingDef {
        match self {
            Dealing::Builtin(n) => DealingDef::Builtin((*n).to_owned()),
            Dealing::File(spec) => {
                // The weights in force are the set's.
                let mut file = spec.file.clone();
                file.pieces = None;
                file.weights = spec.set.pieces.iter().map(|p| (p.id.clone(), p.weight)).collect();
                DealingDef::File(file)
            }
        }
    }

    /// Back from a result file, on the run's `set`; `name` names it in
    /// messages.
    pub fn from_def(def: &DealingDef, set: &PieceSet, name: &str) -> Result<Self, String> {
        match def {
            DealingDef::Builtin(n) => dealers::NAMES
                .iter()
                .find(|b| *b == n)
                .map(|b| Dealing::Builtin(b))
                .ok_or_else(|| format!("unknown built-in generator {n:?}")),
            DealingDef::File(file) => {
                let spec =
                    generator_file::resolve_file(file.clone(), set.clone(), name).map_err(|e| e.message)?;
                Dealing::file(spec, set)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generator_by_name_is_builtin_a_preset_or_a_file_and_survives_its_def() {
        let set = PieceSet::classic();
        assert_eq!(Dealing::by_name("bag", &set).unwrap(), Dealing::Builtin("bag"));
        for name in names() {
            let d = Dealing::by_name(name, &set).unwrap();
            let back = Dealing::from_def(&d.to_def(), &set, name).unwrap();
            assert_eq!(back.to_def(), d.to_def(), "{name}");
        }
        assert!(matches!(
            Dealing::by_name("block-blast-like", &set).unwrap(),
            Dealing::File(_)
        ));
        let e = Dealing::by_name("nope", &set).unwrap_err();
        assert!(e.message.contains("block-blast-like"), "{e}");
    }
}
