//! The executable part: statements and blocks to `Stmt`s. Labelled `do`
//! loops, which the grammar leaves flat, are nested here (terminators
//! shared between loops too); `if` constructs and statements become `If`
//! chains; `forall` stays a construct for the canonicaliser; I/O items and loop controls are read.

use crate::ast::*;
use tree_sitter::Node;

use super::{all_children, concurrent_nest, is_spec_kind, named_children, FortranParser};

impl<'a> FortranParser<'a> {
    /// Reads statements until the end of the list, or (for a labelled `do`)
    /// until the statement carrying `end_label`. Returns the statements
    /// and the label of the statement that ended the block, if any.
    pub(super) fn block(
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
    pub(super) fn nested(&self, nodes: &[Node]) -> FrontResult<Vec<Stmt>> {
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
                let mut object = None;
                for c in named_children(n) {
                    match c.kind() {
                        "identifier" => name = self.lower(c),
                        "argument_list" => args = self.args(c)?,
                        // `call object%binding(args)`: `ast::TYPE_BOUND_CALL`.
                        "derived_type_member_expression" => match self.expr(c)? {
                            Expr::Member {
                                base,
                                field,
                                args: None,
                                ..
                            } => {
                                name = format!("{TYPE_BOUND_CALL}{field}");
                                object = Some(*base);
                            }
                            _ => return self.unsupported(c, "type-bound procedure call form"),
                        },
                        _ => {}
                    }
                }
                if let Some(object) = object {
                    args.insert(
                        0,
                        Arg {
                            keyword: None,
                            value: object,
                        },
                    );
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
                let mut concurrent = None;
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
                        "concurrent_statement" => concurrent = Some(self.concurrent_header(c)?),
                        _ => body_nodes.push(c),
                    }
                }
                let body = self.nested(&body_nodes)?;
                if let Some((controls, mask)) = concurrent {
                    return Ok(vec![mk(concurrent_nest(
                        construct, controls, mask, body, span,
                    ))]);
                }
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
                    "goto" => self.goto(n, span)?,
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
                let (mut reads, mut writes) = self.io_items(n)?;
                // A namelist group: a read writes its members, a write
                // reads them.
                if let Some((_, members)) = self.namelist_of_io(n)? {
                    if n.kind() == "read_statement" {
                        writes.extend(members);
                    } else {
                        reads.extend(members);
                    }
                }
                StmtKind::Opaque {
                    kind: OpaqueKind::Io,
                    text: self.text(n).to_string(),
                    reads,
                    writes,
                }
            }
            "allocate_statement" => {
                if let Some(stmts) = self.allocate_with_source(n, &label, span)? {
                    return Ok(stmts);
                }
                let mut writes = Vec::new();
                for c in named_children(n) {
                    // A component (`s%h(n)`): the object without its bounds.
                    let first = named_children(c).into_iter().next();
                    if c.kind() == "sized_allocation"
                        && first.is_some_and(|f| f.kind() == "derived_type_member_expression")
                    {
                        if let Ok(Expr::Member {
                            base, field, span, ..
                        }) = self.expr(first.unwrap())
                        {
                            writes.push(Expr::Member {
                                base,
                                field,
                                args: None,
                                span,
                            });
                        }
                        continue;
                    }
                    if c.kind() == "sized_allocation" || c.kind() == "identifier" {
                        if let Some(id) = named_children(c)
                            .into_iter()
                            .find(|x| x.kind() == "identifier")
                            .or(Some(c))
                        {
                            writes.push(Expr::Name(self.lower(id), self.span(id)));
                        }
                    }
                    // The bounds of a single allocated variable, for
                    // `allocatable_results.rs`.
                    if c.kind() == "sized_allocation" && named_children(n).len() == 1 {
                        let kids = named_children(c);
                        if let (Some(id), Some(size)) = (
                            kids.iter().find(|x| x.kind() == "identifier"),
                            kids.iter().find(|x| x.kind() == "size"),
                        ) {
                            if let Ok(dims) = self.dims(*size) {
                                self.allocations
                                    .borrow_mut()
                                    .push((span, self.lower(*id), dims));
                            }
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
                let side = |k: Option<&Node>, component: bool| -> Vec<Expr> {
                    match k.map(|x| self.expr(*x)) {
                        Some(Ok(e @ (Expr::Name(..) | Expr::Apply { .. }))) => vec![e],
                        // A target that is a component (`s%h(:, k)`):
                        // its component path joins the pointer's alias
                        // class (`pointer_aliases.rs`).
                        Some(Ok(e @ Expr::Member { .. })) if component => vec![e],
                        _ => vec![],
                    }
                };
                StmtKind::Opaque {
                    kind: OpaqueKind::PointerAssign,
                    text: self.text(n).to_string(),
                    reads: side(kids.get(1), true),
                    writes: side(kids.first(), false),
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
                        return self.err_at_unsupported(
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
            "block_construct" => return self.block_construct(n, label),
            "associate_statement" => return self.associate(n, label),
            "select_type_statement" => return self.unsupported(n, "select type"),
            "select_rank_statement" => return self.unsupported(n, "select rank"),
            "entry_statement" => return self.unsupported(n, "entry"),
            "assign_statement" => return self.unsupported(n, "assign"),
            "end_do_label_statement" => StmtKind::Continue,
            other => return self.unsupported(n, &format!("statement kind {other}")),
        };
        Ok(vec![mk(kind)])
    }

    /// `forall (controls, mask)` with its element assignments (the
    /// canonicaliser gives it Fortran's semantics).
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
        if let Some(bad) = body.iter().find(|s| {
            !matches!(
                s.kind,
                StmtKind::Assign {
                    lhs: Expr::Apply { .. },
                    ..
                }
            )
        }) {
            return self.err_at_unsupported(
                bad.span,
                "unsupported construct: forall assigning something other than array elements",
            );
        }
        Ok(vec![Stmt {
            id: 0,
            label,
            span,
            kind: StmtKind::Forall {
                controls,
                mask,
                body,
            },
        }])
    }

    /// `go to 10`, or the computed `go to (10, 20, 30), k`: the latter as
    /// `if (k == 1) go to 10 else if (k == 2) go to 20 ...`, falling
    /// through when `k` is out of range, as Fortran does. (Reading only the
    /// first label once made every computed `go to` jump to it: silently
    /// wrong values and derivatives.) The index is evaluated once per arm
    /// tried: intrinsics, variables and array elements are fine; a user
    /// function there must be pure (the parser cannot tell it from an
    /// array element; docs/frontend.md).
    fn goto(&self, n: Node, span: Span) -> FrontResult<StmtKind> {
        let label_of = |c: Node| self.text(c).trim().trim_start_matches('0').to_string();
        let kids: Vec<Node> = named_children(n)
            .into_iter()
            .filter(|c| c.kind() != "comment")
            .collect();
        let labels: Vec<String> = kids
            .iter()
            .filter(|c| c.kind() == "statement_label_reference")
            .map(|c| label_of(*c))
            .collect();
        let others: Vec<&Node> = kids
            .iter()
            .filter(|c| c.kind() != "statement_label_reference")
            .collect();
        match (labels.as_slice(), others.as_slice()) {
            ([label], []) => Ok(StmtKind::Goto(label.clone())),
            ([_, ..], [index]) => {
                let index = self.expr(**index)?;
                let arms = labels
                    .iter()
                    .enumerate()
                    .map(|(k, label)| {
                        let test = Expr::Binary(
                            BinOp::Eq,
                            Box::new(Expr::Paren(Box::new(index.clone()), span)),
                            Box::new(Expr::int(k as i64 + 1, span)),
                            span,
                        );
                        let jump = Stmt {
                            id: 0,
                            label: None,
                            span,
                            kind: StmtKind::Goto(label.clone()),
                        };
                        (test, vec![jump])
                    })
                    .collect();
                Ok(StmtKind::If {
                    arms,
                    otherwise: None,
                })
            }
            _ => self.unsupported(n, "assigned goto"),
        }
    }

    fn io_items(&self, n: Node) -> FrontResult<(Vec<Expr>, Vec<Expr>)> {
        let mut reads = Vec::new();
        let mut writes = Vec::new();
        for c in named_children(n) {
            match c.kind() {
                "output_item_list" => {
                    for it in named_children(c) {
                        if it.kind() != "comment" {
                            io_item(self.expr(it)?, false, &mut reads, &mut writes);
                        }
                    }
                }
                "input_item_list" => {
                    for it in named_children(c) {
                        if it.kind() != "comment" {
                            io_item(self.expr(it)?, true, &mut reads, &mut writes);
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

    pub(super) fn paren_inner(&self, n: Node) -> FrontResult<Expr> {
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

    pub(super) fn do_control(&self, c: Node) -> FrontResult<DoControl> {
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
}

/// An item of an I/O list: what it reads and writes (an input item is
/// written). An implied-do loop writes its variable, reads its bounds, and
/// reads its items; an input item inside it writes its whole array (the
/// elements are named by the loop variable, whose value after the
/// statement says nothing about them: the later stages reset the
/// derivatives of everything a read writes).
fn io_item(item: Expr, input: bool, reads: &mut Vec<Expr>, writes: &mut Vec<Expr>) {
    io_item_in(item, input, false, reads, writes)
}

fn io_item_in(
    item: Expr,
    input: bool,
    in_loop: bool,
    reads: &mut Vec<Expr>,
    writes: &mut Vec<Expr>,
) {
    match item {
        Expr::ImpliedDo {
            items,
            control,
            span,
        } => {
            let DoControl { var, lo, hi, step } = *control;
            writes.push(Expr::Name(var, span));
            reads.extend([Some(lo), Some(hi), step].into_iter().flatten());
            for it in items {
                io_item_in(it, input, true, reads, writes);
            }
        }
        Expr::Apply { name, span, .. } if input && in_loop => writes.push(Expr::Name(name, span)),
        it if input => writes.push(it),
        it => reads.push(it),
    }
}
