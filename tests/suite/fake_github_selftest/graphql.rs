//! GraphQL: the viewer and minimizing comments, on github.com and GHES.

use super::*;

async fn graphql(flavor: Flavor) {
    let gh = setup(flavor).await;
    let id = gh.seed_comment("acme", "infra", 7, &User::actions_bot(), "old plan");
    let node = gh.comments("acme", "infra", 7)[0].node_id.clone();
    let gql_base = gh
        .graphql_url()
        .strip_suffix("/graphql")
        .unwrap()
        .to_owned();
    match flavor {
        Flavor::Dotcom => assert_eq!(gql_base, gh.api_url()),
        Flavor::Enterprise => assert_eq!(format!("{gql_base}/v3"), gh.api_url()),
    }
    let g = crab(&gql_base, Some(BOT));
    let viewer: Value = g
        .graphql(&json!({"query": "query { viewer { login databaseId } }"}))
        .await
        .expect("viewer");
    assert_eq!(
        viewer,
        json!({"viewer": {"login": "github-actions[bot]", "databaseId": 41_898_282}})
    );

    let mutation = "mutation($id: ID!) { minimizeComment(input: {subjectId: $id, classifier: OUTDATED}) { minimizedComment { isMinimized minimizedReason } } }";
    let res: Value = g
        .graphql(&json!({"query": mutation, "variables": {"id": node}}))
        .await
        .expect("minimize");
    assert_eq!(
        res["minimizeComment"]["minimizedComment"],
        json!({"isMinimized": true, "minimizedReason": "outdated"})
    );
    let stored = &gh.comments("acme", "infra", 7)[0];
    assert!(stored.minimized && stored.id == id);
    // Minimized comments are still listed by REST.
    let rest = crab(&gh.api_url(), Some(BOT));
    let (_, _, body) = call!(rest, rest._get("/repos/acme/infra/issues/7/comments"));
    assert_eq!(serde_json::from_str::<Vec<Value>>(&body).unwrap().len(), 1);

    // Unknown node: HTTP 200 with `errors`, which octocrab turns into Error::Graphql.
    let inline = "mutation { minimizeComment(input: {subjectId: \"IC_nope\", classifier: OUTDATED}) { minimizedComment { isMinimized } } }";
    let (status, h, body) = call!(g, g._post("/graphql", Some(&json!({"query": inline}))));
    assert_eq!(status, 200);
    assert_eq!(hdr(&h, "x-ratelimit-resource"), "graphql");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert!(v["data"]["minimizeComment"].is_null());
    assert_eq!(v["errors"][0]["type"], "NOT_FOUND");
    assert_eq!(
        v["errors"][0]["message"],
        "Could not resolve to a node with the global id of 'IC_nope'."
    );
    let err = g
        .graphql::<Value>(&json!({"query": inline}))
        .await
        .unwrap_err();
    assert!(matches!(err, octocrab::Error::Graphql { .. }), "{err:?}");

    // GHES pitfall: octocrab's graphql() on the REST base posts to /api/v3/graphql, a 404.
    if flavor == Flavor::Enterprise {
        let wrong = crab(&gh.api_url(), Some(BOT));
        let (status, _, _) = call!(
            wrong,
            wrong._post("/graphql", Some(&json!({"query": "{ viewer { login } }"})))
        );
        assert_eq!(status, 404);
    }
    let paths: Vec<String> = gh
        .requests()
        .iter()
        .filter(|r| r.route == Some(Route::GraphQl))
        .map(|r| r.path.clone())
        .collect();
    let want = if flavor == Flavor::Dotcom {
        "/graphql"
    } else {
        "/api/graphql"
    };
    assert!(
        paths.len() >= 4 && paths.iter().all(|p| p == want),
        "{paths:?}"
    );
}

#[tokio::test]
async fn graphql_dotcom() {
    graphql(Flavor::Dotcom).await;
}

#[tokio::test]
async fn graphql_enterprise() {
    graphql(Flavor::Enterprise).await;
}
