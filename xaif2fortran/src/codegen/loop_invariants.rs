//! Adjoint modes: passive scalar components read in a loop that cannot
//! change them are read once, into a local, before the loop.
//!
//! A model keeping its parameters in a derived type (`s%h`, `s%dt`) reads
//! them in its loops where a plain program reads locals. In the taping
//! sweep every iteration also stores to the tape (module allocatable
//! arrays) and may call routines that are passed parts of the same
//! variable; gfortran cannot prove those stores leave `s%h` alone, so it
//! reloads it and, worse, can no longer hoist what depends on it
//! (`sin(c * j * s%h)` in an inner loop over `i` is computed every
//! iteration). A local copy is what the plain program has. It is made
//! when nothing in the loop can write the component: no assignment to it,
//! no opaque statement naming its variable, no call passed the variable
//! or the component, and no call at all unless the variable is a local of
//! the unit (a callee could change a module variable or, through the
//! caller's actual, a dummy). docs/benchmarks.md, "Derived-type state".

use std::collections::{HashSet, VecDeque};

use xaif_schema::{
    ArgumentValue, BasicBlockElement, ControlFlowVertex, Expression, ExpressionVertex, SymbolType,
    VariableReference, VariableReferenceVertex,
};

use super::cfg_view::CfgView;
use super::UnitGen;
use crate::error::Result;
use crate::expr::RefCtx;
use crate::markers::CANON_PREFIX;
use crate::Mode;

/// What the body of a loop reads and may write.
#[derive(Default)]
struct BodyEffects<'c> {
    reads: Vec<&'c VariableReference>,
    /// Symbol ids assigned or passed to calls (lower case).
    written: HashSet<String>,
    calls: bool,
    pointer_writes: bool,
    opaque_texts: Vec<String>,
}

impl UnitGen<'_, '_> {
    /// Before the loop `loop_id` (body starting at `body`): copies the
    /// passive scalar components it only reads into locals, which its
    /// references then print as. Returns the keys to drop at `end do`.
    pub(crate) fn cache_loop_invariants(
        &mut self,
        view: &CfgView,
        body: &str,
        loop_id: &str,
    ) -> Result<Vec<(u64, String)>> {
        if !matches!(self.env.mode, Mode::AdjointSplit | Mode::AdjointJoint) {
            return Ok(Vec::new());
        }
        let Some(effects) = self.body_effects(view, body, loop_id) else {
            return Ok(Vec::new());
        };
        if effects.pointer_writes {
            return Ok(Vec::new());
        }
        let mut added = Vec::new();
        for r in &effects.reads {
            let [VariableReferenceVertex::SymbolReference(sr)] = r.vertices.as_slice() else {
                continue;
            };
            let name = sr.symbol_id.as_str().to_ascii_lowercase();
            let key = (sr.scope_id, name.clone());
            if !crate::components::is_component_path(&name)
                || added.contains(&key)
                || self.env.invariant_locals.borrow().contains_key(&key)
            {
                continue;
            }
            let Ok(sym) = self.env.ref_symbol(r) else {
                continue;
            };
            if sym.active || sym.shape.rank() > 0 || sym.type_ != SymbolType::Real {
                continue;
            }
            let root = crate::components::bare_path(&name)
                .split('%')
                .next()
                .unwrap_or("")
                .to_string();
            // A local (`save` or not) no callee can reach but through its
            // arguments: not a dummy, not visible to internal procedures.
            let local_root = self.env.index.symbol(self.scope, &root).is_some()
                && !self.is_dummy(&root)
                && !self.has_internal_procedures();
            let named_opaque = effects.opaque_texts.iter().any(|t| mentions(t, &root));
            if effects.written.contains(name.as_str())
                || effects.written.contains(&root)
                || named_opaque
                || (effects.calls && !local_root)
            {
                continue;
            }
            let text = self.env.var_ref(r, RefCtx::Value)?;
            let local = format!(
                "oad_inv{}",
                self.fresh_temp().trim_start_matches("oad_ctmp")
            );
            let fe = if sym.fe_type.trim().is_empty() {
                "real(8)".to_string()
            } else {
                sym.fe_type.to_string()
            };
            self.extra_decls.push(format!("{fe} :: {local}"));
            self.line(format!("{local} = {text}"));
            self.env
                .invariant_locals
                .borrow_mut()
                .insert(key.clone(), local);
            added.push(key);
        }
        Ok(added)
    }

    /// Whether the unit contains procedures (which see its locals).
    fn has_internal_procedures(&self) -> bool {
        let inner = format!("{}.", self.unit);
        self.canon.items.iter().any(|i| {
            matches!(i, crate::canon::CanonItem::UnitHeader { tag, .. } if tag.starts_with(&inner))
        })
    }

    /// Drops the locals of a loop that has been closed.
    pub(crate) fn drop_loop_invariants(&mut self, keys: &[(u64, String)]) {
        let mut map = self.env.invariant_locals.borrow_mut();
        for k in keys {
            map.remove(k);
        }
    }

    /// The effects of a loop body: every vertex from `body` up to the
    /// loop's EndLoop; `None` when the body leaves the loop other than
    /// through it (the vertex set would not be the loop's).
    fn body_effects<'c>(
        &self,
        view: &CfgView<'c>,
        body: &str,
        loop_id: &str,
    ) -> Option<BodyEffects<'c>> {
        let end_loop = view
            .vertices
            .iter()
            .find(|v| {
                matches!(v, ControlFlowVertex::EndLoop(_))
                    && view.single_successor(v.vertex_id()) == Some(loop_id)
            })?
            .vertex_id();
        let exit = view.successor_on(loop_id, 0);
        let mut effects = BodyEffects::default();
        let mut seen: HashSet<&str> = HashSet::new();
        let mut queue: VecDeque<&str> = VecDeque::from([body]);
        while let Some(id) = queue.pop_front() {
            if id == end_loop || !seen.insert(id) {
                continue;
            }
            if id == loop_id || Some(id) == exit || seen.len() > 10_000 {
                return None;
            }
            let vertex = *view.by_id.get(id)?;
            match vertex {
                ControlFlowVertex::Exit(_) | ControlFlowVertex::Entry(_) => return None,
                ControlFlowVertex::BasicBlock(b) => {
                    for e in &b.elements {
                        self.element_effects(e, &mut effects);
                    }
                }
                ControlFlowVertex::If(c)
                | ControlFlowVertex::Branch(c)
                | ControlFlowVertex::PreLoop(c)
                | ControlFlowVertex::PostLoop(c) => {
                    if let Some(e) = &c.condition {
                        expression_effects(e, &mut effects);
                    }
                }
                ControlFlowVertex::ForLoop(f) => {
                    for a in f.initialization.iter().chain(&f.update) {
                        self.assignment_effects(a, &mut effects);
                    }
                    if let Some(e) = &f.condition {
                        expression_effects(e, &mut effects);
                    }
                }
                _ => {}
            }
            for e in view.out_edges(id) {
                queue.push_back(e.target.as_str());
            }
        }
        Some(effects)
    }

    fn assignment_effects<'c>(
        &self,
        a: &'c xaif_schema::Assignment,
        effects: &mut BodyEffects<'c>,
    ) {
        if let Some(name) = symbol_of(&a.lhs.reference) {
            if self
                .env
                .ref_symbol(&a.lhs.reference)
                .is_ok_and(|s| s.pointer)
            {
                effects.pointer_writes = true;
            }
            effects.written.insert(name);
        }
        expression_effects(&a.rhs, effects);
    }

    fn element_effects<'c>(&self, e: &'c BasicBlockElement, effects: &mut BodyEffects<'c>) {
        match e {
            BasicBlockElement::Assignment(a) => self.assignment_effects(a, effects),
            BasicBlockElement::SubroutineCall(c) => {
                effects.calls = true;
                for arg in &c.arguments {
                    if let ArgumentValue::Variable(r) = &arg.value {
                        // A component passed (`s%dt`) is all the callee
                        // may change of its variable through it.
                        if let Some(name) = symbol_of(r) {
                            effects.written.insert(name);
                        }
                    }
                }
            }
            BasicBlockElement::Marker(m) => {
                let annotation = m
                    .annotation
                    .strip_prefix(crate::markers::MIRROR_PREFIX)
                    .unwrap_or(&m.annotation);
                let (canon, _) = crate::markers::split_annotation(annotation);
                if let Some(stmt) = canon
                    .strip_prefix(CANON_PREFIX)
                    .and_then(|id| self.canon.stmts.get(id.trim()))
                {
                    effects.opaque_texts.push(stmt.text.to_ascii_lowercase());
                }
            }
            BasicBlockElement::DerivativePropagator(_)
            | BasicBlockElement::InlinableSubroutineCall(_) => {}
        }
    }
}

fn expression_effects<'c>(e: &'c Expression, effects: &mut BodyEffects<'c>) {
    for v in &e.vertices {
        match v {
            ExpressionVertex::VariableReference(r) => effects.reads.push(r),
            ExpressionVertex::FunctionCall(_) => effects.calls = true,
            _ => {}
        }
    }
}

/// The symbol a reference names (lower case).
fn symbol_of(r: &VariableReference) -> Option<String> {
    r.vertices.iter().find_map(|v| match v {
        VariableReferenceVertex::SymbolReference(s) => {
            Some(s.symbol_id.as_str().to_ascii_lowercase())
        }
        _ => None,
    })
}

/// Whether Fortran text (lower case) has `name` as a whole word.
fn mentions(text: &str, name: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|w| w == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_only() {
        assert!(mentions("s = t", "s"));
        assert!(mentions("read(*, *) s%h", "s"));
        assert!(!mentions("sum = 0", "s"));
    }
}
