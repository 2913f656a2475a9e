//! The engine is pure: Cargo's own dependency tree of `tenten-engine` holds
//! no GUI or command-line crate; and the headless build of `tenten` holds
//! no window, GPU or display crate. (The crate boundary and the feature
//! enforce them; these tests make a slip visible with the crate's name
//! instead of a build of the world.)

use std::process::Command;

/// The crates in `cargo tree -e normal` with `args` (a package, features).
fn crates_in_tree(args: &[&str]) -> Vec<String> {
    let out = Command::new(env!("CARGO"))
        .arg("tree")
        .args(args)
        .args(["-e", "normal", "--prefix", "none", "--offline"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect()
}

fn assert_none_of(crates: &[String], forbidden: &[&str], what: &str) {
    for c in forbidden {
        assert!(
            !crates.iter().any(|x| x == c),
            "{what} depends on {c}:\n{crates:?}"
        );
    }
}

#[test]
fn the_engine_crate_depends_on_no_gui_or_cli_crate() {
    let crates = crates_in_tree(&["-p", "tenten-engine"]);
    assert!(
        crates.iter().any(|c| c == "tenten-engine") && crates.iter().any(|c| c == "rayon"),
        "{crates:?}"
    );
    assert_none_of(
        &crates,
        &[
            "egui",
            "eframe",
            "egui_plot",
            "rfd",
            "clap",
            "winit",
            "wgpu",
            "tokio",
            "hyper",
            "axum",
        ],
        "the engine",
    );
}

/// The headless build for cluster nodes (`--no-default-features`).
#[test]
fn the_headless_build_depends_on_no_window_gpu_or_display_crate() {
    let crates = crates_in_tree(&["-p", "tenten", "--no-default-features"]);
    assert!(
        crates.iter().any(|c| c == "tenten-engine") && crates.iter().any(|c| c == "clap"),
        "{crates:?}"
    );
    assert_none_of(
        &crates,
        &[
            "egui",
            "eframe",
            "egui_plot",
            "rfd",
            "winit",
            "wgpu",
            "x11rb",
            "wayland-client",
            "glow",
            "ash",
        ],
        "the headless build",
    );
}

/// The C library is the engine and nothing else.
#[test]
fn the_c_library_depends_on_the_engine_alone() {
    let crates = crates_in_tree(&["-p", "tenten-ffi"]);
    assert!(crates.iter().any(|c| c == "tenten-engine"), "{crates:?}");
    assert_none_of(
        &crates,
        &["egui", "eframe", "clap", "tenten", "wgpu"],
        "the C library",
    );
}

/// The Python package is the engine and its bindings, nothing else.
#[test]
fn the_python_package_depends_on_the_engine_alone() {
    let crates = crates_in_tree(&["-p", "tenten-py"]);
    assert!(
        crates.iter().any(|c| c == "tenten-engine") && crates.iter().any(|c| c == "pyo3"),
        "{crates:?}"
    );
    assert_none_of(
        &crates,
        &[
            "egui",
            "eframe",
            "egui_plot",
            "rfd",
            "clap",
            "tenten",
            "tenten-ffi",
            "wgpu",
        ],
        "the Python package",
    );
}
