//! Differ, what the provider schemas lack across a whole plan: the scan behind
//! [`crate::diff::PlanHead::undescribed`], which reads the changes [`to_read`] picks and
//! gathers what [`of_change`] finds in each (the rules are in `undescribed.rs`).

use super::plan::Differ;
use super::resource::value_error;
use super::undescribed::{merge, of_change, to_read};
use crate::diff::Undescribed;
use crate::input::error::Result;
use crate::input::plan::{ChangeList, ParsedChange};

impl Differ<'_, '_> {
    /// What the schemas do not describe of the plan's resource changes, drift and
    /// deferred changes (see [`PlanHead::undescribed`]): each change read again, a part
    /// at a time on every core. Nothing without schemas.
    pub(super) fn undescribed(&self) -> Result<Vec<Undescribed>> {
        let Some(schemas) = self.schemas else {
            return Ok(Vec::new());
        };
        let mut found = Vec::new();
        for d in &self.plan.deferred_changes {
            let rc = &d.resource_change;
            let values = ParsedChange::parse(&rc.change)
                .map_err(|e| value_error(self.path, &rc.address, e))?;
            found.extend(of_change(schemas, rc, &values));
        }
        for list in [ChangeList::Changes, ChangeList::Drift] {
            let indexes = to_read(schemas, self.plan.entries(list));
            let parts: Vec<&[usize]> = indexes.chunks(crate::concurrency::PART).collect();
            let scan = |part: &&[usize]| -> Result<Vec<Undescribed>> {
                let mut gaps = Vec::new();
                for &i in *part {
                    let read = self.read_entry(list, i)?;
                    gaps.extend(of_change(schemas, &read.change, &read.values));
                }
                Ok(gaps)
            };
            crate::concurrency::map_ordered(&parts, scan, |gaps| {
                found.extend(gaps);
                Ok(())
            })?;
        }
        Ok(merge(found))
    }
}
