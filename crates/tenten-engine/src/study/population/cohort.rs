//! A cohort: testers drawn from a population, each playing whole sessions
//! under one generator, written as JSON Lines logs (one per tester, with
//! player and session ids). The ground truth of the population's tests and
//! of the demo cohort.

use rayon::prelude::*;

use crate::io::playtest_log::to_jsonl;
use crate::model::generator::Generator;
use crate::play::game::Round;
use crate::progress::Progress;
use crate::study::fit::logged;
use crate::study::population::file::Population;
use crate::study::population::session::{Table, play_session, player_seed, session_seed};

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
            for j in 0..sessions {
                let mut rounds: Vec<Vec<Round>> = Vec::new();
                play_session(
                    table,
                    &player,
                    &population.quit,
                    session_seed(who, j as u64),
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
