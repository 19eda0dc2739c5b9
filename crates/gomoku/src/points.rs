//! Gomoku seen as stones on the points of a square board, for doors that speak of points:
//! a stone is `{"x", "y"}`, there is no pass, and the variants that open with swap2 (whose
//! choices are not stones) are not offered.

use arbiter_plugin::{LegRequest, Opening, Point, PointBoard, Stone};
use arbiter_rules::{Random, Seat};
use serde_json::{Value, json};

use crate::rules::{GomokuConfig, OpeningRule};

/// The family's point-board part.
pub(crate) struct Points;

/// Draws nothing: reading a variant's board size needs no randomness.
struct NoRandom;

impl Random for NoRandom {
    fn next_u32(&mut self) -> u32 {
        0
    }
}

/// The colours in seat order when colours are not yet settled; Black moves first.
const COLOURS: &[&str] = &["black", "white"];

impl PointBoard for Points {
    fn size_of_variant(&self, variant: &str) -> Option<u32> {
        let request = LegRequest {
            variant,
            seats: 2,
            legs: 1,
            opening: Opening::Start,
        };
        let configs = crate::FAMILY
            .setup
            .leg_configs(&request, &mut NoRandom)
            .ok()?;
        let config: GomokuConfig = serde_json::from_value(configs.first()?.clone()).ok()?;
        (config.opening != OpeningRule::Swap2).then_some(u32::from(config.size))
    }

    fn size(&self, view: &Value) -> Option<u32> {
        view["size"].as_u64().and_then(|s| u32::try_from(s).ok())
    }

    fn place(&self, _size: u32, point: Point) -> Value {
        json!({"x": point.x, "y": point.y})
    }

    fn point_of(&self, _size: u32, action: &Value) -> Option<Point> {
        let coordinate = |key: &str| action[key].as_u64().and_then(|v| u32::try_from(v).ok());
        Some(Point {
            x: coordinate("x")?,
            y: coordinate("y")?,
        })
    }

    fn stones(&self, view: &Value) -> Vec<Stone> {
        // The colours are the seats' once they are settled (seat 0 plays Black until then).
        let black = view["black_seat"].as_u64().unwrap_or(0).min(1);
        let seat_of = |cell: u8| match cell {
            b'X' => Some(black),
            b'O' => Some(1 - black),
            _ => None,
        };
        let mut stones = Vec::new();
        for (y, row) in view["board"].as_array().into_iter().flatten().enumerate() {
            for (x, cell) in row.as_str().unwrap_or("").bytes().enumerate() {
                if let (Some(seat), Ok(x), Ok(y)) =
                    (seat_of(cell), u32::try_from(x), u32::try_from(y))
                {
                    stones.push(Stone {
                        point: Point { x, y },
                        seat: Seat(u8::try_from(seat).unwrap_or(0)),
                    });
                }
            }
        }
        stones
    }

    fn colours(&self) -> &'static [&'static str] {
        COLOURS
    }

    fn forbidden(&self, view: &Value, point: Point, refusal: &str) -> Option<String> {
        // Renju's forbidden points for Black are listed in the view, and the rules' refusal of
        // one says that it is forbidden.
        let listed = view["forbidden"].as_array().into_iter().flatten().any(|p| {
            p[0].as_u64() == Some(u64::from(point.x)) && p[1].as_u64() == Some(u64::from(point.y))
        });
        (listed || refusal.contains("forbidden")).then(|| refusal.to_owned())
    }

    fn reason_word(&self, rules_reason: &str) -> String {
        match rules_reason {
            "five" => "five_in_row".to_owned(),
            "full_board" | "no_legal_move" => "draw".to_owned(),
            other => other.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use arbiter_plugin::PointRefusal;
    use arbiter_rules::Ctx;
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;

    use super::*;

    #[test]
    fn variants_that_open_with_stones_have_their_board_size() {
        let cases = [
            ("freestyle", Some(15)),
            ("renju", Some(15)),
            ("freestyle-19", Some(19)),
            ("freestyle-20", Some(20)),
            ("swap2", None),
            ("renju-swap2", None),
            ("go", None),
        ];
        for (variant, size) in cases {
            assert_eq!(Points.size_of_variant(variant), size, "{variant}");
        }
    }

    #[test]
    fn stones_and_refusals_are_read_from_the_view() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let config = serde_json::to_value(GomokuConfig::default()).expect("config");
        let (mut state, _) = crate::FAMILY
            .rules
            .start(&config, &mut Ctx::new(0, &mut rng))
            .expect("a game");
        let stone = Points.place(15, Point { x: 7, y: 3 });
        assert_eq!(Points.point_of(15, &stone), Some(Point { x: 7, y: 3 }));
        state
            .apply(Seat(0), &stone, &mut Ctx::new(1, &mut rng))
            .expect("a legal stone");
        let view = state.view(arbiter_rules::Viewer::Spectator);
        assert_eq!(Points.size(&view), Some(15));
        assert_eq!(
            Points.stones(&view),
            [Stone {
                point: Point { x: 7, y: 3 },
                seat: Seat(0)
            }]
        );
        let refusals = [
            (Point { x: 7, y: 3 }, PointRefusal::Occupied),
            (Point { x: 15, y: 0 }, PointRefusal::OutOfBoard),
            (
                Point { x: 1, y: 1 },
                PointRefusal::Illegal("something else".to_owned()),
            ),
        ];
        for (point, refusal) in refusals {
            assert_eq!(Points.refusal(&view, point, "something else"), refusal);
        }
        assert_eq!(Points.reason_word("five"), "five_in_row");
        assert_eq!(Points.reason_word("foul"), "foul");
    }
}
