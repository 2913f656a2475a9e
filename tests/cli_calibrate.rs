//! `tenten calibrate` and `tenten plan-playtest` from the command line: the
//! lines and the CSV, shards that merge into the one-process lines, a
//! checkpoint that resumes, bad designs refused by field, and the
//! fit-generator study's rates, intervals and verdicts.

mod common;
use common::cli::{run_bad, run_ok, scratch};

const STUDY: [&str; 9] = [
    "calibrate",
    "--estimator",
    "fit-player",
    "--deals",
    "60",
    "--replications",
    "6",
    "--seed",
    "4",
];

#[test]
fn a_study_prints_a_line_per_parameter_and_its_shards_merge_to_it() {
    let dir = scratch("calibrate");
    let csv = dir.join("table.csv");
    let whole = run_ok(&[&STUDY[..], &["--csv", csv.to_str().unwrap()]].concat());
    let lines: Vec<&str> = whole.lines().collect();
    assert_eq!(lines.len(), 2, "{whole}");
    for (line, p) in lines.iter().zip(["temperature", "slip"]) {
        assert!(
            line.starts_with(&format!(
                "estimator=fit-player design=60_deals parameter={p} replications=6 coverage="
            )),
            "{line}"
        );
        for key in [
            " coverage_ci=",
            " bias=",
            " bias_mcse=",
            " rmse=",
            " width=",
            " failed=0 ",
            " calibrated=",
        ] {
            assert!(line.contains(key), "{key}: {line}");
        }
    }
    let table = std::fs::read_to_string(&csv).unwrap();
    assert!(table.starts_with("estimator,design,parameter,n,with_interval,covered,coverage,"));
    assert_eq!(table.lines().count(), 3);
    let parts: Vec<String> = (0..3)
        .map(|i| {
            let part = dir.join(format!("part{i}.ron"));
            let shard = format!("{i}/3");
            let said = run_ok(&[&STUDY[..], &["--shard", &shard, "--out", part.to_str().unwrap()]].concat());
            assert_eq!(
                said.trim(),
                format!("calibrate shard={i}/3 replications=2 of 6 out={}", part.display())
            );
            part.display().to_string()
        })
        .collect();
    let mut merge = vec!["merge"];
    merge.extend(parts.iter().map(String::as_str));
    assert_eq!(
        run_ok(&merge),
        whole,
        "the shards merge into the one-process lines"
    );
    // Two parts leave a replication out: refused, naming it.
    let e = run_bad(&["merge", &parts[0], &parts[1]]);
    assert!(e.contains("is in none of the files"), "{e}");
    // A checkpoint resumes: the same command again plays nothing more.
    let checkpoint = dir.join("checkpoint.ron");
    let first = run_ok(&[&STUDY[..], &["--checkpoint", checkpoint.to_str().unwrap()]].concat());
    assert_eq!(first, whole);
    let again = common::cli::tenten()
        .args([&STUDY[..], &["--checkpoint", checkpoint.to_str().unwrap()]].concat())
        .output()
        .unwrap();
    assert!(again.status.success());
    assert_eq!(String::from_utf8(again.stdout).unwrap(), whole);
    let said = String::from_utf8(again.stderr).unwrap();
    assert!(
        said.contains("6 replications done") && said.contains("0 replications to play"),
        "{said}"
    );
    // Another study's checkpoint is refused, not mixed in.
    let e = run_bad(&[
        "calibrate",
        "--estimator",
        "fit-player",
        "--deals",
        "60",
        "--replications",
        "6",
        "--seed",
        "5",
        "--checkpoint",
        checkpoint.to_str().unwrap(),
    ]);
    assert!(e.contains("checkpoint of another study"), "{e}");
    // A checkpoint made by another version of the estimator is refused by
    // its versions, and left as it was.
    let text = std::fs::read_to_string(&checkpoint).unwrap();
    let old = text.replace("estimator_version: \"1\",", "estimator_version: \"0\",");
    assert_ne!(old, text, "the checkpoint keeps its estimator's version");
    std::fs::write(&checkpoint, &old).unwrap();
    let e = run_bad(&[&STUDY[..], &["--checkpoint", checkpoint.to_str().unwrap()]].concat());
    assert!(
        e.contains("made by fit-player behaviour 0, this is fit-player behaviour 1"),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&checkpoint).unwrap(), old);
}

#[test]
fn designs_that_cannot_be_simulated_are_refused_by_field() {
    for (args, says) in [
        (
            vec!["--estimator", "fit-population", "--testers", "1"],
            "testers:",
        ),
        (
            vec!["--estimator", "fit-population", "--sessions", "0"],
            "sessions:",
        ),
        (vec!["--estimator", "fit-player", "--deals", "2"], "deals:"),
        (
            vec!["--estimator", "fit-player", "--generator", "repair"],
            "generator:",
        ),
        (vec!["--estimator", "lucky"], "unknown estimator"),
        (
            vec!["--estimator", "forecast", "--forecast-generator", "lucky"],
            "unknown generator",
        ),
        (vec!["--estimator", "fit-player", "--shard", "1/2"], "needs --out"),
        (vec!["--estimator", "fit-generator", "--deals", "50"], "deals:"),
        (
            vec![
                "--estimator",
                "fit-generator",
                "--deals",
                "3000",
                "--deals-max",
                "2000",
            ],
            "deals-max:",
        ),
        (
            vec!["--estimator", "fit-player", "--deals-max", "2000"],
            "fit-generator's",
        ),
    ] {
        let mut all = vec!["calibrate", "--replications", "2"];
        all.extend(args);
        let e = run_bad(&all);
        assert!(e.contains(says), "{says}: {e}");
    }
    let dir = scratch("calibrate-ranges");
    let ranges = dir.join("ranges.ron");
    std::fs::write(&ranges, "(temperature_log_sd: (-0.1, 0.3))").unwrap();
    let e = run_bad(&[
        "calibrate",
        "--estimator",
        "fit-population",
        "--ranges",
        ranges.to_str().unwrap(),
    ]);
    assert!(
        e.contains("ranges.ron") && e.contains("temperature_log_sd"),
        "{e}"
    );
}

#[test]
fn plan_playtest_answers_with_its_check() {
    let out = run_ok(&[
        "plan-playtest",
        "--population",
        "demo",
        "--generator",
        "random",
        "--figure",
        "reach_50",
        "--width",
        "0.2",
        "--pilots",
        "4",
        "--checks",
        "10",
        "--truth-players",
        "1000",
        "--size",
        "8x8",
        "--max-rounds",
        "300",
    ]);
    let first = out.lines().next().unwrap();
    assert!(
        first.starts_with("plan figure=reach_50 width=0.2 generator=random sessions=2 testers="),
        "{out}"
    );
    assert!(out.lines().any(|l| l.starts_with("tried testers=5 ")), "{out}");
    let check = out.lines().last().unwrap();
    assert!(check.starts_with("check estimator=playtest design="), "{out}");
    assert!(
        check.contains(" replications=10 coverage=") && check.contains(" calibrated="),
        "{check}"
    );
    let e = run_bad(&["plan-playtest", "--population", "demo", "--generator", "random"]);
    assert!(e.contains("--width"), "{e}");
}

/// An A/B of generator files (an adaptive one too) is sized as one of
/// built-ins, and a file that is not there is named.
#[test]
fn plan_playtest_compares_generator_files() {
    let args = |pair: &str| -> Vec<String> {
        [
            "plan-playtest",
            "--population",
            "demo-churn",
            "--compare",
            pair,
            "--figure",
            "games_per_session",
            "--difference",
            "1.0",
            "--pilots",
            "2",
            "--checks",
            "4",
            "--truth-players",
            "200",
            "--size",
            "8x8",
            "--max-rounds",
            "40",
        ]
        .map(str::to_owned)
        .to_vec()
    };
    let ok = args("random,docs/examples/adaptive.ron");
    let out = run_ok(&ok.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        out.starts_with("plan figure=games_per_session difference=1 "),
        "{out}"
    );
    let check = out.lines().last().unwrap();
    assert!(
        check.starts_with("check testers_per_generator=") && check.contains(" ab_tests=4 "),
        "{out}"
    );
    let bad = args("random,no-such-file.ron");
    let e = run_bad(&bad.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(e.contains("no-such-file.ron"), "{e}");
    // A game's own pieces: a file dealing them is refused on the classic
    // set with the flag that gives them, and planned with it.
    let dir = scratch("plan-pieces");
    let own = dir.join("own.ron");
    let pieces = std::fs::canonicalize("presets/pieces/fixed-41.ron").unwrap();
    std::fs::write(
        &own,
        format!(
            "(name: \"own\", pieces: {:?}, check: reject(redraws: 100))",
            pieces.to_str().unwrap()
        ),
    )
    .unwrap();
    let pair = format!("random,{}", own.display());
    let e = run_bad(&args(&pair).iter().map(String::as_str).collect::<Vec<_>>());
    assert!(e.contains("fixed 41") && e.contains("--pieces"), "{e}");
    let mut with = args(&pair);
    with.extend(["--pieces".to_owned(), pieces.to_str().unwrap().to_owned()]);
    let out = run_ok(&with.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        out.lines()
            .last()
            .unwrap()
            .starts_with("check testers_per_generator="),
        "{out}"
    );
}

/// A number of a `key=value` line, `none` read as NaN.
fn field(line: &str, key: &str) -> f64 {
    let v = line
        .split(' ')
        .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("{key} in {line}"));
    if v == "none" {
        f64::NAN
    } else {
        v.parse().unwrap_or_else(|_| panic!("{key}={v} in {line}"))
    }
}

#[test]
fn a_fit_generator_study_prints_each_rate_with_its_interval_and_verdict() {
    let out = run_ok(&[
        "calibrate",
        "--estimator",
        "fit-generator",
        "--deals",
        "200",
        "--deals-max",
        "300",
        "--replications",
        "3",
        "--seed",
        "2",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with(
            "estimator=fit-generator design=200-300_deals replications=3 seed=2 player=novice failed=0"
        ),
        "{out}"
    );
    let figures: Vec<&str> = lines.iter().copied().filter(|l| l.contains(" figure=")).collect();
    let names: Vec<&str> = figures
        .iter()
        .map(|l| l.split(" figure=").nth(1).unwrap().split(' ').next().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "check_decided_right",
            "check_decided_wrong",
            "check_undecided",
            "rules_kept_without_rules",
            "false_repeat",
            "false_bands",
            "false_mercy",
            "power_repeat",
            "power_bands",
            "power_mercy",
            "rules_match_with_repeat",
            "share_coverage",
            "shares_compared",
            "repeat_coverage",
        ]
    );
    for l in &figures {
        let (count, of, rate) = (field(l, "count"), field(l, "of"), field(l, "rate"));
        assert!(count <= of, "{l}");
        if of == 0.0 {
            assert!(rate.is_nan() && l.contains("rate_ci=none,none"), "{l}");
            continue;
        }
        let ci = l.split(" rate_ci=").nth(1).unwrap().split(' ').next().unwrap();
        let (lo, hi) = ci.split_once(',').unwrap();
        let (lo, hi): (f64, f64) = (lo.parse().unwrap(), hi.parse().unwrap());
        assert!(
            (0.0..=1.0).contains(&rate) && 0.0 <= lo && lo <= rate && rate <= hi && hi <= 1.0,
            "{l}"
        );
        assert!((rate - count / of).abs() < 1e-4, "{l}");
        assert!(
            l.contains(" interval=wilson") || l.contains(" interval=clustered"),
            "{l}"
        );
    }
    // The three calls share out the replications.
    let calls: f64 = figures[..3].iter().map(|l| field(l, "count")).sum();
    assert_eq!(calls, 3.0);
    // The goals, each with a verdict from its interval.
    for (name, goal) in [
        ("rules_kept_without_rules", "at_most_0.05"),
        ("check_decided_wrong", "at_most_0.05"),
        ("share_coverage", "0.9..0.98"),
        ("rules_match_with_repeat", "at_least_0.9"),
    ] {
        let l = figures
            .iter()
            .find(|l| l.contains(&format!(" figure={name} ")))
            .unwrap();
        assert!(l.contains(&format!(" goal={goal} verdict=")), "{l}");
        let verdict = l.rsplit("verdict=").next().unwrap();
        assert!(["met", "missed", "undecided"].contains(&verdict), "{l}");
    }
    // Then a line per parameter, as the other estimators print.
    let params: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.contains(" parameter="))
        .collect();
    assert!(
        params
            .iter()
            .any(|l| l.contains(" parameter=share_dot replications=3 ")),
        "{out}"
    );
    for l in params {
        let coverage = field(l, "coverage");
        assert!(coverage.is_nan() || (0.0..=1.0).contains(&coverage), "{l}");
        assert!(l.contains(" coverage_ci=") && l.contains(" estimates="), "{l}");
    }
}
