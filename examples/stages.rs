//! Times each pipeline stage on a real plan file, in process, the way `planmark render`
//! runs them: read, parse, hash (the comment marker's SHA-256, which runs on a second core
//! beside the parse), head (everything but the resource changes, diffed, and their
//! summaries), text (every resource change diffed and rendered, streamed), Markdown (only
//! the changes the comment shows diffed); best of `--runs`, default 5. Complements the criterion
//! benchmarks (generated plans) and whole-process timings (`hyperfine`), see
//! docs/performance.md.
//!
//! ```sh
//! cargo run --release --example stages -- plan.json [schemas.json] [--runs N]
//! ```

use std::process::ExitCode;
use std::time::{Duration, Instant};

use planmark::diff::Changes;
use planmark::differ::Differ;
use planmark::input::hash::plan_sha256;
use planmark::render::markdown::{render_comment, Meta, NamedPlan, TemplateSet};
use planmark::render::text::write_plan;

// The same allocator as the `planmark` binary.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("stages: {message}\nusage: stages PLAN [SCHEMAS] [--runs N]");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut files = Vec::new();
    let mut runs = 5usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--runs" {
            runs = args
                .next()
                .and_then(|n| n.parse().ok())
                .ok_or("--runs needs a number")?;
        } else {
            files.push(arg);
        }
    }
    let (plan_path, schemas_path) = match files.as_slice() {
        [plan] => (plan.clone(), None),
        [plan, schemas] => (plan.clone(), Some(schemas.clone())),
        _ => return Err("give a plan file and optionally a schemas file".into()),
    };
    let schemas = match &schemas_path {
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
            Some(
                planmark::input::schema::ProviderSchemas::parse(path, &bytes)
                    .map_err(|e| e.to_string())?,
            )
        }
        None => None,
    };
    let templates = TemplateSet::default();
    let meta = Meta {
        title: None,
        key: plan_path.clone(),
        commit: None,
        run_url: None,
        time: "2026-01-01T00:00:00Z".into(),
        marker: String::new(),
        tool: None,
        map: Default::default(),
        no_group: false,
        since: None,
    };
    let mut best = [Duration::MAX; 6];
    let mut sizes = (0, 0, 0);
    for _ in 0..runs.max(1) {
        let mut times = [Duration::ZERO; 6];
        let t = Instant::now();
        let bytes = std::fs::read(&plan_path).map_err(|e| format!("{plan_path}: {e}"))?;
        times[0] = t.elapsed();
        let t = Instant::now();
        let plan =
            planmark::input::plan::parse_plan(&plan_path, &bytes).map_err(|e| e.to_string())?;
        times[1] = t.elapsed();
        let t = Instant::now();
        std::hint::black_box(plan_sha256(&bytes));
        times[2] = t.elapsed();
        let t = Instant::now();
        let differ = Differ::new(&plan_path, &plan, schemas.as_ref());
        let head = differ.head(None).map_err(|e| e.to_string())?;
        let resources = differ.lazy();
        let drift = differ.drift(head.mode).map_err(|e| e.to_string())?;
        let changes = Changes {
            resources: &resources,
            drift: &drift,
        };
        times[3] = t.elapsed();
        let t = Instant::now();
        let mut text = Vec::new();
        write_plan(&head, changes, &mut text).map_err(|e| e.to_string())?;
        times[4] = t.elapsed();
        let t = Instant::now();
        let plans = [NamedPlan {
            name: &plan_path,
            head: &head,
            changes,
            links: None,
        }];
        let comment =
            render_comment(&plans, &meta, &templates, 65_536).map_err(|e| e.to_string())?;
        times[5] = t.elapsed();
        sizes = (bytes.len(), text.len(), comment.markdown.len());
        for (b, t) in best.iter_mut().zip(times) {
            *b = (*b).min(t);
        }
    }
    println!(
        "{plan_path}: {} bytes in, text {} bytes, Markdown {} bytes (best of {runs})",
        sizes.0, sizes.1, sizes.2
    );
    for (name, t) in ["read", "parse", "hash", "head", "text", "markdown"]
        .iter()
        .zip(best)
    {
        println!("  {name:<9} {:>8.1} ms", t.as_secs_f64() * 1e3);
    }
    Ok(())
}
