//! Constructs rewritten into plainer statements as they are read, so that
//! nothing after the parser sees them:
//!
//! - `associate (h => s%h, q => s%q(:, k), d => x(2) - x(1))`: a selector
//!   that is a variable or a part of one (component, element, section)
//!   replaces its name in the body (`substitute.rs`); an expression
//!   selector is evaluated once into a fresh variable `oad_aN_d` before
//!   the body (Fortran evaluates it at the association), whose type the
//!   semantic model takes from the selector (`Unit::associate_temps`);
//! - `block ... end block`: its declarations move to the procedure under
//!   fresh names `oad_bN_name`, its statements stay in place;
//! - `do concurrent (i = 1:n, j = 1:m, mask)`: a nest of `do` loops
//!   (first index outermost), the mask an `if` around the body;
//! - a `value` dummy `a`: an `intent(in)` dummy, copied at entry into a
//!   local `oad_vN_a` that the body uses instead (what passing by value
//!   means: the callee's changes stay local).

use crate::ast::*;
use tree_sitter::Node;

use super::{is_spec_kind, named_children, FortranParser, Substitution};

impl<'a> FortranParser<'a> {
    fn fresh(&self, prefix: &str, name: &str) -> String {
        let n = self.fresh.get() + 1;
        self.fresh.set(n);
        format!("oad_{prefix}{n}_{name}")
    }

    pub(super) fn associate(&self, n: Node, label: Option<String>) -> FrontResult<Vec<Stmt>> {
        let span = self.span(n);
        let mut names = Vec::new();
        let mut before = Vec::new();
        let mut body_nodes = Vec::new();
        let mut construct = None;
        for c in named_children(n) {
            match c.kind() {
                "association" => {
                    let (Some(name), Some(sel)) = (
                        c.child_by_field_name("name"),
                        c.child_by_field_name("selector"),
                    ) else {
                        return self.err(c, "malformed association");
                    };
                    let name = self.lower(name);
                    // A selector may use the names associated before it
                    // only in an enclosing construct: not substituted here.
                    let sel_expr = self.expr(sel)?;
                    let sp = self.span(sel);
                    let enclosing = |h: &String| self.associate_names.borrow().contains(h);
                    if let Expr::Apply { name: head, .. } = sel_expr.clone() {
                        let head = &head;
                        // A function reference or an element or section:
                        // through a variable until the semantic model
                        // knows which (`MaybeFunctionSelector`).
                        if is_designator(&sel_expr) && !enclosing(head) {
                            let t = self.fresh("a", &name);
                            self.locals.borrow_mut().maybe_function_selectors.push(
                                MaybeFunctionSelector {
                                    temp: t.clone(),
                                    head: head.clone(),
                                    selector: Some(sel_expr.clone()),
                                    span: sp,
                                },
                            );
                            before.push(Stmt {
                                id: 0,
                                label: None,
                                span: sp,
                                kind: StmtKind::Assign {
                                    lhs: Expr::Name(t.clone(), sp),
                                    rhs: sel_expr,
                                },
                            });
                            names.push((name, Expr::Name(t, sp)));
                            continue;
                        }
                    }
                    if is_designator(&sel_expr) {
                        if let Some(head) = head_name(&sel_expr) {
                            self.locals.borrow_mut().selector_names.push((head, sp));
                        }
                        names.push((name, sel_expr));
                    } else {
                        let t = self.fresh("a", &name);
                        self.locals
                            .borrow_mut()
                            .associate_temps
                            .push((t.clone(), sp));
                        before.push(Stmt {
                            id: 0,
                            label: None,
                            span: sp,
                            kind: StmtKind::Assign {
                                lhs: Expr::Name(t.clone(), sp),
                                rhs: sel_expr,
                            },
                        });
                        names.push((name, Expr::Name(t, sp)));
                    }
                }
                "block_label_start_expression" => construct = Some(self.construct_name(c)),
                "end_associate_statement" | "comment" => {}
                _ => body_nodes.push(c),
            }
        }
        // Blocks inside hoist declarations whose bounds may use the names.
        let hoisted_before = self.hoisted.borrow().len();
        let depth = self.associate_names.borrow().len();
        self.associate_names
            .borrow_mut()
            .extend(names.iter().map(|(n, _)| n.clone()));
        let body = self.nested(&body_nodes);
        self.associate_names.borrow_mut().truncate(depth);
        let mut body = body?;
        refuse_exit_from(&body, construct.as_deref(), "associate")?;
        // A name the declarations of an inner block use (bounds) keeps the
        // designator reading: the declarations cannot read the variable.
        for (name, sel) in names.iter_mut() {
            let Expr::Name(t, _) = sel else { continue };
            let mut locals = self.locals.borrow_mut();
            let Some(k) = locals
                .maybe_function_selectors
                .iter()
                .position(|m| m.temp == *t)
            else {
                continue;
            };
            let probe = Substitution {
                names: vec![(
                    name.clone(),
                    Expr::Name("oad_probe".into(), Span::default()),
                )],
            };
            let mut used = false;
            for h in self.hoisted.borrow()[hoisted_before..].iter() {
                let mut c = h.clone();
                rename_declared(&mut c, &probe)?;
                used |= c != *h;
            }
            if used {
                let m = locals.maybe_function_selectors.remove(k);
                before.retain(|b| !matches!(&b.kind, StmtKind::Assign { lhs: Expr::Name(n, _), .. } if n == t));
                locals.selector_names.push((m.head, m.span));
                *sel = m.selector.expect("selector kept");
            }
        }
        let subst = Substitution { names };
        subst.stmts(&mut body)?;
        for s in self.hoisted.borrow_mut()[hoisted_before..].iter_mut() {
            rename_declared(s, &subst)?;
        }
        Ok(labelled(
            before.into_iter().chain(body).collect(),
            label,
            span,
        ))
    }

    pub(super) fn block_construct(&self, n: Node, label: Option<String>) -> FrontResult<Vec<Stmt>> {
        let span = self.span(n);
        let mut spec = Vec::new();
        let mut body_nodes = Vec::new();
        let mut construct = None;
        for c in named_children(n) {
            match c.kind() {
                "variable_declaration" | "parameter_statement" if body_nodes.is_empty() => {
                    self.spec_stmt(c, &mut spec)?
                }
                "block_label_start_expression" => construct = Some(self.construct_name(c)),
                "end_block_construct_statement" | "comment" => {}
                k if is_spec_kind(k) => {
                    return self.unsupported(c, &format!("{k} in a block construct"))
                }
                _ => body_nodes.push(c),
            }
        }
        // Every local under a fresh name.
        let mut names = Vec::new();
        let mut allocatables = Vec::new();
        for s in &spec {
            match s {
                SpecStmt::TypeDecl {
                    attrs, entities, ..
                } => {
                    let kept = attrs.iter().find_map(|a| match a {
                        Attr::Pointer => Some("pointer"),
                        Attr::Save => Some("save"),
                        _ => None,
                    });
                    if let Some(a) = kept {
                        return self.err_at_unsupported(
                            entities.first().map_or(span, |e| e.span),
                            format!("unsupported construct: {a} local of a block construct (declare it in the procedure)"),
                        );
                    }
                    for e in entities {
                        let new = self.fresh("b", &e.name);
                        if attrs.contains(&Attr::Allocatable) {
                            allocatables.push((new.clone(), e.span));
                        }
                        names.push((e.name.clone(), new, e.span));
                    }
                }
                SpecStmt::Parameter(list, sp) => {
                    for (n, _) in list {
                        names.push((n.clone(), self.fresh("b", n), *sp));
                    }
                }
                _ => unreachable!("only declarations are read above"),
            }
        }
        let subst = Substitution {
            names: names
                .iter()
                .map(|(old, new, sp)| (old.clone(), Expr::Name(new.clone(), *sp)))
                .collect(),
        };
        for s in &mut spec {
            rename_declared(s, &subst)?;
        }
        self.hoisted.borrow_mut().extend(spec);
        self.locals
            .borrow_mut()
            .block_locals
            .extend(names.into_iter().map(|(_, new, sp)| (new, sp)));
        let mut body = self.nested(&body_nodes)?;
        refuse_exit_from(&body, construct.as_deref(), "block")?;
        subst.stmts(&mut body)?;
        // An allocatable local is deallocated when the block ends; its
        // hoisted stand-in also on entry, in case the block was left by
        // `exit`, `cycle` or `goto` while it was allocated.
        let release: Vec<Stmt> = allocatables
            .iter()
            .map(|(name, sp)| release_if_allocated(name, *sp))
            .collect();
        let body = release
            .iter()
            .cloned()
            .chain(body)
            .chain(release.iter().cloned())
            .collect();
        Ok(labelled(body, label, span))
    }

    /// `do concurrent` header: the loop nest's controls and the mask.
    pub(super) fn concurrent_header(&self, n: Node) -> FrontResult<(Vec<DoControl>, Option<Expr>)> {
        let mut controls = Vec::new();
        let mut mask = None;
        for h in named_children(n) {
            match h.kind() {
                "concurrent_header" => {
                    for c in named_children(h) {
                        match c.kind() {
                            "concurrent_control" => {
                                let var = named_children(c)
                                    .into_iter()
                                    .find(|k| k.kind() == "identifier")
                                    .ok_or_else(|| {
                                        FrontError::new(
                                            self.span(c),
                                            "malformed do concurrent index",
                                        )
                                    })?;
                                let field = |f: &str| -> FrontResult<Option<Expr>> {
                                    c.child_by_field_name(f).map(|x| self.expr(x)).transpose()
                                };
                                let (Some(lo), Some(hi)) = (field("initial")?, field("final")?)
                                else {
                                    return self.err(c, "malformed do concurrent index");
                                };
                                controls.push(DoControl {
                                    var: self.lower(var),
                                    lo,
                                    hi,
                                    step: field("step")?,
                                });
                            }
                            "concurrent_mask" => {
                                let e = named_children(c)
                                    .into_iter()
                                    .find(|k| k.kind() != "comment")
                                    .ok_or_else(|| {
                                        FrontError::new(self.span(c), "empty do concurrent mask")
                                    })?;
                                mask = Some(self.expr(e)?);
                            }
                            "comment" => {}
                            // Type specs of the index (`integer ::`), locality.
                            k => {
                                return self
                                    .unsupported(c, &format!("{k} in a do concurrent header"))
                            }
                        }
                    }
                }
                "comment" => {}
                k => return self.unsupported(h, &format!("{k} in do concurrent")),
            }
        }
        if controls.is_empty() {
            return self.err(n, "do concurrent without an index");
        }
        Ok((controls, mask))
    }
}

impl<'a> FortranParser<'a> {
    /// `value` dummies of `unit` rewritten (module comment).
    pub(super) fn value_dummies(&self, unit: &mut Unit) -> FrontResult<()> {
        let mut by_value: Vec<(String, Span)> = Vec::new();
        for s in &unit.spec {
            match s {
                SpecStmt::TypeDecl {
                    attrs, entities, ..
                } if attrs.contains(&Attr::Value) => {
                    by_value.extend(entities.iter().map(|e| (e.name.clone(), e.span)))
                }
                SpecStmt::AttrStmt {
                    attr: Attr::Value,
                    entities,
                    ..
                } => by_value.extend(entities.iter().map(|e| (e.name.clone(), e.span))),
                _ => {}
            }
        }
        if by_value.is_empty() {
            return Ok(());
        }
        if !unit.contains.is_empty() {
            return self.err_at_unsupported(
                by_value[0].1,
                "unsupported construct: value dummy argument of a procedure with internal procedures (they would see the dummy, not the copy)",
            );
        }
        let has_body = !unit.body.is_empty();
        let mut copies = Vec::new();
        let mut names = Vec::new();
        let mut first = Vec::new();
        for (dummy, span) in &by_value {
            if !unit.params.contains(dummy) {
                return Err(FrontError::new(
                    *span,
                    format!("'{dummy}' has the value attribute but is not a dummy argument"),
                ));
            }
            // The declaration giving its type (and its other attributes).
            let decl = unit.spec.iter().find_map(|s| match s {
                SpecStmt::TypeDecl {
                    ty,
                    attrs,
                    entities,
                    ..
                } => entities
                    .iter()
                    .find(|e| e.name == *dummy)
                    .map(|e| (ty.clone(), attrs.clone(), e.clone())),
                _ => None,
            });
            let Some((ty, attrs, entity)) = decl else {
                return self.err_at_unsupported(*span, format!("unsupported construct: value dummy argument '{dummy}' without a type declaration"));
            };
            if attrs.contains(&Attr::Optional)
                || unit.spec.iter().any(|s| {
                    matches!(s, SpecStmt::AttrStmt { attr: Attr::Optional, entities, .. }
                        if entities.iter().any(|e| e.name == *dummy))
                })
            {
                return self.err_at_unsupported(
                    *span,
                    format!("unsupported construct: optional value dummy argument '{dummy}'"),
                );
            }
            if ty.base == BaseType::Character {
                return self.err_at_unsupported(
                    *span,
                    format!("unsupported construct: character value dummy argument '{dummy}'"),
                );
            }
            if !has_body {
                continue;
            }
            let copy = self.fresh("v", dummy);
            let copy_attrs: Vec<Attr> = attrs
                .into_iter()
                .filter(|a| matches!(a, Attr::Dimension(_) | Attr::Target))
                .collect();
            copies.push(SpecStmt::TypeDecl {
                ty,
                attrs: copy_attrs,
                entities: vec![EntityDecl {
                    name: copy.clone(),
                    init: None,
                    ..entity
                }],
                span: *span,
            });
            first.push(Stmt {
                id: 0,
                label: None,
                span: *span,
                kind: StmtKind::Assign {
                    lhs: Expr::Name(copy.clone(), *span),
                    rhs: Expr::Name(dummy.clone(), *span),
                },
            });
            names.push((dummy.clone(), Expr::Name(copy, *span)));
        }
        // The dummies: intent(in) instead of value.
        for s in &mut unit.spec {
            match s {
                SpecStmt::TypeDecl { attrs, .. } if attrs.contains(&Attr::Value) => {
                    attrs.retain(|a| !matches!(a, Attr::Value | Attr::Intent(_)));
                    attrs.push(Attr::Intent(Intent::In));
                }
                SpecStmt::AttrStmt { attr, .. } if *attr == Attr::Value => {
                    *attr = Attr::Intent(Intent::In);
                }
                _ => {}
            }
        }
        if has_body {
            let mut body = std::mem::take(&mut unit.body);
            Substitution { names }.stmts(&mut body)?;
            unit.spec.extend(copies);
            unit.body = first.into_iter().chain(body).collect();
        }
        Ok(())
    }
}

impl FortranParser<'_> {
    /// The name of a construct from its `name:` label.
    fn construct_name(&self, label: Node) -> String {
        self.lower(label).trim_end_matches(':').trim().to_string()
    }
}

/// `if (allocated(name)) deallocate(name)`.
fn release_if_allocated(name: &str, span: Span) -> Stmt {
    let var = Expr::Name(name.to_string(), span);
    let dealloc = Stmt {
        id: 0,
        label: None,
        span,
        kind: StmtKind::Opaque {
            kind: OpaqueKind::Allocate,
            text: format!("deallocate({name})"),
            reads: vec![],
            writes: vec![var.clone()],
        },
    };
    Stmt {
        id: 0,
        label: None,
        span,
        kind: StmtKind::If {
            arms: vec![(
                Expr::Apply {
                    name: "allocated".into(),
                    args: vec![Arg {
                        keyword: None,
                        value: var,
                    }],
                    span,
                },
                vec![dealloc],
            )],
            otherwise: None,
        },
    }
}

/// A construct name only labels an `associate` or `block` (its statements
/// stay in place): an `exit` naming it, which would leave it, is refused.
fn refuse_exit_from(stmts: &[Stmt], construct: Option<&str>, what: &str) -> FrontResult<()> {
    let Some(name) = construct else {
        return Ok(());
    };
    for s in stmts {
        let nested: Vec<&[Stmt]> = match &s.kind {
            StmtKind::Exit(Some(n)) if n == name => {
                return Err(FrontError::unsupported(
                    s.span,
                    format!("unsupported construct: exit from the {what} construct '{name}' (use a goto to a labelled statement after it)"),
                ));
            }
            StmtKind::If { arms, otherwise } => arms
                .iter()
                .map(|(_, b)| b.as_slice())
                .chain(otherwise.as_deref())
                .collect(),
            StmtKind::Do { body, .. }
            | StmtKind::DoWhile { body, .. }
            | StmtKind::Forall { body, .. } => vec![body.as_slice()],
            StmtKind::Select { cases, .. } => cases.iter().map(|c| c.body.as_slice()).collect(),
            _ => Vec::new(),
        };
        for b in nested {
            refuse_exit_from(b, construct, what)?;
        }
    }
    Ok(())
}

/// A `do concurrent` as a nest of `do` loops, the mask an `if` inside; the
/// construct name (what `cycle` may name) on the innermost loop.
pub(super) fn concurrent_nest(
    construct: Option<String>,
    controls: Vec<DoControl>,
    mask: Option<Expr>,
    body: Vec<Stmt>,
    span: Span,
) -> StmtKind {
    let mut body = body;
    if let Some(m) = mask {
        body = vec![Stmt {
            id: 0,
            label: None,
            span,
            kind: StmtKind::If {
                arms: vec![(m, body)],
                otherwise: None,
            },
        }];
    }
    let mut controls = controls;
    let inner = controls.pop().expect("at least one index");
    let mut kind = StmtKind::Do {
        construct,
        control: Some(inner),
        body,
    };
    while let Some(c) = controls.pop() {
        kind = StmtKind::Do {
            construct: None,
            control: Some(c),
            body: vec![Stmt {
                id: 0,
                label: None,
                span,
                kind,
            }],
        };
    }
    kind
}

/// A variable or a part of one (not an expression, not a function
/// reference: the parser cannot tell `f(x)` from an element, so a
/// reference with subscripts counts as a designator when its name is not
/// that of an intrinsic function; a user function's result is refused
/// later, where it is resolved).
fn is_designator(e: &Expr) -> bool {
    match e {
        Expr::Name(..) => true,
        Expr::Apply { name, args, .. } => {
            !crate::intrinsics::is_intrinsic(name) && args.iter().all(|a| a.keyword.is_none())
        }
        Expr::Member { base, .. } => is_designator(base),
        _ => false,
    }
}

/// The variable a designator belongs to.
fn head_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Name(n, _) | Expr::Apply { name: n, .. } => Some(n.clone()),
        Expr::Member { base, .. } => head_name(base),
        _ => None,
    }
}

/// The block's label on its first statement (a `continue` when empty).
fn labelled(mut stmts: Vec<Stmt>, label: Option<String>, span: Span) -> Vec<Stmt> {
    if label.is_some() {
        if stmts.is_empty() {
            stmts.push(Stmt {
                id: 0,
                label: None,
                span,
                kind: StmtKind::Continue,
            });
        }
        stmts[0].label = label;
    }
    stmts
}

/// A hoisted declaration with its entities renamed, and the names in its
/// bounds and initial values.
fn rename_declared(s: &mut SpecStmt, subst: &Substitution) -> FrontResult<()> {
    let fix = |e: &mut Expr| -> FrontResult<()> {
        let x = std::mem::replace(e, Expr::int(0, Span::default()));
        *e = subst.expr(x)?;
        Ok(())
    };
    let new_name = |n: &str| -> String {
        match subst.names.iter().find(|(m, _)| m == n) {
            Some((_, Expr::Name(new, _))) => new.clone(),
            _ => n.to_string(),
        }
    };
    match s {
        SpecStmt::TypeDecl { entities, .. } => {
            for e in entities {
                e.name = new_name(&e.name);
                if let Some(dims) = &mut e.dims {
                    for d in dims {
                        match d {
                            DimSpec::Explicit { lo, hi } => {
                                if let Some(lo) = lo {
                                    fix(lo)?;
                                }
                                fix(hi)?;
                            }
                            DimSpec::Colon { lo } | DimSpec::AssumedSize { lo } => {
                                if let Some(lo) = lo {
                                    fix(lo)?;
                                }
                            }
                        }
                    }
                }
                if let Some(l) = &mut e.char_len {
                    fix(l)?;
                }
                if let Some(i) = &mut e.init {
                    fix(i)?;
                }
            }
        }
        SpecStmt::Parameter(list, _) => {
            for (n, v) in list {
                *n = new_name(n);
                fix(v)?;
            }
        }
        _ => {}
    }
    Ok(())
}
