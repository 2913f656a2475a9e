use proptest::prelude::*;

use super::*;
use crate::play::dealers::NAMES;
use crate::play::game::STRATEGIES;
use crate::play::runner::{self, cli_line, csv, summarize};
use crate::progress::Progress;

fn plan(player: &str, generator: &str, games: usize, seed: u64, max_rounds: u32) -> Plan {
    let set = PieceSet::classic();
    let mut specs = Vec::new();
    if generator.ends_with(".ron") {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../presets/generators")
            .join(generator);
        specs.push((generator.to_owned(), generator_file::load(&path, &set).unwrap()));
    }
    Plan {
        set,
        shapes_size: BoardSize::new(8, 8).unwrap(),
        k: 3,
        generators: vec![generator.to_owned()],
        players: vec![player.to_owned()],
        games,
        seed,
        max_rounds,
        options: ChangeOptions::default(),
        weights: CoelhoWeights::BEST,
        specs,
    }
}

/// The run's games in `shard`, as `tenten simulate --shard --out` writes them.
fn shard_file(plan: &Plan, shard: Shard) -> ResultFile {
    let mut file = ResultFile::new(Settings::of(plan).unwrap(), shard);
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
    let set = file.settings.plan("test").unwrap().set;
    let lines = rows
        .iter()
        .map(|((p, g, games), _)| cli_line(p, g, &summarize(games, &set), 0.0))
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
    assert!(e.contains("games (12 against 9)"), "{e}");

    let mut version = all.clone();
    version[1].1.engine = "0.0.9".to_owned();
    let e = merge(&version).unwrap_err();
    assert!(e.contains("part-1.ron was written by tenten 0.0.9"), "{e}");

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

    let e = ResultFile::parse(&text.replacen("format: 1", "format: 7", 1), "a.ron").unwrap_err();
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
fn settings_round_trip_to_the_plan() {
    let plan = plan("casual", "classic-with-mercy.ron", 3, 9, 30);
    let settings = Settings::of(&plan).unwrap();
    let back = settings.plan("t").unwrap();
    assert_eq!(Settings::of(&back).unwrap(), settings);
    assert_eq!(back.set.pieces.len(), plan.set.pieces.len());
    assert_eq!(back.specs.len(), 1);
}
