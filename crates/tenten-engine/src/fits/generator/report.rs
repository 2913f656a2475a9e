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
use crate::fits::generator::{CHECK_MARGIN, REJECT_REDRAWS, RULE_ALPHA, Request};
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
}

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
    /// The margin of the best kind of check's log-likelihood over the
    /// next kind's, the next kind (every kind within the margin, when
    /// several are: "repair,none"), and whether the margin decides.
    pub check_margin: f64,
    pub runner_up: String,
    pub decided: bool,
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

/// Held-out log-likelihood per deal: fitted on the even games, scored on
/// the odd, and the other way round. Shares are smoothed by half a piece
/// (a piece the other fold never dealt is not impossible).
fn held_out(data: &Data, rules: &Rules, progress: &Progress) -> Option<f64> {
    let deals = data.deals;
    let mut total = 0.0;
    for fold in 0..2 {
        let train: Vec<bool> = deals.iter().map(|d| d.game % 2 != fold).collect();
        let test: Vec<bool> = train.iter().map(|t| !t).collect();
        if !train.iter().any(|&t| t) || !test.iter().any(|&t| t) {
            return None;
        }
        let on = |include| Data {
            deals,
            boards: data.boards,
            fallback: crate::fits::generator::likelihood::Fallback {
                shapes: data.fallback.shapes,
                set: data.fallback.set,
            },
            include: Some(include),
            progress,
        };
        let f = fit::fit(&on(&train), rules, progress)?;
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
        let (ll, _, impossible) = on(&test).pass(rules, &smoothed, f.repeat, false);
        if impossible > 0 {
            return Some(f64::NEG_INFINITY);
        }
        total += ll;
    }
    Some(total / deals.len().max(1) as f64)
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

/// Integer weights in the set's own scale (its total, times 10 until every
/// share lands inside its interval).
fn integers(set: &PieceSet, shares: &[f64], intervals: &[(f64, f64)]) -> Vec<u32> {
    let base = set.total_weight().max(1) as f64;
    let mut best = Vec::new();
    for m in 0..4 {
        let scale = base * 10f64.powi(m);
        let w: Vec<u32> = shares
            .iter()
            .map(|&p| (p * scale).round().min(f64::from(MAX_WEIGHT)) as u32)
            .collect();
        let total: f64 = w.iter().map(|&x| f64::from(x)).sum();
        best = w.clone();
        let fits = total > 0.0
            && w.iter().zip(intervals).zip(shares).all(|((&x, &(lo, hi)), &p)| {
                p == 0.0 || (f64::from(x) / total >= lo && f64::from(x) / total <= hi)
            });
        if fits || scale * shares.iter().cloned().fold(0.0, f64::max) > f64::from(MAX_WEIGHT) / 10.0 {
            break;
        }
    }
    best
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
    let intervals = if f.weights.len() == 1 {
        f.intervals[0].clone()
    } else {
        vec![(0.0, 1.0); base.len()]
    };
    let ints = integers(set, &base, &intervals);
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
    rule_fits: Vec<(Fitted, &'static str)>,
    progress: &Progress,
) -> Result<Option<Learned>, String> {
    let shapes = Shapes::new(set, deals.size);
    let n_deals = deals.deals.len();
    let best_check = fits
        .iter()
        .filter(|f| f.loglik.is_finite())
        .max_by(|a, b| a.loglik.total_cmp(&b.loglik))
        .cloned()
        .unwrap_or_else(|| fits[0].clone());
    // Rules whose test passes join the final model.
    let mut kept = best_check.rules.clone();
    let mut rows = Vec::new();
    for f in &fits {
        let h = if req.held_out {
            held_out(data, &f.rules, progress)
        } else {
            None
        };
        rows.push(row(f, h, None));
    }
    for (f, rule) in &rule_fits {
        let lr = lr_test(&best_check, f);
        if let Some((_, _, _, p)) = &lr
            && *p < RULE_ALPHA
        {
            match *rule {
                "repeat" => kept.repeat = true,
                "bands" => kept.bands = f.rules.bands.clone(),
                _ => kept.mercy = f.rules.mercy,
            }
        }
        let h = if req.held_out {
            held_out(data, &f.rules, progress)
        } else {
            None
        };
        rows.push(row(f, h, lr));
    }
    if progress.cancelled() {
        return Ok(None);
    }
    let kept_count =
        usize::from(kept.repeat) + usize::from(!kept.bands.is_empty()) + usize::from(kept.mercy.is_some());
    let best = if kept_count == 0 {
        best_check.clone()
    } else if kept_count == 1 {
        rule_fits
            .iter()
            .find(|(f, _)| f.rules == kept)
            .map(|(f, _)| f.clone())
            .unwrap_or_else(|| best_check.clone())
    } else {
        let Some(f) = fit::fit(data, &kept, progress) else {
            return Ok(None);
        };
        let h = if req.held_out {
            held_out(data, &f.rules, progress)
        } else {
            None
        };
        rows.push(row(&f, h, lr_test(&best_check, &f)));
        f
    };
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
        }),
        BagFit::Untestable { .. } => {}
    }
    // The check's verdict: the best kind of check against the next kind.
    let kind = |c: Check| match c {
        Check::None => "none",
        Check::Reject => "reject",
        Check::Repair { .. } => "repair",
    };
    let mut families: Vec<(&str, f64)> = Vec::new();
    for f in &fits {
        let k = kind(f.rules.check);
        match families.iter_mut().find(|(n, _)| *n == k) {
            Some(e) => e.1 = e.1.max(f.loglik),
            None => families.push((k, f.loglik)),
        }
    }
    if let BagFit::Fits {
        loglik,
        deals: covered,
        ..
    } = &bag
        && *covered == n_deals
    {
        families.push(("bag", *loglik));
    }
    let chosen = if bag_best { "bag" } else { kind(best.rules.check) };
    let chosen_ll = families
        .iter()
        .find(|f| f.0 == chosen)
        .map_or(best.loglik, |f| f.1);
    let runner_up = families
        .iter()
        .filter(|f| f.0 != chosen)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map_or(("none", f64::NEG_INFINITY), |f| *f);
    let check_margin = if chosen_ll.is_finite() && runner_up.1.is_finite() {
        chosen_ll - runner_up.1
    } else if chosen_ll.is_finite() {
        f64::INFINITY
    } else {
        0.0
    };
    let decided = check_margin >= CHECK_MARGIN;
    // Undecided: every other kind within the margin is named, likeliest first.
    let mut close: Vec<(&str, f64)> = families
        .iter()
        .filter(|f| f.0 != chosen && f.1.is_finite() && chosen_ll - f.1 < CHECK_MARGIN)
        .copied()
        .collect();
    close.sort_by(|a, b| b.1.total_cmp(&a.1));
    let runner_up_names = if close.len() > 1 {
        close.iter().map(|f| f.0).collect::<Vec<_>>().join(",")
    } else {
        runner_up.0.to_owned()
    };
    let none = &fits[0];
    let smoking = smoking(data, none);
    let predictive = (!bag_best && n_deals > 0).then(|| {
        predictive::check(
            &shapes,
            set,
            &best,
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
        if decided { "decided" } else { "undecided" },
        runner_up_names,
        figure(check_margin)
    );
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
            let next = fits
                .iter()
                .filter(|f| matches!(f.rules.check, Check::Repair { policy: p, .. } if p != policy))
                .map(|f| f.loglik)
                .fold(f64::NEG_INFINITY, f64::max);
            if next.is_finite() {
                let _ = write!(first, " policy_margin={:.2}", best_check.loglik - next);
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
            "predictive: {inside} of {all} piece shares by fill band inside the simulated 95 % range; unsolvable holders observed={:.4} simulated={:.4} [{:.4}-{:.4}] ({} deals, {} replications, seed {})",
            u.0, u.1, u.2, u.3, p.deals, p.replications, p.seed
        ));
    }
    let mut notes = deals.notes.clone();
    if n_deals < 2 {
        notes.push("fewer than 2 deals: the weights are the prior's (what was dealt) and every interval is unbounded".to_owned());
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
        check_margin,
        runner_up: runner_up_names,
        decided,
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
