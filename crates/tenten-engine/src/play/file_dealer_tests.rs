use super::*;
use crate::fixtures::classic;
use crate::play::generator_file::{self, Band, GeneratorFile, Mercy};

fn spec(file: GeneratorFile, set: &PieceSet) -> GeneratorSpec {
    let text = GeneratorSpec {
        file,
        set: set.clone(),
    }
    .to_ron();
    generator_file::parse(&text, "test.ron", set).unwrap()
}

fn plain(check: Check) -> GeneratorFile {
    GeneratorFile {
        name: "test".to_owned(),
        pieces: None,
        weights: Default::default(),
        by_fill: Vec::new(),
        repeat_previous: 0.0,
        mercy: None,
        check,
        adaptive: None,
    }
}

/// A board with the first `n` cells filled (the dealer reads only how full
/// it is and whether the last round cleared).
fn filled(n: u32) -> Bits {
    if n == 0 { 0 } else { Bits::MAX >> (128 - n) }
}

/// Scales every piece but `keep` to 0.
fn only(set: &PieceSet, keep: &str) -> std::collections::BTreeMap<String, f64> {
    set.pieces
        .iter()
        .filter(|p| p.id != keep)
        .map(|p| (p.id.clone(), 0.0))
        .collect()
}

/// The four presets deal exactly what the named generators deal, holder for
/// holder, on the same boards and seeds.
#[test]
fn the_presets_deal_as_the_generators_they_replace() {
    let (set, shapes) = classic();
    let boards = crate::play::random_fill::played_deals(&shapes, &set, 3, 300, &mut Generator::new(8));
    for name in crate::play::dealers::NAMES {
        let mut named = crate::play::dealers::by_name(name, &set, ChangeOptions::default()).unwrap();
        let mut file = FileDealer::new(generator_file::preset(name, &set).unwrap());
        let (mut a, mut b) = (Generator::new(1), Generator::new(1));
        for d in &boards {
            let table = Table {
                shapes: &shapes,
                set: &set,
                board: d.board,
                k: 3,
            };
            let (x, y) = (named.deal(&table, &mut a), file.deal(&table, &mut b));
            assert_eq!((x.holder, x.drawn), (y.holder, y.drawn), "{name}");
        }
    }
}

#[test]
fn bands_switch_at_their_thresholds() {
    let (set, shapes) = classic();
    let mut f = plain(Check::None);
    f.by_fill = vec![
        Band {
            up_to: 0.5,
            scale: only(&set, "dot"),
        },
        Band {
            up_to: 1.0,
            scale: only(&set, "sq2"),
        },
    ];
    let mut dealer = FileDealer::new(spec(f, &set));
    let mut rng = Generator::new(2);
    for (cells, want) in [(0, "dot"), (50, "dot"), (51, "sq2"), (99, "sq2")] {
        let table = Table {
            shapes: &shapes,
            set: &set,
            board: filled(cells),
            k: 3,
        };
        let holder = dealer.deal(&table, &mut rng).holder;
        assert_eq!(
            set.ids(&holder),
            [want; 3].join(","),
            "{cells} of 100 cells filled"
        );
    }
}

#[test]
fn repeat_previous_at_one_repeats_and_at_zero_draws_as_without_it() {
    let (set, shapes) = classic();
    let table = Table {
        shapes: &shapes,
        set: &set,
        board: 0,
        k: 3,
    };
    let mut f = plain(Check::None);
    f.repeat_previous = 1.0;
    let mut always = FileDealer::new(spec(f.clone(), &set));
    let mut rng = Generator::new(4);
    let first = always.deal(&table, &mut rng).holder[0];
    for _ in 0..20 {
        assert!(always.deal(&table, &mut rng).holder.iter().all(|&p| p == first));
    }
    f.repeat_previous = 0.0;
    let mut never = FileDealer::new(spec(f, &set));
    let mut random = crate::play::dealers::RandomDealer;
    let (mut a, mut b) = (Generator::new(4), Generator::new(4));
    for _ in 0..50 {
        assert_eq!(
            never.deal(&table, &mut a).holder,
            random.deal(&table, &mut b).holder
        );
    }
}

/// Mercy's scale holds from the deal after exactly N rounds in a row that
/// cleared nothing, and a clear ends it.
#[test]
fn mercy_fires_after_exactly_n_rounds_without_a_clear() {
    let (set, shapes) = classic();
    let mut f = plain(Check::None);
    f.mercy = Some(Mercy {
        after_rounds_without_clear: 3,
        scale: only(&set, "dot"),
    });
    let mut dealer = FileDealer::new(spec(f, &set));
    let mut rng = Generator::new(6);
    let mut cells = 0;
    let mut deal = |cells: u32| {
        let table = Table {
            shapes: &shapes,
            set: &set,
            board: filled(cells),
            k: 3,
        };
        dealer.deal(&table, &mut rng).holder
    };
    let size = |h: &[PieceIdx]| h.iter().map(|&p| shapes.shape(p).cells() as u32).sum::<u32>();
    let all_dots = |h: &[PieceIdx]| set.ids(h) == "dot,dot,dot";
    // Deals 1 to 4: rounds 1, 2 and 3 placed everything, clearing nothing.
    for round in 0..4 {
        let h = deal(cells);
        assert_eq!(all_dots(&h), round == 3, "deal {}: {}", round + 1, set.ids(&h));
        cells += size(&h);
    }
    // Round 4 cleared a line: the board holds fewer cells than it would.
    let h = deal(cells - 5);
    assert!(!all_dots(&h), "a clear ends mercy: {}", set.ids(&h));
}

/// Pieces dealt in a band follow its effective weights: chi-square at a
/// fixed seed under the 99.9th percentile.
#[test]
fn the_pieces_dealt_follow_the_weights_in_force() {
    let (set, shapes) = classic();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../presets/generators/classic-with-mercy.ron");
    let mut s = generator_file::load(&path, &set).unwrap();
    s.file.check = Check::None;
    let weights = s.weights_at(0.6, false);
    let mut dealer = FileDealer::new(s);
    let mut rng = Generator::new(9);
    let mut counts = vec![0u64; set.pieces.len()];
    let mut table = Table {
        shapes: &shapes,
        set: &set,
        board: filled(60),
        k: 3,
    };
    for round in 0..4000 {
        // Alternate 60 and 55 cells: a clear every other round, no mercy.
        table.board = filled(if round % 2 == 0 { 60 } else { 55 });
        for p in dealer.deal(&table, &mut rng).holder {
            counts[usize::from(p)] += 1;
        }
    }
    let n: u64 = counts.iter().sum();
    let total: f64 = weights.iter().sum();
    let chi2: f64 = counts
        .iter()
        .zip(&weights)
        .map(|(&c, &w)| {
            let e = n as f64 * w / total;
            (c as f64 - e).powi(2) / e
        })
        .sum();
    // 18 degrees of freedom: 42.3 is the 99.9th percentile.
    assert!(chi2 < 42.3, "chi2 {chi2}: {counts:?}");
    let sq3 = usize::from(set.index_of("sq3").unwrap());
    assert!(
        (counts[sq3] as f64 / n as f64 - 1.0 / total).abs() < 0.01,
        "sq3 at half weight"
    );
}

/// Every check: repair and reject never deal an unsolvable holder while a
/// solvable one exists, none deals as drawn, bag deals the multiset.
#[test]
fn each_check_does_what_it_says() {
    let (set, shapes) = classic();
    let boards = crate::play::random_fill::played_deals(&shapes, &set, 3, 400, &mut Generator::new(3));
    for check in [
        Check::Repair {
            policy: crate::search::heuristic::Policy::Last,
            redraws: 8,
        },
        Check::Reject { redraws: 100 },
    ] {
        let mut dealer = FileDealer::new(spec(plain(check), &set));
        let mut rng = Generator::new(1);
        let mut fixed = 0;
        for d in &boards {
            let table = Table {
                shapes: &shapes,
                set: &set,
                board: d.board,
                k: 3,
            };
            let dealt = dealer.deal(&table, &mut rng);
            fixed += u32::from(dealt.drawn_unsolvable);
            let solvable = crate::search::validator::validate(&shapes, d.board, &dealt.holder).solvable;
            assert!(solvable || dealt.dead, "{check:?}");
        }
        assert!(fixed > 0, "{check:?}: some draws needed fixing");
    }
    let mut none = FileDealer::new(spec(plain(Check::None), &set));
    let table = Table {
        shapes: &shapes,
        set: &set,
        board: boards[50].board,
        k: 3,
    };
    let d = none.deal(&table, &mut Generator::new(2));
    assert_eq!(d.holder, d.drawn);
    let mut bag = FileDealer::new(spec(plain(Check::Bag), &set));
    let mut counts = vec![0u32; set.pieces.len()];
    let mut rng = Generator::new(5);
    for _ in 0..14 {
        for p in bag.deal(&table, &mut rng).holder {
            counts[usize::from(p)] += 1;
        }
    }
    assert_eq!(counts, set.pieces.iter().map(|p| p.weight).collect::<Vec<_>>());
}

/// A session's dealer deals what the recording one deals, for every
/// built-in and preset; only the record of fairness of the holders it
/// does not check is gone (unsolvable draws happen on these boards).
#[test]
fn an_unrecorded_dealer_deals_what_the_recording_one_deals() {
    use crate::play::dealing::Dealing;
    let (set, shapes) = classic();
    let boards = crate::play::random_fill::played_deals(&shapes, &set, 3, 300, &mut Generator::new(8));
    for name in crate::play::dealing::names() {
        let dealing = Dealing::by_name(name, &set).unwrap();
        let options = ChangeOptions::default();
        let (mut recording, mut unrecorded) = (
            dealing.dealer(&set, options),
            dealing.unrecorded_dealer(&set, options, &Default::default()),
        );
        let (mut a, mut b) = (Generator::new(1), Generator::new(1));
        let (mut recorded_unfair, mut unrecorded_unfair) = (0, 0);
        for d in &boards {
            let table = Table {
                shapes: &shapes,
                set: &set,
                board: d.board,
                k: 3,
            };
            let (x, y) = (recording.deal(&table, &mut a), unrecorded.deal(&table, &mut b));
            assert_eq!((&x.holder, &x.drawn), (&y.holder, &y.drawn), "{name}");
            recorded_unfair += usize::from(x.drawn_unsolvable);
            unrecorded_unfair += usize::from(y.drawn_unsolvable);
        }
        let checks = !matches!(&dealing, Dealing::Builtin("random"))
            && !matches!(&dealing, Dealing::File(s) if matches!(s.file.check, Check::None | Check::Bag));
        if checks {
            assert_eq!(
                recorded_unfair, unrecorded_unfair,
                "{name} validates as part of its check"
            );
        } else {
            assert!(
                recorded_unfair > 0,
                "{name}: the boards should draw unsolvable holders"
            );
            assert_eq!(unrecorded_unfair, 0, "{name} validates nothing");
        }
    }
}
