//! Learning a generator from the deals it dealt (`tenten fit-generator`,
//! the Generator tab's Learn, `tenten.fit_generator`): every check (none,
//! reject, the paper's repair under each policy, a bag) fitted by exact
//! likelihood; the best one's adaptive rules (repeat_previous, fill bands,
//! mercy) chosen stepwise on nested models, each tested given the rules
//! kept by a likelihood ratio with its right null distribution (`rules`,
//! `select`), the check chosen again with them, and a rule the held-out
//! likelihood contradicts dropped; every check refitted with the rules kept
//! and the verdict among those
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
mod select;
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
/// The level the rules share: every test of the selection is held to it
/// over the number of rules the log can test (`select`).
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
    /// Select the adaptive rules (repeat_previous, bands, mercy) on the best
    /// check, and choose the check again with them.
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

/// What one fit counts for in the progress: an eighth of the boards.
pub(crate) fn fit_unit(boards: &Boards) -> usize {
    (boards.infos.len() / 8).max(1)
}

/// The plain `check`'s shares, where a model on that check starts its EM.
fn near_of(fits: &[Fitted], check: Check) -> Option<&[f64]> {
    fits.iter()
        .find(|f| f.rules == Rules::plain(check))
        .and_then(|f| f.weights.first())
        .map(Vec::as_slice)
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
    // The ETA after the boards, each fit counted as an eighth of them: the
    // plain checks and the rules' first step (every rule on the best
    // check). A later step's models and every fold's fit grow the total as
    // they start (`select::Fits`, `report::fold_fits`), so the bar stays
    // true whatever the selection needs.
    let first_step = if req.rules && !deals.deals.is_empty() {
        let c = select::Candidates::of(deals);
        c.rules.iter().filter(|r| **r != "mercy").count() + c.waits.len()
    } else {
        0
    };
    let planned = checks(&req.policies).len() + first_step;
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
    let mut models = select::Fits::new(fits.clone(), first_step);
    let mut selection = None;
    if let Some(check) = best_check
        && req.rules
        && !deals.deals.is_empty()
    {
        let Some(mut sel) = select::select(&mut models, &data, deals, check, near_of(&fits, check), progress)
        else {
            return Ok(None);
        };
        // The rules were chosen on the best plain check; with them kept
        // another check can be likelier (reject and repair tie when a
        // repeat chance is left out). Choose the check again, once; a tie
        // keeps the check the rules were chosen on.
        let mut kept = sel.kept.clone();
        kept.check = check;
        let Some(own) = models.fit(&data, &kept, near_of(&fits, check), progress) else {
            return Ok(None);
        };
        let mut best = (own.loglik, check);
        for c in checks(&req.policies) {
            let mut rules = sel.kept.clone();
            rules.check = c;
            let Some(f) = models.fit(&data, &rules, near_of(&fits, c), progress) else {
                return Ok(None);
            };
            if f.loglik > best.0 {
                best = (f.loglik, c);
            }
        }
        if best.1 != check {
            let Some(again) = select::select(
                &mut models,
                &data,
                deals,
                best.1,
                near_of(&fits, best.1),
                progress,
            ) else {
                return Ok(None);
            };
            sel = again;
        }
        selection = Some(sel);
    }
    report::assemble(set, deals, req, &data, fits, bag, models, selection, progress)
}

#[cfg(test)]
pub(crate) mod tests;
