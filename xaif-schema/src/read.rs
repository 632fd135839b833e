//! The XAIF reader: a streaming (pull) parse straight into the model, with
//! the schema's defaults filled in and every rejection positioned.
//!
//! What is checked while reading: well-formedness; element names and
//! nesting (by namespace URI, whatever the prefix); attribute names, the
//! presence of required attributes and the lexical form of typed ones
//! (integers, booleans, enumerations); unique vertex ids and edge ends
//! that name a vertex of the same graph (call graph, scope hierarchy,
//! control flow graphs, expressions, variable references). A DOCTYPE with
//! entity declarations or an external DTD is refused, so no entity is ever
//! expanded.

mod call_graph;
mod control_flow;
mod cursor;
mod expression;
mod intrinsics;
mod namespaces;
mod references;
mod scratch;

use crate::error::XaifError;
use crate::model::{CallGraph, InlinableIntrinsicDefinitions, NonInlinableIntrinsicDefinitions};
use cursor::{Cursor, Element, Result};
use std::borrow::Cow;
use std::path::Path;

/// Reads a whole document whose root is read by `root`.
fn read_document<T>(
    text: &str,
    file_name: &str,
    root: impl FnOnce(&mut Cursor, &Element) -> Result<T>,
) -> Result<T> {
    let mut c = Cursor::new(text, file_name);
    let el = c.root()?;
    let value = root(&mut c, &el)?;
    c.finish()?;
    Ok(value)
}

/// Reads a `xaif:CallGraph` document (booster input or output).
pub fn read_call_graph(text: &str, file_name: &str) -> std::result::Result<CallGraph, XaifError> {
    read_document(text, file_name, call_graph::call_graph)
}

/// Reads an inlinable intrinsics catalogue.
pub fn read_inlinable_intrinsics(
    text: &str,
    file_name: &str,
) -> std::result::Result<InlinableIntrinsicDefinitions, XaifError> {
    read_document(text, file_name, intrinsics::inlinable)
}

/// Reads a non-inlinable intrinsics catalogue.
pub fn read_noninlinable_intrinsics(
    text: &str,
    file_name: &str,
) -> std::result::Result<NonInlinableIntrinsicDefinitions, XaifError> {
    read_document(text, file_name, intrinsics::non_inlinable)
}

/// Reads a file and reads it as a call graph.
pub fn read_call_graph_file(path: &Path) -> std::result::Result<CallGraph, XaifError> {
    let (bytes, name) = load(path)?;
    let text = decode(&bytes, &name)?;
    read_call_graph(&text, &name)
}

/// Reads an open file as a call graph without keeping all of its text in
/// memory next to the model being built (a large XAIF is as large as
/// that model): the file is mapped, and the pages the reader has passed
/// are handed back to the kernel as it goes. The result is the same as
/// [`read_call_graph`] of the file's text.
pub fn read_call_graph_mapped(
    file: &std::fs::File,
    file_name: &str,
) -> std::result::Result<CallGraph, XaifError> {
    let io_error = |e: std::io::Error| {
        XaifError::without_position(file_name, format!("cannot read file: {e}"))
    };
    let empty = file.metadata().map_err(io_error)?.len() == 0;
    // SAFETY: the map is only read. The stages read files nobody writes
    // while they run (openad's scratch directory); a file truncated under
    // the map would end the process with SIGBUS, as it would any reader
    // of a mapped file.
    let map = match empty {
        true => None,
        false => Some(unsafe { memmap2::Mmap::map(file) }.map_err(io_error)?),
    };
    let Some(map) = map else {
        return read_call_graph("", file_name);
    };
    let text = decode(&map, file_name)?;
    let Cow::Borrowed(text) = text else {
        // Latin-1 with non-ASCII bytes: decoded into a copy already.
        return read_call_graph(&text, file_name);
    };
    let start = text.as_ptr() as usize - map.as_ptr() as usize;
    let map = &map;
    read_document_releasing(
        text,
        file_name,
        Box::new(move |passed: usize| {
            // SAFETY: DONTNEED on a read-only shared file mapping only
            // drops this process's page table entries: a later access
            // (an error message quoting an earlier line) maps the same
            // file contents again. No reference is invalidated.
            let _ = unsafe {
                map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    0,
                    start + passed.saturating_sub(RELEASE_BEHIND),
                )
            };
        }),
        call_graph::call_graph,
    )
}

/// What stays mapped behind the reader (the elements being read).
const RELEASE_BEHIND: usize = 1 << 20;

/// [`read_document`] with a cursor that calls `release` as it goes.
fn read_document_releasing<'i, T>(
    text: &'i str,
    file_name: &'i str,
    release: Box<dyn FnMut(usize) + 'i>,
    root: impl FnOnce(&mut Cursor, &Element) -> Result<T>,
) -> Result<T> {
    let mut c = Cursor::new(text, file_name);
    c.release_passed_text(release);
    let el = c.root()?;
    let value = root(&mut c, &el)?;
    c.finish()?;
    Ok(value)
}

/// Reads a file as an inlinable intrinsics catalogue.
pub fn read_inlinable_intrinsics_file(
    path: &Path,
) -> std::result::Result<InlinableIntrinsicDefinitions, XaifError> {
    let (bytes, name) = load(path)?;
    let text = decode(&bytes, &name)?;
    read_inlinable_intrinsics(&text, &name)
}

/// Reads a file as a non-inlinable intrinsics catalogue.
pub fn read_noninlinable_intrinsics_file(
    path: &Path,
) -> std::result::Result<NonInlinableIntrinsicDefinitions, XaifError> {
    let (bytes, name) = load(path)?;
    let text = decode(&bytes, &name)?;
    read_noninlinable_intrinsics(&text, &name)
}

fn load(path: &Path) -> std::result::Result<(Vec<u8>, String), XaifError> {
    let name = path.display().to_string();
    match std::fs::read(path) {
        Ok(bytes) => Ok((bytes, name)),
        Err(e) => Err(XaifError::without_position(
            &name,
            format!("cannot read file: {e}"),
        )),
    }
}

/// The document as text: UTF-8, or Latin-1 when the XML declaration says
/// so (the reference examples declare `encoding="LATIN1"`).
pub fn decode<'b>(
    bytes: &'b [u8],
    file_name: &str,
) -> std::result::Result<Cow<'b, str>, XaifError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if declares_latin1(bytes) {
        // Latin-1 maps each byte to the code point of the same value;
        // pure ASCII needs no copy.
        if bytes.is_ascii() {
            return Ok(Cow::Borrowed(
                std::str::from_utf8(bytes).unwrap_or_default(),
            ));
        }
        return Ok(Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()));
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(Cow::Borrowed(s)),
        Err(e) => {
            // Position the error on the first bad byte.
            let valid = &bytes[..e.valid_up_to()];
            let text = std::str::from_utf8(valid).unwrap_or("");
            Err(XaifError::at_offset(
                file_name,
                text,
                text.len(),
                "invalid UTF-8 (declare encoding=\"ISO-8859-1\" for Latin-1 files)",
            ))
        }
    }
}

/// Does the XML declaration name a Latin-1 encoding?
fn declares_latin1(bytes: &[u8]) -> bool {
    if !bytes.starts_with(b"<?xml") {
        return false;
    }
    let end = bytes.iter().position(|&b| b == b'>').unwrap_or(bytes.len());
    let decl = String::from_utf8_lossy(&bytes[..end]).to_ascii_lowercase();
    let Some(at) = decl.find("encoding") else {
        return false;
    };
    let rest = decl[at + "encoding".len()..].trim_start();
    let Some(rest) = rest.strip_prefix('=') else {
        return false;
    };
    let rest = rest.trim_start();
    let value: String = rest
        .trim_start_matches(['"', '\''])
        .chars()
        .take_while(|c| !matches!(c, '"' | '\''))
        .collect();
    matches!(
        value.as_str(),
        "latin1" | "latin-1" | "iso-8859-1" | "iso8859-1" | "iso_8859-1" | "l1"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_is_decoded_by_declaration() {
        let doc = b"<?xml version=\"1.0\" encoding=\"LATIN1\"?><a v=\"\xE9\"/>";
        let t = decode(doc, "f").unwrap();
        assert!(t.contains("v=\"\u{e9}\""));
        // UTF-8 bytes in a Latin-1 document are two Latin-1 characters.
        let doc = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a v=\"\u{e9}\"/>";
        let t = decode(doc.as_bytes(), "f").unwrap();
        assert!(t.contains("v=\"\u{c3}\u{a9}\""));
        let bad = b"<?xml version=\"1.0\"?>\n<a v=\"\xE9\"/>";
        let e = decode(bad, "f").unwrap_err();
        assert_eq!((e.line, e.column), (2, 7));
    }
}
