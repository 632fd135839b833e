//! The low-level side of the reader: a pull cursor over quick-xml events
//! that yields child elements with their namespace, attribute access with
//! typed conversions, and positioned errors.

pub(crate) use super::namespaces::Ns;
use super::namespaces::{Scopes, Undeclared};
use crate::error::XaifError;
use crate::model::{XAIF_II_NS, XAIF_NII_NS, XAIF_NS};
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use std::borrow::Cow;

pub(crate) type Result<T> = std::result::Result<T, XaifError>;

/// A position recorded while reading a graph (the cursor's mark stack,
/// checked by `references`).
#[derive(Clone, Copy)]
pub(crate) enum Mark {
    /// Offset of a vertex element.
    Vertex(usize),
    /// Offsets of an edge's `source` and `target` attributes.
    Edge(usize, usize),
}

/// A start tag (or empty-element tag) that has just been read.
pub(crate) struct Element<'i> {
    pub start: BytesStart<'i>,
    pub ns: Ns,
    /// Byte offset of the `<`.
    pub offset: usize,
    /// `<a/>`: no children and no end tag follow.
    pub empty: bool,
}

impl Element<'_> {
    /// The local name (without prefix).
    pub fn local(&self) -> &[u8] {
        self.start.local_name().into_inner()
    }

    /// The name as written (with prefix), for messages.
    pub fn display_name(&self) -> String {
        String::from_utf8_lossy(self.start.name().into_inner()).into_owned()
    }

    /// Is this `<xaif:NAME>`?
    pub fn is(&self, ns: Ns, name: &str) -> bool {
        self.ns == ns && self.local() == name.as_bytes()
    }
}

/// One unprefixed attribute.
pub(crate) struct Attr<'a> {
    pub name: &'a [u8],
    pub raw: Cow<'a, [u8]>,
    /// Byte offset of the attribute name in the document.
    pub offset: usize,
}

pub(crate) struct Cursor<'i> {
    reader: Reader<&'i [u8]>,
    scopes: Scopes<'i>,
    /// The last tag was empty (`<a/>`): its declarations end before the
    /// next event.
    leave_empty: bool,
    text: &'i str,
    file: &'i str,
    /// Positions of the vertices and edges of the graphs being read.
    pub marks: Vec<Mark>,
    /// Where expression graphs are assembled.
    pub scratch: super::scratch::Scratch,
    /// Open elements; bounded so that hostile nesting cannot exhaust the
    /// stack of the recursive reader.
    depth: usize,
    /// Called with an offset the reader has passed by `RELEASE_STEP`:
    /// the text before it may leave memory (a mapped file hands its pages
    /// back; they are read again if an error message needs them).
    release: Option<Box<dyn FnMut(usize) + 'i>>,
    released: usize,
}

/// How far the reader goes between two calls of `release`.
const RELEASE_STEP: usize = 8 << 20;

/// Deeper than any real XAIF (a subscript nests five levels).
const MAX_DEPTH: usize = 256;

/// More than any XAIF element has (ten at most), with room for
/// namespace declarations and foreign attributes.
const MAX_ATTRIBUTES: usize = 32;

impl<'i> Cursor<'i> {
    pub fn new(text: &'i str, file: &'i str) -> Self {
        let mut reader = Reader::from_str(text);
        let config = reader.config_mut();
        config.check_end_names = true;
        config.expand_empty_elements = false;
        config.trim_text(false);
        Cursor {
            reader,
            scopes: Scopes::new(),
            leave_empty: false,
            text,
            file,
            marks: Vec::new(),
            scratch: Default::default(),
            depth: 0,
            release: None,
            released: 0,
        }
    }

    /// Calls `release(offset)` as the reader passes each `RELEASE_STEP`.
    pub fn release_passed_text(&mut self, release: Box<dyn FnMut(usize) + 'i>) {
        self.release = Some(release);
    }

    /// An error at a byte offset.
    pub fn error_at(&self, offset: usize, message: impl Into<String>) -> XaifError {
        XaifError::at_offset(self.file, self.text, offset, message)
    }

    /// Byte offset of a slice that points into the document, if it does.
    fn offset_of(&self, slice: &[u8]) -> Option<usize> {
        let base = self.text.as_ptr() as usize;
        let p = slice.as_ptr() as usize;
        (p >= base && p <= base + self.text.len()).then(|| p - base)
    }

    fn position(&self) -> usize {
        usize::try_from(self.reader.buffer_position()).unwrap_or(usize::MAX)
    }

    fn xml_error(&self, e: quick_xml::Error) -> XaifError {
        let at = usize::try_from(self.reader.error_position()).unwrap_or(usize::MAX);
        let message = match &e {
            quick_xml::Error::Syntax(_) if at >= self.text.len().saturating_sub(1) => {
                format!("malformed XML: {e} (file truncated?)")
            }
            _ => format!("malformed XML: {e}"),
        };
        self.error_at(at, message)
    }

    /// Reads the next event with its namespace; the offset is where the
    /// event starts. Keeps the element depth (bounded) and the namespace
    /// declarations in scope.
    fn next_event(&mut self) -> Result<(usize, Ns, Event<'i>)> {
        if self.leave_empty {
            self.scopes.leave(self.depth);
            self.leave_empty = false;
        }
        let offset = self.position();
        if offset >= self.released + RELEASE_STEP {
            if let Some(release) = self.release.as_mut() {
                release(offset);
                self.released = offset;
            }
        }
        let event = self.reader.read_event().map_err(|e| self.xml_error(e))?;
        let ns = match &event {
            Event::Start(tag) | Event::Empty(tag) => {
                let empty = matches!(event, Event::Empty(_));
                let depth = self.depth + 1;
                if !empty {
                    if depth > MAX_DEPTH {
                        return Err(self.error_at(
                            offset,
                            format!("elements nested more than {MAX_DEPTH} deep"),
                        ));
                    }
                    self.depth = depth;
                }
                let text = self.text;
                self.scopes
                    .declare(tag, depth, |slice| reslice(text, slice));
                self.leave_empty = empty;
                match self.scopes.resolve(tag.name().into_inner()) {
                    Ok(ns) => ns,
                    Err(Undeclared(prefix)) => {
                        let p = String::from_utf8_lossy(prefix).into_owned();
                        return Err(self
                            .error_at(offset, format!("namespace prefix '{p}' is not declared")));
                    }
                }
            }
            Event::End(_) => {
                self.depth = self.depth.saturating_sub(1);
                self.scopes.leave(self.depth);
                Ns::Other
            }
            _ => Ns::Other,
        };
        Ok((offset, ns, event))
    }

    /// Checks a DOCTYPE: entity declarations are refused outright (no
    /// expansion, hence no entity bombs and no external entities).
    fn check_doctype(&self, offset: usize, content: &[u8]) -> Result<()> {
        let has = |needle: &[u8]| content.windows(needle.len()).any(|w| w == needle);
        if has(b"<!ENTITY") {
            return Err(self.error_at(
                offset,
                "DOCTYPE with entity declarations is refused (XAIF uses no entities)",
            ));
        }
        if has(b"SYSTEM") || has(b"PUBLIC") {
            return Err(self.error_at(offset, "DOCTYPE with an external DTD is refused"));
        }
        Ok(())
    }

    /// Skips the prolog and returns the root element.
    pub fn root(&mut self) -> Result<Element<'i>> {
        loop {
            let (offset, ns, event) = self.next_event()?;
            match event {
                Event::Decl(_) | Event::Comment(_) | Event::PI(_) => {}
                Event::DocType(d) => self.check_doctype(offset, &d)?,
                Event::Text(t) if is_blank(&t) => {}
                Event::Start(start) => {
                    return Ok(Element {
                        start,
                        ns,
                        offset,
                        empty: false,
                    });
                }
                Event::Empty(start) => {
                    return Ok(Element {
                        start,
                        ns,
                        offset,
                        empty: true,
                    })
                }
                Event::Eof => {
                    return Err(self.error_at(offset, "no root element (empty document?)"))
                }
                _ => {
                    return Err(self.error_at(offset, "unexpected content before the root element"))
                }
            }
        }
    }

    /// After the root element: only comments, PIs and blanks may follow.
    pub fn finish(&mut self) -> Result<()> {
        loop {
            let (offset, _, event) = self.next_event()?;
            match event {
                Event::Eof => return Ok(()),
                Event::Comment(_) | Event::PI(_) => {}
                Event::Text(t) if is_blank(&t) => {}
                _ => return Err(self.error_at(offset, "unexpected content after the root element")),
            }
        }
    }

    /// The next child element of `parent`, or `None` at its end tag.
    /// Text other than blanks is an error: XAIF carries everything in
    /// attributes.
    pub fn next_child(&mut self, parent: &Element) -> Result<Option<Element<'i>>> {
        if parent.empty {
            return Ok(None);
        }
        loop {
            let (offset, ns, event) = self.next_event()?;
            match event {
                Event::Start(start) => {
                    return Ok(Some(Element {
                        start,
                        ns,
                        offset,
                        empty: false,
                    }));
                }
                Event::Empty(start) => {
                    return Ok(Some(Element {
                        start,
                        ns,
                        offset,
                        empty: true,
                    }))
                }
                Event::End(_) => return Ok(None),
                Event::Text(t) if is_blank(&t) => {}
                Event::Comment(_) | Event::PI(_) => {}
                Event::Eof => {
                    let (line, column) = crate::error::line_column(self.text, parent.offset);
                    return Err(self.error_at(
                        offset,
                        format!(
                            "unexpected end of file: element '{}' opened at {line}:{column} is not closed (file truncated?)",
                            parent.display_name()
                        ),
                    ));
                }
                Event::DocType(_) | Event::Decl(_) => {
                    return Err(self.error_at(offset, "markup declaration inside an element"))
                }
                _ => {
                    return Err(self.error_at(
                        offset,
                        format!(
                            "unexpected text in element '{}' (XAIF elements carry no text)",
                            parent.display_name()
                        ),
                    ))
                }
            }
        }
    }

    /// The element must have no children.
    pub fn expect_no_children(&mut self, el: &Element) -> Result<()> {
        if let Some(child) = self.next_child(el)? {
            return Err(self.unexpected(&child, el));
        }
        Ok(())
    }

    /// Error: `child` is not allowed in `parent`.
    pub fn unexpected(&self, child: &Element, parent: &Element) -> XaifError {
        let what = if child.ns == Ns::Other {
            "unknown element"
        } else {
            "unexpected element"
        };
        self.error_at(
            child.offset,
            format!(
                "{what} '{}' in '{}'",
                child.display_name(),
                parent.display_name()
            ),
        )
    }

    /// Error: the root is not what the reader was asked for.
    pub fn wrong_root(&self, el: &Element, expected: &str) -> XaifError {
        self.error_at(
            el.offset,
            format!(
                "root element is '{}' (namespace {}), expected '{expected}' (XAIF schema: \
                 the document element of an XAIF document)",
                el.display_name(),
                match el.ns {
                    Ns::Xaif => XAIF_NS,
                    Ns::InlinableIntrinsics => XAIF_II_NS,
                    Ns::NonInlinableIntrinsics => XAIF_NII_NS,
                    Ns::Other => "unknown",
                }
            ),
        )
    }

    /// The unprefixed attributes of `el` (namespace declarations and
    /// attributes of other namespaces such as `xsi:` are skipped).
    pub fn attributes<'a>(
        &'a self,
        el: &'a Element<'i>,
    ) -> impl Iterator<Item = Result<Attr<'a>>> + 'a {
        let mut attributes = el.start.attributes();
        // Duplicates are caught below: quick-xml's own check allocates a
        // vector for every tag.
        attributes.with_checks(false);
        let mut seen: [&[u8]; MAX_ATTRIBUTES] = [&[]; MAX_ATTRIBUTES];
        let mut count = 0;
        attributes.filter_map(move |a| match a {
            Err(e) => {
                let at = self
                    .offset_of(el.start.attributes_raw())
                    .unwrap_or(el.offset);
                Some(Err(self.error_at(at, format!("malformed attribute: {e}"))))
            }
            Ok(a) => {
                let key = a.key.into_inner();
                let offset = self.offset_of(key).unwrap_or(el.offset);
                let name = || String::from_utf8_lossy(key);
                if seen[..count].contains(&key) {
                    return Some(Err(self.error_at(
                        offset,
                        format!(
                            "attribute '{}' appears twice on '{}'",
                            name(),
                            el.display_name()
                        ),
                    )));
                }
                if count == MAX_ATTRIBUTES {
                    return Some(Err(self.error_at(
                        offset,
                        format!(
                            "more than {MAX_ATTRIBUTES} attributes on '{}'",
                            el.display_name()
                        ),
                    )));
                }
                seen[count] = key;
                count += 1;
                if key == b"xmlns" || key.starts_with(b"xmlns:") {
                    return None;
                }
                if key.contains(&b':') {
                    // Attributes of other vocabularies (xsi:schemaLocation)
                    // are ignored; XAIF's own attributes are unprefixed.
                    let name = name();
                    return match self.scopes.resolve(key) {
                        Ok(Ns::Other) => None,
                        Err(_) => Some(Err(self.error_at(
                            offset,
                            format!("namespace prefix of attribute '{name}' is not declared"),
                        ))),
                        Ok(_) => Some(Err(self.error_at(
                            offset,
                            format!("attribute '{name}' must be written without a prefix"),
                        ))),
                    };
                }
                Some(Ok(Attr {
                    name: key,
                    raw: a.value,
                    offset,
                }))
            }
        })
    }

    /// Error: an attribute the element does not have.
    pub fn unknown_attribute(&self, el: &Element, a: &Attr) -> XaifError {
        self.error_at(
            a.offset,
            format!(
                "unknown attribute '{}' on '{}'",
                String::from_utf8_lossy(a.name),
                el.display_name()
            ),
        )
    }

    /// Error: a required attribute is absent.
    pub fn missing(&self, el: &Element, name: &str) -> XaifError {
        self.error_at(
            el.offset,
            format!(
                "element '{}' is missing required attribute '{name}' (XAIF schema: \
                 use=\"required\")",
                el.display_name()
            ),
        )
    }

    /// A required attribute value, or the error.
    pub fn required<T>(&self, value: Option<T>, el: &Element, name: &str) -> Result<T> {
        value.ok_or_else(|| self.missing(el, name))
    }

    fn bad_value(&self, a: &Attr, expected: &str) -> XaifError {
        self.error_at(
            a.offset,
            format!(
                "attribute '{}' has value \"{}\", expected {expected}",
                String::from_utf8_lossy(a.name),
                String::from_utf8_lossy(&a.raw)
            ),
        )
    }

    /// The attribute value as text, with character and predefined entity
    /// references resolved (no other entities exist here). As a `String`
    /// or, without a copy through one, as a model [`Name`](crate::model::Name).
    pub fn string<S: for<'s> From<&'s str> + From<String>>(&self, a: &Attr) -> Result<S> {
        let raw: &[u8] = &a.raw;
        // A value borrowed from the document is text already.
        let s = match self.offset_of(raw) {
            Some(at) => self.text.get(at..at + raw.len()),
            None => None,
        };
        let s = match s {
            Some(s) => s,
            None => std::str::from_utf8(raw).map_err(|_| self.bad_value(a, "UTF-8 text"))?,
        };
        // XML attribute-value normalisation: a literal tab, newline or
        // carriage return reads as a space (written as character
        // references they stay what they are).
        let normalised;
        let s = if memchr::memchr3(b'\t', b'\n', b'\r', raw).is_some() {
            normalised = s.replace("\r\n", " ").replace(['\t', '\n', '\r'], " ");
            normalised.as_str()
        } else {
            s
        };
        if !raw.contains(&b'&') {
            return Ok(S::from(s));
        }
        match quick_xml::escape::unescape(s) {
            Ok(v) => Ok(S::from(v.into_owned())),
            Err(e) => Err(self.error_at(
                a.offset,
                format!("attribute '{}': {e}", String::from_utf8_lossy(a.name)),
            )),
        }
    }

    /// The value with XML Schema whitespace collapsing for atomic types.
    fn token<'a>(&self, a: &'a Attr) -> &'a [u8] {
        a.raw.trim_ascii()
    }

    /// `xsd:boolean`.
    pub fn boolean(&self, a: &Attr) -> Result<bool> {
        match self.token(a) {
            b"true" | b"1" => Ok(true),
            b"false" | b"0" => Ok(false),
            _ => Err(self.bad_value(a, "a boolean (true or false)")),
        }
    }

    /// `xsd:integer`.
    pub fn integer(&self, a: &Attr) -> Result<i64> {
        parse_i64(self.token(a)).ok_or_else(|| self.bad_value(a, "an integer"))
    }

    /// `xsd:nonNegativeInteger`.
    pub fn non_negative(&self, a: &Attr) -> Result<u64> {
        parse_u64(self.token(a)).ok_or_else(|| self.bad_value(a, "a non-negative integer"))
    }

    /// `xsd:positiveInteger`.
    pub fn positive(&self, a: &Attr) -> Result<u64> {
        match parse_u64(self.token(a)) {
            Some(v) if v > 0 => Ok(v),
            _ => Err(self.bad_value(a, "a positive integer")),
        }
    }

    /// A value of an enumeration: `table` maps each spelling to its value.
    pub fn enumeration<T: Copy>(&self, a: &Attr, table: &[(&str, T)]) -> Result<T> {
        let v = self.token(a);
        for (name, value) in table {
            if name.as_bytes() == v {
                return Ok(*value);
            }
        }
        let allowed: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
        Err(self.bad_value(a, &format!("one of {}", allowed.join(", "))))
    }

    /// A string restricted to an enumeration, kept as a string.
    pub fn enumerated_string(&self, a: &Attr, allowed: &[&str]) -> Result<String> {
        let v = self.token(a);
        if allowed.iter().any(|n| n.as_bytes() == v) {
            Ok(String::from_utf8_lossy(v).into_owned())
        } else {
            Err(self.bad_value(a, &format!("one of {}", allowed.join(", "))))
        }
    }
}

/// The same bytes as `slice`, borrowed from the document `text` (None if
/// `slice` does not point into it).
fn reslice<'i>(text: &'i str, slice: &[u8]) -> Option<&'i [u8]> {
    let base = text.as_ptr() as usize;
    let start = (slice.as_ptr() as usize).checked_sub(base)?;
    text.as_bytes().get(start..start + slice.len())
}

fn is_blank(t: &[u8]) -> bool {
    t.iter().all(|b| b.is_ascii_whitespace())
}

fn parse_u64(v: &[u8]) -> Option<u64> {
    let digits = v.strip_prefix(b"+").unwrap_or(v);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut n: u64 = 0;
    for &d in digits {
        n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    Some(n)
}

fn parse_i64(v: &[u8]) -> Option<i64> {
    if let Some(rest) = v.strip_prefix(b"-") {
        if rest.starts_with(b"+") {
            return None;
        }
        let n = parse_u64(rest)?;
        if n == 1u64 << 63 {
            return Some(i64::MIN);
        }
        i64::try_from(n).ok().map(|n| -n)
    } else {
        i64::try_from(parse_u64(v)?).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_follow_xsd_lexical_rules() {
        assert_eq!(parse_u64(b"0"), Some(0));
        assert_eq!(parse_u64(b"+12"), Some(12));
        assert_eq!(parse_u64(b"-1"), None);
        assert_eq!(parse_u64(b""), None);
        assert_eq!(parse_u64(b"1x"), None);
        assert_eq!(parse_u64(b"99999999999999999999"), None);
        assert_eq!(parse_i64(b"-5"), Some(-5));
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_i64(b"9223372036854775808"), None);
        assert_eq!(parse_i64(b"-+5"), None);
    }
}
