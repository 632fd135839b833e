//! Subroutine calls and argument passing between active and passive
//! variables. Activity is context-insensitive, so a formal argument may be
//! active while the actual is passive (or the reverse):
//! - active actual, active formal: passed whole (`call f(x)`);
//! - active actual, passive formal or unknown callee: its value (`x%v`);
//! - passive actual (or constant), active formal: through an active
//!   temporary: value in, derivative zero, call, value back.

use xaif_schema::{Argument, ArgumentValue, Intent, SubroutineCall, Symbol, VariableReference};

use super::UnitGen;
use crate::error::Result;
use crate::expr::RefCtx;

/// What the callee declares at one argument position.
#[derive(Debug, Clone, Copy)]
struct Formal<'x> {
    active: bool,
    intent: Intent,
    name: &'x str,
}

impl<'a> UnitGen<'_, 'a> {
    /// The formal arguments of a subroutine, if the XAIF describes it.
    fn formals(&self, name: &str) -> Option<Vec<(u64, Formal<'a>)>> {
        let index = self.env.index;
        let (scope, list) = if let Some(cfg) = index.cfg_named(name) {
            (cfg.controlflowgraph_scope_id, cfg.argument_list.as_ref()?)
        } else {
            let rl = index.replacement_list_named(name)?;
            (rl.controlflowgraph_scope_id, rl.argument_list.as_ref()?)
        };
        Some(
            list.iter()
                .map(|a| {
                    let sym = index
                        .symbol(a.scope_id, &a.symbol_id)
                        .or_else(|| index.symbol(scope, &a.symbol_id));
                    let active = sym.is_some_and(|s: &Symbol| s.active);
                    (
                        a.position,
                        Formal {
                            active,
                            intent: a.intent,
                            name: a.symbol_id.as_str(),
                        },
                    )
                })
                .collect(),
        )
    }

    /// Emits `call name(args)` with the conversions the arguments need.
    pub fn call(&mut self, c: &SubroutineCall) -> Result<()> {
        let Some(name) = c.symbol_id.as_deref().map(str::to_ascii_lowercase) else {
            return Err(self.env.xaif.error(
                &format!("statement_id=\"{}\"", c.statement_id),
                format!("subroutine call '{}' names no subroutine", c.statement_id),
            ));
        };
        let formals = self.formals(&name);
        let mut args: Vec<&Argument> = c.arguments.iter().collect();
        args.sort_by_key(|a| a.position);
        let mut texts = Vec::new();
        let mut before = Vec::new();
        let mut after = Vec::new();
        // After an absent optional argument the rest go by keyword (the
        // front end gives each actual its dummy's position).
        let mut next_position = 1;
        let mut by_keyword = false;
        for a in args {
            let formal = formals
                .as_ref()
                .and_then(|f| f.iter().find(|(p, _)| *p == a.position).map(|(_, f)| *f));
            by_keyword |= a.position != next_position;
            next_position = a.position + 1;
            let keyword = match formal {
                Some(f) if by_keyword => format!("{}=", f.name.to_ascii_lowercase()),
                None if by_keyword => {
                    return Err(self.env.xaif.error(
                        &format!("statement_id=\"{}\"", c.statement_id),
                        format!(
                            "argument {} of the call of '{name}' follows an absent one, and the callee's argument list is unknown (no keyword to pass it by)",
                            a.position
                        ),
                    ))
                }
                _ => String::new(),
            };
            let text = match (&a.value, formal) {
                (ArgumentValue::Constant(k), Some(f)) if f.active => {
                    let tmp = self.scalar_temp();
                    before.push(format!("{tmp}%v = {}", k.value.trim()));
                    before.push(format!("{tmp}%d = 0"));
                    tmp
                }
                (ArgumentValue::Constant(k), _) => k.value.trim().to_string(),
                (ArgumentValue::Variable(r), formal) => {
                    let actual_active = self.env.ref_symbol(r)?.active;
                    match formal {
                        Some(f) if f.active && !actual_active => {
                            self.converted_actual(r, f, &mut before, &mut after)?
                        }
                        Some(f) if f.active => self.env.var_ref(r, RefCtx::Bare)?,
                        _ if actual_active => self.env.var_ref(r, RefCtx::Value)?,
                        _ => self.env.var_ref(r, RefCtx::Bare)?,
                    }
                }
            };
            texts.push(format!("{keyword}{text}"));
        }
        for l in before {
            self.line(l);
        }
        // A section calls a loop-free module procedure's copy of the same
        // section (`plain_clones.rs`; callers in the same module only: the
        // copy is not public), unless the section switches the mode.
        let own_module = self.unit.rsplit_once('.').map(|(m, _)| m);
        let called = match self.env.plain_clones.get(&name) {
            Some(c) if own_module == Some(c.module.as_str()) && !self.switches_mode => {
                c.copy_for(self.section).unwrap_or(name.as_str())
            }
            _ => name.as_str(),
        };
        self.line(format!("call {called}({})", texts.join(", ")));
        for l in after {
            self.line(l);
        }
        Ok(())
    }

    fn scalar_temp(&mut self) -> String {
        let tmp = self.fresh_temp();
        self.extra_decls.push(format!("type(active) :: {tmp}"));
        tmp
    }

    /// An active temporary standing in for a passive actual.
    fn converted_actual(
        &mut self,
        r: &VariableReference,
        f: Formal,
        before: &mut Vec<String>,
        after: &mut Vec<String>,
    ) -> Result<String> {
        let actual = self.env.var_ref(r, RefCtx::Bare)?;
        let copy_back = f.intent != Intent::In;
        if !self.env.ref_is_array_valued(r)? {
            let tmp = self.scalar_temp();
            if f.intent != Intent::Out {
                before.push(format!("{tmp}%v = {actual}"));
            }
            before.push(format!("{tmp}%d = 0"));
            if copy_back {
                after.push(format!("{actual} = {tmp}%v"));
            }
            return Ok(tmp);
        }
        let rank = self.section_rank(r)?;
        let tmp = self.fresh_temp();
        let dims = vec![":"; rank].join(",");
        self.extra_decls
            .push(format!("type(active), allocatable :: {tmp}({dims})"));
        let extents: Vec<String> = (1..=rank).map(|k| format!("size({actual}, {k})")).collect();
        before.push(format!("allocate({tmp}({}))", extents.join(", ")));
        if f.intent != Intent::Out {
            before.push(format!("{tmp}%v = {actual}"));
        }
        before.push(format!("call oad_zero_d({tmp})"));
        if copy_back {
            after.push(format!("{actual} = {tmp}%v"));
        }
        after.push(format!("deallocate({tmp})"));
        Ok(tmp)
    }

    /// Rank of an array-valued reference: the symbol's rank for a whole
    /// array, the number of section subscripts otherwise.
    fn section_rank(&self, r: &VariableReference) -> Result<usize> {
        let sym = self.env.ref_symbol(r)?;
        let mut rank = sym.shape.rank();
        for v in &r.vertices {
            if let xaif_schema::VariableReferenceVertex::ArrayElementReference(a) = v {
                rank = a
                    .index_triplets
                    .iter()
                    .filter(|t| t.bound.is_some() || t.index.is_none())
                    .count();
            }
        }
        Ok(rank.max(1))
    }
}
