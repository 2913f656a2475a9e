//! Which adaptive rules the final model keeps, by tests whose null
//! distribution is right:
//!
//! - `repeat_previous`: its null value, a chance of 0, is on the boundary of
//!   the parameter space, so the likelihood ratio's reference is a 50:50
//!   mixture of χ²(0) and χ²(1) (Self and Liang 1987): half the plain p.
//! - mercy: its wait k is picked from a grid as the likeliest, so the
//!   statistic is the largest of one test per k tried; its p is the plain p
//!   times the number of waits tried (Bonferroni: never below the true p).
//! - fill bands: χ² with the extra shares as degrees of freedom.
//!
//! The rules tried share the level by Holm's step-down (the family's chance
//! of keeping any rule the truth lacks stays at most `RULE_ALPHA`), and a
//! rule the held-out likelihood contradicts (the model with it predicts
//! other games' deals worse) is not kept, whatever its p: a test on the
//! deals fitted cannot outvote a prediction of deals not fitted.

use statrs::distribution::{ChiSquared, ContinuousCDF};

use crate::fits::generator::RULE_ALPHA;
use crate::fits::generator::fit::Fitted;

/// One rule's fit against the plain check it extends.
pub struct Tried<'a> {
    pub rule: &'static str,
    pub fit: &'a Fitted,
    /// Values of the rule's setting tried (mercy's waits), the best kept.
    pub grid: usize,
    /// Held-out log-likelihood per deal, when scored.
    pub held_out: Option<f64>,
}

/// A rule's test.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleTest {
    pub rule: &'static str,
    pub statistic: f64,
    pub df: usize,
    /// The p from the right reference (boundary, grid), before Holm.
    pub p: f64,
    /// The level Holm's step-down gave this test.
    pub level: f64,
    pub kept: bool,
    /// Why it is or is not kept, in words.
    pub why: String,
}

/// The right p of `t`'s likelihood ratio over `plain`, with its statistic
/// and degrees of freedom; `None` when either cannot deal the deals.
pub fn p_of(plain: &Fitted, t: &Tried) -> Option<(f64, usize, f64)> {
    if !(plain.loglik.is_finite() && t.fit.loglik.is_finite()) {
        return None;
    }
    let df = t.fit.params.saturating_sub(plain.params).max(1);
    let stat = (2.0 * (t.fit.loglik - plain.loglik)).max(0.0);
    let tail = ChiSquared::new(df as f64).map_or(f64::NAN, |c| 1.0 - c.cdf(stat));
    let p = match t.rule {
        // Half the mass of the mixture sits at 0: a statistic of exactly 0
        // has p 1.
        "repeat" if stat <= 0.0 => 1.0,
        "repeat" => 0.5 * tail,
        "mercy" => (tail * t.grid.max(1) as f64).min(1.0),
        _ => tail,
    };
    Some((stat, df, p))
}

/// The tests of `tried` over `plain` (held-out per deal `plain_held`).
pub fn test(plain: &Fitted, plain_held: Option<f64>, tried: &[Tried]) -> Vec<RuleTest> {
    let mut tests: Vec<RuleTest> = tried
        .iter()
        .map(|t| {
            let (statistic, df, p) = p_of(plain, t).unwrap_or((f64::NAN, 0, 1.0));
            RuleTest {
                rule: t.rule,
                statistic,
                df,
                p,
                level: 0.0,
                kept: false,
                why: String::new(),
            }
        })
        .collect();
    // Holm: the i-th smallest p against alpha / (m - i), stopping at the
    // first that fails.
    let m = tests.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| tests[a].p.total_cmp(&tests[b].p));
    let mut rejecting = true;
    for (rank, &i) in order.iter().enumerate() {
        let level = RULE_ALPHA / (m - rank) as f64;
        let t = &mut tests[i];
        t.level = level;
        rejecting = rejecting && t.p < level;
        let held = tried[i].held_out;
        let contradicted = matches!((held, plain_held), (Some(h), Some(p)) if h < p);
        t.kept = rejecting && !contradicted;
        t.why = if !rejecting {
            format!("not kept: p={:.3e} is not below its level {:.4}", t.p, level)
        } else if contradicted {
            format!(
                "not kept: p={:.3e} is below its level {:.4}, but held-out games are predicted worse with it ({:.4} against {:.4} per deal)",
                t.p,
                level,
                held.unwrap_or(f64::NAN),
                plain_held.unwrap_or(f64::NAN)
            )
        } else {
            format!("kept: p={:.3e} below its level {:.4}", t.p, level)
        };
    }
    tests
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fits::generator::fit::Rules;
    use crate::fits::generator::likelihood::Check;

    fn fitted(loglik: f64, params: usize) -> Fitted {
        Fitted {
            rules: Rules::plain(Check::None),
            weights: Vec::new(),
            intervals: Vec::new(),
            repeat: None,
            repeat_ci: (0.0, 0.0),
            loglik,
            params,
            deals: 100,
            impossible: 0,
            steps: 1,
            converged: true,
        }
    }

    #[test]
    fn repeat_is_tested_on_the_boundary_and_mercy_pays_for_its_grid() {
        let plain = fitted(-100.0, 10);
        let big = fitted(-100.0 + 3.841_458_8 / 2.0, 11);
        let t = |rule, grid| Tried {
            rule,
            fit: &big,
            grid,
            held_out: None,
        };
        // A statistic at χ²(1)'s 95 % point: p 0.05 plain, 0.025 on the boundary.
        let (_, df, p) = p_of(&plain, &t("bands", 1)).unwrap();
        assert_eq!(df, 1);
        assert!((p - 0.05).abs() < 1e-6, "{p}");
        let (_, _, p) = p_of(&plain, &t("repeat", 1)).unwrap();
        assert!((p - 0.025).abs() < 1e-6, "{p}");
        let (_, _, p) = p_of(&plain, &t("mercy", 6)).unwrap();
        assert!((p - 0.3).abs() < 1e-6, "{p}");
        let same = fitted(-100.0, 11);
        let (_, _, p) = p_of(
            &plain,
            &Tried {
                rule: "repeat",
                fit: &same,
                grid: 1,
                held_out: None,
            },
        )
        .unwrap();
        assert_eq!(p, 1.0);
    }

    #[test]
    fn holm_shares_the_level_and_the_held_out_likelihood_can_veto() {
        let plain = fitted(-1000.0, 10);
        // Statistics of 20 (p about 4e-6 at 1 df) and 7 (p about 0.008).
        let strong = fitted(-990.0, 11);
        let weak = fitted(-996.5, 11);
        let tried = [
            Tried {
                rule: "bands",
                fit: &strong,
                grid: 1,
                held_out: None,
            },
            Tried {
                rule: "mercy",
                fit: &weak,
                grid: 1,
                held_out: None,
            },
        ];
        let tests = test(&plain, None, &tried);
        assert!(tests[0].kept, "{:?}", tests[0]);
        assert!((tests[0].level - RULE_ALPHA / 2.0).abs() < 1e-12);
        // 0.008 is below 0.01 alone, and Holm's second level is 0.01.
        assert!(tests[1].kept, "{:?}", tests[1]);
        // Three rules: the weak one's p must beat 0.01/2 at its rank.
        let tried3 = [
            Tried {
                rule: "bands",
                fit: &strong,
                grid: 1,
                held_out: None,
            },
            Tried {
                rule: "mercy",
                fit: &weak,
                grid: 1,
                held_out: None,
            },
            Tried {
                rule: "repeat",
                fit: &plain,
                grid: 1,
                held_out: None,
            },
        ];
        let tests = test(&plain, None, &tried3);
        assert!(tests[0].kept);
        assert!(!tests[1].kept, "{:?}", tests[1]);
        assert!(!tests[2].kept);
        // The held-out likelihood says the strong rule predicts worse.
        let vetoed = test(
            &plain,
            Some(-10.085),
            &[Tried {
                rule: "bands",
                fit: &strong,
                grid: 1,
                held_out: Some(-10.135),
            }],
        );
        assert!(!vetoed[0].kept);
        assert!(vetoed[0].why.contains("held-out"), "{}", vetoed[0].why);
    }
}
