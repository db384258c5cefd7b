//! Markdown renderer, marker: the hidden `<!-- planmark:v1 {...} -->` line that lets the
//! publisher find, order and compare its own comments, and the plan identity hash in it.
//!
//! Contract: the marker is the comment's **last line**, and only that line counts
//! ([`parse_marker`]): plan and log text shown as code can hold a perfect copy of a marker,
//! but the renderer always ends the body with its own ([`end_with_marker`]), so no value
//! can be the last line. The marker carries only our own fields, in JSON of printable
//! ASCII with `-`, `<` and `>` escaped too, so no value (a key, say) can end the HTML
//! comment early, open another, break the line or hide a bidi control in it.

use serde::Serialize;
use sha2::{Digest, Sha256};

/// The marker's prefix; the publisher searches comments for it.
pub const PREFIX: &str = "<!-- planmark:v1 ";

/// What the marker records.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MarkerData {
    /// The comment key.
    pub key: String,
    /// Identity of the plan(s): see [`plan_sha256`] (several plans: hash of `name=hash` lines).
    pub plan_sha256: String,
    /// The commit planned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Workflow run id and attempt, when in GitHub Actions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<u64>,
    /// Run attempt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_attempt: Option<u64>,
    /// Render time (RFC 3339, UTC).
    pub time: String,
}

/// The marker line: one line of printable ASCII.
pub fn marker_line(data: &MarkerData) -> String {
    let json = serde_json::to_string(data).unwrap_or_else(|_| "{}".to_string());
    let mut safe = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        match c {
            // Everything outside printable ASCII (line and paragraph separators, bidi
            // controls, DEL, any non-ASCII letter) is a `\u` escape too. serde_json writes
            // such characters only inside strings, where the escape decodes back to them.
            ' '..='~' if !matches!(c, '-' | '<' | '>') => safe.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    safe.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    format!("{PREFIX}{safe} -->")
}

/// Reads back the marker planmark wrote: the body's last line (trailing whitespace, and
/// the `\r\n` GitHub may store, ignored), when the whole line is a marker whose JSON is
/// an object. A marker anywhere else in the body is a copy from plan or log text and is
/// never read.
pub fn parse_marker(body: &str) -> Option<serde_json::Value> {
    let last = body.trim_end().rsplit('\n').next()?;
    let json = last.strip_prefix(PREFIX)?.strip_suffix(" -->")?;
    // planmark escapes these; a line with them is not one it wrote.
    if json.contains("--") || json.contains(['<', '>']) {
        return None;
    }
    serde_json::from_str(json)
        .ok()
        .filter(serde_json::Value::is_object)
}

/// `markdown` ending with `marker` as its last line. Markdown that already does (the
/// built-in templates) is returned as it is; otherwise the marker is taken out wherever a
/// user template put it (a line that held only the marker goes too) and appended after a
/// blank line, also when the template left it out, so that no plan or log text is ever
/// the last line.
pub fn end_with_marker(markdown: String, marker: &str) -> String {
    let body = markdown.trim_end();
    if body.rsplit('\n').next() == Some(marker) {
        return markdown;
    }
    let kept: Vec<String> = body
        .lines()
        .filter(|l| l.trim_end() != marker)
        .map(|l| l.replace(marker, ""))
        .collect();
    let kept = kept.join("\n");
    match kept.trim_end() {
        "" => format!("{marker}\n"),
        kept => format!("{kept}\n\n{marker}\n"),
    }
}

/// The body without the marker planmark wrote (its last line), with `\n` line endings:
/// two bodies compare equal with it when only the marker, which changes every run,
/// differs. A copy of a marker anywhere else is content like any other.
pub fn without_marker(body: &str) -> String {
    let body = body.replace("\r\n", "\n");
    let trimmed = body.trim_end();
    match trimmed.rsplit_once('\n') {
        Some((rest, last)) if parse_marker(last).is_some() => rest.trim_end().to_string(),
        None if parse_marker(trimmed).is_some() => String::new(),
        _ => trimmed.to_string(),
    }
}

/// SHA-256 (hex) identifying a plan JSON document regardless of formatting: computed over
/// the document with insignificant whitespace removed and string escapes normalised
/// (`\u0041` and `A` hash alike), keys in document order (Terraform writes them in a fixed
/// order). One pass, no allocation per value, so it costs about as much as reading the file.
pub fn plan_sha256(json: &[u8]) -> String {
    let mut hasher = Sink::default();
    let mut state = Normaliser::default();
    // Blocks without whitespace or backslashes are their own normal form: only their
    // quotes are counted (to know whether the next block starts inside a string), and they
    // are hashed while still in cache. Terraform writes compact JSON, so most blocks are;
    // most others are too (their escapes decode to themselves), which a scan of their
    // strings tells; the rest are walked event by event.
    let mut block = 0;
    while block < json.len() {
        let end = (block + HASH_BLOCK).min(json.len());
        let from = block.max(state.resume);
        let bytes = &json[from.min(end)..end];
        let in_string = match scan(bytes) {
            Block::Plain(quotes) => Some(state.in_string ^ (quotes % 2 == 1)),
            Block::Backslashes(quotes) => quotes_escaped_in_place(bytes, quotes, state.in_string)
                .or_else(|| escaped_in_place(bytes, state.in_string)),
            Block::Other => escaped_in_place(bytes, state.in_string),
        };
        match in_string {
            Some(in_string) => {
                state.in_string = in_string;
                if state.start < end {
                    hasher.update(&json[state.start..end]);
                    state.start = end;
                }
            }
            None => state.walk(json, from, end, &mut hasher),
        }
        block = end;
    }
    hasher.update(&json[state.start..]);
    hasher.finish().iter().map(|b| format!("{b:02x}")).collect()
}

/// Bytes per block of [`plan_sha256`]'s fast path.
const HASH_BLOCK: usize = 4096;

/// What a block holds, as far as [`plan_sha256`]'s fast paths go.
enum Block {
    /// No whitespace, control character or backslash; this many quotes.
    Plain(usize),
    /// No whitespace or control character, but backslashes; this many quotes.
    Backslashes(usize),
    /// Whitespace or a control character (only [`escaped_in_place`] and
    /// [`Normaliser::walk`] handle them).
    Other,
}

/// What `bytes` holds (see [`Block`]).
fn scan(bytes: &[u8]) -> Block {
    let (mut quotes, mut backslashes) = (0, false);
    // One pass, 128 bytes at a time into byte-wide counters, which the compiler turns into
    // vector compares; memchr per needle plus a count took three passes.
    for chunk in bytes.chunks(128) {
        let (mut count, mut space, mut backslash) = (0u8, 0u8, 0u8);
        for &b in chunk {
            count += u8::from(b == b'"');
            space |= u8::from(b <= b' ');
            backslash |= u8::from(b == b'\\');
        }
        if space != 0 {
            return Block::Other;
        }
        quotes += usize::from(count);
        backslashes |= backslash != 0;
    }
    match backslashes {
        true => Block::Backslashes(quotes),
        false => Block::Plain(quotes),
    }
}

/// Whether `bytes` (without whitespace or control characters), entered inside a string
/// (`in_string`) or not, ends inside one, when its only escapes are escaped quotes, which
/// decode to themselves: `for_each` keys put them in nearly every block. `None` for
/// anything else (left to [`escaped_in_place`]). The text is assumed to be valid JSON,
/// where an escape is always inside a string: so the quotes not escaped are counted,
/// rather than the strings walked (which took a third of foreach_10k's hash). The hash
/// is only used for a plan that parsed; for other bytes it may differ from the walk's.
fn quotes_escaped_in_place(bytes: &[u8], quotes: usize, in_string: bool) -> Option<bool> {
    let mut escaped = 0;
    for at in memchr::memchr_iter(b'\\', bytes) {
        if bytes.get(at + 1) != Some(&b'"') {
            return None;
        }
        escaped += 1;
    }
    Some(in_string ^ (quotes.checked_sub(escaped)? % 2 == 1))
}

/// Whether `bytes`, entered inside a string (`in_string`) or not, is its own normal form
/// although it holds backslashes or whitespace: no whitespace outside strings, and every
/// escape one that decodes to itself (all but `\u` and `\/`; Terraform escapes quotes in
/// `for_each` keys and JSON-encoded policies, and writes spaces in strings). `Some`
/// whether it ends inside a string, `None` when it is not its own normal form, holds a
/// backslash outside strings, or ends in the middle of an escape (all left to
/// [`Normaliser::walk`]).
fn escaped_in_place(bytes: &[u8], mut in_string: bool) -> Option<bool> {
    let mut at = 0;
    while at < bytes.len() {
        if in_string {
            // Plain string bytes eight at a time, to a quote, backslash or control.
            at = crate::value::plain_run_end(bytes, at);
            match bytes.get(at) {
                None => break,
                Some(b'"') => in_string = false,
                Some(b'\\') => match bytes.get(at + 1) {
                    Some(b'u' | b'/') | None => return None,
                    Some(_) => at += 1,
                },
                // A control character in a string is content, as the walk takes it.
                Some(_) => {}
            }
        } else {
            match bytes[at] {
                b'"' => in_string = true,
                b' ' | b'\n' | b'\t' | b'\r' | b'\\' => return None,
                _ => {}
            }
        }
        at += 1;
    }
    Some(in_string)
}

/// The normal form's hasher, fed in large pieces: between whitespace in pretty-printed
/// JSON the pieces are a few bytes long, and the hasher's cost per call would dominate.
#[derive(Default)]
struct Sink {
    hasher: Sha256,
    pending: Vec<u8>,
}

impl Sink {
    /// Pieces are gathered up to this many bytes; larger ones are hashed as they come.
    const GATHER: usize = 16 * 1024;

    fn update(&mut self, bytes: &[u8]) {
        if bytes.len() >= Self::GATHER {
            self.flush();
            self.hasher.update(bytes);
            return;
        }
        self.pending.extend_from_slice(bytes);
        if self.pending.len() >= Self::GATHER {
            self.flush();
        }
    }

    fn flush(&mut self) {
        self.hasher.update(&self.pending);
        self.pending.clear();
    }

    fn finish(mut self) -> sha2::digest::Output<Sha256> {
        self.flush();
        self.hasher.finalize()
    }
}

/// Where [`plan_sha256`] is in the document.
#[derive(Default)]
struct Normaliser {
    /// Where the stretch not hashed yet begins.
    start: usize,
    /// Bytes before this belong to an escape already hashed.
    resume: usize,
    in_string: bool,
    escaped: Vec<u8>,
}

impl Normaliser {
    /// Hashes up to each place in `json[from..end]` where the normal form differs from the
    /// input (whitespace outside strings is dropped, escapes are decoded), tracking quotes.
    /// Strings are crossed with `memchr` to their next quote or backslash; between them
    /// (punctuation, numbers, literals and the whitespace) the walk goes byte by byte.
    fn walk(&mut self, json: &[u8], from: usize, end: usize, hasher: &mut Sink) {
        let mut at = from.max(self.resume);
        while at < end {
            if self.in_string {
                let Some(found) = memchr::memchr2(b'"', b'\\', &json[at..end]) else {
                    break;
                };
                at += found;
                // A backslash that ends the input is malformed: hashed as it is.
                if json[at] == b'"' || at + 1 == json.len() {
                    self.in_string = json[at] != b'"';
                    at += 1;
                    continue;
                }
                hasher.update(&json[self.start..at]);
                let (c, next) = unescape(json, at);
                self.escaped.clear();
                match c {
                    Some(c) => push_char(&mut self.escaped, c),
                    None => self.escaped.extend_from_slice(&json[at..next]),
                }
                hasher.update(&self.escaped);
                (self.start, self.resume, at) = (next, next, next);
                continue;
            }
            match json[at] {
                b'"' => self.in_string = true,
                // Whitespace outside strings is dropped (a run at once, as in indented
                // JSON); inside them it is content (raw controls there are malformed). A
                // backslash outside strings is malformed too: hashed as it is.
                b' ' | b'\n' | b'\t' | b'\r' => {
                    hasher.update(&json[self.start..at]);
                    let run = json[at..]
                        .iter()
                        .take_while(|b| matches!(b, b' ' | b'\n' | b'\t' | b'\r'))
                        .count();
                    (self.start, self.resume) = (at + run, at + run);
                    at += run;
                    continue;
                }
                _ => {}
            }
            at += 1;
        }
    }
}

/// Decodes the escape at `json[i]` (a backslash): the character (`None` when malformed)
/// and the index after it. Surrogate pairs combine; a lone surrogate stays escaped.
fn unescape(json: &[u8], i: usize) -> (Option<char>, usize) {
    let simple = match json[i + 1] {
        b'"' => Some('"'),
        b'\\' => Some('\\'),
        b'/' => Some('/'),
        b'b' => Some('\u{8}'),
        b'f' => Some('\u{c}'),
        b'n' => Some('\n'),
        b'r' => Some('\r'),
        b't' => Some('\t'),
        b'u' => None,
        _ => return (None, i + 2),
    };
    if let Some(c) = simple {
        return (Some(c), i + 2);
    }
    let hex = |at: usize| -> Option<u32> {
        let digits = json.get(at..at + 4)?;
        u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    };
    let Some(high) = hex(i + 2) else {
        return (None, i + 2);
    };
    if (0xD800..0xDC00).contains(&high) && json.get(i + 6..i + 8) == Some(b"\\u") {
        if let Some(low) = hex(i + 8).filter(|l| (0xDC00..0xE000).contains(l)) {
            let c = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
            return (char::from_u32(c), i + 12);
        }
    }
    (char::from_u32(high), i + 6)
}

/// Writes `c` inside a JSON string in the shortest standard form.
fn push_char(out: &mut Vec<u8>, c: char) {
    match c {
        '"' => out.extend_from_slice(b"\\\""),
        '\\' => out.extend_from_slice(b"\\\\"),
        '\n' => out.extend_from_slice(b"\\n"),
        '\r' => out.extend_from_slice(b"\\r"),
        '\t' => out.extend_from_slice(b"\\t"),
        '\u{8}' => out.extend_from_slice(b"\\b"),
        '\u{c}' => out.extend_from_slice(b"\\f"),
        c if (c as u32) < 0x20 => out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes()),
        c => {
            let mut utf8 = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
        }
    }
}

/// RFC 3339 UTC time for seconds since the Unix epoch.
pub fn rfc3339(epoch_seconds: u64) -> String {
    let days = epoch_seconds / 86_400;
    let rest = epoch_seconds % 86_400;
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Gregorian date from days since 1970-01-01 (Howard Hinnant's civil-from-days).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_matches_the_string_by_string_reference() {
        let cases: Vec<&[u8]> = vec![
            br#"{"a": "x y", "b" :[1, 2 ,"\u0041\"\\\/\n"]}"#,
            b"{\n\t\"k\":\r\n \"v\\u00e9 \\ud83d\\ude00 \\ud800 x\"}\n",
            b"{\"tab\":\"a\tb\",\"bad\":\"\\q\",\"bs\":\\ ,\"end\":\"abc\\",
            br#"{"open":"never closed \" "#,
            br#""\u12"#,
            b"  ",
            b"",
        ];
        for case in cases {
            let text = String::from_utf8_lossy(case);
            assert_eq!(plan_sha256(case), reference_sha256(case), "{text}");
        }
        let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/real-plans");
        let mut checked = 0;
        for entry in std::fs::read_dir(fixtures).into_iter().flatten().flatten() {
            if let Ok(plan) = std::fs::read(entry.path().join("plan.json")) {
                assert_eq!(plan_sha256(&plan), reference_sha256(&plan));
                assert_eq!(plan_sha256(&spaced(&plan)), plan_sha256(&plan));
                checked += 1;
            }
        }
        assert!(checked > 5, "only {checked} fixtures");
    }

    /// Stretches of string pieces with escapes and spaces, which mostly decode to
    /// themselves (a `\u` or `\/` escape does not, and a lone backslash may escape what
    /// follows).
    fn escaped_stretch() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let themselves = ["\\\"", "\\\\", "\\n", "\\t", " ", "a b", "xyz", "\",\""];
        let token = prop_oneof![
            30 => proptest::sample::select(themselves.to_vec()),
            1 => proptest::sample::select(vec!["\\u0041", "\\/", "\\"]),
        ];
        proptest::collection::vec(token, 0..HASH_BLOCK / 2).prop_map(|t| t.concat().into_bytes())
    }

    /// A JSON string's contents: only escaped quotes as escapes, or other escapes too (no
    /// spaces: a block without whitespace takes the fast paths).
    fn string_content() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let quotes = proptest::sample::select(vec!["\\\"", "xyz", "a-b", "\",\""]);
        let others = proptest::sample::select(vec!["\\\\", "\\n", "\\u0041", "\\/", "\\\""]);
        let tokens = prop_oneof![
            proptest::collection::vec(quotes, 0..HASH_BLOCK / 2),
            proptest::collection::vec(others, 0..HASH_BLOCK / 2),
        ];
        tokens.prop_map(|t| t.concat().into_bytes())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Any bytes (JSON-like, malformed or not, some longer than a block) hash without a
        /// panic, and as the reference does if they are JSON (the hash of other bytes is
        /// never used: see [`quotes_escaped_in_place`]).
        #[test]
        fn hash_matches_the_reference_on_any_bytes(
            pieces in proptest::collection::vec(
                (
                    // Long stretches without whitespace or backslashes (the fast path), or
                    // with them (in place, or the walk),
                    proptest::collection::vec(
                        proptest::sample::select(b"\"u0dA{}[]:,x".to_vec()),
                        0..2 * HASH_BLOCK,
                    ),
                    escaped_stretch(),
                    // and short ones with them (the walk), malformed escapes included.
                    proptest::collection::vec(
                        proptest::sample::select(b"\"\\ \n\t\ru0dA{:,\x01".to_vec()),
                        0..12,
                    ),
                ),
                0..6,
            )
        ) {
            let bytes: Vec<u8> = pieces
                .into_iter()
                .flat_map(|(a, e, b)| a.into_iter().chain(e).chain(b))
                .collect();
            let hash = plan_sha256(&bytes);
            if serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_ok() {
                proptest::prop_assert_eq!(hash, reference_sha256(&bytes));
            }
        }

        /// JSON documents of strings with escapes (escaped quotes above all), spaced or
        /// not, over several blocks, hash as the reference does.
        #[test]
        fn json_with_escapes_hashes_as_the_reference_does(
            strings in proptest::collection::vec(
                (string_content(), proptest::sample::select(vec![",", ",", ",", ", ", ",\n  "])),
                1..12,
            ),
            quoted_keys in proptest::collection::vec(0usize..HASH_BLOCK, 0..40),
        ) {
            // `for_each`-like keys at random places, and the stretches as array elements.
            let key = r#"{"address":"a.b[\"k\"]","index":"k"}"#;
            let mut elements: Vec<String> = quoted_keys.iter().map(|_| key.to_string()).collect();
            for (stretch, _) in &strings {
                elements.push(format!("\"{}\"", String::from_utf8_lossy(stretch)));
            }
            let separators = strings.iter().map(|(_, sep)| *sep).cycle();
            let mut json = String::from("[");
            for (i, (element, sep)) in elements.iter().zip(separators).enumerate() {
                if i > 0 {
                    json.push_str(sep);
                }
                json.push_str(element);
            }
            json.push(']');
            proptest::prop_assert!(serde_json::from_str::<serde::de::IgnoredAny>(&json).is_ok());
            proptest::prop_assert_eq!(plan_sha256(json.as_bytes()), reference_sha256(json.as_bytes()));
        }
    }

    #[test]
    fn hash_skips_whitespace_runs_across_blocks() {
        // Runs longer than a block, and a long string with spaces and escapes across blocks.
        let value = "x y\\n\\u0041".repeat(HASH_BLOCK / 4);
        let spaced = format!(
            "{{{}\"a\" :{}\"{value}\",\n\"b\":{}[1 ,\t2]}}",
            " ".repeat(HASH_BLOCK + 7),
            "\n".repeat(2 * HASH_BLOCK),
            "\r\n ".repeat(HASH_BLOCK),
        );
        let compact = format!("{{\"a\":\"{value}\",\"b\":[1,2]}}");
        assert_eq!(
            plan_sha256(spaced.as_bytes()),
            reference_sha256(spaced.as_bytes())
        );
        assert_eq!(
            plan_sha256(spaced.as_bytes()),
            plan_sha256(compact.as_bytes())
        );
    }

    #[test]
    fn escaped_quotes_are_not_counted_as_quotes() {
        // Entered inside a string: one escaped quote and two that close and open strings.
        assert_eq!(quotes_escaped_in_place(br#"a\"b","c"#, 3, true), Some(true));
        assert_eq!(quotes_escaped_in_place(br#"a\"b"]"#, 2, true), Some(false));
        // Other escapes are left to the scan of strings.
        assert_eq!(quotes_escaped_in_place(br#"a\\"#, 0, true), None);
        assert_eq!(quotes_escaped_in_place(br#"a\"#, 0, true), None);
        // A first block whose only escape is one escaped quote, then spaces outside strings
        // in the next: the second is walked from the state the first left.
        let first = format!(r#"["\"{}","#, "x".repeat(HASH_BLOCK));
        let json = format!(r#"{first}  "y" , "z"]"#);
        assert!(matches!(
            scan(&json.as_bytes()[..HASH_BLOCK]),
            Block::Backslashes(_)
        ));
        assert_eq!(
            plan_sha256(json.as_bytes()),
            reference_sha256(json.as_bytes())
        );
    }

    #[test]
    fn escapes_that_decode_to_themselves_are_hashed_in_place() {
        // Strings with spaces, escaped quotes and backslashes, as `for_each` keys and
        // JSON-encoded policies are written, over several blocks.
        let key = r#"module.m[\"a b\"].x[\"c\\\\d\"]\n"#;
        let json = format!("[{}\"end\"]", format!("\"{key}\",").repeat(HASH_BLOCK / 8));
        let block = &json.as_bytes()[HASH_BLOCK..2 * HASH_BLOCK];
        let in_string = json.as_bytes()[..HASH_BLOCK]
            .iter()
            .filter(|&&b| b == b'"')
            .count()
            - json[..HASH_BLOCK].matches(r#"\""#).count();
        assert!(escaped_in_place(block, in_string % 2 == 1).is_some());
        assert_eq!(
            plan_sha256(json.as_bytes()),
            reference_sha256(json.as_bytes())
        );
        // Escapes that decode to other bytes, and a space outside strings, are walked.
        for (text, in_string) in [(r#"a\u0041"#, true), (r#"a\/"#, true), (" 1", false)] {
            assert_eq!(escaped_in_place(text.as_bytes(), in_string), None, "{text}");
        }
        assert_eq!(escaped_in_place(br#"a\"b" 1"#, true), None);
        assert_eq!(escaped_in_place(br#"a\"b",1"#, true), Some(false));
    }

    /// `json` with whitespace after every `{`, `[`, `:` and `,` outside strings.
    fn spaced(json: &[u8]) -> Vec<u8> {
        let (mut out, mut in_string, mut escaped) = (Vec::new(), false, false);
        for &b in json {
            out.push(b);
            match b {
                _ if escaped => escaped = false,
                b'\\' if in_string => escaped = true,
                b'"' => in_string = !in_string,
                b'{' | b'[' | b':' | b',' if !in_string => out.extend_from_slice(b"\n \t"),
                _ => {}
            }
        }
        out
    }

    /// The straightforward form of [`plan_sha256`]: the normal form hashed string by string.
    fn reference_sha256(json: &[u8]) -> String {
        let mut hasher = Sha256::new();
        let mut i = 0;
        while i < json.len() {
            // Between strings: structure and numbers, hashed without whitespace. Terraform
            // writes compact JSON, so these stretches are short and the next quote is found
            // with a vectorised search.
            let quote = memchr::memchr(b'"', &json[i..]).map_or(json.len(), |q| i + q);
            let mut run = i;
            for (at, b) in json[i..quote].iter().enumerate() {
                if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                    hasher.update(&json[run..i + at]);
                    run = i + at + 1;
                }
            }
            hasher.update(&json[run..quote]);
            i = if quote < json.len() {
                string(json, quote, &mut hasher)
            } else {
                json.len()
            };
        }
        hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// Hashes the string starting at `json[start]` (a quote) in normal form; returns the index
    /// after its closing quote. Unescaped stretches are hashed as they are; malformed input is
    /// hashed as is (the plan parser reports it).
    fn string(json: &[u8], start: usize, hasher: &mut Sha256) -> usize {
        hasher.update(b"\"");
        let mut i = start + 1;
        let mut escaped = Vec::new();
        while i < json.len() {
            let run = memchr::memchr2(b'"', b'\\', &json[i..]).unwrap_or(json.len() - i);
            hasher.update(&json[i..i + run]);
            i += run;
            match json.get(i) {
                Some(b'"') => {
                    hasher.update(b"\"");
                    return i + 1;
                }
                Some(_) if i + 1 < json.len() => {
                    let (c, next) = unescape(json, i);
                    escaped.clear();
                    match c {
                        Some(c) => push_char(&mut escaped, c),
                        None => escaped.extend_from_slice(&json[i..next]),
                    }
                    hasher.update(&escaped);
                    i = next;
                }
                Some(_) => {
                    hasher.update(&json[i..]);
                    return json.len();
                }
                None => {}
            }
        }
        i
    }

    #[test]
    fn hash_ignores_formatting_but_not_content() {
        let compact = plan_sha256(br#"{"a":[1,2],"b":"x\u0041"}"#);
        let pretty = plan_sha256(b"{\n  \"a\": [ 1, 2 ],\n  \"b\": \"xA\"\n}\n");
        assert_eq!(compact, pretty);
        assert_ne!(compact, plan_sha256(br#"{"a":[1,2],"b":"xB"}"#));
        assert_ne!(
            plan_sha256(br#"{"a":"x y"}"#),
            plan_sha256(br#"{"a":"xy"}"#)
        );
        assert_eq!(compact.len(), 64);
    }

    #[test]
    fn marker_cannot_close_early() {
        let line = marker_line(&MarkerData {
            key: "a --> <!-- b".into(),
            time: "2026-11-22T10:00:00Z".into(),
            ..MarkerData::default()
        });
        let inner = &line[PREFIX.len()..line.len() - 4];
        assert!(!inner.contains("--") && !inner.contains('>') && !inner.contains('<'));
        let back = parse_marker(&format!("text\n{line}\n")).unwrap();
        assert_eq!(back["key"], "a --> <!-- b");
        assert_eq!(back["time"], "2026-11-22T10:00:00Z");
    }

    fn line(key: &str, run_id: Option<u64>) -> String {
        marker_line(&MarkerData {
            key: key.into(),
            run_id,
            time: "2026-11-22T10:00:00Z".into(),
            ..MarkerData::default()
        })
    }

    #[test]
    fn only_the_last_line_is_the_marker() {
        let (ours, copy) = (line("dev", Some(5)), line("prod", Some(u64::MAX)));
        let key = |body: &str| parse_marker(body).map(|m| m["key"].clone());
        // A copy before ours (in a code block, say) is never read.
        let body = format!("```\n{copy}\n```\n{ours}\n");
        assert_eq!(key(&body), Some("dev".into()));
        // Trailing whitespace and the `\r\n` line ends GitHub may store are ignored.
        assert_eq!(key(&format!("x\r\n{ours}\r\n \n\t")), Some("dev".into()));
        // A body whose last line is not a marker has none, whatever it holds before.
        assert_eq!(key(&format!("{ours}\nplan text\n")), None);
        assert_eq!(key(&format!("text\n {ours}\n")), None);
        assert_eq!(key(&format!("text\n{ours} x\n")), None);
        // Half a marker or JSON that is not an object is no marker.
        assert_eq!(key("x\n<!-- planmark:v1 {\"key\":\"dev\" -->"), None);
        assert_eq!(key("x\n<!-- planmark:v1 [1] -->"), None);
        assert_eq!(key("x\n<!-- planmark:v1 {\"key\":\"a-->\"} -->"), None);
        assert_eq!(key(&ours), Some("dev".into()));
    }

    #[test]
    fn the_marker_always_ends_the_body() {
        let marker = line("k", None);
        let ends = |md: &str| {
            let out = end_with_marker(md.to_string(), &marker);
            assert_eq!(out.matches(&marker).count(), 1, "{out}");
            assert_eq!(out.trim_end().rsplit('\n').next(), Some(marker.as_str()));
            out
        };
        // Already last (the built-in templates): unchanged, byte for byte.
        let built_in = format!("a\n<sub>x</sub>\n{marker}\n");
        assert_eq!(ends(&built_in), built_in);
        // Put first, in the middle or left out by a template: moved to the end.
        assert_eq!(
            ends(&format!("{marker}\nvalue\n")),
            format!("value\n\n{marker}\n")
        );
        assert_eq!(
            ends(&format!("a\n{marker}\r\nb")),
            format!("a\nb\n\n{marker}\n")
        );
        assert_eq!(ends("only text"), format!("only text\n\n{marker}\n"));
        assert_eq!(
            ends(&format!("_footer_ {marker}\nx")),
            format!("_footer_ \nx\n\n{marker}\n")
        );
        assert_eq!(ends("\n\n"), format!("{marker}\n"));
    }

    #[test]
    fn names_cannot_break_or_forge_the_marker() {
        let names = [
            "a\n<!-- planmark:v1 {\"key\":\"prod\"} -->",
            "cr\rlf\r\nnel\u{85}ls\u{2028}ps\u{2029}",
            "bidi \u{202E}dorp\u{202C} \u{2066}x\u{2069} \u{200B}\u{FEFF}",
            "ctrl \u{0}\u{1b}[31m\u{7f}",
            "a --> <!-- b -- > <",
            "emoji 🚀 and é",
            "::add-mask::x",
        ];
        for name in names {
            let marker = line(name, Some(1));
            assert!(marker.chars().all(|c| (' '..='~').contains(&c)), "{marker}");
            let inner = &marker[PREFIX.len()..marker.len() - " -->".len()];
            assert!(!inner.contains(['-', '<', '>']), "{marker}");
            let back = parse_marker(&format!("text\n{marker}\n")).expect(name);
            assert_eq!(back["key"], name);
        }
    }

    #[test]
    fn comparing_bodies_drops_only_our_marker() {
        let (a, b) = (line("k", Some(1)), line("k", Some(2)));
        assert_eq!(
            without_marker(&format!("x\n{a}\n")),
            without_marker(&format!("x\r\n{b}"))
        );
        // A copy elsewhere is content: bodies that differ there differ.
        assert_ne!(
            without_marker(&format!("{a}\ny\n{b}\n")),
            without_marker(&format!("{b}\ny\n{b}\n"))
        );
        assert_eq!(without_marker("no marker\n"), "no marker");
    }

    #[test]
    fn dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_341_600), "2026-11-22T10:00:00Z");
    }
}
