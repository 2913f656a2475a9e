//! Editing a batch file's text in place: where each deal is (comments and
//! strings skipped), replacing some deals and appending others while every
//! comment and every untouched deal stays byte for byte, and writing a fresh
//! batch for Save as.

use std::collections::BTreeMap;
use std::ops::Range;

use serde::de::IgnoredAny;

use crate::io::ron_scan::{self, is_ident};

/// Where a batch's deals are in its text: the byte range of each top-level
/// deal (a struct's name included), and the positions of the list's `[` and
/// `]`. `None` when `batch` is not a list. Comments, strings, raw strings and
/// characters are skipped (see `ron_scan`), so the ranges hold exactly the
/// deals and everything between them (comments) can be kept.
pub struct Spans {
    pub open: usize,
    pub deals: Vec<Range<usize>>,
    pub close: usize,
}

pub fn deal_spans(batch: &str) -> Option<Spans> {
    let bytes = batch.as_bytes();
    let mut i = 0;
    let mut depth = 0usize;
    let mut start = 0;
    let mut name: Option<usize> = None;
    let mut open = None;
    let mut deals = Vec::new();
    while i < bytes.len() {
        if let Some(end) = ron_scan::skip(bytes, i) {
            i = end;
            continue;
        }
        match bytes[i] {
            // `#![enable(...)]` before the list.
            b'#' if open.is_none() => {
                i = bytes[i..]
                    .iter()
                    .position(|&b| b == b']')
                    .map_or(bytes.len(), |p| i + p);
            }
            b'[' if open.is_none() => open = Some(i),
            // A deal may be written `DealFile(...)`: its span starts at the name.
            c if open.is_some() && depth == 0 && is_ident(c) => {
                name.get_or_insert(i);
            }
            b'(' if open.is_some() => {
                if depth == 0 {
                    start = name.take().unwrap_or(i);
                }
                depth += 1;
            }
            b')' if open.is_some() && depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    deals.push(start..i + 1);
                }
            }
            b']' if open.is_some() && depth == 0 => {
                return Some(Spans {
                    open: open?,
                    deals,
                    close: i,
                });
            }
            c if open.is_none() && !c.is_ascii_whitespace() => return None,
            c if open.is_some() && depth == 0 && !c.is_ascii_whitespace() => name = None,
            _ => {}
        }
        i += 1;
    }
    None
}

/// How many items RON itself reads in the list `batch`, whatever they hold.
fn items_in_list(batch: &str) -> Option<usize> {
    ron_scan::ron_options()
        .from_str::<Vec<IgnoredAny>>(batch)
        .ok()
        .map(|items| items.len())
}

/// Where deals appended to a batch go: after the last deal, its comma and
/// anything else on its line (a `// note` stays with the deal it is about);
/// after `[` and its line's comment in an empty list. Also whether the last
/// deal already has its comma.
fn append_point(batch: &str, spans: &Spans) -> (usize, bool) {
    let bytes = batch.as_bytes();
    let mut at = spans.deals.last().map_or(spans.open + 1, |s| s.end);
    let mut comma = spans.deals.is_empty();
    let mut i = at;
    while i < spans.close {
        match bytes[i] {
            b' ' | b'\t' => i += 1,
            b',' if !comma => {
                comma = true;
                i += 1;
                at = i;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = ron_scan::line_comment_end(bytes, i);
                at = i;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = ron_scan::block_comment_end(bytes, i);
                at = i;
            }
            _ => break,
        }
    }
    (at.min(spans.close), comma)
}

/// A deal's RON indented as an item of a batch.
fn as_item(deal: &str) -> String {
    deal.trim_end().replace('\n', "\n    ")
}

/// `batch` with deal i (counting every deal of the file, unreadable ones
/// too) replaced by `replacements[i]` and `appended` added at the end,
/// every other byte as it was, comments included. Refuses, with the reason,
/// when `batch` is not a list, a replaced index is not one of its deals, or
/// the deals found by their brackets are not the deals RON reads (then
/// replacing "deal 3" could replace another one): nothing is lost.
pub fn update_batch(
    batch: &str,
    replacements: &BTreeMap<usize, String>,
    appended: &[String],
) -> Result<String, String> {
    let spans = deal_spans(batch).ok_or("its text is not a list of deals")?;
    let items = items_in_list(batch).ok_or("its text is not valid RON any more")?;
    if items != spans.deals.len() {
        return Err(format!(
            "RON reads {items} deals in it but {} were found by their brackets",
            spans.deals.len()
        ));
    }
    if let Some(i) = replacements.keys().find(|&&i| i >= items) {
        return Err(format!("it holds {items} deals, so deal {i} cannot be replaced"));
    }
    let mut out = String::with_capacity(batch.len());
    let mut at = 0;
    for (i, span) in spans.deals.iter().enumerate() {
        if let Some(new) = replacements.get(&i) {
            out.push_str(&batch[at..span.start]);
            out.push_str(&as_item(new));
            at = span.end;
        }
    }
    if !appended.is_empty() {
        let (insert, had_comma) = append_point(batch, &spans);
        let last_end = spans.deals.last().map_or(insert, |s| s.end);
        if !had_comma {
            // The last deal's comma goes right after it, not after its comment.
            out.push_str(&batch[at..last_end]);
            out.push(',');
            at = last_end;
        }
        out.push_str(&batch[at..insert]);
        at = insert;
        for (n, deal) in appended.iter().enumerate() {
            out.push_str("\n    ");
            out.push_str(&as_item(deal));
            // The file's style: a trailing comma when its last deal had one.
            if n + 1 < appended.len() || had_comma {
                out.push(',');
            }
        }
        if !batch[insert..].starts_with(['\n', '\r']) {
            out.push('\n');
        }
    }
    out.push_str(&batch[at..]);
    let expected = items + appended.len();
    if items_in_list(&out) != Some(expected) || deal_spans(&out).map(|s| s.deals.len()) != Some(expected) {
        return Err("a replaced or added deal would not read back as one deal".to_owned());
    }
    Ok(out)
}

/// `batch` with its first deal replaced by `deal` (see `update_batch`).
pub fn replace_first_deal(batch: &str, deal: &str) -> Result<String, String> {
    let first = BTreeMap::from([(0, deal.to_owned())]);
    update_batch(batch, &first, &[])
}

/// A fresh batch file of `deals` (RON texts), for Save as.
pub fn batch_to_ron(deals: &[String], comment: &str) -> String {
    let mut out = String::new();
    for line in comment.lines() {
        out.push_str(&format!("// {line}\n"));
    }
    out.push_str("[\n");
    for deal in deals {
        out.push_str(&format!("    {},\n", as_item(deal)));
    }
    out.push_str("]\n");
    out
}

#[cfg(test)]
#[path = "batch_file_props.rs"]
mod props;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_deal_of_a_batch_is_replaced_and_nothing_else() {
        let batch = "// two deals\n[\n    // the first\n    (board: [\"(#)\"], holder: [\"dot\"]),\n    /* the second */ (board: [\"..\"], holder: []),\n]\n";
        let out = replace_first_deal(batch, "(\n    board: [\"#.\"],\n)\n").unwrap();
        assert!(
            out.starts_with("// two deals\n[\n    // the first\n    (\n        board: [\"#.\"],\n    ),"),
            "{out}"
        );
        assert!(
            out.contains("/* the second */ (board: [\"..\"], holder: [])"),
            "{out}"
        );
        assert!(replace_first_deal("(board: [])", "(x)").is_err());
        assert!(replace_first_deal("[]", "(x)").is_err());
    }

    #[test]
    fn a_batch_is_updated_in_place_and_grows_at_the_end() {
        let batch = "// log\n[\n    (board: [\"#\"], holder: [\"a\"]), // one\n    (board: [\"(\"], holder: []),\n    // three\n    (board: [\".\"], holder: [\"c\"])\n]\n";
        let spans = deal_spans(batch).unwrap();
        assert_eq!(spans.deals.len(), 3);
        assert_eq!(&batch[spans.deals[1].clone()], "(board: [\"(\"], holder: [])");
        let edits = BTreeMap::from([(2, "(X)".to_owned())]);
        let out = update_batch(batch, &edits, &["(Y)".to_owned(), "(Z)".to_owned()]).unwrap();
        assert_eq!(
            out,
            "// log\n[\n    (board: [\"#\"], holder: [\"a\"]), // one\n    (board: [\"(\"], holder: []),\n    // three\n    (X),\n    (Y),\n    (Z)\n]\n"
        );
        assert_eq!(
            update_batch("[]", &Default::default(), &["(A)".to_owned()]).unwrap(),
            "[\n    (A),\n]"
        );
        let past_the_end = BTreeMap::from([(3, "(X)".to_owned())]);
        assert!(
            update_batch(batch, &past_the_end, &[])
                .unwrap_err()
                .contains("deal 3")
        );
        let fresh = batch_to_ron(&["(A)".to_owned(), "(B)".to_owned()], "made by a test");
        assert_eq!(fresh, "// made by a test\n[\n    (A),\n    (B),\n]\n");
    }
}
