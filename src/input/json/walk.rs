//! JSON values: an object walked member by member without building it
//! ([`Value::walk_prefix`]).

use super::parse::Parser;
use super::{ParseError, Value, MAX_DEPTH};

impl<'a> Value<'a> {
    /// Walks the object at the start of `text` (after whitespace) member by member,
    /// ignoring whatever follows it, without building it: `member` gets each key, in
    /// document order (duplicates included), and the member's value to read
    /// ([`Member::value`]) or walk ([`Member::members`]); a value it leaves is checked and
    /// dropped. For a caller that takes a few members out of an object (one element of a
    /// larger document) and would otherwise build the object only to take it apart.
    /// `Ok(false)`, nothing walked, when the value is not an object.
    pub(crate) fn walk_prefix(
        text: &'a str,
        member: impl FnMut(&str, Member<'_, 'a>) -> Result<(), ParseError>,
    ) -> Result<bool, ParseError> {
        Member {
            parser: &mut Parser::new(text),
            depth: 0,
        }
        .members(member)
    }
}

/// One member's value in [`Value::walk_prefix`], at its first byte.
pub(crate) struct Member<'p, 'a> {
    parser: &'p mut Parser<'a>,
    depth: usize,
}

impl<'a> Member<'_, 'a> {
    /// The value, parsed.
    pub(crate) fn value(self) -> Result<Value<'a>, ParseError> {
        self.parser.value(self.depth)
    }

    /// Walks the value's members as [`Value::walk_prefix`] does (`Ok(false)`, the value
    /// read and dropped, if it is not an object).
    pub(crate) fn members(
        self,
        mut member: impl FnMut(&str, Member<'_, 'a>) -> Result<(), ParseError>,
    ) -> Result<bool, ParseError> {
        let parser = self.parser;
        if self.depth > MAX_DEPTH {
            return Err(parser.error("nesting too deep"));
        }
        if parser.bytes.get(parser.pos) != Some(&b'{') {
            parser.value(self.depth)?;
            return Ok(false);
        }
        parser.pos += 1;
        parser.skip_ws();
        if parser.bytes.get(parser.pos) == Some(&b'}') {
            parser.pos += 1;
            return Ok(true);
        }
        loop {
            parser.skip_ws();
            let key = parser.key()?;
            let start = parser.pos;
            member(
                &key,
                Member {
                    parser: &mut *parser,
                    depth: self.depth + 1,
                },
            )?;
            // A value the callback did not read is read here (checked, then dropped).
            if parser.pos == start {
                parser.value(self.depth + 1)?;
            }
            parser.skip_ws();
            match parser.bytes.get(parser.pos) {
                Some(b',') => parser.pos += 1,
                Some(b'}') => {
                    parser.pos += 1;
                    return Ok(true);
                }
                _ => return Err(parser.error("expected , or } in object")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Walks `text`'s first value with `walk_prefix`: each member as `key` or
    /// `key=value`, nested objects walked as `key{...}` (members named `walk`).
    fn walked(text: &str) -> Result<(bool, Vec<String>), ParseError> {
        fn walk(
            seen: &mut Vec<String>,
            key: &str,
            member: Member<'_, '_>,
        ) -> Result<(), ParseError> {
            if key.starts_with("walk") {
                seen.push(format!("{key}{{"));
                member.members(|key, member| walk(seen, key, member))?;
                seen.push("}".into());
            } else if key.starts_with("read") {
                seen.push(format!("{key}={:?}", member.value()?));
            } else {
                seen.push(key.to_string());
            }
            Ok(())
        }
        let mut seen = Vec::new();
        let object = Value::walk_prefix(text, |key, member| walk(&mut seen, key, member))?;
        Ok((object, seen))
    }

    #[test]
    fn walks_members_in_document_order_and_skips_what_is_left() {
        let text = r#" {"z":[1,{"x":2}],"walk":{"read_b":{"q":1,"p":2},"a":"x","walk":{}},"read_a":1,"z":null} trailing"#;
        let (object, seen) = walked(text).unwrap();
        assert!(object);
        let read_b = r#"read_b=Object([("p", Number("2")), ("q", Number("1"))])"#;
        assert_eq!(
            seen,
            [
                "z",
                "walk{",
                read_b,
                "a",
                "walk{",
                "}",
                "}",
                r#"read_a=Number("1")"#,
                "z"
            ],
            "document order, duplicates kept, values read sorted"
        );
        // Not an object: nothing walked, the value still checked.
        assert_eq!(walked("[1, 2]").unwrap(), (false, Vec::new()));
        assert!(walked("[1, ]").is_err());
        // What the callback leaves is still checked; as is a walked object's own syntax.
        assert!(walked(r#"{"a": [1, }"#).is_err());
        assert!(walked(r#"{"walk": {"b" 1}}"#).is_err());
        assert!(walked(r#"{"a": 1 "b": 2}"#).is_err());
        assert!(walked(r#"{"a": 1"#).is_err());
    }

    #[test]
    fn walking_counts_in_the_nesting_limit() {
        // Walked objects count in the depth as parsed ones do.
        let deep = |levels: usize| {
            let mut text = String::new();
            for _ in 0..levels {
                text.push_str(r#"{"walk":"#);
            }
            text.push('1');
            text.push_str(&"}".repeat(levels));
            text
        };
        assert!(walked(&deep(MAX_DEPTH)).is_ok());
        assert!(walked(&deep(MAX_DEPTH + 2)).is_err());
        assert!(Value::parse(&deep(MAX_DEPTH + 2)).is_err());
    }
}
