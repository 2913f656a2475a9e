//! The check's verdict: which kind of check (none, reject, repair) dealt
//! the deals, decided by Vuong's test for non-nested models on the final
//! models (rules included).
//!
//! A fixed margin of log-likelihood is not a fixed error rate: the
//! difference of two non-nested models' log-likelihoods is a sum over
//! deals, so its spread grows like the square root of the number of deals
//! (measured: a margin of 2 decided `reject`'s 12,500-deal logs wrong). Vuong
//! (1989) divides the sum of the per-deal differences by its own standard
//! error: under the hypothesis that the two models are equally close to the
//! truth, z is standard normal at any log length, so a wrong model wins by
//! z at most with the normal tail's chance. The chosen model is the likeliest
//! of several (repair is fitted under each policy), so the level is shared
//! among every model that could have been chosen instead (Bonferroni): the
//! edge a family gains by being the best of three policies is paid for.
//! Deals are dependent within a game, but each deal's log-likelihood is
//! conditional on everything before it, so under the truth the differences
//! form a martingale difference sequence and the normal limit still holds.

use crate::fits::generator::likelihood::Check;
use crate::stats::survival::z_of;

/// The chance of deciding the wrong kind of check (one-sided, shared by
/// every model that could have been chosen).
pub const VERDICT_ALPHA: f64 = 0.05;

/// A kind of check: what the verdict decides ("none", "reject", "repair";
/// repair's policy is not a kind).
pub fn kind(c: Check) -> &'static str {
    match c {
        Check::None => "none",
        Check::Reject => "reject",
        Check::Repair { .. } => "repair",
    }
}

/// One final model as the verdict sees it.
pub struct Candidate<'a> {
    pub check: Check,
    pub loglik: f64,
    /// Each deal's log-likelihood, the same deals in the same order for
    /// every candidate.
    pub per_deal: &'a [f64],
}

/// The verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// The likeliest model's kind.
    pub chosen: &'static str,
    pub decided: bool,
    /// The other kind closest to the chosen by z (every kind not beaten,
    /// likeliest first, joined by commas, when undecided).
    pub runner_up: String,
    /// Log-likelihood over the runner-up kind's best model.
    pub margin: f64,
    /// Vuong's z against the runner-up (the smallest over the other kinds),
    /// and the z needed to decide.
    pub z: f64,
    pub needed: f64,
    /// Models the level was shared among.
    pub comparisons: usize,
}

/// Vuong's z of `a` over `b`: the sum of the per-deal differences over its
/// standard error. 0 when the models agree on every deal.
pub fn vuong_z(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    if n == 0 {
        return 0.0;
    }
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    if d.iter().any(|x| !x.is_finite()) {
        // One of them cannot deal a deal the other can.
        let s: f64 = d.iter().filter(|x| x.is_infinite()).sum();
        return if s.is_nan() { 0.0 } else { s };
    }
    let mean = d.iter().sum::<f64>() / n as f64;
    let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
    // One deal decides nothing; the same difference on every deal decides
    // by its sign (no spread: the standard error is 0), unless it is none.
    if n < 2 {
        return 0.0;
    }
    if var <= 1e-24 {
        return if mean.abs() <= 1e-12 {
            0.0
        } else {
            mean.signum() * f64::INFINITY
        };
    }
    mean * (n as f64).sqrt() / var.sqrt()
}

/// The z a model must beat every other kind by, with `others` models that
/// could have been chosen instead.
pub fn needed(others: usize) -> f64 {
    // One-sided: 1 - alpha/m as a two-sided level of 1 - 2 alpha/m.
    z_of(1.0 - 2.0 * VERDICT_ALPHA / others.max(1) as f64)
}

/// Decides among `models` (at least one).
pub fn decide(models: &[Candidate]) -> Verdict {
    let finite: Vec<&Candidate> = models.iter().filter(|m| m.loglik.is_finite()).collect();
    let Some(best) = finite
        .iter()
        .max_by(|a, b| a.loglik.total_cmp(&b.loglik))
        .copied()
    else {
        return Verdict {
            chosen: models.first().map_or("none", |m| kind(m.check)),
            decided: false,
            runner_up: "every model (none can deal these deals)".to_owned(),
            margin: 0.0,
            z: 0.0,
            needed: f64::INFINITY,
            comparisons: 0,
        };
    };
    let chosen = kind(best.check);
    let comparisons = models.len().saturating_sub(1);
    let need = needed(comparisons);
    // Each other kind: its likeliest model's log-likelihood, and the
    // smallest z of the chosen over any of its models (the level was
    // shared among all of them, so each must be beaten).
    let mut others: Vec<(&'static str, f64, f64)> = Vec::new();
    for m in models {
        let k = kind(m.check);
        if k == chosen {
            continue;
        }
        let z = if m.loglik.is_finite() {
            vuong_z(best.per_deal, m.per_deal)
        } else {
            f64::INFINITY
        };
        match others.iter_mut().find(|o| o.0 == k) {
            Some(o) => *o = (k, o.1.max(m.loglik), o.2.min(z)),
            None => others.push((k, m.loglik, z)),
        }
    }
    let Some(closest) = others.iter().min_by(|a, b| a.2.total_cmp(&b.2)).copied() else {
        return Verdict {
            chosen,
            decided: true,
            runner_up: "none fitted".to_owned(),
            margin: f64::INFINITY,
            z: f64::INFINITY,
            needed: need,
            comparisons,
        };
    };
    let decided = others.iter().all(|o| o.2 >= need);
    let mut close: Vec<&(&str, f64, f64)> = others.iter().filter(|o| o.2 < need).collect();
    close.sort_by(|a, b| b.1.total_cmp(&a.1));
    let runner_up = if !decided && close.len() > 1 {
        close.iter().map(|o| o.0).collect::<Vec<_>>().join(",")
    } else {
        closest.0.to_owned()
    };
    let margin = if closest.1.is_finite() {
        best.loglik - closest.1
    } else {
        f64::INFINITY
    };
    Verdict {
        chosen,
        decided,
        runner_up,
        margin,
        z: closest.2,
        needed: need,
        comparisons,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::generator::Generator;
    use crate::search::heuristic::Policy;

    fn normal(rng: &mut Generator) -> f64 {
        // Box-Muller from two uniforms.
        let (u, v) = (rng.unit().max(1e-300), rng.unit());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    #[test]
    fn z_is_the_mean_difference_over_its_standard_error() {
        let a = [1.0, 2.0, 3.0, 4.0];
        let b = [0.0, 0.0, 0.0, 0.0];
        // mean 2.5, variance 1.25, n 4: 2.5 * 2 / sqrt(1.25).
        assert!((vuong_z(&a, &b) - 5.0 / 1.25f64.sqrt()).abs() < 1e-12);
        assert!((vuong_z(&b, &a) + 5.0 / 1.25f64.sqrt()).abs() < 1e-12);
        assert_eq!(vuong_z(&a, &a), 0.0, "the same model: nothing to tell");
        assert_eq!(vuong_z(&[3.0], &[1.0]), 0.0, "one deal decides nothing");
        assert_eq!(vuong_z(&[3.0, 3.0], &[3.0, 3.0]), 0.0, "the same model");
        assert_eq!(
            vuong_z(&[3.0, 3.0], &[1.0, 1.0]),
            f64::INFINITY,
            "better on every deal alike"
        );
        assert_eq!(vuong_z(&[1.0, 1.0], &[3.0, 3.0]), f64::NEG_INFINITY);
        assert_eq!(vuong_z(&[], &[]), 0.0, "no deals");
        assert_eq!(vuong_z(&[1.0], &[f64::NEG_INFINITY]), f64::INFINITY);
    }

    #[test]
    fn the_needed_z_grows_with_the_models_that_could_have_been_chosen() {
        assert!((needed(1) - 1.644_854).abs() < 1e-5, "{}", needed(1));
        assert!((needed(4) - 2.241_403).abs() < 1e-5, "{}", needed(4));
        assert!(needed(6) > needed(4));
    }

    /// The point of the test: with a fixed spread per deal, the difference
    /// of log-likelihoods of two equally good models wanders like the root
    /// of the deals, so a fixed margin decides more often the longer the
    /// log; Vuong's z does not. Drawn per-deal differences with mean 0.
    #[test]
    fn two_equally_good_models_are_decided_apart_at_most_at_the_level_at_any_length() {
        let mut rng = Generator::new(11);
        for deals in [2_000usize, 50_000] {
            let (mut by_margin, mut by_z) = (0, 0);
            let reps = 400;
            for _ in 0..reps {
                let a: Vec<f64> = (0..deals).map(|_| 0.05 * normal(&mut rng)).collect();
                let b = vec![0.0; deals];
                let sum: f64 = a.iter().sum();
                by_margin += usize::from(sum >= 2.0);
                by_z += usize::from(vuong_z(&a, &b) >= needed(1));
            }
            // The z decides about 5 % wherever; the margin's rate grows.
            assert!(by_z <= reps * 9 / 100, "{deals}: {by_z}");
            if deals == 50_000 {
                assert!(by_margin > reps / 5, "the fixed margin: {by_margin}");
            }
        }
    }

    #[test]
    fn the_verdict_names_the_kind_and_pays_for_repairs_policies() {
        let n = 400;
        let mut rng = Generator::new(3);
        let good: Vec<f64> = (0..n).map(|_| -1.0 + 0.1 * normal(&mut rng)).collect();
        let worse: Vec<f64> = good.iter().map(|x| x - 0.2).collect();
        let close: Vec<f64> = good.iter().map(|x| x - 0.001 + 0.05 * normal(&mut rng)).collect();
        let sum = |v: &[f64]| v.iter().sum::<f64>();
        let repair = |p| Check::Repair {
            policy: p,
            redraws: 64,
        };
        let decided = decide(&[
            Candidate {
                check: Check::None,
                loglik: sum(&worse),
                per_deal: &worse,
            },
            Candidate {
                check: Check::Reject,
                loglik: sum(&good),
                per_deal: &good,
            },
            Candidate {
                check: repair(Policy::Deepest),
                loglik: sum(&worse),
                per_deal: &worse,
            },
        ]);
        assert_eq!(decided.chosen, "reject");
        assert!(decided.decided, "{decided:?}");
        assert_eq!(decided.comparisons, 2);
        let undecided = decide(&[
            Candidate {
                check: Check::Reject,
                loglik: sum(&good),
                per_deal: &good,
            },
            Candidate {
                check: repair(Policy::Deepest),
                loglik: sum(&close),
                per_deal: &close,
            },
            Candidate {
                check: repair(Policy::Last),
                loglik: sum(&worse),
                per_deal: &worse,
            },
        ]);
        assert!(!undecided.decided, "{undecided:?}");
        // Whichever of the two close ones is likelier, the other is named.
        let pair = [undecided.chosen, undecided.runner_up.as_str()];
        assert!(
            pair.contains(&"reject") && pair.contains(&"repair"),
            "{undecided:?}"
        );
        // Every model impossible: undecided, said so.
        let inf = vec![f64::NEG_INFINITY; 3];
        let none = decide(&[Candidate {
            check: Check::None,
            loglik: f64::NEG_INFINITY,
            per_deal: &inf,
        }]);
        assert!(!none.decided);
    }
}
