//! Pipeline stage: the one way from input files to output, shared by `render` and
//! `comment` — load (read, parse, diff the plans' heads) → render (Terraform's text, or the
//! comment with its marker) → fit to size.
//!
//! Contract: the caller passes everything in [`Options`] (no environment is read here,
//! not even the run's commit and time); bad input fails before any output; plans among
//! several that cannot be read are rendered around and reported last
//! ([`PipelineError::Unreadable`]); policy violations and Rego reports are returned, not
//! judged.

mod annotations;
mod comment;
mod digest;
mod error;
mod file;
mod links;
mod load;
mod options;
mod policy;
mod secrets;
mod since;
mod text;
mod verify;

use std::io::Write;

use crate::render::error::RenderError;

pub(crate) use comment::{smaller, Rendered};
pub use error::{PipelineError, Result};
pub use file::DEFAULT_MAX_INPUT_SIZE;
pub(crate) use file::{parse_size, read_input_at_most};
pub(crate) use load::Loaded;
pub use load::{read, Purpose};
pub use options::{CodeSite, Options, PlanArg, RunInfo};
pub(crate) use options::{LogInput, LogKind};
pub(crate) use policy::Verdicts;
pub use verify::{compare, fresh, Comparison};

/// What [`render`] writes (`--format`; each variant's line is its `--help` text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// GitHub Markdown for the pull request.
    Markdown,
    /// A standalone HTML page showing that Markdown as GitHub would.
    Html,
    /// The template context as JSON (see docs/template-context.md).
    Json,
    /// Terraform's own human-readable plan text.
    Text,
}

/// Loads the plans and writes them to `out` in `format` (the comment's within
/// [`Options::max_chars`]); returns the policy gates' violations and the Rego reports, for
/// the caller to judge once the output is written.
pub fn render(options: &Options, format: Format, out: &mut dyn Write) -> Result<Verdicts> {
    if format == Format::Text {
        return text::render(options, out);
    }
    // A posted comment given (`--previous`): this one is compared with it.
    let previous = match &options.previous {
        Some(path) => {
            let path = path.display().to_string();
            let bytes = read_input_at_most(&path, options.max_input_size)?;
            let text = String::from_utf8(bytes)
                .map_err(|_| PipelineError::input(&path, "the previous comment is not UTF-8 text: pass the body of a comment planmark posted"))?;
            Some(text)
        }
        None => None,
    };
    let inputs = read(options, Purpose::Comment)?;
    let parsed = inputs.parse()?;
    let differs = parsed.differs(options);
    let loaded = parsed.load(options, &differs)?;
    let written = write_comment(&loaded, previous.as_deref(), format, out);
    loaded.finish(written)
}

/// Writes the comment of `loaded` (compared with `previous`) to `out` in `format`.
fn write_comment(
    loaded: &Loaded<'_>,
    previous: Option<&str>,
    format: Format,
    out: &mut dyn Write,
) -> Result<Verdicts> {
    let rendered = loaded.comment(previous)?;
    let text = match format {
        Format::Html => {
            let title = format!("planmark — {}", rendered.meta.key);
            crate::render::html::preview_page(&rendered.comment.markdown, &title)
        }
        Format::Json => {
            let mut json = serde_json::to_string_pretty(&rendered.comment.context)
                .map_err(|e| RenderError::Write(std::io::Error::other(e)))?;
            json.push('\n');
            json
        }
        Format::Markdown | Format::Text => rendered.comment.markdown,
    };
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(RenderError::Write)?;
    Ok(loaded.verdicts())
}
