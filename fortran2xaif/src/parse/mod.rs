//! Parsing: tree-sitter-fortran's concrete syntax tree → the typed AST.
//!
//! The grammar has a few quirks this module corrects: unary minus binds
//! tighter than `**` and `*`, `**` associates to the left, and `-x(1)` comes
//! out as a call of `-x`. Arithmetic is therefore flattened into operands
//! and operators and re-parsed with Fortran's precedence. Labelled `do`
//! loops come out flat and are nested here.
//!
//! The parser is one context type, `FortranParser` (the source text and
//! its file number), defined here with the entry point `parse_file`, the
//! syntax error blame and small tree helpers. Each child module adds an
//! `impl FortranParser` block for one concern and imports only from this
//! module, never from a sibling:
//!
//! | module | concern |
//! |---|---|
//! | `units` | program units, their headers, internal procedures, statement-function detection |
//! | `declarations` | specification statements, types, attributes, array bounds, entities, interfaces, derived types |
//! | `statements` | executable statements and blocks, labelled `do` nesting, `forall`, `if`, I/O items, loop controls |
//! | `expressions` | expressions, actual arguments, ranges, and the operator-precedence re-parse of arithmetic |
//! | `constructs` | `associate`, `block` and `do concurrent` rewritten into plain statements as they are read |
//! | `allocatable_results` | a function that allocates its allocatable result once, first, from its arguments: an explicit-shape result instead |
//! | `bindings` | the binding part of a derived type, `procedure(iface) :: f` declarations |
//! | `substitute` | names replaced by designators in a block of statements (associate names, block locals) |

mod allocatable_results;
mod allocate_source;
mod bindings;
mod constructs;
mod declarations;
mod expressions;
mod intrinsic_modules;
mod namelist;
mod statements;
mod substitute;
#[cfg(test)]
mod tests;
mod units;

use crate::ast::*;
// Shared with the children: `constructs` uses `substitute`.
use crate::unparse;
use allocatable_results::allocatable_result;
use constructs::concurrent_nest;
use declarations::operator_generic_name;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use substitute::Substitution;

/// Replaces `name` by `by` throughout `stmts` (subscripts of `name`
/// address `by`'s section), as the parser does for associate names.
pub(crate) fn substitute_name(stmts: &mut [Stmt], name: &str, by: Expr) -> FrontResult<()> {
    Substitution {
        names: vec![(name.to_string(), by)],
    }
    .stmts(stmts)
}
use tree_sitter::{Node, Parser};

/// Parses one normalised (free-form) source text.
pub fn parse_file(text: &str, file: usize) -> FrontResult<SourceFile> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_fortran::LANGUAGE.into())
        .map_err(|e| {
            FrontError::new(
                Span::default(),
                format!("cannot load the Fortran grammar: {e}"),
            )
        })?;
    let tree = parser.parse(text, None).ok_or_else(|| {
        FrontError::new(
            Span {
                file,
                line: 1,
                column: 1,
            },
            "the parser gave up",
        )
    })?;
    let p = FortranParser {
        src: text,
        file,
        fresh: Cell::new(0),
        hoisted: RefCell::new(Vec::new()),
        locals: RefCell::new(ConstructLocals::default()),
        allocations: RefCell::new(Vec::new()),
        associate_names: RefCell::new(Vec::new()),
        namelists: RefCell::new(HashMap::new()),
        declared_ranks: RefCell::new(HashMap::new()),
        polymorphic: RefCell::new(Vec::new()),
    };
    let root = tree.root_node();
    if let Some(bad) = first_error(root).map(blame) {
        let what = if bad.is_missing() {
            format!("syntax error: missing '{}'", bad.kind())
        } else {
            let snippet: String = p.text(bad).chars().take(40).collect();
            let snippet = snippet.lines().next().unwrap_or("").trim().to_string();
            format!("syntax error near '{snippet}'")
        };
        return Err(FrontError::syntax(p.span(bad), what));
    }
    let mut units = Vec::new();
    for child in named_children(root) {
        match child.kind() {
            "comment" => {}
            "module" | "subroutine" | "function" | "program" | "block_data" => {
                units.push(p.unit(child)?)
            }
            _ => {
                return Err(FrontError::new(
                    p.span(child),
                    format!(
                        "statement outside a program unit ({}); wrap it in a subroutine or program",
                        child.kind()
                    ),
                ))
            }
        }
    }
    Ok(SourceFile { units })
}

/// Within an ERROR node, the first piece that is not a complete statement:
/// tree-sitter keeps well-formed statements before the fault as children.
fn blame(node: Node) -> Node {
    if !node.is_error() {
        return node;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        let complete = (child.kind().ends_with("_statement")
            || child.kind() == "comment"
            || child.kind() == "statement_label")
            && !child.has_error();
        if complete {
            continue;
        }
        return if child.is_error() {
            blame(child)
        } else {
            child
        };
    }
    node
}

fn first_error(node: Node) -> Option<Node> {
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    if !node.has_error() {
        return None;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if let Some(bad) = first_error(child) {
            return Some(bad);
        }
    }
    None
}

fn named_children(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

fn all_children(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

struct FortranParser<'a> {
    src: &'a str,
    file: usize,
    /// Counter of the fresh names of `constructs.rs`.
    fresh: Cell<usize>,
    /// Declarations of `block` constructs of the unit being read, moved to
    /// its specification part (`constructs.rs`).
    hoisted: RefCell<Vec<SpecStmt>>,
    /// Names the rewrite of the unit's constructs introduced.
    locals: RefCell<ConstructLocals>,
    /// `allocate` statements of one variable: position, name, bounds
    /// (`allocatable_results.rs`).
    allocations: RefCell<Vec<(Span, String, Vec<DimSpec>)>>,
    /// Names of the enclosing `associate` constructs while their bodies
    /// are read (a selector `a(2:5)` of one of them is a section).
    associate_names: RefCell<Vec<String>>,
    /// Namelist groups declared so far in the file: group → members
    /// (`namelist.rs`), for the I/O statements that name them.
    namelists: RefCell<HashMap<String, Vec<String>>>,
    /// Declared ranks of the names the unit being read sees
    /// (`allocate_source.rs`).
    declared_ranks: RefCell<HashMap<String, usize>>,
    /// `class(t)` declarations of the unit being read (`Unit::polymorphic`).
    polymorphic: RefCell<Vec<(String, Span)>>,
}

/// Statement kinds that belong to the specification part.
fn is_spec_kind(kind: &str) -> bool {
    matches!(
        kind,
        "use_statement"
            | "implicit_statement"
            | "variable_declaration"
            | "variable_modification"
            | "parameter_statement"
            | "common_statement"
            | "data_statement"
            | "save_statement"
            | "derived_type_definition"
            | "interface"
            | "private_statement"
            | "public_statement"
            | "format_statement"
            | "import_statement"
            | "equivalence_statement"
            | "namelist_statement"
            | "include_statement"
            | "enum"
            | "procedure_statement"
    )
}

impl<'a> FortranParser<'a> {
    fn text(&self, n: Node) -> &'a str {
        &self.src[n.byte_range()]
    }
    fn lower(&self, n: Node) -> String {
        self.text(n).to_ascii_lowercase()
    }
    fn span(&self, n: Node) -> Span {
        let p = n.start_position();
        Span {
            file: self.file,
            line: p.row + 1,
            column: p.column + 1,
        }
    }
    fn err<T>(&self, n: Node, msg: impl Into<String>) -> FrontResult<T> {
        Err(FrontError::new(self.span(n), msg))
    }

    fn err_unsupported<T>(&self, n: Node, msg: impl Into<String>) -> FrontResult<T> {
        Err(FrontError::unsupported(self.span(n), msg))
    }
    fn err_at_unsupported<T>(&self, span: Span, msg: impl Into<String>) -> FrontResult<T> {
        Err(FrontError::unsupported(span, msg))
    }

    fn unsupported<T>(&self, n: Node, what: &str) -> FrontResult<T> {
        self.err_unsupported(n, format!("unsupported construct: {what}"))
    }
}
