use super::*;
use crate::search::heuristic::Policy;

const MERCY: &str = include_str!("../../../../presets/generators/classic-with-mercy.ron");

#[test]
fn the_presets_and_the_example_read_and_round_trip() {
    let set = PieceSet::classic();
    for (name, _) in PRESETS {
        let spec = preset(name, &set).unwrap_or_else(|| panic!("{name}"));
        if crate::play::dealers::NAMES.contains(&name) {
            assert_eq!(spec.file.name, name);
        }
        assert_eq!(parse(&spec.to_ron(), "again.ron", &set).unwrap(), spec, "{name}");
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../presets/generators/classic-with-mercy.ron");
    let spec = load(&path, &PieceSet::classic()).unwrap();
    assert_eq!(spec.file.by_fill.len(), 3);
    assert_eq!(spec.set.piece(spec.set.index_of("dot").unwrap()).weight, 3);
    assert_eq!(
        spec.file.check,
        Check::Repair {
            policy: Policy::Deepest,
            redraws: 64
        }
    );
    let back = parse(&spec.to_ron(), "saved.ron", &spec.set).unwrap();
    assert_eq!(back.file, spec.file, "saved and read back, nothing lost");
}

#[test]
fn the_weights_in_force_follow_the_band_and_mercy() {
    let spec = parse(MERCY, "m.ron", &PieceSet::classic()).unwrap();
    let w = |fill: f64, mercy: bool, id: &str| {
        spec.weights_at(fill, mercy)[usize::from(spec.set.index_of(id).unwrap())]
    };
    assert_eq!(spec.band_at(0.5), Some(0), "a band reaches its up_to");
    assert_eq!(spec.band_at(0.51), Some(1));
    assert_eq!((w(0.5, false, "sq3"), w(0.51, false, "sq3")), (2.0, 1.0));
    assert_eq!((w(0.9, false, "dot"), w(0.9, true, "dot")), (9.0, 27.0));
    assert_eq!(w(0.1, true, "h2"), 3.0, "mercy scales dots only");
}

/// Each bad file is refused with the line of the fault and a message that
/// says what to change.
#[test]
fn bad_files_are_refused_with_their_place() {
    let set = PieceSet::classic();
    let cases: [(&str, &str, &str, usize); 7] = [
        (
            "(up_to: 0.75, scale",
            "(up_to: 0.45, scale",
            "bands rise in order",
            11,
        ),
        (
            "\"sq3\": 0.5, \"h5\"",
            "\"sq3\": -0.5, \"h5\"",
            "a scale is 0 to 100",
            11,
        ),
        (
            "weights: { \"dot\": 3 }",
            "weights: { \"oct\": 3 }",
            "unknown piece \"oct\"",
            8,
        ),
        (
            "repeat_previous: 0.0",
            "repeat_previous: 1.5",
            "a chance, 0 to 1",
            14,
        ),
        (
            "after_rounds_without_clear: 8",
            "after_rounds_without_clear: 0",
            "at least 1",
            15,
        ),
        (
            "check: repair(policy: deepest",
            "check: repair(policy: deepst",
            "",
            16,
        ),
        (
            "(up_to: 0.50, scale: {})",
            "(up_to: 0.50, scale: { \"dot\": 0.0, \"sq2\": 0.0, \"sq3\": 0.0, \"h2\": 0.0, \"v2\": 0.0, \"h3\": 0.0, \"v3\": 0.0, \"h4\": 0.0, \"v4\": 0.0, \"h5\": 0.0, \"v5\": 0.0, \"l3_tl\": 0.0, \"l3_tr\": 0.0, \"l3_bl\": 0.0, \"l3_br\": 0.0, \"l5_tl\": 0.0, \"l5_tr\": 0.0, \"l5_bl\": 0.0, \"l5_br\": 0.0 })",
            "every weight to 0",
            10,
        ),
    ];
    for (from, to, says, line) in cases {
        assert!(MERCY.contains(from), "{from}");
        let text = MERCY.replace(from, to);
        let e = parse(&text, "bad.ron", &set).unwrap_err().to_string();
        assert!(e.contains(says), "{to}: {e}");
        assert!(e.starts_with(&format!("bad.ron:{line}:")), "{to}: {e}");
    }
    let unknown_field = MERCY.replace("repeat_previous", "repeat_prev");
    assert!(parse(&unknown_field, "bad.ron", &set).is_err());
}
