//! Writes a deterministic, realistic `terraform show -json` plan (or, with `--schemas`, the
//! matching `terraform providers schema -json` document) to standard output.
//!
//! ```sh
//! cargo run --release --example gen_plan -- --resources 10000 > plan.json
//! cargo run --release --example gen_plan -- --resources 10000 --schemas > schemas.json
//! cargo run --release --example gen_plan -- --kind long-list > long-list.json
//! ```
//!
//! The generator lives in `benches/support/generator.rs` (shared with the benchmarks).

#[path = "../benches/support/generator.rs"]
mod generator;

use std::io::Write;
use std::process::ExitCode;

use generator::{Kind, Options};

const USAGE: &str = "\
usage: gen_plan [--resources N] [--kind KIND] [--seed N] [--depth N] [--list-len N]
                [--json-bytes N] [--schemas]

Writes a plan JSON document (format 1.2) to standard output; the same options always give
the same bytes. With --schemas, writes the provider schemas for the plan's types instead
(pass the same --kind and --depth as for the plan).

  --resources N   resource_changes entries from the ordinary module layout
                  (default 1000 for mixed/creates/replaces/drift, 0 for the others)
  --kind KIND     mixed (default): every action and feature
                  creates | replaces: every resource created | replaced
                  long-list: a list attribute and a list output of --list-len elements
                             (default 10000), each with 20 scattered changes
                  big-json: a policy document of --json-bytes bytes (default 5 MiB) in a
                            JSON string attribute, with a few small changes
                  deep: values, JSON, nested blocks, an output and modules --depth deep
                  drift: a refresh-only plan, every resource with tags drifted
  --seed N        PRNG seed
  --depth N       nesting depth of the deep values (default 50, at most 120)
  --list-len N    length of the long list
  --json-bytes N  size of the big policy document";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("gen_plan: {message}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut kind = Kind::Mixed;
    let mut resources = None;
    let mut seed = None;
    let mut depth = None;
    let mut list_len = None;
    let mut json_bytes = None;
    let mut want_schemas = false;
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> Result<String, String> {
            args.next().ok_or_else(|| format!("{name} needs a value"))
        };
        let number = |name: &str, text: String| -> Result<usize, String> {
            text.replace('_', "")
                .parse::<usize>()
                .map_err(|_| format!("{name}: not a number: {text}"))
        };
        match arg.as_str() {
            "--resources" => resources = Some(number("--resources", value("--resources")?)?),
            "--kind" => {
                let text = value("--kind")?;
                kind = Kind::parse(&text).ok_or_else(|| format!("unknown kind {text:?}"))?;
            }
            "--seed" => seed = Some(number("--seed", value("--seed")?)? as u64),
            "--depth" => depth = Some(number("--depth", value("--depth")?)?.min(120)),
            "--list-len" => list_len = Some(number("--list-len", value("--list-len")?)?),
            "--json-bytes" => json_bytes = Some(number("--json-bytes", value("--json-bytes")?)?),
            "--schemas" => want_schemas = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unexpected argument {other:?}")),
        }
    }
    let mut opts = Options::new(
        kind,
        resources.unwrap_or_else(|| Options::default_resources(kind)),
    );
    if let Some(seed) = seed {
        opts.seed = seed;
    }
    if let Some(depth) = depth {
        opts.depth = depth;
    }
    if let Some(len) = list_len {
        opts.list_len = len;
    }
    if let Some(bytes) = json_bytes {
        opts.json_bytes = bytes;
    }
    let text = if want_schemas {
        generator::schemas(&opts)
    } else {
        generator::plan(&opts)
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|err| format!("cannot write the output: {err}"))
}
