//! Othello seen as stones on the points of a square board, for doors that speak of points:
//! a disc is placed on a square (`x` its column, `y` its row, its index `y * size + x`),
//! and a side with no move passes.

use arbiter_othello::Variant;
use arbiter_othello::coord::Move;
use arbiter_plugin::{Point, PointBoard, Stone};
use arbiter_rules::Seat;
use serde_json::{Value, json};

/// The family's point-board part.
pub(crate) struct Points;

/// The colours in seat order: seat 0 plays Black.
const COLOURS: &[&str] = &["black", "white"];

impl PointBoard for Points {
    fn size_of_variant(&self, variant: &str) -> Option<u32> {
        let variant: Variant = serde_json::from_value(json!(variant)).ok()?;
        Some(u32::from(variant.size()))
    }

    fn size(&self, view: &Value) -> Option<u32> {
        view["board_size"]
            .as_u64()
            .and_then(|s| u32::try_from(s).ok())
    }

    fn place(&self, size: u32, point: Point) -> Value {
        json!(point.y * size + point.x)
    }

    fn pass(&self) -> Option<Value> {
        Some(json!(Move::Pass.index()))
    }

    fn point_of(&self, size: u32, action: &Value) -> Option<Point> {
        let index = action.as_i64().filter(|&i| i >= 0)?;
        point_on(index, i64::from(size))
    }

    fn stones(&self, view: &Value) -> Vec<Stone> {
        let size = self.size(view).unwrap_or(8).max(1) as usize;
        let mut stones = Vec::new();
        for (index, cell) in view["board"].as_array().into_iter().flatten().enumerate() {
            let seat = match cell.as_u64() {
                Some(1) => Seat(0),
                Some(2) => Seat(1),
                _ => continue,
            };
            if let (Ok(x), Ok(y)) = (u32::try_from(index % size), u32::try_from(index / size)) {
                stones.push(Stone {
                    point: Point { x, y },
                    seat,
                });
            }
        }
        stones
    }

    fn colours(&self) -> &'static [&'static str] {
        COLOURS
    }

    fn forbidden(&self, view: &Value, point: Point, _refusal: &str) -> Option<String> {
        let size = self.size(view).unwrap_or(0);
        let index = u64::from(point.y * size + point.x);
        let blocked = view["blocked_squares"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|s| s.as_u64() == Some(index));
        blocked.then(|| "the square is blocked on this board".to_owned())
    }
}

/// The point of square `index` on a board of `size`.
fn point_on(index: i64, size: i64) -> Option<Point> {
    if size <= 0 || index >= size * size {
        return None;
    }
    Some(Point {
        x: u32::try_from(index % size).ok()?,
        y: u32::try_from(index / size).ok()?,
    })
}

#[cfg(test)]
mod tests {
    use arbiter_plugin::PointRefusal;

    use super::*;

    #[test]
    fn squares_are_points_and_passes_have_none() {
        let cases = [
            (8, Point { x: 3, y: 2 }, json!(19)),
            (10, Point { x: 9, y: 9 }, json!(99)),
            (8, Point { x: 0, y: 0 }, json!(0)),
        ];
        for (size, point, action) in cases {
            assert_eq!(Points.place(size, point), action);
            assert_eq!(Points.point_of(size, &action), Some(point));
        }
        assert_eq!(Points.point_of(8, &json!(-1)), None);
        assert_eq!(Points.pass(), Some(json!(-1)));
        assert_eq!(Points.size_of_variant("grand"), Some(10));
        assert_eq!(Points.size_of_variant("std"), Some(8));
        assert_eq!(Points.size_of_variant("chess"), None);
    }

    #[test]
    fn discs_and_refusals_are_read_from_the_view() {
        let mut board = vec![0; 64];
        board[27] = 2;
        board[28] = 1;
        let view = json!({"board_size": 8, "board": board, "blocked_squares": []});
        assert_eq!(
            Points.stones(&view),
            [
                Stone {
                    point: Point { x: 3, y: 3 },
                    seat: Seat(1)
                },
                Stone {
                    point: Point { x: 4, y: 3 },
                    seat: Seat(0)
                },
            ]
        );
        let cases = [
            (Point { x: 3, y: 3 }, PointRefusal::Occupied),
            (Point { x: 8, y: 0 }, PointRefusal::OutOfBoard),
            (
                Point { x: 0, y: 0 },
                PointRefusal::Illegal("no flip".to_owned()),
            ),
        ];
        for (point, refusal) in cases {
            assert_eq!(Points.refusal(&view, point, "no flip"), refusal);
        }
    }
}
