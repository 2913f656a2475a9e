//! Players of graded skill: a model, not a measured person. A player judges
//! a board with the five criteria of the 1010! analysis, looks one piece
//! ahead (as people play) or at the whole holder (the analysis's search),
//! makes strategy errors (a softmax over its candidate moves or plans) and
//! execution errors (a uniformly random legal placement, `slip`), kept
//! apart as Isaksen et al. (CIG 2017) keep strategy and dexterity apart.
//!
//! Two choice laws: `rank` (a softmax over the ranks of the moves' values
//! under fixed criteria weights, at a temperature) and `value` (McFadden's
//! conditional logit: a move's chance is proportional to exp(β · f), f the
//! five criteria of the board it leaves, β fitted per player).

use serde::{Deserialize, Serialize};

use crate::io::formats::{FormatError, line_col, parse_ron};
use crate::model::board::{Bits, Lines};
use crate::model::generator::Generator;
use crate::model::pieces::PieceIdx;
use crate::model::shapes::{Shapes, score};
use crate::play::coelho::{CoelhoStrategy, CoelhoWeights, Criteria, Evaluator, LINES, Move, ValueTable};
use crate::play::game::Strategy;
use crate::progress::Progress;

/// How far a player looks before placing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lookahead {
    /// One piece at a time: the best single placement of any piece left,
    /// then look again.
    #[default]
    Piece,
    /// Every order and placement of the whole holder (the analysis's search).
    Holder,
}

/// How a player chooses among its options (moves, or plans).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Choice {
    /// A softmax over the options' ranks under fixed criteria weights
    /// (`evaluation`), at `temperature`: scale-free.
    #[default]
    Rank,
    /// The conditional logit: exp(β · f) over the options' criteria f; the
    /// β carry the temperature's scale.
    Value,
}

impl Choice {
    fn is_rank(&self) -> bool {
        *self == Choice::Rank
    }
}

/// The largest |β| a player file takes: β · f beyond a few hundred is a
/// certain choice already, and a bound keeps exp() finite.
pub const MAX_BETA: f64 = 1000.0;

/// A player file as written. A rank player (the default, as every file
/// before value choice was) has `evaluation` and `temperature`; a value
/// player has `choice: value` and `beta`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerFile {
    name: String,
    #[serde(default, skip_serializing_if = "Choice::is_rank")]
    choice: Choice,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    evaluation: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    beta: Vec<f64>,
    lookahead: Lookahead,
    #[serde(default = "unset", skip_serializing_if = "is_unset")]
    temperature: f64,
    slip: f64,
}

fn unset() -> f64 {
    f64::NAN
}

fn is_unset(t: &f64) -> bool {
    t.is_nan()
}

/// The largest temperature a player file takes: at 1000 the ranks of a
/// decision's moves are as good as equal (a uniformly random player, which
/// `slip: 1` says plainly).
pub const MAX_TEMPERATURE: f64 = 1000.0;

/// A player model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "PlayerFile", into = "PlayerFile")]
pub struct Player {
    pub name: String,
    pub choice: Choice,
    /// Rank choice: the five criteria weights (free cells, 5x5 room,
    /// large-piece room, alignment, compactness).
    pub evaluation: CoelhoWeights,
    /// Value choice: the weights of the five criteria on their natural
    /// scales (`Evaluator::features`); zeros for a rank player.
    pub beta: [f64; 5],
    pub lookahead: Lookahead,
    /// Rank choice's strategy errors: 0 always takes the best move (or
    /// plan); otherwise the k-th best (by distinct value) is e^(k /
    /// temperature) times less likely than the best: at 1, the second best
    /// is e times less likely. 0 for a value player.
    pub temperature: f64,
    /// Execution errors: the chance that a placement is a uniformly random
    /// legal one (a holder player: of the piece it meant to place).
    pub slip: f64,
}

impl TryFrom<PlayerFile> for Player {
    type Error = String;
    fn try_from(raw: PlayerFile) -> Result<Self, String> {
        Self::check(raw).map_err(|(_, m)| m)
    }
}

impl From<Player> for PlayerFile {
    fn from(p: Player) -> Self {
        let rank = p.choice == Choice::Rank;
        PlayerFile {
            name: p.name,
            choice: p.choice,
            evaluation: if rank {
                p.evaluation.to_string()
            } else {
                String::new()
            },
            beta: if rank { Vec::new() } else { p.beta.to_vec() },
            lookahead: p.lookahead,
            temperature: if rank { p.temperature } else { f64::NAN },
            slip: p.slip,
        }
    }
}

impl Player {
    /// Reads a player file; `file` names it in messages.
    pub fn parse(text: &str, file: &str) -> Result<Self, FormatError> {
        let raw: PlayerFile = parse_ron(text, file)?;
        Self::check(raw).map_err(|(key, m)| {
            FormatError::new(file, text.find(&format!("{key}:")).map(|i| line_col(text, i)), m)
        })
    }

    /// The file's values in their ranges, or the key at fault and why.
    fn check(raw: PlayerFile) -> Result<Self, (&'static str, String)> {
        if !(0.0..=1.0).contains(&raw.slip) {
            return Err((
                "slip",
                format!("slip {} must be between 0 and 1 (a chance)", raw.slip),
            ));
        }
        let (evaluation, beta, temperature) = match raw.choice {
            Choice::Rank => {
                if !raw.beta.is_empty() {
                    return Err((
                        "beta",
                        "beta is for a value player: add `choice: value` (and drop evaluation and \
                         temperature), or remove beta"
                            .to_owned(),
                    ));
                }
                if raw.evaluation.is_empty() {
                    return Err((
                        "name",
                        "a rank player needs `evaluation` (five digits, like \"10025\"); a value \
                         player says `choice: value`"
                            .to_owned(),
                    ));
                }
                let evaluation = CoelhoWeights::parse(&raw.evaluation).map_err(|_| {
                    (
                        "evaluation",
                        format!(
                            "evaluation {:?} is not five digits (one weight per criterion, like \"10025\")",
                            raw.evaluation
                        ),
                    )
                })?;
                if raw.temperature.is_nan() {
                    return Err((
                        "name",
                        "a rank player needs `temperature` (0 always takes the best move)".to_owned(),
                    ));
                }
                if !(0.0..=MAX_TEMPERATURE).contains(&raw.temperature) {
                    return Err((
                        "temperature",
                        format!(
                            "temperature {} must be 0 to {MAX_TEMPERATURE} (0: always the best move)",
                            raw.temperature
                        ),
                    ));
                }
                (evaluation, [0.0; 5], raw.temperature)
            }
            Choice::Value => {
                if !raw.evaluation.is_empty() || !raw.temperature.is_nan() {
                    let key = if raw.evaluation.is_empty() {
                        "temperature"
                    } else {
                        "evaluation"
                    };
                    return Err((
                        key,
                        format!(
                            "a value player has no {key}: its five beta weigh the criteria and carry \
                             the temperature's scale"
                        ),
                    ));
                }
                let beta: [f64; 5] = raw.beta.as_slice().try_into().map_err(|_| {
                    (
                        if raw.beta.is_empty() { "choice" } else { "beta" },
                        format!(
                            "a value player needs beta: five numbers, one per criterion (free cells, \
                             5x5 square, large pieces, alignment, surface); got {}",
                            raw.beta.len()
                        ),
                    )
                })?;
                if let Some(b) = beta.iter().find(|b| b.is_nan() || b.abs() > MAX_BETA) {
                    return Err((
                        "beta",
                        format!("beta {b} must be between -{MAX_BETA} and {MAX_BETA}"),
                    ));
                }
                (CoelhoWeights::BEST, beta, 0.0)
            }
        };
        Ok(Self {
            name: raw.name,
            choice: raw.choice,
            evaluation,
            beta,
            lookahead: raw.lookahead,
            temperature,
            slip: raw.slip,
        })
    }

    /// What decides its play, in a few words: "criteria 10025, piece
    /// lookahead, temperature 0.5, slip 0.02".
    pub fn describe(&self) -> String {
        let look = match self.lookahead {
            Lookahead::Piece => "piece",
            Lookahead::Holder => "holder",
        };
        match self.choice {
            Choice::Rank => format!(
                "criteria {}, {look} lookahead, temperature {}, slip {}",
                self.evaluation, self.temperature, self.slip
            ),
            Choice::Value => format!(
                "value choice beta {}, {look} lookahead, slip {}",
                self.beta.map(|b| b.to_string()).join(","),
                self.slip
            ),
        }
    }

    /// The player as a file.
    pub fn to_ron(&self) -> String {
        let raw = PlayerFile::from(self.clone());
        let config = ron::ser::PrettyConfig::new().indentor("    ".to_owned());
        let mut text = ron::ser::to_string_pretty(&raw, config).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// The presets, least skilled first (`presets/players/`, built in): the
/// random bot, the ladder of five, and the analysis's search with weights
/// of one's choosing. (The greedy bot is no player file: see the test
/// `greedy_is_not_a_player_model`.)
pub const PRESETS: [(&str, &str); 7] = [
    ("random", include_str!("../../../../presets/players/random.ron")),
    ("novice", include_str!("../../../../presets/players/novice.ron")),
    ("casual", include_str!("../../../../presets/players/casual.ron")),
    ("skilled", include_str!("../../../../presets/players/skilled.ron")),
    ("expert", include_str!("../../../../presets/players/expert.ron")),
    ("machine", include_str!("../../../../presets/players/machine.ron")),
    ("coelho", include_str!("../../../../presets/players/coelho.ron")),
];

/// Reads a player file.
pub fn load(path: &std::path::Path) -> Result<Player, FormatError> {
    let text = crate::io::formats::read_text(path)?;
    Player::parse(&text, &path.display().to_string())
}

/// A preset player by name.
pub fn preset(name: &str) -> Option<Player> {
    let (_, text) = PRESETS.iter().find(|(n, _)| *n == name)?;
    Player::parse(text, &format!("presets/players/{name}.ron")).ok()
}

/// The chance of each candidate move, given their values: with chance
/// `slip` a uniformly random one, else a softmax of the values at
/// `temperature` over the moves' ranks (temperature 0: the best, ties
/// shared). The same law is what fitting a player maximises.
pub fn move_probabilities(values: &[f64], temperature: f64, slip: f64) -> Vec<f64> {
    let n = values.len();
    // Values differ by very different amounts from one decision to the next
    // (a line clear is worth ten cells, a smoother edge a few hundredths),
    // so the softmax is over ranks, not values: scale-free.
    let weights = rank_weights(values, temperature);
    let total: f64 = weights.iter().sum();
    weights
        .iter()
        .map(|w| slip / n as f64 + (1.0 - slip) * w / total)
        .collect()
}

/// The chance of each option under the conditional logit: with chance
/// `slip` a uniformly random one, else proportional to exp(β · f).
pub fn value_probabilities(features: &[[f64; 5]], beta: &[f64; 5], slip: f64) -> Vec<f64> {
    let n = features.len();
    let weights = logit_weights(features.iter(), beta);
    let total: f64 = weights.iter().sum();
    weights
        .iter()
        .map(|w| slip / n as f64 + (1.0 - slip) * w / total)
        .collect()
}

/// exp(β · f) for each f, scaled so the largest is 1 (no overflow).
pub fn logit_weights<'a>(features: impl Iterator<Item = &'a [f64; 5]>, beta: &[f64; 5]) -> Vec<f64> {
    let scores: Vec<f64> = features.map(|f| dot(beta, f)).collect();
    let top = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    scores.iter().map(|s| (s - top).exp()).collect()
}

pub fn dot(a: &[f64; 5], b: &[f64; 5]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4]
}

/// `move_probabilities` into `out`, with scratch space kept between calls
/// (a player's every placement): the same numbers to the bit, the ranks
/// found by one sort of the values' order keys and each rank's weight
/// computed once.
pub fn move_probabilities_into(
    values: &[f64],
    temperature: f64,
    slip: f64,
    scratch: &mut RankScratch,
    out: &mut Vec<f64>,
) {
    rank_weights_into(values, temperature, scratch, out);
    let n = values.len();
    let total: f64 = out.iter().sum();
    for w in out.iter_mut() {
        *w = slip / n as f64 + (1.0 - slip) * *w / total;
    }
}

/// Draws an option as `draw` does from `move_probabilities`, given the
/// rank weights (`rank_weights_into`): each chance is made as the walk
/// reaches it, the same numbers in the same order, so the draw is the
/// same, and the options past the one drawn cost nothing.
fn draw_ranked(weights: &[f64], slip: f64, rng: &mut Generator) -> usize {
    let n = weights.len();
    let total: f64 = weights.iter().sum();
    let mut r = rng.unit();
    for (i, w) in weights.iter().enumerate() {
        let p = slip / n as f64 + (1.0 - slip) * w / total;
        if r < p {
            return i;
        }
        r -= p;
    }
    n - 1
}

/// Each option's rank weight, e^(-rank / temperature) (as `rank_weights`),
/// into `out`.
pub fn rank_weights_into(values: &[f64], temperature: f64, scratch: &mut RankScratch, out: &mut Vec<f64>) {
    scratch.keys.clear();
    if values.len() <= KEYED {
        scratch
            .keys
            .extend(values.iter().enumerate().map(|(i, &v)| rank_key(v) | i as u64));
        keyed_rank_weights(temperature, scratch, out);
        return;
    }
    scratch.weights_up_to(values.len(), temperature);
    let RankScratch { keys, table, .. } = scratch;
    keys.extend(values.iter().map(|&v| rank_key(v)));
    keys.sort_unstable();
    keys.dedup();
    out.clear();
    for &v in values {
        out.push(table[keys.partition_point(|&k| k < rank_key(v))]);
    }
}

/// The most options whose index fits in the low 9 bits of an order key:
/// every placement of a full holder on the largest board.
const KEYED: usize = 512;
const _: () = assert!(crate::model::pieces::MAX_HOLDER * crate::model::board::MAX_CELLS <= KEYED);

/// `rank_weights_into` from the options' order keys, each with its index in
/// the low 9 bits (`scratch.keys`, as `rank_options` makes them): one sort
/// orders them, a walk ranks them.
fn keyed_rank_weights(temperature: f64, scratch: &mut RankScratch, out: &mut Vec<f64>) {
    let n = scratch.keys.len();
    scratch.weights_up_to(n, temperature);
    let RankScratch { keys, table, .. } = scratch;
    crate::play::rank_sort::sort_keys(keys);
    out.clear();
    out.resize(n, 0.0);
    let mut rank = 0;
    let mut last = keys.first().map_or(0, |k| k >> 9);
    for &k in keys.iter() {
        rank += usize::from(k >> 9 != last);
        last = k >> 9;
        out[(k & 0x1FF) as usize] = table[rank];
    }
}

/// What `move_probabilities_into` keeps between calls: the sort's keys,
/// and each rank's weight at the temperature `at`.
#[derive(Clone, Debug, Default)]
pub struct RankScratch {
    keys: Vec<u64>,
    table: Vec<f64>,
    at: f64,
}

impl RankScratch {
    /// The weight of each rank below `n` at `temperature`, as
    /// `rank_weights` computes it (each once per temperature: a player's
    /// every move shares them).
    fn weights_up_to(&mut self, n: usize, temperature: f64) {
        if self.at.to_bits() != temperature.to_bits() {
            self.table.clear();
            self.at = temperature;
        }
        while self.table.len() < n {
            let r = self.table.len() as f64;
            self.table.push(if temperature > 0.0 {
                (-r / temperature).exp()
            } else {
                f64::from(u8::from(r == 0.0))
            });
        }
    }
}

/// A value's place in rank order: larger values get smaller keys (the
/// order of `f64::total_cmp`, reversed), and values within 512 units in
/// the last place of each other share a key. Values that differ at all
/// differ far more (the criteria are counts over a few fixed scales: on a
/// 10x10 board by at least 1/18000), so what this merges are equal sums
/// rounded differently, which are one rank. The low 9 bits are left 0 for
/// an option's index.
pub fn rank_key(v: f64) -> u64 {
    let b = v.to_bits() as i64;
    !((b ^ (((b >> 63) as u64) >> 1) as i64) as u64 ^ (1 << 63)) & !0x1FF
}

/// Each option's weight under rank choice: e^(-rank / temperature) over
/// the distinct values (`rank_key`; at temperature 0, 1 for the best and
/// 0 else).
pub fn rank_weights(values: &[f64], temperature: f64) -> Vec<f64> {
    let mut distinct: Vec<u64> = values.iter().map(|&v| rank_key(v)).collect();
    distinct.sort_unstable();
    distinct.dedup();
    let rank = |v: f64| distinct.partition_point(|&d| d < rank_key(v)) as f64;
    values
        .iter()
        .map(|&v| {
            let r = rank(v);
            if temperature > 0.0 {
                (-r / temperature).exp()
            } else {
                f64::from(u8::from(r == 0.0))
            }
        })
        .collect()
}

/// Draws an index from `probabilities` (summing to 1).
fn draw(probabilities: &[f64], rng: &mut Generator) -> usize {
    let mut r = rng.unit();
    for (i, p) in probabilities.iter().enumerate() {
        if r < *p {
            return i;
        }
        r -= p;
    }
    probabilities.len() - 1
}

/// One candidate move of a piece-lookahead player.
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
    /// Which piece of those left (index into the holder).
    pub slot: usize,
    pub anchor: u32,
    pub board: Bits,
    pub points: u64,
    /// The board's value under the rank player's criteria weights.
    pub value: f64,
    pub criteria: Criteria,
}

/// Every legal placement of every piece left (a piece dealt twice counts
/// once), with the value of the board it leaves. The board's row and
/// column counts are taken once: a placement that clears no line grows the
/// alignment by the piece's own counts (as the analysis's search does),
/// and only one that clears counts the board again. With `all` false,
/// criteria the weights give nothing are left at 0 (their features are
/// then not the board's).
pub fn candidates(
    shapes: &Shapes,
    eval: &Evaluator,
    table: &ValueTable,
    board: Bits,
    left: &[PieceIdx],
    all: bool,
    out: &mut Vec<Candidate>,
) {
    out.clear();
    placements(shapes, eval, table, board, left, all, |i, c| put(out, i, c));
}

/// Option `i` into `out`: pushed when first met, replaced when met again.
#[inline(always)]
fn put<T>(out: &mut Vec<T>, i: usize, x: T) {
    if i < out.len() {
        out[i] = x;
    } else {
        out.push(x);
    }
}

/// A rank player's options, lean: each placement's order key (`rank_key`
/// of its value, with its index in the low 9 bits, as
/// `keyed_rank_weights` takes them); the placement chosen is found again
/// by its index (`nth_placement`).
fn rank_options(
    shapes: &Shapes,
    eval: &Evaluator,
    table: &ValueTable,
    board: Bits,
    left: &[PieceIdx],
    keys: &mut Vec<u64>,
) {
    keys.clear();
    placements(shapes, eval, table, board, left, false, |i, c| {
        // Past KEYED options (never, with MAX_HOLDER pieces of at most
        // MAX_CELLS anchors each) the caller ranks the values instead.
        put(keys, i, rank_key(c.value) | (i & (KEYED - 1)) as u64);
    });
}

/// The (slot, anchor) of option `k` in `placements`' order: slot by slot
/// (a piece dealt twice counts once), anchors upwards. Found again for the
/// one option chosen rather than kept for every one.
fn nth_placement(shapes: &Shapes, board: Bits, left: &[PieceIdx], mut k: usize) -> Option<(usize, u32)> {
    for (slot, &piece) in left.iter().enumerate() {
        if left[..slot].contains(&piece) {
            continue;
        }
        let mut fits = shapes.shape(piece).fits(board, shapes.geometry.full);
        let count = fits.count_ones() as usize;
        if k >= count {
            k -= count;
            continue;
        }
        for _ in 0..k {
            fits &= fits - 1;
        }
        return Some((slot, fits.trailing_zeros()));
    }
    None
}

/// `placements`' options, each emitted as (its index in slot-then-anchor
/// order, the candidate). A piece's every anchor is first valued as if it
/// cleared nothing, in one loop without a branch on the board; the anchors
/// that clear are then emitted again, valued on the board they leave, and
/// replace their first value.
#[inline(always)]
fn placements(
    shapes: &Shapes,
    eval: &Evaluator,
    table: &ValueTable,
    board: Bits,
    left: &[PieceIdx],
    all: bool,
    emit: impl FnMut(usize, Candidate),
) {
    // Criteria 2 and 3 only when they count: for a value player's features
    // (`all`), or weighed by the rank player's criteria. Two loops, so that
    // the one without them has no branch on them.
    if all || table.weights.0[1] != 0 || table.weights.0[2] != 0 {
        placements_with::<true>(shapes, eval, table, board, left, emit);
    } else {
        placements_with::<false>(shapes, eval, table, board, left, emit);
    }
}

/// `placements`, with criteria 2 and 3 valued or not (`LARGE`).
#[inline(always)]
fn placements_with<const LARGE: bool>(
    shapes: &Shapes,
    eval: &Evaluator,
    table: &ValueTable,
    board: Bits,
    left: &[PieceIdx],
    mut emit: impl FnMut(usize, Candidate),
) {
    let (rows, cols, alignment) = eval.line_counts(board);
    let full = shapes.geometry.full;
    let free = (!board & full).count_ones();
    let mut base = 0;
    for (slot, &piece) in left.iter().enumerate() {
        if left[..slot].contains(&piece) {
            continue;
        }
        let shape = shapes.shape(piece);
        let cells = shape.cells();
        let fits = shape.fits(board, full);
        if fits == 0 {
            continue;
        }
        let reach = PieceReach::new(shapes, shape, &rows, &cols);
        // Every placement that clears nothing leaves `free - cells` free
        // cells and, without criteria 2 and 3, the same first three terms.
        let kept = free - cells as u32;
        let first = table.first(kept, false, 0);
        let valued = PieceValue {
            eval,
            table,
            slot,
            cells,
            kept,
            first,
        };
        let mut anchors = fits;
        let mut i = base;
        while anchors != 0 {
            let anchor = anchors.trailing_zeros();
            anchors &= anchors - 1;
            let (x0, y0) = shapes.xy(anchor);
            let grown = alignment + reach.row_gain[y0] + reach.col_gain[x0];
            emit(
                i,
                valued.candidate::<LARGE>(
                    anchor,
                    board | shape.mask << anchor,
                    Lines::default(),
                    kept,
                    grown,
                ),
            );
            i += 1;
        }
        let mut clearing = fits & reach.clears;
        while clearing != 0 {
            let anchor = clearing.trailing_zeros();
            clearing &= clearing - 1;
            let (next, lines) = shapes.place(board, piece, anchor);
            let c = valued.candidate::<LARGE>(
                anchor,
                next,
                lines,
                (!next & full).count_ones(),
                eval.alignment(next),
            );
            emit(base + (fits & ((1 << anchor) - 1)).count_ones() as usize, c);
        }
        base = i;
    }
}

/// What values one piece's placements: the piece, and the first three
/// terms of every placement of it that clears nothing.
struct PieceValue<'a> {
    eval: &'a Evaluator,
    table: &'a ValueTable,
    slot: usize,
    cells: usize,
    kept: u32,
    first: f64,
}

impl PieceValue<'_> {
    /// The placement at `anchor`, leaving `next` (`lines` cleared) with
    /// `free` cells and `alignment`; criteria 2 and 3 valued when `LARGE`.
    #[inline(always)]
    fn candidate<const LARGE: bool>(
        &self,
        anchor: u32,
        next: Bits,
        lines: Lines,
        free: u32,
        alignment: u32,
    ) -> Candidate {
        let (square5_fits, large_fit) = if LARGE {
            self.eval.large_fits(next)
        } else {
            (false, 0)
        };
        let surface = self.eval.surface(next);
        // `free != kept` exactly when the placement cleared lines.
        let first = if LARGE || free != self.kept {
            self.table.first(free, square5_fits, large_fit)
        } else {
            self.first
        };
        Candidate {
            slot: self.slot,
            anchor,
            board: next,
            points: score(self.cells, lines),
            value: self.table.rest(first, alignment, surface),
            criteria: Criteria {
                free,
                square5_fits,
                large_fit,
                alignment,
                surface,
            },
        }
    }
}

/// What a piece does to the rows and columns it would lie in, by the row
/// and column of its anchor (made once per piece, not per placement): the
/// alignment it adds, and the anchors at which it completes a line.
struct PieceReach {
    row_gain: [u32; LINES],
    col_gain: [u32; LINES],
    /// The anchors whose placement fills a row or column.
    clears: Bits,
}

impl PieceReach {
    #[inline(always)]
    fn new(
        shapes: &Shapes,
        shape: &crate::model::shapes::Shape,
        rows: &[u8; LINES],
        cols: &[u8; LINES],
    ) -> Self {
        let (w, h) = (shapes.size().w(), shapes.size().h());
        let (pw, ph) = (usize::from(shape.width), usize::from(shape.height));
        let line: Bits = (1 << pw) - 1;
        let piece_rows: [u32; 5] = std::array::from_fn(|y| (shape.mask >> (y * w) & line).count_ones());
        let piece_cols: [u32; 5] =
            std::array::from_fn(|x| (0..ph).map(|y| (shape.mask >> (y * w + x) & 1) as u32).sum());
        let g = &shapes.geometry;
        let (row_gain, row_clears) = line_gains(&piece_rows[..ph], rows, h, w as u32, &g.rows);
        let (col_gain, col_clears) = line_gains(&piece_cols[..pw], cols, w, h as u32, &g.cols);
        Self {
            row_gain,
            col_gain,
            clears: row_clears | col_clears,
        }
    }
}

/// For a piece whose lines (rows or columns) hold `piece` cells each, laid
/// from each line `at` of `lines` along: the alignment it adds (filling n
/// more cells of a line holding r adds (r + n)^2 - r^2), and the anchors
/// (`masks[at]`) at which it completes a line of `length` cells.
#[inline(always)]
fn line_gains(
    piece: &[u32],
    counts: &[u8; LINES],
    lines: usize,
    length: u32,
    masks: &[Bits; LINES],
) -> ([u32; LINES], Bits) {
    let mut gain = [0; LINES];
    let mut clears = 0;
    for at in 0..=lines.saturating_sub(piece.len()) {
        let mut full = false;
        for (d, &n) in piece.iter().enumerate() {
            let r = u32::from(counts[at + d]);
            gain[at] += n * (2 * r + n);
            full |= n > 0 && r + n == length;
        }
        if full {
            clears |= masks[at];
        }
    }
    (gain, clears)
}

/// The chance of each first move of a planner (a holder-lookahead player
/// with judgement errors): a plan is drawn by softmax over every plan's end
/// board (rank or value choice), and its first move played. No slip here:
/// the caller moves the piece with chance `slip`.
pub fn first_move_chances(
    player: &Player,
    eval: &Evaluator,
    firsts: &[crate::play::plans::FirstMove],
) -> Vec<f64> {
    let ends: Vec<(usize, &Criteria, u64)> = firsts
        .iter()
        .enumerate()
        .flat_map(|(i, f)| f.ends.iter().map(move |(c, n)| (i, c, *n)))
        .collect();
    let weights = match player.choice {
        Choice::Rank => {
            let values: Vec<f64> = ends.iter().map(|e| eval.value(e.1, player.evaluation)).collect();
            rank_weights(&values, player.temperature)
        }
        Choice::Value => {
            let features: Vec<[f64; 5]> = ends.iter().map(|e| eval.features(e.1)).collect();
            logit_weights(features.iter(), &player.beta)
        }
    };
    let mut chance = vec![0.0; firsts.len()];
    for (e, w) in ends.iter().zip(weights) {
        chance[e.0] += e.2 as f64 * w;
    }
    let total: f64 = chance.iter().sum();
    chance.iter_mut().for_each(|c| *c /= total);
    chance
}

/// Places `piece` at `anchor`: the board after (lines cleared), the piece
/// taken from those left; the points it scores, `None` when the piece is
/// not among them. A player's move, and a logged move replayed.
pub fn play_move(
    shapes: &Shapes,
    board: &mut Bits,
    left: &mut Vec<PieceIdx>,
    (piece, anchor): Move,
) -> Option<u64> {
    let slot = left.iter().position(|&p| p == piece)?;
    left.remove(slot);
    let (next, lines) = shapes.place(*board, piece, anchor);
    *board = next;
    Some(score(shapes.shape(piece).cells(), lines))
}

/// A player as a self-play strategy. Its randomness comes from the game's
/// player stream (`game::play_game`), so game g stays paired across
/// generators and across players.
pub struct PlayerStrategy {
    pub player: Player,
    eval: Option<(Evaluator, ValueTable)>,
    search: CoelhoStrategy,
    found: Vec<Candidate>,
    values: Vec<f64>,
    scratch: RankScratch,
    chances: Vec<f64>,
}

impl PlayerStrategy {
    pub fn new(player: Player) -> Self {
        let search = CoelhoStrategy::new(player.evaluation);
        Self {
            player,
            eval: None,
            search,
            found: Vec::new(),
            values: Vec::new(),
            scratch: RankScratch::default(),
            chances: Vec::new(),
        }
    }

    /// The evaluator for boards of this size (made once per size).
    fn evaluator(&mut self, shapes: &Shapes) {
        let size = shapes.size();
        if self.eval.as_ref().is_none_or(|e| e.0.size() != size) {
            let eval = Evaluator::new(size);
            let table = eval.table(self.player.evaluation);
            self.eval = Some((eval, table));
        }
    }

    /// One piece at a time, each by `move_probabilities` (rank choice) or
    /// `value_probabilities` (value choice).
    fn play_pieces(
        &mut self,
        shapes: &Shapes,
        mut board: Bits,
        holder: &[PieceIdx],
        rng: &mut Generator,
        moves: &mut Vec<Move>,
    ) -> Option<(Bits, u64)> {
        self.evaluator(shapes);
        let Self {
            player,
            eval: Some((eval, table)),
            found,
            values,
            scratch,
            chances,
            ..
        } = self
        else {
            unreachable!("made above")
        };
        let mut left = holder.to_vec();
        let mut points = 0;
        while !left.is_empty() {
            if player.choice == Choice::Rank {
                rank_options(shapes, eval, table, board, &left, &mut scratch.keys);
                let options = scratch.keys.len();
                if options == 0 {
                    return None;
                }
                if options <= KEYED {
                    keyed_rank_weights(player.temperature, scratch, chances);
                } else {
                    // More options than a key's index bits hold (a holder
                    // past MAX_HOLDER): their values, in the same order.
                    candidates(shapes, eval, table, board, &left, false, found);
                    values.clear();
                    values.extend(found.iter().map(|c| c.value));
                    rank_weights_into(values, player.temperature, scratch, chances);
                }
                let k = draw_ranked(chances, player.slip, rng);
                let (slot, anchor) = nth_placement(shapes, board, &left, k)?;
                let piece = left[slot];
                points += play_move(shapes, &mut board, &mut left, (piece, anchor))?;
                moves.push((piece, anchor));
                continue;
            }
            candidates(shapes, eval, table, board, &left, true, found);
            if found.is_empty() {
                return None;
            }
            let features: Vec<[f64; 5]> = found.iter().map(|c| eval.features(&c.criteria)).collect();
            *chances = value_probabilities(&features, &player.beta, player.slip);
            let c = found[draw(chances, rng)];
            let piece = left.remove(c.slot);
            moves.push((piece, c.anchor));
            board = c.board;
            points += c.points;
        }
        Some((board, points))
    }

    /// The analysis's search for the whole holder, followed move by move;
    /// a placement slips to a random legal one with chance `slip`, and only
    /// then is the rest searched again (without a slip the plan's rest is
    /// already the best for the pieces left).
    fn play_holder(
        &mut self,
        shapes: &Shapes,
        mut board: Bits,
        holder: &[PieceIdx],
        rng: &mut Generator,
        moves: &mut Vec<Move>,
        progress: &Progress,
    ) -> Option<(Bits, u64)> {
        let mut left = holder.to_vec();
        let mut plan = self.search.best_until(shapes, board, &left, progress)?.moves;
        let mut step = 0;
        let mut points = 0;
        while !left.is_empty() {
            if step == plan.len() {
                plan = self.search.best_until(shapes, board, &left, progress)?.moves;
                step = 0;
            }
            let (piece, mut anchor) = plan[step];
            step += 1;
            if self.player.slip > 0.0 && rng.unit() < self.player.slip {
                anchor = crate::play::random_fill::random_spot(shapes, board, piece, rng)?;
                // The plan was for the board the intended placement left.
                step = plan.len();
            }
            points += play_move(shapes, &mut board, &mut left, (piece, anchor))?;
            moves.push((piece, anchor));
        }
        Some((board, points))
    }

    /// A planner with judgement errors: before each move, every plan for
    /// the pieces left; a plan drawn by softmax over their end boards; its
    /// first move played (slipping, with chance `slip`, to a random spot of
    /// that piece), then planning again. No plan that places the whole
    /// holder loses the round, as the analysis's search does.
    fn play_plans(
        &mut self,
        shapes: &Shapes,
        mut board: Bits,
        holder: &[PieceIdx],
        rng: &mut Generator,
        moves: &mut Vec<Move>,
        progress: &Progress,
    ) -> Option<(Bits, u64)> {
        self.evaluator(shapes);
        let Self {
            player,
            eval: Some((eval, _)),
            ..
        } = self
        else {
            unreachable!("made above")
        };
        let mut left = holder.to_vec();
        let mut points = 0;
        while !left.is_empty() {
            let firsts = crate::play::plans::plans(shapes, eval, board, &left, progress)?;
            if firsts.is_empty() {
                return None;
            }
            let chance = first_move_chances(player, eval, &firsts);
            let (piece, mut anchor) = firsts[draw(&chance, rng)].first;
            if player.slip > 0.0 && rng.unit() < player.slip {
                anchor = crate::play::random_fill::random_spot(shapes, board, piece, rng)?;
            }
            points += play_move(shapes, &mut board, &mut left, (piece, anchor))?;
            moves.push((piece, anchor));
        }
        Some((board, points))
    }
}

impl Strategy for PlayerStrategy {
    fn name(&self) -> &'static str {
        "player"
    }

    fn play(
        &mut self,
        shapes: &Shapes,
        board: Bits,
        holder: &[PieceIdx],
        rng: &mut Generator,
        moves: &mut Vec<Move>,
        progress: &Progress,
    ) -> Option<(Bits, u64)> {
        moves.clear();
        match (self.player.lookahead, self.player.choice) {
            (Lookahead::Piece, _) => self.play_pieces(shapes, board, holder, rng, moves),
            // At temperature 0 the planner is the analysis's search, as
            // before judgement errors: the presets play as they did.
            (Lookahead::Holder, Choice::Rank) if self.player.temperature == 0.0 => {
                self.play_holder(shapes, board, holder, rng, moves, progress)
            }
            (Lookahead::Holder, _) => self.play_plans(shapes, board, holder, rng, moves, progress),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::classic;

    const CASUAL: &str = "(\n    name: \"casual\",\n    evaluation: \"10025\",\n    lookahead: piece,\n    temperature: 0.8,\n    slip: 0.03,\n)\n";

    proptest::proptest! {
        /// The quick candidates (alignment grown by the piece, ranks by one
        /// sort) give, to the bit, what the plain way gives: every board's
        /// criteria counted afresh, and the ranks by search.
        #[test]
        fn quick_candidates_and_chances_equal_the_plain_ones(seed in 0u64..1_000_000, fill in 0.0f64..0.8, t in 0.0f64..3.0) {
            let (set, shapes) = classic();
            let eval = Evaluator::new(shapes.size());
            let mut rng = Generator::new(seed);
            let board = crate::play::random_fill::random_fill(&shapes, &set, fill, &mut rng).bits();
            let left = rng.deal(&set, 3);
            let mut found = Vec::new();
            candidates(&shapes, &eval, &eval.table(CoelhoWeights::BEST), board, &left, true, &mut found);
            for c in &found {
                proptest::prop_assert_eq!(c.criteria, eval.criteria(c.board));
                proptest::prop_assert_eq!(c.value.to_bits(), eval.value(&eval.criteria(c.board), CoelhoWeights::BEST).to_bits());
            }
            let values: Vec<f64> = found.iter().map(|c| c.value).collect();
            let mut out = Vec::new();
            let mut scratch = RankScratch::default();
            move_probabilities_into(&values, t, 0.03, &mut scratch, &mut out);
            // Again, its table of weights kept.
            move_probabilities_into(&values, t, 0.03, &mut scratch, &mut out);
            let plain = move_probabilities(&values, t, 0.03);
            proptest::prop_assert_eq!(out.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), plain.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
        }

        /// A rank player's lean path (criteria 2 and 3 left out when not
        /// weighed, a piece's first terms summed once, the clearing anchors
        /// met in turn, order keys made in the loop, the chosen placement
        /// found again by its index) gives, to the bit, the plain values'
        /// rank weights, for holders of 1 to 4 pieces (some dealt twice) and
        /// weights with and without criteria 2 and 3.
        #[test]
        fn the_lean_rank_path_equals_the_plain_one(seed in 0u64..1_000_000, fill in 0.0f64..0.8, t in 0.0f64..3.0, pieces in 1usize..=4) {
            let (set, shapes) = classic();
            let eval = Evaluator::new(shapes.size());
            let mut rng = Generator::new(seed);
            let board = crate::play::random_fill::random_fill(&shapes, &set, fill, &mut rng).bits();
            let left = rng.deal(&set, pieces);
            for weights in ["10025", "11111", "90009", "05500", "00000"] {
                let weights = CoelhoWeights::parse(weights).unwrap();
                let table = eval.table(weights);
                let mut found = Vec::new();
                candidates(&shapes, &eval, &table, board, &left, false, &mut found);
                let plain: Vec<f64> = found.iter().map(|c| eval.value(&eval.criteria(c.board), weights)).collect();
                for (c, v) in found.iter().zip(&plain) {
                    proptest::prop_assert_eq!(c.value.to_bits(), v.to_bits());
                    let (next, _) = shapes.place(board, left[c.slot], c.anchor);
                    proptest::prop_assert_eq!(c.board, next);
                }
                for (k, c) in found.iter().enumerate() {
                    proptest::prop_assert_eq!(nth_placement(&shapes, board, &left, k), Some((c.slot, c.anchor)));
                }
                proptest::prop_assert_eq!(nth_placement(&shapes, board, &left, found.len()), None);
                let mut scratch = RankScratch::default();
                rank_options(&shapes, &eval, &table, board, &left, &mut scratch.keys);
                proptest::prop_assert_eq!(scratch.keys.len(), found.len());
                let mut out = Vec::new();
                keyed_rank_weights(t, &mut scratch, &mut out);
                let expected = rank_weights(&plain, t);
                proptest::prop_assert_eq!(out.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), expected.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn every_preset_reads_and_is_named_after_its_file() {
        for (name, _) in PRESETS {
            let p = preset(name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(p.name, name);
        }
        assert_eq!(preset("machine").unwrap().lookahead, Lookahead::Holder);
        assert!(preset("nobody").is_none());
    }

    #[test]
    fn a_player_file_reads_and_writes_back() {
        let p = Player::parse(CASUAL, "casual.ron").unwrap();
        assert_eq!(p.name, "casual");
        assert_eq!(p.evaluation, CoelhoWeights::BEST);
        assert_eq!(
            (p.lookahead, p.temperature, p.slip),
            (Lookahead::Piece, 0.8, 0.03)
        );
        assert_eq!(Player::parse(&p.to_ron(), "again.ron").unwrap(), p);
    }

    #[test]
    fn a_bad_player_file_names_its_place() {
        let cold = CASUAL.replace("0.8", "-0.5");
        let e = Player::parse(&cold, "p.ron").unwrap_err();
        assert_eq!(e.at, Some((5, 5)), "{e}");
        assert!(e.message.contains("temperature -0.5 must be 0 to 1000"), "{e}");
        let e = Player::parse(&CASUAL.replace("0.03", "1.5"), "p.ron").unwrap_err();
        assert_eq!(e.at, Some((6, 5)));
        let e = Player::parse(&CASUAL.replace("10025", "1002x"), "p.ron").unwrap_err();
        assert!(
            e.to_string().starts_with("p.ron:3:5: evaluation \"1002x\""),
            "{e}"
        );
        let e = Player::parse(&CASUAL.replace("piece", "board"), "p.ron").unwrap_err();
        assert!(e.at.is_some(), "{e}");
        let e = Player::parse("(name: \"x\")", "p.ron").unwrap_err();
        assert!(e.to_string().starts_with("p.ron:1:"), "{e}");
    }

    #[test]
    fn move_probabilities_mix_slips_and_a_softmax() {
        let v = [10.0, 0.0, 5.0];
        // Temperature 0, no slip: the best, always.
        assert_eq!(move_probabilities(&v, 0.0, 0.0), [1.0, 0.0, 0.0]);
        // Slip 1: uniform, whatever the values.
        for p in move_probabilities(&v, 0.7, 1.0) {
            assert!((p - 1.0 / 3.0).abs() < 1e-12);
        }
        // At temperature 1 the second best is e times less likely, the
        // third e² times, whatever the values' scale.
        let p = move_probabilities(&v, 1.0, 0.0);
        assert!((p[0] / p[2] - std::f64::consts::E).abs() < 1e-9);
        assert!((p[0] / p[1] - std::f64::consts::E.powi(2)).abs() < 1e-9);
        assert_eq!(p, move_probabilities(&[1e3, 1.0, 2.0], 1.0, 0.0));
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        // Equal values share the chance.
        assert_eq!(move_probabilities(&[2.0, 2.0], 0.0, 0.0), [0.5, 0.5]);
        assert!(move_probabilities(&[], 1.0, 0.1).is_empty());
    }

    #[test]
    fn a_cold_steady_piece_player_takes_the_best_placement_each_time() {
        let (set, shapes) = classic();
        let holder = [set.index_of("sq3").unwrap(), set.index_of("h5").unwrap()];
        let player = Player::parse(&CASUAL.replace("0.8", "0").replace("0.03", "0"), "p").unwrap();
        let mut s = PlayerStrategy::new(player);
        let mut moves = Vec::new();
        let (board, _) = s
            .play(
                &shapes,
                0,
                &holder,
                &mut Generator::new(1),
                &mut moves,
                &Progress::default(),
            )
            .unwrap();
        assert_eq!(moves.len(), 2);
        assert_eq!(board.count_ones(), 9 + 5);
        // The same game again: the same moves (the player's stream is seeded).
        let mut again = Vec::new();
        s.play(
            &shapes,
            0,
            &holder,
            &mut Generator::new(1),
            &mut again,
            &Progress::default(),
        );
        assert_eq!(again, moves);
    }
}
