//! Simulations past one process, through the real binary: shards merged
//! equal one process, bad merges are refused with exit 2, and a run killed
//! with SIGKILL resumes from its checkpoint to the same result.

mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::cli::{run_bad, run_ok, scratch, tenten, without_rate};

const RUN: [&str; 10] = [
    "simulate",
    "--player",
    "greedy,casual",
    "--generator",
    "random,repair,presets/generators/classic-with-mercy.ron",
    "--games",
    "40",
    "--seed",
    "11",
    "--size",
];

fn run_args(extra: &[&str]) -> Vec<String> {
    RUN.iter()
        .chain(["8x8"].iter())
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
}

fn ok(args: &[String]) -> String {
    run_ok(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

#[test]
fn four_shards_merged_print_what_one_process_prints() {
    let dir = scratch("shards");
    let csv_one = dir.join("one.csv");
    let one = ok(&run_args(&["--csv", csv_one.to_str().unwrap()]));
    assert_eq!(one.lines().count(), 6, "{one}");
    let mut parts = Vec::new();
    for i in 0..4 {
        let part = dir.join(format!("part-{i}.ron"));
        let printed = ok(&run_args(&[
            "--shard",
            &format!("{i}/4"),
            "--out",
            part.to_str().unwrap(),
        ]));
        assert!(printed.is_empty(), "a shard prints no partial figures: {printed}");
        parts.push(part.to_str().unwrap().to_owned());
    }
    let csv_merged = dir.join("merged.csv");
    let merged_file = dir.join("merged.ron");
    let mut merge = vec!["merge".to_owned()];
    merge.extend(parts.iter().cloned());
    merge.extend(["--csv".to_owned(), csv_merged.to_str().unwrap().to_owned()]);
    merge.extend(["--out".to_owned(), merged_file.to_str().unwrap().to_owned()]);
    let merged = ok(&merge);
    assert_eq!(without_rate(&merged), without_rate(&one));
    assert_eq!(
        std::fs::read(&csv_merged).unwrap(),
        std::fs::read(&csv_one).unwrap()
    );
    // The merged file merges again, alone, to the same lines.
    let again = ok(&["merge".to_owned(), merged_file.to_str().unwrap().to_owned()]);
    assert_eq!(without_rate(&again), without_rate(&one));
}

#[test]
fn bad_merges_are_refused_with_their_reason() {
    let dir = scratch("bad-merges");
    let part = |i: usize, n: usize, games: &str| {
        let path = dir.join(format!("p{i}of{n}-{games}.ron"));
        let mut args = run_args(&["--shard", &format!("{i}/{n}"), "--out", path.to_str().unwrap()]);
        let at = args.iter().position(|a| a == "--games").unwrap();
        args[at + 1] = games.to_owned();
        ok(&args);
        path.to_str().unwrap().to_owned()
    };
    let (a, b, c) = (part(0, 3, "40"), part(1, 3, "40"), part(2, 3, "40"));
    let e = run_bad(&["merge", &a, &b]);
    assert!(e.contains("shard 2/3 is missing"), "{e}");
    let e = run_bad(&["merge", &a, &b, &c, &b]);
    assert!(e.contains("shard 1/3 appears twice"), "{e}");
    let other = part(2, 3, "41");
    let e = run_bad(&["merge", &a, &b, &other]);
    assert!(
        e.contains("are shards of different runs") && e.contains("games: 40 in "),
        "{e}"
    );
    let old = dir.join("old.ron");
    std::fs::write(
        &old,
        std::fs::read_to_string(&c)
            .unwrap()
            .replacen("engine: \"", "engine: \"0.0.1-", 1),
    )
    .unwrap();
    let e = run_bad(&["merge", &a, &b, old.to_str().unwrap()]);
    assert!(e.contains("played by engine behaviour 0.0.1-"), "{e}");
    let e = run_bad(&["merge", "no/such/part.ron"]);
    assert!(e.contains("no/such/part.ron: cannot read"), "{e}");
    let e = run_bad(&["simulate", "--shard", "1/4"]);
    assert!(e.contains("--shard 1/4 needs --out"), "{e}");
    let e = run_bad(&["simulate", "--shard", "4/4", "--out", "x.ron"]);
    assert!(e.contains("0 <= I < N"), "{e}");
    assert!(run_ok(&["merge", &c, &a, &b]).lines().count() == 6);
}

/// A machine-like run killed with SIGKILL midway, then run again: it says
/// it resumes, and ends with what an uninterrupted run prints.
#[test]
fn a_run_killed_with_sigkill_resumes_to_the_same_result() {
    let dir = scratch("killed");
    let checkpoint = dir.join("run.ckpt.ron");
    // Holder players, slow enough to kill midway: about a second a game.
    let args: Vec<String> = [
        "simulate",
        "--player",
        "skilled",
        "--generator",
        "random,repair",
        "--games",
        "24",
        "--seed",
        "5",
        "--max-rounds",
        "120",
        "--checkpoint",
        checkpoint.to_str().unwrap(),
        "--checkpoint-games",
        "1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tenten"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until some games are in the checkpoint, then SIGKILL.
    let start = Instant::now();
    let games_in = |text: &str| text.matches("(g: ").count();
    loop {
        let text = std::fs::read_to_string(&checkpoint).unwrap_or_default();
        if games_in(&text) >= 2 || start.elapsed() > Duration::from_secs(120) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL on Unix: no handler runs
    child.wait().unwrap();
    let kept = games_in(&std::fs::read_to_string(&checkpoint).unwrap());
    assert!((2..48).contains(&kept), "killed midway: {kept} of 48 games kept");

    let resumed = tenten().args(&args).output().unwrap();
    assert!(resumed.status.success());
    let said = String::from_utf8_lossy(&resumed.stderr);
    assert!(
        said.contains("resuming from") && said.contains(&format!("{kept} of 48 games already played")),
        "{said}"
    );
    let uninterrupted: Vec<&str> = args.iter().map(String::as_str).take(args.len() - 4).collect();
    let whole = run_ok(&uninterrupted);
    assert_eq!(
        without_rate(&String::from_utf8_lossy(&resumed.stdout)),
        without_rate(&whole)
    );
    // A checkpoint of another run is refused, never mixed in.
    let mut other = args.clone();
    other[8] = "6".to_owned();
    let e = run_bad(&other.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        e.contains("this checkpoint is of another run") && e.contains("seed"),
        "{e}"
    );
}

/// A generator file whose piece set is edited between two shards: the
/// shards store the weights they played, by value, so the merge refuses
/// them and names the piece and both weights; a checkpoint refuses to
/// resume across the same edit. (Before, the merge printed a median no
/// single process gives.)
#[test]
fn an_edited_piece_set_between_shards_is_refused_naming_the_weight() {
    let dir = scratch("edited-set");
    std::fs::create_dir_all(dir.join("gens")).unwrap();
    std::fs::create_dir_all(dir.join("pieces")).unwrap();
    let classic = std::fs::read_to_string("presets/pieces/classic-1010.ron").unwrap();
    let pieces = dir.join("pieces/x.ron");
    std::fs::write(&pieces, &classic).unwrap();
    let generator = dir.join("gens/g.ron");
    std::fs::write(
        &generator,
        "(name: \"g\", pieces: \"../pieces/x.ron\", check: none)\n",
    )
    .unwrap();
    let g = generator.to_str().unwrap().to_owned();
    // The same run each time: greedy against g.ron, 6 games from seed 3.
    let run = |extra: &[&str]| -> Vec<String> {
        let base = [
            "simulate",
            "--player",
            "greedy",
            "--generator",
            &g,
            "--games",
            "6",
            "--seed",
            "3",
        ];
        base.iter().chain(extra).map(|s| s.to_string()).collect()
    };
    let shard = |i: usize, out: &std::path::Path| {
        ok(&run(&[
            "--shard",
            &format!("{i}/2"),
            "--out",
            out.to_str().unwrap(),
        ]))
    };
    let (p0, p1) = (dir.join("p0.ron"), dir.join("p1.ron"));
    shard(0, &p0);
    // sq3's weight goes from 2 to 40 between the shards.
    let edited = classic.replacen(
        "id: \"sq3\", label: \"b(2,0)\", weight: 2",
        "id: \"sq3\", label: \"b(2,0)\", weight: 40",
        1,
    );
    assert_ne!(edited, classic, "the classic set's sq3 line moved");
    std::fs::write(&pieces, &edited).unwrap();
    shard(1, &p1);
    let e = run_bad(&["merge", p0.to_str().unwrap(), p1.to_str().unwrap()]);
    assert!(e.contains("are shards of different runs"), "{e}");
    assert!(e.contains("sq3 2 in ") && e.contains(", 40 in "), "{e}");
    // The checkpoint of a run with the old weights does not resume with the new.
    std::fs::write(&pieces, &classic).unwrap();
    let checkpoint = dir.join("run.ckpt.ron");
    let checkpoint_args = ["--checkpoint", checkpoint.to_str().unwrap()];
    ok(&run(&checkpoint_args));
    std::fs::write(&pieces, &edited).unwrap();
    let args = run(&checkpoint_args);
    let e = run_bad(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        e.contains("this checkpoint is of another run")
            && e.contains("sq3 2 in the checkpoint, 40 in this run"),
        "{e}"
    );
}

/// A shard's --csv holds its own games' rows (it used to be ignored).
#[test]
fn a_shard_writes_its_rows_to_csv() {
    let dir = scratch("shard-csv");
    let (out, csv) = (dir.join("p.ron"), dir.join("p.csv"));
    ok(&run_args(&[
        "--shard",
        "1/4",
        "--out",
        out.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]));
    let text = std::fs::read_to_string(&csv).unwrap();
    // 10 games of shard 1/4 (of 40) for each of 2 players and 3 generators.
    assert_eq!(text.lines().count(), 1 + 10 * 6, "{text}");
    assert!(
        text.lines().skip(1).all(|l| {
            let seed: u64 = l.split(',').nth(2).unwrap().parse().unwrap();
            (seed - 11) % 4 == 1
        }),
        "{text}"
    );
}
