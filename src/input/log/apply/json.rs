//! Input stage, apply logs as a JSON stream: the messages of `terraform apply -json`
//! other than diagnostics and the version (which the plan log's reader keeps) read into the
//! [`Recorder`] that the text reader fills too.
//!
//! Contract: a message without the documented shape is skipped, not an error (Terraform
//! adds message types); a sensitive output's value is never copied out of its message.

use serde_json::Value as Json;

use super::model::{Action, AppliedOutput, Counts, Hook, Recorder};

/// The resource address (`resource.addr`) and the action of a `hook` or `change` object.
fn resource_action(object: Option<&Json>) -> Option<(&str, Action)> {
    let object = object?;
    let address = object.get("resource")?.get("addr")?.as_str()?;
    let action = Action::parse(object.get("action").and_then(Json::as_str).unwrap_or(""));
    (!address.is_empty()).then_some((address, action))
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
    match kind {
        "planned_change" => {
            if let Some((addr, action)) = resource_action(message.get("change")) {
                recorder.planned(addr, action);
            }
        }
        "apply_start" | "apply_complete" | "apply_errored" => {
            let stage = match kind {
                "apply_start" => Hook::Start,
                "apply_complete" => Hook::Complete,
                _ => Hook::Errored,
            };
            if let Some((addr, action)) = resource_action(message.get("hook")) {
                recorder.hook(addr, stage, action);
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
