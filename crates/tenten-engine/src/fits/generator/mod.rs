//! Learning a generator from the deals it dealt (`tenten fit-generator`,
//! the Generator tab's Learn, `tenten.fit_generator`): every check (none,
//! reject, the paper's repair under each policy, a bag) fitted by exact
//! likelihood; the best one's adaptive rules (repeat_previous, fill bands,
//! mercy) tested by likelihood ratios with their right null distributions,
//! sharing the level, and vetoed by the held-out likelihood (`rules`);
//! every check refitted with the rules kept and the verdict among those
//! final models by Vuong's test (`verdict`); a model table (log-likelihood,
//! AIC, BIC, held-out log-likelihood per deal), a predictive check on
//! games held out, and the generator file the best model writes, its
//! shares kept to 0.05 point.

pub mod bag;
pub mod boards;
pub mod deals;
pub mod fit;
pub mod likelihood;
mod predictive;
mod report;
pub mod rules;
pub mod verdict;

pub use bag::BagFit;
pub use predictive::Predictive;
pub use report::{Learned, ModelRow, Smoking, report_table};

use crate::fits::generator::boards::Boards;
use crate::fits::generator::deals::Deals;
use crate::fits::generator::fit::{Data, Fitted, Rules};
use crate::fits::generator::likelihood::{Check, Fallback};
use crate::model::pieces::PieceSet;
use crate::model::shapes::Shapes;
use crate::progress::Progress;
use crate::search::heuristic::Policy;

/// The fill bands tried: quarters of the board (a band with too few deals
/// joins the one below it).
pub const BAND_GRID: [f64; 4] = [0.25, 0.5, 0.75, 1.0];
/// A band needs this many deals to be fitted on its own.
pub const MIN_BAND_DEALS: usize = 50;
/// Mercy's waits tried, in rounds without a clear.
pub const MERCY_GRID: [u32; 6] = [2, 4, 6, 8, 10, 12];
/// The chance of keeping any adaptive rule the truth does not have: the
/// rules tried share it (`rules`).
pub const RULE_ALPHA: f64 = 0.01;
/// The redraws the learned repair and reject write (the presets').
pub const REPAIR_REDRAWS: usize = 64;
pub const REJECT_REDRAWS: u32 = 10_000;

/// What a fit is asked besides the deals.
#[derive(Clone, Debug)]
pub struct Request {
    /// The learned generator's name.
    pub name: String,
    /// The `pieces:` line the learned file writes (relative to it), if any.
    pub pieces_ref: Option<String>,
    /// The predictive check's first seed and replications.
    pub seed: u64,
    pub replications: usize,
    /// Score each model on held-out games (two folds by game).
    pub held_out: bool,
    /// The changer's policies repair is fitted under.
    pub policies: Vec<Policy>,
    /// Test the adaptive rules (repeat_previous, bands, mercy) on the best check.
    pub rules: bool,
}

impl Default for Request {
    fn default() -> Self {
        Request {
            name: "learned".to_owned(),
            pieces_ref: None,
            seed: 1,
            replications: 40,
            held_out: true,
            policies: Policy::ALL.to_vec(),
            rules: true,
        }
    }
}

/// The checks a fit compares: none, reject and repair under `policies`.
pub fn checks(policies: &[Policy]) -> Vec<Check> {
    let mut out = vec![Check::None, Check::Reject];
    out.extend(policies.iter().map(|&policy| Check::Repair {
        policy,
        redraws: REPAIR_REDRAWS,
    }));
    out
}

/// The bands of `BAND_GRID` with at least `MIN_BAND_DEALS` deals each.
pub fn bands_for(deals: &Deals) -> Vec<f64> {
    let mut cuts: Vec<f64> = BAND_GRID.to_vec();
    loop {
        let count = |b: usize| {
            let lo = if b == 0 { -1.0 } else { cuts[b - 1] };
            deals
                .deals
                .iter()
                .filter(|d| d.fill > lo + 1e-12 && d.fill <= cuts[b] + 1e-12)
                .count()
        };
        let Some(thin) = (0..cuts.len()).find(|&b| count(b) < MIN_BAND_DEALS) else {
            break;
        };
        if cuts.len() == 1 {
            break;
        }
        // The thin band joins its lower neighbour (the first joins the next).
        cuts.remove(if thin == 0 { 0 } else { thin - 1 });
    }
    cuts
}

/// An adaptive rule fitted on the best plain check.
pub(crate) struct RuleFit {
    pub fit: Fitted,
    pub rule: &'static str,
    /// Settings tried, the likeliest kept (mercy's waits; 1 otherwise).
    pub grid: usize,
}

/// What one fit counts for in the progress: an eighth of the boards.
pub(crate) fn fit_unit(boards: &Boards) -> usize {
    (boards.infos.len() / 8).max(1)
}

/// Learns a generator from `deals` of `set`. `None` when cancelled.
pub fn learn(
    set: &PieceSet,
    deals: &Deals,
    req: &Request,
    progress: &Progress,
) -> Result<Option<Learned>, String> {
    let shapes = Shapes::new(set, deals.size);
    let boards: Vec<_> = deals.deals.iter().map(|d| d.board).collect();
    let Some(cache) = Boards::of(&shapes, set, &boards, deals.k, &req.policies, progress)? else {
        return Ok(None);
    };
    // The ETA after the boards: each fit counted as an eighth of them.
    // Plain checks, rules, the final checks with the rules kept, and the
    // held-out folds of the final model.
    let planned = (checks(&req.policies).len() + 3 + MERCY_GRID.len()) * if req.held_out { 3 } else { 1 }
        + checks(&req.policies).len()
        + 3;
    progress.set_total(cache.infos.len() + planned * fit_unit(&cache));
    let data = Data {
        deals: &deals.deals,
        boards: &cache,
        fallback: Fallback::new(&shapes, set),
        include: None,
        progress,
    };
    let mut fits: Vec<Fitted> = Vec::new();
    for check in checks(&req.policies) {
        // Repair starts from reject's answer: the two differ little.
        let near = match check {
            Check::Repair { .. } => fits.get(1).map(|f: &Fitted| f.weights[0].clone()),
            _ => None,
        };
        let Some(f) = fit::fit_from(&data, &Rules::plain(check), near.as_deref(), progress) else {
            return Ok(None);
        };
        fits.push(f);
    }
    let bag = if deals.deals.is_empty() {
        BagFit::Untestable {
            why: "no deals".to_owned(),
        }
    } else {
        bag::fit(&deals.deals, set.pieces.len())
    };
    // The best check by log-likelihood (all have the same weights to fit).
    let best_check = fits
        .iter()
        .filter(|f| f.loglik.is_finite())
        .max_by(|a, b| a.loglik.total_cmp(&b.loglik))
        .map(|f| f.rules.check);
    let mut rule_fits: Vec<RuleFit> = Vec::new();
    if let Some(check) = best_check
        && req.rules
        && !deals.deals.is_empty()
    {
        let base = Rules::plain(check);
        // Each rule's fit starts from the plain check's answer.
        let near: Option<Vec<f64>> = fits
            .iter()
            .find(|f| f.rules == base)
            .map(|f| f.weights[0].clone());
        let near = near.as_deref();
        let mut repeat = base.clone();
        repeat.repeat = true;
        let Some(f) = fit::fit_from(&data, &repeat, near, progress) else {
            return Ok(None);
        };
        rule_fits.push(RuleFit {
            fit: f,
            rule: "repeat",
            grid: 1,
        });
        let cuts = bands_for(deals);
        if cuts.len() > 1 {
            let mut banded = base.clone();
            banded.bands = cuts;
            let Some(f) = fit::fit_from(&data, &banded, near, progress) else {
                return Ok(None);
            };
            rule_fits.push(RuleFit {
                fit: f,
                rule: "bands",
                grid: 1,
            });
        }
        let mut best_mercy: Option<Fitted> = None;
        let mut waits = 0;
        for k in MERCY_GRID {
            let on = deals
                .deals
                .iter()
                .filter(|d| d.dry_rounds.is_some_and(|r| r >= k))
                .count();
            if on < MIN_BAND_DEALS {
                continue;
            }
            let mut m = base.clone();
            m.mercy = Some(k);
            let Some(f) = fit::fit_from(&data, &m, near, progress) else {
                return Ok(None);
            };
            waits += 1;
            if best_mercy.as_ref().is_none_or(|b| f.loglik > b.loglik) {
                best_mercy = Some(f);
            }
        }
        if let Some(f) = best_mercy {
            rule_fits.push(RuleFit {
                fit: f,
                rule: "mercy",
                grid: waits,
            });
        }
    }
    report::assemble(set, deals, req, &data, fits, bag, rule_fits, progress)
}

#[cfg(test)]
pub(crate) mod tests;
