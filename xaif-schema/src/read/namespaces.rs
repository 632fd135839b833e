//! Namespace prefixes in scope, kept by the reader itself: cheaper than
//! quick-xml's resolver, which parses every start tag's attributes a
//! second time; here only tags that contain `xmlns` are looked at.

use crate::model::{XAIF_II_NS, XAIF_NII_NS, XAIF_NS};
use memchr::memmem::Finder;
use quick_xml::events::BytesStart;

/// One `xmlns[:prefix]="uri"` declaration.
/// The namespaces the reader knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ns {
    Xaif,
    InlinableIntrinsics,
    NonInlinableIntrinsics,
    /// No namespace, or one the format does not use.
    Other,
}

struct Binding<'i> {
    /// Empty for the default namespace.
    prefix: &'i [u8],
    ns: Ns,
    /// Depth of the element that declared it (its children are one deeper).
    depth: usize,
}

pub(crate) struct Scopes<'i> {
    bindings: Vec<Binding<'i>>,
    xmlns: Finder<'static>,
}

/// A prefix that is not declared.
pub(crate) struct Undeclared<'a>(pub &'a [u8]);

/// The namespace of a URI (only the format's own matter).
pub(crate) fn namespace_of_uri(uri: &[u8]) -> Ns {
    match uri {
        x if x == XAIF_NS.as_bytes() => Ns::Xaif,
        x if x == XAIF_II_NS.as_bytes() => Ns::InlinableIntrinsics,
        x if x == XAIF_NII_NS.as_bytes() => Ns::NonInlinableIntrinsics,
        _ => Ns::Other,
    }
}

impl<'i> Scopes<'i> {
    pub fn new() -> Self {
        Scopes {
            bindings: Vec::new(),
            xmlns: Finder::new(b"xmlns"),
        }
    }

    /// Records the declarations of a tag at `depth`. `reslice` maps a
    /// slice of the tag back to the document (for the `'i` lifetime).
    /// Attribute syntax errors are left to the attribute reader.
    pub fn declare(
        &mut self,
        tag: &BytesStart<'_>,
        depth: usize,
        reslice: impl Fn(&[u8]) -> Option<&'i [u8]>,
    ) {
        if self.xmlns.find(tag.attributes_raw()).is_none() {
            return;
        }
        for a in tag.attributes().flatten() {
            let key = a.key.into_inner();
            let prefix: &'i [u8] = if key == b"xmlns" {
                b""
            } else if let Some(p) = key.strip_prefix(b"xmlns:").and_then(&reslice) {
                p
            } else {
                continue;
            };
            // A URI written with character references is compared as read.
            let ns = match a.unescape_value() {
                Ok(uri) => namespace_of_uri(uri.as_bytes()),
                Err(_) => Ns::Other,
            };
            self.bindings.push(Binding { prefix, ns, depth });
        }
    }

    /// Forgets the declarations of elements deeper than `depth`.
    pub fn leave(&mut self, depth: usize) {
        while self.bindings.last().is_some_and(|b| b.depth > depth) {
            self.bindings.pop();
        }
    }

    /// The namespace of a qualified name; an unprefixed name is in the
    /// default namespace (if any).
    pub fn resolve<'n>(&self, qname: &'n [u8]) -> Result<Ns, Undeclared<'n>> {
        let prefix = match qname.iter().position(|&b| b == b':') {
            Some(colon) => &qname[..colon],
            None => b"",
        };
        match self.bindings.iter().rev().find(|b| b.prefix == prefix) {
            Some(b) => Ok(b.ns),
            None if prefix.is_empty() || prefix == b"xml" => Ok(Ns::Other),
            None => Err(Undeclared(prefix)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_scoped_to_their_element() {
        let mut s = Scopes::new();
        let doc: &'static str = r#"<a xmlns="http://www.mcs.anl.gov/XAIF" xmlns:ii="http://www.mcs.anl.gov/XAIFInlinableIntrinsics">"#;
        let tag = BytesStart::from_content(&doc[1..doc.len() - 1], 1);
        s.declare(&tag, 1, |slice| {
            let base = doc.as_ptr() as usize;
            let at = slice.as_ptr() as usize - base;
            Some(&doc.as_bytes()[at..at + slice.len()])
        });
        assert_eq!(s.resolve(b"CallGraph").ok(), Some(Ns::Xaif));
        assert_eq!(s.resolve(b"ii:Partial").ok(), Some(Ns::InlinableIntrinsics));
        assert!(matches!(s.resolve(b"zz:Partial"), Err(Undeclared(b"zz"))));
        s.leave(0);
        assert_eq!(s.resolve(b"CallGraph").ok(), Some(Ns::Other));
    }
}
