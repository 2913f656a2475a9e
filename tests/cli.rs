//! The real binary on the shipped presets, and on bad input.

use std::path::PathBuf;

use assert_cmd::Command;
use proptest::prelude::*;

mod common;
use common::cli::{run_bad, run_ok, tenten};

/// A path in the test's folder where no file is (an output the CLI may
/// create: it refuses to replace one without --force).
fn fresh_path(name: &str) -> PathBuf {
    let path = temp_file(name, b"");
    std::fs::remove_file(&path).unwrap();
    path
}

fn temp_file(name: &str, contents: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tenten-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

#[test]
fn validate_prints_one_line_per_deal() {
    let out = run_ok(&["validate", "presets/deals/teaching-batch.ron"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "0 unsolvable nodes=9602",
            "1 unsolvable nodes=150",
            "2 unsolvable nodes=2906",
            "3 solvable nodes=55",
            "4 solvable nodes=3",
        ]
    );
}

#[test]
fn validate_time_appends_microseconds() {
    let out = run_ok(&["validate", "--time", "presets/deals/empty.ron"]);
    let line = out.trim();
    let us = line
        .strip_prefix("0 solvable nodes=3 us=")
        .unwrap_or_else(|| panic!("{line}"));
    let us: f64 = us.parse().unwrap();
    assert!(us > 0.0);
}

#[test]
fn validate_explain_shows_the_solution_or_f() {
    let out = run_ok(&[
        "validate",
        "--explain",
        "presets/deals/solvable-order-matters.ron",
    ]);
    assert!(
        out.contains("b3 = h5 b(6,0) at column 0, row 3, clears row 3"),
        "{out}"
    );
    let out = run_ok(&[
        "validate",
        "--explain",
        "--policy",
        "frequency",
        "presets/deals/unsolvable-no-room-for-sq3.ron",
    ]);
    assert!(out.contains("policy frequency"), "{out}");
    assert!(out.contains("b2 = sq3 b(2,0)"), "{out}");
    assert!(
        out.lines().any(|l| l.contains("sq3") && l.contains("<- argmax")),
        "{out}"
    );
}

#[test]
fn every_shipped_deal_validates() {
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/presets/deals")).unwrap() {
        let path = entry.unwrap().path();
        let out = run_ok(&["validate", path.to_str().unwrap()]);
        assert!(out.lines().count() >= 1);
        assert!(out.lines().all(|l| l.contains("solvable nodes=")), "{out}");
    }
}

#[test]
fn repair_changes_only_unsolvable_holders() {
    let out = run_ok(&["repair", "--seed", "7", "presets/deals/teaching-batch.ron"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5);
    for (i, line) in lines[..3].iter().enumerate() {
        assert!(line.starts_with(&format!("{i} repaired attempts=")), "{line}");
        assert!(line.contains(" final="));
    }
    assert_eq!(lines[3], "3 unchanged final=sq3,dot,h5");
    assert_eq!(lines[4], "4 unchanged final=sq2,l3_br,h4");
    // The same seed repairs the same way.
    assert_eq!(
        out,
        run_ok(&["repair", "--seed", "7", "presets/deals/teaching-batch.ron"])
    );
}

#[test]
fn repaired_holders_are_solvable() {
    let out = run_ok(&[
        "repair",
        "--seed",
        "3",
        "presets/deals/unsolvable-no-room-for-sq3.ron",
    ]);
    let holder = out.trim().rsplit("final=").next().unwrap().to_owned();
    let board = std::fs::read_to_string("presets/deals/unsolvable-no-room-for-sq3.ron").unwrap();
    let ids: Vec<String> = holder.split(',').map(|s| format!("\"{s}\"")).collect();
    let fixed = board.replace("[\"dot\", \"sq3\", \"h2\"]", &format!("[{}]", ids.join(", ")));
    let path = temp_file("fixed.ron", fixed.as_bytes());
    assert_eq!(
        run_ok(&["validate", path.to_str().unwrap()]).split(' ').nth(1),
        Some("solvable")
    );
}

#[test]
fn repair_explain_lists_every_attempt() {
    let out = run_ok(&[
        "repair",
        "--explain",
        "--seed",
        "1",
        "--max-attempts",
        "0",
        "presets/deals/unsolvable-no-long-lines.ron",
    ]);
    assert!(out.contains("attempt 0 (dealt): v2,h5,v2 unsolvable"), "{out}");
    assert!(out.contains("attempt 1 (fallback)"), "{out}");
}

#[test]
fn a_dead_board_is_reported_dead() {
    let mut rows = Vec::new();
    for y in 0..10 {
        let row: String = (0..10)
            .map(|x| if (x + y) % 2 == 0 { '#' } else { '.' })
            .collect();
        rows.push(format!("\"{row}\""));
    }
    let pieces = temp_file(
        "lines.ron",
        b"(name: \"lines\", pieces: [(id: \"h2\", weight: 1, rows: [\"##\"]), (id: \"v2\", weight: 1, rows: [\"#\", \"#\"])])",
    );
    let deal = format!("(board: [{}], holder: [\"h2\", \"v2\", \"h2\"])", rows.join(", "));
    let deal = temp_file("checker.ron", deal.as_bytes());
    let out = run_ok(&[
        "repair",
        "--pieces",
        pieces.to_str().unwrap(),
        deal.to_str().unwrap(),
    ]);
    assert_eq!(out, "0 dead\n");
}

#[test]
fn deal_is_reproducible_and_sized() {
    let a = run_ok(&["deal", "--seed", "42"]);
    assert_eq!(a, "holder=sq3,h2,l3_tl\n");
    assert_eq!(a, run_ok(&["deal", "--seed", "42"]));
    let four = run_ok(&[
        "deal",
        "--seed",
        "5",
        "--holder-size",
        "4",
        "--pieces",
        "presets/pieces/uniform.ron",
    ]);
    assert_eq!(four.trim().trim_start_matches("holder=").split(',').count(), 4);
    let repaired = run_ok(&[
        "deal",
        "--seed",
        "42",
        "--board",
        "presets/deals/unsolvable-no-room-for-sq3.ron",
        "--repair",
    ]);
    let lines: Vec<&str> = repaired.lines().collect();
    assert_eq!(lines[0], "holder=sq3,h2,l3_tl");
    assert!(lines[1].starts_with("repaired attempts="), "{repaired}");
}

#[test]
fn bad_input_exits_2_with_a_message_naming_the_place() {
    let syntax = temp_file("syntax.ron", b"(\n  board: [\"....\"\n  holder: [],\n)");
    let e = run_bad(&["validate", syntax.to_str().unwrap()]);
    assert!(e.contains("syntax.ron:3:"), "{e}");

    let ragged = temp_file(
        "ragged.ron",
        b"(board: [\"....\", \".....\", \"....\", \"....\"], holder: [\"dot\"])",
    );
    let e = run_bad(&["validate", ragged.to_str().unwrap()]);
    assert!(
        e.contains("ragged.ron:1:") && e.contains("row 2 has 5 cells"),
        "{e}"
    );

    let big = format!(
        "(board: [{}], holder: [\"dot\"])",
        ["\"............\""; 12].join(",")
    );
    let big = temp_file("big.ron", big.as_bytes());
    assert!(run_bad(&["validate", big.to_str().unwrap()]).contains("144 cells"));

    let unknown = temp_file(
        "unknown.ron",
        b"(board: [\"....\", \"....\", \"....\", \"....\"],\n holder: [\"dot\", \"blob\"])",
    );
    let e = run_bad(&["validate", unknown.to_str().unwrap()]);
    assert!(
        e.contains("unknown.ron:2:18") && e.contains("unknown piece id \"blob\""),
        "{e}"
    );

    let empty = temp_file(
        "empty.ron",
        b"(board: [\"....\", \"....\", \"....\", \"....\"], holder: [])",
    );
    assert!(run_bad(&["validate", empty.to_str().unwrap()]).contains("holder is empty"));

    let five = temp_file("five.ron", b"(board: [\"....\", \"....\", \"....\", \"....\"], holder: [\"dot\", \"dot\", \"dot\", \"dot\", \"dot\"])");
    assert!(run_bad(&["repair", five.to_str().unwrap()]).contains("1 to 4"));

    let wide = temp_file(
        "wide.ron",
        b"(board: [\"....\", \"....\", \"....\", \"....\"], holder: [\"h5\"])",
    );
    assert!(run_bad(&["validate", wide.to_str().unwrap()]).contains("larger than the 4x4 board"));

    let missing = run_bad(&["validate", "no/such/file.ron"]);
    assert!(missing.contains("no/such/file.ron: cannot read"), "{missing}");

    let binary = temp_file("binary.ron", &[0xff, 0xfe, 0x00, 0x28]);
    assert!(run_bad(&["validate", binary.to_str().unwrap()]).contains("not UTF-8"));

    let bad_set = temp_file(
        "set.ron",
        b"(name: \"s\", pieces: [(id: \"x\", weight: -1, rows: [\"#\"])])",
    );
    let e = run_bad(&[
        "repair",
        "--pieces",
        bad_set.to_str().unwrap(),
        "presets/deals/empty.ron",
    ]);
    assert!(e.contains("set.ron:1:"), "{e}");

    assert!(
        run_bad(&["validate", "--policy", "deep", "presets/deals/empty.ron"])
            .contains("deepest, last or frequency")
    );
    assert!(run_bad(&["deal", "--seed", "1", "--holder-size", "5"]).contains("holder-size"));
    assert!(run_bad(&["deal"]).contains("--seed"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Whatever the bytes, the answer is a verdict or exit code 2, never a panic.
    #[test]
    fn no_bytes_make_it_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200), cut in 0usize..400) {
        let good = std::fs::read("presets/deals/mid-game.ron").unwrap();
        let mut mixed = good[..cut.min(good.len())].to_vec();
        mixed.extend_from_slice(&bytes);
        for contents in [bytes.clone(), mixed] {
            let path = temp_file("fuzz.ron", &contents);
            let out = tenten().args(["validate", path.to_str().unwrap()]).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            prop_assert!(matches!(out.status.code(), Some(0 | 2)), "{}", stderr);
            prop_assert!(!stderr.contains("panicked"), "{}", stderr);
        }
    }
}

#[test]
fn danger_prints_one_line_per_board_of_a_batch() {
    let out = run_ok(&["danger", "presets/deals/teaching-batch.ron"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    for (i, line) in lines.iter().enumerate() {
        let rest = line
            .strip_prefix(&format!("{i} danger="))
            .unwrap_or_else(|| panic!("{line}"));
        let (p, killers) = rest.split_once(" killers=").unwrap();
        let p: f64 = p.parse().unwrap();
        assert!((0.0..=1.0).contains(&p), "{line}");
        assert_eq!(rest.split_once(' ').unwrap().0.len(), 11, "nine decimals: {line}");
        let killers: usize = killers.parse().unwrap();
        assert_eq!(p == 0.0, killers == 0, "{line}");
    }
    // An empty board is never in danger.
    assert_eq!(
        run_ok(&["danger", "presets/deals/empty.ron"]),
        "0 danger=0.000000000 killers=0\n"
    );
    // The board with no room for sq3 is dangerous for every deal holding it.
    let out = run_ok(&[
        "danger",
        "--holder-size",
        "1",
        "presets/deals/unsolvable-no-room-for-sq3.ron",
    ]);
    assert!(out.starts_with("0 danger=0.047619048 killers=1"), "{out}");
}

#[test]
fn danger_explain_lists_killers_regions_and_cells() {
    let out = run_ok(&[
        "danger",
        "--explain",
        "presets/deals/unsolvable-no-room-for-sq3.ron",
    ]);
    for part in [
        "killer deals, most probable first:",
        "sq3,sq3,sq3",
        "dead regions: none",
        "cells with the largest influence",
    ] {
        assert!(out.contains(part), "missing {part}:\n{out}");
    }
    let cells = out
        .lines()
        .skip_while(|l| !l.contains("largest influence"))
        .skip(1)
        .count();
    assert_eq!(cells, 10, "{out}");
}

#[test]
fn danger_refuses_bad_arguments() {
    let err = run_bad(&["danger", "--holder-size", "5", "presets/deals/empty.ron"]);
    assert!(err.contains("5"), "{err}");
    let err = run_bad(&["danger", "no/such/file.ron"]);
    assert!(err.contains("no/such/file.ron"), "{err}");
    let bad = temp_file("bad-danger.ron", b"(board: [\"##\"], holder: [])");
    let err = run_bad(&["danger", bad.to_str().unwrap()]);
    assert!(err.contains("bad-danger.ron"), "{err}");
}

#[test]
fn bench_throttle_prints_one_line_per_factor_and_the_headroom() {
    let csv = std::env::temp_dir().join(format!("tenten-sweep-{}.csv", std::process::id()));
    let out = run_ok(&[
        "bench",
        "--throttle",
        "6,1",
        "--deals",
        "40",
        "--seed",
        "3",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    let keys = [
        "throttle",
        "deals",
        "validate_mean_us",
        "validate_p50_us",
        "validate_p95_us",
        "validate_p99_us",
        "validate_max_us",
        "change_n",
        "change_mean_us",
        "change_p95_us",
        "change_p99_us",
        "change_max_us",
    ];
    for (line, factor) in lines[..2].iter().zip(["1", "6"]) {
        let fields: Vec<(&str, &str)> = line.split(' ').map(|f| f.split_once('=').unwrap()).collect();
        assert_eq!(fields.iter().map(|f| f.0).collect::<Vec<_>>(), keys, "{line}");
        assert_eq!(fields[0].1, factor);
        assert_eq!(fields[1].1, "40");
        for (_, value) in &fields[2..] {
            let _: f64 = value.parse().unwrap();
        }
    }
    let head: Vec<&str> = lines[2].split(' ').collect();
    assert_eq!(head.len(), 2, "{}", lines[2]);
    assert!(head[0].starts_with("headroom_16ms=") && head[1].starts_with("headroom_100ms="));
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(
        rows[0],
        "deal,empty_cells,bucket,throttle,validate_us,validate_change_us,attempts,nodes"
    );
    assert_eq!(rows.len(), 1 + 80);
    assert!(rows[1..].iter().all(|r| r.split(',').count() == 8));
    std::fs::remove_file(csv).ok();
    // Without --throttle today's report stays.
    let plain = run_ok(&["bench", "--deals", "30"]);
    assert!(plain.contains("by empty cells (Table II)"), "{plain}");
}

#[test]
fn bench_throttle_refuses_bad_factors() {
    let err = run_bad(&["bench", "--throttle", "0.5", "--deals", "5"]);
    assert!(err.contains("1 to 20"), "{err}");
    let err = run_bad(&["bench", "--throttle", "fast"]);
    assert!(err.contains("not a number"), "{err}");
    let err = run_bad(&["bench", "--csv", "x.csv"]);
    assert!(err.contains("--throttle"), "{err}");
    let err = run_bad(&["bench", "--throttle", "1", "--corpus", "dreams"]);
    assert!(err.contains("dreams"), "{err}");
}

#[test]
fn presets_open_from_any_working_folder_and_errors_name_both_files() {
    let preset = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("presets/deals/empty.ron");
    let elsewhere = std::env::temp_dir();
    let out = Command::cargo_bin("tenten")
        .unwrap()
        .current_dir(&elsewhere)
        .args(["validate", preset.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "0 solvable nodes=3\n");
    // A deal whose piece set is missing: the message names both files.
    let deal = temp_file(
        "names-a-missing-set.ron",
        b"(board: [\"....\", \"....\", \"....\", \"....\"], holder: [\"dot\"], pieces: \"gone/set.ron\")",
    );
    let err = run_bad(&["validate", deal.to_str().unwrap()]);
    assert!(err.contains("names-a-missing-set.ron"), "{err}");
    assert!(err.contains("gone/set.ron"), "{err}");
}

#[test]
fn simulate_prints_one_line_per_generator_and_a_csv() {
    let csv = std::env::temp_dir().join(format!("tenten-sim-{}.csv", std::process::id()));
    let out = run_ok(&[
        "simulate",
        "--generator",
        "random,repair",
        "--strategy",
        "greedy",
        "--games",
        "20",
        "--seed",
        "1",
        "--size",
        "8x8",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines[0].starts_with("player=greedy generator=random strategy=greedy games=20 rounds_mean="),
        "{out}"
    );
    assert!(
        lines[1].starts_with("player=greedy generator=repair strategy=greedy games=20 rounds_mean="),
        "{out}"
    );
    for key in [
        "rounds_median=",
        "rounds_median_ci=",
        "rounds_rmean=",
        "rounds_rmean_ci=",
        "unfair_share=",
        "unfair_share_ci=",
        "stuck_share=",
        "rounds_q1=",
        "rounds_q3=",
        "censored=",
        "score_mean=",
        "stuck=",
        "dead=",
        "unsolvable_dealt=",
        "repairs=",
        "chi2=",
        "kl=",
        "rounds_per_s=",
    ] {
        assert!(lines.iter().all(|l| l.contains(key)), "{key} missing: {out}");
    }
    assert!(
        lines[1].contains(" unfair=0 "),
        "repair never loses unfairly: {out}"
    );
    // Reproducible, except the speed.
    let again = run_ok(&[
        "simulate",
        "--generator",
        "random,repair",
        "--games",
        "20",
        "--seed",
        "1",
        "--size",
        "8x8",
    ]);
    let strip = |s: &str| {
        s.lines()
            .map(|l| l.split(" rounds_per_s=").next().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&out), strip(&again));
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(rows.lines().count(), 41);
    assert!(rows.starts_with("generator,strategy,seed,rounds,score,end,unsolvable_dealt,repairs\n"));
    std::fs::remove_file(csv).ok();
}

/// The skill ladder from the command line: one line per (player,
/// generator), every figure defined (no NaN) even with all games censored.
#[test]
fn simulate_prints_a_line_per_player_and_generator() {
    let out = run_ok(&[
        "simulate",
        "--player",
        "novice,casual",
        "--generator",
        "random,repair",
        "--games",
        "12",
        "--seed",
        "3",
    ]);
    let pairs: Vec<(&str, &str)> = out
        .lines()
        .map(|l| {
            let mut w = l.split(' ');
            (w.next().unwrap(), w.next().unwrap())
        })
        .collect();
    assert_eq!(
        pairs,
        [
            ("player=novice", "generator=random"),
            ("player=novice", "generator=repair"),
            ("player=casual", "generator=random"),
            ("player=casual", "generator=repair"),
        ],
        "{out}"
    );
    let capped = run_ok(&[
        "simulate",
        "--player",
        "greedy",
        "--generator",
        "repair",
        "--games",
        "3",
        "--max-rounds",
        "1",
    ]);
    assert!(capped.contains(" censored=3 "), "{capped}");
    assert!(
        capped.contains(" rounds_median=none rounds_median_ci=none,none rounds_rmean=1.0 "),
        "{capped}"
    );
    assert!(
        capped.contains(" unfair_share=none unfair_share_ci=none "),
        "{capped}"
    );
    assert!(!capped.contains("NaN") && !capped.contains("inf"), "{capped}");
}

#[test]
fn simulate_refuses_bad_arguments() {
    assert!(run_bad(&["simulate", "--generator", "random,lucky"]).contains("unknown generator \"lucky\""));
    assert!(run_bad(&["simulate", "--strategy", "clever"]).contains("unknown player"));
    assert!(run_bad(&["simulate", "--strategy", "coelho", "--weights", "1002x"]).contains("five digits"));
    assert!(run_bad(&["simulate", "--weights", "1002"]).contains("five digits"));
    assert!(run_bad(&["simulate", "--games", "0"]).contains("--games"));
    assert!(run_bad(&["simulate", "--size", "20x20"]).contains("4 to 16"));
    assert!(run_bad(&["simulate", "--size", "ten"]).contains("WxH"));
}

/// A player file is read once, when the run starts: deleted while the run
/// plays, every generator still gets all its games (it used to print
/// games=0 for the generators after and exit 0, with --out written short).
#[test]
fn a_player_file_deleted_during_simulate_changes_nothing() {
    use std::io::BufRead as _;
    let player = temp_file("gone.ron", &std::fs::read("presets/players/casual.ron").unwrap());
    let out = fresh_path("gone-out.ron");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tenten"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "simulate",
            "--player",
            player.to_str().unwrap(),
            "--generator",
            "random,repair,reject,bag",
            "--games",
            "600",
            "--max-rounds",
            "400",
            "--out",
            out.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    // The run has started playing: delete the file under it.
    while stderr.read_line(&mut line).unwrap() > 0 && !line.contains("playing") {
        line.clear();
    }
    std::fs::remove_file(&player).unwrap();
    let status = child.wait().unwrap();
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut stdout).unwrap();
    assert!(status.success(), "{stdout}");
    assert_eq!(stdout.lines().count(), 4, "{stdout}");
    assert!(stdout.lines().all(|l| l.contains(" games=600 ")), "{stdout}");
    let result = tenten_engine::study::results::ResultFile::load(&out).unwrap();
    assert_eq!(result.done(), (2400, 2400));
}

/// The preset generators the window and the ABI know are names here too.
#[test]
fn simulate_takes_a_preset_generator_by_name() {
    let out = run_ok(&[
        "simulate",
        "--generator",
        "block-blast-like,random",
        "--games",
        "5",
    ]);
    assert!(
        out.contains("generator=block-blast-like strategy=greedy games=5 "),
        "{out}"
    );
    let e = run_bad(&["simulate", "--generator", "blockblast"]);
    assert!(e.contains("block-blast-like"), "{e}");
}

/// A player file plays as a strategy; a bad one is refused with its place.
#[test]
fn simulate_plays_a_player_file_and_refuses_a_bad_one() {
    let out = run_ok(&[
        "simulate",
        "--generator",
        "random",
        "--strategy",
        "presets/players/casual.ron",
        "--games",
        "5",
    ]);
    assert!(
        out.contains("strategy=presets/players/casual.ron games=5"),
        "{out}"
    );
    let preset = run_ok(&[
        "simulate",
        "--generator",
        "random",
        "--strategy",
        "novice",
        "--games",
        "5",
    ]);
    assert!(preset.contains("strategy=novice"), "{preset}");
    let hot = temp_file(
        "hot.ron",
        b"(\n    name: \"hot\",\n    evaluation: \"10025\",\n    lookahead: piece,\n    temperature: -1.0,\n    slip: 0.1,\n)\n",
    );
    let err = run_bad(&["simulate", "--strategy", hot.to_str().unwrap()]);
    assert!(
        err.contains("hot.ron:5:5: temperature -1 must be 0 to 1000"),
        "{err}"
    );
    let slippy = temp_file(
        "slippy.ron",
        b"(name: \"s\", evaluation: \"10025\", lookahead: piece, temperature: 0.5, slip: 2.0)",
    );
    assert!(
        run_bad(&["simulate", "--strategy", slippy.to_str().unwrap()])
            .contains("slip 2 must be between 0 and 1")
    );
}

#[test]
fn simulate_plays_the_analysis_strategy_with_its_weights() {
    let args = |w: &str| {
        [
            "simulate",
            "--generator",
            "random,repair",
            "--strategy",
            "coelho",
            "--weights",
            w,
            "--games",
            "3",
            "--seed",
            "5",
            "--size",
            "8x8",
            "--max-rounds",
            "40",
        ]
        .map(str::to_owned)
    };
    let out = run_ok(&args("10025").each_ref().map(String::as_str));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines[0].starts_with("player=coelho generator=random strategy=coelho games=3 "),
        "{out}"
    );
    // The exhaustive strategy never fails a solvable holder: with repair,
    // games end only dead or at the cap.
    assert!(lines[1].contains(" unfair=0 stuck=0 "), "{out}");
    // Weights matter: free cells alone (10000) play differently from 10025.
    let other = run_ok(&args("00001").each_ref().map(String::as_str));
    let score = |s: &str| {
        s.split(" score_mean=")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .to_owned()
    };
    assert_ne!(score(&out), score(&other), "{out}\n{other}");
}

/// A playtest log written by a known model player fits back to it: the
/// printed intervals hold the true temperature and slip, and the player
/// file written reads back as a player.
#[test]
fn fit_player_recovers_the_player_that_wrote_the_log() {
    let log = run_ok(&[
        "deal",
        "--seed",
        "4",
        "--log",
        "400",
        "--player",
        "presets/players/casual.ron",
    ]);
    assert!(log.contains("moves: ["), "{}", &log[..400]);
    let path = temp_file("casual-log.ron", log.as_bytes());
    let out_file = path.with_file_name("fitted.ron");
    let out = run_ok(&[
        "fit-player",
        path.to_str().unwrap(),
        "--out",
        out_file.to_str().unwrap(),
    ]);
    let field = |key: &str| -> Vec<f64> {
        let v = out
            .split(' ')
            .find_map(|w| w.strip_prefix(&format!("{key}=")))
            .unwrap();
        v.trim().split(',').map(|x| x.parse().unwrap()).collect()
    };
    let (t, s) = (field("temperature_ci"), field("slip_ci"));
    // casual.ron: temperature 0.5, slip 0.02.
    assert!(t[0] <= 0.5 && 0.5 <= t[1], "{out}");
    assert!(s[0] <= 0.02 && 0.02 <= s[1], "{out}");
    assert!(field("moves")[0] >= 1_000.0, "{out}");
    assert!(out.trim_end().ends_with("intervals=profile_likelihood"), "{out}");
    // The player file plays.
    let sim = run_ok(&[
        "simulate",
        "--player",
        out_file.to_str().unwrap(),
        "--generator",
        "random",
        "--games",
        "3",
    ]);
    assert!(sim.contains("games=3"), "{sim}");
}

/// A log the fit cannot trust is refused with the deal's place, exit 2.
#[test]
fn fit_player_refuses_bad_logs_with_the_deals_place() {
    let log = run_ok(&["deal", "--seed", "2", "--log", "3", "--player", "novice"]);
    // Deal 0's first move, rewritten.
    let open = log.find("moves: [").unwrap();
    let first = open + log[open..].find('(').unwrap();
    let end = first + log[first..].find(')').unwrap() + 1;
    let line = log[..first].lines().count();
    let with = |m: &str| format!("{}{m}{}", &log[..first], &log[end..]);
    let piece = log[first..end].split('"').nth(1).unwrap();
    for (name, bad, says) in [
        ("unknown.ron", with("(\"oct\", 0, 0)"), "unknown piece"),
        (
            "offboard.ron",
            with(&format!("(\"{piece}\", 12, 0)")),
            "does not fit",
        ),
    ] {
        let path = temp_file(name, bad.as_bytes());
        let err = run_bad(&["fit-player", path.to_str().unwrap()]);
        assert!(err.contains(&format!("{name}:{line}:")), "{err}");
        assert!(err.contains("deal 0, move 0") && err.contains(says), "{err}");
    }
    let plain = run_ok(&["deal", "--seed", "2", "--log", "3"]);
    let path = temp_file("no-moves.ron", plain.as_bytes());
    assert!(run_bad(&["fit-player", path.to_str().unwrap()]).contains("hold no moves"));
    assert!(run_bad(&["deal", "--seed", "1", "--log", "3", "--player", "clever"]).contains("unknown player"));
    assert!(run_bad(&["fit-player", path.to_str().unwrap(), "--evaluation", "12"]).contains("five digits"));
    // Another board size: the log's boards are that size, and say so.
    let small = run_ok(&[
        "deal",
        "--seed",
        "2",
        "--log",
        "4",
        "--player",
        "casual",
        "--format",
        "jsonl",
        "--size",
        "8x8",
        "--pieces",
        "presets/pieces/fixed-41.ron",
    ]);
    assert_eq!(small.lines().count(), 4);
    let empty8 = format!(r#""board":[{}]"#, [r#""........""#; 8].join(","));
    assert!(small.lines().next().unwrap().contains(&empty8), "{small}");
    assert!(!small.contains("........."), "no row wider than 8: {small}");
    let ron = run_ok(&["deal", "--seed", "2", "--log", "2", "--size", "6x7"]);
    assert!(
        ron.contains("--size 6x7") && ron.contains("empty 6x7 board"),
        "{ron}"
    );
    assert!(run_bad(&["deal", "--seed", "2", "--size", "8x8"]).contains("--log"));
}

/// A generator file deals as the generator it presets; a bad one is
/// refused with its place, exit 2.
#[test]
fn simulate_takes_generator_files() {
    let out = run_ok(&[
        "simulate",
        "--generator",
        "repair,presets/generators/repair.ron,presets/generators/classic-with-mercy.ron",
        "--player",
        "novice",
        "--games",
        "30",
        "--seed",
        "2",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    let figures = |l: &str| {
        l.split(" strategy=")
            .nth(1)
            .unwrap()
            .split(" rounds_per_s=")
            .next()
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        figures(lines[0]),
        figures(lines[1]),
        "the preset file deals as repair"
    );
    assert!(
        lines[2].starts_with("player=novice generator=presets/generators/classic-with-mercy.ron "),
        "{out}"
    );
    let bad = temp_file(
        "bands.ron",
        b"(\n    name: \"x\",\n    by_fill: [\n        (up_to: 0.8, scale: {}),\n        (up_to: 0.5, scale: {}),\n    ],\n    check: none,\n)\n",
    );
    let err = run_bad(&["simulate", "--generator", bad.to_str().unwrap()]);
    assert!(
        err.contains("bands.ron:5:") && err.contains("bands rise in order"),
        "{err}"
    );
}

/// tune writes a generator file the rest of the workbench reads, and
/// reports each target's start and hold-out values with intervals.
#[test]
fn tune_writes_a_tuned_generator_and_reports_the_hold_out() {
    let out_file = fresh_path("tuned.ron");
    std::fs::remove_file(&out_file).ok();
    let out = run_ok(&[
        "tune",
        "--generator",
        "presets/generators/random.ron",
        "--player",
        "novice",
        "--target",
        "median_rounds=40",
        "--games",
        "30",
        "--holdout",
        "30",
        "--budget",
        "2",
        "--allow-miss",
        "--out",
        out_file.to_str().unwrap(),
    ]);
    assert!(
        out.starts_with("target=median_rounds player=novice goal=40 tolerance=2 verdict="),
        "{out}"
    );
    for key in [
        " holdout=",
        " holdout_ci=",
        " start=",
        "finalist weights=",
        "divergence=",
        "weights_before=dot:20,sq2:60,",
        "weights_after=dot:",
        "evaluations_per_s=",
    ] {
        assert!(out.contains(key), "{key}: {out}");
    }
    let sim = run_ok(&[
        "simulate",
        "--generator",
        out_file.to_str().unwrap(),
        "--player",
        "novice",
        "--games",
        "5",
    ]);
    assert!(sim.contains("games=5"), "{sim}");
    let tuned = std::fs::read_to_string(&out_file).unwrap();
    assert!(
        tuned.starts_with("// Tuned by tenten tune from presets/generators/random.ron"),
        "{tuned}"
    );
    for (args, says) in [
        (vec!["--target", "median=3"], "unknown target"),
        (
            vec!["--target", "median_rounds=40", "--bounds", "9,2"],
            "--bounds",
        ),
        (
            vec!["--target", "median_rounds=40", "--free", "dot,oct"],
            "unknown piece \"oct\"",
        ),
        (
            vec!["--target", "median_rounds=40", "--generator", "lucky"],
            "unknown generator",
        ),
    ] {
        let mut all = vec!["tune", "--out", "/nonexistent/never.ron"];
        if !args.contains(&"--generator") {
            all.extend(["--generator", "random"]);
        }
        all.extend(args);
        assert!(run_bad(&all).contains(says), "{says}");
    }
}

/// A tune of medians alone follows each game only to twice the widest
/// band's top, says so and how long the hold-out may take once the start
/// is measured, and without --holdout plans the hold-out's looks from the
/// tuned candidate's spread, within --holdout-max.
#[test]
fn a_median_tune_stops_games_early_and_plans_its_hold_out() {
    let out_file = fresh_path("planned.ron");
    let out = tenten()
        .args([
            "tune",
            "--generator",
            "random",
            "--player",
            "novice",
            "--target",
            "median_rounds=20@8",
            "--games",
            "40",
            "--holdout-max",
            "400",
            "--max-evaluations",
            "6",
            "--allow-miss",
            "--out",
            out_file.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stderr.contains("games are followed to round 56 (twice the widest median band"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the hold-out plays 200 to 400 games a player (planned a priori"),
        "{stderr}"
    );
    assert!(stdout.contains(" rounds_cap=56 holdout_looks="), "{stdout}");
    assert!(stdout.contains(" holdout_planned=true"), "{stdout}");
    let line = stdout.lines().next().unwrap();
    let games: usize = line
        .split(" holdout_games=")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!((200..=400).contains(&games), "{line}");
    let written = std::fs::read_to_string(&out_file).unwrap();
    assert!(written.contains("followed to round 56"), "{written}");
    assert!(written.contains("(planned)"), "{written}");
}

/// The issue's case, shortened: a share no weights can reach is missed.
/// The tune says so per target, on stderr and in the file it writes, and
/// exits 1 (0 with --allow-miss); a median past the cap is refused.
#[test]
fn a_tune_that_misses_says_so_and_exits_1() {
    let out_file = fresh_path("missed.ron");
    let args = |extra: &[&'static str]| -> Vec<String> {
        let mut a = vec![
            "tune",
            "--generator",
            "random",
            "--player",
            "novice,casual",
            "--target",
            "median_rounds=35",
            "--target",
            "unfair_share=0.0@0.001",
            "--games",
            "30",
            "--holdout",
            "40",
            "--budget",
            "2",
            "--out",
            out_file.to_str().unwrap(),
        ];
        a.extend_from_slice(extra);
        a.into_iter().map(str::to_owned).collect()
    };
    let out = tenten().args(args(&[])).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let verdicts: Vec<&str> = stdout.lines().filter(|l| l.starts_with("target=")).collect();
    assert_eq!(verdicts.len(), 4, "two targets for each of two players: {stdout}");
    assert!(
        verdicts.iter().any(
            |l| l.starts_with("target=unfair_share player=casual goal=0 tolerance=0.001 verdict=missed ")
        ),
        "{stdout}"
    );
    assert!(stderr.contains("MISSED: unfair_share for novice:"), "{stderr}");
    let written = std::fs::read_to_string(&out_file).unwrap();
    assert!(written.contains("unfair_share for novice missed ("), "{written}");
    let allowed = tenten()
        .args(args(&["--allow-miss", "--force"]))
        .output()
        .unwrap();
    assert_eq!(allowed.status.code(), Some(0));
    // Refused before any file is written (a new path, so the refusal is
    // the tune's own, not the existing file's).
    let unwritten = fresh_path("never-written.ron");
    let e = run_bad(&[
        "tune",
        "--generator",
        "random",
        "--target",
        "median_rounds=30",
        "--max-rounds",
        "12",
        "--out",
        unwritten.to_str().unwrap(),
    ]);
    assert!(e.contains("past the round cap of 12"), "{e}");
    let e = run_bad(&[
        "tune",
        "--generator",
        "random",
        "--target",
        "median_rounds=30",
        "--bounds",
        "1,1200",
        "--out",
        unwritten.to_str().unwrap(),
    ]);
    assert!(e.contains("<= 1000"), "{e}");
    let e = run_bad(&[
        "tune",
        "--generator",
        "random",
        "--target",
        "median_rounds=30",
        "--holdout",
        "100",
        "--holdout-max",
        "50",
        "--out",
        unwritten.to_str().unwrap(),
    ]);
    assert!(e.contains("--holdout-max is from --holdout (100)"), "{e}");
    assert!(!unwritten.exists());
}

/// A target whose interval straddles its tolerance is undecided: the
/// hold-out grew to --holdout-max, the line says how many games would
/// decide it, stderr says UNDECIDED and the exit status is 3.
#[test]
fn an_undecided_tune_grows_its_hold_out_and_exits_3() {
    let out_file = fresh_path("undecided.ron");
    let out = tenten()
        .args([
            "tune",
            "--generator",
            "random",
            "--player",
            "novice",
            "--target",
            "median_rounds=22@0.5",
            "--games",
            "20",
            "--holdout",
            "20",
            "--holdout-max",
            "80",
            "--max-evaluations",
            "1",
            "--out",
            out_file.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(3), "{stdout}{stderr}");
    let line = stdout.lines().next().unwrap();
    assert!(line.contains(" verdict=undecided "), "{line}");
    assert!(line.contains(" level=0.9833 "), "{line}");
    assert!(line.contains(" holdout_games=80 "), "{line}");
    assert!(!line.contains(" needed_games=none"), "{line}");
    assert!(
        stderr.contains("UNDECIDED: median_rounds for novice:"),
        "{stderr}"
    );
}

/// tune from a generator naming its piece set, written into another
/// folder: the tuned file names the same set from there.
#[test]
fn a_tuned_generator_names_its_piece_set_from_where_it_is_written() {
    let root = common::cli::scratch("tune-ref");
    for d in ["pieces", "gens", "out/deep"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    std::fs::copy("presets/pieces/classic-1010.ron", root.join("pieces/x.ron")).unwrap();
    let g = root.join("gens/g.ron");
    std::fs::write(&g, "(name: \"g\", pieces: \"../pieces/x.ron\", check: none)").unwrap();
    let out = root.join("out/deep/t.ron");
    run_ok(&[
        "tune",
        "--generator",
        g.to_str().unwrap(),
        "--player",
        "novice",
        "--target",
        "median_rounds=25",
        "--games",
        "20",
        "--holdout",
        "20",
        "--budget",
        "1",
        "--allow-miss",
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("\"../../pieces/x.ron\""), "{text}");
    let spec =
        tenten_engine::play::generator_file::load(&out, &tenten_engine::model::pieces::PieceSet::classic())
            .unwrap();
    assert_eq!(spec.set.name, "classic 1010!");
}

/// A tune killed midway leaves the best generator found so far in --out.
#[test]
fn a_killed_tune_keeps_the_best_so_far() {
    let out_file = std::env::temp_dir().join(format!("tenten-killed-{}.ron", std::process::id()));
    std::fs::remove_file(&out_file).ok();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tenten"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tune",
            "--generator",
            "random",
            "--player",
            "novice",
            "--target",
            "median_rounds=60",
        ])
        .args([
            "--games",
            "40",
            "--budget",
            "600",
            "--out",
            out_file.to_str().unwrap(),
        ])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the first best to be written, then kill the process.
    let start = std::time::Instant::now();
    while !out_file.exists() && start.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let text = std::fs::read_to_string(&out_file).expect("a best-so-far file");
    assert!(text.contains("the best so far"), "{text}");
    let spec = tenten_engine::play::generator_file::parse(
        &text,
        "killed.ron",
        &tenten_engine::model::pieces::PieceSet::classic(),
    );
    assert!(spec.is_ok(), "{spec:?}");
    std::fs::remove_file(out_file).ok();
}

/// A JSON Lines log fits exactly as the RON log of the same deals: the
/// shipped casual log (tenten deal --seed 1 --log 200 --player casual)
/// against the same command with --format jsonl.
#[test]
fn a_jsonl_log_fits_as_its_ron_log() {
    let jsonl = common::cli::run_ok(&[
        "deal", "--seed", "1", "--log", "200", "--player", "casual", "--format", "jsonl",
    ]);
    assert_eq!(jsonl.lines().count(), 200);
    let dir = common::cli::scratch("jsonl-fit");
    let file = dir.join("casual.jsonl");
    std::fs::write(&file, &jsonl).unwrap();
    let from_jsonl = common::cli::run_ok(&["fit-player", file.to_str().unwrap()]);
    let from_ron = common::cli::run_ok(&["fit-player", "presets/logs/casual-playtest.ron"]);
    assert_eq!(from_jsonl, from_ron);
    assert!(from_ron.starts_with("temperature=0.469 "), "{from_ron}");
    // A bad record names its line and column.
    let bad = jsonl.replacen("\"round\":1,", "\"round\":\"one\",", 1);
    std::fs::write(&file, bad).unwrap();
    let e = common::cli::run_bad(&["fit-player", file.to_str().unwrap()]);
    assert!(e.contains("casual.jsonl:2:"), "{e}");
}

/// The CLI never replaces a file without being told: an existing --out
/// (or --csv) is refused before anything runs, and left as it was;
/// --force replaces it.
#[test]
fn an_existing_output_is_refused_unless_forced() {
    let out = fresh_path("kept.ron");
    let csv = fresh_path("kept.csv");
    let args = |extra: &[&str]| {
        let mut a = vec![
            "simulate",
            "--player",
            "greedy",
            "--generator",
            "random",
            "--games",
            "3",
            "--out",
            out.to_str().unwrap(),
        ];
        a.extend_from_slice(extra);
        a.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    run_ok(&strs(&args(&[])));
    let before = std::fs::read(&out).unwrap();
    let e = run_bad(&strs(&args(&["--seed", "9"])));
    assert!(e.contains("kept.ron: exists; pass --force to replace it"), "{e}");
    assert_eq!(std::fs::read(&out).unwrap(), before, "left as it was");
    std::fs::write(&csv, "mine").unwrap();
    let e = run_bad(&strs(&args(&["--seed", "9", "--csv", csv.to_str().unwrap()])));
    assert!(e.contains("kept.csv: exists"), "{e}");
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), "mine");
    std::fs::remove_file(&csv).unwrap();
    run_ok(&strs(&args(&["--seed", "9", "--force"])));
    assert_ne!(std::fs::read(&out).unwrap(), before, "replaced when forced");
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// `tenten deal --log N` plays its games on an empty 10x10 board: a
/// `--board` (or `--repair`) given with it is refused, naming the flag,
/// not ignored.
#[test]
fn deal_log_refuses_a_board_it_would_ignore() {
    let err = run_bad(&[
        "deal",
        "--seed",
        "1",
        "--log",
        "3",
        "--board",
        "presets/deals/mid-game.ron",
    ]);
    assert!(err.contains("--log") && err.contains("--board"), "{err}");
    let err = run_bad(&["deal", "--seed", "1", "--log", "3", "--repair"]);
    assert!(err.contains("--log") && err.contains("--repair"), "{err}");
    // Without them it still prints its batch.
    assert!(run_ok(&["deal", "--seed", "1", "--log", "3"]).contains("3 deals met in self-play"));
}

/// A reader that stops early (`tenten deal ... | head -1`) closes the pipe:
/// the command ends quietly (exit 0, no panic message), whatever it printed.
#[test]
fn a_closed_stdout_ends_a_printing_command_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    // Larger than a pipe's buffer, so the write meets the closed pipe.
    for args in [
        &["deal", "--seed", "1", "--log", "3000"][..],
        &[
            "deal", "--seed", "1", "--log", "2000", "--player", "casual", "--format", "jsonl",
        ][..],
    ] {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tenten"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        // The reader is dropped here: the pipe is closed with most unread.
        assert!(!first.is_empty(), "{args:?}");
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe"),
            "{args:?}: {err}"
        );
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    }
}

/// `tenten deal --generator G --after GAMES` deals what the engine's dealer
/// deals to a player with those games (the C library's dealer after the
/// same reports is held to the same engine in crates/tenten-ffi's
/// examples test), and the adaptive rules read the games: an unfair loss
/// before changes the deal for some seed.
#[test]
fn deal_from_a_generator_reads_the_players_games() {
    use tenten_engine::model::board::BoardSize;
    use tenten_engine::model::generator::Generator;
    use tenten_engine::model::pieces::PieceSet;
    use tenten_engine::model::shapes::Shapes;
    use tenten_engine::play::adaptive::History;
    use tenten_engine::play::dealers::{Dealer, Table, nth_deal_seed};
    use tenten_engine::play::file_dealer::FileDealer;
    use tenten_engine::play::generator_file;

    let file = "docs/examples/adaptive.ron";
    let set = PieceSet::classic();
    let spec = generator_file::load(std::path::Path::new(file), &set).unwrap();
    let shapes = Shapes::new(&set, BoardSize::CLASSIC);
    let engine = |seed: u64, after: &str| {
        let mut dealer = FileDealer::new(spec.clone()).with_history(History::parse(after).unwrap());
        let table = Table {
            shapes: &shapes,
            set: &set,
            board: 0,
            k: 3,
        };
        let dealt = dealer.deal(&table, &mut Generator::new(nth_deal_seed(seed, 0)));
        set.ids(&dealt.holder)
    };
    let mut changed = 0;
    for seed in 1..=12u64 {
        for after in ["", "32,17", "32,17,22,13u", "40u,3u|9"] {
            let mut args = vec!["deal", "--seed"];
            let s = seed.to_string();
            args.extend([s.as_str(), "--generator", file]);
            if !after.is_empty() {
                args.extend(["--after", after]);
            }
            let out = run_ok(&args);
            let want = format!("holder={} ", engine(seed, after));
            assert!(
                out.starts_with(&want),
                "seed {seed} after {after:?}: {out} against {want}"
            );
        }
        changed += usize::from(engine(seed, "32") != engine(seed, "32u"));
    }
    assert!(changed > 0, "an unfair loss before never changed deal 0");
    let e = run_bad(&["deal", "--seed", "1", "--generator", file, "--after", "12,0"]);
    assert!(e.contains("--after") && e.contains("game 2"), "{e}");
    let e = run_bad(&["deal", "--seed", "1", "--after", "12"]);
    assert!(e.contains("--generator"), "{e}");
    let e = run_bad(&["deal", "--seed", "1", "--generator", "random", "--repair"]);
    assert!(e.contains("--repair"), "{e}");
}
