//! Numbers in a file's text, to replace one with any other: the fuzz tests
//! of the readers and of the ABI share them.

/// The byte ranges of the numbers written in `text` (digits and dots, not
/// part of a word such as `l3_bl`).
pub fn spots(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric() && b[i - 1] != b'_') {
            let start = i;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            out.push((start, i));
        } else {
            i += 1;
        }
    }
    out
}
