//! Plan model: a list read in fixed-size segments. A huge `resource_changes` list read
//! into one `Vec` would grow by doubling, copying everything read so far each time and
//! leaving up to half its capacity unused; segments never move once filled, so reading
//! costs the list's own size.

use std::fmt;
use std::marker::PhantomData;
use std::ops::Index;

use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};

/// Elements per segment.
const SEGMENT: usize = 1024;

/// A read-only list stored in segments of `SEGMENT` (1,024) elements.
#[derive(Debug, Clone)]
pub struct Segmented<T> {
    segments: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Segmented<T> {
    fn default() -> Self {
        Segmented {
            segments: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Segmented<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// No elements?
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The element at `index`, if there is one.
    pub fn get(&self, index: usize) -> Option<&T> {
        self.segments.get(index / SEGMENT)?.get(index % SEGMENT)
    }

    /// The elements in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + '_ {
        self.segments.iter().flatten()
    }

    fn push(&mut self, value: T) {
        match self.segments.last_mut() {
            Some(last) if last.len() < SEGMENT => last.push(value),
            _ => {
                let mut segment = Vec::with_capacity(SEGMENT);
                segment.push(value);
                self.segments.push(segment);
            }
        }
        self.len += 1;
    }
}

impl<T> Index<usize> for Segmented<T> {
    type Output = T;
    fn index(&self, index: usize) -> &T {
        &self.segments[index / SEGMENT][index % SEGMENT]
    }
}

impl<'s, T> IntoIterator for &'s Segmented<T> {
    type Item = &'s T;
    type IntoIter = std::iter::Flatten<std::slice::Iter<'s, Vec<T>>>;
    fn into_iter(self) -> Self::IntoIter {
        self.segments.iter().flatten()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Segmented<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Elements<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Elements<T> {
            type Value = Segmented<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut list = Segmented::default();
                while let Some(value) = seq.next_element()? {
                    list.push(value);
                }
                Ok(list)
            }
        }
        deserializer.deserialize_seq(Elements(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_across_segments() {
        let values: Vec<usize> = (0..SEGMENT * 2 + 3).collect();
        let json = serde_json::to_string(&values).unwrap();
        let list: Segmented<usize> = serde_json::from_str(&json).unwrap();
        assert_eq!(list.len(), values.len());
        assert!(list.iter().copied().eq(values.iter().copied()));
        assert_eq!(list[SEGMENT], SEGMENT);
        assert_eq!(list.get(SEGMENT * 2 + 2), Some(&(SEGMENT * 2 + 2)));
        assert_eq!(list.get(SEGMENT * 2 + 3), None);
        assert_eq!(list.segments.len(), 3);
    }

    #[test]
    fn empty_and_wrong_types() {
        let list: Segmented<u8> = serde_json::from_str("[]").unwrap();
        assert!(list.is_empty());
        let err = serde_json::from_str::<Segmented<u8>>("{}").unwrap_err();
        assert!(err.to_string().contains("invalid type: map"), "{err}");
    }
}
