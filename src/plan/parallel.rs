//! Plan model: a big plan read with its `resource_changes` and `resource_drift` lists
//! element by element, on two threads or one, every byte's syntax checked once.
//!
//! The calling thread reads the document member by member. The members the document has
//! no field for (`planned_values`, `prior_state`: each as big as a list) are only
//! checked, by [`super::syntax`]; the others are read by serde. A list is read in pieces:
//! the calling thread reads its head (up to the first piece in it), then takes pieces
//! until none is left, and goes on from where they say the list ends. Meanwhile a helper
//! checks `prior_state` ahead of the calling thread (Terraform writes it after the lists,
//! where this thread comes last), then takes pieces. A piece belongs to the list whose
//! head (or whose piece before it) was read up to where it starts. Elements are skimmed
//! ([`super::skim`], which checks their syntax), each one that is not plain read with
//! serde; either way each entry knows where its change starts in the text, which is where
//! the change is read again from (a whole list read by serde locates only changes whose
//! address has no escapes, and keeps the others as read: 400 bytes and more each, for
//! `for_each` keys). Before (commit 3b77b3e), serde checked the whole document's syntax
//! on the calling thread while the helper skimmed the lists: the calling thread's check
//! was the parse's critical path.
//!
//! Where pieces start is guessed from the text (an object opening with an `"address"`
//! member, as Terraform writes a change, after every 256 KiB of text) and checked before
//! anything read from a guess is used: a piece is used only if what comes before it (the
//! list's head, or another piece) was read up to where it starts, element by element. A
//! wrong guess costs only the time spent on it. [`parse`] returns `None` when the document
//! has an error: the caller then reads it in order, which is what names the error.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::{mpsc, OnceLock};

use memchr::memmem;

use serde::de::value::MapDeserializer;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use super::entries::before_space;
use super::model::{ChangeEntry, Plan, PlanDocument, Segmented};
use super::skim;
use super::syntax::{self, after_space};

/// Documents smaller than this are read in order, by serde: a thread would cost more than
/// it saves, and the changes kept as read are few.
pub(super) const PARALLEL_MIN: usize = 1 << 20;

/// Bytes of text per piece of the list, about: small enough for the two threads to end
/// together, large enough that guessing where pieces start costs nothing.
const PIECE: usize = 256 * 1024;

/// The document without its lists, which are read apart.
type Unread<'a> = PlanDocument<'a, ()>;

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
            // Beside this thread, which goes on reading.
            scope.spawn(move || {
                let starts = guessed();
                pieces.ahead.check(text.as_bytes());
                pieces.read(text, &starts);
            });
        } else {
            // This thread reads the pieces too, when it comes to a list.
            guessed();
        }
        let read = read(text, pieces, &starts);
        // The helper has nothing left to do (nothing read now is used but what it read).
        pieces.stop.store(true, Relaxed);
        read
    });
    let (document, heads) = read?;
    let mut read = pieces.into_read();
    let [changes, drift] = heads.map(|head| match head {
        None => Some(Segmented::default()),
        Some((list, head)) => joined(&mut read, text, list, head),
    });
    Some(document.with_lists(changes?, drift?))
}

/// What the calling thread read (`None` when the document has an error): the document
/// but its lists; for each list present (`resource_changes`, then `resource_drift`), its
/// text and its head, the rest of it being in pieces.
type Read<'a> = Option<(Unread<'a>, [Option<(&'a str, Piece<'a>)>; 2])>;

/// The pieces of the list: which one to read next, each one's reading; and a member
/// checked ahead.
#[derive(Default)]
struct Pieces<'a> {
    read: OnceLock<Vec<OnceLock<Option<Piece<'a>>>>>,
    next: AtomicUsize,
    stop: AtomicBool,
    ahead: Ahead,
}

impl<'a> Pieces<'a> {
    fn prepare(&self, count: usize) {
        let _ = self.read.set((0..count).map(|_| OnceLock::new()).collect());
    }

    /// Reads pieces not yet taken, until none is left or it is told to stop; each piece
    /// taken is set, to `None` if it was not read (another thread may wait for it).
    fn read(&self, text: &'a str, starts: &[usize]) {
        while self.read_one(text, starts) {}
    }

    /// Reads the next piece not yet taken; `false` if none is left.
    fn read_one(&self, text: &'a str, starts: &[usize]) -> bool {
        let Some(read) = self.read.get() else {
            return false;
        };
        let n = self.next.fetch_add(1, Relaxed);
        let Some(slot) = read.get(n) else {
            return false;
        };
        let _done = SetWhenDone(slot);
        if !self.stop.load(Relaxed) {
            let _ = slot.set(read_elements(text, starts, starts[n], n + 1, &self.stop));
        }
        true
    }

    /// Where the list whose head is `head` ends (the offset just past its `]`), once
    /// every piece has been taken: `None` if the pieces do not make it up.
    fn list_end(&self, head: &Piece<'a>) -> Option<usize> {
        let mut ended = &head.1;
        loop {
            match ended {
                Ended::List(end) => return Some(*end),
                Ended::Met(n) => ended = &self.read.get()?.get(*n)?.wait().as_ref()?.1,
            }
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

/// Sets a piece (or a member's end) taken to `None` unless it was read, however its
/// reader ends (a panic too), so that no thread waits for it forever.
struct SetWhenDone<'s, T>(&'s OnceLock<Option<T>>);

impl<T> Drop for SetWhenDone<'_, T> {
    fn drop(&mut self) {
        let _ = self.0.set(None);
    }
}

/// The key of the member the helper checks ahead of this thread: Terraform writes
/// `prior_state`, which the document has no field for and which is as big as
/// `planned_values`, after the lists (this thread comes to `planned_values` first).
const AHEAD: &[u8] = b"\"prior_state\":";

/// The value of [`AHEAD`]'s member (where it is guessed to be), checked by the helper.
#[derive(Default)]
struct Ahead {
    /// Where the value is guessed to start.
    start: OnceLock<usize>,
    /// Whether a thread has taken its check.
    taken: AtomicBool,
    /// Where it ends, `None` if it is not valid.
    end: OnceLock<Option<usize>>,
}

impl Ahead {
    /// Guesses where the value starts, and checks it unless this thread came to it first.
    fn check(&self, bytes: &[u8]) {
        // Searched from the start: memchr's reverse search (tried: Terraform writes the key
        // after both lists) has no vectorised prefilter, and took 1.6 ms instead of 0.3 ms
        // on creates_10k, which has no `prior_state`.
        let Some(key) = memmem::find(bytes, AHEAD) else {
            return;
        };
        let start = after_space(bytes, key + AHEAD.len());
        let _ = self.start.set(start);
        if !self.taken.swap(true, Relaxed) {
            let _done = SetWhenDone(&self.end);
            let _ = self.end.set(syntax::value_end(bytes, start));
        }
    }

    /// Where the value at `at` ends if the helper checked it (`Some(None)` if it is not
    /// valid), once it has, `meanwhile` called until it is or that returns `false`;
    /// `None` if this thread is to check it.
    fn checked(&self, at: usize, mut meanwhile: impl FnMut() -> bool) -> Option<Option<usize>> {
        if self.start.get() != Some(&at) || !self.taken.swap(true, Relaxed) {
            return None;
        }
        while self.end.get().is_none() && meanwhile() {}
        Some(*self.end.wait())
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

/// The document, read here member by member: a list (`resource_changes` or
/// `resource_drift`) from its head, this thread then taking pieces too, and on from where
/// its pieces say it ends; a member the document has no field for is only checked (serde
/// would skip it: `planned_values` and `prior_state` are as big as the lists); the others
/// kept as text and read into the document at the end.
fn read<'a>(text: &'a str, pieces: &Pieces<'a>, starts: &mpsc::Receiver<Vec<usize>>) -> Read<'a> {
    let bytes = text.as_bytes();
    let mut members: Vec<(Cow<'a, str>, &'a RawValue)> = Vec::new();
    let mut heads = [None, None];
    let mut guessed = None;
    let mut at = after_space(bytes, 0);
    (bytes.get(at) == Some(&b'{')).then_some(())?;
    at = after_space(bytes, at + 1);
    let mut more = bytes.get(at) != Some(&b'}');
    if !more {
        at += 1;
    }
    while more {
        let (key, end) = next_value::<Cow<'a, str>>(text, at)?;
        at = after_space(bytes, end);
        (bytes.get(at) == Some(&b':')).then_some(())?;
        at = after_space(bytes, at + 1);
        let list = ["resource_changes", "resource_drift"]
            .iter()
            .position(|name| *name == key);
        let end = match list {
            Some(n) => {
                // A list repeated or not a list is an error: the reading in order names it.
                if heads[n].is_some() || bytes.get(at) != Some(&b'[') {
                    return None;
                }
                let starts: &Vec<usize> =
                    guessed.get_or_insert_with(|| starts.recv().unwrap_or_default());
                // The head of the list, up to the first piece it meets, is read here.
                let first = starts.partition_point(|&start| start <= at);
                let head = read_elements(text, starts, at + 1, first, &pieces.stop)?;
                pieces.read(text, starts);
                let end = pieces.list_end(&head)?;
                heads[n] = Some((&text[at..end], head));
                end
            }
            None if !document_fields().contains(&&*key) => {
                // Only checked, here or by the helper (this thread reading pieces meanwhile).
                let meanwhile = || {
                    let starts = guessed.get_or_insert_with(|| starts.recv().unwrap_or_default());
                    pieces.read_one(text, starts)
                };
                match pieces.ahead.checked(at, meanwhile) {
                    Some(end) => end?,
                    None => syntax::value_end(bytes, at)?,
                }
            }
            None => {
                let (value, end) = next_value::<&RawValue>(text, at)?;
                members.push((key, value));
                end
            }
        };
        at = after_space(bytes, end);
        more = match bytes.get(at)? {
            b',' => true,
            b'}' => false,
            _ => return None,
        };
        at = after_space(bytes, at + 1);
    }
    // Nothing but space after the document.
    (at >= bytes.len()).then_some(())?;
    // The map's deserializer checks that every member was read.
    let fields = MapDeserializer::<_, serde_json::Error>::new(members.into_iter());
    Some((Unread::deserialize(fields).ok()?, heads))
}

/// The value of type `T` at `at` in `text`, and the offset just past it; `None` if there
/// is none.
fn next_value<'a, T: Deserialize<'a>>(text: &'a str, at: usize) -> Option<(T, usize)> {
    let mut stream = serde_json::Deserializer::from_str(text.get(at..)?).into_iter();
    let value = stream.next()?.ok()?;
    Some((value, at + stream.byte_offset()))
}

/// The names of the document's fields, as serde's derive gives them to a deserializer.
fn document_fields() -> &'static [&'static str] {
    static FIELDS: OnceLock<&'static [&'static str]> = OnceLock::new();
    FIELDS.get_or_init(|| {
        let mut fields = None;
        let _ = Unread::deserialize(FieldNames(&mut fields));
        fields.unwrap_or_default()
    })
}

/// A deserializer that only notes the field names of the struct asked of it.
struct FieldNames<'f>(&'f mut Option<&'static [&'static str]>);

impl<'de> Deserializer<'de> for FieldNames<'_> {
    type Error = serde::de::value::Error;

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = Some(fields);
        Err(serde::de::Error::custom(
            "only the field names were asked for",
        ))
    }

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("not a struct"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// The offset of `part` in `text` (which holds it).
fn offset(text: &str, part: &str) -> usize {
    part.as_ptr() as usize - text.as_ptr() as usize
}

/// Reads elements of the list from `at` (just after its `[`, or at an element's `{`) up
/// to a piece's start from `starts[next..]` that it arrives at exactly, or to the list's
/// end. Gives up (`None`) on an element that does not parse, or when told to stop.
/// Elements are skimmed, their syntax checked (nothing else checks it), or read by serde.
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
      "configuration":{"root_module":{}},
      "prior_state":{"values":{"root_module":{"resources":[{"address":"a.y","mode":"managed"},
        {"address":"a.z","values":{"s":"]"}}]}}}}"#;

    /// [`HOSTILE`] with `prior_state` keys in values before and after the document's own:
    /// the helper checks the wrong one ahead (the first).
    fn hostile_guessed_wrong() -> String {
        HOSTILE
            .replacen(
                r#""value":{"#,
                r#""value":{"prior_state":{"address":"x"},"#,
                1,
            )
            .replacen(
                r#""values":{"s":"]"}"#,
                r#""values":{"s":"]","prior_state":{"address":"y"}}"#,
                1,
            )
    }

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
        plans.push(hostile_guessed_wrong());
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
    fn action_invocations_are_read_beside_the_lists() {
        let change = |i: usize| {
            format!(
                r#"{{"address":"n.x[{i}]","mode":"managed","type":"n","name":"x","change":{{"actions":["no-op"],"before":{{"id":"{i:0100}"}},"after":{{"id":"{i:0100}"}}}}}}"#
            )
        };
        let list: Vec<String> = (0..8000).map(change).collect();
        let invocation = r#"{"address":"action.a.b","type":"a","name":"b","config_values":{"x":1},"invoke_action_trigger":{}}"#;
        let text = format!(
            r#"{{"format_version":"1.2","resource_changes":[{}],"action_invocations":[{invocation}]}}"#,
            list.join(",")
        );
        assert!(text.len() > PARALLEL_MIN);
        for helper in [true, false] {
            let plan = parse(&text, helper).expect("read element by element");
            assert_eq!(plan.resource_changes.len(), 8000);
            assert_eq!(plan.action_invocations.len(), 1);
            let read = &plan.action_invocations[0];
            assert_eq!(read.address, "action.a.b");
            assert_eq!(read.config_values.map(|v| v.get()), Some(r#"{"x":1}"#));
            assert!(read.invoke_action_trigger.is_some());
        }
    }

    #[test]
    fn the_document_fields_are_those_serde_reads() {
        let fields = document_fields();
        for field in [
            "format_version",
            "variables",
            "output_changes",
            "configuration",
            "action_invocations",
        ] {
            assert!(fields.contains(&field), "{field} in {fields:?}");
        }
        // Only checked: as big as the lists, and never read.
        for unused in ["planned_values", "prior_state"] {
            assert!(!fields.contains(&unused), "{unused} in {fields:?}");
        }
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
                at(r#"{"address":"d.r""#),
                at(r#"{"address":"a.z""#)
            ]
        );
    }

    #[test]
    fn a_document_with_an_error_is_left_to_the_reading_in_order() {
        let broken = [
            HOSTILE.replace(r#""actions":["read"]"#, r#""actions":"read""#),
            HOSTILE.replace(r#""b.z""#, "1"),
            HOSTILE.replace("\"resource_changes\":[", "\"resource_changes\":1,\"x\":["),
            HOSTILE.replace(r#""configuration""#, r#""resource_changes":[],"c""#),
            format!("{HOSTILE}]"),
            // The same in the drift.
            HOSTILE.replace(
                r#""actions":["delete"],"before""#,
                r#""actions":"delete","before""#,
            ),
            HOSTILE.replace(r#""d.r""#, "1"),
            HOSTILE.replace("\"resource_drift\":[", "\"resource_drift\":1,\"y\":["),
            // A list repeated, or one under a key with an escape (serde decodes it).
            HOSTILE.replace(r#""configuration""#, r#""resource_drift":[],"c""#),
            HOSTILE.replace("\"resource_drift\":[", "\"resource\\u005fdrift\":1,\"y\":["),
            // Bad syntax where only the syntax is checked: in a change's values, in an
            // unknown member of a change, in a member the document has no field for (the
            // one checked ahead too), and between members.
            HOSTILE.replace(r#"{"s":"a"}"#, r#"{"s":"a",}"#),
            HOSTILE.replace("[1,{", "[01,{"),
            HOSTILE.replace(r#""s":"]""#, r#""s":"\x""#),
            HOSTILE.replace(
                r#""provider_name":"p","#,
                "\"provider_name\":\"p\",\"u\":-,",
            ),
            HOSTILE.replace(r#""name":"x","#, "\"name\":\"x\",\"u\":\"\u{1}\","),
            HOSTILE.replace(r#""mode":"managed"}"#, r#""mode":"managed"]"#),
            HOSTILE.replace(r#"{"s":"]"}}]}}}"#, r#"{"s":"]"}}]}}"#),
            hostile_guessed_wrong().replace(r#"{"address":"x"}"#, r#"{"address":x}"#),
            hostile_guessed_wrong().replace(r#"{"address":"y"}"#, r#"{"address":y}"#),
            HOSTILE.replace(r#""configuration":{"root_module":{}}"#, r#""c":{"a" "b"}"#),
            HOSTILE.replace(r#""configuration":"#, r#""configuration"="#),
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
        // Null for a list (as re-serialised plans write it) is left to the reading in
        // order, which reads it as no list.
        let null = r#"{"resource_changes":null,"resource_drift":null}"#;
        assert!(parse_with(null, |_| vec![0], true).is_none());
        let empty = r#"{"resource_changes":[],"resource_drift":[]}"#;
        assert_eq!(in_order(null), in_order(empty));
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
