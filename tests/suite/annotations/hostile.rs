//! Names and messages from a plan, a policy, the command line and the pull request's
//! directories, holding what could end an annotation or start another command: read back
//! by the runner exactly as they were, and never a second command.

use super::*;

/// A resuming line for a token planmark did not draw: it must not end any pause.
const FORGED: &str = "0123456789abcdef0123456789abcdef";

/// What could end a property, the message, the line, or pause and resume commands.
fn payload(what: &str) -> String {
    format!(
        "{what}::warning::x%0A%25%3A%2C,:=\r\n::stop-commands::tok\n::{FORGED}::\n  ::error::pwn %0D,end\r"
    )
}

/// A repository whose module directory's name is hostile, and a plan destroying a
/// resource declared there whose instance key is hostile (a raw line break in the
/// address, as a crafted plan may have).
fn hostile_repo(temp: &TempDir) -> (PathBuf, String, String) {
    // No `/` in a directory's name; `%{` would start an HCL template.
    let dir = payload("dir").replace('\r', "");
    let infra = temp.join("repo/infra");
    std::fs::create_dir_all(infra.join(&dir)).unwrap();
    let hcl = dir.replace('\n', "\\n");
    std::fs::write(
        infra.join("main.tf"),
        format!("module \"m\" {{\n  source = \"./{hcl}\"\n}}\n"),
    )
    .unwrap();
    std::fs::write(
        infra.join(&dir).join("x.tf"),
        "# A resource whose instances are hostile.\nresource \"null_resource\" \"h\" {\n  for_each = var.keys\n}\n",
    )
    .unwrap();
    let key = payload("key");
    let address = format!("module.m.null_resource.h[\"{key}\"]");
    let plan = serde_json::json!({
        "format_version": "1.2",
        "terraform_version": "1.9.0",
        "resource_changes": [{
            "address": address,
            "module_address": "module.m",
            "mode": "managed",
            "type": "null_resource",
            "name": "h",
            "index": key,
            "provider_name": "registry.terraform.io/hashicorp/null",
            "change": {
                "actions": ["delete"],
                "before": {"id": "1"},
                "after": null,
                "after_unknown": {},
                "before_sensitive": {},
                "after_sensitive": false
            }
        }],
        "configuration": {"root_module": {"module_calls": {"m": {
            "source": format!("./{dir}"),
            "module": {"resources": [{
                "address": "null_resource.h", "mode": "managed",
                "type": "null_resource", "name": "h"
            }]}
        }}}}
    });
    std::fs::write(temp.join("plan.json"), plan.to_string()).unwrap();
    std::fs::write(
        temp.join("policy.rego"),
        format!(
            "package main\n\nimport rego.v1\n\n\
             deny contains {{\"msg\": sprintf(\"%s{}\", [rc.address]), \"resource\": rc.address}} if {{\n\
             \tsome rc in input.resource_changes\n}}\n",
            payload("message").replace('\r', "\\r").replace('\n', "\\n").replace('%', "%%")
        ),
    )
    .unwrap();
    (temp.join("repo"), format!("infra/{dir}/x.tf"), address)
}

#[test]
fn hostile_names_are_read_back_exactly_and_start_no_command() {
    let temp = TempDir::new("annotations-hostile");
    let (repo, file, address) = hostile_repo(&temp);
    let plan = temp.join("plan.json");
    let policy = temp.join("policy.rego");
    // Plan names come from the command line: one hostile, one plain (several plans
    // prefix each message with the plan's name).
    let name = payload("name").replace(['\r', '='], "");
    let first = format!("{name}={}", plan.display());
    let second = format!("second={}", plan.display());
    let config = repo.join("infra");
    let args = [
        "render",
        "--policy",
        policy.to_str().unwrap(),
        "--config-dir",
        config.to_str().unwrap(),
        "--commit",
        COMMIT,
        &first,
        &second,
    ];
    let env = actions_env(&repo);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let ran = planmark(&args, &env, Stdout::Pipe);
    assert_eq!(ran.code, Some(3), "{}", ran.describe());
    let place = Some((file.as_str(), 2));
    let finding = format!("{address}: {address}{}", payload("message"));
    let mut expected = Vec::new();
    for plan in [name.as_str(), "second"] {
        let destroyed = format!("{plan}: {address} will be destroyed");
        expected.push(Seen::new("warning", place, "planmark: destroy", &destroyed));
        let finding = format!("{plan}: {finding}");
        expected.push(Seen::new(
            "error",
            place,
            "planmark: policy main.deny",
            &finding,
        ));
    }
    expected.sort();
    // `annotations` fails on any command but the pauses and these.
    assert_eq!(annotations(&ran.stdout), expected, "{}", ran.describe());
    // Each annotation is one line of planmark's output, whatever line ends it holds.
    let lines: Vec<&str> = workflow_commands::runner_lines(&ran.stdout);
    let resumed = lines
        .iter()
        .rposition(|l| {
            l.starts_with("::") && !l.starts_with("::warning") && !l.starts_with("::error")
        })
        .unwrap();
    assert_eq!(lines.len() - resumed - 1, expected.len(), "{}", ran.stdout);
}
