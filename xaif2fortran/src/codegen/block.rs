//! Basic block elements: assignments, markers (opaque statements copied
//! from the canonical source), derivative propagators and inlinable calls.
//! Subroutine calls are in `calls.rs`.

use xaif_schema::{
    Argument, ArgumentValue, BasicBlockElement, InlinableSubroutineCall, Marker, PropagatorEntry,
    VariableReference,
};

use super::pointers::PointerAction;
use super::UnitGen;
use crate::error::Result;
use crate::expr::{as_factor, RefCtx};
use crate::fortran_text::add_value_suffix_with;
use crate::markers::{
    CALLSITE_CHECKPOINT, CANON_PREFIX, MIRROR_PREFIX, POINTER_PREFIX, SNAPSHOT_PUSH, STATE_RESTORE,
    STATE_STORE,
};
use crate::Mode;

/// Mode switches of checkpointed loops whose meaning depends on the
/// template: the inline definition `NAME_split` or `NAME_joint` is used.
const TEMPLATE_MODE_SWITCHES: [&str; 2] = ["oad_mode_tape_sweep", "oad_mode_adjoint_sweep"];

impl UnitGen<'_, '_> {
    /// Emits the statements of a basic block.
    pub fn block_elements(&mut self, elements: &[BasicBlockElement]) -> Result<()> {
        self.block_elements_in(elements, false)
    }

    /// Emits the statements of a basic block; `reserved`: the enclosing
    /// loop has reserved tape room for the block's pushes
    /// (`push_runs.rs`).
    pub(crate) fn block_elements_in(
        &mut self,
        elements: &[BasicBlockElement],
        reserved: bool,
    ) -> Result<()> {
        let runs = super::push_runs::plan_runs(elements, self.inline);
        for (e, run) in elements.iter().zip(runs) {
            let _at = self.env.xaif.at_element(e);
            match e {
                BasicBlockElement::InlinableSubroutineCall(c)
                    if run.is_some_and(|r| reserved || r.count > 1) =>
                {
                    let value = self.inline_argument(&c.arguments[0])?;
                    self.fused_push(run.expect("guarded"), &value, reserved);
                }
                BasicBlockElement::Assignment(a) => {
                    let lhs = self.env.var_ref(&a.lhs.reference, RefCtx::Value)?;
                    let rhs = self.env.expression(&a.rhs)?;
                    self.line(format!("{lhs} = {rhs}"));
                }
                BasicBlockElement::SubroutineCall(c) => self.call(c)?,
                BasicBlockElement::Marker(m) => self.marker(m)?,
                BasicBlockElement::DerivativePropagator(dp) => {
                    for entry in &dp.entries {
                        self.propagator_entry(entry)?;
                    }
                }
                // Call-site checkpoints serve a callee's re-run: none in
                // split mode, none for a callee never re-run.
                BasicBlockElement::InlinableSubroutineCall(c)
                    if c.arguments.first().is_some_and(|a| {
                        a.annotation
                            .strip_prefix(CALLSITE_CHECKPOINT)
                            .is_some_and(|callee| {
                                self.env.mode == Mode::AdjointSplit
                                    || self.env.not_rerun.contains(callee)
                            })
                    }) => {}
                BasicBlockElement::InlinableSubroutineCall(c)
                    if c.subroutine_name == STATE_STORE || c.subroutine_name == STATE_RESTORE =>
                {
                    let Some(ArgumentValue::Variable(r)) = c.arguments.first().map(|a| &a.value)
                    else {
                        return Err(self.env.xaif.error(
                            &format!("statement_id=\"{}\"", c.statement_id),
                            format!("{} needs a variable", c.subroutine_name),
                        ));
                    };
                    self.state_checkpoint(r, c.subroutine_name == STATE_STORE)?
                }
                BasicBlockElement::InlinableSubroutineCall(c)
                    if c.subroutine_name == SNAPSHOT_PUSH =>
                {
                    self.snapshot_push(c)?
                }
                BasicBlockElement::InlinableSubroutineCall(c) => {
                    self.inlinable_call(&c.subroutine_name, &c.statement_id, &c.arguments)?
                }
            }
        }
        Ok(())
    }

    /// Copies the opaque statement a marker stands for, with `%v` added to
    /// active variables; in the adjoint modes an allocation statement also
    /// tapes or replays allocation bounds (`allocation.rs`). A mirror
    /// marker (`mirror:canon:ID`, the booster's reverse-sweep counterpart
    /// of an opaque statement) produces the statement's reverse code, if
    /// any. A black-box call (`canon:ID;blackbox:...`) gets its own code
    /// (`black_box.rs`). Other markers without a `canon:` annotation are
    /// the booster's own and produce no code.
    fn marker(&mut self, m: &Marker) -> Result<()> {
        let (mirror, annotation) = match m.annotation.strip_prefix(MIRROR_PREFIX) {
            Some(rest) => (true, rest),
            None => (false, m.annotation.as_str()),
        };
        let (annotation, mut black_box) = crate::markers::split_annotation(annotation);
        let mut recorded = None;
        if let Some(field) = black_box.filter(|f| f.starts_with(POINTER_PREFIX)) {
            recorded = self.recorded_pointers(field, m)?;
            black_box = None;
        }
        let copy = black_box.and_then(|f| f.strip_prefix(crate::markers::COPY_PREFIX));
        if copy.is_some() {
            black_box = None;
        }
        let Some(id) = annotation.strip_prefix(CANON_PREFIX).map(str::trim) else {
            return Ok(());
        };
        let Some(stmt) = self.canon.stmts.get(id) else {
            return Err(self.env.xaif.error(
                &format!("annotation=\"{}\"", m.annotation),
                format!(
                    "marker refers to statement '{id}', which is not in {}",
                    self.canon.file
                ),
            ));
        };
        // The original label of an opaque statement is nobody's jump
        // target any more (control flow is regenerated) and would be
        // defined twice where a section is repeated (adjoint templates):
        // drop it, except on a format statement, kept once.
        let trimmed = stmt.text.trim_start();
        let label_len = trimmed.len()
            - trimmed
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .len();
        let mut source = stmt.text.as_str();
        if label_len > 0 {
            let rest = trimmed[label_len..].trim_start();
            if mirror {
                source = rest;
            } else if rest.to_ascii_lowercase().starts_with("format") {
                if !self
                    .emitted_formats
                    .insert(trimmed[..label_len].to_string())
                {
                    return Ok(());
                }
            } else {
                source = rest;
            }
        }
        self.refuse_active_complex(source, m)?;
        if let Some(description) = black_box.filter(|d| d.starts_with(crate::markers::MPI_KEY)) {
            return self.mpi_statement(source, description, mirror, m);
        }
        if let Some(description) = black_box {
            return self.black_box_statement(source, description, mirror, m);
        }
        if mirror {
            match &recorded {
                Some(PointerAction::Record(names)) => self.record_pointers_mirror(names, source),
                Some(PointerAction::Frame(name)) => self.frame_pointer_mirror(name, m)?,
                None => {}
            }
            return self.allocation_mirror(source, m);
        }
        let replaced = match &recorded {
            Some(PointerAction::Record(names)) => self.record_pointers_forward(names, source, m)?,
            Some(PointerAction::Frame(name)) if self.section == crate::template::Section::Tape => {
                self.frame_pointer_forward(name, m)?;
                None
            }
            _ => None,
        };
        // A statement is either a pointer's (de)allocation or one of kept
        // locals (the front end refuses a pointer among other objects).
        let kept = self.allocation_forward(source, m)?;
        let source = match (kept.as_deref(), replaced.as_deref()) {
            (Some(""), _) => return Ok(()),
            (Some(rest), _) => rest,
            (None, Some(record)) => record,
            (None, None) => source,
        };
        let text = add_value_suffix_with(source, &|n| self.is_active(n), &|chain| {
            self.env.index.is_active_chain(self.scope, chain)
        });
        let emit = |gen: &mut Self| {
            for (k, l) in text.lines().enumerate() {
                let extra = if k > 0 { "  " } else { "" };
                gen.line(format!("{extra}{}", l.trim()));
            }
        };
        match copy {
            Some(annotation) => self.derived_copy(source, annotation, m, &emit),
            None => {
                emit(self);
                Ok(())
            }
        }
    }

    /// An opaque statement (I/O, a passive intrinsic, ...) cannot read a
    /// complex variable whose parts carry derivatives (`type(active_c)`):
    /// the front end rewrites only the complex arithmetic it knows.
    fn refuse_active_complex(&self, source: &str, m: &Marker) -> Result<()> {
        let lower = source.trim_start().to_ascii_lowercase();
        if lower.starts_with("allocate") || lower.starts_with("deallocate") {
            return Ok(());
        }
        let toks = crate::fortran_text::tokenize(source);
        let text = |k: usize| source[toks[k].start..toks[k].end].to_ascii_lowercase();
        for (k, t) in toks.iter().enumerate() {
            if t.kind != crate::fortran_text::TokKind::Ident {
                continue;
            }
            // Inquiries read the shape or status, not the value.
            let inquiry = k >= 2
                && text(k - 1) == "("
                && matches!(
                    text(k - 2).as_str(),
                    "size" | "lbound" | "ubound" | "shape" | "allocated" | "present" | "kind"
                );
            if inquiry {
                continue;
            }
            let name = text(k);
            let Some((scope, sym, _)) = self.visible_symbol(&name) else {
                continue;
            };
            if source[t.end..].trim_start().starts_with('%')
                || !self.env.index.is_active_complex(scope, sym)
            {
                continue;
            }
            return Err(self.env.xaif.unsupported(
                &format!("annotation=\"{}\"", m.annotation),
                format!(
                    "unsupported construct: active complex variable '{name}' in a statement outside complex arithmetic (I/O, a black-box call, a conversion to integer, an intrinsic without a complex derivative rule): complex(8) data is differentiated through its parts; use real({name}) and aimag({name}) there"
                ),
            ));
        }
        Ok(())
    }

    fn deriv(&self, r: &VariableReference) -> Result<String> {
        if self.env.mode == Mode::VectorTangent && self.env.ref_is_array_valued(r)? {
            let name = self.env.ref_symbol(r)?.symbol_id.clone();
            return Err(self.env.xaif.error(
                &format!("symbol_id=\"{name}\""),
                format!(
                    "vector mode: derivative propagation on the whole array or section '{name}' is not supported (propagate element by element)"
                ),
            ));
        }
        self.env.var_ref(r, RefCtx::Deriv)
    }

    fn propagator_entry(&mut self, entry: &PropagatorEntry) -> Result<()> {
        match entry {
            PropagatorEntry::SetDeriv { tgt, src } => {
                let (t, s) = (self.deriv(tgt)?, self.deriv(src)?);
                self.line(format!("{t} = {s}"));
            }
            PropagatorEntry::SetNegDeriv { tgt, src } => {
                let (t, s) = (self.deriv(tgt)?, self.deriv(src)?);
                self.line(format!("{t} = -{s}"));
            }
            PropagatorEntry::IncDeriv { tgt, src } => {
                let (t, s) = (self.deriv(tgt)?, self.deriv(src)?);
                self.line(format!("{t} = {t} + {s}"));
            }
            PropagatorEntry::DecDeriv { tgt, src } => {
                let (t, s) = (self.deriv(tgt)?, self.deriv(src)?);
                self.line(format!("{t} = {t} - {s}"));
            }
            PropagatorEntry::Sax { ax, y } | PropagatorEntry::Saxpy { ax, y } => {
                let target = self.deriv(y)?;
                let mut terms = Vec::new();
                if matches!(entry, PropagatorEntry::Saxpy { .. }) {
                    terms.push(target.clone());
                }
                for t in ax {
                    let (a, prec) = self.env.expression_prec(&t.a)?;
                    let x = self.deriv(&t.x)?;
                    terms.push(if is_one(&a) {
                        x
                    } else {
                        format!("{}*{x}", as_factor(a, prec))
                    });
                }
                if terms.is_empty() {
                    terms.push("0".into());
                }
                self.line(format!("{target} = {}", terms.join(" + ")));
            }
            PropagatorEntry::ZeroDeriv(x) => {
                let whole = self.env.ref_is_array_valued(x)?;
                if self.env.mode == Mode::VectorTangent && whole {
                    let bare = self.env.var_ref(x, RefCtx::Bare)?;
                    if !self.env.ref_symbol(x)?.active {
                        return Err(self.env.xaif.error(
                            &format!("symbol_id=\"{bare}\""),
                            format!("derivative of passive variable '{bare}'"),
                        ));
                    }
                    self.line(format!("call oad_zero_d({bare})"));
                } else {
                    let t = self.env.var_ref(x, RefCtx::Deriv)?;
                    self.line(format!("{t} = 0"));
                }
            }
        }
        Ok(())
    }

    /// The text of an argument of an inlinable call: values of active
    /// variables, derivatives where the reference is marked `deriv`.
    fn inline_argument(&self, a: &Argument) -> Result<String> {
        match &a.value {
            ArgumentValue::Constant(c) => Ok(c.value.trim().to_string()),
            ArgumentValue::Variable(r) => {
                let ctx = if r.deriv {
                    RefCtx::Deriv
                } else {
                    RefCtx::Value
                };
                self.env.var_ref(r, ctx)
            }
        }
    }

    /// The push of an array snapshot (booster, `adjoint/array_snapshots.rs`):
    /// the values (`a%v` for an active array), then the bounds of the
    /// array itself, which `a%v` does not keep.
    fn snapshot_push(&mut self, c: &InlinableSubroutineCall) -> Result<()> {
        let Some(ArgumentValue::Variable(r)) = c.arguments.first().map(|a| &a.value) else {
            return Err(self.env.xaif.error(
                &format!("statement_id=\"{}\"", c.statement_id),
                format!("{SNAPSHOT_PUSH} needs a variable"),
            ));
        };
        let value = self.env.var_ref(r, RefCtx::Value)?;
        let bare = self.env.var_ref(r, RefCtx::Bare)?;
        self.line(format!(
            "call {SNAPSHOT_PUSH}({value}, lbound({bare}), ubound({bare}))"
        ));
        Ok(())
    }

    /// Expands a call of a runtime routine from its inline definition;
    /// routines without one are called.
    fn inlinable_call(&mut self, name: &str, statement_id: &str, args: &[Argument]) -> Result<()> {
        let mut sorted: Vec<&Argument> = args.iter().collect();
        sorted.sort_by_key(|a| a.position);
        let texts = sorted
            .iter()
            .map(|a| self.inline_argument(a))
            .collect::<Result<Vec<_>>>()?;
        if let Some(store) = crate::markers::opaque_checkpoint_direction(name) {
            return self.opaque_call_site_checkpoint(statement_id, &sorted, &texts, store);
        }
        if let Some(store) = crate::markers::pointer_checkpoint_direction(name) {
            return self.pointer_call_site_checkpoint(statement_id, &sorted, &texts, store);
        }
        // The callees of a checkpointed loop's recomputed iteration run as
        // in the template's own tape and adjoint sections: the split
        // template (and any template in -m rs) gives them its own mode,
        // the joint ones (and any template in -m rj) plain + arg_store and
        // joint + arg_restore.
        let switched;
        let name = if TEMPLATE_MODE_SWITCHES.contains(&name) {
            let flavour = match self.env.mode {
                Mode::AdjointSplit => "split",
                _ => "joint",
            };
            switched = format!("{name}_{flavour}");
            switched.as_str()
        } else {
            name
        };
        match self.inline.expand(name, &texts) {
            Some(Ok(lines)) => {
                for l in lines {
                    self.line(l);
                }
                Ok(())
            }
            Some(Err(n)) => Err(self.env.xaif.error(
                &format!("statement_id=\"{statement_id}\""),
                format!(
                    "inlinable call '{name}' has {} argument(s), its definition {n}",
                    texts.len()
                ),
            )),
            None => {
                self.line(format!("call {name}({})", texts.join(", ")));
                Ok(())
            }
        }
    }
}

/// Whether a factor is the literal one (then `1*x%d` is written `x%d`).
fn is_one(text: &str) -> bool {
    matches!(
        text,
        "1" | "1.0" | "1.d0" | "1d0" | "1.0d0" | "1.0_8" | "1._8"
    )
}
