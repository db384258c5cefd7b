//! Listing comments page by page, as GitHub and GHES link them.

use super::*;

async fn paginate(flavor: Flavor) {
    let gh = setup(flavor).await;
    let alice = User::human("alice", 1001);
    let seeded: Vec<u64> = (0..250)
        .map(|i| {
            let who = if i % 2 == 0 {
                User::actions_bot()
            } else {
                alice.clone()
            };
            gh.seed_comment("acme", "infra", 7, &who, &format!("comment {i}"))
        })
        .collect();
    let api = gh.api_url();
    let c = crab(&api, Some(BOT));

    let mut next = Some("/repos/acme/infra/issues/7/comments?per_page=100".to_owned());
    let mut got = Vec::new();
    let mut pages = 0;
    while let Some(path) = next.take() {
        pages += 1;
        let (status, h, body) = call!(c, c._get(path.as_str()));
        assert_eq!(status, 200, "{body}");
        assert_eq!(hdr(&h, "content-type"), "application/json; charset=utf-8");
        assert!(!hdr(&h, "x-github-request-id").is_empty());
        assert_eq!(hdr(&h, "x-ratelimit-limit"), "1000");
        assert_eq!(hdr(&h, "x-ratelimit-resource"), "core");
        let page: Vec<GhComment> = serde_json::from_str(&body).expect("octocrab Comment model");
        got.extend(page.iter().map(|c| c.id.0));
        let l = links(hdr(&h, "link"));
        for (_, url) in &l {
            assert!(url.starts_with(&format!("{api}/")), "{url} not on {api}");
            assert!(url.contains("per_page=100&page="), "{url}");
        }
        let rels: Vec<&str> = l.iter().map(|(r, _)| r.as_str()).collect();
        match pages {
            1 => assert_eq!(rels, ["next", "last"]),
            2 => assert_eq!(rels, ["prev", "next", "last", "first"]),
            _ => assert_eq!(rels, ["prev", "first"]),
        }
        if pages == 1 {
            assert!(rel(&l, "last").unwrap().ends_with("page=3"));
        }
        // Follow `next` by stripping the API base: octocrab prepends its base path.
        next = rel(&l, "next").map(|u| u.strip_prefix(&api).unwrap().to_owned());
    }
    assert_eq!(pages, 3);
    assert_eq!(got, seeded, "all comments, in creation order");
    let paths: Vec<String> = gh.requests().iter().map(|r| r.path.clone()).collect();
    if flavor == Flavor::Enterprise {
        assert!(paths.iter().all(|p| p.starts_with("/api/v3/")), "{paths:?}");
    }
    assert!(
        paths[1].contains("/repositories/"),
        "GitHub-style next links: {paths:?}"
    );

    // Default 30 per page; per_page is capped at 100; past the end is an empty page.
    let (_, h, body) = call!(c, c._get("/repos/acme/infra/issues/7/comments"));
    assert_eq!(serde_json::from_str::<Vec<Value>>(&body).unwrap().len(), 30);
    assert!(rel(&links(hdr(&h, "link")), "last")
        .unwrap()
        .ends_with("?page=9"));
    let (_, _, body) = call!(
        c,
        c._get("/repos/acme/infra/issues/7/comments?per_page=500")
    );
    assert_eq!(
        serde_json::from_str::<Vec<Value>>(&body).unwrap().len(),
        100
    );
    let (_, _, body) = call!(
        c,
        c._get("/repos/acme/infra/issues/7/comments?per_page=100&page=4")
    );
    assert_eq!(body, "[]");
}

#[tokio::test]
async fn pagination_dotcom() {
    paginate(Flavor::Dotcom).await;
}

#[tokio::test]
async fn pagination_enterprise_keeps_api_v3() {
    paginate(Flavor::Enterprise).await;
}

#[tokio::test]
async fn typed_octocrab_lists_all_pages_on_enterprise() {
    let gh = setup(Flavor::Enterprise).await;
    for i in 0..205 {
        gh.seed_comment("acme", "infra", 7, &User::actions_bot(), &format!("c{i}"));
    }
    let c = crab(&gh.api_url(), Some(BOT));
    let first = c
        .issues("acme", "infra")
        .list_comments(7)
        .per_page(100)
        .send()
        .await
        .expect("first page");
    assert_eq!(first.number_of_pages(), Some(3));
    let all = c.all_pages(first).await.expect("all pages");
    assert_eq!(all.len(), 205);
    assert_eq!(all[0].user.login, "github-actions[bot]");
    assert_eq!(all[0].user.r#type, "Bot");
    assert_eq!(all[0].user.node_id, "MDM6Qm90NDE4OTgyODI=");
    assert!(all[0].node_id.starts_with("IC_kwDO"), "{}", all[0].node_id);
    assert!(all[0].id.0 > i32::MAX as u64);
    assert!(all.windows(2).all(|w| w[0].created_at < w[1].created_at));
}
