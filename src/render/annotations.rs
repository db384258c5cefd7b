//! Render stage, annotations: GitHub Actions workflow commands (`::warning file=…::…`,
//! `::error …`) that show a change or a finding beside its line in "Files changed".
//!
//! Contract: one line per annotation, escaped as the runner unescapes them (data: `%`, CR,
//! LF; properties: also `:` and `,`), so nothing in a name or message can end the command
//! or start another; at most [`SHOWN`] of each level, the rest counted in one more
//! annotation of that level, as GitHub shows no more per step. The caller prints these
//! lines outside any `::stop-commands::` pause (they are commands).
//!
//! See <https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands>.

use std::fmt::Write;

/// GitHub shows at most this many annotations of each level for a step.
pub(crate) const SHOWN: usize = 10;

/// How loud an annotation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    /// A destroy, a replacement, a policy warning.
    Warning,
    /// A policy failure, a failed check.
    Error,
}

impl Level {
    fn command(self) -> &'static str {
        match self {
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

/// One annotation: where (a repository file and line, when known) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Annotation {
    /// How loud.
    pub(crate) level: Level,
    /// The file, relative to the repository's root, with its line.
    pub(crate) place: Option<(String, usize)>,
    /// A short title (an address, a rule's name).
    pub(crate) title: String,
    /// The message.
    pub(crate) message: String,
}

/// The workflow-command lines for `annotations`, in their order within each level:
/// warnings first, then errors, each level capped at [`SHOWN`].
pub(crate) fn lines(annotations: &[Annotation]) -> String {
    let mut out = String::new();
    for level in [Level::Warning, Level::Error] {
        let all: Vec<&Annotation> = annotations.iter().filter(|a| a.level == level).collect();
        let shown = if all.len() > SHOWN {
            SHOWN - 1
        } else {
            all.len()
        };
        for a in &all[..shown] {
            line(&mut out, a);
        }
        let more = all.len() - shown;
        if more > 0 {
            let what = format!("{}s", level.command());
            let summary = Annotation {
                level,
                place: None,
                title: format!("planmark: {more} more {what}"),
                message: format!(
                    "{more} more {what} than GitHub shows for a step: planmark's comment (or its output in this job's log) has them all"
                ),
            };
            line(&mut out, &summary);
        }
    }
    out
}

fn line(out: &mut String, a: &Annotation) {
    let _ = write!(out, "::{}", a.level.command());
    let mut separator = ' ';
    if let Some((file, number)) = &a.place {
        let _ = write!(out, "{separator}file={},line={number}", property(file));
        separator = ',';
    }
    if !a.title.is_empty() {
        let _ = write!(out, "{separator}title={}", property(&a.title));
    }
    let _ = writeln!(out, "::{}", data(&a.message));
}

/// A command's message, as the runner unescapes it.
fn data(text: &str) -> String {
    // `%` first: the references the others add must stay as they are.
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A command's property value, as the runner unescapes it.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warning(title: &str, message: &str, place: Option<(&str, usize)>) -> Annotation {
        Annotation {
            level: Level::Warning,
            place: place.map(|(f, l)| (f.to_string(), l)),
            title: title.to_string(),
            message: message.to_string(),
        }
    }

    /// The runner's own reading of a command line: properties split on `,`, each on its
    /// first `=`, then unescaped; the message after the first `::` that follows them.
    fn parse(line: &str) -> (String, Vec<(String, String)>, String) {
        let rest = line.strip_prefix("::").unwrap();
        let (head, message) = rest.split_once("::").unwrap();
        let (command, props) = head.split_once(' ').unwrap_or((head, ""));
        let unescape = |s: &str, property: bool| {
            let mut s = s.replace("%0D", "\r").replace("%0A", "\n");
            if property {
                s = s.replace("%3A", ":").replace("%2C", ",");
            }
            s.replace("%25", "%")
        };
        let props = props
            .split(',')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap();
                (k.to_string(), unescape(v, true))
            })
            .collect();
        (command.to_string(), props, unescape(message, false))
    }

    #[test]
    fn hostile_names_round_trip_as_the_runner_reads_them() {
        let file = "mod ules/a,b:c%41\n::error::x/\u{202e}é.tf";
        let title = "aws_s3_bucket.b[\"x,y\"]::warning::z";
        let message = "destroyed\r\n::stop-commands::t\n%0A 100%";
        let text = lines(&[warning(title, message, Some((file, 7)))]);
        assert_eq!(text.lines().count(), 1, "{text}");
        let (command, props, got) = parse(text.trim_end_matches('\n'));
        assert_eq!(command, "warning");
        assert_eq!(
            props,
            vec![
                ("file".to_string(), file.to_string()),
                ("line".to_string(), "7".to_string()),
                ("title".to_string(), title.to_string()),
            ]
        );
        assert_eq!(got, message);
    }

    #[test]
    fn each_level_is_capped_with_one_summary() {
        let mut all: Vec<Annotation> = (0..25)
            .map(|i| warning(&format!("w{i}"), "m", None))
            .collect();
        all.extend((0..3).map(|i| Annotation {
            level: Level::Error,
            ..warning(&format!("e{i}"), "m", Some(("main.tf", i)))
        }));
        let text = lines(&all);
        let warnings: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("::warning"))
            .collect();
        let errors: Vec<&str> = text.lines().filter(|l| l.starts_with("::error")).collect();
        assert_eq!(warnings.len(), SHOWN);
        assert!(warnings[SHOWN - 1].contains("16 more warnings"), "{text}");
        assert_eq!(errors.len(), 3);
        assert!(errors[0].starts_with("::error file=main.tf,line=0,title=e0::m"));
        assert_eq!(lines(&all[..SHOWN]).lines().count(), SHOWN, "ten fit");
    }
}
