//! The fit-generator estimator's bookkeeping: verdicts tallied right,
//! wrong or undecided, rules kept without rules, each rate's interval and
//! goal, the truth's shares named only where a learned context is one of
//! the truth's, the truths drawn, and the study's progress.

use std::collections::BTreeMap;

use super::*;
use crate::study::calibrate::{Design, Estimator, Replication};

fn model(kind: &str, rules: [bool; 3]) -> Model {
    Model {
        kind: kind.to_owned(),
        policy: (kind == "repair").then(|| "deepest".to_owned()),
        repeat: rules[0],
        bands: rules[1],
        mercy: rules[2],
    }
}

fn rep(index: usize, truth: Model, learned: Model, decided: bool, estimates: Vec<Estimate>) -> Replication {
    Replication {
        index,
        estimates,
        failed: None,
        generator: Some(Outcome {
            deals: 2_000,
            truth,
            learned,
            decided,
            mercy_shown: true,
        }),
    }
}

const NONE: [bool; 3] = [false; 3];

#[test]
fn a_verdict_is_right_wrong_or_undecided_and_a_policy_is_no_kind() {
    let mut other_policy = model("repair", NONE);
    other_policy.policy = Some("last".to_owned());
    let reps = vec![
        rep(0, model("reject", NONE), model("reject", NONE), true, vec![]),
        // Repair under another policy is still repair: right.
        rep(1, model("repair", NONE), other_policy, true, vec![]),
        rep(2, model("none", NONE), model("reject", NONE), true, vec![]),
        // A bag decided is wrong: no truth is a bag.
        rep(3, model("reject", NONE), model("bag", NONE), true, vec![]),
        // Undecided whatever the kind learned.
        rep(4, model("none", NONE), model("none", NONE), false, vec![]),
        rep(5, model("reject", NONE), model("repair", NONE), false, vec![]),
        Replication {
            index: 6,
            estimates: vec![],
            failed: Some("no deals".to_owned()),
            generator: None,
        },
    ];
    let calls: Vec<Call> = reps
        .iter()
        .filter_map(|r| r.generator.as_ref().map(Outcome::call))
        .collect();
    assert_eq!(
        calls,
        [
            Call::Right,
            Call::Right,
            Call::Wrong,
            Call::Wrong,
            Call::Undecided,
            Call::Undecided
        ]
    );
    let t = tally(&reps);
    assert_eq!((t.replications, t.failed), (6, 1));
    assert_eq!((t.right.count, t.wrong.count, t.undecided.count), (2, 2, 2));
    assert!(t.right.of == 6 && t.wrong.of == 6 && t.undecided.of == 6);
    // Each rate with its Wilson interval around it.
    let (lo, hi) = t.wrong.ci;
    assert!(
        lo < 1.0 / 3.0 && 1.0 / 3.0 < hi && lo > 0.0 && hi < 1.0,
        "{lo} {hi}"
    );
    // 2 of 6 decided wrong: the goal of at most 5 % is missed.
    assert_eq!(Goal::AT_MOST_5.verdict(t.wrong.ci), Verdict::Missed);
}

#[test]
fn a_rule_kept_without_rules_is_a_false_positive_and_a_rule_kept_with_it_is_power() {
    let reps = vec![
        // No rule, and repeat kept: the generator-level false positive.
        rep(
            0,
            model("none", NONE),
            model("none", [true, false, false]),
            true,
            vec![],
        ),
        rep(1, model("none", NONE), model("none", NONE), true, vec![]),
        rep(2, model("reject", NONE), model("reject", NONE), true, vec![]),
        // Repeat present and kept, with mercy kept falsely: power, a false
        // mercy, and the rules do not match.
        rep(
            3,
            model("reject", [true, false, false]),
            model("reject", [true, false, true]),
            true,
            vec![],
        ),
        // Repeat present and missed.
        rep(
            4,
            model("reject", [true, true, false]),
            model("reject", [false, true, false]),
            true,
            vec![],
        ),
        rep(
            5,
            model("repair", [true, false, false]),
            model("repair", [true, false, false]),
            true,
            vec![],
        ),
    ];
    let t = tally(&reps);
    assert_eq!((t.rules_without_rules.count, t.rules_without_rules.of), (1, 3));
    // Repeat: kept in 1 of the 3 generators without it; in 2 of 3 with it.
    assert_eq!((t.false_positive[0].count, t.false_positive[0].of), (1, 3));
    assert_eq!((t.power[0].count, t.power[0].of), (2, 3));
    assert_eq!((t.false_positive[2].count, t.false_positive[2].of), (1, 6));
    assert_eq!((t.power[1].count, t.power[1].of), (1, 1));
    // With a repeat chance, exactly the truth's rules in 1 of 3.
    assert_eq!(
        (t.rules_match_with_repeat.count, t.rules_match_with_repeat.of),
        (1, 3)
    );
    assert_eq!(model("reject", [true, false, true]).name(), "reject+repeat+mercy");
    assert_eq!(model("repair", NONE).name(), "repair(deepest)");
}

#[test]
fn a_mercy_seldom_in_force_counts_as_absent_for_power_and_match_only() {
    let mut unseen = rep(
        0,
        model("reject", [true, false, true]),
        model("reject", [true, false, false]),
        true,
        vec![],
    );
    if let Some(o) = unseen.generator.as_mut() {
        o.mercy_shown = false;
    }
    let seen = rep(
        1,
        model("reject", [true, false, true]),
        model("reject", [true, false, false]),
        true,
        vec![],
    );
    let t = tally(&[unseen.clone()]);
    // The learner could not see it: the rules match, and mercy has no truth
    // to find.
    assert_eq!(
        (t.rules_match_with_repeat.count, t.rules_match_with_repeat.of),
        (1, 1)
    );
    assert_eq!(t.power[2].of, 0);
    assert_eq!(
        t.false_positive[2].of, 0,
        "a mercy in the truth is never a false one"
    );
    let t = tally(&[unseen, seen]);
    assert_eq!(
        (t.rules_match_with_repeat.count, t.rules_match_with_repeat.of),
        (1, 2)
    );
    assert_eq!((t.power[2].count, t.power[2].of), (0, 1));
    // A study written before the field reads every mercy as shown.
    let old = "(deals: 10, truth: (kind: \"none\", repeat: false, bands: false, mercy: true), learned: (kind: \"none\", repeat: false, bands: false, mercy: false), decided: true)";
    let o: Outcome = ron::from_str(old).unwrap();
    assert!(o.mercy_shown && o.visible_truth().mercy);
}

#[test]
fn shares_are_covered_per_replication_and_nothing_counted_reads_none() {
    let share = |truth: f64, ci: (f64, f64)| Estimate::new("share_dot", truth, truth, ci);
    let reps = vec![
        rep(
            0,
            model("none", NONE),
            model("none", NONE),
            true,
            vec![share(0.1, (0.05, 0.15)), share(0.1, (0.2, 0.3))],
        ),
        rep(
            1,
            model("none", NONE),
            model("none", NONE),
            true,
            vec![share(0.1, (0.05, 0.15))],
        ),
        rep(2, model("none", NONE), model("none", NONE), true, vec![]),
    ];
    let t = tally(&reps);
    assert_eq!((t.share_coverage.count, t.share_coverage.of), (2, 3));
    assert!((t.share_coverage.rate - 2.0 / 3.0).abs() < 1e-12);
    assert!(t.share_coverage.ci.0 <= t.share_coverage.rate && t.share_coverage.rate <= t.share_coverage.ci.1);
    assert_eq!((t.shares_compared.count, t.shares_compared.of), (2, 3));
    // A replication gives a share per context: the line counts the study's
    // replications and the estimates apart.
    let plan = Plan::new(Estimator::FitGenerator, Design::GENERATOR, 3, 1);
    let said = lines(&plan, &reps);
    let dot = said.iter().find(|l| l.contains(" parameter=share_dot ")).unwrap();
    assert!(
        dot.contains(" replications=3 ") && dot.contains(" estimates=3 with_interval=3"),
        "{dot}"
    );
    // Nothing at all: every rate none, every goal undecided, no panic.
    let empty = tally(&[]);
    assert!(empty.right.rate.is_nan() && empty.share_coverage.rate.is_nan());
    for (_, r, g) in goals(&empty) {
        assert_eq!(g.verdict(r.ci), Verdict::Undecided);
    }
    let plan = Plan::new(Estimator::FitGenerator, Design::GENERATOR_SMALL, 1, 1);
    let lines = lines(&plan, &[]);
    assert!(lines[0].starts_with("estimator=fit-generator design=2000-10000_deals replications=1 seed=1"));
    assert!(
        lines
            .iter()
            .any(|l| l.contains("figure=share_coverage count=0 of=0 rate=none"))
    );
}

#[test]
fn a_goal_is_met_missed_or_undecided_from_the_interval() {
    assert_eq!(Goal::AT_MOST_5.verdict((0.0, 0.03)), Verdict::Met);
    assert_eq!(Goal::AT_MOST_5.verdict((0.06, 0.2)), Verdict::Missed);
    assert_eq!(Goal::AT_MOST_5.verdict((0.01, 0.2)), Verdict::Undecided);
    assert_eq!(Goal::AT_LEAST_90.verdict((0.92, 0.99)), Verdict::Met);
    assert_eq!(Goal::AT_LEAST_90.verdict((0.5, 0.8)), Verdict::Missed);
    assert_eq!(Goal::NEAR_95.verdict((0.93, 0.97)), Verdict::Met);
    assert_eq!(Goal::NEAR_95.verdict((0.93, 0.99)), Verdict::Undecided);
    assert_eq!(Goal::NEAR_95.verdict((f64::NAN, f64::NAN)), Verdict::Undecided);
    assert_eq!(Goal::AT_MOST_5.words(), "at_most_0.05");
    assert_eq!(Goal::AT_LEAST_90.words(), "at_least_0.9");
}

/// Why a rehearsal's false alarms are judged against the nominal level
/// and not by `at_most_0.05`'s verdict: a two-sided test of level 5 %
/// calls two identical arms different in 5 % of runs, and at that rate the
/// exact interval the rehearsal judges by lies inside "at most 5 %" in
/// under 3 % of studies, at
/// any number of runs (exact binomial sums, 1 to 2,000 runs). More runs
/// never decide it; only a conservative test, calling fewer than 5 %,
/// could be "met" in most studies. What does decide is whether the
/// interval lies above 5 %, as it does for a test calling 10 % once the
/// runs are enough.
#[test]
fn at_most_the_nominal_level_is_undecidable_for_a_test_of_that_level() {
    use statrs::distribution::{Binomial, Discrete};
    let chance = |rate: f64, runs: usize, verdict: Verdict| {
        let b = Binomial::new(rate, runs as u64).unwrap();
        // The counts a study could see (the rest weigh under 1e-13).
        (0..=runs)
            .map(|k| (k, b.pmf(k as u64)))
            .filter(|&(k, p)| {
                p > 1e-13 && {
                    let (_, lo, hi) = crate::stats::survival::exact_share(k, runs).unwrap();
                    Goal::AT_MOST_5.verdict((lo, hi)) == verdict
                }
            })
            .map(|(_, p)| p)
            .sum::<f64>()
    };
    for runs in 1..=2_000 {
        let met = chance(0.05, runs, Verdict::Met);
        assert!(
            met < 0.03,
            "{runs} runs at the nominal rate: met with chance {met}"
        );
        if runs >= 20 {
            let undecided = chance(0.05, runs, Verdict::Undecided);
            assert!(undecided > 0.9, "{runs} runs: undecided only {undecided}");
        }
    }
    // A test calling more than its level is caught, and one calling far
    // fewer can be met.
    assert!(chance(0.10, 400, Verdict::Missed) > 0.95);
    assert!(chance(0.02, 600, Verdict::Met) > 0.95);
}

/// Bands above 0.5 and mercy after 6 dry rounds.
fn banded_truth() -> GeneratorSpec {
    let set = PieceSet::classic();
    let file = GeneratorFile {
        name: "t".to_owned(),
        pieces: None,
        weights: BTreeMap::new(),
        by_fill: vec![
            Band {
                up_to: 0.5,
                scale: BTreeMap::new(),
            },
            Band {
                up_to: 1.0,
                scale: BTreeMap::from([("dot".to_owned(), 3.0)]),
            },
        ],
        repeat_previous: 0.0,
        mercy: Some(Mercy {
            after_rounds_without_clear: 6,
            scale: BTreeMap::from([("h2".to_owned(), 4.0)]),
        }),
        check: Check::None,
        adaptive: None,
    };
    generator_file::resolve_file(file, set, "t").unwrap()
}

#[test]
fn a_truth_is_named_only_where_the_learned_context_is_one_of_its_own() {
    let truth = banded_truth();
    let (dot, h2) = (0, 3);
    let mut rules = Rules::plain(Learned::None);
    rules.bands = vec![0.25, 0.5, 0.75, 1.0];
    rules.mercy = Some(6);
    // Four bands, each with and without mercy: every context is the truth's.
    let all: Vec<Vec<f64>> = (0..rules.contexts())
        .map(|c| truth_in_context(&truth, &rules, c).expect("a context of the truth's"))
        .collect();
    for s in &all {
        assert!((s.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }
    assert_eq!(all[0], all[2], "both bands below 0.5 are the truth's first");
    assert!(all[4][dot] > all[0][dot], "above 0.5 the dot is tripled");
    assert!(all[1][h2] > all[0][h2], "mercy quadruples h2");
    // A learned band across the truth's cut mixes two sets of weights.
    rules.bands = vec![0.25, 1.0];
    assert!(truth_in_context(&truth, &rules, 0).is_some());
    assert!(truth_in_context(&truth, &rules, 2).is_none());
    // No bands learned while the truth has them; mercy at another wait;
    // mercy missed: each mixes.
    let mut plain = Rules::plain(Learned::None);
    plain.mercy = Some(6);
    assert!(truth_in_context(&truth, &plain, 0).is_none());
    rules.bands = vec![0.5, 1.0];
    rules.mercy = Some(4);
    assert!(truth_in_context(&truth, &rules, 0).is_none());
    rules.mercy = None;
    assert!(truth_in_context(&truth, &rules, 0).is_none());
    // A truth without rules is named in any learned context.
    let set = PieceSet::classic();
    let flat = generator_file::preset("random", &set).unwrap();
    rules.mercy = Some(8);
    let s = truth_in_context(&flat, &rules, 3).unwrap();
    let total = set.total_weight() as f64;
    assert!((s[dot] - f64::from(set.pieces[dot].weight) / total).abs() < 1e-12);
}

#[test]
fn truths_are_drawn_from_the_ranges_about_half_without_rules() {
    let set = PieceSet::classic();
    let plan = Plan::new(Estimator::FitGenerator, Design::GENERATOR, 400, 3);
    assert!(plan.check().is_ok());
    let drawn: Vec<Model> = (0..400)
        .map(|r| Model::of_file(&draw(&plan, r, &set).file))
        .collect();
    let plain = drawn.iter().filter(|m| !m.any_rule()).count();
    assert!((160..=240).contains(&plain), "{plain} of 400 without rules");
    for kind in ["none", "reject", "repair"] {
        let n = drawn.iter().filter(|m| m.kind == kind).count();
        assert!((90..=180).contains(&n), "{kind}: {n}");
    }
    for p in ["deepest", "last", "frequency"] {
        assert!(drawn.iter().any(|m| m.policy.as_deref() == Some(p)), "{p}");
    }
    assert_eq!(draw(&plan, 7, &set), draw(&plan, 7, &set));
    let other = Plan::new(Estimator::FitGenerator, Design::GENERATOR, 400, 4);
    assert_ne!(draw(&plan, 7, &set), draw(&other, 7, &set));
    let r = draw(&plan, 1, &set);
    assert!((0.0..=0.2).contains(&r.file.repeat_previous));
    // A study of generators that repeat: every truth has a repeat chance,
    // and each truth's check and other rules are the plain study's.
    let mut repeating = plan.clone();
    repeating.generators.as_mut().unwrap().repeat_chance = Some(1.0);
    for r in 0..100 {
        let (plain, rep) = (draw(&plan, r, &set), draw(&repeating, r, &set));
        assert!(rep.file.repeat_previous > 0.0, "replication {r}");
        let (a, b) = (Model::of_file(&plain.file), Model::of_file(&rep.file));
        assert_eq!(
            (a.kind, a.policy, a.bands, a.mercy),
            (b.kind, b.policy, b.bands, b.mercy),
            "replication {r}"
        );
    }
    // Lengths log-uniform in the design's range: the median near the
    // geometric mean (10,000), not the arithmetic (26,000).
    let mut n: Vec<usize> = (0..400).map(|r| deals_of(&plan, r)).collect();
    assert!(n.iter().all(|d| (2_000..=50_000).contains(d)));
    n.sort_unstable();
    assert!((7_000..=14_000).contains(&n[200]), "median {}", n[200]);
    assert_eq!(plan.cost(5), deals_of(&plan, 5));
    // A range the learner cannot take is refused by field.
    let mut bad = plan.clone();
    bad.design.deals = 50;
    assert!(bad.check().unwrap_err().starts_with("deals:"));
    let mut bad = plan.clone();
    bad.design.deals_max = 1_000;
    assert!(bad.check().unwrap_err().starts_with("deals-max:"));
    let mut bad = plan;
    bad.generators = Some(GeneratorRanges {
        player: "nobody".to_owned(),
        ..GeneratorRanges::default()
    });
    assert!(bad.check().unwrap_err().starts_with("player:"));
}

#[test]
fn an_outcome_is_kept_in_the_study_file() {
    let plan = Plan::new(Estimator::FitGenerator, Design::GENERATOR_SMALL, 1, 9);
    let reps = vec![rep(
        0,
        model("repair", [true, false, false]),
        model("reject", NONE),
        false,
        vec![Estimate::new("share_dot", 0.02, 0.021, (0.015, 0.03))],
    )];
    let study = crate::study::calibrate::file::Study::new(plan, (0, 1), reps);
    let back = crate::study::calibrate::file::Study::parse(&study.to_ron(), "s.ron")
        .unwrap()
        .unwrap();
    assert_eq!(back, study);
    // The other estimators' files say nothing of it.
    let other = Plan::new(Estimator::FitPlayer, Design::DEFAULT, 1, 9);
    let text = crate::study::calibrate::file::Study::new(other, (0, 1), vec![]).to_ron();
    assert!(
        !text.contains("generators") && !text.contains("deals_max"),
        "{text}"
    );
}

/// The study's progress is its own: a stage's total never reaches it, it
/// grows inside the replication's share, and a cancel reaches the stages.
#[test]
fn a_replication_shows_its_stages_within_its_cost_and_hears_a_cancel() {
    let outer = Progress::default();
    outer.set_total(300);
    outer.done.store(100, std::sync::atomic::Ordering::Relaxed);
    let stages = [Progress::default(), Progress::default()];
    let seen = crate::study::calibrate::watched(&outer, &stages, [0.1, 0.9], 100, 100, || {
        stages[0].set_total(10);
        stages[0].advance(10);
        stages[1].set_total(1_000_000);
        stages[1].advance(500_000);
        std::thread::sleep(std::time::Duration::from_millis(300));
        let mid = outer.done.load(std::sync::atomic::Ordering::Relaxed);
        outer.cancel();
        let started = std::time::Instant::now();
        while !stages[1].cancelled() && started.elapsed().as_secs() < 5 {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        (mid, stages[0].cancelled() && stages[1].cancelled())
    });
    // 0.1 + 0.9 * 0.5 of a replication of 100 past 100 done.
    assert!((150..=160).contains(&seen.0), "{}", seen.0);
    assert!(seen.1, "the cancel reached the stages");
    assert_eq!(outer.total.load(std::sync::atomic::Ordering::Relaxed), 300);
}

#[test]
fn ranges_written_before_mercy_waits_read_the_waits_they_drew() {
    // A study file from before the field drew 4, 6 or 8 dry rounds; today's
    // default draws 2 or 4, so the two plans differ and never merge.
    let old: GeneratorRanges = ron::from_str("(player: \"novice\")").unwrap();
    assert_eq!(old.mercy_waits, [4, 6, 8]);
    assert_eq!(GeneratorRanges::default().mercy_waits, [2, 4]);
    assert_ne!(old, GeneratorRanges::default());
    let mut bad = GeneratorRanges {
        mercy_waits: vec![3],
        ..Default::default()
    };
    assert!(bad.check().unwrap_err().contains("mercy_waits"));
    bad.mercy_waits = Vec::new();
    assert!(bad.check().is_err());
    let bad = GeneratorRanges {
        repeat_chance: Some(1.5),
        ..Default::default()
    };
    assert!(bad.check().unwrap_err().starts_with("repeat_chance: a chance"));
}
