//! Program units: modules, subroutines, functions and main programs, their
//! headers (name, dummy arguments, result, prefixes), the split of the
//! statements into specification and executable parts, internal and
//! module procedures (parsed with their hosts' specification parts in
//! view), and the detection of statement function definitions.

use crate::ast::*;
use tree_sitter::Node;

use super::{allocatable_result, is_spec_kind, named_children, FortranParser};

impl<'a> FortranParser<'a> {
    pub(super) fn unit(&self, node: Node) -> FrontResult<Unit> {
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
            "block_data" => UnitKind::BlockData,
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
            construct_locals: ConstructLocals::default(),
            polymorphic: Vec::new(),
        };
        let mut stmts: Vec<Node> = Vec::new();
        // Parsed once this unit's specification part is known: it decides
        // whether `a(i) = ...` opening their bodies is a statement function.
        let mut internal: Vec<Node> = Vec::new();
        for child in named_children(node) {
            match child.kind() {
                "module_statement" | "program_statement" | "block_data_statement" => {
                    if let Some(n) = named_children(child)
                        .into_iter()
                        .find(|c| c.kind() == "name")
                    {
                        unit.name = self.lower(n);
                    }
                }
                "subroutine_statement" | "function_statement" => self.header(child, &mut unit)?,
                "end_module_statement"
                | "end_block_data_statement"
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
        // What `allocate(a, source=h)` needs to write `a`'s bounds.
        let saved_ranks = {
            let mut specs: Vec<&[SpecStmt]> = hosts.to_vec();
            specs.push(&unit.spec);
            self.declared_ranks
                .replace(super::allocate_source::declared_ranks(&specs))
        };
        let start = if pending_label.is_some() { i - 1 } else { i };
        let mut idx = start;
        let (body, _) = self.block(&stmts, &mut idx, None)?;
        self.declared_ranks.replace(saved_ranks);
        if idx < stmts.len() {
            return self.err(stmts[idx], "unexpected statement");
        }
        unit.body = body;
        // Declarations hoisted out of block constructs, and what the
        // semantic model must type or check (`constructs.rs`).
        unit.spec.extend(self.hoisted.take());
        unit.construct_locals = self.locals.take();
        unit.polymorphic = self.polymorphic.take();
        // This body's, before the internal procedures add theirs.
        let allocations = self.allocations.take();
        let mut scopes: Vec<&[SpecStmt]> = hosts.to_vec();
        scopes.push(&unit.spec);
        let contains = internal
            .into_iter()
            .map(|p| self.unit_in(p, &scopes))
            .collect::<FrontResult<Vec<_>>>()?;
        unit.contains = contains;
        self.value_dummies(&mut unit)?;
        // Only where no interface block can describe the function: an
        // external one's interface would keep the allocatable result.
        if !hosts.is_empty() {
            allocatable_result(&mut unit, &allocations);
        }
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
}
