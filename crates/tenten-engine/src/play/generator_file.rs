//! Generator files: what a designer edits, compares, tunes and ships. A
//! generator is a piece set with its base weights, optional overrides,
//! weights scaled by how full the board is (`by_fill`), a chance to repeat
//! the previous piece's kind, a "mercy" scale after a run of rounds without
//! a clear, and a check on every holder (the paper's repair, reject-and-
//! redraw, a bag, or none):
//!
//! ```ron
//! (
//!     name: "classic with mercy",
//!     pieces: "../pieces/classic-1010.ron",
//!     weights: { "dot": 3 },
//!     by_fill: [
//!         (up_to: 0.50, scale: {}),
//!         (up_to: 0.75, scale: { "sq3": 0.5, "h5": 0.5, "v5": 0.5 }),
//!         (up_to: 1.00, scale: { "dot": 3.0, "h2": 2.0, "v2": 2.0 }),
//!     ],
//!     repeat_previous: 0.0,
//!     mercy: Some((after_rounds_without_clear: 8, scale: { "dot": 3.0 })),
//!     check: repair(policy: deepest, redraws: 64),
//! )
//! ```
//!
//! An `adaptive` section reads the player and the game (`play::adaptive`).
//!
//! A file is read whole or refused with file:line:col: a band out of order,
//! a scale below 0, an unknown piece, every weight 0 in a band.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::io::formats::{self, FormatError, line_col, parse_ron};
use crate::model::pieces::{MAX_WEIGHT, PieceSet};
use crate::play::adaptive::Adaptive;
pub use crate::play::check::{Check, MAX_REDRAWS};

/// The largest scale a band or mercy gives a weight.
pub const MAX_SCALE: f64 = 100.0;
/// The longest run of dry rounds mercy waits for.
pub const MAX_DRY_ROUNDS: u32 = 1_000_000;

/// Weights scaled on boards filled up to `up_to` (a fraction of the cells).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Band {
    pub up_to: f64,
    #[serde(default)]
    pub scale: BTreeMap<String, f64>,
}

/// Weights scaled after `after_rounds_without_clear` rounds in a row that
/// cleared no line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mercy {
    pub after_rounds_without_clear: u32,
    #[serde(default)]
    pub scale: BTreeMap<String, f64>,
}

/// A generator file as written (and as saved).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeneratorFile {
    pub name: String,
    /// The piece set, relative to the generator file; none: the classic set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pieces: Option<String>,
    #[serde(default)]
    pub weights: BTreeMap<String, u32>,
    #[serde(default)]
    pub by_fill: Vec<Band>,
    #[serde(default)]
    pub repeat_previous: f64,
    #[serde(default)]
    pub mercy: Option<Mercy>,
    pub check: Check,
    /// Rules that read the player and the game (`play::adaptive`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adaptive: Option<Adaptive>,
}

/// A generator file read and tied to its piece set.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratorSpec {
    pub file: GeneratorFile,
    /// The set with the file's weight overrides applied.
    pub set: PieceSet,
}

/// The presets (`presets/generators/`, built in): the four generators the
/// workbench always had, as files, and two examples of the rules.
pub const PRESETS: [(&str, &str); 6] = [
    (
        "random",
        include_str!("../../../../presets/generators/random.ron"),
    ),
    (
        "repair",
        include_str!("../../../../presets/generators/repair.ron"),
    ),
    (
        "reject",
        include_str!("../../../../presets/generators/reject.ron"),
    ),
    ("bag", include_str!("../../../../presets/generators/bag.ron")),
    (
        "block-blast-like",
        include_str!("../../../../presets/generators/block-blast-like.ron"),
    ),
    (
        "classic-with-mercy",
        include_str!("../../../../presets/generators/classic-with-mercy.ron"),
    ),
];

/// A preset generator by name, on `set` (the presets name no piece set:
/// they deal whatever set is in use, as the old generators did).
pub fn preset(name: &str, set: &PieceSet) -> Option<GeneratorSpec> {
    let (_, text) = PRESETS.iter().find(|(n, _)| *n == name)?;
    let file: GeneratorFile = parse_ron(text, name).ok()?;
    resolve(file, set.clone(), text, name).ok()
}

/// A generator named as every command and binding names one: a file
/// (`.ron`), RON text (starting with `(` or a `//` comment: a notebook's
/// generator written in place, its piece set `set`), or a preset's name.
/// `None` for a name that is none of these.
pub fn spec_by_name(name: &str, set: &PieceSet) -> Option<Result<GeneratorSpec, FormatError>> {
    let text = name.trim_start();
    if name.ends_with(".ron") {
        Some(load(Path::new(name), set))
    } else if text.starts_with('(') || text.starts_with("//") {
        Some(parse(name, "generator text", set))
    } else {
        preset(name, set).map(Ok)
    }
}

/// Reads a generator file at `path`, its piece set relative to it (or
/// `fallback` when it names none).
pub fn load(path: &Path, fallback: &PieceSet) -> Result<GeneratorSpec, FormatError> {
    let text = formats::read_text(path)?;
    let name = path.display().to_string();
    let file: GeneratorFile = parse_ron(&text, &name)?;
    let set = match &file.pieces {
        Some(p) => formats::load_pieces_of(path, p)?.0,
        None => fallback.clone(),
    };
    resolve(file, set, &text, &name)
}

/// A generator file already read (a result file's, by value) against `set`;
/// its errors have no place to name.
pub fn resolve_file(file: GeneratorFile, set: PieceSet, name: &str) -> Result<GeneratorSpec, FormatError> {
    resolve(file, set, "", name)
}

/// Reads a generator written in `text` against `set` (its `pieces` path,
/// if any, already read by the caller).
pub fn parse(text: &str, name: &str, set: &PieceSet) -> Result<GeneratorSpec, FormatError> {
    let file: GeneratorFile = parse_ron(text, name)?;
    resolve(file, set.clone(), text, name)
}

/// Where `needle` is written, looking from the first `section` key on.
fn at(text: &str, section: &str, needle: &str) -> Option<(usize, usize)> {
    let from = text.find(&format!("{section}:")).unwrap_or(0);
    text[from..]
        .find(needle)
        .map(|i| line_col(text, from + i))
        .or_else(|| text.find(&format!("{section}:")).map(|i| line_col(text, i)))
}

/// Checks every rule against `set` and applies the weight overrides.
fn resolve(
    file: GeneratorFile,
    mut set: PieceSet,
    text: &str,
    name: &str,
) -> Result<GeneratorSpec, FormatError> {
    let err = |section: &str, needle: &str, message: String| {
        FormatError::new(name, at(text, section, needle), message)
    };
    // The ids to check against, apart from the set the overrides change.
    let ids = set.clone();
    let known = |id: &str, section: &str| {
        if ids.index_of(id).is_some() {
            Ok(())
        } else {
            Err(err(
                section,
                &format!("\"{id}\""),
                format!(
                    "{section}: unknown piece {id:?} (not in the piece set \"{}\")",
                    ids.name
                ),
            ))
        }
    };
    for (id, &w) in &file.weights {
        known(id, "weights")?;
        if w > MAX_WEIGHT {
            return Err(err(
                "weights",
                &format!("\"{id}\""),
                format!("weights: {id} has weight {w}; weights are 0 to {MAX_WEIGHT}"),
            ));
        }
        let i = set.index_of(id).unwrap_or(0);
        set.pieces[usize::from(i)].weight = w;
    }
    if set.total_weight() == 0 {
        return Err(err(
            "weights",
            "{",
            "weights: every piece has weight 0".to_owned(),
        ));
    }
    let scale_ok = |scale: &BTreeMap<String, f64>, section: &str| -> Result<(), FormatError> {
        for (id, &s) in scale {
            known(id, section)?;
            if !(0.0..=MAX_SCALE).contains(&s) {
                return Err(err(
                    section,
                    &format!("\"{id}\""),
                    format!("{section}: the scale of {id} is {s}; a scale is 0 to {MAX_SCALE}"),
                ));
            }
        }
        Ok(())
    };
    // Band b's `up_to`, as written.
    let band_at = |b: usize| {
        let from = text.find("by_fill:")?;
        text[from..]
            .match_indices("up_to")
            .nth(b)
            .map(|(i, _)| line_col(text, from + i))
    };
    let mut below = 0.0;
    for (b, band) in file.by_fill.iter().enumerate() {
        if !(band.up_to > below && band.up_to <= 1.0) {
            return Err(FormatError::new(
                name,
                band_at(b),
                format!(
                    "by_fill: band {b} goes up to {} but must go above the band before ({below}) and at most to 1.0; bands rise in order",
                    band.up_to
                ),
            ));
        }
        below = band.up_to;
        scale_ok(&band.scale, "by_fill")?;
        if effective(&set, Some(&band.scale), None).iter().all(|&w| w <= 0.0) {
            return Err(FormatError::new(
                name,
                band_at(b),
                format!(
                    "by_fill: band {b} (up to {}) scales every weight to 0",
                    band.up_to
                ),
            ));
        }
    }
    file.check
        .check()
        .map_err(|m| err("check", "redraws", format!("check: {m}")))?;
    if let Some(m) = &file.mercy
        && m.after_rounds_without_clear > MAX_DRY_ROUNDS
    {
        return Err(err(
            "mercy",
            "after_rounds_without_clear",
            format!(
                "mercy: after_rounds_without_clear is {}; it is 1 to {MAX_DRY_ROUNDS}",
                m.after_rounds_without_clear
            ),
        ));
    }
    if !(0.0..=1.0).contains(&file.repeat_previous) {
        return Err(err(
            "repeat_previous",
            "repeat_previous",
            format!(
                "repeat_previous is {}; it is a chance, 0 to 1",
                file.repeat_previous
            ),
        ));
    }
    if let Some(m) = &file.mercy {
        scale_ok(&m.scale, "mercy")?;
        if m.after_rounds_without_clear == 0 {
            return Err(err(
                "mercy",
                "after_rounds_without_clear",
                "mercy: after_rounds_without_clear is at least 1".to_owned(),
            ));
        }
        let bands: Vec<Option<&BTreeMap<String, f64>>> = if file.by_fill.is_empty() {
            vec![None]
        } else {
            file.by_fill.iter().map(|b| Some(&b.scale)).collect()
        };
        if bands
            .iter()
            .any(|b| effective(&set, *b, Some(&m.scale)).iter().all(|&w| w <= 0.0))
        {
            return Err(err(
                "mercy",
                "scale",
                "mercy: its scale leaves every weight at 0 in some band".to_owned(),
            ));
        }
    }
    if let Some(a) = &file.adaptive {
        a.check().map_err(|m| err("adaptive", "adaptive", m))?;
        if file.check == Check::Bag
            && let Some(i) = a.rules.iter().position(|r| r.tilt != 0.0 && r.check.is_none())
        {
            return Err(err(
                "adaptive",
                "tilt",
                format!(
                    "adaptive: rule {i} tilts the weights, but the file deals from a bag, which no tilt changes; give the rule a check (repair, reject or none)"
                ),
            ));
        }
    }
    Ok(GeneratorSpec { file, set })
}

/// The weight of each piece under a band's scale and maybe mercy's.
pub fn effective(
    set: &PieceSet,
    band: Option<&BTreeMap<String, f64>>,
    mercy: Option<&BTreeMap<String, f64>>,
) -> Vec<f64> {
    set.pieces
        .iter()
        .map(|p| {
            let s = |m: Option<&BTreeMap<String, f64>>| m.and_then(|m| m.get(&p.id)).copied().unwrap_or(1.0);
            f64::from(p.weight) * s(band) * s(mercy)
        })
        .collect()
}

impl GeneratorSpec {
    /// The band in force on a board `fill` full (0 to 1): the first whose
    /// `up_to` reaches it; `None` past the last band, or without bands.
    pub fn band_at(&self, fill: f64) -> Option<usize> {
        self.file.by_fill.iter().position(|b| fill <= b.up_to + 1e-12)
    }

    /// The effective weights on a board `fill` full, with mercy or not.
    pub fn weights_at(&self, fill: f64, mercy: bool) -> Vec<f64> {
        let band = self.band_at(fill).map(|b| &self.file.by_fill[b].scale);
        let mercy = if mercy {
            self.file.mercy.as_ref().map(|m| &m.scale)
        } else {
            None
        };
        effective(&self.set, band, mercy)
    }

    /// The file as RON, to save.
    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new()
            .indentor("    ".to_owned())
            .depth_limit(3);
        let mut text = ron::ser::to_string_pretty(&self.file, config).unwrap_or_default();
        text.push('\n');
        text
    }
}

#[cfg(test)]
#[path = "generator_file_tests.rs"]
mod tests;
