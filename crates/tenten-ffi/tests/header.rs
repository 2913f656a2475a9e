//! `include/tenten.h` is what cbindgen makes of this crate today: a stale
//! header fails here. `UPDATE_HEADER=1` rewrites it.

use std::path::PathBuf;

#[test]
fn the_checked_in_header_is_current() {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml reads");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads the crate")
        .write(&mut generated);
    let generated = String::from_utf8(generated).expect("the header is UTF-8");
    let path = crate_dir.join("../../include/tenten.h");
    if std::env::var_os("UPDATE_HEADER").is_some() {
        std::fs::write(&path, &generated).expect("the header writes");
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "include/tenten.h is stale: run `UPDATE_HEADER=1 cargo test -p tenten-ffi --test header` and commit it"
    );
    for name in [
        "tenten_validate",
        "tenten_dealer_next",
        "tenten_last_error",
        "TENTEN_STATUS_NULL_POINTER",
    ] {
        assert!(generated.contains(name), "the header lacks {name}");
    }
}
