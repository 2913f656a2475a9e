use proptest::prelude::*;

use super::*;
use crate::model::board::BoardSize;
use crate::model::pieces::PieceSet;
use crate::play::coelho::CoelhoWeights;
use crate::play::dealers::NAMES;
use crate::play::dealing::Dealing;
use crate::play::who::{NAMES as STRATEGIES, Who};
use crate::progress::Progress;
use crate::study::runner::{self, cli_line, csv, summarize};

fn plan(player: &str, generator: &str, games: usize, seed: u64, max_rounds: u32) -> Plan {
    let generator = match generator.strip_suffix(".ron") {
        Some(_) => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../presets/generators")
            .join(generator)
            .display()
            .to_string(),
        None => generator.to_owned(),
    };
    let mut plan = Plan {
        shapes_size: BoardSize::new(8, 8).unwrap(),
        games,
        seed,
        max_rounds,
        ..Plan::named(PieceSet::classic(), &[player], &[&generator], CoelhoWeights::BEST).unwrap()
    };
    // Labelled by file name, as the CLI's tests expect.
    plan.generators[0].0 = Path::new(&generator)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    plan
}

/// The run's games in `shard`, as `tenten simulate --shard --out` writes them.
fn shard_file(plan: &Plan, shard: Shard) -> ResultFile {
    let mut file = ResultFile::new(plan.clone(), shard);
    for pair in 0..file.pairs.len() {
        let (p, g) = (
            file.pairs[pair].player.clone(),
            file.pairs[pair].generator.clone(),
        );
        let games = file.missing(pair);
        let played = runner::run_games(plan, &p, &g, &games, 1, &Progress::default()).unwrap();
        file.add(pair, games.into_iter().zip(played), 0.5);
    }
    file
}

/// What `tenten simulate` prints and writes for a result, the rate aside
/// (lines with rate 0), and its CSV.
fn printed(file: &ResultFile) -> (Vec<String>, String) {
    let rows = file.rows().unwrap();
    let set = file.plan.set.clone();
    let lines = rows
        .iter()
        .map(|((p, g, games), _)| cli_line(p, g, &summarize(games, &set), &file.plan.fingerprint(), 0.0))
        .collect();
    let rows: Vec<Row> = rows.into_iter().map(|(r, _)| r).collect();
    (lines, csv(&rows))
}

/// Shards of `plan` cut `n` ways, merged, each through its file's text.
fn merged(plan: &Plan, n: usize) -> Result<ResultFile, String> {
    let parts: Vec<(String, ResultFile)> = (0..n)
        .map(|i| {
            let text = shard_file(plan, Shard { index: i, of: n }).to_ron();
            let name = format!("part-{i}.ron");
            (name.clone(), ResultFile::parse(&text, &name).unwrap())
        })
        .collect();
    merge(&parts)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// For every generator (the built-ins and a file with mercy and bands),
    /// player and strategy, a merge of 1, 2, 3 or 7 shards prints what one
    /// process prints, bit for bit, and writes the same CSV.
    #[test]
    fn a_merge_of_shards_is_one_process_bit_for_bit(
        player in proptest::sample::select(STRATEGIES.to_vec()),
        generator in proptest::sample::select({
            let mut g: Vec<&str> = NAMES.to_vec();
            g.push("classic-with-mercy.ron");
            g
        }),
        n in proptest::sample::select(vec![1usize, 2, 3, 7]),
        games in 1usize..12,
        seed in any::<u64>(),
    ) {
        // The searching players are slow: fewer rounds for them.
        let max_rounds = if ["coelho", "machine", "expert", "skilled"].contains(&player) { 6 } else { 60 };
        let plan = plan(player, generator, games, seed, max_rounds);
        let one = shard_file(&plan, Shard::ALL);
        let whole = merged(&plan, n).unwrap();
        prop_assert_eq!(printed(&whole), printed(&one));
        prop_assert_eq!(whole.shard, Shard::ALL);
        prop_assert_eq!(whole.pairs[0].seconds, 0.5 * n as f64);
    }
}

#[test]
fn a_shard_plays_the_games_it_names_with_their_seeds() {
    let plan = plan("greedy", "random", 10, 40, 50);
    let part = shard_file(&plan, Shard { index: 1, of: 3 });
    let g: Vec<(usize, u64)> = part.pairs[0].games.iter().map(|r| (r.g, r.seed)).collect();
    assert_eq!(g, vec![(1, 41), (4, 44), (7, 47)]);
    assert_eq!(part.done(), (3, 3));
    assert_eq!(Shard::parse("2/8"), Ok(Shard { index: 2, of: 8 }));
    for bad in ["8/8", "1/0", "x/3", "3"] {
        assert!(Shard::parse(bad).is_err(), "{bad}");
    }
}

fn parts(plan: &Plan, n: usize) -> Vec<(String, ResultFile)> {
    (0..n)
        .map(|i| {
            (
                format!("part-{i}.ron"),
                shard_file(plan, Shard { index: i, of: n }),
            )
        })
        .collect()
}

#[test]
fn a_merge_refuses_a_missing_shard_a_shard_twice_and_other_runs() {
    let plan = plan("greedy", "random", 9, 5, 40);
    let all = parts(&plan, 3);

    let e = merge(&all[..2]).unwrap_err();
    assert!(e.contains("shard 2/3 is missing"), "{e}");

    let twice = vec![
        all[0].clone(),
        all[1].clone(),
        all[2].clone(),
        ("copy.ron".to_owned(), all[1].1.clone()),
    ];
    let e = merge(&twice).unwrap_err();
    assert!(
        e.contains("shard 1/3 appears twice: part-1.ron and copy.ron"),
        "{e}"
    );

    let mut other = all.clone();
    other[2] = (
        "other.ron".to_owned(),
        parts(&plan_with_games(&plan, 12), 3).remove(2).1,
    );
    let e = merge(&other).unwrap_err();
    assert!(
        e.contains("other.ron and part-0.ron are shards of different runs"),
        "{e}"
    );
    assert!(e.contains("games: 9 in part-0.ron, 12 in other.ron"), "{e}");

    let mut cut = all.clone();
    cut[0].1.shard = Shard { index: 0, of: 4 };
    let e = merge(&cut).unwrap_err();
    assert!(e.contains("one number of shards"), "{e}");

    let mut unfinished = all.clone();
    unfinished[1].1.pairs[0].games.pop();
    let e = merge(&unfinished).unwrap_err();
    assert!(
        e.contains("part-1.ron holds 2 of shard 1/3's 3 games: it is unfinished"),
        "{e}"
    );

    assert!(merge(&[]).unwrap_err().contains("no result files"));
    assert!(merge(&all).is_ok());
}

fn plan_with_games(plan: &Plan, games: usize) -> Plan {
    Plan {
        games,
        ..plan.clone()
    }
}

#[test]
fn a_result_file_refuses_another_format_and_records_that_do_not_fit() {
    let plan = plan("greedy", "random", 4, 1, 30);
    let file = shard_file(&plan, Shard { index: 0, of: 2 });
    let text = file.to_ron();
    assert_eq!(ResultFile::parse(&text, "a.ron").unwrap(), file);

    let e = ResultFile::parse(&text.replacen("format: 2", "format: 7", 1), "a.ron").unwrap_err();
    assert!(e.to_string().contains("a result file of format 7"), "{e}");
    let e = ResultFile::parse(&text.replacen("(g: 2, seed: 3", "(g: 3, seed: 4", 1), "a.ron").unwrap_err();
    assert!(
        e.to_string()
            .contains("game 3 of greedy against random is not one of shard 0/2"),
        "{e}"
    );
    let e = ResultFile::parse(&text.replacen("(g: 2, seed: 3", "(g: 2, seed: 9", 1), "a.ron").unwrap_err();
    assert!(e.to_string().contains("has seed 9, not the run's 3"), "{e}");
    let e = ResultFile::parse("(format: 1, engine: ", "a.ron").unwrap_err();
    assert!(e.to_string().starts_with("a.ron:1:"), "{e}");
}

#[test]
fn a_result_file_holds_its_plan_by_value_and_refuses_another_engine_or_an_edit() {
    let plan = plan("casual", "classic-with-mercy.ron", 3, 9, 30);
    let file = shard_file(&plan, Shard::ALL);
    let text = file.to_ron();
    // No path to a file: the rules and every weight are written out.
    assert!(!text.contains("pieces: \"../"), "{text}");
    let back = ResultFile::parse(&text, "a.ron").unwrap();
    assert_eq!(back.plan, plan);
    assert_eq!(back.fingerprint, plan.fingerprint());
    assert_eq!(plan.fingerprint().len(), 16);
    let e = ResultFile::parse(
        &text.replacen(&format!("engine: \"{ENGINE}\""), "engine: \"0.0.9\"", 1),
        "a.ron",
    )
    .unwrap_err();
    assert!(e.to_string().contains("played by engine behaviour 0.0.9"), "{e}");
    let e = ResultFile::parse(&text.replacen("seed: 9,", "seed: 10,", 1), "a.ron").unwrap_err();
    assert!(e.to_string().contains("the file was edited"), "{e}");
}

/// One change to one field of what decides a game: its name as a refusal
/// names it, and the change.
type Change = (&'static str, fn(&mut Plan, u32));

fn weight_of<'a>(plan: &'a mut Plan, id: &str) -> &'a mut u32 {
    let i = plan.set.index_of(id).unwrap();
    &mut plan.set.pieces[usize::from(i)].weight
}

fn model(plan: &mut Plan, who: usize) -> &mut crate::play::player::Player {
    match &mut plan.players[who].1 {
        Who::Model(p) => p,
        other => panic!("{other:?}"),
    }
}

fn file_rules(plan: &mut Plan) -> &mut crate::play::generator_file::GeneratorSpec {
    match &mut plan.generators[1].1 {
        Dealing::File(spec) => spec,
        other => panic!("{other:?}"),
    }
}

const CHANGES: [Change; 22] = [
    ("pieces: sq3 weight", |p, v| *weight_of(p, "sq3") = 3 + v % 900),
    ("pieces: name", |p, v| p.set.name = format!("set {v}")),
    ("pieces: dot rows", |p, _| {
        let dot = p.set.index_of("dot").unwrap();
        p.set.pieces[usize::from(dot)] =
            crate::model::pieces::Piece::from_rows("dot", "b(0,0)", 2, &["##".to_owned()]).unwrap();
    }),
    ("pieces: dot label", |p, v| {
        let dot = p.set.index_of("dot").unwrap();
        p.set.pieces[usize::from(dot)].label = format!("dot {v}");
    }),
    ("board:", |p, v| {
        p.shapes_size = BoardSize::new(9 + (v % 3) as u8 as usize, 8).unwrap()
    }),
    ("holder:", |p, v| p.k = 1 + (v % 2) as usize),
    ("max_rounds:", |p, v| p.max_rounds = 31 + v % 1000),
    ("games:", |p, v| p.games = 7 + (v % 50) as usize),
    ("seed:", |p, v| p.seed = 10 + u64::from(v)),
    ("repair: policy", |p, _| {
        p.options.policy = crate::search::heuristic::Policy::Last
    }),
    ("repair: reading", |p, _| {
        p.options.reading = crate::search::heuristic::Reading::Piece
    }),
    ("repair: redraws", |p, v| {
        p.options.max_redraws = 65 + (v % 100) as usize
    }),
    ("players: #1", |p, v| p.players[0].0 = format!("someone {v}")),
    ("players: novice model temperature", |p, v| {
        model(p, 0).temperature = 2.0 + f64::from(v % 100)
    }),
    ("players: novice model slip", |p, v| {
        model(p, 0).slip = f64::from(v % 100) / 200.0
    }),
    ("players: novice model evaluation", |p, _| {
        model(p, 0).evaluation = CoelhoWeights([9, 9, 9, 9, 9])
    }),
    ("players: coelho criteria", |p, _| {
        p.players[1].1 = Who::Coelho {
            criteria: CoelhoWeights([0, 0, 0, 0, 1]),
        }
    }),
    ("generators: #1", |p, v| p.generators[0].0 = format!("other {v}")),
    ("generators: random builtin", |p, _| {
        p.generators[0].1 = Dealing::Builtin("bag")
    }),
    ("generators: classic-with-mercy.ron file weights dot", |p, v| {
        let spec = file_rules(p);
        let dot = spec.set.index_of("dot").unwrap();
        spec.set.pieces[usize::from(dot)].weight = 4 + v % 900;
    }),
    (
        "generators: classic-with-mercy.ron file repeat_previous",
        |p, v| file_rules(p).file.repeat_previous = f64::from(v % 100 + 1) / 200.0,
    ),
    ("generators: classic-with-mercy.ron file mercy", |p, _| {
        file_rules(p).file.mercy = None
    }),
];

fn two_by_two() -> Plan {
    let mut p = plan("novice", "classic-with-mercy.ron", 4, 9, 30);
    let more = Plan::named(PieceSet::classic(), &["coelho"], &["random"], CoelhoWeights::BEST).unwrap();
    p.players.extend(more.players);
    p.generators.insert(0, more.generators[0].clone());
    p
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// Every single-field change to the identity makes a shard of another
    /// run: the merge refuses it and names the field (the resume compares
    /// with the same function).
    #[test]
    fn a_merge_refuses_every_single_field_change_naming_it(
        change in 0..CHANGES.len(),
        value in any::<u32>(),
    ) {
        let base = two_by_two();
        let (field, apply) = CHANGES[change];
        let mut other = base.clone();
        apply(&mut other, value);
        prop_assume!(other != base);
        prop_assert!(other.check().is_ok());
        // Stored by value: the change survives the file.
        let a = ResultFile::new(base.clone(), Shard { index: 0, of: 2 });
        let b = ResultFile::new(other.clone(), Shard { index: 1, of: 2 });
        let b = ResultFile::parse(&b.to_ron(), "b.ron").unwrap();
        prop_assert_ne!(&a.fingerprint, &b.fingerprint);
        let e = merge(&[("a.ron".to_owned(), a), ("b.ron".to_owned(), b)]).unwrap_err();
        prop_assert!(e.contains("b.ron and a.ron are shards of different runs: "), "{}", e);
        prop_assert!(e.contains(field), "{} does not name {}", e, field);
        prop_assert!(e.contains(" in a.ron, ") && e.ends_with(" in b.ron"), "{}", e);
    }
}
