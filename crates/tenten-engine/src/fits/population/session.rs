//! Whole sessions: a player plays game after game, and after each one
//! stops with the quit model's chance (or at `quit::MAX_GAMES`). Every
//! stream is seeded: player i of seed S has its parameters from
//! `player_seed(S, i)`, its session j from `session_seed`, game g of a
//! session from `nth_deal_seed(session, g)` and the quit draws from their
//! own stream, so a cohort and a forecast of the same seed are the same
//! players, and one generator's players are another's (paired).

use crate::fits::population::quit::{MAX_GAMES, Quit};
use crate::model::generator::Generator;
use crate::model::pieces::PieceSet;
use crate::model::shapes::Shapes;
use crate::play::adaptive::History;
use crate::play::dealers::nth_deal_seed;
use crate::play::dealing::Dealing;
use crate::play::game::{End, Round, play_game};
use crate::play::player::{Player, PlayerStrategy};
use crate::progress::Progress;
use crate::search::changer::ChangeOptions;

/// splitmix64's finaliser: nearby seeds to unrelated streams.
pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of player `i` of `seed` (its parameters are drawn from it).
pub fn player_seed(seed: u64, i: u64) -> u64 {
    mix(seed ^ mix(i))
}

/// The seed of a player's session `j`.
pub fn session_seed(player: u64, j: u64) -> u64 {
    mix(player.wrapping_add(j.wrapping_add(1)))
}

/// The stream a session's quits are drawn from (its seed xor this): a
/// scripted tester (`playtest rehearse`) draws them as a session here does.
pub const QUIT_STREAM: u64 = 0x0051_7000_0000_0001;

/// One game of a session: its length and how it ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Played {
    pub rounds: u32,
    pub end: End,
}

/// A session: its games, and whether the player stopped (false: cut off
/// at `MAX_GAMES`, or a game of a log that did not end).
#[derive(Clone, Debug, PartialEq)]
pub struct Session {
    pub games: Vec<Played>,
    pub quit: bool,
}

impl Session {
    /// Whether the session ended because of an unfair loss: the player
    /// stopped right after one.
    pub fn ended_by_unfair(&self) -> bool {
        self.quit && self.games.last().is_some_and(|g| g.end == End::Unfair)
    }
}

/// Where sessions are played: the rules and the generator.
pub struct Table<'a> {
    pub shapes: &'a Shapes,
    pub set: &'a PieceSet,
    pub k: usize,
    pub dealing: &'a Dealing,
    pub options: ChangeOptions,
    pub max_rounds: u32,
}

impl<'a> Table<'a> {
    /// A table with the changer's defaults (what `repair` generators use).
    pub fn new(
        shapes: &'a Shapes,
        set: &'a PieceSet,
        k: usize,
        dealing: &'a Dealing,
        max_rounds: u32,
    ) -> Self {
        Self {
            shapes,
            set,
            k,
            dealing,
            options: ChangeOptions::default(),
            max_rounds,
        }
    }
}

/// Plays one session of `player` on `seed`, the player's games before it
/// in `history` (which the session's games join); with `record`, every
/// game's rounds. `None` when cancelled.
pub fn play_session(
    table: &Table,
    player: &Player,
    quit: &Quit,
    seed: u64,
    history: &mut History,
    mut record: Option<&mut Vec<Vec<Round>>>,
    progress: &Progress,
) -> Option<Session> {
    let mut strategy = PlayerStrategy::new(player.clone());
    let mut quits = Generator::new(seed ^ QUIT_STREAM);
    let mut session = Session {
        games: Vec::new(),
        quit: false,
    };
    // What an adaptive generator and the quit model read of the player.
    history.new_session();
    for g in 0..MAX_GAMES {
        // Recorded rounds say which deals were fair; a forecast's need not.
        let mut dealer = match record {
            Some(_) => table.dealing.dealer_for(table.set, table.options, history),
            None => table.dealing.unrecorded_dealer(table.set, table.options, history),
        };
        let mut rounds = record.as_ref().map(|_| Vec::new());
        let game = play_game(
            table.shapes,
            table.set,
            table.k,
            dealer.as_mut(),
            &mut strategy,
            nth_deal_seed(seed, g as u64),
            table.max_rounds,
            rounds.as_mut(),
            progress,
        )?;
        if let (Some(r), Some(rounds)) = (record.as_deref_mut(), rounds) {
            r.push(rounds);
        }
        session.games.push(Played {
            rounds: game.rounds,
            end: game.end,
        });
        history.ended(game.rounds, game.end == End::Unfair);
        if quits.unit() < quit.chance_after(history) {
            session.quit = true;
            break;
        }
    }
    Some(session)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fits::population::file::by_name;
    use crate::model::board::BoardSize;

    #[test]
    fn sessions_are_seeded_and_end_by_quitting() {
        let set = PieceSet::classic();
        let shapes = Shapes::new(&set, BoardSize::new(8, 8).unwrap());
        let dealing = Dealing::by_name("random", &set).unwrap();
        let table = Table {
            shapes: &shapes,
            set: &set,
            k: 3,
            dealing: &dealing,
            options: ChangeOptions::default(),
            max_rounds: 200,
        };
        let demo = by_name("demo").unwrap();
        let player = demo.draw("t0", &mut Generator::new(player_seed(1, 0))).player;
        let never = Progress::default();
        let mut rounds = Vec::new();
        let a = play_session(
            &table,
            &player,
            &demo.quit,
            5,
            &mut History::default(),
            Some(&mut rounds),
            &never,
        )
        .unwrap();
        let b = play_session(
            &table,
            &player,
            &demo.quit,
            5,
            &mut History::default(),
            None,
            &never,
        )
        .unwrap();
        assert_eq!(a, b);
        assert!(a.quit && !a.games.is_empty());
        assert_eq!(rounds.len(), a.games.len());
        for (r, g) in rounds.iter().zip(&a.games) {
            // A lost game records the round it was lost in.
            assert_eq!(r.len() as u32, g.rounds + u32::from(g.end != End::Censored));
        }
        // Certain quitting: one game a session.
        let once = Quit {
            base: 1.0 - 1e-12,
            unfair_odds: 1.0,
            per_log_round: 0.0,
            ..demo.quit
        };
        let s = play_session(&table, &player, &once, 6, &mut History::default(), None, &never).unwrap();
        assert_eq!(s.games.len(), 1);
        // Cancelled: no session.
        let cancelled = Progress::default();
        cancelled.cancel();
        assert_eq!(
            play_session(
                &table,
                &player,
                &demo.quit,
                5,
                &mut History::default(),
                None,
                &cancelled
            ),
            None
        );
    }
}
