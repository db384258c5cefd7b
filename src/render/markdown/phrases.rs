//! Markdown renderer, phrases: action names, icons, risk order, counts and `action_reason`
//! as a phrase a reviewer understands. Phrases are segments (plain or code) so each output
//! context can escape them its own way.

use schemars::JsonSchema;
use serde::Serialize;

use crate::diff::{ActionReason, ResourceDiff, ResourceSummary};
use crate::input::plan::ResourceAction;

/// A piece of a phrase: plain words, or a name/value to show as code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub(crate) struct Segment {
    /// The text (unescaped).
    pub(crate) text: String,
    /// Show as code (it names something from the plan or configuration).
    pub(crate) is_code: bool,
}

/// Plain words.
pub(super) fn words(text: &str) -> Segment {
    Segment {
        text: text.to_string(),
        is_code: false,
    }
}

/// A name or value from the plan or configuration, shown as code.
pub(super) fn code(text: &str) -> Segment {
    Segment {
        text: text.to_string(),
        is_code: true,
    }
}

/// The kind of change a resource entry shows, in the comment's vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Kind {
    /// Destroyed.
    Delete,
    /// Destroyed and re-created (either order), or re-created and the old one forgotten.
    Replace,
    /// Updated in place.
    Update,
    /// Created.
    Create,
    /// A data source read during apply.
    Read,
    /// Removed from state, not destroyed.
    Forget,
    /// Imported into state.
    Import,
    /// Moved to a new address, nothing else.
    Move,
    /// An action this version does not know.
    Unknown,
}

impl Kind {
    /// Every kind in risk order (the order of the comment).
    pub(crate) const ALL: [Kind; 9] = [
        Kind::Delete,
        Kind::Replace,
        Kind::Update,
        Kind::Create,
        Kind::Read,
        Kind::Forget,
        Kind::Import,
        Kind::Move,
        Kind::Unknown,
    ];

    /// The kind's place in risk order: its index in [`Kind::ALL`], which lists the kinds
    /// in the order they are declared (a test checks it).
    pub(crate) fn risk(self) -> usize {
        self as usize
    }

    /// Classifies a resource change.
    pub(crate) fn of(r: &ResourceDiff) -> Kind {
        Kind::of_action(&r.action, r.importing.is_some())
    }

    /// Classifies a resource change from its summary.
    pub(crate) fn of_summary(r: &ResourceSummary) -> Kind {
        Kind::of_action(&r.action, r.importing)
    }

    fn of_action(action: &ResourceAction, importing: bool) -> Kind {
        match action {
            ResourceAction::Delete => Kind::Delete,
            a if a.is_replace() => Kind::Replace,
            ResourceAction::Update => Kind::Update,
            ResourceAction::Create => Kind::Create,
            ResourceAction::Read => Kind::Read,
            ResourceAction::Forget => Kind::Forget,
            ResourceAction::NoOp if importing => Kind::Import,
            ResourceAction::NoOp => Kind::Move,
            _ => Kind::Unknown,
        }
    }

    /// Destroys something (the danger banner lists these).
    pub(crate) fn is_dangerous(self) -> bool {
        matches!(self, Kind::Delete | Kind::Replace)
    }

    /// The word used in the comment.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Kind::Delete => "destroy",
            Kind::Replace => "replace",
            Kind::Update => "update",
            Kind::Create => "create",
            Kind::Read => "read",
            Kind::Forget => "forget",
            Kind::Import => "import",
            Kind::Move => "move",
            Kind::Unknown => "unknown action",
        }
    }

    /// The icon shown before entries of this kind.
    pub(crate) fn icon(self) -> &'static str {
        icon(self.label())
    }
}

/// The icon for an action word or plan status (`❔` for anything unknown).
pub(crate) fn icon(name: &str) -> &'static str {
    match name {
        "destroy" | "delete" => "🔴",
        "replace" => "🟠",
        "update" | "change" => "🟡",
        "create" | "add" => "🟢",
        "read" => "🔵",
        "forget" => "⚪",
        "import" => "📥",
        "move" => "🚚",
        "drift" => "🌀",
        "outputs" => "📤",
        "deferred" => "⏳",
        "invoke" => "⚡",
        "failed" | "fail" | "error" => "❌",
        "warning" | "incomplete" => "⚠️",
        "pass" | "applied" => "✅",
        "not-reached" => "⬜",
        "destructive" => "🟥",
        "changes" => "🟨",
        "no-changes" => "🟩",
        _ => "❔",
    }
}

/// Why an entry does what it does, in words; `forced_by` lists attributes whose change
/// forces the replacement (from `replace_paths`).
pub(crate) fn reason(r: &ResourceDiff, forced_by: &[String]) -> Vec<Segment> {
    let index = r.index.as_deref().unwrap_or("");
    let mut phrase = match r.reason {
        Some(ActionReason::ReplaceBecauseTainted) => vec![words("tainted")],
        Some(ActionReason::ReplaceByRequest) => {
            vec![words("requested with "), code("-replace")]
        }
        Some(ActionReason::ReplaceByTriggers) => {
            vec![code("replace_triggered_by"), words(" changed")]
        }
        Some(ActionReason::ReplaceBecauseCannotUpdate) | None if !forced_by.is_empty() => {
            forces(forced_by)
        }
        Some(ActionReason::ReplaceBecauseCannotUpdate) => {
            vec![words("cannot be updated in place")]
        }
        Some(ActionReason::DeleteBecauseNoResourceConfig) => {
            vec![words("removed from configuration")]
        }
        Some(ActionReason::DeleteBecauseWrongRepetition) => {
            vec![words(match index.trim().chars().next() {
                None | Some('n') => "count or for_each was added",
                Some('"') => "for_each was removed",
                Some(_) => "count was removed",
            })]
        }
        Some(ActionReason::DeleteBecauseCountIndex) => vec![
            words("count reduced (index "),
            code(index),
            words(" out of range)"),
        ],
        Some(ActionReason::DeleteBecauseEachKey) => {
            vec![words("key "), code(index), words(" removed from for_each")]
        }
        Some(ActionReason::DeleteBecauseNoModule) => vec![
            words("module "),
            code(r.module_address.as_deref().unwrap_or("")),
            words(" removed from configuration"),
        ],
        Some(ActionReason::DeleteBecauseNoMoveTarget) => vec![
            words("moved to "),
            code(&r.address),
            words(", which is not in configuration"),
        ],
        Some(ActionReason::DeleteBecauseEnabledFalse) => {
            vec![code("enabled"), words(" is false")]
        }
        Some(ActionReason::ReadBecauseConfigUnknown) => {
            vec![words("configuration refers to values not yet known")]
        }
        Some(ActionReason::ReadBecauseDependencyPending) => {
            vec![words("a dependency has changes pending")]
        }
        Some(ActionReason::ReadBecauseCheckNested) => {
            vec![words("re-read to verify a check block")]
        }
        None => Vec::new(),
    };
    let mut extra = |segments: Vec<Segment>| {
        if !phrase.is_empty() {
            phrase.push(words("; "));
        }
        phrase.extend(segments);
    };
    if r.deposed.as_deref().is_some_and(|d| !d.is_empty()) {
        extra(vec![words("deposed object left from a failed replacement")]);
    }
    if let Some(previous) = r.moved_from() {
        extra(vec![words("moved from "), code(previous)]);
    }
    match r.importing.as_deref() {
        Some("") => extra(vec![words("imported")]),
        Some(id) => extra(vec![words("imported from "), code(id)]),
        None => {}
    }
    if r.generated_config {
        extra(vec![words("configuration will be generated")]);
    }
    phrase
}

fn forces(attributes: &[String]) -> Vec<Segment> {
    const SHOWN: usize = 3;
    let mut phrase = vec![words("change to ")];
    for (i, attribute) in attributes.iter().take(SHOWN).enumerate() {
        if i > 0 {
            phrase.push(words(", "));
        }
        phrase.push(code(attribute));
    }
    if attributes.len() > SHOWN {
        phrase.push(words(&format!(" and {} more", attributes.len() - SHOWN)));
    }
    phrase.push(words(if attributes.len() == 1 {
        " forces replacement"
    } else {
        " force replacement"
    }));
    phrase
}

/// The phrase as plain text (for JSON consumers and plain contexts).
pub(crate) fn plain(phrase: &[Segment]) -> String {
    phrase.iter().map(|s| s.text.as_str()).collect()
}

/// `1 resource`, `2 resources`, with thousands separators.
pub(crate) fn count_noun(n: usize, singular: &str, plural: &str) -> String {
    format!(
        "{} {}",
        thousands(n),
        if n == 1 { singular } else { plural }
    )
}

/// `text` cut after `max` characters, with `…` when anything was cut.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// `12345` → `12,345`.
pub(crate) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_shortened_on_a_character_boundary() {
        assert_eq!(shorten("ééé", 2), "éé…");
        assert_eq!(shorten("abc", 3), "abc");
    }

    #[test]
    fn risk_is_the_place_in_all() {
        for (i, kind) in Kind::ALL.iter().enumerate() {
            assert_eq!(kind.risk(), i, "{kind:?}");
        }
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(count_noun(1, "check", "checks"), "1 check");
        assert_eq!(count_noun(10000, "check", "checks"), "10,000 checks");
    }

    #[test]
    fn forced_attributes_read_naturally() {
        let phrase = forces(&["ami".into()]);
        assert_eq!(plain(&phrase), "change to ami forces replacement");
        let many: Vec<String> = ["a", "b", "c", "d"].iter().map(|s| s.to_string()).collect();
        assert_eq!(
            plain(&forces(&many)),
            "change to a, b, c and 1 more force replacement"
        );
    }
}
