//! Encodings: invalid UTF-8, a byte-order mark, UTF-16 plans, schemas and logs.

use super::*;

#[test]
fn invalid_utf8_names_the_byte_offset() {
    check_bad_plan(
        "invalid_utf8",
        b"{\"format_version\":\"1.2\",\xff\xfe\"x\":1}",
        &["not valid UTF-8 (invalid byte at offset 24)"],
    );
}

#[test]
fn utf8_bom_is_accepted() {
    // Windows PowerShell's `Out-File -Encoding utf8` writes one.
    let plan = std::fs::read(crate_dir().join(BASIC_LIST).join("plan.json")).unwrap();
    let plain = Temp::file("utf8_bom_plain", &plan);
    let with_bom = Temp::file("utf8_bom", &[b"\xEF\xBB\xBF".as_slice(), &plan].concat());
    let expected = render(&[plain.arg()]);
    assert_success(&expected);
    let out = render(&[with_bom.arg()]);
    assert_success(&out);
    assert_eq!(out.stdout, expected.stdout);
    let comment = run(&["render", with_bom.arg()], None);
    assert_success(&comment);
}

#[test]
fn utf8_bom_before_schemas_is_accepted() {
    let schemas = std::fs::read(crate_dir().join(BASIC_LIST).join("schemas.json")).unwrap();
    let file = Temp::file(
        "utf8_bom_schemas",
        &[b"\xEF\xBB\xBF".as_slice(), &schemas].concat(),
    );
    let out = render(&["--schemas", file.arg(), &format!("{BASIC_LIST}/plan.json")]);
    assert_success(&out);
    let expected =
        std::fs::read_to_string(crate_dir().join(BASIC_LIST).join("expected.txt")).unwrap();
    assert_eq!(out.stdout, expected);
}

#[test]
fn utf8_bom_counts_in_the_invalid_byte_offset() {
    check_bad_plan(
        "utf8_bom_invalid",
        b"\xEF\xBB\xBF{\"a\":\"\xff\"}",
        &["invalid byte at offset 9"],
    );
}

#[test]
fn utf8_bom_alone_is_empty() {
    check_bad_plan("utf8_bom_alone", b"\xEF\xBB\xBF\n", &["is empty"]);
}

/// `text` as UTF-16 with its byte-order mark, as Windows PowerShell's `>` writes it
/// (little-endian) or big-endian.
fn utf16(text: &[u8], little_endian: bool) -> Vec<u8> {
    let text = std::str::from_utf8(text).expect("UTF-8 fixture");
    "\u{FEFF}"
        .encode_utf16()
        .chain(text.encode_utf16())
        .flat_map(|u| match little_endian {
            true => u.to_le_bytes(),
            false => u.to_be_bytes(),
        })
        .collect()
}

#[test]
fn utf16_plans_render_as_their_utf8() {
    let plan = std::fs::read(crate_dir().join(BASIC_LIST).join("plan.json")).unwrap();
    let plain = Temp::file("utf16_plain", &plan);
    for (little_endian, marked) in [(true, true), (false, true), (true, false), (false, false)] {
        // Without its mark (`iconv -t UTF-16LE`), told by the zero beside each ASCII byte.
        let bytes = utf16(&plan, little_endian);
        let bytes = if marked { bytes } else { bytes[2..].to_vec() };
        let file = Temp::file("utf16", &bytes);
        for format in ["text", "markdown"] {
            // Named alike, the same plan (its hash too); the marker's time aside.
            let render = |path: &str| {
                let arg = format!("plan={path}");
                let out = run(&["render", "--format", format, &arg], None);
                assert_success(&out);
                out.stdout.replace(path, "PATH")
            };
            let cut = |s: String| {
                s.rsplit_once("\"time\"")
                    .map_or(s.clone(), |(a, _)| a.into())
            };
            assert_eq!(
                cut(render(file.arg())),
                cut(render(plain.arg())),
                "{format}"
            );
        }
    }
}

#[test]
fn utf16_schemas_and_logs_are_read() {
    let dir = crate_dir().join(BASIC_LIST);
    let schemas = std::fs::read(dir.join("schemas.json")).unwrap();
    let file = Temp::file("utf16_schemas", &utf16(&schemas, true));
    let out = render(&["--schemas", file.arg(), &format!("{BASIC_LIST}/plan.json")]);
    assert_success(&out);
    assert_eq!(
        out.stdout,
        std::fs::read_to_string(dir.join("expected.txt")).unwrap()
    );
    let log = std::fs::read(crate_dir().join("tests/fixtures/logs/warnings.jsonl")).unwrap();
    let plain = Temp::file("utf16_log_plain", &log);
    let file = Temp::file("utf16_log", &utf16(&log, true));
    let plan = format!("{BASIC_LIST}/plan.json");
    let expected = render(&["--log", plain.arg(), &plan]);
    let out = render(&["--log", file.arg(), &plan]);
    assert_success(&out);
    assert!(out.stdout.contains("Warning: "), "{}", out.stdout);
    assert_eq!(out.stdout, expected.stdout);
}

#[test]
fn broken_utf16_is_refused() {
    let mut odd = utf16(br#"{"format_version":"1.2"}"#, true);
    odd.pop();
    check_bad_plan("utf16_odd", &odd, &["UTF-16", "cut short"]);
}

// ---------------------------------------------------------------------------
// Values: numbers as written, nesting beyond any stack
// ---------------------------------------------------------------------------
