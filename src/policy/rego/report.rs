//! Policy stage: what the team's Rego rules said about one plan, the contract between
//! the Rego evaluation and the renderers.

/// Whether a finding fails the job or only warns, from the rule's name as conftest reads
/// it: `deny`/`violation` (and `deny_*`/`violation_*`) fail, `warn` (`warn_*`) warns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// A `deny` or `violation` rule returned this finding.
    Failure,
    /// A `warn` rule returned this finding.
    Warning,
}

/// One message a rule returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Failure or warning.
    pub level: Level,
    /// The package the rule is in, as written after `package` (`main`).
    pub namespace: String,
    /// The rule's name (`deny`, `warn_untagged`).
    pub rule: String,
    /// The message: the string the rule returned, or its object's `msg` field. Hostile:
    /// it comes from a policy file that a pull request may change.
    pub message: String,
    /// The resource address the finding names (an object's `resource` field when it is a
    /// string), so the comment can link to that resource's diff. Hostile like `message`.
    pub resource: Option<String>,
}

/// The Rego verdict for one plan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PolicyReport {
    /// Findings of `deny`/`violation` rules, in a stable order (namespace, rule, message).
    pub failures: Vec<Finding>,
    /// Findings of `warn` rules, in the same order.
    pub warnings: Vec<Finding>,
    /// How many rules were evaluated (every `deny*`, `violation*` and `warn*` rule of the
    /// namespaces read).
    pub rules: usize,
    /// How many of those returned nothing.
    pub passed: usize,
}

impl PolicyReport {
    /// Whether any rule failed.
    pub fn failed(&self) -> bool {
        !self.failures.is_empty()
    }
}
