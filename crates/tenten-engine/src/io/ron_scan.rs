//! The parts of RON's lexical grammar that can hide brackets: comments (line
//! comments and block comments, which nest), strings with escapes, raw
//! strings (`r"…"`, `r#"…"#`, and their byte forms) and characters. Finding
//! a batch's deals by their brackets is only safe when all of these are
//! skipped, so every scan of a batch's text goes through `skip`.

/// If a token that may hold brackets starts at `i`, the position just after
/// it; `None` when `bytes[i]` starts ordinary syntax. An unterminated token
/// runs to the end of the text.
/// How every file of the workbench is read: RON with `Some` implied, so a
/// file writes `mercy: (...)` for `Some((...))`.
pub(crate) fn ron_options() -> ron::Options {
    ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
}

pub fn skip(bytes: &[u8], i: usize) -> Option<usize> {
    match bytes[i] {
        b'/' if bytes.get(i + 1) == Some(&b'/') => Some(line_comment_end(bytes, i)),
        b'/' if bytes.get(i + 1) == Some(&b'*') => Some(block_comment_end(bytes, i)),
        b'"' => Some(quoted_end(bytes, i, b'"')),
        b'\'' => Some(quoted_end(bytes, i, b'\'')),
        b'r' | b'b' => raw_string_end(bytes, i),
        _ => None,
    }
}

/// The end of a `//` comment: the newline, which is not part of it.
pub fn line_comment_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && bytes[i] != b'\n' {
        i += 1;
    }
    i
}

/// Just after the `*/` that closes the block comment opened at `i`; block
/// comments nest in RON as in Rust, so `/* a /* b */ c */` is one comment.
pub fn block_comment_end(bytes: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"/*") {
            depth += 1;
            i += 2;
        } else if bytes[i..].starts_with(b"*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    bytes.len()
}

/// Just after the closing quote of a string or character that opens at `i`,
/// escapes (`\"`, `\\`) skipped.
fn quoted_end(bytes: &[u8], mut i: usize, quote: u8) -> usize {
    i += 1;
    while i < bytes.len() && bytes[i] != quote {
        i += if bytes[i] == b'\\' { 2 } else { 1 };
    }
    (i + 1).min(bytes.len())
}

/// Just after a raw string (`r"…"`, `r##"…"##`, `br"…"`) that starts at `i`;
/// `None` when the `r` or `b` there is part of an identifier or not followed
/// by a raw string's opening.
fn raw_string_end(bytes: &[u8], i: usize) -> Option<usize> {
    if i > 0 && is_ident(bytes[i - 1]) {
        return None;
    }
    let mut j = i;
    if bytes[j] == b'b' {
        j += 1;
    }
    if bytes.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes = bytes[j..].iter().take_while(|&&b| b == b'#').count();
    j += hashes;
    if bytes.get(j) != Some(&b'"') {
        return None;
    }
    j += 1;
    while j < bytes.len() {
        let closes = bytes
            .get(j + 1..j + 1 + hashes)
            .is_some_and(|h| h.iter().all(|&b| b == b'#'));
        if bytes[j] == b'"' && closes {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(bytes.len())
}

/// A byte that can be part of a RON identifier (a struct's name, a field).
pub fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end(text: &str) -> Option<usize> {
        skip(text.as_bytes(), 0)
    }

    #[test]
    fn every_token_that_can_hide_a_bracket_is_skipped_whole() {
        assert_eq!(end("// a ( ]\nx"), Some(8));
        assert_eq!(end("/* a /* ( */ ] */x"), Some(17));
        assert_eq!(end(r#""a \" ( \\"x"#), Some(11));
        assert_eq!(end(r#"r"a ( \"x"#), Some(8));
        assert_eq!(end(r###"r##"a "# ] "##x"###), Some(14));
        assert_eq!(end(r#"br"(""#), Some(5));
        assert_eq!(end("'('x"), Some(3));
        assert_eq!(end(r"'\''x"), Some(4));
        // `r` and `b` that start identifiers are ordinary syntax.
        assert_eq!(end("rows: x"), None);
        assert_eq!(end("board"), None);
        assert_eq!(skip(b"xr\"", 1), None);
        // Unterminated tokens run to the end instead of past it.
        assert_eq!(end("/* /* */"), Some(8));
        assert_eq!(end("\"abc"), Some(4));
        assert_eq!(end("r#\"abc\""), Some(7));
    }
}
