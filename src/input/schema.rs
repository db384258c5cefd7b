//! Input stage: provider schemas from `terraform providers schema -json`.
//!
//! The schema tells the differ what the plan JSON cannot: nested blocks vs attributes,
//! nesting modes, list vs set vs map vs object types, nested attribute types, write-only
//! attributes. `ProviderSchemas::resource` finds the block for a resource change; when
//! there is no schema the differ infers one from the values (see `differ::infer`).

use std::collections::BTreeMap;

use serde::de::{self, Deserializer};
use serde::Deserialize;

use crate::input::error::{InputError, Result};

/// The whole `providers schema -json` document.
#[derive(Debug, Default, Deserialize)]
pub struct ProviderSchemas {
    /// Schemas by provider source address.
    #[serde(default)]
    pub(crate) provider_schemas: BTreeMap<String, ProviderSchema>,
}

/// One provider's resource and data source schemas.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct ProviderSchema {
    /// Managed resource types.
    pub(crate) resource_schemas: BTreeMap<String, Schema>,
    /// Data source types.
    pub(crate) data_source_schemas: BTreeMap<String, Schema>,
    /// Action types (Terraform 1.14+): the block is the action's `config` block.
    pub(crate) action_schemas: BTreeMap<String, Schema>,
}

/// A versioned schema; only its block matters here.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Schema {
    /// The root block.
    #[serde(default)]
    pub(crate) block: Block,
}

/// A block: attributes and nested block types.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Block {
    /// Attributes by name.
    pub(crate) attributes: BTreeMap<String, Attribute>,
    /// Nested block types by name.
    pub(crate) block_types: BTreeMap<String, BlockType>,
}

/// An attribute: a cty type, or a nested attribute type (protocol 6).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Attribute {
    /// The value type, when not a nested type.
    #[serde(rename = "type")]
    pub(crate) type_: Option<CtyType>,
    /// Nested attribute type.
    pub(crate) nested_type: Option<NestedType>,
    /// Declared sensitive: folded into the sensitivity masks by the differ (plans before
    /// Terraform 0.15.2 do not carry it in their masks).
    pub(crate) sensitive: bool,
    /// Write-only: the value never appears in plans.
    pub(crate) write_only: bool,
}

/// A nested attribute type.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct NestedType {
    /// Its attributes.
    #[serde(default)]
    pub(crate) attributes: BTreeMap<String, Attribute>,
    /// How instances nest.
    pub(crate) nesting_mode: NestingMode,
}

/// A nested block type.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct BlockType {
    /// How instances nest.
    pub(crate) nesting_mode: NestingMode,
    /// The nested block's schema.
    #[serde(default)]
    pub(crate) block: Block,
}

/// How nested blocks or nested attributes repeat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum NestingMode {
    /// Exactly one (may be null).
    Single,
    /// Exactly one, never null.
    Group,
    /// An ordered list.
    List,
    /// An unordered set.
    Set,
    /// A map keyed by label.
    Map,
}

/// A cty type as written in schema JSON (`"string"`, `["list","string"]`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CtyType {
    /// `string`
    String,
    /// `number`
    Number,
    /// `bool`
    Bool,
    /// `dynamic`: the type comes from the value.
    Dynamic,
    /// `list(T)`
    List(Box<CtyType>),
    /// `set(T)`
    Set(Box<CtyType>),
    /// `map(T)`
    Map(Box<CtyType>),
    /// `object({...})`
    Object(BTreeMap<String, CtyType>),
    /// `tuple([...])`
    Tuple(Vec<CtyType>),
}

impl CtyType {
    /// Is this a primitive type?
    pub(crate) fn is_primitive(&self) -> bool {
        matches!(self, CtyType::String | CtyType::Number | CtyType::Bool)
    }

    /// Does the type contain `dynamic` anywhere?
    pub(crate) fn has_dynamic(&self) -> bool {
        match self {
            CtyType::Dynamic => true,
            CtyType::String | CtyType::Number | CtyType::Bool => false,
            CtyType::List(t) | CtyType::Set(t) | CtyType::Map(t) => t.has_dynamic(),
            CtyType::Object(attrs) => attrs.values().any(CtyType::has_dynamic),
            CtyType::Tuple(items) => items.iter().any(CtyType::has_dynamic),
        }
    }

    fn from_json(value: &serde_json::Value) -> std::result::Result<CtyType, String> {
        use serde_json::Value as J;
        match value {
            J::String(s) => match s.as_str() {
                "string" => Ok(CtyType::String),
                "number" => Ok(CtyType::Number),
                "bool" => Ok(CtyType::Bool),
                "dynamic" => Ok(CtyType::Dynamic),
                other => Err(format!("unknown primitive type {other:?}")),
            },
            J::Array(parts) => {
                let kind = parts.first().and_then(J::as_str).unwrap_or_default();
                let arg = parts.get(1).ok_or("type is missing its argument")?;
                match kind {
                    "list" => Ok(CtyType::List(Box::new(Self::from_json(arg)?))),
                    "set" => Ok(CtyType::Set(Box::new(Self::from_json(arg)?))),
                    "map" => Ok(CtyType::Map(Box::new(Self::from_json(arg)?))),
                    "object" => {
                        let attrs = arg.as_object().ok_or("object type needs a map")?;
                        let mut out = BTreeMap::new();
                        for (name, ty) in attrs {
                            out.insert(name.clone(), Self::from_json(ty)?);
                        }
                        Ok(CtyType::Object(out))
                    }
                    "tuple" => {
                        let items = arg.as_array().ok_or("tuple type needs a list")?;
                        let items = items
                            .iter()
                            .map(Self::from_json)
                            .collect::<Result<_, _>>()?;
                        Ok(CtyType::Tuple(items))
                    }
                    other => Err(format!("unknown type kind {other:?}")),
                }
            }
            _ => Err("a type must be a string or an array".to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for CtyType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let raw = serde_json::Value::deserialize(deserializer)?;
        CtyType::from_json(&raw).map_err(de::Error::custom)
    }
}

/// Whether the document has a `provider_schemas` member (perhaps empty: a configuration
/// without providers).
fn has_provider_schemas(bytes: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Shape {
        provider_schemas: Option<de::IgnoredAny>,
    }
    serde_json::from_slice::<Shape>(bytes).is_ok_and(|s| s.provider_schemas.is_some())
}

/// Why a document without `provider_schemas` is refused as `--schemas`: a plan given
/// there would otherwise be ignored without a word.
fn no_provider_schemas(bytes: &[u8]) -> &'static str {
    #[derive(Deserialize)]
    struct Shape {
        resource_changes: Option<de::IgnoredAny>,
        planned_values: Option<de::IgnoredAny>,
        configuration: Option<de::IgnoredAny>,
        values: Option<de::IgnoredAny>,
    }
    match serde_json::from_slice::<Shape>(bytes) {
        Ok(s) if s.resource_changes.is_some() || s.planned_values.is_some() || s.configuration.is_some() => {
            "is a plan, not provider schemas; give the plan as PLAN, and `--schemas` the output of `terraform providers schema -json`"
        }
        Ok(s) if s.values.is_some() => {
            "is Terraform state JSON, not provider schemas; give `--schemas` the output of `terraform providers schema -json`"
        }
        _ => "has no `provider_schemas`, so it is not provider schemas; give `--schemas` the output of `terraform providers schema -json` (run after `terraform init`)",
    }
}

impl ProviderSchemas {
    /// Parses `terraform providers schema -json` output.
    pub fn parse(path: &str, bytes: &[u8]) -> Result<ProviderSchemas> {
        // A UTF-8 byte-order mark (Windows PowerShell writes one) is skipped, as for plans.
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(InputError::input(
                path,
                "is empty; expected the output of `terraform providers schema -json`",
            ));
        }
        if crate::input::plan::is_wrapper_output(bytes) {
            return Err(InputError::input(path, crate::input::plan::WRAPPER_PROBLEM));
        }
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let schemas: ProviderSchemas = serde_path_to_error::deserialize(&mut de).map_err(|err| {
            let field = err.path().to_string();
            // serde quotes the offending value: keep only its kind.
            let inner = crate::input::error::without_quoted_value(&err.into_inner().to_string());
            let location = if field == "." || field.is_empty() {
                String::new()
            } else {
                format!(" field `{field}`:")
            };
            InputError::input(
                path,
                format!("is not a provider schema document (`terraform providers schema -json`):{location} {inner}"),
            )
        })?;
        if schemas.provider_schemas.is_empty() && !has_provider_schemas(bytes) {
            return Err(InputError::input(path, no_provider_schemas(bytes)));
        }
        Ok(schemas)
    }

    /// The schema block for a resource (`mode` = `managed`), a data source (`data`) or an
    /// action's config (`action`).
    ///
    /// Provider addresses are matched exactly first, then by their last segment, so a
    /// schema made with OpenTofu (`registry.opentofu.org/...`) still serves a plan that
    /// names the Terraform registry, and legacy short names (`null`) still match.
    pub(crate) fn resource(&self, provider: &str, mode: &str, type_: &str) -> Option<&Block> {
        fn pick<'s>(p: &'s ProviderSchema, mode: &str, type_: &str) -> Option<&'s Block> {
            let table = match mode {
                "data" => &p.data_source_schemas,
                "action" => &p.action_schemas,
                _ => &p.resource_schemas,
            };
            table.get(type_).map(|s| &s.block)
        }
        if let Some(block) = self
            .provider_schemas
            .get(provider)
            .and_then(|p| pick(p, mode, type_))
        {
            return Some(block);
        }
        let short = provider.rsplit('/').next().unwrap_or(provider);
        self.provider_schemas
            .iter()
            .filter(|(name, _)| name.rsplit('/').next() == Some(short))
            .find_map(|(_, p)| pick(p, mode, type_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cty_types() {
        let t: CtyType = serde_json::from_str(
            r#"["object",{"a":["list","string"],"b":["map",["set","number"]],"c":["tuple",["bool","dynamic"]]}]"#,
        )
        .unwrap();
        let CtyType::Object(attrs) = &t else { panic!() };
        assert_eq!(attrs["a"], CtyType::List(Box::new(CtyType::String)));
        assert!(t.has_dynamic());
        assert!(serde_json::from_str::<CtyType>(r#""float""#).is_err());
    }

    #[test]
    fn finds_resources_by_provider_short_name() {
        let doc = br#"{"format_version":"1.0","provider_schemas":{"registry.opentofu.org/hashicorp/null":{"resource_schemas":{"null_resource":{"version":0,"block":{"attributes":{"id":{"type":"string","computed":true}}}}}}}}"#;
        let s = ProviderSchemas::parse("s.json", doc).unwrap();
        assert!(s
            .resource(
                "registry.terraform.io/hashicorp/null",
                "managed",
                "null_resource"
            )
            .is_some());
        assert!(s
            .resource(
                "registry.terraform.io/hashicorp/null",
                "data",
                "null_resource"
            )
            .is_none());
    }
}
