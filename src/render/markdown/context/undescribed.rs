//! Markdown renderer, template context: what the provider schemas given do not describe
//! in a plan ([`crate::diff::PlanHead::undescribed`], decided by the differ), laid out as
//! its counts and the first few names by provider.

use schemars::JsonSchema;
use serde::Serialize;

use crate::diff::undescribed::{names, Tally, Undescribed};
use crate::render::markdown::phrases::shorten;

/// Names listed before the rest is counted.
const LISTED: usize = 5;
/// Longest name listed, in characters (names are plan keys: hostile and unbounded).
const NAME_CHARS: usize = 120;

/// What the provider schemas given (`--schemas`) do not describe in a plan.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct UndescribedContext {
    /// Attributes the schemas do not declare, over every type.
    pub(crate) attributes: usize,
    /// Types with such attributes.
    pub(crate) types: usize,
    /// Types the schemas do not describe at all.
    pub(crate) whole_types: usize,
    /// The counts in words, e.g. `7 attributes in 3 types`.
    pub(crate) tally: String,
    /// The first few names, by provider, in order.
    pub(crate) providers: Vec<UndescribedProvider>,
    /// Names not listed.
    pub(crate) more: usize,
}

/// One provider's names listed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct UndescribedProvider {
    /// The provider's address as the plan names it.
    pub(crate) provider: String,
    /// Its names listed.
    pub(crate) names: Vec<UndescribedName>,
}

/// One name listed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct UndescribedName {
    /// `TYPE.PATH` for an attribute (nested names joined by `.`), `TYPE` for a whole type
    /// (`data.TYPE` for a data source), shortened past 120 characters.
    pub(crate) name: String,
    /// The schemas do not describe this type at all.
    pub(crate) whole_type: bool,
}

/// The context for `gaps`; `None` when there are none.
pub(super) fn undescribed_context(gaps: &[Undescribed]) -> Option<UndescribedContext> {
    if gaps.is_empty() {
        return None;
    }
    let tally = Tally::of(gaps);
    let mut providers: Vec<UndescribedProvider> = Vec::new();
    let mut total = 0;
    for (provider, name, whole_type) in names(gaps) {
        total += 1;
        if total > LISTED {
            continue;
        }
        let name = UndescribedName {
            name: shorten(&name, NAME_CHARS),
            whole_type,
        };
        match providers.last_mut() {
            Some(last) if last.provider == provider => last.names.push(name),
            _ => providers.push(UndescribedProvider {
                provider: shorten(provider, NAME_CHARS),
                names: vec![name],
            }),
        }
    }
    Some(UndescribedContext {
        attributes: tally.attributes,
        types: tally.types,
        whole_types: tally.missing_types,
        tally: tally.words(),
        providers,
        more: total.saturating_sub(LISTED),
    })
}
