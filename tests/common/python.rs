//! The Python package built and installed as a user would: a virtualenv
//! (`python3 -m venv`) with maturin, NumPy, Gymnasium, pytest and pandas
//! (the package does not need pandas; the tests and the README's
//! walk-through show that its results become DataFrames) from the
//! registry, the wheel built by maturin and `pip install`ed into it. Made
//! once per target folder; the wheel is rebuilt every run.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What the tests need in the virtualenv, as the README installs it.
const NEEDS: [&str; 5] = ["maturin", "numpy", "gymnasium", "pytest", "pandas"];

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(what: &str, cmd: &mut Command) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The virtualenv's Python with the wheel of this tree installed (made
/// once per test binary, whichever test asks first).
pub fn python_with_wheel() -> &'static Path {
    static PYTHON: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PYTHON.get_or_init(install)
}

fn install() -> PathBuf {
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python");
    let venv = base.join("venv");
    let python = venv.join("bin/python");
    let ready = venv.join(".tenten-needs");
    if std::fs::read_to_string(&ready).ok().as_deref() != Some(&NEEDS.join(" ")) {
        run(
            "python3 -m venv (Debian: apt-get install python3-venv)",
            Command::new("python3").args(["-m", "venv", "--clear"]).arg(&venv),
        );
        run(
            "pip install maturin numpy gymnasium pytest pandas",
            Command::new(&python)
                .args(["-m", "pip", "install", "-q"])
                .args(NEEDS),
        );
        std::fs::write(&ready, NEEDS.join(" ")).expect("the marker is written");
    }
    let wheels = base.join("wheels");
    let _ = std::fs::remove_dir_all(&wheels);
    run(
        "maturin build",
        Command::new(venv.join("bin/maturin"))
            .args(["build", "--quiet", "-m"])
            .arg(root().join("crates/tenten-py/Cargo.toml"))
            .arg("-o")
            .arg(&wheels),
    );
    let wheel = std::fs::read_dir(&wheels)
        .expect("maturin wrote its folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .expect("maturin built a wheel");
    run(
        "pip install the wheel",
        Command::new(&python)
            .args(["-m", "pip", "install", "-q", "--force-reinstall", "--no-deps"])
            .arg(&wheel),
    );
    python
}
