//! Tokens by id or name. A name stands for the one token carrying it that is not revoked; names
//! are unique among live tokens, but a revoked token's name can be taken again.

use std::collections::HashMap;

use futures::TryStreamExt;
use tokctl_sdk::{Client, ListTokens, Token, TokenStatus};

use crate::error::CliError;

/// What an id or name stands for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Found {
    /// An id as given, or the one token with the name that is not revoked.
    Id(String),
    /// Only revoked tokens carry the name; the newest one's id.
    Revoked(String),
}

/// Every token's id and status by name, from one listing.
pub(crate) struct Names {
    by_name: HashMap<String, Vec<(String, TokenStatus)>>,
}

impl Names {
    /// From tokens listed newest first.
    pub(crate) fn new(tokens: &[Token]) -> Names {
        let mut by_name: HashMap<String, Vec<(String, TokenStatus)>> = HashMap::new();
        for token in tokens {
            by_name
                .entry(token.name.clone())
                .or_default()
                .push((token.id.clone(), token.status.clone()));
        }
        Names { by_name }
    }

    /// Lists every token once.
    pub(crate) async fn fetch(client: &Client) -> Result<Names, CliError> {
        let tokens: Vec<Token> = client
            .tokens()
            .list_all(ListTokens::new())
            .try_collect()
            .await?;
        Ok(Names::new(&tokens))
    }

    /// An id as given; a name as the id of its live token, or of its newest revoked one. Fails
    /// (not found) when no token has the name, and when several live ones do.
    pub(crate) fn find(&self, id_or_name: &str) -> Result<Found, CliError> {
        if looks_like_id(id_or_name) {
            return Ok(Found::Id(id_or_name.to_string()));
        }
        let tokens = self.by_name.get(id_or_name).map_or(&[][..], Vec::as_slice);
        let live: Vec<&String> = tokens
            .iter()
            .filter(|(_, status)| *status != TokenStatus::Revoked)
            .map(|(id, _)| id)
            .collect();
        match (live.as_slice(), tokens.first()) {
            ([one], _) => Ok(Found::Id((*one).clone())),
            ([], Some((newest, _))) => Ok(Found::Revoked(newest.clone())),
            ([], None) => Err(CliError::not_found(format!(
                "no token named {id_or_name:?}"
            ))),
            (many, _) => Err(CliError::new(format!(
                "{} tokens are named {id_or_name:?}; use an id",
                many.len()
            ))),
        }
    }
}

/// Whether `value` is written like a token id (`tok_` and 24 digits or lowercase letters).
pub(crate) fn looks_like_id(value: &str) -> bool {
    value.strip_prefix("tok_").is_some_and(|rest| {
        rest.len() == 24
            && rest
                .bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
    })
}

/// The id of the one token `id_or_name` names that is not revoked (listing tokens only for a
/// name).
pub(crate) async fn resolve(client: &Client, id_or_name: &str) -> Result<String, CliError> {
    if looks_like_id(id_or_name) {
        return Ok(id_or_name.to_string());
    }
    match Names::fetch(client).await?.find(id_or_name)? {
        Found::Id(id) => Ok(id),
        Found::Revoked(_) => Err(CliError::not_found(format!(
            "no token named {id_or_name:?} that is not revoked"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(id: &str, name: &str, status: TokenStatus) -> Token {
        serde_json::from_value(serde_json::json!({
            "id": id, "name": name, "scopes": [], "status": status.to_string(),
            "created_at": "2030-01-01T00:00:00Z", "expires_at": null, "last_used_at": null,
            "created_by": "key"
        }))
        .expect("a token")
    }

    #[test]
    fn a_name_finds_its_live_token_else_its_newest_revoked_one() {
        let names = Names::new(&[
            token("tok_new", "ci", TokenStatus::Active),
            token("tok_old", "ci", TokenStatus::Revoked),
            token("tok_gone2", "retired", TokenStatus::Revoked),
            token("tok_gone1", "retired", TokenStatus::Revoked),
            token("tok_a", "twice", TokenStatus::Active),
            token("tok_b", "twice", TokenStatus::Expired),
        ]);
        assert_eq!(names.find("ci").ok(), Some(Found::Id("tok_new".into())));
        assert_eq!(
            names.find("retired").ok(),
            Some(Found::Revoked("tok_gone2".into()))
        );
        assert_eq!(names.find("nobody").map_err(|e| e.code).err(), Some(5));
        assert!(names.find("twice").is_err());
        let id = "tok_000000000000000000000000";
        assert_eq!(names.find(id).ok(), Some(Found::Id(id.into())));
    }
}
