//! The likelihood against a plain brute force on small sets and boards:
//! reject by summing its redraws as a series, repair by following every
//! path of the changer (validate, F's slot, every redraw) to its end; the
//! expected counts against the likelihood's numerical gradient; and the
//! chain against the engine's own dealers by simulation.

use std::collections::HashMap;

use proptest::prelude::*;

use super::*;
use crate::fits::generator::boards::{board_info, code};
use crate::io::formats::parse_piece_set;
use crate::model::board::BoardSize;
use crate::progress::Progress;
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

/// The paths' ends already followed: (holder, redraws left) to the
/// distribution of the holder dealt.
type Memo = HashMap<(Vec<PieceIdx>, usize), HashMap<Vec<PieceIdx>, f64>>;

/// Repair by its process: from holder h with t redraws left, the
/// distribution of the holder dealt.
#[allow(clippy::too_many_arguments)]
fn brute_repair_from(
    shapes: &Shapes,
    set: &PieceSet,
    board: Bits,
    h: &[PieceIdx],
    t: usize,
    law: &Law,
    policy: Policy,
    memo: &mut Memo,
) -> HashMap<Vec<PieceIdx>, f64> {
    if let Some(m) = memo.get(&(h.to_vec(), t)) {
        return m.clone();
    }
    let v = validate(shapes, board, h);
    let mut out = HashMap::new();
    if v.solvable {
        out.insert(h.to_vec(), 1.0);
    } else if t == 0 {
        let fb = Fallback { shapes, set };
        out.insert(fb.holder(board, h, law.w), 1.0);
    } else {
        let slot = FMatrix::with_reading(&v, policy, Reading::Slot).chosen;
        for (j, &wj) in law.w.iter().enumerate() {
            let mut next = h.to_vec();
            next[slot] = j as PieceIdx;
            for (x, p) in brute_repair_from(shapes, set, board, &next, t - 1, law, policy, memo) {
                *out.entry(x).or_insert(0.0) += wj * p;
            }
        }
    }
    memo.insert((h.to_vec(), t), out.clone());
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
    let n = law.w.len();
    let hs = all_holders(n, a.len());
    if hs.iter().all(|h| !validate(shapes, board, h).solvable) {
        return law.first(a, prev);
    }
    let mut memo = HashMap::new();
    hs.iter()
        .map(|h| {
            let q = law.first(h, prev);
            q * brute_repair_from(shapes, set, board, h, redraws, law, policy, &mut memo)
                .get(a)
                .copied()
                .unwrap_or(0.0)
        })
        .sum()
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
    deal(&d, check, policy_index, law, &Fallback { shapes, set }, stats)
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
        which in 0usize..3,
    ) {
        let n = 4;
        let set = small_set(n);
        let shapes = Shapes::new(&set, BoardSize::new(5, 5).unwrap());
        let a: Vec<PieceIdx> = a_raw.iter().map(|&x| x as PieceIdx).collect();
        let prev = prev_raw.map(|p| p as PieceIdx);
        let check = [Check::None, Check::Reject, Check::Repair { policy: Policy::Deepest, redraws: 64 }][which];
        let theta: Vec<f64> = raw_w.iter().map(|w| w.ln()).collect();
        let ll = |theta: &[f64], rho: Option<f64>| {
            let e: Vec<f64> = theta.iter().map(|t| t.exp()).collect();
            let s: f64 = e.iter().sum();
            let w: Vec<f64> = e.iter().map(|x| x / s).collect();
            let law = Law { w: &w, repeat: rho.map(|r| 1.0 / (1.0 + (-r).exp())) };
            ours(&shapes, &set, board, &a, &law, prev, check, None)
        };
        let rho = repeat.map(|r: f64| (r / (1.0 - r)).ln());
        let l0 = ll(&theta, rho);
        prop_assume!(l0.is_finite() && l0 > -40.0);
        let mut stats = Stats::new(n);
        let law = Law { w: &raw_w, repeat };
        ours(&shapes, &set, board, &a, &law, prev, check, Some(&mut stats));
        let total: f64 = stats.draws.iter().sum();
        let h = 1e-5;
        for j in 0..n {
            let mut up = theta.clone();
            up[j] += h;
            let mut down = theta.clone();
            down[j] -= h;
            let numeric = (ll(&up, rho) - ll(&down, rho)) / (2.0 * h);
            let score = stats.draws[j] - total * raw_w[j];
            prop_assert!((numeric - score).abs() < 1e-4 * (1.0 + score.abs()), "piece {j}: {numeric} vs {score}");
        }
        if let (Some(rho), Some(r)) = (rho, repeat) {
            let numeric = (ll(&theta, Some(rho + h)) - ll(&theta, Some(rho - h))) / (2.0 * h);
            let score = stats.copies * (1.0 - r) - stats.fresh * r;
            prop_assert!((numeric - score).abs() < 1e-4 * (1.0 + score.abs()), "repeat: {numeric} vs {score}");
        }
    }
}

/// The chain's chances against the engine's own dealers, by simulation,
/// on crowded boards of the classic game.
#[test]
fn the_chain_matches_the_engines_dealers_by_simulation() {
    use crate::model::generator::Generator;
    use crate::play::dealers::{Table, rejected, repaired};
    use crate::play::file_dealer::weighted;
    use crate::search::changer::ChangeOptions;
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
    // The most dangerous boards: where the checks change most.
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
        let info = board_info(
            &shapes,
            &every,
            board,
            3,
            &[Policy::Deepest],
            &Progress::default(),
        )
        .unwrap()
        .unwrap();
        let table = Table {
            shapes: &shapes,
            set: &set,
            board,
            k: 3,
        };
        for check in [
            Check::Reject,
            Check::Repair {
                policy: Policy::Deepest,
                redraws: 64,
            },
        ] {
            let mut counts: HashMap<u32, u32> = HashMap::new();
            let mut g = Generator::new(9);
            for _ in 0..draws {
                let drawn = g.deal(&weights, 3);
                let h = match check {
                    Check::Reject => rejected(&table, &weights, drawn, &mut g, 10_000).holder,
                    _ => repaired(&table, &weights, drawn, &mut g, ChangeOptions::default()).holder,
                };
                *counts.entry(code(&h, n)).or_insert(0) += 1;
            }
            // Pearson's chi-square over every solvable holder the chain
            // gives at least 5 expected deals (the rest pooled), against
            // its degrees of freedom with five standard deviations' room.
            let fb = Fallback {
                shapes: &shapes,
                set: &set,
            };
            let (mut chi, mut judged, mut rest_p, mut rest_k) = (0.0, 0usize, 0.0, 0u32);
            for c in 0..(n as u32).pow(3) {
                let h = crate::fits::generator::boards::decode(c, n, 3);
                let d = Deal {
                    info: &info,
                    board,
                    holder: &h,
                    previous: None,
                };
                let p = deal(&d, check, 0, &law, &fb, None).exp();
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
                "{check:?}: chi-square {chi:.0} on {df} degrees of freedom"
            );
            assert!(judged > 20, "{judged} holders judged");
        }
    }
}
