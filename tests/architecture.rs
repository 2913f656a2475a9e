//! The engine is pure: Cargo's own dependency tree of `tenten-engine` holds
//! no GUI or command-line crate. (The crate boundary enforces it; this test
//! makes a slip visible with the crate's name instead of a build of the world.)

use std::process::Command;

#[test]
fn the_engine_crate_depends_on_no_gui_or_cli_crate() {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "-p",
            "tenten-engine",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8_lossy(&out.stdout);
    let crates: Vec<&str> = tree.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert!(crates.contains(&"tenten-engine"), "{tree}");
    assert!(crates.contains(&"rayon"), "{tree}");
    for gui in ["egui", "eframe", "egui_plot", "rfd", "clap", "winit", "wgpu"] {
        assert!(!crates.contains(&gui), "the engine depends on {gui}:\n{tree}");
    }
}

/// The headless build for cluster nodes (`--no-default-features`) holds no
/// window, GPU or display crate.
#[test]
fn the_headless_build_depends_on_no_window_gpu_or_display_crate() {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "-p",
            "tenten",
            "--no-default-features",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let tree = String::from_utf8_lossy(&out.stdout);
    let crates: Vec<&str> = tree.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert!(
        crates.contains(&"tenten-engine") && crates.contains(&"clap"),
        "{tree}"
    );
    for gui in [
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
    ] {
        assert!(
            !crates.contains(&gui),
            "the headless build depends on {gui}:\n{tree}"
        );
    }
}
