//! Choices that the command line and JSON name (strategies, methods): a name read back into
//! its choice, with one error wording for every problem.

use crate::{Error, Result};

/// The member of `all` whose `name` is `s`, or an invalid-input error naming `what` and every
/// choice, in `all`'s order: `unknown lattice strategy "x" (serial, multicore, ...)`.
pub fn parse_named<T: Copy>(
    s: &str,
    all: &[T],
    name: impl Fn(T) -> &'static str,
    what: &str,
) -> Result<T> {
    all.iter().copied().find(|&c| name(c) == s).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|&c| name(c)).collect();
        Error::InvalidInput(format!("unknown {what} {s:?} ({})", names.join(", ")))
    })
}

/// Implements `Display` (its `name()`) and `FromStr` (by [`parse_named`] over its `ALL`) for a
/// choice type that has `const ALL` and `fn name(self) -> &'static str`; `$what` names the
/// kind of choice in the error.
#[macro_export]
macro_rules! named_choice {
    ($choice:ty, $what:expr) => {
        impl ::std::fmt::Display for $choice {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ::std::str::FromStr for $choice {
            type Err = $crate::Error;

            fn from_str(s: &str) -> $crate::Result<$choice> {
                $crate::parse_named(s, &<$choice>::ALL, <$choice>::name, $what)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Colour {
        Red,
        Green,
    }

    impl Colour {
        const ALL: [Colour; 2] = [Colour::Red, Colour::Green];

        fn name(self) -> &'static str {
            match self {
                Colour::Red => "red",
                Colour::Green => "green",
            }
        }
    }

    named_choice!(Colour, "colour");

    #[test]
    fn a_name_reads_back_and_an_unknown_one_lists_the_choices() {
        for colour in Colour::ALL {
            assert_eq!(colour.to_string().parse::<Colour>().unwrap(), colour);
        }
        let err = "blue".parse::<Colour>().unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert_eq!(err.message(), r#"unknown colour "blue" (red, green)"#);
    }
}
