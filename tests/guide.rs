//! The guide cannot go stale: every `console` block of `docs/*.md` runs
//! under trycmd against the real binary (a renamed option or a changed
//! output line fails here), every subcommand has an example, every example
//! file is read by one, and the man pages and completions are generated
//! from the parser and name every subcommand.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::cli::{run_ok, scratch};

const DOCS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs");

/// Every chapter's `console` blocks, run from the repository's root (or,
/// for a chapter with a `.in` folder, in a copy of it).
#[test]
fn the_guides_examples_run_as_written() {
    trycmd::TestCases::new()
        .default_bin_name("tenten")
        .register_bin("tenten", trycmd::cargo::cargo_bin!("tenten"))
        .case("docs/*.md");
}

/// The `$ tenten ...` lines of every chapter.
fn example_commands() -> Vec<(String, String)> {
    let mut commands = Vec::new();
    for entry in std::fs::read_dir(DOCS).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            let text = std::fs::read_to_string(&path).unwrap();
            let mut in_console = false;
            for line in text.lines() {
                if line.starts_with("```") {
                    in_console = line.trim() == "```console";
                } else if in_console && let Some(cmd) = line.strip_prefix("$ tenten ") {
                    let chapter = path.file_name().unwrap().to_string_lossy().into_owned();
                    commands.push((chapter, cmd.to_owned()));
                }
            }
        }
    }
    commands
}

#[test]
fn every_subcommand_has_a_tested_example() {
    let shown: BTreeSet<String> = example_commands()
        .iter()
        .filter_map(|(_, cmd)| cmd.split_whitespace().next().map(str::to_owned))
        .collect();
    let missing: Vec<String> = tenten::cli::subcommand_names()
        .into_iter()
        .filter(|name| !shown.contains(name))
        .collect();
    assert!(
        missing.is_empty(),
        "subcommands without a console example in docs/: {missing:?}"
    );
}

#[test]
fn every_example_file_is_read_by_an_example() {
    let commands = example_commands();
    let dir = Path::new(DOCS).join("examples");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let path = format!("docs/examples/{name}");
        assert!(
            commands.iter().any(|(_, cmd)| cmd.contains(&path)),
            "{path} is shown in the guide but no console example reads it"
        );
    }
}

#[test]
fn every_chapter_of_the_summary_exists_and_every_chapter_is_listed() {
    let summary = std::fs::read_to_string(Path::new(DOCS).join("SUMMARY.md")).unwrap();
    let listed: BTreeSet<String> = summary
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .map(str::to_owned)
        .collect();
    for file in &listed {
        assert!(
            Path::new(DOCS).join(file).is_file(),
            "SUMMARY.md lists {file}, which does not exist"
        );
    }
    for entry in std::fs::read_dir(DOCS).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") && name != "SUMMARY.md" {
            assert!(listed.contains(&name), "{name} is not in SUMMARY.md");
        }
    }
}

/// Relative links between chapters, and to files of the repository, lead
/// somewhere (anchors aside).
#[test]
fn the_guides_links_lead_somewhere() {
    let mut broken = Vec::new();
    for entry in std::fs::read_dir(DOCS)
        .unwrap()
        .chain(std::fs::read_dir(env!("CARGO_MANIFEST_DIR")).unwrap())
    {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for rest in text.split("](").skip(1) {
            let target = rest.split(')').next().unwrap_or("");
            let file = target.split('#').next().unwrap_or("");
            if file.is_empty() || file.contains("://") || file.contains(' ') {
                continue;
            }
            if !path.parent().unwrap().join(file).exists() {
                broken.push(format!("{}: {target}", path.display()));
            }
        }
    }
    assert!(broken.is_empty(), "links to nothing: {broken:#?}");
}

#[test]
fn the_man_pages_name_every_subcommand() {
    let pages = tenten::cli::man_pages();
    let main = &pages[0];
    assert_eq!(main.0, "tenten.1");
    assert!(
        main.1.starts_with(".ie"),
        "not roff: {}",
        &main.1[..40.min(main.1.len())]
    );
    for name in tenten::cli::subcommand_names().iter().filter(|n| *n != "help") {
        // roff writes a hyphen as \-.
        let in_roff = name.replace('-', "\\-");
        assert!(main.1.contains(&in_roff), "tenten.1 does not name {name}");
        let page = pages
            .iter()
            .find(|(file, _)| *file == format!("tenten-{name}.1"))
            .unwrap_or_else(|| panic!("no page tenten-{name}.1"));
        assert!(page.1.contains(".SH NAME"), "tenten-{name}.1 has no NAME section");
    }
    // The binary writes the same pages, and says which it replaced.
    let dir = scratch("man");
    let listing = run_ok(&["man", "--dir", dir.to_str().unwrap()]);
    assert_eq!(listing.lines().count(), pages.len(), "{listing}");
    for (file, text) in &pages {
        assert_eq!(&std::fs::read_to_string(dir.join(file)).unwrap(), text, "{file}");
    }
    let again = run_ok(&["man", "--dir", dir.to_str().unwrap()]);
    assert!(again.lines().all(|l| l.starts_with("replaced ")), "{again}");
}

#[test]
fn completions_cover_every_subcommand_in_three_shells() {
    for shell in ["bash", "zsh", "fish"] {
        let script = run_ok(&["completions", shell]);
        for name in tenten::cli::subcommand_names() {
            assert!(script.contains(&name), "the {shell} completions miss {name}");
        }
        // An option of a subcommand, to show the scripts go below the top level.
        assert!(
            script.contains("checkpoint-seconds"),
            "the {shell} completions miss simulate's options"
        );
    }
    let bad = common::cli::run_bad(&["completions", "tcsh"]);
    assert!(bad.contains("tcsh"), "{bad}");
}
