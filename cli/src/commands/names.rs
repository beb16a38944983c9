//! Tokens and API keys by id or name, the same way in every command. A name stands for the one
//! token (or key) carrying it that is not revoked, else for the newest revoked one: names are
//! unique among live ones, but a revoked one's name can be taken again.

use std::collections::HashMap;

use futures::TryStreamExt;
use tokctl_sdk::{ApiKey, Client, ListKeys, ListTokens, Token, TokenStatus};

use crate::error::CliError;

/// A kind of credential: what it is called and how its ids begin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Noun {
    name: &'static str,
    prefix: &'static str,
}

/// Tokens: `tok_...`.
pub(crate) const TOKEN: Noun = Noun {
    name: "token",
    prefix: "tok_",
};

/// API keys: `key_...`.
pub(crate) const KEY: Noun = Noun {
    name: "API key",
    prefix: "key_",
};

impl Noun {
    /// Whether `value` is written like an id: the prefix and 24 digits or lowercase letters.
    pub(crate) fn is_id(self, value: &str) -> bool {
        value.strip_prefix(self.prefix).is_some_and(|rest| {
            rest.len() == 24
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
        })
    }
}

/// What an id or name stands for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Found {
    /// An id as given, or the one live token or key with the name.
    Id(String),
    /// Only revoked ones carry the name; the newest one's id.
    Revoked(String),
}

/// Every token's (or key's) id and status by name, from one listing.
pub(crate) struct Names {
    noun: Noun,
    by_name: HashMap<String, Vec<(String, TokenStatus)>>,
}

impl Names {
    /// From `(id, name, status)`, listed newest first.
    fn new<'a>(
        noun: Noun,
        listed: impl IntoIterator<Item = (&'a str, &'a str, &'a TokenStatus)>,
    ) -> Names {
        let mut by_name: HashMap<String, Vec<(String, TokenStatus)>> = HashMap::new();
        for (id, name, status) in listed {
            by_name
                .entry(name.to_string())
                .or_default()
                .push((id.to_string(), status.clone()));
        }
        Names { noun, by_name }
    }

    /// From tokens listed newest first.
    pub(crate) fn of_tokens(tokens: &[Token]) -> Names {
        Names::new(
            TOKEN,
            tokens
                .iter()
                .map(|t| (t.id.as_str(), t.name.as_str(), &t.status)),
        )
    }

    /// From API keys listed newest first.
    pub(crate) fn of_keys(keys: &[ApiKey]) -> Names {
        Names::new(
            KEY,
            keys.iter()
                .map(|k| (k.id.as_str(), k.name.as_str(), &k.status)),
        )
    }

    /// Lists every token (or key) once.
    pub(crate) async fn fetch(client: &Client, noun: Noun) -> Result<Names, CliError> {
        if noun == KEY {
            let keys: Vec<ApiKey> = client
                .keys()
                .list_all(ListKeys::new())
                .try_collect()
                .await?;
            return Ok(Names::of_keys(&keys));
        }
        let tokens: Vec<Token> = client
            .tokens()
            .list_all(ListTokens::new())
            .try_collect()
            .await?;
        Ok(Names::of_tokens(&tokens))
    }

    /// An id as given; a name as the id of its live token (or key), or of its newest revoked
    /// one. Fails (not found) when nothing has the name, and when several live ones do.
    pub(crate) fn find(&self, id_or_name: &str) -> Result<Found, CliError> {
        let noun = self.noun.name;
        if self.noun.is_id(id_or_name) {
            return Ok(Found::Id(id_or_name.to_string()));
        }
        let listed = self.by_name.get(id_or_name).map_or(&[][..], Vec::as_slice);
        let live: Vec<&String> = listed
            .iter()
            .filter(|(_, status)| *status != TokenStatus::Revoked)
            .map(|(id, _)| id)
            .collect();
        match (live.as_slice(), listed.first()) {
            ([one], _) => Ok(Found::Id((*one).clone())),
            ([], Some((newest, _))) => Ok(Found::Revoked(newest.clone())),
            // Written like an id but not one, and no name either: a mistyped id.
            ([], None) if id_or_name.starts_with(self.noun.prefix) => Err(CliError::not_found(
                format!("no {noun} with id {id_or_name}"),
            )),
            ([], None) => Err(CliError::not_found(format!(
                "no {noun} named {id_or_name:?}"
            ))),
            (many, _) => Err(CliError::new(format!(
                "{} {noun}s are named {id_or_name:?}; use an id",
                many.len()
            ))),
        }
    }
}

/// The id `id_or_name` stands for (listing only for a name): its live token or key, or, when
/// `revoked` allows (reading history), its newest revoked one.
pub(crate) async fn resolve(
    client: &Client,
    noun: Noun,
    id_or_name: &str,
    revoked: bool,
) -> Result<String, CliError> {
    if noun.is_id(id_or_name) {
        return Ok(id_or_name.to_string());
    }
    match Names::fetch(client, noun).await?.find(id_or_name)? {
        Found::Id(id) => Ok(id),
        Found::Revoked(id) if revoked => Ok(id),
        Found::Revoked(_) => Err(CliError::not_found(format!(
            "no {} named {id_or_name:?} that is not revoked",
            noun.name
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
        let names = Names::of_tokens(&[
            token("tok_new", "ci", TokenStatus::Active),
            token("tok_old", "ci", TokenStatus::Revoked),
            token("tok_gone2", "retired", TokenStatus::Revoked),
            token("tok_gone1", "retired", TokenStatus::Revoked),
            token("tok_a", "twice", TokenStatus::Active),
            token("tok_b", "twice", TokenStatus::Expired),
            token("tok_c", "tok_named_so", TokenStatus::Active),
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
        // A name that begins like an id is still a name; a mistyped id is not "named".
        assert_eq!(
            names.find("tok_named_so").ok(),
            Some(Found::Id("tok_c".into()))
        );
        let err = names.find("tok_abc").expect_err("unknown");
        assert_eq!(
            (err.code, err.message.as_str()),
            (5, "no token with id tok_abc")
        );
    }
}
