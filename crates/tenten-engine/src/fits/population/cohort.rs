//! A cohort: testers drawn from a population, each playing whole sessions
//! under one generator, written as JSON Lines logs (one per tester, with
//! player and session ids). The ground truth of the population's tests and
//! of the demo cohort.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::io::formats::{self, FormatError};

use crate::fits::player::logged;
use crate::fits::population::file::Population;
use crate::fits::population::session::{Table, play_session, player_seed, session_seed};
use crate::fits::population::shard::ForecastPlan;
use crate::io::playtest_log::to_jsonl;
use crate::model::generator::Generator;
use crate::play::game::Round;
use crate::progress::Progress;

/// Tester `i`'s id among `n`: `t07` of 60 (zero-padded, so files sort).
pub fn tester_id(i: usize, n: usize) -> String {
    let width = n.saturating_sub(1).max(1).to_string().len();
    format!("t{i:0width$}")
}

/// One tester's log: every session's every round, as JSON Lines.
pub struct TesterLog {
    pub id: String,
    pub text: String,
    pub games: usize,
    pub deals: usize,
}

/// Plays `testers` testers of `population`, `sessions` sessions each,
/// under `table`'s generator (named `generator` in the logs), testers in
/// parallel; `None` when cancelled. Tester i is player i of `seed`, as in
/// a forecast of the same seed.
pub fn cohort(
    population: &Population,
    table: &Table,
    generator: &str,
    testers: usize,
    sessions: usize,
    seed: u64,
    progress: &Progress,
) -> Option<Vec<TesterLog>> {
    progress.set_total(testers);
    (0..testers)
        .into_par_iter()
        .map(|i| {
            let id = tester_id(i, testers);
            let who = player_seed(seed, i as u64);
            let player = population.draw(&id, &mut Generator::new(who)).player;
            let mut text = String::new();
            let (mut games, mut deals) = (0, 0);
            // The tester's games so far, carried from session to session.
            let mut history = Default::default();
            for j in 0..sessions {
                let mut rounds: Vec<Vec<Round>> = Vec::new();
                play_session(
                    table,
                    &player,
                    &population.quit,
                    session_seed(who, j as u64),
                    &mut history,
                    Some(&mut rounds),
                    progress,
                )?;
                games += rounds.len();
                let log: Vec<_> = rounds
                    .into_iter()
                    .enumerate()
                    .flat_map(|(g, game)| {
                        game.into_iter()
                            .enumerate()
                            .map(move |(r, round)| logged(round, g as u64, r))
                    })
                    .collect();
                deals += log.len();
                text.push_str(&to_jsonl(
                    &log,
                    table.shapes.size(),
                    table.set,
                    &id,
                    &format!("s{j}"),
                    Some(generator),
                ));
            }
            progress.advance(1);
            Some(TesterLog {
                id,
                text,
                games,
                deals,
            })
        })
        .collect()
}

/// The most sessions a cohort plays, testers times sessions: every log is
/// held until the folder is written.
pub const MAX_SESSIONS: usize = 20_000;

/// `testers` of `sessions` each in range, or why not.
pub fn check_size(testers: usize, sessions: usize) -> Result<(), String> {
    crate::bounds::product(
        &[(testers, "testers"), (sessions, "sessions")],
        "sessions",
        MAX_SESSIONS,
        "a cohort (its logs held until written) plays",
    )
    .map(|_| ())
}

/// The file in a cohort's folder that says which run wrote its logs.
pub const IDENTITY: &str = "cohort.ron";

/// A cohort's identity, by value: the population, pieces, board, holder,
/// cap, seed, repair options and generator (as a forecast of its testers
/// stores them), and the sessions each tester played.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CohortRun {
    pub run: ForecastPlan,
    pub sessions: usize,
}

/// The logs given on a command line without a cohort's identity file:
/// `tenten fit-population cohort/*` names the folder's `cohort.ron` among
/// its logs, which is no log (a fit reads a folder's `.jsonl` files and
/// never it). Returns the paths kept and a note for each file left out.
pub fn without_identity(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<String>) {
    let mut kept = Vec::new();
    let mut notes = Vec::new();
    for p in paths {
        let identity = p.file_name().is_some_and(|n| n == IDENTITY)
            && p.is_file()
            && std::fs::read_to_string(p).is_ok_and(|t| !crate::io::jsonl_log::is_jsonl(&t));
        if identity {
            notes.push(format!(
                "skipped {}: a cohort's identity (the run that wrote its logs), not a log",
                p.display()
            ));
        } else {
            kept.push(p.clone());
        }
    }
    (kept, notes)
}

/// What a folder holds that a cohort did not write (anything but its
/// identity and `.jsonl` logs), and whether it holds anything at all.
fn contents(dir: &Path) -> Result<(Vec<String>, bool), FormatError> {
    let name = dir.display().to_string();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok((Vec::new(), false));
    };
    let mut foreign = Vec::new();
    let mut any = false;
    for e in entries {
        let e = e.map_err(|e| FormatError::new(&name, None, format!("cannot read the folder: {e}")))?;
        any = true;
        let file = e.file_name().to_string_lossy().into_owned();
        let ours = file == IDENTITY || (file.ends_with(".jsonl") && e.path().is_file());
        if !ours {
            foreign.push(file);
        }
    }
    foreign.sort();
    Ok((foreign, any))
}

/// Whether a cohort may be written into `dir`: a new or empty folder, or,
/// with `replace`, one that holds a cohort's files alone (never a folder
/// with other files: replacing means removing). Checked before the
/// testers play, so a refusal costs nothing.
pub fn check_folder(dir: &Path, replace: bool) -> Result<(), FormatError> {
    let name = dir.display().to_string();
    if dir.exists() && !dir.is_dir() {
        return Err(FormatError::new(&name, None, "is a file, not a folder"));
    }
    let (foreign, any) = contents(dir)?;
    if !foreign.is_empty() {
        return Err(FormatError::new(
            &name,
            None,
            format!(
                "the folder holds files a cohort did not write ({}); name a new or empty folder",
                foreign.join(", ")
            ),
        ));
    }
    if any && !replace {
        return Err(FormatError::new(
            &name,
            None,
            "the folder holds logs already (a fit reads every .jsonl there, so runs would mix); \
             pass --force to replace the cohort, or name a new folder",
        ));
    }
    Ok(())
}

/// Writes the cohort into `dir` (made if missing): with `replace`, the
/// cohort there is removed first; each log is created, never written over
/// one, and the identity last.
pub fn write_folder(
    dir: &Path,
    logs: &[TesterLog],
    run: &CohortRun,
    replace: bool,
) -> Result<(), FormatError> {
    check_folder(dir, replace)?;
    let name = dir.display().to_string();
    if replace && dir.is_dir() {
        let old = std::fs::read_dir(dir)
            .map_err(|e| FormatError::new(&name, None, format!("cannot read the folder: {e}")))?;
        for e in old.flatten() {
            std::fs::remove_file(e.path()).map_err(|err| {
                FormatError::new(
                    &e.path().display().to_string(),
                    None,
                    format!("cannot remove: {err}"),
                )
            })?;
        }
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| FormatError::new(&name, None, format!("cannot make the folder: {e}")))?;
    for log in logs {
        formats::write_new(&dir.join(format!("{}.jsonl", log.id)), &log.text)?;
    }
    let text = ron::ser::to_string_pretty(run, ron::ser::PrettyConfig::new().indentor(" ".to_owned()))
        .map_err(|e| FormatError::new(IDENTITY, None, e.to_string()))?;
    formats::write_new(
        &dir.join(IDENTITY),
        &format!(
            "// The run that wrote this folder's logs (tenten cohort): everything that decided them.\n{text}\n"
        ),
    )
}
