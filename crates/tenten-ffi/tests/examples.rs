//! The three examples (C, C# through Mono, Python through ctypes) and the
//! workbench's own engine play the same 200 rounds of seed 7 with the
//! repair generator and print the same lines, byte for byte.
//!
//! The examples need a C compiler, Mono (`mono-mcs`, `mono-runtime`) and
//! Python 3; `.ci/run` installs them from Debian. A missing tool fails the
//! test with its name: it never passes by skipping.

mod common;

use std::fmt::Write as _;
use std::path::Path;

use common::{first_difference, library_dir, root, run};
use tenten_engine::danger::danger;
use tenten_engine::model::board::{Bits, BoardSize};
use tenten_engine::model::generator::Generator;
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::model::shapes::{Shapes, score};
use tenten_engine::play::dealers::{Dealer, Table, nth_deal_seed};
use tenten_engine::play::file_dealer::FileDealer;
use tenten_engine::play::game::{GreedyStrategy, Strategy};
use tenten_engine::play::generator_file;
use tenten_engine::progress::Progress;
use tenten_engine::search::validator::validate;

const SEED: u64 = 7;
const ROUNDS: u64 = 200;
const K: usize = 3;

/// The examples' program written against the engine itself: the dealer,
/// the validator, the workbench's greedy strategy (most empty cells, then
/// most lines, then the lowest anchor) and the danger of each lost board.
fn engine_lines() -> String {
    let file = root().join("presets/generators/repair.ron");
    let spec = generator_file::load(&file, &PieceSet::classic()).expect("the repair preset loads");
    let set = spec.set.clone();
    let shapes = Shapes::new(&set, BoardSize::CLASSIC);
    let cells = BoardSize::CLASSIC.cells() as u32;
    let mut dealer = FileDealer::new(spec);
    let (mut board, mut total, mut game): (Bits, u64, u32) = (0, 0, 1);
    let mut out = String::new();
    for n in 0..ROUNDS {
        let table = Table {
            shapes: &shapes,
            set: &set,
            board,
            k: K,
        };
        let mut rng = Generator::new(nth_deal_seed(SEED, n));
        let holder = dealer.deal(&table, &mut rng).holder;
        let verdict = validate(&shapes, board, &holder);
        let mut moves = Vec::new();
        let placed = GreedyStrategy.play(
            &shapes,
            board,
            &holder,
            &mut rng,
            &mut moves,
            &Progress::default(),
        );
        let mut points = 0;
        let mut texts = Vec::new();
        for &(piece, anchor) in &moves {
            let (next, lines) = shapes.place(board, piece, anchor);
            points += score(shapes.shape(piece).cells(), lines);
            board = next;
            let (x, y) = shapes.xy(anchor);
            texts.push(format!("{}@{x},{y}", set.piece(piece).id));
        }
        total += points;
        let over = placed.is_none();
        let ids: Vec<&str> = holder.iter().map(|&p| set.piece(p).id.as_str()).collect();
        let moves = if texts.is_empty() {
            "-".to_owned()
        } else {
            texts.join(";")
        };
        let _ = writeln!(
            out,
            "round {} game {game} holder={} solvable={} placements={} moves={moves} points={points} score={total} filled={}{}",
            n + 1,
            ids.join(","),
            u8::from(verdict.solvable),
            verdict.nodes,
            board.count_ones(),
            if over { " over" } else { "" }
        );
        if over {
            let d = danger(&shapes, &set, board, K).expect("k = 3 is judged");
            let _ = writeln!(
                out,
                "game {game} over: score={total} danger={:.6} killers={} of {}",
                d.probability,
                d.killers.len(),
                d.multisets
            );
            (board, total, game) = (0, 0, game + 1);
        }
    }
    let _ = writeln!(out, "games={game} score={total} filled={}", board.count_ones());
    assert!(cells >= board.count_ones());
    out
}

fn assert_same(language: &str, got: &str, want: &str) {
    if let Some((line, g, w)) = first_difference(got, want) {
        panic!("{language} differs from the engine at line {line}:\n  {language}: {g}\n  engine: {w}");
    }
}

#[test]
fn c_csharp_and_python_play_exactly_as_the_engine() {
    let want = engine_lines();
    assert_eq!(
        want.lines().count(),
        ROUNDS as usize + want.matches(" over:").count() + 1
    );
    assert!(
        want.contains(" over\n"),
        "the greedy player loses some games in 200 rounds"
    );
    // Deal 0 is `tenten deal --seed 7`: a weighted draw of three from the stream of seed 7.
    let classic = PieceSet::classic();
    let first = Generator::new(SEED).deal(&classic, K);
    let ids: Vec<&str> = first.iter().map(|&p| classic.piece(p).id.as_str()).collect();
    assert!(
        want.starts_with(&format!("round 1 game 1 holder={} ", ids.join(","))),
        "{want:.80}"
    );

    let lib_dir = library_dir();
    let lib = lib_dir.join("libtenten_ffi.so");
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("examples");
    std::fs::create_dir_all(&tmp).expect("a scratch folder");

    // C: the guide's command (docs/engine.md), with the library's folder for -L.
    let mut sources: Vec<String> = std::fs::read_dir(root().join("examples/c"))
        .expect("examples/c")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .map(|p| p.display().to_string())
        .collect();
    sources.sort();
    let exe = tmp.join("greedy-c");
    let mut cc = vec!["-Iinclude".to_owned()];
    cc.extend(sources);
    cc.extend([
        format!("-L{}", lib_dir.display()),
        "-ltenten_ffi".to_owned(),
        "-o".to_owned(),
        exe.display().to_string(),
    ]);
    run("cc", &cc, &[]);
    let ld = [("LD_LIBRARY_PATH", lib_dir.display().to_string())];
    assert_same("C", &run(&exe.display().to_string(), &[], &ld), &want);

    let env = [
        ("TENTEN_LIB", lib.display().to_string()),
        ("TENTEN_OUT", tmp.join("csharp").display().to_string()),
    ];
    assert_same("C#", &run("examples/csharp/run.sh", &[], &env), &want);
    assert_same(
        "Python",
        &run("python3", &["examples/python/greedy.py".to_owned()], &env[..1]),
        &want,
    );
}
