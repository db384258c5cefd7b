//! Files that are not readable plans by their kind or size: missing, a directory, over
//! `--max-input-size`, standard input beyond the limit, a named pipe.

use super::*;

#[test]
fn missing_file() {
    let file = Temp::missing("missing_file");
    let out = render(&[file.arg()]);
    assert_input_error(&out, file.arg(), &["cannot read", "No such file"]);
}

#[test]
fn directory_instead_of_file() {
    let dir = Temp::dir("directory_instead_of_file");
    let out = render(&[dir.arg()]);
    assert_input_error(&out, dir.arg(), &["is a directory"]);
}

#[test]
fn two_gigabyte_file_is_refused_by_size_before_reading() {
    let file = Temp::file("two_gigabyte_file", b"");
    // Sparse: instant, and no disk used. Its zeros are not JSON either, so the message
    // shows the size check came first.
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&file.path)
        .unwrap();
    f.set_len(2 << 30).unwrap();
    drop(f);
    let comment = run(&["render", file.arg()], None);
    assert_input_error(
        &comment,
        file.arg(),
        &["is 2 GiB; planmark reads at most 1 GiB", "--max-input-size"],
    );
    let text = render(&[file.arg()]);
    assert_eq!(text.stderr, comment.stderr);
}

#[test]
fn max_input_size_lowers_the_limit() {
    let plan = std::fs::read(crate_dir().join(BASIC_LIST).join("plan.json")).unwrap();
    let file = Temp::file("max_input_size_lowers_the_limit", &plan);
    let out = render(&["--max-input-size", "1K", file.arg()]);
    let size = format!(
        "is {:.1} KiB; planmark reads at most 1 KiB",
        plan.len() as f64 / 1024.0
    );
    assert_input_error(&out, file.arg(), &[&size]);
    let enough = format!("{}", plan.len());
    assert_success(&render(&["--max-input-size", &enough, file.arg()]));
}

#[test]
fn max_input_size_applies_to_schemas() {
    let schemas = format!("{BASIC_LIST}/schemas.json");
    let out = render(&[
        "--max-input-size",
        "100",
        "--schemas",
        &schemas,
        &format!("{BASIC_LIST}/plan.json"),
    ]);
    assert_input_error(&out, &schemas, &["planmark reads at most 100 bytes"]);
}

#[test]
fn standard_input_beyond_the_limit() {
    let plan = plan_creating(r#"{"triggers":{"a":"b"}}"#);
    let out = run(
        &["render", "--max-input-size", "64", "-"],
        Some(plan.as_bytes()),
    );
    assert_input_error(
        &out,
        "-",
        &["is more than 64 bytes, the most planmark reads"],
    );
}

#[test]
fn bad_max_input_size_is_a_usage_error() {
    let out = render(&["--max-input-size", "lots", "plan.json"]);
    assert_no_panic(&out);
    assert_eq!(out.code(), 2, "stderr:\n{}", out.stderr);
    assert!(
        out.stderr.contains("--max-input-size") && out.stderr.contains("1G, 500M"),
        "stderr:\n{}",
        out.stderr
    );
}

#[cfg(unix)]
#[test]
fn named_pipe_is_read_up_to_the_limit() {
    let fifo = temp_path("named_pipe", "fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo unavailable");
        return;
    }
    let fifo = Temp { path: fifo };
    let plan = plan_creating(r#"{"triggers":{"a":"b"}}"#);
    for (limit, ok) in [("1M", true), ("64", false)] {
        let path = fifo.path.clone();
        let body = plan.clone();
        // Opening a FIFO for writing blocks until the reader opens it.
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let mut pipe = std::fs::OpenOptions::new().write(true).open(path).unwrap();
            let _ = pipe.write_all(body.as_bytes());
        });
        let out = render(&["--max-input-size", limit, fifo.arg()]);
        writer.join().unwrap();
        if ok {
            assert_success(&out);
            assert!(out.stdout.contains("# null_resource.a will be created"));
        } else {
            assert_input_error(&out, fifo.arg(), &["is more than 64 bytes"]);
        }
    }
}

// ---------------------------------------------------------------------------
// Not a plan
// ---------------------------------------------------------------------------
