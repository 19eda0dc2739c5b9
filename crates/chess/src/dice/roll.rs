//! The dice of a Dice Chess turn: faces, the piece types they name, and the multiset of the
//! dice still unused.

use cozy_chess::{Color, Piece};

/// The piece type a die face names: 1 pawn, 2 knight, 3 bishop, 4 rook, 5 queen, 6 king.
pub fn piece_of_face(face: u8) -> Option<Piece> {
    Piece::try_index(usize::from(face).checked_sub(1)?)
}

/// The die face that names `piece` (1 for a pawn … 6 for a king).
pub fn face_of(piece: Piece) -> u8 {
    // Piece indices run from 0 (pawn) to 5 (king), in the order of the faces.
    piece as u8 + 1
}

/// A multiset of dice, counted by the piece type each names: the unused dice of a turn.
///
/// Two dice showing the same face are interchangeable, so a turn's dice are a multiset; the
/// order they were drawn in matters only to the roll's public record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DiceSet {
    counts: [u8; Piece::NUM],
}

impl DiceSet {
    /// No dice.
    pub const EMPTY: DiceSet = DiceSet {
        counts: [0; Piece::NUM],
    };

    /// The dice showing `faces` (each 1 to 6), or `None` if a face is out of range.
    pub fn from_faces(faces: &[u8]) -> Option<DiceSet> {
        let mut dice = DiceSet::EMPTY;
        for &face in faces {
            dice = dice.with(piece_of_face(face)?);
        }
        Some(dice)
    }

    /// The dice naming `pieces`.
    pub fn from_pieces(pieces: &[Piece]) -> DiceSet {
        pieces.iter().fold(DiceSet::EMPTY, |dice, &p| dice.with(p))
    }

    /// How many dice name `piece`.
    #[inline(always)]
    pub fn count(self, piece: Piece) -> u8 {
        self.counts[piece as usize]
    }

    /// Whether a die names `piece`.
    #[inline(always)]
    pub fn has(self, piece: Piece) -> bool {
        self.counts[piece as usize] > 0
    }

    /// How many dice there are.
    #[inline(always)]
    pub fn total(self) -> u8 {
        self.counts.iter().sum()
    }

    /// Whether there are no dice.
    #[inline(always)]
    pub fn is_empty(self) -> bool {
        self.counts == [0; Piece::NUM]
    }

    /// These dice and one more naming `piece` (saturating at 255 of a kind).
    pub fn with(mut self, piece: Piece) -> DiceSet {
        let count = &mut self.counts[piece as usize];
        *count = count.saturating_add(1);
        self
    }

    /// These dice less one naming `piece` (unchanged if there is none).
    #[inline(always)]
    pub fn without(mut self, piece: Piece) -> DiceSet {
        let count = &mut self.counts[piece as usize];
        *count = count.saturating_sub(1);
        self
    }

    /// The distinct piece types named, pawn first.
    pub fn kinds(self) -> impl Iterator<Item = Piece> {
        Piece::ALL.into_iter().filter(move |&p| self.has(p))
    }

    /// The faces, sorted (`[2, 4]`).
    pub fn faces(self) -> Vec<u8> {
        Piece::ALL
            .iter()
            .flat_map(|&p| std::iter::repeat_n(face_of(p), usize::from(self.count(p))))
            .collect()
    }

    /// The dice as DFEN writes them: letters sorted pawn, knight, bishop, rook, queen, king,
    /// upper case for White and lower case for Black (`PNR`, `nnq`); `-` for no dice.
    pub fn letters(self, color: Color) -> String {
        if self.is_empty() {
            return "-".to_owned();
        }
        Piece::ALL
            .iter()
            .flat_map(|&p| {
                let letter = char::from(p);
                let letter = match color {
                    Color::White => letter.to_ascii_uppercase(),
                    Color::Black => letter,
                };
                std::iter::repeat_n(letter, usize::from(self.count(p)))
            })
            .collect()
    }

    /// Reads dice letters in either case, in any order (`PNR`, `rnp`); `-` is no dice.
    pub fn parse_letters(text: &str) -> Option<DiceSet> {
        if text == "-" {
            return Some(DiceSet::EMPTY);
        }
        if text.is_empty() {
            return None;
        }
        text.chars().try_fold(DiceSet::EMPTY, |dice, c| {
            Piece::try_from(c.to_ascii_lowercase())
                .ok()
                .map(|p| dice.with(p))
        })
    }

    /// Every roll of three dice as a multiset, with how many of the 216 ordered rolls give
    /// it: the 56 outcomes an expectimax search weighs, in a fixed order.
    pub fn all_rolls() -> Vec<(DiceSet, u32)> {
        let mut rolls = Vec::with_capacity(56);
        for a in 1..=6u8 {
            for b in a..=6 {
                for c in b..=6 {
                    let ways = match (a == b, b == c) {
                        (true, true) => 1,
                        (true, false) | (false, true) => 3,
                        (false, false) => 6,
                    };
                    if let Some(dice) = DiceSet::from_faces(&[a, b, c]) {
                        rolls.push((dice, ways));
                    }
                }
            }
        }
        rolls
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faces_name_pieces_in_order() {
        let named: Vec<Option<Piece>> = (0..=7).map(piece_of_face).collect();
        assert_eq!(
            named,
            [
                None,
                Some(Piece::Pawn),
                Some(Piece::Knight),
                Some(Piece::Bishop),
                Some(Piece::Rook),
                Some(Piece::Queen),
                Some(Piece::King),
                None
            ]
        );
        for piece in Piece::ALL {
            assert_eq!(piece_of_face(face_of(piece)), Some(piece));
        }
    }

    #[test]
    fn letters_are_sorted_and_cased_by_colour() {
        let cases: &[(&[u8], Color, &str)] = &[
            (&[4, 1, 2], Color::White, "PNR"),
            (&[5, 2, 2], Color::Black, "nnq"),
            (&[6, 3, 3], Color::White, "BBK"),
            (&[], Color::White, "-"),
        ];
        for &(faces, color, letters) in cases {
            let dice = DiceSet::from_faces(faces).expect("faces");
            assert_eq!(dice.letters(color), letters);
            assert_eq!(DiceSet::parse_letters(letters), Some(dice));
        }
        assert_eq!(DiceSet::parse_letters("PX"), None);
        assert_eq!(DiceSet::parse_letters(""), None);
        assert_eq!(DiceSet::from_faces(&[0]), None);
        assert_eq!(DiceSet::from_faces(&[7]), None);
    }

    #[test]
    fn the_56_rolls_cover_the_216_ordered_ones() {
        let rolls = DiceSet::all_rolls();
        assert_eq!(rolls.len(), 56);
        assert_eq!(rolls.iter().map(|&(_, w)| w).sum::<u32>(), 216);
        assert!(rolls.iter().all(|(d, _)| d.total() == 3));
    }
}
