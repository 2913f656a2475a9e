//! `tenten playtest tally DIR...`: the runs of one rehearsal counted as
//! one, wherever they were played. A rehearsal's runs are seeded by their
//! index alone, so `playtest rehearse --shard I/N` can play them in several
//! processes or machines, each into a folder of its own; every whole run
//! left `run-K/run.txt` (the rehearsal's header, then its two servers'
//! lines), and the tally reads those files, not the logs: a run stopped
//! part way has none and is not counted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::rehearse::{Direction, RUN_FILE, Tally};

/// A run's file is three short lines; anything far longer is not one.
const MAX_RUN_FILE: u64 = 64 * 1024;

/// What the folders held: the runs' lines in order, the calls over them,
/// and the header's expectation and population.
pub struct Tallied {
    pub lines: Vec<String>,
    pub calls: super::rehearse::Calls,
    pub expect: Direction,
    pub population: String,
}

/// One run's file, read: its header and its two servers' lines.
struct RunFile {
    path: PathBuf,
    header: String,
    ab: String,
    same: String,
}

/// A `key=value` word of a line (the last, since a generator's name may
/// hold spaces but the verdict ends the line's words).
fn value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let at = line.rfind(&format!(" {key}="))? + key.len() + 2;
    line[at..].split(' ').next()
}

fn read_run(path: &Path) -> Result<RunFile, String> {
    let shown = path.display();
    let len = std::fs::metadata(path)
        .map_err(|e| format!("{shown}: {e}"))?
        .len();
    if len > MAX_RUN_FILE {
        return Err(format!(
            "{shown}: {len} bytes is not a run's file (at most {MAX_RUN_FILE})"
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: {e}"))?;
    let lines: Vec<&str> = text.lines().collect();
    let [header, ab, same] = lines.as_slice() else {
        return Err(format!(
            "{shown}: a run's file has three lines (the rehearsal, its A/B server, its identical arms); it has {}",
            lines.len()
        ));
    };
    let shape = header.starts_with("rehearsal=")
        && ab.contains(" server=ab ")
        && same.contains(" server=same ")
        && value(ab, "verdict").is_some()
        && value(same, "verdict").is_some();
    if !shape {
        return Err(format!(
            "{shown}: not a run's file (rehearsal=.., then run=K server=ab .. verdict=.., then server=same)"
        ));
    }
    Ok(RunFile {
        path: path.to_owned(),
        header: (*header).to_owned(),
        ab: (*ab).to_owned(),
        same: (*same).to_owned(),
    })
}

/// The run index a line names (`run=K ...`).
fn run_index(line: &str) -> Option<usize> {
    line.strip_prefix("run=")?.split(' ').next()?.parse().ok()
}

/// Every run's file under `dirs` (their `run-K` folders), the runs of one
/// rehearsal, each once, none missing; or what is wrong, naming the file.
pub fn tally(dirs: &[PathBuf]) -> Result<Tallied, String> {
    let mut runs: BTreeMap<usize, RunFile> = BTreeMap::new();
    let mut stopped: Vec<PathBuf> = Vec::new();
    for dir in dirs {
        let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(k) = name.strip_prefix("run-").and_then(|k| k.parse::<usize>().ok()) else {
                continue;
            };
            let file = entry.path().join(RUN_FILE);
            if !file.exists() {
                stopped.push(entry.path());
                continue;
            }
            let run = read_run(&file)?;
            if run_index(&run.ab) != Some(k) || run_index(&run.same) != Some(k) {
                return Err(format!(
                    "{}: its lines name another run than {name}",
                    file.display()
                ));
            }
            if let Some(first) = runs.values().next().filter(|f| f.header != run.header) {
                return Err(format!(
                    "{} is of another rehearsal than {}: {:?} against {:?} (another population, arms, design, seed or objective)",
                    file.display(),
                    first.path.display(),
                    run.header,
                    first.header
                ));
            }
            if let Some(twice) = runs.get(&k) {
                return Err(format!(
                    "run {k} is in {} and in {}: give each shard's folder once",
                    twice.path.display(),
                    file.display()
                ));
            }
            runs.insert(k, run);
        }
    }
    let Some(first) = runs.values().next() else {
        return Err(format!(
            "no finished rehearsal run (run-K/{RUN_FILE}) in {}",
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    };
    let header = first.header.clone();
    let planned: usize = value(&format!(" {header}"), "runs")
        .and_then(|r| r.parse().ok())
        .ok_or_else(|| format!("{}: its header names no runs: {header:?}", first.path.display()))?;
    let expect = match value(&format!(" {header}"), "expect") {
        Some("better") => Direction::Better,
        Some("worse") => Direction::Worse,
        other => {
            return Err(format!(
                "{}: expect={other:?}: better or worse",
                first.path.display()
            ));
        }
    };
    if let Some(k) = runs.keys().find(|&&k| k >= planned) {
        return Err(format!(
            "{}: run {k} of a rehearsal of {planned} runs",
            runs[k].path.display()
        ));
    }
    let missing: Vec<String> = (0..planned)
        .filter(|k| !runs.contains_key(k))
        .map(|k| k.to_string())
        .collect();
    if !missing.is_empty() {
        let unfinished = if stopped.is_empty() {
            String::new()
        } else {
            format!(
                "; begun but not finished: {}",
                stopped
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        return Err(format!(
            "{} of the rehearsal's {planned} runs have not finished in these folders (runs {}){unfinished}: \
             give every shard's folder, when each has ended",
            missing.len(),
            missing.join(", ")
        ));
    }
    let mut tally = Tally::default();
    let mut lines = Vec::with_capacity(2 * runs.len());
    for run in runs.values() {
        let verdict = |l: &str| value(l, "verdict").unwrap_or("undecided").to_owned();
        tally.add(expect.word(), &verdict(&run.ab), &verdict(&run.same));
        lines.push(run.ab.clone());
        lines.push(run.same.clone());
    }
    let population = header
        .split_once(" population=")
        .map_or_else(String::new, |(_, p)| p.to_owned());
    Ok(Tallied {
        lines,
        calls: tally.calls(),
        expect,
        population,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_words_value_is_read_from_the_end() {
        let l = "run=3 server=ab vs=a verdict=x b gain=0.1 verdict=better seconds=2.0";
        assert_eq!(value(l, "verdict"), Some("better"));
        assert_eq!(value(l, "gain"), Some("0.1"));
        assert_eq!(value(l, "nothing"), None);
        assert_eq!(run_index(l), Some(3));
        assert_eq!(run_index("run=x server=ab"), None);
    }
}
