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

/// The arms, in their generators' names' order, and each arm after the
/// first against it.
#[derive(Clone, Debug, PartialEq)]
pub struct Arms {
    pub figure: usize,
    pub arms: Vec<Arm>,
    pub gains: Vec<Option<Gain>>,
}

/// The arms of `logs` compared on figure `figure` (`forecast::NAMES`).
pub fn compare(logs: Vec<LogFile>, set: &PieceSet, figure: usize) -> Result<Arms, FormatError> {
    // Group the files by the generator each names.
    let mut groups: Vec<(String, Vec<LogFile>)> = Vec::new();
    for log in logs {
        let name = log.name();
        let (_, generator) = testers_of(std::slice::from_ref(&log), set)?;
        let generator = generator.ok_or_else(|| {
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
    let mut arms = Vec::new();
    for (generator, files) in groups {
        let (testers, _) = testers_of(&files, set)?;
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
        let ci = (m >= 2 && var.is_finite()).then(|| {
            let half = t_975(m - 1) * var.sqrt();
            (value - half, value + half)
        });
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
    Ok(Arms { figure, arms, gains })
}

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
        if let Some(first) = self.arms.first() {
            for (a, g) in self.arms[1..].iter().zip(&self.gains) {
                out.push(match g {
                    None => format!("vs={} arm={} objective={name} gain=none gain_ci=none verdict=undecided", first.generator, a.generator),
                    Some(g) => format!(
                        "vs={} arm={} objective={name} gain={} gain_ci={} verdict={} (testers: {} and {}, interval clustered by tester)",
                        first.generator,
                        a.generator,
                        num(g.gain),
                        g.ci.map_or("none".to_owned(), |(lo, hi)| format!("{},{}", num(lo), num(hi))),
                        g.verdict(),
                        a.testers,
                        first.testers
                    ),
                });
            }
        }
        out
    }
}
