//! The paper's searches on NumPy boards: `validate` (Fig. 4), `repair`
//! (equations 4 and 5), `danger`, and `validate_many` over a stack.

use numpy::{IntoPyArray, PyReadonlyArray2, PyReadonlyArray3, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use tenten_engine::danger as engine_danger;
use tenten_engine::model::board::Bits;
use tenten_engine::model::generator::Generator;
use tenten_engine::model::shapes::Shapes;
use tenten_engine::search::changer::{ChangeOptions, Outcome, repair as engine_repair};
use tenten_engine::search::validator::verdict;

use crate::args;
use crate::errors::input;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(validate_many, m)?)?;
    m.add_function(wrap_pyfunction!(repair, m)?)?;
    m.add_function(wrap_pyfunction!(danger, m)?)?;
    m.add_function(wrap_pyfunction!(deal, m)?)?;
    m.add_function(wrap_pyfunction!(piece_ids, m)?)?;
    Ok(())
}

/// Whether every piece of `holder` can be placed on `board`, in some order
/// (the paper's AND-OR tree, Fig. 4). Full lines on the board are cleared
/// first, as in a game.
///
/// board: a 2-D uint8 NumPy array (height, width), nonzero cells filled.
/// holder: piece ids ("sq3") or indices into the set, 1 to 4 of them.
/// pieces: a piece-set file; the classic set when None.
///
/// Returns {"solvable": bool, "nodes": int}: nodes counts the placements
/// tried, as `tenten validate` prints `nodes=`.
#[pyfunction]
#[pyo3(signature = (board, holder, pieces=None))]
fn validate<'py>(
    py: Python<'py>,
    board: &Bound<'py, PyAny>,
    holder: &Bound<'py, PyAny>,
    pieces: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let set = args::pieces(pieces)?;
    let (size, bits) = args::board(board)?;
    let holder = args::holder(&set, holder)?;
    let shapes = Shapes::new(&set, size);
    let v = verdict(&shapes, bits, &holder);
    let out = PyDict::new(py);
    out.set_item("solvable", v.solvable)?;
    out.set_item("nodes", v.nodes)?;
    Ok(out)
}

/// `validate` over a stack of boards in one call, without the GIL.
///
/// boards: a 3-D uint8 array (n, height, width).
/// holders: a 2-D integer array (n, k) of piece indices (see piece_ids).
/// pieces: a piece-set file; the classic set when None.
///
/// Returns {"solvable": bool array (n,), "nodes": uint64 array (n,)}.
#[pyfunction]
#[pyo3(signature = (boards, holders, pieces=None))]
fn validate_many<'py>(
    py: Python<'py>,
    boards: PyReadonlyArray3<'py, u8>,
    holders: PyReadonlyArray2<'py, i64>,
    pieces: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let set = args::pieces(pieces)?;
    let (n, h, w) = (boards.shape()[0], boards.shape()[1], boards.shape()[2]);
    let (hn, k) = (holders.shape()[0], holders.shape()[1]);
    if hn != n {
        return Err(input("holders", format!("has {hn} rows for {n} boards")));
    }
    args::holder_size("holders", k)?;
    let size = args::size("boards", (h, w))?;
    let count = set.pieces.len() as i64;
    let holders = holders.as_array();
    if let Some(bad) = holders.iter().find(|&&p| !(0..count).contains(&p)) {
        return Err(input(
            "holders",
            format!("piece index {bad} is outside the set's 0..{count}"),
        ));
    }
    let boards = boards.as_array();
    // Everything read from the arrays is copied while the GIL is held:
    // once it is released another Python thread may write them.
    let deals: Vec<(Bits, Vec<u8>)> = (0..n)
        .map(|i| {
            (
                args::bits(boards.index_axis(numpy::ndarray::Axis(0), i), size),
                holders.row(i).iter().map(|&p| p as u8).collect(),
            )
        })
        .collect();
    let shapes = Shapes::new(&set, size);
    let (solvable, nodes): (Vec<bool>, Vec<u64>) = py.detach(|| {
        deals
            .iter()
            .map(|(bits, holder)| {
                let v = verdict(&shapes, *bits, holder);
                (v.solvable, v.nodes)
            })
            .unzip()
    });
    let out = PyDict::new(py);
    out.set_item("solvable", solvable.into_pyarray(py))?;
    out.set_item("nodes", nodes.into_pyarray(py))?;
    Ok(out)
}

/// The paper's improver: if `holder` cannot be placed, replace the block
/// F picks (equations 4 and 5) until it can, as `tenten repair` does.
///
/// board: a 2-D uint8 NumPy array (height, width), nonzero cells filled.
/// holder: piece ids ("sq3") or indices into the set, 1 to 4 of them.
/// pieces: a piece-set file; the classic set when None.
/// seed: the redraws' seed (`tenten repair --seed`).
///
/// Returns {"outcome": "unchanged" | "repaired" | "dead", "holder": [ids],
/// "attempts": int}.
#[pyfunction]
#[pyo3(signature = (board, holder, pieces=None, seed=0))]
fn repair<'py>(
    py: Python<'py>,
    board: &Bound<'py, PyAny>,
    holder: &Bound<'py, PyAny>,
    pieces: Option<&str>,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let set = args::pieces(pieces)?;
    let (size, bits) = args::board(board)?;
    let holder = args::holder(&set, holder)?;
    let shapes = Shapes::new(&set, size);
    let r = py.detach(|| {
        engine_repair(
            &shapes,
            &set,
            bits,
            &holder,
            &mut Generator::new(seed),
            ChangeOptions::default(),
        )
    });
    let out = PyDict::new(py);
    let outcome = match r.outcome {
        Outcome::Unchanged => "unchanged",
        Outcome::Repaired => "repaired",
        Outcome::Dead => "dead",
    };
    out.set_item("outcome", outcome)?;
    let ids: Vec<&str> = r.holder.iter().map(|&p| set.piece(p).id.as_str()).collect();
    out.set_item("holder", ids)?;
    out.set_item("attempts", r.changes())?;
    Ok(out)
}

/// The exact chance that a fresh deal of `k` pieces cannot be placed on
/// `board`, as `tenten danger` computes it.
///
/// board: a 2-D uint8 NumPy array (height, width), nonzero cells filled.
/// pieces: a piece-set file; the classic set when None.
/// k: the pieces a deal (the holder's size), 1 to 4.
///
/// Returns {"danger": float, "killers": int (the unplaceable deals)}.
#[pyfunction]
#[pyo3(signature = (board, pieces=None, k=3))]
fn danger<'py>(
    py: Python<'py>,
    board: &Bound<'py, PyAny>,
    pieces: Option<&str>,
    k: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let set = args::pieces(pieces)?;
    let (size, bits) = args::board(board)?;
    let shapes = Shapes::new(&set, size);
    let d = py
        .detach(|| engine_danger::danger(&shapes, &set, bits, k))
        .map_err(|e| input("k", e))?;
    let out = PyDict::new(py);
    out.set_item("danger", d.probability)?;
    out.set_item("killers", d.killers.len())?;
    Ok(out)
}

/// The holder the seeded weighted generator deals on an empty board, as
/// `tenten deal --seed` does: a list of piece ids.
///
/// seed: the generator's seed (`tenten deal --seed`).
/// k: the pieces a deal, 1 to 4.
/// pieces: a piece-set file; the classic set when None.
#[pyfunction]
#[pyo3(signature = (seed, k=3, pieces=None))]
fn deal(seed: u64, k: usize, pieces: Option<&str>) -> PyResult<Vec<String>> {
    let set = args::pieces(pieces)?;
    args::holder_size("k", k)?;
    let holder = Generator::new(seed).deal(&set, k);
    Ok(holder.iter().map(|&p| set.piece(p).id.clone()).collect())
}

/// The ids of a piece set's pieces, in index order.
///
/// pieces: a piece-set file; the classic set when None.
#[pyfunction]
#[pyo3(signature = (pieces=None))]
fn piece_ids(pieces: Option<&str>) -> PyResult<Vec<String>> {
    Ok(args::pieces(pieces)?
        .pieces
        .iter()
        .map(|p| p.id.clone())
        .collect())
}
