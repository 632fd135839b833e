//! Reading a mapped file that gives its pages back as it goes
//! (`read_call_graph_mapped`) must read exactly what the in-memory reader
//! reads, and place errors after a released stretch the same way.

use std::io::Write;
use std::path::Path;

use xaif_schema::read::{read_call_graph, read_call_graph_mapped};

/// The fixture with a comment of `pad` bytes after the scope hierarchy, so
/// that the reader passes several release steps (8 MiB each) before it
/// reads the control flow graphs.
fn padded_fixture(pad: usize) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/input_all_elements.xaif");
    let text = std::fs::read_to_string(path).unwrap();
    let at = text.find("</xaif:ScopeHierarchy>").unwrap() + "</xaif:ScopeHierarchy>".len();
    let mut comment = String::from("\n<!--");
    // Many lines, so that line numbers after the comment are large.
    while comment.len() < pad {
        comment.push_str(" padding padding padding padding padding padding padding\n");
    }
    comment.push_str("-->");
    format!("{}{comment}{}", &text[..at], &text[at..])
}

fn file_with(text: &str) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(text.as_bytes()).unwrap();
    file.flush().unwrap();
    file
}

#[test]
fn mapped_read_gives_the_same_model_past_released_pages() {
    let text = padded_fixture(20 << 20);
    let file = file_with(&text);
    let mapped = read_call_graph_mapped(file.as_file(), "p.xaif").unwrap();
    let in_memory = read_call_graph(&text, "p.xaif").unwrap();
    assert!(!mapped.vertices.is_empty());
    assert_eq!(mapped, in_memory);
}

#[test]
fn mapped_read_places_an_error_after_released_pages_like_the_in_memory_reader() {
    let text = padded_fixture(20 << 20);
    // An integer attribute that is not one, in the last control flow graph.
    let at = text.rfind("position=\"").unwrap();
    let bad = format!(
        "{}position=\"x{}",
        &text[..at],
        &text[at + "position=\"".len()..]
    );
    let file = file_with(&bad);
    let mapped = read_call_graph_mapped(file.as_file(), "p.xaif").unwrap_err();
    let in_memory = read_call_graph(&bad, "p.xaif").unwrap_err();
    assert!(mapped.line > 300_000, "{mapped:?}");
    assert_eq!(
        (mapped.line, mapped.column, &mapped.message),
        (in_memory.line, in_memory.column, &in_memory.message)
    );
}

#[test]
fn an_empty_file_is_an_error_not_a_crash() {
    let file = file_with("");
    let e = read_call_graph_mapped(file.as_file(), "p.xaif").unwrap_err();
    assert_eq!(e, read_call_graph("", "p.xaif").unwrap_err());
}
