//! Command line, `planmark templates`: export the built-in templates, print the context's
//! JSON Schema.

use std::io::Write;
use std::path::Path;

use super::error::{Error, Result};
use crate::render::markdown::templates::BUILT_IN;
use crate::render::markdown::Context;

pub(super) fn export(dir: &Path, force: bool, out: &mut dyn Write) -> Result<()> {
    // A directory or file that cannot be written is a runtime failure (exit 1), named.
    let io_error = |path: &Path, source: std::io::Error| {
        Error::Write(std::io::Error::new(
            source.kind(),
            format!("{}: {source}", path.display()),
        ))
    };
    std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
    // Check everything first so a refusal writes nothing.
    if !force {
        for (name, _) in BUILT_IN {
            let path = dir.join(format!("{name}.hbs"));
            if path.exists() {
                return Err(Error::input(
                    path.display(),
                    "already exists; pass --force to overwrite the exported templates",
                ));
            }
        }
    }
    for (name, text) in BUILT_IN {
        let path = dir.join(format!("{name}.hbs"));
        std::fs::write(&path, text).map_err(|e| io_error(&path, e))?;
        writeln!(out, "{}", path.display()).map_err(Error::Write)?;
    }
    Ok(())
}

/// The JSON Schema of [`Context`], as committed in `docs/template-context.schema.json`.
pub(crate) fn context_schema() -> String {
    let schema = schemars::schema_for!(Context);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

pub(super) fn schema(out: &mut dyn Write) -> Result<()> {
    out.write_all(context_schema().as_bytes())
        .map_err(Error::Write)
}
