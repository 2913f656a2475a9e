//! The likelihood against a plain brute force on small sets and boards:
//! reject by summing its redraws as a series, repair by following every
//! path of the changer (validate, F's slot, every redraw) to its end, the
//! chains its redraws cannot fix dealt the engine's own fallback from the
//! holder first dealt; the expected counts against the likelihood's
//! numerical gradient, with the fallback carrying mass; and the chain
//! against the engine's own changer and dealers by simulation, on boards
//! of middling danger and on boards where most holders are unsolvable.

use std::collections::HashMap;

use proptest::prelude::*;

use super::*;
use crate::fits::generator::boards::{board_info, code};
use crate::io::formats::parse_piece_set;
use crate::model::board::BoardSize;
use crate::model::generator::Generator;
use crate::progress::Progress;
use crate::search::changer::{ChangeOptions, repair};
use crate::search::heuristic::{FMatrix, Reading};
use crate::search::validator::validate;

/// Five small pieces; the first `n` are used.
fn small_set(n: usize) -> PieceSet {
    let all = [
        ("dot", "[\"#\"]"),
        ("h2", "[\"##\"]"),
        ("v2", "[\"#\", \"#\"]"),
        ("sq2", "[\"##\", \"##\"]"),
        ("h3", "[\"###\"]"),
    ];
    let pieces: Vec<String> = all[..n]
        .iter()
        .map(|(id, rows)| format!("(id: \"{id}\", label: \"\", weight: 1, rows: {rows})"))
        .collect();
    parse_piece_set(
        &format!("(name: \"small\", pieces: [{}])", pieces.join(", ")),
        "test",
    )
    .unwrap()
}

fn all_holders(n: usize, k: usize) -> Vec<Vec<PieceIdx>> {
    (0..(n as u32).pow(k as u32))
        .map(|c| crate::fits::generator::boards::decode(c, n, k))
        .collect()
}

/// Reject by its process: the first draw, or (when it fails) redraws until
/// solvable, summed as a series.
fn brute_reject(shapes: &Shapes, board: Bits, a: &[PieceIdx], law: &Law, prev: Option<PieceIdx>) -> f64 {
    let n = law.w.len();
    let hs = all_holders(n, a.len());
    let solvable: Vec<bool> = hs.iter().map(|h| validate(shapes, board, h).solvable).collect();
    if !solvable.iter().any(|&s| s) {
        return law.first(a, prev);
    }
    let d: f64 = hs
        .iter()
        .zip(&solvable)
        .filter(|(_, s)| !**s)
        .map(|(h, _)| law.plain(h))
        .sum();
    let a_ok = validate(shapes, board, a).solvable;
    let mut redrawn = 0.0;
    let mut term = if a_ok { law.plain(a) } else { 0.0 };
    for _ in 0..200_000 {
        redrawn += term;
        term *= d;
        if term < 1e-18 {
            break;
        }
    }
    hs.iter()
        .zip(&solvable)
        .map(|(h, &s)| {
            let q = law.first(h, prev);
            if s {
                if h == a { q } else { 0.0 }
            } else {
                q * redrawn
            }
        })
        .sum()
}

/// The paths already followed: (holder, redraws left) to the chances of
/// the solvable holders the redraws reach, and the chance they all fail.
type Memo = HashMap<(Vec<PieceIdx>, usize), (HashMap<Vec<PieceIdx>, f64>, f64)>;

/// Repair's redraws by their process: from holder h with t redraws left,
/// the solvable holders reached and the chance none is.
fn brute_redraws(
    shapes: &Shapes,
    board: Bits,
    h: &[PieceIdx],
    t: usize,
    law: &Law,
    policy: Policy,
    memo: &mut Memo,
) -> (HashMap<Vec<PieceIdx>, f64>, f64) {
    if let Some(m) = memo.get(&(h.to_vec(), t)) {
        return m.clone();
    }
    let v = validate(shapes, board, h);
    let mut out = (HashMap::new(), 0.0);
    if v.solvable {
        out.0.insert(h.to_vec(), 1.0);
    } else if t == 0 {
        out.1 = 1.0;
    } else {
        let slot = FMatrix::with_reading(&v, policy, Reading::Slot).chosen;
        for (j, &wj) in law.w.iter().enumerate() {
            let mut next = h.to_vec();
            next[slot] = j as PieceIdx;
            let (reached, stuck) = brute_redraws(shapes, board, &next, t - 1, law, policy, memo);
            for (x, p) in reached {
                *out.0.entry(x).or_insert(0.0) += wj * p;
            }
            out.1 += wj * stuck;
        }
    }
    memo.insert((h.to_vec(), t), out.clone());
    out
}

/// The engine's own fallback for a dealt holder: its changer with no
/// redraws and `policy`, the law's weights as integers (their order kept).
fn engine_fallback(
    shapes: &Shapes,
    set: &PieceSet,
    board: Bits,
    dealt: &[PieceIdx],
    law: &Law,
    policy: Policy,
) -> Vec<PieceIdx> {
    let mut weighted = set.clone();
    for (p, &x) in weighted.pieces.iter_mut().zip(law.w) {
        p.weight = (x * 1e9).round() as u32;
    }
    let options = ChangeOptions {
        policy,
        reading: Reading::Slot,
        max_redraws: 0,
    };
    repair(shapes, &weighted, board, dealt, &mut Generator::new(0), options).holder
}

/// Repair by its process: every first draw, its redraws, and the engine's
/// fallback from it when they all fail. The chance of every holder dealt,
/// and the part of it the fallback deals.
type Dealt = HashMap<Vec<PieceIdx>, (f64, f64)>;

#[allow(clippy::too_many_arguments)]
fn brute_repair_all(
    shapes: &Shapes,
    set: &PieceSet,
    board: Bits,
    k: usize,
    law: &Law,
    prev: Option<PieceIdx>,
    policy: Policy,
    redraws: usize,
) -> Dealt {
    let n = law.w.len();
    let hs = all_holders(n, k);
    let mut out: Dealt = HashMap::new();
    if hs.iter().all(|h| !validate(shapes, board, h).solvable) {
        for h in hs {
            out.insert(h.clone(), (law.first(&h, prev), 0.0));
        }
        return out;
    }
    let mut memo = HashMap::new();
    for h in &hs {
        let q = law.first(h, prev);
        let (reached, stuck) = brute_redraws(shapes, board, h, redraws, law, policy, &mut memo);
        for (x, p) in reached {
            out.entry(x).or_default().0 += q * p;
        }
        if stuck > 0.0 {
            let e = out
                .entry(engine_fallback(shapes, set, board, h, law, policy))
                .or_default();
            e.0 += q * stuck;
            e.1 += q * stuck;
        }
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn brute_repair(
    shapes: &Shapes,
    set: &PieceSet,
    board: Bits,
    a: &[PieceIdx],
    law: &Law,
    prev: Option<PieceIdx>,
    policy: Policy,
    redraws: usize,
) -> f64 {
    brute_repair_all(shapes, set, board, a.len(), law, prev, policy, redraws)
        .get(a)
        .map_or(0.0, |x| x.0)
}

#[allow(clippy::too_many_arguments)]
fn ours(
    shapes: &Shapes,
    set: &PieceSet,
    board: Bits,
    a: &[PieceIdx],
    law: &Law,
    prev: Option<PieceIdx>,
    check: Check,
    stats: Option<&mut Stats>,
) -> f64 {
    let mut every = set.clone();
    every.pieces.iter_mut().for_each(|p| p.weight = 1);
    let info = board_info(shapes, &every, board, a.len(), &Policy::ALL, &Progress::default())
        .unwrap()
        .unwrap();
    let policy_index = match check {
        Check::Repair { policy, .. } => Policy::ALL.iter().position(|&p| p == policy).unwrap(),
        _ => 0,
    };
    let d = Deal {
        info: &info,
        board,
        holder: a,
        previous: prev,
    };
    deal(&d, check, policy_index, law, &Fallback::new(shapes, set), stats)
}

fn board_strategy(side: usize) -> impl Strategy<Value = Bits> {
    proptest::collection::vec(proptest::bool::weighted(0.55), side * side).prop_map(move |cells| {
        let size = BoardSize::new(side, side).unwrap();
        let mut b: Bits = 0;
        for (i, &c) in cells.iter().enumerate() {
            if c {
                b |= 1 << size.bit(i % side, i / side);
            }
        }
        b
    })
}

fn weights_strategy(n: usize) -> impl Strategy<Value = Vec<f64>> {
    proptest::collection::vec(0.05f64..1.0, n).prop_map(|w| {
        let t: f64 = w.iter().sum();
        w.into_iter().map(|x| x / t).collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 60, ..ProptestConfig::default() })]

    #[test]
    fn reject_and_repair_equal_their_brute_force(
        n in 3usize..=5,
        board in board_strategy(5),
        raw_w in weights_strategy(5),
        a_raw in proptest::collection::vec(0usize..5, 3),
        prev_raw in proptest::option::of(0usize..5),
        repeat in proptest::option::of(0.0f64..0.5),
        policy_i in 0usize..3,
        redraws in 0usize..4,
    ) {
        let set = small_set(n);
        let shapes = Shapes::new(&set, BoardSize::new(5, 5).unwrap());
        let w: Vec<f64> = { let w = &raw_w[..n]; let t: f64 = w.iter().sum(); w.iter().map(|x| x / t).collect() };
        let a: Vec<PieceIdx> = a_raw.iter().map(|&x| (x % n) as PieceIdx).collect();
        let prev = prev_raw.map(|p| (p % n) as PieceIdx);
        let law = Law { w: &w, repeat };
        let policy = Policy::ALL[policy_i];
        let none = ours(&shapes, &set, board, &a, &law, prev, Check::None, None).exp();
        prop_assert!((none - law.first(&a, prev)).abs() < 1e-12);
        let r = ours(&shapes, &set, board, &a, &law, prev, Check::Reject, None).exp();
        let br = brute_reject(&shapes, board, &a, &law, prev);
        prop_assert!((r - br).abs() <= 1e-9 * br.max(1e-12), "reject {r} vs {br}");
        let check = Check::Repair { policy, redraws };
        let p = ours(&shapes, &set, board, &a, &law, prev, check, None).exp();
        let bp = brute_repair(&shapes, &set, board, &a, &law, prev, policy, redraws);
        prop_assert!((p - bp).abs() <= 1e-7 * bp.max(1e-12) + 1e-15, "repair {p} vs {bp} (redraws {redraws})");
    }

    #[test]
    fn the_expected_counts_are_the_likelihoods_gradient(
        board in board_strategy(5),
        raw_w in weights_strategy(4),
        a_raw in proptest::collection::vec(0usize..4, 3),
        prev_raw in proptest::option::of(0usize..4),
        repeat in proptest::option::of(0.05f64..0.5),
        which in 0usize..5,
    ) {
        let n = 4;
        let set = small_set(n);
        let shapes = Shapes::new(&set, BoardSize::new(5, 5).unwrap());
        let a: Vec<PieceIdx> = a_raw.iter().map(|&x| x as PieceIdx).collect();
        let prev = prev_raw.map(|p| p as PieceIdx);
        let check = [
            Check::None,
            Check::Reject,
            Check::Repair { policy: Policy::Deepest, redraws: 64 },
            Check::Repair { policy: Policy::Last, redraws: 1 },
            Check::Repair { policy: Policy::Frequency, redraws: 2 },
        ][which];
        let judged = score_gap(&shapes, &set, board, &a, prev, repeat, check, &raw_w);
        prop_assume!(judged != Ok(false));
        prop_assert!(judged.is_ok(), "{}", judged.unwrap_err());
    }
}

/// The expected counts against the numerical gradient of the deal's
/// log-likelihood in the log-odds of the weights (and of the repeat
/// chance): `Ok(false)` when the deal is too unlikely to judge.
#[allow(clippy::too_many_arguments)]
fn score_gap(
    shapes: &Shapes,
    set: &PieceSet,
    board: Bits,
    a: &[PieceIdx],
    prev: Option<PieceIdx>,
    repeat: Option<f64>,
    check: Check,
    raw_w: &[f64],
) -> Result<bool, String> {
    let n = raw_w.len();
    let theta: Vec<f64> = raw_w.iter().map(|w| w.ln()).collect();
    let ll = |theta: &[f64], rho: Option<f64>| {
        let e: Vec<f64> = theta.iter().map(|t| t.exp()).collect();
        let s: f64 = e.iter().sum();
        let w: Vec<f64> = e.iter().map(|x| x / s).collect();
        let law = Law {
            w: &w,
            repeat: rho.map(|r| 1.0 / (1.0 + (-r).exp())),
        };
        ours(shapes, set, board, a, &law, prev, check, None)
    };
    let rho = repeat.map(|r: f64| (r / (1.0 - r)).ln());
    let l0 = ll(&theta, rho);
    if !(l0.is_finite() && l0 > -40.0) {
        return Ok(false);
    }
    let mut stats = Stats::new(n);
    let law = Law { w: raw_w, repeat };
    ours(shapes, set, board, a, &law, prev, check, Some(&mut stats));
    let total: f64 = stats.draws.iter().sum();
    let h = 1e-5;
    for j in 0..n {
        let mut up = theta.clone();
        up[j] += h;
        let mut down = theta.clone();
        down[j] -= h;
        let numeric = (ll(&up, rho) - ll(&down, rho)) / (2.0 * h);
        let score = stats.draws[j] - total * raw_w[j];
        if (numeric - score).abs() >= 1e-4 * (1.0 + score.abs()) {
            return Err(format!("{check:?} piece {j}: {numeric} vs {score}"));
        }
    }
    if let (Some(rho), Some(r)) = (rho, repeat) {
        let numeric = (ll(&theta, Some(rho + h)) - ll(&theta, Some(rho - h))) / (2.0 * h);
        let score = stats.copies * (1.0 - r) - stats.fresh * r;
        if (numeric - score).abs() >= 1e-4 * (1.0 + score.abs()) {
            return Err(format!("{check:?} repeat: {numeric} vs {score}"));
        }
    }
    Ok(true)
}

/// Boards of random cells (`fill` of them filled), from a seed.
fn random_boards(side: usize, fill: f64, count: usize, seed: u64) -> Vec<Bits> {
    let size = BoardSize::new(side, side).unwrap();
    let mut g = Generator::new(seed);
    (0..count)
        .map(|_| {
            let mut b: Bits = 0;
            for i in 0..side * side {
                if g.unit() < fill {
                    b |= 1 << size.bit(i % side, i / side);
                }
            }
            b
        })
        .collect()
}

/// Where the fallback deals much of a holder's chance, under every policy
/// and with and without the repeat rule, the expected counts are still the
/// score: the fallback's paths (its first draws, the redraws that all
/// failed) are counted exactly.
#[test]
fn the_expected_counts_are_the_gradient_where_the_fallback_deals() {
    let n = 4;
    let set = small_set(n);
    let shapes = Shapes::new(&set, BoardSize::new(5, 5).unwrap());
    let w = [0.4, 0.15, 0.3, 0.15];
    let law = Law { w: &w, repeat: None };
    for policy in Policy::ALL {
        for redraws in [1, 2] {
            // The (board, holder) the fallback deals the largest share of.
            let mut best: Option<(f64, Bits, Vec<PieceIdx>)> = None;
            for board in random_boards(5, 0.55, 20, 11) {
                let mut dealt: Vec<_> =
                    brute_repair_all(&shapes, &set, board, 3, &law, None, policy, redraws)
                        .into_iter()
                        .collect();
                dealt.sort_by(|x, y| x.0.cmp(&y.0));
                for (a, (p, by_fallback)) in dealt {
                    if p > 1e-4
                        && validate(&shapes, board, &a).solvable
                        && best.as_ref().is_none_or(|b| by_fallback / p > b.0)
                    {
                        best = Some((by_fallback / p, board, a));
                    }
                }
            }
            let (share, board, a) = best.unwrap();
            assert!(share > 0.1, "{policy:?}: the fallback deals {share:.3} at most");
            eprintln!("{policy:?} redraws {redraws}: the fallback deals {share:.3} of {a:?}");
            let check = Check::Repair { policy, redraws };
            for (prev, repeat) in [(None, None), (Some(a[0]), Some(0.3))] {
                assert_eq!(
                    score_gap(&shapes, &set, board, &a, prev, repeat, check, &w),
                    Ok(true),
                    "{policy:?} redraws {redraws}, the fallback {share:.3} of {a:?}"
                );
            }
        }
    }
}

/// Eight pieces of unequal weights with ties among them (the fallback
/// tries the heaviest first, ties in piece order).
fn medium_set() -> PieceSet {
    let all = [
        ("dot", 3, "[\"#\"]"),
        ("h2", 2, "[\"##\"]"),
        ("v2", 2, "[\"#\", \"#\"]"),
        ("sq2", 4, "[\"##\", \"##\"]"),
        ("h3", 1, "[\"###\"]"),
        ("v3", 1, "[\"#\", \"#\", \"#\"]"),
        ("l3", 2, "[\"#.\", \"##\"]"),
        ("sq3", 1, "[\"###\", \"###\", \"###\"]"),
    ];
    let pieces: Vec<String> = all
        .iter()
        .map(|(id, w, rows)| format!("(id: \"{id}\", label: \"\", weight: {w}, rows: {rows})"))
        .collect();
    parse_piece_set(
        &format!("(name: \"medium\", pieces: [{}])", pieces.join(", ")),
        "test",
    )
    .unwrap()
}

/// What a simulation of the engine's changer says of the likelihood on
/// one board.
struct Simulated {
    /// Pearson's chi-square's p, rare holders pooled, and the cells judged.
    p: f64,
    cells: usize,
    /// The share of holders the fallback dealt.
    by_fallback: f64,
    /// The likelihood's chances over every holder, summed.
    total: f64,
}

/// `draws` holders drawn from the set's weights and run through the
/// engine's changer (`redraws` redraws, then its fallback), against the
/// likelihood under the weights' shares.
fn simulate_repair(
    shapes: &Shapes,
    set: &PieceSet,
    board: Bits,
    policy: Policy,
    redraws: usize,
    draws: u32,
    seed: u64,
) -> Simulated {
    use crate::search::changer::{Outcome, Phase};
    use statrs::distribution::{ChiSquared, ContinuousCDF};
    let (n, k) = (set.pieces.len(), 3);
    let mut every = set.clone();
    every.pieces.iter_mut().for_each(|p| p.weight = 1);
    let info = board_info(shapes, &every, board, k, &[policy], &Progress::default())
        .unwrap()
        .unwrap();
    assert!(!info.dead);
    let total_weight = set.total_weight() as f64;
    let shares: Vec<f64> = set
        .pieces
        .iter()
        .map(|p| f64::from(p.weight) / total_weight)
        .collect();
    let law = Law {
        w: &shares,
        repeat: None,
    };
    let options = ChangeOptions {
        policy,
        reading: Reading::Slot,
        max_redraws: redraws,
    };
    let mut g = Generator::new(seed);
    let mut counts: HashMap<u32, u32> = HashMap::new();
    let mut by_fallback = 0u32;
    for _ in 0..draws {
        let drawn = g.deal(set, k);
        let r = repair(shapes, set, board, &drawn, &mut g, options);
        assert_ne!(r.outcome, Outcome::Dead);
        by_fallback += u32::from(r.attempts.last().is_some_and(|a| a.phase == Phase::Fallback));
        *counts.entry(code(&r.holder, n)).or_insert(0) += 1;
    }
    let fb = Fallback::new(shapes, set);
    let check = Check::Repair { policy, redraws };
    let mut total = 0.0;
    // (expected, observed) of each holder, rare ones pooled.
    let mut cells: Vec<(f64, f64)> = Vec::new();
    let mut rest = (0.0, 0.0);
    for c in 0..(n as u32).pow(k as u32) {
        let h = crate::fits::generator::boards::decode(c, n, k);
        let d = Deal {
            info: &info,
            board,
            holder: &h,
            previous: None,
        };
        let p = deal(&d, check, 0, &law, &fb, None).exp();
        total += p;
        let seen = f64::from(counts.get(&c).copied().unwrap_or(0));
        assert!(p > 0.0 || seen == 0.0, "{h:?} dealt {seen} times, of chance 0");
        let expected = p * f64::from(draws);
        if expected < 5.0 {
            rest.0 += expected;
            rest.1 += seen;
        } else {
            cells.push((expected, seen));
        }
    }
    if rest.0 >= 5.0 || cells.is_empty() {
        cells.push(rest);
    } else if let Some(last) = cells.iter_mut().min_by(|a, b| a.0.total_cmp(&b.0)) {
        last.0 += rest.0;
        last.1 += rest.1;
    }
    let chi: f64 = cells.iter().map(|(e, o)| (o - e).powi(2) / e).sum();
    let df = (cells.len() - 1).max(1) as f64;
    Simulated {
        p: ChiSquared::new(df).unwrap().sf(chi),
        cells: cells.len(),
        by_fallback: f64::from(by_fallback) / f64::from(draws),
        total,
    }
}

/// The repair likelihood against the engine's own changer, by simulation:
/// every policy, one and two redraws, on boards where a third to two thirds
/// of the holders drawn are unsolvable and on boards where nine in ten or
/// more are, so the fallback deals a real share of the holders.
#[test]
fn repair_matches_the_engines_changer_by_simulation() {
    let set = medium_set();
    let size = BoardSize::new(6, 6).unwrap();
    let shapes = Shapes::new(&set, size);
    let mut every = set.clone();
    every.pieces.iter_mut().for_each(|p| p.weight = 1);
    // Boards by danger under the set's weights, a cell of each full line
    // emptied; none dead. (Play, or random cells, rarely leave a danger
    // above 0.7 on this set: a line one cell short is cleared by a dot.)
    let g = &shapes.geometry;
    let mut rng = Generator::new(21);
    // (danger, board, solvable multisets)
    let mut boards: Vec<(f64, Bits, u64)> = Vec::new();
    // Random boards, and a checkerboard (where only dots fit) with a few
    // cells emptied: the dangerous ones.
    let mut candidates: Vec<Bits> = Vec::new();
    for fill in [0.5, 0.6, 0.7] {
        candidates.extend(random_boards(6, fill, 60, rng.below(1000) as u64));
    }
    let checkerboard = crate::model::board::checkerboard(size);
    for emptied in 1..=4 {
        for _ in 0..30 {
            let mut board = checkerboard;
            for _ in 0..emptied {
                let i = rng.below(36);
                board &= !(1 << size.bit(i % 6, i / 6));
            }
            candidates.push(board);
        }
    }
    for mut board in candidates {
        loop {
            let full = g.mask_of(g.full_lines(board));
            if full == 0 {
                break;
            }
            let mut cell = full;
            for _ in 0..rng.below(full.count_ones() as usize) {
                cell &= cell - 1;
            }
            board &= !(1 << cell.trailing_zeros());
        }
        let dead = crate::danger::danger(&shapes, &every, board, 3).unwrap();
        if dead.killers.len() as u64 != dead.multisets && !boards.iter().any(|x| x.1 == board) {
            let danger = crate::danger::danger_probability(&shapes, &set, board, 3).unwrap();
            let solvable = dead.multisets - dead.killers.len() as u64;
            boards.push((danger, board, solvable));
        }
    }
    // The dangerous boards with the most solvable holders (cells to judge).
    boards.sort_by(|a, b| b.2.cmp(&a.2).then(b.0.total_cmp(&a.0)));
    let high: Vec<_> = boards
        .iter()
        .filter(|b| (0.9..0.985).contains(&b.0))
        .take(2)
        .map(|b| (b.0, b.1))
        .collect();
    // And the two boards nearest an even danger.
    let mut middle: Vec<_> = boards
        .iter()
        .filter(|b| (0.3..=0.7).contains(&b.0))
        .map(|b| (b.0, b.1))
        .collect();
    middle.sort_by(|a, b| (a.0 - 0.5).abs().total_cmp(&(b.0 - 0.5).abs()));
    middle.truncate(2);
    assert_eq!(
        (high.len(), middle.len()),
        (2, 2),
        "(danger, solvable multisets): {:?}",
        boards
            .iter()
            .filter(|b| b.0 > 0.8)
            .map(|b| (b.0, b.2))
            .collect::<Vec<_>>()
    );
    let mut most_by_fallback: f64 = 0.0;
    for (i, &(danger, board)) in high.iter().chain(&middle).enumerate() {
        for (pi, policy) in Policy::ALL.into_iter().enumerate() {
            for redraws in [1, 2] {
                let seed = 100 + 10 * i as u64 + 2 * pi as u64 + redraws as u64;
                let s = simulate_repair(&shapes, &set, board, policy, redraws, 20_000, seed);
                eprintln!(
                    "danger {danger:.3} {policy:?} redraws {redraws}: p {:.3} over {} cells, fallback {:.3}",
                    s.p, s.cells, s.by_fallback
                );
                assert!((s.total - 1.0).abs() < 1e-9, "the chances sum to {}", s.total);
                assert!(s.cells >= 5, "{} cells judged", s.cells);
                assert!(
                    s.p > 1e-3,
                    "danger {danger:.3}, {policy:?}, redraws {redraws}: chi-square p {:.2e}",
                    s.p
                );
                most_by_fallback = most_by_fallback.max(s.by_fallback);
            }
        }
    }
    assert!(
        most_by_fallback >= 0.05,
        "the fallback dealt {most_by_fallback:.3} at most"
    );
}

/// Reject's chances against the engine's own dealer, by simulation, on
/// crowded boards of the classic game.
#[test]
fn reject_matches_the_engines_dealer_by_simulation() {
    use crate::play::dealers::{Table, rejected};
    use crate::play::file_dealer::weighted;
    let (set, shapes) = crate::fixtures::classic();
    let mut rng = Generator::new(4);
    let boards = crate::play::random_fill::played_deals(&shapes, &set, 3, 300, &mut rng);
    let mut every = set.clone();
    every.pieces.iter_mut().for_each(|p| p.weight = 1);
    let n = set.pieces.len();
    let shares: Vec<f64> = set
        .pieces
        .iter()
        .map(|p| f64::from(p.weight) / set.total_weight() as f64)
        .collect();
    let law = Law {
        w: &shares,
        repeat: None,
    };
    let weights = weighted(&set, &shares);
    // The most dangerous boards: where the check changes most.
    let mut risky: Vec<(f64, Bits)> = boards
        .iter()
        .map(|d| {
            (
                crate::danger::danger_probability(&shapes, &set, d.board, 3).unwrap(),
                d.board,
            )
        })
        .filter(|(p, _)| *p > 0.05 && *p < 0.9)
        .collect();
    risky.sort_by(|a, b| b.0.total_cmp(&a.0));
    assert!(risky.len() >= 2, "the corpus must hold dangerous boards");
    let draws = 20_000;
    for &(_, board) in risky.iter().take(2) {
        let info = board_info(&shapes, &every, board, 3, &[], &Progress::default())
            .unwrap()
            .unwrap();
        let table = Table {
            shapes: &shapes,
            set: &set,
            board,
            k: 3,
        };
        let mut counts: HashMap<u32, u32> = HashMap::new();
        let mut g = Generator::new(9);
        for _ in 0..draws {
            let drawn = g.deal(&weights, 3);
            let h = rejected(&table, &weights, drawn, &mut g, 10_000).holder;
            *counts.entry(code(&h, n)).or_insert(0) += 1;
        }
        // Pearson's chi-square over every solvable holder given at least 5
        // expected deals (the rest pooled), against its degrees of freedom
        // with five standard deviations' room.
        let fb = Fallback::new(&shapes, &set);
        let (mut chi, mut judged, mut rest_p, mut rest_k) = (0.0, 0usize, 0.0, 0u32);
        for c in 0..(n as u32).pow(3) {
            let h = crate::fits::generator::boards::decode(c, n, 3);
            let d = Deal {
                info: &info,
                board,
                holder: &h,
                previous: None,
            };
            let p = deal(&d, Check::Reject, 0, &law, &fb, None).exp();
            let k = counts.get(&c).copied().unwrap_or(0);
            let expected = p * draws as f64;
            if expected < 5.0 {
                rest_p += expected;
                rest_k += k;
                continue;
            }
            judged += 1;
            chi += (f64::from(k) - expected).powi(2) / expected;
        }
        if rest_p > 5.0 {
            chi += (f64::from(rest_k) - rest_p).powi(2) / rest_p;
            judged += 1;
        }
        let df = (judged - 1) as f64;
        assert!(
            chi < df + 5.0 * (2.0 * df).sqrt(),
            "reject: chi-square {chi:.0} on {df} degrees of freedom"
        );
        assert!(judged > 20, "{judged} holders judged");
    }
}

/// A line key from the pieces equals the key by division of the code: the
/// slots before s shifted down one place, the slots after kept.
#[test]
fn line_keys_from_pieces_equal_keys_by_division() {
    for (n, k) in [(5usize, 3usize), (41, 3), (7, 2), (4, 1), (3, 4)] {
        let line = (n as u32).pow(k as u32 - 1);
        let mut place = [1u32; MAX_HOLDER];
        for s in (0..k - 1).rev() {
            place[s] = place[s + 1] * n as u32;
        }
        // Every holder of the first few pieces, and of the last few (the
        // largest keys).
        let low = n.min(9);
        let high = all_holders(low, k)
            .into_iter()
            .map(|h| h.iter().map(|&p| (n - low) as PieceIdx + p).collect::<Vec<_>>());
        for h in all_holders(low, k).into_iter().chain(high) {
            let c = code(&h, n);
            for s in 0..k {
                let by_division = s as u32 * line + c / (place[s] * n as u32) * place[s] + c % place[s];
                assert_eq!(
                    line_key(&h, s, &place, line),
                    by_division,
                    "n={n} k={k} {h:?} slot {s}"
                );
            }
        }
    }
}
