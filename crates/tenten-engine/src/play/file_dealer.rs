//! Dealing from a generator file: the weights in force for the board's
//! fill (and mercy's, after a run of rounds without a clear), each piece
//! the previous one's kind again with chance `repeat_previous`, then the
//! file's check. Seeded: the n-th deal of a seed is fixed. A file with no
//! rule but its check deals exactly as the named generator it presets (a
//! test holds the four presets to it).

use crate::danger::danger_probability;
use crate::model::board::Bits;
use crate::model::generator::Generator;
use crate::model::pieces::{PieceIdx, PieceSet};
use crate::play::adaptive::{History, Now, size_scores, tilted};
use crate::play::dealers::{BagDealer, Dealer, Dealt, Table, rejected, repaired, unchecked, unrecorded};
use crate::play::generator_file::{Check, GeneratorSpec, effective};
use crate::search::changer::ChangeOptions;

/// Integer weights for a scaled band: a thousandth of a base weight is
/// the finest step a scale makes.
const SCALE_STEPS: f64 = 1000.0;

pub struct FileDealer {
    pub spec: GeneratorSpec,
    /// The set to draw from: index 0 without a band, b + 1 in band b; each
    /// without and with mercy.
    sets: Vec<[PieceSet; 2]>,
    /// The same, tilted by adaptive rule r (made when the rule is first in
    /// force).
    tilted: Vec<Vec<Option<[PieceSet; 2]>>>,
    /// Each piece's size standardised, for the rules' tilts.
    scores: Vec<f64>,
    /// What the player did before this game (`adaptive::History`).
    history: History,
    /// Rounds dealt this game.
    round: u32,
    bag: Option<BagDealer>,
    /// The last piece dealt.
    previous: Option<PieceIdx>,
    /// Rounds in a row that cleared no line, and the board and cells of the
    /// last deal (to tell whether its round cleared).
    dry_rounds: u32,
    last: Option<(Bits, u32)>,
    /// Whether a holder dealt unchecked (check none or bag) is validated
    /// to record whether it was fair.
    record: bool,
}

/// `set` with weights scaled to `weights` (whole numbers, a thousandth of a
/// weight the finest step); the set itself when they are its.
pub fn weighted(set: &PieceSet, weights: &[f64]) -> PieceSet {
    if set
        .pieces
        .iter()
        .zip(weights)
        .all(|(p, &w)| f64::from(p.weight) == w)
    {
        return set.clone();
    }
    // A thousandth of a weight, unless the largest scaled weight would not
    // fit: then as fine as fits, so every ratio is kept (weights up to 1000
    // scaled up to 100 by a band and 100 by mercy reach 10^7).
    let largest = weights.iter().copied().fold(0.0, f64::max);
    let steps = SCALE_STEPS.min(f64::from(u32::MAX / 256) / largest.max(1.0));
    let mut scaled = set.clone();
    for (p, &w) in scaled.pieces.iter_mut().zip(weights) {
        p.weight = (w * steps).round() as u32;
    }
    if scaled.total_weight() == 0 {
        return set.clone();
    }
    scaled
}

/// A holder as `spec` would draw it on a board `fill` full, before its
/// check: the weights of the band in force (mercy and repeat_previous need
/// a game's history, and are left out). For corpora of deals to time.
pub fn draw_holder(spec: &GeneratorSpec, fill: f64, k: usize, rng: &mut Generator) -> Vec<PieceIdx> {
    let set = weighted(&spec.set, &spec.weights_at(fill, false));
    rng.deal(&set, k)
}

impl FileDealer {
    pub fn new(spec: GeneratorSpec) -> Self {
        let mercy = spec.file.mercy.as_ref().map(|m| &m.scale);
        let mut scales = vec![None];
        scales.extend(spec.file.by_fill.iter().map(|b| Some(&b.scale)));
        let sets = scales
            .into_iter()
            .map(|band| {
                [
                    weighted(&spec.set, &effective(&spec.set, band, None)),
                    weighted(&spec.set, &effective(&spec.set, band, mercy)),
                ]
            })
            .collect();
        let bag = (spec.file.check == Check::Bag).then(|| BagDealer::new(&spec.set));
        let rules = spec.file.adaptive.as_ref().map_or(0, |a| a.rules.len());
        let tilted = vec![Vec::new(); rules];
        let scores = if rules > 0 {
            size_scores(&spec.set)
        } else {
            Vec::new()
        };
        Self {
            spec,
            sets,
            tilted,
            scores,
            history: History::default(),
            round: 0,
            bag,
            previous: None,
            dry_rounds: 0,
            last: None,
            record: true,
        }
    }

    /// Deals to a player whose games so far are `history` (a fresh dealer
    /// reads every game as a session's first).
    pub fn with_history(self, history: History) -> Self {
        Self { history, ..self }
    }

    /// The same deals, with those it does not check left unvalidated
    /// (`Dealing::unrecorded_dealer`).
    pub fn unrecorded(self) -> Self {
        Self {
            record: false,
            ..self
        }
    }

    fn unchecked(&self, table: &Table, holder: Vec<PieceIdx>) -> Dealt {
        if self.record {
            unchecked(table, holder)
        } else {
            unrecorded(holder)
        }
    }

    /// Whether mercy is in force for the next deal.
    pub fn mercy_now(&self) -> bool {
        self.spec
            .file
            .mercy
            .as_ref()
            .is_some_and(|m| self.dry_rounds >= m.after_rounds_without_clear)
    }

    /// Counts the round just played: it cleared a line when the board holds
    /// fewer cells than before plus those dealt.
    fn note_round(&mut self, board: Bits) {
        if let Some((before, cells)) = self.last {
            if board.count_ones() < before.count_ones() + cells {
                self.dry_rounds = 0;
            } else {
                self.dry_rounds += 1;
            }
        }
    }

    /// The adaptive rule in force for this deal, if any.
    fn rule_now(&self, table: &Table, fill: f64, set_index: usize, mercy: bool) -> Option<usize> {
        let adaptive = self.spec.file.adaptive.as_ref()?;
        let now = Now {
            round: self.round,
            fill,
            dry_rounds: self.dry_rounds,
        };
        let weights = &self.sets[set_index][usize::from(mercy)];
        // One search per deal, however many conditions ask for it.
        let mut found: Option<f64> = None;
        let mut danger = || {
            *found.get_or_insert_with(|| {
                danger_probability(table.shapes, weights, table.board, table.k).unwrap_or(0.0)
            })
        };
        adaptive.rule_at(&self.history, &now, &mut danger)
    }

    /// The weights to draw from under `rule`.
    fn set_for(&mut self, rule: Option<usize>, set_index: usize, mercy: bool) -> &PieceSet {
        let Some(r) = rule else {
            return &self.sets[set_index][usize::from(mercy)];
        };
        let tilt = self.spec.file.adaptive.as_ref().map_or(0.0, |a| a.rules[r].tilt);
        if tilt == 0.0 {
            return &self.sets[set_index][usize::from(mercy)];
        }
        let cache = &mut self.tilted[r];
        if cache.len() <= set_index {
            cache.resize(self.sets.len(), None);
        }
        let spec = &self.spec;
        let scores = &self.scores;
        let pair = cache[set_index].get_or_insert_with(|| {
            let band = set_index.checked_sub(1).map(|b| &spec.file.by_fill[b].scale);
            let mercy_scale = spec.file.mercy.as_ref().map(|m| &m.scale);
            let tilt_of = |w: Vec<f64>| weighted(&spec.set, &tilted(&w, scores, tilt));
            [
                tilt_of(effective(&spec.set, band, None)),
                tilt_of(effective(&spec.set, band, mercy_scale)),
            ]
        });
        &pair[usize::from(mercy)]
    }
}

/// A piece: the previous one's kind again with chance `repeat`, else drawn
/// from `set`.
fn draw(previous: &mut Option<PieceIdx>, repeat: f64, set: &PieceSet, rng: &mut Generator) -> PieceIdx {
    let piece = match *previous {
        Some(p) if repeat > 0.0 && rng.unit() < repeat => p,
        _ => rng.draw(set),
    };
    *previous = Some(piece);
    piece
}

impl Dealer for FileDealer {
    fn name(&self) -> &'static str {
        "file"
    }

    fn deal(&mut self, table: &Table, rng: &mut Generator) -> Dealt {
        self.note_round(table.board);
        self.round = self.round.saturating_add(1);
        let cells = table.shapes.size().cells().max(1) as f64;
        let fill = f64::from(table.board.count_ones()) / cells;
        let set_index = self.spec.band_at(fill).map_or(0, |b| b + 1);
        let mercy = self.mercy_now();
        let rule = self.rule_now(table, fill, set_index, mercy);
        let check = rule
            .and_then(|r| self.spec.file.adaptive.as_ref().and_then(|a| a.rules[r].check))
            .unwrap_or(self.spec.file.check);
        let dealt = match check {
            Check::Bag => {
                let bag = self.bag.get_or_insert_with(|| BagDealer::new(&self.spec.set));
                let holder: Vec<PieceIdx> = (0..table.k).map(|_| bag.next(rng)).collect();
                self.unchecked(table, holder)
            }
            check => {
                let repeat = self.spec.file.repeat_previous;
                let mut previous = self.previous;
                let record = self.record;
                let weights = self.set_for(rule, set_index, mercy);
                let drawn: Vec<PieceIdx> = (0..table.k)
                    .map(|_| draw(&mut previous, repeat, weights, rng))
                    .collect();
                let dealt = match check {
                    Check::Repair { policy, redraws } => {
                        let options = ChangeOptions {
                            policy,
                            max_redraws: redraws,
                            ..ChangeOptions::default()
                        };
                        repaired(table, weights, drawn, rng, options)
                    }
                    Check::Reject { redraws } => rejected(table, weights, drawn, rng, redraws),
                    _ if record => unchecked(table, drawn),
                    _ => unrecorded(drawn),
                };
                self.previous = previous;
                dealt
            }
        };
        let dealt_cells: u32 = dealt
            .holder
            .iter()
            .map(|&p| table.shapes.shape(p).cells() as u32)
            .sum();
        self.last = Some((table.board, dealt_cells));
        self.previous = dealt.holder.last().copied().or(self.previous);
        dealt
    }
}

#[cfg(test)]
#[path = "file_dealer_tests.rs"]
mod tests;
