//! Where the annotations go: on standard output after the pause the runner reads, on
//! standard error when standard output is a file the runner never reads, never into
//! `-o FILE`, and nowhere when turned off or outside Actions.

use super::*;

/// The case's plan.
fn plan() -> String {
    case().join("plan.json").display().to_string()
}

/// The annotations of the case's plan with no policy: its destroys and replacements.
fn destroys_and_replacements() -> Vec<Seen> {
    let root = line_of("infra/main.tf", "resource \"null_resource\" \"root\"");
    let app = line_of(
        "infra/modules/app/main.tf",
        "resource \"null_resource\" \"app\"",
    );
    let db = line_of(
        "infra/modules/db/db.tf",
        "resource \"null_resource\" \"db\"",
    );
    let green = "module.app[\"green\"]";
    let items = [
        (
            format!("{green}.module.db.null_resource.db[\"primary\"]"),
            Some(&db),
            "destroy",
        ),
        (
            format!("{green}.module.db.null_resource.db[\"replica\"]"),
            Some(&db),
            "destroy",
        ),
        (format!("{green}.null_resource.app"), Some(&app), "destroy"),
        ("null_resource.gone".to_string(), None, "destroy"),
        ("null_resource.root[0]".to_string(), Some(&root), "replace"),
        ("null_resource.root[1]".to_string(), Some(&root), "replace"),
    ];
    let mut seen: Vec<Seen> = items
        .iter()
        .map(|(address, place, kind)| {
            let what = if *kind == "destroy" {
                "destroyed"
            } else {
                "replaced"
            };
            Seen::new(
                "warning",
                place.map(|(f, l)| (f.as_str(), *l)),
                &format!("planmark: {kind}"),
                &format!("{address} will be {what}"),
            )
        })
        .collect();
    seen.sort();
    seen
}

/// No line of `text` is a command to the runner, paused or not.
fn no_command(text: &str) -> bool {
    workflow_commands::read(text).commands.is_empty()
}

#[test]
fn none_when_turned_off_or_outside_actions() {
    let plan = plan();
    for args in [
        vec!["render", "--annotations", "false", &plan],
        vec!["comment", "--dry-run", "--annotations", "false", &plan],
    ] {
        let ran = in_actions(&args, Stdout::Pipe);
        assert_eq!(ran.code, Some(0), "{}", ran.describe());
        assert_eq!(annotations(&ran.stdout), [], "{args:?}: {}", ran.describe());
        assert!(no_command(&ran.stderr), "{args:?}: {}", ran.describe());
    }
    // Outside Actions nothing is paused and nothing annotated, links or not.
    let repo = case().join("repo");
    let config = repo.join("infra").display().to_string();
    let workspace = repo.display().to_string();
    for command in ["render", "comment"] {
        let mut args = vec![command, "--config-dir", &config, "--commit", COMMIT];
        if command == "comment" {
            args.push("--dry-run");
        }
        args.push(&plan);
        let env = [
            ("GITHUB_WORKSPACE", workspace.as_str()),
            ("GITHUB_REPOSITORY", "octo/infra"),
        ];
        let ran = planmark(&args, &env, Stdout::Pipe);
        assert_eq!(ran.code, Some(0), "{}", ran.describe());
        assert!(
            ran.stdout.contains("null_resource.gone"),
            "{}",
            ran.describe()
        );
        assert!(no_command(&ran.stdout), "{command}: {}", ran.describe());
        assert!(no_command(&ran.stderr), "{command}: {}", ran.describe());
    }
}

#[test]
fn with_standard_output_in_a_file_or_nowhere_they_go_to_standard_error() {
    let plan = plan();
    let null = |args: &[&str]| {
        let ran = in_actions(args, Stdout::Null);
        assert_eq!(ran.code, Some(0), "{}", ran.describe());
        assert_eq!(
            annotations(&ran.stderr),
            destroys_and_replacements(),
            "{args:?}: /dev/null"
        );
    };
    null(&["render", &plan]);
    for args in [vec!["render", &plan], vec!["comment", "--dry-run", &plan]] {
        let ran = in_actions(&args, Stdout::File);
        assert_eq!(ran.code, Some(0), "{}", ran.describe());
        // The file is the output as it is: no pause, no annotation.
        assert!(
            ran.stdout.contains("null_resource.gone"),
            "{}",
            ran.describe()
        );
        assert!(no_command(&ran.stdout), "{args:?}: {}", ran.describe());
        assert_eq!(
            annotations(&ran.stderr),
            destroys_and_replacements(),
            "{args:?}: {}",
            ran.describe()
        );
    }
}

#[test]
fn render_o_file_keeps_them_out_of_the_file() {
    let temp = TempDir::new("annotations-o");
    let out = temp.join("comment.md");
    let plan = plan();
    for stdout in [Stdout::Pipe, Stdout::File] {
        let ran = in_actions(&["render", "-o", out.to_str().unwrap(), &plan], stdout);
        assert_eq!(ran.code, Some(0), "{}", ran.describe());
        let written = std::fs::read_to_string(&out).unwrap();
        assert!(written.contains("null_resource.gone"), "{written}");
        assert!(no_command(&written), "{written}");
        // Standard output held nothing else to pause.
        let (annotated, other) = match stdout {
            Stdout::Pipe => (&ran.stdout, &ran.stderr),
            Stdout::File | Stdout::Null => (&ran.stderr, &ran.stdout),
        };
        assert_eq!(
            annotations(annotated),
            destroys_and_replacements(),
            "{}",
            ran.describe()
        );
        assert_eq!(workflow_commands::read(annotated).commands.len(), 6);
        assert!(no_command(other), "{}", ran.describe());
    }
}

#[test]
fn comment_dry_run_prints_them_after_the_paused_body() {
    let ran = in_actions(&["comment", "--dry-run", &plan()], Stdout::Pipe);
    assert_eq!(ran.code, Some(0), "{}", ran.describe());
    assert_eq!(
        annotations(&ran.stdout),
        destroys_and_replacements(),
        "{}",
        ran.describe()
    );
    let reading = workflow_commands::read(&ran.stdout);
    let lines = workflow_commands::runner_lines(&ran.stdout);
    // The body, its heading and its marker, is paused.
    for start in ["### ", "<!-- planmark:v1 "] {
        let at = lines.iter().position(|l| l.starts_with(start));
        let at = at.unwrap_or_else(|| panic!("no line starts {start:?}:\n{}", ran.stdout));
        assert!(
            reading.paused.contains(&at),
            "{start:?} not paused:\n{}",
            ran.stdout
        );
    }
    assert!(no_command(&ran.stderr), "{}", ran.describe());
}

#[test]
fn an_apply_is_not_annotated_as_the_plan_it_applied() {
    // The reviewed plan replaces and destroys; after the apply, nothing "will be".
    let case = crate_dir().join("tests/fixtures/applied/succeeds-json-with-plan");
    let (log, plan) = (case.join("apply.jsonl"), case.join("plan.json"));
    for command in ["render", "comment"] {
        let mut args = vec![command, "--applied", log.to_str().unwrap()];
        if command == "comment" {
            args.push("--dry-run");
        }
        args.push(plan.to_str().unwrap());
        let ran = planmark(&args, &[("GITHUB_ACTIONS", "true")], Stdout::Pipe);
        assert_eq!(ran.code, Some(0), "{}", ran.describe());
        assert!(
            ran.stdout.contains("null_resource.legacy"),
            "{}",
            ran.describe()
        );
        assert_eq!(
            annotations(&ran.stdout),
            [],
            "{command}: {}",
            ran.describe()
        );
    }
}
