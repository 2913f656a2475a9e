//! The file readers never panic, whatever the text, and a failed read names
//! the file.

use proptest::prelude::*;
use tenten_engine::io::formats::{parse_deals, parse_piece_set};
use tenten_engine::model::pieces::PieceSet;

const DEAL: &str = include_str!("../presets/deals/teaching-batch.ron");
const SET: &str = include_str!("../presets/pieces/classic-1010.ron");

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn deal_reader_survives_any_text(text in ".{0,300}") {
        if let Err(e) = parse_deals(&text, "f.ron") {
            prop_assert_eq!(e.file, "f.ron");
        }
    }

    /// Damaged real files: a cut, an inserted snippet, a deleted span.
    #[test]
    fn deal_reader_survives_damaged_files(cut in 0..DEAL.len(), len in 0usize..40, junk in "[\\[\\](),:\"#.a-z0-9 \n-]{0,12}") {
        let mut text = DEAL.as_bytes().to_vec();
        let end = (cut + len).min(text.len());
        text.splice(cut..end, junk.bytes());
        let text = String::from_utf8_lossy(&text).into_owned();
        let set = PieceSet::classic();
        if let Ok(deals) = parse_deals(&text, "f.ron") {
            for d in deals {
                if let Err(e) = d.resolve(&set, &text, "f.ron") {
                    prop_assert!(!e.message.is_empty());
                }
            }
        }
    }

    #[test]
    fn piece_set_reader_survives_damaged_files(cut in 0..SET.len(), len in 0usize..40, junk in "[\\[\\](),:\"#.a-z0-9 \n-]{0,12}") {
        let mut text = SET.as_bytes().to_vec();
        let end = (cut + len).min(text.len());
        text.splice(cut..end, junk.bytes());
        let text = String::from_utf8_lossy(&text).into_owned();
        if let Err(e) = parse_piece_set(&text, "p.ron") {
            prop_assert_eq!(e.file, "p.ron");
        }
    }
}
