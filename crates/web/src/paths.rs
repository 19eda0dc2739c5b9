//! Addresses built from data. A name put into a path is percent-encoded as one segment, so
//! that no name can end the segment (`/`), start a query or fragment (`?`, `#`) or look like
//! a scheme (`:`): an anonymous bot `anon:name#6` is linked as `/bots/anon%3Aname%236`.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// Everything but RFC 3986's unreserved characters.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `value` as one path segment.
pub(crate) fn segment(value: &str) -> String {
    utf8_percent_encode(value, SEGMENT).to_string()
}

/// The address of a bot's page.
pub fn bot_path(name: &str) -> String {
    format!("/bots/{}", segment(name))
}

/// The templates' filters: `{{ name|segment }}` writes a name as one path segment.
#[allow(
    unreachable_pub,
    reason = "askama's `filter_fn` declares public helper items of its own"
)]
pub(crate) mod filters {
    /// `value` as one path segment (see [`super::segment`]).
    #[askama::filter_fn]
    pub(crate) fn segment(
        value: impl std::fmt::Display,
        _: &dyn askama::Values,
    ) -> askama::Result<String> {
        Ok(super::segment(&value.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_one_segment() {
        assert_eq!(bot_path("anon:name#6"), "/bots/anon%3Aname%236");
        assert_eq!(segment("Flüppy.v2"), "Fl%C3%BCppy.v2");
        assert_eq!(segment("a/b?c d"), "a%2Fb%3Fc%20d");
        assert_eq!(segment("house-easy_1~"), "house-easy_1~");
    }
}
