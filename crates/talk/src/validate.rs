//! Cleaning and checking a model's reply before a bot says it (seed 003 §09).
//!
//! A small model often wraps its answer in think tags, a name label or quotes, or adds a
//! second line; [`clean`] takes those off. [`check`] then refuses a reply that a player should
//! not see: one in the wrong language, a copy of an example, a repeat, or one whose numbers
//! differ from the line's, since a changed number is an invented fact.

use thiserror::Error;

use arbiter_plugin::{Examples, Language, Remark};

/// The longest reply accepted, in characters. The model is asked for at most 80; a little
/// more is let through so that a good line is not lost over a few characters.
pub const MAX_CHARS: usize = 120;

/// Why a cleaned reply was refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum Rejection {
    /// Nothing was left after cleaning.
    #[error("the reply is empty")]
    Empty,
    /// The reply is longer than [`MAX_CHARS`].
    #[error("the reply has {0} characters")]
    TooLong(usize),
    /// The reply is not in the room's language.
    #[error("the reply is not in the room's language")]
    WrongLanguage,
    /// The reply is an example's answer, perhaps with the names swapped.
    #[error("the reply copies an example")]
    CopiesExample,
    /// The reply repeats a recent chat line.
    #[error("the reply repeats the recent chat")]
    RepeatsChat,
    /// The reply repeats one of the bot's own lines.
    #[error("the reply repeats the bot's own line")]
    RepeatsOwn,
    /// The reply's numbers differ from the line's.
    #[error("the reply states {found:?} where the line states {expected:?}")]
    NumbersChanged {
        /// The line's numbers, sorted.
        expected: Vec<u32>,
        /// The reply's numbers, sorted.
        found: Vec<u32>,
    },
}

/// The reply with think tags, a name label, quotes and every line after the first taken off.
pub fn clean(raw: &str) -> String {
    let text = strip_think(raw);
    let first = text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("");
    let mut line = first.to_owned();
    // A label may sit inside or outside the quotes, so both are stripped until neither is left.
    loop {
        let stripped = strip_quotes(strip_label(&line)).to_owned();
        if stripped == line {
            return line;
        }
        line = stripped;
    }
}

/// The text without `<think>…</think>` blocks. An unclosed block runs to the end, and a
/// closing tag without its opening one ends whatever thinking came before it.
fn strip_think(raw: &str) -> String {
    let mut text = match raw.rfind("</think>") {
        Some(end) if !raw[..end].contains("<think>") => raw[end + "</think>".len()..].to_owned(),
        _ => raw.to_owned(),
    };
    while let Some(start) = text.find("<think>") {
        match text[start..].find("</think>") {
            Some(end) => text.replace_range(start..start + end + "</think>".len(), ""),
            None => text.truncate(start),
        }
    }
    text
}

/// The text without a leading speaker label such as `Avery:` or `**가람**:`. A label is short
/// and has a letter in it, so that a time such as `2:1` or a sentence with a colon later on
/// is left alone.
fn strip_label(text: &str) -> &str {
    let Some((label, rest)) = text.split_once(':').or_else(|| text.split_once('：')) else {
        return text;
    };
    let label = label.trim().trim_matches('*');
    let short = label.chars().count() <= 20 && label.split_whitespace().count() <= 3;
    let named = label.chars().any(char::is_alphabetic);
    let plain = !label.contains(['.', ',', '!', '?', '"', '“', '\'']);
    if short && named && plain && !rest.trim().is_empty() {
        rest.trim().trim_start_matches('*').trim()
    } else {
        text
    }
}

/// The text without quotes around it.
fn strip_quotes(text: &str) -> &str {
    const QUOTES: [char; 11] = ['"', '\'', '“', '”', '‘', '’', '「', '」', '『', '』', '`'];
    text.trim().trim_matches(QUOTES.as_slice()).trim()
}

/// Checks a cleaned reply against the remark it rewords (with the recent chat and the bot's
/// own lines it carries), the room's language and the family's examples in that language.
pub fn check(
    cleaned: &str,
    remark: &Remark,
    language: Language,
    examples: Examples,
) -> Result<(), Rejection> {
    if cleaned.trim().is_empty() {
        return Err(Rejection::Empty);
    }
    let length = cleaned.chars().count();
    if length > MAX_CHARS {
        return Err(Rejection::TooLong(length));
    }
    if !in_language(cleaned, language) {
        return Err(Rejection::WrongLanguage);
    }
    if copies_example(cleaned, examples) {
        return Err(Rejection::CopiesExample);
    }
    let said = normalize(cleaned);
    if remark.recent.iter().any(|l| {
        same_line(&said, &l.text) || same_line(&said, &format!("{}: {}", l.speaker, l.text))
    }) {
        return Err(Rejection::RepeatsChat);
    }
    if remark.own.iter().any(|l| same_line(&said, l)) {
        return Err(Rejection::RepeatsOwn);
    }
    let mut expected = remark.numbers.clone();
    expected.sort_unstable();
    let found = numbers(cleaned);
    if found != expected {
        return Err(Rejection::NumbersChanged { expected, found });
    }
    Ok(())
}

/// Whether the text is in the language: Korean has no Han or Kana character and is at least
/// half Hangul among its letters (a player's Latin name may appear); English is at least half
/// Latin among its letters.
fn in_language(text: &str, language: Language) -> bool {
    let letters: Vec<char> = text.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.is_empty() {
        return false;
    }
    let share =
        |test: fn(char) -> bool| letters.iter().filter(|&&c| test(c)).count() * 2 >= letters.len();
    match language {
        Language::Korean => !letters.iter().any(|&c| is_han(c) || is_kana(c)) && share(is_hangul),
        Language::English => share(is_latin),
    }
}

fn is_hangul(c: char) -> bool {
    matches!(c, '\u{AC00}'..='\u{D7A3}' | '\u{1100}'..='\u{11FF}' | '\u{3130}'..='\u{318F}')
}

fn is_han(c: char) -> bool {
    matches!(
        c,
        '\u{4E00}'..='\u{9FFF}'
            | '\u{3400}'..='\u{4DBF}'
            | '\u{F900}'..='\u{FAFF}'
            | '\u{20000}'..='\u{2FA1F}'
    )
}

fn is_kana(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' | '\u{FF66}'..='\u{FF9F}')
}

fn is_latin(c: char) -> bool {
    c.is_ascii_alphabetic() || matches!(c, '\u{00C0}'..='\u{024F}')
}

/// The text lower-cased, with only its letters and digits, so that spacing and punctuation
/// do not hide a copy or a repeat.
fn normalize(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether `said` (normalized) is the chat line `other`, with or without its speaker label.
fn same_line(said: &[char], other: &str) -> bool {
    normalize(other) == said || normalize(strip_label(other)) == said
}

/// Whether the text is one of the examples' answers with any names in place of the
/// examples' invented ones.
fn copies_example(text: &str, examples: Examples) -> bool {
    let said = normalize(text);
    examples.pairs.iter().any(|example| {
        let mut pattern = example.answer.to_owned();
        for name in examples.names {
            pattern = pattern.replace(name, "\u{0}");
        }
        let segments: Vec<Vec<char>> = pattern.split('\u{0}').map(normalize).collect();
        matches_with_names(&said, &segments)
    })
}

/// Whether `text` is the literal `segments` with one or more characters (a name) between each
/// two of them. Taking the leftmost place for each middle segment is enough: any later
/// place leaves less room for the rest.
fn matches_with_names(text: &[char], segments: &[Vec<char>]) -> bool {
    let Some((first, rest)) = segments.split_first() else {
        return text.is_empty();
    };
    if !text.starts_with(first) {
        return false;
    }
    let Some((last, middle)) = rest.split_last() else {
        return text.len() == first.len();
    };
    let mut at = first.len();
    for segment in middle {
        let from = at + 1;
        let Some(found) = find(text, segment, from) else {
            return false;
        };
        at = found + segment.len();
    }
    text.len() >= at + 1 + last.len() && text.ends_with(last)
}

/// The first place at or after `from` where `needle` starts in `haystack`.
fn find(haystack: &[char], needle: &[char], from: usize) -> Option<usize> {
    if from > haystack.len() {
        return None;
    }
    if needle.is_empty() {
        return Some(from);
    }
    haystack[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// Every number the text states in digits, sorted.
fn numbers(text: &str) -> Vec<u32> {
    let mut found: Vec<u32> = text
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap_or(u32::MAX))
        .collect();
    found.sort_unstable();
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_plugin::ChatEntry;

    fn line(text: &str, numbers: &[u32]) -> Remark {
        Remark {
            kind: "accuse".to_owned(),
            text: text.to_owned(),
            numbers: numbers.to_vec(),
            recent: vec![
                ChatEntry {
                    speaker: "Jun".to_owned(),
                    text: "I think Mina is fine.".to_owned(),
                },
                ChatEntry {
                    speaker: "Ray".to_owned(),
                    text: "Nobody has spoken about Ray.".to_owned(),
                },
            ],
            own: vec!["Ray showed 2 bad tokens, careful.".to_owned()],
        }
    }

    #[test]
    fn cleaning() {
        let table = [
            ("Mina seems off to me.", "Mina seems off to me."),
            ("  Mina seems off to me.  \n", "Mina seems off to me."),
            (
                "<think>hmm, 3 tokens</think>Mina seems off.",
                "Mina seems off.",
            ),
            (
                "<think>\nlong\nthought\n</think>\n\nMina seems off.",
                "Mina seems off.",
            ),
            ("I reason here</think>Mina seems off.", "Mina seems off."),
            ("Mina seems off.<think>unfinished", "Mina seems off."),
            ("<think>never closed", ""),
            ("Bot 2: Mina seems off.", "Mina seems off."),
            ("**Bot 2:** Mina seems off.", "Mina seems off."),
            ("\"Mina seems off.\"", "Mina seems off."),
            ("“Mina seems off.”", "Mina seems off."),
            ("Bot 2: \"Mina seems off.\"", "Mina seems off."),
            ("\"Bot 2: Mina seems off.\"", "Mina seems off."),
            ("가람: 「민수님이 수상해요.」", "민수님이 수상해요."),
            ("Mina seems off.\nAlso, I am an AI.", "Mina seems off."),
            ("\n\nFirst line.\nSecond line.", "First line."),
            ("The score is 2:1 now.", "The score is 2:1 now."),
            (
                "Honestly, here is my view: Mina.",
                "Honestly, here is my view: Mina.",
            ),
            ("", ""),
        ];
        for (raw, expected) in table {
            assert_eq!(clean(raw), expected, "cleaning {raw:?}");
        }
    }

    #[test]
    fn checking() {
        use Language::{English, Korean};
        let accuse = line(
            "Mina looks like the Great Misfortune. Evidence: 2 bad tokens.",
            &[2],
        );
        let korean = line("민수님이 대흉 같습니다. 근거: 흉 2개.", &[2]);
        let unsure = line("I can't tell yet.", &[]);
        let pile = line("My private pile has 1 good token and 2 bad ones.", &[1, 2]);
        let long = "Mina worries me with 2 bad tokens ".repeat(5);
        let no = |r: Rejection| Err::<(), Rejection>(r);
        let changed = |expected: &[u32], found: &[u32]| {
            no(Rejection::NumbersChanged {
                expected: expected.to_vec(),
                found: found.to_vec(),
            })
        };
        let table: Vec<(&str, &Remark, Language, Result<(), Rejection>)> = vec![
            (
                "Mina worries me, 2 bad tokens shown.",
                &accuse,
                English,
                Ok(()),
            ),
            ("", &accuse, English, no(Rejection::Empty)),
            (&long, &accuse, English, no(Rejection::TooLong(170))),
            // Korean with Han or Kana, or hardly any Hangul.
            (
                "민수님이 대흉 같아요, 흉이 2개나 있어요.",
                &korean,
                Korean,
                Ok(()),
            ),
            (
                "민수님이 大凶 같아요, 흉이 2개나 있어요.",
                &korean,
                Korean,
                no(Rejection::WrongLanguage),
            ),
            (
                "민수님이 대흉 같아요, 흉이 2개です.",
                &korean,
                Korean,
                no(Rejection::WrongLanguage),
            ),
            (
                "Minsu looks bad, 2 bad tokens 같아요.",
                &korean,
                Korean,
                no(Rejection::WrongLanguage),
            ),
            (
                "Mina님이 대흉 같아요, 흉이 2개예요.",
                &korean,
                Korean,
                Ok(()),
            ),
            // English with Hangul, or other scripts.
            (
                "민수님이 대흉 같아요, 2 tokens.",
                &accuse,
                English,
                no(Rejection::WrongLanguage),
            ),
            (
                "Мина кажется плохой, 2 токена.",
                &accuse,
                English,
                no(Rejection::WrongLanguage),
            ),
            (
                "Mina (민수) worries me, 2 bad tokens shown.",
                &accuse,
                English,
                Ok(()),
            ),
            // Copies of an example, as is or with names swapped.
            (
                "Honestly, I can't read this table yet.",
                &unsure,
                English,
                no(Rejection::CopiesExample),
            ),
            (
                "honestly i cant read this table yet",
                &unsure,
                English,
                no(Rejection::CopiesExample),
            ),
            (
                "Mina really looks like the Great Misfortune to me, with 2 bad tokens shown.",
                &accuse,
                English,
                no(Rejection::CopiesExample),
            ),
            (
                "민수님이 대흉 같아요. 공개한 운세에 흉이 2개나 있었잖아요.",
                &korean,
                Korean,
                no(Rejection::CopiesExample),
            ),
            (
                "Honestly, I can't read this table yet, sorry.",
                &unsure,
                English,
                Ok(()),
            ),
            // Repeats of the chat or of the bot's own lines.
            (
                "I think Mina is fine.",
                &unsure,
                English,
                no(Rejection::RepeatsChat),
            ),
            (
                "nobody has spoken about ray!",
                &unsure,
                English,
                no(Rejection::RepeatsChat),
            ),
            (
                "Ray showed 2 bad tokens, careful.",
                &accuse,
                English,
                no(Rejection::RepeatsOwn),
            ),
            // Numbers changed, missing or added.
            (
                "Mina worries me, 3 bad tokens shown.",
                &accuse,
                English,
                changed(&[2], &[3]),
            ),
            (
                "Mina worries me, bad tokens shown.",
                &accuse,
                English,
                changed(&[2], &[]),
            ),
            (
                "Mina worries me, 2 bad tokens in 2 rounds.",
                &accuse,
                English,
                changed(&[2], &[2, 2]),
            ),
            (
                "No idea yet, maybe in 1 round.",
                &unsure,
                English,
                changed(&[], &[1]),
            ),
            (
                "2 bad ones and 1 good one sit in my pile.",
                &pile,
                English,
                Ok(()),
            ),
            (
                "1 good one sits in my pile.",
                &pile,
                English,
                changed(&[1, 2], &[1]),
            ),
        ];
        for (reply, line, language, expected) in table {
            assert_eq!(
                check(
                    reply,
                    line,
                    language,
                    arbiter_fate_tokens::talk::examples(language)
                ),
                expected,
                "checking {reply:?}"
            );
        }
    }
}
