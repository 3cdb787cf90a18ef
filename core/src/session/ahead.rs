//! A long `src=` file parsed in a task of its own, before the task that
//! opens it: the parse of a 3 MB file is about half of that task, and the
//! page keeps each of its tasks short (issue 46, break 8). What was parsed
//! ahead is taken by the next parse of exactly that text; any other text
//! is parsed as it comes.

use crate::scenario::{Problem, Scenario};
use std::cell::RefCell;

/// A file's text, read as a scenario or its problems.
type Parsed = Result<Scenario, Vec<Problem>>;

/// Files parsed ahead kept at once (those a page opens with); the
/// oldest goes first.
const KEPT: usize = 2;

thread_local! {
    /// The text and what it parsed to.
    static PARSED: RefCell<Vec<(String, Parsed)>> = const { RefCell::new(Vec::new()) };
}

/// Parse `text` now, for the task that opens it next ([`parsed`]).
pub fn parse_ahead(text: &str) {
    let parsed = Scenario::parse(text);
    PARSED.with(|kept| {
        let mut kept = kept.borrow_mut();
        kept.retain(|(t, _)| t != text);
        if kept.len() >= KEPT {
            drop(kept.remove(0));
        }
        kept.push((text.to_string(), parsed));
    });
}

/// `text` parsed: taken from [`parse_ahead`] when that exact text was
/// parsed ahead, else parsed now.
pub fn parsed(text: &str) -> Parsed {
    let ahead = PARSED.with(|kept| {
        let mut kept = kept.borrow_mut();
        let i = kept.iter().position(|(t, _)| t == text)?;
        Some(kept.remove(i).1)
    });
    ahead.unwrap_or_else(|| Scenario::parse(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept() -> usize {
        PARSED.with(|kept| kept.borrow().len())
    }

    #[test]
    fn a_text_parsed_ahead_is_taken_once_and_only_for_that_text() {
        // (texts with problems: what is parsed ahead is what a parse says)
        let text = |id: &str| format!(r#"{{"id": "{id}"}}"#);
        parse_ahead(&text("one"));
        parse_ahead(&text("one"));
        assert_eq!(kept(), 1, "the same text is kept once");
        assert_eq!(parsed(&text("two")), Scenario::parse(&text("two")), "another text is parsed as it comes");
        assert_eq!(kept(), 1);
        assert_eq!(parsed(&text("one")), Scenario::parse(&text("one")));
        assert_eq!(kept(), 0, "taken");
        for id in ["a", "b", "c"] {
            parse_ahead(&text(id));
        }
        assert_eq!(kept(), KEPT, "the oldest goes");
        assert!(parsed("{").is_err());
        assert_eq!(kept(), KEPT);
        parsed(&text("c")).unwrap_err();
        assert_eq!(kept(), KEPT - 1);
    }
}
