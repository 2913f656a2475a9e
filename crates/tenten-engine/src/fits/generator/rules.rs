//! The test of one adaptive rule against the nested model without it, by
//! a likelihood ratio whose null distribution is right:
//!
//! - `repeat_previous`: its null value, a chance of 0, is on the boundary of
//!   the parameter space, so the likelihood ratio's reference is a 50:50
//!   mixture of χ²(0) and χ²(1) (Self and Liang 1987): half the plain p.
//! - mercy: its wait k is picked from a grid as the likeliest, so the
//!   statistic is the largest of one test per k tried; its p is the plain p
//!   times the number of waits tried (Bonferroni: never below the true p).
//! - fill bands: χ² with the extra shares as degrees of freedom.
//!
//! Which rules are tried against which models, and at which level, is
//! `select`'s: each rule is tested given the rules already kept, never
//! only against the plain check (a rule tested against a model that lacks
//! another true rule stands in for the missing one).

use statrs::distribution::{ChiSquared, ContinuousCDF};

use crate::fits::generator::fit::Fitted;

/// A rule's test.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleTest {
    pub rule: &'static str,
    pub statistic: f64,
    pub df: usize,
    /// The p from the right reference (boundary, grid).
    pub p: f64,
    /// The level it was held to.
    pub level: f64,
    pub kept: bool,
    /// Why it is or is not kept, in words.
    pub why: String,
}

/// The right p of `big`'s likelihood ratio over the nested `small`, which
/// lacks `rule` (`grid` settings of it tried, the likeliest kept), with its
/// statistic and degrees of freedom; `None` when either cannot deal the
/// deals.
pub fn p_of(small: &Fitted, big: &Fitted, rule: &str, grid: usize) -> Option<(f64, usize, f64)> {
    if !(small.loglik.is_finite() && big.loglik.is_finite()) {
        return None;
    }
    let df = big.params.saturating_sub(small.params).max(1);
    let stat = (2.0 * (big.loglik - small.loglik)).max(0.0);
    let tail = ChiSquared::new(df as f64).map_or(f64::NAN, |c| 1.0 - c.cdf(stat));
    let p = match rule {
        // Half the mass of the mixture sits at 0: a statistic of exactly 0
        // has p 1.
        "repeat" if stat <= 0.0 => 1.0,
        "repeat" => 0.5 * tail,
        "mercy" => (tail * grid.max(1) as f64).min(1.0),
        _ => tail,
    };
    Some((stat, df, p))
}

/// `rule`'s test of `big` over `small` at `level`; `given` names the
/// rules `small` already keeps ("" for none).
pub fn decide(
    rule: &'static str,
    small: &Fitted,
    big: &Fitted,
    grid: usize,
    level: f64,
    given: &str,
) -> RuleTest {
    let (statistic, df, p) = p_of(small, big, rule, grid).unwrap_or((f64::NAN, 0, 1.0));
    let kept = p < level;
    let given = if given.is_empty() {
        String::new()
    } else {
        format!(" given {given}")
    };
    let why = if kept {
        format!("kept: p={p:.3e}{given} below its level {level:.4}")
    } else {
        format!("not kept: p={p:.3e}{given} is not below its level {level:.4}")
    };
    RuleTest {
        rule,
        statistic,
        df,
        p,
        level,
        kept,
        why,
    }
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
        // A statistic at χ²(1)'s 95 % point: p 0.05 plain, 0.025 on the boundary.
        let (_, df, p) = p_of(&plain, &big, "bands", 1).unwrap();
        assert_eq!(df, 1);
        assert!((p - 0.05).abs() < 1e-6, "{p}");
        let (_, _, p) = p_of(&plain, &big, "repeat", 1).unwrap();
        assert!((p - 0.025).abs() < 1e-6, "{p}");
        let (_, _, p) = p_of(&plain, &big, "mercy", 6).unwrap();
        assert!((p - 0.3).abs() < 1e-6, "{p}");
        let same = fitted(-100.0, 11);
        let (_, _, p) = p_of(&plain, &same, "repeat", 1).unwrap();
        assert_eq!(p, 1.0);
        assert!(p_of(&fitted(f64::NEG_INFINITY, 10), &big, "bands", 1).is_none());
    }

    #[test]
    fn a_rule_is_kept_below_its_level_and_says_what_it_was_given() {
        let small = fitted(-1000.0, 10);
        // A statistic of 7 at 1 df: p about 0.008.
        let weak = fitted(-996.5, 11);
        let t = decide("bands", &small, &weak, 1, 0.01, "");
        assert!(t.kept, "{t:?}");
        assert!(t.why.starts_with("kept: p="), "{}", t.why);
        let t = decide("bands", &small, &weak, 1, 0.005, "repeat");
        assert!(!t.kept, "{t:?}");
        assert!(t.why.contains("given repeat"), "{}", t.why);
        assert!((t.level - 0.005).abs() < 1e-15);
        // A model that cannot deal the deals keeps nothing.
        let t = decide("mercy", &fitted(f64::NEG_INFINITY, 10), &weak, 2, 0.01, "");
        assert!(!t.kept && t.p == 1.0);
    }
}
