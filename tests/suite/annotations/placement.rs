//! One annotation per destroy, replacement, Rego finding, broken gate and failed check,
//! each at the block that declares it (file relative to the repository's root, line of
//! the block's keyword); at most ten of a level, the rest counted in the tenth.

use super::*;

/// The case's plan with a `checks` list (Terraform 1.5's form): the check of
/// `null_resource.root`'s conditions failed; `output.url`'s, declared nowhere, errs.
fn plan_with_checks(temp: &TempDir) -> PathBuf {
    let text = std::fs::read_to_string(case().join("plan.json")).unwrap();
    let mut plan: serde_json::Value = serde_json::from_str(&text).unwrap();
    plan["checks"] = serde_json::json!([
        {
            "address": {"kind": "resource", "mode": "managed", "type": "null_resource",
                        "name": "root", "to_display": "null_resource.root"},
            "status": "fail",
            "instances": [{
                "address": {"to_display": "null_resource.root[0]", "index_key": 0},
                "status": "fail",
                "problems": [{"message": "root must not be replaced"}]
            }]
        },
        {
            "address": {"kind": "output_value", "name": "url", "to_display": "output.url"},
            "status": "error",
            "instances": [{
                "address": {"to_display": "output.url"},
                "status": "error",
                "problems": [{"message": "url is not https"}]
            }]
        }
    ]);
    let path = temp.join("plan.json");
    std::fs::write(&path, plan.to_string()).unwrap();
    path
}

#[test]
fn each_item_has_one_annotation_at_its_block() {
    let temp = TempDir::new("annotations-placement");
    let plan = plan_with_checks(&temp);
    let policy = case().join("policy");
    let ran = in_actions(
        &[
            "render",
            "--policy",
            policy.to_str().unwrap(),
            "--max-destroy",
            "5",
            "--protect",
            "null_resource.root",
            plan.to_str().unwrap(),
        ],
        Stdout::Pipe,
    );
    // The gates are broken: exit 3 once everything is printed.
    assert_eq!(ran.code, Some(3), "{}", ran.describe());
    let root = line_of("infra/main.tf", "resource \"null_resource\" \"root\"");
    let app = line_of(
        "infra/modules/app/main.tf",
        "resource \"null_resource\" \"app\"",
    );
    let db = line_of(
        "infra/modules/db/db.tf",
        "resource \"null_resource\" \"db\"",
    );
    fn at(p: &(String, usize)) -> Option<(&str, usize)> {
        Some((p.0.as_str(), p.1))
    }
    let green_db =
        |key: &str| format!("module.app[\"green\"].module.db.null_resource.db[\"{key}\"]");
    let green_app = "module.app[\"green\"].null_resource.app";
    let mut expected = Vec::new();
    // Each destroy and replacement: a warning; `null_resource.gone`'s block was deleted.
    for (address, place) in [
        (green_db("primary"), at(&db)),
        (green_db("replica"), at(&db)),
        (green_app.to_string(), at(&app)),
        ("null_resource.gone".to_string(), None),
    ] {
        let message = format!("{address} will be destroyed");
        expected.push(Seen::new("warning", place, "planmark: destroy", &message));
        // The policy's error on each, naming its resource.
        let message = format!("{address}: destroyed without a replacement");
        expected.push(Seen::new(
            "error",
            place,
            "planmark: policy main.deny",
            &message,
        ));
    }
    for address in ["null_resource.root[0]", "null_resource.root[1]"] {
        let message = format!("{address} will be replaced");
        expected.push(Seen::new(
            "warning",
            at(&root),
            "planmark: replace",
            &message,
        ));
        let message = format!("{address}: replaced");
        expected.push(Seen::new(
            "warning",
            at(&root),
            "planmark: policy main.warn",
            &message,
        ));
        let message =
            format!("{address} is replaced but is protected (--protect null_resource.root)");
        let title = "planmark: --protect null_resource.root";
        expected.push(Seen::new("error", at(&root), title, &message));
    }
    expected.extend([
        Seen::new(
            "error",
            None,
            "planmark: policy main.deny",
            "the plan destroys something",
        ),
        Seen::new(
            "error",
            None,
            "planmark: --max-destroy 5",
            "6 objects are destroyed (replacements included), more than 5 (--max-destroy 5)",
        ),
        Seen::new(
            "error",
            at(&root),
            "planmark: check failed",
            "the check of null_resource.root failed: root must not be replaced",
        ),
        Seen::new(
            "error",
            None,
            "planmark: check could not be evaluated",
            "the check of output.url could not be evaluated: url is not https",
        ),
    ]);
    expected.sort();
    // Ten errors: as many as GitHub shows, so no summary.
    assert_eq!(expected.iter().filter(|s| s.level == "error").count(), 10);
    assert_eq!(annotations(&ran.stdout), expected, "{}", ran.describe());
}

#[test]
fn over_ten_of_a_level_are_nine_and_one_summary() {
    // A real plan replacing 40 `count` instances; `--fail-on destroy` breaks once each.
    let plan =
        crate_dir().join("tests/fixtures/rego_comment/same-warning-on-40-instances/plan.json");
    let ran = planmark(
        &["render", "--fail-on", "destroy", plan.to_str().unwrap()],
        &[("GITHUB_ACTIONS", "true")],
        Stdout::Pipe,
    );
    assert_eq!(ran.code, Some(3), "{}", ran.describe());
    let reading = workflow_commands::read(&ran.stdout);
    annotations(&ran.stdout);
    for (level, what, item) in [
        ("warning", "warnings", "planmark: replace"),
        ("error", "errors", "planmark: --fail-on destroy"),
    ] {
        let shown: Vec<&WorkflowCommand> = (reading.annotations().into_iter())
            .filter(|c| c.name == level)
            .collect();
        assert_eq!(shown.len(), 10, "{level}s:\n{}", ran.stdout);
        let mut addresses: Vec<&str> = shown[..9]
            .iter()
            .map(|c| {
                assert_eq!(c.property("title"), Some(item), "{c:?}");
                c.message.split(' ').next().unwrap()
            })
            .collect();
        addresses.sort_unstable();
        addresses.dedup();
        assert_eq!(addresses.len(), 9, "nine different changes: {addresses:?}");
        assert!(addresses
            .iter()
            .all(|a| a.starts_with("null_resource.web[")));
        let summary = shown[9];
        assert_eq!(
            summary.property("title"),
            Some(format!("planmark: 31 more {what}").as_str())
        );
        assert_eq!(summary.property("file"), None);
        assert!(
            summary.message.starts_with(&format!("31 more {what} ")),
            "{summary:?}"
        );
    }
}

#[test]
fn findings_are_placed_from_the_configuration_run_in() {
    // The links' real plan of a root, a local and a nested local module, run from its
    // configuration's directory (a sub-directory of the checkout) without --config-dir.
    let fixture = crate_dir().join("tests/fixtures/links/root_local_nested");
    let (repo, infra) = (fixture.join("repo"), fixture.join("repo/infra"));
    let temp = TempDir::new("annotations-links");
    let policy = temp.join("created.rego");
    std::fs::write(
        &policy,
        "package main\n\nimport rego.v1\n\n\
         warn contains {\"msg\": \"created\", \"resource\": rc.address} if {\n\
         \tsome rc in input.resource_changes\n\trc.change.actions == [\"create\"]\n}\n",
    )
    .unwrap();
    let plan = fixture.join("plan.json");
    let args = [
        "render",
        "--policy",
        policy.to_str().unwrap(),
        "--commit",
        COMMIT,
        plan.to_str().unwrap(),
    ];
    let env = actions_env(&repo);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let ran = planmark_in(&infra, &args, &env, Stdout::Pipe);
    assert_eq!(ran.code, Some(0), "{}", ran.describe());
    // What to expect is read from the plan itself: each change's block is found in the
    // module its address is in, the destroyed one's block is gone.
    let block = |module: Option<&str>, name: &str| {
        let file = match module {
            None => "infra/main.tf",
            Some(m) if m.ends_with(".module.db") => "infra/modules/db/db.tf",
            Some(_) => "infra/modules/app/main.tf",
        };
        let text = std::fs::read_to_string(repo.join(file)).unwrap();
        let start = format!("resource \"null_resource\" \"{name}\"");
        let line = text.lines().position(|l| l.starts_with(&start))?;
        Some((file.to_string(), line + 1))
    };
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&plan).unwrap()).unwrap();
    let mut expected = Vec::new();
    let mut counts = [0; 3];
    for rc in doc["resource_changes"].as_array().unwrap() {
        let address = rc["address"].as_str().unwrap();
        let place = block(rc["module_address"].as_str(), rc["name"].as_str().unwrap());
        let place = place.as_ref().map(|(f, l)| (f.as_str(), *l));
        let actions: Vec<&str> = (rc["change"]["actions"].as_array().unwrap().iter())
            .map(|a| a.as_str().unwrap())
            .collect();
        let (title, message) = match actions.as_slice() {
            ["create"] => {
                counts[0] += 1;
                (
                    "planmark: policy main.warn".to_string(),
                    format!("{address}: created"),
                )
            }
            ["delete"] => {
                counts[1] += 1;
                assert_eq!(place, None, "{address}: its block was deleted");
                (
                    "planmark: destroy".into(),
                    format!("{address} will be destroyed"),
                )
            }
            ["delete", "create"] | ["create", "delete"] => {
                counts[2] += 1;
                assert!(place.is_some(), "{address}: its block is there");
                (
                    "planmark: replace".into(),
                    format!("{address} will be replaced"),
                )
            }
            _ => continue,
        };
        expected.push(Seen::new("warning", place, &title, &message));
    }
    assert!(
        counts.iter().all(|n| *n > 0),
        "creates, a destroy and replacements: {counts:?}"
    );
    expected.sort();
    assert_eq!(annotations(&ran.stdout), expected, "{}", ran.describe());
}
