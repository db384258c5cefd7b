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

/// One message a rule returned; ordered by its fields in turn.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
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

/// A rule conftest would not report because an `exception` rule names it: `exception
/// contains ["tags"]` excepts `deny_tags`, `warn_tags` and `violation_tags`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exception {
    /// The package of the rule.
    pub namespace: String,
    /// The rule excepted (`deny_tags`).
    pub rule: String,
    /// conftest's words for it, the query that matched: `data.main.exception[_][_] ==
    /// "tags"`. Hostile: the rule name comes from a policy file.
    pub message: String,
}

/// A builtin that failed while a rule ran: as in conftest (and OPA without
/// `--strict-builtin-errors`), its expression was undefined and the rule went on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltinError {
    /// The package of the rule.
    pub namespace: String,
    /// The rule's name (`deny_tags`).
    pub rule: String,
    /// The builtin (`to_number`, `plus` for `+`), when its place is known.
    pub builtin: Option<String>,
    /// `file:line:column` of the failure, when known.
    pub location: Option<String>,
    /// What failed, without quoted values (they may come from the plan).
    pub message: String,
}

/// Results of a rule that conftest skips (its `output/result.go` keeps strings and
/// objects only, and a rule whose value is not a collection passes): named, never dropped
/// silently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The package of the rule.
    pub namespace: String,
    /// The rule's name (`deny_tags`).
    pub rule: String,
    /// What was skipped, by kind, never by value: `2 results are neither a string nor an
    /// object (a number, an array)`, `its value is a boolean, not a set of results`.
    pub what: String,
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
    /// Rules excepted by an `exception` rule (neither passed nor failed), one per match of
    /// conftest's query, as conftest counts them.
    pub exceptions: Vec<Exception>,
    /// Builtins that failed (the run goes on, as conftest's does, unless `--policy-strict`).
    pub builtin_errors: Vec<BuiltinError>,
    /// Rules whose results (or value) conftest skips, one entry per rule.
    pub skipped: Vec<Skipped>,
}
