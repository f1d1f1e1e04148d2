//! The rule for account names ([`check_account_name`]) and the key an account is stored under
//! ([`key_of`]): unique ignoring case.

/// The shortest account name, in characters.
pub(crate) const MIN_ACCOUNT_NAME: usize = 3;
/// The longest account name, in characters.
pub(crate) const MAX_ACCOUNT_NAME: usize = 20;

/// Why an account name is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BadAccountName {
    /// Too short or too long; holds its length in characters.
    #[error("an account name must be {MIN_ACCOUNT_NAME}–{MAX_ACCOUNT_NAME} characters, got {0}")]
    Length(usize),
    /// A character outside the set.
    #[error(
        "an account name may hold only the letters a–z and A–Z, digits, '_' and '-', got {0:?}"
    )]
    Character(char),
    /// It does not begin with a letter.
    #[error("an account name must begin with a letter")]
    First,
}

/// Checks an account name: 3–20 characters, ASCII letters, digits, `_` and `-`, beginning with
/// a letter (so no account name looks like a built-in level such as `level:3`).
pub(crate) fn check_account_name(name: &str) -> Result<(), BadAccountName> {
    let len = name.chars().count();
    if !(MIN_ACCOUNT_NAME..=MAX_ACCOUNT_NAME).contains(&len) {
        return Err(BadAccountName::Length(len));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(BadAccountName::Character(c));
    }
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Err(BadAccountName::First);
    }
    Ok(())
}

pub(crate) use crate::store::accounts::key_of;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_documented_rule() {
        assert_eq!(check_account_name("Ann"), Ok(()));
        assert_eq!(check_account_name("a_b-9"), Ok(()));
        assert_eq!(check_account_name("ab"), Err(BadAccountName::Length(2)));
        let long = "a".repeat(21);
        assert_eq!(check_account_name(&long), Err(BadAccountName::Length(21)));
        assert_eq!(
            check_account_name("level:3"),
            Err(BadAccountName::Character(':'))
        );
        assert_eq!(
            check_account_name("Zoë"),
            Err(BadAccountName::Character('ë'))
        );
        assert_eq!(check_account_name("9lives"), Err(BadAccountName::First));
    }

    #[test]
    fn keys_ignore_case() {
        assert_eq!(key_of("Alice"), key_of("aLICE"));
    }
}
