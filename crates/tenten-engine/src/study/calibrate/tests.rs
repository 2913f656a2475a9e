use super::file::{Study, merge};
use super::summary::{self, rows};
use super::*;

fn small(estimator: Estimator, replications: usize) -> Plan {
    let mut p = Plan::new(estimator, Design::SMALL, replications, 7);
    p.board = (8, 8);
    p.max_rounds = 300;
    p
}

#[test]
fn designs_and_ranges_that_cannot_be_simulated_are_refused_by_field() {
    let ok = small(Estimator::FitPopulation, 3);
    assert!(ok.check().is_ok());
    let mut p = ok.clone();
    p.design.testers = 0;
    assert!(p.check().unwrap_err().starts_with("testers:"));
    let mut p = ok.clone();
    p.design.sessions = 0;
    assert!(p.check().unwrap_err().starts_with("sessions:"));
    let mut p = ok.clone();
    p.ranges.temperature_log_sd = (-0.1, 0.2);
    assert!(p.check().unwrap_err().starts_with("temperature_log_sd:"));
    let mut p = ok.clone();
    p.ranges.slip_median = (0.3, 0.1);
    assert!(p.check().unwrap_err().contains("LO <= HI"));
    let mut p = ok.clone();
    p.replications = 0;
    assert!(p.check().unwrap_err().starts_with("replications:"));
    let mut p = ok.clone();
    p.generator = "lucky".to_owned();
    assert!(p.check().unwrap_err().contains("unknown generator"));
    let mut p = small(Estimator::FitPlayer, 1);
    p.design.deals = 3;
    assert!(p.check().unwrap_err().starts_with("deals:"));
    let mut p = ok;
    p.board = (30, 30);
    assert!(p.check().unwrap_err().starts_with("board:"));
    // A ranges file names what it refuses.
    let e = Ranges::parse("(slip_median: (0.5, 2.0))", "r.ron").unwrap_err();
    assert!(
        e.to_string().contains("r.ron") && e.to_string().contains("slip_median"),
        "{e}"
    );
    let r = Ranges::parse("(quit_unfair_odds: (3.0, 3.0))", "r.ron").unwrap();
    assert_eq!(r.quit_unfair_odds, (3.0, 3.0));
    assert_eq!(r.slip_median, Ranges::default().slip_median);
}

/// The truths are drawn from the ranges, each replication its own, the
/// same for the same seed; a population held fixed is drawn as itself.
#[test]
fn truths_come_from_the_ranges_and_a_fixed_population_is_itself() {
    let r = Ranges::default();
    let a: Vec<f64> = (0..50).map(|i| r.draw(3, i).quit.unfair_odds).collect();
    assert!(a.iter().all(|x| (2.0..=5.0).contains(x)));
    assert!(a.windows(2).any(|w| w[0] != w[1]));
    assert_eq!(r.draw(3, 7), r.draw(3, 7));
    assert_ne!(r.draw(3, 7), r.draw(4, 7));
    let demo = by_name("demo").unwrap();
    let fixed = Ranges::fixed(&demo).unwrap().draw(9, 2);
    assert_eq!(fixed.temperature, demo.temperature);
    assert_eq!(fixed.slip, demo.slip);
    assert_eq!(fixed.quit, demo.quit);
}

fn e(p: &str, truth: f64, value: f64, ci: (f64, f64)) -> Estimate {
    Estimate::new(p, truth, value, ci)
}

/// Every figure is defined for 0 replications, 1, and all failed.
#[test]
fn the_table_is_defined_for_none_one_and_all_failed() {
    let plan = small(Estimator::FitPlayer, 1);
    assert!(rows(&[]).is_empty());
    assert_eq!(
        summary::lines(&plan, &[]),
        vec!["estimator=fit-player design=100_deals replications=0 parameters=none"]
    );
    let one = [Replication {
        index: 0,
        estimates: vec![e("slip", 0.05, 0.06, (0.04, 0.08))],
        failed: None,
        generator: None,
    }];
    let t = rows(&one);
    assert_eq!((t[0].n, t[0].covered, t[0].coverage), (1, 1, 1.0));
    assert!((t[0].bias - 0.01).abs() < 1e-12 && t[0].bias_mcse.is_nan());
    assert!((t[0].width - 0.04).abs() < 1e-12);
    assert_eq!(t[0].calibrated(), "unclear", "one replication cannot tell");
    let line = &summary::lines(&plan, &t)[0];
    assert!(
        line.contains(" bias_mcse=none ") && line.contains(" coverage=1.0000 "),
        "{line}"
    );
    let failed = [Replication {
        index: 0,
        estimates: Vec::new(),
        failed: Some("no moves".to_owned()),
        generator: None,
    }];
    assert!(rows(&failed).is_empty());
    // A failure beside a success is counted, with its reason.
    let both = [
        one[0].clone(),
        Replication {
            index: 1,
            ..failed[0].clone()
        },
    ];
    let t = rows(&both);
    assert_eq!((t[0].n, t[0].failed), (1, 1));
    let line = &summary::lines(&plan, &t)[0];
    assert!(
        line.contains(" replications=2 ") && line.contains(" failed=1 "),
        "{line}"
    );
    assert!(line.contains("failed_first=\"no moves\""), "{line}");
    // No interval: coverage none, calibrated unknown; an open one counts.
    let open = [Replication {
        index: 0,
        estimates: vec![
            e("a", 1.0, 1.0, (f64::NAN, f64::NAN)),
            e("b", 5.0, 1.0, (0.5, f64::INFINITY)),
        ],
        failed: None,
        generator: None,
    }];
    let t = rows(&open);
    assert_eq!((t[0].with_interval, t[0].calibrated()), (0, "unknown"));
    assert_eq!((t[1].covered, t[1].width), (1, f64::INFINITY));
}

/// 200 replications: 190 covered is calibrated; 170 is not, and its own
/// interval says so; a CSV row per parameter.
#[test]
fn coverage_is_judged_with_its_own_binomial_interval() {
    let reps = |covered: usize| -> Vec<Replication> {
        (0..200)
            .map(|i| Replication {
                index: i,
                estimates: vec![e(
                    "x",
                    1.0,
                    1.0,
                    if i < covered { (0.9, 1.1) } else { (1.1, 1.2) },
                )],
                failed: None,
                generator: None,
            })
            .collect()
    };
    let good = rows(&reps(190));
    assert_eq!(good[0].calibrated(), "yes");
    let (lo, hi) = good[0].coverage_ci;
    assert!(lo < 0.95 && 0.95 < hi && lo > 0.9, "{lo} {hi}");
    assert_eq!(rows(&reps(170))[0].calibrated(), "no");
    assert_eq!(
        rows(&reps(200))[0].calibrated(),
        "no",
        "always covering is too wide"
    );
    let plan = small(Estimator::FitPopulation, 200);
    let csv = summary::csv(&plan, &good);
    assert_eq!(csv.lines().count(), 2);
    assert!(
        csv.lines()
            .nth(1)
            .unwrap()
            .starts_with("fit-population,20x2,x,200,200,190,0.9500,")
    );
}

/// Shards play exactly what one process plays; merge refuses another
/// study, a repeat and a gap, naming the file; the file round-trips.
#[test]
fn shards_merge_into_the_one_process_study() {
    let plan = small(Estimator::FitPlayer, 5);
    let never = Progress::default();
    let whole = run(&plan, 0..5, &never, |_| {}).unwrap();
    let shard = |i: usize| {
        let idx = Study::indices(&plan, (i, 2));
        Study::new(plan.clone(), (i, 2), run(&plan, idx, &never, |_| {}).unwrap())
    };
    let (a, b) = (shard(0), shard(1));
    let text = a.to_ron();
    assert!(text.starts_with("// A calibration study"), "{text}");
    let back = Study::parse(&text, "a.ron").unwrap().unwrap();
    assert_eq!(back, a);
    let (merged_plan, merged) = merge(&[("a.ron".into(), a.clone()), ("b.ron".into(), b.clone())]).unwrap();
    assert_eq!(merged_plan, plan);
    assert_eq!(merged, whole);
    let e = merge(&[("a.ron".into(), a.clone())]).unwrap_err();
    assert!(e.contains("replication 1 of 5 is in none"), "{e}");
    let e = merge(&[("a.ron".into(), a.clone()), ("c.ron".into(), a.clone())]).unwrap_err();
    assert!(e.contains("c.ron repeats replication 0 of a.ron"), "{e}");
    let mut other = b;
    other.plan.seed = 8;
    let e = merge(&[("a.ron".into(), a), ("b.ron".into(), other)]).unwrap_err();
    assert!(
        e.contains("b.ron is of another study than a.ron") && e.contains("seed"),
        "{e}"
    );
    assert!(Study::parse("(games: [])", "x.ron").is_none());
    // A study made by another version of its estimator (or before versions
    // were kept) is refused by name, and its file omits no version.
    assert!(
        text.contains(&format!("estimator_version: \"{}\"", plan.estimator.version())),
        "{text}"
    );
    let old_text = Study::new(plan.clone(), (0, 1), whole.clone()).to_ron().replace(
        &format!("estimator_version: \"{}\",", plan.estimator.version()),
        "",
    );
    let old = Study::parse(&old_text, "old.ron").unwrap().unwrap();
    assert!(
        old.plan.estimator_version.is_empty(),
        "a file without the field reads"
    );
    let new = Study::new(plan.clone(), (0, 1), whole.clone());
    let e = merge(&[("new.ron".into(), new), ("old.ron".into(), old.clone())]).unwrap_err();
    assert!(
        e.contains("old.ron was made by fit-player behaviour from before versions"),
        "{e}"
    );
    let e = merge(&[("old.ron".into(), old)]).unwrap_err();
    assert!(
        e.contains("old.ron was made by fit-player behaviour from before versions"),
        "{e}"
    );
    let mut newer = plan.clone();
    newer.estimator_version = "99".into();
    let e = newer.same_behaviour("new.ron").unwrap_err();
    assert!(
        e.contains("new.ron was made by fit-player behaviour 99, this is fit-player behaviour 1"),
        "{e}"
    );
    // A checkpoint knows what is left.
    let part = Study::new(plan.clone(), (0, 1), whole[..2].to_vec());
    assert_eq!(part.remaining(), vec![2, 3, 4]);
}

#[test]
fn a_cancelled_study_stops_before_its_next_replication() {
    let plan = small(Estimator::FitPopulation, 50);
    let progress = Progress::default();
    let mut seen = 0;
    let out = run(&plan, 0..50, &progress, |_| {
        seen += 1;
        progress.cancel();
    });
    assert!(out.is_none());
    assert_eq!(seen, 1, "the worker stopped after the cancel");
}

/// The fewest of `n` honest 95 % intervals that hold their truth, but for
/// a chance of 1 in 200: the low end of the binomial band.
fn band_low(n: usize) -> usize {
    use statrs::distribution::{Binomial, DiscreteCDF};
    let b = Binomial::new(0.95, n as u64).unwrap();
    (0..=n).find(|&k| b.cdf(k as u64) >= 0.005).unwrap()
}

/// The suite's seeded, deterministic small studies (the full ones are
/// benchmarks): 60 replications of fit-player on 100 deals and of a
/// reduced population (12 testers x 2 sessions on 8x8); every interval's
/// coverage inside the binomial band of an honest 95 % interval.
#[test]
fn small_seeded_studies_cover_inside_the_binomial_band() {
    assert_eq!(band_low(60), 52);
    let mut player = Plan::new(Estimator::FitPlayer, Design::SMALL, 60, 11);
    player.board = (8, 8);
    let mut population = Plan::new(
        Estimator::FitPopulation,
        Design {
            testers: 12,
            sessions: 2,
            deals: 0,
            deals_max: 0,
        },
        60,
        12,
    );
    population.board = (8, 8);
    population.max_rounds = 300;
    for plan in [player, population] {
        let reps = run(&plan, 0..60, &Progress::default(), |_| {}).unwrap();
        for r in rows(&reps).iter().filter(|r| r.with_interval > 0) {
            eprintln!(
                "{} {}: {} of {}",
                plan.estimator.name(),
                r.parameter,
                r.covered,
                r.with_interval
            );
            assert_eq!(
                r.with_interval, 60,
                "{}: every replication gave an interval",
                r.parameter
            );
            assert!(
                r.covered >= band_low(60),
                "{} {}: {} of 60 intervals held the truth",
                plan.estimator.name(),
                r.parameter,
                r.covered
            );
        }
    }
}

fn ask() -> super::plan_playtest::Ask {
    super::plan_playtest::Ask {
        population: by_name("demo").unwrap(),
        figure: "reach_50".to_owned(),
        sessions: 2,
        pilots: 6,
        checks: 20,
        truth_players: 2_000,
        seed: 3,
        board: (8, 8),
        max_rounds: 300,
        pieces: crate::model::pieces::PieceSet::classic(),
    }
}

/// A game's own pieces are planned on as given (a generator file of them
/// deals there), and change the answer; the studies measured on the
/// classic set refuse them.
#[test]
fn a_playtest_is_planned_on_the_games_own_pieces() {
    use super::plan_playtest::testers_for_width;
    let never = Progress::default();
    let (fixed, _) = crate::fixtures::classic_or_fixed41(true);
    let mut own = ask();
    own.pieces = fixed.clone();
    let theirs = testers_for_width(&own, "random", 0.15, &never).unwrap().unwrap();
    let classic = testers_for_width(&ask(), "random", 0.15, &never)
        .unwrap()
        .unwrap();
    assert_ne!(theirs.truth, classic.truth, "the pieces decide the figure");
    // A plan of the classic set refuses a file of the game's pieces, and
    // says which flag gives them.
    let pieces = concat!(env!("CARGO_MANIFEST_DIR"), "/../../presets/pieces/fixed-41.ron");
    let path = std::env::temp_dir().join(format!("tenten-plan-pieces-{}.ron", std::process::id()));
    std::fs::write(&path, format!("(name: \"own\", pieces: {pieces:?}, check: none)")).unwrap();
    let named = path.to_str().unwrap();
    let refused = testers_for_width(&ask(), named, 0.15, &never).unwrap_err();
    assert!(refused.contains("--pieces"), "{refused}");
    assert!(testers_for_width(&own, named, 0.15, &never).unwrap().is_some());
    let _ = std::fs::remove_file(&path);
    let design = Design {
        testers: 20,
        sessions: 2,
        deals: 300,
        deals_max: 0,
    };
    let mut study = Plan::new(Estimator::FitPopulation, design, 10, 1);
    study.pieces = fixed;
    let why = study.check_values().unwrap_err();
    assert!(why.starts_with("pieces:") && why.contains("classic"), "{why}");
}

/// A plan's progress ends where its total does: every unit counted is a
/// session played, the truth's players' too (once, two units of different
/// sizes made the bar full while the check was still to play).
fn ends_full(progress: &Progress) {
    use std::sync::atomic::Ordering::Relaxed;
    let (done, total) = (progress.done.load(Relaxed), progress.total.load(Relaxed));
    assert!(total > 0 && done == total, "done {done} of {total}");
}

/// The planner's answer is the fewest testers whose pilots' median width
/// meets the target (the design before it did not), and it comes with the
/// check at that design; bad asks are refused by field.
#[test]
fn a_playtest_is_sized_for_a_width_and_checked_there() {
    use super::plan_playtest::testers_for_width;
    let never = Progress::default();
    let a = testers_for_width(&ask(), "random", 0.15, &never)
        .unwrap()
        .unwrap();
    ends_full(&never);
    assert!(a.median_width <= 0.15, "{a:?}");
    let before: Vec<&(usize, f64)> = a.tried.iter().filter(|t| t.0 < a.testers).collect();
    assert!(
        before.iter().all(|t| t.1 > 0.15) || before.is_empty(),
        "{:?}",
        a.tried
    );
    assert_eq!(a.check.n, 20);
    assert!(
        a.check.with_interval == 20 && a.check.coverage >= 0.7,
        "{:?}",
        a.check
    );
    assert!((0.0..=1.0).contains(&a.truth));
    let mut bad = ask();
    bad.figure = "reach_7".to_owned();
    assert!(
        testers_for_width(&bad, "random", 0.1, &never)
            .unwrap_err()
            .starts_with("figure:")
    );
    let mut bad = ask();
    bad.sessions = 0;
    assert!(
        testers_for_width(&bad, "random", 0.1, &never)
            .unwrap_err()
            .starts_with("sessions:")
    );
    assert!(
        testers_for_width(&ask(), "random", 0.0, &never)
            .unwrap_err()
            .starts_with("width:")
    );
    assert!(
        testers_for_width(&ask(), "lucky", 0.1, &never)
            .unwrap_err()
            .contains("unknown generator")
    );
}

/// An A/B test of random against repair: the testers per generator the
/// normal approximation names, the true difference, and the simulated
/// tests at that size: false alarms rare when both arms are random.
#[test]
fn an_ab_test_is_sized_and_its_false_alarms_are_rare() {
    use super::plan_playtest::testers_for_difference;
    let never = Progress::default();
    let mut a = ask();
    a.figure = "reach_25".to_owned();
    a.checks = 40;
    let r = testers_for_difference(&a, ("random", "repair"), 0.15, 0.8, &never)
        .unwrap()
        .unwrap();
    ends_full(&never);
    assert!(r.testers >= 2 && r.sd.0 > 0.0 && r.sd.1 > 0.0, "{r:?}");
    assert!(
        r.truth.1 > r.truth.0,
        "repair lets more games reach round 25: {r:?}"
    );
    assert!(r.false_alarms <= 0.15, "{r:?}");
    assert!(
        testers_for_difference(&a, ("random", "repair"), 0.1, 1.2, &never)
            .unwrap_err()
            .starts_with("power:")
    );
}

/// A playtest's truth is the figure its design estimates: testers playing
/// its sessions, their games carried from one to the next, not a first
/// session each. Where earlier sessions matter (here a rule that deals
/// large pieces once a game passes half the player's typical length, which
/// a first game has none of) the two differ, and the mean of many cohorts
/// of the design is the former: before session 18 a plan of three sessions
/// checked its cohorts against the latter.
#[test]
fn a_playtests_truth_is_its_designs_figure_not_a_first_sessions() {
    use super::estimators::{observed_figures, true_figures};
    let never = Progress::default();
    let population = by_name("demo").unwrap();
    let file = std::env::temp_dir().join(format!("tenten-truth-sessions-{}.ron", std::process::id()));
    std::fs::write(
        &file,
        "(name: \"late large\", check: none, adaptive: Some((rules: [(when: [round_past_typical(0.5)], tilt: 5.0)])))",
    )
    .unwrap();
    let generator = file.to_str().unwrap().to_owned();
    let j = crate::fits::population::forecast::NAMES
        .iter()
        .position(|n| *n == "reach_25")
        .unwrap();
    let plan = |testers: usize, sessions: usize| {
        let design = Design {
            testers,
            sessions,
            deals: 0,
            deals_max: 0,
        };
        let mut p = Plan::new(Estimator::Playtest, design, 1, 5);
        p.ranges = Ranges::fixed(&population).unwrap();
        p.generator = generator.clone();
        p.board = (8, 8);
        p.max_rounds = 300;
        p
    };
    let truth = |sessions: usize| {
        true_figures(&population, &plan(2, sessions), &generator, 3_000, 11, &never)
            .unwrap()
            .unwrap()[j]
    };
    let (three, first) = (truth(3), truth(1));
    let cohorts: Vec<(f64, f64)> = (0..40u64)
        .map(|k| {
            let f = observed_figures(&population, &plan(30, 3), 100 + k, &never)
                .unwrap()
                .unwrap()[j];
            (f.0, (f.1.1 - f.1.0) / 3.92)
        })
        .collect();
    let mean = cohorts.iter().map(|c| c.0).sum::<f64>() / 40.0;
    let se = cohorts.iter().map(|c| c.1).sum::<f64>() / 40.0;
    // The mean's own error, and the truth's (3,000 testers against 30).
    let tolerance = 4.0 * (se * se / 40.0 + se * se * 30.0 / 3_000.0).sqrt();
    assert!(
        (mean - three).abs() < tolerance,
        "cohorts {mean:.4} against the design's truth {three:.4} (tolerance {tolerance:.4})"
    );
    assert!(
        (first - three).abs() > 3.0 * tolerance,
        "a first session's {first:.4} is another figure than three sessions' {three:.4}"
    );
    let _ = std::fs::remove_file(&file);
}
