//! The five Othello-family variants and their geometry.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A game mode of the Othello family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// Standard Othello on 8x8.
    Std,
    /// Anti-Othello: standard moves, fewer discs wins.
    Anti,
    /// Othello on 10x10.
    Grand,
    /// 10x10 without the three squares at each corner (88 playable squares).
    Octagon,
    /// Classic Reversi: empty start, the four centre squares filled first without flips,
    /// at most 32 discs placed per colour.
    Reversi,
}

/// The octagon's blocked squares, in the order FlipSight lists them.
pub const OCTAGON_BLOCKED: [u8; 12] = [0, 1, 10, 8, 9, 19, 80, 90, 91, 89, 98, 99];

/// The four centre squares of the 8x8 board (d4, e4, d5, e5).
pub const CENTRE_8X8: [u8; 4] = [27, 28, 35, 36];

/// The number of discs a colour may place in classic Reversi.
pub const REVERSI_DISCS_PER_COLOUR: u16 = 32;

impl Variant {
    /// Every variant, in FlipSight's order.
    pub const ALL: [Variant; 5] = [
        Variant::Std,
        Variant::Anti,
        Variant::Grand,
        Variant::Octagon,
        Variant::Reversi,
    ];

    /// The FlipSight `game_mode` name.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Std => "std",
            Variant::Anti => "anti",
            Variant::Grand => "grand",
            Variant::Octagon => "octagon",
            Variant::Reversi => "reversi",
        }
    }

    /// The side length of the board: 8 or 10.
    pub fn size(self) -> u8 {
        match self {
            Variant::Std | Variant::Anti | Variant::Reversi => 8,
            Variant::Grand | Variant::Octagon => 10,
        }
    }

    /// The number of squares including blocked ones (`size²`).
    pub fn squares(self) -> u8 {
        self.size() * self.size()
    }

    /// The squares no disc may occupy, in FlipSight's order (octagon only).
    pub fn blocked_squares(self) -> &'static [u8] {
        match self {
            Variant::Octagon => &OCTAGON_BLOCKED,
            _ => &[],
        }
    }

    /// The blocked squares as a bit mask.
    pub fn blocked_mask(self) -> u128 {
        self.blocked_squares()
            .iter()
            .fold(0, |mask, &sq| mask | 1 << sq)
    }

    /// The squares discs may occupy, as a bit mask.
    pub fn playable_mask(self) -> u128 {
        let all = (1u128 << self.squares()) - 1;
        all & !self.blocked_mask()
    }

    /// The number of playable squares (64, 100 or 88).
    pub fn playable_squares(self) -> u32 {
        self.playable_mask().count_ones()
    }

    /// Whether fewer discs wins.
    pub fn fewer_wins(self) -> bool {
        self == Variant::Anti
    }

    /// Whether the classic Reversi placement phase and disc limit apply.
    pub fn is_reversi(self) -> bool {
        self == Variant::Reversi
    }

    /// How many random plies a match opening plays before the game proper: 8 from the start
    /// position, or 12 from the empty Reversi board (placements included), giving 12 discs.
    pub fn opening_plies(self) -> usize {
        if self.is_reversi() { 12 } else { 8 }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A game mode name that is not one of the five.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game mode {0:?} (expected std, anti, grand, octagon or reversi)")]
pub struct UnknownVariant(pub String);

impl FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Variant::ALL
            .into_iter()
            .find(|v| v.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownVariant(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry() {
        let cases = [
            (Variant::Std, 8, 64),
            (Variant::Anti, 8, 64),
            (Variant::Reversi, 8, 64),
            (Variant::Grand, 10, 100),
            (Variant::Octagon, 10, 88),
        ];
        for (variant, size, playable) in cases {
            assert_eq!(
                (variant.size(), variant.playable_squares()),
                (size, playable),
                "{variant}"
            );
        }
    }

    #[test]
    fn octagon_blocks_the_three_squares_at_each_corner() {
        // The squares with min(r, 9-r) + min(c, 9-c) < 2.
        let expected: u128 = (0..100u8)
            .filter(|&sq| {
                let (r, c) = (sq / 10, sq % 10);
                r.min(9 - r) + c.min(9 - c) < 2
            })
            .fold(0, |m, sq| m | 1 << sq);
        assert_eq!(Variant::Octagon.blocked_mask(), expected);
    }

    #[test]
    fn names_round_trip() {
        for variant in Variant::ALL {
            assert_eq!(variant.name().parse::<Variant>(), Ok(variant));
        }
        assert_eq!(" GRAND ".parse::<Variant>(), Ok(Variant::Grand));
        assert!("xot".parse::<Variant>().is_err());
    }
}
