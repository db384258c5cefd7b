//! Plan model: a list read in segments. A huge `resource_changes` list read into one
//! `Vec` would grow by doubling, copying everything read so far each time and leaving up
//! to half its capacity unused; segments never move once filled, so reading costs the
//! list's own size. Segments are filled to a fixed size as elements come, or taken whole
//! (the pieces of a list read on several threads).

use std::fmt;
use std::marker::PhantomData;
use std::ops::Index;

use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};

/// Elements per segment filled as elements come.
const SEGMENT: usize = 1024;

/// A read-only list stored in segments.
#[derive(Debug, Clone)]
pub struct Segmented<T> {
    segments: Vec<Vec<T>>,
    /// The index of each segment's first element.
    starts: Vec<usize>,
    len: usize,
}

impl<T> Default for Segmented<T> {
    fn default() -> Self {
        Segmented {
            segments: Vec::new(),
            starts: Vec::new(),
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
        // The last segment starting at or before `index` (found in a few steps: there is
        // one per 1,024 elements, or per piece of a list read in pieces).
        let segment = self
            .starts
            .partition_point(|&start| start <= index)
            .checked_sub(1)?;
        self.segments[segment].get(index - self.starts[segment])
    }

    /// The element at `index`, to change, if there is one.
    pub(super) fn get_mut(&mut self, index: usize) -> Option<&mut T> {
        let segment = self
            .starts
            .partition_point(|&start| start <= index)
            .checked_sub(1)?;
        self.segments[segment].get_mut(index - self.starts[segment])
    }

    /// The elements in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + '_ {
        self.segments.iter().flatten()
    }

    /// Adds an element at the end.
    pub(super) fn push(&mut self, value: T) {
        match self.segments.last_mut() {
            Some(last) if last.len() < SEGMENT => last.push(value),
            _ => {
                let mut segment = Vec::with_capacity(SEGMENT);
                segment.push(value);
                self.push_segment(segment);
                return;
            }
        }
        self.len += 1;
    }

    /// Adds the elements of `segment` at the end, keeping it as a segment.
    pub(super) fn push_segment(&mut self, segment: Vec<T>) {
        if segment.is_empty() {
            return;
        }
        self.starts.push(self.len);
        self.len += segment.len();
        self.segments.push(segment);
    }
}

impl<T> Index<usize> for Segmented<T> {
    type Output = T;
    fn index(&self, index: usize) -> &T {
        match self.get(index) {
            Some(value) => value,
            None => panic!("index {index} out of a list of {}", self.len),
        }
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
                f.write_str("a sequence or null")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut list = Segmented::default();
                while let Some(value) = seq.next_element()? {
                    list.push(value);
                }
                Ok(list)
            }
            // Tools that re-serialise plans write `null` for a list Terraform omits.
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(Segmented::default())
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(Segmented::default())
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_seq(self)
            }
        }
        deserializer.deserialize_option(Elements(PhantomData))
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
    fn segments_taken_whole_keep_their_place() {
        let mut list = Segmented::default();
        list.push_segment(vec![0, 1, 2]);
        list.push_segment(Vec::new());
        list.push(3);
        list.push_segment((4..SEGMENT + 10).collect());
        list.push(SEGMENT + 10);
        assert_eq!(list.len(), SEGMENT + 11);
        assert!(list.iter().copied().eq(0..SEGMENT + 11));
        for i in 0..SEGMENT + 11 {
            assert_eq!(list[i], i);
        }
        assert_eq!(list.get(SEGMENT + 11), None);
        assert_eq!(list.starts, [0, 4, SEGMENT + 10]);
    }

    #[test]
    fn empty_and_wrong_types() {
        let list: Segmented<u8> = serde_json::from_str("[]").unwrap();
        assert!(list.is_empty());
        let err = serde_json::from_str::<Segmented<u8>>("{}").unwrap_err();
        assert!(err.to_string().contains("invalid type: map"), "{err}");
    }
}
