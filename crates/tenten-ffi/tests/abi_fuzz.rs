//! The ABI's parse calls take arbitrary text and numbers: a piece set or a
//! generator in RON with a cut, junk, or a number replaced by one from the
//! whole range of u64 and f64, then rules of any size and a dealer of any
//! seed. Every call returns a status; none panics (that would be
//! TENTEN_STATUS_PANIC) or aborts, and no allocation passes 64 MB.

#![allow(unsafe_code)]

#[path = "../../../tests/common/alloc.rs"]
mod allocations;
#[path = "../../../tests/common/numbers.rs"]
mod numbers;

use std::ffi::CString;
use std::ptr;

use proptest::prelude::*;
use tenten_ffi::*;

#[global_allocator]
static ALLOC: allocations::Largest = allocations::Largest;

const SET: &str = include_str!("../../../presets/pieces/classic-1010.ron");
const GENERATOR: &str = include_str!("../../../presets/generators/classic-with-mercy.ron");

fn any_number() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<u64>().prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|x| format!("{x:?}")),
        Just("4000000000".to_owned()),
        Just("1e300".to_owned()),
    ]
}

/// `text` with its `which`-th number replaced by `number`.
fn renumbered(text: &str, which: usize, number: &str) -> String {
    let spots = numbers::spots(text);
    let (a, e) = spots[which % spots.len()];
    format!("{}{number}{}", &text[..a], &text[e..])
}

/// Parses `set` and `generator` through the ABI and, when both take, makes
/// rules of `size` and deals twice from `seed`. Every status is one the
/// header names, and none is a panic.
fn through_the_abi(set: &str, generator: &str, size: (u8, u8, u8), seed: u64) -> Result<(), TestCaseError> {
    let (set, generator) = (CString::new(set).unwrap(), CString::new(generator).unwrap());
    let mut pieces: *mut TentenPieces = ptr::null_mut();
    let mut gen_: *mut TentenGenerator = ptr::null_mut();
    // SAFETY: valid strings and out-pointers; handles freed once below.
    unsafe {
        let s = tenten_pieces_parse(set.as_ptr(), &mut pieces);
        prop_assert_ne!(s, TentenStatus::Panic);
        let g = tenten_generator_parse(generator.as_ptr(), pieces, &mut gen_);
        prop_assert_ne!(g, TentenStatus::Panic);
        if g == TentenStatus::Ok {
            let mut rules: *mut TentenRules = ptr::null_mut();
            let r = tenten_rules_new(gen_, size.0, size.1, size.2, &mut rules);
            prop_assert_ne!(r, TentenStatus::Panic);
            if r == TentenStatus::Ok {
                let mut dealer: *mut TentenDealer = ptr::null_mut();
                prop_assert_eq!(tenten_dealer_new(rules, seed, &mut dealer), TentenStatus::Ok);
                let cells = vec![0u8; usize::from(size.0) * usize::from(size.1)];
                let mut deal = std::mem::zeroed::<TentenDeal>();
                for _ in 0..2 {
                    let d = tenten_dealer_next(dealer, cells.as_ptr(), cells.len(), &mut deal);
                    prop_assert!(d == TentenStatus::Ok || d == TentenStatus::NoFit, "{:?}", d);
                }
                tenten_dealer_free(dealer);
                tenten_rules_free(rules);
            }
            tenten_generator_free(gen_);
        }
        tenten_pieces_free(pieces);
    }
    prop_assert!(
        allocations::largest() < 64 << 20,
        "{} bytes",
        allocations::largest()
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn any_number_in_a_set_or_generator_gives_a_status(
        in_set in any::<bool>(),
        which in any::<usize>(),
        number in any_number(),
        size in prop_oneof![(4u8..=11, 4u8..=11, 1u8..=4), (any::<u8>(), any::<u8>(), any::<u8>())],
        seed in any::<u64>(),
    ) {
        // The generator's own `pieces:` path is for files; through parse,
        // the set handle given is its set.
        let plain = GENERATOR.replace("    pieces: \"../pieces/classic-1010.ron\",\n", "");
        prop_assert!(!plain.contains("pieces:"));
        let (set, generator) = if in_set {
            (renumbered(SET, which, &number), plain)
        } else {
            (SET.to_owned(), renumbered(&plain, which, &number))
        };
        through_the_abi(&set, &generator, size, seed)?;
    }

    #[test]
    fn any_text_gives_a_status(set in "[^\u{0}]{0,200}", generator in "[^\u{0}]{0,200}") {
        through_the_abi(&set, &generator, (10, 10, 3), 1)?;
    }
}
