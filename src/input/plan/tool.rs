//! Plan input: which tool made the plan, Terraform or OpenTofu.
//!
//! Contract: [`Plan::made_by`] reads only the plan's own provider addresses (OpenTofu
//! installs providers from `registry.opentofu.org` by default, Terraform never does);
//! nothing else in the JSON tells the two apart (both write `terraform_version` and the
//! same `format_version`). A plan naming no provider counts as Terraform's: the caller
//! passes `--tool tofu` when it knows better.

use serde::Deserialize;

use super::{ChangeList, Plan};

/// The tool that made a plan, which decides the wording and list pairing of its text.
/// Serialized as the product's name (`Terraform`, `OpenTofu`), as templates print it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, schemars::JsonSchema)]
pub enum Tool {
    /// HashiCorp Terraform.
    #[default]
    Terraform,
    /// OpenTofu.
    OpenTofu,
}

impl Tool {
    /// The product's name as its own text prints it: `Terraform`, `OpenTofu`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Tool::Terraform => "Terraform",
            Tool::OpenTofu => "OpenTofu",
        }
    }

    /// The command users type: `terraform`, `tofu`.
    pub(crate) fn command(self) -> &'static str {
        match self {
            Tool::Terraform => "terraform",
            Tool::OpenTofu => "tofu",
        }
    }
}

/// OpenTofu's default registry host; a provider address is `HOST/NAMESPACE/TYPE`.
const OPENTOFU_REGISTRY: &str = "registry.opentofu.org";

/// A provider address served by OpenTofu's registry (the host compared without case).
pub(crate) fn is_opentofu_provider(address: &str) -> bool {
    address.split_once('/').is_some_and(|(host, rest)| {
        host.eq_ignore_ascii_case(OPENTOFU_REGISTRY) && !rest.is_empty()
    })
}

/// The members of `configuration` that name providers; everything else is skipped.
#[derive(Deserialize)]
struct ProviderConfigs<'a> {
    #[serde(borrow, default)]
    provider_config: std::collections::BTreeMap<&'a str, ProviderConfig<'a>>,
}

#[derive(Deserialize)]
struct ProviderConfig<'a> {
    #[serde(borrow, default)]
    full_name: Option<std::borrow::Cow<'a, str>>,
}

impl Plan<'_> {
    /// Which tool made this plan: OpenTofu when a provider of the configuration, of the
    /// first planned or drifted change, or of a deferred change comes from OpenTofu's
    /// registry; Terraform otherwise.
    pub(crate) fn made_by(&self) -> Tool {
        let configured = self
            .configuration
            .and_then(|raw| serde_json::from_str::<ProviderConfigs<'_>>(raw.get()).ok())
            .is_some_and(|c| {
                c.provider_config
                    .values()
                    .filter_map(|p| p.full_name.as_deref())
                    .any(is_opentofu_provider)
            });
        // One change of each list is enough: a plan's providers come from one tool's
        // registry, and reading every change again would cost a huge plan its time.
        let changed = [ChangeList::Changes, ChangeList::Drift]
            .into_iter()
            .filter_map(|list| self.read_members(list, 0))
            .any(|rc| is_opentofu_provider(&rc.provider_name));
        let deferred = self
            .deferred_changes
            .iter()
            .any(|d| is_opentofu_provider(&d.resource_change.provider_name));
        if configured || changed || deferred {
            Tool::OpenTofu
        } else {
            Tool::Terraform
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool_of(json: &str) -> Tool {
        let plan = super::super::parse_plan("p.json", json.as_bytes()).expect("a plan");
        plan.made_by()
    }

    #[test]
    fn provider_addresses_tell_the_tool() {
        assert!(is_opentofu_provider("registry.opentofu.org/hashicorp/null"));
        assert!(is_opentofu_provider("Registry.OpenTofu.org/a/b"));
        assert!(!is_opentofu_provider(
            "registry.terraform.io/hashicorp/null"
        ));
        assert!(!is_opentofu_provider("registry.opentofu.org"));
        assert!(!is_opentofu_provider("example.com/registry.opentofu.org/x"));
        assert!(!is_opentofu_provider("null"));
    }

    #[test]
    fn a_change_from_opentofus_registry_makes_an_opentofu_plan() {
        let change = |provider: &str| {
            format!(
                r#"{{"format_version":"1.2","resource_changes":[{{"address":"a.b","mode":"managed",
                "type":"a","name":"b","provider_name":"{provider}","change":{{"actions":["create"],
                "before":null,"after":{{}},"after_unknown":{{}}}}}}]}}"#
            )
        };
        assert_eq!(
            tool_of(&change("registry.opentofu.org/hashicorp/a")),
            Tool::OpenTofu
        );
        assert_eq!(
            tool_of(&change("registry.terraform.io/hashicorp/a")),
            Tool::Terraform
        );
    }

    #[test]
    fn the_configuration_or_drift_alone_can_tell() {
        let config = r#"{"format_version":"1.2","output_changes":{},"configuration":{
            "provider_config":{"a":{"name":"a","full_name":"registry.opentofu.org/x/a"}},
            "root_module":{}}}"#;
        assert_eq!(tool_of(config), Tool::OpenTofu);
        let drift = r#"{"format_version":"1.2","resource_drift":[{"address":"a.b","mode":"managed",
            "type":"a","name":"b","provider_name":"registry.opentofu.org/x/a",
            "change":{"actions":["update"],"before":{},"after":{}}}]}"#;
        assert_eq!(tool_of(drift), Tool::OpenTofu);
        // A value that merely mentions the registry is not a provider address.
        let value = r#"{"format_version":"1.2","resource_changes":[{"address":"a.b","mode":"managed",
            "type":"a","name":"b","provider_name":"registry.terraform.io/x/a",
            "change":{"actions":["create"],"before":null,
            "after":{"s":"registry.opentofu.org/x/a"},"after_unknown":{}}}]}"#;
        assert_eq!(tool_of(value), Tool::Terraform);
    }
}
