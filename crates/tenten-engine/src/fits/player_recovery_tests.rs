//! Logs made by known players of each kind fit back with every true
//! parameter inside its printed 95 % interval (issue 30's Done-when). The
//! true parameters are drawn from a seeded range, not picked; each log is
//! 600 deals. Coverage is nominal 95 % per parameter, so some draws miss
//! one: the single-draw tests use a fixed seed, and
//! `value_fit_intervals_cover_their_truth` checks coverage over eight.

use super::*;
use crate::fits::player_value::fit_value;
use crate::fixtures::classic;
use crate::model::board::BoardSize;
use crate::model::generator::Generator;
use crate::play::player::Choice;

fn uniform(rng: &mut Generator, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * rng.unit()
}

fn value_player(rng: &mut Generator, lookahead: Lookahead) -> Player {
    Player {
        name: "known".to_owned(),
        choice: Choice::Value,
        evaluation: CoelhoWeights::BEST,
        beta: [
            uniform(rng, 0.05, 0.4),
            uniform(rng, 0.0, 2.0),
            uniform(rng, 0.0, 2.0),
            uniform(rng, 0.0, 4.0),
            uniform(rng, 0.0, 6.0),
        ],
        lookahead,
        temperature: 0.0,
        slip: uniform(rng, 0.01, 0.08),
    }
}

fn inside(x: f64, (lo, hi): (f64, f64)) -> bool {
    lo <= x && x <= hi
}

#[test]
fn a_value_player_with_piece_lookahead_fits_back() {
    let (set, shapes) = classic();
    let known = value_player(&mut Generator::new(5000), Lookahead::Piece);
    let log = record(&shapes, &set, 3, &known, 100, 600);
    let d = piece_decisions(&shapes, CoelhoWeights::BEST, &log, &[], &Progress::default()).unwrap();
    let f = fit_value(&d, [true; 5]);
    for j in 0..5 {
        assert!(
            inside(known.beta[j], f.beta_ci[j]),
            "beta {j}: {:?} vs {}",
            known.beta,
            f.line(0.0)
        );
    }
    assert!(
        inside(known.slip, f.slip_ci),
        "slip {} vs {}",
        known.slip,
        f.line(0.0)
    );
    // Informative: the free cells' weight is pinned down to within ±0.1.
    assert!(f.beta_ci[0].1 - f.beta_ci[0].0 < 0.2, "{}", f.line(0.0));
}

/// A planner whose plans are drawn by value (its β carry the temperature),
/// on 8x8 so that every plan of each holder is enumerated quickly.
#[test]
fn a_value_planner_with_judgement_errors_fits_back() {
    let set = crate::model::pieces::PieceSet::classic();
    let shapes = Shapes::new(&set, BoardSize::new(8, 8).unwrap());
    let known = value_player(&mut Generator::new(6000), Lookahead::Holder);
    let log = record(&shapes, &set, 3, &known, 200, 600);
    let d = holder_decisions(&shapes, CoelhoWeights::BEST, &log, &[], &Progress::default()).unwrap();
    assert_eq!(d.unexplained, 0, "every move a plan's first or a slip");
    let f = fit_value(&d, [true; 5]);
    for j in 0..5 {
        assert!(
            inside(known.beta[j], f.beta_ci[j]),
            "beta {j}: {:?} vs {}",
            known.beta,
            f.line(0.0)
        );
    }
    assert!(
        inside(known.slip, f.slip_ci),
        "slip {} vs {}",
        known.slip,
        f.line(0.0)
    );
}

/// Rank choice under criteria other than 10025, fitted with them.
#[test]
fn a_rank_player_with_other_criteria_fits_back() {
    let (set, shapes) = classic();
    let mut rng = Generator::new(3003);
    let mut digits = [0u8; 5];
    while digits.iter().all(|&d| d == 0) || digits == CoelhoWeights::BEST.0 {
        digits = std::array::from_fn(|_| rng.below(10) as u8);
    }
    let known = Player {
        name: "known".to_owned(),
        choice: Choice::Rank,
        evaluation: CoelhoWeights(digits),
        beta: [0.0; 5],
        lookahead: Lookahead::Piece,
        temperature: uniform(&mut rng, 0.2, 1.5),
        slip: uniform(&mut rng, 0.01, 0.1),
    };
    let log = record(&shapes, &set, 3, &known, 29, 600);
    let f = fit(&piece_decisions(&shapes, known.evaluation, &log, &[], &Progress::default()).unwrap());
    assert!(
        inside(known.temperature, f.temperature_ci),
        "{} vs {}",
        known.describe(),
        f.line()
    );
    assert!(
        inside(known.slip, f.slip_ci),
        "{} vs {}",
        known.describe(),
        f.line()
    );
}

/// A planner with a temperature (rank choice over plans) fits back too:
/// the fitter sums the plans that start with each move, so none of its
/// moves is unexplained (a holder fit used to drop a third of them).
#[test]
fn a_rank_planner_with_a_temperature_fits_back() {
    let set = crate::model::pieces::PieceSet::classic();
    let shapes = Shapes::new(&set, BoardSize::new(8, 8).unwrap());
    let mut rng = Generator::new(3004);
    let known = Player {
        name: "known".to_owned(),
        choice: Choice::Rank,
        evaluation: CoelhoWeights::BEST,
        beta: [0.0; 5],
        lookahead: Lookahead::Holder,
        temperature: uniform(&mut rng, 0.5, 3.0),
        slip: uniform(&mut rng, 0.01, 0.1),
    };
    let log = record(&shapes, &set, 3, &known, 31, 300);
    let d = holder_decisions(&shapes, known.evaluation, &log, &[], &Progress::default()).unwrap();
    assert_eq!(d.unexplained, 0);
    let f = fit(&d);
    assert!(
        inside(known.temperature, f.temperature_ci),
        "{} vs {}",
        known.describe(),
        f.line()
    );
    assert!(
        inside(known.slip, f.slip_ci),
        "{} vs {}",
        known.describe(),
        f.line()
    );
}

/// The intervals are honest over many draws, not one: eight value players
/// drawn from the range, 48 intervals, and at most 6 may miss (a 95 %
/// interval misses 2.4 of 48 on average; more than 6 has a chance near
/// 1 %). Measured while writing: 2 misses in 96 over sixteen draws.
#[test]
fn value_fit_intervals_cover_their_truth() {
    let (set, shapes) = classic();
    let mut misses = 0;
    for seed in 0..8 {
        let known = value_player(&mut Generator::new(5000 + seed), Lookahead::Piece);
        let log = record(&shapes, &set, 3, &known, 100 + seed, 600);
        let d = piece_decisions(&shapes, CoelhoWeights::BEST, &log, &[], &Progress::default()).unwrap();
        let f = fit_value(&d, [true; 5]);
        misses += (0..5).filter(|&j| !inside(known.beta[j], f.beta_ci[j])).count();
        misses += usize::from(!inside(known.slip, f.slip_ci));
    }
    eprintln!("value fit coverage: {misses} of 48 intervals miss their true value");
    assert!(misses <= 6, "{misses} of 48 intervals miss");
}
