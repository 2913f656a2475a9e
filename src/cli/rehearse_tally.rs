//! `tenten playtest tally DIR...`: the runs of one rehearsal counted as
//! one, wherever they were played. A rehearsal's runs are seeded by their
//! index alone, so `playtest rehearse --shard I/N` can play them in several
//! processes or machines, each into a folder of its own; every whole run
//! left `run-K/run.txt` (the rehearsal's header, then its two servers'
//! lines), and the tally reads those files, not the logs: a run stopped
//! part way has none and is not counted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::rehearse::{Direction, MAX_RUNS, RUN_FILE, Tally};

/// A run's file is three short lines; anything far longer is not one.
const MAX_RUN_FILE: u64 = 64 * 1024;

/// What the folders held: the runs' lines in order (after a line naming
/// the missing runs, when partial), the calls over them, and the header's
/// expectation and population.
pub struct Tallied {
    pub lines: Vec<String>,
    pub calls: super::rehearse::Calls,
    pub expect: Direction,
    pub population: String,
}

/// One run's file, read: its header and its two servers' lines.
struct RunFile {
    path: PathBuf,
    header: String,
    ab: String,
    same: String,
}

/// A `key=value` word of a run's line (the last, since a generator's name
/// may hold spaces but the verdict ends the line's words).
fn value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let at = line.rfind(&format!(" {key}="))? + key.len() + 2;
    line[at..].split(' ').next()
}

/// A run file's header, read in its fixed order: `rehearsal=FP runs=R
/// expect=E population=NAME` (the name last, whatever it holds).
struct Header {
    runs: usize,
    expect: Direction,
    population: String,
}

fn read_header(line: &str) -> Option<Header> {
    let rest = line.strip_prefix("rehearsal=")?;
    let (_fingerprint, rest) = rest.split_once(" runs=")?;
    let (runs, rest) = rest.split_once(" expect=")?;
    let (expect, population) = rest.split_once(" population=")?;
    Some(Header {
        runs: runs.parse().ok().filter(|r| (1..=MAX_RUNS).contains(r))?,
        expect: match expect {
            "better" => Direction::Better,
            "worse" => Direction::Worse,
            _ => return None,
        },
        population: population.to_owned(),
    })
}

/// Whether a run's line is whole and says what its interval says: its
/// verdict one of `VERDICTS` and the one its `gain_ci` gives (better: the
/// interval above 0; worse: below; undecided: none, or holding 0; as
/// printed, to four places), and its last word `seconds=` a number.
fn whole(line: &str) -> bool {
    let ci = value(line, "gain_ci").map(|ci| {
        ci.split_once(',')
            .and_then(|(lo, hi)| Some((lo.parse::<f64>().ok()?, hi.parse::<f64>().ok()?)))
    });
    let agrees = match (value(line, "verdict"), ci) {
        (Some("better"), Some(Some((lo, _)))) => lo >= 0.0,
        (Some("worse"), Some(Some((_, hi)))) => hi <= 0.0,
        (Some("undecided"), Some(Some((lo, hi)))) => lo <= 0.0 && 0.0 <= hi,
        (Some("undecided"), Some(None)) => value(line, "gain_ci") == Some("none"),
        _ => false,
    };
    let timed = line
        .rsplit_once(" seconds=")
        .is_some_and(|(_, t)| t.parse::<f64>().is_ok_and(f64::is_finite));
    agrees && timed
}

/// A run's file: a regular file (a device or a pipe is not read), at most
/// `MAX_RUN_FILE` bytes read whatever it says its length is.
fn read_text(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{shown}: not a file"));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_RUN_FILE + 1).read_to_end(&mut bytes))
        .map_err(|e| format!("{shown}: {e}"))?;
    if bytes.len() as u64 > MAX_RUN_FILE {
        return Err(format!("{shown}: over {MAX_RUN_FILE} bytes is not a run's file"));
    }
    String::from_utf8(bytes).map_err(|_| format!("{shown}: not UTF-8 text, not a run's file"))
}

fn read_run(path: &Path) -> Result<RunFile, String> {
    let shown = path.display();
    let text = read_text(path)?;
    let lines: Vec<&str> = text.lines().collect();
    let [header, ab, same] = lines.as_slice() else {
        return Err(format!(
            "{shown}: a run's file has three lines (the rehearsal, its A/B server, its identical arms); it has {}",
            lines.len()
        ));
    };
    let shape = ab.contains(" server=ab ") && same.contains(" server=same ") && whole(ab) && whole(same);
    if read_header(header).is_none() || !shape {
        return Err(format!(
            "{shown}: not a whole run's file (rehearsal=.. runs=1..{MAX_RUNS} expect=better|worse population=.., \
             then run=K server=ab .. gain_ci=LO,HI|none verdict=better|worse|undecided as the interval says seconds=.., \
             then the same for server=same)"
        ));
    }
    Ok(RunFile {
        path: path.to_owned(),
        header: (*header).to_owned(),
        ab: (*ab).to_owned(),
        same: (*same).to_owned(),
    })
}

/// The run index a line names (`run=K ...`).
fn run_index(line: &str) -> Option<usize> {
    line.strip_prefix("run=")?.split(' ').next()?.parse().ok()
}

/// The finished runs' files by run, and the `run-K` folders without one.
type Found = (BTreeMap<usize, RunFile>, Vec<(usize, PathBuf)>);

/// Every finished run's file under `dirs` (their `run-K` folders), by run,
/// each once and of one rehearsal; and the `run-K` folders without one
/// (begun and stopped, or still playing).
fn collect_runs(dirs: &[PathBuf]) -> Result<Found, String> {
    let mut runs: BTreeMap<usize, RunFile> = BTreeMap::new();
    let mut unfinished = Vec::new();
    let mut reference: Option<(String, PathBuf)> = None;
    for dir in dirs {
        if dir.join(RUN_FILE).symlink_metadata().is_ok() {
            return Err(format!(
                "{} is one run's folder: give the --out folder that holds the run-K folders",
                dir.display()
            ));
        }
        let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(k) = name.strip_prefix("run-").and_then(|k| k.parse::<usize>().ok()) else {
                continue;
            };
            if !entry.path().is_dir() {
                continue;
            }
            let file = entry.path().join(RUN_FILE);
            // A link that leads nowhere is read (and its error named), not
            // taken for a run that has not ended.
            if file.symlink_metadata().is_err() {
                unfinished.push((k, entry.path()));
                continue;
            }
            let run = read_run(&file)?;
            if run_index(&run.ab) != Some(k) || run_index(&run.same) != Some(k) {
                return Err(format!(
                    "{}: its lines name another run than {name}",
                    file.display()
                ));
            }
            // Against the first run read (the first folder given first).
            let (header, first) = reference.get_or_insert_with(|| (run.header.clone(), file.clone()));
            if *header != run.header {
                return Err(format!(
                    "{} is of another rehearsal than {}: {:?} against {:?} (another population, arms, pieces, board, design, seed, objective, direction, round cap or engine)",
                    file.display(),
                    first.display(),
                    run.header,
                    header
                ));
            }
            if let Some(twice) = runs.get(&k) {
                return Err(format!(
                    "run {k} is in {} and in {}: give each shard's folder once",
                    twice.path.display(),
                    file.display()
                ));
            }
            runs.insert(k, run);
        }
    }
    Ok((runs, unfinished))
}

/// At most the first `n` of `xs`, then how many more.
fn some(xs: &[String], n: usize) -> String {
    let shown = xs[..xs.len().min(n)].join(", ");
    match xs.len().saturating_sub(n) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

/// Every run's file under `dirs`: the runs of one rehearsal, each once,
/// none missing unless `partial` (then the missing are named in a line);
/// or what is wrong, naming the file.
pub fn tally(dirs: &[PathBuf], partial: bool) -> Result<Tallied, String> {
    let (runs, unfinished) = collect_runs(dirs)?;
    let Some(first) = runs.values().next() else {
        let begun: Vec<String> = unfinished.iter().map(|(_, p)| p.display().to_string()).collect();
        return Err(format!(
            "no finished rehearsal run (run-K/{RUN_FILE}) in {}{}",
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            if begun.is_empty() {
                String::new()
            } else {
                format!("; begun but not finished: {}", some(&begun, 5))
            }
        ));
    };
    // `read_run` read every header; they are one.
    let Some(header) = read_header(&first.header) else {
        return Err(format!(
            "{}: its header is not a rehearsal's",
            first.path.display()
        ));
    };
    if let Some((k, run)) = runs.iter().find(|(k, _)| **k >= header.runs) {
        return Err(format!(
            "{}: run {k} of a rehearsal of {} runs",
            run.path.display(),
            header.runs
        ));
    }
    let missing: Vec<String> = (0..header.runs)
        .filter(|k| !runs.contains_key(k))
        .map(|k| k.to_string())
        .collect();
    let stopped: Vec<String> = unfinished
        .iter()
        .filter(|(k, _)| !runs.contains_key(k))
        .map(|(_, p)| p.display().to_string())
        .collect();
    let stopped = if stopped.is_empty() {
        String::new()
    } else {
        format!("; begun but not finished: {}", some(&stopped, 5))
    };
    let mut lines = Vec::with_capacity(2 * runs.len() + 1);
    if !missing.is_empty() {
        if !partial {
            return Err(format!(
                "runs not finished in these folders: {} of the rehearsal's {} (runs {}){stopped}; \
                 give every shard's folder when each has ended, replay a stopped shard into a new folder, \
                 or tally the finished runs with --partial",
                missing.len(),
                header.runs,
                some(&missing, 20)
            ));
        }
        lines.push(format!(
            "partial runs={} of {} missing={}{stopped}",
            runs.len(),
            header.runs,
            missing.join(",")
        ));
    }
    let mut counted = Tally::default();
    for run in runs.values() {
        let verdict = |l: &str| value(l, "verdict").unwrap_or("undecided").to_owned();
        counted.add(header.expect.word(), &verdict(&run.ab), &verdict(&run.same));
        lines.push(run.ab.clone());
        lines.push(run.same.clone());
    }
    Ok(Tallied {
        lines,
        calls: counted.calls(),
        expect: header.expect,
        population: header.population,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_words_value_is_read_from_the_end() {
        let l = "run=3 server=ab vs=a verdict=x b gain=0.1 verdict=better seconds=2.0";
        assert_eq!(value(l, "verdict"), Some("better"));
        assert_eq!(value(l, "gain"), Some("0.1"));
        assert_eq!(value(l, "nothing"), None);
        assert_eq!(run_index(l), Some(3));
        assert_eq!(run_index("run=x server=ab"), None);
    }

    #[test]
    fn a_header_is_read_in_its_order_the_name_last() {
        let h = read_header("rehearsal=00ff runs=16 expect=worse population=x runs=5 expect=better").unwrap();
        assert_eq!(
            (h.runs, h.expect, h.population.as_str()),
            (16, Direction::Worse, "x runs=5 expect=better")
        );
        for bad in [
            "rehearsal=00ff runs=0 expect=better population=p",
            "rehearsal=00ff runs=1001 expect=better population=p",
            "rehearsal=00ff runs=99999999999999999999 expect=better population=p",
            "rehearsal=00ff runs=3 expect=maybe population=p",
            "runs=3 expect=better population=p",
        ] {
            assert!(read_header(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_runs_line_is_whole_and_its_verdict_agrees_with_its_interval() {
        let line = |ci: &str, v: &str, t: &str| {
            format!("run=0 server=ab vs=a b gain=0.1 gain_ci={ci} verdict={v} seconds={t}")
        };
        for (ci, v) in [
            ("0.1000,0.3000", "better"),
            ("0.0000,0.2", "better"),
            ("-0.3,-0.1", "worse"),
            ("-0.1,0.2", "undecided"),
            ("none", "undecided"),
        ] {
            assert!(whole(&line(ci, v, "2.5")), "{ci} {v}");
        }
        for (ci, v, t) in [
            ("-0.1,0.2", "better", "2.5"),
            ("0.1,0.3", "undecided", "2.5"),
            ("0.1,0.3", "worse", "2.5"),
            ("none", "better", "2.5"),
            ("0.1,0.3", "bettr", "2.5"),
            ("0.1,0.3", "better", ""),
            ("0.1,", "better", "2.5"),
        ] {
            assert!(!whole(&line(ci, v, t)), "{ci} {v} {t}");
        }
        assert!(
            !whole("run=0 server=ab gain_ci=0.1,0.3 verdict=better"),
            "cut before its time"
        );
    }

    /// A folder whose only run was stopped says so, naming it.
    #[test]
    fn a_folder_of_no_finished_run_names_the_run_begun() {
        let dir = std::env::temp_dir().join(format!("tenten-tally-stopped-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("run-000/ab")).unwrap();
        let Err(e) = tally(std::slice::from_ref(&dir), true) else {
            panic!("no run finished")
        };
        assert!(
            e.starts_with("no finished rehearsal run")
                && e.contains("begun but not finished")
                && e.contains("run-000"),
            "{e}"
        );
        std::fs::remove_dir_all(dir.join("run-000")).unwrap();
        let Err(e) = tally(std::slice::from_ref(&dir), true) else {
            panic!("no run at all")
        };
        assert!(!e.contains("not finished"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_long_list_is_cut() {
        let xs: Vec<String> = (0..25).map(|i| i.to_string()).collect();
        assert_eq!(some(&xs[..2], 20), "0, 1");
        assert!(some(&xs, 20).ends_with("19 and 5 more"));
    }
}
