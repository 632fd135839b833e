//! Printing the AST back as free-form Fortran (canonical source and the
//! text of opaque statements the canonicaliser builds).

use crate::ast::*;

fn prec(e: &Expr) -> u8 {
    match e {
        Expr::Binary(op, ..) => match op {
            BinOp::Eqv | BinOp::Neqv => 1,
            BinOp::Or => 2,
            BinOp::And => 3,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => 5,
            BinOp::Concat => 6,
            BinOp::Add | BinOp::Sub => 7,
            BinOp::Mul | BinOp::Div => 8,
            BinOp::Pow => 10,
        },
        Expr::Unary(UnOp::Not, ..) => 4,
        Expr::Unary(..) => 7,
        _ => 12,
    }
}

pub fn expr(e: &Expr) -> String {
    match e {
        Expr::Lit(l, _) => match l {
            Literal::Int(t) | Literal::Real(t) | Literal::Str(t) | Literal::Complex(t) => t.clone(),
            Literal::Logical(true) => ".true.".into(),
            Literal::Logical(false) => ".false.".into(),
        },
        Expr::Name(n, _) if n.contains('%') => crate::components::path_text(n, None),
        Expr::Name(n, _) => n.clone(),
        Expr::Apply { name, args, .. } if name.contains('%') => {
            let subs: Vec<String> = args.iter().map(|a| expr(&a.value)).collect();
            crate::components::path_text(name, Some(&subs))
        }
        Expr::Apply { name, args, .. } => format!("{name}({})", args_text(args)),
        Expr::Member {
            base, field, args, ..
        } => {
            let b = expr(base);
            match args {
                Some(a) => format!("{b}%{field}({})", args_text(a)),
                None => format!("{b}%{field}"),
            }
        }
        Expr::Unary(op, x, _) => {
            let inner = if prec(x) <= prec(e) {
                format!("({})", expr(x))
            } else {
                expr(x)
            };
            match op {
                UnOp::Neg => format!("-{inner}"),
                UnOp::Plus => format!("+{inner}"),
                UnOp::Not => format!(".not. {inner}"),
            }
        }
        Expr::Binary(op, l, r, _) => {
            let p = prec(e);
            // Left operand: parenthesise looser operators (and for the
            // right-associative power, equal ones too).
            let lt = if prec(l) < p
                || (*op == BinOp::Pow && prec(l) <= p)
                || matches!(**l, Expr::Unary(..)) && p >= 7
            {
                format!("({})", expr(l))
            } else {
                expr(l)
            };
            let rt = if prec(r) < p
                || (prec(r) == p && *op != BinOp::Pow)
                || matches!(**r, Expr::Unary(..))
            {
                format!("({})", expr(r))
            } else {
                expr(r)
            };
            let sep = " ";
            format!("{lt}{sep}{}{sep}{rt}", op.fortran())
        }
        Expr::Paren(x, _) => format!("({})", expr(x)),
        Expr::Range { lo, hi, stride, .. } => {
            let mut s = String::new();
            if let Some(l) = lo {
                s.push_str(&expr(l));
            }
            s.push(':');
            if let Some(h) = hi {
                s.push_str(&expr(h));
            }
            if let Some(st) = stride {
                s.push(':');
                s.push_str(&expr(st));
            }
            s
        }
        Expr::ArrayCtor(items, _) => {
            format!(
                "(/ {} /)",
                items.iter().map(expr).collect::<Vec<_>>().join(", ")
            )
        }
        Expr::ImpliedDo { items, control, .. } => {
            let mut s = format!(
                "({}, {} = {}, {}",
                items.iter().map(expr).collect::<Vec<_>>().join(", "),
                control.var,
                expr(&control.lo),
                expr(&control.hi)
            );
            if let Some(st) = &control.step {
                s.push_str(", ");
                s.push_str(&expr(st));
            }
            s.push(')');
            s
        }
    }
}

pub fn args_text(args: &[Arg]) -> String {
    args.iter()
        .map(|a| match &a.keyword {
            Some(k) => format!("{k}={}", expr(&a.value)),
            None => expr(&a.value),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn type_spec(t: &TypeSpec) -> String {
    let kind = t.kind.as_ref().map(expr);
    match &t.base {
        BaseType::Integer => match kind {
            Some(k) => format!("integer(kind={k})"),
            None => "integer".into(),
        },
        BaseType::Real => match kind {
            Some(k) => format!("real(kind={k})"),
            None => "real".into(),
        },
        BaseType::DoublePrecision => "double precision".into(),
        BaseType::Complex => match kind {
            Some(k) => format!("complex(kind={k})"),
            None => "complex".into(),
        },
        BaseType::DoubleComplex => "complex(kind=8)".into(),
        BaseType::Logical => match kind {
            Some(k) => format!("logical(kind={k})"),
            None => "logical".into(),
        },
        BaseType::Character => {
            let len = if t.len_star {
                Some("*".to_string())
            } else {
                t.len.as_ref().map(expr)
            };
            match (len, kind) {
                (Some(l), Some(k)) => format!("character(len={l}, kind={k})"),
                (Some(l), None) => format!("character(len={l})"),
                (None, Some(k)) => format!("character(kind={k})"),
                (None, None) => "character".into(),
            }
        }
        BaseType::Derived(n) => format!("type({n})"),
    }
}

pub fn dims(d: &[DimSpec]) -> String {
    d.iter()
        .map(|x| match x {
            DimSpec::Explicit { lo: Some(l), hi } => format!("{}:{}", expr(l), expr(hi)),
            DimSpec::Explicit { lo: None, hi } => expr(hi),
            DimSpec::Colon { lo: Some(l) } => format!("{}:", expr(l)),
            DimSpec::Colon { lo: None } => ":".into(),
            DimSpec::AssumedSize { lo: Some(l) } => format!("{}:*", expr(l)),
            DimSpec::AssumedSize { lo: None } => "*".into(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_file;

    fn roundtrip(rhs: &str) -> String {
        let f = parse_file(&format!("subroutine s\n z = {rhs}\nend\n"), 0).unwrap();
        match &f.units[0].body[0].kind {
            StmtKind::Assign { rhs, .. } => expr(rhs),
            _ => unreachable!(),
        }
    }

    #[test]
    fn precedence_is_preserved() {
        assert_eq!(roundtrip("-a**2"), "-a ** 2");
        assert_eq!(roundtrip("a - (b - c)"), "a - (b - c)");
        assert_eq!(roundtrip("(a**b)**c"), "(a ** b) ** c");
        assert_eq!(roundtrip("a**b**c"), "a ** b ** c");
        assert_eq!(roundtrip("a * (-b)"), "a * (-b)");
        assert_eq!(roundtrip("x(i, 2:n) + sin(y)"), "x(i, 2:n) + sin(y)");
    }
}
