//! Dealers: the generator's holders, one seeded stream per deal.

use std::sync::Arc;

use tenten_engine::model::generator::Generator;
use tenten_engine::play::adaptive::History;
use tenten_engine::play::dealers::{Dealer, Table, nth_deal_seed};
use tenten_engine::play::file_dealer::FileDealer;

use crate::TENTEN_MAX_HOLDER;
use crate::args::{board, obj, obj_mut, out, put};
use crate::rules::{Rules, TentenRules};
use crate::status::{Failure, TentenStatus, guard};

/// A generator dealing a game from a seed. Changes with every deal: use it
/// from one thread at a time.
pub struct TentenDealer {
    rules: Arc<Rules>,
    dealer: FileDealer,
    seed: u64,
    next: u64,
    /// The player's games so far, as the game reported them: a generator
    /// with adaptive rules reads it from the next game on.
    history: History,
    /// This game's end was reported (a game ends once).
    ended: bool,
}

/// One holder dealt.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TentenDeal {
    /// n: this is deal n (from 0) of the dealer's seed.
    pub index: u64,
    /// The holder's size (the rules' holder size) and its piece indices.
    pub count: u32,
    pub pieces: [u8; TENTEN_MAX_HOLDER],
    /// 1 when the holder first drawn could not be placed (the generator's
    /// check may have fixed it), else 0.
    pub drawn_unsolvable: u8,
    /// 1 when no holder of this size can be placed on the board: the game
    /// is over whatever is dealt. Else 0.
    pub dead: u8,
    /// Holders validated beyond the first (changer attempts, redraws).
    pub repairs: u32,
}

/// A dealer for `rules`' generator, seeded with `seed`. Deal n draws from
/// its own stream (seed + n * 0x9E3779B97F4A7C15, wrapping), so the n-th
/// deal of a seed on a given board is fixed: deal 0 is `tenten deal --seed
/// S`, and deal n is the workbench's n-th Deal of seed S (Ctrl+D) for every
/// generator without history. A generator's history (mercy after rounds
/// without a clear, repeat_previous, the bag) is this dealer's, as in a
/// game.
///
/// # Safety
/// `rules` is NULL or a live handle; `result` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_dealer_new(
    rules: *const TentenRules,
    seed: u64,
    result: *mut *mut TentenDealer,
) -> TentenStatus {
    guard(|| {
        // SAFETY: the caller's promise on `rules`.
        let rules = Arc::clone(&unsafe { obj(rules, "rules") }?.inner);
        let result = out(result, "result")?;
        let dealer = TentenDealer {
            dealer: FileDealer::new(rules.spec.clone()),
            rules,
            seed,
            next: 0,
            history: History::default(),
            ended: false,
        };
        // SAFETY: checked by `out`.
        unsafe { put(result, Box::into_raw(Box::new(dealer))) };
        Ok(())
    })
}

/// Deals the next holder for the board `cells` (`cell_count` bytes, row
/// by row from the top, nonzero for a filled cell; the rules' width x
/// height of them).
///
/// # Safety
/// `dealer` is NULL or a live handle no other thread uses during the call;
/// `cells` is NULL or `cell_count` readable bytes; `deal` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_dealer_next(
    dealer: *mut TentenDealer,
    cells: *const u8,
    cell_count: usize,
    deal: *mut TentenDeal,
) -> TentenStatus {
    guard(|| {
        // SAFETY: the caller's promises.
        let d = unsafe { obj_mut(dealer, "dealer") }?;
        // SAFETY: the caller's promise on `cells`.
        let bits = unsafe { board(d.rules.shapes.size(), cells, cell_count) }?;
        let deal = out(deal, "deal")?;
        let table = Table {
            shapes: &d.rules.shapes,
            set: &d.rules.spec.set,
            board: bits,
            k: d.rules.k,
        };
        let mut rng = Generator::new(nth_deal_seed(d.seed, d.next));
        let dealt = d.dealer.deal(&table, &mut rng);
        let mut pieces = [0; TENTEN_MAX_HOLDER];
        pieces[..dealt.holder.len()].copy_from_slice(&dealt.holder);
        let result = TentenDeal {
            index: d.next,
            count: dealt.holder.len() as u32,
            pieces,
            drawn_unsolvable: u8::from(dealt.drawn_unsolvable),
            dead: u8::from(dealt.dead),
            repairs: dealt.repairs,
        };
        d.next += 1;
        // SAFETY: checked by `out`.
        unsafe { put(deal, result) };
        Ok(())
    })
}

/// The game this dealer dealt ended after `rounds` rounds completed (holders
/// placed in full, as the workbench counts them: a game lost in its first
/// deal has 0, read as 1), on an unfair deal (`unfair` 1: the holder
/// could not be placed and a solvable one existed) or not (0). A generator's
/// adaptive rules read the player's games from the next game on. A game
/// ends once, after at least one deal, in no more rounds than it dealt.
///
/// # Safety
/// `dealer` is NULL or a live handle no other thread uses during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_dealer_game_ended(
    dealer: *mut TentenDealer,
    rounds: u32,
    unfair: u8,
) -> TentenStatus {
    guard(|| {
        // SAFETY: the caller's promise.
        let d = unsafe { obj_mut(dealer, "dealer") }?;
        if unfair > 1 {
            return Err(Failure::new(
                TentenStatus::InvalidArgument,
                format!("unfair is {unfair}; it is 0 (a fair end) or 1 (an unfair deal)"),
            ));
        }
        if d.next == 0 || d.ended {
            return Err(Failure::new(
                TentenStatus::InvalidArgument,
                if d.ended {
                    "this game's end was reported already; start the next with tenten_dealer_new_game"
                } else {
                    "no holder of this game was dealt yet; a game ends after its deals"
                },
            ));
        }
        if u64::from(rounds) > d.next {
            return Err(Failure::new(
                TentenStatus::InvalidArgument,
                format!("rounds is {rounds}, but this game dealt {} holders", d.next),
            ));
        }
        d.history.ended(rounds, unfair == 1);
        d.ended = true;
        Ok(())
    })
}

/// The player's next game starts a new session: the session's counts
/// (games, unfair losses in a row, the last game) start again, and the
/// player's typical game length is kept.
///
/// # Safety
/// `dealer` is NULL or a live handle no other thread uses during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_dealer_new_session(dealer: *mut TentenDealer) -> TentenStatus {
    guard(|| {
        // SAFETY: the caller's promise.
        let d = unsafe { obj_mut(dealer, "dealer") }?;
        d.history.new_session();
        Ok(())
    })
}

/// Starts the player's next game on `seed`: deal 0 of `seed` comes next,
/// the game's own state (mercy's dry rounds, the previous piece, a bag)
/// starts again, and the player's games reported so far stay, for the
/// generator's adaptive rules. Deal n is then the workbench's deal n of the
/// seed for a player with the same games (`FileDealer::with_history`).
///
/// # Safety
/// `dealer` is NULL or a live handle no other thread uses during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_dealer_new_game(dealer: *mut TentenDealer, seed: u64) -> TentenStatus {
    guard(|| {
        // SAFETY: the caller's promise.
        let d = unsafe { obj_mut(dealer, "dealer") }?;
        d.dealer = FileDealer::new(d.rules.spec.clone()).with_history(d.history.clone());
        d.seed = seed;
        d.next = 0;
        d.ended = false;
        Ok(())
    })
}

/// Frees a dealer. NULL does nothing.
///
/// # Safety
/// `dealer` is NULL or a handle from this library not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenten_dealer_free(dealer: *mut TentenDealer) {
    if !dealer.is_null() {
        // SAFETY: made by Box::into_raw in tenten_dealer_new, freed once.
        drop(unsafe { Box::from_raw(dealer) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tenten_rules_free;
    use crate::test_support::{cells, rules};
    use tenten_engine::model::board::BoardSize;
    use tenten_engine::model::pieces::PieceSet;
    use tenten_engine::model::shapes::Shapes;
    use tenten_engine::play::generator_file::preset;

    fn deals(preset_name: &str, seed: u64, boards: &[u128]) -> Vec<Vec<u8>> {
        let r = rules(preset_name, 10, 10, 3);
        let mut dealer = std::ptr::null_mut();
        let mut out = Vec::new();
        // SAFETY: live handles and writable outputs.
        unsafe {
            assert_eq!(tenten_dealer_new(r, seed, &mut dealer), TentenStatus::Ok);
            // The dealer keeps what it needs: the rules may go first.
            tenten_rules_free(r);
            for (n, &b) in boards.iter().enumerate() {
                let c = cells(b, 100);
                let mut deal = TentenDeal::default();
                assert_eq!(
                    tenten_dealer_next(dealer, c.as_ptr(), c.len(), &mut deal),
                    TentenStatus::Ok
                );
                assert_eq!(deal.index, n as u64);
                out.push(deal.pieces[..deal.count as usize].to_vec());
            }
            tenten_dealer_free(dealer);
        }
        out
    }

    /// Boards of a game: empty, then crowded ones where repair and reject
    /// have to change what they draw.
    fn boards() -> Vec<u128> {
        let mut g = Generator::new(99);
        (0..40u32)
            .map(|i| {
                let fill = f64::from(i % 8) / 10.0;
                (0..100).fold(0u128, |b, bit| if g.unit() < fill { b | 1 << bit } else { b })
            })
            .collect()
    }

    #[test]
    fn deal_n_is_the_workbench_deal_n_of_the_seed() {
        let set = PieceSet::classic();
        let shapes = Shapes::new(&set, BoardSize::CLASSIC);
        let boards = boards();
        for name in ["random", "repair", "reject"] {
            for seed in [0, 7, u64::MAX] {
                let got = deals(name, seed, &boards);
                for (n, (&board, holder)) in boards.iter().zip(&got).enumerate() {
                    // The window's Deal: a fresh dealer on the stream of deal n.
                    let table = Table {
                        shapes: &shapes,
                        set: &set,
                        board,
                        k: 3,
                    };
                    let mut fresh = FileDealer::new(preset(name, &set).unwrap());
                    let mut rng = Generator::new(nth_deal_seed(seed, n as u64));
                    assert_eq!(
                        holder,
                        &fresh.deal(&table, &mut rng).holder,
                        "{name} seed {seed} deal {n}"
                    );
                }
            }
        }
        // The crowded boards make repair change what it drew.
        assert_ne!(deals("repair", 7, &boards), deals("random", 7, &boards));
        // Deal 0 is `tenten deal --seed S`: the weighted draw from the seed's own stream.
        let first = &deals("random", 7, &[0])[0];
        assert_eq!(first, &Generator::new(7).deal(&set, 3));
    }

    /// An adaptive generator through the library deals what the engine's
    /// dealer deals for the same seed and the same reported games.
    #[test]
    fn reported_games_reach_the_adaptive_rules() {
        let set = PieceSet::classic();
        let shapes = Shapes::new(&set, BoardSize::CLASSIC);
        let text = "(name: \"a\", check: none, adaptive: Some((rules: [(when: [after_unfair], tilt: -3.0), (when: [first_game], tilt: 3.0)])))";
        let ron = std::ffi::CString::new(text).unwrap();
        let (mut generator, mut r, mut dealer) =
            (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
        let boards = boards();
        // SAFETY: live handles and writable outputs.
        unsafe {
            assert_eq!(
                crate::generator::tenten_generator_parse(ron.as_ptr(), std::ptr::null(), &mut generator),
                TentenStatus::Ok
            );
            assert_eq!(
                crate::rules::tenten_rules_new(generator, 10, 10, 3, &mut r),
                TentenStatus::Ok
            );
            assert_eq!(tenten_dealer_new(r, 5, &mut dealer), TentenStatus::Ok);
            let spec = tenten_engine::play::generator_file::parse(text, "a", &set).unwrap();
            let mut history = History::default();
            let check = |dealer: *mut TentenDealer, history: &History, seed: u64| {
                // One engine dealer across the game's deals, as the library's.
                let mut engine = FileDealer::new(spec.clone()).with_history(history.clone());
                for (n, &board) in boards.iter().enumerate().take(10) {
                    let c = cells(board, 100);
                    let mut deal = TentenDeal::default();
                    assert_eq!(
                        tenten_dealer_next(dealer, c.as_ptr(), c.len(), &mut deal),
                        TentenStatus::Ok
                    );
                    let table = Table {
                        shapes: &shapes,
                        set: &set,
                        board,
                        k: 3,
                    };
                    let mut rng = Generator::new(nth_deal_seed(seed, n as u64));
                    assert_eq!(
                        &deal.pieces[..3],
                        &engine.deal(&table, &mut rng).holder[..],
                        "deal {n}"
                    );
                }
            };
            check(dealer, &history, 5);
            // An unfair loss reported, a new game: the other rule deals.
            assert_eq!(tenten_dealer_game_ended(dealer, 9, 1), TentenStatus::Ok);
            assert_eq!(tenten_dealer_new_game(dealer, 6), TentenStatus::Ok);
            history.ended(9, true);
            check(dealer, &history, 6);
            // A new session: the first game's rule again.
            assert_eq!(tenten_dealer_new_session(dealer), TentenStatus::Ok);
            assert_eq!(tenten_dealer_new_game(dealer, 7), TentenStatus::Ok);
            history.new_session();
            check(dealer, &history, 7);
            // A bad end is refused and changes nothing: neither fair nor
            // unfair, more rounds than dealt, twice, before a deal.
            let bad = TentenStatus::InvalidArgument;
            assert_eq!(tenten_dealer_game_ended(dealer, 3, 2), bad);
            assert_eq!(tenten_dealer_game_ended(dealer, 11, 0), bad);
            assert_eq!(tenten_dealer_game_ended(dealer, 10, 0), TentenStatus::Ok);
            assert_eq!(tenten_dealer_game_ended(dealer, 10, 0), bad);
            assert_eq!(tenten_dealer_new_game(dealer, 8), TentenStatus::Ok);
            assert_eq!(tenten_dealer_game_ended(dealer, 0, 0), bad);
            assert_eq!(
                tenten_dealer_game_ended(std::ptr::null_mut(), 3, 0),
                TentenStatus::NullPointer
            );
            tenten_dealer_free(dealer);
            tenten_rules_free(r);
            crate::generator::tenten_generator_free(generator);
        }
    }
}
