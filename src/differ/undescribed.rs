//! Differ: what a provider schema does not describe. A schema older than the provider that
//! made the plan lacks the attributes added since, yet the plan's values hold them.
//!
//! Contract: [`complete`] finds every key of the values that a schema block does not
//! declare (at every level: the resource, its nested blocks, its nested attribute types)
//! and returns the block with a declaration for each, inferred from the values as the
//! schemaless path infers one (`differ::infer`), so that nothing is left out of the diff;
//! [`paths`] names those attributes for the plan's notice ([`crate::diff::Undescribed`]).
//! Values marked sensitive are not looked into, as in inference.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::infer;
use crate::diff::Undescribed;
use crate::input::json::Value;
use crate::input::plan::{ChangeEntry, ParsedChange, ResourceChange};
use crate::input::schema::{Attribute, Block, BlockType, CtyType, NestingMode, ProviderSchemas};

type Attributes = BTreeMap<String, Attribute>;
type BlockTypes = BTreeMap<String, BlockType>;

/// A nested attribute type has no block types.
static NO_BLOCK_TYPES: BlockTypes = BTreeMap::new();

/// The values a change's diff is made from, redacted where they are sensitive (see
/// [`infer::redacted`]): inference and this walk learn nothing from a sensitive value.
pub(crate) struct Redacted<'v, 'a> {
    before: Option<Value<'a>>,
    after: Option<Value<'a>>,
    unknown: Option<Value<'a>>,
    values: [&'v Value<'a>; 3],
}

impl<'v, 'a> Redacted<'v, 'a> {
    /// `before`, `after` and `after_unknown` with what their masks mark left out.
    pub(crate) fn new(values: &'v ParsedChange<'a>) -> Self {
        let (before, after, unknown) = (&values.before, &values.after, &values.after_unknown);
        Redacted {
            before: infer::redacted(before, &values.before_sensitive),
            after: infer::redacted(after, &values.after_sensitive),
            unknown: infer::redacted(unknown, &values.after_sensitive),
            values: [before, after, unknown],
        }
    }

    /// The sample objects (before, after) and the unknown mask.
    pub(crate) fn parts(&self) -> ([&Value<'a>; 2], &Value<'a>) {
        let [before, after, unknown] = self.values;
        (
            [
                self.before.as_ref().unwrap_or(before),
                self.after.as_ref().unwrap_or(after),
            ],
            self.unknown.as_ref().unwrap_or(unknown),
        )
    }
}

/// `block` with a declaration inferred for every attribute of `objects` (before, after)
/// and `unknown` (the unknown mask) that it does not declare, at every level; `None` when
/// it declares them all (nearly always: nothing is copied then). `hide_secret_names`:
/// mark inferred attributes named like secrets sensitive (see
/// [`infer::mark_secret_names`]).
pub(crate) fn complete(
    block: &Block,
    objects: &[&Value<'_>],
    unknown: &Value<'_>,
    hide_secret_names: bool,
) -> Option<Block> {
    let mut walk = Walk {
        path: String::new(),
        found: None,
        hide_secret_names,
    };
    walk.level(&block.attributes, &block.block_types, objects, &[unknown])
}

/// The paths of the attributes `block` does not declare (see [`complete`]), sorted.
pub(crate) fn paths(block: &Block, objects: &[&Value<'_>], unknown: &Value<'_>) -> Vec<String> {
    let mut walk = Walk {
        path: String::new(),
        found: Some(BTreeSet::new()),
        hide_secret_names: false,
    };
    walk.level(&block.attributes, &block.block_types, objects, &[unknown]);
    walk.found.unwrap_or_default().into_iter().collect()
}

/// What the schemas leave undescribed of one change: its type entirely, or some of its
/// attributes; `None` when they describe it all.
pub(crate) fn of_change(
    schemas: &ProviderSchemas,
    rc: &ResourceChange<'_>,
    values: &ParsedChange<'_>,
) -> Option<Undescribed> {
    let gap = |missing, attributes| Undescribed {
        provider: rc.provider_name.to_string(),
        data_source: rc.mode == "data",
        type_: rc.type_.to_string(),
        missing,
        attributes,
    };
    let Some(block) = schemas.resource(&rc.provider_name, &rc.mode, &rc.type_) else {
        return Some(gap(true, Vec::new()));
    };
    let redacted = Redacted::new(values);
    let (objects, unknown) = redacted.parts();
    let attributes = paths(block, &objects, unknown);
    (!attributes.is_empty()).then(|| gap(false, attributes))
}

/// The entries whose values [`of_change`] must read to find everything the schemas leave
/// undescribed: for a type whose schema is flat (no nested block, nested attribute type
/// or attribute of an object type), the first instance only, as Terraform writes every object with all of its
/// type's attributes, so each instance of a type has the same keys and lacks the same
/// ones; every instance of other types (and of types no schema has a flat block for),
/// whose nested blocks' keys show only where they have elements. Reading every change
/// again costs a render of a 10,000-resource plan with schemas most of its time
/// (docs/performance.md); a plan of flat types pays for one change per type.
pub(crate) fn to_read(schemas: &ProviderSchemas, entries: &[ChangeEntry<'_>]) -> Vec<usize> {
    let mut flat: HashMap<(&str, bool), bool> = HashMap::new();
    let mut seen: HashSet<(&str, bool)> = HashSet::new();
    (0..entries.len())
        .filter(|&i| {
            let key = (&*entries[i].type_, entries[i].data_source);
            let is_flat = *flat
                .entry(key)
                .or_insert_with(|| is_flat(schemas, key.0, key.1));
            !is_flat || seen.insert(key)
        })
        .collect()
}

/// Whether every provider's schema for the type is flat: only attributes of types
/// without objects
/// (a type no schema has is missing alike from every instance).
fn is_flat(schemas: &ProviderSchemas, type_: &str, data_source: bool) -> bool {
    let mut blocks = schemas.provider_schemas.values().filter_map(|p| {
        let table = match data_source {
            true => &p.data_source_schemas,
            false => &p.resource_schemas,
        };
        table.get(type_).map(|s| &s.block)
    });
    blocks
        .all(|b| b.block_types.is_empty() && b.attributes.values().all(|a| a.nested_type.is_none()))
}

/// Gathers what the changes' [`of_change`] found into one entry per type, sorted.
pub(crate) fn merge(found: impl IntoIterator<Item = Undescribed>) -> Vec<Undescribed> {
    let mut types: BTreeMap<(String, bool, String), (bool, BTreeSet<String>)> = BTreeMap::new();
    for u in found {
        let entry = types
            .entry((u.provider, u.data_source, u.type_))
            .or_default();
        entry.0 |= u.missing;
        entry.1.extend(u.attributes);
    }
    types
        .into_iter()
        .map(
            |((provider, data_source, type_), (missing, attributes))| Undescribed {
                provider,
                data_source,
                type_,
                missing,
                attributes: match missing {
                    true => Vec::new(),
                    false => attributes.into_iter().collect(),
                },
            },
        )
        .collect()
}

struct Walk {
    /// The level's path from the resource (`a.b`), empty at the top.
    path: String,
    /// The paths found, when asked for.
    found: Option<BTreeSet<String>>,
    hide_secret_names: bool,
}

impl Walk {
    /// One object level declared by `attributes` and `block_types`, whose values are
    /// `objects` (any not an object is skipped) and whose unknown masks are `unknown`:
    /// the completed declarations, or `None` when nothing is missing at or below it.
    fn level(
        &mut self,
        attributes: &Attributes,
        block_types: &BlockTypes,
        objects: &[&Value<'_>],
        unknown: &[&Value<'_>],
    ) -> Option<Block> {
        let declared = |key: &str| attributes.contains_key(key) || block_types.contains_key(key);
        let mut completed: Option<Block> = None;
        let copy = || Block {
            attributes: attributes.clone(),
            block_types: block_types.clone(),
        };
        let extra = undeclared(objects.iter().chain(unknown), declared);
        if !extra.is_empty() {
            let merged = infer::merge_objects(unknown);
            let mut inferred = infer::infer_block(objects, merged.as_ref(), None);
            if self.hide_secret_names {
                infer::mark_secret_names(&mut inferred);
            }
            let out = completed.get_or_insert_with(copy);
            for key in extra {
                self.note(key);
                if let Some(attr) = inferred.attributes.remove(key) {
                    out.attributes.insert(key.to_string(), attr);
                }
            }
        }
        for (name, block_type) in block_types {
            let mode = block_type.nesting_mode;
            let (objs, unk) = (elements(objects, name, mode), elements(unknown, name, mode));
            if objs.is_empty() && unk.is_empty() {
                continue;
            }
            let inner = &block_type.block;
            let done = self.at(name, |w| {
                w.level(&inner.attributes, &inner.block_types, &objs, &unk)
            });
            if let Some(done) = done {
                let out = completed.get_or_insert_with(copy);
                if let Some(b) = out.block_types.get_mut(name) {
                    b.block = done;
                }
            }
        }
        for (name, attr) in attributes {
            let Some(nested) = &attr.nested_type else {
                continue;
            };
            let mode = nested.nesting_mode;
            let (objs, unk) = (elements(objects, name, mode), elements(unknown, name, mode));
            if objs.is_empty() && unk.is_empty() {
                continue;
            }
            let done = self.at(name, |w| {
                w.level(&nested.attributes, &NO_BLOCK_TYPES, &objs, &unk)
            });
            if let Some(done) = done {
                let out = completed.get_or_insert_with(copy);
                let inner = out
                    .attributes
                    .get_mut(name)
                    .and_then(|a| a.nested_type.as_mut());
                if let Some(inner) = inner {
                    inner.attributes = done.attributes;
                }
            }
        }
        for (name, attr) in attributes {
            let Some(ty) = attr.type_.as_ref().filter(|t| has_object(t)) else {
                continue;
            };
            let (values, unk) = (members(objects, name), members(unknown, name));
            if values.is_empty() && unk.is_empty() {
                continue;
            }
            let done = self.at(name, |w| w.typed(ty, &values, &unk));
            if let Some(done) = done {
                let out = completed.get_or_insert_with(copy);
                if let Some(a) = out.attributes.get_mut(name) {
                    a.type_ = Some(done);
                }
            }
        }
        completed
    }

    /// `ty` with a `dynamic` field (its type read from the value, as without a schema)
    /// for every key its object types lack in `values` (with `unknown` their unknown
    /// masks), at any depth; `None` when they lack none.
    fn typed(
        &mut self,
        ty: &CtyType,
        values: &[&Value<'_>],
        unknown: &[&Value<'_>],
    ) -> Option<CtyType> {
        match ty {
            CtyType::Object(fields) => {
                let mut out: Option<BTreeMap<String, CtyType>> = None;
                let extra = undeclared(values.iter().chain(unknown), |k| fields.contains_key(k));
                for key in extra {
                    self.note(key);
                    out.get_or_insert_with(|| fields.clone())
                        .insert(key.to_string(), CtyType::Dynamic);
                }
                for (field, field_type) in fields.iter().filter(|(_, t)| has_object(t)) {
                    let (vs, us) = (members(values, field), members(unknown, field));
                    let done = self.at(field, |w| w.typed(field_type, &vs, &us));
                    if let Some(done) = done {
                        out.get_or_insert_with(|| fields.clone())
                            .insert(field.clone(), done);
                    }
                }
                out.map(CtyType::Object)
            }
            CtyType::List(element) | CtyType::Set(element) | CtyType::Map(element) => {
                let (vs, us) = (items(values), items(unknown));
                let done = Box::new(self.typed(element, &vs, &us)?);
                Some(match ty {
                    CtyType::List(_) => CtyType::List(done),
                    CtyType::Set(_) => CtyType::Set(done),
                    _ => CtyType::Map(done),
                })
            }
            _ => None,
        }
    }

    /// What `inner` finds one level down, at `name`.
    fn at<T>(&mut self, name: &str, inner: impl FnOnce(&mut Self) -> T) -> T {
        let len = self.path.len();
        if len > 0 {
            self.path.push('.');
        }
        self.path.push_str(name);
        let found = inner(self);
        self.path.truncate(len);
        found
    }

    fn note(&mut self, key: &str) {
        if let Some(found) = &mut self.found {
            let path = match self.path.is_empty() {
                true => key.to_string(),
                false => format!("{}.{key}", self.path),
            };
            found.insert(path);
        }
    }
}

/// The keys of `objects` that `declared` does not know, sorted (no allocation when there
/// are none).
fn undeclared<'v>(
    objects: impl Iterator<Item = &'v &'v Value<'v>>,
    declared: impl Fn(&str) -> bool,
) -> BTreeSet<&'v str> {
    let mut extra = BTreeSet::new();
    for object in objects {
        if let Value::Object(members) = object {
            for (key, _) in members {
                if !declared(key) {
                    extra.insert(key.as_ref());
                }
            }
        }
    }
    extra
}

/// Whether `ty` holds an object type, whose fields a stale schema may lack.
pub(crate) fn has_object(ty: &CtyType) -> bool {
    match ty {
        CtyType::Object(_) => true,
        CtyType::List(e) | CtyType::Set(e) | CtyType::Map(e) => has_object(e),
        CtyType::Tuple(types) => types.iter().any(has_object),
        _ => false,
    }
}

/// Member `name` of each of `objects` that has it.
fn members<'v, 'a>(objects: &[&'v Value<'a>], name: &str) -> Vec<&'v Value<'a>> {
    objects.iter().filter_map(|o| o.get(name)).collect()
}

/// The elements of each array and the values of each object in `values`.
fn items<'v, 'a>(values: &[&'v Value<'a>]) -> Vec<&'v Value<'a>> {
    let mut out = Vec::new();
    for value in values {
        match value {
            Value::Array(items) => out.extend(items),
            Value::Object(members) => out.extend(members.iter().map(|(_, v)| v)),
            _ => {}
        }
    }
    out
}

/// The objects nested under `name` in each of `objects`, as `mode` nests them: the object
/// itself, a list's or set's elements, a map's values.
fn elements<'v, 'a>(
    objects: &[&'v Value<'a>],
    name: &str,
    mode: NestingMode,
) -> Vec<&'v Value<'a>> {
    let mut out = Vec::new();
    for object in objects {
        match (object.get(name), mode) {
            (Some(v @ Value::Object(_)), NestingMode::Single | NestingMode::Group) => out.push(v),
            (Some(Value::Array(items)), NestingMode::List | NestingMode::Set) => out.extend(items),
            (Some(Value::Object(members)), NestingMode::Map) => {
                out.extend(members.iter().map(|(_, v)| v))
            }
            _ => {}
        }
    }
    out.retain(|v| matches!(v, Value::Object(_)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_an_object_type_lacks_are_named_and_completed() {
        let schema: Block = serde_json::from_str(
            r#"{"attributes":{"settings":{"type":["object",{"tier":"string"}]},
            "rules":{"type":["list",["object",{"port":"number"}]]}}}"#,
        )
        .unwrap();
        let value = Value::parse(
            r#"{"settings":{"tier":"basic","support_plan":"premium"},
            "rules":[{"port":80,"note":"web"}]}"#,
        )
        .unwrap();
        let objects = [&value];
        assert_eq!(
            paths(&schema, &objects, &Value::Null),
            ["rules.note", "settings.support_plan"]
        );
        let completed = complete(&schema, &objects, &Value::Null, false).unwrap();
        let CtyType::Object(fields) = completed.attributes["settings"].type_.clone().unwrap()
        else {
            panic!("settings is an object type")
        };
        assert_eq!(fields.get("support_plan"), Some(&CtyType::Dynamic));
        // Types that hold objects are not flat: each instance is read for the notice.
        let flat: Block =
            serde_json::from_str(r#"{"attributes":{"id":{"type":"string"}}}"#).unwrap();
        assert!(!has_object(&CtyType::Map(Box::new(CtyType::String))));
        assert!(flat
            .attributes
            .values()
            .all(|a| !a.type_.as_ref().is_some_and(has_object)));
        assert!(has_object(&CtyType::List(Box::new(CtyType::Object(
            BTreeMap::new()
        )))));
    }
}
