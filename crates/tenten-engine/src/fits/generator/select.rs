//! Which adaptive rules the final model keeps: forward-backward selection
//! on nested models.
//!
//! Forward: every rule not yet kept is fitted on top of the rules kept, and
//! the one with the smallest p (`rules::p_of`, given the rules kept) joins
//! when that p is below `RULE_ALPHA` over the number of rules left to try
//! (a Bonferroni share of the level among the candidates of that step).
//! Backward, after each addition: every kept rule is tested against the
//! kept set without it, at `RULE_ALPHA` over the rules kept, and the worst
//! one leaves when it fails (a rule that only stood in for a later one);
//! a rule that left is not tried again, so the selection cannot cycle.
//!
//! Why not each rule against the plain check: when the truth has another
//! rule, the plain check is the wrong null and the tested rule takes up
//! the missing one's slack (fill bands mimic a repeat chance; mercy mimics
//! bands). Measured over the 200-replication study of session 11: every
//! false rule kept came from a truth with some other rule.
//!
//! `veto` then drops a kept rule the held-out likelihood contradicts: the
//! kept set predicts other games' deals worse than the kept set without it.

use std::sync::atomic::Ordering;

use crate::fits::generator::deals::Deals;
use crate::fits::generator::fit::{self, Data, Fitted, Rules};
use crate::fits::generator::likelihood::Check;
use crate::fits::generator::rules::{self, RuleTest};
use crate::fits::generator::{MERCY_GRID, MIN_BAND_DEALS, RULE_ALPHA, bands_for, fit_unit};
use crate::progress::Progress;

/// The rules tried, in the order their rows are printed.
pub const RULE_NAMES: [&str; 3] = ["repeat", "bands", "mercy"];

/// Every model fitted so far, found again by its rules (a selection asks
/// for the same nested model many times).
#[derive(Default)]
pub(crate) struct Fits(pub Vec<Fitted>);

impl Fits {
    pub fn get(&self, rules: &Rules) -> Option<&Fitted> {
        self.0.iter().find(|f| &f.rules == rules)
    }

    /// `rules`' fit, fitted now (EM from `near`) when it is not yet; the
    /// progress's total grows by the fit's unit first, so that the bar
    /// stays true however many models the selection needs. `None` when
    /// cancelled.
    pub fn fit(
        &mut self,
        data: &Data,
        rules: &Rules,
        near: Option<&[f64]>,
        progress: &Progress,
    ) -> Option<Fitted> {
        if let Some(f) = self.get(rules) {
            return Some(f.clone());
        }
        progress.total.fetch_add(fit_unit(data.boards), Ordering::Relaxed);
        let f = fit::fit_from(data, rules, near, progress)?;
        self.0.push(f.clone());
        Some(f)
    }
}

/// One rule's last test: the model with it (`big`) against the nested one
/// without it (`small`).
#[derive(Clone, Debug)]
pub(crate) struct Tried {
    pub small: Fitted,
    pub big: Fitted,
    pub test: RuleTest,
}

/// What a selection kept, and each rule's last test: a kept rule's against
/// the kept set without it, another rule's as the kept set's extension.
pub(crate) struct Selection {
    pub kept: Rules,
    pub tried: Vec<Tried>,
}

/// What a log can test: fill bands when it fills more than one band, and
/// the waits of mercy some `MIN_BAND_DEALS` deals reached.
struct Candidates {
    rules: Vec<&'static str>,
    cuts: Vec<f64>,
    waits: Vec<u32>,
}

impl Candidates {
    fn of(deals: &Deals) -> Self {
        let cuts = bands_for(deals);
        let waits: Vec<u32> = MERCY_GRID
            .into_iter()
            .filter(|&k| {
                deals
                    .deals
                    .iter()
                    .filter(|d| d.dry_rounds.is_some_and(|r| r >= k))
                    .count()
                    >= MIN_BAND_DEALS
            })
            .collect();
        let mut rules = vec!["repeat"];
        if cuts.len() > 1 {
            rules.push("bands");
        }
        if !waits.is_empty() {
            rules.push("mercy");
        }
        Candidates { rules, cuts, waits }
    }
}

pub(crate) fn has(rules: &Rules, rule: &str) -> bool {
    match rule {
        "repeat" => rules.repeat,
        "bands" => !rules.bands.is_empty(),
        _ => rules.mercy.is_some(),
    }
}

fn without(rules: &Rules, rule: &str) -> Rules {
    let mut r = rules.clone();
    match rule {
        "repeat" => r.repeat = false,
        "bands" => r.bands = Vec::new(),
        _ => r.mercy = None,
    }
    r
}

/// The rules a model keeps, without its check: "repeat+mercy4" ("" for none).
pub(crate) fn rule_words(rules: &Rules) -> String {
    let mut out: Vec<String> = Vec::new();
    if rules.repeat {
        out.push("repeat".to_owned());
    }
    if !rules.bands.is_empty() {
        out.push("bands".to_owned());
    }
    if let Some(k) = rules.mercy {
        out.push(format!("mercy{k}"));
    }
    out.join("+")
}

fn kept_rules(rules: &Rules) -> Vec<&'static str> {
    RULE_NAMES.into_iter().filter(|r| has(rules, r)).collect()
}

/// The running selection: its models, what it keeps and each rule's last
/// test.
struct Run<'a, 'd> {
    fits: &'a mut Fits,
    data: &'a Data<'d>,
    near: Option<&'a [f64]>,
    progress: &'a Progress,
    cand: Candidates,
    /// Mercy's waits tried when it joined (its grid, for its p).
    mercy_grid: usize,
    tried: Vec<Tried>,
}

impl Run<'_, '_> {
    fn fit(&mut self, rules: &Rules) -> Option<Fitted> {
        self.fits.fit(self.data, rules, self.near, self.progress)
    }

    /// `rule` added to `small`: its fit and the settings tried (mercy:
    /// every wait the log reached, the likeliest kept).
    fn extend(&mut self, small: &Rules, rule: &str) -> Option<(Fitted, usize)> {
        let mut r = small.clone();
        match rule {
            "repeat" => r.repeat = true,
            "bands" => r.bands = self.cand.cuts.clone(),
            _ => {
                let mut best: Option<Fitted> = None;
                for k in self.cand.waits.clone() {
                    r.mercy = Some(k);
                    let f = self.fit(&r)?;
                    if best.as_ref().is_none_or(|b| f.loglik > b.loglik) {
                        best = Some(f);
                    }
                }
                return best.map(|b| (b, self.cand.waits.len()));
            }
        }
        Some((self.fit(&r)?, 1))
    }

    fn grid(&self, rule: &str) -> usize {
        if rule == "mercy" { self.mercy_grid } else { 1 }
    }

    fn record(&mut self, t: Tried) {
        self.tried.retain(|x| x.test.rule != t.test.rule);
        self.tried.push(t);
    }

    /// Each kept rule against `kept` without it, at `RULE_ALPHA` over the
    /// rules kept; the tests, in `RULE_NAMES`' order.
    fn backward_tests(&mut self, kept: &Rules) -> Option<Vec<Tried>> {
        let rules = kept_rules(kept);
        let level = RULE_ALPHA / rules.len().max(1) as f64;
        let big = self.fit(kept)?;
        let mut out = Vec::new();
        for rule in rules {
            let small = self.fit(&without(kept, rule))?;
            let grid = self.grid(rule);
            let test = rules::decide(rule, &small, &big, grid, level, &rule_words(&small.rules));
            out.push(Tried {
                small,
                big: big.clone(),
                test,
            });
        }
        Some(out)
    }
}

/// The rules kept on `check`, from its plain model (fitted in `fits`);
/// `None` when cancelled.
pub(crate) fn select(
    fits: &mut Fits,
    data: &Data,
    deals: &Deals,
    check: Check,
    near: Option<&[f64]>,
    progress: &Progress,
) -> Option<Selection> {
    let mut run = Run {
        fits,
        data,
        near,
        progress,
        cand: Candidates::of(deals),
        mercy_grid: 1,
        tried: Vec::new(),
    };
    let mut kept = Rules::plain(check);
    let mut left_out: Vec<&str> = Vec::new();
    // Each round adds a rule or stops, and a rule that leaves never comes
    // back: at most two rounds a rule.
    for _ in 0..2 * RULE_NAMES.len() {
        let left: Vec<&'static str> = run
            .cand
            .rules
            .iter()
            .copied()
            .filter(|r| !has(&kept, r) && !left_out.contains(r))
            .collect();
        if left.is_empty() {
            break;
        }
        let level = RULE_ALPHA / left.len() as f64;
        let small = run.fit(&kept)?;
        let mut best: Option<(RuleTest, Rules, usize)> = None;
        for rule in left {
            let (big, grid) = run.extend(&kept, rule)?;
            let test = rules::decide(rule, &small, &big, grid, level, &rule_words(&kept));
            if best.as_ref().is_none_or(|b| test.p < b.0.p) {
                best = Some((test.clone(), big.rules.clone(), grid));
            }
            run.record(Tried {
                small: small.clone(),
                big,
                test,
            });
        }
        let Some((test, rules, grid)) = best.filter(|b| b.0.kept) else {
            break;
        };
        if test.rule == "mercy" {
            run.mercy_grid = grid;
        }
        kept = rules;
        // Backward: the worst kept rule leaves while one fails.
        loop {
            let tests = run.backward_tests(&kept)?;
            let worst = tests
                .into_iter()
                .filter(|t| !t.test.kept)
                .max_by(|a, b| a.test.p.total_cmp(&b.test.p));
            let Some(w) = worst else { break };
            kept = w.small.rules.clone();
            left_out.push(w.test.rule);
            run.record(w);
        }
    }
    for t in run.backward_tests(&kept)? {
        run.record(t);
    }
    let mut tried = run.tried;
    tried.sort_by_key(|t| RULE_NAMES.iter().position(|r| *r == t.test.rule));
    Some(Selection { kept, tried })
}

/// Drops, one at a time, the kept rule whose removal predicts held-out
/// games best, while removing it predicts them better than keeping it
/// (`held`: a model's held-out log-likelihood per deal, `None` when it
/// cannot be scored).
pub(crate) fn veto(sel: &mut Selection, held: &mut dyn FnMut(&Rules) -> Option<f64>) {
    loop {
        let Some(with) = held(&sel.kept) else { return };
        let mut worst: Option<(&'static str, f64)> = None;
        for rule in kept_rules(&sel.kept) {
            let Some(less) = held(&without(&sel.kept, rule)) else {
                continue;
            };
            if less > with && worst.is_none_or(|w| less > w.1) {
                worst = Some((rule, less));
            }
        }
        let Some((rule, less)) = worst else { return };
        sel.kept = without(&sel.kept, rule);
        if let Some(t) = sel.tried.iter_mut().find(|t| t.test.rule == rule) {
            t.test.kept = false;
            t.test.why = format!(
                "not kept: p={:.3e} is below its level {:.4}, but held-out games are predicted worse with it ({with:.4} against {less:.4} per deal)",
                t.test.p, t.test.level
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_added_and_removed_by_name_and_named_without_the_check() {
        let mut r = Rules::plain(Check::Reject);
        assert_eq!(rule_words(&r), "");
        r.repeat = true;
        r.mercy = Some(4);
        assert_eq!(rule_words(&r), "repeat+mercy4");
        assert_eq!(kept_rules(&r), ["repeat", "mercy"]);
        let less = without(&r, "mercy");
        assert!(less.repeat && less.mercy.is_none() && less.check == Check::Reject);
        assert!(has(&r, "repeat") && !has(&r, "bands") && has(&r, "mercy"));
    }
}
