//! The gain estimator: does the interval `tenten adapt` (and the
//! Population view) gives a generator's paired gain over another hold the
//! true gain? Each replication plays `forecast_players` held-out players
//! of the population, each one session under both generators (the same
//! player, the same seeds), and takes the paired relative gain with its
//! 95 % interval (`forecast::paired_gains`, as `adapt` does). The truth is
//! the same gain over `truth_players` players of another seed. Its own
//! error counts against the interval: an exact interval on n players
//! covers a truth measured on N with chance P(|Z| < 1.96/√(1 + n/N)), 0.938
//! at N = 10n and 0.948 at N = 100n. A held population (every range one
//! value) shares one truth, measured once per process; a drawn one has its
//! own each replication.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use serde::{Deserialize, Serialize};

use crate::fits::population::file::Population;
use crate::fits::population::forecast::{Outcome, paired_gains, play_players};
use crate::fits::population::session::{Table, mix};
use crate::model::pieces::PieceSet;
use crate::model::shapes::Shapes;
use crate::play::dealing::Dealing;
use crate::play::generator_file::{self, GeneratorFile, GeneratorSpec};
use crate::progress::Progress;
use crate::study::adapt::Objective;

use super::{Estimate, Plan, replication_seed};

/// One generator of a gain, by value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Arm {
    pub name: String,
    pub file: GeneratorFile,
}

/// The two generators a gain compares (`arm` over `base`) and its
/// objective (`games_per_session`, `reach=R`, `returning_after=N`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Arms {
    pub objective: String,
    pub base: Arm,
    pub arm: Arm,
}

impl Arms {
    /// The objective known and both files dealable from the classic set.
    pub fn check(&self) -> Result<(), String> {
        Objective::parse(&self.objective)?;
        if self.base.file == self.arm.file {
            return Err(format!(
                "arms: {} and {} are the same generator: every player plays the same games under both, a gain of exactly 0 with no width",
                self.base.name, self.arm.name
            ));
        }
        for a in [&self.base, &self.arm] {
            if a.file.pieces.is_some() {
                return Err(format!(
                    "{}: a gain is calibrated on the classic set; this generator names its own pieces",
                    a.name
                ));
            }
            spec(a)?;
        }
        Ok(())
    }
}

fn spec(a: &Arm) -> Result<GeneratorSpec, String> {
    generator_file::resolve_file(a.file.clone(), PieceSet::classic(), &a.name)
        .map_err(|e| format!("{}: {e}", a.name))
}

/// The objective and the two generators (base, arm) of `plan`.
fn arms(plan: &Plan) -> Result<(Objective, GeneratorSpec, GeneratorSpec), String> {
    let set = PieceSet::classic();
    match &plan.arms {
        Some(a) => Ok((Objective::parse(&a.objective)?, spec(&a.base)?, spec(&a.arm)?)),
        None => {
            let by_name = |g: &str| match generator_file::spec_by_name(g, &set) {
                Some(Ok(s)) => Ok(s),
                Some(Err(e)) => Err(e.to_string()),
                None => Err(format!("unknown generator {g:?}")),
            };
            Ok((
                Objective::GamesPerSession,
                by_name(&plan.generator)?,
                by_name(&plan.forecast_generator)?,
            ))
        }
    }
}

/// `players` players of `population` from `seed`, each one session under
/// `spec`.
fn play(
    plan: &Plan,
    population: &Population,
    spec: &GeneratorSpec,
    players: usize,
    seed: u64,
    progress: &Progress,
) -> Result<Option<Vec<Outcome>>, String> {
    let set = PieceSet::classic();
    let shapes = Shapes::new(&set, plan.size()?);
    let dealing = Dealing::file(spec.clone(), &set)?;
    let table = Table::new(&shapes, &set, 3, &dealing, plan.max_rounds);
    Ok(play_players(population, &table, 0..players, seed, progress))
}

/// The relative gain of `arm` over `base` on `players` players from `seed`
/// and its 95 % interval; `Ok(None)` when cancelled.
#[allow(clippy::type_complexity)]
fn measured(
    plan: &Plan,
    population: &Population,
    players: usize,
    seed: u64,
    progress: &Progress,
) -> Result<Option<(f64, (f64, f64))>, String> {
    let (objective, base, arm) = arms(plan)?;
    let Some(b) = play(plan, population, &base, players, seed, progress)? else {
        return Ok(None);
    };
    let Some(a) = play(plan, population, &arm, players, seed, progress)? else {
        return Ok(None);
    };
    let g = paired_gains(&a, &b, objective.index())
        .0
        .ok_or("no player was paired under both generators")?;
    Ok(Some((g.gain, g.ci.unwrap_or((f64::NAN, f64::NAN)))))
}

/// Truths already measured in this process, by what decides them.
fn truths() -> &'static Mutex<HashMap<String, f64>> {
    static TRUTHS: OnceLock<Mutex<HashMap<String, f64>>> = OnceLock::new();
    TRUTHS.get_or_init(Default::default)
}

const TRUTH_STREAM: u64 = 0x6A1E_7207_0000_0001;

/// What decides a held population's truth: the plan less what only the
/// replications' players depend on. `None` for a drawn population, whose
/// truth is its replication's own.
pub(super) fn truth_key(plan: &Plan) -> Option<String> {
    if !plan.ranges.is_fixed() {
        return None;
    }
    let mut p = plan.clone();
    (p.replications, p.forecast_players, p.design) = (1, 0, super::Design::SMALL);
    ron::to_string(&p).ok()
}

/// The true gain for `population` (replication `r`'s): measured on
/// `truth_players` players of a seed of its own; a held population's once
/// per plan and process (two replications starting together may both
/// measure it: the same number, as it is seeded).
fn truth(plan: &Plan, r: usize, population: &Population, progress: &Progress) -> Result<Option<f64>, String> {
    let key = truth_key(plan);
    if let Some(k) = &key
        && let Some(&t) = truths().lock().map_err(|_| "a truth's lock was poisoned")?.get(k)
    {
        return Ok(Some(t));
    }
    let seed = match key {
        Some(_) => mix(plan.seed ^ TRUTH_STREAM),
        None => mix(replication_seed(plan.seed, r) ^ TRUTH_STREAM),
    };
    let Some((t, _)) = measured(plan, population, plan.truth_players, seed, progress)? else {
        return Ok(None);
    };
    if let Some(k) = key {
        truths()
            .lock()
            .map_err(|_| "a truth's lock was poisoned")?
            .insert(k, t);
    }
    Ok(Some(t))
}

/// Replication `r`: the gain and its interval on held-out players, beside
/// the truth. `None` when cancelled.
pub fn replicate(plan: &Plan, r: usize, progress: &Progress) -> Option<Result<Vec<Estimate>, String>> {
    let population = plan.ranges.draw(plan.seed, r);
    let run = || -> Result<Option<Vec<Estimate>>, String> {
        let Some(t) = truth(plan, r, &population, progress)? else {
            return Ok(None);
        };
        let seed = replication_seed(plan.seed, r);
        let Some((g, ci)) = measured(plan, &population, plan.forecast_players, seed, progress)? else {
            return Ok(None);
        };
        let objective = arms(plan)?.0;
        Ok(Some(vec![Estimate::new(
            &format!("gain_{}", objective.name()),
            t,
            g,
            ci,
        )]))
    };
    run().transpose()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::calibrate::{Design, Estimator, Ranges};

    fn plan() -> Plan {
        let mut p = Plan::new(Estimator::Gain, Design::SMALL, 4, 3);
        p.ranges = Ranges::fixed(&crate::fits::population::file::by_name("demo-churn").unwrap()).unwrap();
        p.board = (8, 8);
        p.max_rounds = 60;
        p.forecast_players = 60;
        p.truth_players = 300;
        p
    }

    /// Every replication of a held population shares one truth; the
    /// estimates vary with the replication's players and carry an interval.
    #[test]
    fn replications_share_the_truth_and_vary_the_players() {
        let p = plan();
        assert!(p.check().is_ok());
        let never = Progress::default();
        let a = replicate(&p, 0, &never).unwrap().unwrap();
        let b = replicate(&p, 1, &never).unwrap().unwrap();
        assert_eq!(a[0].parameter, "gain_games_per_session");
        assert_eq!(a[0].truth, b[0].truth);
        // One truth for the held population, whatever the replications.
        let key = truth_key(&p).unwrap();
        let mut more = p.clone();
        more.replications = 400;
        assert_eq!(truth_key(&more).unwrap(), key);
        more.truth_players += 1;
        assert_ne!(truth_key(&more).unwrap(), key);
        assert!(truths().lock().unwrap().contains_key(&key));
        // A drawn population has a truth of its own each replication.
        let mut drawn = p.clone();
        drawn.ranges = Ranges::default();
        assert!(truth_key(&drawn).is_none());
        assert_ne!(a[0].value, b[0].value);
        assert!(a[0].lo < a[0].value && a[0].value < a[0].hi, "{a:?}");
        // repair over random keeps players longer under demo-churn.
        assert!(a[0].truth > 0.0, "{a:?}");
    }

    /// Arms by value: dealt as files, their objective read; the same
    /// generator twice and an unknown objective are refused.
    #[test]
    fn arms_by_value_are_checked_and_dealt() {
        let set = PieceSet::classic();
        let arm = |name: &str| Arm {
            name: name.to_owned(),
            file: generator_file::preset(name, &set).unwrap().file,
        };
        let mut p = plan();
        p.arms = Some(Arms {
            objective: "reach=25".to_owned(),
            base: arm("random"),
            arm: arm("repair"),
        });
        assert!(p.check().is_ok());
        let e = replicate(&p, 0, &Progress::default()).unwrap().unwrap();
        assert_eq!(e[0].parameter, "gain_reach_25");
        assert!(e[0].lo <= e[0].value && e[0].value <= e[0].hi, "{e:?}");
        p.arms.as_mut().unwrap().objective = "reach=7".to_owned();
        assert!(p.check().unwrap_err().contains("objective"));
        p.arms.as_mut().unwrap().objective = "reach=25".to_owned();
        p.arms.as_mut().unwrap().arm = arm("random");
        assert!(p.check().unwrap_err().contains("same generator"));
    }
}
