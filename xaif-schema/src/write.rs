//! The XAIF writer: deterministic (the same model gives the same bytes),
//! indented two spaces per level, `xaif:` prefix, every attribute written
//! out (defaults included), vertices before edges.

mod elements;
mod emitter;
mod intrinsics;

use crate::model::{CallGraph, InlinableIntrinsicDefinitions, NonInlinableIntrinsicDefinitions};
use emitter::Emitter;
use std::io::Write;
use std::path::Path;

/// A first guess at the output size, to avoid regrowing the buffer.
const INITIAL_CAPACITY: usize = 64 * 1024;

/// The document text of a call graph.
pub fn write_call_graph(cg: &CallGraph) -> String {
    let mut e = Emitter::new(INITIAL_CAPACITY);
    elements::call_graph(&mut e, cg);
    e.out
}

/// The document text of an inlinable intrinsics catalogue.
pub fn write_inlinable_intrinsics(d: &InlinableIntrinsicDefinitions) -> String {
    let mut e = Emitter::new(INITIAL_CAPACITY);
    intrinsics::inlinable(&mut e, d);
    e.out
}

/// The document text of a non-inlinable intrinsics catalogue.
pub fn write_noninlinable_intrinsics(d: &NonInlinableIntrinsicDefinitions) -> String {
    let mut e = Emitter::new(1024);
    intrinsics::non_inlinable(&mut e, d);
    e.out
}

/// Writes a call graph to `path` through a temporary file in the same
/// directory and a rename, so no partial file is ever left at `path`. The
/// text goes to the file as it is produced (the same bytes as
/// [`write_call_graph`]), never whole in memory.
pub fn write_call_graph_file(cg: &CallGraph, path: &Path) -> std::io::Result<()> {
    write_file_atomically_with(path, |file| {
        let mut e = Emitter::to_sink(file);
        elements::call_graph(&mut e, cg);
        e.finish()
    })
}

/// Writes `bytes` to `path` atomically (temporary file + rename).
pub fn write_file_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_file_atomically_with(path, |file| file.write_all(bytes))
}

/// Writes `path` atomically with `write` (temporary file + rename).
fn write_file_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".xaif-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    write(tmp.as_file_mut())?;
    // Temporary files are private (0600); the result is an ordinary file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
