//! Products of numbers a caller types: each number may be in its range and
//! their product still past memory (players × generators × games), so the
//! product is what is bounded, in one place, with one message.

use crate::text::grouped;

/// The product of `factors` (each a number and what it counts), if it is at
/// most `max` `unit`; else the message naming every factor, the product and
/// the bound: "4 players x 4 generators x 1,000,000 games = 16,000,000
/// games; a run plays at most 10,000,000".
pub fn product(factors: &[(usize, &str)], unit: &str, max: usize, who: &str) -> Result<usize, String> {
    let all = factors.iter().fold(1usize, |p, (n, _)| p.saturating_mul(*n));
    if all <= max {
        return Ok(all);
    }
    let named: Vec<String> = factors
        .iter()
        .map(|(n, what)| format!("{} {what}", grouped(*n as u64)))
        .collect();
    Err(format!(
        "{} = {} {unit}; {who} at most {}",
        named.join(" x "),
        grouped(all as u64),
        grouped(max as u64)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_product_is_bounded_not_each_number() {
        assert_eq!(product(&[(3, "a"), (4, "b")], "c", 12, "x plays"), Ok(12));
        let e = product(
            &[(4, "players"), (4, "generators"), (1_000_000, "games")],
            "games",
            10_000_000,
            "a run plays",
        )
        .unwrap_err();
        assert_eq!(
            e,
            "4 players x 4 generators x 1,000,000 games = 16,000,000 games; a run plays at most 10,000,000"
        );
        // No overflow from numbers near the top of the range.
        assert!(product(&[(usize::MAX, "a"), (usize::MAX, "b")], "c", 10, "x").is_err());
        assert_eq!(product(&[], "c", 1, "x"), Ok(1));
    }
}
