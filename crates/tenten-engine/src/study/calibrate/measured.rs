//! What `tenten calibrate` measured at the documented designs (the table in
//! `docs/benchmarks.md#calibration`: 200 replications, seed 1, truths drawn
//! from the default ranges around the demo population, testers under
//! `random` on 10x10, forecasts of `repair`), so an estimator's line can
//! say whether its intervals were found to cover at a design like the
//! one it was given, and how to check it where not.

use super::Estimator;
use super::summary::calibrated;

/// One parameter's coverage at one design: covered of replications.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    pub estimator: Estimator,
    pub testers: usize,
    pub sessions: usize,
    pub parameter: &'static str,
    pub covered: usize,
    pub replications: usize,
}

const fn m(
    estimator: Estimator,
    design: (usize, usize),
    parameter: &'static str,
    covered: usize,
) -> Measured {
    Measured {
        estimator,
        testers: design.0,
        sessions: design.1,
        parameter,
        covered,
        replications: 200,
    }
}

use Estimator::{FitPopulation, Forecast};
const SMALL: (usize, usize) = (20, 2);
const DEFAULT: (usize, usize) = (50, 5);

/// The parameters of `fit-population` the table measures (its line's
/// intervals but the value model's β and the churn terms).
pub const FIT_POPULATION: [&str; 7] = [
    "temperature_median",
    "temperature_log_sd",
    "slip_median",
    "slip_logit_sd",
    "quit_base",
    "quit_unfair_odds",
    "quit_per_log_round",
];

/// The table.
pub const MEASURED: &[Measured] = &[
    m(FitPopulation, DEFAULT, "temperature_median", 191),
    m(FitPopulation, DEFAULT, "temperature_log_sd", 193),
    m(FitPopulation, DEFAULT, "slip_median", 190),
    m(FitPopulation, DEFAULT, "slip_logit_sd", 190),
    m(FitPopulation, DEFAULT, "quit_unfair_odds", 185),
    m(FitPopulation, SMALL, "temperature_median", 189),
    m(FitPopulation, SMALL, "temperature_log_sd", 190),
    m(FitPopulation, SMALL, "slip_median", 186),
    m(FitPopulation, SMALL, "slip_logit_sd", 180),
    m(FitPopulation, SMALL, "quit_unfair_odds", 190),
    // The base and round slope's Wald intervals, measured in session 17.
    m(FitPopulation, SMALL, "quit_base", 192),
    m(FitPopulation, SMALL, "quit_per_log_round", 190),
    // The forecast of `repair` from a 20 x 2 and a 50 x 5 fit (its unfair
    // shares are 0 under repair, covered trivially: not measured).
    m(Forecast, SMALL, "reach_10", 185),
    m(Forecast, SMALL, "reach_25", 187),
    m(Forecast, SMALL, "reach_50", 189),
    m(Forecast, SMALL, "reach_100", 190),
    m(Forecast, SMALL, "games_per_session", 182),
    m(Forecast, SMALL, "players_returning_after_1", 184),
    m(Forecast, SMALL, "players_returning_after_3", 186),
    m(Forecast, SMALL, "players_returning_after_10", 186),
    m(Forecast, DEFAULT, "reach_10", 187),
    m(Forecast, DEFAULT, "reach_25", 188),
    m(Forecast, DEFAULT, "reach_50", 186),
    m(Forecast, DEFAULT, "reach_100", 188),
    m(Forecast, DEFAULT, "games_per_session", 184),
    m(Forecast, DEFAULT, "players_returning_after_1", 183),
    m(Forecast, DEFAULT, "players_returning_after_3", 188),
    m(Forecast, DEFAULT, "players_returning_after_10", 189),
];

/// Whether `parameter`'s interval from `estimator` is calibrated at a
/// design of `testers` x `sessions` (sessions a tester, rounded down):
/// the verdict at the largest measured design no larger in either (more
/// testers and sessions only narrow what was measured there), or
/// `unknown` below every measured design or for a parameter not measured.
/// With the design it was read at.
pub fn standing(
    estimator: Estimator,
    testers: usize,
    sessions: usize,
    parameter: &str,
) -> (&'static str, Option<(usize, usize)>) {
    MEASURED
        .iter()
        .filter(|x| x.estimator == estimator && x.parameter == parameter)
        .filter(|x| x.testers <= testers && x.sessions <= sessions)
        .max_by_key(|x| x.testers * x.sessions)
        .map_or(("unknown", None), |x| {
            (
                calibrated(x.covered, x.replications),
                Some((x.testers, x.sessions)),
            )
        })
}

/// The line an estimator prints after its figures: each parameter's
/// standing, the design it was read at, and the command that checks this
/// design itself.
pub fn line(estimator: Estimator, testers: usize, sessions: usize, parameters: &[&str]) -> String {
    model_line(estimator, None, testers, sessions, parameters, &[])
}

/// `line` for a model the table did not measure (`Some("value")`): every
/// parameter `unknown`; and the `unmeasured` parameters `unknown` whatever
/// the table holds.
fn model_line(
    estimator: Estimator,
    model: Option<&str>,
    testers: usize,
    sessions: usize,
    parameters: &[&str],
    unmeasured: &[&str],
) -> String {
    let mut at = None;
    let mut out = format!("calibration estimator={}", estimator.name());
    if let Some(m) = model {
        out.push_str(&format!(" model={m}"));
    }
    out.push_str(&format!(" design={testers}x{sessions}"));
    for p in parameters {
        let (s, design) = match model {
            None if !unmeasured.contains(p) => standing(estimator, testers, sessions, p),
            _ => ("unknown", None),
        };
        at = at.or(design);
        out.push_str(&format!(" {p}={s}"));
    }
    match at {
        Some((t, s)) => out.push_str(&format!(" measured_at={t}x{s}")),
        None => out.push_str(" measured_at=none"),
    }
    out.push_str(&format!(
        " check=\"tenten calibrate --estimator {} --testers {testers} --sessions {sessions}\"",
        estimator.name()
    ));
    out
}

/// The calibration line of a fitted population's estimator: its fit
/// (`FitPopulation`) or a forecast from it (`Forecast`), at the design it
/// was fitted to (testers, and their sessions each rounded down); `None`
/// for a population that was not fitted. A value-choice fit was not
/// measured: every parameter reads `unknown`.
pub fn of_population(
    population: &crate::fits::population::file::Population,
    estimator: Estimator,
) -> Option<String> {
    let f = population.fitted.as_ref()?;
    let sessions = f.sessions / f.testers.max(1);
    let rank = population.choice == crate::play::player::Choice::Rank;
    let names: Vec<&str> = match estimator {
        FitPopulation => FIT_POPULATION.to_vec(),
        _ => crate::fits::population::forecast::NAMES.to_vec(),
    };
    // The table's base and round slope were measured on the three-term
    // quit model. Fitted beside the churn terms' length terms they come out
    // biased (docs/benchmarks.md, the churn terms), so a fit holding them
    // does not borrow those rows.
    let churn = population.quit.churn().iter().any(|c| *c != 0.0);
    let unmeasured: &[&str] = if churn && estimator == FitPopulation {
        &["quit_base", "quit_per_log_round"]
    } else {
        &[]
    };
    Some(model_line(
        estimator,
        (!rank).then_some("value"),
        f.testers,
        sessions,
        &names,
        unmeasured,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_design_reads_the_largest_measured_design_below_it() {
        assert_eq!(
            standing(FitPopulation, 50, 5, "slip_median"),
            ("yes", Some((50, 5)))
        );
        assert_eq!(
            standing(FitPopulation, 49, 9, "slip_median"),
            ("yes", Some((20, 2))),
            "49 testers are below 50: the small design's verdict"
        );
        assert_eq!(standing(FitPopulation, 19, 5, "slip_median"), ("unknown", None));
        assert_eq!(standing(FitPopulation, 20, 1, "slip_median"), ("unknown", None));
        assert_eq!(
            standing(FitPopulation, 500, 50, "quit_per_session_game"),
            ("unknown", None)
        );
        // A coverage of 175 of 200 (0.875, interval 0.823-0.913) is no.
        assert_eq!(calibrated(175, 200), "no");
        assert_eq!(calibrated(0, 0), "unknown");
        let l = line(FitPopulation, 12, 3, &["temperature_median", "slip_median"]);
        assert_eq!(
            l,
            "calibration estimator=fit-population design=12x3 temperature_median=unknown slip_median=unknown \
             measured_at=none check=\"tenten calibrate --estimator fit-population --testers 12 --sessions 3\""
        );
        assert!(line(FitPopulation, 60, 5, &["slip_median"]).contains("slip_median=yes measured_at=50x5"));
        // The forecast: measured at 20 x 2 and 50 x 5, its unfair shares not.
        assert_eq!(standing(Forecast, 60, 5, "reach_50"), ("yes", Some((50, 5))));
        assert_eq!(standing(Forecast, 30, 3, "reach_50"), ("yes", Some((20, 2))));
        assert_eq!(standing(Forecast, 60, 5, "unfair_share"), ("unknown", None));
    }

    /// A fit holding churn terms does not borrow the three-term model's
    /// rows for its base and round slope; the same fit without them does.
    #[test]
    fn a_fit_with_churn_terms_says_its_base_and_slope_are_unmeasured() {
        use crate::fits::population::file::{Fitted, by_name};
        let mut p = by_name("demo-churn").unwrap();
        p.fitted = Some(Fitted {
            testers: 60,
            moves: 1,
            games: 1,
            sessions: 180,
            se: Default::default(),
            quit_cov: [[0.0; 3]; 3],
            per_tester: Vec::new(),
            churn: None,
        });
        let with = of_population(&p, FitPopulation).unwrap();
        assert!(
            with.contains(" quit_base=unknown ") && with.contains(" quit_per_log_round=unknown "),
            "{with}"
        );
        assert!(
            with.contains(" quit_unfair_odds=yes ") && with.contains("measured_at=20x2"),
            "{with}"
        );
        p.quit = crate::fits::population::quit::Quit::from_coefficients(p.quit.coefficients());
        let without = of_population(&p, FitPopulation).unwrap();
        assert!(
            without.contains(" quit_base=yes ") && without.contains(" quit_per_log_round=yes "),
            "{without}"
        );
    }

    /// Every measured row names a parameter its estimator prints.
    #[test]
    fn the_table_names_real_parameters() {
        for x in MEASURED {
            assert!(x.covered <= x.replications);
            let known = match x.estimator {
                FitPopulation => FIT_POPULATION.contains(&x.parameter),
                Forecast => crate::fits::population::forecast::NAMES.contains(&x.parameter),
                _ => false,
            };
            assert!(known, "{x:?}");
        }
    }
}
