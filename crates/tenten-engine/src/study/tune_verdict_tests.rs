use super::*;
use crate::stats::survival;

fn m(v: f64, lo: f64, hi: f64) -> Measured {
    Measured {
        value: Some(v),
        ci: Some((lo, hi)),
    }
}

/// The two cases: a hold-out of 152 [133-177] for 150 within 7.5
/// is not "met" (it was, from the point), and 169 [147-202] for 184 within
/// 9.2 is not "missed" (it was): both are undecided.
#[test]
fn a_verdict_is_the_intervals_not_the_points() {
    let g = Goal::parse("median_rounds=150@7.5").unwrap();
    assert_eq!(g.verdict(&m(152.0, 133.0, 177.0)), Verdict::Undecided);
    assert_eq!(g.verdict(&m(151.0, 145.0, 156.0)), Verdict::Met);
    assert_eq!(g.verdict(&m(180.0, 170.0, 190.0)), Verdict::Missed);
    assert_eq!(g.verdict(&m(120.0, 110.0, 142.0)), Verdict::Missed);
    let twice = Goal::parse("median_rounds=184@9.2").unwrap();
    assert_eq!(twice.verdict(&m(169.0, 147.0, 202.0)), Verdict::Undecided);
    // A median beyond the cap with its interval open: missed only when the
    // interval starts past the band.
    let open = |lo: f64| Measured {
        value: None,
        ci: Some((lo, f64::INFINITY)),
    };
    assert_eq!(g.verdict(&open(160.0)), Verdict::Missed);
    assert_eq!(g.verdict(&open(150.0)), Verdict::Undecided);
    // No interval decides nothing...
    let bare = Measured {
        value: Some(150.0),
        ci: None,
    };
    assert_eq!(g.verdict(&bare), Verdict::Undecided);
    // ...except a ceiling on unfair losses when nothing was lost.
    let share = Goal::parse("unfair_share=0.1").unwrap();
    let none_lost = Measured {
        value: Some(0.0),
        ci: None,
    };
    assert_eq!(share.verdict(&none_lost), Verdict::Met);
    // A ceiling has no floor: far below it is met.
    assert_eq!(share.verdict(&m(0.01, 0.0, 0.04)), Verdict::Met);
    assert_eq!(share.verdict(&m(0.13, 0.121, 0.14)), Verdict::Missed);
    assert_eq!(share.verdict(&m(0.11, 0.09, 0.13)), Verdict::Undecided);
}

#[test]
fn an_undecided_goal_says_how_many_games_would_decide_it() {
    let g = Goal::parse("median_rounds=150@7.5").unwrap();
    // 2 rounds inside the edge with a half-width of 10: (10/2)² = 25 times.
    assert_eq!(g.needed(&m(155.5, 145.5, 165.5), 400), Some(10_000));
    // Outside by 2.5 with a half-width of 5: 4 times.
    assert_eq!(g.needed(&m(160.0, 155.0, 165.0), 100), Some(400));
    // On the edge, or open past the cap: no number decides it.
    assert_eq!(g.needed(&m(157.5, 150.0, 165.0), 100), None);
    let open = Measured {
        value: Some(150.0),
        ci: Some((140.0, f64::INFINITY)),
    };
    assert_eq!(g.needed(&open, 100), None);
}

#[test]
fn looks_double_to_the_maximum_and_spend_five_percent_between_them() {
    assert_eq!(looks(400, 400), vec![400]);
    assert_eq!(looks(400, 1_600), vec![400, 800, 1_600]);
    assert_eq!(looks(400, 1_000), vec![400, 800, 1_000]);
    assert_eq!(
        looks(400, 100),
        vec![400],
        "a maximum below the first look is one look"
    );
    assert_eq!(looks(0, 0), vec![1]);
    assert!((level(1) - 0.95).abs() < 1e-12);
    assert!((level(3) - (1.0 - 0.05 / 3.0)).abs() < 1e-12);
    // Each look's interval is wider than a single 95 % one.
    assert!(survival::z_of(level(3)) > survival::z_of(0.95) + 0.3);
    assert!((survival::z_of(0.95) - 1.959_964).abs() < 1e-5);
}

#[test]
fn an_audience_interval_is_widened_on_the_scale_it_was_made_on() {
    // A share of 0.05 with the logit interval the forecast gives at 95 %.
    let logit = |x: f64| (x / (1.0 - x)).ln();
    let back = |x: f64| 1.0 / (1.0 + (-x).exp());
    let (v, h) = (0.05, 0.4);
    let ci = (back(logit(v) - h), back(logit(v) + h));
    let scale = survival::z_of(level(3)) / survival::z_of(0.95);
    let (lo, hi) = widened(v, ci, scale, false);
    assert!((logit(v) - logit(lo) - h * scale).abs() < 1e-9, "{lo}");
    assert!((logit(hi) - logit(v) - h * scale).abs() < 1e-9, "{hi}");
    // Still inside 0 to 1 and asymmetric: the plain-scale widening would
    // have moved the low end by as much as the high end, past 0 here.
    assert!(lo > 0.0 && hi < 1.0 && hi - v > v - lo);
    let plain_lo = v - (v - ci.0) * scale;
    assert!((lo - plain_lo).abs() > 1e-4, "the plain widening differs");
    // Games per session on the log scale; never below one game.
    let (lo, hi) = widened(2.0, (2.0 * (-0.3f64).exp(), 2.0 * 0.3f64.exp()), scale, true);
    assert!(((2.0f64).ln() - lo.ln() - 0.3 * scale).abs() < 1e-9);
    assert!((hi.ln() - (2.0f64).ln() - 0.3 * scale).abs() < 1e-9);
    let (lo, _) = widened(1.1, (1.0, 1.3), 10.0, true);
    assert!(lo >= 1.0);
    // A share at its bound keeps the plain widening, inside 0 to 1.
    assert_eq!(widened(0.0, (0.0, 0.02), 2.0, false), (0.0, 0.04));
    // A scale of one changes nothing.
    let (lo, hi) = widened(0.3, (0.2, 0.41), 1.0, false);
    assert!((lo - 0.2).abs() < 1e-12 && (hi - 0.41).abs() < 1e-12);
}
