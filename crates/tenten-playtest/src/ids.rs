//! Tester ids, tokens and seeds: random, from the operating system. A
//! tester id is all a log knows of a person; it names files, so nothing but
//! 32 lower-case hex digits is taken for one.

/// `n` random bytes as lower-case hex.
pub fn random_hex(n: usize) -> String {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A random 64-bit seed.
pub fn random_seed() -> u64 {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    u64::from_le_bytes(bytes)
}

/// The length of a tester id in hex digits (128 random bits).
pub const TESTER_LEN: usize = 32;

/// Whether `id` is a tester id: exactly 32 lower-case hex digits (so no id
/// names a path, holds a NUL or grows a file name).
pub fn is_tester(id: &str) -> bool {
    id.len() == TESTER_LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The log of a tester's session `n`, in the playtest's folder.
pub fn log_name(tester: &str, session: u32) -> String {
    format!("{tester}-s{session}.jsonl")
}

/// The journal of a tester's session `n`, in the folder's `journal/`.
pub fn journal_name(tester: &str, session: u32) -> String {
    format!("{tester}-s{session}.journal")
}

/// The tester and session a journal's file name holds, if it is one.
pub fn parse_journal_name(name: &str) -> Option<(String, u32)> {
    let stem = name.strip_suffix(".journal")?;
    let (tester, session) = stem.split_once("-s")?;
    let n: u32 = session.parse().ok()?;
    (is_tester(tester) && session == n.to_string()).then(|| (tester.to_owned(), n))
}

/// Every journal in the folder `jdir`: (tester, session).
pub fn journals_in(jdir: &std::path::Path) -> std::io::Result<Vec<(String, u32)>> {
    Ok(std::fs::read_dir(jdir)?
        .filter_map(|e| e.ok())
        .filter_map(|e| parse_journal_name(&e.file_name().to_string_lossy()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hex_ids_of_the_right_length_are_testers() {
        let id = random_hex(16);
        assert!(is_tester(&id), "{id}");
        assert_ne!(random_hex(16), id);
        for bad in [
            "",
            "../../etc/passwd",
            "0123456789abcdef0123456789abcde\0",
            "0123456789ABCDEF0123456789ABCDEF",
            "0123456789abcdef0123456789abcdef0",
            "0123456789abcdef/123456789abcdef",
        ] {
            assert!(!is_tester(bad), "{bad:?}");
        }
        let name = journal_name(&id, 12);
        assert_eq!(parse_journal_name(&name), Some((id.clone(), 12)));
        assert_eq!(parse_journal_name(&format!("{id}-s012.journal")), None);
        assert_eq!(parse_journal_name("x-s1.journal"), None);
        assert_eq!(log_name(&id, 3), format!("{id}-s3.jsonl"));
    }
}
