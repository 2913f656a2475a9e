//! `tenten adapt`: an adaptive generator optimised against a population
//! (`study::adapt`), its verdict on held-out players, and the file it
//! writes.

use std::fmt::Write as _;
use std::path::Path;

use tenten_engine::fits::population::file;
use tenten_engine::io::formats::{self, FormatError};
use tenten_engine::model::shapes::Shapes;
use tenten_engine::play::generator_file;
use tenten_engine::progress::Progress;
use tenten_engine::study::adapt::{AdaptRequest, Objective, adapt};

use super::piece_set;
use super::population::Rules;

pub(super) struct AdaptArgs {
    pub population: String,
    pub base: String,
    pub objective: String,
    pub max_distortion: f64,
    pub budget: f64,
    pub max_candidates: Option<usize>,
    pub players: usize,
    pub holdout: usize,
    pub seed: u64,
    /// Where to write the best static generator too (the A/B's other arm).
    pub static_out: Option<std::path::PathBuf>,
}

/// Whether two paths name one file: compared after resolving `..` and
/// links (the file itself when it exists, else its folder), so
/// `sub/../a.ron`, `./a.ron` and a link to it are all `a.ron`.
fn same_file(x: &Path, y: &Path) -> bool {
    let resolved = |p: &Path| -> Option<std::path::PathBuf> {
        if let Ok(c) = p.canonicalize() {
            return Some(c);
        }
        let folder = p
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        Some(folder.canonicalize().ok()?.join(p.file_name()?))
    };
    match (resolved(x), resolved(y)) {
        (Some(a), Some(b)) => a == b,
        _ => std::path::absolute(x).ok() == std::path::absolute(y).ok(),
    }
}

pub(super) fn cmd_adapt(
    a: &AdaptArgs,
    rules: &Rules,
    out_file: &Path,
    out: &mut String,
) -> Result<(), FormatError> {
    let bad = |m: String| FormatError::new("adapt", None, m);
    if a.static_out.as_deref().is_some_and(|s| same_file(s, out_file)) {
        return Err(bad(format!(
            "--static-out and --out are both {}; the static arm would replace the adaptive one",
            out_file.display()
        )));
    }
    let objective = Objective::parse(&a.objective).map_err(bad)?;
    // The files' folders, before a search they would lose.
    for file in std::iter::once(out_file).chain(a.static_out.as_deref()) {
        let folder = file
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if !folder.is_dir() {
            return Err(FormatError::new(
                &file.display().to_string(),
                None,
                format!("its folder {} does not exist", folder.display()),
            ));
        }
        if file.is_dir() {
            return Err(FormatError::new(
                &file.display().to_string(),
                None,
                "is a folder; give a file name to write the generator to",
            ));
        }
    }
    // A reach beyond the round cap is 0 for every generator: nothing to
    // optimise, and every gain would read none.
    if let Objective::Reach(r) = objective
        && r > rules.max_rounds
    {
        return Err(bad(format!(
            "--objective reach={r} counts games reaching round {r}, past --max-rounds {}: every generator would score 0",
            rules.max_rounds
        )));
    }
    if !(a.max_distortion > 0.0 && a.max_distortion <= 10.0) {
        return Err(bad(format!(
            "--max-distortion {} is a KL divergence in nats, above 0 and at most 10",
            a.max_distortion
        )));
    }
    if !(a.budget >= 0.0 && a.budget <= 7.0 * 86_400.0) {
        return Err(bad(format!("--budget {} is seconds, 0 to a week", a.budget)));
    }
    let population = file::by_name(&a.population)?;
    let set = piece_set(rules.pieces.as_deref())?;
    let base = generator_file::spec_by_name(&a.base, &set).unwrap_or_else(|| {
        Err(FormatError::new(
            &a.base,
            None,
            "not a generator file (.ron) or a preset generator's name",
        ))
    })?;
    if base.file.check == generator_file::Check::Bag {
        return Err(FormatError::new(
            &a.base,
            None,
            "the base deals from a bag, which no tilt changes; start from a generator that draws (random, repair, reject or a file)",
        ));
    }
    if base.file.adaptive.is_some() {
        return Err(FormatError::new(
            &a.base,
            None,
            "the base already has adaptive rules; adapt starts from a static generator",
        ));
    }
    // The base must deal the run's pieces (checked here, not in the search).
    tenten_engine::play::dealing::Dealing::file(base.clone(), &set)
        .map_err(|m| FormatError::new(&a.base, None, m))?;
    let req = AdaptRequest {
        population,
        base: base.clone(),
        shapes: Shapes::new(&set, rules.size),
        set,
        k: rules.k,
        max_rounds: rules.max_rounds,
        objective,
        max_distortion: a.max_distortion,
        budget: std::time::Duration::from_secs_f64(a.budget),
        max_candidates: a.max_candidates,
        players: a.players,
        holdout: a.holdout,
        seed: a.seed,
    };
    eprintln!(
        "adapting {} for {} of {} ({} training players a candidate, {:.0} s per search, {} held out)...",
        base.file.name,
        objective.name(),
        req.population.name,
        a.players,
        a.budget,
        a.holdout
    );
    let found = adapt(&req, &Progress::default()).unwrap_or_else(|| unreachable!("not cancelled"));
    let named = |i: usize, what: &str, file: &Path| {
        let mut spec = found.arms[i].spec.clone();
        spec.file.name = format!("{} {what}", base.file.name);
        // A file's piece set, named from where the new file is; a preset
        // (a name, not a file) deals the set in use, as it did.
        spec.file.pieces = match &base.file.pieces {
            Some(p) if a.base.ends_with(".ron") => {
                let set_file = formats::resolve_pieces_path(Path::new(&a.base), p);
                Some(formats::pieces_reference(file, &set_file))
            }
            _ => None,
        };
        spec
    };
    let adaptive = named(2, "adaptive", out_file);
    let versus = |i: usize| {
        found.versus[i]
            .gain
            .map_or("none".to_owned(), |g| format!("{:+.1} %", 100.0 * g.gain))
    };
    let text = format!(
        "// Adapted by tenten adapt from {} for {} of population {}: on {} held-out players (--seed {}), {} against the base and {} against the best static generator (one check and one tilt for everyone); the distortion from the base's shares at most {} nats.\n{}",
        a.base,
        objective.name(),
        req.population.name,
        a.holdout,
        a.seed,
        versus(0),
        versus(1),
        a.max_distortion,
        adaptive.to_ron()
    );
    formats::write_atomic(out_file, &text)?;
    if let Some(file) = &a.static_out {
        let text = format!(
            "// The best static generator (one check and one tilt) tenten adapt found from {} for {} of population {} (the adaptive file's baseline).\n{}",
            a.base,
            objective.name(),
            req.population.name,
            named(1, "static", file).to_ron()
        );
        formats::write_atomic(file, &text)?;
        let _ = writeln!(out, "static_out={}", file.display());
    }
    for line in found.lines(&req) {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "out={}", out_file.display());
    Ok(())
}
