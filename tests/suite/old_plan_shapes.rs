//! Plans in the shapes older Terraform releases write (`tests/fixtures/old-plans/`, one
//! folder per shape with the text expected beside it) render through the binary, read
//! whole and read element by element (padded past the big-plan threshold), to the same
//! text, and their comment shows the same addresses, an unknown instance key included.
//! (Plans before Terraform 0.15.2 also get a warning on stderr about provider-declared
//! secrets without `--schemas`: tests/suite/old_plans.rs checks that.)

use crate::support::bin;

use bin::*;

const OLD_PLANS: &str = "tests/fixtures/old-plans";

/// Exit 0, no panic; stderr empty but for `planmark: warning:` lines.
fn assert_rendered(run: &Run) {
    assert_no_panic(run);
    assert_eq!(run.code(), 0, "stderr:\n{}", run.stderr);
    for line in run.stderr.lines() {
        assert!(
            line.starts_with("planmark: warning: "),
            "stderr:\n{}",
            run.stderr
        );
    }
}

/// `plan` made big enough to be read element by element, by a member nothing reads.
fn padded(plan: &[u8]) -> Vec<u8> {
    let open = plan.iter().position(|&b| b == b'{').expect("an object");
    let padding = format!(r#""padding":"{}","#, "p".repeat(1 << 20));
    [&plan[..=open], padding.as_bytes(), &plan[open + 1..]].concat()
}

fn cases() -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<_> = std::fs::read_dir(crate_dir().join(OLD_PLANS))
        .expect("old-plans fixtures")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn every_old_plan_shape_renders_small_and_big() {
    let mut checked = 0;
    for dir in cases() {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let plan = std::fs::read(dir.join("plan.json")).expect("plan.json");
        let expected = std::fs::read_to_string(dir.join("expected.txt")).expect("expected.txt");
        let small = Temp::file(&name, &plan);
        let big = Temp::file(&name, &padded(&plan));
        for file in [&small, &big] {
            let text = render(&[file.arg()]);
            assert_rendered(&text);
            assert_eq!(text.stdout, expected, "{name} ({} bytes)", plan.len());
            let comment = run(&["render", file.arg()], None);
            assert_rendered(&comment);
            // Every address the text names, the comment names too.
            for line in expected
                .lines()
                .filter(|l| l.trim_start().starts_with("# "))
            {
                let address = line.trim_start()[2..].split(' ').next().unwrap();
                let html = address.replace('"', "&quot;");
                assert!(
                    comment.stdout.contains(address) || comment.stdout.contains(&html),
                    "{name}: the comment does not name {address}:\n{}",
                    comment.stdout
                );
            }
        }
        checked += 1;
    }
    assert!(checked >= 4, "only {checked} old plan shapes");
}

#[test]
fn drift_without_address_rebuilds_it_and_marks_an_unknown_key() {
    let dir = crate_dir().join(OLD_PLANS);
    let text = |case: &str| {
        let run = render(&[dir.join(case).join("plan.json").to_str().unwrap()]);
        assert_rendered(&run);
        run.stdout
    };
    // Two planned instances: which one drifted is unknown, and the address says so.
    let text_0154 = text("terraform-0.15.4-drift-without-address");
    assert!(text_0154.contains("# module.m.null_resource.gone[?] has been deleted"));
    // One planned instance of the resource: that is the drifted one.
    let text_108 = text("terraform-1.0.8-drift-without-address");
    assert!(text_108.contains("# module.app[\"x\"].null_resource.only[0] has been deleted"));
}
