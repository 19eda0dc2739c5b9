//! The balanced 8-move openings that XOT games start from: a list we make ourselves with
//! `arbiter xot-openings` (openings the house bot's self-play finds balanced within two discs)
//! and ship in `data/xot-openings.txt`, one opening per line as eight coordinates.

use std::sync::OnceLock;

use crate::{Move, Variant, parse_move};

const LIST: &str = include_str!("../data/xot-openings.txt");

/// Every opening of the list, in its order. Lines that are not eight legal coordinates are
/// left out (the tests make sure there are none).
pub fn openings() -> &'static [Vec<Move>] {
    static OPENINGS: OnceLock<Vec<Vec<Move>>> = OnceLock::new();
    OPENINGS.get_or_init(|| LIST.lines().filter_map(parse_line).collect())
}

fn parse_line(line: &str) -> Option<Vec<Move>> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') || line.len() != 16 || !line.is_ascii() {
        return None;
    }
    (0..8)
        .map(|i| parse_move(&line[2 * i..2 * i + 2], Variant::Std).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::Position;

    #[test]
    fn every_line_is_a_distinct_legal_opening_without_passes() {
        let lines: Vec<&str> = LIST
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .collect();
        assert!(lines.len() >= 100, "{} openings", lines.len());
        assert_eq!(openings().len(), lines.len(), "every line parses");
        let distinct: HashSet<&Vec<Move>> = openings().iter().collect();
        assert_eq!(distinct.len(), openings().len());
        for opening in openings() {
            let mut position = Position::start(Variant::Std);
            for &mv in opening {
                assert_ne!(mv, Move::Pass);
                position.play(mv).expect("legal");
            }
            assert!(!position.is_over());
            assert_eq!(position.disc_counts().iter().sum::<u32>(), 12);
        }
    }
}
