//! A calibration study's result file: the plan by value, the shard, and
//! every replication played (its estimates and truths, or why it failed).
//! A shard's file, a checkpoint and a whole study are this one format;
//! `merge` puts shards together, refusing any that are of another study,
//! repeat a replication or leave one out.

use serde::{Deserialize, Serialize};

use super::{Plan, Replication};

/// What the file says it is on its first field.
pub const KIND: &str = "tenten calibration";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Study {
    pub kind: String,
    pub plan: Plan,
    /// (I, N): the replications r with r mod N = I.
    pub shard: (usize, usize),
    pub replications: Vec<Replication>,
}

impl Study {
    pub fn new(plan: Plan, shard: (usize, usize), replications: Vec<Replication>) -> Self {
        Self {
            kind: KIND.to_owned(),
            plan,
            shard,
            replications,
        }
    }

    /// The replications this shard plays, in order.
    pub fn indices(plan: &Plan, (index, of): (usize, usize)) -> Vec<usize> {
        (0..plan.replications)
            .filter(|r| r % of.max(1) == index)
            .collect()
    }

    /// The replications still to play: those of the shard not in the file.
    pub fn remaining(&self) -> Vec<usize> {
        Self::indices(&self.plan, self.shard)
            .into_iter()
            .filter(|r| !self.replications.iter().any(|x| x.index == *r))
            .collect()
    }

    pub fn to_ron(&self) -> String {
        let mut text = format!(
            "// A calibration study by tenten calibrate: {} of {} replications of {}\n",
            self.replications.len(),
            self.plan.replications,
            self.plan.estimator.name()
        );
        text.push_str(
            &ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::new().indentor(" ".to_owned()))
                .unwrap_or_default(),
        );
        text.push('\n');
        text
    }

    /// Reads a study; `None` when the text is no calibration study (a
    /// simulation's result file, say).
    pub fn parse(text: &str, file: &str) -> Option<Result<Self, String>> {
        // Its kind field, as a study writes it: a deal or a log that only
        // mentions the words (in a comment, a note) is not taken for one.
        if !text.contains(&format!("kind: \"{KIND}\"")) {
            return None;
        }
        Some(
            crate::io::formats::parse_ron::<Study>(text, file)
                .map_err(|e| e.to_string())
                .and_then(|s| {
                    if s.kind != KIND {
                        return Err(format!("{file}: kind is {:?}, not {KIND:?}", s.kind));
                    }
                    s.plan.check().map_err(|m| format!("{file}: {m}"))?;
                    Ok(s)
                }),
        )
    }
}

/// The shards of one study merged: its plan and every replication in
/// order, or why they cannot merge (naming the file).
pub fn merge(shards: &[(String, Study)]) -> Result<(Plan, Vec<Replication>), String> {
    let (first_name, first) = shards.first().ok_or("no shards given")?;
    let mut seen: Vec<Option<&str>> = vec![None; first.plan.replications];
    let mut all = Vec::new();
    for (name, s) in shards {
        // Each file's versions named as its own, whatever the order.
        s.plan.same_behaviour(name)?;
        if s.plan != first.plan {
            let json = |p: &Plan| serde_json::to_value(p).unwrap_or_default();
            let field = crate::study::difference::first(&json(&first.plan), &json(&s.plan))
                .map_or(String::new(), |(f, x, y)| format!(" ({f} {x} there, {y} here)"));
            return Err(format!("{name} is of another study than {first_name}{field}"));
        }
        for r in &s.replications {
            let slot = seen.get_mut(r.index).ok_or_else(|| {
                format!(
                    "{name}: replication {} is past the study's {}",
                    r.index, first.plan.replications
                )
            })?;
            if let Some(other) = slot.replace(name) {
                return Err(format!("{name} repeats replication {} of {other}", r.index));
            }
            all.push(r.clone());
        }
    }
    if let Some(missing) = seen.iter().position(Option::is_none) {
        return Err(format!(
            "replication {missing} of {} is in none of the files",
            first.plan.replications
        ));
    }
    all.sort_by_key(|r| r.index);
    Ok((first.plan.clone(), all))
}
