//! A clone stands alone: nothing in the README, the guide, the presets or
//! the sources (a printed line included) points outside the repository, the license the manifests name is there,
//! what the guides make is ignored, and the side-by-side speed measure runs
//! from the clone given the C program's path.

mod common;

use std::path::Path;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Every file under `dir` (recursively).
fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        // Build output and virtualenvs are not the project's.
        if p.file_name()
            .is_some_and(|n| n == "target" || n == ".venv" || n == "__pycache__")
        {
            continue;
        }
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn nothing_points_outside_the_clone() {
    let root = Path::new(ROOT);
    let mut all = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    files(&root.join("docs"), &mut all);
    files(&root.join("presets"), &mut all);
    for dir in ["scripts", "src", "crates", "examples", "deploy", "include", ".ci"] {
        files(&root.join(dir), &mut all);
    }
    let mut found = Vec::new();
    for f in all {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            if line.contains("shared/") {
                found.push(format!("{}:{}: {line}", f.display(), i + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "lines that point outside the clone:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_readme_is_a_landing_page_that_says_how_to_get_the_command() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 200,
        "the README has {lines} lines; the guide holds the rest"
    );
    assert!(
        readme.contains("cargo install --path ."),
        "the README says how to get `tenten` on PATH"
    );
    // Every picture of the tour is still shown.
    for picture in [
        "screenshot.png",
        "tree-debugger.png",
        "lab-results-expert.png",
        "population-fit.png",
    ] {
        assert!(readme.contains(picture), "{picture}");
    }
}

#[test]
fn the_license_the_manifests_name_is_in_the_clone() {
    let license = std::fs::read_to_string(Path::new(ROOT).join("LICENSE")).expect("a LICENSE file");
    assert!(
        license.starts_with("MIT License"),
        "{}",
        &license[..40.min(license.len())]
    );
    for manifest in [
        "Cargo.toml",
        "crates/tenten-engine/Cargo.toml",
        "crates/tenten-ffi/Cargo.toml",
        "crates/tenten-py/Cargo.toml",
    ] {
        let text = std::fs::read_to_string(Path::new(ROOT).join(manifest)).unwrap();
        assert!(text.contains("license = \"MIT\""), "{manifest}");
    }
}

#[test]
fn what_the_python_guide_makes_is_ignored() {
    let ignore = std::fs::read_to_string(Path::new(ROOT).join(".gitignore")).unwrap();
    for made in [".venv/", "dist/", "/target"] {
        assert!(
            ignore.lines().any(|l| l.trim() == made),
            "{made} is not in .gitignore"
        );
    }
}

#[test]
fn the_speed_measure_asks_for_the_c_program_and_runs_from_the_clone() {
    let script = Path::new(ROOT).join("scripts/coelho-speed.sh");
    // Without the C file: a clear refusal naming where to get it.
    let out = Command::new(&script).env_remove("COELHO_C").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("github.com/zx80/1010") && said.contains("1010.c"),
        "{said}"
    );
    // With a stand-in for 1010.c that prints a "best" line per round, the
    // script builds it, runs both and prints the ratio.
    let dir = std::env::temp_dir().join(format!("tenten-coelho-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let c = dir.join("1010.c");
    std::fs::write(
        &c,
        "#include <stdio.h>\n#include <unistd.h>\nint main(void) { for (;;) { printf(\"best 1\\n\"); fflush(stdout); usleep(10000); } }\n",
    )
    .unwrap();
    let out = Command::new(&script)
        .arg(&c)
        .arg("1")
        .env("TENTEN_BIN", env!("CARGO_BIN_EXE_tenten"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.starts_with("machine (coelho 10025), one core: ") && said.contains("ratio "),
        "{said}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
