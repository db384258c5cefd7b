//! Plans larger than the size limit: the comment uses at least 90 % of `--max-chars`, stays
//! well-formed, keeps diffs in risk order before listing addresses, and says per plan what
//! it kept. Golden comments at GitHub's limit for a 300-create plan, a 10,000-resource plan
//! and a run of 110 small plans (`tests/fixtures/fill/<case>/expected.md`; the plans are
//! generated, see that folder's README).

use planmark::diff::PlanDiff;
use planmark::render::markdown::{Comment, GITHUB_MAX_CHARS};

use crate::support::comment::{assert_sound, big_plan, render};
use crate::support::fixtures_dir;
use crate::support::golden;

#[path = "../../benches/support/generator.rs"]
pub(crate) mod generator;

use generator::{Kind, Options};

pub(crate) const LIMITS: [usize; 3] = [5_000, 20_000, GITHUB_MAX_CHARS];

pub(crate) fn diffed(name: &str, json: &[u8]) -> PlanDiff {
    let plan = planmark::input::plan::parse_plan(name, json).unwrap();
    planmark::differ::diff_plan(name, &plan, None, None).unwrap()
}

pub(crate) fn generated(kind: Kind, resources: usize, seed: u64) -> PlanDiff {
    let options = Options {
        seed,
        ..Options::new(kind, resources)
    };
    diffed("generated.json", generator::plan(&options).as_bytes())
}

/// Renders `plans` at each limit; each comment must be sound, use at least 90 % of the
/// limit when it had to leave something out, and at GitHub's limit equal the case's golden.
fn check_fill(case: &str, plans: &[(&str, &PlanDiff)]) -> Vec<Comment> {
    check_limits(&["fill", case], plans, true)
}

/// [`check_fill`] for the golden `tests/fixtures/<folder>/<case>/expected.md`; a comment
/// that shows everything is accepted unless `over` says each must be over the limit.
pub(crate) fn check_limits(
    place: &[&str; 2],
    plans: &[(&str, &PlanDiff)],
    over: bool,
) -> Vec<Comment> {
    let diffs: Vec<&PlanDiff> = plans.iter().map(|(_, d)| *d).collect();
    let mut comments = Vec::new();
    for max_chars in LIMITS {
        let comment = render(plans, max_chars);
        let label = format!("{}@{max_chars}", place[1]);
        assert_sound(&label, &diffs, &comment, max_chars);
        let size = comment.markdown.encode_utf16().count();
        let truncated = comment.context.truncated;
        assert!(
            truncated || !over,
            "{label}: expected a plan over the limit"
        );
        assert!(
            !truncated || size * 10 >= max_chars * 9,
            "{label}: {size} characters is under 90 % of the limit"
        );
        comments.push(comment);
    }
    let golden = fixtures_dir()
        .join(place[0])
        .join(place[1])
        .join("expected.md");
    golden::check(&golden, &comments[2].markdown).unwrap_or_else(|e| panic!("{e}"));
    comments
}

#[test]
fn three_hundred_creates_show_diffs_and_name_every_address() {
    let diff = generated(Kind::Creates, 300, generator::DEFAULT_SEED);
    let comments = check_fill("creates_300", &[("plan.json", &diff)]);
    let plan = &comments[2].context.plans[0];
    // Every address is named at GitHub's limit, and the room left holds diffs.
    assert!(plan.changes.len() >= 10, "{} diffs", plan.changes.len());
    assert_eq!(plan.omitted_total, 0);
    // The notice counts what the comment shows (the outputs are one entry more).
    let notice = &comments[2].context.truncation.as_ref().unwrap().notice;
    let number = |after: &str| -> usize {
        let words = notice[..notice.find(after).unwrap()].trim_end();
        words.rsplit(' ').next().unwrap().parse().unwrap()
    };
    let diffs = number(" changes are shown with their diffs");
    let listed = number(" listed by address only");
    let outputs = usize::from(plan.outputs.count > 0);
    assert_eq!(
        diffs + listed,
        plan.changes.len() + plan.listed.len() + outputs,
        "{notice}"
    );
}

#[test]
fn ten_thousand_resources_keep_destroy_and_replace_diffs_first() {
    let diff = diffed("big.json", &big_plan(10_000));
    let comments = check_fill("resources_10k", &[("big", &diff)]);
    for comment in &comments {
        let plan = &comment.context.plans[0];
        // Diffs go in risk order: no create has one while a destroy or replace goes without.
        let first_safe = plan.changes.iter().position(|e| !e.dangerous);
        let dangerous_diffs = plan.changes.iter().filter(|e| e.dangerous).count();
        assert!(first_safe.is_none() || dangerous_diffs == plan.danger.count);
    }
}

#[test]
fn a_hundred_and_ten_plans_keep_as_many_sections_as_fit() {
    let diffs: Vec<PlanDiff> = (0..110).map(|i| generated(Kind::Mixed, 4, i + 1)).collect();
    let names: Vec<String> = (1..=110).map(|i| format!("env{i}")).collect();
    let plans: Vec<(&str, &PlanDiff)> = names.iter().map(String::as_str).zip(&diffs).collect();
    let comments = check_fill("plans_110", &plans);
    let full = &comments[2];
    // The overview table has every plan; sections are kept for as many as fit.
    for name in &names {
        assert!(
            full.markdown.contains(&format!("`{name}`")),
            "{name} missing"
        );
    }
    let collapsed = full.context.collapsed_plans;
    assert!(
        collapsed > 0 && collapsed < 110,
        "{collapsed} plans collapsed"
    );
    assert!(full
        .markdown
        .contains(&format!("_… and {collapsed} more plans in the table only")));
}
