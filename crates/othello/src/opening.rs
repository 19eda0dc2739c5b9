//! Random 12-disc match openings.

use arbiter_rules::Random;
use arbiter_rules::random::below;

use crate::{Move, Position, Variant};

/// How many openings to draw before giving up; each draw fails with a small probability
/// (a forced pass, or a side left without moves), so this bound is never reached in practice.
const ATTEMPTS: usize = 10_000;

/// Draws a random opening: from the start position, [`Variant::opening_plies`] moves each
/// chosen uniformly among the legal ones (for classic Reversi the first four are the centre
/// placements), so that the board holds 12 discs with Black to move.
///
/// An attempt is drawn again when a side would have to pass during it, or when at its end
/// either side has no legal move. Every choice is `below(number of legal moves)` on the
/// legal moves in square order, so the opening is reproducible from the generator's output.
pub fn random_opening<R: Random + ?Sized>(variant: Variant, rng: &mut R) -> Option<Vec<Move>> {
    'attempt: for _ in 0..ATTEMPTS {
        let mut position = Position::start(variant);
        let mut moves = Vec::with_capacity(variant.opening_plies());
        for _ in 0..variant.opening_plies() {
            let legal = position.legal_move_list();
            if legal == [Move::Pass] {
                continue 'attempt;
            }
            let count = u32::try_from(legal.len()).unwrap_or(u32::MAX);
            let mv = legal[below(rng, count) as usize];
            if position.play(mv).is_err() {
                continue 'attempt;
            }
            moves.push(mv);
        }
        let both_can_move = position.moves_for(crate::Color::Black) != 0
            && position.moves_for(crate::Color::White) != 0;
        if both_can_move {
            return Some(moves);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;

    use super::*;
    use crate::Color;

    #[test]
    fn openings_have_twelve_discs_and_both_sides_can_move() {
        for variant in Variant::ALL {
            for seed in 0..200 {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let moves = random_opening(variant, &mut rng).expect("an opening");
                let mut position = Position::start(variant);
                for &mv in &moves {
                    position.play(mv).expect("legal opening move");
                }
                assert_eq!(
                    position.disc_counts().iter().sum::<u32>(),
                    12,
                    "{variant} seed {seed}"
                );
                assert_eq!(position.to_move(), Color::Black);
                assert!(
                    position.moves_for(Color::Black) != 0 && position.moves_for(Color::White) != 0
                );
                if variant == Variant::Reversi {
                    let first: Vec<_> = moves[..4].iter().map(|m| m.index()).collect();
                    assert!(
                        first.iter().all(|sq| [27, 28, 35, 36].contains(sq)),
                        "{first:?}"
                    );
                    assert_eq!(position.placed(), [6, 6]);
                }
            }
        }
    }

    #[test]
    fn openings_are_reproducible_and_varied() {
        let draw = |seed| random_opening(Variant::Std, &mut ChaCha8Rng::seed_from_u64(seed));
        assert_eq!(draw(5), draw(5));
        let distinct: std::collections::HashSet<_> = (0..50).map(draw).collect();
        assert!(
            distinct.len() > 40,
            "{} distinct openings of 50",
            distinct.len()
        );
    }
}
