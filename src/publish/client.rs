//! Publish stage, HTTP: one GitHub REST + GraphQL client over octocrab's raw requests,
//! with our own retry policy (octocrab's retry layer is compiled out: it re-sends POSTs at
//! once, ignoring rate-limit waits, which duplicates comments).
//!
//! Retried: 5xx, 429, secondary rate limits (403 with `retry-after` or the documented
//! message), primary rate limits (403/429 with `x-ratelimit-remaining: 0`, waiting until
//! `x-ratelimit-reset`) and transport errors — for writes only when the caller says the
//! request is safe to repeat. Waits honour `retry-after`, back off exponentially otherwise,
//! and stop when the total wait would pass the cap. The token is only ever in the
//! `Authorization` header: no message or debug output contains it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http::{HeaderMap, Method};
use octocrab::Octocrab;
use serde::de::DeserializeOwned;
use serde_json::Value as Json;

use super::PublishError;

/// A response: status, headers and body text.
#[derive(Debug, Clone)]
pub(crate) struct Response {
    /// HTTP status.
    pub(crate) status: u16,
    /// Headers.
    pub(crate) headers: HeaderMap,
    /// Body (JSON text, or empty).
    pub(crate) body: String,
}

impl Response {
    /// The error for this (non-2xx) answer while doing `what`.
    pub(crate) fn refusal(&self, what: &str) -> PublishError {
        PublishError::refused(what, self.status, self.message())
    }

    /// The error for this answer while doing `what`, which is not what was expected:
    /// `message` says why.
    pub(crate) fn failure(&self, what: &str, message: impl Into<String>) -> PublishError {
        let (what, status, message) = (what.to_string(), self.status, message.into());
        PublishError::Api {
            what,
            status,
            message,
        }
    }

    /// The body as JSON (`null` when it is not JSON).
    pub(crate) fn json(&self) -> Json {
        serde_json::from_str(&self.body).unwrap_or(Json::Null)
    }

    /// 2xx.
    pub(crate) fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// GitHub's `message` field, for error texts.
    pub(crate) fn message(&self) -> String {
        self.json()
            .get("message")
            .and_then(Json::as_str)
            .unwrap_or("")
            .to_string()
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// Attempts per request, the first included.
const ATTEMPTS: u32 = 5;

/// First backoff; doubles per attempt.
const BASE: Duration = Duration::from_millis(500);

/// Whether a request may be sent again after an ambiguous failure (a 5xx or a broken
/// connection after which it may or may not have taken effect).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Repeat {
    /// Reads, deletes, edits: repeating gives the same result.
    Safe,
    /// Creates: only repeat when GitHub said it did not process the request (rate limits);
    /// otherwise report [`PublishError::Ambiguous`] so the caller can look first.
    OnlyIfRefused,
}

/// A GitHub API client.
pub(crate) struct GitHub {
    /// When the last write was sent: GitHub asks for a second between writes.
    last_write: std::sync::Mutex<Option<std::time::Instant>>,
    rest: Octocrab,
    graphql: Octocrab,
    /// Path prefix of the REST base (`/api/v3` on GitHub Enterprise Server), stripped from
    /// pagination links.
    rest_prefix: String,
    /// Total time one request may spend waiting (`--max-wait`).
    max_wait: Duration,
}

/// The path of `url` (`/api/v3` of `https://host/api/v3`), `/` when it has none.
fn url_path(url: &str) -> &str {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    after_scheme.find('/').map_or("/", |i| &after_scheme[i..])
}

fn client(base: &str, token: &str) -> Result<Octocrab, PublishError> {
    let config = |what: &str| PublishError::Config(format!("{what} `{base}` is not a usable URL"));
    Octocrab::builder()
        .base_uri(base)
        .map_err(|_| config("API URL"))?
        .personal_token(token.to_string())
        // The media type and API version GitHub's REST documentation asks clients to send.
        .add_header(
            http::header::ACCEPT,
            "application/vnd.github+json".to_string(),
        )
        .add_header(
            http::HeaderName::from_static("x-github-api-version"),
            "2022-11-28".to_string(),
        )
        .set_connect_timeout(Some(Duration::from_secs(20)))
        .set_read_timeout(Some(Duration::from_secs(60)))
        .build()
        .map_err(|_| config("API URL"))
}

impl GitHub {
    /// A client for the REST API at `api_url` (e.g. `https://api.github.com`,
    /// `https://HOST/api/v3`) and the GraphQL endpoint `graphql_url`, whose requests wait
    /// at most `max_wait` each under rate limits and retries.
    pub(crate) fn new(
        api_url: &str,
        graphql_url: &str,
        token: &str,
        max_wait: Duration,
    ) -> Result<Self, PublishError> {
        let api_url = api_url.trim_end_matches('/');
        // octocrab prefixes every request with its base path, so the GraphQL client's base
        // is the endpoint's parent and requests go to `/graphql`.
        let graphql_base = graphql_url
            .trim_end_matches('/')
            .strip_suffix("/graphql")
            .ok_or_else(|| {
                PublishError::Config(format!(
                    "GraphQL URL `{graphql_url}` does not end in /graphql; set GITHUB_GRAPHQL_URL"
                ))
            })?;
        Ok(GitHub {
            last_write: std::sync::Mutex::new(None),
            rest: client(api_url, token)?,
            graphql: client(graphql_base, token)?,
            rest_prefix: url_path(api_url).trim_end_matches('/').to_string(),
            max_wait,
        })
    }

    /// The API path of a pagination link (absolute URL on the API host).
    pub(crate) fn link_path(&self, url: &str) -> String {
        let path = url_path(url);
        match path.strip_prefix(&self.rest_prefix) {
            Some(rest) if !self.rest_prefix.is_empty() => rest.to_string(),
            _ => path.to_string(),
        }
    }

    async fn send_once(
        &self,
        graphql: bool,
        method: &Method,
        path: &str,
        body: Option<&Json>,
    ) -> Result<Response, String> {
        let crab = if graphql { &self.graphql } else { &self.rest };
        if *method != Method::GET && !graphql {
            self.space_writes().await;
        }
        let sent = match *method {
            Method::GET => crab._get(path).await,
            Method::POST => crab._post(path, body).await,
            Method::PATCH => crab._patch(path, body).await,
            Method::DELETE => crab._delete(path, body).await,
            _ => return Err(format!("unsupported method {method}")),
        };
        // Transport errors are described by kind only: never with request details.
        let response = sent.map_err(|e| transport_error(&e))?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = crab
            .body_to_string(response)
            .await
            .map_err(|e| transport_error(&e))?;
        Ok(Response {
            status,
            headers,
            body,
        })
    }

    /// Waits until a second has passed since the previous write (GitHub's guidance for
    /// avoiding secondary rate limits), then records this one.
    async fn space_writes(&self) {
        const GAP: Duration = Duration::from_secs(1);
        let wait = {
            let last = self.last_write.lock().map(|l| *l).unwrap_or(None);
            last.map(|t| GAP.saturating_sub(t.elapsed()))
        };
        if let Some(wait) = wait.filter(|w| !w.is_zero()) {
            tokio::time::sleep(wait).await;
        }
        if let Ok(mut last) = self.last_write.lock() {
            *last = Some(std::time::Instant::now());
        }
    }

    /// Sends a REST request, retrying as the policy allows. Non-2xx answers that are not
    /// retried are returned as they are for the caller to interpret.
    pub(crate) async fn rest(
        &self,
        method: Method,
        path: &str,
        body: Option<&Json>,
        repeat: Repeat,
    ) -> Result<Response, PublishError> {
        self.call(false, method, path, body, repeat).await
    }

    /// Every item of a paginated REST list, following `Link: rel="next"` from `first`.
    /// `what` names the request in errors (`listing the pull request's comments`), `items`
    /// the kind of item (`comments`).
    pub(crate) async fn get_all<T: DeserializeOwned>(
        &self,
        first: String,
        what: &str,
        items: &str,
    ) -> Result<Vec<T>, PublishError> {
        let mut path = Some(first);
        let mut all = Vec::new();
        // A bound on pages guards against a server that links in circles (1000 pages of
        // 100 is far beyond any pull request GitHub serves).
        for _ in 0..1000 {
            let Some(current) = path.take() else { break };
            let response = self.rest(Method::GET, &current, None, Repeat::Safe).await?;
            if !response.ok() {
                return Err(response.refusal(what));
            }
            let page: Vec<T> = serde_json::from_str(&response.body).map_err(|_| {
                response.failure(what, format!("the answer is not a list of {items}"))
            })?;
            all.extend(page);
            path = response
                .headers
                .get("link")
                .and_then(|v| v.to_str().ok())
                .and_then(next_link)
                .map(|url| self.link_path(&url));
        }
        Ok(all)
    }

    /// Sends a GraphQL query; returns `data`, or the first error message.
    pub(crate) async fn graphql(&self, query: &str, variables: Json) -> Result<Json, PublishError> {
        let body = serde_json::json!({ "query": query, "variables": variables });
        let response = self
            .call(true, Method::POST, "/graphql", Some(&body), Repeat::Safe)
            .await?;
        if !response.ok() {
            return Err(response.refusal("GraphQL request"));
        }
        let json = response.json();
        if let Some(message) = json.pointer("/errors/0/message").and_then(Json::as_str) {
            return Err(response.failure("GraphQL request", message));
        }
        Ok(json.get("data").cloned().unwrap_or(Json::Null))
    }

    async fn call(
        &self,
        graphql: bool,
        method: Method,
        path: &str,
        body: Option<&Json>,
        repeat: Repeat,
    ) -> Result<Response, PublishError> {
        let mut waited = Duration::ZERO;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let result = self.send_once(graphql, &method, path, body).await;
            let wait = match &result {
                Ok(response) => match retry_wait(response, attempt) {
                    Some(RetryReason::Refused(wait)) => wait,
                    Some(RetryReason::Ambiguous(wait)) if repeat == Repeat::Safe => wait,
                    Some(RetryReason::Ambiguous(_)) => {
                        return Err(PublishError::Ambiguous(format!(
                            "{method} answered {}",
                            response.status
                        )))
                    }
                    None => return result.map_err(PublishError::Network),
                },
                Err(_) if repeat == Repeat::Safe => backoff(attempt),
                Err(e) => return Err(PublishError::Ambiguous(e.clone())),
            };
            if attempt >= ATTEMPTS || waited + wait > self.max_wait {
                return match result {
                    Ok(response) => Err(PublishError::GaveUp {
                        status: response.status,
                        message: response.message(),
                        waited,
                    }),
                    Err(e) => Err(PublishError::Network(e)),
                };
            }
            tokio::time::sleep(wait).await;
            waited += wait;
        }
    }
}

fn transport_error(e: &octocrab::Error) -> String {
    match e {
        octocrab::Error::Hyper { .. } | octocrab::Error::Service { .. } => {
            "could not reach the GitHub API (connection failed or timed out)".to_string()
        }
        octocrab::Error::Http { .. } | octocrab::Error::Uri { .. } => {
            "could not build the request (check GITHUB_API_URL)".to_string()
        }
        _ => "the GitHub API request failed".to_string(),
    }
}

enum RetryReason {
    /// GitHub did not process the request (rate limits): any request may be repeated.
    Refused(Duration),
    /// The request may have taken effect (5xx).
    Ambiguous(Duration),
}

fn backoff(attempt: u32) -> Duration {
    BASE * 2u32.saturating_pow(attempt.saturating_sub(1))
}

/// Whether and how long to wait before repeating a request that got `response`.
fn retry_wait(response: &Response, attempt: u32) -> Option<RetryReason> {
    let retry_after = response
        .header("retry-after")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_secs);
    let exhausted = response.header("x-ratelimit-remaining") == Some("0");
    let reset_wait = response
        .header("x-ratelimit-reset")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(|reset| {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            Duration::from_secs(reset.saturating_sub(now) + 1)
        });
    let message = response.message().to_ascii_lowercase();
    let secondary = message.contains("secondary rate limit");
    let limited = secondary || message.contains("rate limit exceeded");
    match response.status {
        403 | 429 if retry_after.is_some() || limited || exhausted || response.status == 429 => {
            // GitHub's guidance: retry-after if given; else the reset time when the quota
            // is exhausted; else at least a minute for secondary limits.
            let wait = retry_after
                .or(if exhausted { reset_wait } else { None })
                .unwrap_or(if secondary {
                    Duration::from_secs(60)
                } else {
                    backoff(attempt)
                });
            Some(RetryReason::Refused(wait))
        }
        500 | 502 | 503 | 504 => Some(RetryReason::Ambiguous(
            retry_after.unwrap_or_else(|| backoff(attempt)),
        )),
        _ => None,
    }
}

/// The `rel="next"` URL of a `Link` header.
pub(crate) fn next_link(header: &str) -> Option<String> {
    header.split(',').find_map(|part| {
        let (url, params) = part.split_once(';')?;
        let is_next = params
            .split(';')
            .any(|p| p.trim().replace(' ', "") == "rel=\"next\"");
        is_next.then(|| {
            url.trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .to_string()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_links() {
        let header = r#"<https://api.github.com/repositories/1/issues/2/comments?per_page=100&page=2>; rel="next", <https://api.github.com/repositories/1/issues/2/comments?per_page=100&page=3>; rel="last""#;
        assert_eq!(
            next_link(header).as_deref(),
            Some("https://api.github.com/repositories/1/issues/2/comments?per_page=100&page=2")
        );
        assert_eq!(next_link(r#"<https://x/y?page=1>; rel="prev""#), None);
    }

    fn response(status: u16, headers: &[(&str, &str)], body: &str) -> Response {
        let mut map = HeaderMap::new();
        for (k, v) in headers {
            map.insert(
                http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        Response {
            status,
            headers: map,
            body: body.to_string(),
        }
    }

    #[test]
    fn rate_limits_are_refusals_and_5xx_ambiguous() {
        let limited = response(
            403,
            &[("retry-after", "7")],
            r#"{"message":"You have exceeded a secondary rate limit."}"#,
        );
        assert!(
            matches!(retry_wait(&limited, 1), Some(RetryReason::Refused(d)) if d == Duration::from_secs(7))
        );
        let secondary = response(
            403,
            &[],
            r#"{"message":"You have exceeded a secondary rate limit."}"#,
        );
        assert!(
            matches!(retry_wait(&secondary, 1), Some(RetryReason::Refused(d)) if d == Duration::from_secs(60))
        );
        assert!(
            matches!(retry_wait(&response(502, &[], ""), 2), Some(RetryReason::Ambiguous(d)) if d == Duration::from_secs(1))
        );
        let forbidden = response(
            403,
            &[],
            r#"{"message":"Resource not accessible by integration"}"#,
        );
        assert!(retry_wait(&forbidden, 1).is_none());
        assert!(retry_wait(&response(422, &[], "{}"), 1).is_none());
    }

    // octocrab's client needs a runtime to be built.
    #[tokio::test]
    async fn pagination_links_become_api_paths() {
        let gh = GitHub::new(
            "https://ghe.example/api/v3",
            "https://ghe.example/api/graphql",
            "t",
            Duration::from_secs(120),
        )
        .unwrap();
        assert_eq!(
            gh.link_path("https://ghe.example/api/v3/repositories/1/issues/2/comments?page=3"),
            "/repositories/1/issues/2/comments?page=3"
        );
        let dotcom = GitHub::new(
            "https://api.github.com",
            "https://api.github.com/graphql",
            "t",
            Duration::from_secs(120),
        )
        .unwrap();
        assert_eq!(
            dotcom.link_path("https://api.github.com/x?page=2"),
            "/x?page=2"
        );
    }
}
