//! Reading Python arguments into the engine's types, each refusal naming
//! the argument.

use numpy::ndarray::ArrayView2;
use numpy::{PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use tenten_engine::io::formats;
use tenten_engine::model::board::{Bits, BoardSize};
use tenten_engine::model::pieces::MAX_HOLDER;
use tenten_engine::model::pieces::{PieceIdx, PieceSet};

use crate::errors::{format, input};

/// `None`: the classic set; else a piece-set file, or the set's RON text
/// (starting with `(` or a `//` comment).
pub fn pieces(pieces: Option<&str>) -> PyResult<PieceSet> {
    match pieces {
        None => Ok(PieceSet::classic()),
        Some(text)
            if !text.ends_with(".ron")
                && (text.trim_start().starts_with('(') || text.trim_start().starts_with("//")) =>
        {
            formats::parse_piece_set(text, "pieces text").map_err(format)
        }
        Some(path) => formats::load_piece_set(std::path::Path::new(path)).map_err(format),
    }
}

/// A board: a 2-D `uint8` array, nonzero cells filled; its shape is
/// (height, width).
pub fn board(board: &Bound<'_, PyAny>) -> PyResult<(BoardSize, Bits)> {
    let array: PyReadonlyArray2<u8> = board.extract().map_err(|_| {
        input(
            "board",
            "expected a 2-D NumPy array of uint8 (height, width), e.g. np.zeros((10, 10), np.uint8)",
        )
    })?;
    let size = self::size("board", (array.shape()[0], array.shape()[1]))?;
    Ok((size, bits(array.as_array(), size)))
}

/// The cells of a board of `size` as bits, nonzero filled.
pub fn bits(cells: ArrayView2<'_, u8>, size: BoardSize) -> Bits {
    let mut bits: Bits = 0;
    for ((y, x), &c) in cells.indexed_iter() {
        bits |= Bits::from(c != 0) << size.bit(x, y);
    }
    bits
}

/// A board size given as (height, width), within the engine's limits.
pub fn size(argument: &str, (h, w): (usize, usize)) -> PyResult<BoardSize> {
    BoardSize::new(w, h).map_err(|e| input(argument, e))
}

/// A holder's size, 1 to MAX_HOLDER.
pub fn holder_size(argument: &str, k: usize) -> PyResult<usize> {
    if (1..=MAX_HOLDER).contains(&k) {
        Ok(k)
    } else {
        Err(input(
            argument,
            format!("is {k}; a holder has 1 to {MAX_HOLDER} pieces"),
        ))
    }
}

/// A holder: piece ids (`"sq3"`) or indices into the set, 1 to
/// MAX_HOLDER of them.
pub fn holder(set: &PieceSet, holder: &Bound<'_, PyAny>) -> PyResult<Vec<PieceIdx>> {
    let items: Vec<Bound<'_, PyAny>> = holder
        .try_iter()
        .map_err(|_| input("holder", "expected a list of piece ids or indices"))?
        .collect::<PyResult<_>>()?;
    if items.is_empty() || items.len() > MAX_HOLDER {
        return Err(input(
            "holder",
            format!("has {} pieces; a holder has 1 to {MAX_HOLDER}", items.len()),
        ));
    }
    items.iter().map(|item| piece(set, item)).collect()
}

fn piece(set: &PieceSet, item: &Bound<'_, PyAny>) -> PyResult<PieceIdx> {
    if let Ok(id) = item.extract::<String>() {
        return set
            .index_of(&id)
            .ok_or_else(|| input("holder", format!("no piece {id:?} in the set {:?}", set.name)));
    }
    match item.extract::<i64>() {
        Ok(i) if (0..set.pieces.len() as i64).contains(&i) => Ok(i as PieceIdx),
        Ok(i) => Err(input(
            "holder",
            format!("piece index {i} is outside the set's 0..{}", set.pieces.len()),
        )),
        Err(_) => Err(input("holder", "each piece is an id (str) or an index (int)")),
    }
}

/// "rank" or "value".
pub fn choice(name: &str, s: &str) -> PyResult<tenten_engine::play::player::Choice> {
    use tenten_engine::play::player::Choice;
    match s {
        "rank" => Ok(Choice::Rank),
        "value" => Ok(Choice::Value),
        other => Err(input(name, format!("{other:?}; choose rank or value"))),
    }
}

/// "piece" or "holder".
pub fn lookahead(name: &str, s: &str) -> PyResult<tenten_engine::play::player::Lookahead> {
    use tenten_engine::play::player::Lookahead;
    match s {
        "piece" => Ok(Lookahead::Piece),
        "holder" => Ok(Lookahead::Holder),
        other => Err(input(name, format!("{other:?}; choose piece or holder"))),
    }
}

/// Writes `text` to `path` atomically; an existing file is replaced only
/// when `overwrite`.
pub fn save(path: &str, text: &str, overwrite: bool) -> PyResult<()> {
    let p = std::path::Path::new(path);
    if overwrite {
        return formats::write_atomic(p, text).map_err(format);
    }
    // Created exclusively: no check-then-write race with another writer.
    formats::write_new(p, text).map_err(|e| {
        if e.message.starts_with("exists") {
            input(
                "path",
                format!("{path} exists; pass overwrite=True to replace it"),
            )
        } else {
            format(e)
        }
    })
}
