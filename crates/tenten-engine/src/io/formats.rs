//! RON files: piece sets, deals (a board and a holder) and batches of deals.
//! Every error names the file and, where there is one, the line and column.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::io::batch_file::deal_spans;
use crate::model::board::{Board, BoardSize, Cell};
use crate::model::pieces::MAX_HOLDER;
use crate::model::pieces::{Piece, PieceIdx, PieceSet, PieceSetDef};

/// A file that could not be used, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct FormatError {
    pub file: String,
    /// 1-based line and column, when the problem has a place in the file.
    pub at: Option<(usize, usize)>,
    pub message: String,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some((line, col)) => write!(f, "{}:{line}:{col}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl FormatError {
    pub fn new(file: &str, at: Option<(usize, usize)>, message: impl Into<String>) -> Self {
        Self {
            file: file.to_owned(),
            at,
            message: message.into(),
        }
    }
}

pub(crate) use crate::io::ron_scan::ron_options;

pub(crate) fn parse_ron<T: for<'de> Deserialize<'de>>(text: &str, file: &str) -> Result<T, FormatError> {
    ron_options().from_str(text).map_err(|e| {
        let at = (e.span.start.line > 0).then_some((e.span.start.line, e.span.start.col));
        FormatError::new(file, at, in_our_words(&e.code.to_string()))
    })
}

/// RON's message with the file kinds named as a user writes them, not by
/// the types that read them ("Expected struct `DealFile`" says nothing to
/// someone who wrote a deal).
fn in_our_words(message: &str) -> String {
    const KINDS: [(&str, &str); 3] = [
        (
            "DealFile",
            "a deal, written (board: [\"..#..\", ...], holder: [\"sq2\", ...])",
        ),
        (
            "PieceSetDef",
            "a piece set, written (name: \"...\", pieces: [(id: \"dot\", label: \"b(0,0)\", weight: 2, rows: [\"#\"]), ...])",
        ),
        (
            "PieceDef",
            "a piece, written (id: \"dot\", label: \"b(0,0)\", weight: 2, rows: [\"#\"])",
        ),
    ];
    let mut out = message.to_owned();
    for (name, kind) in KINDS {
        out = out.replace(&format!("struct `{name}`"), kind).replace(
            &format!("in `{name}`"),
            &format!("in {}", kind.split(',').next().unwrap_or(kind)),
        );
    }
    out
}

/// The most bytes a file read whole may hold: far past any set, generator,
/// population, deal file or study written here, and a bound on what a
/// path such as `/dev/zero` given by mistake can make the reader allocate.
pub const MAX_TEXT: u64 = 256 << 20;

/// Reads a file as UTF-8 text (at most `MAX_TEXT` bytes).
pub fn read_text(path: &Path) -> Result<String, FormatError> {
    use std::io::Read as _;
    let file = path.display().to_string();
    let cannot = |e: std::io::Error| FormatError::new(&file, None, format!("cannot read: {e}"));
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_TEXT + 1).read_to_end(&mut bytes))
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_TEXT {
        return Err(FormatError::new(
            &file,
            None,
            format!("larger than {} MiB: not a file this reads whole", MAX_TEXT >> 20),
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        FormatError::new(
            &file,
            None,
            format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
        )
    })
}

/// Writes through a temporary file in the same folder, flushed to disk
/// before the rename and the folder flushed after it, so neither a crash
/// nor a power cut leaves a half-written file (a checkpoint is read back
/// after either). A symlink is written through (its target is replaced,
/// the link kept); an existing file keeps its permissions; the temporary
/// file is removed on every error.
pub fn write_atomic(path: &Path, contents: &str) -> Result<(), FormatError> {
    // Through a symlink to the file it names (relative to the link's folder).
    let target = match std::fs::read_link(path) {
        Ok(to) => path.parent().map_or(to.clone(), |d| d.join(&to)),
        Err(_) => path.to_path_buf(),
    };
    let existing = std::fs::metadata(&target).ok();
    // A rename would put a file where a device, a pipe, a socket or a
    // folder was (`--out /dev/null` run as root would remove the device).
    if existing.as_ref().is_some_and(|m| !m.is_file()) {
        return Err(FormatError::new(
            &path.display().to_string(),
            None,
            "is not a regular file (a folder, a device, a pipe or a socket); it is not replaced",
        ));
    }
    let permissions = existing.map(|m| m.permissions());
    through_temporary(path, &target, contents, permissions, |tmp| {
        std::fs::rename(tmp, &target)
    })
}

/// Writes a file that must not exist yet, whole or not at all: the text
/// goes to a temporary file first, which is then hard-linked into place, an
/// operation that fails rather than replace a file made meanwhile (by
/// another process or thread).
pub fn write_new(path: &Path, contents: &str) -> Result<(), FormatError> {
    let exists = || FormatError::new(&path.display().to_string(), None, "exists; it is not replaced");
    if path.exists() {
        return Err(exists());
    }
    through_temporary(path, path, contents, None, |tmp| {
        let linked = match std::fs::hard_link(tmp, path) {
            // A file system without hard links (FAT): a rename, the file's
            // absence checked just before.
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists && !path.exists() => {
                std::fs::rename(tmp, path)
            }
            other => other,
        };
        // The link holds the text now; the temporary name goes either way.
        let _ = std::fs::remove_file(tmp);
        linked
    })
    .map_err(|e| {
        if path.exists() && e.message.contains("exists") {
            exists()
        } else {
            e
        }
    })
}

/// The one mechanism of both writers: `contents` into a fresh temporary
/// file beside `target` (named uniquely per call, so two threads saving one
/// file never share it), flushed, then `put` in place, then the folder
/// flushed so the new name is durable. The temporary file is removed on
/// every error; `path` names the file in messages.
fn through_temporary(
    path: &Path,
    target: &Path,
    contents: &str,
    permissions: Option<std::fs::Permissions>,
    put: impl FnOnce(&Path) -> std::io::Result<()>,
) -> Result<(), FormatError> {
    use std::io::Write as _;
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.{}.tmp", std::process::id(), unique()));
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(contents.as_bytes())?;
        if let Some(p) = permissions {
            f.set_permissions(p)?;
        }
        f.sync_all()?;
        drop(f);
        put(&tmp)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(FormatError::new(
            &path.display().to_string(),
            None,
            format!("cannot write: {e}"),
        ));
    }
    // The new name is durable once the folder is: flush it (where a folder
    // can be opened, as on Unix).
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// A number no other call in this process has had: temporary files are
/// named by it, so two threads saving one file never share one.
fn unique() -> u64 {
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// A short fingerprint of a file's text, to tell at a save whether the
/// file changed on disk since it was read.
pub fn content_hash(text: &str) -> u64 {
    use sha2::{Digest, Sha256};
    let hash = Sha256::digest(text.as_bytes());
    u64::from_le_bytes(hash[..8].try_into().unwrap_or([0; 8]))
}

/// Whether the file at `path` still holds the text that hashed to `hash`
/// when it was read: `Some(false)` when it changed or went, `None` when
/// nothing was read from it.
pub fn unchanged_on_disk(path: &Path, hash: Option<u64>) -> Option<bool> {
    let hash = hash?;
    Some(std::fs::read_to_string(path).is_ok_and(|t| content_hash(&t) == hash))
}

/// 1-based line and column of byte `offset` in `text`.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Where `"needle"` first appears at or after byte `from`, for messages about
/// values that parsed but make no sense.
fn locate(text: &str, needle: &str, from: usize) -> Option<(usize, usize)> {
    let quoted = format!("\"{needle}\"");
    let start = from.min(text.len());
    let found = text[start..]
        .find(&quoted)
        .map(|i| start + i)
        .or_else(|| text.find(&quoted));
    found.map(|i| line_col(text, i))
}

// ---------------------------------------------------------------- piece sets

/// Parses a piece set; `file` names it in messages.
pub fn parse_piece_set(text: &str, file: &str) -> Result<PieceSet, FormatError> {
    let raw: PieceSetDef = parse_ron(text, file)?;
    let mut pieces = Vec::with_capacity(raw.pieces.len());
    for p in &raw.pieces {
        let piece = Piece::from_rows(&p.id, &p.label, p.weight, &p.rows)
            .map_err(|m| FormatError::new(file, locate(text, &p.id, 0), m))?;
        pieces.push(piece);
    }
    PieceSet::new(&raw.name, pieces).map_err(|m| FormatError::new(file, None, m))
}

pub fn load_piece_set(path: &Path) -> Result<PieceSet, FormatError> {
    parse_piece_set(&read_text(path)?, &path.display().to_string())
}

/// The set as a RON file.
pub fn piece_set_to_ron(set: &PieceSet) -> String {
    to_ron(&set.to_def())
}

fn to_ron<T: Serialize>(value: &T) -> String {
    let config = ron::ser::PrettyConfig::new()
        .depth_limit(3)
        .indentor("    ".to_owned());
    let mut text = ron_options().to_string_pretty(value, config).unwrap_or_default();
    text.push('\n');
    text
}

// ---------------------------------------------------------------- deals

/// A deal file: a board and a holder (empty for a board-only file).
#[derive(Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct DealFile {
    board: Vec<String>,
    #[serde(default)]
    holder: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pieces: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    /// In a playtest log: the placements the player made, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    moves: Vec<(String, usize, usize)>,
}

/// A deal as written, before its holder is tied to a piece set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawDeal {
    pub board: Board,
    pub holder: Vec<String>,
    /// The piece set the holder's ids refer to, as written in the file.
    pub pieces: Option<String>,
    pub seed: Option<u64>,
    /// In a playtest log: the placements the player made, in order, as
    /// (piece id, column, row) of the piece's top-left corner.
    pub moves: Vec<(String, usize, usize)>,
    /// Where the deal starts in its file (for locating later errors).
    offset: usize,
}

/// A deal whose holder refers to a piece set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deal {
    pub board: Board,
    pub holder: Vec<PieceIdx>,
    pub seed: Option<u64>,
}

/// Parses a deal file or a batch (a RON list of deals); the first bad deal
/// fails the whole file.
pub fn parse_deals(text: &str, file: &str) -> Result<Vec<RawDeal>, FormatError> {
    parse_deals_each(text, file)?.into_iter().collect()
}

/// Parses a deal file or a batch, judging each deal on its own: the file
/// fails only when it is not RON of the right shape (or holds no deal);
/// a deal whose board or holder is wrong is an `Err` in its place, with
/// file, line and column, and the others are read.
pub fn parse_deals_each(text: &str, file: &str) -> Result<Vec<Result<RawDeal, FormatError>>, FormatError> {
    let batch = first_token(text) == Some('[');
    let raws: Vec<DealFile> = if batch {
        parse_ron(text, file)?
    } else {
        vec![parse_ron(text, file)?]
    };
    if raws.is_empty() {
        return Err(FormatError::new(file, None, "the batch holds no deals"));
    }
    let starts = match deal_spans(text).filter(|s| batch && s.deals.len() == raws.len()) {
        Some(spans) => spans.deals.iter().map(|r| r.start).collect(),
        None => deal_starts(text, raws.len()),
    };
    Ok(raws
        .into_iter()
        .enumerate()
        .map(|(i, raw)| {
            let offset = starts[i];
            let what = if batch {
                format!("deal {i}: ")
            } else {
                String::new()
            };
            let mut deal = raw_deal(raw.board, raw.holder, raw.moves, text, offset, file, &what)?;
            deal.pieces = raw.pieces;
            deal.seed = raw.seed;
            Ok(deal)
        })
        .collect())
}

/// A deal from its board's rows, its holder's ids and its moves, written at
/// `offset` of `text` (where messages point): the board checked, the
/// holder at most `MAX_HOLDER` pieces. RON batches and JSON Lines logs
/// both make their deals here.
pub(crate) fn raw_deal(
    rows: Vec<String>,
    holder: Vec<String>,
    moves: Vec<(String, usize, usize)>,
    text: &str,
    offset: usize,
    file: &str,
    what: &str,
) -> Result<RawDeal, FormatError> {
    let board = parse_board(&rows, text, offset, file, what)?;
    if holder.len() > MAX_HOLDER {
        let at = locate(text, &holder[MAX_HOLDER], offset);
        return Err(FormatError::new(
            file,
            at,
            format!(
                "{what}the holder has {} pieces; it takes 1 to {MAX_HOLDER}",
                holder.len()
            ),
        ));
    }
    Ok(RawDeal {
        board,
        holder,
        pieces: None,
        seed: None,
        moves,
        offset,
    })
}

/// The first character that is not blank, inside a comment (block
/// comments nest) or an extension attribute.
fn first_token(text: &str) -> Option<char> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"//") {
            i = crate::io::ron_scan::line_comment_end(bytes, i);
        } else if bytes[i..].starts_with(b"/*") {
            i = crate::io::ron_scan::block_comment_end(bytes, i);
        } else if bytes[i..].starts_with(b"#!") {
            // An extension attribute, `#![enable(implicit_some)]`.
            i = bytes[i..]
                .iter()
                .position(|&b| b == b']')
                .map_or(bytes.len(), |p| i + p + 1);
        } else if bytes[i].is_ascii_whitespace() {
            i += 1;
        } else {
            return text[i..].chars().next();
        }
    }
    None
}

/// Byte offsets of each deal's `board` key, to point messages at the right deal.
fn deal_starts(text: &str, n: usize) -> Vec<usize> {
    let mut starts: Vec<usize> = text.match_indices("board").map(|(i, _)| i).collect();
    starts.resize(n.max(starts.len()), 0);
    starts
}

fn parse_board(
    rows: &[String],
    text: &str,
    offset: usize,
    file: &str,
    what: &str,
) -> Result<Board, FormatError> {
    let err = |row: &str, message: String| {
        FormatError::new(file, locate(text, row, offset), format!("{what}{message}"))
    };
    let Some(first) = rows.first() else {
        return Err(FormatError::new(
            file,
            None,
            format!("{what}the board has no rows"),
        ));
    };
    let width = first.chars().count();
    let size = BoardSize::new(width, rows.len()).map_err(|m| err(first, m))?;
    let mut board = Board::empty(size);
    for (y, row) in rows.iter().enumerate() {
        let n = row.chars().count();
        if n != width {
            return Err(err(
                row,
                format!(
                    "board row {} has {n} cells but row 1 has {width}; rows must be equally long",
                    y + 1
                ),
            ));
        }
        for (x, ch) in row.chars().enumerate() {
            match ch {
                '.' => {}
                c if c.is_whitespace() || c.is_control() => {
                    return Err(err(
                        row,
                        format!(
                            "board row {}, column {}: {c:?} is not a cell; use '.' for empty",
                            y + 1,
                            x + 1
                        ),
                    ));
                }
                _ => board.set(x, y, Cell::Painted),
            }
        }
    }
    Ok(board)
}

impl RawDeal {
    /// Where the deal starts in `text`: (line, column).
    pub fn start(&self, text: &str) -> (usize, usize) {
        line_col(text, self.offset.min(text.len()))
    }

    /// Where move `i` of this deal is written in `text`: the i-th tuple
    /// after the deal's `moves` key (the key itself when there are fewer).
    pub fn move_at(&self, text: &str, i: usize) -> Option<(usize, usize)> {
        let start = self.offset.min(text.len());
        let key = start + text[start..].find("moves")?;
        // The list opens with '['; its moves are RON tuples, '(', or JSON
        // arrays, '['.
        let list = key + text[key..].find('[')?;
        let opener = text[list + 1..].trim_start().chars().next()?;
        let tuple = text[list + 1..]
            .match_indices(opener)
            .nth(i)
            .map(|(j, _)| list + 1 + j);
        Some(line_col(text, tuple.unwrap_or(key)))
    }

    /// Ties the holder's ids to `set`, refusing unknown ids and pieces wider
    /// or taller than the board.
    pub fn resolve(&self, set: &PieceSet, text: &str, file: &str) -> Result<Deal, FormatError> {
        let size = self.board.size();
        let mut holder = Vec::with_capacity(self.holder.len());
        for id in &self.holder {
            let at = || locate(text, id, self.offset);
            let idx = set.index_of(id).ok_or_else(|| {
                FormatError::new(
                    file,
                    at(),
                    format!("unknown piece id {id:?} (not in the piece set \"{}\")", set.name),
                )
            })?;
            let p = set.piece(idx);
            if p.width() > size.w() || p.height() > size.h() {
                return Err(FormatError::new(
                    file,
                    at(),
                    format!(
                        "piece {id:?} is {}x{}, larger than the {size} board",
                        p.width(),
                        p.height()
                    ),
                ));
            }
            holder.push(idx);
        }
        Ok(Deal {
            board: self.board.clone(),
            holder,
            seed: self.seed,
        })
    }
}

/// Where a deal's `pieces` path points: relative to the deal file's own
/// folder, as includes are in every format that has them; for files written
/// before that rule, as written (from the working folder) when nothing is
/// beside the deal.
pub fn resolve_pieces_path(deal_file: &Path, pieces: &str) -> PathBuf {
    let beside = deal_file.parent().map(|d| d.join(pieces));
    match beside {
        Some(p) if p.exists() => p,
        Some(p) if !Path::new(pieces).exists() => p,
        _ => PathBuf::from(pieces),
    }
}

/// The piece set a deal file names, with its path. A failure names both the
/// deal file and the piece set it asked for.
pub fn load_pieces_of(deal_file: &Path, pieces: &str) -> Result<(PieceSet, PathBuf), FormatError> {
    let path = resolve_pieces_path(deal_file, pieces);
    match load_piece_set(&path) {
        Ok(set) => Ok((set, path)),
        Err(e) => Err(FormatError {
            file: deal_file.display().to_string(),
            at: None,
            message: format!("its piece set {pieces:?} could not be used ({e})"),
        }),
    }
}

/// The `pieces:` line of a file written at `file` that names the piece set
/// at `set_file`: the set's path relative to `file`'s folder, as every
/// reader resolves it (`resolve_pieces_path`). The one function every
/// writer (deals, batches, generators, the CLI's tune) uses. Both paths are
/// made absolute first (symlinks resolved where they exist), so a file
/// opened as `g.ron` from the working folder writes its reference right;
/// with no common root (another drive), the set's absolute path.
pub fn pieces_reference(file: &Path, set_file: &Path) -> String {
    let folder = file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let full = |p: &Path| {
        p.canonicalize()
            .or_else(|_| std::path::absolute(p))
            .unwrap_or_else(|_| p.to_path_buf())
    };
    relative_path(&full(folder), &full(set_file))
        .display()
        .to_string()
}

/// `target` written relative to the folder `from` (both absolute), for a
/// `pieces:` line (`target` itself when the two share no root).
fn relative_path(from: &Path, target: &Path) -> PathBuf {
    let a: Vec<_> = from.components().collect();
    let b: Vec<_> = target.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return target.to_path_buf();
    }
    let mut out = PathBuf::new();
    for _ in common..a.len() {
        out.push("..");
    }
    for c in &b[common..] {
        out.push(c);
    }
    out
}

/// Whether `text` is a batch (a RON list of deals).
pub fn is_batch(text: &str) -> bool {
    first_token(text) == Some('[')
}

/// A deal as a RON file; `pieces` and `seed` are written when given.
pub fn deal_to_ron(
    board: &Board,
    holder: &[PieceIdx],
    set: &PieceSet,
    pieces: Option<&str>,
    seed: Option<u64>,
) -> String {
    deal_with_moves_to_ron(board, holder, set, pieces, seed, &[])
}

/// A deal of a playtest log: as `deal_to_ron`, with the placements made,
/// (piece, column, row) of each piece's top-left corner.
pub fn deal_with_moves_to_ron(
    board: &Board,
    holder: &[PieceIdx],
    set: &PieceSet,
    pieces: Option<&str>,
    seed: Option<u64>,
    moves: &[(PieceIdx, usize, usize)],
) -> String {
    let raw = DealFile {
        board: board.to_rows(),
        holder: holder.iter().map(|&i| set.piece(i).id.clone()).collect(),
        pieces: pieces.map(str::to_owned),
        seed,
        moves: moves
            .iter()
            .map(|&(p, x, y)| (set.piece(p).id.clone(), x, y))
            .collect(),
    };
    to_ron(&raw)
}

#[cfg(test)]
mod tests {
    /// A path that never ends (a device given by mistake) is read to the
    /// cap and refused, not until memory runs out.
    #[cfg(unix)]
    #[test]
    fn an_endless_file_is_read_to_the_cap_and_refused() {
        let e = super::read_text(std::path::Path::new("/dev/zero")).unwrap_err();
        assert!(e.message.contains("larger than 256 MiB"), "{e}");
        assert!(
            super::read_text(std::path::Path::new("/dev/null"))
                .unwrap()
                .is_empty()
        );
    }

    #[cfg(unix)]
    #[test]
    fn write_atomic_keeps_permissions_writes_through_a_symlink_and_leaves_no_temporary() {
        use std::os::unix::fs::{FileTypeExt as _, PermissionsExt as _};
        let dir = std::env::temp_dir().join(format!("tenten-atomic-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("real.ron");
        std::fs::write(&target, "old").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.join("link.ron");
        std::os::unix::fs::symlink("real.ron", &link).unwrap();
        super::write_atomic(&link, "new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(),
            "the link is kept"
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(
            std::fs::metadata(&target).unwrap().permissions().mode() & 0o777,
            0o640
        );
        // An error (the folder is gone) leaves no temporary behind.
        let gone = dir.join("no/such/dir/x.ron");
        assert!(
            super::write_atomic(&gone, "x")
                .unwrap_err()
                .to_string()
                .contains("cannot write")
        );
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 2, "{left:?}");
        // A changed file is told from an unchanged one.
        let h = super::content_hash("new");
        assert_eq!(super::unchanged_on_disk(&target, Some(h)), Some(true));
        std::fs::write(&target, "edited elsewhere").unwrap();
        assert_eq!(super::unchanged_on_disk(&target, Some(h)), Some(false));
        assert_eq!(super::unchanged_on_disk(&target, None), None);
        // What is not a regular file is never replaced: a folder, a socket.
        let folder = dir.join("folder.ron");
        std::fs::create_dir(&folder).unwrap();
        let socket = dir.join("socket.ron");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        for p in [&folder, &socket] {
            let e = super::write_atomic(p, "x").unwrap_err().to_string();
            assert!(e.contains("not a regular file"), "{e}");
        }
        assert!(std::fs::metadata(&folder).unwrap().is_dir());
        assert!(
            std::fs::symlink_metadata(&socket)
                .unwrap()
                .file_type()
                .is_socket()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    use super::*;

    #[test]
    fn the_built_in_classic_set_is_the_shipped_preset() {
        const FILE: &str = include_str!("../../../../presets/pieces/classic-1010.ron");
        assert_eq!(
            parse_piece_set(FILE, "classic-1010.ron").unwrap(),
            PieceSet::classic()
        );
    }

    const DEAL: &str = r###"(
    board: [
        "....",
        "##..",
        "....",
        "...#",
    ],
    holder: ["sq2", "dot"],
    seed: 42,
)"###;

    #[test]
    fn relative_paths_climb_to_the_common_folder() {
        let root = std::env::temp_dir().join(format!("tenten-rel-{}", std::process::id()));
        std::fs::create_dir_all(root.join("deals")).unwrap();
        std::fs::create_dir_all(root.join("pieces")).unwrap();
        std::fs::write(root.join("pieces/set.ron"), "x").unwrap();
        let rel = pieces_reference(&root.join("deals/d.ron"), &root.join("pieces/set.ron"));
        assert_eq!(rel, "../pieces/set.ron");
        // Read back from the file's folder, it is the set.
        assert_eq!(
            resolve_pieces_path(&root.join("deals/d.ron"), &rel)
                .canonicalize()
                .unwrap(),
            root.join("pieces/set.ron").canonicalize().unwrap()
        );
        // Beside it, and a file not written yet.
        assert_eq!(
            pieces_reference(&root.join("pieces/new.ron"), &root.join("pieces/set.ron")),
            "set.ron"
        );
        std::fs::remove_dir_all(root).ok();
    }

    #[test]
    fn a_deal_parses_and_resolves() {
        let deals = parse_deals(DEAL, "d.ron").unwrap();
        assert_eq!(deals.len(), 1);
        let set = PieceSet::classic();
        let deal = deals[0].resolve(&set, DEAL, "d.ron").unwrap();
        assert_eq!(deal.board.size(), BoardSize::new(4, 4).unwrap());
        assert_eq!(deal.board.filled(), 3);
        assert_eq!(set.ids(&deal.holder), "sq2,dot");
        assert_eq!(deal.seed, Some(42));
    }

    #[test]
    fn a_batch_is_a_list_of_deals() {
        let text = format!("// two deals\n[{DEAL}, {DEAL}]");
        assert_eq!(parse_deals(&text, "b.ron").unwrap().len(), 2);
    }

    #[test]
    fn syntax_errors_name_line_and_column() {
        let e = parse_deals("(\n  board: [\"....\"\n  holder: [],\n)", "bad.ron").unwrap_err();
        assert_eq!(e.file, "bad.ron");
        assert_eq!(e.at.map(|a| a.0), Some(3), "{e}");
        assert!(e.to_string().starts_with("bad.ron:3:"), "{e}");
    }

    #[test]
    fn messages_name_what_a_file_looks_like_not_an_internal_type() {
        let e = parse_deals("hello", "h.ron").unwrap_err().to_string();
        assert!(e.contains("Expected a deal, written (board: ["), "{e}");
        assert!(!e.contains("DealFile"), "{e}");
        let e = parse_deals("(board: [\"#\"], holdr: [])", "h.ron")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`holdr` in a deal"), "{e}");
        let e = parse_piece_set("(name: \"x\", pieces: [5])", "p.ron")
            .unwrap_err()
            .to_string();
        assert!(!e.contains("PieceDef") && e.contains("a piece, written"), "{e}");
    }

    #[test]
    fn ragged_rows_and_bad_sizes_are_refused_with_their_place() {
        let ragged = DEAL.replace("\"##..\"", "\"##...\"");
        let e = parse_deals(&ragged, "r.ron").unwrap_err();
        assert!(e.message.contains("row 2 has 5 cells"), "{e}");
        assert_eq!(e.at, Some((4, 9)));
        let tiny = "(board: [\"...\", \"...\", \"...\"], holder: [\"dot\"])";
        assert!(
            parse_deals(tiny, "t.ron")
                .unwrap_err()
                .message
                .contains("each side must be 4 to 16")
        );
        let space = DEAL.replace("\"....\",\n        \"##..\"", "\"... \",\n        \"##..\"");
        assert!(
            parse_deals(&space, "s.ron")
                .unwrap_err()
                .message
                .contains("use '.' for empty")
        );
    }

    #[test]
    fn holders_must_name_known_pieces_that_fit_the_board() {
        let set = PieceSet::classic();
        let unknown = DEAL.replace("\"dot\"", "\"blob\"");
        let deal = &parse_deals(&unknown, "u.ron").unwrap()[0];
        let e = deal.resolve(&set, &unknown, "u.ron").unwrap_err();
        assert!(e.message.contains("unknown piece id \"blob\""), "{e}");
        assert_eq!(e.at, Some((8, 21)));
        let wide = DEAL.replace("\"dot\"", "\"h5\"");
        let deal = &parse_deals(&wide, "w.ron").unwrap()[0];
        assert!(
            deal.resolve(&set, &wide, "w.ron")
                .unwrap_err()
                .message
                .contains("larger than the 4x4 board")
        );
        let five = DEAL.replace(
            "[\"sq2\", \"dot\"]",
            "[\"dot\", \"dot\", \"dot\", \"dot\", \"dot\"]",
        );
        assert!(
            parse_deals(&five, "f.ron")
                .unwrap_err()
                .message
                .contains("1 to 4")
        );
    }

    #[test]
    fn files_round_trip() {
        let set = PieceSet::classic();
        let text = piece_set_to_ron(&set);
        assert_eq!(parse_piece_set(&text, "p.ron").unwrap(), set);
        let deal = parse_deals(DEAL, "d.ron").unwrap()[0]
            .resolve(&set, DEAL, "d.ron")
            .unwrap();
        let text = deal_to_ron(
            &deal.board,
            &deal.holder,
            &set,
            Some("presets/pieces/classic-1010.ron"),
            Some(42),
        );
        let again = parse_deals(&text, "d2.ron").unwrap()[0]
            .resolve(&set, &text, "d2.ron")
            .unwrap();
        assert_eq!(again, deal);
        assert!(
            text.contains("pieces: \"presets/pieces/classic-1010.ron\""),
            "{text}"
        );
    }

    #[test]
    fn atomic_writes_leave_no_temporary_file() {
        let dir = std::env::temp_dir().join(format!("tenten-fmt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.ron");
        write_atomic(&path, "hello").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "hello");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        let e = write_atomic(&dir.join("missing/x.ron"), "x").unwrap_err();
        assert!(e.message.contains("cannot write"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn threads_saving_one_file_each_write_it_whole() {
        // Before: the temporary file was named by the process alone, so
        // two threads wrote into one and renamed it from under each other.
        let dir = std::env::temp_dir().join(format!("tenten-race-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("same.ron");
        let texts: Vec<String> = (0..8).map(|t| format!("thread {t} ").repeat(20_000)).collect();
        std::thread::scope(|s| {
            for text in &texts {
                let path = &path;
                s.spawn(move || {
                    for _ in 0..20 {
                        write_atomic(path, text).unwrap();
                    }
                });
            }
        });
        let now = std::fs::read_to_string(&path).unwrap();
        assert!(texts.contains(&now), "the file is one thread's text, whole");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no temporary file left"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_new_file_is_never_written_over_an_existing_one() {
        let dir = std::env::temp_dir().join(format!("tenten-new-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("n.jsonl");
        write_new(&path, "first").unwrap();
        let e = write_new(&path, "second").unwrap_err();
        assert!(e.message.contains("exists"), "{e}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "first");
        // Racing threads: exactly one of them makes the file.
        let raced = dir.join("raced");
        let made = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for t in 0..8 {
                let (raced, made) = (&raced, &made);
                s.spawn(move || {
                    if write_new(raced, &format!("{t}")).is_ok() {
                        made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                });
            }
        });
        assert_eq!(made.into_inner(), 1);
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            2,
            "no temporary file left"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
