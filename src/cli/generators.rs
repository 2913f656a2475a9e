//! `tenten fit-generator`: a generator learned from the deals it dealt.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use tenten_engine::fits::generator::{self, Learned, deals};
use tenten_engine::io::formats::{self, FormatError};
use tenten_engine::model::board::BoardSize;
use tenten_engine::progress::Progress;

use super::piece_set;

/// What `fit-generator` was given.
pub(super) struct FitArgs {
    pub logs: Vec<PathBuf>,
    pub pieces: Option<PathBuf>,
    pub board: Option<BoardSize>,
    pub out: PathBuf,
    pub report: Option<PathBuf>,
    pub seed: u64,
    pub replications: usize,
    pub held_out: bool,
    pub policies: Vec<tenten_engine::search::heuristic::Policy>,
    pub rules: bool,
    pub name: Option<String>,
}

pub(super) fn cmd_fit_generator(a: &FitArgs, out: &mut String) -> Result<(), FormatError> {
    let set = piece_set(a.pieces.as_deref())?;
    let first = a.logs[0].display().to_string();
    // A cohort's `cohort.ron` named among its logs (`cohort/*`) is no log.
    let (logs, notes) = tenten_engine::fits::population::cohort::without_identity(&a.logs);
    for note in &notes {
        eprintln!("note: {note}");
    }
    let logs = if logs.is_empty() { a.logs.clone() } else { logs };
    let read = deals::read(&logs, &set)?;
    if let Some(size) = a.board
        && size != read.size
    {
        return Err(FormatError::new(
            &first,
            None,
            format!("the log's boards are {} but --board says {size}", read.size),
        ));
    }
    eprintln!(
        "learning from {} deals ({} games) of {} on {}...",
        read.deals.len(),
        read.games,
        set.name,
        read.size
    );
    let name = a.name.clone().unwrap_or_else(|| {
        let stem = a.logs[0]
            .file_stem()
            .map_or("log".into(), |s| s.to_string_lossy());
        format!("learned from {stem}")
    });
    let req = generator::Request {
        name,
        pieces_ref: a.pieces.as_deref().map(|p| formats::pieces_reference(&a.out, p)),
        seed: a.seed,
        replications: a.replications,
        held_out: a.held_out,
        rules: a.rules,
        policies: if a.policies.is_empty() {
            tenten_engine::search::heuristic::Policy::ALL.to_vec()
        } else {
            a.policies.clone()
        },
    };
    let learned = generator::learn(&set, &read, &req, &Progress::default())
        .map_err(|m| FormatError::new(&first, None, m))?
        .unwrap_or_else(|| unreachable!("not cancelled"));
    for line in &learned.lines {
        let _ = writeln!(out, "{line}");
    }
    formats::write_atomic(&a.out, &learned.text)?;
    if let Some(report) = &a.report {
        formats::write_atomic(report, &table(&learned, report))?;
    }
    Ok(())
}

/// The model table as CSV (a `.csv` name) or RON.
pub(super) fn table(l: &Learned, path: &Path) -> String {
    let csv = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    generator::report_table(l, csv)
}

/// `tenten deal --generator G [--after GAMES]`: deal 0 of the seed's game
/// for the board, as a game dealing from `G` deals it to a player with
/// those games before (the C library's `tenten_dealer_new_game` after the
/// same reports deals the same holder).
pub(super) fn cmd_deal_from(
    seed: u64,
    pieces: Option<&Path>,
    k: usize,
    board: Option<&Path>,
    (generator, after): (&str, Option<&str>),
    out: &mut String,
) -> Result<(), FormatError> {
    use tenten_engine::model::board::Board;
    use tenten_engine::model::generator::Generator;
    use tenten_engine::model::shapes::Shapes;
    use tenten_engine::play::adaptive::History;
    use tenten_engine::play::dealers::{Table, nth_deal_seed};
    use tenten_engine::play::dealing::Dealing;
    use tenten_engine::search::changer::ChangeOptions;

    let (set, board) = match board {
        Some(file) => {
            let (set, deals) = super::load_deals(file, pieces, false)?;
            (set, deals[0].board.clone())
        }
        None => (piece_set(pieces)?, Board::empty(BoardSize::CLASSIC)),
    };
    let history = History::parse(after.unwrap_or("")).map_err(|m| FormatError::new("--after", None, m))?;
    let dealing = Dealing::by_name(generator, &set)?;
    let shapes = Shapes::new(&set, board.size());
    let table = Table {
        shapes: &shapes,
        set: &set,
        board: board.bits(),
        k,
    };
    let mut dealer = dealing.dealer_for(&set, ChangeOptions::default(), &history);
    let dealt = dealer.deal(&table, &mut Generator::new(nth_deal_seed(seed, 0)));
    let _ = writeln!(
        out,
        "holder={} drawn={} drawn_unsolvable={} repairs={} dead={}",
        set.ids(&dealt.holder),
        set.ids(&dealt.drawn),
        u8::from(dealt.drawn_unsolvable),
        dealt.repairs,
        u8::from(dealt.dead)
    );
    if after.is_some() || dealing.adaptive() {
        let typical = history
            .typical_log()
            .map_or("none".to_owned(), |l| format!("{:.2}", l.exp()));
        let _ = writeln!(
            out,
            "after games={} session_games={} unfair_in_row={} typical_rounds={typical}",
            history.earlier_games + u64::from(history.last.is_some()),
            history.session_games,
            history.unfair_in_row
        );
    }
    Ok(())
}
