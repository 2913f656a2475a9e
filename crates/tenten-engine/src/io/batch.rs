//! A batch of deals as a designer has it: logged from playtests or made by
//! `tenten deal`. Read leniently (a bad deal is listed with its file, line and
//! column and the good ones are kept), judged deal by deal, filtered, sorted
//! and exported as CSV.

use std::fmt::Write as _;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::io::formats::{self, Deal, FormatError};
use crate::io::jsonl_log;
use crate::model::generator::Generator;
use crate::model::pieces::PieceSet;
use crate::model::shapes::Shapes;
use crate::search::changer::{ChangeOptions, Outcome, repair};
use crate::search::heuristic::FMatrix;
use crate::search::validator::validate;

/// The deals of a batch file that could be read, in file order, and the
/// messages for those that could not.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Batch {
    pub deals: Vec<Entry>,
    pub bad: Vec<String>,
}

/// One deal and its place in the file (counting the bad ones too).
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub index: usize,
    pub deal: Deal,
}

/// Reads every deal of `text` (a RON batch, or a JSON Lines playtest log)
/// whose holder `set` knows. Fails only when the file is not a deal list
/// at all (a JSON Lines line that is no record, at its line and column), or
/// when no deal can be read.
pub fn parse(text: &str, file: &str, set: &PieceSet) -> Result<Batch, FormatError> {
    let mut batch = Batch::default();
    let raws = if jsonl_log::is_jsonl(text) {
        let records = jsonl_log::records(text, file)?;
        jsonl_log::deals_each(records, text, file)
    } else {
        formats::parse_deals_each(text, file)?
    };
    for (index, raw) in raws.into_iter().enumerate() {
        match raw.and_then(|r| r.resolve(set, text, file)) {
            Ok(deal) => batch.deals.push(Entry { index, deal }),
            Err(e) => batch.bad.push(if e.to_string().contains("deal ") {
                e.to_string()
            } else {
                format!("{e} (deal {index})")
            }),
        }
    }
    if batch.deals.is_empty() {
        let first = batch.bad.first().cloned().unwrap_or_default();
        return Err(FormatError::new(
            file,
            None,
            format!("no deal of the batch could be read; the first problem: {first}"),
        ));
    }
    Ok(batch)
}

/// A deal's verdict as the deal list shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Verdict {
    /// No holder: nothing to judge.
    Empty,
    Solvable,
    /// Unsolvable, and the changer finds a solvable holder.
    Unsolvable,
    /// Unsolvable, and no holder of that size can be placed.
    Dead,
}

impl Verdict {
    pub const ALL: [Verdict; 4] = [
        Verdict::Solvable,
        Verdict::Unsolvable,
        Verdict::Dead,
        Verdict::Empty,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Empty => "no holder",
            Verdict::Solvable => "solvable",
            Verdict::Unsolvable => "unsolvable",
            Verdict::Dead => "dead",
        }
    }
}

/// What the deal list shows of one deal.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    pub verdict: Verdict,
    /// Placements the fast path tried (each a node of the AND-OR tree that
    /// puts a block somewhere; failed leaves are not counted).
    pub placements: u64,
    /// The fast-path validation's wall time.
    pub micros: f64,
    pub empty_cells: usize,
    /// The slot F's argmax blames (equation 5), for unsolvable deals.
    pub blamed: Option<usize>,
}

/// Judges one deal: the fast-path verdict and its time, F's blamed slot under
/// `options`' policy and reading, and for an unsolvable deal whether the
/// changer can repair it (`seed` makes that reproducible).
pub fn judge(shapes: &Shapes, set: &PieceSet, deal: &Deal, options: ChangeOptions, seed: u64) -> Judged {
    let board = deal.board.bits();
    let empty_cells = deal.board.size().cells() - deal.board.filled();
    if deal.holder.is_empty() {
        return Judged {
            verdict: Verdict::Empty,
            placements: 0,
            micros: 0.0,
            empty_cells,
            blamed: None,
        };
    }
    let t = Instant::now();
    let v = validate(shapes, board, &deal.holder);
    let micros = t.elapsed().as_secs_f64() * 1e6;
    let (verdict, blamed) = if v.solvable {
        (Verdict::Solvable, None)
    } else {
        let f = FMatrix::with_reading(&v, options.policy, options.reading);
        let r = repair(
            shapes,
            set,
            board,
            &deal.holder,
            &mut Generator::new(seed),
            options,
        );
        let verdict = if r.outcome == Outcome::Dead {
            Verdict::Dead
        } else {
            Verdict::Unsolvable
        };
        (verdict, Some(f.chosen))
    };
    Judged {
        verdict,
        placements: v.nodes,
        micros,
        empty_cells,
        blamed,
    }
}

/// Which deals the list shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Filter {
    #[default]
    All,
    Only(Verdict),
    /// Edited in the window since the batch was opened.
    Modified,
}

/// The list's order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SortKey {
    #[default]
    Index,
    Placements,
    Time,
    EmptyCells,
}

impl SortKey {
    pub const ALL: [SortKey; 4] = [
        SortKey::Index,
        SortKey::Placements,
        SortKey::Time,
        SortKey::EmptyCells,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SortKey::Index => "index",
            SortKey::Placements => "placements",
            SortKey::Time => "time",
            SortKey::EmptyCells => "empty cells",
        }
    }
}

/// The positions (0..judged.len()) the list shows, in order. Deals not yet
/// judged match only `All` and `Modified`, and sort last.
pub fn view(
    judged: &[Option<Judged>],
    modified: impl Fn(usize) -> bool,
    filter: Filter,
    sort: SortKey,
    descending: bool,
) -> Vec<usize> {
    let mut rows: Vec<usize> = (0..judged.len())
        .filter(|&i| match filter {
            Filter::All => true,
            Filter::Modified => modified(i),
            Filter::Only(v) => judged[i].as_ref().is_some_and(|j| j.verdict == v),
        })
        .collect();
    if sort != SortKey::Index || descending {
        rows.sort_by(|&a, &b| compare(|i| judged[i].as_ref(), sort, descending, a, b));
    }
    rows
}

/// The list's order between deals `a` and `b`: by `sort`'s key (largest
/// first when `descending`), ties and unjudged deals by index, unjudged last.
pub fn compare<'a>(
    judged: impl Fn(usize) -> Option<&'a Judged>,
    sort: SortKey,
    descending: bool,
    a: usize,
    b: usize,
) -> std::cmp::Ordering {
    let key = |i: usize| -> Option<f64> {
        let j = judged(i)?;
        Some(match sort {
            SortKey::Index => i as f64,
            SortKey::Placements => j.placements as f64,
            SortKey::Time => j.micros,
            SortKey::EmptyCells => j.empty_cells as f64,
        })
    };
    if sort == SortKey::Index {
        return if descending { b.cmp(&a) } else { a.cmp(&b) };
    }
    match (key(a), key(b)) {
        (Some(x), Some(y)) => {
            let o = x.total_cmp(&y);
            (if descending { o.reverse() } else { o }).then(a.cmp(&b))
        }
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.cmp(&b),
    }
}

/// The verdicts as CSV, one row per (index in the file, deal, verdict):
/// `index,empty_cells,holder,verdict,placements,microseconds,blamed_slot`.
/// The holder's ids are separated by spaces; the blamed slot is 1-based.
pub fn csv<'a>(rows: impl IntoIterator<Item = (usize, &'a Deal, &'a Judged)>, set: &PieceSet) -> String {
    let mut out = String::from("index,empty_cells,holder,verdict,placements,microseconds,blamed_slot\n");
    for (i, deal, j) in rows {
        let holder: Vec<&str> = deal.holder.iter().map(|&p| set.piece(p).id.as_str()).collect();
        let _ = writeln!(
            out,
            "{i},{},{},{},{},{:.3},{}",
            j.empty_cells,
            holder.join(" "),
            j.verdict.name(),
            j.placements,
            j.micros,
            j.blamed.map_or(String::new(), |s| (s + 1).to_string())
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::board::BoardSize;

    const BATCH: &str = r###"// three deals, one bad
[
    (board: ["....", "....", "....", "...."], holder: ["sq2", "dot"]),
    (board: ["....", "....", "....", "...."], holder: ["sq2", "nope"]),
    (board: ["##.#", "#.##", "##.#", "#.##"], holder: ["sq2"]),
]
"###;

    #[test]
    fn bad_deals_are_listed_with_their_place_and_the_good_ones_kept() {
        let set = PieceSet::classic();
        let b = parse(BATCH, "log.ron", &set).unwrap();
        assert_eq!(b.deals.iter().map(|e| e.index).collect::<Vec<_>>(), [0, 2]);
        assert_eq!(b.bad.len(), 1);
        assert!(b.bad[0].starts_with("log.ron:4:"), "{}", b.bad[0]);
        assert!(b.bad[0].contains("\"nope\""), "{}", b.bad[0]);
        assert!(b.bad[0].contains("deal 1"), "{}", b.bad[0]);
        let none = "[(board: [\"..\"], holder: [\"zz\"])]";
        assert!(
            parse(none, "x.ron", &set)
                .unwrap_err()
                .to_string()
                .contains("no deal")
        );
    }

    #[test]
    fn deals_are_judged_filtered_sorted_and_written_as_csv() {
        let set = PieceSet::classic();
        let b = parse(BATCH, "log.ron", &set).unwrap();
        let shapes = Shapes::new(&set, BoardSize::new(4, 4).unwrap());
        let judged: Vec<Option<Judged>> = b
            .deals
            .iter()
            .map(|e| Some(judge(&shapes, &set, &e.deal, ChangeOptions::default(), 1)))
            .collect();
        let j0 = judged[0].as_ref().unwrap();
        assert_eq!(
            (j0.verdict, j0.empty_cells, j0.blamed),
            (Verdict::Solvable, 16, None)
        );
        // Lone holes (the full outer columns clear first): sq2 fits nowhere,
        // but a dot would, so the changer repairs it.
        let j1 = judged[1].as_ref().unwrap();
        assert_eq!(
            (j1.verdict, j1.empty_cells, j1.blamed),
            (Verdict::Unsolvable, 4, Some(0))
        );
        let only = |v| view(&judged, |_| false, Filter::Only(v), SortKey::Index, false);
        assert_eq!(only(Verdict::Unsolvable), [1]);
        assert_eq!(only(Verdict::Dead), Vec::<usize>::new());
        assert_eq!(
            view(&judged, |i| i == 0, Filter::Modified, SortKey::Index, false),
            [0]
        );
        assert_eq!(
            view(&judged, |_| false, Filter::All, SortKey::EmptyCells, false),
            [1, 0]
        );
        assert_eq!(
            view(&judged, |_| false, Filter::All, SortKey::Index, true),
            [1, 0]
        );
        let pending = vec![None, judged[1].clone()];
        assert_eq!(
            view(&pending, |_| false, Filter::All, SortKey::EmptyCells, true),
            [1, 0]
        );
        let rows = b
            .deals
            .iter()
            .zip(&judged)
            .map(|(e, j)| (e.index, &e.deal, j.as_ref().unwrap()));
        let text = csv(rows, &set);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "index,empty_cells,holder,verdict,placements,microseconds,blamed_slot"
        );
        assert!(lines[1].starts_with("0,16,sq2 dot,solvable,"), "{}", lines[1]);
        assert!(lines[2].starts_with("2,4,sq2,unsolvable,0,"), "{}", lines[2]);
        assert!(lines[2].ends_with(",1"), "{}", lines[2]);
    }
}
