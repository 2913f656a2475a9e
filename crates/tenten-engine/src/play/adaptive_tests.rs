use super::*;
use crate::fixtures::classic;
use crate::model::generator::Generator;
use crate::play::dealers::{Dealer, Table};
use crate::play::file_dealer::FileDealer;
use crate::play::generator_file::{self, GeneratorSpec};

fn spec_of(text: &str) -> GeneratorSpec {
    generator_file::parse(text, "adaptive.ron", &crate::model::pieces::PieceSet::classic()).unwrap()
}

fn with_rules(check: &str, rules: &str) -> String {
    format!("(name: \"a\", check: {check}, adaptive: Some((rules: [{rules}])))")
}

#[test]
fn history_keeps_the_session_and_the_players_typical_game() {
    let mut h = History::default();
    assert_eq!(h.log_ratio(), None);
    h.ended(20, false);
    assert_eq!((h.session_games, h.unfair_in_row), (1, 0));
    // One game: nothing earlier to compare it with.
    assert_eq!(h.log_ratio(), None);
    h.ended(0, true);
    h.ended(5, true);
    assert_eq!((h.session_games, h.unfair_in_row), (3, 2));
    // Typical: the geometric mean of 20 and 1 (a game lost at once counts 1).
    let typical = (20f64.ln() + 1f64.ln()) / 2.0;
    assert!((h.log_ratio().unwrap() - (5f64.ln() - typical)).abs() < 1e-12);
    h.new_session();
    assert_eq!((h.session_games, h.unfair_in_row, h.last), (0, 0, None));
    assert_eq!(h.earlier_games, 3);
    h.ended(10, false);
    let typical = (20f64.ln() + 5f64.ln()) / 3.0;
    assert!((h.log_ratio().unwrap() - (10f64.ln() - typical)).abs() < 1e-12);
}

/// A history written and read back is the same to the last bit.
#[test]
fn a_history_reads_back_exactly() {
    let mut h = History::default();
    for r in [3, 7, 11, 29, 1, 400] {
        h.ended(r, r % 2 == 0);
    }
    h.new_session();
    h.ended(13, true);
    let text = serde_json::to_string(&h).unwrap();
    let back: History = serde_json::from_str(&text).unwrap();
    assert_eq!(back.earlier_log_rounds.to_bits(), h.earlier_log_rounds.to_bits());
    assert_eq!(back, h);
}

/// Every condition against its plain reading.
#[test]
fn each_condition_holds_exactly_when_its_reading_says() {
    let now = Now {
        round: 7,
        fill: 0.4,
        dry_rounds: 3,
    };
    let mut fresh = History::default();
    let mut danger = || 0.25;
    assert!(When::FirstGame.holds(&fresh, &now, &mut danger));
    assert!(!When::AfterUnfair.holds(&fresh, &now, &mut danger));
    fresh.ended(40, false);
    fresh.ended(10, true);
    let h = fresh;
    let cases = [
        (When::FirstGame, false),
        (When::AfterUnfair, true),
        (When::UnfairInRow(1), true),
        (When::UnfairInRow(2), false),
        // 10 against a typical 40: a quarter.
        (When::LastShorter(0.5), true),
        (When::LastShorter(0.2), false),
        (When::LastLonger(0.2), true),
        (When::LastLonger(1.0), false),
        (When::SessionGames(2), true),
        (When::SessionGames(3), false),
        (When::Round(7), true),
        (When::Round(8), false),
        // Typical of 40 and 10: 20; round 7 is past 0.3 of it, not 0.4.
        (When::RoundPastTypical(0.3), true),
        (When::RoundPastTypical(0.4), false),
        (When::FillAbove(0.39), true),
        (When::FillAbove(0.4), false),
        (When::DryRounds(3), true),
        (When::DryRounds(4), false),
        (When::DangerAbove(0.2), true),
        (When::DangerAbove(0.25), false),
    ];
    for (w, expect) in cases {
        assert_eq!(w.holds(&h, &now, &mut danger), expect, "{w:?}");
    }
    // A new session: no last game to read.
    let mut next = h.clone();
    next.new_session();
    assert!(!When::AfterUnfair.holds(&next, &now, &mut danger));
    assert!(!When::LastShorter(10.0).holds(&next, &now, &mut danger));
    assert!(When::FirstGame.holds(&next, &now, &mut danger));
    // The typical game outlives the session's start.
    assert!(When::RoundPastTypical(0.3).holds(&next, &now, &mut danger));
    assert!(!When::RoundPastTypical(0.01).holds(&History::default(), &now, &mut danger));
    // The first rule whose conditions all hold is in force.
    let a = Adaptive {
        rules: vec![
            Rule {
                when: vec![When::AfterUnfair, When::Round(9)],
                tilt: 1.0,
                check: None,
            },
            Rule {
                when: vec![When::AfterUnfair],
                tilt: -1.0,
                check: None,
            },
            Rule {
                when: vec![],
                tilt: 0.5,
                check: None,
            },
        ],
    };
    assert_eq!(a.rule_at(&h, &now, &mut danger), Some(1));
    assert_eq!(a.rule_at(&next, &now, &mut danger), Some(2));
}

#[test]
fn a_policy_is_read_checked_and_written_back() {
    let text = with_rules(
        "none",
        "(when: [after_unfair, danger_above(0.3)], tilt: -1.5, check: Some(repair(policy: deepest, redraws: 64))), (when: [last_longer(2.0)], tilt: 0.5)",
    );
    let spec = spec_of(&text);
    let a = spec.file.adaptive.as_ref().unwrap();
    assert_eq!(a.rules.len(), 2);
    assert!(a.reads_danger());
    let back = generator_file::parse(&spec.to_ron(), "back.ron", &spec.set).unwrap();
    assert_eq!(back.file, spec.file);
    // A bag deals whole bags: a tilt with no check of its own is refused.
    let e =
        generator_file::parse(&with_rules("bag", "(when: [], tilt: 1.0)"), "bag.ron", &spec.set).unwrap_err();
    assert!(e.message.contains("bag") && e.message.contains("rule 0"), "{e}");
    assert!(
        generator_file::parse(
            &with_rules("bag", "(when: [], tilt: 1.0, check: Some(none))"),
            "bag.ron",
            &spec.set
        )
        .is_ok()
    );
    // A file without the section writes none.
    let plain = spec_of("(name: \"p\", check: none)");
    assert!(!plain.to_ron().contains("adaptive"));
    let set = crate::model::pieces::PieceSet::classic();
    for (rules, says) in [
        ("(when: [], tilt: 9.0)", "tilt 9"),
        ("(when: [], check: Some(bag))", "a bag"),
        ("(when: [last_shorter(0.0)])", "length ratio"),
        ("(when: [round_past_typical(-1.0)])", "length ratio"),
        (
            "(when: [round(1), round(1), round(1), round(1), round(1), round(1), round(1), round(1), round(1), round(1), round(1), round(1), round(1), round(1), round(1), round(1), round(1)])",
            "at most 16",
        ),
        ("(when: [fill_above(1.5)])", "fill_above"),
        ("(when: [danger_above(-0.1)])", "danger_above"),
        ("(when: [], check: Some(reject(redraws: 4000000000)))", "redraws"),
    ] {
        let e = generator_file::parse(&with_rules("none", rules), "bad.ron", &set).unwrap_err();
        assert!(
            e.message.contains(says) && e.message.contains("rule 0"),
            "{rules}: {e}"
        );
        assert!(e.to_string().starts_with("bad.ron:"), "{e}");
    }
}

fn deals(dealer: &mut FileDealer, boards: &[crate::model::board::Bits], seed: u64) -> Vec<Vec<u8>> {
    let (set, shapes) = classic();
    let mut rng = Generator::new(seed);
    boards
        .iter()
        .map(|&board| {
            let table = Table {
                shapes: &shapes,
                set: &set,
                board,
                k: 3,
            };
            dealer.deal(&table, &mut rng).holder
        })
        .collect()
}

/// Rules that never hold, or hold with no lever moved, deal what the file
/// deals without them, holder for holder.
#[test]
fn rules_that_move_nothing_deal_as_the_file_without_them() {
    let (set, shapes) = classic();
    let boards: Vec<_> =
        crate::play::random_fill::played_deals(&shapes, &set, 3, 200, &mut Generator::new(3))
            .iter()
            .map(|d| d.board)
            .collect();
    for check in [
        "none",
        "repair(policy: deepest, redraws: 64)",
        "reject(redraws: 100)",
    ] {
        let plain = deals(
            &mut FileDealer::new(spec_of(&format!("(name: \"p\", check: {check})"))),
            &boards,
            5,
        );
        for rules in [
            "(when: [after_unfair], tilt: -2.0)",
            "(when: [], tilt: 0.0)",
            "(when: [round(100000)], tilt: 3.0)",
        ] {
            let mut d = FileDealer::new(spec_of(&with_rules(check, rules)));
            assert_eq!(deals(&mut d, &boards, 5), plain, "{check} {rules}");
        }
    }
}

/// A tilt moves the dealt sizes its way; a rule's check is in force only
/// where the rule holds, and the history decides it.
#[test]
fn levers_act_only_where_their_rule_holds() {
    let (set, shapes) = classic();
    let empty = vec![0; 3000];
    let mean_size = |text: &str, history: &History| {
        let mut d = FileDealer::new(spec_of(text)).with_history(history.clone());
        let dealt = deals(&mut d, &empty, 9);
        let cells: usize = dealt
            .iter()
            .flatten()
            .map(|&p| set.pieces[usize::from(p)].size())
            .sum();
        cells as f64 / (dealt.len() * 3) as f64
    };
    let fresh = History::default();
    let mut after_unfair = History::default();
    after_unfair.ended(12, true);
    let base = mean_size("(name: \"p\", check: none)", &fresh);
    let text = with_rules(
        "none",
        "(when: [after_unfair], tilt: -2.0), (when: [], tilt: 2.0)",
    );
    let small = mean_size(&text, &after_unfair);
    let large = mean_size(&text, &fresh);
    assert!(small < base - 0.5 && large > base + 0.5, "{small} {base} {large}");
    // Check: repair only when the board is in danger; boards where every
    // holder is solvable deal as the unchecked file.
    let boards: Vec<_> =
        crate::play::random_fill::played_deals(&shapes, &set, 3, 300, &mut Generator::new(4))
            .iter()
            .map(|d| d.board)
            .collect();
    let guarded = with_rules(
        "none",
        "(when: [danger_above(0.0)], check: Some(repair(policy: deepest, redraws: 64)))",
    );
    let mut d = FileDealer::new(spec_of(&guarded));
    let mut rng = Generator::new(2);
    let mut repaired_boards = 0;
    for &board in &boards {
        let table = Table {
            shapes: &shapes,
            set: &set,
            board,
            k: 3,
        };
        let danger = crate::danger::danger_probability(&shapes, &set, board, 3).unwrap();
        let dealt = d.deal(&table, &mut rng);
        let fair = crate::search::validator::validate(&shapes, board, &dealt.holder).solvable;
        if danger > 0.0 {
            repaired_boards += 1;
            assert!(fair || dealt.dead, "a repaired holder is solvable where one is");
        }
    }
    assert!(repaired_boards > 0, "no board of the sample was in danger");
}

/// A typed history reads as the same games reported one by one; bad
/// games are refused with their place.
#[test]
fn a_written_history_is_the_games_reported_in_turn() {
    let mut h = History::default();
    h.ended(12, true);
    h.ended(40, false);
    h.new_session();
    h.ended(3, true);
    assert_eq!(History::parse("12u, 40 | 3U").unwrap(), h);
    assert_eq!(History::parse("").unwrap(), History::default());
    assert_eq!(History::parse(" ").unwrap(), History::default());
    for bad in ["0", "12x", "u", "-3", "4294967296", "1,,x"] {
        let e = History::parse(bad).unwrap_err();
        assert!(e.contains("game "), "{bad}: {e}");
    }
    let long = vec!["1"; MAX_PARSED_GAMES + 1].join(",");
    assert!(History::parse(&long).unwrap_err().contains("more than"));
}
