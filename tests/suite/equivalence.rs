//! Golden-text tests that need nothing outside the repository.
//!
//! - `tests/fixtures/equivalence/<case>/`: Terraform's equivalence-test
//!   fixtures (MPL-2.0 set), `expected.txt` = what `terraform show` prints.
//! - `tests/fixtures/real-plans/<case>/`: real Terraform 1.0.3 plans.
//!
//! See `tests/README.md` for the layout and for blessing.

use crate::support;

use support::*;

/// Cases whose `expected.txt` is planmark's own output, written by the bless
/// mode (`PLANMARK_BLESS=1`), because the copyable (1.5) text is deliberately
/// not our target. `tests/suite/corpus.rs` checks them against Terraform HEAD.
const BLESSED_LIST: &str = "BLESSED";

/// Aggregate line-match floor for rendering without `--schemas`.
const MIN_RATIO_WITHOUT_SCHEMAS: f64 = 0.90;
/// Aggregate line-match floor for the Terraform 1.0.3 plans (after normalisation).
const MIN_RATIO_REAL_PLANS: f64 = 0.97;

fn equivalence_root() -> std::path::PathBuf {
    fixtures_dir().join("equivalence")
}

fn bless_requested() -> bool {
    std::env::var_os("PLANMARK_BLESS").is_some_and(|v| v == "1")
}

/// Cases with an `expected.txt`, plus the names of blessed cases still
/// waiting for one.
fn equivalence_cases(with_schemas: bool) -> (Vec<GoldenCase>, Vec<String>) {
    let mut cases = Vec::new();
    let mut pending = Vec::new();
    for (name, dir) in case_dirs(&equivalence_root()) {
        let expected = dir.join("expected.txt");
        if !expected.is_file() {
            pending.push(name);
            continue;
        }
        cases.push(GoldenCase {
            name,
            plan: dir.join("plan.json"),
            schemas: with_schemas.then(|| dir.join("schemas.json")),
            expected: read_text(&expected),
        });
    }
    (cases, pending)
}

/// Bless mode: write planmark's output as `expected.txt` for the cases in
/// `BLESSED` (never for any other case). When `../shared` is present the
/// output must first equal Terraform HEAD's text, so nothing wrong is blessed.
fn bless(blessed: &[String]) -> Vec<String> {
    let mut problems = Vec::new();
    for name in blessed {
        let dir = equivalence_root().join(name);
        let run = run_render(&dir.join("plan.json"), Some(&dir.join("schemas.json")));
        if !run.ok() {
            problems.push(format!("{name}: not blessed, {}", run.describe_failure()));
            continue;
        }
        let actual = run.stdout_text();
        if let Some(shared) = shared_dir() {
            let head = shared
                .join("corpus/terraform-testdata/equivalence-tests/head/outputs")
                .join(name)
                .join("plan");
            let want = strip_non_renderer(&read_text(&head)).expect("strip HEAD capture");
            if want != actual {
                problems.push(format!(
                    "{name}: not blessed, output differs from Terraform HEAD:\n{}",
                    compact_diff(&want, &actual, 30)
                ));
                continue;
            }
        } else {
            eprintln!("note: ../shared is absent; blessing {name} without the HEAD cross-check");
        }
        std::fs::write(dir.join("expected.txt"), run.stdout).expect("write expected.txt");
        eprintln!("blessed {name}");
    }
    problems
}

/// Byte-for-byte: planmark with `--schemas` must print exactly `expected.txt`.
#[test]
fn equivalence_with_schemas_is_byte_identical() {
    let blessed = read_name_list(&equivalence_root().join(BLESSED_LIST));
    let mut problems = if bless_requested() {
        bless(&blessed)
    } else {
        Vec::new()
    };
    let (cases, pending) = equivalence_cases(true);
    for name in &pending {
        if blessed.contains(name) {
            problems.push(format!(
                "{name}: no expected.txt yet (listed in BLESSED): once the output matches \
                 Terraform HEAD, run `PLANMARK_BLESS=1 cargo test --test suite equivalence::`"
            ));
        } else {
            problems.push(format!(
                "{name}: expected.txt is missing and the case is not in BLESSED"
            ));
        }
    }
    let mut report = String::new();
    if let Err(r) = exact_suite("equivalence --schemas", &cases) {
        report.push_str(&r);
    }
    if !problems.is_empty() {
        report.push_str("\nother problems:\n");
        for p in &problems {
            report.push_str(&format!("  {p}\n"));
        }
    }
    assert!(report.is_empty(), "\n{report}");
}

/// Without schemas the renderer falls back to JSON-driven rendering; headers
/// must still match exactly and most lines must too.
#[test]
fn equivalence_without_schemas_keeps_headers_and_most_lines() {
    let (cases, pending) = equivalence_cases(false);
    if !pending.is_empty() {
        eprintln!(
            "note: skipping cases without expected.txt: {}",
            pending.join(", ")
        );
    }
    if let Err(report) = fuzzy_suite(
        "equivalence, no --schemas",
        &cases,
        MIN_RATIO_WITHOUT_SCHEMAS,
    ) {
        panic!("\n{report}");
    }
}

/// Real plans from Terraform 1.0.3. Their text comes from the old renderer,
/// so the expected text is first normalised to the newest wording
/// (`normalise_tf_1_0_3`, rules N1–N7). Three known differences are not
/// normalised, because undoing them would mean re-implementing the renderer;
/// they cost 8 of 351 lines (97.7%):
/// - `outputs_only` `list`: since 1.8 equal-length lists pair by index
///   (`~ "b" -> "c"`), 1.0.3 shows `- "b"` … `+ "e"` (4 lines);
/// - `replace_update_outputs` `api_ids`: 1.0.3's JSON marks the whole output
///   unknown, so the newest renderer prints `] -> (known after apply)` instead
///   of two `+ (known after apply),` elements (3 lines);
/// - `heredoc_json`: the newest object renderer always shows `id`/`name`/`tags`,
///   also inside `jsonencode(...)`, so `name = "svc"` is shown and the hidden
///   counter drops from 2 to 1 (1 line).
#[test]
fn real_plans_keep_headers_and_most_lines() {
    let mut cases = Vec::new();
    for (name, dir) in case_dirs(&fixtures_dir().join("real-plans")) {
        let plan_json = read_text(&dir.join("plan.json"));
        let expected =
            normalise_tf_1_0_3(&read_text(&dir.join("plan.txt")), &plan_facts(&plan_json));
        cases.push(GoldenCase {
            name,
            plan: dir.join("plan.json"),
            schemas: Some(dir.join("schemas.json")),
            expected,
        });
    }
    assert!(!cases.is_empty(), "no real-plans fixtures found");
    if let Err(report) = fuzzy_suite("real plans (Terraform 1.0.3)", &cases, MIN_RATIO_REAL_PLANS) {
        panic!("\n{report}");
    }
}

// ---------------------------------------------------------------------------
// The harness itself: these must pass even while the renderer is unfinished.
// ---------------------------------------------------------------------------

fn fixture(path: &str) -> String {
    read_text(&fixtures_dir().join(path))
}

#[test]
fn harness_strip_removes_hook_lines_and_footer() {
    let rule = horizontal_rule();
    let body = fixture("equivalence/drift_relevant_attributes/expected.txt");
    // The capture as `terraform plan` printed it (see the MPL `plan` file).
    let capture = format!(
        "tfcoremock_simple_resource.base: Refreshing state... [id=f6f74ca6-e8ef-e51f-522c-433b9ed5038f]\n\
         tfcoremock_simple_resource.dependent: Refreshing state... [id=1b17b502-96c9-fcc3-3b09-2af1c3de6ad8]\n\
         {body}\n{rule}\n\nSaved the plan to: equivalence_test_plan\n\n\
         To perform exactly these actions, run the following command to apply:\n    \
         terraform apply \"equivalence_test_plan\"\n"
    );
    assert_eq!(strip_non_renderer(&capture).unwrap(), body);
    // This case also has the renderer's own rule (after the drift section): it stays.
    assert_eq!(body.matches(rule.as_str()).count(), 1);

    // No hook lines, no footer (a no-changes plan): unchanged.
    let no_changes = "\nNo changes. Your infrastructure matches the configuration.\n\n\
                      Terraform has compared your real infrastructure against your configuration\n\
                      and found no differences, so no changes are needed.\n";
    assert_eq!(strip_non_renderer(no_changes).unwrap(), no_changes);
    let with_hook = format!("null_resource.x: Refreshing state... [id=1]\n{no_changes}");
    assert_eq!(strip_non_renderer(&with_hook).unwrap(), no_changes);

    // A rule followed by renderer text is not a footer.
    let drift = format!("\nNote: x\n\n{rule}\n\nTerraform will perform the following actions:\n");
    assert_eq!(strip_non_renderer(&drift).unwrap(), drift);

    // Unknown text at the top is an error, never silently dropped.
    assert!(strip_non_renderer("Warning: something\n\nPlan: 1 to add\n").is_err());
}

#[test]
fn harness_every_expected_text_is_renderer_output() {
    // Every stored expected.txt must look like the renderer's whole output:
    // it starts with the leading empty line, ends with exactly one newline,
    // and ends on one of the renderer's final lines.
    let endings = [
        "Plan: ",
        "objects.",                                         // refresh-only drift paragraph
        "state, without changing any real infrastructure.", // outputs-only hint
        "and found no differences, so no changes are needed.", // no changes
    ];
    let mut count = 0;
    for (name, dir) in case_dirs(&fixtures_dir().join("equivalence")) {
        let path = dir.join("expected.txt");
        for f in ["plan.json", "schemas.json"] {
            assert!(dir.join(f).is_file(), "{name}: {f} missing");
        }
        if !path.is_file() {
            continue; // pending bless
        }
        let text = read_text(&path);
        assert!(
            text.starts_with('\n'),
            "{name}: must start with an empty line"
        );
        assert!(
            text.ends_with('\n') && !text.ends_with("\n\n"),
            "{name}: one final newline"
        );
        let last = split_lines(&text).pop().unwrap();
        assert!(
            endings
                .iter()
                .any(|e| last.starts_with(e) || last.ends_with(e)),
            "{name}: ends {last:?}"
        );
        assert!(
            !text.contains("Refreshing state..."),
            "{name}: hook line left"
        );
        assert!(!text.contains("Saved the plan to"), "{name}: footer left");
        count += 1;
    }
    assert!(
        count >= 47,
        "only {count} equivalence cases have expected.txt"
    );
}

#[test]
fn harness_blessed_cases_are_exactly_the_three_list_diff_cases() {
    let blessed = read_name_list(&equivalence_root().join(BLESSED_LIST));
    assert_eq!(
        blessed,
        [
            "basic_json_string_update",
            "basic_list_update",
            "nested_list_update"
        ]
    );
    for name in &blessed {
        assert!(
            equivalence_root().join(name).join("plan.json").is_file(),
            "{name}"
        );
    }
}

#[test]
fn harness_lcs_and_ratio() {
    let a = split_lines("a\nb\nc\nd\n");
    let b = split_lines("a\nx\nc\nd\ne\n");
    assert_eq!(lcs_len(&a, &b), 3);
    assert_eq!(line_match("a\nb\nc\nd\n", "a\nx\nc\nd\ne\n"), (3, 4));
    assert_eq!(line_match("x\n", ""), (0, 1));
    assert_eq!(line_match("\n", "\n"), (1, 1)); // one empty line
    assert_eq!(split_lines(""), Vec::<&str>::new());
    assert_eq!(split_lines("a"), ["a"]);
    assert!((ratio(9, 10) - 0.9).abs() < 1e-12);
    assert_eq!(ratio(0, 0), 1.0);
    assert_eq!(
        align(&a, &b),
        [
            Edit::Same(0, 0),
            Edit::Removed(1),
            Edit::Added(1),
            Edit::Same(2, 2),
            Edit::Same(3, 3),
            Edit::Added(4)
        ]
    );
}

#[test]
fn harness_diff_report_marks_whitespace() {
    let d = compact_diff("a\nb \nc\n", "a\nb\nc", 30);
    assert!(d.contains("@@ expected line 2, actual line 2 @@"), "{d}");
    assert!(d.contains("-b·\n"), "{d}");
    assert!(d.contains("+b\n"), "{d}");
    assert!(
        d.contains("only the expected text ends with a newline"),
        "{d}"
    );
    let many: String = (0..100).map(|i| format!("{i}\n")).collect();
    let d = compact_diff(&many, "", 30);
    assert!(d.contains("… 70 more differing lines"), "{d}");
    assert_eq!(visible("x\t \r"), "x→·␍");
}

#[test]
fn harness_header_lines() {
    let text = "\nTerraform will perform the following actions:\n\n\
                \x20 # data.t.r will be read during apply\n\
                \x20 # (config refers to values not yet known)\n\
                \x20<= data \"t\" \"r\" {\n\
                \x20     + id = (known after apply)\n\
                \x20       # (1 unchanged attribute hidden)\n\
                \x20     + resource \"k\" {\n\
                \x20   }\n\n\
                \x20# t.f will no longer be managed by Terraform, but will not be destroyed\n\
                \x20. resource \"t\" \"f\" {}\n\n\
                \x20 # t.m has moved to t.n\n\
                \x20   resource \"t\" \"n\" {\n\
                \x20   }\n\n\
                -/+ resource \"t\" \"x\" { # forces replacement\n\n\
                Changes to Outputs:\n\
                \x20 + a = 1\n";
    assert_eq!(
        header_lines(text),
        [
            "  # data.t.r will be read during apply",
            "  # (config refers to values not yet known)",
            " <= data \"t\" \"r\" {",
            " # t.f will no longer be managed by Terraform, but will not be destroyed",
            " . resource \"t\" \"f\" {}",
            "  # t.m has moved to t.n",
            "    resource \"t\" \"n\" {",
            "-/+ resource \"t\" \"x\" { # forces replacement",
        ]
    );
    // data_read: the read has a reason line, the three creates do not.
    assert_eq!(
        header_lines(&fixture("equivalence/data_read/expected.txt")).len(),
        3 + 2 * 3
    );
}

#[test]
fn harness_tf_1_0_3_normalisation() {
    let dir = fixtures_dir().join("real-plans");
    let norm = |case: &str| {
        let d = dir.join(case);
        let facts = plan_facts(&read_text(&d.join("plan.json")));
        (
            read_text(&d.join("plan.txt")),
            normalise_tf_1_0_3(&read_text(&d.join("plan.txt")), &facts),
        )
    };
    // N1 + N7
    let (_, t) = norm("data_sources");
    assert!(
        t.contains(" <= data \"null_data_source\" \"lookup\" {\n"),
        "{t}"
    );
    assert!(
        !t.contains("(config refers to values not yet known)"),
        "{t}"
    );
    // N2, N3
    let (_, t) = norm("secrets");
    assert!(t.contains("~ \"key\"      = (sensitive value)\n"), "{t}");
    assert!(!t.contains("Warning"), "{t}");
    assert!(t.contains("  ~ endpoint = \"https://api.example.com\" -> \"https://api2.example.com\"\n  ~ key      = (sensitive value)\n"), "{t}");
    // N4 inside jsonencode (object → attribute; the triggers map keeps element)
    let (_, t) = norm("heredoc_json");
    assert!(t.contains("                      ~ LOG  = \"info\" -> \"debug\"\n                        # (1 unchanged attribute hidden)\n"), "{t}");
    assert!(
        t.contains("                    # (2 unchanged attributes hidden)\n"),
        "{t}"
    );
    assert!(
        t.contains("            EOT\n            # (1 unchanged element hidden)\n"),
        "{t}"
    );
    // N4 in outputs + N5 (no-op output `fresh` widens the name column)
    let (_, t) = norm("outputs_only");
    assert!(t.contains("  ~ list  = [\n"), "{t}");
    assert!(t.contains("  ~ obj   = {\n"), "{t}");
    assert!(t.contains("  - old   = 42 -> null\n"), "{t}");
    assert!(
        t.contains("        # (1 unchanged attribute hidden)\n    }\n"),
        "{t}"
    );
    // N6: JSON order
    let (before, t) = norm("nested_modules");
    let order = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.starts_with("  # "))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(
        order(&t),
        [
            "  # module.app[\"blue\"].null_resource.svc must be replaced",
            "  # module.app[\"green\"].module.db.null_resource.replica[0] will be destroyed",
            "  # module.app[\"green\"].module.db.null_resource.replica[1] will be destroyed",
            "  # module.app[\"green\"].null_resource.svc will be destroyed",
        ]
    );
    assert_eq!(split_lines(&before).len(), split_lines(&t).len());
    let mut a = split_lines(&before);
    let mut b = split_lines(&t);
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b, "reordering must only move lines");
    // Texts without old wording pass through unchanged.
    for case in [
        "create_first",
        "nothing_to_do",
        "removals",
        "taint_and_request",
        "teardown",
    ] {
        let (before, after) = norm(case);
        assert_eq!(before, after, "{case}");
    }
}
