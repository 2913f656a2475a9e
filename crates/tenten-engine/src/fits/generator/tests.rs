//! Recovery: logs dealt by every preset generator (and by random rules
//! drawn from a seeded range), learned back.

use super::*;
use crate::fits::generator::deals::{Deals, Seen};
use crate::fits::generator::likelihood::Check;
use crate::fits::player::record_places_dealt;
use crate::model::board::BoardSize;
use crate::play::dealing::Dealing;
use crate::play::player;
use crate::search::heuristic::Policy;

/// `n` deals dealt by `generator` to `player`, as the fit reads them.
pub fn dealt(generator: &str, player: &str, seed: u64, n: usize) -> (PieceSet, Deals) {
    let set = PieceSet::classic();
    let dealing = Dealing::by_name(generator, &set).unwrap();
    dealt_by(&dealing, generator, player, seed, n)
}

/// `n` deals of a generator file's text to `player`.
fn dealt_by_file(text: &str, player: &str, seed: u64, n: usize) -> (PieceSet, Deals) {
    let set = PieceSet::classic();
    let spec = crate::play::generator_file::parse(text, "truth", &set).unwrap();
    dealt_by(&Dealing::file(spec, &set).unwrap(), "truth", player, seed, n)
}

/// `n` deals by `dealing` (logged as `generator`) to `player`, as the fit
/// reads them.
fn dealt_by(dealing: &Dealing, generator: &str, player: &str, seed: u64, n: usize) -> (PieceSet, Deals) {
    let set = PieceSet::classic();
    let shapes = Shapes::new(&set, BoardSize::CLASSIC);
    let who = player::preset(player).unwrap();
    let places = record_places_dealt(&shapes, &set, 3, &who, seed, n, dealing);
    let text =
        crate::io::playtest_log::to_jsonl(&places, BoardSize::CLASSIC, &set, player, "s", Some(generator));
    let deals = deals::read_texts(&[("log.jsonl".to_owned(), text)], &set).unwrap();
    (set, deals)
}

fn quick() -> Request {
    Request {
        replications: 10,
        held_out: false,
        ..Request::default()
    }
}

#[test]
fn no_deal_and_one_deal_give_the_prior_with_unbounded_intervals() {
    let set = PieceSet::classic();
    let empty = Deals {
        size: BoardSize::CLASSIC,
        k: 3,
        deals: Vec::new(),
        games: 0,
        notes: Vec::new(),
    };
    let l = learn(&set, &empty, &quick(), &Progress::default())
        .unwrap()
        .unwrap();
    assert!(l.lines[0].starts_with("deals=0 "), "{}", l.lines[0]);
    assert!(l.notes.iter().any(|n| n.contains("fewer than 2 deals")));
    let one = Deals {
        deals: vec![Seen {
            board: 0,
            holder: vec![0, 1, 2],
            game: 0,
            previous: None,
            dry_rounds: Some(0),
            dealt_before: Some(0),
            fill: 0.0,
            at: "x:1".to_owned(),
        }],
        games: 1,
        ..empty
    };
    let l = learn(&set, &one, &quick(), &Progress::default())
        .unwrap()
        .unwrap();
    assert!(l.lines[0].starts_with("deals=1 "), "{}", l.lines[0]);
    let best = l.best.unwrap();
    // A share seen once in three pieces: its interval is wide or open.
    assert!(best.intervals[0].iter().all(|&(lo, hi)| lo <= hi));
    assert!(
        best.intervals[0][0].1 - best.intervals[0][0].0 > 0.5,
        "{:?}",
        best.intervals[0][0]
    );
}

fn suite_request() -> Request {
    Request {
        policies: vec![Policy::Deepest],
        held_out: false,
        replications: 5,
        ..Request::default()
    }
}

/// The kind of check learned: "none", "reject", "repair" or "bag".
fn kind(l: &Learned) -> &'static str {
    if l.bag_best {
        return "bag";
    }
    match l.best.as_ref().map(|b| b.rules.check) {
        Some(Check::Reject) => "reject",
        Some(Check::Repair { .. }) => "repair",
        _ => "none",
    }
}

/// The check is the truth, or undecided between the truth and `other`.
fn identifies(l: &Learned, truth: &str, other: &str) {
    let k = kind(l);
    assert!(
        (k == truth && (l.decided || l.runner_up == other))
            || (!l.decided && k == other && l.runner_up == truth),
        "learned {k} (decided {}, runner-up {}, margin {:.2}), the truth {truth}",
        l.decided,
        l.runner_up,
        l.check_margin
    );
}

/// Shares of `spec`'s weights inside the learned intervals.
fn covered(l: &Learned, truth: &[f64]) -> usize {
    let best = l.best.as_ref().unwrap();
    best.intervals[0]
        .iter()
        .zip(truth)
        .filter(|(ci, t)| ci.0 <= **t && **t <= ci.1)
        .count()
}

fn classic_shares() -> Vec<f64> {
    let set = PieceSet::classic();
    set.pieces
        .iter()
        .map(|p| f64::from(p.weight) / set.total_weight() as f64)
        .collect()
}

/// The learned file reads back and deals a game.
fn deals_a_game(l: &Learned, set: &PieceSet) {
    let spec = crate::play::generator_file::parse(&l.text, "learned", set).unwrap();
    let dealing = Dealing::file(spec, set).unwrap();
    let shapes = Shapes::new(set, BoardSize::CLASSIC);
    let who = player::preset("novice").unwrap();
    let played = record_places_dealt(&shapes, set, 3, &who, 7, 30, &dealing);
    assert_eq!(played.len(), 30);
}

#[test]
fn the_checks_and_rules_of_every_preset_are_learned_back() {
    let progress = Progress::default();
    // random: no check, decided; its weights covered.
    let (set, deals) = dealt("random", "novice", 11, 2000);
    let l = learn(&set, &deals, &suite_request(), &progress).unwrap().unwrap();
    identifies(&l, "none", "none");
    assert!(l.decided, "{}", l.lines[0]);
    assert!(covered(&l, &classic_shares()) >= 16, "{}", l.lines[0]);
    assert!(l.smoking.observed > 0 && l.smoking.range.0 <= l.smoking.observed as f64);
    deals_a_game(&l, &set);
    // reject and repair: a check for sure; which one, when the data tell.
    for (truth, other) in [("reject", "repair"), ("repair", "reject")] {
        let (set, deals) = dealt(truth, "novice", 12, 2000);
        let l = learn(&set, &deals, &suite_request(), &progress).unwrap().unwrap();
        identifies(&l, truth, other);
        assert_eq!(l.smoking.observed, 0);
        assert!(
            l.smoking.range.0 > 0.0,
            "none would have dealt unsolvable holders"
        );
        assert!(covered(&l, &classic_shares()) >= 16, "{}", l.lines[0]);
        deals_a_game(&l, &set);
    }
    // bag: its counts exactly.
    let (set, deals) = dealt("bag", "novice", 13, 2000);
    let l = learn(&set, &deals, &suite_request(), &progress).unwrap().unwrap();
    assert!(l.bag_best && l.decided, "{}", l.lines[0]);
    let counts: Vec<u32> = set.pieces.iter().map(|p| p.weight).collect();
    assert!(matches!(&l.bag, BagFit::Fits { counts: c, .. } if *c == counts));
    assert_eq!(l.file.check, crate::play::generator_file::Check::Bag);
    deals_a_game(&l, &set);
    // block-blast-like: a check that fixes holders, and repeat_previous 0.09.
    let (set, deals) = dealt("block-blast-like", "novice", 14, 2000);
    let l = learn(&set, &deals, &suite_request(), &progress).unwrap().unwrap();
    identifies(&l, "reject", "repair");
    let best = l.best.as_ref().unwrap();
    let (lo, hi) = best.repeat_ci;
    assert!(
        best.repeat.is_some() && lo <= 0.09 && 0.09 <= hi,
        "{}",
        l.lines[0]
    );
    assert!(l.file.repeat_previous > 0.05 && l.file.repeat_previous < 0.14);
    deals_a_game(&l, &set);
    // classic-with-mercy: repair with fill bands.
    let (set, deals) = dealt("classic-with-mercy", "novice", 15, 2000);
    let l = learn(&set, &deals, &suite_request(), &progress).unwrap().unwrap();
    identifies(&l, "repair", "reject");
    let best = l.best.as_ref().unwrap();
    assert!(!best.rules.bands.is_empty(), "{}", l.lines.join("\n"));
    assert!(!l.file.by_fill.is_empty());
    deals_a_game(&l, &set);
}

/// A generator with weights, repeat chance and check drawn from `seed`.
fn random_generator(seed: u64) -> (String, Vec<f64>, f64, &'static str) {
    let set = PieceSet::classic();
    let mut g = crate::model::generator::Generator::new(seed);
    let weights: Vec<u32> = set.pieces.iter().map(|_| 1 + g.below(30) as u32).collect();
    let total: u32 = weights.iter().sum();
    let repeat = if g.unit() < 0.5 {
        0.0
    } else {
        (g.unit() * 0.2 * 1000.0).round() / 1000.0
    };
    let check = [
        "none",
        "reject(redraws: 10000)",
        "repair(policy: deepest, redraws: 64)",
    ][g.below(3)];
    let text = format!(
        "(name: \"drawn {seed}\", weights: {{ {} }}, repeat_previous: {repeat}, check: {check})",
        set.pieces
            .iter()
            .zip(&weights)
            .map(|(p, w)| format!("\"{}\": {w}", p.id))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let shares = weights.iter().map(|&w| f64::from(w) / f64::from(total)).collect();
    let kind = match check.as_bytes()[2] {
        b'n' => "none",
        b'j' => "reject",
        _ => "repair",
    };
    (text, shares, repeat, kind)
}

/// Every fixed polyomino of `cells` cells (rotations and reflections kept
/// apart, as a game that never rotates pieces deals them), as rows.
fn fixed_polyominoes(cells: usize) -> Vec<Vec<String>> {
    use std::collections::BTreeSet;
    let normal = |s: &BTreeSet<(i32, i32)>| -> BTreeSet<(i32, i32)> {
        let x0 = s.iter().map(|c| c.0).min().unwrap_or(0);
        let y0 = s.iter().map(|c| c.1).min().unwrap_or(0);
        s.iter().map(|&(x, y)| (x - x0, y - y0)).collect()
    };
    let mut level: BTreeSet<BTreeSet<(i32, i32)>> = BTreeSet::from([BTreeSet::from([(0, 0)])]);
    for _ in 1..cells {
        let mut next = BTreeSet::new();
        for s in &level {
            for &(x, y) in s {
                for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    let mut t = s.clone();
                    if t.insert((x + dx, y + dy)) {
                        next.insert(normal(&t));
                    }
                }
            }
        }
        level = next;
    }
    level
        .into_iter()
        .map(|s| {
            let w = s.iter().map(|c| c.0).max().unwrap_or(0) + 1;
            let h = s.iter().map(|c| c.1).max().unwrap_or(0) + 1;
            (0..h)
                .map(|y| {
                    (0..w)
                        .map(|x| if s.contains(&(x, y)) { '#' } else { '.' })
                        .collect()
                })
                .collect()
        })
        .collect()
}

#[test]
fn a_set_of_41_fixed_pieces_on_8x8_is_read_and_fitted_from_deals_alone() {
    // 28 fixed polyominoes of 1-4 cells and the first 13 of 5: 41 pieces,
    // as Block Blast's 15 types never rotated are; 68,921 ordered holders.
    let mut shapes_rows: Vec<Vec<String>> = (1..=4).flat_map(fixed_polyominoes).collect();
    shapes_rows.extend(fixed_polyominoes(5).into_iter().take(13));
    assert_eq!(shapes_rows.len(), 41);
    let pieces: Vec<String> = shapes_rows
        .iter()
        .enumerate()
        .map(|(i, rows)| {
            format!(
                "(id: \"p{i}\", label: \"\", weight: {}, rows: {rows:?})",
                1 + i % 4
            )
        })
        .collect();
    let set = crate::io::formats::parse_piece_set(
        &format!("(name: \"41\", pieces: [{}])", pieces.join(", ")),
        "test",
    )
    .unwrap();
    let size = BoardSize::new(8, 8).unwrap();
    let shapes = Shapes::new(&set, size);
    let who = player::preset("casual").unwrap();
    let places = record_places_dealt(&shapes, &set, 3, &who, 5, 400, &Dealing::Builtin("random"));
    // A recording of the deals alone: no moves, no game or round marked.
    let text: String = places
        .iter()
        .map(|(d, _)| {
            let board = crate::model::board::Board::from_bits(size, d.board).to_rows();
            let holder: Vec<&str> = d.holder.iter().map(|&p| set.piece(p).id.as_str()).collect();
            format!("{}\n", serde_json::json!({ "board": board, "holder": holder }))
        })
        .collect();
    let deals = deals::read_texts(&[("recorded.jsonl".to_owned(), text)], &set).unwrap();
    assert_eq!((deals.deals.len(), deals.size, deals.k), (400, size, 3));
    assert!(deals.notes.iter().any(|n| n.contains("not marked")));
    let req = Request {
        policies: vec![Policy::Deepest],
        rules: false,
        held_out: false,
        replications: 10,
        ..Request::default()
    };
    let l = learn(&set, &deals, &req, &Progress::default()).unwrap().unwrap();
    assert!(l.lines[0].starts_with("deals=400 "), "{}", l.lines[0]);
    let best = l.best.as_ref().unwrap();
    assert_eq!(best.weights[0].len(), 41);
    let total: f64 = set.pieces.iter().map(|p| f64::from(p.weight)).sum();
    let truth: Vec<f64> = set.pieces.iter().map(|p| f64::from(p.weight) / total).collect();
    assert!(covered(&l, &truth) >= 34, "{}", l.lines[0]);
    crate::play::generator_file::parse(&l.text, "learned", &set).unwrap();
}

/// The shares a generator file deals, in the set's order.
fn file_shares(l: &Learned, set: &PieceSet) -> Vec<f64> {
    let spec = crate::play::generator_file::parse(&l.text, "learned", set).unwrap();
    let w: Vec<f64> = set
        .pieces
        .iter()
        .map(|p| f64::from(spec.file.weights.get(&p.id).copied().unwrap_or(0)))
        .collect();
    let t: f64 = w.iter().sum();
    w.iter().map(|x| x / t).collect()
}

#[test]
fn integer_weights_keep_every_share_and_its_order() {
    let set = PieceSet::classic();
    // The case: 6.1 % and 7.8 % both became 3 of 43.
    let mut shares = vec![0.061, 0.078];
    let rest = (1.0 - 0.139) / (set.pieces.len() - 2) as f64;
    shares.extend(std::iter::repeat_n(rest, set.pieces.len() - 2));
    let w = report::integers(&set, &shares);
    let t: f64 = w.iter().map(|&x| f64::from(x)).sum();
    assert!(w[0] < w[1], "{w:?}");
    for (x, p) in w.iter().zip(&shares) {
        assert!((f64::from(*x) / t - p).abs() <= 0.001, "{x}/{t} against {p}");
    }
    // Drawn shares, some within a hundredth of a point of each other.
    let mut g = crate::model::generator::Generator::new(5);
    for _ in 0..200 {
        let raw: Vec<f64> = (0..41).map(|_| 0.001 + g.unit() * g.unit()).collect();
        let sum: f64 = raw.iter().sum();
        let shares: Vec<f64> = raw.iter().map(|x| x / sum).collect();
        let w = report::integers(&set, &shares);
        let t: f64 = w.iter().map(|&x| f64::from(x)).sum();
        for (i, (x, p)) in w.iter().zip(&shares).enumerate() {
            assert!((f64::from(*x) / t - p).abs() <= 0.001, "{x}/{t} against {p}");
            assert!(*x > 0 && *x <= crate::model::pieces::MAX_WEIGHT);
            for (y, q) in w.iter().zip(&shares).skip(i + 1) {
                if (p - q).abs() >= 1e-4 {
                    assert_eq!(p > q, x > y, "{p} {q}: {x} {y}");
                }
            }
        }
    }
    assert_eq!(report::integers(&set, &[0.0; 19]), vec![0; 19]);
    // One heavy share and a run of light ones a hundredth of a point
    // apart: finer than one unit of the file, so none is pushed off.
    let mut shares = vec![0.5];
    shares.extend((0..18).map(|i| (0.5 - 17.0 * 9e-3 * 0.5) / 18.0 + f64::from(i) * 1e-4));
    let sum: f64 = shares.iter().sum();
    let shares: Vec<f64> = shares.iter().map(|x| x / sum).collect();
    let w = report::integers(&set, &shares);
    let t: f64 = w.iter().map(|&x| f64::from(x)).sum();
    for (x, p) in w.iter().zip(&shares) {
        assert!((f64::from(*x) / t - p).abs() <= 0.001, "{x}/{t} against {p}");
    }
}

#[test]
fn a_learned_files_shares_match_the_printed_shares_within_a_tenth_of_a_point() {
    let (text, _, _, _) = random_generator(3);
    let path = std::env::temp_dir().join(format!("tenten-shares-{}.ron", std::process::id()));
    std::fs::write(&path, &text).unwrap();
    let (set, deals) = dealt(path.to_str().unwrap(), "novice", 21, 1500);
    let _ = std::fs::remove_file(&path);
    let req = Request {
        rules: false,
        ..suite_request()
    };
    let l = learn(&set, &deals, &req, &Progress::default()).unwrap().unwrap();
    let best = l.best.as_ref().unwrap();
    let file = file_shares(&l, &set);
    for (i, (f, p)) in file.iter().zip(&best.weights[0]).enumerate() {
        assert!((f - p).abs() <= 0.001, "piece {i}: file {f} against fitted {p}");
        // And the printed figure (two decimals of a percent) agrees.
        assert!(l.lines[0].contains(&format!("{}={:.2}%", set.pieces[i].id, p * 100.0)));
    }
}

/// Session 11's study kept rules the truth lacked only when the truth had
/// another rule: each rule was tested against the plain check, a model
/// without the true rule, so it could take up that rule's slack. Now each
/// rule is tested given the rules kept: here bands against none+repeat.
#[test]
fn a_rule_is_tested_given_the_rules_kept_so_it_cannot_stand_in_for_another() {
    let truth = "(name: \"truth\", check: none, repeat_previous: 0.15)";
    let (set, deals) = dealt_by_file(truth, "novice", 2, 10_000);
    let l = learn(&set, &deals, &quick(), &Progress::default())
        .unwrap()
        .unwrap();
    let best = l.best.as_ref().unwrap();
    assert!(best.rules.repeat, "{}", l.lines[0]);
    assert!(
        best.rules.bands.is_empty() && best.rules.mercy.is_none(),
        "{}",
        l.lines[0]
    );
    let bands = l.rule_tests.iter().find(|t| t.rule == "bands").unwrap();
    assert!(!bands.kept && bands.why.contains("given repeat"), "{}", bands.why);
    let repeat = l.rule_tests.iter().find(|t| t.rule == "repeat").unwrap();
    assert!(repeat.kept && repeat.p < 1e-10, "{repeat:?}");
    // Each rule tried has its row, naming the model it was tested against.
    let row = l.rows.iter().find(|r| r.name == "none+repeat+bands").unwrap();
    assert_eq!(row.lr.as_ref().unwrap().0, "none+repeat");
}
