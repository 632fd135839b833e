//! The low-level side of the writer: indented tags and escaped attributes
//! appended to a `String`, which is either the whole document or, when
//! writing to a file, a buffer passed on to it at element boundaries (a
//! document is as large as the model it comes from: never hold both).

use std::io::{self, Write};

pub(crate) struct Emitter<'w> {
    pub out: String,
    depth: usize,
    /// Where the text goes when `out` is only a buffer.
    sink: Option<&'w mut dyn Write>,
    /// The first write error; later writes are skipped.
    error: Option<io::Error>,
}

const INDENT: &str = "  ";

/// Buffer size at which the text is passed on to the sink.
const FLUSH_AT: usize = 1 << 16;

impl<'w> Emitter<'w> {
    pub fn new(capacity: usize) -> Self {
        let mut out = String::with_capacity(capacity);
        out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        Emitter {
            out,
            depth: 0,
            sink: None,
            error: None,
        }
    }

    /// An emitter that passes its text on to `sink` as it goes.
    pub fn to_sink(sink: &'w mut dyn Write) -> Self {
        let mut e = Emitter::new(FLUSH_AT + FLUSH_AT / 4);
        e.sink = Some(sink);
        e
    }

    /// Passes the buffered text on to the sink (if any) once it is large.
    fn maybe_flush(&mut self) {
        if self.out.len() >= FLUSH_AT {
            self.flush();
        }
    }

    fn flush(&mut self) {
        let Some(sink) = self.sink.as_mut() else {
            return;
        };
        if self.error.is_none() {
            if let Err(e) = sink.write_all(self.out.as_bytes()) {
                self.error = Some(e);
            }
        }
        self.out.clear();
    }

    /// Passes the rest of the text on to the sink; the first write error.
    pub fn finish(mut self) -> io::Result<()> {
        self.flush();
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Starts `<prefix:name` on a new line.
    pub fn open(&mut self, prefix: &str, name: &str) {
        for _ in 0..self.depth {
            self.out.push_str(INDENT);
        }
        self.out.push('<');
        self.out.push_str(prefix);
        self.out.push(':');
        self.out.push_str(name);
    }

    /// Ends a start tag whose children follow.
    pub fn children(&mut self) {
        self.out.push_str(">\n");
        self.depth += 1;
    }

    /// Ends a tag that has no children.
    pub fn empty(&mut self) {
        self.out.push_str("/>\n");
        self.maybe_flush();
    }

    /// Writes the end tag of an element opened with `children`.
    pub fn close(&mut self, prefix: &str, name: &str) {
        self.depth = self.depth.saturating_sub(1);
        for _ in 0..self.depth {
            self.out.push_str(INDENT);
        }
        self.out.push_str("</");
        self.out.push_str(prefix);
        self.out.push(':');
        self.out.push_str(name);
        self.out.push_str(">\n");
        self.maybe_flush();
    }

    /// ` name="value"`, escaped so that the reader (and any XML parser,
    /// which normalises whitespace in attributes) gets the value back.
    pub fn attr(&mut self, name: &str, value: &str) {
        self.out.push(' ');
        self.out.push_str(name);
        self.out.push_str("=\"");
        let bytes = value.as_bytes();
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            let replacement = match b {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                b'\t' => "&#9;",
                b'\n' => "&#10;",
                b'\r' => "&#13;",
                _ => continue,
            };
            self.out.push_str(&value[start..i]);
            self.out.push_str(replacement);
            start = i + 1;
        }
        self.out.push_str(&value[start..]);
        self.out.push('"');
    }

    pub fn attr_u64(&mut self, name: &str, value: u64) {
        let mut buf = [0u8; 20];
        self.attr_digits(name, false, value, &mut buf);
    }

    pub fn attr_i64(&mut self, name: &str, value: i64) {
        let mut buf = [0u8; 20];
        self.attr_digits(name, value < 0, value.unsigned_abs(), &mut buf);
    }

    pub fn attr_bool(&mut self, name: &str, value: bool) {
        self.attr(name, if value { "true" } else { "false" });
    }

    /// Formats an integer without going through `fmt` (hot path).
    fn attr_digits(&mut self, name: &str, negative: bool, mut value: u64, buf: &mut [u8; 20]) {
        let mut i = buf.len();
        loop {
            i -= 1;
            buf[i] = b'0' + (value % 10) as u8;
            value /= 10;
            if value == 0 {
                break;
            }
        }
        self.out.push(' ');
        self.out.push_str(name);
        self.out.push_str("=\"");
        if negative {
            self.out.push('-');
        }
        for &d in &buf[i..] {
            self.out.push(char::from(d));
        }
        self.out.push('"');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sink_gets_the_same_text_in_pieces() {
        let write = |e: &mut Emitter| {
            for i in 0..20_000u64 {
                e.open("xaif", "V");
                e.attr_u64("vertex_id", i);
                e.attr("annotation", "a&b");
                e.empty();
            }
        };
        let mut whole = Emitter::new(0);
        write(&mut whole);
        let mut file: Vec<u8> = Vec::new();
        let mut streamed = Emitter::to_sink(&mut file);
        write(&mut streamed);
        // Flushed on the way: the buffer never held the whole document.
        assert!(streamed.out.len() < FLUSH_AT);
        streamed.finish().unwrap();
        assert!(whole.out.len() > 4 * FLUSH_AT);
        assert_eq!(String::from_utf8(file).unwrap(), whole.out);
    }

    #[test]
    fn a_write_error_is_returned_by_finish() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::other("disk full"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut sink = Full;
        let mut e = Emitter::to_sink(&mut sink);
        e.open("xaif", "V");
        e.empty();
        assert_eq!(e.finish().unwrap_err().to_string(), "disk full");
    }

    #[test]
    fn attributes_are_escaped_and_integers_formatted() {
        let mut e = Emitter::new(0);
        e.out.clear();
        e.open("xaif", "A");
        e.attr("s", "a<b&\"c\"\n");
        e.attr_i64("n", -120);
        e.attr_u64("u", 0);
        e.attr_i64("m", i64::MIN);
        e.empty();
        assert_eq!(
            e.out,
            "<xaif:A s=\"a&lt;b&amp;&quot;c&quot;&#10;\" n=\"-120\" u=\"0\" m=\"-9223372036854775808\"/>\n"
        );
    }
}
