//! `--default-real-8`: default real means `real(8)`, as gfortran's
//! `-fdefault-real-8 -fdefault-double-8` builds real codes.
//!
//! The pass rewrites the parsed files before the semantic model is built,
//! so every later stage (and the canonical source, which the back end and
//! the user's compiler see without any flag) says the kind explicitly:
//! - type specifications `real` / `complex` without a kind, in
//!   declarations, `implicit` rules, function prefixes and derived-type
//!   components, get kind 8 (`real*4`, `real(4)` stay what they say);
//! - real literals without a kind or `d` exponent become double precision
//!   literals (`1.0e-3` → `1.0d-3`, `2.` → `2.d0`), also inside complex
//!   literals and the text of opaque statements;
//! - `real(x)`, `float(x)`, `sngl(x)` become `real(x, kind=8)` and
//!   `cmplx(a, b)` gets `kind=8`.
//!
//! Names typed by the implicit rules are the semantic model's business
//! (`UnitInfo::default_real_8`). `double precision` stays real(8): with
//! `-fdefault-real-8` alone gfortran would make it real(16), which has no
//! derivative type (docs/frontend.md).

use crate::ast::*;

/// The kind default reals are promoted to.
const PROMOTED_KIND: i64 = 8;

/// Promotes every default real of `file` to real(8).
pub fn promote(file: &mut SourceFile) {
    for unit in &mut file.units {
        promote_unit(unit);
    }
}

fn promote_unit(unit: &mut Unit) {
    if let Some(ty) = &mut unit.result_type {
        promote_type(ty, unit.span);
    }
    for spec in &mut unit.spec {
        promote_spec(spec);
    }
    promote_stmts(&mut unit.body);
    for inner in &mut unit.contains {
        promote_unit(inner);
    }
}

fn promote_type(ty: &mut TypeSpec, span: Span) {
    if matches!(ty.base, BaseType::Real | BaseType::Complex) && ty.kind.is_none() {
        ty.kind = Some(Expr::int(PROMOTED_KIND, span));
    }
    if let Some(kind) = &mut ty.kind {
        promote_expr(kind);
    }
    if let Some(len) = &mut ty.len {
        promote_expr(len);
    }
}

fn promote_entities(entities: &mut [EntityDecl]) {
    for entity in entities {
        if let Some(dims) = &mut entity.dims {
            promote_dims(dims);
        }
        for e in entity.char_len.iter_mut().chain(entity.init.iter_mut()) {
            promote_expr(e);
        }
    }
}

fn promote_dims(dims: &mut [DimSpec]) {
    for dim in dims {
        match dim {
            DimSpec::Explicit { lo, hi } => {
                promote_expr(hi);
                if let Some(lo) = lo {
                    promote_expr(lo);
                }
            }
            DimSpec::Colon { lo } | DimSpec::AssumedSize { lo } => {
                if let Some(lo) = lo {
                    promote_expr(lo);
                }
            }
        }
    }
}

fn promote_spec(spec: &mut SpecStmt) {
    match spec {
        SpecStmt::TypeDecl {
            ty,
            attrs,
            entities,
            span,
        } => {
            promote_type(ty, *span);
            for attr in attrs {
                if let Attr::Dimension(dims) = attr {
                    promote_dims(dims);
                }
            }
            promote_entities(entities);
        }
        SpecStmt::Implicit(rules, span) => {
            for rule in rules {
                promote_type(&mut rule.ty, *span);
            }
        }
        SpecStmt::AttrStmt { attr, entities, .. } => {
            if let Attr::Dimension(dims) = attr {
                promote_dims(dims);
            }
            promote_entities(entities);
        }
        SpecStmt::Parameter(list, _) => list.iter_mut().for_each(|(_, e)| promote_expr(e)),
        SpecStmt::Common(blocks, _) => blocks
            .iter_mut()
            .for_each(|(_, entities)| promote_entities(entities)),
        SpecStmt::Data(sets, _) => {
            for set in sets {
                set.names.iter_mut().for_each(promote_expr);
                set.values.iter_mut().for_each(|(_, e)| promote_expr(e));
            }
        }
        SpecStmt::DerivedType {
            text, components, ..
        } => {
            *text = promote_type_keywords(text);
            components.iter_mut().for_each(promote_spec);
        }
        SpecStmt::Interface { bodies, .. } | SpecStmt::AbstractInterface { bodies, .. } => {
            bodies.iter_mut().for_each(promote_unit)
        }
        SpecStmt::StmtFunction { body, .. } => promote_expr(body),
        SpecStmt::Use { .. }
        | SpecStmt::ImplicitNone(_)
        | SpecStmt::SaveAll(_)
        | SpecStmt::DefaultAccess(..)
        | SpecStmt::ProcedureDecl { .. }
        | SpecStmt::Verbatim(..)
        | SpecStmt::Namelist { .. } => {}
    }
}

fn promote_stmts(stmts: &mut [Stmt]) {
    for stmt in stmts {
        match &mut stmt.kind {
            StmtKind::Assign { lhs, rhs } => {
                promote_expr(lhs);
                promote_expr(rhs);
            }
            StmtKind::Call { args, .. } => args.iter_mut().for_each(|a| promote_expr(&mut a.value)),
            StmtKind::If { arms, otherwise } => {
                for (condition, body) in arms {
                    promote_expr(condition);
                    promote_stmts(body);
                }
                if let Some(body) = otherwise {
                    promote_stmts(body);
                }
            }
            StmtKind::Do { control, body, .. } => {
                if let Some(control) = control {
                    promote_expr(&mut control.lo);
                    promote_expr(&mut control.hi);
                    if let Some(step) = &mut control.step {
                        promote_expr(step);
                    }
                }
                promote_stmts(body);
            }
            StmtKind::DoWhile { cond, body, .. } => {
                promote_expr(cond);
                promote_stmts(body);
            }
            StmtKind::Select { selector, cases } => {
                promote_expr(selector);
                for case in cases {
                    if let Some(values) = &mut case.values {
                        values.iter_mut().for_each(promote_expr);
                    }
                    promote_stmts(&mut case.body);
                }
            }
            StmtKind::Where { arms } => {
                for (mask, body) in arms {
                    if let Some(mask) = mask {
                        promote_expr(mask);
                    }
                    promote_stmts(body);
                }
            }
            StmtKind::Forall {
                controls,
                mask,
                body,
            } => {
                for control in controls {
                    promote_expr(&mut control.lo);
                    promote_expr(&mut control.hi);
                    if let Some(step) = &mut control.step {
                        promote_expr(step);
                    }
                }
                if let Some(mask) = mask {
                    promote_expr(mask);
                }
                promote_stmts(body);
            }
            StmtKind::Opaque {
                text,
                reads,
                writes,
                ..
            } => {
                *text = promote_literals_in_text(text);
                reads.iter_mut().for_each(promote_expr);
                writes.iter_mut().for_each(promote_expr);
            }
            StmtKind::Exit(_)
            | StmtKind::Cycle(_)
            | StmtKind::Goto(_)
            | StmtKind::Continue
            | StmtKind::Return => {}
        }
    }
}

fn promote_expr(e: &mut Expr) {
    match e {
        Expr::Lit(Literal::Real(text), _) => {
            if let Some(promoted) = promote_real_literal(text) {
                *text = promoted;
            }
        }
        Expr::Lit(Literal::Complex(text), _) => *text = promote_literals_in_text(text),
        Expr::Lit(..) | Expr::Name(..) => {}
        Expr::Apply { name, args, span } => {
            args.iter_mut().for_each(|a| promote_expr(&mut a.value));
            promote_conversion(name, args, *span);
        }
        Expr::Member { base, args, .. } => {
            promote_expr(base);
            if let Some(args) = args {
                args.iter_mut().for_each(|a| promote_expr(&mut a.value));
            }
        }
        Expr::Unary(_, inner, _) | Expr::Paren(inner, _) => promote_expr(inner),
        Expr::Binary(_, left, right, _) => {
            promote_expr(left);
            promote_expr(right);
        }
        Expr::Range { lo, hi, stride, .. } => {
            for part in [lo, hi, stride].into_iter().flatten() {
                promote_expr(part);
            }
        }
        Expr::ArrayCtor(items, _) => items.iter_mut().for_each(promote_expr),
        Expr::ImpliedDo { items, control, .. } => {
            items.iter_mut().for_each(promote_expr);
            promote_expr(&mut control.lo);
            promote_expr(&mut control.hi);
            if let Some(step) = &mut control.step {
                promote_expr(step);
            }
        }
    }
}

/// `real(x)`, `float(x)`, `sngl(x)` → `real(x, kind=8)`; `cmplx(a[, b])` →
/// `cmplx(a, b, kind=8)`. (An array of such a name would need a declared
/// `real` array: not Fortran anyone writes.)
fn promote_conversion(name: &mut String, args: &mut Vec<Arg>, span: Span) {
    let has_kind = args.iter().any(|a| a.keyword.as_deref() == Some("kind"));
    let positional = args.iter().filter(|a| a.keyword.is_none()).count();
    let to_real = matches!(name.as_str(), "real" | "float" | "sngl") && positional == 1;
    let to_complex = name == "cmplx" && positional <= 2;
    if has_kind || !(to_real || to_complex) {
        return;
    }
    if to_real {
        *name = "real".to_string();
    }
    args.push(Arg {
        keyword: Some("kind".to_string()),
        value: Expr::int(PROMOTED_KIND, span),
    });
}

/// A default real literal as a double precision one (`None` when it has a
/// kind or a `d` exponent already).
pub fn promote_real_literal(text: &str) -> Option<String> {
    if text.contains('_') || text.contains(['d', 'D']) {
        return None;
    }
    Some(match text.find(['e', 'E']) {
        Some(at) => format!("{}d{}", &text[..at], &text[at + 1..]),
        None => format!("{text}d0"),
    })
}

/// Rewrites the default real literals of a piece of Fortran statement text
/// (outside strings, not inside names, not the `1` of `1.eq.x`).
pub fn promote_literals_in_text(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 8);
    let mut i = 0;
    let mut quote: Option<u8> = None;
    while i < bytes.len() {
        let c = bytes[i];
        if let Some(q) = quote {
            let ch = text[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            if c == q {
                quote = None;
            }
            i += ch.len_utf8();
            continue;
        }
        if c == b'\'' || c == b'"' {
            quote = Some(c);
            out.push(c as char);
            i += 1;
            continue;
        }
        let after_name = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let starts_number =
            c.is_ascii_digit() || (c == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit));
        if !starts_number || after_name {
            let ch = text[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
            continue;
        }
        let end = number_end(bytes, i);
        let token = &text[i..end];
        let is_real = token.contains(['.', 'e', 'E', 'd', 'D']);
        match promote_real_literal(token).filter(|_| is_real) {
            Some(promoted) => out.push_str(&promoted),
            None => out.push_str(token),
        }
        i = end;
    }
    out
}

/// End of the numeric literal starting at `start`: digits, a `.` that is
/// not the start of an operator like `.eq.`, digits, an exponent, a kind.
fn number_end(bytes: &[u8], start: usize) -> usize {
    let digits = |mut i: usize| {
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let mut i = digits(start);
    if bytes.get(i) == Some(&b'.') && !starts_operator(bytes, i) {
        i = digits(i + 1);
    }
    if let Some(&e) = bytes.get(i) {
        if matches!(e, b'e' | b'E' | b'd' | b'D') {
            let mut j = i + 1;
            if matches!(bytes.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
            if bytes.get(j).is_some_and(u8::is_ascii_digit) {
                i = digits(j);
            }
        }
    }
    if bytes.get(i) == Some(&b'_') {
        i += 1;
        while bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            i += 1;
        }
    }
    i
}

/// Is the `.` at `dot` the start of `.eq.`, `.and.`, ... (letters, then a dot)?
fn starts_operator(bytes: &[u8], dot: usize) -> bool {
    let mut i = dot + 1;
    while bytes.get(i).is_some_and(u8::is_ascii_alphabetic) {
        i += 1;
    }
    i > dot + 1 && bytes.get(i) == Some(&b'.')
}

/// In derived-type definition text: `real` / `complex` type keywords
/// without a kind at the start of a component declaration get `(8)`, and
/// literals (default initialisations) are promoted.
fn promote_type_keywords(text: &str) -> String {
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let indent = line.len() - line.trim_start().len();
            let body = &line[indent..];
            let lower = body.to_ascii_lowercase();
            for keyword in ["real", "complex"] {
                if let Some(rest) = lower.strip_prefix(keyword) {
                    let next = rest.trim_start().chars().next();
                    let unkinded = matches!(next, Some(',' | ':')) || {
                        // `real x` (old style): a blank then a name.
                        rest.starts_with([' ', '\t'])
                            && next.is_some_and(|c| c.is_ascii_alphabetic())
                    };
                    if unkinded {
                        let (word, tail) = body.split_at(keyword.len());
                        return format!(
                            "{}{word}({PROMOTED_KIND}){}",
                            &line[..indent],
                            promote_literals_in_text(tail)
                        );
                    }
                }
            }
            format!("{}{}", &line[..indent], promote_literals_in_text(body))
        })
        .collect();
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        assert_eq!(promote_real_literal("1.0e-3").as_deref(), Some("1.0d-3"));
        assert_eq!(promote_real_literal("2.").as_deref(), Some("2.d0"));
        assert_eq!(promote_real_literal(".5E2").as_deref(), Some(".5d2"));
        assert_eq!(promote_real_literal("1.5d0"), None);
        assert_eq!(promote_real_literal("1.5_4"), None);
        assert_eq!(promote_real_literal("1.5_wp"), None);
    }

    #[test]
    fn literals_in_statement_text() {
        assert_eq!(
            promote_literals_in_text("print *, 'x = 1.5', 2.5*x1, 3, 1.e3, 4.0_4"),
            "print *, 'x = 1.5', 2.5d0*x1, 3, 1.d3, 4.0_4"
        );
        assert_eq!(
            promote_literals_in_text("if (n.eq.1.and.x.gt.0.5) stop"),
            "if (n.eq.1.and.x.gt.0.5d0) stop"
        );
        assert_eq!(promote_literals_in_text("(1.0, -2.5e1)"), "(1.0d0, -2.5d1)");
        assert_eq!(promote_literals_in_text("a2.5 = 7"), "a2.5 = 7");
    }

    #[test]
    fn derived_type_components() {
        let text = "type cell\n  real :: t = 1.5\n  real(4) :: s\n  REAL, dimension(3) :: v\n  real w\n  integer :: n\nend type cell";
        assert_eq!(
            promote_type_keywords(text),
            "type cell\n  real(8) :: t = 1.5d0\n  real(4) :: s\n  REAL(8), dimension(3) :: v\n  real(8) w\n  integer :: n\nend type cell"
        );
    }

    #[test]
    fn declarations_conversions_and_literals_of_a_unit() {
        let mut file = crate::parse::parse_file(
            "subroutine s(x, n)\n  implicit real (a-h)\n  real :: x(n), z\n  real*4 :: w\n  complex :: c\n  integer :: n\n  z = real(n) * 1.0e-3 + float(n) + real(n, 4)\n  c = cmplx(z, 2.0)\n  w = 2.0\n  print *, 0.5\nend\n",
            0,
        )
        .unwrap();
        promote(&mut file);
        let unit = &file.units[0];
        let kinds: Vec<String> = unit
            .spec
            .iter()
            .filter_map(|s| match s {
                SpecStmt::TypeDecl { ty, .. } => Some(crate::unparse::type_spec(ty)),
                SpecStmt::Implicit(rules, _) => Some(crate::unparse::type_spec(&rules[0].ty)),
                _ => None,
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "real(kind=8)",
                "real(kind=8)",
                "real(kind=4)",
                "complex(kind=8)",
                "integer"
            ]
        );
        let texts: Vec<String> = unit
            .body
            .iter()
            .map(|s| match &s.kind {
                StmtKind::Assign { rhs, .. } => crate::unparse::expr(rhs),
                StmtKind::Opaque { text, .. } => text.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            texts,
            [
                "real(n, kind=8) * 1.0d-3 + real(n, kind=8) + real(n, 4)",
                "cmplx(z, 2.0d0, kind=8)",
                "2.0d0",
                "print *, 0.5d0"
            ]
        );
    }
}
