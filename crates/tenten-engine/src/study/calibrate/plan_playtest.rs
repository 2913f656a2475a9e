//! Planning a playtest: how many testers (at so many sessions each) give a
//! figure's interval a width, and how many per generator detect a
//! difference between two; both by simulation with the playtest estimator
//! (each figure a ratio over the testers' sessions, clustered by tester),
//! and each answer checked at the design it names: the interval's coverage
//! of the truth (the calibrate study, the population held fixed), or the
//! power and false alarms of the comparison.

use statrs::distribution::{ContinuousCDF, Normal};

use crate::fits::population::file::Population;
use crate::fits::population::forecast::NAMES;
use crate::fits::population::session::mix;
use crate::progress::Progress;

use super::estimators::{Figure, observed_figures, true_figures};
use super::summary::{self, Row};
use super::{Design, Estimate, Estimator, Plan, Ranges, Replication};

/// What both questions share.
#[derive(Clone, Debug)]
pub struct Ask {
    pub population: Population,
    pub figure: String,
    pub sessions: usize,
    /// Cohorts simulated at each design tried.
    pub pilots: usize,
    /// Replications of the check at the answer.
    pub checks: usize,
    /// Players the truth is measured on, once.
    pub truth_players: usize,
    pub seed: u64,
    pub board: (u8, u8),
    pub max_rounds: u32,
    /// The game's pieces: the testers' deals are of them, and a generator
    /// file must deal them.
    pub pieces: crate::model::pieces::PieceSet,
}

/// The most testers a plan tries.
pub const MAX_TESTERS: usize = 5_000;

impl Ask {
    fn figure_index(&self) -> Result<usize, String> {
        NAMES
            .iter()
            .position(|n| *n == self.figure)
            .ok_or_else(|| format!("figure: unknown {:?}; choose {}", self.figure, NAMES.join(", ")))
    }

    fn plan(&self, generator: &str, testers: usize, replications: usize) -> Result<Plan, String> {
        let mut p = Plan::new(
            Estimator::Playtest,
            Design {
                testers,
                sessions: self.sessions,
                deals: 0,
                deals_max: 0,
            },
            replications.max(1),
            self.seed,
        );
        p.ranges = Ranges::fixed(&self.population)?;
        p.generator = generator.to_owned();
        p.board = self.board;
        p.max_rounds = self.max_rounds;
        p.truth_players = self.truth_players;
        p.pieces = self.pieces.clone();
        p.check_values()?;
        // A built-in, a preset or a generator file (an adaptive one too):
        // this plan is never written, so a file need not be by value.
        crate::play::dealing::Dealing::by_name(generator, &self.pieces).map_err(|e| e.to_string())?;
        Ok(p)
    }

    fn check(&self) -> Result<usize, String> {
        if self.sessions == 0 {
            return Err("sessions: each tester plays at least one session; got 0".to_owned());
        }
        if self.pilots < 2 || self.checks < 2 {
            return Err("pilots and checks: at least 2 cohorts each".to_owned());
        }
        self.figure_index()
    }
}

/// The figure `j` of `pilots` cohorts of `testers` under `generator`, each
/// with its interval. Progress is counted in sessions played, here as in
/// the truth's players (one session each), so a plan's bar moves with its
/// work.
fn cohorts(
    ask: &Ask,
    generator: &str,
    testers: usize,
    count: usize,
    stream: u64,
    progress: &Progress,
) -> Result<Option<Vec<Figure>>, String> {
    let j = ask.figure_index()?;
    let plan = ask.plan(generator, testers, count)?;
    let mut out = Vec::with_capacity(count);
    for k in 0..count {
        let seed = mix(ask.seed ^ stream ^ mix(k as u64 + 1));
        let Some(figures) = observed_figures(&ask.population, &plan, seed, progress)? else {
            return Ok(None);
        };
        progress.advance(testers * ask.sessions);
        out.push(figures[j]);
    }
    Ok(Some(out))
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.retain(|x| x.is_finite());
    if xs.is_empty() {
        return f64::INFINITY;
    }
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// The answer to "how many testers for this width".
#[derive(Clone, Debug)]
pub struct WidthAnswer {
    pub testers: usize,
    pub median_width: f64,
    /// Every design tried: testers and the median width of its pilots.
    pub tried: Vec<(usize, f64)>,
    /// The calibrate check at the answer: the figure's row.
    pub check: Row,
    pub truth: f64,
}

const PILOT_STREAM: u64 = 0x0091_107A_0000_0001;
const CHECK_STREAM: u64 = 0x0C4E_C7ED_0000_0001;
const TRUTH_STREAM: u64 = 0x7407_4000_0000_0001;

/// The fewest testers (at `ask.sessions` each) whose interval of the
/// figure is at most `width` wide in the median pilot, and its check.
/// `Ok(None)` when cancelled.
pub fn testers_for_width(
    ask: &Ask,
    generator: &str,
    width: f64,
    progress: &Progress,
) -> Result<Option<WidthAnswer>, String> {
    let j = ask.check()?;
    if !(width > 0.0 && width.is_finite()) {
        return Err(format!("width: a positive number; got {width}"));
    }
    // Progress in sessions: the total is what is done and what is left if
    // the design being tried is the answer, so it changes as the search
    // does, and is exact once the answer is found.
    let sessions_left = |t: usize| {
        ask.pilots * t * ask.sessions + ask.truth_players * ask.sessions + ask.checks * t * ask.sessions
    };
    let mut tried: Vec<(usize, f64)> = Vec::new();
    let width_at = |t: usize, tried: &mut Vec<(usize, f64)>| -> Result<Option<f64>, String> {
        progress.set_total(progress.done.load(std::sync::atomic::Ordering::Relaxed) + sessions_left(t));
        let Some(c) = cohorts(ask, generator, t, ask.pilots, PILOT_STREAM, progress)? else {
            return Ok(None);
        };
        let w = median(c.iter().map(|(_, (lo, hi))| hi - lo).collect());
        tried.push((t, w));
        Ok(Some(w))
    };
    // Doubling until the width is met, then halving the gap.
    let (mut lo, mut hi) = (1usize, 5usize);
    loop {
        let Some(w) = width_at(hi, &mut tried)? else {
            return Ok(None);
        };
        if w <= width {
            break;
        }
        if hi >= MAX_TESTERS {
            return Err(format!(
                "{} testers at {} sessions give a median width of {w:.4}, still over {width}: more sessions, or a wider width",
                hi, ask.sessions
            ));
        }
        lo = hi;
        hi = (hi * 2).min(MAX_TESTERS);
    }
    while hi - lo > (hi / 20).max(1) {
        let mid = (lo + hi) / 2;
        let Some(w) = width_at(mid, &mut tried)? else {
            return Ok(None);
        };
        if w <= width {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let median_width = tried.iter().find(|t| t.0 == hi).map_or(f64::NAN, |t| t.1);
    progress.set_total(
        progress.done.load(std::sync::atomic::Ordering::Relaxed)
            + ask.truth_players * ask.sessions
            + ask.checks * hi * ask.sessions,
    );
    tried.sort_by_key(|t| t.0);
    // The check: the interval's coverage at the answer, the population's
    // truth measured once.
    let plan = ask.plan(generator, hi, ask.checks)?;
    let Some(truth) = true_figures(
        &ask.population,
        &plan,
        generator,
        ask.truth_players,
        mix(ask.seed ^ TRUTH_STREAM),
        progress,
    )?
    else {
        return Ok(None);
    };
    let Some(c) = cohorts(ask, generator, hi, ask.checks, CHECK_STREAM, progress)? else {
        return Ok(None);
    };
    let reps: Vec<Replication> = c
        .iter()
        .enumerate()
        .map(|(index, (v, ci))| Replication {
            index,
            estimates: vec![Estimate::new(&ask.figure, truth[j], *v, *ci)],
            failed: None,
            generator: None,
        })
        .collect();
    let check = summary::rows(&reps)
        .into_iter()
        .next()
        .ok_or("the check gave no figure")?;
    Ok(Some(WidthAnswer {
        testers: hi,
        median_width,
        tried,
        check,
        truth: truth[j],
    }))
}

impl WidthAnswer {
    /// The CLI's lines (and the window's): the answer, every design tried,
    /// and the check at the answer.
    pub fn lines(&self, ask: &Ask, generator: &str, width: f64) -> Vec<String> {
        let mut out = vec![format!(
            "plan figure={} width={width} generator={generator} sessions={} testers={} median_width={:.4} pilots={}",
            ask.figure, ask.sessions, self.testers, self.median_width, ask.pilots
        )];
        out.extend(
            self.tried
                .iter()
                .map(|(t, w)| format!("tried testers={t} median_width={w:.4}")),
        );
        let c = &self.check;
        out.push(format!(
            "check estimator=playtest design={}x{} parameter={} truth={:.4} replications={} coverage={:.4} coverage_ci={:.4},{:.4} bias={:.4} width={:.4} calibrated={}",
            self.testers,
            ask.sessions,
            ask.figure,
            self.truth,
            c.n,
            c.coverage,
            c.coverage_ci.0,
            c.coverage_ci.1,
            c.bias,
            c.width,
            c.calibrated()
        ));
        out
    }
}

impl CompareAnswer {
    /// The CLI's lines (and the window's): the answer and its simulated
    /// A/B tests.
    pub fn lines(&self, ask: &Ask, difference: f64, power: f64) -> Vec<String> {
        vec![
            format!(
                "plan figure={} difference={difference} power={power} sessions={} testers_per_generator={} sd_per_tester={:.4},{:.4} pilots={}",
                ask.figure, ask.sessions, self.testers, self.sd.0, self.sd.1, ask.pilots
            ),
            format!(
                "check testers_per_generator={} true_{}={:.4},{:.4} true_difference={:.4} detected={:.3} false_alarms={:.3} ab_tests={} (simulated, two-sided 5 %)",
                self.testers,
                ask.figure,
                self.truth.0,
                self.truth.1,
                self.truth.0 - self.truth.1,
                self.detected,
                self.false_alarms,
                self.checks
            ),
        ]
    }
}

/// The answer to "how many testers per generator detect a difference".
#[derive(Clone, Debug)]
pub struct CompareAnswer {
    /// Testers per generator.
    pub testers: usize,
    /// Each generator's per-tester standard deviation of the figure (from
    /// the pilots), which the normal approximation sizes with.
    pub sd: (f64, f64),
    /// The true figures under each generator, and their difference.
    pub truth: (f64, f64),
    /// At `testers` per generator: the share of simulated A/B tests that
    /// called the true difference, and (both arms under the first
    /// generator) the share that called a difference that is not there.
    pub detected: f64,
    pub false_alarms: f64,
    pub checks: usize,
}

/// Testers per generator for a two-sided 5 % test of the figure to detect
/// `difference` with `power` (normal approximation from pilot cohorts),
/// then the A/B test simulated at that size.
pub fn testers_for_difference(
    ask: &Ask,
    generators: (&str, &str),
    difference: f64,
    power: f64,
    progress: &Progress,
) -> Result<Option<CompareAnswer>, String> {
    let j = ask.check()?;
    if !(difference > 0.0 && difference.is_finite()) {
        return Err(format!("difference: a positive number; got {difference}"));
    }
    if !(0.5..1.0).contains(&power) {
        return Err(format!("power: 0.5 to below 1; got {power}"));
    }
    const PILOT_TESTERS: usize = 20;
    // Progress in sessions; the checks' at the pilots' size until their own
    // size is known (then the total changes to the exact one).
    let pilots = 2 * ask.pilots * PILOT_TESTERS * ask.sessions;
    progress.set_total(
        pilots + 2 * ask.truth_players * ask.sessions + 3 * ask.checks * PILOT_TESTERS * ask.sessions,
    );
    let sd = |g: &str| -> Result<Option<f64>, String> {
        let Some(c) = cohorts(ask, g, PILOT_TESTERS, ask.pilots, PILOT_STREAM, progress)? else {
            return Ok(None);
        };
        // A cohort's standard error of the figure, back to one tester.
        let se2: Vec<f64> = c
            .iter()
            .map(|(_, (lo, hi))| ((hi - lo) / (2.0 * 1.96)).powi(2))
            .filter(|v| v.is_finite())
            .collect();
        Ok(Some(
            (se2.iter().sum::<f64>() / se2.len().max(1) as f64 * PILOT_TESTERS as f64).sqrt(),
        ))
    };
    let (Some(s1), Some(s2)) = (sd(generators.0)?, sd(generators.1)?) else {
        return Ok(None);
    };
    let normal = Normal::new(0.0, 1.0).map_err(|e| e.to_string())?;
    let z = normal.inverse_cdf(0.975) + normal.inverse_cdf(power);
    let testers = ((z * z * (s1 * s1 + s2 * s2) / (difference * difference)).ceil() as usize).max(2);
    if testers > MAX_TESTERS {
        return Err(format!(
            "{testers} testers per generator would be needed (over {MAX_TESTERS}): a larger difference, or more sessions"
        ));
    }
    let plan = ask.plan(generators.0, testers, ask.checks)?;
    progress
        .set_total(pilots + 2 * ask.truth_players * ask.sessions + 3 * ask.checks * testers * ask.sessions);
    let truth = |g: &str| {
        true_figures(
            &ask.population,
            &plan,
            g,
            ask.truth_players,
            mix(ask.seed ^ TRUTH_STREAM),
            progress,
        )
    };
    let (Some(t1), Some(t2)) = (truth(generators.0)?, truth(generators.1)?) else {
        return Ok(None);
    };
    let arm = |g: &str, stream: u64| cohorts(ask, g, testers, ask.checks, stream, progress);
    let (Some(a), Some(b), Some(null)) = (
        arm(generators.0, CHECK_STREAM)?,
        arm(generators.1, CHECK_STREAM ^ 0x2)?,
        arm(generators.0, CHECK_STREAM ^ 0x3)?,
    ) else {
        return Ok(None);
    };
    let called = |x: &[Figure], y: &[Figure]| -> f64 {
        let hits = x
            .iter()
            .zip(y)
            .filter(|((v1, c1), (v2, c2))| {
                let se = (((c1.1 - c1.0) / 3.92).powi(2) + ((c2.1 - c2.0) / 3.92).powi(2)).sqrt();
                se > 0.0 && ((v1 - v2) / se).abs() > 1.96
            })
            .count();
        hits as f64 / x.len().max(1) as f64
    };
    Ok(Some(CompareAnswer {
        testers,
        sd: (s1, s2),
        truth: (t1[j], t2[j]),
        detected: called(&a, &b),
        false_alarms: called(&a, &null),
        checks: ask.checks,
    }))
}
