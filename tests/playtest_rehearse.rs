//! `tenten playtest rehearse`: the real server and scripted testers over
//! HTTP, each run's folder read back as `playtest compare` reads it.

mod common;

use common::cli::{run_bad, run_ok, scratch};

/// The arguments of a small rehearsal of `random` against `repair` by 10
/// `demo-churn` testers an arm on an 8x8 board into `out`, two seconds'
/// idle limit, with `more` options.
fn tiny_args<'a>(out: &'a std::path::Path, more: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "playtest",
        "rehearse",
        "--population",
        "demo-churn",
        "--generator",
        "random",
        "--generator",
        "repair",
        "--testers",
        "10",
        "--size",
        "8x8",
        // Quick: a stopped session ends after two seconds idle.
        "--idle",
        "2",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(more);
    args
}

/// That rehearsal, played.
fn tiny(out: &std::path::Path, more: &[&str]) -> String {
    run_ok(&tiny_args(out, more))
}

fn field<'a>(line: &'a str, key: &str) -> &'a str {
    line.split(' ')
        .find_map(|w| w.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("no {key} in {line}"))
}

/// One run on an 8x8 board: both servers' testers play every session
/// (the second begun after the first went idle), the A/B folder's logs say
/// what the run's line says, the identical arms are two names of one
/// generator, and the summary counts the run.
#[test]
fn a_rehearsal_plays_through_the_server_and_reads_back_as_compare() {
    let dir = scratch("rehearse");
    let out = dir.join("runs");
    let stdout = tiny(
        &out,
        &[
            "--sessions",
            "2",
            "--runs",
            "1",
            "--max-rounds",
            "60",
            "--keep-logs",
        ],
    );
    let lines: Vec<&str> = stdout.lines().collect();
    let ab = lines
        .iter()
        .find(|l| l.starts_with("run=0 server=ab "))
        .expect(&stdout);
    let same = lines
        .iter()
        .find(|l| l.starts_with("run=0 server=same "))
        .expect(&stdout);
    for l in [ab, same] {
        assert_eq!(field(l, "testers"), "10,10", "{l}");
        assert_eq!(field(l, "sessions"), "20,20", "{l}");
        let games: u32 = field(l, "games").parse().unwrap();
        assert!(games >= 40, "every session plays at least one game: {l}");
        let (moves, requests): (u64, u64) = (
            field(l, "moves").parse().unwrap(),
            field(l, "requests").parse().unwrap(),
        );
        assert!(requests > moves && moves > u64::from(games), "{l}");
    }
    // The A/B folder compared by `playtest compare` says what the run says.
    let compared = run_ok(&["playtest", "compare", out.join("run-000/ab").to_str().unwrap()]);
    let vs = compared
        .lines()
        .find(|l| l.starts_with("vs=random arm=repair "))
        .expect(&compared);
    assert_eq!(field(vs, "gain"), field(ab, "gain"), "{compared}\n{ab}");
    assert_eq!(field(vs, "gain_ci"), field(ab, "gain_ci"), "{compared}\n{ab}");
    // The server closed every session as idle, and logged every game the
    // testers played.
    let status = run_ok(&["playtest", "status", out.join("run-000/ab").to_str().unwrap()]);
    let first = status.lines().next().unwrap();
    assert_eq!(field(first, "open"), "0", "{status}");
    assert_eq!(field(first, "games"), field(ab, "games"), "{status}\n{ab}");
    assert_eq!(field(first, "moves"), field(ab, "moves"), "{status}\n{ab}");
    // Each tester has both sessions' logs; the identical arms are named
    // apart and deal alike.
    let logs = |d: &str| -> Vec<String> {
        std::fs::read_dir(out.join(d))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".jsonl"))
            .collect()
    };
    let ab_logs = logs("run-000/ab");
    assert_eq!(
        ab_logs.iter().filter(|n| n.ends_with("-s0.jsonl")).count(),
        20,
        "{ab_logs:?}"
    );
    assert_eq!(
        ab_logs.iter().filter(|n| n.ends_with("-s1.jsonl")).count(),
        20,
        "{ab_logs:?}"
    );
    let compared = run_ok(&["playtest", "compare", out.join("run-000/same").to_str().unwrap()]);
    assert!(compared.contains("vs=random arm=random (again) "), "{compared}");
    let power = lines.iter().find(|l| l.starts_with("power=")).expect(&stdout);
    let alarms = lines
        .iter()
        .find(|l| l.starts_with("false_alarms="))
        .expect(&stdout);
    assert!(
        power.contains("/1 ") && power.contains("goal=at_least_0.8 verdict="),
        "{power}"
    );
    assert!(
        alarms.contains("/1 ") && alarms.contains("goal=at_most_0.05 verdict="),
        "{alarms}"
    );
    // The run's file: tallied alone, the folder says what the rehearsal said.
    let tallied = run_ok(&["playtest", "tally", out.to_str().unwrap()]);
    assert!(tallied.lines().any(|l| l == *power), "{tallied}\n{power}");
    assert!(tallied.lines().any(|l| l == *ab), "{tallied}\n{ab}");
    let note = lines.iter().find(|l| l.starts_with("note:")).expect(&stdout);
    assert!(tallied.lines().any(|l| l == *note), "{tallied}\n{note}");
    // A folder with anything in it is refused, and left as it was.
    let before = logs("run-000/ab");
    let e = run_bad(&tiny_args(&out, &["--runs", "1"]));
    assert!(e.contains("is not an empty folder"), "{e}");
    assert_eq!(logs("run-000/ab"), before);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each refused with its reason, and nothing written: one arm, one arm
/// twice, an unknown population (by file or by name), too many and too few
/// testers.
#[test]
fn a_rehearsal_needs_two_different_arms_and_a_known_population() {
    let dir = scratch("rehearse-bad");
    let out = dir.join("runs");
    let o = out.to_str().unwrap();
    let refused = |population: &str, arms: &[&str], testers: &str| {
        let mut args = vec!["playtest", "rehearse", "--population", population];
        for g in arms {
            args.extend(["--generator", g]);
        }
        args.extend(["--testers", testers, "--out", o]);
        run_bad(&args)
    };
    let two = ["random", "repair"];
    for (e, says) in [
        (refused("demo", &["random"], "10"), vec!["two arms; 1 given"]),
        (refused("demo", &["random", "random"], "10"), vec!["given twice"]),
        (refused("no-such.ron", &two, "10"), vec!["no-such.ron"]),
        (refused("nosuch", &two, "10"), vec!["--population", "demo-churn"]),
        (refused("demo", &two, "999999"), vec!["999999"]),
        // Below 10 testers an arm no comparison has an interval.
        (refused("demo", &two, "4"), vec!["--testers", "10.."]),
    ] {
        assert!(says.iter().all(|w| e.contains(w)), "{says:?}: {e}");
    }
    assert!(!out.exists(), "nothing was written");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A rehearsal played as two shards into two folders is tallied as one:
/// the shards' lines, counted over both runs; a folder missing, given
/// twice, of another rehearsal, or holding a run that never ended is
/// refused by name. A shard that would play no run is refused. Each run
/// leaves only its file: its servers' folders (in `--out`, or served from
/// `--scratch`) are removed once it is written.
#[test]
fn a_rehearsals_shards_are_tallied_as_one() {
    let dir = scratch("rehearse-shards");
    let served = dir.join("b-scratch");
    let shard = |name: &str, shard: &str, seed: &str| -> (std::path::PathBuf, String) {
        let out = dir.join(name);
        let mut more = vec![
            "--sessions",
            "1",
            "--runs",
            "2",
            "--seed",
            seed,
            "--max-rounds",
            "40",
            "--shard",
            shard,
        ];
        if name == "b" {
            more.extend(["--scratch", served.to_str().unwrap()]);
        }
        let stdout = tiny(&out, &more);
        (out, stdout)
    };
    let (a, a_out) = shard("a", "0/2", "1");
    let (b, b_out) = shard("b", "1/2", "1");
    assert!(a_out.contains("shard=0/2 runs=1 of 2"), "{a_out}");
    assert!(a_out.contains("power=") && a_out.contains("/1 "), "{a_out}");
    assert!(a.join("run-000/run.txt").exists() && !a.join("run-001").exists());
    assert!(b.join("run-001/run.txt").exists() && !b.join("run-000").exists());
    let listing = |d: std::path::PathBuf| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    assert_eq!(listing(a.join("run-000")), ["run.txt"]);
    assert_eq!(listing(b.join("run-001")), ["run.txt"]);
    assert!(
        !served.exists(),
        "the scratch folder made for the runs is removed"
    );
    // A scratch folder someone left something in is refused, and nothing
    // is written.
    std::fs::create_dir_all(&served).unwrap();
    std::fs::write(served.join("theirs.txt"), "kept").unwrap();
    let fresh = dir.join("fresh");
    let e = run_bad(&tiny_args(
        &fresh,
        &["--runs", "1", "--scratch", served.to_str().unwrap()],
    ));
    assert!(
        e.contains("b-scratch") && e.contains("not an empty folder"),
        "{e}"
    );
    assert!(!fresh.exists());
    assert_eq!(listing(served.clone()), ["theirs.txt"]);
    let tallied = run_ok(&["playtest", "tally", a.to_str().unwrap(), b.to_str().unwrap()]);
    // Each run's lines as its shard printed them, in run order.
    let runs: Vec<&str> = tallied.lines().filter(|l| l.starts_with("run=")).collect();
    assert_eq!(runs.len(), 4, "{tallied}");
    for (l, printed) in runs.iter().zip([&a_out, &a_out, &b_out, &b_out]) {
        assert!(printed.lines().any(|p| p == *l), "{l} not in\n{printed}");
    }
    assert!(runs[0].starts_with("run=0 server=ab ") && runs[3].starts_with("run=1 server=same "));
    // The power over both runs: each run counted once, by its verdict.
    let expected = runs
        .iter()
        .filter(|l| l.contains("server=ab ") && field(l, "verdict") == "better")
        .count();
    let power = tallied.lines().find(|l| l.starts_with("power=")).expect(&tallied);
    assert!(power.starts_with(&format!("power={expected}/2 ")), "{power}");
    assert!(
        tallied
            .lines()
            .any(|l| l.starts_with("false_alarms=") && l.contains("/2 ")),
        "{tallied}"
    );
    // A shard missing, or one folder given twice.
    let e = run_bad(&["playtest", "tally", a.to_str().unwrap()]);
    assert!(e.contains("runs 1)") && e.contains("every shard's folder"), "{e}");
    // The finished runs counted when asked, the missing named first.
    let partial = run_ok(&["playtest", "tally", "--partial", a.to_str().unwrap()]);
    assert!(
        partial.starts_with("partial runs=1 of 2 missing=1\n"),
        "{partial}"
    );
    assert!(
        partial
            .lines()
            .any(|l| l.starts_with("power=") && l.contains("/1 ")),
        "{partial}"
    );
    let e = run_bad(&["playtest", "tally", a.to_str().unwrap(), a.to_str().unwrap()]);
    assert!(e.contains("run 0 is in"), "{e}");
    // Another seed is another rehearsal.
    let (c, _) = shard("c", "1/2", "2");
    let e = run_bad(&["playtest", "tally", a.to_str().unwrap(), c.to_str().unwrap()]);
    assert!(e.contains("another rehearsal"), "{e}");
    // A run begun and stopped (no run.txt) is not counted, and named.
    let d = dir.join("d");
    std::fs::create_dir_all(d.join("run-001/ab")).unwrap();
    let e = run_bad(&["playtest", "tally", a.to_str().unwrap(), d.to_str().unwrap()]);
    assert!(
        e.contains("begun but not finished") && e.contains("run-001"),
        "{e}"
    );
    // A shard of no run is refused before anything is written.
    let none = dir.join("none");
    let e = run_bad(&tiny_args(&none, &["--runs", "2", "--shard", "3/4"]));
    assert!(e.contains("--shard") && e.contains("plays none"), "{e}");
    assert!(!none.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Where a run's servers serve from: kept there with `--keep-logs`; and a
/// scratch folder that is `--out` under another spelling is `--out`, so
/// removing the logs never takes the run's file with them.
#[test]
fn a_rehearsal_keeps_its_logs_where_asked_and_never_its_files_with_them() {
    let dir = scratch("rehearse-scratch");
    let quick = ["--sessions", "1", "--runs", "1", "--max-rounds", "40"];
    // Kept in the scratch folder; the run's file in --out alone.
    let (kept, served) = (dir.join("kept"), dir.join("served"));
    let mut args = quick.to_vec();
    args.extend(["--scratch", served.to_str().unwrap(), "--keep-logs"]);
    tiny(&kept, &args);
    assert!(kept.join("run-000/run.txt").exists());
    assert!(!kept.join("run-000/ab").exists());
    for server in ["ab", "same"] {
        let logs = std::fs::read_dir(served.join("run-000").join(server))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .ends_with(".jsonl")
            })
            .count();
        assert_eq!(logs, 20, "{server}: each tester's session logged and kept");
    }
    // --out and --scratch one folder, spelled two ways.
    let out = dir.join("alias");
    let alias = dir.join(".").join("alias");
    let mut args = quick.to_vec();
    args.extend(["--scratch", alias.to_str().unwrap()]);
    let stdout = tiny(&out, &args);
    assert!(out.join("run-000/run.txt").exists(), "{stdout}");
    let tallied = run_ok(&["playtest", "tally", out.to_str().unwrap()]);
    assert!(
        tallied
            .lines()
            .any(|l| l.starts_with("power=") && l.contains("/1 ")),
        "{tallied}"
    );
    assert!(!out.join("run-000/ab").exists() && !out.join("run-000/same").exists());
    // Refused before anything is left behind: a scratch folder that cannot
    // be made (--out taken back), a file for a folder.
    let never = dir.join("never");
    let e = run_bad(&tiny_args(&never, &["--runs", "1", "--scratch", "/proc/no/such"]));
    assert!(e.contains("--scratch") && e.contains("cannot write there"), "{e}");
    assert!(!never.exists());
    let file = dir.join("a-file");
    std::fs::write(&file, "mine").unwrap();
    let e = run_bad(&tiny_args(
        &never,
        &["--runs", "1", "--scratch", file.to_str().unwrap()],
    ));
    assert!(
        e.contains("--scratch") && e.contains("is a file, not a folder"),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
    assert!(!never.exists());
    let _ = std::fs::remove_dir_all(&dir);
}
