//! The population commands on the shipped demo: the demo cohort is what
//! its README command makes, a population fits back from it, and a
//! forecast checked against the cohort played under block-blast-like gives
//! its verdict. Bad input names its place.

mod common;
use common::cli::{run_bad, run_ok};

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tenten-population-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_shipped_demo_cohort_is_what_its_command_makes() {
    let dir = scratch("cohort");
    for (generator, seed) in [("random", "1"), ("block-blast-like", "2")] {
        let out = dir.join(generator);
        let line = run_ok(&[
            "cohort",
            "--population",
            "demo",
            "--testers",
            "60",
            "--sessions",
            "1",
            "--generator",
            generator,
            "--seed",
            seed,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(
            line.starts_with(&format!(
                "cohort population=demo generator={generator} testers=60 "
            )),
            "{line}"
        );
        let shipped = std::path::Path::new("presets/cohorts/demo").join(generator);
        let mut names: Vec<_> = std::fs::read_dir(&shipped)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        // Sixty logs and the run's identity, byte for byte.
        assert_eq!(names.len(), 61);
        assert!(names.iter().any(|n| n == "cohort.ron"));
        for n in names {
            assert_eq!(
                std::fs::read(shipped.join(&n)).unwrap(),
                std::fs::read(out.join(&n)).unwrap(),
                "{generator}/{n:?}"
            );
        }
    }
}

#[test]
fn a_fitted_population_forecasts_and_checks_against_the_demo_cohort() {
    let dir = scratch("fit");
    let pop = dir.join("demo-fit.ron");
    let line = run_ok(&[
        "fit-population",
        "presets/cohorts/demo/random",
        "--out",
        pop.to_str().unwrap(),
    ]);
    let keys: Vec<&str> = line
        .split_whitespace()
        .map(|kv| kv.split('=').next().unwrap())
        .collect();
    assert_eq!(
        keys[..17],
        [
            "testers",
            "moves",
            "games",
            "temperature_median",
            "temperature_median_ci",
            "temperature_log_sd",
            "temperature_log_sd_ci",
            "slip_median",
            "slip_median_ci",
            "quit_base",
            "quit_base_ci",
            "quit_unfair_odds",
            "quit_unfair_odds_ci",
            "slip_logit_sd",
            "slip_logit_sd_ci",
            "quit_per_log_round",
            "quit_per_log_round_ci"
        ],
        "{line}"
    );
    assert!(line.starts_with("testers=60 "), "{line}");
    // The quit base and round slope each within their interval, the base's
    // a chance.
    let field = |k: &str| {
        line.split_whitespace()
            .find_map(|kv| kv.strip_prefix(&format!("{k}=")))
            .unwrap()
    };
    for (point, ci, lowest) in [
        ("quit_base", "quit_base_ci", 0.0),
        ("quit_per_log_round", "quit_per_log_round_ci", -10.0),
    ] {
        let x: f64 = field(point).parse().unwrap();
        let (lo, hi) = field(ci).split_once(',').unwrap();
        let (lo, hi): (f64, f64) = (lo.parse().unwrap(), hi.parse().unwrap());
        assert!(
            lowest <= lo && lo < x && x < hi,
            "{point}: {x} in {lo},{hi}: {line}"
        );
    }
    let base_hi: f64 = field("quit_base_ci").split_once(',').unwrap().1.parse().unwrap();
    assert!(base_hi < 1.0, "{line}");
    // The demo cohort was drawn without churn terms: the held-out testers
    // keep the three-term quit model, and the file has none.
    assert!(line.contains(" churn=not_chosen "), "{line}");
    let text = std::fs::read_to_string(&pop).unwrap();
    assert!(
        text.contains("chosen: false") && !text.contains("per_log_longer:"),
        "{text}"
    );
    assert!(text.contains("fitted:") && text.contains("per_tester:"), "{text}");
    let out = run_ok(&[
        "forecast",
        "--population",
        pop.to_str().unwrap(),
        "--generator",
        "random,block-blast-like",
        "--players",
        "2000",
        "--seed",
        "3",
        "--check",
        "presets/cohorts/demo/block-blast-like",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("generator=random players=2000 "), "{out}");
    assert!(
        lines[1].starts_with("generator=block-blast-like players=2000 "),
        "{out}"
    );
    for name in [
        "reach_10",
        "reach_25",
        "reach_50",
        "reach_100",
        "games_per_session",
        "unfair_share",
        "sessions_ended_by_unfair",
    ] {
        assert!(lines[1].contains(&format!(" {name}_ci=")), "{name}: {out}");
    }
    let verdict = lines.iter().find(|l| l.starts_with("verdict: ")).unwrap();
    assert!(
        verdict.starts_with("verdict: 5 of 5 figures inside their intervals; survival agrees"),
        "{out}"
    );
    // Then whether such intervals were found to cover: the demo cohort is
    // 60 testers of one session, below every measured design.
    let calibration = lines.last().unwrap();
    assert!(
        calibration.starts_with("calibration estimator=forecast design=60x1 reach_10=unknown ")
            && calibration
                .ends_with("check=\"tenten calibrate --estimator forecast --testers 60 --sessions 1\""),
        "{out}"
    );
    // The same seed, the same lines.
    let again = run_ok(&[
        "forecast",
        "--population",
        pop.to_str().unwrap(),
        "--generator",
        "random",
        "--players",
        "300",
        "--seed",
        "3",
        "--by-skill",
    ]);
    assert_eq!(again.lines().count(), 12, "{again}");
    assert!(
        again.lines().nth(1).unwrap().ends_with(" interval=simulation"),
        "{again}"
    );
    assert!(
        again
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("skill_decile=1 generator=random players=30 "),
        "{again}"
    );
    let twice = run_ok(&[
        "forecast",
        "--population",
        pop.to_str().unwrap(),
        "--generator",
        "random",
        "--players",
        "300",
        "--seed",
        "3",
        "--by-skill",
    ]);
    assert_eq!(again, twice);
}

#[test]
fn bad_populations_and_logs_are_refused_with_their_place() {
    let dir = scratch("bad");
    let bad = dir.join("bad.ron");
    std::fs::write(
        &bad,
        include_str!("../presets/populations/demo.ron").replace("base: 0.2", "base: 1.5"),
    )
    .unwrap();
    let err = run_bad(&[
        "forecast",
        "--population",
        bad.to_str().unwrap(),
        "--players",
        "10",
    ]);
    assert!(err.contains("bad.ron:") && err.contains("quit base 1.5"), "{err}");
    let err = run_bad(&["forecast", "--population", "demo", "--players", "0"]);
    assert!(err.contains("--players"), "{err}");
    let err = run_bad(&[
        "fit-population",
        "presets/logs/casual-playtest.ron",
        "--out",
        dir.join("x.ron").to_str().unwrap(),
    ]);
    assert!(err.contains("JSON Lines"), "{err}");
    assert!(!dir.join("x.ron").exists());
    let err = run_bad(&[
        "cohort",
        "--population",
        "nobody.ron",
        "--testers",
        "2",
        "--generator",
        "random",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(err.contains("nobody.ron"), "{err}");
    let err = run_bad(&[
        "cohort",
        "--population",
        "demo",
        "--testers",
        "2",
        "--generator",
        "fair",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(err.contains("unknown generator"), "{err}");
}

#[test]
fn forecast_shards_merge_to_the_lines_of_one_process() {
    let dir = scratch("shards");
    let shard = |i: usize, seed: &str| {
        let file = dir.join(format!("s{i}-{seed}.ron"));
        let line = run_ok(&[
            "forecast",
            "--population",
            "demo",
            "--generator",
            "random,bag",
            "--players",
            "90",
            "--seed",
            seed,
            "--shard",
            &format!("{i}/3"),
            "--out",
            file.to_str().unwrap(),
        ]);
        assert!(
            line.starts_with(&format!("forecast shard={i}/3 players=30 of 90 ")),
            "{line}"
        );
        file.to_str().unwrap().to_owned()
    };
    let files: Vec<String> = (0..3).map(|i| shard(i, "4")).collect();
    let merged = run_ok(&["merge", &files[2], &files[0], &files[1]]);
    let one = run_ok(&[
        "forecast",
        "--population",
        "demo",
        "--generator",
        "random,bag",
        "--players",
        "90",
        "--seed",
        "4",
    ]);
    assert_eq!(merged, one);
    let err = run_bad(&["merge", &files[0], &files[1]]);
    assert!(err.contains("shard 2/3 is missing"), "{err}");
    let other = shard(2, "5");
    let err = run_bad(&["merge", &files[0], &files[1], &other]);
    assert!(err.contains("another forecast"), "{err}");
    let err = run_bad(&["merge", &files[0], &files[1], &files[1]]);
    assert!(err.contains("again"), "{err}");
}

/// A cohort folder holds one run: a folder with logs in it is refused (12
/// testers of seed 1 and then 8 of seed 99 were fitted as 20 testers),
/// --force replaces it whole, the folder names the run that wrote it, and
/// a folder with files a cohort did not write is never emptied.
#[test]
fn a_cohort_folder_holds_one_run() {
    let dir = scratch("one-run");
    let out = dir.join("c");
    let cohort = |testers: &str, seed: &str, force: bool| {
        let mut a = vec![
            "cohort",
            "--population",
            "demo",
            "--testers",
            testers,
            "--sessions",
            "1",
            "--generator",
            "random",
            "--size",
            "8x8",
            "--max-rounds",
            "100",
            "--seed",
            seed,
            "--out",
            out.to_str().unwrap(),
        ];
        if force {
            a.push("--force");
        }
        a.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    let logs = |dir: &std::path::Path| {
        std::fs::read_dir(dir)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "jsonl")
            })
            .count()
    };
    run_ok(&strs(&cohort("12", "1", false)));
    assert_eq!(logs(&out), 12);
    let identity = std::fs::read_to_string(out.join("cohort.ron")).unwrap();
    assert!(
        identity.contains("players: 12") && identity.contains("seed: 1,"),
        "{identity}"
    );
    let e = run_bad(&strs(&cohort("8", "99", false)));
    assert!(e.contains("holds logs already") && e.contains("--force"), "{e}");
    assert_eq!(logs(&out), 12, "nothing written");
    run_ok(&strs(&cohort("8", "99", true)));
    assert_eq!(logs(&out), 8, "replaced whole, not mixed");
    let identity = std::fs::read_to_string(out.join("cohort.ron")).unwrap();
    assert!(
        identity.contains("players: 8") && identity.contains("seed: 99,"),
        "{identity}"
    );
    let fitted = dir.join("fit.ron");
    let line = run_ok(&[
        "fit-population",
        out.to_str().unwrap(),
        "--out",
        fitted.to_str().unwrap(),
    ]);
    assert!(line.starts_with("testers=8 "), "{line}");
    // Another program's file in the folder: never removed, even forced.
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let e = run_bad(&strs(&cohort("8", "5", true)));
    assert!(e.contains("did not write (notes.txt)"), "{e}");
    assert_eq!(std::fs::read_to_string(out.join("notes.txt")).unwrap(), "mine");
    assert_eq!(logs(&out), 8);
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Each number in its range, their product past memory: refused at once,
/// before anything is played or written.
#[test]
fn products_of_typed_numbers_are_bounded() {
    let dir = scratch("bounds");
    let out = dir.join("never");
    let e = run_bad(&[
        "cohort",
        "--population",
        "demo",
        "--generator",
        "random",
        "--testers",
        "100000",
        "--sessions",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        e.contains("100,000 testers x 2 sessions = 200,000 sessions; a cohort (its logs held until written) plays at most 20,000"),
        "{e}"
    );
    assert!(!out.exists());
    let e = run_bad(&[
        "forecast",
        "--population",
        "demo",
        "--generator",
        "random,repair,reject",
        "--players",
        "10000000",
    ]);
    assert!(
        e.contains("10,000,000 players x 3 generators = 30,000,000 sessions"),
        "{e}"
    );
}

/// `tenten fit-population cohort/*` names the folder's `cohort.ron` among
/// its logs: it is skipped with a note (it used to fail the fit, "not a
/// JSON Lines log"), and the fit is the folder's own. A design smaller
/// than every calibrated one says so.
#[test]
fn a_cohorts_identity_given_among_its_logs_is_skipped_with_a_note() {
    let dir = scratch("glob");
    let folder = std::path::Path::new("presets/cohorts/demo/random");
    let mut files: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    files.sort();
    assert!(files.iter().any(|f| f.ends_with("cohort.ron")));
    let globbed = dir.join("globbed.ron");
    let mut args = vec!["fit-population"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["--out", globbed.to_str().unwrap()]);
    let out = common::cli::tenten().args(&args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("note: skipped presets/cohorts/demo/random/cohort.ron: a cohort's identity"),
        "{stderr}"
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let whole = dir.join("whole.ron");
    let by_folder = run_ok(&[
        "fit-population",
        folder.to_str().unwrap(),
        "--out",
        whole.to_str().unwrap(),
    ]);
    assert_eq!(stdout, by_folder, "the same fit as the folder's");
    assert!(stdout.starts_with("testers=60 "), "{stdout}");
    // 60 testers of one session each: below the smallest calibrated design.
    assert!(
        stdout.contains("calibration estimator=fit-population design=60x1")
            && stdout.contains("measured_at=none")
            && stdout.contains(
                "note: 60 testers with 1 session each is smaller than every design the calibration study covered"
            ),
        "{stdout}"
    );
    // The identity alone is no log.
    let err = run_bad(&[
        "fit-population",
        "presets/cohorts/demo/random/cohort.ron",
        "--out",
        dir.join("none.ron").to_str().unwrap(),
    ]);
    assert!(err.contains("a cohort's identity, not a log"), "{err}");
}

/// `tenten adapt` on a small board: the arms and verdict lines, the file it
/// writes (which deals as a generator everywhere), and its refusals.
#[test]
fn adapt_compares_its_arms_and_writes_a_generator_that_reads_back() {
    let dir = scratch("adapt");
    let out = dir.join("adaptive.ron");
    let args = |objective: &str, out: &std::path::Path| -> Vec<String> {
        [
            "adapt",
            "--population",
            "demo-churn",
            "--base",
            "random",
            "--objective",
            objective,
            "--players",
            "20",
            "--holdout",
            "60",
            "--size",
            "8x8",
            "--max-rounds",
            "60",
            "--budget",
            "100000",
            "--max-candidates",
            "6",
            "--out",
            out.to_str().unwrap(),
        ]
        .map(str::to_owned)
        .to_vec()
    };
    let a: Vec<String> = args("games_per_session", &out);
    let refs: Vec<&str> = a.iter().map(String::as_str).collect();
    let text = run_ok(&refs);
    let lines: Vec<&str> = text.lines().collect();
    for arm in ["base", "static", "adaptive"] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("arm={arm} objective=games_per_session value="))),
            "{text}"
        );
    }
    for against in ["base", "static"] {
        let line = lines
            .iter()
            .find(|l| l.starts_with(&format!("vs={against} objective=games_per_session gain=")))
            .unwrap_or_else(|| panic!("no vs={against} line: {text}"));
        assert!(line.contains(" gain_ci=") && line.contains(" verdict="), "{line}");
    }
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("churn_model=without_churn_terms vs=static")),
        "{text}"
    );
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("skill_decile=")).count(),
        10
    );
    assert!(text.contains("candidates=6"), "{text}");
    // The file is a generator: simulate deals from it.
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(
        written.starts_with("// Adapted by tenten adapt from random"),
        "{written}"
    );
    let sim = run_ok(&[
        "simulate",
        "--generator",
        out.to_str().unwrap(),
        "--games",
        "3",
        "--size",
        "8x8",
        "--max-rounds",
        "30",
    ]);
    assert!(sim.contains("generator="), "{sim}");
    // The same run again: refused without --force, the file kept.
    let e = run_bad(&refs);
    assert!(e.contains("--force"), "{e}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), written);
    // A bad objective is named with the choices.
    let b = args("reach=11", &dir.join("other.ron"));
    let refs: Vec<&str> = b.iter().map(String::as_str).collect();
    let e = run_bad(&refs);
    assert!(e.contains("reach=R") && e.contains("[10, 25, 50, 100]"), "{e}");
    assert!(!dir.join("other.ron").exists());
    // A reach past the round cap (60 here) is refused before any search.
    let b = args("reach=100", &dir.join("other.ron"));
    let refs: Vec<&str> = b.iter().map(String::as_str).collect();
    let e = run_bad(&refs);
    assert!(e.contains("--max-rounds 60"), "{e}");
    assert!(!dir.join("other.ron").exists());
    // --static-out naming --out by another path, or a folder: refused
    // before the search, nothing written.
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let one = dir.join("one.ron");
    let around = dir.join("sub").join("..").join("one.ron");
    for (static_out, says) in [(&around, "both"), (&dir.join("sub"), "is a folder")] {
        let mut c = args("games_per_session", &one);
        // With --force: a folder is never replaced, whatever is asked.
        c.extend([
            "--static-out".to_owned(),
            static_out.to_str().unwrap().to_owned(),
            "--force".to_owned(),
        ]);
        let refs: Vec<&str> = c.iter().map(String::as_str).collect();
        let e = run_bad(&refs);
        assert!(e.contains(says), "{e}");
        assert!(!one.exists(), "{e}");
    }
}

/// `tenten playtest compare` on two arms' logs: each arm's figure with an
/// interval clustered by tester, the second against the first; a folder of
/// one arm is refused.
#[test]
fn playtest_compare_reports_the_arms_gain_clustered_by_tester() {
    let dir = scratch("compare");
    for (generator, seed) in [("random", "3"), ("repair", "4")] {
        run_ok(&[
            "cohort",
            "--population",
            "demo",
            "--testers",
            "14",
            "--sessions",
            "2",
            "--generator",
            generator,
            "--seed",
            seed,
            "--size",
            "8x8",
            "--out",
            dir.join(generator).to_str().unwrap(),
        ]);
    }
    let (a, b) = (dir.join("random"), dir.join("repair"));
    let text = run_ok(&["playtest", "compare", a.to_str().unwrap(), b.to_str().unwrap()]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("arm=random testers=14 sessions=28 games_per_session="),
        "{text}"
    );
    assert!(
        lines[1].starts_with("arm=repair testers=14 sessions=28 "),
        "{text}"
    );
    // Cohorts number their testers alike: the same ids under both arms are
    // noted, not silently taken as one person.
    assert!(
        text.contains("note: tester t00 is under random and repair"),
        "{text}"
    );
    let vs = lines
        .iter()
        .find(|l| l.starts_with("vs="))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        vs.starts_with("vs=random arm=repair objective=games_per_session gain=")
            && vs.contains(" gain_ci=")
            && vs.contains("testers=14,14 interval=clustered_by_tester"),
        "{vs}"
    );
    // Another baseline.
    let flipped = run_ok(&[
        "playtest",
        "compare",
        "--baseline",
        "repair",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert!(
        flipped.lines().next().unwrap().starts_with("arm=repair "),
        "{flipped}"
    );
    assert!(flipped.contains("vs=repair arm=random "), "{flipped}");
    let e = run_bad(&[
        "playtest",
        "compare",
        "--baseline",
        "bag",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert!(e.contains("no generator \"bag\""), "{e}");
    // Another objective, by name.
    let reach = run_ok(&[
        "playtest",
        "compare",
        "--objective",
        "reach=10",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert!(reach.contains("objective=reach_10 gain="), "{reach}");
    // One arm only: refused, naming the generator.
    let e = run_bad(&["playtest", "compare", a.to_str().unwrap()]);
    assert!(e.contains("one generator (random)"), "{e}");
}

/// A cohort drawn with churn terms fits them back: the held-out testers
/// choose them, each term's interval holds its true size, the population
/// file holds them, and a forecast from it carries their uncertainty.
#[test]
fn churn_terms_are_fitted_where_the_logs_hold_them() {
    let dir = scratch("churn");
    let cohort = dir.join("cohort");
    let pop = dir.join("fitted.ron");
    run_ok(&[
        "cohort",
        "--population",
        "demo-churn",
        "--testers",
        "60",
        "--sessions",
        "3",
        "--generator",
        "random",
        "--out",
        cohort.to_str().unwrap(),
    ]);
    let line = run_ok(&[
        "fit-population",
        cohort.to_str().unwrap(),
        "--out",
        pop.to_str().unwrap(),
    ]);
    assert!(line.contains(" churn=chosen "), "{line}");
    let field = |key: &str| -> Vec<f64> {
        let v = line
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
            .unwrap_or_else(|| panic!("{key} in {line}"));
        v.split(',').map(|x| x.parse().unwrap()).collect()
    };
    let (gain, se) = (field("churn_heldout_gain")[0], field("churn_heldout_se")[0]);
    assert!(gain > 1.96 * se, "{line}");
    // demo-churn's sizes.
    for (term, truth) in [
        ("per_log_longer", 0.8),
        ("per_log_shorter", 0.6),
        ("per_session_game", 0.05),
    ] {
        let ci = field(&format!("churn_{term}_ci"));
        assert!(ci[0] < truth && truth < ci[1], "{term}: {ci:?} against {truth}");
    }
    let text = std::fs::read_to_string(&pop).unwrap();
    assert!(
        text.contains("chosen: true") && text.contains("per_log_longer:"),
        "{text}"
    );
    let out = run_ok(&[
        "forecast",
        "--population",
        pop.to_str().unwrap(),
        "--generator",
        "random",
        "--players",
        "500",
        "--seed",
        "3",
    ]);
    assert!(out.contains(" games_per_session_ci="), "{out}");
}
