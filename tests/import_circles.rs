//! No import circle between the source files of the engine or of the
//! window and CLI: each file's `crate::`, `super::` and `self::` paths, and
//! the paths into the modules it declares (`mod lab;` then `lab::LabTab`,
//! with no prefix), grouped imports expanded and test code left out, are
//! edges to the files that define them, and the test fails naming every
//! circle (a strongly connected set of more than one file). A circle is two
//! rooms that cannot be understood, moved or tested apart.
//!
//! A file's use of its own parent (`super::Tab` in a tab) is no edge: the
//! parent declares it. Its parent's use of it is one, so a circle that runs
//! through a folder's `mod.rs` and one of its files (`tabs/mod.rs` lists
//! `generator::GeneratorTab`, which reaches back to `tabs/mod.rs` through
//! other files) is found; reading only `crate::` and `super::` paths, that
//! one edge was missed and such a circle passed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, as its module path (`play/game`).
fn files(dir: &Path, base: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, base, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p.strip_prefix(base).unwrap().to_path_buf());
        }
    }
}

/// The module a file is: `a/b.rs` and `a/b/mod.rs` are `a::b`.
fn module_of(file: &Path) -> Vec<String> {
    let mut parts: Vec<String> = file
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts
        .last()
        .is_some_and(|l| l == "mod" || l == "lib" || l == "main")
    {
        parts.pop();
    }
    parts
}

/// The modules `code` declares in files of their own (`mod a;`,
/// `pub(crate) mod b;`; not `mod tests { ... }`).
fn children(code: &str) -> Vec<String> {
    code.lines()
        .filter_map(|l| {
            let l = l.trim();
            let rest = l.strip_suffix(';')?;
            let at = rest.find("mod ")?;
            let before = rest[..at].trim();
            let declares = before.is_empty() || before.starts_with("pub") || before.starts_with("#[");
            let name = rest[at + 4..].trim();
            (declares && !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_'))
                .then(|| name.to_owned())
        })
        .collect()
}

/// The paths written after `crate::`, `super::` or `self::` in `code`, or
/// starting with a module the file declares (`kids`), grouped imports
/// (`a::{b, c::d}`) expanded; made absolute from `here`.
fn paths(code: &str, here: &[String], kids: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut prefixes = vec![
        ("crate::".to_owned(), Vec::new()),
        (
            "super::".to_owned(),
            here[..here.len().saturating_sub(1)].to_vec(),
        ),
        ("self::".to_owned(), here.to_vec()),
    ];
    for kid in kids {
        let mut base = here.to_vec();
        base.push(kid.clone());
        prefixes.push((format!("{kid}::"), base));
    }
    for (prefix, base) in &prefixes {
        let prefix = prefix.as_str();
        let mut at = 0;
        while let Some(i) = code[at..].find(prefix) {
            let start = at + i;
            at = start + prefix.len();
            // Not part of a longer word (`my_crate::`), nor `super::super`
            // or another path's tail (`tenten_engine::fits::`).
            if start > 0 && code[..start].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            expand(&code[at..], base.clone(), &mut out);
        }
    }
    out
}

fn expand(rest: &str, mut path: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut s = rest;
    loop {
        let word: String = s
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if word.is_empty() {
            break;
        }
        path.push(word.clone());
        s = &s[word.len()..];
        if let Some(next) = s.strip_prefix("::") {
            s = next;
            if let Some(group) = s.strip_prefix('{') {
                // Split the group at its top-level commas.
                let (mut depth, mut from) = (0, 0);
                for (i, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            expand(group[from..i].trim_start(), path.clone(), out);
                            return;
                        }
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            expand(group[from..i].trim_start(), path.clone(), out);
                            from = i + 1;
                        }
                        _ => {}
                    }
                }
                return;
            }
        } else {
            break;
        }
    }
    if !path.is_empty() {
        out.push(path);
    }
}

/// The import graph of the crate rooted at `src`: file -> files it uses.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut all = Vec::new();
    files(src, src, &mut all);
    let by_module: BTreeMap<Vec<String>, String> = all
        .iter()
        .filter(|f| {
            !f.to_string_lossy().ends_with("_tests.rs") && !f.to_string_lossy().ends_with("_props.rs")
        })
        .map(|f| (module_of(f), f.display().to_string()))
        .collect();
    let mut g = BTreeMap::new();
    for (module, file) in &by_module {
        let text = std::fs::read_to_string(src.join(file)).unwrap();
        // Test code is left out: a test may use what uses its file.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let code: String = code
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let mut to = BTreeSet::new();
        for p in paths(&code, module, &children(&code)) {
            // The longest prefix that is a file.
            if let Some(target) = (1..=p.len()).rev().find_map(|n| by_module.get(&p[..n]))
                && target != file
                && !module.starts_with(&module_of(Path::new(target)))
            {
                to.insert(target.clone());
            }
        }
        g.insert(file.clone(), to);
    }
    g
}

/// The strongly connected sets of more than one file (Tarjan).
fn circles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let i = t.index.len();
        t.index.insert(v, i);
        t.low.insert(v, i);
        t.stack.push(v);
        t.on.insert(v);
        for w in t.g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut set = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                set.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if set.len() > 1 {
                set.sort();
                t.out.push(set);
            }
        }
    }
    let mut t = T {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_reader_finds_grouped_and_relative_imports() {
    let here = vec!["play".to_owned(), "game".to_owned()];
    let found = paths(
        "use crate::play::{dealers::{Dealer, Table}, who};\nuse super::coelho::X;\nlet x = crate::io::formats::f();",
        &here,
        &[],
    );
    let shown: Vec<String> = found.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        shown,
        [
            "play::dealers::Dealer",
            "play::dealers::Table",
            "play::who",
            "io::formats::f",
            "play::coelho::X"
        ]
    );
    let mut g = BTreeMap::new();
    g.insert("a".to_owned(), BTreeSet::from(["b".to_owned()]));
    g.insert("b".to_owned(), BTreeSet::from(["a".to_owned()]));
    g.insert("c".to_owned(), BTreeSet::from(["a".to_owned()]));
    assert_eq!(circles(&g), [vec!["a".to_owned(), "b".to_owned()]]);
}

/// A folder's `mod.rs` using a file it declares, with no prefix
/// (`generator::GeneratorTab`), is an edge: without it the window's circle
/// through `tabs/mod.rs` (8 files) passed this test.
#[test]
fn the_reader_finds_a_parent_using_the_modules_it_declares() {
    let here = vec!["app".to_owned(), "tabs".to_owned()];
    let code = "mod deal;\npub mod generator;\npub(crate) mod lab;\nmod tests {\n}\n\
                fn all() { vec![Box::new(generator::GeneratorTab), Box::new(lab::LabTab::default())] }\n\
                use self::deal::DealTab;\nlet y = tenten_engine::lab::x();";
    let kids = children(code);
    assert_eq!(kids, ["deal", "generator", "lab"]);
    let shown: Vec<String> = paths(code, &here, &kids).iter().map(|p| p.join("::")).collect();
    assert_eq!(
        shown,
        [
            "app::tabs::deal::DealTab",
            "app::tabs::generator::GeneratorTab",
            "app::tabs::lab::LabTab::default"
        ]
    );
    // The shape of the circle it missed: mod.rs -> a tab -> the frame ->
    // the inspector -> mod.rs (the tab's own `super::Tab` is no edge).
    let dir = std::env::temp_dir().join(format!("tenten-circles-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("tabs")).unwrap();
    std::fs::create_dir_all(dir.join("shell")).unwrap();
    let write = |f: &str, t: &str| std::fs::write(dir.join(f), t).unwrap();
    write("lib.rs", "mod shell;\nmod tabs;\n");
    write(
        "tabs/mod.rs",
        "mod generator;\npub trait Tab {}\npub fn all() { generator::GeneratorTab; }\n",
    );
    write(
        "tabs/generator.rs",
        "use super::Tab;\nuse crate::shell::app::App;\n",
    );
    write("shell/mod.rs", "pub mod app;\npub mod inspector;\n");
    write("shell/app.rs", "use crate::shell::inspector;\n");
    write("shell/inspector.rs", "use crate::tabs::{self, Tab};\n");
    let c = circles(&graph(&dir));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        c,
        [vec![
            "shell/app.rs".to_owned(),
            "shell/inspector.rs".to_owned(),
            "tabs/generator.rs".to_owned(),
            "tabs/mod.rs".to_owned()
        ]]
    );
}

#[test]
fn the_engine_has_no_import_circle() {
    let c = circles(&graph(&root().join("crates/tenten-engine/src")));
    assert!(c.is_empty(), "import circles in the engine: {c:?}");
}

#[test]
fn the_window_and_cli_have_no_import_circle() {
    let c = circles(&graph(&root().join("src")));
    assert!(c.is_empty(), "import circles in src/: {c:?}");
}

#[test]
fn the_c_library_has_no_import_circle() {
    let c = circles(&graph(&root().join("crates/tenten-ffi/src")));
    assert!(c.is_empty(), "import circles in crates/tenten-ffi: {c:?}");
}

#[test]
fn the_python_bindings_have_no_import_circle() {
    let c = circles(&graph(&root().join("crates/tenten-py/src")));
    assert!(c.is_empty(), "import circles in crates/tenten-py: {c:?}");
}
