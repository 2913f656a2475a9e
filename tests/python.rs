//! The Python package's own tests (`crates/tenten-py/tests`, pytest) on
//! the wheel built from this tree, installed into a fresh virtualenv: the
//! API against the CLI line for line, NumPy shapes and dtypes, every error
//! class, `check_env`, masks, determinism, and a random masked agent
//! against `simulate --player random`. A missing Python or registry fails
//! the test with its name: it never passes by skipping.

mod common;

use std::process::Command;

#[test]
fn the_python_packages_tests_pass_on_its_wheel() {
    let python = common::python::python_with_wheel();
    let out = Command::new(python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(common::python::root().join("crates/tenten-py/tests"))
        .env("TENTEN_BIN", env!("CARGO_BIN_EXE_tenten"))
        .output()
        .expect("pytest starts");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "pytest failed:\n{text}");
    // Every test ran: none skipped, none deselected.
    assert!(text.contains(" passed") && !text.contains("skipped"), "{text}");
}

/// The README's first lines, as a user types them after `pip install`.
#[test]
fn the_readmes_first_call_prints_a_verdict() {
    let python = common::python::python_with_wheel();
    let out = Command::new(python)
        .args([
            "-c",
            "import numpy as np, tenten; print(tenten.validate(np.zeros((10, 10), np.uint8), ['sq3', 'h5', 'l3_tl']))",
        ])
        .output()
        .expect("python starts");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "{'solvable': True, 'nodes': 3}",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The README's walk-through runs as written, from the project's folder.
#[test]
fn the_readmes_walk_through_runs() {
    let readme = std::fs::read_to_string(common::python::root().join("README.md")).expect("the README reads");
    let start = readme.find("```python\n").expect("the README has a Python block") + "```python\n".len();
    let code = &readme[start..start + readme[start..].find("```").expect("the block ends")];
    let out = Command::new(common::python::python_with_wheel())
        .args(["-c", code])
        .current_dir(common::python::root())
        .output()
        .expect("python starts");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("testers=60 moves="), "{text}");
    // The forecast as a DataFrame: a header, then a row a generator.
    assert!(lines[1].contains("reach_50_lo"), "{text}");
    assert!(
        lines[2].contains(" random ") && lines[3].contains(" block-blast-like "),
        "{text}"
    );
    let last: Vec<&str> = lines
        .last()
        .expect("it prints the game's end")
        .split(' ')
        .collect();
    assert!(last[0].parse::<u32>().is_ok(), "{text}");
    assert!(["unfair", "stuck", "dead", "capped"].contains(&last[1]), "{text}");
}

/// The guide's Python chapter: every block runs as written, from the
/// project's folder, and its asserts hold.
#[test]
fn the_guides_python_chapter_runs() {
    let root = common::python::root();
    let chapter = std::fs::read_to_string(root.join("docs/python.md")).expect("the chapter reads");
    let blocks: Vec<&str> = chapter
        .split("```python\n")
        .skip(1)
        .map(|b| &b[..b.find("```").expect("the block ends")])
        .collect();
    assert!(
        blocks.len() >= 4,
        "the chapter shows the searches, studies, errors and env"
    );
    for code in blocks {
        let out = Command::new(common::python::python_with_wheel())
            .args(["-c", code])
            .current_dir(&root)
            .output()
            .expect("python starts");
        assert!(
            out.status.success(),
            "{code}\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
