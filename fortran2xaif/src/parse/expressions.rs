//! Expressions: tree-sitter expressions to `Expr`, actual arguments,
//! ranges and calls. Arithmetic is flattened into operands and operators
//! (`Tok`) and re-parsed by precedence climbing, which corrects the
//! grammar's binding of unary minus, `**` and `-x(1)`.

use crate::ast::*;
use tree_sitter::Node;

use super::{all_children, named_children, FortranParser};

/// A flattened piece of an arithmetic expression.
enum Tok {
    Operand(Expr),
    Prefix(UnOp, Span),
    Op(BinOp, Span),
}

impl<'a> FortranParser<'a> {
    pub(super) fn args(&self, list: Node) -> FrontResult<Vec<Arg>> {
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

    pub(super) fn range(&self, n: Node) -> FrontResult<Expr> {
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

    pub(super) fn expr(&self, n: Node) -> FrontResult<Expr> {
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
                        _ => items.push(self.expr(c)?),
                    }
                }
                Ok(Expr::ArrayCtor(items, span))
            }
            "extent_specifier" => self.range(n),
            "keyword_argument" => self.err(n, "keyword argument outside an argument list"),
            "implied_do_loop_expression" => self.implied_do(n),
            // `null()`: the intrinsic, in `p => null()` and `=> null()`
            // initialisations.
            "null_literal" => Ok(Expr::Apply {
                name: "null".into(),
                args: Vec::new(),
                span: self.span(n),
            }),
            "conditional_expression" => self.unsupported(n, "conditional expression"),
            "user_defined_operator" => self.unsupported(n, "user-defined operator"),
            "coarray_expression" => self.unsupported(n, "coarray"),
            other => self.unsupported(n, &format!("expression {other}")),
        }
    }

    /// `(items, var = lo, hi[, step])` in a constructor or an I/O list.
    pub(super) fn implied_do(&self, n: Node) -> FrontResult<Expr> {
        let span = self.span(n);
        let mut items = Vec::new();
        let mut control = None;
        for c in named_children(n) {
            match c.kind() {
                "comment" => {}
                "loop_control_expression" => control = Some(self.do_control(c)?),
                _ => items.push(self.expr(c)?),
            }
        }
        let control =
            control.ok_or_else(|| FrontError::new(span, "implied do loop without a control"))?;
        if items.is_empty() {
            return self.err(n, "implied do loop without items");
        }
        Ok(Expr::ImpliedDo {
            items,
            control: Box::new(control),
            span,
        })
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

    /// `a .op. b` / `.op. a` with a user-defined operator: a reference to
    /// the generic `operator(.op.)` (resolved to its specific function by
    /// the canonicaliser), an operand of the surrounding arithmetic.
    fn defined_operation(&self, n: Node) -> FrontResult<Option<Expr>> {
        let Some(op) = n.child_by_field_name("operator") else {
            return Ok(None);
        };
        if op.kind() != "user_defined_operator" {
            return Ok(None);
        }
        let operands: Vec<Node> = ["left", "right", "argument"]
            .iter()
            .filter_map(|f| n.child_by_field_name(f))
            .collect();
        let mut args = Vec::new();
        for operand in operands {
            args.push(Arg {
                keyword: None,
                value: self.expr(operand)?,
            });
        }
        let name = format!("operator({})", self.lower(op).replace(' ', ""));
        Ok(Some(Expr::Apply {
            name,
            args,
            span: self.span(n),
        }))
    }

    fn flatten(&self, n: Node, out: &mut Vec<Tok>) -> FrontResult<()> {
        if matches!(n.kind(), "math_expression" | "unary_expression") {
            if let Some(e) = self.defined_operation(n)? {
                out.push(Tok::Operand(e));
                return Ok(());
            }
        }
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
