//! The model table, the final model, the smoking gun, the learned file
//! and the lines `fit-generator` prints.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use statrs::distribution::{ChiSquared, ContinuousCDF};

use crate::fits::generator::bag::BagFit;
use crate::fits::generator::boards::decode;
use crate::fits::generator::deals::Deals;
use crate::fits::generator::fit::{self, Data, Fitted, Rules};
use crate::fits::generator::likelihood::Check;
use crate::fits::generator::predictive::{self, Predictive};
use crate::fits::generator::rules::RuleTest;
use crate::fits::generator::select::{self, Selection};
use crate::fits::generator::verdict::{self, Candidate, Verdict};
use crate::fits::generator::{REJECT_REDRAWS, Request};
use crate::model::pieces::{MAX_WEIGHT, PieceSet};
use crate::model::shapes::Shapes;
use crate::play::generator_file::{self, Band, Check as FileCheck, GeneratorFile, MAX_SCALE, Mercy};
use crate::progress::Progress;

/// One model of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelRow {
    pub name: String,
    pub loglik: f64,
    pub params: usize,
    pub aic: f64,
    pub bic: f64,
    /// Held-out log-likelihood per deal (two folds by game).
    pub held_out: Option<f64>,
    /// The likelihood-ratio test against the model it extends: (that
    /// model's name, statistic, degrees of freedom, p).
    pub lr: Option<(String, f64, usize, f64)>,
    /// Deals the model cannot deal.
    pub impossible: usize,
    pub deals: usize,
    /// What its test decided, in words (a rule's row: kept or not, why).
    pub test: Option<String>,
}

/// A bag is decided when its BIC beats the best model's by this much
/// (Kass and Raftery's "very strong").
pub const BAG_BIC: f64 = 10.0;

/// Unsolvable holders dealt on boards where a solvable one existed, and
/// how many `none` with the learned weights would deal there.
#[derive(Clone, Debug, PartialEq)]
pub struct Smoking {
    pub observed: usize,
    pub expected: f64,
    /// The 95 % range of the count under `none` (normal approximation of
    /// the sum of each deal's danger).
    pub range: (f64, f64),
    /// Deals on boards with at least one unsolvable holder.
    pub boards_at_risk: usize,
}

/// A learned generator and everything that decided it.
#[derive(Clone, Debug)]
pub struct Learned {
    pub deals: usize,
    pub games: usize,
    /// The best model (None when the bag is best).
    pub best: Option<Fitted>,
    pub bag: BagFit,
    pub bag_best: bool,
    pub rows: Vec<ModelRow>,
    pub smoking: Smoking,
    pub predictive: Option<Predictive>,
    pub file: GeneratorFile,
    /// The file as written, with its header.
    pub text: String,
    pub lines: Vec<String>,
    pub notes: Vec<String>,
    /// The log-likelihood of the best kind of check over the runner-up
    /// kind's, the runner-up (every kind not beaten, when several are:
    /// "repair,none"), and whether Vuong's test decides
    /// (`verdict::decide`; `verdict` holds its z and the z needed).
    pub check_margin: f64,
    pub runner_up: String,
    pub decided: bool,
    pub verdict: Verdict,
    /// Each adaptive rule's test.
    pub rule_tests: Vec<RuleTest>,
    /// The pieces' ids, in the set's order.
    pub pieces: Vec<String>,
}

/// A model's name in the table: "reject+repeat+bands".
pub fn name(rules: &Rules) -> String {
    let mut s = check_name(rules.check);
    if rules.repeat {
        s.push_str("+repeat");
    }
    if !rules.bands.is_empty() {
        s.push_str("+bands");
    }
    if let Some(k) = rules.mercy {
        let _ = write!(s, "+mercy{k}");
    }
    s
}

fn check_name(check: Check) -> String {
    match check {
        Check::None => "none".to_owned(),
        Check::Reject => "reject".to_owned(),
        Check::Repair { policy, .. } => format!("repair-{policy}"),
    }
}

fn row(f: &Fitted, held_out: Option<f64>, lr: Option<(String, f64, usize, f64)>) -> ModelRow {
    let n = f.deals.max(1) as f64;
    ModelRow {
        name: name(&f.rules),
        loglik: f.loglik,
        params: f.params,
        aic: 2.0 * f.params as f64 - 2.0 * f.loglik,
        bic: f.params as f64 * n.ln() - 2.0 * f.loglik,
        held_out,
        lr,
        impossible: f.impossible,
        deals: f.deals,
        test: None,
    }
}

/// The likelihood-ratio test of `big` against the nested `small`.
fn lr_test(small: &Fitted, big: &Fitted) -> Option<(String, f64, usize, f64)> {
    if !(small.loglik.is_finite() && big.loglik.is_finite()) {
        return None;
    }
    let df = big.params.saturating_sub(small.params).max(1);
    let stat = (2.0 * (big.loglik - small.loglik)).max(0.0);
    let p = ChiSquared::new(df as f64).map_or(f64::NAN, |c| 1.0 - c.cdf(stat));
    Some((name(&small.rules), stat, df, p))
}

/// The two folds' fits: fold f fitted on the games whose number is not f
/// modulo 2 (scored, or checked, on those that are); `None` when
/// cancelled or when there is no second game to hold out.
fn fold_fits(data: &Data, rules: &Rules, progress: &Progress) -> Option<[Fitted; 2]> {
    let deals = data.deals;
    let mut out = Vec::with_capacity(2);
    for fold in 0..2 {
        let train: Vec<bool> = deals.iter().map(|d| d.game % 2 != fold).collect();
        if !train.iter().any(|&t| t) || train.iter().all(|&t| t) {
            return None;
        }
        // Counted as it starts (`learn` plans none of the folds).
        progress.total.fetch_add(
            crate::fits::generator::fit_unit(data.boards),
            std::sync::atomic::Ordering::Relaxed,
        );
        out.push(fit::fit_point(&on(data, &train, progress), rules, progress)?);
    }
    out.try_into().ok()
}

/// `data` restricted to the deals `include` marks.
fn on<'a>(data: &'a Data, include: &'a [bool], progress: &'a Progress) -> Data<'a> {
    Data {
        deals: data.deals,
        boards: data.boards,
        fallback: data.fallback.clone(),
        include: Some(include),
        progress,
    }
}

/// Each deal's held-out log-likelihood: scored by the fold's fit that was
/// not fitted on its game. Shares are smoothed by half a piece (a piece
/// the other fold never dealt is not impossible); `-inf` for a deal the
/// fold's model cannot deal.
fn held_out_deals(data: &Data, rules: &Rules, folds: &[Fitted; 2], progress: &Progress) -> Vec<f64> {
    let deals = data.deals;
    let mut out = vec![0.0; deals.len()];
    for (fold, f) in folds.iter().enumerate() {
        let train: Vec<bool> = deals.iter().map(|d| d.game % 2 != fold).collect();
        let test: Vec<bool> = train.iter().map(|t| !t).collect();
        let n = data.boards.n as f64;
        let smoothed: Vec<Vec<f64>> = f
            .weights
            .iter()
            .enumerate()
            .map(|(c, w)| {
                let dealt: f64 = deals
                    .iter()
                    .zip(&train)
                    .filter(|(d, t)| **t && rules.context(d) == c)
                    .map(|(d, _)| d.holder.len() as f64)
                    .sum();
                w.iter().map(|&x| (x * dealt + 0.5) / (dealt + 0.5 * n)).collect()
            })
            .collect();
        let g = Fitted {
            weights: smoothed,
            ..f.clone()
        };
        let scores = on(data, &test, progress).per_deal(&g);
        for (i, s) in (0..deals.len()).filter(|&i| test[i]).zip(scores) {
            out[i] = s;
        }
    }
    out
}

/// Held-out log-likelihood per deal of the folds' fits, each scored on the
/// games it was not fitted on.
fn held_out_score(data: &Data, rules: &Rules, folds: &[Fitted; 2], progress: &Progress) -> f64 {
    let deals = held_out_deals(data, rules, folds, progress);
    deals.iter().sum::<f64>() / deals.len().max(1) as f64
}

/// Each deal's held-out log-likelihood: fitted on the even games, scored
/// on the odd, and the other way round.
fn held_out(data: &Data, rules: &Rules, progress: &Progress) -> Option<Vec<f64>> {
    let folds = fold_fits(data, rules, progress)?;
    Some(held_out_deals(data, rules, &folds, progress))
}

/// The smoking gun under `none`'s learned weights.
fn smoking(data: &Data, none: &Fitted) -> Smoking {
    let n = data.boards.n;
    let k = data.boards.k;
    let (mut observed, mut expected, mut var, mut at_risk) = (0, 0.0, 0.0, 0);
    for (i, d) in data.deals.iter().enumerate() {
        let info = &data.boards.infos[data.boards.of_deal[i]];
        if info.dead || info.killers.is_empty() {
            continue;
        }
        at_risk += 1;
        let w = &none.weights[none.rules.context(d)];
        let danger: f64 = info
            .killers
            .iter()
            .map(|&c| {
                decode(c, n, k)
                    .iter()
                    .map(|&p| w[usize::from(p)])
                    .product::<f64>()
            })
            .sum();
        expected += danger;
        var += danger * (1.0 - danger);
        if info
            .find(crate::fits::generator::boards::code(&d.holder, n))
            .is_some()
        {
            observed += 1;
        }
    }
    let h = fit::Z_95 * var.sqrt();
    Smoking {
        observed,
        expected,
        range: ((expected - h).max(0.0), expected + h),
        boards_at_risk: at_risk,
    }
}

/// Integer weights for `shares` that keep them: each within 0.05 point of
/// its share, shares that differ by `APART` (the 0.01 point they are
/// printed to) in the same order and distinct, a share above 0 above 0. The set's own
/// scale (times 10, 100, ...) when that keeps them, else the finest the
/// file allows (the largest share at `MAX_WEIGHT`), where every share is
/// within 1 / total ≤ 0.1 point by construction. Order matters beyond
/// looks: the changer's fallback tries the heaviest pieces first.
pub(crate) fn integers(set: &PieceSet, shares: &[f64]) -> Vec<u32> {
    let largest = shares.iter().copied().fold(0.0, f64::max);
    if largest <= 0.0 {
        return vec![0; shares.len()];
    }
    let finest = (f64::from(MAX_WEIGHT) / largest).floor().max(1.0) as u64;
    let mut total = set.total_weight().max(1);
    loop {
        let w = apportion(shares, total.min(finest));
        if total >= finest || keeps(shares, &w, 0.0005) {
            return w;
        }
        total = total.saturating_mul(10);
    }
}

/// `total` units shared in proportion to `shares` (largest remainders),
/// then made to keep the shares' order and every dealt piece.
fn apportion(shares: &[f64], total: u64) -> Vec<u32> {
    let sum: f64 = shares.iter().sum();
    let exact: Vec<f64> = shares.iter().map(|&p| p / sum * total as f64).collect();
    let mut w: Vec<u64> = exact.iter().map(|x| x.floor() as u64).collect();
    let mut order: Vec<usize> = (0..shares.len()).collect();
    order.sort_by(|&a, &b| (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())));
    let short = total.saturating_sub(w.iter().sum());
    for &i in order.iter().take(short as usize) {
        w[i] += 1;
    }
    for (x, &p) in w.iter_mut().zip(shares) {
        if p > 0.0 && *x == 0 {
            *x = 1;
        }
    }
    // Heaviest first: a share lighter by `APART` or more gets less than
    // every such heavier one (`floor` is the least weight among them).
    let mut by_share: Vec<usize> = (0..shares.len()).collect();
    by_share.sort_by(|&a, &b| shares[b].total_cmp(&shares[a]).then(a.cmp(&b)));
    // Shares closer than one unit of `total` cannot all be kept apart
    // without moving some by more than a unit: those may share a weight.
    let apart = APART.max(sum / total.max(1) as f64);
    let (mut heavier, mut floor) = (0, u64::MAX);
    for &b in &by_share {
        while heavier < by_share.len() && shares[by_share[heavier]] - shares[b] >= apart {
            floor = floor.min(w[by_share[heavier]]);
            heavier += 1;
        }
        if w[b] >= floor && floor > 1 {
            w[b] = floor - 1;
        }
    }
    w.into_iter()
        .map(|x| x.min(u64::from(MAX_WEIGHT)) as u32)
        .collect()
}

/// Shares this far apart (0.01 point, the precision they are printed
/// to) get different weights.
const APART: f64 = 1e-4;

/// Every share within `tolerance` of its weight's share, and shares
/// `APART` or more apart kept apart in the same order.
fn keeps(shares: &[f64], w: &[u32], tolerance: f64) -> bool {
    let total: f64 = w.iter().map(|&x| f64::from(x)).sum();
    let sum: f64 = shares.iter().sum();
    total > 0.0
        && w.iter()
            .zip(shares)
            .all(|(&x, &p)| (f64::from(x) / total - p / sum).abs() <= tolerance)
        && shares
            .iter()
            .zip(w)
            .all(|(&p, &x)| shares.iter().zip(w).all(|(&q, &y)| p - q < APART || x > y))
}

/// Pooled shares over contexts, each context weighted by its deals.
fn pooled(f: &Fitted, deals: &Deals, pick: impl Fn(usize) -> bool) -> Vec<f64> {
    let n = f.weights.first().map_or(0, Vec::len);
    let mut out = vec![0.0; n];
    for d in &deals.deals {
        let c = f.rules.context(d);
        if pick(c) {
            for (o, w) in out.iter_mut().zip(&f.weights[c]) {
                *o += w;
            }
        }
    }
    let t: f64 = out.iter().sum();
    if t > 0.0 {
        out.iter_mut().for_each(|x| *x /= t);
    }
    out
}

fn scale_of(set: &PieceSet, context: &[f64], base: &[f64]) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let t_base: f64 = base.iter().sum();
    let t_ctx: f64 = context.iter().sum();
    for (i, p) in set.pieces.iter().enumerate() {
        if base[i] <= 0.0 || t_base <= 0.0 || t_ctx <= 0.0 {
            continue;
        }
        let s = ((context[i] / t_ctx) / (base[i] / t_base) * 1000.0).round() / 1000.0;
        if (s - 1.0).abs() > 1e-3 {
            out.insert(p.id.clone(), s.clamp(0.0, MAX_SCALE));
        }
    }
    out
}

/// The generator file of a fitted model.
fn file_of(set: &PieceSet, deals: &Deals, f: &Fitted, req: &Request) -> GeneratorFile {
    let mercy_of = |c: usize| f.rules.mercy.is_some() && c % 2 == 1;
    let base = if f.weights.len() == 1 {
        f.weights[0].clone()
    } else {
        pooled(f, deals, |c| !mercy_of(c))
    };
    let ints = integers(set, &base);
    let weights = set
        .pieces
        .iter()
        .zip(&ints)
        .map(|(p, &w)| (p.id.clone(), w))
        .collect();
    let per_band = if f.rules.mercy.is_some() { 2 } else { 1 };
    let by_fill = f
        .rules
        .bands
        .iter()
        .enumerate()
        .map(|(b, &up_to)| {
            let ctx = pooled(f, deals, |c| c / per_band == b && !mercy_of(c));
            Band {
                up_to,
                scale: scale_of(set, &ctx, &base),
            }
        })
        .collect();
    let mercy = f.rules.mercy.map(|k| Mercy {
        after_rounds_without_clear: k,
        scale: scale_of(set, &pooled(f, deals, mercy_of), &base),
    });
    GeneratorFile {
        name: req.name.clone(),
        pieces: req.pieces_ref.clone(),
        weights,
        by_fill,
        repeat_previous: f.repeat.map_or(0.0, |r| (r * 10_000.0).round() / 10_000.0),
        mercy,
        check: match f.rules.check {
            Check::None => FileCheck::None,
            Check::Reject => FileCheck::Reject {
                redraws: REJECT_REDRAWS,
            },
            Check::Repair { policy, redraws } => FileCheck::Repair { policy, redraws },
        },
        adaptive: None,
    }
}

fn pct(x: f64) -> String {
    format!("{:.2}", x * 100.0)
}

/// "dot=2.41% [2.02-2.88]" for each piece of one context.
fn weight_list(set: &PieceSet, w: &[f64], ci: &[(f64, f64)]) -> String {
    set.pieces
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if w[i] == 0.0 {
                format!("{}=0% [never dealt; at most {}%]", p.id, pct(ci[i].1))
            } else {
                format!("{}={}% [{}-{}]", p.id, pct(w[i]), pct(ci[i].0), pct(ci[i].1))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn figure(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.2}")
    } else if x > 0.0 {
        "inf".to_owned()
    } else {
        "-inf".to_owned()
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn assemble(
    set: &PieceSet,
    deals: &Deals,
    req: &Request,
    data: &Data,
    fits: Vec<Fitted>,
    bag: BagFit,
    mut models: select::Fits,
    selection: Option<Selection>,
    progress: &Progress,
) -> Result<Option<Learned>, String> {
    let shapes = Shapes::new(set, deals.size);
    let n_deals = deals.deals.len();
    let held = |rules: &Rules| {
        if req.held_out {
            held_out(data, rules, progress)
        } else {
            None
        }
    };
    let mut rows = Vec::new();
    // Held-out scores by model, deal by deal, each scored once.
    let mut scored: Vec<(Rules, Option<std::rc::Rc<Vec<f64>>>)> = Vec::new();
    let mut held_of = |rules: &Rules| {
        if let Some((_, h)) = scored.iter().find(|(r, _)| r == rules) {
            return h.clone();
        }
        let h = held(rules).map(std::rc::Rc::new);
        scored.push((rules.clone(), h.clone()));
        h
    };
    let mean = |h: Option<std::rc::Rc<Vec<f64>>>| h.map(|v| v.iter().sum::<f64>() / v.len().max(1) as f64);
    for f in &fits {
        let h = mean(held_of(&f.rules));
        rows.push(row(f, h, None));
    }
    // The rules kept by the selection (`select`), less any the held-out
    // likelihood contradicts; a row for each rule tried, with its last test.
    // Without a selection (rules not asked for, or no deals) no rule is
    // kept; the finals below set each check.
    let mut kept = Rules::plain(fits[0].rules.check);
    let mut rule_tests = Vec::new();
    if let Some(mut sel) = selection {
        let games: Vec<usize> = deals.deals.iter().map(|d| d.game).collect();
        if req.held_out && select::veto(&mut sel, &mut held_of, &games) {
            let Some(()) = select::retest(&mut sel, &mut models, data, progress) else {
                return Ok(None);
            };
        }
        kept = sel.kept.clone();
        for t in &sel.tried {
            let h = mean(held_of(&t.big.rules));
            let mut rw = row(
                &t.big,
                h,
                Some((name(&t.small.rules), t.test.statistic, t.test.df, t.test.p)),
            );
            rw.test = Some(t.test.why.clone());
            rows.push(rw);
            rule_tests.push(t.test.clone());
        }
    }
    if progress.cancelled() {
        return Ok(None);
    }
    // The final models: every check with the rules kept, so the verdict
    // compares models as they would ship.
    let mut finals: Vec<Fitted> = Vec::new();
    for f in &fits {
        let mut rules = kept.clone();
        rules.check = f.rules.check;
        let listed = rows.iter().any(|r| r.name == name(&rules));
        let Some(g) = models.fit(data, &rules, f.weights.first().map(Vec::as_slice), progress) else {
            return Ok(None);
        };
        if !listed {
            let mut rw = row(&g, None, lr_test(f, &g));
            rw.test = Some("for the verdict: the check with the rules kept".to_owned());
            rows.push(rw);
        }
        finals.push(g);
    }
    let per_deal: Vec<Vec<f64>> = finals.iter().map(|f| data.per_deal(f)).collect();
    let candidates: Vec<Candidate> = finals
        .iter()
        .zip(&per_deal)
        .map(|(f, p)| Candidate {
            check: f.rules.check,
            loglik: f.loglik,
            per_deal: p,
        })
        .collect();
    let mut v = verdict::decide(&candidates);
    let best = finals
        .iter()
        .filter(|f| f.loglik.is_finite())
        .max_by(|a, b| a.loglik.total_cmp(&b.loglik))
        .cloned()
        .unwrap_or_else(|| finals[0].clone());
    // The bag's row; it is best when its BIC beats the best model's.
    let best_bic = best.params as f64 * (n_deals.max(1) as f64).ln() - 2.0 * best.loglik;
    let mut bag_best = false;
    match &bag {
        BagFit::Fits {
            counts,
            loglik,
            deals: covered,
            ..
        } => {
            let params = counts.iter().filter(|&&c| c > 0).count();
            let nn = (*covered).max(1) as f64;
            let bic = params as f64 * nn.ln() - 2.0 * loglik;
            bag_best = *covered == n_deals && (bic < best_bic || !best.loglik.is_finite());
            if bag_best {
                // A bag is decided by BIC (a bag dealt by chance breaks
                // within a few bags, so a bag that holds grows its lead
                // with every deal); the calibration draws no bags.
                v = Verdict {
                    chosen: "bag",
                    decided: best_bic - bic >= BAG_BIC,
                    runner_up: v.chosen.to_owned(),
                    margin: loglik - best.loglik,
                    z: f64::NAN,
                    needed: f64::NAN,
                    comparisons: finals.len(),
                };
            }
            rows.push(ModelRow {
                name: "bag".to_owned(),
                loglik: *loglik,
                params,
                aic: 2.0 * params as f64 - 2.0 * loglik,
                bic,
                held_out: None,
                lr: None,
                impossible: 0,
                deals: *covered,
                test: None,
            });
        }
        BagFit::Broken { deals: covered } => rows.push(ModelRow {
            name: "bag".to_owned(),
            loglik: f64::NEG_INFINITY,
            params: set.pieces.len(),
            aic: f64::INFINITY,
            bic: f64::INFINITY,
            held_out: None,
            lr: None,
            impossible: *covered,
            deals: *covered,
            test: None,
        }),
        BagFit::Untestable { .. } => {}
    }
    let none = &fits[0];
    let smoking = smoking(data, none);
    // The predictive check on games the model was not fitted to: each half
    // of the games checked with the model fitted on the other half.
    let folds = if bag_best || n_deals == 0 {
        None
    } else {
        fold_fits(data, &best.rules, progress)
    };
    if progress.cancelled() {
        return Ok(None);
    }
    if let Some(folds) = &folds
        && let Some(r) = rows
            .iter_mut()
            .find(|r| r.name == name(&best.rules) && r.held_out.is_none())
        && req.held_out
    {
        r.held_out = Some(held_out_score(data, &best.rules, folds, progress));
    }
    let predictive = (!bag_best && n_deals > 0).then(|| {
        let (models, held): (Vec<Fitted>, bool) = match &folds {
            Some(f) => (f.to_vec(), true),
            None => (vec![best.clone()], false),
        };
        predictive::check(
            &shapes,
            set,
            &predictive::Models {
                fitted: &models,
                held_out: held,
            },
            &deals.deals,
            deals.k,
            req.seed,
            req.replications,
            progress,
        )
    });
    if progress.cancelled() {
        return Ok(None);
    }
    let mut file = file_of(set, deals, &best, req);
    if bag_best && let BagFit::Fits { counts, .. } = &bag {
        file = GeneratorFile {
            weights: set
                .pieces
                .iter()
                .zip(counts)
                .map(|(p, &c)| (p.id.clone(), c))
                .collect(),
            by_fill: Vec::new(),
            repeat_previous: 0.0,
            mercy: None,
            check: FileCheck::Bag,
            ..file
        };
    }
    // The lines printed.
    let mut lines = Vec::new();
    let check_word = if bag_best {
        "bag".to_owned()
    } else {
        match best.rules.check {
            Check::None => "none".to_owned(),
            Check::Reject => "reject".to_owned(),
            Check::Repair { policy, .. } => format!("repair policy={policy}"),
        }
    };
    let mut first = format!(
        "deals={n_deals} games={} check={check_word} check_verdict={} runner_up={} margin={}",
        deals.games,
        if v.decided { "decided" } else { "undecided" },
        v.runner_up,
        figure(v.margin)
    );
    if v.z.is_nan() {
        let _ = write!(first, " by=bic");
    } else {
        let _ = write!(
            first,
            " vuong_z={} needed={:.2} (over {} models)",
            figure(v.z),
            v.needed,
            v.comparisons
        );
    }
    if bag_best {
        if let BagFit::Fits { counts, bags, .. } = &bag {
            let _ = write!(
                first,
                " bag_size={} whole_bags={bags} counts: {}",
                counts.iter().sum::<u32>(),
                set.pieces
                    .iter()
                    .zip(counts)
                    .map(|(p, c)| format!("{}={c}", p.id))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
    } else {
        if let Check::Repair { policy, .. } = best.rules.check {
            // How far the policy stands from the other policies fitted.
            let next = finals
                .iter()
                .filter(|f| matches!(f.rules.check, Check::Repair { policy: p, .. } if p != policy))
                .map(|f| f.loglik)
                .fold(f64::NEG_INFINITY, f64::max);
            if next.is_finite() {
                let _ = write!(first, " policy_margin={:.2}", best.loglik - next);
            }
        }
        match best.repeat {
            Some(r) => {
                let _ = write!(
                    first,
                    " repeat_previous={:.4} [{:.4}-{:.4}]",
                    r, best.repeat_ci.0, best.repeat_ci.1
                );
            }
            None => first.push_str(" repeat_previous=no"),
        }
        if best.rules.bands.is_empty() {
            first.push_str(" bands=no");
        } else {
            let _ = write!(
                first,
                " bands={}",
                best.rules
                    .bands
                    .iter()
                    .map(|b| format!("{b}"))
                    .collect::<Vec<_>>()
                    .join(",")
            );
        }
        match best.rules.mercy {
            Some(k) => {
                let _ = write!(first, " mercy_after={k}");
            }
            None => first.push_str(" mercy=no"),
        }
        let _ = write!(first, " loglik={}", figure(best.loglik));
        if best.weights.len() == 1 {
            let _ = write!(
                first,
                " weights: {}",
                weight_list(set, &best.weights[0], &best.intervals[0])
            );
        }
    }
    lines.push(first);
    if !bag_best && best.weights.len() > 1 {
        for (c, (w, ci)) in best.weights.iter().zip(&best.intervals).enumerate() {
            lines.push(format!("  weights[{c}]: {}", weight_list(set, w, ci)));
        }
    }
    lines.push(format!(
        "smoking_gun: unsolvable holders dealt where a solvable one existed observed={} expected_under_none={:.1} [{:.1}-{:.1}] deals_at_risk={}",
        smoking.observed, smoking.expected, smoking.range.0, smoking.range.1, smoking.boards_at_risk
    ));
    for r in &rows {
        let mut l = format!(
            "model={} params={} loglik={} aic={} bic={}",
            r.name,
            r.params,
            figure(r.loglik),
            figure(r.aic),
            figure(r.bic)
        );
        if let Some(h) = r.held_out {
            let _ = write!(
                l,
                " held_out_per_deal={}",
                if h.is_finite() {
                    format!("{h:.4}")
                } else {
                    figure(h)
                }
            );
        }
        if let Some((vs, stat, df, p)) = &r.lr {
            let _ = write!(l, " lr_vs={vs} lr={stat:.2} df={df} p={p:.3e}");
        }
        if let Some(t) = &r.test {
            let _ = write!(l, " ({t})");
        }
        if r.impossible > 0 {
            let _ = write!(l, " impossible_deals={}", r.impossible);
        }
        if r.deals != n_deals {
            let _ = write!(l, " on_deals={}", r.deals);
        }
        lines.push(l);
    }
    match &bag {
        BagFit::Untestable { why } => lines.push(format!("model=bag untestable: {why}")),
        BagFit::Broken { .. } => {}
        BagFit::Fits { .. } => {}
    }
    if let Some(p) = &predictive {
        let (inside, all) = p.inside();
        let u = p.unsolvable;
        lines.push(format!(
            "predictive: {inside} of {all} piece shares by fill band inside the simulated 95 % range; unsolvable holders observed={:.4} simulated={:.4} [{:.4}-{:.4}] ({} deals, {} replications, seed {}; {})",
            u.0,
            u.1,
            u.2,
            u.3,
            p.deals,
            p.replications,
            p.seed,
            if p.held_out {
                "each half of the games checked with the model fitted on the other half"
            } else {
                "on the deals fitted: one game, none to hold out"
            }
        ));
    }
    let mut notes = deals.notes.clone();
    if n_deals < 2 {
        notes.push("fewer than 2 deals: the shares are those of the pieces dealt, and their intervals too wide to act on".to_owned());
    }
    if !best.converged && !bag_best {
        notes.push(format!("EM stopped after {} steps before converging", best.steps));
    }
    for n in &notes {
        lines.push(format!("note: {n}"));
    }
    let text = file_text(set, deals, &file, &lines);
    // The learned file must read back as every command reads a generator.
    generator_file::parse(&text, "the learned generator", set).map_err(|e| e.to_string())?;
    Ok(Some(Learned {
        deals: n_deals,
        games: deals.games,
        best: (!bag_best).then_some(best),
        bag,
        bag_best,
        rows,
        smoking,
        predictive,
        file,
        text,
        lines,
        notes,
        check_margin: v.margin,
        runner_up: v.runner_up.clone(),
        decided: v.decided,
        verdict: v,
        rule_tests,
        pieces: set.pieces.iter().map(|p| p.id.clone()).collect(),
    }))
}

/// The file with a header holding the fit's figures.
fn file_text(set: &PieceSet, deals: &Deals, file: &GeneratorFile, lines: &[String]) -> String {
    let spec = generator_file::GeneratorSpec {
        file: file.clone(),
        set: set.clone(),
    };
    let mut out = format!(
        "// Learned by tenten fit-generator from {} deals ({} games) of \"{}\" on {}.\n",
        deals.deals.len(),
        deals.games,
        set.name,
        deals.size
    );
    for l in lines {
        // Long lines wrapped at their spaces, each a comment.
        let mut current = String::from("//");
        for word in l.split(' ') {
            if current.len() + word.len() > 110 && current.len() > 2 {
                out.push_str(&current);
                out.push('\n');
                current = String::from("//  ");
            }
            current.push(' ');
            current.push_str(word);
        }
        out.push_str(&current);
        out.push('\n');
    }
    out.push_str(&spec.to_ron());
    out
}

fn number(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else if x > 0.0 {
        "inf".to_owned()
    } else {
        "-inf".to_owned()
    }
}

/// The model table as CSV, or as RON with the best model's shares.
pub fn report_table(l: &Learned, csv: bool) -> String {
    let mut out = String::new();
    if csv {
        out.push_str("model,params,loglik,aic,bic,held_out_per_deal,lr_vs,lr,df,p,impossible_deals,deals\n");
        for r in &l.rows {
            let (vs, stat, df, p) = match &r.lr {
                Some((vs, s, d, p)) => (vs.clone(), number(*s), d.to_string(), number(*p)),
                None => (String::new(), String::new(), String::new(), String::new()),
            };
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{vs},{stat},{df},{p},{},{}",
                r.name,
                r.params,
                number(r.loglik),
                number(r.aic),
                number(r.bic),
                r.held_out.map(number).unwrap_or_default(),
                r.impossible,
                r.deals
            );
        }
        return out;
    }
    let _ = writeln!(
        out,
        "// tenten fit-generator's model table: {} deals, {} games.",
        l.deals, l.games
    );
    out.push_str("(\n    models: [\n");
    for r in &l.rows {
        let lr = match &r.lr {
            Some((vs, s, d, p)) => format!(
                "Some((vs: {vs:?}, statistic: {}, df: {d}, p: {}))",
                number(*s),
                number(*p)
            ),
            None => "None".to_owned(),
        };
        let _ = writeln!(
            out,
            "        (model: {:?}, params: {}, loglik: {}, aic: {}, bic: {}, held_out_per_deal: {}, lr: {lr}, impossible_deals: {}, deals: {}),",
            r.name,
            r.params,
            number(r.loglik),
            number(r.aic),
            number(r.bic),
            r.held_out
                .map_or("None".to_owned(), |h| format!("Some({})", number(h))),
            r.impossible,
            r.deals
        );
    }
    out.push_str("    ],\n    shares: [\n");
    if let Some(best) = &l.best {
        for (c, (w, ci)) in best.weights.iter().zip(&best.intervals).enumerate() {
            for (i, (&p, &(lo, hi))) in w.iter().zip(ci).enumerate() {
                let id = l.pieces.get(i).map_or("?", String::as_str);
                let _ = writeln!(
                    out,
                    "        (context: {c}, piece: {id:?}, share: {p}, low: {lo}, high: {hi}),"
                );
            }
        }
    }
    out.push_str("    ],\n)\n");
    out
}
