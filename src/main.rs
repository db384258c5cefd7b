//! The `planmark` binary: parse arguments, run, map errors to exit codes.

use std::io::Write;

use clap::Parser;
use planmark::cli::error::{Error, EXIT_BAD_INPUT, EXIT_OK, EXIT_POLICY};
use planmark::cli::{run, Cli};
use planmark::input::text::one_line;
use planmark::pipeline::PipelineError;

// The differ and renderers allocate many small strings and vectors; mimalloc does that
// markedly faster than glibc's malloc on big plans (see docs/performance.md); its version
// 2 is chosen in Cargo.toml.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // clap prints help/version to stdout (exit 0) and usage errors to stderr.
            let _ = err.print();
            std::process::exit(if err.use_stderr() {
                EXIT_BAD_INPUT
            } else {
                EXIT_OK
            });
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = run(cli, &mut out).and_then(|()| out.flush().map_err(Error::Write));
    // Each line on standard error whatever it holds (see `one_line`): one per policy
    // violation (addresses come from the plan), per plan that could not be read (the others
    // were rendered), or the one error.
    let (kind, lines, code) = match result {
        Ok(()) => ("error", Vec::new(), EXIT_OK),
        // A closed pipe (`planmark ... | head`) is not a failure.
        Err(err) if err.is_broken_pipe() => ("error", Vec::new(), EXIT_OK),
        Err(Error::Policy(lines)) => ("policy", lines, EXIT_POLICY),
        Err(Error::Pipeline(PipelineError::Unreadable(errors))) => {
            let lines = errors.iter().map(ToString::to_string).collect();
            ("error", lines, EXIT_BAD_INPUT)
        }
        Err(err) => ("error", vec![err.to_string()], err.exit_code()),
    };
    // `exit` runs no destructors: what the command wrote must leave the buffer first.
    let _ = out.flush();
    if !lines.is_empty() {
        let mut stderr = std::io::stderr().lock();
        for line in &lines {
            let _ = writeln!(stderr, "planmark: {kind}: {}", one_line(line));
        }
    }
    std::process::exit(code);
}
