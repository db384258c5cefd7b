//! Provider schemas older than the providers that made the plan (`--schemas` cached,
//! pinned, or from another workspace): `tests/fixtures/stale-schemas/<case>/` holds a real
//! plan (Terraform 1.0.3 and the null provider, `../shared/corpus/real-plans`), the
//! schemas Terraform made for it (`full-schemas.json`) and the same with an attribute or a
//! whole type taken out (`schemas.json`).
//!
//! What the stale schemas do not describe is shown as without schemas, never dropped: the
//! text is `expected.txt` and the same as with the full schemas (the oracle). Standard
//! error says once what is undescribed (`expected-stderr.txt`), and so do the comment and
//! its JSON context; with the full schemas none of them says anything.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::bin::{crate_dir, run, Run};
use crate::support::golden::check;

const NOTICE: &str = "The provider schemas given do not describe all of this plan";

fn cases() -> Vec<PathBuf> {
    crate::support::plan_cases(&crate_dir().join("tests/fixtures/stale-schemas"), 3)
}

fn rel(path: &Path) -> String {
    let path = path.strip_prefix(crate_dir()).unwrap();
    path.display().to_string()
}

fn render(format: &str, dir: &Path, schemas: &str) -> Run {
    let plan = rel(&dir.join("plan.json"));
    let schemas = rel(&dir.join(schemas));
    let run = run(
        &["render", "--format", format, "--schemas", &schemas, &plan],
        None,
    );
    assert_eq!(run.code(), 0, "{}: {}", dir.display(), run.stderr);
    run
}

#[test]
fn what_stale_schemas_lack_is_shown_as_the_full_schemas_show_it() {
    for dir in cases() {
        let stale = render("text", &dir, "schemas.json");
        let full = render("text", &dir, "full-schemas.json");
        assert_eq!(stale.stdout, full.stdout, "{}", dir.display());
        if let Err(e) = check(&dir.join("expected.txt"), &stale.stdout) {
            panic!("{e}");
        }
        if let Err(e) = check(&dir.join("expected-stderr.txt"), &stale.stderr) {
            panic!("{e}");
        }
        assert!(full.stderr.is_empty(), "{}: {}", dir.display(), full.stderr);
    }
}

#[test]
fn every_format_says_once_what_the_schemas_do_not_describe() {
    for dir in cases() {
        let expected_stderr = std::fs::read_to_string(dir.join("expected-stderr.txt")).unwrap();
        for format in ["markdown", "json", "html"] {
            let run = render(format, &dir, "schemas.json");
            assert_eq!(run.stderr, expected_stderr, "{} {format}", dir.display());
        }
        let markdown = render("markdown", &dir, "schemas.json").stdout;
        assert_eq!(markdown.matches(NOTICE).count(), 1, "{markdown}");
        let json: Value =
            serde_json::from_str(&render("json", &dir, "schemas.json").stdout).unwrap();
        let undescribed = &json["plans"][0]["undescribed"];
        let names = &undescribed["providers"][0]["names"];
        assert_eq!(
            undescribed["providers"][0]["provider"],
            "registry.terraform.io/hashicorp/null"
        );
        // The one name the comment lists is the one standard error names.
        let name = names[0]["name"].as_str().unwrap();
        assert_eq!(names.as_array().unwrap().len(), 1, "{undescribed}");
        assert!(markdown.contains(&format!("`{name}`")), "{markdown}");
        assert!(expected_stderr.contains(name), "{expected_stderr}");

        let full = render("markdown", &dir, "full-schemas.json").stdout;
        assert!(!full.contains(NOTICE), "{full}");
        let json: Value =
            serde_json::from_str(&render("json", &dir, "full-schemas.json").stdout).unwrap();
        assert_eq!(json["plans"][0]["undescribed"], Value::Null);
    }
}
