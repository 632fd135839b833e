//! Names replaced by designators throughout a block of statements: the
//! associate names of an `associate` construct by their selectors, the
//! locals of a `block` construct by their hoisted names
//! (`constructs.rs`). A reference through the name's own subscripts,
//! `q(i)` with `q => s%q(:, k)`, addresses the selector's section:
//! `s%q(lo + (i - 1) * stride, k)`. Verbatim statement text (I/O, ...) is
//! rewritten token by token, except subscripts of a name standing for a
//! section (refused by name).

use crate::ast::*;

use super::unparse;

/// Each name and what it stands for (a variable, an element, a section or
/// a component of one).
pub(super) struct Substitution {
    pub(super) names: Vec<(String, Expr)>,
}

fn unsupported<T>(span: Span, what: String) -> FrontResult<T> {
    Err(FrontError::unsupported(
        span,
        format!("unsupported construct: {what}"),
    ))
}

/// The subscripts of a designator's last part, if it has any.
fn last_subscripts(e: &Expr) -> Option<&Vec<Arg>> {
    match e {
        Expr::Apply { args, .. } => Some(args),
        Expr::Member { args, .. } => args.as_ref(),
        _ => None,
    }
}

/// Does the designator's last part select a section (a triplet)?
fn is_section(e: &Expr) -> bool {
    last_subscripts(e).is_some_and(|a| a.iter().any(|a| matches!(a.value, Expr::Range { .. })))
}

/// The designator without its last part's subscripts (the array whose
/// bounds a `:` triplet takes).
fn without_subscripts(e: &Expr) -> Expr {
    match e {
        Expr::Apply { name, span, .. } => Expr::Name(name.clone(), *span),
        Expr::Member {
            base, field, span, ..
        } => Expr::Member {
            base: base.clone(),
            field: field.clone(),
            args: None,
            span: *span,
        },
        other => other.clone(),
    }
}

fn add(a: Expr, b: Expr, span: Span) -> Expr {
    Expr::Binary(BinOp::Add, Box::new(a), Box::new(b), span)
}

fn mul(a: Expr, b: Expr, span: Span) -> Expr {
    Expr::Binary(BinOp::Mul, Box::new(a), Box::new(b), span)
}

fn paren(e: Expr, span: Span) -> Expr {
    match e {
        Expr::Name(..) | Expr::Lit(..) | Expr::Apply { .. } | Expr::Paren(..) => e,
        e => Expr::Paren(Box::new(e), span),
    }
}

impl Substitution {
    fn get(&self, n: &str) -> Option<&Expr> {
        self.names.iter().find(|(m, _)| m == n).map(|(_, e)| e)
    }

    pub(super) fn stmts(&self, stmts: &mut [Stmt]) -> FrontResult<()> {
        stmts.iter_mut().try_for_each(|s| self.stmt(s))
    }

    fn var(&self, v: &mut String, span: Span) -> FrontResult<()> {
        match self.get(v) {
            None => Ok(()),
            Some(Expr::Name(n, _)) => {
                *v = n.clone();
                Ok(())
            }
            Some(_) => unsupported(
                span,
                format!("associate name '{v}' of a component, element or section as a loop index"),
            ),
        }
    }

    fn control(&self, c: &mut DoControl, span: Span) -> FrontResult<()> {
        self.var(&mut c.var, span)?;
        self.in_place(&mut c.lo)?;
        self.in_place(&mut c.hi)?;
        if let Some(s) = &mut c.step {
            self.in_place(s)?;
        }
        Ok(())
    }

    fn in_place(&self, e: &mut Expr) -> FrontResult<()> {
        let x = std::mem::replace(e, Expr::int(0, Span::default()));
        *e = self.expr(x)?;
        Ok(())
    }

    fn stmt(&self, s: &mut Stmt) -> FrontResult<()> {
        let span = s.span;
        match &mut s.kind {
            StmtKind::Assign { lhs, rhs } => {
                self.in_place(lhs)?;
                self.in_place(rhs)
            }
            StmtKind::Call { args, .. } => args
                .iter_mut()
                .try_for_each(|a| self.in_place(&mut a.value)),
            StmtKind::If { arms, otherwise } => {
                for (c, b) in arms {
                    self.in_place(c)?;
                    self.stmts(b)?;
                }
                match otherwise {
                    Some(b) => self.stmts(b),
                    None => Ok(()),
                }
            }
            StmtKind::Do { control, body, .. } => {
                if let Some(c) = control {
                    self.control(c, span)?;
                }
                self.stmts(body)
            }
            StmtKind::DoWhile { cond, body, .. } => {
                self.in_place(cond)?;
                self.stmts(body)
            }
            StmtKind::Select { selector, cases } => {
                self.in_place(selector)?;
                for c in cases {
                    if let Some(v) = &mut c.values {
                        v.iter_mut().try_for_each(|x| self.in_place(x))?;
                    }
                    self.stmts(&mut c.body)?;
                }
                Ok(())
            }
            StmtKind::Where { arms } => {
                for (m, b) in arms {
                    if let Some(m) = m {
                        self.in_place(m)?;
                    }
                    self.stmts(b)?;
                }
                Ok(())
            }
            StmtKind::Forall {
                controls,
                mask,
                body,
            } => {
                for c in controls {
                    self.control(c, span)?;
                }
                if let Some(m) = mask {
                    self.in_place(m)?;
                }
                self.stmts(body)
            }
            StmtKind::Opaque {
                text,
                reads,
                writes,
                ..
            } => {
                *text = self.text(text, span)?;
                reads.iter_mut().try_for_each(|x| self.in_place(x))?;
                writes.iter_mut().try_for_each(|x| self.in_place(x))
            }
            StmtKind::Exit(_)
            | StmtKind::Cycle(_)
            | StmtKind::Goto(_)
            | StmtKind::Continue
            | StmtKind::Return => Ok(()),
        }
    }

    pub(super) fn expr(&self, e: Expr) -> FrontResult<Expr> {
        let args = |a: Vec<Arg>| -> FrontResult<Vec<Arg>> {
            a.into_iter()
                .map(|a| {
                    Ok(Arg {
                        keyword: a.keyword,
                        value: self.expr(a.value)?,
                    })
                })
                .collect()
        };
        let boxed = |x: Box<Expr>| -> FrontResult<Box<Expr>> { Ok(Box::new(self.expr(*x)?)) };
        Ok(match e {
            Expr::Name(n, sp) => match self.get(&n) {
                Some(sel) => sel.clone(),
                None => Expr::Name(n, sp),
            },
            Expr::Apply {
                name,
                args: a,
                span,
            } => {
                let a = args(a)?;
                match self.get(&name) {
                    Some(sel) => self.subscripted(&name, sel, a, span)?,
                    None => Expr::Apply {
                        name,
                        args: a,
                        span,
                    },
                }
            }
            Expr::Member {
                base,
                field,
                args: a,
                span,
            } => Expr::Member {
                base: boxed(base)?,
                field,
                args: a.map(args).transpose()?,
                span,
            },
            Expr::Unary(op, x, sp) => Expr::Unary(op, boxed(x)?, sp),
            Expr::Binary(op, l, r, sp) => Expr::Binary(op, boxed(l)?, boxed(r)?, sp),
            Expr::Paren(x, sp) => Expr::Paren(boxed(x)?, sp),
            Expr::Range {
                lo,
                hi,
                stride,
                span,
            } => Expr::Range {
                lo: lo.map(boxed).transpose()?,
                hi: hi.map(boxed).transpose()?,
                stride: stride.map(boxed).transpose()?,
                span,
            },
            Expr::ArrayCtor(items, sp) => Expr::ArrayCtor(
                items
                    .into_iter()
                    .map(|x| self.expr(x))
                    .collect::<FrontResult<_>>()?,
                sp,
            ),
            Expr::ImpliedDo {
                items,
                control,
                span,
            } => {
                let mut control = *control;
                self.control(&mut control, span)?;
                Expr::ImpliedDo {
                    items: items
                        .into_iter()
                        .map(|x| self.expr(x))
                        .collect::<FrontResult<_>>()?,
                    control: Box::new(control),
                    span,
                }
            }
            lit @ Expr::Lit(..) => lit,
        })
    }

    /// `name(args)` where `name` stands for `sel`.
    fn subscripted(&self, name: &str, sel: &Expr, args: Vec<Arg>, span: Span) -> FrontResult<Expr> {
        if args.iter().any(|a| a.keyword.is_some()) {
            return unsupported(span, format!("keyword subscript of '{name}'"));
        }
        match sel {
            Expr::Name(n, _) => {
                return Ok(Expr::Apply {
                    name: n.clone(),
                    args,
                    span,
                })
            }
            Expr::Member {
                base,
                field,
                args: None,
                ..
            } => {
                return Ok(Expr::Member {
                    base: base.clone(),
                    field: field.clone(),
                    args: Some(args),
                    span,
                })
            }
            _ => {}
        }
        if !is_section(sel) {
            return unsupported(
                span,
                format!("subscripts of associate name '{name}', whose selector is not an array"),
            );
        }
        let outer = last_subscripts(sel).cloned().unwrap_or_default();
        let array = without_subscripts(sel);
        let sections = outer
            .iter()
            .filter(|a| matches!(a.value, Expr::Range { .. }))
            .count();
        if sections != args.len() {
            return unsupported(
                span,
                format!("'{name}' has rank {sections} but {} subscripts", args.len()),
            );
        }
        let mut inner = args.into_iter();
        let mut composed = Vec::new();
        for (d, a) in outer.into_iter().enumerate() {
            let Expr::Range {
                lo,
                hi,
                stride,
                span: rs,
            } = a.value
            else {
                composed.push(a);
                continue;
            };
            // Where index 1 of the associate name lies in the array.
            let first = match lo {
                Some(l) => *l,
                None => Expr::Apply {
                    name: "lbound".into(),
                    args: vec![
                        Arg {
                            keyword: None,
                            value: array.clone(),
                        },
                        Arg {
                            keyword: None,
                            value: Expr::int(d as i64 + 1, rs),
                        },
                    ],
                    span: rs,
                },
            };
            let at = |j: Expr| -> Expr {
                let off = paren(
                    Expr::Binary(BinOp::Sub, Box::new(j), Box::new(Expr::int(1, rs)), rs),
                    rs,
                );
                let off = match &stride {
                    Some(s) => mul(off, paren((**s).clone(), rs), rs),
                    None => off,
                };
                add(first.clone(), off, rs)
            };
            let value = match inner.next().expect("counted").value {
                Expr::Range {
                    lo: l2,
                    hi: h2,
                    stride: s2,
                    span: sp2,
                } => Expr::Range {
                    lo: Some(Box::new(match l2 {
                        Some(l) => at(*l),
                        None => first.clone(),
                    })),
                    hi: match h2 {
                        Some(h) => Some(Box::new(at(*h))),
                        None => hi.clone(),
                    },
                    stride: match (&stride, s2) {
                        (None, s) => s,
                        (Some(s), None) => Some(s.clone()),
                        (Some(s), Some(t)) => Some(Box::new(mul(
                            paren((**s).clone(), sp2),
                            paren(*t, sp2),
                            sp2,
                        ))),
                    },
                    span: sp2,
                },
                j => at(j),
            };
            composed.push(Arg {
                keyword: None,
                value,
            });
        }
        Ok(match array {
            Expr::Name(n, _) => Expr::Apply {
                name: n,
                args: composed,
                span,
            },
            Expr::Member { base, field, .. } => Expr::Member {
                base,
                field,
                args: Some(composed),
                span,
            },
            _ => unreachable!("sections are of names and components"),
        })
    }

    /// Verbatim statement text with the names replaced token by token.
    fn text(&self, text: &str, span: Span) -> FrontResult<String> {
        let mut out = String::with_capacity(text.len());
        let chars: Vec<char> = text.chars().collect();
        let mut i = 0;
        let mut depth = 0usize;
        while i < chars.len() {
            let c = chars[i];
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ => {}
            }
            if c == '\'' || c == '"' {
                // A character literal ('' or "" doubled inside).
                let start = i;
                i += 1;
                while i < chars.len() {
                    if chars[i] == c {
                        if chars.get(i + 1) == Some(&c) {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                i = (i + 1).min(chars.len());
                out.extend(&chars[start..i]);
                continue;
            }
            if c.is_ascii_digit() {
                // A number with its exponent and kind (`1.5d-3`, `2_8`).
                let start = i;
                while i < chars.len()
                    && (chars[i].is_ascii_alphanumeric()
                        || chars[i] == '_'
                        || chars[i] == '.'
                        || ((chars[i] == '+' || chars[i] == '-')
                            && matches!(chars[i - 1], 'd' | 'D' | 'e' | 'E')))
                {
                    i += 1;
                }
                out.extend(&chars[start..i]);
                continue;
            }
            if c.is_ascii_alphabetic() {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                // Components (`s%h`), operators (`.and.`) and keywords
                // (`unit=`) are not variables.
                let before = chars[..start].iter().rev().find(|c| !c.is_whitespace());
                let next = (i..chars.len()).find(|&k| !chars[k].is_whitespace());
                // `unit=` inside the parentheses of an I/O control list.
                let keyword = depth > 0
                    && next.is_some_and(|k| {
                        chars[k] == '=' && !matches!(chars.get(k + 1), Some('=') | Some('>'))
                    });
                let not_a_variable = matches!(before, Some('%') | Some('.')) || keyword;
                match self.get(&word.to_ascii_lowercase()) {
                    Some(sel) if !not_a_variable => {
                        let open = next.filter(|&k| chars[k] == '(');
                        if let (true, Some(open)) = (is_section(sel), open) {
                            // `tr(i)` of a section: its subscripts composed
                            // with the section's, as for expressions.
                            let Some(close) = closing(&chars, open) else {
                                return unsupported(
                                    span,
                                    format!("unbalanced parentheses after '{word}'"),
                                );
                            };
                            let inner: String = chars[open + 1..close].iter().collect();
                            let inner = self.text(&inner, span)?;
                            let args = split_subscripts(&inner, span);
                            let e = self.subscripted(&word, sel, args, span)?;
                            out.push_str(&unparse::expr(&e));
                            i = close + 1;
                            continue;
                        }
                        out.push_str(&unparse::expr(sel));
                    }
                    _ => out.push_str(&word),
                }
                continue;
            }
            out.push(c);
            i += 1;
        }
        Ok(out)
    }
}

/// The position of the parenthesis closing the one at `open`.
fn closing(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &c) in chars.iter().enumerate().skip(open) {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// Subscript text split at its top-level commas and colons, each piece
/// kept as verbatim text (a name that unparses as itself, parenthesised).
fn split_subscripts(text: &str, span: Span) -> Vec<Arg> {
    let piece = |s: &str| -> Option<Box<Expr>> {
        let s = s.trim();
        (!s.is_empty()).then(|| {
            let simple = s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            let t = if simple {
                s.to_string()
            } else {
                format!("({s})")
            };
            Box::new(Expr::Name(t, span))
        })
    };
    let mut args = Vec::new();
    let mut depth = 0usize;
    let mut parts: Vec<String> = vec![String::new()];
    let mut finish = |parts: &mut Vec<String>| {
        let value = if parts.len() == 1 {
            *piece(&parts[0]).unwrap_or_else(|| Box::new(Expr::Name(String::new(), span)))
        } else {
            Expr::Range {
                lo: piece(&parts[0]),
                hi: piece(&parts[1]),
                stride: parts.get(2).and_then(|s| piece(s)),
                span,
            }
        };
        args.push(Arg {
            keyword: None,
            value,
        });
        *parts = vec![String::new()];
    };
    for c in text.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                finish(&mut parts);
                continue;
            }
            ':' if depth == 0 => {
                parts.push(String::new());
                continue;
            }
            _ => {}
        }
        parts.last_mut().expect("one part at least").push(c);
    }
    finish(&mut parts);
    args
}
