//! Input stage, apply logs as a JSON stream: the messages of `terraform apply -json`
//! other than diagnostics and the version (which the plan log's reader keeps) read into the
//! [`Recorder`] that the text reader fills too.
//!
//! Contract: a message without the documented shape is skipped, not an error (Terraform
//! adds message types); a sensitive output's value is never copied out of its message.

use serde_json::Value as Json;

use super::model::{Action, AppliedOutput, Counts, Hook, Recorder};

/// `hook.resource.addr` or `change.resource.addr`.
fn address(object: &Json) -> Option<&str> {
    object
        .get("resource")
        .and_then(|r| r.get("addr"))
        .and_then(Json::as_str)
        .filter(|a| !a.is_empty())
}

fn action_of(object: &Json) -> Action {
    Action::parse(object.get("action").and_then(Json::as_str).unwrap_or(""))
}

/// One message of the stream that is not a diagnostic nor the version.
pub(in crate::input::log) fn message(recorder: &mut Recorder, kind: &str, message: &Json) {
    if let Some(time) = message.get("@timestamp").and_then(Json::as_str) {
        // Kept only when it looks like a time: it reaches the comment.
        let plain = |c: char| c.is_ascii_digit() || "-:.TZ+".contains(c);
        if !time.is_empty() && time.len() <= 40 && time.chars().all(plain) {
            recorder.timestamp = Some(time.to_string());
        }
    }
    let hook = message.get("hook");
    match kind {
        "planned_change" => {
            if let Some(change) = message.get("change") {
                if let Some(addr) = address(change) {
                    recorder.planned(addr, action_of(change));
                }
            }
        }
        "apply_start" | "apply_complete" | "apply_errored" => {
            let stage = match kind {
                "apply_start" => Hook::Start,
                "apply_complete" => Hook::Complete,
                _ => Hook::Errored,
            };
            if let Some((addr, hook)) = hook.and_then(|h| address(h).map(|a| (a, h))) {
                recorder.hook(addr, stage, action_of(hook));
            }
        }
        "change_summary" => {
            let changes = message.get("changes");
            let count = |field: &str| {
                changes
                    .and_then(|c| c.get(field))
                    .and_then(Json::as_u64)
                    .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX))
            };
            match changes
                .and_then(|c| c.get("operation"))
                .and_then(Json::as_str)
            {
                Some("apply") | Some("destroy") => {
                    recorder.applying = true;
                    recorder.finished = true;
                    recorder.summary = Some(Counts {
                        add: count("add"),
                        change: count("change"),
                        destroy: count("remove"),
                        import: count("import"),
                    });
                }
                _ => recorder.planned_only = true,
            }
        }
        "outputs" => {
            let Some(outputs) = message.get("outputs").and_then(Json::as_object) else {
                return;
            };
            recorder.applying = true;
            let outputs = outputs
                .iter()
                .map(|(name, output)| {
                    let sensitive = output
                        .get("sensitive")
                        .and_then(Json::as_bool)
                        .unwrap_or(false);
                    AppliedOutput {
                        name: name.clone(),
                        sensitive,
                        // The stream carries a sensitive value in clear: never kept.
                        value: match (sensitive, output.get("value")) {
                            (false, Some(value)) => Some(value.to_string()),
                            _ => None,
                        },
                    }
                })
                .collect();
            recorder.outputs = Some(outputs);
        }
        _ => {}
    }
}
