//! The `fit-generator` estimator's replications and its tally.
//!
//! Each replication draws a true generator (`GeneratorRanges`): a check
//! among none, reject and repair (repair under a policy drawn from the
//! three), piece weights drawn around the set's, and the adaptive rules
//! (repeat_previous, a fill band, mercy) each present with the same chance,
//! independently (about half of the generators have none); a log length
//! drawn log-uniformly from the design's `deals` to `deals_max`. A machine
//! player plays games under the engine's own dealer of that generator, the
//! log goes through JSON Lines as a recording would, and
//! `fits::generator::learn` fits it. What is kept: every share and the
//! repeat chance beside its truth (`Estimate`s, where the learned model's
//! contexts let a truth be named), and the `Outcome`: the truth's kind and
//! rules, the learned kind and kept rules, and whether the check's verdict
//! was decided. `Tally` turns the outcomes into rates, each with its 95 %
//! interval, and `goals` into verdicts (met, missed, undecided) from the
//! intervals.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::fits::generator::deals;
use crate::fits::generator::fit::Rules;
use crate::fits::generator::likelihood::Check as Learned;
use crate::fits::generator::{self as learner, Request};
use crate::fits::player::record_places_dealt_until;
use crate::io::playtest_log;
use crate::model::generator::Generator;
use crate::model::pieces::{MAX_WEIGHT, PieceSet};
use crate::model::shapes::Shapes;
use crate::play::dealing::Dealing;
use crate::play::generator_file::{self, Band, Check, GeneratorFile, GeneratorSpec, Mercy, effective};
use crate::play::player;
use crate::progress::Progress;
use crate::search::heuristic::Policy;
use crate::stats::survival::share;
use crate::study::tune_verdict::Verdict;

use super::{Estimate, Plan, Range, replication_seed};

/// Where the true generators come from. The defaults: novice's games;
/// weights the classic set's times a factor from 1/2 to 2; each rule
/// present with chance 1 − 0.5^(1/3) ≈ 0.206, so that half of the
/// generators have no rule; a repeat chance 0.05 to 0.2; above a fill cut
/// of 0.25 or 0.5 the small pieces (1-2 cells) times 2 to 3 and the large
/// ones (5 cells and more) divided by as much; mercy after 2 or 4 dry
/// rounds, the small pieces times 2 to 4 (a novice reaches 6 dry rounds in
/// about 1 deal in 5,000 and 8 never: a longer wait would be a mercy no
/// log can show).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GeneratorRanges {
    /// The machine player whose games are logged (a preset player).
    pub player: String,
    /// Each base weight is the set's times a factor drawn log-uniformly
    /// from 1/spread to spread.
    pub share_spread: f64,
    /// The chance of each adaptive rule, drawn independently.
    pub rule_chance: f64,
    /// The repeat rule's own chance, where a study asks about generators
    /// with a repeat chance (`None`: `rule_chance`, as the others).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeat_chance: Option<f64>,
    /// A repeat chance, when there is one, drawn uniformly.
    pub repeat: Range,
    /// A fill band's factor, when there is one, drawn uniformly.
    pub band_factor: Range,
    /// Mercy's factor, when there is mercy, drawn uniformly.
    pub mercy_factor: Range,
    /// Mercy's waits (rounds without a clear), one drawn when there is
    /// mercy; each on the learner's grid. A study file written before this
    /// field drew 4, 6 or 8, and reads so (its plan then differs from
    /// today's, so the two never merge).
    #[serde(default = "waits_before_session_12")]
    pub mercy_waits: Vec<u32>,
}

fn waits_before_session_12() -> Vec<u32> {
    vec![4, 6, 8]
}

/// The chance of each rule that leaves half of the generators with none.
pub const HALF_WITHOUT_RULES: f64 = 0.206_299_474_015_900_7;
/// The fill cuts a band starts above, and mercy's default waits (both on
/// the learner's grids, so a learned model can name the truth's contexts).
pub const BAND_CUTS: [f64; 2] = [0.25, 0.5];
pub const MERCY_WAITS: [u32; 2] = [2, 4];

impl Default for GeneratorRanges {
    fn default() -> Self {
        Self {
            player: "novice".to_owned(),
            share_spread: 2.0,
            rule_chance: HALF_WITHOUT_RULES,
            repeat_chance: None,
            repeat: (0.05, 0.2),
            band_factor: (2.0, 3.0),
            mercy_factor: (2.0, 4.0),
            mercy_waits: MERCY_WAITS.to_vec(),
        }
    }
}

impl GeneratorRanges {
    /// Each range inside what a generator file can hold, or the field at fault.
    pub fn check(&self) -> Result<(), String> {
        if player::preset(&self.player).is_none() {
            return Err(format!(
                "player: {:?} is no preset player; choose one of {}",
                self.player,
                player::PRESETS.iter().map(|p| p.0).collect::<Vec<_>>().join(", ")
            ));
        }
        if !(1.0..=10.0).contains(&self.share_spread) {
            return Err(format!("share_spread: 1 to 10; got {}", self.share_spread));
        }
        if !(0.0..=1.0).contains(&self.rule_chance) {
            return Err(format!("rule_chance: a chance, 0 to 1; got {}", self.rule_chance));
        }
        if let Some(c) = self.repeat_chance.filter(|c| !(0.0..=1.0).contains(c)) {
            return Err(format!("repeat_chance: a chance, 0 to 1; got {c}"));
        }
        if self.mercy_waits.is_empty()
            || self.mercy_waits.len() > learner::MERCY_GRID.len()
            || self.mercy_waits.iter().any(|k| !learner::MERCY_GRID.contains(k))
        {
            return Err(format!(
                "mercy_waits: one to {} of the learner's waits {:?}; got {:?}",
                learner::MERCY_GRID.len(),
                learner::MERCY_GRID,
                self.mercy_waits
            ));
        }
        for (name, (lo, hi), min, max) in [
            ("repeat", self.repeat, 0.0, 1.0),
            ("band_factor", self.band_factor, 1.0, 10.0),
            ("mercy_factor", self.mercy_factor, 1.0, generator_file::MAX_SCALE),
        ] {
            if !(lo.is_finite() && hi.is_finite() && lo <= hi && lo >= min && hi <= max) {
                return Err(format!(
                    "{name}: (LO, HI) with {min} <= LO <= HI <= {max}; got ({lo}, {hi})"
                ));
            }
        }
        Ok(())
    }
}

const TRUTH_STREAM: u64 = 0x6E4E_7A70_0F1E_0002;
const DEALS_STREAM: u64 = 0x6E4E_7A70_0F1E_0003;

/// Replication `r`'s log length: log-uniform from `deals` to `deals_max`.
pub fn deals_of(plan: &Plan, r: usize) -> usize {
    let (lo, hi) = plan.design.deals_range();
    if hi <= lo {
        return lo;
    }
    let u = Generator::new(replication_seed(plan.seed, r) ^ DEALS_STREAM).unit();
    let x = ((lo as f64).ln() + u * ((hi as f64).ln() - (lo as f64).ln())).exp();
    (x.round() as usize).clamp(lo, hi)
}

/// A model's kind and rules, as the tally reads it: the truth's or the
/// learned one's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model {
    /// "none", "reject", "repair" (or "bag", learned only).
    pub kind: String,
    /// Repair's policy (not part of the kind).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    pub repeat: bool,
    pub bands: bool,
    pub mercy: bool,
}

impl Model {
    /// "repair(last)+repeat+mercy".
    pub fn name(&self) -> String {
        let mut s = self.kind.clone();
        if let Some(p) = &self.policy {
            let _ = write!(s, "({p})");
        }
        for (on, rule) in [
            (self.repeat, "+repeat"),
            (self.bands, "+bands"),
            (self.mercy, "+mercy"),
        ] {
            if on {
                s.push_str(rule);
            }
        }
        s
    }

    pub fn any_rule(&self) -> bool {
        self.repeat || self.bands || self.mercy
    }

    /// The same rules (which ones, not their cuts or waits).
    pub fn same_rules(&self, other: &Model) -> bool {
        (self.repeat, self.bands, self.mercy) == (other.repeat, other.bands, other.mercy)
    }

    fn of_file(f: &GeneratorFile) -> Self {
        let policy = match f.check {
            Check::Repair { policy, .. } => Some(policy.name().to_owned()),
            _ => None,
        };
        Model {
            kind: f.check.name().to_owned(),
            policy,
            repeat: f.repeat_previous > 0.0,
            bands: !f.by_fill.is_empty(),
            mercy: f.mercy.is_some(),
        }
    }

    fn of_learned(l: &learner::Learned) -> Self {
        let Some(best) = l.best.as_ref().filter(|_| !l.bag_best) else {
            return Model {
                kind: "bag".to_owned(),
                policy: None,
                repeat: false,
                bands: false,
                mercy: false,
            };
        };
        let (kind, policy) = match best.rules.check {
            Learned::None => ("none", None),
            Learned::Reject => ("reject", None),
            Learned::Repair { policy, .. } => ("repair", Some(policy.name().to_owned())),
        };
        Model {
            kind: kind.to_owned(),
            policy,
            repeat: best.rules.repeat,
            bands: !best.rules.bands.is_empty(),
            mercy: best.rules.mercy.is_some(),
        }
    }
}

/// What one replication's fit decided, beside the truth.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outcome {
    /// The log's deals.
    pub deals: usize,
    pub truth: Model,
    /// The final model (its check and the rules kept).
    pub learned: Model,
    /// The check's verdict was decided.
    pub decided: bool,
    /// The truth's mercy was in force in at least `MIN_BAND_DEALS` deals
    /// of the log (a mercy seldom in force cannot be told from none by
    /// any learner: it counts as absent for power and for the rules'
    /// match). True when the truth has no mercy; studies written before
    /// this field read as true.
    #[serde(default = "yes")]
    pub mercy_shown: bool,
}

fn yes() -> bool {
    true
}

/// The check's verdict against the truth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// Decided, and the decided kind is the truth's.
    Right,
    /// Decided, and the decided kind is another.
    Wrong,
    Undecided,
}

impl Outcome {
    /// The truth as a log can show it: mercy seldom in force left out.
    pub fn visible_truth(&self) -> Model {
        Model {
            mercy: self.truth.mercy && self.mercy_shown,
            ..self.truth.clone()
        }
    }

    pub fn call(&self) -> Call {
        if !self.decided {
            Call::Undecided
        } else if self.learned.kind == self.truth.kind {
            Call::Right
        } else {
            Call::Wrong
        }
    }
}

/// Replication `r`'s true generator, dealing `set`.
pub fn draw(plan: &Plan, r: usize, set: &PieceSet) -> GeneratorSpec {
    let g = plan.generators.clone().unwrap_or_default();
    let mut rng = Generator::new(replication_seed(plan.seed, r) ^ TRUTH_STREAM);
    let pick = |(lo, hi): Range, rng: &mut Generator| lo + (hi - lo) * rng.unit();
    let spread = g.share_spread.ln();
    let weights: BTreeMap<String, u32> = set
        .pieces
        .iter()
        .map(|p| {
            let factor = (spread * (2.0 * rng.unit() - 1.0)).exp();
            let w = (f64::from(p.weight) * 10.0 * factor).round();
            (p.id.clone(), (w as u32).clamp(1, MAX_WEIGHT))
        })
        .collect();
    let check = match rng.below(3) {
        0 => Check::None,
        1 => Check::Reject {
            redraws: learner::REJECT_REDRAWS,
        },
        _ => Check::Repair {
            policy: Policy::ALL[rng.below(Policy::ALL.len())],
            redraws: learner::REPAIR_REDRAWS,
        },
    };
    // Each rule's chance drawn first, so adding one leaves the others.
    let chances = [
        g.repeat_chance.unwrap_or(g.rule_chance),
        g.rule_chance,
        g.rule_chance,
    ];
    let has = chances.map(|c| rng.unit() < c);
    let small: Vec<&str> = set
        .pieces
        .iter()
        .filter(|p| p.size() <= 2)
        .map(|p| p.id.as_str())
        .collect();
    let large: Vec<&str> = set
        .pieces
        .iter()
        .filter(|p| p.size() >= 5)
        .map(|p| p.id.as_str())
        .collect();
    let repeat_previous = if has[0] {
        (pick(g.repeat, &mut rng) * 1000.0).round() / 1000.0
    } else {
        0.0
    };
    let by_fill = if has[1] {
        let cut = BAND_CUTS[rng.below(BAND_CUTS.len())];
        let f = pick(g.band_factor, &mut rng);
        let mut scale: BTreeMap<String, f64> = small.iter().map(|id| ((*id).to_owned(), f)).collect();
        scale.extend(large.iter().map(|id| ((*id).to_owned(), 1.0 / f)));
        vec![
            Band {
                up_to: cut,
                scale: BTreeMap::new(),
            },
            Band { up_to: 1.0, scale },
        ]
    } else {
        Vec::new()
    };
    let mercy = has[2].then(|| {
        let wait = g.mercy_waits[rng.below(g.mercy_waits.len())];
        let f = pick(g.mercy_factor, &mut rng);
        Mercy {
            after_rounds_without_clear: wait,
            scale: small.iter().map(|id| ((*id).to_owned(), f)).collect(),
        }
    });
    let file = GeneratorFile {
        name: format!("truth {r}"),
        pieces: None,
        weights,
        by_fill,
        repeat_previous,
        mercy,
        check,
        adaptive: None,
    };
    generator_file::resolve_file(file, set.clone(), &format!("truth {r}"))
        .unwrap_or_else(|e| unreachable!("a drawn generator is a valid file: {e}"))
}

/// The truth's shares in the learned model's context `c`, when every deal
/// of that context is dealt from one set of the truth's weights: the
/// learned band lies inside one of the truth's, and mercy is the truth's
/// (or the truth has none). `None` when the context mixes the truth's.
pub fn truth_in_context(truth: &GeneratorSpec, rules: &Rules, c: usize) -> Option<Vec<f64>> {
    let per_band = if rules.mercy.is_some() { 2 } else { 1 };
    let (band, merciful) = (c / per_band, rules.mercy.is_some() && c % per_band == 1);
    let mercy = match (&truth.file.mercy, rules.mercy) {
        (None, _) => None,
        (Some(m), Some(k)) if m.after_rounds_without_clear == k => merciful.then_some(&m.scale),
        (Some(_), _) => return None,
    };
    let scale = match truth.file.by_fill.as_slice() {
        [] => None,
        bands => {
            // The learned band's ends.
            let (lo, hi) = if rules.bands.is_empty() {
                (-1.0, 1.0)
            } else {
                let hi = *rules.bands.get(band)?;
                let lo = if band == 0 { -1.0 } else { rules.bands[band - 1] };
                (lo, if band + 1 == rules.bands.len() { 1.0 } else { hi })
            };
            // The truth's band of each end; the same one, or mixed.
            let at = |fill: f64| {
                bands
                    .iter()
                    .position(|b| fill <= b.up_to + 1e-12)
                    .unwrap_or(bands.len() - 1)
            };
            let (a, b) = (at(lo.max(0.0) + 1e-9), at(hi));
            if a != b {
                return None;
            }
            Some(&bands[a].scale)
        }
    };
    let w = effective(&truth.set, scale, mercy);
    let total: f64 = w.iter().sum();
    (total > 0.0).then(|| w.iter().map(|x| x / total).collect())
}

/// The learner's request in a replication: every check and policy and
/// every rule as `fit-generator` fits them, and a small predictive check
/// (it decides nothing). No held-out scores: they would double the cost,
/// and their one use in deciding, vetoing a rule that predicts held-out
/// games worse, only removes rules, so the rates of rules kept measured
/// without it are upper bounds of the shipped procedure's.
pub fn request() -> Request {
    Request {
        name: "learned".to_owned(),
        replications: 2,
        held_out: false,
        ..Request::default()
    }
}

/// The share of a replication's cost spent simulating its log (the rest
/// is the fit), for the progress; measured in release, 10,000 deals.
pub const SIMULATION_SHARE: f64 = 0.1;

/// Replication `r` of a fit-generator study: the estimates and the
/// outcome. `stages` are the simulation's progress and the fit's.
pub fn replicate(
    plan: &Plan,
    r: usize,
    stages: [&Progress; 2],
) -> Option<Result<(Vec<Estimate>, Outcome), String>> {
    let set = PieceSet::classic();
    let size = match plan.size() {
        Ok(s) => s,
        Err(e) => return Some(Err(e)),
    };
    let ranges = plan.generators.clone().unwrap_or_default();
    let Some(who) = player::preset(&ranges.player) else {
        return Some(Err(format!("no preset player {:?}", ranges.player)));
    };
    let truth = draw(plan, r, &set);
    let n = deals_of(plan, r);
    let dealing = match Dealing::file(truth.clone(), &set) {
        Ok(d) => d,
        Err(e) => return Some(Err(e)),
    };
    let shapes = Shapes::new(&set, size);
    let seed = replication_seed(plan.seed, r);
    let places = record_places_dealt_until(
        &shapes,
        &set,
        3,
        &who,
        seed,
        n,
        plan.max_rounds,
        &dealing,
        stages[0],
    )?;
    let text = playtest_log::to_jsonl(&places, size, &set, &ranges.player, "s", Some(&truth.file.name));
    drop(places);
    let read = match deals::read_texts(&[(format!("replication-{r}.jsonl"), text)], &set) {
        Ok(d) => d,
        Err(e) => return Some(Err(e.to_string())),
    };
    let learned = match learner::learn(&set, &read, &request(), stages[1]) {
        Ok(Some(l)) => l,
        Ok(None) => return None,
        Err(e) => return Some(Err(e)),
    };
    let outcome = Outcome {
        deals: read.deals.len(),
        truth: Model::of_file(&truth.file),
        learned: Model::of_learned(&learned),
        decided: learned.decided,
        mercy_shown: truth.file.mercy.as_ref().is_none_or(|m| {
            read.deals
                .iter()
                .filter(|d| d.dry_rounds.is_some_and(|r| r >= m.after_rounds_without_clear))
                .count()
                >= learner::MIN_BAND_DEALS
        }),
    };
    Some(Ok((estimates(&truth, &learned, &set), outcome)))
}

/// Every share the learned model names a truth for, and the repeat chance
/// of a truth that has one (without an interval when the model kept none).
fn estimates(truth: &GeneratorSpec, learned: &learner::Learned, set: &PieceSet) -> Vec<Estimate> {
    let mut out = Vec::new();
    let Some(best) = learned.best.as_ref().filter(|_| !learned.bag_best) else {
        return out;
    };
    for (c, (weights, intervals)) in best.weights.iter().zip(&best.intervals).enumerate() {
        let Some(t) = truth_in_context(truth, &best.rules, c) else {
            continue;
        };
        for (p, ((w, ci), t)) in weights.iter().zip(intervals).zip(t).enumerate() {
            out.push(Estimate::new(&format!("share_{}", set.pieces[p].id), t, *w, *ci));
        }
    }
    let repeat = truth.file.repeat_previous;
    if repeat > 0.0 {
        out.push(match best.repeat {
            Some(v) => Estimate::new("repeat_previous", repeat, v, best.repeat_ci),
            None => Estimate::new("repeat_previous", repeat, 0.0, (f64::NAN, f64::NAN)),
        });
    }
    out
}

/// A count out of a whole, with its share and the share's Wilson 95 %
/// interval (NaN with nothing to count).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    pub count: usize,
    pub of: usize,
    pub rate: f64,
    pub ci: (f64, f64),
}

impl Rate {
    pub fn of(count: usize, of: usize) -> Self {
        Self::from_share(count, of, share(count, of))
    }

    /// With the exact (Clopper-Pearson) interval: for a verdict on a few
    /// runs, where Wilson's would be too sure.
    pub fn exact(count: usize, of: usize) -> Self {
        Self::from_share(count, of, crate::stats::survival::exact_share(count, of))
    }

    fn from_share(count: usize, of: usize, s: Option<(f64, f64, f64)>) -> Self {
        Rate {
            count,
            of,
            rate: s.map_or(f64::NAN, |s| s.0),
            ci: s.map_or((f64::NAN, f64::NAN), |s| (s.1, s.2)),
        }
    }
}

/// A goal on a rate: the band its interval must lie in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Goal {
    pub lo: f64,
    pub hi: f64,
}

impl Goal {
    pub const AT_MOST_5: Goal = Goal { lo: 0.0, hi: 0.05 };
    pub const AT_LEAST_90: Goal = Goal { lo: 0.90, hi: 1.0 };
    /// An A/B test's power at the size planned for it.
    pub const AT_LEAST_80: Goal = Goal { lo: 0.80, hi: 1.0 };
    /// Coverage near 0.95: the calibration band.
    pub const NEAR_95: Goal = Goal {
        lo: super::summary::CALIBRATED.0,
        hi: super::summary::CALIBRATED.1,
    };

    /// Met when the interval lies inside the band, missed when it lies
    /// outside, undecided when it straddles an edge (or there is none).
    pub fn verdict(self, (lo, hi): (f64, f64)) -> Verdict {
        if lo.is_nan() || hi.is_nan() {
            Verdict::Undecided
        } else if self.lo <= lo && hi <= self.hi {
            Verdict::Met
        } else if hi < self.lo || lo > self.hi {
            Verdict::Missed
        } else {
            Verdict::Undecided
        }
    }

    pub fn words(self) -> String {
        match (self.lo, self.hi) {
            (lo, hi) if lo <= 0.0 => format!("at_most_{hi}"),
            (lo, hi) if hi >= 1.0 => format!("at_least_{lo}"),
            (lo, hi) => format!("{lo}..{hi}"),
        }
    }
}

/// A study's outcomes counted.
#[derive(Clone, Debug, PartialEq)]
pub struct Tally {
    /// Replications with an outcome (not failed).
    pub replications: usize,
    pub failed: usize,
    pub right: Rate,
    pub wrong: Rate,
    pub undecided: Rate,
    /// Generators without any rule that kept one.
    pub rules_without_rules: Rate,
    /// Per rule (repeat, bands, mercy): kept when the truth lacks it, and
    /// kept when the truth has it.
    pub false_positive: [Rate; 3],
    pub power: [Rate; 3],
    /// Generators with a repeat chance whose final model keeps exactly the
    /// truth's rules.
    pub rules_match_with_repeat: Rate,
    /// Every share's interval that held its truth (clustered by
    /// replication: its interval is the ratio's, normal, not Wilson's).
    pub share_coverage: Rate,
    /// Replications whose learned contexts named the truth's shares.
    pub shares_compared: Rate,
    /// The repeat chance's intervals that held the truth (of those the
    /// final model gave), Wilson.
    pub repeat_coverage: Rate,
}

pub const RULES: [&str; 3] = ["repeat", "bands", "mercy"];

fn rules(m: &Model) -> [bool; 3] {
    [m.repeat, m.bands, m.mercy]
}

/// The tally of `reps` (failed ones counted apart).
pub fn tally(reps: &[super::Replication]) -> Tally {
    let outs: Vec<(&Outcome, &[Estimate])> = reps
        .iter()
        .filter(|r| r.failed.is_none())
        .filter_map(|r| r.generator.as_ref().map(|o| (o, r.estimates.as_slice())))
        .collect();
    let n = outs.len();
    let count = |f: &dyn Fn(&Outcome) -> bool| outs.iter().filter(|(o, _)| f(o)).count();
    let calls = |c: Call| count(&|o| o.call() == c);
    let plain = count(&|o| !o.truth.any_rule());
    let rate_on = |of: &dyn Fn(&Outcome) -> bool, hit: &dyn Fn(&Outcome) -> bool| {
        Rate::of(count(&|o| of(o) && hit(o)), count(of))
    };
    let false_positive = [0, 1, 2].map(|i| rate_on(&|o| !rules(&o.truth)[i], &|o| rules(&o.learned)[i]));
    let power = [0, 1, 2].map(|i| rate_on(&|o| rules(&o.visible_truth())[i], &|o| rules(&o.learned)[i]));
    // Shares: each replication a cluster of its shares.
    let clusters: Vec<(f64, f64)> = outs
        .iter()
        .map(|(_, es)| {
            let shares: Vec<&Estimate> = es.iter().filter(|e| e.parameter.starts_with("share_")).collect();
            (
                shares.iter().filter(|e| e.covers()).count() as f64,
                shares.iter().filter(|e| e.has_interval()).count() as f64,
            )
        })
        .filter(|c| c.1 > 0.0)
        .collect();
    let (covered, all) = clusters.iter().fold((0.0, 0.0), |s, c| (s.0 + c.0, s.1 + c.1));
    let (ratio, var) = crate::fits::population::forecast::clustered_ratio(&clusters);
    let half = crate::fits::generator::fit::Z_95 * var.sqrt();
    let share_coverage = Rate {
        count: covered as usize,
        of: all as usize,
        rate: ratio,
        ci: if half.is_finite() {
            ((ratio - half).max(0.0), (ratio + half).min(1.0))
        } else {
            (f64::NAN, f64::NAN)
        },
    };
    let repeats: Vec<&Estimate> = outs
        .iter()
        .flat_map(|(_, es)| {
            es.iter()
                .filter(|e| e.parameter == "repeat_previous" && e.has_interval())
        })
        .collect();
    Tally {
        replications: n,
        failed: reps.len() - n,
        right: Rate::of(calls(Call::Right), n),
        wrong: Rate::of(calls(Call::Wrong), n),
        undecided: Rate::of(calls(Call::Undecided), n),
        rules_without_rules: Rate::of(count(&|o| !o.truth.any_rule() && o.learned.any_rule()), plain),
        false_positive,
        power,
        rules_match_with_repeat: rate_on(&|o| o.truth.repeat, &|o| o.learned.same_rules(&o.visible_truth())),
        share_coverage,
        shares_compared: Rate::of(clusters.len(), n),
        repeat_coverage: Rate::of(repeats.iter().filter(|e| e.covers()).count(), repeats.len()),
    }
}

fn num(x: f64) -> String {
    if x.is_nan() {
        "none".to_owned()
    } else {
        format!("{:.4}", x + 0.0)
    }
}

/// The goals a study is judged on, with their rates.
pub fn goals(t: &Tally) -> [(&'static str, Rate, Goal); 4] {
    [
        ("rules_kept_without_rules", t.rules_without_rules, Goal::AT_MOST_5),
        ("check_decided_wrong", t.wrong, Goal::AT_MOST_5),
        ("share_coverage", t.share_coverage, Goal::NEAR_95),
        (
            "rules_match_with_repeat",
            t.rules_match_with_repeat,
            Goal::AT_LEAST_90,
        ),
    ]
}

/// The CLI's lines for a fit-generator study: what it was, each rate with
/// its interval (and its goal's verdict), then a line per parameter.
pub fn lines(plan: &Plan, reps: &[super::Replication]) -> Vec<String> {
    let t = tally(reps);
    let ranges = plan.generators.clone().unwrap_or_default();
    let design = super::summary::design(plan);
    let mut out = vec![format!(
        "estimator=fit-generator design={design} replications={} seed={} player={}{} failed={}{}",
        plan.replications,
        plan.seed,
        ranges.player,
        ranges
            .repeat_chance
            .map_or(String::new(), |c| format!(" repeat_chance={c}")),
        t.failed,
        reps.iter()
            .find_map(|r| r.failed.as_deref())
            .map_or(String::new(), |w| format!(" failed_first={w:?}"))
    )];
    let goals = goals(&t);
    let mut figures: Vec<(String, Rate, Option<Goal>, &str)> = vec![
        ("check_decided_right".to_owned(), t.right, None, "wilson"),
        ("check_decided_wrong".to_owned(), t.wrong, None, "wilson"),
        ("check_undecided".to_owned(), t.undecided, None, "wilson"),
        (
            "rules_kept_without_rules".to_owned(),
            t.rules_without_rules,
            None,
            "wilson",
        ),
    ];
    for (i, rule) in RULES.iter().enumerate() {
        figures.push((format!("false_{rule}"), t.false_positive[i], None, "wilson"));
    }
    for (i, rule) in RULES.iter().enumerate() {
        figures.push((format!("power_{rule}"), t.power[i], None, "wilson"));
    }
    figures.push((
        "rules_match_with_repeat".to_owned(),
        t.rules_match_with_repeat,
        None,
        "wilson",
    ));
    figures.push(("share_coverage".to_owned(), t.share_coverage, None, "clustered"));
    figures.push(("shares_compared".to_owned(), t.shares_compared, None, "wilson"));
    figures.push(("repeat_coverage".to_owned(), t.repeat_coverage, None, "wilson"));
    for f in &mut figures {
        f.2 = goals.iter().find(|g| g.0 == f.0).map(|g| g.2);
    }
    for (name, r, goal, interval) in figures {
        let mut line = format!(
            "estimator=fit-generator design={design} figure={name} count={} of={} rate={} rate_ci={},{} interval={interval}",
            r.count,
            r.of,
            num(r.rate),
            num(r.ci.0),
            num(r.ci.1)
        );
        if let Some(g) = goal {
            let _ = write!(line, " goal={} verdict={}", g.words(), g.verdict(r.ci).word());
        }
        out.push(line);
    }
    out.extend(super::summary::lines(plan, &super::summary::rows(reps)));
    out
}

#[cfg(test)]
#[path = "generator_tests.rs"]
mod tests;
