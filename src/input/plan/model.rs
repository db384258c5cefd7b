//! Plan model: typed serde mirror of `terraform show -json` (format 0.x and 1.x).
//!
//! Attribute values stay as unparsed `&RawValue` text borrowed from the input and are
//! parsed per resource by [`crate::input::json::Value::parse`] when the differ needs them, so a
//! 100 MB plan costs little more than its own bytes. Unknown properties are ignored, as the
//! format's compatibility rules ask of consumers.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::actions::ResourceAction;

pub(super) type Str<'a> = Cow<'a, str>;

pub(crate) use super::invocations::ActionInvocation;

/// A root module variable value.
#[derive(Debug, Deserialize)]
pub(crate) struct Variable<'a> {
    /// The value (may be absent for ephemeral variables); read by nothing, see
    /// `Plan::variables`.
    #[allow(dead_code)]
    #[serde(borrow, default)]
    pub(crate) value: Option<&'a RawValue>,
}

/// One resource instance change (planned, drifted or deferred).
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ResourceChange<'a> {
    /// Full instance address, e.g. `module.a.aws_instance.web["x"]`; rebuilt from the
    /// other members where Terraform 0.15.4–1.0.8 wrote drift without it.
    #[serde(borrow, default)]
    pub(crate) address: Cow<'a, str>,
    /// Address before a `moved` block applied (1.1+).
    #[serde(borrow, default, deserialize_with = "borrowed_option")]
    pub(crate) previous_address: Option<Cow<'a, str>>,
    /// Module address, absent for the root module.
    #[serde(borrow, default, deserialize_with = "borrowed_option")]
    pub(crate) module_address: Option<Cow<'a, str>>,
    /// `managed` or `data` (ephemeral resources never appear in plans).
    #[serde(borrow, default)]
    pub(crate) mode: Cow<'a, str>,
    /// Resource type.
    #[serde(borrow, rename = "type", default)]
    pub(crate) type_: Cow<'a, str>,
    /// Resource name.
    #[serde(borrow, default)]
    pub(crate) name: Cow<'a, str>,
    /// `count` index (number) or `for_each` key (string), as JSON text.
    #[serde(borrow, default, deserialize_with = "raw_text")]
    pub(crate) index: Option<Cow<'a, str>>,
    /// The instance key is not known yet (deferred changes, 1.10+).
    #[serde(default)]
    pub(crate) index_unknown: bool,
    /// Deposed object key, for objects left over from create-before-destroy.
    #[serde(borrow, default, deserialize_with = "borrowed_option")]
    pub(crate) deposed: Option<Cow<'a, str>>,
    /// Provider source address, e.g. `registry.terraform.io/hashicorp/aws`.
    #[serde(borrow, default)]
    pub(crate) provider_name: Cow<'a, str>,
    /// Why this action was chosen; an open set, unknown values mean "no special reason".
    #[serde(borrow, default, deserialize_with = "borrowed_option")]
    pub(crate) action_reason: Option<Cow<'a, str>>,
    /// The change itself.
    #[serde(borrow)]
    pub(crate) change: Change<'a>,
}

/// Before/after values of a resource or output and the masks describing them.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct Change<'a> {
    /// The `actions` list, e.g. `["delete","create"]`.
    #[serde(rename = "actions", default)]
    pub(crate) action: ResourceAction,
    /// Value before; absent or null for creates.
    #[serde(borrow, default)]
    pub(crate) before: Option<&'a RawValue>,
    /// Value after, with unknown parts null.
    #[serde(borrow, default)]
    pub(crate) after: Option<&'a RawValue>,
    /// Mirror of `after` marking unknown parts with `true`.
    #[serde(borrow, default)]
    pub(crate) after_unknown: Option<&'a RawValue>,
    /// Mirror of `before` marking sensitive parts with `true`.
    #[serde(borrow, default)]
    pub(crate) before_sensitive: Option<&'a RawValue>,
    /// Mirror of `after` marking sensitive parts with `true`.
    #[serde(borrow, default)]
    pub(crate) after_sensitive: Option<&'a RawValue>,
    /// Attribute paths that force replacement.
    #[serde(borrow, default)]
    pub(crate) replace_paths: Option<&'a RawValue>,
    /// Present when the resource is being imported (1.5+).
    #[serde(borrow, default)]
    pub(crate) importing: Option<Importing<'a>>,
    /// HCL generated for an import without configuration (1.5+).
    #[serde(borrow, default, deserialize_with = "borrowed_option")]
    pub(crate) generated_config: Option<Cow<'a, str>>,
}

/// Import details.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct Importing<'a> {
    /// The import ID; empty or absent for identity-based imports.
    #[serde(borrow, default, deserialize_with = "borrowed_option")]
    pub(crate) id: Option<Cow<'a, str>>,
    /// The import ID is not known yet (1.10+).
    #[serde(default)]
    pub(crate) unknown: bool,
}

/// A drifted attribute that matters to the plan.
#[derive(Debug, Deserialize)]
pub(crate) struct RelevantAttribute<'a> {
    /// Resource instance address.
    #[serde(borrow, default)]
    pub(crate) resource: Cow<'a, str>,
    /// Attribute path (array of string/number steps).
    #[serde(borrow, default)]
    pub(crate) attribute: Option<&'a RawValue>,
}

/// One checkable object's status.
#[derive(Debug, Deserialize)]
pub(crate) struct CheckResult<'a> {
    /// What was checked.
    #[serde(borrow)]
    pub(crate) address: CheckAddress<'a>,
    /// `pass`, `fail`, `error` or `unknown`.
    #[serde(borrow, default)]
    pub(crate) status: Cow<'a, str>,
    /// Per-instance results; absent when the object has no instances.
    #[serde(borrow, default)]
    pub(crate) instances: Vec<CheckInstance<'a>>,
}

/// Address of a checkable object.
#[derive(Debug, Deserialize)]
pub(crate) struct CheckAddress<'a> {
    /// `resource`, `output_value`, `check` or `var`.
    #[serde(borrow, default)]
    pub(crate) kind: Cow<'a, str>,
    /// Human-readable address.
    #[serde(borrow, default)]
    pub(crate) to_display: Cow<'a, str>,
}

/// One instance's check status.
#[derive(Debug, Deserialize)]
pub(crate) struct CheckInstance<'a> {
    /// The instance.
    #[serde(borrow)]
    pub(crate) address: CheckInstanceAddress<'a>,
    /// `pass`, `fail`, `error` or `unknown`.
    #[serde(borrow, default)]
    pub(crate) status: Cow<'a, str>,
    /// Failure messages.
    #[serde(borrow, default)]
    pub(crate) problems: Vec<CheckProblem<'a>>,
}

/// Address of a checked instance.
#[derive(Debug, Deserialize)]
pub(crate) struct CheckInstanceAddress<'a> {
    /// Human-readable address.
    #[serde(borrow, default)]
    pub(crate) to_display: Cow<'a, str>,
}

/// A failure message from a check.
#[derive(Debug, Deserialize)]
pub(crate) struct CheckProblem<'a> {
    /// The message (author-supplied `error_message`).
    #[serde(borrow, default)]
    pub(crate) message: Cow<'a, str>,
}

/// A change Terraform postponed.
#[derive(Debug, Deserialize)]
pub(crate) struct DeferredChange<'a> {
    /// Why it was deferred.
    #[serde(borrow, default)]
    pub(crate) reason: Cow<'a, str>,
    /// The change as far as it is known.
    #[serde(borrow)]
    pub(crate) resource_change: ResourceChange<'a>,
}

/// A string that borrows from the input when it can, or null. serde borrows only into a
/// field whose type is written `Cow<'a, str>` (an alias or an `Option` around it copies
/// every string), so every string field is written so, and options come here.
pub(super) fn borrowed_option<'de: 'a, 'a, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Cow<'a, str>>, D::Error> {
    #[derive(Deserialize)]
    struct Borrowed<'a>(#[serde(borrow)] Cow<'a, str>);
    Ok(Option::<Borrowed<'a>>::deserialize(deserializer)?.map(|b| b.0))
}

/// A collection (or flag) written as `null`, read as when it is left out: tools that
/// re-serialise plans write `null` for the empty lists and maps Terraform omits.
pub(super) fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// A member's JSON text (`None` when absent or null).
fn raw_text<'de: 'a, 'a, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Cow<'a, str>>, D::Error> {
    let raw = Option::<&'a RawValue>::deserialize(deserializer)?;
    Ok(raw.map(|raw| Cow::Borrowed(raw.get())))
}

/// Whether a plan made by Terraform `terraform_version` (in format `format_version`) may
/// leave provider-declared sensitivity out of its masks: versions before 0.15.2 (their
/// pre-releases too, `0.15.2-rc1` included, which are not known to fold it). Without a
/// readable version the format tells: every Terraform that writes format 1.x folds it,
/// while 0.x was also written by 0.12-0.15.1, so it is taken as old.
pub(crate) fn masks_omit_provider_sensitivity(
    terraform_version: Option<&str>,
    format_version: Option<&str>,
) -> bool {
    match terraform_version.and_then(release_numbers) {
        Some((numbers, pre_release)) => {
            numbers < [0, 15, 2] || (numbers == [0, 15, 2] && pre_release)
        }
        None => format_version.is_none_or(|f| f.trim().starts_with("0.")),
    }
}

/// `MAJOR.MINOR.PATCH` of a version such as `0.14.11`, `v1.0.3` or `0.15.0-beta2`, with
/// whether it is a pre-release; `None` when it does not start like one.
fn release_numbers(version: &str) -> Option<([u64; 3], bool)> {
    let version = version.trim();
    let version = version.strip_prefix(['v', 'V']).unwrap_or(version);
    let end = version
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(version.len());
    let (core, rest) = version.split_at(end);
    let mut numbers = [0u64; 3];
    let mut parts = core.split('.');
    for slot in &mut numbers {
        *slot = parts.next()?.parse().ok()?;
    }
    if parts.next().is_some_and(|p| !p.is_empty()) {
        return None;
    }
    Some((numbers, rest.starts_with('-')))
}

#[cfg(test)]
mod version_tests {
    use super::masks_omit_provider_sensitivity as old;

    #[test]
    fn versions_before_0_15_2_leave_provider_sensitivity_out() {
        for v in [
            "0.12.0",
            "0.13.7",
            "0.14.11",
            "0.15.0",
            "0.15.0-beta2",
            "v0.14.0",
            "0.15.1-rc1",
            "0.15.1",
            "0.15.2-rc1",
        ] {
            assert!(old(Some(v), Some("1.0")), "{v}");
        }
        for v in [
            "0.15.2",
            "0.15.5",
            "1.0.3",
            "1.9.5",
            "v1.10.0",
            "1.6.0-alpha20231025",
            "10.0.0",
        ] {
            assert!(!old(Some(v), Some("0.1")), "{v}");
        }
    }

    #[test]
    fn without_a_readable_version_the_format_tells() {
        for v in [None, Some(""), Some("dev"), Some("1.2"), Some("1.2.3.4")] {
            assert!(old(v, Some("0.1")), "{v:?}");
            assert!(old(v, Some("0.2")), "{v:?}");
            assert!(old(v, None), "{v:?}");
            assert!(!old(v, Some("1.2")), "{v:?}");
        }
    }
}
