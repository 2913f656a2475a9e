//! A playtest's arms compared (`tenten playtest compare`): the testers'
//! logs grouped by the generator each names, a forecast figure per arm with
//! its interval clustered by tester (a tester's sessions are not
//! independent), and each arm's relative gain over the first with its 95 %
//! interval and verdict (`stats::inference::unpaired_gain`: each tester
//! plays one arm).

use crate::fits::population::check::testers_of;
use crate::fits::population::forecast::{NAMES, clustered_ratio, ratio_parts};
use crate::io::formats::FormatError;
use crate::io::jsonl_log::LogFile;
use crate::model::pieces::PieceSet;
use crate::stats::inference::{Gain, t_975, unpaired_gain};

/// One arm: its generator, testers, sessions and figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Arm {
    pub generator: String,
    pub testers: usize,
    pub sessions: usize,
    pub value: f64,
    /// `None` below two testers.
    pub ci: Option<(f64, f64)>,
    /// Each tester's (numerator, denominator) of the figure.
    pub clusters: Vec<(f64, f64)>,
}

/// The arms, the baseline first and the others in their generators'
/// names' order, each against the baseline; what reading noticed.
#[derive(Clone, Debug, PartialEq)]
pub struct Arms {
    pub figure: usize,
    pub arms: Vec<Arm>,
    pub gains: Vec<Option<Gain>>,
    pub notes: Vec<String>,
}

/// The arms of `logs` compared on figure `figure` (`forecast::NAMES`),
/// each against `baseline` (a generator the logs name; default the first
/// by name).
pub fn compare(
    logs: Vec<LogFile>,
    set: &PieceSet,
    figure: usize,
    baseline: Option<&str>,
) -> Result<Arms, FormatError> {
    // Group the files by the generator each names.
    let mut groups: Vec<(String, Vec<LogFile>)> = Vec::new();
    for log in logs {
        let name = log.name();
        let (_, generator) = testers_of(std::slice::from_ref(&log), set)?;
        let generator = generator.filter(|g| !g.trim().is_empty()).ok_or_else(|| {
            FormatError::new(
                &name,
                None,
                "the log does not name its generator; a playtest's logs do (the `generator` field)",
            )
        })?;
        match groups.iter_mut().find(|(g, _)| *g == generator) {
            Some((_, files)) => files.push(log),
            None => groups.push((generator, vec![log])),
        }
    }
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    if let Some(b) = baseline {
        let i = groups.iter().position(|(g, _)| g == b).ok_or_else(|| {
            let names: Vec<&str> = groups.iter().map(|(g, _)| g.as_str()).collect();
            FormatError::new(
                "--baseline",
                None,
                format!("the logs name no generator {b:?}; they name {}", names.join(", ")),
            )
        })?;
        let first = groups.remove(i);
        groups.insert(0, first);
    }
    let mut arms = Vec::new();
    let mut seen: std::collections::BTreeMap<String, String> = Default::default();
    let mut notes = Vec::new();
    for (generator, files) in groups {
        let (testers, _) = testers_of(&files, set)?;
        for (id, _) in &testers {
            match seen.get(id) {
                Some(other) => notes.push(format!(
                    "tester {id} is under {other} and {generator}: the comparison takes each arm's testers as different people"
                )),
                None => {
                    seen.insert(id.clone(), generator.clone());
                }
            }
        }
        let clusters: Vec<(f64, f64)> = testers
            .iter()
            .map(|(_, sessions)| {
                sessions.iter().fold((0.0, 0.0), |t, s| {
                    let p = ratio_parts(s)[figure];
                    (t.0 + p.0, t.1 + p.1)
                })
            })
            .collect();
        let (value, var) = clustered_ratio(&clusters);
        let m = clusters.len();
        let ci = interval(figure, value, var, m);
        arms.push(Arm {
            generator,
            testers: m,
            sessions: testers.iter().map(|t| t.1.len()).sum(),
            value,
            ci,
            clusters,
        });
    }
    let gains = match arms.split_first() {
        Some((first, rest)) => rest
            .iter()
            .map(|a| unpaired_gain(&a.clusters, &first.clusters))
            .collect(),
        None => Vec::new(),
    };
    notes.truncate(10);
    Ok(Arms {
        figure,
        arms,
        gains,
        notes,
    })
}

/// A figure's 95 % interval where it can lie: games per session (at least
/// one) on the log scale, shares on the logit scale, by the delta method;
/// `None` below two testers or at a share of 0 or 1.
fn interval(figure: usize, value: f64, var: f64, testers: usize) -> Option<(f64, f64)> {
    if testers < 2 || !var.is_finite() || value.is_nan() || value <= 0.0 {
        return None;
    }
    let t = t_975(testers - 1);
    let se = var.sqrt();
    if figure == GAMES_PER_SESSION {
        let half = t * se / value;
        return Some((value * (-half).exp(), value * half.exp()));
    }
    if value >= 1.0 {
        return None;
    }
    let logit = (value / (1.0 - value)).ln();
    let half = t * se / (value * (1.0 - value));
    let back = |x: f64| 1.0 / (1.0 + (-x).exp());
    Some((back(logit - half), back(logit + half)))
}

/// `forecast::NAMES`' games per session; the rest are shares.
const GAMES_PER_SESSION: usize = 4;

fn num(x: f64) -> String {
    if x.is_finite() {
        format!("{:.4}", x + 0.0)
    } else {
        "none".to_owned()
    }
}

impl Arms {
    /// The lines `tenten playtest compare` prints.
    pub fn lines(&self) -> Vec<String> {
        let name = NAMES[self.figure];
        let mut out: Vec<String> = self
            .arms
            .iter()
            .map(|a| {
                format!(
                    "arm={} testers={} sessions={} {name}={} {name}_ci={}",
                    a.generator,
                    a.testers,
                    a.sessions,
                    num(a.value),
                    a.ci.map_or("none".to_owned(), |(lo, hi)| format!("{},{}", num(lo), num(hi)))
                )
            })
            .collect();
        out.extend(self.notes.iter().map(|n| format!("note: {n}")));
        if let Some(first) = self.arms.first() {
            for (a, g) in self.arms[1..].iter().zip(&self.gains) {
                out.push(match g {
                    None => format!(
                        "vs={} arm={} objective={name} gain=none gain_ci=none verdict=undecided testers={},{}",
                        first.generator, a.generator, first.testers, a.testers
                    ),
                    Some(g) => format!(
                        "vs={} arm={} objective={name} gain={} gain_ci={} verdict={} testers={},{} interval=clustered_by_tester",
                        first.generator,
                        a.generator,
                        num(g.gain),
                        g.ci.map_or("none".to_owned(), |(lo, hi)| format!("{},{}", num(lo), num(hi))),
                        g.verdict(),
                        first.testers,
                        a.testers
                    ),
                });
            }
        }
        out
    }
}
