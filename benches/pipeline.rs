//! Pipeline benchmarks on generated plans: parse (`planmark::input::plan::parse_plan`), diff
//! (`planmark::differ::diff_plan`), text render (`planmark::render::text::render_plan`),
//! all three together, and the Markdown comment as `planmark render` makes it from the
//! parsed plan (the plan's head diffed, then only the resource changes the comment
//! measures or shows), with provider schemas, for:
//!
//! - `mixed-1k`, `mixed-10k`: whole plans (every action and feature, see
//!   `support/generator.rs`), `creates-10k`, `replaces-10k`: all created / all replaced;
//!   `drift-10k`: a refresh-only plan whose every resource with tags drifted (its drift
//!   read, diffed and rendered as the changes are);
//! - `mixed-100k` only with `PLANMARK_BENCH_HUGE=1` (a 520 MB plan: generating it takes
//!   ~20 s, the run needs ~3 GB of memory);
//! - pathological cases: `long-list` (a 10,000-element list attribute and list output with
//!   20 scattered changes each), `big-json` (a ~5 MiB policy document in a JSON string with
//!   a few changes), `deep` (values, JSON, blocks and modules nested ~50 deep).
//!
//! Run from the repository root:
//!
//! ```sh
//! cargo bench --bench pipeline                          # everything but 100k (~3-5 minutes)
//! cargo bench --bench pipeline -- 'long-list|big-json'  # a subset (regex on the ids)
//! PLANMARK_BENCH_HUGE=1 cargo bench --bench pipeline -- mixed-100k
//! ```
//!
//! Stage benchmarks (`parse`, `diff`, `render`) leave out dropping their result
//! (`iter_with_large_drop`); `pipeline` includes everything, drops too. Each group takes 10
//! samples over a few seconds, so expect noise of several percent; compare runs on a quiet
//! machine. The same plans can be written to files with
//! `cargo run --release --example gen_plan -- --kind KIND --resources N`.

#[path = "support/generator.rs"]
mod generator;

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use generator::{Kind, Options};
use planmark::differ::Differ;
use planmark::input::schema::ProviderSchemas;
use planmark::render::markdown::{render_comment, Meta, NamedPlan, TemplateSet, GITHUB_MAX_CHARS};

/// One generated input.
struct Case {
    name: String,
    plan: Vec<u8>,
    schemas: ProviderSchemas,
    /// Measurement time per benchmark: bigger plans need longer for their 10 samples.
    measure: Duration,
}

impl Case {
    fn new(name: &str, kind: Kind, resources: usize, measure_secs: u64) -> Case {
        let opts = Options::new(kind, resources);
        let plan = generator::plan(&opts).into_bytes();
        let schemas = ProviderSchemas::parse("schemas.json", generator::schemas(&opts).as_bytes())
            .expect("generated schemas parse");
        Case {
            name: name.to_string(),
            plan,
            schemas,
            measure: Duration::from_secs(measure_secs),
        }
    }
}

fn cases() -> Vec<Case> {
    let mut cases = vec![
        Case::new("mixed-1k", Kind::Mixed, 1_000, 2),
        Case::new("mixed-10k", Kind::Mixed, 10_000, 4),
        Case::new("creates-10k", Kind::Creates, 10_000, 4),
        Case::new("replaces-10k", Kind::Replaces, 10_000, 4),
        Case::new("drift-10k", Kind::Drift, 10_000, 4),
        Case::new("long-list", Kind::LongList, 0, 2),
        Case::new("big-json", Kind::BigJson, 0, 3),
        Case::new("deep", Kind::Deep, 0, 2),
    ];
    if std::env::var_os("PLANMARK_BENCH_HUGE").is_some_and(|v| v == "1") {
        cases.push(Case::new("mixed-100k", Kind::Mixed, 100_000, 60));
    }
    cases
}

fn pipeline(c: &mut Criterion) {
    for case in cases() {
        let mut group = c.benchmark_group(&case.name);
        group
            .sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(case.measure)
            .throughput(Throughput::Bytes(case.plan.len() as u64));
        let plan = planmark::input::plan::parse_plan("plan.json", &case.plan)
            .expect("generated plan parses");
        let diff = planmark::differ::diff_plan("plan.json", &plan, Some(&case.schemas), None)
            .expect("generated plan diffs");

        group.bench_function("parse", |b| {
            b.iter_with_large_drop(|| {
                planmark::input::plan::parse_plan("plan.json", black_box(&case.plan))
            })
        });
        group.bench_function("diff", |b| {
            b.iter_with_large_drop(|| {
                planmark::differ::diff_plan(
                    "plan.json",
                    black_box(&plan),
                    Some(&case.schemas),
                    None,
                )
            })
        });
        group.bench_function("render", |b| {
            b.iter_with_large_drop(|| planmark::render::text::render_plan(black_box(&diff)))
        });
        group.bench_function("markdown", |b| {
            let templates = TemplateSet::default();
            let meta = Meta {
                key: "plan.json".into(),
                time: "2026-01-01T00:00:00Z".into(),
                ..Meta::default()
            };
            b.iter(|| {
                let differ = Differ::new("plan.json", black_box(&plan), Some(&case.schemas));
                let head = differ.head(None).expect("diffs");
                let resources = differ.lazy();
                let drift = differ.drift(head.mode).expect("diffs");
                let plans = [NamedPlan {
                    name: "plan",
                    head: &head,
                    changes: planmark::diff::Changes {
                        resources: &resources,
                        drift: &drift,
                    },
                    links: None,
                }];
                render_comment(&plans, &meta, &templates, GITHUB_MAX_CHARS)
                    .expect("renders")
                    .markdown
                    .len()
            })
        });
        group.bench_function("pipeline", |b| {
            b.iter(|| {
                let plan = planmark::input::plan::parse_plan("plan.json", black_box(&case.plan))
                    .expect("parses");
                let diff =
                    planmark::differ::diff_plan("plan.json", &plan, Some(&case.schemas), None)
                        .expect("diffs");
                planmark::render::text::render_plan(&diff).len()
            })
        });
        group.finish();
    }
}

criterion_group!(benches, pipeline);
criterion_main!(benches);
