//! Bad input through the ABI, tested from C (tests/c/bad_input.c): a null
//! pointer, a board of the wrong size, an unknown piece id, malformed RON
//! and more each return an error code with a message, and the host process
//! goes on.

mod common;

use common::{compile_c, library_dir, run};

#[test]
fn bad_input_from_c_returns_codes_and_messages_and_never_aborts() {
    let lib_dir = library_dir();
    let exe = compile_c("bad_input");
    // `run` fails the test on a nonzero exit (a failed check) or a crash.
    let out = run(
        &exe.display().to_string(),
        &[],
        &[("LD_LIBRARY_PATH", lib_dir.display().to_string())],
    );
    assert!(!out.contains("FAIL"), "{out}");
    let last = out.lines().last().unwrap_or_default();
    let counts: Vec<usize> = last.split(' ').filter_map(|w| w.parse().ok()).collect();
    assert_eq!(counts.len(), 2, "{out}");
    assert_eq!(counts[0], counts[1], "{out}");
    assert_eq!(
        counts[1],
        out.lines().filter(|l| l.starts_with("ok ")).count(),
        "{out}"
    );
    assert!(counts[1] >= 30, "every check ran: {out}");
}

/// The case: weights of four billion with a bag check, through the
/// ABI, under `ulimit -v` (400 MB): a status with a message, not an abort.
/// Before, the bag built a vector of eight billion entries and the host
/// died of SIGABRT.
#[test]
fn huge_numbers_through_the_abi_return_a_status_under_a_memory_limit() {
    let lib_dir = library_dir();
    let exe = compile_c("huge_weights");
    let out = run(
        "sh",
        &["-c".into(), format!("ulimit -v 400000 && exec {}", exe.display())],
        &[("LD_LIBRARY_PATH", lib_dir.display().to_string())],
    );
    let status = |case: &str| -> (i32, String) {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{case} ")))
            .unwrap_or_else(|| panic!("no {case} line: {out}"));
        let mut words = line.splitn(3, ' ').skip(1);
        (
            words.next().unwrap().parse().unwrap(),
            words.next().unwrap_or_default().to_owned(),
        )
    };
    // 4: TENTEN_STATUS_PARSE (the header's numbering).
    let (code, message) = status("bag");
    assert_eq!(code, 4, "{out}");
    assert!(message.contains("weights are 0 to 1000"), "{out}");
    let (code, message) = status("big-scale");
    assert_eq!(code, 4, "{out}");
    assert!(message.contains("a scale is 0 to 100"), "{out}");
    let (code, message) = status("redraws");
    assert_eq!(code, 4, "{out}");
    assert!(message.contains("redraws"), "{out}");
    assert_eq!(status("fine").0, 0, "the largest weight deals: {out}");
}
