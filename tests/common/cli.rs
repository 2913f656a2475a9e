//! The real `tenten` binary, run from the repository's root.

use assert_cmd::Command;

pub fn tenten() -> Command {
    let mut cmd = Command::cargo_bin("tenten").unwrap();
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}

/// Runs and expects success; returns stdout.
pub fn run_ok(args: &[&str]) -> String {
    let out = tenten().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs and expects exit code 2 with nothing on stdout; returns stderr.
pub fn run_bad(args: &[&str]) -> String {
    let out = tenten().args(args).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(
        out.stdout.is_empty(),
        "{args:?} printed {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

/// `simulate`'s lines without their rounds_per_s, the one figure a merge
/// cannot reproduce (it is the wall clock's).
pub fn without_rate(lines: &str) -> String {
    lines
        .lines()
        .map(|l| l.split(" rounds_per_s=").next().unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A fresh scratch folder for one test.
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tenten-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
