//! A fitted population's design (testers, sessions each) against the
//! designs the calibration study measured the fit's coverage at: the words
//! the CLI and the window show when it is smaller than all of them. Apart
//! from `fit`, which the calibration study runs (so no circle).

use crate::fits::population::file::Population;
use crate::study::calibrate::Estimator;
use crate::study::calibrate::measured::MEASURED;

/// Words saying a fitted population's design (testers, and sessions each,
/// rounded down) is smaller than every design the calibration study
/// measured the fit's coverage at (`study::calibrate::measured`), so its
/// intervals are not known to cover; `None` at or above one of them, or
/// for a population that was not fitted (or whose sessions were not kept). The CLI prints it as a note after
/// the calibration line; the window shows it under its figures.
pub fn below_calibrated(population: &Population) -> Option<String> {
    let f = population.fitted.as_ref().filter(|f| f.sessions > 0)?;
    let sessions = f.sessions / f.testers.max(1);
    let designs = MEASURED
        .iter()
        .filter(|m| m.estimator == Estimator::FitPopulation)
        .map(|m| (m.testers, m.sessions));
    let mut covered = false;
    let mut smallest: Option<(usize, usize)> = None;
    for (t, s) in designs {
        covered |= t <= f.testers && s <= sessions;
        smallest = Some(smallest.map_or((t, s), |m| m.min((t, s))));
    }
    let (t, s) = smallest?;
    if covered {
        return None;
    }
    let each = |n: usize| format!("{n} session{} each", if n == 1 { "" } else { "s" });
    Some(format!(
        "{} with {} is smaller than every design the calibration study covered (in testers or sessions; \
         the smallest: {t} testers with {}): \
         these intervals are not known to cover; `tenten calibrate --estimator fit-population --testers {} --sessions {}` \
         checks this design",
        crate::text::count(f.testers as u64, "tester", "testers"),
        each(sessions),
        each(s),
        f.testers,
        sessions
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fits::population::file::Fitted;

    fn fitted(testers: usize, sessions: usize) -> Population {
        let mut p = crate::fits::population::file::by_name("demo").unwrap();
        p.fitted = Some(Fitted {
            testers,
            moves: 0,
            games: 0,
            sessions: testers * sessions,
            se: Default::default(),
            quit_cov: [[0.0; 3]; 3],
            churn: None,
            per_tester: Vec::new(),
        });
        p
    }

    #[test]
    fn a_design_below_every_measured_one_says_so() {
        let words = below_calibrated(&fitted(2, 1)).unwrap();
        assert!(
            words.starts_with("2 testers with 1 session each is smaller than every design")
                && words.contains("the smallest: 20 testers with 2 sessions each")
                && words.contains("--testers 2 --sessions 1"),
            "{words}"
        );
        assert!(below_calibrated(&fitted(20, 2)).is_none());
        assert!(below_calibrated(&fitted(60, 5)).is_none());
        // More testers but fewer sessions than any measured design.
        assert!(below_calibrated(&fitted(100, 1)).is_some());
        // A file from before sessions were kept: the design is unknown.
        assert!(below_calibrated(&fitted(2, 0)).is_none());
    }
}
