use super::*;
use crate::fits::population::file::by_name;
use crate::model::board::BoardSize;
use crate::play::generator_file;

fn request(budget: Duration) -> AdaptRequest {
    let set = PieceSet::classic();
    AdaptRequest {
        population: by_name("demo").unwrap(),
        base: generator_file::preset("random", &set).unwrap(),
        shapes: Shapes::new(&set, BoardSize::new(8, 8).unwrap()),
        set,
        k: 3,
        max_rounds: 40,
        objective: Objective::GamesPerSession,
        max_distortion: 0.1,
        budget,
        max_candidates: None,
        players: 12,
        holdout: 30,
        seed: 3,
    }
}

#[test]
fn objectives_are_the_forecasts_figures() {
    assert_eq!(
        Objective::parse("games_per_session").unwrap().name(),
        "games_per_session"
    );
    assert_eq!(Objective::parse("reach=25").unwrap().name(), "reach_25");
    assert_eq!(
        Objective::parse("returning_after=3").unwrap().name(),
        "players_returning_after_3"
    );
    for bad in ["reach=26", "returning_after=2", "reach", "fun", "reach=x"] {
        let e = Objective::parse(bad).unwrap_err();
        assert!(
            e.contains("games_per_session") && e.contains("[10, 25, 50, 100]"),
            "{bad}: {e}"
        );
    }
}

/// The bounds are where the divergence reaches the limit, found against a
/// plain scan of tilts.
#[test]
fn tilt_bounds_keep_the_divergence_within_the_limit() {
    let set = PieceSet::classic();
    let weights: Vec<f64> = set.pieces.iter().map(|p| f64::from(p.weight)).collect();
    let scores = size_scores(&set);
    assert_eq!(tilt_divergence(&weights, &scores, 0.0), 0.0);
    for kl in [0.01, 0.05, 0.2] {
        let (lo, hi) = tilt_bounds(&generator_file::preset("random", &set).unwrap(), kl);
        assert!(lo < 0.0 && hi > 0.0, "{kl}");
        // The scan's last tilt within the limit, each way.
        let scan = |sign: f64| {
            (0..=5000)
                .map(|i| sign * f64::from(i) * 0.001)
                .take_while(|&t| tilt_divergence(&weights, &scores, t) <= kl)
                .last()
                .unwrap()
        };
        assert!((lo - scan(-1.0)).abs() < 2e-3, "{kl}: {lo} {}", scan(-1.0));
        assert!((hi - scan(1.0)).abs() < 2e-3, "{kl}: {hi} {}", scan(1.0));
    }
    // No limit: the largest tilt there is.
    let random = generator_file::preset("random", &set).unwrap();
    assert_eq!(tilt_bounds(&random, 1e9), (-MAX_TILT, MAX_TILT));
    // A banded generator: the bound holds in every band, so it is no wider.
    let banded = generator_file::preset("classic-with-mercy", &set).unwrap();
    let (blo, bhi) = tilt_bounds(&banded, 0.05);
    let (rlo, rhi) = tilt_bounds(&random, 0.05);
    assert!(
        blo >= rlo && bhi <= rhi && (blo, bhi) != (rlo, rhi),
        "{blo} {bhi} {rlo} {rhi}"
    );
}

#[test]
fn a_policy_is_a_file_with_its_rules_in_the_templates_order() {
    let set = PieceSet::classic();
    let base = generator_file::preset("repair", &set).unwrap();
    assert_eq!(policy(&base, &[0.0]).file, base.file);
    assert_eq!(policy(&base, &[0.0, 0.0, 0.0, 0.0, 0.0]).file, base.file);
    let fixed = policy(&base, &[-0.25]);
    let rules = &fixed.file.adaptive.as_ref().unwrap().rules;
    assert_eq!(rules.len(), 1);
    assert!(rules[0].when.is_empty() && rules[0].tilt == -0.25);
    let adaptive = policy(&base, &[-1.0, 0.5, 0.0, 0.0, 0.0]);
    let rules = &adaptive.file.adaptive.as_ref().unwrap().rules;
    // The trailing rules of tilt 0 deal as the base: left out.
    assert_eq!(rules.len(), 2);
    assert_eq!(rules[0].when, vec![When::RoundPastTypical(1.0)]);
    assert_eq!(rules[1].when, vec![When::AfterUnfair]);
    // Every state at the last's tilt: the static rule alone. A state in
    // the middle at the last's tilt is kept (a later state could differ).
    let same = policy(&base, &[-0.5; 5]);
    assert_eq!(same.file.adaptive.as_ref().unwrap().rules.len(), 1);
    let middle = policy(&base, &[1.0, -0.5, 2.0, -0.5, -0.5]);
    let rules = &middle.file.adaptive.as_ref().unwrap().rules;
    assert_eq!(rules.len(), 4);
    assert_eq!(rules[1].tilt, -0.5);
    assert!(rules[3].when.is_empty());
    // What it writes reads back as itself.
    let back = generator_file::parse(&adaptive.to_ron(), "a.ron", &set).unwrap();
    assert_eq!(back.file, adaptive.file);
}

/// A run with no budget plays the start alone: every arm the base's tilts,
/// so every gain is 0 with no width; the players are the same in each arm.
#[test]
fn a_run_compares_its_arms_on_the_same_held_out_players() {
    let req = request(Duration::ZERO);
    let never = Progress::default();
    let a = adapt(&req, &never).unwrap();
    assert_eq!((a.fixed.candidates, a.adaptive.candidates), (1, 1));
    for arm in &a.arms {
        assert_eq!(arm.outcomes.len(), req.holdout);
        assert_eq!(arm.objective, a.arms[0].objective, "{}", arm.name);
    }
    for v in &a.versus {
        let g = v.gain.unwrap();
        assert_eq!((g.gain, g.ci), (0.0, Some((0.0, 0.0))), "{}", v.against);
    }
    let lines = a.lines(&req);
    assert!(
        lines.iter().any(|l| l.starts_with(
            "vs=base objective=games_per_session gain=0.0000 gain_ci=0.0000,0.0000 verdict=undecided"
        )),
        "{lines:#?}"
    );
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("skill_decile=")).count(),
        10
    );
    // A budget: the search moves, and the training value never falls.
    let req = AdaptRequest {
        max_candidates: Some(40),
        ..request(Duration::from_secs(3600))
    };
    let b = adapt(&req, &never).unwrap();
    assert!(b.fixed.candidates > 1 && b.adaptive.candidates > 1);
    assert!(
        b.adaptive.value >= b.fixed.value,
        "{} {}",
        b.adaptive.value,
        b.fixed.value
    );
    for t in b.fixed.tilts.iter().chain(&b.adaptive.tilts) {
        assert!(*t >= b.bounds.0 - 1e-9 && *t <= b.bounds.1 + 1e-9, "{t}");
    }
    // A cap on candidates: each search stops there.
    let capped = AdaptRequest {
        max_candidates: Some(3),
        ..req.clone()
    };
    let c = adapt(&capped, &never).unwrap();
    assert_eq!((c.fixed.candidates, c.adaptive.candidates), (3, 3));
    // Cancelled: nothing.
    let cancelled = Progress::default();
    cancelled.cancel();
    assert!(adapt(&req, &cancelled).is_none());
}
