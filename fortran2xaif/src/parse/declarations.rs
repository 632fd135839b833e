//! The specification part: declarations, type specifications, attributes,
//! array bounds, entity declarations, `parameter`, `common`, `data`,
//! `use`, interfaces, derived type definitions and the other
//! specification statements, each to a `SpecStmt`.

use crate::ast::*;
use tree_sitter::Node;

use super::{all_children, named_children, FortranParser};

impl<'a> FortranParser<'a> {
    pub(super) fn spec_stmt(&self, s: Node, out: &mut Vec<SpecStmt>) -> FrontResult<()> {
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
                                    "operator" | "assignment" => {
                                        let g = operator_generic_name(&self.lower(it));
                                        items.push((g.clone(), g));
                                    }
                                    _ => {
                                        return self.unsupported(
                                            it,
                                            "operator or assignment in a use list",
                                        )
                                    }
                                }
                            }
                        }
                        // `use m, a => b`: renames without `only`.
                        "use_alias" => {
                            let kids = named_children(c);
                            let local = kids.iter().find(|k| k.kind() == "local_name");
                            let remote = kids.iter().rev().find(|k| k.kind() == "identifier");
                            match (local, remote) {
                                (Some(l), Some(r)) => items.push((self.lower(*l), self.lower(*r))),
                                _ => return self.unsupported(c, "use rename form"),
                            }
                        }
                        "comment" => {}
                        _ => {}
                    }
                }
                let intrinsic = all_children(s).iter().any(|c| c.kind() == "intrinsic");
                if intrinsic || super::intrinsic_modules::is_known_intrinsic_module(&module) {
                    out.push(self.intrinsic_module_use(s, &module, only, &items, span)?);
                    return Ok(());
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
                        "procedure" => return self.procedure_decl(s, c, out),
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
                let mut extends = None;
                let mut bindings = Vec::new();
                // The text without the binding part.
                let mut text = self.text(s).to_string();
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
                        for x in named_children(c) {
                            match x.kind() {
                                "base_type_specifier" => {
                                    extends = named_children(x)
                                        .into_iter()
                                        .find(|k| k.kind() == "identifier")
                                        .map(|k| self.lower(k));
                                }
                                "abstract_specifier" => {
                                    return self.unsupported(x, "abstract derived type")
                                }
                                _ => {}
                            }
                        }
                    }
                    if c.kind() == "derived_type_procedures" {
                        bindings = self.type_bindings(c)?;
                        let from = c.start_byte() - s.start_byte();
                        let to = c.end_byte() - s.start_byte();
                        text.replace_range(from..to, "");
                    }
                }
                out.push(SpecStmt::DerivedType {
                    name,
                    text,
                    components,
                    extends,
                    bindings,
                    span,
                });
            }
            "interface" => {
                let mut abstract_ = false;
                let mut generic = None;
                let mut bodies = Vec::new();
                let mut procedures = Vec::new();
                for c in named_children(s) {
                    match c.kind() {
                        "interface_statement" => {
                            if let Some(n) =
                                named_children(c).into_iter().find(|x| x.kind() == "name")
                            {
                                generic = Some(self.lower(n));
                            }
                            for x in named_children(c) {
                                match x.kind() {
                                    "abstract_specifier" => abstract_ = true,
                                    // Generic names `operator(.op.)`, `operator(+)`,
                                    // `assignment(=)`, as the canonicaliser looks
                                    // them up.
                                    "operator" | "assignment" => {
                                        generic = Some(operator_generic_name(&self.lower(x)));
                                    }
                                    "defined_io_procedure" => {
                                        return self.unsupported(x, "defined input/output")
                                    }
                                    _ => {}
                                }
                            }
                        }
                        "subroutine" | "function" => bodies.push(self.unit(c)?),
                        "end_interface_statement" | "comment" => {}
                        // `module procedure a, b` / `procedure a, b` in a
                        // generic interface: specific procedures by name.
                        "procedure_statement" if generic.is_some() => {
                            for d in named_children(c) {
                                if d.kind() == "method_name" {
                                    procedures.push(self.lower(d));
                                } else if d.kind() != "procedure_kind" {
                                    return self.unsupported(
                                        d,
                                        "procedure statement form in a generic interface",
                                    );
                                }
                            }
                        }
                        "module_procedure_statement" | "procedure_statement" => {
                            return self
                                .unsupported(c, "procedure statement outside a generic interface")
                        }
                        other => {
                            return self.unsupported(c, &format!("{other} in an interface block"))
                        }
                    }
                }
                if abstract_ {
                    if !procedures.is_empty() {
                        return self.unsupported(s, "procedure statement in an abstract interface");
                    }
                    out.push(SpecStmt::AbstractInterface { bodies, span });
                    return Ok(());
                }
                out.push(SpecStmt::Interface {
                    generic,
                    bodies,
                    procedures,
                    text: self.text(s).to_string(),
                    span,
                });
            }
            "format_statement" => out.push(SpecStmt::Verbatim(self.text(s).to_string(), span)),
            "equivalence_statement" => return self.unsupported(s, "equivalence"),
            "namelist_statement" => self.namelist_statement(s, out)?,
            "include_statement" => return self.unsupported(s, "include not expanded"),
            // Interface bodies see no host names in the semantic model.
            "import_statement" => {
                return self.unsupported(
                    s,
                    "import in an interface body (write the kinds it would import as literals, e.g. real(8), or use their module in the body)",
                )
            }
            other => return self.unsupported(s, other),
        }
        Ok(())
    }

    fn data_value(&self, n: Node) -> FrontResult<Expr> {
        self.expr(n)
    }

    pub(super) fn type_spec(&self, node: Node) -> FrontResult<TypeSpec> {
        if node.kind() == "derived_type" {
            let name = named_children(node)
                .into_iter()
                .find(|c| c.kind() == "type_name")
                .map(|c| self.lower(c))
                .unwrap_or_default();
            if all_children(node).iter().any(|c| c.kind() == "class")
                || self.lower(node).starts_with("class")
            {
                if name.is_empty() || self.text(node).contains('*') {
                    return self.unsupported(node, "unlimited polymorphic class(*)");
                }
                // Read as `type(name)`; `type_bound.rs` checks that no
                // type extends `name`, so the dynamic type is `name`.
                self.polymorphic
                    .borrow_mut()
                    .push((name.clone(), self.span(node)));
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
                        // Deferred length (`character(len=:), allocatable`):
                        // printed back as `len=:`; character data is
                        // passive, its statements copied.
                        ts.len = Some(Expr::Range {
                            lo: None,
                            hi: None,
                            stride: None,
                            span: self.span(val),
                        });
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

    pub(super) fn attr(&self, q: Node) -> FrontResult<Attr> {
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
            "value" => Attr::Value,
            "contiguous" => Attr::Contiguous,
            "protected" => Attr::Protected,
            "volatile" | "asynchronous" => {
                return self.unsupported(q, &format!("{first} attribute"))
            }
            _ => return self.unsupported(q, &format!("attribute '{}'", self.text(q))),
        })
    }

    pub(super) fn dims(&self, list: Node) -> FrontResult<Vec<DimSpec>> {
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

    pub(super) fn entity(&self, node: Node) -> FrontResult<EntityDecl> {
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
                let mut e = self.entity(left)?;
                // `p => null()`: the only pointer initialisation kept
                // (`=> target` would make a data target part of the alias
                // classes from the declaration on).
                if node.kind() == "pointer_init_declarator"
                    && !matches!(self.expr(right)?, Expr::Apply { ref name, ref args, .. } if name == "null" && args.is_empty())
                {
                    return self.unsupported(
                        node,
                        "pointer initialisation with a target (only => null())",
                    );
                }
                e.init = Some(self.expr(right)?);
                Ok(e)
            }
            other => self.unsupported(node, &format!("declarator {other}")),
        }
    }
}

/// The generic name of `operator(...)` / `assignment(=)` as written in an
/// interface or a `use` list: blanks removed, the letter forms of the
/// relational operators spelled as symbols (`operator(.eq.)` is
/// `operator(==)`, which the expression `a == b` looks up).
pub(super) fn operator_generic_name(text: &str) -> String {
    let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let symbol = [
        (".eq.", "=="),
        (".ne.", "/="),
        (".lt.", "<"),
        (".le.", "<="),
        (".gt.", ">"),
        (".ge.", ">="),
    ]
    .iter()
    .fold(squeezed, |t, (letters, symbol)| {
        t.replace(&format!("({letters})"), &format!("({symbol})"))
    });
    symbol
}
