//! A small free-form Fortran tokenizer and the text rewrites built on it:
//! adding `%v` to references of active variables in opaque statements,
//! substituting dummy names in inline definitions, wrapping long lines.

/// Kinds of tokens. Keywords are identifiers; the rewrites only touch
/// identifiers that name symbols.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokKind {
    Ident,
    Number,
    Str,
    /// `.and.`, `.true.`, `.eq.`, ...
    DotOp,
    Punct,
    Space,
    Comment,
}

/// A token: kind and byte range in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tok {
    pub kind: TokKind,
    pub start: usize,
    pub end: usize,
}

const TWO_CHAR_PUNCT: [&str; 8] = ["**", "==", "=>", "<=", ">=", "/=", "::", "//"];

/// Splits text (one or more lines) into tokens covering it completely.
pub fn tokenize(text: &str) -> Vec<Tok> {
    let b = text.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let kind = if c == b'!' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            TokKind::Comment
        } else if c.is_ascii_whitespace() {
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            TokKind::Space
        } else if c == b'\'' || c == b'"' {
            i += 1;
            while i < b.len() {
                if b[i] == c {
                    if i + 1 < b.len() && b[i + 1] == c {
                        i += 2;
                        continue;
                    }
                    i += 1;
                    break;
                }
                i += 1;
            }
            TokKind::Str
        } else if c.is_ascii_alphabetic() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            TokKind::Ident
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i = number_end(b, i);
            TokKind::Number
        } else if c == b'.' && dot_op_end(b, i).is_some() {
            i = dot_op_end(b, i).unwrap();
            TokKind::DotOp
        } else {
            let two = text.get(i..i + 2).unwrap_or("");
            i += if TWO_CHAR_PUNCT.contains(&two) { 2 } else { 1 };
            // Keep multi-byte characters whole.
            while !text.is_char_boundary(i) {
                i += 1;
            }
            TokKind::Punct
        };
        toks.push(Tok {
            kind,
            start,
            end: i,
        });
    }
    toks
}

/// End of a dotted operator starting at `i` (`.and.`), if there is one.
fn dot_op_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < b.len() && b[j].is_ascii_alphabetic() {
        j += 1;
    }
    (j > i + 1 && j < b.len() && b[j] == b'.').then_some(j + 1)
}

/// End of a numeric literal starting at `i` (digits, fraction, exponent,
/// kind suffix); stops before a dotted operator as in `1.eq.2`.
fn number_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i < b.len() && b[i] == b'.' && dot_op_end(b, i).is_none() {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i < b.len() && matches!(b[i], b'e' | b'E' | b'd' | b'D' | b'q' | b'Q') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            i = j;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    if i < b.len() && b[i] == b'_' {
        i += 1;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
    }
    i
}

/// The line without its trailing comment.
pub fn code_part(line: &str) -> &str {
    match tokenize(line).iter().find(|t| t.kind == TokKind::Comment) {
        Some(t) => &line[..t.start],
        None => line,
    }
}

/// Index of the next token after `k` that is not space (or a continuation
/// `&`, so that references split over lines are still seen whole).
fn next_code(text: &str, toks: &[Tok], k: usize) -> Option<usize> {
    (k + 1..toks.len()).find(|&j| !is_filler(text, &toks[j]))
}

fn prev_code(text: &str, toks: &[Tok], k: usize) -> Option<usize> {
    (0..k).rev().find(|&j| !is_filler(text, &toks[j]))
}

fn is_filler(text: &str, t: &Tok) -> bool {
    matches!(t.kind, TokKind::Space | TokKind::Comment) || &text[t.start..t.end] == "&"
}

/// The names of the reference chain ending at component token `k`
/// (`a(i)%b%c` at `c`: `["a", "b", "c"]`), lower case; `None` when the
/// text before is not a plain chain.
fn component_chain(text: &str, toks: &[Tok], k: usize) -> Option<Vec<String>> {
    let mut chain = vec![text[toks[k].start..toks[k].end].to_ascii_lowercase()];
    let mut at = k;
    while let Some(p) = prev_code(text, toks, at) {
        if &text[toks[p].start..toks[p].end] != "%" {
            break;
        }
        let mut before = prev_code(text, toks, p)?;
        if &text[toks[before].start..toks[before].end] == ")" {
            before = prev_code(text, toks, matching_open(text, toks, before)?)?;
        }
        if toks[before].kind != TokKind::Ident {
            return None;
        }
        chain.push(text[toks[before].start..toks[before].end].to_ascii_lowercase());
        at = before;
    }
    chain.reverse();
    Some(chain)
}

/// Index of the `(` matching the `)` at token `close`.
fn matching_open(text: &str, toks: &[Tok], close: usize) -> Option<usize> {
    let mut depth = 0usize;
    for j in (0..=close).rev() {
        if toks[j].kind != TokKind::Punct {
            continue;
        }
        match &text[toks[j].start..toks[j].end] {
            ")" => depth += 1,
            "(" => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
    }
    None
}

/// Index of the `)` matching the `(` at token `open`.
fn matching_paren(text: &str, toks: &[Tok], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (j, t) in toks.iter().enumerate().skip(open) {
        if t.kind != TokKind::Punct {
            continue;
        }
        match &text[t.start..t.end] {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
    }
    None
}

/// Statements whose object names must stay bare (`allocate(x(n))`).
const NO_VALUE_STATEMENTS: [&str; 4] = ["allocate", "deallocate", "nullify", "format"];
/// Inquiries whose argument must be the variable itself, not `x%v`.
const NO_VALUE_INQUIRIES: [&str; 3] = ["allocated", "present", "associated"];

/// Appends `%v` to every reference of an active variable in an opaque
/// statement: after the name, or after its subscript list. Component
/// names, keyword argument names, strings and comments are left alone,
/// and so are statements whose objects must be named bare (allocate,
/// deallocate, nullify, format) and the arguments of `allocated`,
/// `present` and `associated`.
pub fn add_value_suffix(text: &str, is_active: &dyn Fn(&str) -> bool) -> String {
    add_value_suffix_with(text, is_active, &|_| false)
}

/// [`add_value_suffix`], also after an active component of a derived-type
/// reference: `is_active_chain(["a", "c"])` says whether `a%c` is one
/// (`a%c` → `a%c%v`, `s%h(i)` → `s%h(i)%v`).
pub fn add_value_suffix_with(
    text: &str,
    is_active: &dyn Fn(&str) -> bool,
    is_active_chain: &dyn Fn(&[String]) -> bool,
) -> String {
    let toks = tokenize(text);
    let first_word = toks
        .iter()
        .find(|t| !matches!(t.kind, TokKind::Space | TokKind::Comment | TokKind::Number))
        .filter(|t| t.kind == TokKind::Ident)
        .map(|t| text[t.start..t.end].to_ascii_lowercase());
    if first_word.is_some_and(|w| NO_VALUE_STATEMENTS.contains(&w.as_str())) {
        return text.to_string();
    }
    // A pointer assignment associates the variables themselves.
    let mut level = 0i32;
    for t in toks.iter().filter(|t| t.kind == TokKind::Punct) {
        match &text[t.start..t.end] {
            "(" | "[" => level += 1,
            ")" | "]" => level -= 1,
            "=>" if level == 0 => return text.to_string(),
            _ => {}
        }
    }
    let mut insert_after = vec![false; toks.len()];
    let mut skip_until: Option<usize> = None;
    let mut depth = 0i32;
    for k in 0..toks.len() {
        let t = toks[k];
        let s = &text[t.start..t.end];
        if t.kind == TokKind::Punct {
            match s {
                "(" => depth += 1,
                ")" => depth -= 1,
                _ => {}
            }
        }
        if skip_until.is_some_and(|end| k <= end) {
            continue;
        }
        if t.kind != TokKind::Ident {
            continue;
        }
        let name = s.to_ascii_lowercase();
        let next = next_code(text, &toks, k);
        let next_s = next.map(|j| &text[toks[j].start..toks[j].end]);
        if NO_VALUE_INQUIRIES.contains(&name.as_str()) && next_s == Some("(") {
            skip_until = matching_paren(text, &toks, next.unwrap());
            continue;
        }
        let prev_s = prev_code(text, &toks, k).map(|j| &text[toks[j].start..toks[j].end]);
        if prev_s == Some("%") {
            // A component: active when its chain ends in an active one.
            if !component_chain(text, &toks, k).is_some_and(|c| is_active_chain(&c)) {
                continue;
            }
        } else if !is_active(&name) {
            continue;
        }
        if depth > 0 && matches!(prev_s, Some("(") | Some(",")) && next_s == Some("=") {
            continue;
        }
        let last = match next_s {
            Some("(") => match matching_paren(text, &toks, next.unwrap()) {
                Some(close) => close,
                None => continue,
            },
            _ => k,
        };
        let after = next_code(text, &toks, last).map(|j| &text[toks[j].start..toks[j].end]);
        if after == Some("%") {
            continue;
        }
        insert_after[last] = true;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for (k, t) in toks.iter().enumerate() {
        out.push_str(&text[t.start..t.end]);
        if insert_after[k] {
            out.push_str("%v");
        }
    }
    out
}

/// Replaces identifiers (case-insensitively) by the given texts: used to
/// put actual arguments in place of the dummies of inline definitions.
pub fn substitute_identifiers(text: &str, replace: &dyn Fn(&str) -> Option<String>) -> String {
    let toks = tokenize(text);
    let mut out = String::with_capacity(text.len());
    for (k, t) in toks.iter().enumerate() {
        let s = &text[t.start..t.end];
        let is_component =
            prev_code(text, &toks, k).is_some_and(|j| &text[toks[j].start..toks[j].end] == "%");
        match (t.kind, is_component) {
            (TokKind::Ident, false) => match replace(&s.to_ascii_lowercase()) {
                Some(r) => out.push_str(&r),
                None => out.push_str(s),
            },
            _ => out.push_str(s),
        }
    }
    out
}

/// Longest line gfortran accepts in free form without an error.
pub const MAX_LINE: usize = 132;
/// Where generated lines are broken.
const WRAP_AT: usize = 100;

/// Breaks a line longer than the free-form limit into continuation lines
/// at token boundaries (never inside a string). Lines that fit, and lines
/// that cannot be broken safely, come back unchanged.
pub fn wrap_line(line: &str) -> Vec<String> {
    if line.len() <= MAX_LINE {
        return vec![line.to_string()];
    }
    let indent: String = line.chars().take_while(|c| *c == ' ').collect();
    let toks = tokenize(line);
    let mut out = Vec::new();
    let mut seg_start = 0;
    let mut last_break = None;
    for t in &toks {
        if t.kind == TokKind::Comment {
            break;
        }
        if t.start > seg_start && t.start - seg_start <= WRAP_AT {
            last_break = Some(t.start);
        }
        if t.end - seg_start > WRAP_AT {
            if let Some(b) = last_break.filter(|&b| b > seg_start) {
                out.push(format!("{} &", line[seg_start..b].trim_end()));
                seg_start = b;
                last_break = None;
            }
        }
    }
    if out.is_empty() {
        return vec![line.to_string()];
    }
    out.push(line[seg_start..].to_string());
    for part in out.iter_mut().skip(1) {
        *part = format!("{indent}  & {}", part.trim_start());
    }
    out
}

/// The text between the `(` that `text` starts with and its matching `)`.
pub(crate) fn parenthesised(text: &str) -> Option<&str> {
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[1..i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// Splits at `sep` outside parentheses, brackets and strings.
pub(crate) fn top_level_split<'t>(text: &'t str, sep: &str) -> Vec<&'t str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') => depth -= 1,
            (None, _) if depth == 0 && text[i..].starts_with(sep) => {
                parts.push(&text[start..i]);
                i += sep.len();
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(&text[start..]);
    parts
}

#[cfg(test)]
mod tests {
    #[test]
    fn value_suffix_after_active_components_of_derived_references() {
        let chain = |c: &[String]| c.last().is_some_and(|l| l == "c" || l == "h");
        let out = add_value_suffix_with(
            "flag = all(a%c == b(2)%c) .and. s%n > 0; print *, s%g%h(i)",
            &|_| false,
            &chain,
        );
        assert_eq!(
            out,
            "flag = all(a%c%v == b(2)%c%v) .and. s%n > 0; print *, s%g%h(i)%v"
        );
    }

    use super::*;

    fn active(n: &str) -> bool {
        matches!(n, "x" | "a" | "y")
    }

    #[test]
    fn value_suffix_after_names_and_subscripts() {
        assert_eq!(
            add_value_suffix("print *, 'x=', x, a(i, 2), n", &active),
            "print *, 'x=', x%v, a(i, 2)%v, n"
        );
        assert_eq!(
            add_value_suffix("y = a(int(x)) ! x", &active),
            "y%v = a(int(x%v))%v ! x"
        );
    }

    #[test]
    fn value_suffix_leaves_keywords_components_and_allocations() {
        assert_eq!(
            add_value_suffix("call s(x=n, b=t%x)", &active),
            "call s(x=n, b=t%x)"
        );
        assert_eq!(
            add_value_suffix("allocate(a(n))", &active),
            "allocate(a(n))"
        );
        assert_eq!(
            add_value_suffix("if (allocated(a)) print *, a", &active),
            "if (allocated(a)) print *, a%v"
        );
        assert_eq!(
            add_value_suffix("if (x.eq.1.d0) stop", &active),
            "if (x%v.eq.1.d0) stop"
        );
        assert_eq!(add_value_suffix("p => a(2:3)", &active), "p => a(2:3)");
    }

    #[test]
    fn numbers_stop_before_dotted_operators() {
        let t = "1.eq.2";
        let kinds: Vec<_> = tokenize(t).iter().map(|t| t.kind).collect();
        assert_eq!(
            kinds,
            vec![TokKind::Number, TokKind::DotOp, TokKind::Number]
        );
        assert_eq!(tokenize("1.5d-3_8").len(), 1);
    }

    #[test]
    fn substitutes_dummies_but_not_components() {
        let r = substitute_identifiers("oad_dt(oad_dt_ptr) = x; q%x = x", &|n| {
            (n == "x").then(|| "a(i)%v".to_string())
        });
        assert_eq!(r, "oad_dt(oad_dt_ptr) = a(i)%v; q%x = a(i)%v");
    }

    #[test]
    fn wraps_long_lines_outside_strings() {
        let long = format!("  y%d = {}", vec!["a1*x1%d"; 40].join(" + "));
        let parts = wrap_line(&long);
        assert!(parts.len() > 1);
        assert!(parts.iter().all(|p| p.len() <= MAX_LINE));
        let joined: String = parts
            .iter()
            .map(|p| {
                p.trim()
                    .trim_start_matches('&')
                    .trim_end_matches('&')
                    .trim()
            })
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(joined.replace(' ', ""), long.replace(' ', ""));
    }
}
