//! Property test of `update_batch` against what RON itself reads: random
//! batches written with every kind of comment, strings and raw strings that
//! hold brackets, odd whitespace and unreadable deals in between; random
//! deals edited, some appended. Read back, exactly the edited deals changed
//! and the new ones follow; every other byte of the file is where it was.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::{deal_spans, update_batch};
use crate::io::formats::{FormatError, RawDeal, parse_deals_each};

/// Text RON skips between tokens: blanks and every kind of comment, each
/// holding the characters that fooled the old scan.
fn gap() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just(" ".to_owned()),
        Just(String::new()),
        Just("\t".to_owned()),
        Just("\n".to_owned()),
        Just("\r\n".to_owned()),
        Just("\n\n    ".to_owned()),
        Just("// a ( deal ] \" with /* odd text\n".to_owned()),
        Just("/* ( ] \" // */".to_owned()),
        Just("/* outer /* inner ( */ still ] comment */".to_owned()),
        Just("/** doc ) */".to_owned()),
    ];
    prop::collection::vec(piece, 0..3).prop_map(|p| p.concat())
}

/// A board row as RON text: a plain string (escapes included) or a raw one.
fn row_text(row: &str, style: u8) -> String {
    match style % 3 {
        0 => format!("{row:?}"),
        1 if !row.contains('"') => format!("r\"{row}\""),
        // More hashes than the row's longest run, so no `"#…` in it ends the string.
        _ => {
            let run = row.split(|c| c != '#').map(str::len).max().unwrap_or(0);
            let hashes = "#".repeat(run + 1);
            format!("r{hashes}\"{row}\"{hashes}")
        }
    }
}

/// The rows of one deal's board. Any character but '.' and blanks is a
/// painted cell, so rows can hold brackets and quotes; a short row or a blank
/// makes the deal unreadable while the list stays RON.
fn rows() -> impl Strategy<Value = Vec<String>> {
    let cell = prop::sample::select(vec!['.', '#', '(', ')', '[', ']', '"', '/', '*', 'r', '.']);
    (3usize..6, 3usize..6, prop::bool::weighted(0.25)).prop_flat_map(move |(w, h, unreadable)| {
        prop::collection::vec(prop::collection::vec(cell.clone(), w), h).prop_map(move |rows| {
            let mut rows: Vec<String> = rows.into_iter().map(|r| r.into_iter().collect()).collect();
            if unreadable {
                rows[0].pop();
            }
            rows
        })
    })
}

/// One deal of the batch as written in the file.
fn deal() -> impl Strategy<Value = String> {
    (
        rows(),
        any::<u8>(),
        gap(),
        gap(),
        prop::bool::ANY,
        prop::option::of(0u64..99),
    )
        .prop_map(|(rows, style, g1, g2, named, seed)| {
            let rows: Vec<String> = rows.iter().map(|r| row_text(r, style)).collect();
            let seed = seed.map_or(String::new(), |s| format!(", seed: {s}"));
            let name = if named { "DealFile" } else { "" };
            format!(
                "{name}({g1}board: [{}],{g2}holder: [\"dot\", r\"h2\"]{seed})",
                rows.join(", ")
            )
        })
}

/// A batch: deals with gaps around each, a trailing comma or not.
fn batch() -> impl Strategy<Value = String> {
    (
        gap(),
        prop::collection::vec((deal(), gap(), gap()), 1..7),
        prop::bool::ANY,
        gap(),
    )
        .prop_map(|(head, deals, trailing, tail)| {
            let mut text = format!("{head}[");
            for (i, (deal, before, after)) in deals.iter().enumerate() {
                text.push_str(before);
                text.push_str(deal);
                text.push_str(after);
                if i + 1 < deals.len() || trailing {
                    text.push(',');
                }
            }
            format!("{text}]{tail}")
        })
}

/// What a deal reads as, without where it sits in the file.
fn read(deal: &Result<RawDeal, FormatError>) -> Option<String> {
    deal.as_ref()
        .ok()
        .map(|d| format!("{:?} {:?} {:?} {:?}", d.board, d.holder, d.pieces, d.seed))
}

/// `text` with the given spans cut out, each replaced by a marker.
fn without(text: &str, spans: &[std::ops::Range<usize>]) -> String {
    let mut out = String::new();
    let mut at = 0;
    for s in spans {
        out.push_str(&text[at..s.start]);
        out.push('\u{1}');
        at = s.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Whether `new` is `old` with only separators (commas, newlines, spaces
/// and cut-out deals) inserted: every byte of `old` kept, in order.
fn only_separators_inserted(old: &[u8], new: &[u8]) -> bool {
    let sep = |b: u8| matches!(b, b',' | b'\n' | b' ' | 1);
    // fits[j]: old[i..] can be matched in new[j..] (for the current i).
    let mut fits: Vec<bool> = (0..=new.len())
        .map(|j| new[j..].iter().all(|&b| sep(b)))
        .collect();
    for i in (0..old.len()).rev() {
        let mut next = vec![false; new.len() + 1];
        for j in (0..new.len()).rev() {
            next[j] = (old[i] == new[j] && fits[j + 1]) || (sep(new[j]) && next[j + 1]);
        }
        fits = next;
    }
    fits[0]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn an_updated_batch_changes_exactly_the_edited_deals(
        text in batch(),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
        fresh in prop::collection::vec(deal(), 0..4),
        added in 0usize..3,
    ) {
        let before = parse_deals_each(&text, "t.ron").expect("a generated batch is RON");
        let n = before.len();
        let mut edits = BTreeMap::new();
        for (k, pick) in picks.iter().enumerate() {
            if let Some(new) = fresh.get(k) {
                edits.insert(pick.index(n), new.clone());
            }
        }
        let appended: Vec<String> = fresh.iter().rev().take(added).cloned().collect();
        let out = update_batch(&text, &edits, &appended).map_err(TestCaseError::fail)?;

        // Read back: the edited deals are the new ones, the others unchanged,
        // the appended ones follow.
        let after = parse_deals_each(&out, "t.ron").expect("the saved batch is RON");
        prop_assert_eq!(after.len(), n + appended.len());
        for (i, deal) in after.iter().enumerate() {
            let want = match (edits.get(&i), i.checked_sub(n)) {
                (Some(new), _) => read(&parse_deals_each(&format!("[{new}]"), "n")?[0]),
                (None, None) => read(&before[i]),
                (None, Some(a)) => read(&parse_deals_each(&format!("[{}]", appended[a]), "n")?[0]),
            };
            prop_assert_eq!(read(deal), want, "deal {} of\n{}", i, out);
        }

        // Byte for byte: with the edited and appended deals cut out of both
        // texts, the saved one differs only by separators inserted at one place.
        let old_spans = deal_spans(&text).unwrap().deals;
        let new_spans = deal_spans(&out).unwrap().deals;
        let cut = |spans: &[std::ops::Range<usize>]| -> Vec<std::ops::Range<usize>> {
            spans.iter().enumerate().filter(|(i, _)| edits.contains_key(i) || *i >= n)
                .map(|(_, s)| s.clone()).collect()
        };
        let old = without(&text, &cut(&old_spans));
        let new = without(&out, &cut(&new_spans));
        prop_assert!(
            only_separators_inserted(old.as_bytes(), new.as_bytes()),
            "bytes of the file were lost or changed:\n{}\n---\n{}", text, out
        );

        // What follows the last deal on its line, a comment say, stays on
        // that line (up to the list's `]`, before which new deals go).
        let rest_of_line = |t: &str, from: usize, close: usize| {
            let end = t[from..].find('\n').map_or(close, |e| (from + e).min(close));
            t[from..end].replace(',', "")
        };
        let old_rest = rest_of_line(&text, old_spans[n - 1].end, deal_spans(&text).unwrap().close);
        let new_rest = rest_of_line(&out, new_spans[n - 1].end, deal_spans(&out).unwrap().close);
        prop_assert!(new_rest.starts_with(old_rest.trim_end()), "{:?} became {:?}", old_rest, new_rest);
    }
}

#[test]
fn a_batch_whose_deals_cannot_all_be_found_is_refused() {
    // RON reads three items; only two are deals found by their brackets.
    let odd = "[(board: [\"#\"]), 5, (board: [\".\"])]";
    let err = update_batch(odd, &BTreeMap::from([(1, "(board: [\"#\"])".to_owned())]), &[]).unwrap_err();
    assert!(
        err.contains("RON reads 3 deals") && err.contains("2 were found"),
        "{err}"
    );
    // Not RON any more (edited outside since it was opened).
    assert!(update_batch("[(board: [\"#\"]", &BTreeMap::new(), &[]).is_err());
    // A replacement that is not one deal would make the file lie.
    let two = BTreeMap::from([(0, "(board: [\"#\"]), (board: [\"#\"])".to_owned())]);
    assert!(
        update_batch("[(board: [\".\"])]", &two, &[])
            .unwrap_err()
            .contains("read back")
    );
}

#[test]
fn a_comment_on_the_last_deals_line_stays_with_it() {
    let text = "[\n    (board: [\"#\"]), // the last one\n]\n";
    let out = update_batch(text, &BTreeMap::new(), &["(board: [\".\"])".to_owned()]).unwrap();
    assert_eq!(
        out,
        "[\n    (board: [\"#\"]), // the last one\n    (board: [\".\"]),\n]\n"
    );
    let no_comma = "[\n    (board: [\"#\"]) /* last */ // still last\n]";
    let out = update_batch(no_comma, &BTreeMap::new(), &["(board: [\".\"])".to_owned()]).unwrap();
    assert_eq!(
        out,
        "[\n    (board: [\"#\"]), /* last */ // still last\n    (board: [\".\"])\n]"
    );
}

#[test]
fn nested_comments_and_raw_strings_hide_their_brackets() {
    let text = "[ /* a /* ( */ ] */ (board: [r#\"(\"]\"#]), (board: [r\")\"]) ]";
    let spans = deal_spans(text).unwrap();
    assert_eq!(spans.deals.len(), 2);
    assert_eq!(&text[spans.deals[0].clone()], "(board: [r#\"(\"]\"#])");
    let edits = BTreeMap::from([(1, "(board: [\"#\"])".to_owned())]);
    let out = update_batch(text, &edits, &[]).unwrap();
    assert_eq!(
        out,
        "[ /* a /* ( */ ] */ (board: [r#\"(\"]\"#]), (board: [\"#\"]) ]"
    );
}
