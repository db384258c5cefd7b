//! Pipeline stage, what a plan keeps secret: the parts of a plan's JSON text that can hold
//! a sensitive value, read in one pass; everything else is skipped unparsed, and a change's
//! values are kept as text until a mask says they hold a secret.
//!
//! Contract: each part reads as `serde_json::Value` indexing reads a whole-plan tree: a
//! member of something that is not an object is absent, a list that is not an array is
//! empty, a key given twice keeps its last value.

use std::marker::PhantomData;

use serde::de::{
    Deserialize, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde_json::value::RawValue;
use serde_json::Value;

/// A type read from some members of an object; any other JSON value reads as its default.
pub(super) trait FromMembers<'de>: Default {
    /// Reads the value of `key` from `map` into `self`, or skips it.
    fn member<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error>;
}

/// `T` read leniently from a JSON value ([`FromMembers`]).
#[derive(Debug, Default)]
pub(super) struct Skim<T>(pub T);

impl<'de, T: FromMembers<'de>> Deserialize<'de> for Skim<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(Lenient::<T>(PhantomData))
            .map(Skim)
    }
}

/// The items of an array, each read as `T`; any other JSON value reads as none.
#[derive(Debug)]
pub(super) struct Items<T>(pub Vec<T>);

impl<T> Default for Items<T> {
    fn default() -> Self {
        Items(Vec::new())
    }
}

impl<'de, T: FromMembers<'de>> Deserialize<'de> for Items<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ItemsVisitor::<T>(PhantomData))
    }
}

/// An object's members for [`FromMembers`].
struct Lenient<T>(PhantomData<T>);

/// An array's items for [`Items`].
struct ItemsVisitor<T>(PhantomData<T>);

/// Every visit but the one that fits reads the value as its default.
macro_rules! otherwise_default {
    () => {
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Self::Value::default())
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Self::Value::default())
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Self::Value::default())
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Self::Value::default())
        }
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Self::Value::default())
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(Self::Value::default())
        }
    };
}

impl<'de, T: FromMembers<'de>> Visitor<'de> for Lenient<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let mut value = T::default();
        while let Some(key) = map.next_key::<String>()? {
            value.member(&key, &mut map)?;
        }
        Ok(value)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(T::default())
    }

    otherwise_default!();
}

impl<'de, T: FromMembers<'de>> Visitor<'de> for ItemsVisitor<T> {
    type Value = Items<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Items<T>, A::Error> {
        let mut items = Vec::new();
        while let Some(Skim(item)) = seq.next_element::<Skim<T>>()? {
            items.push(item);
        }
        Ok(Items(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Items<T>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Items::default())
    }

    otherwise_default!();
}

/// The plan: what [`super::sensitive_strings`] reads of it.
#[derive(Debug, Default)]
pub(super) struct Plan<'de> {
    pub(crate) terraform_version: Value,
    pub(crate) format_version: Value,
    pub(crate) resource_changes: Items<ResourceChange<'de>>,
    pub(crate) resource_drift: Items<ResourceChange<'de>>,
    pub(crate) output_changes: Value,
    /// `planned_values.outputs`.
    pub(crate) planned_outputs: Value,
    /// `prior_state.values.outputs`.
    pub(crate) prior_outputs: Value,
    /// `configuration.root_module.variables`.
    pub(crate) declared_variables: Value,
    pub(crate) variables: Value,
}

impl<'de> FromMembers<'de> for Plan<'de> {
    fn member<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "terraform_version" => self.terraform_version = map.next_value()?,
            "format_version" => self.format_version = map.next_value()?,
            "resource_changes" => self.resource_changes = map.next_value()?,
            "resource_drift" => self.resource_drift = map.next_value()?,
            "output_changes" => self.output_changes = map.next_value()?,
            "planned_values" => self.planned_outputs = map.next_value_seed(Dig(&["outputs"]))?,
            "prior_state" => {
                self.prior_outputs = map.next_value_seed(Dig(&["values", "outputs"]))?
            }
            "configuration" => {
                let variables = Dig(&["root_module", "variables"]);
                self.declared_variables = map.next_value_seed(variables)?;
            }
            "variables" => self.variables = map.next_value()?,
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// A resource change (or drift): its provider, mode and type, and its change.
#[derive(Debug, Default)]
pub(super) struct ResourceChange<'de> {
    pub(crate) provider_name: Value,
    pub(crate) mode: Value,
    pub(crate) type_: Value,
    pub(crate) change: Change<'de>,
}

impl<'de> FromMembers<'de> for ResourceChange<'de> {
    fn member<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "provider_name" => self.provider_name = map.next_value()?,
            "mode" => self.mode = map.next_value()?,
            "type" => self.type_ = map.next_value()?,
            "change" => self.change = map.next_value::<Skim<Change>>()?.0,
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// A change's values as text, and its masks.
#[derive(Debug, Default)]
pub(super) struct Change<'de> {
    pub(crate) before: Option<&'de RawValue>,
    pub(crate) after: Option<&'de RawValue>,
    pub(crate) before_sensitive: Value,
    pub(crate) after_sensitive: Value,
}

impl<'de> FromMembers<'de> for Change<'de> {
    fn member<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "before" => self.before = Some(map.next_value()?),
            "after" => self.after = Some(map.next_value()?),
            "before_sensitive" => self.before_sensitive = map.next_value()?,
            "after_sensitive" => self.after_sensitive = map.next_value()?,
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

impl Change<'_> {
    /// `before` or `after` parsed: null when absent.
    pub(super) fn value(raw: Option<&RawValue>) -> Value {
        raw.and_then(|r| serde_json::from_str(r.get()).ok())
            .unwrap_or(Value::Null)
    }
}

/// The value at a path of object members below a JSON value (`["values", "outputs"]`
/// below `prior_state`): null where a step finds no object or no such member.
struct Dig(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for Dig {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        match self.0 {
            [] => Value::deserialize(deserializer),
            _ => deserializer.deserialize_any(self),
        }
    }
}

impl<'de> Visitor<'de> for Dig {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut value = Value::Null;
        while let Some(key) = map.next_key::<String>()? {
            if key == self.0[0] {
                value = map.next_value_seed(Dig(&self.0[1..]))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(value)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Value::Null)
    }

    otherwise_default!();
}
