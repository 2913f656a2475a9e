//! Editing a batch file's text in place: where each deal is (comments and
//! strings skipped), replacing some deals and appending others while every
//! comment and every untouched deal stays byte for byte, and writing a fresh
//! batch for Save as.

/// Where a batch's deals are in its text: the byte range of each top-level
/// deal, and the positions of the list's `[` and `]`. `None` when `batch` is
/// not a list. Comments and strings are skipped, so the ranges hold exactly
/// the deals and everything between them (comments) can be kept.
pub struct Spans {
    pub open: usize,
    pub deals: Vec<std::ops::Range<usize>>,
    pub close: usize,
}

pub fn deal_spans(batch: &str) -> Option<Spans> {
    let bytes = batch.as_bytes();
    let mut i = 0;
    let mut depth = 0usize;
    let mut start = 0;
    let mut open = None;
    let mut deals = Vec::new();
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
                continue;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'[' if open.is_none() => open = Some(i),
            b'(' if open.is_some() => {
                if depth == 0 {
                    start = i;
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
            _ => {}
        }
        i += 1;
    }
    None
}

/// A deal's RON indented as an item of a batch.
fn as_item(deal: &str) -> String {
    deal.trim_end().replace('\n', "\n    ")
}

/// `batch` with deal i replaced by `replacements[i]` and `appended` added at
/// the end, everything else as it was, comments included. `None` when
/// `batch` is not a list or a replaced index is not one of its deals.
pub fn update_batch(
    batch: &str,
    replacements: &std::collections::BTreeMap<usize, String>,
    appended: &[String],
) -> Option<String> {
    let spans = deal_spans(batch)?;
    if replacements.keys().any(|&i| i >= spans.deals.len()) {
        return None;
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
    if appended.is_empty() {
        out.push_str(&batch[at..]);
        return Some(out);
    }
    // New deals go right after the last one (or after `[`), each with its comma.
    let insert = spans.deals.last().map_or(spans.open + 1, |s| s.end);
    out.push_str(&batch[at..insert]);
    for (n, deal) in appended.iter().enumerate() {
        let first_of_empty = spans.deals.is_empty() && n == 0;
        out.push_str(if first_of_empty { "\n    " } else { ",\n    " });
        out.push_str(&as_item(deal));
    }
    if spans.deals.is_empty() {
        out.push_str(",\n");
    }
    out.push_str(&batch[insert..]);
    Some(out)
}

/// `batch` with its first deal replaced by `deal` (see `update_batch`).
pub fn replace_first_deal(batch: &str, deal: &str) -> Option<String> {
    let first = std::collections::BTreeMap::from([(0, deal.to_owned())]);
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
        assert_eq!(replace_first_deal("(board: [])", "(x)"), None);
        assert_eq!(replace_first_deal("[]", "(x)"), None);
    }

    #[test]
    fn a_batch_is_updated_in_place_and_grows_at_the_end() {
        let batch = "// log\n[\n    (board: [\"#\"], holder: [\"a\"]), // one\n    (board: [\"(\"], holder: []),\n    // three\n    (board: [\".\"], holder: [\"c\"])\n]\n";
        let spans = deal_spans(batch).unwrap();
        assert_eq!(spans.deals.len(), 3);
        assert_eq!(&batch[spans.deals[1].clone()], "(board: [\"(\"], holder: [])");
        let edits = std::collections::BTreeMap::from([(2, "(X)".to_owned())]);
        let out = update_batch(batch, &edits, &["(Y)".to_owned(), "(Z)".to_owned()]).unwrap();
        assert_eq!(
            out,
            "// log\n[\n    (board: [\"#\"], holder: [\"a\"]), // one\n    (board: [\"(\"], holder: []),\n    // three\n    (X),\n    (Y),\n    (Z)\n]\n"
        );
        assert_eq!(
            update_batch("[]", &Default::default(), &["(A)".to_owned()]).unwrap(),
            "[\n    (A),\n]"
        );
        let past_the_end = std::collections::BTreeMap::from([(3, "(X)".to_owned())]);
        assert_eq!(update_batch(batch, &past_the_end, &[]), None);
        let fresh = batch_to_ron(&["(A)".to_owned(), "(B)".to_owned()], "made by a test");
        assert_eq!(fresh, "// made by a test\n[\n    (A),\n    (B),\n]\n");
    }
}
