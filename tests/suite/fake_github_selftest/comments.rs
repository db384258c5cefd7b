//! Comments: the payload, create, update and delete, authentication, other users' comments,
//! not found and validation errors.

use super::*;

#[tokio::test]
async fn comment_payload_matches_github() {
    let gh = setup(Flavor::Dotcom).await;
    let id = gh.seed_comment("acme", "infra", 7, &User::actions_bot(), "hello");
    gh.seed_comment("acme", "infra", 7, &User::human("alice", 1001), "hi");
    let c = crab(&gh.api_url(), Some(BOT));
    let (_, _, body) = call!(c, c._get("/repos/acme/infra/issues/7/comments"));
    let v: Vec<Value> = serde_json::from_str(&body).unwrap();
    let bot = &v[0];
    assert_eq!(bot["id"], id);
    assert_eq!(
        bot["html_url"],
        format!("https://github.com/acme/infra/pull/7#issuecomment-{id}")
    );
    assert_eq!(
        bot["url"],
        format!("{}/repos/acme/infra/issues/comments/{id}", gh.api_url())
    );
    assert_eq!(
        bot["issue_url"],
        format!("{}/repos/acme/infra/issues/7", gh.api_url())
    );
    assert_eq!(bot["created_at"], "2024-05-01T12:00:02Z"); // the PR took the first tick
    assert_eq!(bot["user"]["id"], 41_898_282);
    assert_eq!(
        bot["user"]["html_url"],
        "https://github.com/apps/github-actions"
    );
    assert_eq!(bot["performed_via_github_app"]["slug"], "github-actions");
    assert_eq!(bot["reactions"]["total_count"], 0);
    assert!(v[1]["performed_via_github_app"].is_null());
    assert_eq!(v[1]["user"]["type"], "User");
    assert_eq!(v[1]["user"]["user_view_type"], "public");
    let typed: GhComment = serde_json::from_value(v[1].clone()).expect("typed");
    assert_eq!(typed.body.as_deref(), Some("hi"));
}

#[tokio::test]
async fn create_update_delete() {
    let gh = setup(Flavor::Dotcom).await;
    let c = crab(&gh.api_url(), Some(BOT));
    let (status, h, body) = call!(
        c,
        c._post(
            "/repos/acme/infra/issues/7/comments",
            Some(&json!({"body": "v1"}))
        )
    );
    assert_eq!(status, 201, "{body}");
    let created: GhComment = serde_json::from_str(&body).unwrap();
    assert_eq!(hdr(&h, "location"), created.url.as_str());
    assert_eq!(created.user.login, "github-actions[bot]");
    let id = created.id.0;
    let path = format!("/repos/acme/infra/issues/comments/{id}");

    let (status, _, body) = call!(c, c._patch(path.as_str(), Some(&json!({"body": "v2"}))));
    assert_eq!(status, 200, "{body}");
    let patched: GhComment = serde_json::from_str(&body).unwrap();
    assert!(patched.updated_at.unwrap() > created.updated_at.unwrap());
    // octocrab's own update_comment sends POST; GitHub accepts it.
    let typed = c
        .issues("acme", "infra")
        .update_comment(created.id, "v3")
        .await
        .expect("POST update");
    assert_eq!(typed.body.as_deref(), Some("v3"));
    assert_eq!(gh.comments("acme", "infra", 7)[0].body, "v3");
    let (status, _, body) = call!(c, c._get(path.as_str()));
    assert_eq!(
        (
            status,
            serde_json::from_str::<Value>(&body).unwrap()["body"].clone()
        ),
        (200, json!("v3"))
    );

    let (status, h, body) = call!(c, c._delete(path.as_str(), None::<&()>));
    assert_eq!((status, body.as_str()), (204, ""));
    assert_eq!(hdr(&h, "content-type"), "");
    assert!(gh.comments("acme", "infra", 7).is_empty());
    let (status, _, _) = call!(c, c._get(path.as_str()));
    assert_eq!(status, 404);

    // Typed create through octocrab works too.
    let made = c
        .issues("acme", "infra")
        .create_comment(7, "typed")
        .await
        .expect("create");
    assert_eq!(gh.comments("acme", "infra", 7)[0].id, made.id.0);
}

#[tokio::test]
async fn authentication() {
    let gh = setup(Flavor::Dotcom).await;
    let api = gh.api_url();
    let anon = crab(&api, None);
    let (status, _, body) = call!(anon, anon._get("/repos/acme/infra/issues/7/comments"));
    assert_eq!(status, 401);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["message"],
        "Requires authentication"
    );
    let bad = crab(&api, Some("ghp_nope"));
    let (status, _, body) = call!(bad, bad._get("/repos/acme/infra/issues/7/comments"));
    assert_eq!(status, 401);
    let want = json!({"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest", "status": "401"});
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap(), want);

    let bot = crab(&api, Some(BOT));
    let (status, _, body) = call!(bot, bot._get("/user"));
    assert_eq!(status, 403);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["message"],
        "Resource not accessible by integration"
    );
    let alice = crab(&api, Some(ALICE));
    let me = alice.current().user().await.expect("typed GET /user");
    assert_eq!((me.login.as_str(), me.id.0), ("alice", 1001));

    // `token X` works as well as `Bearer X`.
    let legacy = Octocrab::builder()
        .base_uri(api.as_str())
        .unwrap()
        .build()
        .unwrap();
    let mut headers = http::HeaderMap::new();
    headers.insert("authorization", format!("token {ALICE}").parse().unwrap());
    let (status, _, _) = call!(legacy, legacy._get_with_headers("/user", Some(headers)));
    assert_eq!(status, 200);
}

#[tokio::test]
async fn others_comments_are_forbidden() {
    let gh = setup(Flavor::Dotcom).await;
    let id = gh.seed_comment("acme", "infra", 7, &User::human("bob", 1002), "bob's");
    let path = format!("/repos/acme/infra/issues/comments/{id}");
    let api = gh.api_url();
    let body = json!({"body": "hijack"});
    for (token, message) in [
        (BOT, "Resource not accessible by integration"),
        (ALICE, "Must have admin rights to Repository."),
    ] {
        let c = crab(&api, Some(token));
        let (status, _, text) = call!(c, c._patch(path.as_str(), Some(&body)));
        assert_eq!(
            (
                status,
                serde_json::from_str::<Value>(&text).unwrap()["message"].clone()
            ),
            (403, json!(message))
        );
        let (status, _, _) = call!(c, c._delete(path.as_str(), None::<&()>));
        assert_eq!(status, 403);
    }
    assert_eq!(gh.comments("acme", "infra", 7)[0].body, "bob's");
    // The repository owner (admin) may edit it.
    let owner = crab(&api, Some(OWNER));
    let (status, _, _) = call!(owner, owner._patch(path.as_str(), Some(&body)));
    assert_eq!(status, 200);

    // A fork PR's read-only token may read but not write.
    gh.add_read_only_token("ghs_fork", User::actions_bot());
    let fork = crab(&api, Some("ghs_fork"));
    let (status, _, _) = call!(fork, fork._get("/repos/acme/infra/issues/7/comments"));
    assert_eq!(status, 200);
    let (status, _, _) = call!(
        fork,
        fork._post(
            "/repos/acme/infra/issues/7/comments",
            Some(&json!({"body": "x"}))
        )
    );
    assert_eq!(status, 403);
}

#[tokio::test]
async fn not_found_and_validation() {
    let gh = setup(Flavor::Dotcom).await;
    let c = crab(&gh.api_url(), Some(BOT));
    let (status, _, body) = call!(c, c._get("/repos/acme/infra/issues/999/comments"));
    assert_eq!(status, 404);
    let want = json!({"message": "Not Found", "documentation_url": "https://docs.github.com/rest/issues/comments#list-issue-comments", "status": "404"});
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap(), want);
    for path in [
        "/repos/acme/other/issues/7/comments",
        "/repos/acme/infra/issues/999/comments",
    ] {
        let (status, _, _) = call!(c, c._post(path, Some(&json!({"body": "x"}))));
        assert_eq!(status, 404, "{path}");
    }
    let (status, _, _) = call!(
        c,
        c._patch(
            "/repos/acme/infra/issues/comments/12345",
            Some(&json!({"body": "x"}))
        )
    );
    assert_eq!(status, 404);
    let (status, _, _) = call!(c, c._get("/repos/acme/infra/nonsense"));
    assert_eq!(status, 404);
    // Owner and repository names are case-insensitive, as on GitHub.
    let (status, _, _) = call!(c, c._get("/repos/ACME/Infra/issues/7/comments"));
    assert_eq!(status, 200);

    // Exactly 65,536 characters (131,072 bytes) is accepted; one more is not.
    let at_limit = "é".repeat(MAX_BODY_CHARS);
    let (status, _, _) = call!(
        c,
        c._post(
            "/repos/acme/infra/issues/7/comments",
            Some(&json!({"body": at_limit}))
        )
    );
    assert_eq!(status, 201);
    let too_long = "x".repeat(MAX_BODY_CHARS + 1);
    let (status, _, body) = call!(
        c,
        c._post(
            "/repos/acme/infra/issues/7/comments",
            Some(&json!({"body": too_long}))
        )
    );
    assert_eq!(status, 422);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["message"], "Validation Failed");
    assert_eq!(
        v["errors"][0]["message"],
        "Body is too long (maximum is 65536 characters)"
    );
    assert_eq!(v["errors"][0]["field"], "data");
    let id = gh.comments("acme", "infra", 7)[0].id;
    let (status, _, body) = call!(
        c,
        c._patch(
            format!("/repos/acme/infra/issues/comments/{id}").as_str(),
            Some(&json!({"body": too_long}))
        )
    );
    assert_eq!(status, 422);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["errors"][0]["message"],
        "body is too long (maximum is 65536 characters)"
    );
    let (status, _, _) = call!(
        c,
        c._post(
            "/repos/acme/infra/issues/7/comments",
            Some(&json!({"text": "x"}))
        )
    );
    assert_eq!(status, 422);
    // The typed client surfaces the 422 as Error::GitHub.
    let err = c
        .issues("acme", "infra")
        .create_comment(7, &too_long)
        .await
        .unwrap_err();
    match err {
        octocrab::Error::GitHub { source, .. } => assert_eq!(source.status_code.as_u16(), 422),
        other => panic!("expected Error::GitHub, got {other:?}"),
    }
    assert_eq!(gh.comments("acme", "infra", 7).len(), 1);
}
