//! The one rule for names, shared by bots and accounts: what a name may contain, and when two
//! names are too alike to be told apart.
//!
//! A name must be addressable, as a path segment in `/api/v1/bots/{name}` and `/bots/{name}`:
//! so it is never `.` or `..`-like (only dots), never only digits (which would read as a bot's
//! id), and never one of the API's own words (`me`, `anon`). Two names clash when their
//! confusable skeletons (Unicode TR39) agree regardless of case, so that `hоuse-easy` with a
//! Cyrillic `о`, or `Alpha` beside `alpha`, cannot pose as the other.

use unicode_security::confusable_detection::skeleton;

use crate::ArenaError;
use crate::directory::HOUSE_PREFIX;

/// The fewest characters a name has.
pub const NAME_MIN_CHARS: usize = 2;
/// The most characters a name has.
pub const NAME_MAX_CHARS: usize = 24;
/// The rule, in words, for error messages, the API's description and the forms.
pub const NAME_RULE: &str = "A name has 2 to 24 letters, digits, '_', '-' or '.', is neither only \
     digits nor only dots, and must not look like a name already taken (regardless of case and \
     of letters that look alike).";

/// What a bot's name may not be beyond [`NAME_RULE`], in words.
pub const BOT_NAME_RULE: &str =
    "A bot's name may not start with 'house-' (the house bots'), nor be 'me' or 'anon'.";

/// Words of the API's paths beside `/api/v1/bots/{name}`: a bot with one of these names could
/// not be looked up by it.
const RESERVED: [&str; 2] = ["me", "anon"];

/// Checks what a name may contain and returns it trimmed. `what` names the kind of name in
/// the message ("a bot name", "a name").
pub fn check_name(name: &str, what: &str) -> Result<String, ArenaError> {
    let name = name.trim();
    let invalid = |why: &str| ArenaError::InvalidName(format!("{what} {why}. {NAME_RULE}"));
    let count = name.chars().count();
    if count < NAME_MIN_CHARS {
        return Err(invalid("is too short"));
    }
    if count > NAME_MAX_CHARS {
        return Err(invalid("is too long"));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(invalid(&format!("may not contain {c:?}")));
    }
    let key = name_key(name);
    if name.chars().all(|c| c == '.') || key.chars().all(|c| c == '.') {
        return Err(invalid("is only dots, which addresses no page"));
    }
    if name.chars().all(char::is_numeric) || key.chars().all(|c| c.is_ascii_digit()) {
        return Err(invalid("is only digits, which reads as an id"));
    }
    Ok(name.to_owned())
}

/// Checks a new bot's name: [`check_name`], and not a house bot's name or one of the API's
/// own words, however it is spelled.
pub fn check_bot_name(name: &str) -> Result<String, ArenaError> {
    let name = check_name(name, "a bot name")?;
    let key = name_key(&name);
    if key.starts_with(&name_key(HOUSE_PREFIX)) || RESERVED.iter().any(|r| key == name_key(r)) {
        return Err(ArenaError::NameTaken(name));
    }
    Ok(name)
}

/// The key two names clash on: the TR39 skeleton of the lower-cased name, lower-cased again
/// because skeletons map some letters and digits to capitals (`0` to `O`).
pub fn name_key(name: &str) -> String {
    skeleton(&name.to_lowercase())
        .collect::<String>()
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_one_rule() {
        let table: [(&str, Result<&str, &str>); 22] = [
            (" Edax-4.6 ", Ok("Edax-4.6")),
            ("오델로봇", Ok("오델로봇")),
            ("bot.v2", Ok("bot.v2")),
            ("42x", Ok("42x")),
            ("x", Err("invalid_name")),
            ("a234567890123456789012345", Err("invalid_name")),
            ("bad name", Err("invalid_name")),
            ("anon:me", Err("invalid_name")),
            ("a/b", Err("invalid_name")),
            ("<b>", Err("invalid_name")),
            ("%2e%2e", Err("invalid_name")),
            ("..", Err("invalid_name")),
            ("....", Err("invalid_name")),
            ("12345", Err("invalid_name")),
            ("٣٤", Err("invalid_name")),
            ("House-Greedy", Err("name_taken")),
            ("house-new", Err("name_taken")),
            ("hоuse-easy", Err("name_taken")),
            ("h0use-hard", Err("name_taken")),
            ("me", Err("name_taken")),
            ("ANON", Err("name_taken")),
            ("ｍe", Err("name_taken")),
        ];
        for (name, expected) in table {
            let got = check_bot_name(name);
            match expected {
                Ok(clean) => assert_eq!(got, Ok(clean.to_owned()), "{name:?}"),
                Err(code) => assert_eq!(got.map_err(|e| e.code()), Err(code), "{name:?}"),
            }
        }
    }

    #[test]
    fn confusable_names_share_a_key() {
        for (a, b) in [
            ("house-easy", "hоuse-easy"),
            ("Alpha", "alpha"),
            ("bot1", "botl"),
            ("paypal", "pаypаl"),
        ] {
            assert_eq!(name_key(a), name_key(b), "{a} {b}");
        }
        assert_ne!(name_key("alpha"), name_key("alpine"));
    }
}
