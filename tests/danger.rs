//! The danger of a board is exact: on small boards it equals a brute force
//! over every ordered deal, each judged by the plain grid search of
//! `common`, with random custom piece sets (weights of 0 included, sets
//! without a one-cell piece included).

use std::collections::{BTreeMap, HashSet};

use proptest::prelude::*;
use tenten_engine::danger::{danger, dead_regions};
use tenten_engine::model::board::{Bits, BoardSize};
use tenten_engine::model::pieces::{Piece, PieceIdx, PieceSet};
use tenten_engine::model::shapes::Shapes;

mod common;
use common::brute::{Grid, brute, clear_full, grid_of, pool};

/// Danger and killers by brute force: every ordered deal of dealable pieces.
fn brute_danger(set: &PieceSet, start: &Grid, k: usize) -> (f64, BTreeMap<Vec<PieceIdx>, f64>) {
    let total: u32 = set.pieces.iter().map(|p| p.weight).sum();
    let dealable: Vec<PieceIdx> = (0..set.pieces.len() as PieceIdx)
        .filter(|&i| set.piece(i).weight > 0)
        .collect();
    let mut failed = HashSet::new();
    let mut danger = 0.0;
    let mut killers = BTreeMap::new();
    let mut deal = vec![0usize; k];
    loop {
        let holder: Vec<PieceIdx> = deal.iter().map(|&d| dealable[d]).collect();
        let p: f64 = holder
            .iter()
            .map(|&i| f64::from(set.piece(i).weight) / f64::from(total))
            .product();
        let mut left: Vec<&Piece> = holder.iter().map(|&i| set.piece(i)).collect();
        if !brute(start, &mut left, &mut failed) {
            danger += p;
            let mut key = holder.clone();
            key.sort();
            *killers.entry(key).or_insert(0.0) += p;
        }
        // The next ordered deal, like an odometer.
        let mut d = 0;
        loop {
            if d == k {
                return (danger, killers);
            }
            deal[d] += 1;
            if deal[d] < dealable.len() {
                break;
            }
            deal[d] = 0;
            d += 1;
        }
    }
}

fn case() -> impl Strategy<Value = (BoardSize, Bits, usize, PieceSet)> {
    let n = pool().len();
    (
        4..=6usize,
        4..=6usize,
        0..4usize,
        (any::<u128>(), any::<u128>()),
        1..=3usize,
        proptest::sample::subsequence((0..n).collect::<Vec<_>>(), 2..=7),
        proptest::collection::vec(0..4u32, 7),
    )
        .prop_filter_map(
            "some piece must be dealable",
            |(w, h, density, (a, b), k, chosen, weights)| {
                let size = BoardSize::new(w, h).ok()?;
                let all = pool();
                let pieces: Vec<Piece> = chosen
                    .iter()
                    .zip(&weights)
                    .map(|(&i, &wt)| {
                        let mut p = all[i].clone();
                        p.weight = wt;
                        p
                    })
                    .collect();
                let set = PieceSet::new("random", pieces).ok()?;
                let bits = [a & b, a, a | b, 0][density] & ((1u128 << (w * h)) - 1);
                Some((size, bits, k, set))
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn danger_equals_a_brute_force_over_every_ordered_deal((size, bits, k, set) in case()) {
        let shapes = Shapes::new(&set, size);
        let d = danger(&shapes, &set, bits, k).unwrap();
        let start = clear_full(&grid_of(size, bits));
        let (expected, killers) = brute_danger(&set, &start, k);
        prop_assert!((d.probability - expected).abs() < 1e-12, "{} vs {}", d.probability, expected);
        prop_assert_eq!(d.killers.len(), killers.len());
        for killer in &d.killers {
            let p = killers.get(&killer.pieces).copied();
            prop_assert!(p.is_some(), "{} is no killer", set.ids(&killer.pieces));
            prop_assert!((p.unwrap_or(0.0) - killer.probability).abs() < 1e-12);
        }
    }
}

/// A set without the dot on a 4x4 board: a lone hole and a pair h2 cannot
/// take are dead, the other pair is not, and the danger still matches the brute force.
#[test]
fn a_lone_hole_is_dead_without_a_dot() {
    let size = BoardSize::new(4, 4).unwrap();
    let rows = |s: &str| s.split('/').map(str::to_owned).collect::<Vec<_>>();
    let set = PieceSet::new(
        "no dot",
        vec![
            Piece::from_rows("h2", "", 1, &rows("##")).unwrap(),
            Piece::from_rows("sq2", "", 1, &rows("##/##")).unwrap(),
        ],
    )
    .unwrap();
    let shapes = Shapes::new(&set, size);
    // A lone hole, a vertical pair h2 cannot take, a horizontal pair it can;
    // no line is full.
    let picture = [".###", "###.", "###.", "#..#"];
    let bits: Bits = picture
        .iter()
        .enumerate()
        .flat_map(|(y, row)| row.chars().enumerate().map(move |(x, c)| (x, y, c)))
        .filter(|&(_, _, c)| c == '#')
        .fold(0, |b, (x, y, _)| b | 1 << size.bit(x, y));
    let vertical = 1u128 << size.bit(3, 1) | 1 << size.bit(3, 2);
    assert_eq!(dead_regions(&shapes, &set, bits), vec![1, vertical]);
    let start = clear_full(&grid_of(size, bits));
    for k in 1..=3 {
        let (expected, killers) = brute_danger(&set, &start, k);
        let d = danger(&shapes, &set, bits, k).unwrap();
        assert!((d.probability - expected).abs() < 1e-12, "k={k}");
        assert_eq!(d.killers.len(), killers.len());
    }
}
