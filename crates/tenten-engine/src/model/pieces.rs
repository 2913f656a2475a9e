//! Pieces (the paper's blocks b(t, r), Table I) and weighted piece sets
//! (the 1010! analysis: 19 pieces whose weights sum to 42).

use serde::{Deserialize, Serialize};

/// The largest piece box: custom polyominoes fit in 5x5.
pub const MAX_PIECE_SIDE: usize = 5;

/// A piece as written in a piece-set file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieceDef {
    pub id: String,
    #[serde(default)]
    pub label: String,
    pub weight: u32,
    pub rows: Vec<String>,
}

/// A piece set as written in its file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieceSetDef {
    pub name: String,
    pub pieces: Vec<PieceDef>,
}

/// The most pieces a holder takes (a rule of the game; the validator's
/// 4! orders rest on it).
pub const MAX_HOLDER: usize = 4;

/// A piece: its cells as (dx, dy) offsets from the top-left of its box.
/// (De)serialised through `PieceDef`, so a stored piece is checked on load.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "PieceDef", into = "PieceDef")]
pub struct Piece {
    pub id: String,
    /// The paper's label, e.g. "b(7,2)"; empty for custom pieces.
    pub label: String,
    /// Relative chance to be dealt; 0 means never dealt.
    pub weight: u32,
    cells: Vec<(u8, u8)>,
    width: u8,
    height: u8,
}

/// Weights are whole numbers from 0 (never dealt) to this, everywhere: piece
/// set files, the palette's weight boxes and the custom piece editor.
pub const MAX_WEIGHT: u32 = 1000;

impl Piece {
    /// A piece from its rows, top to bottom, '#' for a cell and '.' for none.
    /// Empty border rows and columns are trimmed.
    pub fn from_rows(id: &str, label: &str, weight: u32, rows: &[String]) -> Result<Self, String> {
        if id.trim().is_empty() {
            return Err("a piece needs a non-empty id".to_owned());
        }
        if id.contains(',') || id.chars().any(char::is_whitespace) {
            return Err(format!("piece id {id:?} may not contain commas or spaces"));
        }
        if weight > MAX_WEIGHT {
            return Err(format!(
                "piece {id:?} has weight {weight}; weights are 0 to {MAX_WEIGHT}"
            ));
        }
        let mut cells = Vec::new();
        for (y, row) in rows.iter().enumerate() {
            for (x, ch) in row.chars().enumerate() {
                match ch {
                    '#' => cells.push((x, y)),
                    '.' => {}
                    other => {
                        return Err(format!(
                            "piece {id:?}, row {}: {other:?} is neither '#' (cell) nor '.' (no cell)",
                            y + 1
                        ));
                    }
                }
            }
        }
        if cells.is_empty() {
            return Err(format!("piece {id:?} has no cells"));
        }
        let x0 = cells.iter().map(|c| c.0).min().unwrap_or(0);
        let y0 = cells.iter().map(|c| c.1).min().unwrap_or(0);
        let width = cells.iter().map(|c| c.0).max().unwrap_or(0) - x0 + 1;
        let height = cells.iter().map(|c| c.1).max().unwrap_or(0) - y0 + 1;
        if width > MAX_PIECE_SIDE || height > MAX_PIECE_SIDE {
            return Err(format!(
                "piece {id:?} is {width}x{height}; pieces must fit in {MAX_PIECE_SIDE}x{MAX_PIECE_SIDE}"
            ));
        }
        let cells = cells
            .into_iter()
            .map(|(x, y)| ((x - x0) as u8, (y - y0) as u8))
            .collect();
        Ok(Self {
            id: id.to_owned(),
            label: label.to_owned(),
            weight,
            cells,
            width: width as u8,
            height: height as u8,
        })
    }

    pub fn cells(&self) -> &[(u8, u8)] {
        &self.cells
    }

    pub fn size(&self) -> usize {
        self.cells.len()
    }

    pub fn width(&self) -> usize {
        usize::from(self.width)
    }

    pub fn height(&self) -> usize {
        usize::from(self.height)
    }

    pub fn has_cell(&self, x: usize, y: usize) -> bool {
        self.cells
            .iter()
            .any(|&(cx, cy)| usize::from(cx) == x && usize::from(cy) == y)
    }

    /// The rows as text, as in a piece-set file.
    pub fn to_rows(&self) -> Vec<String> {
        (0..self.height())
            .map(|y| {
                (0..self.width())
                    .map(|x| if self.has_cell(x, y) { '#' } else { '.' })
                    .collect()
            })
            .collect()
    }

    /// "dot b(0,0)" or just "my_piece" when there is no label.
    pub fn title(&self) -> String {
        if self.label.is_empty() {
            self.id.clone()
        } else {
            format!("{} {}", self.id, self.label)
        }
    }
}

impl TryFrom<PieceDef> for Piece {
    type Error = String;
    fn try_from(d: PieceDef) -> Result<Self, String> {
        Piece::from_rows(&d.id, &d.label, d.weight, &d.rows)
    }
}

impl From<Piece> for PieceDef {
    fn from(p: Piece) -> Self {
        PieceDef {
            rows: p.to_rows(),
            id: p.id,
            label: p.label,
            weight: p.weight,
        }
    }
}

/// Index of a piece in its set.
pub type PieceIdx = u8;

/// A named, weighted set of at most 255 pieces.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "PieceSetDef", into = "PieceSetDef")]
pub struct PieceSet {
    pub name: String,
    pub pieces: Vec<Piece>,
}

impl PieceSet {
    /// Checks the pieces and the set: unique ids, some positive weight.
    pub fn from_def(def: &PieceSetDef) -> Result<Self, String> {
        let pieces = def
            .pieces
            .iter()
            .map(|p| Piece::try_from(p.clone()))
            .collect::<Result<Vec<_>, _>>()?;
        PieceSet::new(&def.name, pieces)
    }

    pub fn to_def(&self) -> PieceSetDef {
        PieceSetDef {
            name: self.name.clone(),
            pieces: self.pieces.iter().cloned().map(PieceDef::from).collect(),
        }
    }

    /// Expected cells in a holder of `k` pieces.
    pub fn expected_cells_per_holder(&self, k: usize) -> f64 {
        k as f64 * self.expected_cells()
    }

    pub fn new(name: &str, pieces: Vec<Piece>) -> Result<Self, String> {
        if pieces.is_empty() {
            return Err("a piece set needs at least one piece".to_owned());
        }
        if pieces.len() > 255 {
            return Err(format!("{} pieces; at most 255 are allowed", pieces.len()));
        }
        for (i, p) in pieces.iter().enumerate() {
            if pieces[..i].iter().any(|q| q.id == p.id) {
                return Err(format!("piece id {:?} appears twice", p.id));
            }
        }
        if pieces.iter().all(|p| p.weight == 0) {
            return Err("every weight is 0, so nothing can be dealt".to_owned());
        }
        Ok(Self {
            name: name.to_owned(),
            pieces,
        })
    }

    /// The classic 1010! set: the 19 pieces with the weights inferred in
    /// Coelho's analysis (sum 42) and Lohanda et al.'s Table I labels. The
    /// same as `presets/pieces/classic-1010.ron` (a test in `io::formats`
    /// holds the two equal); built here so the rules need no file reader.
    pub fn classic() -> Self {
        const CLASSIC: [(&str, &str, u32, &[&str]); 19] = [
            ("dot", "b(0,0)", 2, &["#"]),
            ("sq2", "b(1,0)", 6, &["##", "##"]),
            ("sq3", "b(2,0)", 2, &["###", "###", "###"]),
            ("h2", "b(3,0)", 3, &["##"]),
            ("v2", "b(3,1)", 3, &["#", "#"]),
            ("h3", "b(4,0)", 3, &["###"]),
            ("v3", "b(4,1)", 3, &["#", "#", "#"]),
            ("h4", "b(5,0)", 2, &["####"]),
            ("v4", "b(5,1)", 2, &["#", "#", "#", "#"]),
            ("h5", "b(6,0)", 2, &["#####"]),
            ("v5", "b(6,1)", 2, &["#", "#", "#", "#", "#"]),
            ("l3_tl", "b(7,0)", 2, &["##", "#."]),
            ("l3_tr", "b(7,1)", 2, &["##", ".#"]),
            ("l3_bl", "b(7,2)", 2, &["#.", "##"]),
            ("l3_br", "b(7,3)", 2, &[".#", "##"]),
            ("l5_tl", "b(8,0)", 1, &["###", "#..", "#.."]),
            ("l5_tr", "b(8,1)", 1, &["###", "..#", "..#"]),
            ("l5_bl", "b(8,2)", 1, &["#..", "#..", "###"]),
            ("l5_br", "b(8,3)", 1, &["..#", "..#", "###"]),
        ];
        let pieces = CLASSIC
            .iter()
            .map(|&(id, label, weight, rows)| {
                let rows: Vec<String> = rows.iter().map(|r| (*r).to_owned()).collect();
                Piece::from_rows(id, label, weight, &rows)
            })
            .collect::<Result<Vec<_>, _>>()
            .and_then(|pieces| PieceSet::new("classic 1010!", pieces));
        pieces.unwrap_or_else(|e| unreachable!("the classic set is valid: {e}"))
    }

    pub fn index_of(&self, id: &str) -> Option<PieceIdx> {
        self.pieces.iter().position(|p| p.id == id).map(|i| i as PieceIdx)
    }

    pub fn piece(&self, idx: PieceIdx) -> &Piece {
        &self.pieces[usize::from(idx)]
    }

    /// Every piece's weight, in the set's order.
    pub fn weights(&self) -> Vec<u32> {
        self.pieces.iter().map(|p| p.weight).collect()
    }

    pub fn total_weight(&self) -> u64 {
        self.pieces.iter().map(|p| u64::from(p.weight)).sum()
    }

    /// The chance that one slot is dealt piece `idx`.
    pub fn probability(&self, idx: PieceIdx) -> f64 {
        let total = self.total_weight();
        if total == 0 {
            0.0
        } else {
            f64::from(self.piece(idx).weight) / total as f64
        }
    }

    /// Expected cells in one dealt slot (times 3 gives the 1010! analysis's
    /// "the 3 pieces on each round weigh on average 11 cells").
    pub fn expected_cells(&self) -> f64 {
        (0..self.pieces.len())
            .map(|i| self.probability(i as PieceIdx) * self.pieces[i].size() as f64)
            .sum()
    }

    /// "sq3,h5,l3_tl".
    pub fn ids(&self, holder: &[PieceIdx]) -> String {
        holder
            .iter()
            .map(|&i| self.piece(i).id.as_str())
            .collect::<Vec<_>>()
            .join(",")
    }
}

impl TryFrom<PieceSetDef> for PieceSet {
    type Error = String;
    fn try_from(def: PieceSetDef) -> Result<Self, String> {
        PieceSet::from_def(&def)
    }
}

impl From<PieceSet> for PieceSetDef {
    fn from(set: PieceSet) -> Self {
        set.to_def()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(s: &str) -> Vec<String> {
        s.split('/').map(str::to_owned).collect()
    }

    #[test]
    fn shapes_are_trimmed_to_their_box() {
        let p = Piece::from_rows("x", "", 1, &rows("...../.##../.#...")).unwrap();
        assert_eq!((p.width(), p.height()), (2, 2));
        assert_eq!(p.to_rows(), vec!["##", "#."]);
        assert_eq!(p.size(), 3);
    }

    #[test]
    fn bad_shapes_are_refused_with_the_reason() {
        assert!(
            Piece::from_rows("x", "", 1, &rows("..."))
                .unwrap_err()
                .contains("no cells")
        );
        assert!(
            Piece::from_rows("x", "", 1, &rows("######"))
                .unwrap_err()
                .contains("6x1")
        );
        assert!(
            Piece::from_rows("x", "", 1, &rows("#x"))
                .unwrap_err()
                .contains("'x'")
        );
        assert!(Piece::from_rows("a,b", "", 1, &rows("#")).is_err());
        assert!(Piece::from_rows("a", "", MAX_WEIGHT, &rows("#")).is_ok());
        assert_eq!(
            Piece::from_rows("a", "", MAX_WEIGHT + 1, &rows("#")).unwrap_err(),
            "piece \"a\" has weight 1001; weights are 0 to 1000"
        );
    }

    #[test]
    fn classic_set_matches_the_1010_analysis() {
        let set = PieceSet::classic();
        assert_eq!(set.pieces.len(), 19);
        assert_eq!(set.total_weight(), 42);
        let sq2 = set.index_of("sq2").unwrap();
        assert!((set.probability(sq2) - 6.0 / 42.0).abs() < 1e-12);
        // "the 3 pieces on each round weight on average 11 cells"
        assert!((3.0 * set.expected_cells() - 11.0).abs() < 1e-9);
        assert_eq!(
            set.piece(set.index_of("l5_br").unwrap()).to_rows(),
            ["..#", "..#", "###"]
        );
        assert_eq!(set.piece(set.index_of("l3_bl").unwrap()).label, "b(7,2)");
    }

    #[test]
    fn duplicate_ids_and_all_zero_weights_are_refused() {
        let a = Piece::from_rows("a", "", 0, &rows("#")).unwrap();
        assert!(
            PieceSet::new("s", vec![a.clone(), a.clone()])
                .unwrap_err()
                .contains("twice")
        );
        assert!(PieceSet::new("s", vec![a]).unwrap_err().contains("weight"));
    }
}
