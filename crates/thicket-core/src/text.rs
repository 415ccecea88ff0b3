//! Values and tokens as messages show them: a number in its short form (never 309 digits), a
//! token cut to 40 characters (never a 100 KB line).

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

/// `token` cut to [`TOKEN_CHARS`] characters, with `...` where it was cut.
pub fn token(token: &str) -> String {
    match token.char_indices().nth(TOKEN_CHARS) {
        Some((end, _)) => format!("{}...", &token[..end]),
        None => token.to_string(),
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
    }
}
