//! Builds a plan's JSON from a generated `PlanSpec`, planting a canary in every sensitive
//! place.

use super::*;

/// A built plan document and what was planted in it.
pub(super) struct Built {
    pub(super) doc: Json,
    pub(super) canaries: Vec<String>,
    /// Numbers of created resources, which the text must show as written.
    pub(super) created_numbers: Vec<&'static str>,
}

/// The change object for `spec` under `action` (masks and values per side).
pub(super) fn change(
    action: Action,
    spec: &Spec,
    planted: &mut Planted,
) -> Vec<(&'static str, Json)> {
    let has_before = !matches!(action, Action::Create | Action::Read);
    let has_after = action != Action::Delete;
    let mut members = vec![("actions", action.actions())];
    let (before, before_sensitive) = if has_before {
        let (v, s, _) = project(spec, Side::Before, false, planted);
        (v, s)
    } else {
        (Json::Null, Json::Bool(false))
    };
    let (after, after_sensitive, after_unknown) = if !has_after {
        (Json::Null, Json::Bool(false), Json::obj(vec![]))
    } else if action == Action::NoOp {
        (before.clone(), before_sensitive.clone(), Json::obj(vec![]))
    } else {
        project(spec, Side::After, false, planted)
    };
    members.extend([
        ("before", before),
        ("after", after),
        ("after_unknown", after_unknown),
        ("before_sensitive", before_sensitive),
        ("after_sensitive", after_sensitive),
    ]);
    members
}

pub(super) fn build(plan: &PlanSpec) -> Built {
    let mut planted = Planted::default();
    let mut created_numbers = Vec::new();
    let (mut changes, mut drift) = (Vec::new(), Vec::new());
    for (i, r) in plan.resources.iter().enumerate() {
        let (mode, type_) = if r.action == Action::Read {
            ("data", "null_data_source")
        } else {
            ("managed", "null_resource")
        };
        // A suffix keeps addresses unique whatever names were generated.
        let name = format!("{}{i}", r.name);
        let prefix = if mode == "data" { "data." } else { "" };
        let mut address = format!("{prefix}{type_}.{name}");
        let mut rc = vec![];
        match &r.index {
            Some(Ok(n)) => {
                address.push_str(&format!("[{n}]"));
                rc.push(("index", Json::Num(n.to_string())));
            }
            Some(Err(key)) => {
                address.push_str(&format!("[{}]", serde_json::to_string(key).unwrap()));
                rc.push(("index", Json::Str(key.clone())));
            }
            None => {}
        }
        let root = Spec::Obj(
            r.attributes.clone(),
            Flags {
                sensitive_before: false,
                sensitive_after: false,
                unknown: false,
            },
        );
        let numbers_before = planted.numbers.len();
        let mut members = change(r.action, &root, &mut planted);
        if r.action == Action::Create {
            created_numbers.extend_from_slice(&planted.numbers[numbers_before..]);
        }
        if let Some(paths) = &r.replace_paths {
            let names: Vec<&str> = r.attributes.iter().map(|(k, _, _)| k.as_str()).collect();
            let paths = paths
                .iter()
                .map(|path| {
                    Json::Arr(
                        path.iter()
                            .map(|step| match step {
                                Step::Attribute(i) => Json::str(names[i % names.len()]),
                                Step::Key(k) => Json::str(k),
                                Step::Index(i) => Json::Num(i.to_string()),
                            })
                            .collect(),
                    )
                })
                .collect();
            members.push(("replace_paths", Json::Arr(paths)));
        }
        rc.extend([
            ("address", Json::str(&address)),
            ("mode", Json::str(mode)),
            ("type", Json::str(type_)),
            ("name", Json::str(&name)),
            (
                "provider_name",
                Json::str("registry.terraform.io/hashicorp/null"),
            ),
            ("change", Json::obj(members)),
        ]);
        if let Some(reason) = r.reason {
            rc.push(("action_reason", Json::str(reason)));
        }
        let rc = Json::obj(rc);
        if r.drift && r.action == Action::Update {
            drift.push(rc.clone());
        }
        changes.push(rc);
    }
    let mut outputs = Vec::new();
    for (name, action, spec) in &plan.outputs {
        outputs.push((name.clone(), Json::obj(change(*action, spec, &mut planted))));
    }
    let (mut values, mut declarations) = (Vec::new(), Vec::new());
    for (name, sensitive, spec) in &plan.variables {
        let (value, _, _) = project(spec, Side::Before, *sensitive, &mut planted);
        values.push((name.clone(), Json::obj(vec![("value", value)])));
        let declaration = Json::obj(vec![("sensitive", Json::Bool(*sensitive))]);
        declarations.push((name.clone(), declaration));
    }
    let configuration = Json::obj(vec![(
        "root_module",
        Json::obj(vec![("variables", Json::Obj(declarations))]),
    )]);
    let doc = Json::obj(vec![
        ("format_version", Json::str(plan.version)),
        (
            "terraform_version",
            Json::Str(plan.terraform_version.clone()),
        ),
        ("variables", Json::Obj(values)),
        ("resource_changes", Json::Arr(changes)),
        ("resource_drift", Json::Arr(drift)),
        ("output_changes", Json::Obj(outputs)),
        ("configuration", configuration),
    ]);
    Built {
        doc,
        canaries: planted.canaries,
        created_numbers,
    }
}

// ---------------------------------------------------------------------------
// Rendering and properties
// ---------------------------------------------------------------------------
