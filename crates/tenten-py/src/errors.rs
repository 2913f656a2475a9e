//! One base class, `tenten.Error`, for everything the engine refuses: bad
//! arguments (`InputError`, also a `ValueError`) and bad files or RON text
//! (`FormatError`, whose message starts with file:line:col).

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use tenten_engine::io::formats::FormatError as EngineFormatError;

create_exception!(tenten, Error, PyException, "Everything the engine refuses.");
create_exception!(
    tenten,
    InputError,
    Error,
    "A bad argument: its name and what was wrong."
);
create_exception!(
    tenten,
    FormatError,
    Error,
    "A file or RON text the engine cannot read: file:line:col: what was wrong."
);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add("FormatError", py.get_type::<FormatError>())?;
    Ok(())
}

/// `argument`: what was wrong with it.
pub fn input(argument: &str, message: impl std::fmt::Display) -> PyErr {
    InputError::new_err(format!("{argument}: {message}"))
}

pub fn format(e: EngineFormatError) -> PyErr {
    FormatError::new_err(e.to_string())
}
