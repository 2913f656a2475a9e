//! Recovery: logs dealt by every preset generator (and by random rules
//! drawn from a seeded range), learned back.

use super::*;
use crate::fits::generator::deals::{Deals, Seen};
use crate::model::board::BoardSize;
use crate::play::dealing::Dealing;
use crate::play::player;
use crate::search::heuristic::Policy;
use crate::study::fit::record_places_dealt;

/// `n` deals dealt by `generator` to `player`, as the fit reads them.
pub fn dealt(generator: &str, player: &str, seed: u64, n: usize) -> (PieceSet, Deals) {
    let set = PieceSet::classic();
    let shapes = Shapes::new(&set, BoardSize::CLASSIC);
    let dealing = Dealing::by_name(generator, &set).unwrap();
    let who = player::preset(player).unwrap();
    let places = record_places_dealt(&shapes, &set, 3, &who, seed, n, &dealing);
    let text =
        crate::io::playtest_log::to_jsonl(&places, BoardSize::CLASSIC, &set, player, "s", Some(generator));
    let deals = deals::read_texts(&[("log.jsonl".to_owned(), text)], &set).unwrap();
    (set, deals)
}

fn quick() -> Request {
    Request {
        replications: 10,
        held_out: false,
        ..Request::default()
    }
}

#[test]
#[ignore = "prints the table of every preset (a look, not a check)"]
fn print_every_preset() {
    for g in std::env::var("PRESETS")
        .unwrap_or("random,reject,repair,bag,block-blast-like,classic-with-mercy".into())
        .split(",")
    {
        let t = std::time::Instant::now();
        let (set, deals) = dealt(g, "novice", 1, 2000);
        let l = learn(&set, &deals, &quick(), &Progress::default())
            .unwrap()
            .unwrap();
        println!("== {g} ({:.1} s)", t.elapsed().as_secs_f64());
        for line in &l.lines {
            println!("{line}");
        }
    }
}

#[test]
#[ignore = "times the four checks on many deals (a measurement)"]
fn time_the_four_checks() {
    let n: usize = std::env::var("DEALS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let (set, deals) = dealt("repair", "casual", 1, n);
    let req = Request {
        policies: vec![Policy::Deepest],
        rules: false,
        held_out: false,
        replications: 10,
        ..Request::default()
    };
    let t = std::time::Instant::now();
    let l = learn(&set, &deals, &req, &Progress::default()).unwrap().unwrap();
    println!("{n} deals: {:.1} s", t.elapsed().as_secs_f64());
    for line in &l.lines {
        println!("{line}");
    }
}

#[test]
fn no_deal_and_one_deal_give_the_prior_with_unbounded_intervals() {
    let set = PieceSet::classic();
    let empty = Deals {
        size: BoardSize::CLASSIC,
        k: 3,
        deals: Vec::new(),
        games: 0,
        notes: Vec::new(),
    };
    let l = learn(&set, &empty, &quick(), &Progress::default())
        .unwrap()
        .unwrap();
    assert!(l.lines[0].starts_with("deals=0 "), "{}", l.lines[0]);
    assert!(l.notes.iter().any(|n| n.contains("fewer than 2 deals")));
    let one = Deals {
        deals: vec![Seen {
            board: 0,
            holder: vec![0, 1, 2],
            game: 0,
            previous: None,
            dry_rounds: Some(0),
            dealt_before: Some(0),
            fill: 0.0,
            at: "x:1".to_owned(),
        }],
        games: 1,
        ..empty
    };
    let l = learn(&set, &one, &quick(), &Progress::default())
        .unwrap()
        .unwrap();
    assert!(l.lines[0].starts_with("deals=1 "), "{}", l.lines[0]);
    let best = l.best.unwrap();
    // A share seen once in three pieces: its interval is wide or open.
    assert!(best.intervals[0].iter().all(|&(lo, hi)| lo <= hi));
    assert!(
        best.intervals[0][0].1 - best.intervals[0][0].0 > 0.5,
        "{:?}",
        best.intervals[0][0]
    );
}
