//! The engine is the pure model: nothing under src/engine/ may use the GUI stack.

#[test]
fn the_engine_imports_no_gui_crate() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/engine");
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for gui in ["egui", "eframe", "egui_plot", "rfd"] {
                let used = code.contains(&format!("{gui}::")) || code.contains(&format!("use {gui}"));
                assert!(
                    !used,
                    "{}:{}: the engine uses {gui}: {line}",
                    path.display(),
                    n + 1
                );
            }
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} engine files found");
}
