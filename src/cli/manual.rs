//! The manual that ships with the binary: man pages (clap_mangen) and shell
//! completions (clap_complete), both generated from the one clap definition,
//! so they cannot drift from the options the parser accepts.

use std::path::Path;

use clap::Command;
use clap_complete::Shell;
use tenten_engine::io::formats::{self, FormatError};

/// The completion script for `shell`, as `tenten completions SHELL` prints it.
pub fn completions(mut cli: Command, shell: Shell) -> String {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cli, "tenten", &mut script);
    String::from_utf8_lossy(&script).into_owned()
}

/// Every man page: `tenten.1`, then `tenten-<subcommand>.1` for each
/// subcommand, as (file name, roff text).
pub fn man_pages(cli: Command) -> Vec<(String, String)> {
    let cli = cli.bin_name("tenten");
    let mut pages = vec![("tenten.1".to_owned(), render(cli.clone()))];
    for sub in cli.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("tenten-{}", sub.get_name());
        let page = sub
            .clone()
            .name(name.clone())
            .bin_name(format!("tenten {}", sub.get_name()));
        pages.push((format!("{name}.1"), render(page)));
    }
    pages
}

fn render(page: Command) -> String {
    let mut roff = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut roff)
        .expect("rendering into memory cannot fail");
    String::from_utf8_lossy(&roff).into_owned()
}

/// `tenten man`: the main page on stdout, or every page written into `dir`
/// (made if missing; each page written atomically). Generated pages are
/// meant to be regenerated, so existing ones are replaced, and the listing
/// says which.
pub fn cmd_man(cli: Command, dir: Option<&Path>, out: &mut String) -> Result<(), FormatError> {
    let pages = man_pages(cli);
    let Some(dir) = dir else {
        out.push_str(&pages[0].1);
        return Ok(());
    };
    let shown = dir.display().to_string();
    std::fs::create_dir_all(dir)
        .map_err(|e| FormatError::new(&shown, None, format!("cannot make the folder: {e}")))?;
    for (name, text) in &pages {
        let path = dir.join(name);
        let verb = if path.exists() { "replaced" } else { "wrote" };
        formats::write_atomic(&path, text)?;
        out.push_str(&format!("{verb} {}\n", path.display()));
    }
    Ok(())
}
