//! The canonical source written by the front end, split at its tag lines
//! (`!$oad unit`, `!$oad decl`, `!$oad body`, `!$oad stmt`,
//! `!$oad end-body`; see docs/ARCHITECTURE.md).

use std::collections::{HashMap, HashSet};

use xaif_schema::declarations::{Attributes, Declarations};

use crate::error::{error_at, Result};

/// One piece of the canonical source, in file order.
#[derive(Debug, Clone, PartialEq)]
pub enum CanonItem {
    /// A line copied verbatim (index into `lines`).
    Line(usize),
    /// The header of a program unit (with its continuation lines).
    UnitHeader { tag: String, lines: Vec<usize> },
    /// A declaration of exactly one entity.
    Decl {
        unit: String,
        name: String,
        lines: Vec<usize>,
    },
    /// The declaration of a real component of a derived type
    /// (`!$oad component TYPE%NAME`).
    Component {
        type_name: String,
        name: String,
        lines: Vec<usize>,
    },
    /// The executable part of a unit, from the `!$oad body` line to the
    /// `!$oad end-body` line (both exclusive).
    Body {
        unit: String,
        tag_line: usize,
        lines: Vec<usize>,
    },
}

/// An opaque statement referenced from XAIF markers.
#[derive(Debug, Clone, PartialEq)]
pub struct CanonStmt {
    pub unit: String,
    /// 0-based index of the first line of the statement.
    pub first_line: usize,
    pub text: String,
}

/// The parsed canonical source.
#[derive(Debug, Clone, Default)]
pub struct CanonSource {
    pub file: String,
    pub lines: Vec<String>,
    pub items: Vec<CanonItem>,
    pub stmts: HashMap<String, CanonStmt>,
    /// Unit tags in file order.
    pub units: Vec<String>,
    /// Names declared with `!$oad decl`, per unit.
    pub declared: HashMap<String, HashSet<String>>,
    /// Statement labels used in the body of each unit.
    body_labels: HashMap<String, HashSet<u32>>,
    /// The innermost unit each untagged line belongs to.
    pub line_units: HashMap<usize, String>,
    /// The unit each unit is nested in.
    pub unit_parent: HashMap<String, Option<String>>,
    /// Per derived type (lower case), from `!$oad type-parts`.
    pub type_parts: HashMap<String, TypeParts>,
    /// The attributes of the declarations, the units' headers, `use` and
    /// `common` statements (`P.decl`, `--declarations`, which every mode
    /// needs).
    pub declarations: Declarations,
}

/// What the front end says about a derived type's components (`!$oad
/// type-parts NAME [dynamic] [dynamic-nonreal] [nonreal=a,b] [nested=c]`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TypeParts {
    /// Allocatable or pointer parts, here or in a nested component.
    pub dynamic: bool,
    /// An allocatable or pointer component that is not real.
    pub dynamic_nonreal: bool,
    /// The other components that are not real data (lower case).
    pub nonreal: Vec<String>,
    /// Components of derived type (lower case).
    pub nested: Vec<String>,
}

impl TypeParts {
    fn parse(words: &[&str]) -> TypeParts {
        let list = |key: &str| -> Vec<String> {
            words
                .iter()
                .filter_map(|w| w.strip_prefix(key))
                .flat_map(|l| l.split(','))
                .filter(|n| !n.is_empty())
                .map(str::to_ascii_lowercase)
                .collect()
        };
        TypeParts {
            dynamic: words.contains(&"dynamic"),
            dynamic_nonreal: words.contains(&"dynamic-nonreal"),
            nonreal: list("nonreal="),
            nested: list("nested="),
        }
    }
}

/// Whether a line is the `end` statement of a program unit (not of an
/// interface block, type or construct).
fn ends_unit(line: &str) -> bool {
    let code = crate::fortran_text::code_part(line)
        .trim()
        .to_ascii_lowercase();
    let code = code
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start();
    let Some(rest) = code.strip_prefix("end") else {
        return false;
    };
    let rest = rest.trim_start();
    rest.is_empty()
        || [
            "subroutine",
            "function",
            "module",
            "program",
            "block data",
            "blockdata",
        ]
        .iter()
        .any(|k| rest.starts_with(k) && !rest.starts_with("module procedure"))
}

/// A tag line: `!$oad KEYWORD [ARG]`.
fn tag_of(line: &str) -> Option<(String, String)> {
    let t = line.trim();
    if t.len() < 5 || !t[..5].eq_ignore_ascii_case("!$oad") {
        return None;
    }
    let rest = t[5..].trim();
    let mut parts = rest.splitn(2, char::is_whitespace);
    let keyword = parts.next().unwrap_or("").to_ascii_lowercase();
    let arg = parts.next().unwrap_or("").trim().to_string();
    Some((keyword, arg))
}

/// Whether a free-form line continues on the next one (ends in `&`
/// outside a trailing comment).
pub fn continues(line: &str) -> bool {
    crate::fortran_text::code_part(line)
        .trim_end()
        .ends_with('&')
}

impl CanonSource {
    /// What the declaration of `name` in `unit` says (`P.decl`); `None`
    /// when the unit declares no such entity.
    pub fn attributes(&self, unit: &str, name: &str) -> Option<&Attributes> {
        self.declarations.get(unit, name)
    }

    /// Whether `name`, an entity of module `unit`, is private to it.
    pub fn is_private(&self, unit: &str, name: &str) -> bool {
        self.declarations.is_private(unit, name)
    }

    /// Whether the program uses the system's module `mpi` (`use mpi`): its
    /// generated units then use the runtime module `OAD_mpi` (`mpi.rs`).
    pub fn uses_mpi(&self) -> bool {
        self.declarations.is_used("mpi")
    }

    /// Parses the text of a canonical source file.
    pub fn parse(file: &str, text: &str) -> Result<CanonSource> {
        let lines: Vec<String> = text.lines().map(|l| l.to_string()).collect();
        let mut src = CanonSource {
            file: file.to_string(),
            ..Default::default()
        };
        let err = |i: usize, msg: String| error_at(file, i + 1, 1, msg);
        // Units nest (module procedures, internal procedures, interface
        // bodies): the innermost open one owns declarations and bodies.
        let mut stack: Vec<String> = Vec::new();
        let mut i = 0;
        while i < lines.len() {
            let current = stack.last().cloned();
            let Some((keyword, arg)) = tag_of(&lines[i]) else {
                if let Some(u) = &current {
                    src.line_units.insert(i, u.clone());
                    if ends_unit(&lines[i]) {
                        stack.pop();
                    }
                }
                src.items.push(CanonItem::Line(i));
                i += 1;
                continue;
            };
            match keyword.as_str() {
                "unit" => {
                    if arg.is_empty() {
                        return Err(err(i, "'!$oad unit' without a tag".into()));
                    }
                    if src.units.contains(&arg) {
                        return Err(err(i, format!("unit tag '{arg}' appears twice")));
                    }
                    let header = statement_lines(&lines, i + 1);
                    if header.is_empty() {
                        return Err(err(i, format!("unit '{arg}' has no header line")));
                    }
                    i = header.last().unwrap() + 1;
                    src.units.push(arg.clone());
                    src.declared.entry(arg.clone()).or_default();
                    src.items.push(CanonItem::UnitHeader {
                        tag: arg.clone(),
                        lines: header,
                    });
                    src.unit_parent.insert(arg.clone(), stack.last().cloned());
                    stack.push(arg);
                }
                "decl" => {
                    let unit = current
                        .clone()
                        .ok_or_else(|| err(i, "'!$oad decl' outside a unit".into()))?;
                    let decl = statement_lines(&lines, i + 1);
                    if decl.is_empty() || arg.is_empty() {
                        return Err(err(i, "'!$oad decl' without a declaration".into()));
                    }
                    i = decl.last().unwrap() + 1;
                    let name = arg.to_ascii_lowercase();
                    src.declared
                        .entry(unit.clone())
                        .or_default()
                        .insert(name.clone());
                    src.items.push(CanonItem::Decl {
                        unit,
                        name,
                        lines: decl,
                    });
                }
                "component" => {
                    let decl = statement_lines(&lines, i + 1);
                    let Some((type_name, name)) = arg.split_once('%') else {
                        return Err(err(i, "'!$oad component' wants TYPE%NAME".into()));
                    };
                    if decl.is_empty() {
                        return Err(err(i, "'!$oad component' without a declaration".into()));
                    }
                    i = decl.last().unwrap() + 1;
                    if let Some(u) = &current {
                        for &l in &decl {
                            src.line_units.insert(l, u.clone());
                        }
                    }
                    src.items.push(CanonItem::Component {
                        type_name: type_name.to_ascii_lowercase(),
                        name: name.to_ascii_lowercase(),
                        lines: decl,
                    });
                }
                "body" => {
                    let unit = current
                        .clone()
                        .ok_or_else(|| err(i, "'!$oad body' outside a unit".into()))?;
                    let tag_line = i;
                    let mut body = Vec::new();
                    i += 1;
                    loop {
                        if i >= lines.len() {
                            return Err(err(
                                tag_line,
                                format!("body of unit '{unit}' has no '!$oad end-body'"),
                            ));
                        }
                        match tag_of(&lines[i]) {
                            Some((k, _)) if k == "end-body" => break,
                            Some((k, id)) if k == "stmt" => {
                                let first = i + 1;
                                let mut j = first;
                                while j < lines.len() && tag_of(&lines[j]).is_none() {
                                    j += 1;
                                }
                                let end = opaque_statement_end(&lines, first, j);
                                let mut text_lines: Vec<&str> =
                                    lines[first..end].iter().map(|s| s.as_str()).collect();
                                while text_lines.last().is_some_and(|l| l.trim().is_empty()) {
                                    text_lines.pop();
                                }
                                if id.is_empty() || text_lines.is_empty() {
                                    return Err(err(i, "'!$oad stmt' without a statement".into()));
                                }
                                if src.stmts.contains_key(&id) {
                                    return Err(err(
                                        i,
                                        format!("statement id '{id}' appears twice"),
                                    ));
                                }
                                src.stmts.insert(
                                    id,
                                    CanonStmt {
                                        unit: unit.clone(),
                                        first_line: first,
                                        text: text_lines.join("\n"),
                                    },
                                );
                                body.push(i);
                                body.extend(first..j);
                                i = j;
                            }
                            Some((k, _)) => {
                                return Err(err(i, format!("'!$oad {k}' inside a body")));
                            }
                            None => {
                                body.push(i);
                                i += 1;
                            }
                        }
                    }
                    // `i` is at the end-body line.
                    let labels = leading_labels(&lines, &body);
                    src.body_labels
                        .entry(unit.clone())
                        .or_default()
                        .extend(labels);
                    src.items.push(CanonItem::Body {
                        unit,
                        tag_line,
                        lines: body,
                    });
                    i += 1;
                }
                "type-parts" => {
                    let mut words = arg.split_whitespace();
                    let Some(type_name) = words.next() else {
                        return Err(err(i, "'!$oad type-parts' wants a type name".into()));
                    };
                    let words: Vec<&str> = words.collect();
                    src.type_parts
                        .insert(type_name.to_ascii_lowercase(), TypeParts::parse(&words));
                    i += 1;
                }
                "end-body" => return Err(err(i, "'!$oad end-body' without '!$oad body'".into())),
                "stmt" => return Err(err(i, "'!$oad stmt' outside a body".into())),
                other => return Err(err(i, format!("unknown tag '!$oad {other}'"))),
            }
        }
        src.lines = lines;
        Ok(src)
    }

    /// Numeric statement labels used anywhere in the body lines of a unit
    /// (so generated labels can avoid them).
    pub fn labels_in_body(&self, unit: &str) -> HashSet<u32> {
        self.body_labels.get(unit).cloned().unwrap_or_default()
    }
}

/// Where the opaque statement starting at line `first` ends (exclusive),
/// at the latest at `limit` (the next tag line): one statement with its
/// continuation lines, or a whole block construct (`if ... then` to
/// `end if`, `do` to `end do` or its label, `select`, `where`, `forall`,
/// `associate`, `block`, `critical`). Untagged statements that follow are
/// not part of it: they are in the XAIF.
fn opaque_statement_end(lines: &[String], first: usize, limit: usize) -> usize {
    let mut depth = 0i32;
    let mut do_labels: Vec<String> = Vec::new();
    let mut i = first;
    while i < limit {
        let stmt_lines = statement_lines(&lines[..limit], i);
        let texts: Vec<&str> = stmt_lines.iter().map(|&k| lines[k].as_str()).collect();
        i = stmt_lines.last().map_or(i + 1, |l| l + 1);
        let joined = join_statement(&texts).to_ascii_lowercase();
        // Blank and comment lines belong to nothing.
        if joined.is_empty() {
            continue;
        }
        let (label, body) = split_label(&joined);
        match block_effect(body) {
            Block::Opens(end_label) => {
                depth += 1;
                if let Some(l) = end_label {
                    do_labels.push(l);
                }
            }
            Block::Closes => depth -= 1,
            Block::Neither => {}
        }
        // A labelled do ends at the statement carrying its label.
        while label.is_some() && do_labels.last().map(String::as_str) == label {
            do_labels.pop();
            depth -= 1;
        }
        if depth <= 0 {
            break;
        }
    }
    i
}

/// The statement label (if any) and the rest, construct name removed.
fn split_label(stmt: &str) -> (Option<&str>, &str) {
    let digits = stmt.len() - stmt.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let (label, rest) = if digits > 0 {
        (Some(&stmt[..digits]), stmt[digits..].trim_start())
    } else {
        (None, stmt)
    };
    // `name: do ...`
    let rest = match rest.find(':') {
        Some(p)
            if !rest[p..].starts_with("::")
                && rest[..p]
                    .trim()
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !rest[..p].trim().is_empty() =>
        {
            rest[p + 1..].trim_start()
        }
        _ => rest,
    };
    (label, rest)
}

enum Block {
    /// Opens a construct (with the end label of a labelled do).
    Opens(Option<String>),
    Closes,
    Neither,
}

fn block_effect(stmt: &str) -> Block {
    let word: String = stmt
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    let after = stmt[word.len()..].trim_start();
    let squeezed: String = stmt.chars().filter(|c| !c.is_whitespace()).collect();
    const CLOSERS: [&str; 8] = [
        "endif",
        "enddo",
        "endselect",
        "endwhere",
        "endforall",
        "endassociate",
        "endblock",
        "endcritical",
    ];
    if CLOSERS.iter().any(|c| squeezed.starts_with(c)) {
        return Block::Closes;
    }
    // An assignment to a variable that happens to be called like a keyword.
    if after.starts_with('=') && !after.starts_with("==") {
        return Block::Neither;
    }
    match word.as_str() {
        "if" if squeezed.ends_with("then") => Block::Opens(None),
        "do" | "dowhile" => {
            let label: String = after.chars().take_while(|c| c.is_ascii_digit()).collect();
            Block::Opens((!label.is_empty()).then_some(label))
        }
        "select" | "selectcase" | "selecttype" | "associate" | "block" | "critical" => {
            Block::Opens(None)
        }
        // `where (mask) a = b` is one statement; `where (mask)` opens.
        "where" | "forall" if squeezed.ends_with(')') => Block::Opens(None),
        _ => Block::Neither,
    }
}

/// Numeric labels at the start of the given lines.
fn leading_labels(lines: &[String], which: &[usize]) -> HashSet<u32> {
    let mut labels = HashSet::new();
    for &l in which {
        let t = lines[l].trim_start();
        let digits: String = t.chars().take_while(|c| c.is_ascii_digit()).collect();
        if let Ok(n) = digits.parse::<u32>() {
            labels.insert(n);
        }
    }
    labels
}

/// The lines of the statement starting at line `start`: the line and its
/// continuation lines. Empty if `start` is past the end.
fn statement_lines(lines: &[String], start: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = start;
    while i < lines.len() {
        out.push(i);
        if !continues(&lines[i]) {
            break;
        }
        i += 1;
    }
    out
}

/// Joins a statement spread over continuation lines into one line.
pub fn join_statement(lines: &[&str]) -> String {
    let mut out = String::new();
    for (k, line) in lines.iter().enumerate() {
        let mut part = crate::fortran_text::code_part(line).trim();
        if k > 0 {
            part = part.strip_prefix('&').unwrap_or(part).trim_start();
        }
        let part = part.strip_suffix('&').map(str::trim_end).unwrap_or(part);
        if !out.is_empty() && !part.is_empty() {
            out.push(' ');
        }
        out.push_str(part);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_units_decls_bodies_and_statements() {
        let text = "!$oad unit s1\nsubroutine head(x, &\n  y)\n!$oad decl x\nreal(8), intent(in) :: x\n!$oad body\n!$oad stmt 1\nprint *, x\ny = x\n!$oad end-body\nend subroutine\n";
        let src = CanonSource::parse("a.canon.f90", text).unwrap();
        assert_eq!(src.units, vec!["s1".to_string()]);
        assert!(
            matches!(&src.items[0], CanonItem::UnitHeader { lines, .. } if lines == &vec![1, 2])
        );
        // One statement: the untagged assignment after it is in the XAIF.
        assert_eq!(src.stmts["1"].text, "print *, x");
        assert!(src.declared["s1"].contains("x"));
        assert!(matches!(src.items.last(), Some(CanonItem::Line(10))));
    }

    #[test]
    fn opaque_block_constructs_are_taken_whole() {
        let text = "!$oad unit s1\nsubroutine s\n!$oad body\n!$oad stmt 1\n  where (m) &\n    & a = 0\n  b = 1\n!$oad stmt 2\n  outer: do i = 1, n\n    if (a(i) > 0) then\n      print *, i\n    end if\n  end do outer\n  c = 2\n!$oad stmt 3\n  do 10 i = 1, 3\n    print *, i\n10 continue\n  d = 3\n!$oad stmt 4\n  write(*, *) 'x'\n\n!$oad end-body\nend subroutine\n";
        let src = CanonSource::parse("a.canon.f90", text).unwrap();
        assert_eq!(src.stmts["1"].text, "  where (m) &\n    & a = 0");
        assert!(src.stmts["2"].text.ends_with("end do outer"));
        assert!(src.stmts["3"].text.ends_with("10 continue"));
        assert_eq!(src.stmts["4"].text, "  write(*, *) 'x'");
    }

    #[test]
    fn declarations_after_an_interface_body_belong_to_the_outer_unit() {
        let text = "!$oad unit h\nsubroutine h(x)\n  interface\n!$oad unit h.i\n    subroutine g(a)\n!$oad decl a\n      real(8) :: a\n    end subroutine g\n  end interface\n!$oad decl x\n  real(8) :: x\n  use_count = 1\n!$oad body\n!$oad end-body\nend subroutine h\n";
        let src = CanonSource::parse("a.canon.f90", text).unwrap();
        assert!(src.declared["h"].contains("x"));
        assert!(src.declared["h.i"].contains("a"));
        assert_eq!(src.unit_parent["h.i"].as_deref(), Some("h"));
        assert_eq!(src.line_units[&8].as_str(), "h");
        assert!(src
            .items
            .iter()
            .any(|i| matches!(i, CanonItem::Body { unit, .. } if unit == "h")));
    }

    #[test]
    fn missing_end_body_is_an_error_at_the_body_tag() {
        let text = "!$oad unit s1\nsubroutine s\n!$oad body\nx = 1\n";
        let e = CanonSource::parse("a.canon.f90", text).unwrap_err();
        assert_eq!(e.location.line, 3);
        assert!(e.message.contains("end-body"));
    }

    #[test]
    fn joins_continuation_lines() {
        assert_eq!(
            join_statement(&["real(8), &", "  & dimension(3) :: a ! c"]),
            "real(8), dimension(3) :: a"
        );
    }

    #[test]
    fn type_parts_lines_are_read() {
        let text = "!$oad unit m\nmodule m\n  type t\n!$oad component t%a\n    real(8) :: a\n    integer :: n\n!$oad type-parts T dynamic-nonreal nonreal=N,flag nested=Inner\n  end type t\n  type u\n!$oad type-parts u\n  end type u\nend module m\n";
        let src = CanonSource::parse("m.canon.f90", text).unwrap();
        let t = &src.type_parts["t"];
        assert!(!t.dynamic && t.dynamic_nonreal);
        assert_eq!(t.nonreal, vec!["n".to_string(), "flag".to_string()]);
        assert_eq!(t.nested, vec!["inner".to_string()]);
        assert_eq!(src.type_parts["u"], TypeParts::default());
        // The tag lines are not copied into the generated code.
        assert!(src
            .items
            .iter()
            .all(|i| !matches!(i, CanonItem::Line(l) if src.lines[*l].contains("type-parts"))));
    }
}
