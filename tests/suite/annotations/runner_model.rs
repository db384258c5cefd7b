//! The test's reading of the runner's rules, on lines whose reading the rules decide.

use super::*;
use workflow_commands::{parse_command, read, runner_lines};

#[test]
fn lines_end_at_lf_crlf_and_a_lone_cr() {
    assert_eq!(runner_lines("a\nb\r\nc\rd"), ["a", "b", "c", "d"]);
    assert_eq!(runner_lines("a\n\nb\n"), ["a", "", "b"]);
}

#[test]
fn a_command_is_its_name_properties_and_message_unescaped() {
    let c = parse_command(
        "  \t::warning file=a%2Cb%3Ac.tf, line=3 ,title=x%0Ay%25::m%3A%2C%0D%0A%25 ::z",
        0,
    )
    .unwrap();
    assert_eq!(c.name, "warning");
    assert_eq!(
        c.properties,
        [
            ("file".to_string(), "a,b:c.tf".to_string()),
            (" line".to_string(), "3 ".to_string()),
            ("title".to_string(), "x\ny%".to_string()),
        ]
    );
    // Only %0D, %0A and %25 in a message: the first `::` ended the properties.
    assert_eq!(c.message, "m%3A%2C\r\n% ::z");
    // Each replacement applies once, in order: %25 last, so `%253A` is `%3A`.
    let c = parse_command("::error title=%253A%2525::%250A", 0).unwrap();
    assert_eq!(c.property("title"), Some("%3A%25"));
    assert_eq!(c.message, "%0A");
    // Empty parts, keys and values are dropped; a bare name is a command.
    let c = parse_command("::notice ,=x,title=,file=f::", 0).unwrap();
    assert_eq!(c.properties, [("file".to_string(), "f".to_string())]);
    assert_eq!(parse_command("::endgroup::", 0).unwrap().name, "endgroup");
    for not_a_command in ["::warning no end", ":: ::x", "x ::warning::y", "::::"] {
        assert_eq!(parse_command(not_a_command, 0), None, "{not_a_command}");
    }
}

#[test]
fn nothing_between_a_pause_and_its_token_is_a_command() {
    let text = "::stop-commands::T0k\n::error::inside\n  ::other::x\n::t0K::\n::error::after\n";
    let reading = read(text);
    let names: Vec<&str> = reading.commands.iter().map(|c| c.name.as_str()).collect();
    // The token resumes whatever its case.
    assert_eq!(names, ["stop-commands", "t0K", "error"]);
    assert_eq!(reading.paused, [1, 2]);
    assert_eq!(reading.unresumed, None);
    assert_eq!(reading.annotations()[0].message, "after");
    // A lone CR ends a line inside a pause too; a pause left open is reported.
    let reading = read("::stop-commands::t\nx\r::t::\r::error::y\n::stop-commands::u\n::error::z");
    assert_eq!(reading.annotations().len(), 1);
    assert_eq!(reading.unresumed.as_deref(), Some("u"));
}

#[test]
fn the_checks_on_annotated_output_catch_what_they_look_for() {
    let ok = "::stop-commands::abc\nbody\n::abc::\n::warning file=a.tf,line=2,title=t::m\n";
    assert_eq!(
        annotations(ok),
        [Seen::new("warning", Some(("a.tf", 2)), "t", "m")]
    );
    let bad = [
        // An annotation inside the pause is no command: none is seen.
        "::stop-commands::abc\n::warning::m\n::abc::\n",
        // One before the pause.
        "::warning::m\n::stop-commands::abc\nbody\n::abc::\n",
        // A pause never resumed.
        "::stop-commands::abc\nbody\n",
        // Another command.
        "::add-mask::x\n",
        // A property that is not an annotation's, a file without its line.
        "::warning col=3::m\n",
        "::warning file=a.tf::m\n",
    ];
    let caught = |text: &'static str| {
        std::panic::catch_unwind(|| annotations(text)).map_or(true, |seen| seen.is_empty())
    };
    for text in bad {
        assert!(caught(text), "not caught: {text:?}");
    }
}
