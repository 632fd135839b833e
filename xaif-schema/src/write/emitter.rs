//! The low-level side of the writer: indented tags and escaped attributes
//! appended to one `String`.

pub(crate) struct Emitter {
    pub out: String,
    depth: usize,
}

const INDENT: &str = "  ";

impl Emitter {
    pub fn new(capacity: usize) -> Self {
        let mut out = String::with_capacity(capacity);
        out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        Emitter { out, depth: 0 }
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
