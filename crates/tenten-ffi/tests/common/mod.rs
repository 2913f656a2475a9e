//! What the library's integration tests share: where the workspace and the
//! built library are, and running a program from the workspace's root.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

/// The workspace's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The folder holding the libtenten_ffi.so cargo built with this test:
/// `cargo test` leaves it in target/<profile>/deps beside the test binary
/// (`cargo build` also copies it up to target/<profile>).
pub fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let deps = exe.parent().expect("the test binary's folder").to_path_buf();
    let candidates = [deps.clone(), deps.parent().map(PathBuf::from).unwrap_or_default()];
    candidates
        .into_iter()
        .find(|d| d.join("libtenten_ffi.so").exists())
        .unwrap_or_else(|| panic!("no libtenten_ffi.so in {} or its parent", deps.display()))
}

/// Runs `program` from the root with `env` added; its standard output.
/// A missing program or a failure panics with what to install or what it said.
pub fn run(program: &str, args: &[String], env: &[(&str, String)]) -> String {
    let out = Command::new(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {program} ({e}); the examples need Debian's build-essential, \
                 mono-mcs, mono-runtime and python3, which .ci/run installs"
            )
        });
    assert!(
        out.status.success(),
        "{program} {args:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The first line (1-based) where two outputs differ, with both lines.
pub fn first_difference(got: &str, want: &str) -> Option<(usize, String, String)> {
    let (g, w): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
    (0..g.len().max(w.len()))
        .find(|&i| g.get(i) != w.get(i))
        .map(|i| {
            (
                i + 1,
                g.get(i).unwrap_or(&"<no line>").to_string(),
                w.get(i).unwrap_or(&"<no line>").to_string(),
            )
        })
}

/// Compiles `tests/c/NAME.c` against the header and the library cargo
/// built; the executable's path.
pub fn compile_c(name: &str) -> PathBuf {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&tmp).expect("a scratch folder");
    let exe = tmp.join(name);
    let source = root().join(format!("crates/tenten-ffi/tests/c/{name}.c"));
    let args: Vec<String> = vec![
        "-Wall".into(),
        "-Werror".into(),
        "-Iinclude".into(),
        source.display().to_string(),
        format!("-L{}", library_dir().display()),
        "-ltenten_ffi".into(),
        "-o".into(),
        exe.display().to_string(),
    ];
    run("cc", &args, &[]);
    exe
}
