//! The engine for Python (`import tenten`): boards as NumPy arrays, the
//! paper's searches, and the core of a Gymnasium environment. The Python
//! package (`python/tenten`) wraps this module, `tenten._tenten`.

use pyo3::prelude::*;

mod args;
mod env;
mod errors;
mod generator_fit;
mod interrupt;
mod player_fit;
mod search;
mod studies;
mod tune;

#[pymodule]
fn _tenten(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    search::register(m)?;
    studies::register(m)?;
    player_fit::register(m)?;
    generator_fit::register(m)?;
    tune::register(m)?;
    env::register(m)?;
    Ok(())
}
