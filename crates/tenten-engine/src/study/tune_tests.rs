use super::*;
use crate::model::board::BoardSize;
use crate::play::coelho::CoelhoWeights;
use crate::play::generator_file;
use crate::search::changer::ChangeOptions;

fn request(target: Target, evaluations: usize) -> TuneRequest {
    let set = PieceSet::classic();
    TuneRequest {
        base: generator_file::preset("random", &set).unwrap(),
        plan: Plan {
            shapes_size: BoardSize::CLASSIC,
            games: 80,
            max_rounds: 2_000,
            options: ChangeOptions::default(),
            ..Plan::named(set, &["novice"], &[], CoelhoWeights::BEST).unwrap()
        },
        player: "novice".to_owned(),
        targets: vec![(target, 1.0)],
        free: (0..19).collect(),
        bounds: (1.0, 200.0),
        budget_seconds: 600.0,
        max_evaluations: Some(evaluations),
        holdout_games: 80,
    }
}

#[test]
fn targets_parse_and_refuse_what_they_cannot_mean() {
    assert_eq!(
        Target::parse("median_rounds=200").unwrap(),
        Target::MedianRounds(200.0)
    );
    assert_eq!(
        Target::parse("unfair_share=0.1").unwrap(),
        Target::UnfairShare(0.1)
    );
    assert_eq!(
        Target::parse("small_share=3:0.6").unwrap(),
        Target::SmallShare { band: 3, share: 0.6 }
    );
    for (bad, says) in [
        ("median_rounds", "KEY=VALUE"),
        ("median=3", "unknown target"),
        ("unfair_share=2", "0 to 1"),
        ("small_share=7:0.5", "0 to 4"),
        ("median_rounds=lots", "not a number"),
    ] {
        assert!(Target::parse(bad).unwrap_err().contains(says), "{bad}");
    }
}

/// Toward twice novice's median: the best candidate beats the start on the
/// tuning seeds, and the hold-out median moves most of the way there.
#[test]
fn a_tune_moves_the_median_toward_its_target_on_fresh_seeds() {
    let base = request(Target::MedianRounds(1.0), 1);
    let start = tune(&base, &Progress::default(), |_| {}).unwrap();
    let base_median = start.start.measures[0];
    let goal = 2.0 * base_median;
    let req = request(Target::MedianRounds(goal), 150);
    let seen = RefCell::new(0);
    let r = tune(&req, &Progress::default(), |_| *seen.borrow_mut() += 1).unwrap();
    assert_eq!(*seen.borrow(), r.evaluations.len());
    assert!(r.evaluations.len() <= 150);
    assert!(
        r.best.loss < r.start.loss / 4.0,
        "{} -> {}",
        r.start.loss,
        r.best.loss
    );
    let Checked {
        start: at_start,
        holdout,
        ci,
        ..
    } = r.holdout[0];
    assert_eq!(at_start, base_median);
    assert!(
        (holdout - goal).abs() < 0.3 * goal,
        "hold-out {holdout} for {goal}"
    );
    assert!(ci.is_some());
    // Every free weight in bounds, and the file reads back.
    assert!(
        r.weights_after.iter().all(|&w| (1..=200).contains(&w)),
        "{:?}",
        r.weights_after
    );
    let back = generator_file::parse(&r.tuned.to_ron(), "tuned.ron", &PieceSet::classic()).unwrap();
    assert_eq!(
        back.set.pieces.iter().map(|p| p.weight).collect::<Vec<_>>(),
        r.weights_after
    );
    // The convergence: the best so far never rises.
    assert!(r.evaluations.windows(2).all(|w| w[1].best <= w[0].best));
}

#[test]
fn a_cancelled_tune_stops_and_keeps_nothing_it_did_not_finish() {
    let req = request(Target::MedianRounds(40.0), 1_000);
    let progress = Progress::default();
    progress.cancel();
    assert!(
        tune(&req, &progress, |_| {}).is_none(),
        "cancelled before the first evaluation"
    );
}
