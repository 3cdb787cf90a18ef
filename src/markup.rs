//! The two rules every piece of markup follows: text is escaped ([`esc`])
//! and long text is clipped with an ellipsis ([`clip`]). The leaf of the
//! page crate: every panel module uses it, it uses none of them.

/// Escape text for HTML and SVG content and attribute values.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// At most `n` characters, with an ellipsis when cut.
pub fn clip(text: &str, n: usize) -> String {
    let mut out: String = text.chars().take(n).collect();
    if text.chars().nth(n).is_some() {
        out.push('…');
    }
    out
}
