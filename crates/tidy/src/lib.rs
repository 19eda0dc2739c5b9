//! Repository-wide checks, run as ordinary tests (`tests/`), and the helpers they need.

/// Words that name a game the binary registers or will register next, or a variant that reads
/// as a game: matched whole and regardless of case.
pub const GAME_WORDS: &[&str] = &[
    "othello",
    "goofspiel",
    "reversi",
    "gomoku",
    "renju",
    "chess",
    "fate-tokens",
    "fate tokens",
];

/// Variant names too common to look for as words, found as quoted strings instead.
pub const GAME_STRINGS: &[&str] = &["\"std\"", "\"anti\"", "\"grand\"", "\"octagon\""];

/// The line that starts a file's tests: everything after it is test code.
const TEST_MARKER: &str = "#[cfg(test)]";

/// The lines of `source` outside its tests that name a game ([`GAME_WORDS`] as whole words,
/// [`GAME_STRINGS`] anywhere), in code and comments alike, each with its number (from 1).
/// Lines after one that reads `#[cfg(test)]` are tests and are not searched.
pub fn game_names(source: &str) -> Vec<(usize, &str)> {
    source
        .lines()
        .take_while(|line| line.trim() != TEST_MARKER)
        .enumerate()
        .filter(|(_, line)| names_a_game(line))
        .map(|(index, line)| (index + 1, line))
        .collect()
}

/// Whether `line` names a game.
fn names_a_game(line: &str) -> bool {
    // ASCII lower-casing keeps every byte where it was, so positions in `lower` are positions
    // in `line`.
    let lower = line.to_ascii_lowercase();
    let word_char = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let has_word = GAME_WORDS.iter().any(|word| {
        lower.match_indices(word).any(|(at, _)| {
            !word_char(line[..at].chars().next_back())
                && !word_char(line[at + word.len()..].chars().next())
        })
    });
    has_word || GAME_STRINGS.iter().any(|quoted| line.contains(quoted))
}

/// Licences a dependency may carry: permissive ones compatible with distributing Arbiter
/// under MIT OR Apache-2.0. Copyleft licences (GPL, LGPL, AGPL, MPL, SSPL, EUPL…) are absent
/// on purpose.
pub const ALLOWED_LICENSES: &[&str] = &[
    "0BSD",
    "Apache-2.0",
    "BSD-2-Clause",
    "BSD-3-Clause",
    "BSL-1.0",
    "CC0-1.0",
    "CDLA-Permissive-2.0",
    "ISC",
    "MIT",
    "MIT-0",
    "Unicode-3.0",
    "Unicode-DFS-2016",
    "Unlicense",
    "Zlib",
];

/// Licence exceptions that only widen what a licence allows.
pub const ALLOWED_EXCEPTIONS: &[&str] = &["LLVM-exception"];

/// Whether an SPDX licence expression can be satisfied using only allowed licences: `OR`
/// needs one acceptable side, `AND` needs both, `X WITH E` needs an allowed `X` and an
/// allowed exception `E`. The legacy `/` separator counts as `OR`.
pub fn license_acceptable(expression: &str) -> bool {
    let spaced = expression
        .replace('(', " ( ")
        .replace(')', " ) ")
        .replace('/', " OR ");
    let tokens: Vec<&str> = spaced.split_whitespace().collect();
    let mut parser = Parser {
        tokens: &tokens,
        at: 0,
    };
    let result = parser.or();
    result == Some(true) && parser.at == tokens.len()
}

/// A recursive-descent evaluator: `or := and (OR and)*`, `and := with (AND with)*`,
/// `with := atom (WITH id)?`, `atom := id | ( or )`. `None` means a syntax error.
struct Parser<'a> {
    tokens: &'a [&'a str],
    at: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.tokens.get(self.at).copied()
    }

    fn next(&mut self) -> Option<&'a str> {
        let token = self.peek();
        self.at += 1;
        token
    }

    fn or(&mut self) -> Option<bool> {
        let mut value = self.and()?;
        while self.peek() == Some("OR") {
            self.at += 1;
            value |= self.and()?;
        }
        Some(value)
    }

    fn and(&mut self) -> Option<bool> {
        let mut value = self.with()?;
        while self.peek() == Some("AND") {
            self.at += 1;
            value &= self.with()?;
        }
        Some(value)
    }

    fn with(&mut self) -> Option<bool> {
        let value = self.atom()?;
        if self.peek() == Some("WITH") {
            self.at += 1;
            let exception = self.next()?;
            return Some(value && ALLOWED_EXCEPTIONS.contains(&exception));
        }
        Some(value)
    }

    fn atom(&mut self) -> Option<bool> {
        match self.next()? {
            "(" => {
                let value = self.or()?;
                (self.next()? == ")").then_some(value)
            }
            ")" | "OR" | "AND" | "WITH" => None,
            id => Some(ALLOWED_LICENSES.contains(&id.trim_end_matches('+'))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_names_are_found_as_whole_words_and_quoted_variants_outside_tests() {
        let cases: &[(&str, &[usize])] = &[
            ("let game = \"othello\";", &[1]),
            ("/// Plays Othello's variants.", &[1]),
            ("// GOOFSPIEL and more", &[1]),
            ("let mode = \"othello:std\";", &[1]),
            ("a Reversi board", &[1]),
            ("let game = \"fate-tokens\"; // Fate Tokens' claims", &[1]),
            ("/// Fate Tokens, a hidden-role game", &[1]),
            ("let variant = \"std\";", &[1]),
            ("[\"anti\", \"grand\", \"octagon\"]", &[1]),
            // Words that contain a game's name are not its name.
            ("use arbiter_othello_plugin::FAMILY;", &[]),
            ("othellos reversible goofspiel2", &[]),
            ("use arbiter_fate_tokens::FAMILY; // fate-tokensome", &[]),
            // Unquoted variant names are ordinary words.
            ("use std::fmt; an anti-pattern, grand, octagonal", &[]),
            ("\"standard\" \"antique\"", &[]),
            ("fine\nothello\nfine\n// reversi", &[2, 4]),
            // Tests may name any game.
            (
                "fine\n#[cfg(test)]\nmod tests { const G: &str = \"othello\"; }",
                &[],
            ),
            ("othello\n    #[cfg(test)]\nothello", &[1]),
            ("é othello é", &[1]),
            ("éothello", &[]),
        ];
        for (source, expected) in cases {
            let found: Vec<usize> = game_names(source).iter().map(|(line, _)| *line).collect();
            assert_eq!(&found, expected, "{source:?}");
        }
        assert_eq!(game_names("x\n\"grand\" y"), [(2, "\"grand\" y")]);
    }

    #[test]
    fn expressions() {
        let cases = [
            ("MIT", true),
            ("MIT OR Apache-2.0", true),
            ("Apache-2.0 OR MIT", true),
            ("MIT/Apache-2.0", true),
            ("Apache-2.0 WITH LLVM-exception", true),
            ("(MIT OR Apache-2.0) AND Unicode-3.0", true),
            ("Unlicense OR MIT", true),
            ("GPL-3.0-or-later", false),
            ("LGPL-2.1-only", false),
            ("MPL-2.0", false),
            ("AGPL-3.0", false),
            ("MIT AND GPL-2.0", false),
            ("GPL-2.0 OR MIT", true),
            ("GPL-2.0 WITH Classpath-exception-2.0", false),
            ("MIT WITH Some-unknown-exception", false),
            ("(MIT OR Apache-2.0", false),
            ("MIT OR", false),
            ("", false),
        ];
        for (expression, expected) in cases {
            assert_eq!(license_acceptable(expression), expected, "{expression:?}");
        }
    }
}
