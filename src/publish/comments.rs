//! Publish stage, comments: who we are, every comment on the pull request (all pages), and
//! which of them are ours for a key.
//!
//! A comment is ours only when it carries our marker with the same key *and* was written by
//! the identity of our token: a copy of the marker in someone else's comment is ignored.
//! The identity comes from GraphQL `viewer`, which (unlike `GET /user`) answers for the
//! installation tokens GitHub Actions hands out.

use http::Method;
use serde::Deserialize;
use serde_json::Value as Json;

use super::client::{GitHub, Repeat};
use super::target::Target;
use super::PublishError;
use crate::marker::parse_marker;

/// The identity behind the token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Identity {
    /// Login, e.g. `github-actions[bot]`.
    pub(crate) login: String,
    /// Numeric user id, when known.
    pub(crate) id: Option<u64>,
}

/// A comment as far as we need it.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Comment {
    /// REST id.
    pub(crate) id: u64,
    /// GraphQL node id (for minimising).
    #[serde(default)]
    pub(crate) node_id: String,
    /// Text.
    #[serde(default)]
    pub(crate) body: Option<String>,
    /// Link.
    #[serde(default)]
    pub(crate) html_url: String,
    /// Author.
    pub(crate) user: Option<Author>,
}

/// A comment's author.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Author {
    /// Login.
    pub(crate) login: String,
    /// Id.
    pub(crate) id: u64,
}

impl Comment {
    /// Written by `me`?
    pub(crate) fn by(&self, me: &Identity) -> bool {
        match (&self.user, me.id) {
            (Some(user), Some(id)) => user.id == id,
            (Some(user), None) => user.login == me.login,
            (None, _) => false,
        }
    }

    /// The marker's JSON, if the body has one.
    pub(crate) fn marker(&self) -> Option<Json> {
        parse_marker(self.body.as_deref()?)
    }

    /// Carries our marker for `key`?
    pub(crate) fn has_key(&self, key: &str) -> bool {
        self.marker()
            .and_then(|m| m.get("key").and_then(Json::as_str).map(|k| k == key))
            .unwrap_or(false)
    }
}

/// Asks who the token belongs to: GraphQL `viewer`, then `GET /user`.
pub(crate) async fn identity(github: &GitHub) -> Result<Identity, PublishError> {
    let identity = |user: &Json, login: &str, id: &str| {
        Some(Identity {
            login: user.pointer(login)?.as_str()?.to_string(),
            id: user.pointer(id).and_then(Json::as_u64),
        })
    };
    let viewer = github
        .graphql("query { viewer { login databaseId } }", Json::Null)
        .await;
    let found = viewer.as_ref().ok();
    if let Some(me) = found.and_then(|data| identity(data, "/viewer/login", "/viewer/databaseId")) {
        return Ok(me);
    }
    let response = github
        .rest(Method::GET, "/user", None, Repeat::Safe)
        .await?;
    if let Some(me) = identity(&response.json(), "/login", "/id").filter(|_| response.ok()) {
        return Ok(me);
    }
    // Surface the GraphQL failure: it is the first thing asked and usually the cause.
    match viewer {
        Err(e) => Err(e),
        Ok(_) => Err(response.refusal("finding who the token belongs to")),
    }
}

/// Every comment on the pull request, oldest first, over all pages.
pub(crate) async fn list(github: &GitHub, target: &Target) -> Result<Vec<Comment>, PublishError> {
    let first = target.issue("/comments?per_page=100");
    github
        .get_all(first, "listing the pull request's comments", "comments")
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ours_means_our_author_and_our_key() {
        let comment = |user_id: u64, body: &str| Comment {
            id: 1,
            node_id: String::new(),
            body: Some(body.to_string()),
            html_url: String::new(),
            user: Some(Author {
                login: "someone".into(),
                id: user_id,
            }),
        };
        let me = Identity {
            login: "github-actions[bot]".into(),
            id: Some(41898282),
        };
        let body = "x\n<!-- planmark:v1 {\"key\":\"prod\"} -->\n";
        assert!(comment(41898282, body).by(&me) && comment(41898282, body).has_key("prod"));
        assert!(!comment(5, body).by(&me));
        assert!(!comment(41898282, body).has_key("dev"));
    }
}
