//! One unfitBlock: the validator's record read through F, the tree
//! debugger's session, the Fig. 4 sentences' context and `--explain` show
//! the same ub(j) for the same search, on every shipped preset and on
//! random deals, under every policy.

use std::path::PathBuf;

use tenten::app::shell::debugger::{DealKey, Session};
use tenten_engine::io::formats;
use tenten_engine::model::board::{Bits, BoardSize};
use tenten_engine::model::generator::Generator;
use tenten_engine::model::pieces::{PieceIdx, PieceSet};
use tenten_engine::model::shapes::Shapes;
use tenten_engine::search::explain::Context;
use tenten_engine::search::heuristic::{FMatrix, Policy};
use tenten_engine::search::validator::validate;

/// Checks one deal; returns whether it was unsolvable.
fn agree(set: &PieceSet, size: BoardSize, board: Bits, holder: &[PieceIdx]) -> bool {
    let shapes = Shapes::new(set, size);
    let v = validate(&shapes, board, holder);
    let mut session = Session::trace(DealKey {
        set: set.clone(),
        size,
        board,
        holder: holder.to_vec(),
    });
    let last = session.last();
    session.go(last);
    let ctx = Context {
        set,
        holder,
        events: &session.events[..],
        tree: &session.tree,
    };
    // The debugger lists all k! orders; a solvable search stops early, and
    // the orders it never reached show 0.
    let n = v.orders().len();
    for policy in Policy::ALL {
        let record = FMatrix::new(&v, policy).unfit_block;
        let shown = session.unfit_block(policy);
        assert_eq!(shown[..n], record[..], "debugger, {policy}, {}", set.ids(holder));
        assert!(shown[n..].iter().all(|&u| u == 0));
        let said = ctx.unfit_block(last, policy, n);
        assert_eq!(said, record, "sentences, {policy}, {}", set.ids(holder));
    }
    !v.solvable
}

#[test]
fn every_shipped_preset_shows_one_unfit_block() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("presets/deals");
    let mut unsolvable = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = formats::read_text(&path).unwrap();
        let name = path.display().to_string();
        let raws = formats::parse_deals(&text, &name).unwrap();
        let set = match raws[0].pieces.as_deref() {
            Some(p) => formats::load_pieces_of(&path, p).unwrap().0,
            None => PieceSet::classic(),
        };
        for raw in &raws {
            let deal = raw.resolve(&set, &text, &name).unwrap();
            if !deal.holder.is_empty() {
                unsolvable += usize::from(agree(&set, deal.board.size(), deal.board.bits(), &deal.holder));
            }
        }
    }
    assert!(unsolvable >= 5, "{unsolvable} unsolvable preset deals");
}

#[test]
fn random_deals_with_repeated_pieces_show_one_unfit_block() {
    let set = PieceSet::classic();
    let size = BoardSize::new(6, 6).unwrap();
    let mut rng = Generator::new(4);
    let (mut unsolvable, mut repeated) = (0, 0);
    for _ in 0..300 {
        let bits: Bits = (0..36).fold(0, |b, i| if rng.below(100) < 50 { b | 1 << i } else { b });
        let k = 2 + rng.below(3);
        // Few kinds, so pieces repeat and duplicate orders are skipped.
        let holder: Vec<PieceIdx> = (0..k).map(|_| [1, 2, 3, 9][rng.below(4)]).collect();
        if agree(&set, size, bits, &holder) {
            unsolvable += 1;
            let mut h = holder.clone();
            h.sort();
            h.dedup();
            repeated += usize::from(h.len() < holder.len());
        }
    }
    assert!(
        unsolvable > 50 && repeated > 20,
        "{unsolvable} unsolvable, {repeated} with repeats"
    );
}

#[test]
fn explain_prints_the_same_unfit_block() {
    let out = assert_cmd::Command::cargo_bin("tenten")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "validate",
            "--explain",
            "--policy",
            "last",
            "presets/deals/unsolvable-no-long-lines.ron",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("presets/deals/unsolvable-no-long-lines.ron");
    let src = formats::read_text(&path).unwrap();
    let raws = formats::parse_deals(&src, "x").unwrap();
    let set = PieceSet::classic();
    let deal = raws[0].resolve(&set, &src, "x").unwrap();
    let v = validate(
        &Shapes::new(&set, deal.board.size()),
        deal.board.bits(),
        &deal.holder,
    );
    let expected = format!("unfitBlock = {:?}", FMatrix::new(&v, Policy::Last).unfit_block);
    assert!(text.contains(&expected), "{expected} not in:\n{text}");
    assert!(text.contains("repeated pieces read by slot"), "{text}");
}
