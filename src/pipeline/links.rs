//! Pipeline stage, links: where each plan's changes are declared in the pull request's
//! files ([`super::CodeSite`]), read for the comment's links and the annotations.
//!
//! Contract: reads only `.tf` files under the configuration's directories and never fails
//! the run: what it cannot read is said once on standard error, and its blocks get no
//! links. Without a repository, a commit and a server it can link to, nothing is read.

use std::collections::HashSet;

use super::options::{Options, PlanArg};
use crate::input::config::Declarations;
use crate::input::plan::Plan;
use crate::render::links::{Links, Repository};

/// Each plan's links, in the plans' order; none at all when `options` asks for none or
/// they cannot be made (said on standard error).
pub(super) fn read<'p, 'a: 'p>(
    options: &Options,
    plans: impl Iterator<Item = (&'p PlanArg, &'p Plan<'a>)>,
) -> Vec<Option<Links>> {
    let Some(site) = &options.code else {
        return Vec::new();
    };
    let Some(repository) = Repository::new(&site.server, &site.repository, &site.commit) else {
        eprintln!(
            "planmark: warning: no links to the code: {} is not a server URL, `owner/name` and full commit SHA planmark can link with; pass --repo OWNER/NAME and --commit SHA",
            crate::input::text::one_line(&format!(
                "{} {} {}",
                site.server, site.repository, site.commit
            ))
        );
        return Vec::new();
    };
    let mut said = HashSet::new();
    plans
        .map(|(arg, plan)| {
            // One directory for every plan, or one per plan argument (a file of several
            // documents is one argument).
            let i = (options.plans.iter().position(|a| a == arg))
                .or_else(|| options.plans.iter().position(|a| a.path == arg.path));
            let dir = match site.config_dirs.as_slice() {
                [one] => one,
                dirs => dirs.get(i?)?,
            };
            let configuration = plan.configuration.map(|c| c.get());
            let declarations = Declarations::read(dir, configuration);
            // Run elsewhere than the configuration without --config-dir, as many workflows
            // do: no links, and nothing asked that needs a word.
            if !declarations.configured && !site.dirs_given {
                return None;
            }
            for warning in &declarations.warnings {
                if said.insert(warning.clone()) {
                    eprintln!("planmark: warning: {warning}");
                }
            }
            Some(Links {
                repository: repository.clone(),
                root: site.root.clone(),
                declarations,
            })
        })
        .collect()
}
