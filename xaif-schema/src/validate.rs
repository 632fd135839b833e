//! Validation of XAIF documents against the project's XSD files through
//! libxml2.
//!
//! Safe by construction: a document containing `<!DOCTYPE` is refused
//! before libxml2 sees it (so no entity can be declared, expanded or
//! fetched), and libxml2 parses with network access off. The XSD files are
//! compiled into the binary; to compile a schema they are written to a
//! private temporary directory (libxml2 resolves their includes there),
//! which is removed as soon as the schema is compiled. Nothing else is
//! ever loaded.

use crate::error::XaifError;
use libxml::error::StructuredError;
use libxml::parser::{Parser, ParserOptions, XmlParseFailure};
use libxml::schemas::{SchemaParserContext, SchemaValidationContext};
use std::path::{Path, PathBuf};

/// Why the schema itself could not be used (a broken installation, not a
/// problem of the document).
#[derive(Debug, thiserror::Error)]
enum SchemaError {
    #[error("cannot write the schema files: {0}")]
    Write(std::io::Error),
    #[error("schema {file} does not compile: {messages}")]
    Compile {
        file: &'static str,
        messages: String,
    },
}

/// The XSD files of the format, by file name.
pub const XSD_FILES: [(&str, &str); 6] = [
    ("xaif.xsd", include_str!("../xsd/xaif.xsd")),
    ("xaif_base.xsd", include_str!("../xsd/xaif_base.xsd")),
    ("xaif_output.xsd", include_str!("../xsd/xaif_output.xsd")),
    (
        "xaif_derivative_propagator.xsd",
        include_str!("../xsd/xaif_derivative_propagator.xsd"),
    ),
    (
        "xaif_inlinable_intrinsics.xsd",
        include_str!("../xsd/xaif_inlinable_intrinsics.xsd"),
    ),
    (
        "xaif_noninlinable_intrinsics.xsd",
        include_str!("../xsd/xaif_noninlinable_intrinsics.xsd"),
    ),
];

/// Which schema a document is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SchemaKind {
    /// `xaif.xsd`: a call graph as the front end writes it.
    Input,
    /// `xaif_output.xsd`: a call graph as the booster writes it.
    Output,
    /// `xaif_inlinable_intrinsics.xsd`.
    Inlinable,
    /// `xaif_noninlinable_intrinsics.xsd`.
    NonInlinable,
}

impl SchemaKind {
    /// The entry XSD file of this schema.
    pub fn xsd_file(self) -> &'static str {
        match self {
            SchemaKind::Input => "xaif.xsd",
            SchemaKind::Output => "xaif_output.xsd",
            SchemaKind::Inlinable => "xaif_inlinable_intrinsics.xsd",
            SchemaKind::NonInlinable => "xaif_noninlinable_intrinsics.xsd",
        }
    }

    /// Guesses the schema from the document: the catalogues by their root
    /// element, booster output by an element of its own
    /// (`DerivativePropagator`, `InlinableSubroutineCall`,
    /// `ReplacementList`), else input. Malformed documents count as input.
    pub fn detect(text: &[u8]) -> SchemaKind {
        let mut reader = quick_xml::Reader::from_reader(text);
        let mut buf = Vec::new();
        let mut root = true;
        loop {
            match reader.read_event_into(&mut buf) {
                Ok(quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e)) => {
                    let name = e.local_name();
                    match name.into_inner() {
                        b"NonInlinableIntrinsicDefinitions" if root => {
                            return SchemaKind::NonInlinable
                        }
                        b"InlinableIntrinsicDefinitions" if root => return SchemaKind::Inlinable,
                        b"DerivativePropagator"
                        | b"InlinableSubroutineCall"
                        | b"ReplacementList" => return SchemaKind::Output,
                        _ => root = false,
                    }
                }
                Ok(quick_xml::events::Event::Eof) | Err(_) => return SchemaKind::Input,
                Ok(_) => {}
            }
            buf.clear();
        }
    }

    /// The schema a call graph model calls for: output if it has any
    /// booster output element, else input.
    pub fn of_call_graph(cg: &crate::model::CallGraph) -> SchemaKind {
        use crate::model::{BasicBlockElement as S, CallGraphVertex, ControlFlowVertex};
        let output = cg.vertices.iter().any(|v| match v {
            CallGraphVertex::ReplacementList(_) => true,
            CallGraphVertex::ControlFlowGraph(g) => g.vertices.iter().any(|x| match x {
                ControlFlowVertex::BasicBlock(b) => b.elements.iter().any(|s| {
                    matches!(
                        s,
                        S::DerivativePropagator(_) | S::InlinableSubroutineCall(_)
                    )
                }),
                _ => false,
            }),
        });
        if output {
            SchemaKind::Output
        } else {
            SchemaKind::Input
        }
    }

    /// Only the root element decides: a catalogue kind, or `Input` for
    /// anything else (a call graph, or not XAIF at all).
    pub fn of_root(text: &[u8]) -> SchemaKind {
        match root_local_name(text).as_deref() {
            Some(b"NonInlinableIntrinsicDefinitions") => SchemaKind::NonInlinable,
            Some(b"InlinableIntrinsicDefinitions") => SchemaKind::Inlinable,
            _ => SchemaKind::Input,
        }
    }
}

/// The local name of the first element, if the document gets that far.
fn root_local_name(text: &[u8]) -> Option<Vec<u8>> {
    let mut reader = quick_xml::Reader::from_reader(text);
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e)) => {
                return Some(e.local_name().into_inner().to_vec())
            }
            Ok(quick_xml::events::Event::Eof) | Err(_) => return None,
            Ok(_) => buf.clear(),
        }
    }
}

/// Compiled schemas, reusable across documents.
pub struct Validator {
    /// Where the XSD files come from; `None`: the built-in ones.
    dir: Option<PathBuf>,
    compiled: Vec<(SchemaKind, SchemaValidationContext)>,
}

impl Validator {
    /// Validates against the built-in XSD files. (Each schema is compiled
    /// on first use from a private temporary copy of the files, removed
    /// right after; nothing stays on disk.)
    pub fn new() -> std::io::Result<Validator> {
        Ok(Validator {
            dir: None,
            compiled: Vec::new(),
        })
    }

    /// Uses the XSD files of another directory with the same file names
    /// (e.g. the original XAIF schema, to compare against it).
    pub fn with_xsd_dir(dir: &Path) -> Validator {
        Validator {
            dir: Some(dir.to_path_buf()),
            compiled: Vec::new(),
        }
    }

    fn compile(&self, kind: SchemaKind) -> Result<SchemaValidationContext, SchemaError> {
        let temp;
        let dir = match &self.dir {
            Some(d) => d.as_path(),
            None => {
                temp = write_built_in_xsd_files().map_err(SchemaError::Write)?;
                temp.path()
            }
        };
        let path = dir.join(kind.xsd_file());
        let mut parser = SchemaParserContext::from_file(&path.to_string_lossy());
        SchemaValidationContext::from_parser(&mut parser).map_err(|errors| {
            let messages: Vec<String> = errors.iter().map(message_of).collect();
            SchemaError::Compile {
                file: kind.xsd_file(),
                messages: messages.join("; "),
            }
        })
    }

    fn context(&mut self, kind: SchemaKind) -> Result<&mut SchemaValidationContext, SchemaError> {
        let i = match self.compiled.iter().position(|(k, _)| *k == kind) {
            Some(i) => i,
            None => {
                let context = self.compile(kind)?;
                self.compiled.push((kind, context));
                self.compiled.len() - 1
            }
        };
        Ok(&mut self.compiled[i].1)
    }

    /// Validates document text; `file_name` is used in the errors.
    pub fn validate_bytes(
        &mut self,
        bytes: &[u8],
        file_name: &str,
        kind: SchemaKind,
    ) -> Result<(), Vec<XaifError>> {
        refuse_doctype(bytes, file_name)?;
        // No recovery: a malformed document is an error, not a repaired
        // tree to validate.
        let options = ParserOptions {
            recover: false,
            no_error: false,
            no_net: true,
            no_def_dtd: true,
            ..ParserOptions::default()
        };
        let document = match Parser::default().parse_string_with_diagnostics(bytes, options) {
            Ok((document, diagnostics)) => {
                if diagnostics.iter().any(is_error) {
                    return Err(convert(file_name, &diagnostics, "malformed XML"));
                }
                document
            }
            Err(XmlParseFailure::ParseFailed(errors)) => {
                return Err(convert(file_name, &errors, "malformed XML"))
            }
            Err(XmlParseFailure::DocumentTooLarge) => {
                return Err(vec![XaifError::without_position(
                    file_name,
                    "document too large for libxml2 (2 GiB limit)",
                )])
            }
            Err(_) => {
                return Err(vec![XaifError::without_position(
                    file_name,
                    "libxml2 could not parse the document",
                )])
            }
        };
        let context = self
            .context(kind)
            .map_err(|e| vec![XaifError::without_position(file_name, e.to_string())])?;
        context
            .validate_document(&document)
            .map_err(|errors| convert(file_name, &errors, "not valid"))
    }

    /// Validates a file.
    pub fn validate_file(&mut self, path: &Path, kind: SchemaKind) -> Result<(), Vec<XaifError>> {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| {
            vec![XaifError::without_position(
                &name,
                format!("cannot read file: {e}"),
            )]
        })?;
        self.validate_bytes(&bytes, &name, kind)
    }
}

/// Validates one file against one schema (schemas are compiled once per
/// thread).
pub fn validate_file(path: &Path, kind: SchemaKind) -> Result<(), Vec<XaifError>> {
    thread_local! {
        static VALIDATOR: std::cell::RefCell<Validator> = const {
            std::cell::RefCell::new(Validator {
                dir: None,
                compiled: Vec::new(),
            })
        };
    }
    VALIDATOR.with(|v| v.borrow_mut().validate_file(path, kind))
}

/// The built-in XSD files in a fresh temporary directory (removed when
/// the returned value is dropped).
fn write_built_in_xsd_files() -> std::io::Result<tempfile::TempDir> {
    let dir = tempfile::Builder::new().prefix("xaif-xsd-").tempdir()?;
    for (name, text) in XSD_FILES {
        std::fs::write(dir.path().join(name), text)?;
    }
    Ok(dir)
}

/// Refuses any DOCTYPE: XAIF needs none, and without one libxml2 has no
/// entity to expand or external subset to fetch.
fn refuse_doctype(bytes: &[u8], file_name: &str) -> Result<(), Vec<XaifError>> {
    let needle = b"<!DOCTYPE";
    if let Some(at) = bytes.windows(needle.len()).position(|w| w == needle) {
        let text = String::from_utf8_lossy(&bytes[..at]);
        return Err(vec![XaifError::at_offset(
            file_name,
            &text,
            text.len(),
            "DOCTYPE declarations are refused (XAIF uses no DTD or entities)",
        )]);
    }
    Ok(())
}

fn message_of(e: &StructuredError) -> String {
    e.message
        .as_deref()
        .unwrap_or("unknown libxml2 error")
        .trim()
        .to_string()
}

/// An error or fatal error (not a warning).
fn is_error(e: &StructuredError) -> bool {
    !matches!(
        e.level,
        libxml::error::XmlErrorLevel::Warning | libxml::error::XmlErrorLevel::None
    )
}

fn convert(file_name: &str, errors: &[StructuredError], fallback: &str) -> Vec<XaifError> {
    let mut out: Vec<XaifError> = errors
        .iter()
        .filter(|e| is_error(e))
        .map(|e| XaifError {
            file: file_name.to_string(),
            line: e.line.and_then(|l| usize::try_from(l).ok()).unwrap_or(0),
            column: e.col.and_then(|c| usize::try_from(c).ok()).unwrap_or(0),
            message: message_of(e),
        })
        .collect();
    if out.is_empty() {
        out.push(XaifError::without_position(file_name, fallback));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_goes_by_root_and_tags_not_by_text() {
        let cg = br#"<?xml version="1.0"?><!-- InlinableIntrinsicDefinitions -->
<xaif:CallGraph xmlns:xaif="http://www.mcs.anl.gov/XAIF" program_name="NonInlinableIntrinsicDefinitions DerivativePropagator"/>"#;
        assert_eq!(SchemaKind::detect(cg), SchemaKind::Input);
        let out = br#"<xaif:CallGraph xmlns:xaif="http://www.mcs.anl.gov/XAIF"><xaif:DerivativePropagator/></xaif:CallGraph>"#;
        assert_eq!(SchemaKind::detect(out), SchemaKind::Output);
        let ii = br#"<InlinableIntrinsicDefinitions xmlns="http://www.mcs.anl.gov/XAIFInlinableIntrinsics"/>"#;
        assert_eq!(SchemaKind::detect(ii), SchemaKind::Inlinable);
        let nii = br#"<n:NonInlinableIntrinsicDefinitions xmlns:n="http://www.mcs.anl.gov/XAIFNonInlinableIntrinsics"/>"#;
        assert_eq!(SchemaKind::detect(nii), SchemaKind::NonInlinable);
    }

    #[test]
    fn any_doctype_is_refused_before_libxml2_sees_it() {
        let doc =
            b"<?xml version=\"1.0\"?>\n<!DOCTYPE x SYSTEM \"http://example.com/x.dtd\">\n<x/>";
        let mut v = Validator::new().unwrap();
        let errors = v
            .validate_bytes(doc, "d.xaif", SchemaKind::Input)
            .unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!((errors[0].line, errors[0].column), (2, 1));
        assert!(errors[0].message.contains("DOCTYPE"));
    }
}
