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
    // A base whose check deals unsolvable holders: every rule can fire.
    let base = generator_file::preset("random", &set).unwrap();
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

/// The static search tries the base's own check and the others, each from
/// tilt 0; a base that already repairs tries it first.
#[test]
fn the_static_search_tries_every_check() {
    let set = PieceSet::classic();
    let random = generator_file::preset("random", &set).unwrap();
    let repair = generator_file::preset("repair", &set).unwrap();
    let reject = generator_file::preset("reject", &set).unwrap();
    let names = |b: &GeneratorSpec| check_options(b).iter().map(Check::name).collect::<Vec<_>>();
    assert_eq!(names(&random), ["none", "reject", "repair"]);
    assert_eq!(names(&repair), ["repair", "none", "reject"]);
    assert_eq!(check_options(&random)[1], reject.file.check);
    assert_eq!(check_options(&random)[2], repair.file.check);
    // A base with another repair than the preset's keeps its own and tries
    // the preset's too.
    let mut own = repair.clone();
    own.file.check = Check::Repair {
        policy: crate::search::heuristic::Policy::Deepest,
        redraws: 3,
    };
    assert_eq!(names(&own), ["repair", "none", "reject", "repair"]);
    // A bag is never tried: no tilt changes it.
    let bag = generator_file::preset("bag", &set).unwrap();
    assert_eq!(names(&bag), ["none", "reject", "repair"]);
}

/// Under a check that deals a solvable holder whenever one exists, the
/// rule after an unfair loss almost never fires: the file leaves it out
/// (and the search spends nothing on it); under none it stays.
#[test]
fn a_rule_that_cannot_fire_is_left_out() {
    let set = PieceSet::classic();
    let tilts = [0.3, -0.4, -0.2, 0.1, -0.5];
    let has_after_unfair = |spec: &GeneratorSpec| {
        spec.file
            .adaptive
            .as_ref()
            .unwrap()
            .rules
            .iter()
            .any(|r| r.when == [When::AfterUnfair])
    };
    let random = generator_file::preset("random", &set).unwrap();
    assert!(has_after_unfair(&policy(&random, &tilts)));
    for name in ["repair", "reject"] {
        let checked = generator_file::preset(name, &set).unwrap();
        let spec = policy(&checked, &tilts);
        assert!(!has_after_unfair(&spec), "{name}");
        assert_eq!(spec.file.adaptive.as_ref().unwrap().rules.len(), 4, "{name}");
    }
}

/// A run with no budget plays each search's start alone: the static arm is
/// the check of best training value at tilt 0, the adaptive arm the same
/// (so its gain over static is 0 with no width); the players are the same
/// in each arm.
#[test]
fn a_run_compares_its_arms_on_the_same_held_out_players() {
    let req = request(Duration::ZERO);
    let never = Progress::default();
    let a = adapt(&req, &never).unwrap();
    let checks = check_options(&req.base);
    assert_eq!((a.fixed.candidates, a.adaptive.candidates), (checks.len(), 1));
    // The static check is the best of the checks at tilt 0, played on the
    // training players as the search plays them.
    let train = |c: Check| {
        let spec = policy(&with_check(&req.base, c), &[0.0]);
        value(&parts(
            &req,
            &play(&req, &spec, None, req.players, req.seed, &never).unwrap(),
        ))
    };
    let best = checks.iter().map(|&c| train(c)).fold(f64::MIN, f64::max);
    assert_eq!(a.fixed.value, best);
    assert_eq!(train(a.fixed.check), best);
    assert_eq!(a.adaptive.check, a.fixed.check);
    for arm in &a.arms {
        assert_eq!(arm.outcomes.len(), req.holdout);
    }
    assert_eq!(a.arms[1].spec.file.check, a.fixed.check);
    assert_eq!(a.arms[2].spec, a.arms[1].spec);
    assert_eq!(a.arms[2].objective, a.arms[1].objective);
    let g = a.versus[1].gain.unwrap();
    assert_eq!((g.gain, g.ci), (0.0, Some((0.0, 0.0))));
    let lines = a.lines(&req);
    assert!(
        lines.iter().any(|l| l.starts_with(
            "vs=static objective=games_per_session gain=0.0000 gain_ci=0.0000,0.0000 verdict=undecided"
        )),
        "{lines:#?}"
    );
    // The base arm is the base as given; the static search moved its check
    // (an unfair loss is what most makes these players stop).
    assert_eq!(a.arms[0].spec, req.base);
    assert_ne!(a.fixed.check, req.base.file.check);
    let check = check_ron(&a.fixed.check);
    assert!(
        check.starts_with("repair(") || check.starts_with("reject("),
        "{check}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(&format!("search check={check} static tilts=0.0000 "))),
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
    assert!(b.fixed.candidates > checks.len() && b.adaptive.candidates > 1);
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
    // The static search shares the cap among its checks exactly: 3 is one
    // each, 4 is two for the first; under the number of checks, each still
    // plays its start.
    assert_eq!((c.fixed.candidates, c.adaptive.candidates), (3, 3));
    for (cap, fixed) in [(4, 4), (5, 5), (2, 3), (1, 3)] {
        let r = AdaptRequest {
            max_candidates: Some(cap),
            ..req.clone()
        };
        let d = adapt(&r, &never).unwrap();
        assert_eq!((d.fixed.candidates, d.adaptive.candidates), (fixed, cap), "{cap}");
    }
    // Cancelled: nothing.
    let cancelled = Progress::default();
    cancelled.cancel();
    assert!(adapt(&req, &cancelled).is_none());
}
