//! The fixed openings a balanced match starts from: Renju's 26 standard three-stone openings,
//! shipped in `data/renju-openings.txt` as offsets from the centre, placed around the centre
//! of any board. After their three stones White is to move.

/// The list as shipped.
const LIST: &str = include_str!("../data/renju-openings.txt");

/// One opening: Black's, White's and Black's stone, as column and row offsets from the
/// centre.
pub(crate) type Offsets = [(i8, i8); 3];

/// The openings, in the file's order. A line that does not read as three stones is left out,
/// so a damaged list shrinks rather than failing matches; the tests prove the list whole.
pub(crate) fn openings() -> Vec<Offsets> {
    LIST.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .filter_map(parse_line)
        .collect()
}

/// `direct 0,0 0,-1 0,-2`: a kind, then three stones.
fn parse_line(line: &str) -> Option<Offsets> {
    let mut words = line.split_whitespace().skip(1);
    let mut stone = || {
        let (x, y) = words.next()?.split_once(',')?;
        Some((x.parse().ok()?, y.parse().ok()?))
    };
    let stones = [stone()?, stone()?, stone()?];
    words.next().is_none().then_some(stones)
}

/// The stones of `opening` on a board of `size` a side, around its centre (the point right
/// and below the middle where the side is even).
pub(crate) fn placed(opening: &Offsets, size: u8) -> Vec<(u8, u8)> {
    let centre = i16::from(size / 2);
    opening
        .iter()
        .filter_map(|&(dx, dy)| {
            let x = u8::try_from(centre + i16::from(dx)).ok()?;
            let y = u8::try_from(centre + i16::from(dy)).ok()?;
            (x < size && y < size).then_some((x, y))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use arbiter_rules::{Ctx, Game, Seat, ToAct};
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;

    use super::*;
    use crate::board::Color;
    use crate::rules::{Gomoku, GomokuConfig};

    /// The form of a third stone that the mirror keeping the first two stones in place gives
    /// the same: the smaller of the point and its mirror image.
    fn canonical(opening: &Offsets) -> (i8, i8, i8, i8) {
        let [_, (wx, wy), (x, y)] = *opening;
        let mirrored = if wx == 0 || wy == 0 {
            // White beside the centre on an axis: the mirror across that axis.
            if wx == 0 { (-x, y) } else { (x, -y) }
        } else {
            // White diagonally next to it: the mirror in that diagonal.
            (y * wx * wy, x * wx * wy)
        };
        let third = (x, y).min(mirrored);
        (wx, wy, third.0, third.1)
    }

    #[test]
    fn the_list_holds_the_26_openings_each_once() {
        let openings = openings();
        let lines = LIST
            .lines()
            .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
            .count();
        assert_eq!(openings.len(), lines, "every line reads as an opening");
        assert_eq!(openings.len(), 26);
        let direct = openings.iter().filter(|o| o[1] == (0, -1)).count();
        let indirect = openings.iter().filter(|o| o[1] == (1, -1)).count();
        assert_eq!((direct, indirect), (13, 13));
        for opening in &openings {
            assert_eq!(
                opening[0],
                (0, 0),
                "Black starts on the centre: {opening:?}"
            );
            let [_, _, (x, y)] = *opening;
            assert!(x.abs() <= 2 && y.abs() <= 2, "within the 5x5: {opening:?}");
        }
        let classes: BTreeSet<_> = openings.iter().map(canonical).collect();
        assert_eq!(classes.len(), 26, "no two openings are mirror images");
        // Every point of the 5x5 but the first two stones' is one of the openings, up to
        // the mirror: 23 points fold into 13 classes for each kind.
        for white in [(0, -1), (1, -1)] {
            for x in -2..=2 {
                for y in -2..=2 {
                    if (x, y) == (0, 0) || (x, y) == white {
                        continue;
                    }
                    let class = canonical(&[(0, 0), white, (x, y)]);
                    assert!(classes.contains(&class), "{white:?} then {x},{y}");
                }
            }
        }
    }

    #[test]
    fn every_opening_starts_a_game_with_white_to_move_on_every_board() {
        for size in [15, 19, 20] {
            for opening in openings() {
                let stones = placed(&opening, size);
                let distinct: BTreeSet<_> = stones.iter().collect();
                assert_eq!(distinct.len(), 3, "{size}: {opening:?}");
                let config = GomokuConfig {
                    size,
                    stones,
                    ..GomokuConfig::default()
                };
                let mut rng = ChaCha8Rng::seed_from_u64(1);
                let (state, _) = Gomoku::start(&config, &mut Ctx::new(0, &mut rng))
                    .unwrap_or_else(|e| panic!("{size}: {opening:?}: {e:?}"));
                let view = Gomoku::view(&state, arbiter_rules::Viewer::Spectator);
                assert_eq!(view.next, Color::White, "{size}: {opening:?}");
                assert_eq!(Gomoku::to_act(&state), ToAct::Turn { seat: Seat(1) });
                let stones: usize = view
                    .board
                    .iter()
                    .map(|row| row.chars().filter(|&c| c != '.').count())
                    .sum();
                assert_eq!(stones, 3);
            }
        }
    }

    #[test]
    fn lines_that_are_not_three_stones_are_refused() {
        let cases = [
            ("direct 0,0 0,-1 0,-2", Some([(0, 0), (0, -1), (0, -2)])),
            ("direct 0,0 0,-1", None),
            ("direct 0,0 0,-1 0,-2 1,1", None),
            ("direct 0,0 0;-1 0,-2", None),
            ("direct 0,0 0,-1 x,2", None),
        ];
        for (line, parsed) in cases {
            assert_eq!(parse_line(line), parsed, "{line}");
        }
        assert_eq!(
            placed(&[(0, 0), (1, -1), (-2, 2)], 20),
            [(10, 10), (11, 9), (8, 12)]
        );
    }
}
