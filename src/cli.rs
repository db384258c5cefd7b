//! Command line: argument parsing (clap) and the `render` command's wiring of the stages.
//!
//! This is the edge of the library: it reads files, runs plan → differ → render, and
//! writes the result. Errors are [`Error`]s whose [`Error::exit_code`] main() uses.

use std::io::{Read, Write};
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::diff::PlanMode;
use crate::error::{Error, Result};
use crate::plan::parse_plan;
use crate::render::text::render_plan;
use crate::schema::ProviderSchemas;

const EXIT_CODES: &str = "\
Exit codes:
  0  success
  1  runtime failure (e.g. output could not be written)
  2  bad input or usage (unreadable file, not a plan, unsupported format_version, bad flags)";

/// Turns a Terraform or OpenTofu plan into the text and pull-request comment reviewers
/// want to read.
#[derive(Debug, Parser)]
#[command(name = "planmark", version, about, after_help = EXIT_CODES)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Render one or more plans (`terraform show -json tfplan` output) to standard output.
    #[command(after_help = EXIT_CODES)]
    Render(RenderArgs),
}

/// Options of `planmark render`.
#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    /// Output format. `text` is exactly what `terraform show tfplan` prints.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Provider schemas (`terraform providers schema -json` output); without them the
    /// structure of each resource is inferred from its values.
    #[arg(long, value_name = "FILE", env = "PLANMARK_SCHEMAS")]
    pub schemas: Option<PathBuf>,
    /// How the plan was made (it changes some wording and is not recorded in the JSON);
    /// by default a plan with drift and no resource changes is taken as refresh-only.
    #[arg(long, value_enum, default_value_t = ModeArg::Auto)]
    pub mode: ModeArg,
    /// Plan JSON files, `-` for standard input, optionally named: `NAME=PATH`.
    #[arg(value_name = "PLAN", required = true)]
    pub plans: Vec<String>,
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Terraform's own human-readable plan text.
    Text,
}

/// `--mode` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// Infer from the plan.
    Auto,
    /// `terraform plan`.
    Normal,
    /// `terraform plan -destroy`.
    Destroy,
    /// `terraform plan -refresh-only`.
    RefreshOnly,
}

impl ModeArg {
    fn plan_mode(self) -> Option<PlanMode> {
        match self {
            ModeArg::Auto => None,
            ModeArg::Normal => Some(PlanMode::Normal),
            ModeArg::Destroy => Some(PlanMode::Destroy),
            ModeArg::RefreshOnly => Some(PlanMode::RefreshOnly),
        }
    }
}

/// A plan argument: `NAME=PATH` or just `PATH` (named after the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanArg {
    /// Display name.
    pub name: String,
    /// File path, or `-` for standard input.
    pub path: String,
}

impl PlanArg {
    /// Parses `NAME=PATH`; a bare path is named after its file stem.
    pub fn parse(arg: &str) -> PlanArg {
        if let Some((name, path)) = arg.split_once('=') {
            if !name.is_empty() && !name.contains(['/', '\\']) && !path.is_empty() {
                return PlanArg {
                    name: name.to_string(),
                    path: path.to_string(),
                };
            }
        }
        let name = if arg == "-" {
            "stdin".to_string()
        } else {
            std::path::Path::new(arg)
                .file_stem()
                .map_or_else(|| arg.to_string(), |s| s.to_string_lossy().into_owned())
        };
        PlanArg {
            name,
            path: arg.to_string(),
        }
    }
}

/// Reads a file, or standard input for `-`.
pub fn read_input(path: &str) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let result = if path == "-" {
        std::io::stdin().lock().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::File::open(path).and_then(|mut f| f.read_to_end(&mut bytes).map(|_| ()))
    };
    result.map_err(|source| Error::Read {
        path: path.to_string(),
        source,
    })?;
    Ok(bytes)
}

/// Runs a parsed command line, writing to `out`.
pub fn run(cli: Cli, out: &mut dyn Write) -> Result<()> {
    match cli.command {
        Command::Render(args) => render(args, out),
    }
}

fn render(args: RenderArgs, out: &mut dyn Write) -> Result<()> {
    let schemas = match &args.schemas {
        Some(path) => {
            let display = path.display().to_string();
            Some(ProviderSchemas::parse(&display, &read_input(&display)?)?)
        }
        None => None,
    };
    let plans: Vec<PlanArg> = args.plans.iter().map(|a| PlanArg::parse(a)).collect();
    for (i, arg) in plans.iter().enumerate() {
        let bytes = read_input(&arg.path)?;
        let plan = parse_plan(&arg.path, &bytes)?;
        let diff =
            crate::differ::diff_plan(&arg.path, &plan, schemas.as_ref(), args.mode.plan_mode())?;
        let text = match args.format {
            Format::Text => render_plan(&diff),
        };
        if plans.len() > 1 {
            // Several plans: a heading per plan so the outputs can be told apart.
            let sep = if i > 0 { "\n" } else { "" };
            writeln!(out, "{sep}## {}", arg.name).map_err(Error::Write)?;
        }
        out.write_all(text.as_bytes()).map_err(Error::Write)?;
    }
    out.flush().map_err(Error::Write)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_args_may_be_named() {
        assert_eq!(
            PlanArg::parse("prod=plans/prod.json"),
            PlanArg {
                name: "prod".into(),
                path: "plans/prod.json".into()
            }
        );
        assert_eq!(PlanArg::parse("plans/dev.json").name, "dev");
        assert_eq!(PlanArg::parse("-").name, "stdin");
        // A path with '=' in a directory name is still a path.
        assert_eq!(PlanArg::parse("a/b=c/plan.json").path, "a/b=c/plan.json");
    }
}
