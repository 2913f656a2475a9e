//! The recipes for running past one machine: GNU parallel runs shards and
//! merges them to what one process prints (this one runs here, on every CI
//! run); the Kubernetes Jobs and the Slurm scripts run the command lines the
//! CLI accepts, one shard per index, and merge exactly those shards.

mod common;

use std::path::Path;
use std::process::Command;

use common::cli::{run_ok, scratch, without_rate};
use yaml_rust2::{Yaml, YamlLoader};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn gnu_parallel_runs_four_shards_and_merges_them_to_one_process() {
    let dir = scratch("parallel");
    let args = [
        "--player",
        "greedy,novice",
        "--generator",
        "random,repair,bag",
        "--games",
        "60",
        "--seed",
        "4",
        "--size",
        "8x8",
    ];
    let out = Command::new(root().join("scripts/cluster/parallel.sh"))
        .arg("4")
        .arg(&dir)
        .arg("--")
        .args(args)
        .env("TENTEN", assert_cmd::cargo::cargo_bin("tenten"))
        .env("JOBS", "2")
        .current_dir(root())
        .output()
        .expect("parallel.sh runs (it needs Debian's `parallel`, which .ci/run installs)");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "parallel.sh failed: {stderr}");
    let merged = String::from_utf8(out.stdout).unwrap();

    let csv = dir.join("one.csv");
    let mut one_args = vec!["simulate"];
    one_args.extend(args);
    one_args.extend(["--csv", csv.to_str().unwrap()]);
    let one = run_ok(&one_args);
    assert_eq!(one.lines().count(), 6);
    assert_eq!(without_rate(&merged), without_rate(&one));
    assert_eq!(
        std::fs::read(dir.join("games.csv")).unwrap(),
        std::fs::read(&csv).unwrap()
    );
    for i in 0..4 {
        assert!(dir.join(format!("part-{i}.ron")).exists() && stderr.contains(&format!("shard {i}/4")));
    }
    assert!(dir.join("merged.ron").exists());
}

fn yaml(file: &str) -> Vec<Yaml> {
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn strings(y: &Yaml) -> Vec<String> {
    y.as_vec()
        .unwrap_or_else(|| panic!("a list: {y:?}"))
        .iter()
        .map(|a| {
            a.as_str()
                .map(str::to_owned)
                .or_else(|| a.as_i64().map(|i| i.to_string()))
                .unwrap()
        })
        .collect()
}

#[test]
fn the_kubernetes_jobs_run_one_valid_shard_per_index_and_merge_them_all() {
    let docs = yaml("deploy/k8s/simulate-job.yaml");
    let job = docs
        .iter()
        .find(|d| d["kind"].as_str() == Some("Job"))
        .expect("an Indexed Job");
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"].as_str(), Some("Indexed"));
    let n = spec["completions"].as_i64().unwrap() as usize;
    let container = &spec["template"]["spec"]["containers"][0];
    assert_eq!(strings(&container["command"]), ["tenten"]);
    let env = container["env"].as_vec().unwrap();
    let shard_env = env.iter().find(|e| e["name"].as_str() == Some("SHARD")).unwrap();
    assert_eq!(
        shard_env["valueFrom"]["fieldRef"]["fieldPath"].as_str(),
        Some("metadata.annotations['batch.kubernetes.io/job-completion-index']")
    );
    let args = strings(&container["args"]);
    let mut outs = Vec::new();
    for k in 0..n {
        // Kubernetes expands $(SHARD) from the container's env.
        let line: Vec<String> = args
            .iter()
            .map(|a| a.replace("$(SHARD)", &k.to_string()))
            .collect();
        tenten::cli::parses(&line).unwrap_or_else(|e| panic!("pod {k} runs a bad command line: {e}"));
        let at = |flag: &str| line[line.iter().position(|a| a == flag).unwrap() + 1].clone();
        assert_eq!(at("--shard"), format!("{k}/{n}"));
        outs.push(at("--out"));
        assert_ne!(at("--checkpoint"), at("--out"));
    }
    let mounted = container["volumeMounts"][0]["mountPath"].as_str().unwrap();
    assert!(
        outs.iter().all(|o| o.starts_with(mounted)),
        "{outs:?} outside {mounted}"
    );

    let merge = &yaml("deploy/k8s/merge-job.yaml")[0]["spec"]["template"]["spec"]["containers"][0];
    let merge_args = strings(&merge["args"]);
    tenten::cli::parses(&merge_args).unwrap_or_else(|e| panic!("the merge runs a bad command line: {e}"));
    let parts: Vec<String> = merge_args
        .iter()
        .filter(|a| a.contains("/part-"))
        .cloned()
        .collect();
    assert_eq!(parts, outs, "the merge reads exactly the shards' files");
}

#[test]
fn the_slurm_scripts_and_the_containerfile_run_the_commands_the_cli_takes() {
    for script in [
        "simulate.sbatch",
        "merge.sbatch",
        "rehearse.sbatch",
        "tally.sbatch",
        "parallel.sh",
        "slurm-smoke.sh",
    ] {
        let path = root().join("scripts/cluster").join(script);
        let ok = Command::new("bash")
            .arg("-n")
            .arg(&path)
            .status()
            .unwrap()
            .success();
        assert!(ok, "{script} is not valid bash");
    }
    let sbatch = std::fs::read_to_string(root().join("scripts/cluster/simulate.sbatch")).unwrap();
    for needed in [
        "SLURM_ARRAY_TASK_ID",
        "--shard \"$i/$SHARDS\"",
        "--checkpoint",
        "%4",
    ] {
        assert!(sbatch.contains(needed), "simulate.sbatch lacks {needed}");
    }
    let smoke = std::fs::read_to_string(root().join("scripts/cluster/slurm-smoke.sh")).unwrap();
    assert!(
        smoke.contains("--dependency=afterok:"),
        "the smoke test submits the merge after the array"
    );
    let containerfile = std::fs::read_to_string(root().join("Containerfile")).unwrap();
    assert!(containerfile.contains("cargo build --release --no-default-features"));
    // A shard's command line as simulate.sbatch composes it.
    let line: Vec<String> = [
        "simulate",
        "--player",
        "machine",
        "--games",
        "100",
        "--shard",
        "3/16",
        "--out",
        "/o/part-3.ron",
        "--checkpoint",
        "/o/ckpt-3.ron",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    tenten::cli::parses(&line).unwrap();
    assert!(tenten::cli::parses(&["simulate".to_owned(), "--shard".to_owned(), "16/16".to_owned()]).is_err());
}

/// rehearse.sbatch as Slurm runs a task, with a stand-in for tenten that
/// writes down its arguments and fills the scratch folder: the shard, the
/// scratch folder under REHEARSE_SCRATCH and the out folder are what the
/// CLI takes, the scratch folder is gone after, and an array of another
/// size than SHARDS is refused before anything runs.
#[test]
fn a_rehearsal_shard_runs_the_cli_from_its_own_scratch_and_leaves_none() {
    let dir = scratch("rehearse-sbatch");
    let node = dir.join("node");
    std::fs::create_dir_all(&node).unwrap();
    let stub = dir.join("tenten");
    std::fs::write(
        &stub,
        "#!/bin/bash\nprintf '%s\\n' \"$@\" > \"$STUB_ARGS\"\n\
         while [ $# -gt 0 ]; do [ \"$1\" = --scratch ] && mkdir -p \"$2/run-001/ab\" && touch \"$2/run-001/ab/log\"; shift; done\n",
    )
    .unwrap();
    Command::new("chmod").arg("+x").arg(&stub).status().unwrap();
    let task = |count: &str| {
        Command::new("bash")
            .arg(root().join("scripts/cluster/rehearse.sbatch"))
            .args([
                "--population",
                "demo-churn",
                "--generator",
                "random",
                "--generator",
                "repair",
            ])
            .args(["--testers", "200", "--runs", "20"])
            .env("SHARDS", "20")
            .env("OUTDIR", dir.join("out"))
            .env("TENTEN", &stub)
            .env("STUB_ARGS", dir.join("args"))
            .env("REHEARSE_SCRATCH", &node)
            .env("SLURM_ARRAY_TASK_ID", "3")
            .env("SLURM_ARRAY_JOB_ID", "7")
            .env("SLURM_ARRAY_TASK_COUNT", count)
            .output()
            .unwrap()
    };
    let ran = task("20");
    assert!(ran.status.success(), "{}", String::from_utf8_lossy(&ran.stderr));
    let args: Vec<String> = std::fs::read_to_string(dir.join("args"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let shard_scratch = node.join("tenten-rehearse-7-3");
    let tail: Vec<String> = args[args.len() - 6..].to_vec();
    assert_eq!(
        tail,
        [
            "--shard".to_owned(),
            "3/20".to_owned(),
            "--scratch".to_owned(),
            shard_scratch.display().to_string(),
            "--out".to_owned(),
            dir.join("out/shard-3").display().to_string(),
        ]
    );
    assert_eq!(args[..2], ["playtest", "rehearse"], "{args:?}");
    tenten::cli::parses(&args).unwrap();
    assert!(!shard_scratch.exists(), "the task's scratch folder is removed");
    assert!(node.exists(), "and nothing above it");
    // An array of 19 tasks for 20 shards never runs the CLI.
    std::fs::remove_file(dir.join("args")).unwrap();
    let wrong = task("19");
    assert!(!wrong.status.success());
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("the array has 19 tasks, SHARDS is 20"));
    assert!(!dir.join("args").exists());
    let tally = std::fs::read_to_string(root().join("scripts/cluster/tally.sbatch")).unwrap();
    assert!(tally.contains("playtest tally \"${shards[@]}\"") && tally.contains("\"$OUTDIR/shard-$i\""));
    let _ = std::fs::remove_dir_all(&dir);
}
