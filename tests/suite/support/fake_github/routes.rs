//! The fake's routes: each REST call and GraphQL query answered from the state.

use super::*;

impl State {
    pub(super) fn dispatch(
        &mut self,
        call: Option<Call>,
        token: Option<String>,
        req: &Request,
        query: &str,
    ) -> ResponseTemplate {
        let Some(Call {
            route,
            repo: key,
            num,
            sha,
        }) = call
        else {
            return self.err(404, "Not Found", DOC_REST);
        };
        let doc = route.doc();
        let who = match token.as_ref().map(|t| self.tokens.get(t)) {
            None if route == Route::GraphQl => {
                let v = json!({"message": "This endpoint requires you to be authenticated.",
                    "documentation_url": "https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql"});
                return self.json(401, v, &[]);
            }
            None => return self.err(401, "Requires authentication", &doc),
            Some(None) => return self.err(401, "Bad credentials", DOC_REST),
            Some(Some(t)) => t.clone(),
        };
        let (user, read_only) = (&who.0, who.1);
        match route {
            Route::GraphQl => return self.graphql(&who, &req.body),
            Route::GetUser if user.kind == UserKind::Bot => {
                return self.err(403, INTEGRATION, &doc)
            }
            Route::GetUser => {
                let mut u = self.user_json(user);
                let more = json!({"name": user.login, "company": null, "blog": "", "location": null, "email": null,
                    "hireable": null, "bio": null, "twitter_username": null, "public_repos": 3, "public_gists": 0,
                    "followers": 1, "following": 0, "created_at": "2015-03-04T05:06:07Z", "updated_at": rfc3339(self.clock)});
                u.as_object_mut()
                    .unwrap()
                    .extend(more.as_object().unwrap().clone());
                return self.json(200, u, &[]);
            }
            _ => {}
        }
        let Some(repo) = key.and_then(|k| self.find_repo(&k).cloned()) else {
            return self.err(404, "Not Found", &doc);
        };
        let writes = matches!(
            route,
            Route::CreateComment
                | Route::UpdateComment
                | Route::DeleteComment
                | Route::AddLabels
                | Route::RemoveLabel
        );
        let on_issue = matches!(
            route,
            Route::ListComments
                | Route::CreateComment
                | Route::ListLabels
                | Route::AddLabels
                | Route::RemoveLabel
        );
        match route {
            _ if on_issue && !self.has_pull(repo.id, num) => self.err(404, "Not Found", &doc),
            _ if writes && read_only => self.err(403, INTEGRATION, &doc),
            Route::ListLabels => self.json(200, self.labels_json(&repo, num), &[]),
            Route::AddLabels => {
                let v: Option<Value> = serde_json::from_slice(&req.body).ok();
                let Some(v) = v else {
                    return self.err(400, "Problems parsing JSON", &doc);
                };
                let names: Option<Vec<String>> = v
                    .get("labels")
                    .and_then(Value::as_array)
                    .and_then(|a| a.iter().map(|n| n.as_str().map(str::to_owned)).collect());
                let Some(names) = names.filter(|n| !n.is_empty()) else {
                    let msg = "Invalid request.\n\nNo subschema in \"anyOf\" matched.";
                    return self.err(422, msg, &doc);
                };
                for name in names {
                    self.label_issue(repo.id, num, &name);
                }
                self.json(200, self.labels_json(&repo, num), &[])
            }
            Route::RemoveLabel => {
                let on = self.issue_labels.entry((repo.id, num)).or_default();
                let Some(i) = on.iter().position(|n| n.eq_ignore_ascii_case(&sha)) else {
                    return self.err(404, "Label does not exist", &doc);
                };
                on.remove(i);
                self.json(200, self.labels_json(&repo, num), &[])
            }
            Route::ListComments => self.list(&repo, num, query),
            Route::CreateComment => match self.body_of(&req.body, &doc, true) {
                Err(r) => *r,
                Ok(body) => {
                    let id = self.insert_comment(repo.id, num, user.clone(), body);
                    let v = self.comment_json(self.comments.last().unwrap());
                    let loc = format!(
                        "{}/repos/{}/{}/issues/comments/{id}",
                        self.api(),
                        repo.owner,
                        repo.name
                    );
                    self.json(201, v, &[("location".into(), loc)])
                }
            },
            Route::GetComment | Route::UpdateComment | Route::DeleteComment => {
                let found = self
                    .comments
                    .iter()
                    .position(|c| c.id == num && c.repo_id == repo.id);
                let Some(i) = found else {
                    return self.err(404, "Not Found", &doc);
                };
                // The author and a human repository admin (the owner) may change it.
                let admin =
                    user.kind == UserKind::User && user.login.eq_ignore_ascii_case(&repo.owner);
                if writes && self.comments[i].user_id != user.id && !admin {
                    let bot = user.kind == UserKind::Bot;
                    let msg = if bot {
                        INTEGRATION
                    } else {
                        "Must have admin rights to Repository."
                    };
                    return self.err(403, msg, &doc);
                }
                if route == Route::DeleteComment {
                    self.comments.remove(i);
                    return self.raw(204, String::new(), &[]);
                }
                if route == Route::UpdateComment {
                    let body = match self.body_of(&req.body, &doc, false) {
                        Ok(body) => body,
                        Err(r) => return *r,
                    };
                    let t = self.tick();
                    let c = &mut self.comments[i];
                    (c.body, c.updated_at) = (body, t);
                }
                self.json(200, self.comment_json(&self.comments[i]), &[])
            }
            Route::GetPull => match self
                .pulls
                .iter()
                .find(|p| p.repo_id == repo.id && p.number == num)
            {
                Some(p) => self.json(200, self.pull_json(&repo, p), &[]),
                None => self.err(404, "Not Found", &doc),
            },
            Route::CommitPulls => {
                let mut prs: Vec<&Pull> = self
                    .pulls
                    .iter()
                    .filter(|p| {
                        let merged_as = p.merged.as_ref().is_some_and(|(m, _)| *m == sha);
                        p.repo_id == repo.id && (p.head_sha == sha || merged_as)
                    })
                    .collect();
                prs.sort_by_key(|p| (p.state != "open", p.number));
                let v: Vec<Value> = prs.iter().map(|p| self.pull_json(&repo, p)).collect();
                self.json(200, Value::Array(v), &[])
            }
            Route::GetUser | Route::GraphQl => unreachable!("handled above"),
        }
    }

    /// `GET …/issues/{n}/comments?per_page=&page=` with GitHub's `Link` header.
    pub(super) fn list(&self, repo: &Repo, n: u64, query: &str) -> ResponseTemplate {
        let pairs = || query.split('&').filter_map(|p| p.split_once('='));
        let param = |name: &str| {
            pairs()
                .find(|(k, _)| *k == name)
                .and_then(|(_, v)| v.parse::<usize>().ok())
        };
        let per_page = param("per_page")
            .filter(|p| *p > 0)
            .map_or(30, |p| p.min(100));
        let page = param("page").filter(|p| *p > 0).unwrap_or(1);
        let all: Vec<&Comment> = self
            .comments
            .iter()
            .filter(|c| c.repo_id == repo.id && c.number == n)
            .collect();
        let last = all.len().div_ceil(per_page).max(1);
        let shown = all.iter().skip((page - 1) * per_page).take(per_page);
        let items: Vec<Value> = shown.map(|c| self.comment_json(c)).collect();
        // Links keep the caller's other parameters and put `page` last, like GitHub.
        let mut kept: String = pairs()
            .filter(|(k, _)| *k != "page")
            .map(|(k, v)| format!("{k}={v}&"))
            .collect();
        kept.insert_str(
            0,
            &format!(
                "{}/repositories/{}/issues/{n}/comments?",
                self.api(),
                repo.id
            ),
        );
        let link = |p: usize, rel: &str| format!("<{kept}page={p}>; rel=\"{rel}\"");
        let mut links = Vec::new();
        if page > 1 {
            links.push(link(page - 1, "prev"));
        }
        if page < last {
            links.push(link(page + 1, "next"));
        }
        if page != last {
            links.push(link(last, "last"));
        }
        if page > 1 {
            links.push(link(1, "first"));
        }
        let extra: Vec<(String, String)> = Some(links.join(", "))
            .filter(|l| !l.is_empty())
            .map(|l| ("link".into(), l))
            .into_iter()
            .collect();
        self.json(200, Value::Array(items), &extra)
    }

    /// The `body` of a create/update request, or GitHub's error for it.
    pub(super) fn body_of(
        &self,
        raw: &[u8],
        doc: &str,
        create: bool,
    ) -> Result<String, Box<ResponseTemplate>> {
        let err = |status, message: &str| Box::new(self.err(status, message, doc));
        let v: Value =
            serde_json::from_slice(raw).map_err(|_| err(400, "Problems parsing JSON"))?;
        let failed = |code: &str, field: &str, message: &str| {
            let e = json!({"resource": "IssueComment", "code": code, "field": field, "message": message});
            let v = json!({"message": "Validation Failed", "errors": [e], "documentation_url": doc, "status": "422"});
            Box::new(self.json(422, v, &[]))
        };
        // GitHub's two wordings: create says "Body …" on field `data`, update "body …".
        let too_long =
            |s: &str| format!("{s} is too long (maximum is {MAX_BODY_CHARS} characters)");
        match v.get("body") {
            None => Err(err(422, "Invalid request.\n\n\"body\" wasn't supplied.")),
            Some(Value::String(s)) if s.chars().count() > MAX_BODY_CHARS => Err(if create {
                failed("unprocessable", "data", &too_long("Body"))
            } else {
                failed("custom", "body", &too_long("body"))
            }),
            Some(Value::String(s)) if s.trim().is_empty() => {
                Err(failed("missing_field", "body", "Body cannot be blank"))
            }
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => {
                let shown = if other.is_null() {
                    "nil".to_owned()
                } else {
                    other.to_string()
                };
                let msg =
                    format!("Invalid request.\n\nFor 'properties/body', {shown} is not a string.");
                Err(err(422, &msg))
            }
        }
    }

    pub(super) fn graphql(&mut self, who: &Token, raw: &[u8]) -> ResponseTemplate {
        let Ok(v) = serde_json::from_slice::<Value>(raw) else {
            return self.err(400, "Problems parsing JSON", &Route::GraphQl.doc());
        };
        let errors = |msg: String| json!({"errors": [{"message": msg, "locations": [{"line": 1, "column": 1}]}]});
        let Some(q) = v.get("query").and_then(Value::as_str) else {
            let e = errors("A query attribute must be specified and must be a string.".into());
            return self.json(200, e, &[]);
        };
        let vars = v.get("variables").cloned().unwrap_or(Value::Null);
        if q.contains("viewer") && !q.contains("minimizeComment") {
            let v = json!({"data": {"viewer": {"login": who.0.login, "databaseId": who.0.id}}});
            return self.json(200, v, &[]);
        }
        if q.contains("nodes(") && !q.contains("minimizeComment") {
            return self.graphql_nodes(q, &vars);
        }
        if !q.contains("minimizeComment") {
            let e = errors(
                "The fake GitHub only answers `viewer`, `nodes` and `minimizeComment`.".into(),
            );
            return self.json(200, e, &[]);
        }
        // Arguments inline, or in an `input: $var` object.
        let arg = |name: &str| {
            gql_arg(q, &vars, name).or_else(|| gql_arg(q, &vars, "input")?.get(name).cloned())
        };
        let text = |name: &str| arg(name).and_then(|s| s.as_str().map(str::to_owned));
        let required = |a: &str, ty: &str| {
            errors(format!("Argument '{a}' on InputObject 'MinimizeCommentInput' is required. Expected type {ty}!"))
        };
        let (Some(subject), Some(classifier)) = (text("subjectId"), text("classifier")) else {
            let e = match text("subjectId") {
                None => required("subjectId", "ID"),
                Some(_) => required("classifier", "ReportedContentClassifiers"),
            };
            return self.json(200, e, &[]);
        };
        if !CLASSIFIERS.split(' ').any(|c| c == classifier) {
            let msg = format!("Argument 'classifier' on InputObject 'MinimizeCommentInput' has an invalid value ({classifier}). Expected type 'ReportedContentClassifiers!'.");
            return self.json(200, errors(msg), &[]);
        }
        let failed = |ty: &str, msg: String| {
            json!({"data": {"minimizeComment": null}, "errors": [{"type": ty,
            "path": ["minimizeComment"], "locations": [{"line": 1, "column": 1}], "message": msg}]})
        };
        let Some(i) = self.comments.iter().position(|c| c.node_id == subject) else {
            let msg = format!("Could not resolve to a node with the global id of '{subject}'.");
            return self.json(200, failed("NOT_FOUND", msg), &[]);
        };
        if who.1 {
            return self.json(200, failed("FORBIDDEN", INTEGRATION.into()), &[]);
        }
        // Anyone with write access may hide any comment (no ownership check).
        let reason = classifier.to_lowercase();
        let c = &mut self.comments[i];
        (c.minimized, c.minimized_reason) = (true, Some(reason.clone()));
        let mut hidden = json!({"isMinimized": true});
        if q.contains("minimizedReason") {
            hidden["minimizedReason"] = json!(reason);
        }
        self.json(
            200,
            json!({"data": {"minimizeComment": {"minimizedComment": hidden}}}),
            &[],
        )
    }

    /// `nodes(ids: [...]) { ... on IssueComment { id isMinimized } }`: as GitHub, a `null`
    /// node plus a `NOT_FOUND` error for each id that resolves to nothing.
    pub(super) fn graphql_nodes(&mut self, q: &str, vars: &Value) -> ResponseTemplate {
        let Some(ids) = gql_arg(q, vars, "ids").and_then(|v| v.as_array().cloned()) else {
            let e = json!({"errors": [{"message": "Field 'nodes' is missing required arguments: ids",
                "locations": [{"line": 1, "column": 1}]}]});
            return self.json(200, e, &[]);
        };
        let mut nodes = Vec::new();
        let mut missing = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let id = id.as_str().unwrap_or_default();
            match self.comments.iter().find(|c| c.node_id == id) {
                Some(c) => nodes.push(json!({"id": c.node_id, "isMinimized": c.minimized})),
                None => {
                    nodes.push(Value::Null);
                    missing.push(json!({"type": "NOT_FOUND", "path": ["nodes", i],
                        "locations": [{"line": 1, "column": 1}],
                        "message": format!("Could not resolve to a node with the global id of '{id}'")}));
                }
            }
        }
        let mut body = json!({"data": {"nodes": nodes}});
        if !missing.is_empty() {
            body["errors"] = json!(missing);
        }
        self.json(200, body, &[])
    }
}
