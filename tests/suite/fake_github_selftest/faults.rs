//! Scripted faults and timing: rate limits, ambiguous failures, the commit's pulls, the
//! request log, delayed lists.

use super::*;

#[tokio::test]
async fn scripted_rate_limits_then_success() {
    let gh = setup(Flavor::Dotcom).await;
    gh.fail_next(Route::CreateComment, Failure::secondary_rate_limit(7));
    gh.fail_next(Route::CreateComment, Failure::rate_limited_429(3));
    gh.fail_next(
        Route::ListComments,
        Failure::primary_rate_limit(1_900_000_000),
    );
    let c = crab(&gh.api_url(), Some(BOT));
    let body = json!({"body": "x"});
    let post = || c._post("/repos/acme/infra/issues/7/comments", Some(&body));
    let (status, h, body) = call!(c, post());
    assert_eq!((status, hdr(&h, "retry-after")), (403, "7"));
    assert!(serde_json::from_str::<Value>(&body).unwrap()["message"]
        .as_str()
        .unwrap()
        .contains("secondary rate limit"));
    assert_ne!(hdr(&h, "x-ratelimit-remaining"), "0");
    let (status, h, _) = call!(c, post());
    assert_eq!((status, hdr(&h, "retry-after")), (429, "3"));
    let (status, _, _) = call!(c, post());
    assert_eq!(status, 201);
    assert_eq!(gh.comments("acme", "infra", 7).len(), 1);

    let (status, h, _) = call!(c, c._get("/repos/acme/infra/issues/7/comments"));
    assert_eq!(
        (
            status,
            hdr(&h, "x-ratelimit-remaining"),
            hdr(&h, "x-ratelimit-reset")
        ),
        (403, "0", "1900000000")
    );
    let (status, _, _) = call!(c, c._get("/repos/acme/infra/issues/7/comments"));
    assert_eq!(status, 200);
}

#[tokio::test]
async fn apply_then_status_is_an_ambiguous_failure() {
    let gh = setup(Flavor::Dotcom).await;
    gh.fail_next(
        Route::CreateComment,
        Failure::ApplyThenStatus { status: 502 },
    );
    gh.fail_next(Route::UpdateComment, Failure::bad_gateway());
    let c = crab(&gh.api_url(), Some(BOT));
    let (status, h, body) = call!(
        c,
        c._post(
            "/repos/acme/infra/issues/7/comments",
            Some(&json!({"body": "once"}))
        )
    );
    assert_eq!(status, 502);
    assert!(hdr(&h, "content-type").starts_with("text/html") && body.contains("502"));
    let stored = gh.comments("acme", "infra", 7);
    assert_eq!(stored.len(), 1, "the write happened despite the 502");
    assert_eq!(
        (stored[0].user_login.as_str(), stored[0].user_id),
        ("github-actions[bot]", 41_898_282)
    );
    assert_eq!(gh.requests()[0].status, Some(502));
    // A plain Status fault does not apply the write.
    let path = format!("/repos/acme/infra/issues/comments/{}", stored[0].id);
    let (status, _, _) = call!(c, c._patch(path.as_str(), Some(&json!({"body": "twice"}))));
    assert_eq!(status, 502);
    assert_eq!(gh.comments("acme", "infra", 7)[0].body, "once");
    gh.fail_next(Route::DeleteComment, Failure::server_error());
    let (status, _, body) = call!(c, c._delete(path.as_str(), None::<&()>));
    assert_eq!(
        (status, body.as_str()),
        (500, r#"{"message":"Server Error"}"#)
    );
}

#[tokio::test]
async fn commit_pulls_open_first() {
    let gh = setup(Flavor::Dotcom).await;
    gh.add_pull("acme", "infra", 3, "abc123", "old", "closed");
    let c = crab(&gh.api_url(), Some(BOT));
    let prs = c
        .commits("acme", "infra")
        .associated_pull_requests(octocrab::commits::PullRequestTarget::Sha("abc123".into()))
        .send()
        .await
        .expect("typed PullRequest list");
    let got: Vec<(u64, String)> = prs
        .items
        .iter()
        .map(|p| (p.number, p.head.ref_field.clone()))
        .collect();
    assert_eq!(got, [(7, "feature/x".to_owned()), (3, "old".to_owned())]);
    let (_, _, body) = call!(c, c._get("/repos/acme/infra/commits/ffff/pulls"));
    assert_eq!(body, "[]");
    let pr = c.pulls("acme", "infra").get(7).await.expect("typed PR");
    assert_eq!(pr.head.sha, "abc123");
}

#[tokio::test]
async fn request_log_records_everything() {
    let gh = setup(Flavor::Enterprise).await;
    gh.fail_next(Route::CreateComment, Failure::server_error());
    let c = crab(&gh.api_url(), Some(BOT));
    for _ in 0..2 {
        let _ = c
            ._post(
                "/repos/acme/infra/issues/7/comments",
                Some(&json!({"body": "b"})),
            )
            .await;
    }
    let _ = c
        ._get("/repos/acme/infra/issues/7/comments?per_page=100")
        .await;
    let _ = c._get("/nowhere").await;
    let log = gh.requests();
    assert_eq!(log.len(), 4);
    let posts = log
        .iter()
        .filter(|r| r.method == "POST" && r.route == Some(Route::CreateComment))
        .count();
    assert_eq!(posts, 2, "faulted requests are recorded too");
    assert_eq!(log[2].query, "per_page=100");
    assert_eq!(log[2].path, "/api/v3/repos/acme/infra/issues/7/comments");
    assert_eq!(log[3].route, None);
    let statuses: Vec<Option<u16>> = log.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [Some(500), Some(201), Some(200), Some(404)]);
    assert_eq!(log[0].body, r#"{"body":"b"}"#);
    for r in &log {
        assert_eq!(
            r.header("authorization"),
            Some(format!("Bearer {BOT}").as_str())
        );
        assert!(!r.body.contains(BOT) && !r.query.contains(BOT) && !r.path.contains(BOT));
    }
    let users: Vec<UserKind> = vec![User::actions_bot().kind, User::human("x", 1).kind];
    assert_eq!(users, [UserKind::Bot, UserKind::User]);
    gh.clear_requests();
    assert!(gh.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_delayed_list_shows_the_comments_as_they_were_when_it_arrived() {
    let gh = setup(Flavor::Dotcom).await;
    gh.delay(Route::ListComments, std::time::Duration::from_millis(400));
    let c = crab(&gh.api_url(), Some(BOT));
    let path = "/repos/acme/infra/issues/7/comments?per_page=100";
    let started = std::time::Instant::now();
    let (list, created) = tokio::join!(c._get(path), async {
        // The create arrives while the list is held back, and is not held back itself.
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let created = c
            ._post(
                "/repos/acme/infra/issues/7/comments",
                Some(&json!({"body": "b"})),
            )
            .await;
        (created, started.elapsed())
    });
    let (created, created_after) = created;
    assert_eq!(created.unwrap().status(), 201);
    assert!(created_after < std::time::Duration::from_millis(350));
    let list = c.body_to_string(list.unwrap()).await.unwrap();
    assert_eq!(list, "[]", "the list was made when it arrived");
    assert!(started.elapsed() >= std::time::Duration::from_millis(400));
    assert_eq!(gh.comments("acme", "infra", 7).len(), 1);
}
