//! A generator learned from deals (`tenten fit-generator`) deals through
//! the C library as any generator file does.

#![allow(unsafe_code)]

use std::ffi::CString;
use std::ptr;

use tenten_engine::fits::generator::{self, deals};
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::progress::Progress;
use tenten_engine::search::heuristic::Policy;
use tenten_ffi::*;

const LOG: &str = include_str!("../../../docs/learning.in/block-blast-deals.jsonl");

#[test]
fn a_learned_generator_deals_through_the_abi() {
    let set = PieceSet::classic();
    let read = deals::read_texts(&[("deals.jsonl".to_owned(), LOG.to_owned())], &set).unwrap();
    let req = generator::Request {
        policies: vec![Policy::Deepest],
        held_out: false,
        replications: 10,
        ..generator::Request::default()
    };
    let learned = generator::learn(&set, &read, &req, &Progress::default())
        .unwrap()
        .unwrap();
    assert!(
        learned.file.repeat_previous > 0.0,
        "the log's repeat chance is learned"
    );
    let text = CString::new(learned.text.clone()).unwrap();
    let mut gen_: *mut TentenGenerator = ptr::null_mut();
    // SAFETY: a valid string and out-pointers; every handle freed below.
    unsafe {
        assert_eq!(
            tenten_generator_parse(text.as_ptr(), ptr::null(), &mut gen_),
            TentenStatus::Ok
        );
        let mut rules: *mut TentenRules = ptr::null_mut();
        assert_eq!(tenten_rules_new(gen_, 10, 10, 3, &mut rules), TentenStatus::Ok);
        let mut dealer: *mut TentenDealer = ptr::null_mut();
        assert_eq!(tenten_dealer_new(rules, 7, &mut dealer), TentenStatus::Ok);
        let cells = [0u8; 100];
        let mut deal = std::mem::zeroed::<TentenDeal>();
        for _ in 0..20 {
            assert_eq!(
                tenten_dealer_next(dealer, cells.as_ptr(), cells.len(), &mut deal),
                TentenStatus::Ok
            );
            assert_eq!(deal.count, 3);
        }
        tenten_dealer_free(dealer);
        tenten_rules_free(rules);
        tenten_generator_free(gen_);
    }
}
