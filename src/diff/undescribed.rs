//! Diff tree, what the provider schemas do not describe: a plan's [`Undescribed`] types
//! (decided by the differ), and the counts and names every renderer states them by.

use serde::Serialize;

/// A resource type the provider schemas given do not fully describe (see
/// [`super::PlanHead::undescribed`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub(crate) struct Undescribed {
    /// The provider's address, as the plan names it.
    pub(crate) provider: String,
    /// A data source type (else a managed resource type).
    pub(crate) data_source: bool,
    /// The type, e.g. `azurerm_linux_web_app`.
    pub(crate) type_: String,
    /// The schemas do not describe the type at all: every attribute of it is shown as
    /// without schemas (`attributes` is then empty).
    pub(crate) missing: bool,
    /// The attributes the type's schema does not declare, as paths from the resource:
    /// names of nested blocks and nested attributes joined by `.` (no index or key), e.g.
    /// `support_plan` or `site_config.extra`; sorted, each once.
    pub(crate) attributes: Vec<String>,
}

impl Undescribed {
    /// The type as configurations write it: `data.TYPE` for a data source.
    pub(crate) fn type_name(&self) -> String {
        match self.data_source {
            true => format!("data.{}", self.type_),
            false => self.type_.clone(),
        }
    }
}

/// How much the schemas leave undescribed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Attributes not declared, over every type.
    pub(crate) attributes: usize,
    /// Types with such attributes.
    pub(crate) types: usize,
    /// Types not described at all.
    pub(crate) missing_types: usize,
}

impl Tally {
    /// The counts of `gaps`.
    pub(crate) fn of(gaps: &[Undescribed]) -> Tally {
        let mut tally = Tally::default();
        for gap in gaps {
            if gap.missing {
                tally.missing_types += 1;
            } else {
                tally.types += 1;
                tally.attributes += gap.attributes.len();
            }
        }
        tally
    }

    /// The counts in words: `7 attributes in 3 types`, `2 whole types`, or both.
    pub(crate) fn words(&self) -> String {
        let n = |count: usize, one: &str, many: &str| {
            format!("{count} {}", if count == 1 { one } else { many })
        };
        let attributes = format!(
            "{} in {}",
            n(self.attributes, "attribute", "attributes"),
            n(self.types, "type", "types")
        );
        let whole = n(self.missing_types, "whole type", "whole types");
        match (self.attributes, self.missing_types) {
            (_, 0) => attributes,
            (0, _) => whole,
            _ => format!("{whole} and {attributes}"),
        }
    }
}

/// What a notice lists, in order: each undescribed attribute as `TYPE.PATH` and each type
/// not described at all as `TYPE`, with its provider and whether it is a whole type.
pub(crate) fn names(gaps: &[Undescribed]) -> impl Iterator<Item = (&str, String, bool)> {
    gaps.iter().flat_map(|gap| {
        let type_name = gap.type_name();
        let whole = gap.missing.then(|| type_name.clone());
        let attributes = gap
            .attributes
            .iter()
            .map(move |a| format!("{type_name}.{a}"));
        whole
            .into_iter()
            .map(|n| (n, true))
            .chain(attributes.map(|n| (n, false)))
            .map(move |(name, whole)| (gap.provider.as_str(), name, whole))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gap(type_: &str, missing: bool, attributes: &[&str]) -> Undescribed {
        Undescribed {
            provider: "p".to_string(),
            data_source: type_ == "d",
            type_: type_.to_string(),
            missing,
            attributes: attributes.iter().map(|a| a.to_string()).collect(),
        }
    }

    #[test]
    fn counts_and_names_attributes_and_whole_types() {
        let gaps = [
            gap("a", false, &["x", "b.y"]),
            gap("d", true, &[]),
            gap("c", false, &["z"]),
        ];
        let tally = Tally::of(&gaps);
        assert_eq!(tally.words(), "1 whole type and 3 attributes in 2 types");
        let listed: Vec<(String, bool)> = names(&gaps).map(|(_, n, w)| (n, w)).collect();
        assert_eq!(
            listed,
            [
                ("a.x".to_string(), false),
                ("a.b.y".to_string(), false),
                ("data.d".to_string(), true),
                ("c.z".to_string(), false)
            ]
        );
        assert_eq!(Tally::of(&gaps[..1]).words(), "2 attributes in 1 type");
        assert_eq!(Tally::of(&gaps[1..2]).words(), "1 whole type");
    }
}
