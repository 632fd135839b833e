//! Calls of black boxes: routines without source the user declared with
//! `--black-box` (docs/user-guide.md, "Routines without source"). The
//! front end keeps such a call as an opaque statement whose marker
//! annotation describes it (docs/xaif.md, "Black-box calls"):
//! `canon:ID;blackbox:NAME;tangent:T;adjoint:A;args:in,inout*,...` (or
//! `;passive;` instead of the two routines), one intent per argument, `*`
//! for the active ones. Every real variable passed to a differentiable
//! black box is declared active.
//!
//! | mode, section | code |
//! |---|---|
//! | `f` | `call T(..., x%v, x%d, ...)`: each active argument followed by its derivative |
//! | `fv` | the values of `inout` arguments copied, then `call T(..., x%v, x%d(j), ...)` for each direction `j`, the copies put back before every call but the first |
//! | `rs`/`rj`, plain | `call NAME(..., x%v, ...)` |
//! | `rs`/`rj`, tape | the `in`/`inout` variables stored on the checkpoint stacks, then `call NAME(...)` |
//! | `rs`/`rj`, mirror (reverse sweep) | restored (reverse order), `call A(..., x%v, x%d, ...)` with `x%d` the adjoints, then the adjoints of `intent(out)` active arguments zeroed |
//!
//! A passive black box is called on values in every mode; the
//! derivatives (adjoints at its mirror) of the active variables it may
//! write are zeroed: they no longer depend on anything differentiable.
//!
//! The stores sit at the statement's position in the tape section and
//! the restores at its mirror, the statement's exact reverse position, so
//! they nest with every other use of the checkpoint stacks (argument
//! checkpoints of joint mode, call-site checkpoints) in LIFO order.

use xaif_schema::{Marker, SymbolType};

use super::UnitGen;
use crate::error::Result;
use crate::fortran_text::add_value_suffix;
use crate::markers::{AnnotationError, BLACK_BOX_KEY};
use crate::template::Section;
use crate::Mode;

/// What the marker annotation says about a black-box call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlackBoxCall {
    pub name: String,
    /// `(tangent, adjoint)`; `None` for a passive black box.
    pub derivatives: Option<(String, String)>,
    pub args: Vec<ArgInfo>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArgInfo {
    /// The routine reads the argument's value.
    pub reads: bool,
    /// The routine may change it.
    pub writes: bool,
    /// Carries a derivative.
    pub active: bool,
}

/// Reads `blackbox:NAME;...;args:...`; `Err` names what is malformed.
pub fn parse_black_box(text: &str) -> std::result::Result<BlackBoxCall, AnnotationError> {
    let mut name = None;
    let mut tangent = None;
    let mut adjoint = None;
    let mut passive = false;
    let mut args = None;
    for part in text.split(';') {
        if let Some(n) = part.strip_prefix(BLACK_BOX_KEY) {
            name = Some(n.trim().to_string());
        } else if let Some(t) = part.strip_prefix("tangent:") {
            tangent = Some(t.trim().to_string());
        } else if let Some(a) = part.strip_prefix("adjoint:") {
            adjoint = Some(a.trim().to_string());
        } else if part.trim() == "passive" {
            passive = true;
        } else if let Some(list) = part.strip_prefix("args:") {
            let mut parsed = Vec::new();
            for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                let (intent, active) = match item.strip_suffix('*') {
                    Some(i) => (i, true),
                    None => (item, false),
                };
                let (reads, writes) = match intent {
                    "in" => (true, false),
                    "out" => (false, true),
                    "inout" => (true, true),
                    other => return Err(AnnotationError::UnknownIntent(other.to_string())),
                };
                parsed.push(ArgInfo {
                    reads,
                    writes,
                    active,
                });
            }
            args = Some(parsed);
        } else {
            return Err(AnnotationError::UnknownPart(part.to_string()));
        }
    }
    let name = name.ok_or(AnnotationError::Missing("no blackbox:NAME"))?;
    let args = args.ok_or(AnnotationError::Missing("no args:"))?;
    let derivatives = match (passive, tangent, adjoint) {
        (true, None, None) => None,
        (false, Some(t), Some(a)) => Some((t, a)),
        _ => return Err(AnnotationError::PassiveOrDerivatives),
    };
    Ok(BlackBoxCall {
        name,
        derivatives,
        args,
    })
}

/// A statement continued over several lines (`&` at the end of a line,
/// optionally at the start of the next) as one line.
fn join_continued(source: &str) -> String {
    let lines: Vec<&str> = source
        .lines()
        .enumerate()
        .map(|(k, l)| {
            let l = l.trim_end();
            let l = l.strip_suffix('&').unwrap_or(l).trim_end();
            if k == 0 {
                l
            } else {
                let l = l.trim_start();
                l.strip_prefix('&').unwrap_or(l).trim_start()
            }
        })
        .collect();
    lines.join(" ")
}

/// The actual arguments of `call NAME(a, b(1, 2), c)`, as written
/// (continuation lines joined).
pub(crate) fn call_actuals(source: &str) -> Option<Vec<String>> {
    let source = &join_continued(source);
    let open = source.find('(')?;
    let close = source.rfind(')')?;
    let inner = &source[open + 1..close];
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut current = String::new();
    for c in inner.chars() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => depth -= 1,
            (None, ',') if depth == 0 => {
                parts.push(std::mem::take(&mut current).trim().to_string());
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        parts.push(current.trim().to_string());
    }
    Some(parts)
}

fn is_identifier(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

const WHY: &str = "while the adjoint reversed a black-box call";

impl UnitGen<'_, '_> {
    /// The code of a black-box call (`source`: its canonical statement,
    /// label removed) at its position, or at its mirror in the reverse
    /// sweep.
    pub(crate) fn black_box_statement(
        &mut self,
        source: &str,
        description: &str,
        mirror: bool,
        m: &Marker,
    ) -> Result<()> {
        let located = |gen: &Self, message: String| {
            gen.env
                .xaif
                .error(&format!("statement_id=\"{}\"", m.statement_id), message)
        };
        let call = parse_black_box(description).map_err(|e| {
            located(
                self,
                format!("malformed black-box annotation '{description}': {e}"),
            )
        })?;
        let actuals = call_actuals(source)
            .filter(|a| a.len() == call.args.len())
            .ok_or_else(|| {
                located(
                    self,
                    format!(
                        "black-box call '{}' does not match its annotation ({} arguments)",
                        source.trim(),
                        call.args.len()
                    ),
                )
            })?;
        for (a, info) in actuals.iter().zip(&call.args) {
            if info.active && call.derivatives.is_some() && !(is_identifier(a) && self.is_active(a))
            {
                return Err(located(
                    self,
                    format!(
                        "black-box call '{}': active argument '{a}' is not an active variable",
                        call.name
                    ),
                ));
            }
        }
        let adjoint_modes = matches!(self.env.mode, Mode::AdjointSplit | Mode::AdjointJoint);
        let Some((tangent, adjoint)) = call.derivatives.clone() else {
            // Passive: values in, derivatives of what it writes dropped.
            if !mirror {
                self.line(format!(
                    "call {}({})",
                    call.name,
                    self.values(&actuals).join(", ")
                ));
            }
            if !adjoint_modes || mirror {
                self.zero_written(&actuals, &call, |_| true);
            }
            return Ok(());
        };
        match (self.env.mode, mirror) {
            (Mode::Tangent, _) => {
                let args = self.with_derivatives(&actuals, &call, "");
                self.line(format!("call {tangent}({})", args.join(", ")));
            }
            (Mode::VectorTangent, _) => self.vector_tangent_call(&tangent, &actuals, &call, m)?,
            (_, false) => {
                if self.section == Section::Tape {
                    for (a, info) in actuals.iter().zip(&call.args) {
                        if info.reads && is_identifier(a) {
                            self.named_checkpoint(a, true, WHY)?;
                        }
                    }
                }
                self.line(format!(
                    "call {}({})",
                    call.name,
                    self.values(&actuals).join(", ")
                ));
            }
            (_, true) => {
                for (a, info) in actuals.iter().zip(&call.args).rev() {
                    if info.reads && is_identifier(a) {
                        self.named_checkpoint(a, false, WHY)?;
                    }
                }
                let args = self.with_derivatives(&actuals, &call, "");
                self.line(format!("call {adjoint}({})", args.join(", ")));
                // The adjoint of a pure output is consumed by the call.
                self.zero_written(&actuals, &call, |info| !info.reads);
            }
        }
        Ok(())
    }

    /// The actuals as values (`x%v` for active variables).
    fn values(&self, actuals: &[String]) -> Vec<String> {
        actuals
            .iter()
            .map(|a| add_value_suffix(a, &|n| self.is_active(n)))
            .collect()
    }

    /// The actuals with each active one followed by its derivative
    /// (`x%d` and the `subscript`, `(j)` in vector mode).
    fn with_derivatives(
        &self,
        actuals: &[String],
        call: &BlackBoxCall,
        subscript: &str,
    ) -> Vec<String> {
        let mut out = Vec::new();
        for (text, (a, info)) in self
            .values(actuals)
            .into_iter()
            .zip(actuals.iter().zip(&call.args))
        {
            out.push(text);
            if info.active {
                out.push(format!("{a}%d{subscript}"));
            }
        }
        out
    }

    /// Zeroes the derivatives of the active variables the call writes
    /// (those `which` selects).
    fn zero_written(
        &mut self,
        actuals: &[String],
        call: &BlackBoxCall,
        which: impl Fn(&ArgInfo) -> bool,
    ) {
        for (a, info) in actuals.iter().zip(&call.args) {
            if info.writes && which(info) && is_identifier(a) && self.is_active(a) {
                if self.env.mode == Mode::VectorTangent {
                    self.line(format!("call oad_zero_d({a})"));
                } else {
                    self.line(format!("{a}%d = 0"));
                }
            }
        }
    }

    /// Vector mode: one tangent call per direction, each starting from
    /// the values the arguments had at the call.
    fn vector_tangent_call(
        &mut self,
        tangent: &str,
        actuals: &[String],
        call: &BlackBoxCall,
        m: &Marker,
    ) -> Result<()> {
        let mut copies = Vec::new();
        for (a, info) in actuals.iter().zip(&call.args) {
            if !(info.reads && info.writes && is_identifier(a)) {
                continue;
            }
            let Some((_, sym, _)) = self.visible_symbol(a) else {
                return Err(self.env.xaif.error(
                    &format!("statement_id=\"{}\"", m.statement_id),
                    format!("black-box call: '{a}' is not a variable the calling routine can see"),
                ));
            };
            let type_text = match sym.type_ {
                SymbolType::Real => "real(8)",
                SymbolType::Integer => "integer",
                SymbolType::Bool => "logical",
                _ => {
                    return Err(self.env.xaif.unsupported(
                        &format!("statement_id=\"{}\"", m.statement_id),
                        format!("unsupported construct: vector mode cannot copy black-box argument '{a}' (not real, integer or logical) for each direction"),
                    ))
                }
            };
            let copy = self.fresh_temp().replace("oad_ctmp", "oad_bbcopy");
            let rank = sym.shape.rank();
            self.extra_decls.push(if rank == 0 {
                format!("{type_text} :: {copy}")
            } else {
                let dims = vec![":"; rank].join(",");
                format!("{type_text}, allocatable :: {copy}({dims})")
            });
            let value = add_value_suffix(a, &|n| self.is_active(n));
            copies.push((copy, value));
        }
        let index = "oad_bbdir".to_string();
        if !self.extra_decls.iter().any(|d| d == "integer :: oad_bbdir") {
            self.extra_decls.push("integer :: oad_bbdir".into());
        }
        for (copy, value) in &copies {
            self.line(format!("{copy} = {value}"));
        }
        self.line(format!("do {index} = 1, max_deriv_vec_len"));
        self.indent += 1;
        if !copies.is_empty() {
            self.line(format!("if ({index} > 1) then"));
            self.indent += 1;
            for (copy, value) in &copies {
                self.line(format!("{value} = {copy}"));
            }
            self.indent -= 1;
            self.line("end if");
        }
        let args = self.with_derivatives(actuals, call, &format!("({index})"));
        self.line(format!("call {tangent}({})", args.join(", ")));
        self.indent -= 1;
        self.line("end do");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markers::split_annotation;

    #[test]
    fn reads_annotations_and_actuals() {
        let (canon, rest) = split_annotation(
            "canon:12;blackbox:dgesv;tangent:dgesv_d;adjoint:dgesv_b;args:in,inout*,out",
        );
        assert_eq!(canon, "canon:12");
        let call = parse_black_box(rest.unwrap()).unwrap();
        assert_eq!(call.name, "dgesv");
        assert_eq!(call.derivatives, Some(("dgesv_d".into(), "dgesv_b".into())));
        assert_eq!(
            call.args[1],
            ArgInfo {
                reads: true,
                writes: true,
                active: true
            }
        );
        assert!(!call.args[2].reads);
        let passive = parse_black_box("blackbox:energy;passive;args:in,in,out").unwrap();
        assert_eq!(passive.derivatives, None);
        assert_eq!(
            parse_black_box("blackbox:e;args:in"),
            Err(AnnotationError::PassiveOrDerivatives)
        );
        assert_eq!(
            parse_black_box("blackbox:e;passive;args:sideways"),
            Err(AnnotationError::UnknownIntent("sideways".into()))
        );
        assert_eq!(
            call_actuals("call f(n, a(1, 2), 'x,y', b)").unwrap(),
            ["n", "a(1, 2)", "'x,y'", "b"]
        );
        assert_eq!(split_annotation("canon:3"), ("canon:3", None));
    }
}
