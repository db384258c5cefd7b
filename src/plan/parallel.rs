//! Plan model: a big plan read with its `resource_changes` and `resource_drift` lists
//! element by element, on two threads or one. The calling thread reads the document with
//! the lists left as text, while a helper reads them in pieces; when the document is read,
//! the calling thread reads each list's head (up to the first piece in it) and takes
//! pieces too (alone, it reads them all). A piece belongs to the list whose head (or
//! whose piece before it) was read up to where it starts. The document's read checks the list's syntax, so its elements are skimmed
//! ([`super::skim`]), each one that is not plain read with serde; either way each entry
//! knows where its change starts in the text, which is where the change is read again
//! from (a whole list read by serde locates only changes whose address has no escapes,
//! and keeps the others as read: 400 bytes and more each, for `for_each` keys).
//!
//! Where pieces start is guessed from the text (an object opening with an `"address"`
//! member, as Terraform writes a change, after every 256 KiB of text) and checked before
//! anything read from a guess is used: a piece is used only if what comes before it (the
//! list's head, or another piece) was read up to where it starts, element by element. A
//! wrong guess costs only the time spent on it. [`parse`] returns `None` when the document
//! has an error: the caller then reads it in order, which is what names the error.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::{mpsc, OnceLock};

use memchr::memmem;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use super::entries::before_space;
use super::model::{ChangeEntry, Plan, PlanDocument, Segmented};
use super::skim;

/// Documents smaller than this are read in order, by serde: a thread would cost more than
/// it saves, and the changes kept as read are few.
pub(super) const PARALLEL_MIN: usize = 1 << 20;

/// Bytes of text per piece of the list, about: small enough for the two threads to end
/// together, large enough that guessing where pieces start costs nothing.
const PIECE: usize = 256 * 1024;

/// The document with its lists as text.
type Unread<'a> = PlanDocument<'a, ListText<'a>>;

/// A list member's text (`None` when it is absent).
#[derive(Default)]
struct ListText<'a>(Option<&'a RawValue>);

impl<'de: 'a, 'a> Deserialize<'de> for ListText<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // `null` too is kept as text, to be refused as a list is.
        <&RawValue>::deserialize(deserializer).map(|raw| ListText(Some(raw)))
    }
}

/// The elements of a piece of the list, and where its reader stopped.
type Piece<'a> = (Vec<ChangeEntry<'a>>, Ended);

/// Where a reader of a piece stopped.
#[derive(Debug, PartialEq, Eq)]
enum Ended {
    /// At the start of piece `n`, where another reader started.
    Met(usize),
    /// At the end of the list; the offset just past its `]`.
    List(usize),
}

/// The plan in `text`, read on two threads (`helper`) or on this one; `None` when the
/// document has an error.
pub(super) fn parse(text: &str, helper: bool) -> Option<Plan<'_>> {
    parse_with(text, |text| piece_starts(text, PIECE), helper)
}

/// [`parse`] with the guesses made by `guess`: the offsets of the `{` where pieces start,
/// increasing.
fn parse_with<'a>(
    text: &'a str,
    guess: impl FnOnce(&str) -> Vec<usize> + Send,
    helper: bool,
) -> Option<Plan<'a>> {
    let (send_starts, starts) = mpsc::sync_channel(1);
    let pieces = Pieces::default();
    let read = std::thread::scope(|scope| {
        let pieces = &pieces;
        let guessed = move || {
            let starts = guess(text);
            pieces.prepare(starts.len());
            let _ = send_starts.send(starts.clone());
            starts
        };
        if helper {
            scope.spawn(move || pieces.read(text, &guessed()));
        } else {
            // This thread reads the pieces too, after the list's head.
            guessed();
        }
        let read = read(text, pieces, &starts);
        if !matches!(read, Some((_, [Some(_), _] | [_, Some(_)]))) {
            // The helper has nothing left to do.
            pieces.stop.store(true, Relaxed);
        }
        read
    });
    let (document, heads) = read?;
    let mut read = pieces.into_read();
    let [changes, drift] = heads.map(|head| match head {
        None => Some(Segmented::default()),
        Some((list, head)) => {
            joined(&mut read, text, list, head).or_else(|| serde_json::from_str(list).ok())
        }
    });
    Some(document.with_lists(changes?, drift?))
}

/// What the calling thread read (`None` when the document has an error): the document;
/// for each of its lists present (`resource_changes`, then `resource_drift`), its text,
/// read in pieces, and its head.
type Read<'a> = Option<(Unread<'a>, [Option<(&'a str, Piece<'a>)>; 2])>;

/// The pieces of the list: which one to read next, each one's reading.
#[derive(Default)]
struct Pieces<'a> {
    read: OnceLock<Vec<OnceLock<Option<Piece<'a>>>>>,
    next: AtomicUsize,
    stop: AtomicBool,
}

impl<'a> Pieces<'a> {
    fn prepare(&self, count: usize) {
        let _ = self.read.set((0..count).map(|_| OnceLock::new()).collect());
    }

    /// Reads pieces not yet taken, until none is left or it is told to stop.
    fn read(&self, text: &'a str, starts: &[usize]) {
        let Some(read) = self.read.get() else { return };
        loop {
            let n = self.next.fetch_add(1, Relaxed);
            if n >= starts.len() || self.stop.load(Relaxed) {
                return;
            }
            let _ = read[n].set(read_elements(text, starts, starts[n], n + 1, &self.stop));
        }
    }

    /// Each piece's reading (`None` where it gave up or was not read).
    fn into_read(self) -> Vec<Option<Piece<'a>>> {
        let read = self.read.into_inner().unwrap_or_default();
        read.into_iter()
            .map(|piece| piece.into_inner().flatten())
            .collect()
    }
}

/// A list put together: its `head`, the piece (taken from `read`) where that ended, the
/// one where that ended, and so on; `None` unless that ends at the end of `list` (in
/// `text`). A chain never leaves its list: each reading stops at the list's end.
fn joined<'a>(
    read: &mut [Option<Piece<'a>>],
    text: &str,
    list: &str,
    head: Piece<'a>,
) -> Option<Segmented<ChangeEntry<'a>>> {
    let mut entries = Segmented::default();
    let mut piece = Some(head);
    loop {
        let (elements, ended) = piece?;
        entries.push_segment(elements);
        match ended {
            Ended::Met(next) => piece = read.get_mut(next)?.take(),
            Ended::List(end) => {
                return (end == offset(text, list) + list.len()).then_some(entries);
            }
        }
    }
}

/// The document, read here; its lists read in order or left to the pieces, which this
/// thread reads too once the document is read.
fn read<'a>(text: &'a str, pieces: &Pieces<'a>, starts: &mpsc::Receiver<Vec<usize>>) -> Read<'a> {
    let document = read_document(text)?;
    let lists = [&document.resource_changes, &document.resource_drift]
        .map(|list| list.0.map(RawValue::get));
    if lists.iter().all(Option::is_none) {
        return Some((document, [None, None]));
    }
    let starts = starts.recv().unwrap_or_default();
    let mut heads = [None, None];
    for (head, list) in heads.iter_mut().zip(lists) {
        let Some(list) = list else { continue };
        // The head of the list, up to the first piece it meets, is read here.
        let at = offset(text, list);
        let first = starts.partition_point(|&start| start <= at);
        let read = read_elements(text, &starts, at + 1, first, &pieces.stop)?;
        *head = Some((list, read));
    }
    pieces.read(text, &starts);
    Some((document, heads))
}

/// The offset of `part` in `text` (which holds it).
fn offset(text: &str, part: &str) -> usize {
    part.as_ptr() as usize - text.as_ptr() as usize
}

/// The document with its lists as text, or `None` if it does not parse.
fn read_document(text: &str) -> Option<Unread<'_>> {
    let mut de = serde_json::Deserializer::from_str(text);
    let document = Unread::deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(document)
}

/// Reads elements of the list from `at` (just after its `[`, or at an element's `{`) up
/// to a piece's start from `starts[next..]` that it arrives at exactly, or to the list's
/// end. Gives up (`None`) on an element that does not parse, or when told to stop.
/// Elements are skimmed, assuming valid syntax: what is read is used only once the
/// document's read has checked it.
fn read_elements<'a>(
    text: &'a str,
    starts: &[usize],
    mut at: usize,
    mut next: usize,
    stop: &AtomicBool,
) -> Option<Piece<'a>> {
    let bytes = text.as_bytes();
    let mut entries = Vec::new();
    at = after_space(bytes, at);
    if bytes.get(at) == Some(&b']') {
        return Some((entries, Ended::List(at + 1)));
    }
    loop {
        // A start passed over was not an element's: the next one may be.
        while starts.get(next).is_some_and(|&start| start < at) {
            next += 1;
        }
        if starts.get(next) == Some(&at) {
            return Some((entries, Ended::Met(next)));
        }
        if stop.load(Relaxed) {
            return None;
        }
        let (entry, end) = match skim::entry(text, at) {
            Some(skimmed) => skimmed,
            None => {
                // An object ends itself: the stream reader takes it without looking past it.
                let mut stream = serde_json::Deserializer::from_str(&text[at..]).into_iter();
                let entry: ChangeEntry = stream.next()?.ok()?;
                (entry.located(at), at + stream.byte_offset())
            }
        };
        entries.push(entry);
        at = after_space(bytes, end);
        match bytes.get(at)? {
            b',' => at = after_space(bytes, at + 1),
            b']' => return Some((entries, Ended::List(at + 1))),
            _ => return None,
        }
    }
}

/// Where pieces of about `size` bytes may start: at a `{` after a `,` and before an
/// `"address"` key (Terraform writes it first), the first such after every `size` bytes
/// of the text. Only those inside the list are ever used.
fn piece_starts(text: &str, size: usize) -> Vec<usize> {
    let bytes = text.as_bytes();
    let finder = memmem::Finder::new(b"\"address\":");
    let mut starts = Vec::new();
    let mut from = size;
    while from < bytes.len() {
        let found = finder.find_iter(&bytes[from..]).find_map(|found| {
            let key = from + found;
            let open = before_space(bytes, key).filter(|&o| bytes[o] == b'{')?;
            before_space(bytes, open).filter(|&c| bytes[c] == b',')?;
            Some((open, key))
        });
        let Some((open, key)) = found else { break };
        // The `{` may come before `from`: a start once only, and the search goes on.
        if starts.last().is_none_or(|&last| last < open) {
            starts.push(open);
        }
        from = open.saturating_add(size).max(key + 1);
    }
    starts
}

/// The first offset from `at` that is not JSON whitespace (or the text's length).
fn after_space(bytes: &[u8], at: usize) -> usize {
    let rest = bytes.get(at..).unwrap_or_default();
    at + rest
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .unwrap_or(rest.len())
}

#[cfg(test)]
mod tests {
    use super::super::ChangeList::{Changes, Drift};
    use super::*;

    /// A plan as read from `text`, its lists' segments aside (they differ with the way it
    /// is read), each change and drifted resource as read again from its entry (which may
    /// find it otherwise), one per line.
    fn shown<'a>(plan: Option<Plan<'a>>, text: &'a str) -> String {
        let mut plan = plan.expect("the plan parses");
        plan.text = text;
        let changes = (0..plan.resource_changes.len()).map(|i| (false, i));
        let drift = (0..plan.resource_drift.len()).map(|i| (true, i));
        let entries: Vec<String> = changes
            .chain(drift)
            .map(|(drift, i)| {
                let (e, read) = match drift {
                    false => (&plan.resource_changes[i], plan.read_change(Changes, i)),
                    true => (&plan.resource_drift[i], plan.read_change(Drift, i)),
                };
                let read = read.expect("read again");
                let read = read.expect("its values parse");
                let c = &read.change;
                format!(
                    "{:?} {:?} {:?} {} {} {} | {:?} {:?} {:?} {:?} {:?}",
                    e.address,
                    e.type_,
                    e.action,
                    e.data_source,
                    e.moved,
                    e.importing,
                    (&c.address, &c.previous_address, &c.module_address, &c.mode),
                    (&c.type_, &c.name, &c.index, &c.deposed, &c.provider_name),
                    (&c.action_reason, c.index_unknown),
                    (
                        c.change.action,
                        &c.change.importing,
                        &c.change.generated_config
                    ),
                    read.values,
                )
            })
            .collect();
        plan.text = "";
        format!("{:?}\n{}", plan.with_lists((), ()), entries.join("\n"))
    }

    fn in_order(text: &str) -> String {
        shown(super::super::parse_in_order("plan.json", text).ok(), text)
    }

    /// Changes whose values hold objects that look like changes, after a `,` and opening
    /// with `"address"`: guessed piece starts that are no element's.
    const HOSTILE: &str = r#"{"format_version":"1.2","variables":{"v":{"value":{"resource_changes":[{"address":"fake","change":{"actions":["delete"]}}]}}},
      "resource_changes":[
        {"address":"a.x","mode":"managed","type":"a","name":"x","provider_name":"p",
         "change":{"actions":["create"],"before":null,"after":{"l":[{"address":"f1","change":{"actions":["delete"]}},{"address":"f2","change":{"actions":["delete"]}}]}}},
        {"address":"a.\u0079","mode":"managed","type":"a","name":"y","provider_name":"p",
         "change":{"actions":["update"],"before":{"s":",{\"address\":\"f3\"}"},"after":{"s":"]"}}} ,
        { "address" : "b.z", "mode":"data","type":"b","name":"z","provider_name":"p",
         "change":{"actions":["read"],"after":[1,{"address":"f4","change":{"actions":["delete"]}}]}}
      ],
      "resource_drift":[
        {"address":"d.p","mode":"managed","type":"d","name":"p","provider_name":"p",
         "change":{"actions":["update"],"before":{"s":"a"},"after":{"s":",{\"address\":\"f5\"}"}}},
        {"address":"d.q[\"k\"]","mode":"managed","type":"d","name":"q","index":"k","provider_name":"p",
         "change":{"actions":["delete"],"before":{"l":[{"address":"f6"},{"address":"f7"}]},"after":null}},
        {"address":"d.r","mode":"managed","type":"d","name":"r","provider_name":"p",
         "change":{"actions":["update"],"before":{},"after":{}}}
      ],
      "configuration":{"root_module":{}}}"#;

    fn fixtures() -> Vec<String> {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real-plans");
        let mut plans: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| std::fs::read_to_string(entry.path().join("plan.json")).ok())
            .collect();
        assert!(plans.len() >= 10, "the real plans are in tests/fixtures");
        plans.push(HOSTILE.to_string());
        plans
    }

    #[test]
    fn the_same_plan_as_read_in_order_wherever_pieces_are_guessed_to_start() {
        let mut joined = 0;
        for text in fixtures() {
            let expected = in_order(&text);
            let objects = text.bytes().enumerate().filter(|&(_, b)| b == b'{');
            // Each object in the text as the one piece guessed, then guesses as made.
            for (at, _) in objects {
                let plan = parse_with(&text, |_| vec![at], at % 2 == 0).unwrap();
                // Two segments: the list's head, and the piece (at an element, not the first).
                let lists = [&plan.resource_changes, &plan.resource_drift];
                joined += lists.iter().filter(|l| l.segment_count() == 2).count();
                assert_eq!(shown(Some(plan), &text), expected, "piece at {at}");
            }
            for size in [1, 100, 1000, usize::MAX] {
                for helper in [true, false] {
                    let plan = parse_with(&text, |text| piece_starts(text, size), helper);
                    assert_eq!(shown(plan, &text), expected, "pieces of {size} bytes");
                }
            }
        }
        // The guesses at an element's start, but for the first of each list, were used.
        let elements: usize = fixtures()
            .iter()
            .map(|text| {
                let plan = super::super::parse_in_order("plan.json", text).unwrap();
                let lists = [plan.resource_changes.len(), plan.resource_drift.len()];
                lists.iter().map(|n| n.saturating_sub(1)).sum::<usize>()
            })
            .sum();
        assert!(elements > 20, "{elements}");
        assert_eq!(joined, elements);
    }

    #[test]
    fn guesses_skip_what_is_not_an_element() {
        let starts = piece_starts(HOSTILE, 1);
        let at = |needle: &str| HOSTILE.find(needle).unwrap();
        // After a `,`: not the first change or drift (after `[`), nor the first fake in
        // `l`, nor the escaped one in a string; not `"address" :` (Terraform writes no
        // space).
        assert_eq!(
            starts,
            [
                at(r#"{"address":"f2""#),
                at(r#"{"address":"a.\u0079""#),
                at(r#"{"address":"f4""#),
                at(r#"{"address":"d.q"#),
                at(r#"{"address":"f7""#),
                at(r#"{"address":"d.r""#)
            ]
        );
    }

    #[test]
    fn a_document_with_an_error_is_left_to_the_reading_in_order() {
        let broken = [
            HOSTILE.replace(r#""actions":["read"]"#, r#""actions":"read""#),
            HOSTILE.replace(r#""b.z""#, "1"),
            HOSTILE.replace(
                "\"resource_changes\":[",
                "\"resource_changes\":null,\"x\":[",
            ),
            HOSTILE.replace(r#""configuration""#, r#""resource_changes":[],"c""#),
            format!("{HOSTILE}]"),
            // The same in the drift.
            HOSTILE.replace(
                r#""actions":["delete"],"before""#,
                r#""actions":"delete","before""#,
            ),
            HOSTILE.replace(r#""d.r""#, "1"),
            HOSTILE.replace("\"resource_drift\":[", "\"resource_drift\":null,\"y\":["),
        ];
        for text in broken {
            assert!(
                super::super::parse_in_order("plan.json", &text).is_err(),
                "{text}"
            );
            for size in [1, 100, usize::MAX] {
                assert!(
                    parse_with(&text, |text| piece_starts(text, size), size == 1).is_none(),
                    "{text}"
                );
            }
        }
        // No list, or an empty one.
        for text in [r#"{"format_version":"1.0"}"#, r#"{"resource_changes":[ ]}"#] {
            assert_eq!(
                shown(parse_with(text, |_| vec![0], true), text),
                in_order(text)
            );
        }
    }

    #[test]
    fn big_documents_are_read_so_and_fail_as_read_in_order() {
        // Padding before the list makes the document big enough.
        let padding = format!(
            r#""planned_values":{{"pad":"{}"}},"#,
            "p".repeat(PARALLEL_MIN)
        );
        let big = HOSTILE.replacen("\"variables\"", &format!("{padding}\"variables\""), 1);
        let plan = super::super::parse_plan("plan.json", big.as_bytes());
        assert_eq!(shown(plan.ok(), &big), in_order(&big));
        // A wrong type; a lone surrogate where serde decodes a string (its syntax check of
        // the list as text lets that by).
        for broken in [
            big.replace(r#""actions":["read"]"#, r#""actions":"read""#),
            big.replace(r#""name":"x""#, r#""name":"\ud800""#),
            big.replace(r#""name":"q""#, r#""name":"\ud800""#),
        ] {
            assert_ne!(broken, big);
            for threads in [true, false] {
                let parsed = super::super::parse("plan.json", broken.as_bytes(), threads);
                let in_order = super::super::parse_in_order("plan.json", &broken);
                let (parsed, in_order) = (parsed.map(|_| ()), in_order.map(|_| ()));
                assert_eq!(format!("{parsed:?}"), format!("{in_order:?}"));
                assert!(parsed.is_err());
            }
        }
    }
}
