//! The generator lab's speed targets (issues 8 and 19): rounds per second
//! of the greedy and coelho strategies and of the piece-lookahead players
//! on one core, playing games dealt by the `random` generator (which
//! validates each holder only to record whether it was fair). The machine
//! player's target, against the 1010! analysis's C program, is measured by
//! `scripts/coelho-speed.sh PATH/TO/1010.c`, both programs pinned in one run.

use std::fmt::Write as _;
use std::time::Instant;

use crate::model::board::BoardSize;
use crate::model::pieces::PieceSet;
use crate::model::shapes::Shapes;
use crate::play::coelho::{CoelhoStrategy, CoelhoWeights};
use crate::play::dealers::RandomDealer;
use crate::play::game::{GreedyStrategy, Strategy, play_game};
use crate::progress::Progress;

#[derive(Clone, Debug)]
pub struct SelfplayBench {
    pub greedy_games: usize,
    pub greedy_rounds: u64,
    pub greedy_seconds: f64,
    pub coelho_games: usize,
    pub coelho_rounds: u64,
    pub coelho_seconds: f64,
    pub coelho_end_boards: u64,
    pub coelho_evaluations: u64,
    /// The piece-lookahead presets: name, games, rounds, seconds.
    pub players: Vec<(&'static str, usize, u64, f64)>,
}

/// Piece-lookahead players timed by the bench, and their target.
const PIECE_PLAYERS: [&str; 2] = ["novice", "casual"];
const PIECE_TARGET: f64 = 20_000.0;

/// Plays `greedy_games` greedy games and `coelho_games` coelho games of at
/// most `coelho_cap` rounds, one after another on this thread. `dedup` off
/// measures what skipping already-evaluated end boards saves.
pub fn run(
    seed: u64,
    greedy_games: usize,
    coelho_games: usize,
    coelho_cap: u32,
    dedup: bool,
) -> SelfplayBench {
    let set = PieceSet::classic();
    let shapes = Shapes::new(&set, BoardSize::CLASSIC);
    let never = Progress::default();
    let play = |strategy: &mut dyn Strategy, games: usize, cap: u32| {
        let t = Instant::now();
        let mut rounds = 0u64;
        for g in 0..games {
            let game = play_game(
                &shapes,
                &set,
                3,
                &mut RandomDealer,
                strategy,
                seed + g as u64,
                cap,
                None,
                &never,
            );
            rounds += game.map_or(0, |g| u64::from(g.rounds) + 1);
        }
        (rounds, t.elapsed().as_secs_f64())
    };
    let (greedy_rounds, greedy_seconds) = play(&mut GreedyStrategy, greedy_games, u32::MAX);
    let mut coelho = CoelhoStrategy::new(CoelhoWeights::BEST);
    coelho.dedup = dedup;
    let (coelho_rounds, coelho_seconds) = play(&mut coelho, coelho_games, coelho_cap);
    let players = PIECE_PLAYERS
        .iter()
        .filter_map(|&name| {
            let mut p = crate::play::player::PlayerStrategy::new(crate::play::player::preset(name)?);
            let games = greedy_games / 4;
            let (rounds, seconds) = play(&mut p, games, u32::MAX);
            Some((name, games, rounds, seconds))
        })
        .collect();
    SelfplayBench {
        players,
        greedy_games,
        greedy_rounds,
        greedy_seconds,
        coelho_games,
        coelho_rounds,
        coelho_seconds,
        coelho_end_boards: coelho.counts.end_boards,
        coelho_evaluations: coelho.counts.evaluations,
    }
}

pub fn report(b: &SelfplayBench, seed: u64) -> String {
    let mut out = String::new();
    let greedy = b.greedy_rounds as f64 / b.greedy_seconds.max(1e-9);
    let coelho = b.coelho_rounds as f64 / b.coelho_seconds.max(1e-9);
    let rounds = b.coelho_rounds.max(1) as f64;
    let _ = writeln!(
        out,
        "self-play on one core, classic set, 10x10, random generator (seed {seed}):"
    );
    let _ = writeln!(
        out,
        "  greedy: {} games, {} rounds in {:.2} s = {greedy:.0} rounds/s",
        b.greedy_games, b.greedy_rounds, b.greedy_seconds
    );
    for (name, games, rounds, seconds) in &b.players {
        let _ = writeln!(
            out,
            "  {name} (piece lookahead): {games} games, {rounds} rounds in {seconds:.2} s = {:.0} rounds/s",
            *rounds as f64 / seconds.max(1e-9)
        );
    }
    let _ = writeln!(
        out,
        "  coelho 10025: {} games, {} rounds in {:.2} s = {coelho:.0} rounds/s ({:.2} ms a round); end boards met {:.0} a round, evaluated {:.0} a round",
        b.coelho_games,
        b.coelho_rounds,
        b.coelho_seconds,
        1e3 / coelho.max(1e-9),
        b.coelho_end_boards as f64 / rounds,
        b.coelho_evaluations as f64 / rounds
    );
    let met = |ok: bool| if ok { "met" } else { "MISSED" };
    let _ = writeln!(
        out,
        "  greedy {greedy:.0} rounds/s >= 100000: {}",
        met(greedy >= 100_000.0)
    );
    for (name, _, rounds, seconds) in &b.players {
        let rate = *rounds as f64 / seconds.max(1e-9);
        let _ = writeln!(
            out,
            "  {name} {rate:.0} rounds/s >= {PIECE_TARGET:.0}: {}",
            met(rate >= PIECE_TARGET)
        );
    }
    // Its target is relative to the analysis's C program, which is only
    // measured beside it, in the same run: never a remembered figure.
    let _ = writeln!(
        out,
        "  coelho (the machine player) {coelho:.0} rounds/s; its target, 10x the analysis's C program, is measured side by side: scripts/coelho-speed.sh PATH/TO/1010.c (zx80/1010, GPL v3)"
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_counts_what_was_played() {
        let b = run(1, 3, 1, 5, true);
        assert_eq!(b.greedy_games, 3);
        assert!(b.greedy_rounds >= 3);
        assert!(b.coelho_rounds >= 1 && b.coelho_rounds <= 6);
        assert!(b.coelho_evaluations > 0 && b.coelho_evaluations <= b.coelho_end_boards);
        let r = report(&b, 1);
        assert!(r.contains("greedy: 3 games"), "{r}");
        assert!(r.contains("coelho 10025: 1 games"), "{r}");
        assert!(
            r.contains("speed.sh") && !r.contains("0.017 s"),
            "no remembered C figure: {r}"
        );
    }
}
