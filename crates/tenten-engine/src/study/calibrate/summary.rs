//! A study's table: per parameter, the share of replications whose 95 %
//! interval held the truth with that share's own binomial interval, the
//! bias with its Monte Carlo standard error, the RMSE, the median width,
//! and the replications that failed (Morris, White and Crowther 2019,
//! table 6). Defined for every input: no replication gives NaN figures
//! and `calibrated=unknown`, never a panic.

use std::fmt::Write as _;

use crate::stats::survival;

use super::{Plan, Replication};

/// Coverage inside this band is calibrated (the 90-98 %).
pub const CALIBRATED: (f64, f64) = (0.90, 0.98);

/// One parameter's figures over a study's replications.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub parameter: String,
    /// Replications that gave this parameter with a finite truth.
    pub n: usize,
    /// Replications that failed (the whole study's), and the first reason.
    pub failed: usize,
    pub failed_why: Option<String>,
    /// Of the `n`, those with an interval, and those whose interval held
    /// the truth.
    pub with_interval: usize,
    pub covered: usize,
    /// covered / with_interval with its Wilson 95 % interval; NaN without.
    pub coverage: f64,
    pub coverage_ci: (f64, f64),
    pub bias: f64,
    pub bias_mcse: f64,
    pub rmse: f64,
    /// The median of hi − lo (infinite when most intervals are open).
    pub width: f64,
    /// A tune's verdicts: met and confirmed, missed and confirmed, undecided.
    pub verdicts: Option<Verdicts>,
}

/// How a tune's verdicts held on fresh games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Verdicts {
    pub met: usize,
    pub met_confirmed: usize,
    pub missed: usize,
    pub missed_confirmed: usize,
    pub undecided: usize,
}

impl Row {
    /// yes when the coverage lies in 90-98 %; no when it lies outside and
    /// its own interval excludes the nominal 0.95 (the interval is off, not
    /// the replications few); unclear otherwise (more replications would
    /// tell); unknown with no interval to judge.
    pub fn calibrated(&self) -> &'static str {
        calibrated(self.covered, self.with_interval)
    }
}

/// `covered` of `with_interval` intervals held their truth: `yes` in
/// 90-98 %, `no` outside it when the coverage's own interval excludes
/// 0.95, else `unclear`; `unknown` without intervals.
pub fn calibrated(covered: usize, with_interval: usize) -> &'static str {
    let Some((coverage, lo, hi)) = crate::stats::survival::share(covered, with_interval) else {
        return "unknown";
    };
    if (CALIBRATED.0..=CALIBRATED.1).contains(&coverage) {
        "yes"
    } else if !(lo..=hi).contains(&0.95) {
        "no"
    } else {
        "unclear"
    }
}

fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        f64::NAN
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// The table of `reps`, a row per parameter in the order they first appear.
pub fn rows(reps: &[Replication]) -> Vec<Row> {
    let failed: Vec<&Replication> = reps.iter().filter(|r| r.failed.is_some()).collect();
    let mut names: Vec<&str> = Vec::new();
    for e in reps.iter().flat_map(|r| &r.estimates) {
        if !names.contains(&e.parameter.as_str()) {
            names.push(&e.parameter);
        }
    }
    names
        .into_iter()
        .map(|name| {
            let all: Vec<&super::Estimate> = reps
                .iter()
                .flat_map(|r| &r.estimates)
                .filter(|e| e.parameter == name && e.truth.is_finite())
                .collect();
            let errors: Vec<f64> = all
                .iter()
                .filter(|e| e.value.is_finite())
                .map(|e| e.value - e.truth)
                .collect();
            let bias = mean(&errors);
            let sd = if errors.len() > 1 {
                (errors.iter().map(|x| (x - bias).powi(2)).sum::<f64>() / (errors.len() - 1) as f64).sqrt()
            } else {
                f64::NAN
            };
            let with: Vec<&&super::Estimate> = all.iter().filter(|e| e.has_interval()).collect();
            let covered = with.iter().filter(|e| e.covers()).count();
            let share = survival::share(covered, with.len());
            let verdicts = all.iter().any(|e| e.verdict.is_some()).then(|| {
                let mut v = Verdicts::default();
                for e in &all {
                    match (e.verdict.as_deref(), confirmed(e)) {
                        (Some("met"), c) => {
                            v.met += 1;
                            v.met_confirmed += usize::from(c == Some(true));
                        }
                        (Some("missed"), c) => {
                            v.missed += 1;
                            v.missed_confirmed += usize::from(c == Some(true));
                        }
                        _ => v.undecided += 1,
                    }
                }
                v
            });
            Row {
                parameter: name.to_owned(),
                n: all.len(),
                failed: failed.len(),
                failed_why: failed.first().and_then(|r| r.failed.clone()),
                with_interval: with.len(),
                covered,
                coverage: share.map_or(f64::NAN, |s| s.0),
                coverage_ci: share.map_or((f64::NAN, f64::NAN), |s| (s.1, s.2)),
                bias,
                bias_mcse: sd / (errors.len() as f64).sqrt(),
                rmse: mean(&errors.iter().map(|x| x * x).collect::<Vec<_>>()).sqrt(),
                width: median(with.iter().map(|e| e.hi - e.lo).collect()),
                verdicts,
            }
        })
        .collect()
}

/// A figure as the lines print it: four significant places, `inf`, `none`.
fn num(x: f64) -> String {
    if x.is_nan() {
        "none".to_owned()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.to_owned()
    } else {
        format!("{:.4}", x + 0.0)
    }
}

/// "50x5", "300_deals" or "2000-50000_deals": the design the estimator saw.
pub fn design(plan: &Plan) -> String {
    match plan.estimator {
        super::Estimator::FitPlayer => format!("{}_deals", plan.design.deals),
        super::Estimator::Tune => "tune".to_owned(),
        super::Estimator::FitGenerator => {
            let (lo, hi) = plan.design.deals_range();
            if hi > lo {
                format!("{lo}-{hi}_deals")
            } else {
                format!("{lo}_deals")
            }
        }
        super::Estimator::Gain => format!("{}_players", plan.forecast_players),
        _ => format!("{}x{}", plan.design.testers, plan.design.sessions),
    }
}

/// The CLI's lines: one per parameter.
pub fn lines(plan: &Plan, rows: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    let total = if plan.estimator == super::Estimator::FitGenerator {
        plan.replications
    } else {
        rows.first().map_or(0, |r| r.n + r.failed)
    };
    if rows.is_empty() {
        out.push(format!(
            "estimator={} design={} replications=0 parameters=none",
            plan.estimator.name(),
            design(plan)
        ));
    }
    for r in rows {
        let mut line = format!(
            "estimator={} design={} parameter={} replications={} coverage={} coverage_ci={},{} bias={} bias_mcse={} rmse={} width={} failed={} calibrated={}",
            plan.estimator.name(),
            design(plan),
            r.parameter,
            if plan.estimator == super::Estimator::FitGenerator {
                total
            } else {
                total.max(r.n + r.failed)
            },
            num(r.coverage),
            num(r.coverage_ci.0),
            num(r.coverage_ci.1),
            num(r.bias),
            num(r.bias_mcse),
            num(r.rmse),
            num(r.width),
            r.failed,
            r.calibrated()
        );
        if plan.estimator == super::Estimator::FitGenerator {
            // A replication gives a share in each context its model names
            // a truth for, and a repeat chance only when the truth has one.
            let _ = write!(line, " estimates={} with_interval={}", r.n, r.with_interval);
        }
        if let Some(v) = r.verdicts {
            let _ = write!(
                line,
                " met={} met_confirmed={} missed={} missed_confirmed={} undecided={}",
                v.met, v.met_confirmed, v.missed, v.missed_confirmed, v.undecided
            );
        }
        if let Some(why) = &r.failed_why {
            let _ = write!(line, " failed_first={why:?}");
        }
        out.push(line);
    }
    out
}

/// The table as CSV, a row per parameter.
pub fn csv(plan: &Plan, rows: &[Row]) -> String {
    let mut out = String::from(
        "estimator,design,parameter,n,with_interval,covered,coverage,coverage_lo,coverage_hi,bias,bias_mcse,rmse,width,failed,calibrated\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            plan.estimator.name(),
            design(plan),
            r.parameter,
            r.n,
            r.with_interval,
            r.covered,
            num(r.coverage),
            num(r.coverage_ci.0),
            num(r.coverage_ci.1),
            num(r.bias),
            num(r.bias_mcse),
            num(r.rmse),
            num(r.width),
            r.failed,
            r.calibrated()
        );
    }
    out
}

/// Whether a tune's verdict held on the fresh games: met inside the band,
/// missed outside it; undecided confirms nothing.
pub fn confirmed(e: &super::Estimate) -> Option<bool> {
    let (lo, hi) = e.band?;
    let inside = lo <= e.truth && e.truth <= hi;
    match e.verdict.as_deref()? {
        "met" => Some(inside),
        "missed" => Some(!inside),
        _ => None,
    }
}
