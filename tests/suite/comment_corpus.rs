//! Every plan in `../shared/corpus` (all folders) makes a sound comment: well-formed
//! Markdown within the limit that names every changed resource or carries the notice.
//! Ignored where `../shared` is absent (it is reference material outside the repository;
//! build.rs sets the `planmark_shared` cfg).

use crate::support;

use support::comment::{assert_sound, json_files, render};

use planmark::render::markdown::GITHUB_MAX_CHARS;

#[test]
#[cfg_attr(
    not(planmark_shared),
    ignore = "needs ../shared (Terraform's corpus); see tests/README.md"
)]
fn every_corpus_plan_makes_a_sound_comment() {
    let shared = support::shared_dir().expect(
        "../shared was present when the tests were built but is gone; run `touch build.rs`",
    );
    let (mut plans, mut others) = (0, 0);
    for path in json_files(&shared.join("corpus")) {
        // Not every JSON file is a plan (schemas, state, logs): those are refused cleanly.
        let Ok(diff) = support::comment::load(&path) else {
            others += 1;
            continue;
        };
        let label = path.display().to_string();
        for max_chars in [GITHUB_MAX_CHARS, 4_000] {
            let comment = render(&[("plan", &diff)], max_chars);
            assert_sound(
                &format!("{label}@{max_chars}"),
                &[&diff],
                &comment,
                max_chars,
            );
        }
        plans += 1;
    }
    eprintln!("{plans} corpus plans checked, {others} other JSON files skipped");
    assert!(
        plans >= 100,
        "only {plans} plans found under {}",
        shared.display()
    );
}
