//! Text renderer: the output buffer. It is a `String` that can also remember where each
//! line's action symbol sits, so the Markdown renderer can move symbols to column 0 for
//! GitHub's `diff` colouring without guessing from text (a heredoc line may itself start
//! with `+ `).

use std::fmt;
use std::ops::{Deref, DerefMut};

use crate::diff::Action;

/// A text buffer with optional symbol marks (byte offsets of `+`, `-`, `~` symbols).
#[derive(Debug, Default)]
pub(crate) struct Out {
    text: String,
    marks: Option<Vec<usize>>,
}

impl Out {
    /// A buffer that records marks.
    pub(crate) fn marked() -> Out {
        Out {
            text: String::new(),
            marks: Some(Vec::new()),
        }
    }

    /// A buffer (recording no marks) continuing `text`.
    pub(crate) fn from_text(text: String) -> Out {
        Out { text, marks: None }
    }

    /// An empty buffer recording marks when `self` does (for text built aside and then
    /// appended).
    pub(crate) fn sibling(&self) -> Out {
        Out {
            text: String::new(),
            marks: self.marks.as_ref().map(|_| Vec::new()),
        }
    }

    /// Records that the character at byte `offset` from the current end is a symbol.
    pub(crate) fn mark_ahead(&mut self, offset: usize, action: Action) {
        if action == Action::NoOp {
            return;
        }
        let at = self.text.len() + offset;
        if let Some(marks) = &mut self.marks {
            marks.push(at);
        }
    }

    /// Appends another buffer, keeping its marks.
    pub(crate) fn append(&mut self, other: Out) {
        let base = self.text.len();
        if let (Some(marks), Some(theirs)) = (&mut self.marks, other.marks) {
            marks.extend(theirs.into_iter().map(|m| m + base));
        }
        self.text.push_str(&other.text);
    }

    /// The text and the marks (sorted, as they were recorded in order).
    pub(crate) fn into_parts(self) -> (String, Vec<usize>) {
        (self.text, self.marks.unwrap_or_default())
    }
}

impl Deref for Out {
    type Target = String;
    fn deref(&self) -> &String {
        &self.text
    }
}

impl DerefMut for Out {
    fn deref_mut(&mut self) -> &mut String {
        &mut self.text
    }
}

impl fmt::Write for Out {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.text.push_str(s);
        Ok(())
    }
}

/// Terraform's text for one item with the byte offsets of its action symbols (`+`, `-`,
/// `~`), which the Markdown renderer moves to column 0 for GitHub's `diff` colouring.
#[derive(Debug, Clone, Default)]
pub(crate) struct MarkedText {
    /// The text, without a trailing newline.
    pub(crate) text: String,
    /// Byte offsets of symbol characters, ascending.
    pub(crate) marks: Vec<usize>,
}

impl MarkedText {
    pub(crate) fn from_out(out: Out) -> MarkedText {
        let (text, marks) = out.into_parts();
        MarkedText { text, marks }
    }
}
