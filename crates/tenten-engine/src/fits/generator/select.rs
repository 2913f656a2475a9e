//! Which adaptive rules the final model keeps: forward-backward selection
//! on nested models.
//!
//! One level for every test: `RULE_ALPHA` over the rules the log can test
//! (Bonferroni: the chance of keeping any rule the truth lacks stays near
//! `RULE_ALPHA`). Forward: every rule not yet kept is fitted on top of the
//! rules kept, and the one with the smallest p (`rules::p_of`, given the
//! rules kept) joins when that p is below the level. Backward, after each
//! addition: every kept rule is tested against the kept set without it at
//! the same level, and the worst one leaves while one fails (a rule that
//! only stood in for a later one); a rule that left is not tried again, so
//! the selection cannot cycle. The same level in and out: a rule that
//! just joined cannot fail at once, nor push out an older rule it could
//! not have joined beside.
//!
//! Why not each rule against the plain check: when the truth has another
//! rule, the plain check is the wrong null and the tested rule takes up
//! the missing one's slack (fill bands mimic a repeat chance; mercy mimics
//! bands). Measured over the 200-replication study of session 11: every
//! false rule kept came from a truth with some other rule.
//!
//! `veto` then drops a kept rule the held-out likelihood contradicts (the
//! kept set predicts other games' deals worse than the kept set without
//! it), and `retest` tests the rules left against the set they are in.

use std::sync::atomic::Ordering;

use statrs::distribution::{ContinuousCDF, StudentsT};

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
pub(crate) struct Fits {
    pub fitted: Vec<Fitted>,
    /// Fits already counted in the progress's total (`learn` counts the
    /// ones a selection usually needs up front, so the bar does not step
    /// back at each); the rest grow the total as they start.
    pub counted: usize,
}

impl Fits {
    pub fn new(fitted: Vec<Fitted>, counted: usize) -> Self {
        Fits { fitted, counted }
    }

    pub fn get(&self, rules: &Rules) -> Option<&Fitted> {
        self.fitted.iter().find(|f| &f.rules == rules)
    }

    /// `rules`' fit, fitted now (EM from `near`) when it is not yet; a fit
    /// beyond those counted grows the progress's total by its unit first,
    /// so the bar stays true however many models the selection needs.
    /// `None` when cancelled.
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
        if self.counted > 0 {
            self.counted -= 1;
        } else {
            progress.total.fetch_add(fit_unit(data.boards), Ordering::Relaxed);
        }
        let f = fit::fit_from(data, rules, near, progress)?;
        self.fitted.push(f.clone());
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
    /// The level every test was held to.
    pub level: f64,
    /// Mercy's waits tried when it joined (its grid, for its p).
    pub mercy_grid: usize,
}

/// What a log can test: fill bands when it fills more than one band, and
/// the waits of mercy some `MIN_BAND_DEALS` deals reached.
pub(crate) struct Candidates {
    pub rules: Vec<&'static str>,
    cuts: Vec<f64>,
    pub waits: Vec<u32>,
}

impl Candidates {
    pub(crate) fn of(deals: &Deals) -> Self {
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
    level: f64,
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

    fn record(&mut self, t: Tried) {
        self.tried.retain(|x| x.test.rule != t.test.rule);
        self.tried.push(t);
    }

    /// Each kept rule against `kept` without it; the tests, in
    /// `RULE_NAMES`' order.
    fn backward_tests(&mut self, kept: &Rules) -> Option<Vec<Tried>> {
        backward_tests(
            self.fits,
            self.data,
            self.near,
            self.progress,
            kept,
            self.level,
            self.mercy_grid,
        )
    }
}

/// Each rule `kept` keeps, tested against `kept` without it at `level`.
fn backward_tests(
    fits: &mut Fits,
    data: &Data,
    near: Option<&[f64]>,
    progress: &Progress,
    kept: &Rules,
    level: f64,
    mercy_grid: usize,
) -> Option<Vec<Tried>> {
    let big = fits.fit(data, kept, near, progress)?;
    let mut out = Vec::new();
    for rule in kept_rules(kept) {
        let small = fits.fit(data, &without(kept, rule), near, progress)?;
        let grid = if rule == "mercy" { mercy_grid } else { 1 };
        let test = rules::decide(rule, &small, &big, grid, level, &rule_words(&small.rules));
        out.push(Tried {
            small,
            big: big.clone(),
            test,
        });
    }
    Some(out)
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
    let cand = Candidates::of(deals);
    let level = RULE_ALPHA / cand.rules.len() as f64;
    let mut run = Run {
        fits,
        data,
        near,
        progress,
        cand,
        level,
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
    Some(Selection {
        kept,
        tried,
        level,
        mercy_grid: run.mercy_grid,
    })
}

/// Each deal's held-out log-likelihood under a model (`None` when it
/// cannot be scored).
pub(crate) type Held = Option<std::rc::Rc<Vec<f64>>>;

/// How much better `less` predicts the held-out deals than `with`: the
/// total difference in log-likelihood and its z, clustered by game (the
/// deals of a game are not independent). A model that cannot deal a deal
/// the other can is infinitely worse.
pub(crate) fn held_gain(less: &[f64], with: &[f64], games: &[usize]) -> (f64, f64) {
    let (sl, sw): (f64, f64) = (less.iter().sum(), with.iter().sum());
    if !(sl.is_finite() && sw.is_finite()) {
        // Both unable to deal some deal: no difference to weigh.
        let d = if sl == sw { 0.0 } else { sl - sw };
        return (d, if d == 0.0 { 0.0 } else { d.signum() * f64::INFINITY });
    }
    let d: Vec<f64> = less.iter().zip(with).map(|(a, b)| a - b).collect();
    let total: f64 = d.iter().sum();
    let mean = total / d.len().max(1) as f64;
    let mut by_game: std::collections::BTreeMap<usize, (f64, f64)> = Default::default();
    for (x, g) in d.iter().zip(games) {
        let e = by_game.entry(*g).or_default();
        e.0 += x;
        e.1 += 1.0;
    }
    let k = by_game.len() as f64;
    let var = if k > 1.0 {
        k / (k - 1.0) * by_game.values().map(|(s, n)| (s - n * mean).powi(2)).sum::<f64>()
    } else {
        f64::NAN
    };
    // No spread across games: the difference is what it is in every game.
    let z = if var > 0.0 {
        total / var.sqrt()
    } else if var == 0.0 && total != 0.0 {
        total.signum() * f64::INFINITY
    } else if var == 0.0 {
        0.0
    } else {
        f64::NAN
    };
    (total, z)
}

/// The z at which the held-out deals of `games` games contradict a rule:
/// removing it predicts them better at one-sided 2.5 %. A z clustered by
/// game behaves as Student's t with one degree of freedom fewer than the
/// games (1.96 only with many games; 12.7 with two).
pub fn needed_z(games: usize) -> f64 {
    if games < 2 {
        return f64::INFINITY;
    }
    StudentsT::new(0.0, 1.0, (games - 1) as f64).map_or(f64::INFINITY, |t| t.inverse_cdf(0.975))
}

/// Drops, one at a time, the kept rule whose removal predicts held-out
/// games most surely better (the largest z), while one does so by more than
/// chance (`held_gain`'s z at least `needed_z`, clustered by game): with few
/// games the two folds' scores are noisy, and a rule the tests found
/// overwhelming is not thrown away on a coin toss. A rule the held-out deals predict
/// worse but within chance is kept with that said. `held`: each deal's
/// held-out log-likelihood under a model; `games`: each deal's game. True
/// when a rule was dropped.
pub(crate) fn veto(sel: &mut Selection, held: &mut dyn FnMut(&Rules) -> Held, games: &[usize]) -> bool {
    let mut dropped = false;
    let needed = needed_z(games.iter().collect::<std::collections::BTreeSet<_>>().len());
    loop {
        let Some(with) = held(&sel.kept) else {
            return dropped;
        };
        let mut worst: Option<(&'static str, f64, f64)> = None;
        let mut within: Vec<(&'static str, f64, f64)> = Vec::new();
        for rule in kept_rules(&sel.kept) {
            let Some(less) = held(&without(&sel.kept, rule)) else {
                continue;
            };
            let (gain, z) = held_gain(&less, &with, games);
            if gain <= 0.0 {
                continue;
            }
            if z >= needed {
                if worst.is_none_or(|w| z > w.2) {
                    worst = Some((rule, gain, z));
                }
            } else {
                within.push((rule, gain, z));
            }
        }
        let n = games.len().max(1) as f64;
        let Some((rule, gain, z)) = worst else {
            for (rule, gain, z) in within {
                if let Some(t) = sel.tried.iter_mut().find(|t| t.test.rule == rule) {
                    t.test.why.push_str(&format!(
                        "; held-out games are predicted a little worse with it ({:.4} per deal), within chance (z={z:.2} by game, {needed:.2} needed to drop it)",
                        gain / n
                    ));
                }
            }
            return dropped;
        };
        dropped = true;
        sel.kept = without(&sel.kept, rule);
        if let Some(t) = sel.tried.iter_mut().find(|t| t.test.rule == rule) {
            t.test.kept = false;
            t.test.why = format!(
                "not kept: p={:.3e} is below its level {:.4}, but held-out games are predicted worse with it, by {:.4} per deal (z={z:.2} by game)",
                t.test.p,
                t.test.level,
                gain / n
            );
        }
    }
}

/// The rules left after a veto, tested again against the set they are now
/// in, the worst leaving while one fails (as the selection's backward
/// step), so every row describes the model shipped. `None` when
/// cancelled.
pub(crate) fn retest(sel: &mut Selection, fits: &mut Fits, data: &Data, progress: &Progress) -> Option<()> {
    loop {
        let tests = backward_tests(fits, data, None, progress, &sel.kept, sel.level, sel.mercy_grid)?;
        let worst = tests
            .iter()
            .filter(|t| !t.test.kept)
            .max_by(|a, b| a.test.p.total_cmp(&b.test.p))
            .map(|t| t.test.rule);
        for mut t in tests {
            let Some(x) = sel.tried.iter_mut().find(|x| x.test.rule == t.test.rule) else {
                continue;
            };
            // The veto's note on the held-out deals stays with the rule.
            if let Some(at) = x.test.why.find("; held-out games") {
                t.test.why.push_str(&x.test.why[at..]);
            }
            if Some(t.test.rule) == worst {
                t.test.why = format!("{} after the held-out veto", t.test.why);
            }
            *x = t;
        }
        let Some(rule) = worst else { return Some(()) };
        sel.kept = without(&sel.kept, rule);
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

    fn fitted(rules: Rules) -> Fitted {
        Fitted {
            rules,
            weights: Vec::new(),
            intervals: Vec::new(),
            repeat: None,
            repeat_ci: (0.0, 0.0),
            loglik: -100.0,
            params: 10,
            deals: 100,
            impossible: 0,
            steps: 1,
            converged: true,
        }
    }

    fn tried(rule: &'static str, kept: &Rules) -> Tried {
        Tried {
            small: fitted(without(kept, rule)),
            big: fitted(kept.clone()),
            test: RuleTest {
                rule,
                statistic: 30.0,
                df: 1,
                p: 1e-6,
                level: 0.01 / 3.0,
                kept: true,
                why: "kept".to_owned(),
            },
        }
    }

    #[test]
    fn the_held_out_veto_drops_the_rule_whose_removal_predicts_best_and_only_while_one_does() {
        let mut kept = Rules::plain(Check::None);
        kept.repeat = true;
        kept.mercy = Some(2);
        let mut sel = Selection {
            kept: kept.clone(),
            tried: vec![tried("repeat", &kept), tried("mercy", &kept)],
            level: 0.01 / 3.0,
            mercy_grid: 2,
        };
        // Held-out per deal over 40 games of 5 deals: the kept set about
        // -8.40; without mercy better by 0.05 a deal in every game, give
        // or take (mercy contradicted); without repeat worse.
        let games: Vec<usize> = (0..200).map(|i| i / 5).collect();
        let noise = |i: usize| 0.01 * ((i * 7919 % 13) as f64 - 6.0);
        let mut asked = Vec::new();
        let mut held = |r: &Rules| -> Held {
            asked.push(rule_words(r));
            let base = match (r.repeat, r.mercy.is_some()) {
                (true, true) => -8.40,
                (true, false) => -8.35,
                (false, true) => -8.60,
                (false, false) => -8.70,
            };
            Some(std::rc::Rc::new((0..200).map(|i| base + noise(i)).collect()))
        };
        assert!(veto(&mut sel, &mut held, &games));
        assert!(
            sel.kept.repeat && sel.kept.mercy.is_none(),
            "{}",
            rule_words(&sel.kept)
        );
        let mercy = &sel.tried[1].test;
        assert!(
            !mercy.kept
                && mercy
                    .why
                    .contains("held-out games are predicted worse with it, by 0.0500 per deal"),
            "{}",
            mercy.why
        );
        assert!(sel.tried[0].test.kept);
        // Then repeat alone: removing it predicts worse, so it stays.
        assert!(asked.contains(&"".to_owned()));
        let mut none = |_: &Rules| None;
        assert!(
            !veto(&mut sel, &mut none, &games),
            "a model that cannot be scored vetoes nothing"
        );
    }

    #[test]
    fn a_held_out_contradiction_within_chance_keeps_the_rule_and_says_so() {
        let mut kept = Rules::plain(Check::None);
        kept.repeat = true;
        let mut sel = Selection {
            kept: kept.clone(),
            tried: vec![tried("repeat", &kept)],
            level: 0.01,
            mercy_grid: 1,
        };
        // Without repeat: better by 0.003 a deal on average, but 0.5 better
        // in some games and worse in others.
        let games: Vec<usize> = (0..100).map(|i| i / 5).collect();
        let mut held = |r: &Rules| -> Held {
            Some(std::rc::Rc::new(
                (0..100)
                    .map(|i| {
                        if r.repeat {
                            -8.0
                        } else {
                            -8.0 + 0.003 + if (i / 5) % 2 == 0 { 0.5 } else { -0.5 }
                        }
                    })
                    .collect(),
            ))
        };
        assert!(!veto(&mut sel, &mut held, &games));
        assert!(sel.kept.repeat);
        let why = &sel.tried[0].test.why;
        assert!(why.contains("within chance"), "{why}");
        // Clustered by game: 20 games, each 2.5 better or worse.
        let less: Vec<f64> = (0..100)
            .map(|i| if (i / 5) % 2 == 0 { 1.0 } else { -1.0 })
            .collect();
        let (gain, z) = held_gain(&less, &vec![0.0; 100], &games);
        assert!(gain.abs() < 1e-12 && z.abs() < 1e-12, "{gain} {z}");
        // By hand: games of 2, 1 and 1 deals with differences (1, 2), 0, 3:
        // total 6, mean 1.5; cluster sums 3, 0, 3 against 3, 1.5, 1.5:
        // squares 0, 2.25, 2.25; var = 3/2 * 4.5 = 6.75; z = 6/2.598.
        let (gain, z) = held_gain(&[1.0, 2.0, 0.0, 3.0], &[0.0; 4], &[0, 0, 1, 2]);
        assert!((gain - 6.0).abs() < 1e-12);
        assert!((z - 6.0 / 6.75f64.sqrt()).abs() < 1e-12, "{z}");
        // Student's t: strict with few games, near 1.96 with many.
        assert!((needed_z(2) - 12.706).abs() < 1e-3 && (needed_z(1000) - 1.962).abs() < 1e-3);
        assert_eq!(needed_z(1), f64::INFINITY);
        // Both unable to deal a deal: nothing to weigh.
        assert_eq!(
            held_gain(&[f64::NEG_INFINITY], &[f64::NEG_INFINITY], &[0]),
            (0.0, 0.0)
        );
        // A model that cannot deal a deal the other can is infinitely worse.
        let (gain, z) = held_gain(&[0.0, -1.0], &[0.0, f64::NEG_INFINITY], &[0, 1]);
        assert!(gain == f64::INFINITY && z == f64::INFINITY, "{gain} {z}");
    }
}
