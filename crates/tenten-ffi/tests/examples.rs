//! The three examples (C, C# through Mono, Python through ctypes) and the
//! workbench's own engine play the same 200 rounds of seed 7 with the
//! repair generator, and with an adaptive generator that reads the games
//! the examples report, and print the same lines, byte for byte.
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
use tenten_engine::play::adaptive::History;
use tenten_engine::play::dealers::{Dealer, Table, nth_deal_seed};
use tenten_engine::play::file_dealer::FileDealer;
use tenten_engine::play::game::{End, GreedyStrategy, Strategy, lost_to};
use tenten_engine::play::generator_file;
use tenten_engine::progress::Progress;
use tenten_engine::search::validator::validate;

const SEED: u64 = 7;
const ROUNDS: u64 = 200;
const K: usize = 3;

const REPAIR: &str = "presets/generators/repair.ron";
const ADAPTIVE: &str = "docs/examples/adaptive.ron";

/// The examples' program written against the engine itself: the dealer,
/// the validator, the workbench's greedy strategy (most empty cells, then
/// most lines, then the lowest anchor) and the danger of each lost board.
/// Game g is dealt from seed 7 + g - 1 by a dealer that knows the games
/// before it (`report`), as the examples report them through the library.
fn engine_lines(file: &str, report: bool) -> String {
    let spec = generator_file::load(&root().join(file), &PieceSet::classic()).expect("the generator loads");
    let set = spec.set.clone();
    let shapes = Shapes::new(&set, BoardSize::CLASSIC);
    let cells = BoardSize::CLASSIC.cells() as u32;
    let mut history = History::default();
    let mut dealer = FileDealer::new(spec.clone());
    let (mut board, mut total, mut game): (Bits, u64, u32) = (0, 0, 1);
    // Deals of this game, and its rounds completed (the engine's count:
    // a round counts once its holder is placed, `play_game`).
    let (mut n, mut completed) = (0, 0u32);
    let mut out = String::new();
    for round in 0..ROUNDS {
        let table = Table {
            shapes: &shapes,
            set: &set,
            board,
            k: K,
        };
        let mut rng = Generator::new(nth_deal_seed(SEED + u64::from(game) - 1, n));
        n += 1;
        let dealt = dealer.deal(&table, &mut rng);
        let (holder, dealt_on) = (dealt.holder, board);
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
        completed += u32::from(!over);
        let ids: Vec<&str> = holder.iter().map(|&p| set.piece(p).id.as_str()).collect();
        let moves = if texts.is_empty() {
            "-".to_owned()
        } else {
            texts.join(";")
        };
        let _ = writeln!(
            out,
            "round {} game {game} holder={} solvable={} placements={} moves={moves} points={points} score={total} filled={}{}",
            round + 1,
            ids.join(","),
            u8::from(verdict.solvable),
            verdict.nodes,
            board.count_ones(),
            if over { " over" } else { "" }
        );
        if over {
            let d = danger(&shapes, &set, board, K).expect("k = 3 is judged");
            // The examples' reading of an unfair end (an unplaceable holder
            // on a board some holder fits) is the engine's own.
            let unfair = !verdict.solvable && !dealt.dead && {
                let before = danger(&shapes, &set, dealt_on, K).expect("k = 3 is judged");
                (before.killers.len() as u64) < before.multisets
            };
            assert_eq!(
                unfair,
                lost_to(&shapes, &set, dealt_on, &holder, dealt.dead) == End::Unfair,
                "game {game}"
            );
            let _ = writeln!(
                out,
                "game {game} over: score={total} danger={:.6} killers={} of {} rounds={completed} unfair={}",
                d.probability,
                d.killers.len(),
                d.multisets,
                u8::from(unfair)
            );
            if report {
                history.ended(completed, unfair);
            }
            dealer = FileDealer::new(spec.clone()).with_history(history.clone());
            (board, total, game, n, completed) = (0, 0, game + 1, 0, 0);
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
    let want = engine_lines(REPAIR, true);
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
    // The adaptive generator reads the games the examples report: the same
    // program without the reports deals otherwise, and some game ends unfair.
    let adaptive = engine_lines(ADAPTIVE, true);
    assert_ne!(adaptive, engine_lines(ADAPTIVE, false));
    assert!(adaptive.contains(" unfair=1\n"), "{adaptive}");

    let examples = Examples::build();
    for (file, want) in [(REPAIR, &want), (ADAPTIVE, &adaptive)] {
        for (language, got) in examples.run(file) {
            assert_same(&format!("{language} on {file}"), &got, want);
        }
    }
}

/// The three examples, built once.
struct Examples {
    c: String,
    ld: [(&'static str, String); 1],
    env: [(&'static str, String); 2],
}

impl Examples {
    fn build() -> Self {
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
        Self {
            c: exe.display().to_string(),
            ld: [("LD_LIBRARY_PATH", lib_dir.display().to_string())],
            env: [
                ("TENTEN_LIB", lib.display().to_string()),
                ("TENTEN_OUT", tmp.join("csharp").display().to_string()),
            ],
        }
    }

    /// Each example's lines for the generator `file`, by language.
    fn run(&self, file: &str) -> [(&'static str, String); 3] {
        let arg = [file.to_owned()];
        [
            ("C", run(&self.c, &arg, &self.ld)),
            ("C#", run("examples/csharp/run.sh", &arg, &self.env)),
            (
                "Python",
                run(
                    "python3",
                    &["examples/python/greedy.py".to_owned(), file.to_owned()],
                    &self.env[..1],
                ),
            ),
        ]
    }
}
