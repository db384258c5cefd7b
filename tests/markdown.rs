//! The PR comment over every plan we have: well-formed Markdown (checked by parsing it),
//! nothing live outside code, within the size limit, every change named.

mod support;

use support::comment::{assert_sound, json_files, render, render_file};
use support::fixtures_dir;

use planmark::render::markdown::GITHUB_MAX_CHARS;

#[test]
fn every_fixture_plan_makes_a_sound_comment() {
    let mut checked = 0;
    for dir in ["equivalence", "real-plans"] {
        for path in json_files(&fixtures_dir().join(dir)) {
            if path.file_name().is_some_and(|n| n != "plan.json") {
                continue;
            }
            let (diff, comment) = render_file(&path).unwrap_or_else(|e| panic!("{e}"));
            assert_sound(
                &path.display().to_string(),
                &[&diff],
                &comment,
                GITHUB_MAX_CHARS,
            );
            checked += 1;
        }
    }
    assert!(checked >= 50, "only {checked} fixture plans found");
}

#[test]
fn several_plans_make_one_sound_comment() {
    let root = fixtures_dir().join("real-plans");
    let a = support::comment::load(&root.join("taint_and_request/plan.json")).unwrap();
    let b = support::comment::load(&root.join("create_first/plan.json")).unwrap();
    let c = support::comment::load(&root.join("nothing_to_do/plan.json")).unwrap();
    let comment = render(
        &[("prod", &a), ("staging", &b), ("dev", &c)],
        GITHUB_MAX_CHARS,
    );
    assert_sound("several", &[&a, &b, &c], &comment, GITHUB_MAX_CHARS);
}
