//! An example engine for Arbiter, small enough to read in one sitting and built to
//! WebAssembly, so that the server can run it: it reads one decision request per line on
//! standard input and writes one answer line on standard output, the engine protocol every
//! engine behind `arbiter bot` speaks.
//!
//! In Othello (FlipSight's request, which has `legal_moves`) it plays the legal square with
//! the best positional weight: corners first, edges next, the squares that give corners away
//! last. In every other game (the generic request, which has `legal_actions`) it plays the
//! first legal action. It uses no crates, so the module stays small; a real engine would use
//! a JSON parser.
//!
//! Build: `cargo build --release --target wasm32-wasip1` (see README.md).

use std::io::{BufRead, Write};

fn main() {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let answer = if let Some(moves) = array(&line, "legal_moves") {
            othello(&line, moves)
        } else if let Some(actions) = array(&line, "legal_actions") {
            format!("{{\"action\":{}}}", first_item(actions).unwrap_or("null"))
        } else {
            // Not a request this engine knows: say so on standard error, answer nothing
            // useful, and let the clock decide.
            eprintln!("an unknown request: {line}");
            "{}".to_owned()
        };
        // One line per answer, flushed at once: the server waits for the newline.
        if writeln!(stdout, "{answer}")
            .and_then(|()| stdout.flush())
            .is_err()
        {
            break;
        }
    }
}

/// The Othello answer: the legal square of highest weight, or a pass.
fn othello(line: &str, moves: &str) -> String {
    let size = number(line, "board_size").unwrap_or(8).max(1);
    let best = numbers(moves).max_by_key(|&square| (weight(square, size), -square));
    match best {
        Some(square) => format!("{{\"move\":{square}}}"),
        None => "{\"move\":\"pass\"}".to_owned(),
    }
}

/// How good a square is to own, by where it lies on a `size` × `size` board.
fn weight(square: i64, size: i64) -> i64 {
    let (row, column) = (square / size, square % size);
    let edge = |x: i64| x == 0 || x == size - 1;
    let next_to_edge = |x: i64| x == 1 || x == size - 2;
    match (
        edge(row),
        edge(column),
        next_to_edge(row),
        next_to_edge(column),
    ) {
        // A corner can never be taken back.
        (true, true, _, _) => 100,
        // Beside a corner, on the edge: it often hands the corner over.
        (true, _, _, true) | (_, true, true, _) => -20,
        // Diagonally beside a corner: worse still.
        (_, _, true, true) => -50,
        (true, _, _, _) | (_, true, _, _) => 10,
        _ => 1,
    }
}

/// The text inside the array that follows `"key":` in `line`, brackets excluded.
fn array<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let start = line.find(&format!("\"{key}\":"))? + key.len() + 3;
    let rest = line[start..].trim_start();
    let inner = rest.strip_prefix('[')?;
    let end = value_end(rest)?;
    Some(&inner[..end - 2])
}

/// The integer that follows `"key":` in `line`.
fn number(line: &str, key: &str) -> Option<i64> {
    let start = line.find(&format!("\"{key}\":"))? + key.len() + 3;
    let digits: String = line[start..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

/// The integers of a list of integers.
fn numbers(list: &str) -> impl Iterator<Item = i64> + '_ {
    list.split(',').filter_map(|item| item.trim().parse().ok())
}

/// The first item of a list's inside, as its JSON text.
fn first_item(list: &str) -> Option<&str> {
    let list = list.trim_start();
    if list.is_empty() {
        return None;
    }
    Some(list[..value_end(list)?].trim_end())
}

/// Where the JSON value at the start of `text` ends: past its closing bracket, brace or
/// quote, or at the comma or bracket after a number or a word.
fn value_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => {
                    in_string = false;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => depth += 1,
            ']' | '}' if depth == 0 => return Some(i),
            ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            ',' if depth == 0 => return Some(i),
            _ => {}
        }
    }
    (depth == 0 && !in_string).then_some(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn othello_takes_a_corner_and_avoids_the_squares_beside_it() {
        let request = r#"{"board":[],"color":1,"legal_moves":[9,0,20],"board_size":8}"#;
        assert_eq!(
            othello(request, array(request, "legal_moves").unwrap()),
            r#"{"move":0}"#
        );
        let request = r#"{"legal_moves":[9,1,20],"board_size":8}"#;
        assert_eq!(
            othello(request, array(request, "legal_moves").unwrap()),
            r#"{"move":20}"#
        );
        let request = r#"{"legal_moves":[],"board_size":8}"#;
        assert_eq!(
            othello(request, array(request, "legal_moves").unwrap()),
            r#"{"move":"pass"}"#
        );
    }

    #[test]
    fn other_games_get_their_first_legal_action_as_it_was_written() {
        let request = r#"{"protocol":1,"legal_actions":[{"round":3,"card":[1,2]},{"round":3,"card":5}],"x":1}"#;
        assert_eq!(
            first_item(array(request, "legal_actions").unwrap()),
            Some(r#"{"round":3,"card":[1,2]}"#)
        );
        let request = r#"{"legal_actions":["e2e4","d2d4"]}"#;
        assert_eq!(
            first_item(array(request, "legal_actions").unwrap()),
            Some(r#""e2e4""#)
        );
    }
}
