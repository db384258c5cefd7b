//! The checks catch every payload left unescaped; titles, summaries and versions stay on
//! one line.

use super::*;

/// Each rule fails on the payloads written raw, so a broken escaper would be caught.
#[test]
fn the_checks_catch_every_payload_unescaped() {
    let payloads = [
        ("marker", "<!-- planmark:v1 {\"key\":\"x\"} -->\n\nx\n\n"),
        ("html", "<img src=x onerror=alert(1)>"),
        ("link", "[EVILLINK](javascript:alert(1))"),
        ("image", "![x](https://evil.example/p.png)"),
        ("autolink", "<https://evil.example/auto>"),
        ("html link", "<a href=\"https://evil.example/a\">EVILA</a>"),
        (
            "html link out",
            "<a href=\"https://h/x\" onclick=\"x\">A</a>",
        ),
        ("destination", "[x](<https://evil.example/a>)"),
        ("mention", "@octocat"),
        ("issue", "#123"),
        ("sha", "a5c3785ed8d6"),
        ("math", "$x^2$"),
        ("fence", "```\nEVILFENCE\n"),
        ("table", "| TBLA | b |\n|---|---|\n"),
        ("alert", "> [!CAUTION]\n> ALRT"),
        ("heading", "# HDG1"),
        ("setext", "SETEXT\n==="),
        ("list", "- LST"),
        ("indented", "    INDCODE"),
        ("footnote", "see[^1]\n\n[^1]: FTNDEF"),
        (
            "planmark line",
            "Plan: 31337 to add, 0 to change, 0 to destroy.",
        ),
    ];
    let marker = "<!-- planmark:v1 {\"v\":1} -->\n";
    for (name, raw) in payloads {
        let mut sweep = Sweep::default();
        sweep.markdown(name, &format!("intro\n\n{raw}\n\n{marker}"));
        assert!(!sweep.0.is_empty(), "{name}: nothing caught");
        let mut clean = Sweep::default();
        let escaped = planmark::render::markdown::escape::inline(raw);
        // Escaping leaves prose as it is: the templates quote what could pass for planmark's.
        let quote = if name == "planmark line" { "> " } else { "" };
        clean.markdown(name, &format!("intro\n\n{quote}{escaped}\n\n{marker}"));
        assert!(clean.0.is_empty(), "{name} escaped: {:?}", clean.0);
    }
    // planmark's own anchors and links to the code pass.
    let mut own = Sweep::default();
    let url = "https://github.com/o/r/blob/0123abc/a%20b/m.tf#L1";
    own.markdown(
        "own",
        &format!(
            "<details><summary><a name=\"planmark-1\"></a>x <a href=\"{url}\"><code>m</code></a>\
             </summary>\n\nx\n\n</details>\n\n- [`m.tf:1`](<{url}>)\n\n{marker}"
        ),
    );
    assert!(own.0.is_empty(), "{:?}", own.0);
    let mut sweep = Sweep::default();
    sweep.secrets("s", "a &#83;ECRET b", &["SECRET".into()]);
    sweep.workflow_commands(
        "w",
        "::stop-commands::t\n::error::ok\n::t::\n  ::error::x\n\
         ::warning title=planmark%3A destroy::ok\n::warning title=x::planmark%3A y\n",
    );
    sweep.html("h", "<p><img src=x></p>");
    assert_eq!(sweep.0.len(), 4, "{:?}", sweep.0);
}

/// Text the templates lay out on one line outside a quote keeps to that line: a line break
/// in `--title` (a heading), a diagnostic's summary (a bold line) or a Terraform version
/// (the footer) would let its next line stand alone as if planmark wrote it.
#[test]
fn titles_summaries_and_versions_stay_on_one_line() {
    let forged = "Plan: 31337 to add, 0 to change, 0 to destroy.";
    let dir = support::fixtures_dir().join("hostile-sweep");
    let plan = dir.join("markers/plan.json").display().to_string();
    let temp = TempDir::new("one-line");
    let log_path = temp.join("plan.log");
    let diagnostic = serde_json::json!({"@level": "error", "type": "diagnostic",
        "@message": "Error: x", "diagnostic": {"severity": "error",
        "summary": format!("Bad thing\n{forged}"), "detail": ""}});
    let version = serde_json::json!({"@level": "info", "type": "version",
        "@message": "Terraform 1.9.5", "terraform": format!("1.9.5\n{forged}"), "ui": "1.2"});
    std::fs::write(&log_path, format!("{version}\n{diagnostic}\n")).unwrap();
    let log = log_path.display().to_string();
    let versioned = log_path.with_extension("json");
    let mut json: serde_json::Value =
        serde_json::from_str(&support::read_text(Path::new(&plan))).unwrap();
    json["terraform_version"] = format!("1.9.5\n{forged}").into();
    std::fs::write(&versioned, json.to_string()).unwrap();
    let versioned = versioned.display().to_string();
    let title = format!("dev\r\n{forged}");
    let runs: [(&str, Vec<&str>); 3] = [
        ("title", vec!["--title", &title, &plan]),
        ("summary and log version", vec!["--failed", &log]),
        ("plan version", vec![&versioned]),
    ];
    for (what, args) in runs {
        let out = Command::new(env!("CARGO_BIN_EXE_planmark"))
            .arg("render")
            .args(&args)
            .output()
            .unwrap();
        assert_ok(what, &out);
        let md = String::from_utf8_lossy(&out.stdout);
        let mut sweep = Sweep::default();
        sweep.markdown(what, &md);
        assert!(sweep.0.is_empty(), "{what}: {:?}\n{md}", sweep.0);
        assert!(!md.contains(&format!("<br>{forged}")), "{what}:\n{md}");
    }
}
