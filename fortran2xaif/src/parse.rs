//! Parsing: tree-sitter-fortran's concrete syntax tree → the typed AST.
//!
//! The grammar has a few quirks this module corrects: unary minus binds
//! tighter than `**` and `*`, `**` associates to the left, and `-x(1)` comes
//! out as a call of `-x`. Arithmetic is therefore flattened into operands
//! and operators and re-parsed with Fortran's precedence. Labelled `do`
//! loops come out flat and are nested here.

use crate::ast::*;
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
    let p = P { src: text, file };
    let root = tree.root_node();
    if let Some(bad) = first_error(root).map(blame) {
        let what = if bad.is_missing() {
            format!("syntax error: missing '{}'", bad.kind())
        } else {
            let snippet: String = p.text(bad).chars().take(40).collect();
            let snippet = snippet.lines().next().unwrap_or("").trim().to_string();
            format!("syntax error near '{snippet}'")
        };
        return Err(FrontError::new(p.span(bad), what));
    }
    let mut units = Vec::new();
    for child in named_children(root) {
        match child.kind() {
            "comment" => {}
            "module" | "subroutine" | "function" | "program" => units.push(p.unit(child)?),
            "block_data" => {
                return Err(FrontError::new(
                    p.span(child),
                    "unsupported construct: block data",
                ))
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

/// A flattened piece of an arithmetic expression.
enum Tok {
    Operand(Expr),
    Prefix(UnOp, Span),
    Op(BinOp, Span),
}

struct P<'a> {
    src: &'a str,
    file: usize,
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

impl<'a> P<'a> {
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
    fn err_at<T>(&self, span: Span, msg: impl Into<String>) -> FrontResult<T> {
        Err(FrontError::new(span, msg))
    }

    fn unsupported<T>(&self, n: Node, what: &str) -> FrontResult<T> {
        self.err(n, format!("unsupported construct: {what}"))
    }

    // ------------------------------------------------------------------
    // Program units
    // ------------------------------------------------------------------

    fn unit(&self, node: Node) -> FrontResult<Unit> {
        self.unit_in(node, &[])
    }

    /// A program unit inside `hosts` (the specification parts of the units
    /// around it, outermost first): what they declare is visible in it by
    /// host association.
    fn unit_in(&self, node: Node, hosts: &[&[SpecStmt]]) -> FrontResult<Unit> {
        let kind = match node.kind() {
            "module" => UnitKind::Module,
            "subroutine" => UnitKind::Subroutine,
            "function" => UnitKind::Function,
            "program" => UnitKind::Program,
            other => return self.unsupported(node, other),
        };
        let mut unit = Unit {
            kind,
            name: String::new(),
            params: Vec::new(),
            result: None,
            result_type: None,
            prefixes: Vec::new(),
            spec: Vec::new(),
            body: Vec::new(),
            contains: Vec::new(),
            span: self.span(node),
            end_line: node.end_position().row + 1,
        };
        let mut stmts: Vec<Node> = Vec::new();
        // Parsed once this unit's specification part is known: it decides
        // whether `a(i) = ...` opening their bodies is a statement function.
        let mut internal: Vec<Node> = Vec::new();
        for child in named_children(node) {
            match child.kind() {
                "module_statement" | "program_statement" => {
                    if let Some(n) = named_children(child)
                        .into_iter()
                        .find(|c| c.kind() == "name")
                    {
                        unit.name = self.lower(n);
                    }
                }
                "subroutine_statement" | "function_statement" => self.header(child, &mut unit)?,
                "end_module_statement"
                | "end_program_statement"
                | "end_subroutine_statement"
                | "end_function_statement" => {
                    unit.end_line = child.start_position().row + 1;
                }
                "internal_procedures" => {
                    for proc_ in named_children(child) {
                        match proc_.kind() {
                            "subroutine" | "function" => internal.push(proc_),
                            "contains_statement" | "comment" => {}
                            "module_procedure" => {
                                return self.unsupported(proc_, "separate module procedure")
                            }
                            other => return self.unsupported(proc_, other),
                        }
                    }
                }
                "comment" => {}
                _ => stmts.push(child),
            }
        }
        if unit.name.is_empty() {
            unit.name = "main".into();
        }
        if kind == UnitKind::Function && unit.result.is_none() {
            unit.result = Some(unit.name.clone());
        }
        // Split specification part and executable part.
        let mut i = 0;
        let mut pending_label: Option<Node> = None;
        while i < stmts.len() {
            let s = stmts[i];
            if s.kind() == "statement_label" {
                pending_label = Some(s);
                i += 1;
                continue;
            }
            if is_spec_kind(s.kind()) {
                if s.kind() == "format_statement" {
                    let text = match pending_label {
                        Some(l) => format!("{} {}", self.text(l), self.text(s)),
                        None => self.text(s).to_string(),
                    };
                    unit.spec.push(SpecStmt::Verbatim(text, self.span(s)));
                } else {
                    self.spec_stmt(s, &mut unit.spec)?;
                }
                pending_label = None;
                i += 1;
                continue;
            }
            if s.kind() == "assignment_statement" && self.is_stmt_function(s, &unit.spec, hosts) {
                unit.spec.push(self.stmt_function(s)?);
                i += 1;
                continue;
            }
            break;
        }
        let start = if pending_label.is_some() { i - 1 } else { i };
        let mut idx = start;
        let (body, _) = self.block(&stmts, &mut idx, None)?;
        if idx < stmts.len() {
            return self.err(stmts[idx], "unexpected statement");
        }
        unit.body = body;
        let mut scopes: Vec<&[SpecStmt]> = hosts.to_vec();
        scopes.push(&unit.spec);
        let contains = internal
            .into_iter()
            .map(|p| self.unit_in(p, &scopes))
            .collect::<FrontResult<Vec<_>>>()?;
        unit.contains = contains;
        Ok(unit)
    }

    fn header(&self, node: Node, unit: &mut Unit) -> FrontResult<()> {
        for c in named_children(node) {
            match c.kind() {
                "name" => unit.name = self.lower(c),
                "parameters" => {
                    for p in named_children(c) {
                        match p.kind() {
                            "identifier" => unit.params.push(self.lower(p)),
                            "comment" => {}
                            _ => {
                                return self
                                    .unsupported(p, "alternate return or unusual dummy argument")
                            }
                        }
                    }
                }
                "function_result" => {
                    if let Some(id) = named_children(c)
                        .into_iter()
                        .find(|x| x.kind() == "identifier")
                    {
                        unit.result = Some(self.lower(id));
                    }
                }
                "intrinsic_type" | "derived_type" => unit.result_type = Some(self.type_spec(c)?),
                "procedure_qualifier" => unit.prefixes.push(self.lower(c)),
                "language_binding" => return self.unsupported(c, "bind(c)"),
                "comment" => {}
                _ => {}
            }
        }
        Ok(())
    }

    /// Whether `s`, an assignment at the start of a unit's statements, is
    /// a statement function definition: `f(x, y) = ...` with dummy names
    /// only, `f` not an array declared in the unit or in a host (host
    /// association: a module procedure or internal procedure assigning an
    /// element of its host's array), nor possibly use-associated in either.
    fn is_stmt_function(&self, s: Node, spec: &[SpecStmt], hosts: &[&[SpecStmt]]) -> bool {
        let Some(lhs) = s.child_by_field_name("left") else {
            return false;
        };
        if lhs.kind() != "call_expression" {
            return false;
        }
        let Some(name_node) = lhs.named_child(0) else {
            return false;
        };
        if name_node.kind() != "identifier" {
            return false;
        }
        let name = self.lower(name_node);
        // A statement function's dummies are names: `g(1) = ...` can only
        // be an element assignment (to an array declared elsewhere, e.g.
        // in a used module).
        let all_names = named_children(lhs)
            .into_iter()
            .filter(|c| c.kind() == "argument_list")
            .flat_map(named_children)
            .all(|a| a.kind() == "identifier");
        if !all_names {
            return false;
        }
        // A use-associated name cannot be a statement function; a `use`
        // without an `only` list may bring in any array, and arrays from
        // modules are far more common than statement functions beside them.
        let scopes = || hosts.iter().copied().chain(std::iter::once(spec)).flatten();
        let may_be_use_associated = scopes().any(|st| match st {
            SpecStmt::Use { only, items, .. } => {
                !*only || items.iter().any(|(local, _)| *local == name)
            }
            _ => false,
        });
        if may_be_use_associated {
            return false;
        }
        // An element assignment needs the array declared before it, here
        // or in a host.
        !scopes().any(|st| match st {
            SpecStmt::TypeDecl {
                attrs, entities, ..
            } => entities.iter().any(|e| {
                e.name == name
                    && (e.dims.is_some() || attrs.iter().any(|a| matches!(a, Attr::Dimension(_))))
            }),
            SpecStmt::AttrStmt { attr, entities, .. } => entities.iter().any(|e| {
                e.name == name && (e.dims.is_some() || matches!(attr, Attr::Dimension(_)))
            }),
            SpecStmt::Common(blocks, _) => blocks
                .iter()
                .any(|(_, es)| es.iter().any(|e| e.name == name && e.dims.is_some())),
            _ => false,
        })
    }

    fn stmt_function(&self, s: Node) -> FrontResult<SpecStmt> {
        let lhs = s.child_by_field_name("left").expect("checked");
        let rhs = s
            .child_by_field_name("right")
            .ok_or_else(|| FrontError::new(self.span(s), "statement function without a body"))?;
        let name = self.lower(lhs.named_child(0).expect("checked"));
        let mut params = Vec::new();
        if let Some(args) = named_children(lhs)
            .into_iter()
            .find(|c| c.kind() == "argument_list")
        {
            for a in named_children(args) {
                if a.kind() != "identifier" {
                    return self.err(a, "statement function dummy arguments must be names");
                }
                params.push(self.lower(a));
            }
        }
        Ok(SpecStmt::StmtFunction {
            name,
            params,
            body: self.expr(rhs)?,
            span: self.span(s),
        })
    }

    // ------------------------------------------------------------------
    // Specification part
    // ------------------------------------------------------------------

    fn spec_stmt(&self, s: Node, out: &mut Vec<SpecStmt>) -> FrontResult<()> {
        let span = self.span(s);
        match s.kind() {
            "use_statement" => {
                let mut module = String::new();
                let mut only = false;
                let mut items = Vec::new();
                for c in named_children(s) {
                    match c.kind() {
                        "module_name" => module = self.lower(c),
                        "included_items" => {
                            only = all_children(c).iter().any(|x| x.kind() == "only");
                            for it in named_children(c) {
                                match it.kind() {
                                    "identifier" => items.push((self.lower(it), self.lower(it))),
                                    "use_alias" => {
                                        let kids = named_children(it);
                                        let local = kids.iter().find(|k| k.kind() == "local_name");
                                        let remote =
                                            kids.iter().rev().find(|k| k.kind() == "identifier");
                                        match (local, remote) {
                                            (Some(l), Some(r)) => {
                                                items.push((self.lower(*l), self.lower(*r)))
                                            }
                                            _ => return self.unsupported(it, "use rename form"),
                                        }
                                    }
                                    "only" => {}
                                    _ => {
                                        return self.unsupported(
                                            it,
                                            "operator or assignment in a use list",
                                        )
                                    }
                                }
                            }
                        }
                        "comment" => {}
                        _ => {}
                    }
                }
                if all_children(s).iter().any(|c| c.kind() == "intrinsic") {
                    return self.unsupported(s, "use, intrinsic");
                }
                out.push(SpecStmt::Use {
                    module,
                    only,
                    items,
                    span,
                });
            }
            "implicit_statement" => {
                if all_children(s).iter().any(|c| c.kind() == "none") {
                    out.push(SpecStmt::ImplicitNone(span));
                } else {
                    let mut rules: Vec<ImplicitRule> = Vec::new();
                    for c in named_children(s) {
                        match c.kind() {
                            "intrinsic_type" | "derived_type" => rules.push(ImplicitRule {
                                ty: self.type_spec(c)?,
                                ranges: Vec::new(),
                            }),
                            "implicit_range" => {
                                let t: Vec<char> = self
                                    .lower(c)
                                    .chars()
                                    .filter(|ch| !ch.is_whitespace())
                                    .collect();
                                let range = match t.as_slice() {
                                    [a] => (*a, *a),
                                    [a, '-', b] => (*a, *b),
                                    _ => return self.err(c, "malformed implicit letter range"),
                                };
                                match rules.last_mut() {
                                    Some(r) => r.ranges.push(range),
                                    None => return self.err(c, "implicit range without a type"),
                                }
                            }
                            _ => {}
                        }
                    }
                    out.push(SpecStmt::Implicit(rules, span));
                }
            }
            "variable_declaration" => {
                let mut ty = None;
                let mut attrs = Vec::new();
                let mut entities = Vec::new();
                for c in named_children(s) {
                    match c.kind() {
                        "intrinsic_type" | "derived_type" => ty = Some(self.type_spec(c)?),
                        "type_qualifier" => attrs.push(self.attr(c)?),
                        "identifier"
                        | "sized_declarator"
                        | "init_declarator"
                        | "pointer_init_declarator" => entities.push(self.entity(c)?),
                        "comment" => {}
                        "procedure_kind" | "procedure_interface" => {
                            return self.unsupported(c, "procedure pointer")
                        }
                        other => return self.unsupported(c, &format!("{other} in a declaration")),
                    }
                }
                let ty = match ty {
                    Some(t) => t,
                    None => return self.err(s, "declaration without a type"),
                };
                out.push(SpecStmt::TypeDecl {
                    ty,
                    attrs,
                    entities,
                    span,
                });
            }
            "variable_modification" => {
                let mut attr = None;
                let mut entities = Vec::new();
                for c in named_children(s) {
                    match c.kind() {
                        "type_qualifier" => attr = Some(self.attr(c)?),
                        "identifier" | "sized_declarator" => entities.push(self.entity(c)?),
                        "comment" => {}
                        other => {
                            return self
                                .unsupported(c, &format!("{other} in an attribute statement"))
                        }
                    }
                }
                let attr = attr.ok_or_else(|| {
                    FrontError::new(span, "attribute statement without an attribute")
                })?;
                out.push(SpecStmt::AttrStmt {
                    attr,
                    entities,
                    span,
                });
            }
            "parameter_statement" => {
                let mut list = Vec::new();
                for c in named_children(s) {
                    if c.kind() == "parameter_assignment" {
                        let kids = named_children(c);
                        if kids.len() != 2 {
                            return self.err(c, "malformed parameter assignment");
                        }
                        list.push((self.lower(kids[0]), self.expr(kids[1])?));
                    }
                }
                out.push(SpecStmt::Parameter(list, span));
            }
            "common_statement" => {
                let mut blocks: Vec<(String, Vec<EntityDecl>)> = Vec::new();
                let mut current: Option<(String, Vec<EntityDecl>)> = None;
                for c in named_children(s) {
                    match c.kind() {
                        "variable_group" => {
                            if let Some(b) = current.take() {
                                blocks.push(b);
                            }
                            let mut name = String::new();
                            let mut ents = Vec::new();
                            for g in named_children(c) {
                                match g.kind() {
                                    "name" => name = self.lower(g),
                                    "identifier" | "sized_declarator" => ents.push(self.entity(g)?),
                                    _ => {}
                                }
                            }
                            blocks.push((name, ents));
                        }
                        "identifier" | "sized_declarator" => {
                            let e = self.entity(c)?;
                            match current.as_mut() {
                                Some((_, es)) => es.push(e),
                                None => current = Some((String::new(), vec![e])),
                            }
                        }
                        _ => {}
                    }
                }
                if let Some(b) = current.take() {
                    blocks.push(b);
                }
                out.push(SpecStmt::Common(blocks, span));
            }
            "data_statement" => {
                let mut sets = Vec::new();
                for ds in named_children(s) {
                    if ds.kind() != "data_set" {
                        continue;
                    }
                    let mut names = Vec::new();
                    let mut values = Vec::new();
                    for c in named_children(ds) {
                        match c.kind() {
                            "data_value" => {
                                let kids = all_children(c);
                                let mut k = 0;
                                while k < kids.len() {
                                    let n = kids[k];
                                    if !n.is_named() {
                                        k += 1;
                                        continue;
                                    }
                                    // `3 * 0.0` is a repeat count.
                                    if k + 2 < kids.len() && kids[k + 1].kind() == "*" {
                                        let count: usize =
                                            self.text(n).trim().parse().map_err(|_| {
                                                FrontError::new(
                                                    self.span(n),
                                                    "data repeat count must be an integer literal",
                                                )
                                            })?;
                                        values.push((count, self.expr(kids[k + 2])?));
                                        k += 3;
                                    } else {
                                        values.push((1, self.data_value(n)?));
                                        k += 1;
                                    }
                                }
                            }
                            "implied_do_loop_expression" => {
                                return self.unsupported(c, "implied do loop in a data statement")
                            }
                            _ => names.push(self.expr(c)?),
                        }
                    }
                    sets.push(DataSet { names, values });
                }
                out.push(SpecStmt::Data(sets, span));
            }
            "save_statement" => {
                let ents: Vec<Node> = named_children(s)
                    .into_iter()
                    .filter(|c| c.kind() == "identifier")
                    .collect();
                if ents.is_empty() {
                    out.push(SpecStmt::SaveAll(span));
                } else {
                    let entities = ents
                        .iter()
                        .map(|e| self.entity(*e))
                        .collect::<FrontResult<_>>()?;
                    out.push(SpecStmt::AttrStmt {
                        attr: Attr::Save,
                        entities,
                        span,
                    });
                }
                if named_children(s).iter().any(|c| c.kind() == "name") {
                    return self.unsupported(s, "save of a common block");
                }
            }
            "private_statement" | "public_statement" => {
                let public = s.kind() == "public_statement";
                let ents: Vec<Node> = named_children(s)
                    .into_iter()
                    .filter(|c| c.kind() == "identifier")
                    .collect();
                if ents.is_empty() {
                    out.push(SpecStmt::DefaultAccess(public, span));
                } else {
                    let entities = ents
                        .iter()
                        .map(|e| self.entity(*e))
                        .collect::<FrontResult<_>>()?;
                    let attr = if public { Attr::Public } else { Attr::Private };
                    out.push(SpecStmt::AttrStmt {
                        attr,
                        entities,
                        span,
                    });
                }
            }
            "derived_type_definition" => {
                let mut name = String::new();
                let mut components = Vec::new();
                for c in named_children(s) {
                    if c.kind() == "variable_declaration" {
                        self.spec_stmt(c, &mut components)?;
                    }
                    if c.kind() == "derived_type_statement" {
                        if let Some(n) = named_children(c)
                            .into_iter()
                            .rev()
                            .find(|x| x.kind() == "type_name")
                        {
                            name = self.lower(n);
                        }
                    }
                }
                out.push(SpecStmt::DerivedType {
                    name,
                    text: self.text(s).to_string(),
                    components,
                    span,
                });
            }
            "interface" => {
                let mut generic = None;
                let mut bodies = Vec::new();
                for c in named_children(s) {
                    match c.kind() {
                        "interface_statement" => {
                            if let Some(n) =
                                named_children(c).into_iter().find(|x| x.kind() == "name")
                            {
                                generic = Some(self.lower(n));
                            }
                            if named_children(c)
                                .iter()
                                .any(|x| x.kind() == "abstract_specifier")
                            {
                                return self.unsupported(c, "abstract interface");
                            }
                        }
                        "subroutine" | "function" => bodies.push(self.unit(c)?),
                        "end_interface_statement" | "comment" => {}
                        "module_procedure_statement" | "procedure_statement" => {
                            return self.unsupported(c, "generic interface with module procedures")
                        }
                        other => {
                            return self.unsupported(c, &format!("{other} in an interface block"))
                        }
                    }
                }
                out.push(SpecStmt::Interface {
                    generic,
                    bodies,
                    text: self.text(s).to_string(),
                    span,
                });
            }
            "format_statement" => out.push(SpecStmt::Verbatim(self.text(s).to_string(), span)),
            "equivalence_statement" => return self.unsupported(s, "equivalence"),
            "namelist_statement" => return self.unsupported(s, "namelist"),
            "include_statement" => return self.unsupported(s, "include not expanded"),
            other => return self.unsupported(s, other),
        }
        Ok(())
    }

    fn data_value(&self, n: Node) -> FrontResult<Expr> {
        self.expr(n)
    }

    fn type_spec(&self, node: Node) -> FrontResult<TypeSpec> {
        if node.kind() == "derived_type" {
            let name = named_children(node)
                .into_iter()
                .find(|c| c.kind() == "type_name")
                .map(|c| self.lower(c))
                .unwrap_or_default();
            if all_children(node).iter().any(|c| c.kind() == "class")
                || self.lower(node).starts_with("class")
            {
                return self.unsupported(node, "class (polymorphic) declaration");
            }
            return Ok(TypeSpec::new(BaseType::Derived(name)));
        }
        let kids = all_children(node);
        let first = kids
            .first()
            .map(|k| k.kind().to_ascii_lowercase())
            .unwrap_or_default();
        let base = match first.as_str() {
            "integer" => BaseType::Integer,
            "real" => BaseType::Real,
            "doubleprecision" => BaseType::DoublePrecision,
            "complex" => BaseType::Complex,
            "doublecomplex" => BaseType::DoubleComplex,
            "logical" => BaseType::Logical,
            "character" => BaseType::Character,
            _ => return self.unsupported(node, &format!("type '{}'", self.text(node))),
        };
        let mut ts = TypeSpec::new(base);
        if let Some(k) = kids.iter().find(|c| c.kind() == "kind") {
            let kk = all_children(*k);
            let star = kk.iter().any(|c| c.kind() == "*");
            for item in named_children(*k) {
                let (key, val) = if item.kind() == "keyword_argument" {
                    let key = item
                        .child_by_field_name("name")
                        .map(|n| self.lower(n))
                        .unwrap_or_default();
                    let val = item.child_by_field_name("value").ok_or_else(|| {
                        FrontError::new(self.span(item), "kind or length without a value")
                    })?;
                    (key, val)
                } else {
                    (String::new(), item)
                };
                let is_len = key == "len"
                    || (key.is_empty()
                        && ts.base == BaseType::Character
                        && (star || ts.len.is_none()));
                if is_len {
                    if val.kind() == "assumed_size" || self.text(val).trim() == "*" {
                        ts.len_star = true;
                    } else if self.text(val).trim() == ":" {
                        return self.unsupported(val, "deferred-length character");
                    } else {
                        ts.len = Some(self.expr(val)?);
                    }
                } else {
                    ts.kind = Some(self.expr(val)?);
                }
            }
            // `real*8` is kind 8; `complex*16` is kind 8; `character*10` a length.
            if star && ts.base == BaseType::Complex {
                if let Some(Expr::Lit(Literal::Int(t), sp)) = &ts.kind {
                    let v: i64 = t.parse().unwrap_or(8);
                    ts.kind = Some(Expr::int(v / 2, *sp));
                }
            }
            if star && ts.base == BaseType::Character && ts.len.is_none() && !ts.len_star {
                let t = self
                    .text(*k)
                    .trim_start_matches('*')
                    .trim()
                    .trim_matches(|c| c == '(' || c == ')');
                if t == "*" {
                    ts.len_star = true;
                }
            }
        }
        Ok(ts)
    }

    fn attr(&self, q: Node) -> FrontResult<Attr> {
        let kids = all_children(q);
        let first = kids
            .first()
            .map(|k| k.kind().to_ascii_lowercase())
            .unwrap_or_default();
        Ok(match first.as_str() {
            "parameter" => Attr::Parameter,
            "optional" => Attr::Optional,
            "allocatable" => Attr::Allocatable,
            "pointer" => Attr::Pointer,
            "target" => Attr::Target,
            "save" => Attr::Save,
            "external" => Attr::External,
            "intrinsic" => Attr::Intrinsic,
            "public" => Attr::Public,
            "private" => Attr::Private,
            "intent" => {
                let t = self.lower(q).replace(' ', "");
                if t.contains("inout") {
                    Attr::Intent(Intent::InOut)
                } else if t.contains("(in)") {
                    Attr::Intent(Intent::In)
                } else if t.contains("(out)") {
                    Attr::Intent(Intent::Out)
                } else {
                    return self.err(q, "malformed intent");
                }
            }
            "dimension" => {
                // `dimension x(3)` statements carry the bounds on the entity.
                match named_children(q)
                    .into_iter()
                    .find(|c| c.kind() == "argument_list" || c.kind() == "size")
                {
                    Some(list) => Attr::Dimension(self.dims(list)?),
                    None => Attr::Dimension(Vec::new()),
                }
            }
            "value" => return self.unsupported(q, "value attribute"),
            "volatile" | "asynchronous" | "contiguous" | "protected" => {
                return self.unsupported(q, &format!("{first} attribute"))
            }
            _ => return self.unsupported(q, &format!("attribute '{}'", self.text(q))),
        })
    }

    fn dims(&self, list: Node) -> FrontResult<Vec<DimSpec>> {
        let mut dims = Vec::new();
        for d in named_children(list) {
            match d.kind() {
                "comment" => {}
                "assumed_size" => {
                    let lo = named_children(d)
                        .into_iter()
                        .next()
                        .map(|n| self.expr(n))
                        .transpose()?;
                    dims.push(DimSpec::AssumedSize { lo });
                }
                "extent_specifier" => {
                    let kids = all_children(d);
                    let colon = kids.iter().position(|c| c.kind() == ":");
                    let Some(colon) = colon else {
                        dims.push(DimSpec::Explicit {
                            lo: None,
                            hi: self.expr(d)?,
                        });
                        continue;
                    };
                    let before: Vec<Node> = kids[..colon]
                        .iter()
                        .copied()
                        .filter(|c| c.is_named())
                        .collect();
                    let after: Vec<Node> = kids[colon + 1..]
                        .iter()
                        .copied()
                        .filter(|c| c.is_named())
                        .collect();
                    let lo = before.first().map(|n| self.expr(*n)).transpose()?;
                    match after.first() {
                        None => dims.push(DimSpec::Colon { lo }),
                        Some(h) if h.kind() == "assumed_size" || self.text(*h).trim() == "*" => {
                            dims.push(DimSpec::AssumedSize { lo })
                        }
                        Some(h) => dims.push(DimSpec::Explicit {
                            lo,
                            hi: self.expr(*h)?,
                        }),
                    }
                }
                "assumed_shape" => dims.push(DimSpec::Colon { lo: None }),
                "assumed_rank" => return self.unsupported(d, "assumed-rank array"),
                _ => {
                    if self.text(d).trim() == "*" {
                        dims.push(DimSpec::AssumedSize { lo: None });
                    } else {
                        dims.push(DimSpec::Explicit {
                            lo: None,
                            hi: self.expr(d)?,
                        });
                    }
                }
            }
        }
        if dims.len() > 7 {
            return self.err(list, "arrays of rank above 7 are not supported");
        }
        Ok(dims)
    }

    fn entity(&self, node: Node) -> FrontResult<EntityDecl> {
        let span = self.span(node);
        match node.kind() {
            "identifier" => Ok(EntityDecl {
                name: self.lower(node),
                dims: None,
                char_len: None,
                init: None,
                span,
            }),
            "sized_declarator" => {
                let mut e = EntityDecl {
                    name: String::new(),
                    dims: None,
                    char_len: None,
                    init: None,
                    span,
                };
                for c in named_children(node) {
                    match c.kind() {
                        "identifier" => e.name = self.lower(c),
                        "size" => e.dims = Some(self.dims(c)?),
                        "character_length" => {
                            let t = self.text(c).trim_start_matches('*').trim();
                            let t = t.trim_start_matches('(').trim_end_matches(')').trim();
                            if t == "*" {
                                return self
                                    .unsupported(c, "assumed character length on an entity");
                            }
                            e.char_len = Some(match t.parse::<i64>() {
                                Ok(v) => Expr::int(v, self.span(c)),
                                Err(_) => Expr::Name(t.to_ascii_lowercase(), self.span(c)),
                            });
                        }
                        _ => {}
                    }
                }
                Ok(e)
            }
            "init_declarator" | "pointer_init_declarator" => {
                let left = node
                    .child_by_field_name("left")
                    .or_else(|| node.named_child(0))
                    .ok_or_else(|| FrontError::new(span, "malformed initialisation"))?;
                let right = node
                    .child_by_field_name("right")
                    .or_else(|| node.named_child(1))
                    .ok_or_else(|| FrontError::new(span, "malformed initialisation"))?;
                if node.kind() == "pointer_init_declarator" {
                    return self.unsupported(node, "pointer initialisation");
                }
                let mut e = self.entity(left)?;
                e.init = Some(self.expr(right)?);
                Ok(e)
            }
            other => self.unsupported(node, &format!("declarator {other}")),
        }
    }

    // ------------------------------------------------------------------
    // Executable part
    // ------------------------------------------------------------------

    /// Reads statements until the end of the list, or (for a labelled `do`)
    /// until the statement carrying `end_label`. Returns the statements
    /// and the label of the statement that ended the block, if any.
    fn block(
        &self,
        nodes: &[Node],
        idx: &mut usize,
        end_label: Option<&str>,
    ) -> FrontResult<(Vec<Stmt>, Option<String>)> {
        let mut out = Vec::new();
        let mut label: Option<String> = None;
        while *idx < nodes.len() {
            let n = nodes[*idx];
            *idx += 1;
            match n.kind() {
                "comment" => continue,
                "statement_label" => {
                    label = Some(self.text(n).trim().trim_start_matches('0').to_string());
                    continue;
                }
                _ => {}
            }
            if is_spec_kind(n.kind()) {
                if n.kind() == "format_statement" {
                    // Formats may sit among executable statements.
                    let text = match label.take() {
                        Some(l) => format!("{l} {}", self.text(n)),
                        None => self.text(n).to_string(),
                    };
                    out.push(Stmt {
                        id: 0,
                        label: None,
                        span: self.span(n),
                        kind: StmtKind::Opaque {
                            kind: OpaqueKind::Io,
                            text,
                            reads: vec![],
                            writes: vec![],
                        },
                    });
                    continue;
                }
                if n.kind() == "data_statement" {
                    return self.unsupported(n, "data statement among executable statements");
                }
                return self.err(
                    n,
                    format!(
                        "specification statement ({}) after executable statements",
                        n.kind()
                    ),
                );
            }
            let this_label = label.take();
            if n.kind() == "do_label_statement" {
                let target = named_children(n)
                    .into_iter()
                    .find(|c| c.kind() == "statement_label_reference")
                    .map(|c| self.text(c).trim().trim_start_matches('0').to_string())
                    .ok_or_else(|| FrontError::new(self.span(n), "labelled do without a label"))?;
                let control = match named_children(n)
                    .into_iter()
                    .find(|c| c.kind() == "loop_control_expression")
                {
                    Some(c) => Some(self.do_control(c)?),
                    None => None,
                };
                let start = *idx;
                let (body, ended) = self.block(nodes, idx, Some(&target))?;
                if ended.as_deref() != Some(target.as_str()) {
                    return self.err(
                        nodes[start.saturating_sub(1)],
                        format!("labelled do loop: no statement labelled {target} ends it"),
                    );
                }
                let mut cond_while = None;
                if let Some(w) = named_children(n)
                    .into_iter()
                    .find(|c| c.kind() == "while_statement")
                {
                    cond_while = Some(self.while_cond(w)?);
                }
                let kind = match cond_while {
                    Some(cond) => StmtKind::DoWhile {
                        construct: None,
                        cond,
                        body,
                    },
                    None => StmtKind::Do {
                        construct: None,
                        control,
                        body,
                    },
                };
                out.push(Stmt {
                    id: 0,
                    label: this_label,
                    span: self.span(n),
                    kind,
                });
                if let Some(end) = end_label {
                    if end == target {
                        return Ok((out, Some(target)));
                    }
                }
                continue;
            }
            let stmt = self.stmt(n, this_label.clone())?;
            out.extend(stmt);
            if let (Some(end), Some(l)) = (end_label, this_label.as_deref()) {
                if end == l {
                    return Ok((out, Some(l.to_string())));
                }
            }
        }
        Ok((out, None))
    }

    /// Statements nested in a construct (no labelled do nesting across).
    fn nested(&self, nodes: &[Node]) -> FrontResult<Vec<Stmt>> {
        let mut idx = 0;
        let (body, _) = self.block(nodes, &mut idx, None)?;
        Ok(body)
    }

    fn stmt(&self, n: Node, label: Option<String>) -> FrontResult<Vec<Stmt>> {
        let span = self.span(n);
        let mk = |kind| Stmt {
            id: 0,
            label: label.clone(),
            span,
            kind,
        };
        let kind = match n.kind() {
            "assignment_statement" => {
                let lhs = n
                    .child_by_field_name("left")
                    .ok_or_else(|| FrontError::new(span, "assignment without a left side"))?;
                let rhs = n
                    .child_by_field_name("right")
                    .ok_or_else(|| FrontError::new(span, "assignment without a right side"))?;
                StmtKind::Assign {
                    lhs: self.expr(lhs)?,
                    rhs: self.expr(rhs)?,
                }
            }
            "subroutine_call" => {
                let mut name = String::new();
                let mut args = Vec::new();
                for c in named_children(n) {
                    match c.kind() {
                        "identifier" => name = self.lower(c),
                        "argument_list" => args = self.args(c)?,
                        "derived_type_member_expression" => {
                            return self.unsupported(c, "type-bound procedure call")
                        }
                        _ => {}
                    }
                }
                StmtKind::Call { name, args }
            }
            "if_statement" => return self.if_stmt(n, label),
            "arithmetic_if_statement" => {
                let kids = named_children(n);
                let e = self.expr(kids[0])?;
                let labels: Vec<String> = kids[1..]
                    .iter()
                    .filter(|c| c.kind() == "statement_label_reference")
                    .map(|c| self.text(*c).trim().trim_start_matches('0').to_string())
                    .collect();
                if labels.len() != 3 {
                    return self.err(n, "arithmetic if needs three labels");
                }
                let zero = Expr::int(0, span);
                let goto = |l: &String| {
                    vec![Stmt {
                        id: 0,
                        label: None,
                        span,
                        kind: StmtKind::Goto(l.clone()),
                    }]
                };
                StmtKind::If {
                    arms: vec![
                        (
                            Expr::Binary(
                                BinOp::Lt,
                                Box::new(e.clone()),
                                Box::new(zero.clone()),
                                span,
                            ),
                            goto(&labels[0]),
                        ),
                        (
                            Expr::Binary(BinOp::Eq, Box::new(e), Box::new(zero), span),
                            goto(&labels[1]),
                        ),
                    ],
                    otherwise: Some(goto(&labels[2])),
                }
            }
            "do_loop_statement" => {
                let mut construct = None;
                let mut control = None;
                let mut cond = None;
                let mut body_nodes = Vec::new();
                for c in named_children(n) {
                    match c.kind() {
                        "block_label_start_expression" => {
                            construct =
                                Some(self.lower(c).trim_end_matches(':').trim().to_string());
                        }
                        "loop_control_expression" => control = Some(self.do_control(c)?),
                        "while_statement" => cond = Some(self.while_cond(c)?),
                        "end_do_loop_statement" => {}
                        "concurrent_statement" => return self.unsupported(c, "do concurrent"),
                        _ => body_nodes.push(c),
                    }
                }
                let body = self.nested(&body_nodes)?;
                match cond {
                    Some(cond) => StmtKind::DoWhile {
                        construct,
                        cond,
                        body,
                    },
                    None => StmtKind::Do {
                        construct,
                        control,
                        body,
                    },
                }
            }
            "select_case_statement" => {
                let mut selector = None;
                let mut cases = Vec::new();
                for c in named_children(n) {
                    match c.kind() {
                        "selector" => {
                            let e = named_children(c)
                                .into_iter()
                                .find(|x| x.kind() != "comment")
                                .ok_or_else(|| {
                                    FrontError::new(self.span(c), "select case without a selector")
                                })?;
                            selector = Some(self.expr(e)?);
                        }
                        "case_statement" => {
                            let mut values = None;
                            let mut body_nodes = Vec::new();
                            let is_default = all_children(c).iter().any(|x| x.kind() == "default");
                            for k in named_children(c) {
                                match k.kind() {
                                    "case_value_range_list" => {
                                        let mut vs = Vec::new();
                                        for v in named_children(k) {
                                            if v.kind() == "extent_specifier" {
                                                vs.push(self.range(v)?);
                                            } else {
                                                vs.push(self.expr(v)?);
                                            }
                                        }
                                        values = Some(vs);
                                    }
                                    "default" => {}
                                    _ => body_nodes.push(k),
                                }
                            }
                            if is_default {
                                values = None;
                            }
                            cases.push(CaseBlock {
                                values,
                                body: self.nested(&body_nodes)?,
                            });
                        }
                        "end_select_statement" | "comment" => {}
                        "block_label_start_expression" => {
                            return self.unsupported(c, "named select case")
                        }
                        other => return self.unsupported(c, &format!("{other} in select case")),
                    }
                }
                StmtKind::Select {
                    selector: selector
                        .ok_or_else(|| FrontError::new(span, "select case without a selector"))?,
                    cases,
                }
            }
            "keyword_statement" => {
                let kids = all_children(n);
                let word = kids
                    .first()
                    .map(|k| k.kind().to_ascii_lowercase())
                    .unwrap_or_default();
                let name = named_children(n)
                    .into_iter()
                    .find(|c| c.kind() == "identifier")
                    .map(|c| self.lower(c));
                match word.as_str() {
                    "exit" => StmtKind::Exit(name),
                    "cycle" => StmtKind::Cycle(name),
                    "continue" => StmtKind::Continue,
                    "return" => {
                        if named_children(n).iter().any(|c| c.kind() != "comment") {
                            return self.unsupported(n, "alternate return");
                        }
                        StmtKind::Return
                    }
                    "goto" => {
                        let target = named_children(n)
                            .into_iter()
                            .find(|c| c.kind() == "statement_label_reference")
                            .ok_or_else(|| FrontError::new(span, "computed or assigned goto"))
                            .or_else(|_| self.unsupported(n, "computed goto"))?;
                        StmtKind::Goto(self.text(target).trim().trim_start_matches('0').to_string())
                    }
                    _ => {
                        return self.unsupported(n, &format!("statement '{}'", self.text(n).trim()))
                    }
                }
            }
            "print_statement"
            | "write_statement"
            | "read_statement"
            | "open_statement"
            | "close_statement"
            | "inquire_statement"
            | "file_position_statement" => {
                let (reads, writes) = self.io_items(n)?;
                StmtKind::Opaque {
                    kind: OpaqueKind::Io,
                    text: self.text(n).to_string(),
                    reads,
                    writes,
                }
            }
            "allocate_statement" => {
                let mut writes = Vec::new();
                for c in named_children(n) {
                    if c.kind() == "sized_allocation" || c.kind() == "identifier" {
                        if let Some(id) = named_children(c)
                            .into_iter()
                            .find(|x| x.kind() == "identifier")
                            .or(Some(c))
                        {
                            writes.push(Expr::Name(self.lower(id), self.span(id)));
                        }
                    }
                }
                StmtKind::Opaque {
                    kind: OpaqueKind::Allocate,
                    text: self.text(n).to_string(),
                    reads: vec![],
                    writes,
                }
            }
            "stop_statement" => StmtKind::Opaque {
                kind: OpaqueKind::Stop,
                text: self.text(n).to_string(),
                reads: vec![],
                writes: vec![],
            },
            "pointer_association_statement" => {
                // Pointer and target, when they are plain references.
                let kids: Vec<Node> = named_children(n)
                    .into_iter()
                    .filter(|c| c.kind() != "comment")
                    .collect();
                let side = |k: Option<&Node>| -> Vec<Expr> {
                    match k.map(|x| self.expr(*x)) {
                        Some(Ok(e @ (Expr::Name(..) | Expr::Apply { .. }))) => vec![e],
                        _ => vec![],
                    }
                };
                StmtKind::Opaque {
                    kind: OpaqueKind::PointerAssign,
                    text: self.text(n).to_string(),
                    reads: side(kids.get(1)),
                    writes: side(kids.first()),
                }
            }
            "call_expression" => {
                // `deallocate(p)` / `nullify(p)` come out as bare calls.
                let head = n.named_child(0).map(|h| self.lower(h)).unwrap_or_default();
                if head == "deallocate" || head == "nullify" {
                    let mut writes = Vec::new();
                    if let Some(al) = named_children(n)
                        .into_iter()
                        .find(|c| c.kind() == "argument_list")
                    {
                        for a in named_children(al) {
                            if a.kind() == "identifier" {
                                writes.push(Expr::Name(self.lower(a), self.span(a)));
                            }
                        }
                    }
                    StmtKind::Opaque {
                        kind: OpaqueKind::Allocate,
                        text: self.text(n).to_string(),
                        reads: vec![],
                        writes,
                    }
                } else {
                    return self.unsupported(n, &format!("statement '{}'", self.text(n).trim()));
                }
            }
            "where_statement" => {
                let mut arms: Vec<(Option<Expr>, Vec<Stmt>)> = Vec::new();
                let mut mask = None;
                let mut body_nodes = Vec::new();
                for c in named_children(n) {
                    match c.kind() {
                        "parenthesized_expression"
                            if mask.is_none() && arms.is_empty() && body_nodes.is_empty() =>
                        {
                            mask = Some(self.paren_inner(c)?)
                        }
                        "elsewhere_clause" => {
                            if arms.is_empty() {
                                arms.push((mask.take(), self.nested(&body_nodes)?));
                                body_nodes.clear();
                            }
                            let mut m = None;
                            let mut nodes = Vec::new();
                            for k in named_children(c) {
                                match k.kind() {
                                    "parenthesized_expression"
                                        if m.is_none() && nodes.is_empty() =>
                                    {
                                        m = Some(self.paren_inner(k)?)
                                    }
                                    _ => nodes.push(k),
                                }
                            }
                            arms.push((m, self.nested(&nodes)?));
                        }
                        "end_where_statement" | "comment" => {}
                        _ => body_nodes.push(c),
                    }
                }
                if arms.is_empty() {
                    arms.push((mask.take(), self.nested(&body_nodes)?));
                }
                for (_, body) in &arms {
                    if let Some(bad) = body
                        .iter()
                        .find(|s| !matches!(s.kind, StmtKind::Assign { .. }))
                    {
                        return self.err_at(
                            bad.span,
                            "unsupported construct: statement other than an assignment in where",
                        );
                    }
                }
                if arms[0].0.is_none() {
                    return self.err(n, "where without a mask");
                }
                StmtKind::Where { arms }
            }
            "forall_statement" => return self.forall(n, label),
            "block_construct" => return self.unsupported(n, "block construct"),
            "associate_statement" => return self.unsupported(n, "associate"),
            "select_type_statement" => return self.unsupported(n, "select type"),
            "select_rank_statement" => return self.unsupported(n, "select rank"),
            "entry_statement" => return self.unsupported(n, "entry"),
            "assign_statement" => return self.unsupported(n, "assign"),
            "end_do_label_statement" => StmtKind::Continue,
            other => return self.unsupported(n, &format!("statement kind {other}")),
        };
        Ok(vec![mk(kind)])
    }

    /// `forall` becomes nested `do` loops (with an `if` for the mask). That
    /// is the same only when no right side reads an array the construct
    /// assigns other than through its own left side: checked here.
    fn forall(&self, n: Node, label: Option<String>) -> FrontResult<Vec<Stmt>> {
        let span = self.span(n);
        let mut controls = Vec::new();
        let mut mask = None;
        let mut body_nodes = Vec::new();
        for c in named_children(n) {
            match c.kind() {
                "triplet_spec" => {
                    let kids: Vec<Node> = named_children(c)
                        .into_iter()
                        .filter(|k| k.kind() != "comment")
                        .collect();
                    if kids.len() < 3 || kids[0].kind() != "identifier" {
                        return self.err(c, "malformed forall index");
                    }
                    controls.push(DoControl {
                        var: self.lower(kids[0]),
                        lo: self.expr(kids[1])?,
                        hi: self.expr(kids[2])?,
                        step: kids.get(3).map(|x| self.expr(*x)).transpose()?,
                    });
                }
                "end_forall_statement" | "comment" => {}
                "assignment_statement" => body_nodes.push(c),
                k if controls.is_empty() || !body_nodes.is_empty() => {
                    return self.unsupported(c, &format!("{k} in forall"));
                }
                _ if mask.is_none() => mask = Some(self.expr(c)?),
                k => return self.unsupported(c, &format!("{k} in forall")),
            }
        }
        if controls.is_empty() {
            return self.err(n, "forall without an index");
        }
        let body = self.nested(&body_nodes)?;
        let targets: Vec<(String, String)> = body
            .iter()
            .filter_map(|s| match &s.kind {
                StmtKind::Assign {
                    lhs: lhs @ Expr::Apply { name, .. },
                    ..
                } => Some((name.clone(), crate::unparse::expr(lhs))),
                _ => None,
            })
            .collect();
        if targets.len() != body.len() {
            return self.err(
                n,
                "unsupported construct: forall assigning something other than array elements",
            );
        }
        for s in &body {
            let StmtKind::Assign { lhs, rhs } = &s.kind else {
                continue;
            };
            let own = crate::unparse::expr(lhs);
            let mut bad = None;
            let mut check = |e: &Expr| {
                e.walk(&mut |x| {
                    if let Expr::Apply { name, span, .. } | Expr::Name(name, span) = x {
                        if targets.iter().any(|(t, _)| t == name) && crate::unparse::expr(x) != own
                        {
                            bad = Some((name.clone(), *span));
                        }
                    }
                })
            };
            check(rhs);
            if let Some(m) = &mask {
                check(m);
            }
            if let Some((name, sp)) = bad {
                return self.err_at(sp, format!("unsupported construct: forall reads '{name}', which it assigns, at other elements"));
            }
        }
        let mut inner = match mask {
            Some(m) => vec![Stmt {
                id: 0,
                label: None,
                span,
                kind: StmtKind::If {
                    arms: vec![(m, body)],
                    otherwise: None,
                },
            }],
            None => body,
        };
        for c in controls {
            inner = vec![Stmt {
                id: 0,
                label: None,
                span,
                kind: StmtKind::Do {
                    construct: None,
                    control: Some(c),
                    body: inner,
                },
            }];
        }
        if let Some(first) = inner.first_mut() {
            first.label = label;
        }
        Ok(inner)
    }

    fn io_items(&self, n: Node) -> FrontResult<(Vec<Expr>, Vec<Expr>)> {
        let mut reads = Vec::new();
        let mut writes = Vec::new();
        for c in named_children(n) {
            match c.kind() {
                "output_item_list" => {
                    for it in named_children(c) {
                        if it.kind() == "implied_do_loop_expression" || it.kind() == "comment" {
                            continue;
                        }
                        reads.push(self.expr(it)?);
                    }
                }
                "input_item_list" => {
                    for it in named_children(c) {
                        if it.kind() == "implied_do_loop_expression" {
                            return self.unsupported(it, "implied do loop in a read statement");
                        }
                        if it.kind() != "comment" {
                            writes.push(self.expr(it)?);
                        }
                    }
                }
                _ => {}
            }
        }
        Ok((reads, writes))
    }

    fn if_stmt(&self, n: Node, label: Option<String>) -> FrontResult<Vec<Stmt>> {
        let span = self.span(n);
        let kids = named_children(n);
        let is_block = all_children(n).iter().any(|c| c.kind() == "then");
        let mut cond = None;
        let mut arms: Vec<(Expr, Vec<Stmt>)> = Vec::new();
        let mut otherwise = None;
        let mut body_nodes = Vec::new();
        for c in &kids {
            match c.kind() {
                "parenthesized_expression" if cond.is_none() => cond = Some(self.paren_inner(*c)?),
                "block_label_start_expression" => {
                    return self.unsupported(*c, "named if construct")
                }
                "elseif_clause" => {
                    if let Some(cd) = cond.take() {
                        arms.push((cd, self.nested(&body_nodes)?));
                        body_nodes.clear();
                    }
                    let mut ccond = None;
                    let mut cnodes = Vec::new();
                    for k in named_children(*c) {
                        match k.kind() {
                            "parenthesized_expression" if ccond.is_none() => {
                                ccond = Some(self.paren_inner(k)?)
                            }
                            "block_label" => {}
                            _ => cnodes.push(k),
                        }
                    }
                    arms.push((
                        ccond.ok_or_else(|| {
                            FrontError::new(self.span(*c), "else if without a condition")
                        })?,
                        self.nested(&cnodes)?,
                    ));
                }
                "else_clause" => {
                    if let Some(cd) = cond.take() {
                        arms.push((cd, self.nested(&body_nodes)?));
                        body_nodes.clear();
                    }
                    let cnodes: Vec<Node> = named_children(*c)
                        .into_iter()
                        .filter(|k| k.kind() != "block_label")
                        .collect();
                    otherwise = Some(self.nested(&cnodes)?);
                }
                "end_if_statement" => {}
                _ => body_nodes.push(*c),
            }
        }
        if let Some(cd) = cond.take() {
            arms.push((cd, self.nested(&body_nodes)?));
        }
        if arms.is_empty() {
            return self.err(n, "if without a condition");
        }
        if !is_block && arms[0].1.len() != 1 {
            return self.err(n, "logical if needs exactly one statement");
        }
        Ok(vec![Stmt {
            id: 0,
            label,
            span,
            kind: StmtKind::If { arms, otherwise },
        }])
    }

    fn paren_inner(&self, n: Node) -> FrontResult<Expr> {
        let inner = named_children(n)
            .into_iter()
            .find(|c| c.kind() != "comment")
            .ok_or_else(|| FrontError::new(self.span(n), "empty parentheses"))?;
        self.expr(inner)
    }

    fn while_cond(&self, w: Node) -> FrontResult<Expr> {
        let p = named_children(w)
            .into_iter()
            .find(|c| c.kind() == "parenthesized_expression")
            .ok_or_else(|| FrontError::new(self.span(w), "do while without a condition"))?;
        self.paren_inner(p)
    }

    fn do_control(&self, c: Node) -> FrontResult<DoControl> {
        let kids: Vec<Node> = named_children(c)
            .into_iter()
            .filter(|k| k.kind() != "comment")
            .collect();
        if kids.len() < 3 || kids[0].kind() != "identifier" {
            return self.err(c, "malformed do loop control");
        }
        Ok(DoControl {
            var: self.lower(kids[0]),
            lo: self.expr(kids[1])?,
            hi: self.expr(kids[2])?,
            step: kids.get(3).map(|s| self.expr(*s)).transpose()?,
        })
    }

    // ------------------------------------------------------------------
    // Expressions
    // ------------------------------------------------------------------

    fn args(&self, list: Node) -> FrontResult<Vec<Arg>> {
        let mut out = Vec::new();
        for a in named_children(list) {
            match a.kind() {
                "comment" => {}
                "keyword_argument" => {
                    let name = a
                        .child_by_field_name("name")
                        .or_else(|| a.named_child(0))
                        .map(|n| self.lower(n))
                        .unwrap_or_default();
                    let value = a
                        .child_by_field_name("value")
                        .or_else(|| a.named_child(1))
                        .ok_or_else(|| {
                            FrontError::new(self.span(a), "keyword argument without a value")
                        })?;
                    out.push(Arg {
                        keyword: Some(name),
                        value: self.expr(value)?,
                    });
                }
                "extent_specifier" => out.push(Arg {
                    keyword: None,
                    value: self.range(a)?,
                }),
                _ => out.push(Arg {
                    keyword: None,
                    value: self.expr(a)?,
                }),
            }
        }
        Ok(out)
    }

    fn range(&self, n: Node) -> FrontResult<Expr> {
        // Parts separated by ':' tokens: lo : hi : stride.
        let mut parts: Vec<Option<Expr>> = vec![None];
        for c in all_children(n) {
            if c.kind() == ":" {
                parts.push(None);
            } else if c.is_named() && c.kind() != "comment" {
                *parts.last_mut().expect("non-empty") = Some(self.expr(c)?);
            }
        }
        let mut it = parts.into_iter();
        let lo = it.next().flatten();
        let hi = it.next().flatten();
        let stride = it.next().flatten();
        Ok(Expr::Range {
            lo: lo.map(Box::new),
            hi: hi.map(Box::new),
            stride: stride.map(Box::new),
            span: self.span(n),
        })
    }

    fn expr(&self, n: Node) -> FrontResult<Expr> {
        let span = self.span(n);
        match n.kind() {
            "identifier" => Ok(Expr::Name(self.lower(n), span)),
            "number_literal" => {
                let t = self.text(n).trim().to_string();
                let body = t.split('_').next().unwrap_or("");
                let is_real =
                    body.contains('.') || body.chars().any(|c| matches!(c, 'e' | 'E' | 'd' | 'D'));
                if body.starts_with(['b', 'B', 'o', 'O', 'z', 'Z']) {
                    return self.unsupported(n, "boz literal");
                }
                Ok(Expr::Lit(
                    if is_real {
                        Literal::Real(t)
                    } else {
                        Literal::Int(t)
                    },
                    span,
                ))
            }
            "string_literal" => Ok(Expr::Lit(Literal::Str(self.text(n).to_string()), span)),
            "boolean_literal" => {
                let t = self.lower(n);
                Ok(Expr::Lit(Literal::Logical(t.contains("true")), span))
            }
            "complex_literal" => Ok(Expr::Lit(Literal::Complex(self.text(n).to_string()), span)),
            "parenthesized_expression" => Ok(Expr::Paren(Box::new(self.paren_inner(n)?), span)),
            "math_expression" | "unary_expression" => self.arith(n),
            "call_expression" => {
                let head = n
                    .named_child(0)
                    .ok_or_else(|| FrontError::new(span, "malformed call"))?;
                if head.kind() == "unary_expression" {
                    return self.arith(n);
                }
                self.call_expr(n)
            }
            "relational_expression" | "logical_expression" | "concatenation_expression" => {
                let kids = all_children(n);
                let named: Vec<Node> = kids
                    .iter()
                    .copied()
                    .filter(|k| k.is_named() && k.kind() != "comment")
                    .collect();
                let op_node = kids
                    .iter()
                    .copied()
                    .find(|k| !k.is_named())
                    .ok_or_else(|| FrontError::new(span, "expression without an operator"))?;
                let op_text = self.lower(op_node).replace(' ', "");
                if named.len() == 1 && op_text == ".not." {
                    return Ok(Expr::Unary(UnOp::Not, Box::new(self.expr(named[0])?), span));
                }
                if named.len() != 2 {
                    return self.err(n, "malformed binary expression");
                }
                let op = match op_text.as_str() {
                    "<" | ".lt." => BinOp::Lt,
                    "<=" | ".le." => BinOp::Le,
                    ">" | ".gt." => BinOp::Gt,
                    ">=" | ".ge." => BinOp::Ge,
                    "==" | ".eq." => BinOp::Eq,
                    "/=" | ".ne." => BinOp::Ne,
                    ".and." => BinOp::And,
                    ".or." => BinOp::Or,
                    ".eqv." => BinOp::Eqv,
                    ".neqv." => BinOp::Neqv,
                    "//" => BinOp::Concat,
                    other => return self.unsupported(op_node, &format!("operator {other}")),
                };
                Ok(Expr::Binary(
                    op,
                    Box::new(self.expr(named[0])?),
                    Box::new(self.expr(named[1])?),
                    span,
                ))
            }
            "derived_type_member_expression" => {
                let kids = named_children(n);
                let base = kids
                    .first()
                    .ok_or_else(|| FrontError::new(span, "malformed component reference"))?;
                let field = kids
                    .iter()
                    .find(|k| k.kind() == "type_member")
                    .ok_or_else(|| FrontError::new(span, "malformed component reference"))?;
                Ok(Expr::Member {
                    base: Box::new(self.expr(*base)?),
                    field: self.lower(*field),
                    args: None,
                    span,
                })
            }
            "array_literal" => {
                let mut items = Vec::new();
                for c in named_children(n) {
                    match c.kind() {
                        "comment" => {}
                        "implied_do_loop_expression" => {
                            return self.unsupported(c, "implied do loop in an array constructor")
                        }
                        _ => items.push(self.expr(c)?),
                    }
                }
                Ok(Expr::ArrayCtor(items, span))
            }
            "extent_specifier" => self.range(n),
            "keyword_argument" => self.err(n, "keyword argument outside an argument list"),
            "implied_do_loop_expression" => self.unsupported(n, "implied do loop"),
            "null_literal" => self.unsupported(n, "null()"),
            "conditional_expression" => self.unsupported(n, "conditional expression"),
            "user_defined_operator" => self.unsupported(n, "user-defined operator"),
            "coarray_expression" => self.unsupported(n, "coarray"),
            other => self.unsupported(n, &format!("expression {other}")),
        }
    }

    fn call_expr(&self, n: Node) -> FrontResult<Expr> {
        let span = self.span(n);
        let head = n
            .named_child(0)
            .ok_or_else(|| FrontError::new(span, "malformed call"))?;
        let args = match named_children(n)
            .into_iter()
            .find(|c| c.kind() == "argument_list")
        {
            Some(a) => self.args(a)?,
            None => Vec::new(),
        };
        if named_children(n)
            .iter()
            .filter(|c| c.kind() == "argument_list")
            .count()
            > 1
        {
            return self.unsupported(n, "substring of an array element");
        }
        match head.kind() {
            "identifier" => Ok(Expr::Apply {
                name: self.lower(head),
                args,
                span,
            }),
            "derived_type_member_expression" => match self.expr(head)? {
                Expr::Member {
                    base,
                    field,
                    args: None,
                    span,
                } => Ok(Expr::Member {
                    base,
                    field,
                    args: Some(args),
                    span,
                }),
                _ => self.unsupported(n, "component reference"),
            },
            "call_expression" => self.unsupported(n, "substring or nested call reference"),
            other => self.unsupported(n, &format!("call of {other}")),
        }
    }

    /// Flattens arithmetic and re-parses it with Fortran precedence.
    fn arith(&self, n: Node) -> FrontResult<Expr> {
        let mut toks = Vec::new();
        self.flatten(n, &mut toks)?;
        let mut pos = 0;
        let e = parse_level_add(&toks, &mut pos)
            .ok_or_else(|| FrontError::new(self.span(n), "malformed arithmetic expression"))?;
        if pos != toks.len() {
            return self.err(n, "malformed arithmetic expression");
        }
        Ok(e)
    }

    fn flatten(&self, n: Node, out: &mut Vec<Tok>) -> FrontResult<()> {
        match n.kind() {
            "math_expression" => {
                let left = n
                    .child_by_field_name("left")
                    .ok_or_else(|| FrontError::new(self.span(n), "malformed expression"))?;
                let right = n
                    .child_by_field_name("right")
                    .ok_or_else(|| FrontError::new(self.span(n), "malformed expression"))?;
                let op = n
                    .child_by_field_name("operator")
                    .ok_or_else(|| FrontError::new(self.span(n), "malformed expression"))?;
                self.flatten(left, out)?;
                let o = match self.text(op).trim() {
                    "+" => BinOp::Add,
                    "-" => BinOp::Sub,
                    "*" => BinOp::Mul,
                    "/" => BinOp::Div,
                    "**" => BinOp::Pow,
                    other => return self.unsupported(op, &format!("operator {other}")),
                };
                out.push(Tok::Op(o, self.span(op)));
                self.flatten(right, out)
            }
            "unary_expression" => {
                let op = n
                    .child_by_field_name("operator")
                    .or_else(|| n.child(0))
                    .ok_or_else(|| FrontError::new(self.span(n), "malformed expression"))?;
                let arg = n
                    .child_by_field_name("argument")
                    .or_else(|| named_children(n).into_iter().last())
                    .ok_or_else(|| FrontError::new(self.span(n), "malformed expression"))?;
                let u = match self.lower(op).trim() {
                    "-" => UnOp::Neg,
                    "+" => UnOp::Plus,
                    ".not." => UnOp::Not,
                    other => return self.unsupported(op, &format!("unary operator {other}")),
                };
                if u == UnOp::Not {
                    out.push(Tok::Operand(Expr::Unary(
                        u,
                        Box::new(self.expr(arg)?),
                        self.span(n),
                    )));
                    return Ok(());
                }
                out.push(Tok::Prefix(u, self.span(n)));
                self.flatten(arg, out)
            }
            "call_expression" if n.named_child(0).map(|h| h.kind()) == Some("unary_expression") => {
                // `-x(1)` parsed as `(-x)(1)`: move the sign out.
                let head = n.named_child(0).expect("checked");
                let op = head
                    .child(0)
                    .ok_or_else(|| FrontError::new(self.span(n), "malformed expression"))?;
                let inner = named_children(head)
                    .into_iter()
                    .last()
                    .ok_or_else(|| FrontError::new(self.span(n), "malformed expression"))?;
                let u = match self.text(op).trim() {
                    "-" => UnOp::Neg,
                    "+" => UnOp::Plus,
                    _ => return self.unsupported(n, "operator applied to a call"),
                };
                let args = match named_children(n)
                    .into_iter()
                    .find(|c| c.kind() == "argument_list")
                {
                    Some(a) => self.args(a)?,
                    None => Vec::new(),
                };
                let operand = match inner.kind() {
                    "identifier" => Expr::Apply {
                        name: self.lower(inner),
                        args,
                        span: self.span(inner),
                    },
                    "derived_type_member_expression" => match self.expr(inner)? {
                        Expr::Member {
                            base,
                            field,
                            args: None,
                            span,
                        } => Expr::Member {
                            base,
                            field,
                            args: Some(args),
                            span,
                        },
                        _ => return self.unsupported(n, "signed component reference"),
                    },
                    _ => return self.unsupported(n, "signed call of a complex reference"),
                };
                out.push(Tok::Prefix(u, self.span(n)));
                out.push(Tok::Operand(operand));
                Ok(())
            }
            _ => {
                out.push(Tok::Operand(self.expr(n)?));
                Ok(())
            }
        }
    }
}

// Precedence climbing over the flat token list: + - (with leading sign),
// then * /, then ** (right associative).
fn parse_level_add(t: &[Tok], pos: &mut usize) -> Option<Expr> {
    let mut lhs = match t.get(*pos) {
        Some(Tok::Prefix(u, s)) => {
            let (u, s) = (*u, *s);
            *pos += 1;
            let e = parse_level_mul(t, pos)?;
            if u == UnOp::Plus {
                e
            } else {
                Expr::Unary(u, Box::new(e), s)
            }
        }
        _ => parse_level_mul(t, pos)?,
    };
    while let Some(Tok::Op(op @ (BinOp::Add | BinOp::Sub), s)) = t.get(*pos) {
        let (op, s) = (*op, *s);
        *pos += 1;
        let rhs = parse_level_mul(t, pos)?;
        lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs), s);
    }
    Some(lhs)
}

fn parse_level_mul(t: &[Tok], pos: &mut usize) -> Option<Expr> {
    let mut lhs = parse_level_pow(t, pos)?;
    while let Some(Tok::Op(op @ (BinOp::Mul | BinOp::Div), s)) = t.get(*pos) {
        let (op, s) = (*op, *s);
        *pos += 1;
        let rhs = parse_level_pow(t, pos)?;
        lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs), s);
    }
    Some(lhs)
}

fn parse_level_pow(t: &[Tok], pos: &mut usize) -> Option<Expr> {
    let base = parse_primary(t, pos)?;
    if let Some(Tok::Op(BinOp::Pow, s)) = t.get(*pos) {
        let s = *s;
        *pos += 1;
        let exp = parse_level_pow(t, pos)?;
        return Some(Expr::Binary(BinOp::Pow, Box::new(base), Box::new(exp), s));
    }
    Some(base)
}

fn parse_primary(t: &[Tok], pos: &mut usize) -> Option<Expr> {
    match t.get(*pos)? {
        Tok::Operand(e) => {
            *pos += 1;
            Some(e.clone())
        }
        // A sign after an operator (`a * -b`, `2**-1`): an extension that
        // binds to the following power term.
        Tok::Prefix(u, s) => {
            let (u, s) = (*u, *s);
            *pos += 1;
            let e = parse_level_pow(t, pos)?;
            Some(if u == UnOp::Plus {
                e
            } else {
                Expr::Unary(u, Box::new(e), s)
            })
        }
        Tok::Op(..) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body_of(src: &str) -> Vec<Stmt> {
        let f = parse_file(src, 0).expect("parses");
        f.units[0].body.clone()
    }

    fn rhs(src: &str) -> Expr {
        match &body_of(src)[0].kind {
            StmtKind::Assign { rhs, .. } => rhs.clone(),
            k => panic!("not an assignment: {k:?}"),
        }
    }

    /// `state(i) = ...` opening a contained procedure assigns an element
    /// of the host's array; with no such array it defines a statement
    /// function.
    #[test]
    fn element_of_a_host_array_is_not_a_statement_function() {
        let src = "module m\n real(8) :: state(3)\ncontains\n subroutine bump(i)\n  integer :: i\n  state(i) = state(i) + 1\n end subroutine\nend module\n";
        let f = parse_file(src, 0).expect("parses");
        let bump = &f.units[0].contains[0];
        assert_eq!(bump.body.len(), 1, "{bump:?}");
        assert!(!bump
            .spec
            .iter()
            .any(|s| matches!(s, SpecStmt::StmtFunction { .. })));
        let host = "subroutine h\n real(8) :: y\n y = 1\ncontains\n subroutine g(i)\n  integer :: i\n  sq(i) = i * i\n  print *, sq(2)\n end subroutine\nend subroutine\n";
        let f = parse_file(host, 0).expect("parses");
        assert!(f.units[0].contains[0]
            .spec
            .iter()
            .any(|s| matches!(s, SpecStmt::StmtFunction { .. })));
    }

    #[test]
    fn unary_minus_binds_looser_than_power() {
        let e = rhs("subroutine s\n z = -a**2\nend\n");
        match e {
            Expr::Unary(UnOp::Neg, inner, _) => {
                assert!(matches!(*inner, Expr::Binary(BinOp::Pow, ..)))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn power_is_right_associative() {
        let e = rhs("subroutine s\n z = a**b**c\nend\n");
        match e {
            Expr::Binary(BinOp::Pow, l, r, _) => {
                assert!(matches!(*l, Expr::Name(..)));
                assert!(matches!(*r, Expr::Binary(BinOp::Pow, ..)));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn signed_element_reference_is_negated_element() {
        let e = rhs("subroutine s\n z = -x(1)*3\nend\n");
        match e {
            Expr::Unary(UnOp::Neg, inner, _) => match *inner {
                Expr::Binary(BinOp::Mul, l, _, _) => assert!(matches!(*l, Expr::Apply { .. })),
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn labelled_do_loops_nest_with_shared_end() {
        let b =
            body_of("subroutine s\n do 10 i=1,3\n do 10 j=1,2\n x = 1\n10 continue\n y = 2\nend\n");
        assert_eq!(b.len(), 2);
        match &b[0].kind {
            StmtKind::Do { body, .. } => {
                assert_eq!(body.len(), 1);
                assert!(matches!(&body[0].kind, StmtKind::Do { body, .. } if body.len() == 2));
            }
            k => panic!("{k:?}"),
        }
    }

    #[test]
    fn forall_becomes_loops_unless_it_reads_what_it_assigns() {
        let b =
            body_of("subroutine s\n forall (i = 1:3, j = 1:2, i /= j) a(i, j) = b(j, i)\nend\n");
        match &b[0].kind {
            StmtKind::Do {
                control: Some(c),
                body,
                ..
            } => {
                assert_eq!(c.var, "j");
                assert!(
                    matches!(&body[0].kind, StmtKind::Do { body, .. } if matches!(body[0].kind, StmtKind::If { .. }))
                );
            }
            k => panic!("{k:?}"),
        }
        let e =
            parse_file("subroutine s\n forall (i = 2:3) a(i) = a(i - 1)\nend\n", 0).unwrap_err();
        assert!(e.message.contains("forall reads 'a'"), "{}", e.message);
    }

    #[test]
    fn syntax_error_is_located() {
        let e = parse_file("subroutine s\n x = (1 +\nend\n", 3).unwrap_err();
        assert_eq!(e.span.file, 3);
        assert!(e.message.contains("syntax error"), "{}", e.message);
    }

    #[test]
    fn declarations_and_statement_functions() {
        let f = parse_file(
            "subroutine s(x)\n real*8 x(2,*)\n f(u) = u*2\n x(1) = f(x(2))\nend\n",
            0,
        )
        .unwrap();
        let u = &f.units[0];
        assert!(
            matches!(&u.spec[0], SpecStmt::TypeDecl { entities, .. } if entities[0].dims.as_ref().unwrap().len() == 2)
        );
        assert!(matches!(&u.spec[1], SpecStmt::StmtFunction { name, .. } if name == "f"));
        assert_eq!(u.body.len(), 1);
    }

    #[test]
    fn element_assignments_to_module_arrays_are_not_statement_functions() {
        // `g` comes from the module: neither `g(1) = ...` (a literal
        // subscript) nor `h(i) = ...` (after a `use` without `only`) may be
        // taken for a statement function.
        let f = parse_file(
            "subroutine s(x)\n use m\n real(8) x(2)\n integer i\n g(1) = x(1)\n h(i) = x(2)\nend\n",
            0,
        )
        .unwrap();
        let u = &f.units[0];
        assert!(!u
            .spec
            .iter()
            .any(|st| matches!(st, SpecStmt::StmtFunction { .. })));
        assert_eq!(u.body.len(), 2);
    }
}
