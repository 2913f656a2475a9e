//! Every reader of the workbench's files takes arbitrary text and numbers:
//! piece sets, deals and batches, generator files, player files, playtest
//! logs and result files. Each answers with a value or an error naming the
//! file, never a panic, and no number in a file makes a structure grow past
//! 64 MB (a global allocator remembers the largest allocation). Damaged
//! files are the shipped presets with a cut, junk, or a number replaced by
//! one drawn from the whole range of u64 and f64.

mod common;

use proptest::prelude::*;
use tenten_engine::io::{formats, playtest_log};
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::play::generator_file;
use tenten_engine::play::player::Player;
use tenten_engine::study::results::ResultFile;

#[global_allocator]
static ALLOC: common::alloc::Largest = common::alloc::Largest;

const LIMIT: usize = 64 << 20;

const FILES: [(&str, &str); 7] = [
    ("set", include_str!("../presets/pieces/classic-1010.ron")),
    ("deal", include_str!("../presets/deals/mid-game.ron")),
    ("batch", include_str!("../presets/deals/teaching-batch.ron")),
    (
        "generator",
        include_str!("../presets/generators/classic-with-mercy.ron"),
    ),
    (
        "generator",
        include_str!("../presets/generators/block-blast-like.ron"),
    ),
    ("player", include_str!("../presets/players/casual.ron")),
    ("log", include_str!("../presets/logs/casual-playtest.ron")),
];

/// Reads `text` as the reader of `kind` does; the error's text if any.
fn read(kind: &str, text: &str) -> Option<String> {
    let set = PieceSet::classic();
    let err = |e: formats::FormatError| Some(e.to_string());
    match kind {
        "set" => formats::parse_piece_set(text, "f.ron").err().and_then(err),
        "deal" | "batch" => formats::parse_deals_each(text, "f.ron").err().and_then(err),
        "generator" => generator_file::parse(text, "f.ron", &set).err().and_then(err),
        "player" => Player::parse(text, "f.ron").err().and_then(err),
        "log" => playtest_log::parse(text, "f.ron", &set).err().and_then(err),
        "result" => ResultFile::parse(text, "f.ron").err().and_then(err),
        other => panic!("{other}"),
    }
}

/// A number drawn from everywhere a typed number can land.
fn any_number() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<u64>().prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|x| format!("{x:?}")),
        Just("1e300".to_owned()),
        Just("4000000000".to_owned()),
        Just("-0.0".to_owned()),
        Just("NaN".to_owned()),
        Just("inf".to_owned()),
    ]
}

fn result_text() -> String {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(result_file).clone()
}

fn result_file() -> String {
    use tenten_engine::study::results::Shard;
    use tenten_engine::study::runner::{Plan, run_games};
    let plan = Plan {
        games: 2,
        max_rounds: 5,
        ..Plan::named(
            PieceSet::classic(),
            &["greedy"],
            &["bag"],
            tenten_engine::play::coelho::CoelhoWeights::BEST,
        )
        .unwrap()
    };
    let mut file = ResultFile::new(plan.clone(), Shard::ALL);
    let played = run_games(&plan, "greedy", "bag", &[0, 1], 1, &Default::default()).unwrap();
    file.add(0, [0, 1].into_iter().zip(played), 0.1);
    file.to_ron()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn every_reader_survives_any_number_in_place_of_one(
        file in 0..FILES.len() + 1,
        which in any::<prop::sample::Index>(),
        number in any_number(),
    ) {
        let (kind, text) = if file == FILES.len() {
            ("result", result_text())
        } else {
            (FILES[file].0, FILES[file].1.to_owned())
        };
        let spots = common::numbers::spots(&text);
        prop_assume!(!spots.is_empty());
        let (a, b) = spots[which.index(spots.len())];
        let damaged = format!("{}{number}{}", &text[..a], &text[b..]);
        if let Some(e) = read(kind, &damaged) {
            prop_assert!(e.starts_with("f.ron"), "{}", e);
        }
        prop_assert!(common::alloc::largest() < LIMIT, "{} bytes for {}", common::alloc::largest(), number);
    }

    #[test]
    fn every_reader_survives_cuts_and_junk(
        file in 0..FILES.len() + 1,
        cut in any::<prop::sample::Index>(),
        len in 0usize..40,
        junk in "[\\[\\](){}:,\"#.a-z0-9 \n-]{0,12}",
    ) {
        let (kind, text) = if file == FILES.len() {
            ("result", result_text())
        } else {
            (FILES[file].0, FILES[file].1.to_owned())
        };
        let mut at = cut.index(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let mut end = (at + len).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let damaged = format!("{}{junk}{}", &text[..at], &text[end..]);
        if let Some(e) = read(kind, &damaged) {
            prop_assert!(e.starts_with("f.ron"), "{}", e);
        }
        prop_assert!(common::alloc::largest() < LIMIT);
    }

    #[test]
    fn every_reader_survives_any_text(kind in prop::sample::select(vec!["set", "deal", "generator", "player", "log", "result"]), text in ".{0,200}") {
        if let Some(e) = read(kind, &text) {
            prop_assert!(e.starts_with("f.ron"), "{}", e);
        }
    }
}
