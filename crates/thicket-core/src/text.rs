//! Values, tokens and files as messages show them: a number in its short form (never 309
//! digits), a token cut to 40 characters with its control characters escaped (never a 100 KB
//! line, never a line end inside a one-line message), standard input as `<stdin>`.

use std::path::Path;

/// `value` as a message shows it: as Rust writes it between 1e-4 and 1e15 in magnitude (and
/// for zero, NaN and infinities), else in scientific form (`1e308`, `-1e-12`).
pub fn number(value: f64) -> String {
    let magnitude = value.abs();
    if value == 0.0 || !value.is_finite() || (1e-4..1e15).contains(&magnitude) {
        value.to_string()
    } else {
        format!("{value:e}")
    }
}

/// The most characters of a token a message quotes.
pub const TOKEN_CHARS: usize = 40;

/// `token` cut to [`TOKEN_CHARS`] characters (`...` marks a cut), its control characters
/// escaped.
pub fn token(token: &str) -> String {
    let mut shown: String = token
        .chars()
        .take(TOKEN_CHARS)
        .flat_map(char::escape_debug)
        .collect();
    if token.chars().nth(TOKEN_CHARS).is_some() {
        shown.push_str("...");
    }
    shown
}

/// `token` as [`token`] shows it, in double quotes.
pub fn quoted(text: &str) -> String {
    format!("\"{}\"", token(text))
}

/// The operating system's words for `error`, without Rust's " (os error N)" suffix: what a
/// one-line message says after the file it names.
pub fn os_reason(error: &std::io::Error) -> String {
    let text = error.to_string();
    match text.find(" (os error") {
        Some(end) => text[..end].to_string(),
        None => text,
    }
}

/// How messages name the input file `path`: `<stdin>` for `-`.
pub fn input_name(path: &Path) -> String {
    if crate::is_stdio(path) {
        "<stdin>".into()
    } else {
        path.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_tokens_stay_short() {
        assert_eq!(number(1e308), "1e308");
        assert_eq!(number(0.25), "0.25");
        assert_eq!(number(-1e-12), "-1e-12");
        assert_eq!(number(f64::NAN), "NaN");
        assert_eq!(number(123456.0), "123456");
        assert_eq!(token("abc"), "abc");
        let long = "x".repeat(100_000);
        assert_eq!(token(&long).len(), TOKEN_CHARS + 3);
        assert_eq!(quoted("a\nb"), "\"a\\nb\"");
        assert_eq!(input_name(Path::new("-")), "<stdin>");
        let full = std::io::Error::from_raw_os_error(28);
        assert_eq!(os_reason(&full), "No space left on device");
    }
}
