//! Checkpoints for the joint template: `!$placeholder arg_store` pushes
//! the values a subroutine starts from on the checkpoint stacks, and
//! `!$placeholder arg_restore` pops them back (reverse order), so that the
//! reverse sweep can re-run the subroutine from the same state. The state
//! is its arguments and the module and common-block variables its call
//! tree can see (`global_checkpoint.rs`; the replacement list carries no
//! `Read` list to narrow that down). Active variables are
//! checkpointed by value (`x%v`): their adjoints are the reverse sweep's
//! business.

use xaif_schema::{
    ArgumentSymbolReference, Intent, Symbol, SymbolKind, SymbolType, VariableReference,
    VariableReferenceVertex,
};

use super::UnitGen;
use xaif_schema::declarations::{Attributes, DeclaredIntent};

use crate::canon::CanonSource;
use crate::components;
use crate::error::Result;
use crate::expr::RefCtx;
use crate::global_checkpoint::SavedGlobal;
use crate::markers::{ELEMENT_CHECKPOINT, WRITE_FIRST};

/// One checkpointed variable.
struct Saved {
    /// The text stored (`x` or `x%v`).
    text: String,
    /// `cp_store_<kind>_<shape>` / `cp_restore_...`
    routine_suffix: String,
    /// Name to test with `present()` (optional arguments).
    optional: Option<String>,
    /// Name to test with `allocated()` (allocatable arrays).
    allocatable: Option<String>,
    /// Name in run-time messages (the user's, not a renaming).
    shown: String,
    /// An active array: never a constant, restored without comparing.
    active_array: bool,
    /// A component of the elements of this rank-1 array of derived type,
    /// stored element by element (`text` subscripts it with `oad_cp_k`).
    over_elements: Option<String>,
    /// The status inquiry guarding `allocatable`: `allocated`, or
    /// `associated` for the target of an active pointer.
    status: &'static str,
    /// An active pointer whose association (not value) this entry stores,
    /// on the association stacks (`OAD_ptr`, `pointers.rs`).
    association: Option<String>,
    /// The variable's name and rank, for element-wise copies.
    array: Option<(String, usize)>,
    /// A private module variable: the module's own store and restore
    /// routines, under the names the unit gives them.
    calls: Option<(String, String)>,
}

impl UnitGen<'_, '_> {
    /// Emits checkpoint stores (or restores) for the arguments `args` and
    /// the global variables `globals`.
    pub fn argument_checkpoints(
        &mut self,
        args: &[ArgumentSymbolReference],
        globals: &[SavedGlobal],
        cfg_scope: u64,
        store: bool,
    ) -> Result<()> {
        let mut saved = Vec::new();
        let mut sorted: Vec<&ArgumentSymbolReference> = args.iter().collect();
        sorted.sort_by_key(|a| a.position);
        let index = self.env.index;
        for a in sorted {
            let Some(sym) = index
                .symbol(a.scope_id, &a.symbol_id)
                .or_else(|| index.symbol(cfg_scope, &a.symbol_id))
            else {
                return Err(self.env.xaif.error(
                    &format!("symbol_id=\"{}\"", a.symbol_id),
                    format!("argument '{}' has no symbol", a.symbol_id),
                ));
            };
            // The booster stores the elements this one can touch
            // (`arg_store` / `arg_restore` replacements), or found that the
            // routine writes it before it reads it.
            if a.annotation == ELEMENT_CHECKPOINT || a.annotation == WRITE_FIRST {
                continue;
            }
            let decl = self.canon.attributes(&self.unit, &a.symbol_id);
            // A passive argument the subroutine only reads need not be
            // restored, and must not be where it is declared intent(in).
            // Derived-type and complex(8) data with active parts lose
            // `intent(in)` in their declaration, and the caller may change
            // those parts after the call: the re-run must start from the
            // values it had.
            let active_parts = (sym.type_ == SymbolType::Opaque
                || sym.type_ == SymbolType::Complex)
                && (index.has_active_components(sym) || index.is_active_complex(a.scope_id, sym));
            if !sym.active && !active_parts && (a.intent == Intent::In || has_intent_in(decl)) {
                continue;
            }
            // An `intent(out)` real or integer dummy: the routine never
            // reads the value it had on entry (Fortran leaves it undefined),
            // so its re-run needs none. Not allocatables (deallocated on
            // entry), pointers, nor data with parts (default
            // initialisation).
            if a.intent == Intent::Out
                && !active_parts
                && matches!(sym.type_, SymbolType::Real | SymbolType::Integer)
                && !sym.pointer
                && !decl.is_some_and(|d| d.allocatable || d.pointer)
            {
                continue;
            }
            let name = sym.symbol_id.as_str().to_ascii_lowercase();
            let optional = is_optional(decl).then(|| name.to_string());
            // Derived types and complex(8) data: their real parts.
            if sym.type_ == SymbolType::Opaque || sym.type_ == SymbolType::Complex {
                if active_parts || (a.intent != Intent::In && !has_intent_in(decl)) {
                    self.component_checkpoints(&name, cfg_scope, &name, &mut saved)?;
                }
                continue;
            }
            if let Some(p) = saved_pointer(sym, &name, decl) {
                saved.extend(p);
                continue;
            }
            if let Some(s) = saved_variable(sym, &name, decl, optional) {
                saved.push(s);
            }
        }
        // Module and common-block variables its call tree can see
        // (`global_checkpoint.rs`), under the names this unit gives them.
        let mut opaque_globals = Vec::new();
        self.global_entries(globals, &mut saved, &mut opaque_globals)?;
        self.emit_entries(saved, opaque_globals, store)
    }

    /// The body of a module's routine storing (or restoring) its private
    /// variable `g` for the checkpoints of units outside the module
    /// (`global_checkpoint::access_routine`): what those units would
    /// emit if they could name it.
    pub fn module_access_body(&mut self, g: &SavedGlobal, store: bool) -> Result<()> {
        let (mut saved, mut opaque) = (Vec::new(), Vec::new());
        self.global_entries(std::slice::from_ref(g), &mut saved, &mut opaque)?;
        self.emit_entries(saved, opaque, store)
    }

    /// The entries of global variables. Passive derived-type globals go
    /// whole, as bits, after the others (restored first): their integer
    /// components have no symbols.
    fn global_entries(
        &mut self,
        globals: &[SavedGlobal],
        saved: &mut Vec<Saved>,
        opaque_globals: &mut Vec<String>,
    ) -> Result<()> {
        let index = self.env.index;
        for g in globals {
            if let Some(calls) = &g.through {
                saved.push(Saved {
                    text: g.local.clone(),
                    routine_suffix: String::new(),
                    optional: None,
                    allocatable: None,
                    shown: g.name.clone(),
                    active_array: false,
                    over_elements: None,
                    status: "allocated",
                    association: None,
                    array: None,
                    calls: Some(calls.clone()),
                });
                continue;
            }
            let Some(sym) = index.symbol(g.scope, &g.name) else {
                continue;
            };
            // Character data as bits too (a string may select a branch).
            if matches!(sym.type_, SymbolType::Char | SymbolType::String)
                && sym.kind == SymbolKind::Variable
            {
                opaque_globals.push(g.local.clone());
                continue;
            }
            if sym.type_ == SymbolType::Opaque && sym.kind == SymbolKind::Variable {
                if index.has_active_components(sym) {
                    // Real parts by component, the others as bits.
                    for part in self.passive_parts_of_active_global(sym, &g.name)? {
                        opaque_globals.push(format!("{}%{part}", g.local));
                    }
                    // Its component paths are symbols of its own scope,
                    // named from the module's name for it.
                    self.component_checkpoints(&g.name, g.scope, &g.local, saved)?;
                } else if !self
                    .canon
                    .attributes(&g.decl_unit, &g.name)
                    .is_some_and(|a| a.pointer)
                {
                    self.refuse_dynamic_global(sym, &g.name)?;
                    opaque_globals.push(g.local.clone());
                }
                continue;
            }
            let decl = self.canon.attributes(&g.decl_unit, &g.name);
            // A host's optional dummy (internal procedures) may be absent.
            let optional = is_optional(decl).then(|| g.local.clone());
            if let Some(p) = saved_pointer(sym, &g.local, decl) {
                saved.extend(p.into_iter().map(|mut s| {
                    s.shown = g.name.clone();
                    s
                }));
                continue;
            }
            if let Some(mut s) = saved_variable(sym, &g.local, decl, optional) {
                s.shown = g.name.clone();
                saved.push(s);
            }
        }
        Ok(())
    }

    /// Stores (or restores, in the reverse order) checkpoint entries.
    fn emit_entries(
        &mut self,
        mut saved: Vec<Saved>,
        mut opaque_globals: Vec<String>,
        store: bool,
    ) -> Result<()> {
        if !store {
            saved.reverse();
            opaque_globals.reverse();
            for g in &opaque_globals {
                self.opaque_bits(g, false);
            }
        }
        for s in saved {
            self.emit_saved(
                &s,
                store,
                "before the reverse sweep re-ran a call that reads it",
            )?;
        }
        if store {
            for g in &opaque_globals {
                self.opaque_bits(g, true);
            }
        }
        Ok(())
    }

    /// The components that are not real data of a derived-type global
    /// with active parts: checkpointed as bits besides its real components
    /// (its own bits cannot be: they hold the adjoints too). Nested derived
    /// types and allocatable or pointer parts that are not real are
    /// refused by name.
    fn passive_parts_of_active_global(&self, sym: &Symbol, name: &str) -> Result<Vec<String>> {
        let fe = sym.fe_type.as_str().to_ascii_lowercase().replace(' ', "");
        let type_name = fe
            .strip_prefix("type(")
            .and_then(|t| t.strip_suffix(')'))
            .unwrap_or(&fe);
        let parts = self.canon.type_parts.get(type_name);
        let why = match parts {
            None => Some("whose parts the canonical source does not describe"),
            Some(p) if !p.nested.is_empty() => Some("with components of derived type"),
            Some(p) if p.dynamic_nonreal => {
                Some("with allocatable or pointer components that are not real")
            }
            Some(_) => None,
        };
        if let Some(why) = why {
            return Err(self.env.xaif.unsupported(
                &format!("symbol_id=\"{}\"", sym.symbol_id),
                format!(
                    "unsupported construct in joint adjoint mode (-m rj): the module variable '{name}' of type({type_name}) has active components and is read by a routine the reverse sweep re-runs, and its checkpoint cannot restore a type {why} (use -m rs)"
                ),
            ));
        }
        Ok(parts.map(|p| p.nonreal.clone()).unwrap_or_default())
    }

    /// A derived-type global with allocatable or pointer parts: its bits
    /// hold descriptors, which a checkpoint cannot restore.
    fn refuse_dynamic_global(&self, sym: &Symbol, name: &str) -> Result<()> {
        let fe = sym.fe_type.as_str().to_ascii_lowercase().replace(' ', "");
        let type_name = fe
            .strip_prefix("type(")
            .and_then(|t| t.strip_suffix(')'))
            .unwrap_or(&fe);
        if !type_has_dynamic_parts(self.canon, type_name, 0) {
            return Ok(());
        }
        Err(self.env.xaif.unsupported(
            &format!("symbol_id=\"{}\"", sym.symbol_id),
            format!(
                "unsupported construct in joint adjoint mode (-m rj): the module variable '{name}' of type({type_name}) is read by a routine the reverse sweep re-runs, and its type has allocatable or pointer components, which the routine's checkpoint cannot store (use -m rs)"
            ),
        ))
    }

    /// Stores (or restores) one variable of a checkpointed loop's state
    /// (`oad_state_store(x)` / `oad_state_restore(x)` from the booster's
    /// `adjoint/checkpointed_loops.rs`): like an argument checkpoint, by
    /// value for an active variable, allocatable arrays when allocated.
    pub fn state_checkpoint(&mut self, r: &VariableReference, store: bool) -> Result<()> {
        let index = self.env.index;
        let Some((name, scope)) = r.vertices.iter().find_map(|v| match v {
            VariableReferenceVertex::SymbolReference(s) => Some((s.symbol_id.clone(), s.scope_id)),
            _ => None,
        }) else {
            return Err(self.env.xaif.error(
                "oad_state_",
                "checkpointed loop state: a reference without a symbol".to_string(),
            ));
        };
        let Some(sym) = index.symbol(scope, &name) else {
            return Err(self.env.xaif.error(
                &format!("symbol_id=\"{name}\""),
                format!("checkpointed loop state: '{name}' has no symbol in scope {scope}"),
            ));
        };
        let local = self.env.var_ref(r, RefCtx::Bare)?;
        let decl = index
            .unit_of_scope(scope)
            .and_then(|unit| self.canon.attributes(unit, &name));
        let Some(mut saved) = saved_variable(sym, &local, decl, None) else {
            return Err(self.env.xaif.unsupported(
                &format!("symbol_id=\"{name}\""),
                format!("unsupported construct in a CHECKPOINT BINOMIAL loop: the loop state includes '{name}', which cannot be stored (a pointer, an assumed-size array, an allocatable scalar or a named constant)"),
            ));
        };
        saved.shown = name.to_string();
        self.emit_saved(
            &saved,
            store,
            "while the adjoint reversed a checkpointed loop",
        )
    }

    /// Stores (or restores) variable `name` as this unit sees it, by value
    /// (black-box calls, `black_box.rs`). `Ok(false)`: nothing to do, the
    /// unit cannot change it (a named constant, an `intent(in)` dummy);
    /// `Err` when it cannot be stored (a pointer, an assumed-size array,
    /// a name the index does not know).
    pub(crate) fn named_checkpoint(&mut self, name: &str, store: bool, why: &str) -> Result<bool> {
        let index = self.env.index;
        let lower = name.to_ascii_lowercase();
        let found = self.visible_symbol(&lower);
        let Some((scope, sym, remote)) = found else {
            return Err(self.env.xaif.error(
                &format!("symbol_id=\"{name}\""),
                format!("black-box call: '{name}' is not a variable the calling routine can see (pass a local copy)"),
            ));
        };
        let unit = index.unit_of_scope(scope).unwrap_or(&self.unit).to_string();
        let decl = self.canon.attributes(&unit, &remote);
        let constant = decl.is_some_and(|a| a.parameter);
        if constant || (scope == self.scope && has_intent_in(decl)) {
            return Ok(false);
        }
        let Some(mut saved) = saved_variable(sym, &lower, decl, None) else {
            return Err(self.env.xaif.unsupported(
                &format!("symbol_id=\"{name}\""),
                format!("unsupported construct: black-box argument '{name}' cannot be stored for the adjoint (a pointer, an assumed-size array or an allocatable scalar)"),
            ));
        };
        saved.shown = name.to_string();
        self.emit_saved(&saved, store, why)?;
        Ok(true)
    }

    /// The store or restore code of one checkpointed variable; `why` ends
    /// the run-time messages of a failed restore.
    fn emit_saved(&mut self, s: &Saved, store: bool, why: &str) -> Result<()> {
        if let Some((store_routine, restore_routine)) = &s.calls {
            let routine = if store {
                store_routine
            } else {
                restore_routine
            };
            self.line(format!("call {routine}()"));
            return Ok(());
        }
        let op = if store { "store" } else { "restore" };
        let routine = match (store, s.active_array) {
            (false, true) => format!("cp_restore_{}_active", s.routine_suffix),
            _ => format!("cp_{op}_{}", s.routine_suffix),
        };
        if let Some(n) = &s.optional {
            self.line(format!("if (present({n})) then"));
            self.indent += 1;
        }
        if let Some(base) = &s.over_elements {
            let d = "integer :: oad_cp_k".to_string();
            if !self.extra_decls.contains(&d) {
                self.extra_decls.push(d);
            }
            // Restores pop in the reverse order of the stores.
            self.line(if store {
                format!("do oad_cp_k = lbound({base}, 1), ubound({base}, 1)")
            } else {
                format!("do oad_cp_k = ubound({base}, 1), lbound({base}, 1), -1")
            });
            self.indent += 1;
        }
        let status = s.status;
        let sized = status == "allocated" || s.routine_suffix != "real_scalar";
        match (&s.allocatable, store) {
            _ if s.association.is_some() => {
                let name = s.association.as_deref().unwrap_or_default();
                let call = if store {
                    "oad_ptr_cp_store"
                } else {
                    "oad_ptr_cp_restore"
                };
                self.line(format!("call {call}({name})"));
            }
            (None, _) => self.copy_saved(&routine, s)?,
            // Stored only when allocated, with its size and the
            // allocation status on top; the restore checks both.
            (Some(name), true) => {
                self.line(format!("if ({status}({name})) then"));
                self.indent += 1;
                self.copy_saved(&routine, s)?;
                if sized {
                    self.expand_inline("cp_store_integer_scalar", &format!("size({name})"))?;
                }
                self.indent -= 1;
                self.line("end if");
                self.expand_inline("cp_store_bool_scalar", &format!("{status}({name})"))?;
            }
            (Some(name), false) => {
                for d in ["logical :: oad_cp_alloc", "integer :: oad_cp_size"] {
                    if !self.extra_decls.iter().any(|e| e == d) {
                        self.extra_decls.push(d.to_string());
                    }
                }
                self.expand_inline("cp_restore_bool_scalar", "oad_cp_alloc")?;
                self.line("if (oad_cp_alloc) then");
                self.indent += 1;
                let shown = &s.shown;
                let what = if status == "allocated" {
                    "allocatable"
                } else {
                    "target of pointer"
                };
                if sized {
                    self.expand_inline("cp_restore_integer_scalar", "oad_cp_size")?;
                }
                self.line(format!(
                    "if (.not. {status}({name})) stop 'OAD: {what} {shown} was deallocated {why}'"
                ));
                if sized {
                    self.line(format!("if (size({name}) /= oad_cp_size) stop 'OAD: {what} {shown} changed size {why}'"));
                }
                self.copy_saved(&routine, s)?;
                self.indent -= 1;
                self.line("end if");
            }
        }
        if s.over_elements.is_some() {
            self.indent -= 1;
            self.line("end do");
        }
        if s.optional.is_some() {
            self.indent -= 1;
            self.line("end if");
        }
        Ok(())
    }

    /// The copy of a checkpointed variable's values: the runtime's inline
    /// routine, except for real arrays of rank 2 and 3, copied element by
    /// element in storage order (the routine's `reshape` makes gfortran
    /// build a temporary of the whole array, and `h%v` is not contiguous:
    /// 10 % of `assoc_plain`'s joint adjoint).
    fn copy_saved(&mut self, routine: &str, s: &Saved) -> Result<()> {
        let store = routine == "cp_store_real_array";
        let restore = routine == "cp_restore_real_array_active";
        let (name, rank) = match &s.array {
            Some((name, rank)) if (store || restore) && (2..=3).contains(rank) => {
                (name.clone(), *rank)
            }
            _ => return self.expand_inline(routine, &s.text),
        };
        let decl = "integer :: oad_cp_k1, oad_cp_k2, oad_cp_k3".to_string();
        if !self.extra_decls.contains(&decl) {
            self.extra_decls.push(decl);
        }
        let element = |k: usize| {
            let idx: Vec<String> = (1..=k).map(|d| format!("oad_cp_k{d}")).collect();
            let part = if s.active_array { "%v" } else { "" };
            format!("{name}({}){part}", idx.join(", "))
        };
        if store {
            self.line(format!(
                "do while (oad_cdt_ptr + size({name}) - 1 > oad_cdt_sz)"
            ));
            self.line("  call oad_cdt_grow()");
            self.line("end do");
        } else {
            self.line(format!("oad_cdt_ptr = oad_cdt_ptr - size({name})"));
        }
        for d in (1..=rank).rev() {
            self.line(format!(
                "do oad_cp_k{d} = lbound({name}, {d}), ubound({name}, {d})"
            ));
            self.indent += 1;
        }
        if store {
            self.line(format!("oad_cdt(oad_cdt_ptr) = {}", element(rank)));
        } else {
            self.line(format!("{} = oad_cdt(oad_cdt_ptr)", element(rank)));
        }
        self.line("oad_cdt_ptr = oad_cdt_ptr + 1");
        for _ in 0..rank {
            self.indent -= 1;
            self.line("end do");
        }
        if restore {
            // Back to where the stores of this entry began.
            self.line(format!("oad_cdt_ptr = oad_cdt_ptr - size({name})"));
        }
        Ok(())
    }

    /// The real components of derived-type variable `name`: the component
    /// paths of `scope` (the unit's for an argument, the module's for a
    /// module variable) that start at it (docs/xaif.md, "Derived types"),
    /// written from `local`, the unit's name for the variable.
    fn component_checkpoints(
        &mut self,
        name: &str,
        scope: u64,
        local: &str,
        saved: &mut Vec<Saved>,
    ) -> Result<()> {
        let index = self.env.index;
        let mut paths: Vec<&Symbol> = index
            .symbols_of(scope)
            .into_iter()
            .filter(|s| {
                components::is_component_path(&s.symbol_id)
                    && components::bare_path(&s.symbol_id)
                        .split('%')
                        .next()
                        .is_some_and(|b| b.eq_ignore_ascii_case(name))
            })
            .collect();
        paths.sort_by(|a, b| a.symbol_id.cmp(&b.symbol_id));
        for sym in paths {
            let id = sym.symbol_id.as_str().to_ascii_lowercase();
            let ranks = components::part_ranks(&id);
            let base_rank = ranks[0];
            let decl = sym
                .annotation
                .strip_prefix("component:")
                .and_then(|c| c.split_once('%'))
                .and_then(|(t, c)| self.canon.declarations.component(t, c));
            // Under the unit's name for the base variable.
            let bare = {
                let path = components::bare_path(&id);
                let rest = path.find('%').map_or("", |k| &path[k..]);
                format!("{local}{rest}")
            };
            // The parts before the leaf that are arrays: one, of rank 1, is
            // a section Fortran can name (`r%cells%depth`), or a loop over
            // it when the leaf is an array too (`cells(k)%q`).
            let array_parts: Vec<usize> = ranks[..ranks.len() - 1]
                .iter()
                .enumerate()
                .filter(|(_, &r)| r > 0)
                .map(|(p, _)| p)
                .collect();
            let leaf_rank = sym.shape.rank().saturating_sub(ranks.iter().sum::<usize>());
            // `z%re` of a complex array of any rank is an array itself.
            let complex_part = sym
                .annotation
                .starts_with(&format!("component:{}%", crate::symbols::COMPLEX_TYPE));
            if !complex_part
                && (array_parts.len() > 1
                    || base_rank > 1
                    || ranks[1..ranks.len() - 1].iter().any(|&r| r > 1))
            {
                return Err(self.env.xaif.unsupported(
                    &format!("symbol_id=\"{}\"", sym.symbol_id),
                    format!("unsupported construct in joint mode: checkpointing component '{bare}' (arrays of derived types at two levels of a path, or of rank above 1)"),
                ));
            }
            if let (false, [p], true) = (complex_part, array_parts.as_slice(), leaf_rank > 0) {
                // `cells%q` is not Fortran when both parts are arrays.
                let mut element = sym.clone();
                element.shape = xaif_schema::SymbolShape::from_rank(leaf_rank)
                    .unwrap_or(xaif_schema::SymbolShape::Scalar);
                let parts: Vec<&str> = bare.split('%').collect();
                let over = parts[..=*p].join("%");
                let text = format!("{over}(oad_cp_k)%{}", parts[p + 1..].join("%"));
                if let Some(mut s) = saved_variable(&element, &text, decl, None) {
                    s.over_elements = Some(over);
                    s.shown = bare.clone();
                    saved.push(s);
                }
                continue;
            }
            if let Some(mut s) = saved_variable(sym, &bare, decl, None) {
                s.shown = bare.clone();
                saved.push(s);
            }
        }
        Ok(())
    }

    /// The lines of inline routine `routine` applied to `text`.
    fn expand_inline(&mut self, routine: &str, text: &str) -> Result<()> {
        let Some(Ok(lines)) = self.inline.expand(routine, &[text.to_string()]) else {
            return Err(self.env.xaif.error(
                "ReplacementList",
                format!("no inline definition '{routine}' for '{text}'"),
            ));
        };
        for l in lines {
            self.line(l);
        }
        Ok(())
    }
}

/// Whether a declaration's attributes include `optional`.
fn is_optional(decl: Option<&Attributes>) -> bool {
    decl.is_some_and(|a| a.optional)
}

/// Whether a declaration says `intent(in)`.
fn has_intent_in(decl: Option<&Attributes>) -> bool {
    decl.is_some_and(|a| a.intent == Some(DeclaredIntent::In))
}

/// What to store for a variable, or `None` if it is not checkpointed:
/// constants, characters and the like, assumed-size arrays (no size),
/// pointers (may alias anything). Allocatable arrays are stored when
/// allocated.
fn saved_variable(
    sym: &Symbol,
    local: &str,
    decl: Option<&Attributes>,
    optional: Option<String>,
) -> Option<Saved> {
    if sym.kind != SymbolKind::Variable {
        return None;
    }
    let kind = match sym.type_ {
        SymbolType::Real => "real",
        SymbolType::Integer => "integer",
        SymbolType::Bool => "bool",
        _ => return None,
    };
    let allocatable = decl.is_some_and(|a| a.allocatable);
    if decl.is_some_and(|a| a.parameter || a.pointer || a.assumed_size) {
        return None;
    }
    let shape = if sym.shape.rank() == 1 && kind == "real" {
        "vector"
    } else if sym.shape.rank() > 0 {
        "array"
    } else if allocatable {
        return None;
    } else {
        "scalar"
    };
    let text = if sym.active {
        format!("{local}%v")
    } else {
        local.to_string()
    };
    Some(Saved {
        text,
        routine_suffix: format!("{kind}_{shape}"),
        optional,
        allocatable: allocatable.then(|| local.to_string()),
        shown: local.to_string(),
        active_array: sym.active && sym.shape.rank() > 0,
        over_elements: None,
        status: "allocated",
        association: None,
        array: (sym.shape.rank() > 0).then(|| (local.to_string(), sym.shape.rank())),
        calls: None,
    })
}

/// An active pointer (a dummy or a global of the call tree): the values
/// of its target when associated, then its association, so that the
/// restore (reverse order) associates it first and then fills its target.
/// `None` for anything else.
fn saved_pointer(sym: &Symbol, local: &str, decl: Option<&Attributes>) -> Option<Vec<Saved>> {
    if !sym.active || !decl?.pointer {
        return None;
    }
    let rank = sym.shape.rank();
    let suffix = match rank {
        0 => "real_scalar",
        1 => "real_vector",
        _ => "real_array",
    };
    let entry = |association: Option<String>| Saved {
        text: format!("{local}%v"),
        routine_suffix: suffix.to_string(),
        optional: None,
        allocatable: Some(local.to_string()),
        shown: local.to_string(),
        active_array: rank > 0,
        over_elements: None,
        status: "associated",
        association,
        array: None,
        calls: None,
    };
    Some(vec![entry(None), entry(Some(local.to_string()))])
}

/// Whether derived type `type_name` has allocatable or pointer parts,
/// directly or in a component of derived type: its bits are then not its
/// value, and a copy through `transfer` would restore stale descriptors.
fn type_has_dynamic_parts(canon: &CanonSource, type_name: &str, depth: usize) -> bool {
    // The front end's summary covers every component; without it (a
    // definition copied as written), what `P.decl` says of the components.
    if let Some(parts) = canon.type_parts.get(&type_name.to_ascii_lowercase()) {
        return parts.dynamic;
    }
    if depth > 16 {
        return true;
    }
    canon.declarations.components_of(type_name).any(|a| {
        a.allocatable
            || a.pointer
            || a.type_spec
                .as_deref()
                .and_then(|t| t.strip_prefix("type("))
                .and_then(|t| t.strip_suffix(')'))
                .is_some_and(|inner| type_has_dynamic_parts(canon, inner, depth + 1))
    })
}

impl UnitGen<'_, '_> {
    /// A derived-type actual argument the callee reads `intent(in)` and
    /// the caller may change after the call, stored whole at the call and
    /// restored before the reverse sweep re-runs the callee (joint mode):
    /// its bits on the integer checkpoint stack through `transfer`. Data
    /// with active parts is left to the callee's own argument checkpoint
    /// (its dummy loses `intent(in)`); a type with allocatable or pointer
    /// parts is refused by name.
    pub(crate) fn opaque_call_site_checkpoint(
        &mut self,
        statement_id: &str,
        args: &[&xaif_schema::Argument],
        texts: &[String],
        store: bool,
    ) -> Result<()> {
        let (Some(arg), Some(text)) = (args.first(), texts.first()) else {
            return Err(self.env.xaif.error(
                &format!("statement_id=\"{statement_id}\""),
                "a derived-type checkpoint needs one argument",
            ));
        };
        let xaif_schema::ArgumentValue::Variable(r) = &arg.value else {
            return Ok(());
        };
        let sym = self.env.reference_symbol(r)?;
        if self.env.index.has_active_components(sym) {
            return Ok(());
        }
        let fe = sym.fe_type.as_str().to_ascii_lowercase().replace(' ', "");
        let type_name = fe
            .strip_prefix("type(")
            .and_then(|t| t.strip_suffix(')'))
            .unwrap_or(&fe)
            .to_string();
        if type_has_dynamic_parts(self.canon, &type_name, 0) {
            return Err(self.env.xaif.unsupported(
                &format!("statement_id=\"{statement_id}\""),
                format!(
                    "unsupported construct in joint adjoint mode (-m rj): '{text}' of type({type_name}) is read by a routine the reverse sweep re-runs, and its type has allocatable or pointer components, which the call site cannot store (use -m rs)"
                ),
            ));
        }
        self.opaque_bits(text, store);
        Ok(())
    }

    /// Pushes the bits of the derived-type value `text` (a scalar, array or
    /// section) on the integer checkpoint stack, or pops them back into it.
    fn opaque_bits(&mut self, text: &str, store: bool) {
        let n = format!("size(transfer({text}, oad_cit(1:1)), kind=8)");
        if store {
            self.line(format!(
                "if (oad_cit_ptr + {n} - 1 > oad_cit_sz) call oad_cit_grow_to(oad_cit_ptr + {n} - 1)"
            ));
            self.line(format!(
                "oad_cit(oad_cit_ptr:oad_cit_ptr + {n} - 1) = transfer({text}, oad_cit(1:1))"
            ));
            self.line(format!("oad_cit_ptr = oad_cit_ptr + {n}"));
        } else {
            self.line(format!("oad_cit_ptr = oad_cit_ptr - {n}"));
            self.line(format!(
                "{text} = transfer(oad_cit(oad_cit_ptr:oad_cit_ptr + {n} - 1), {text})"
            ));
        }
    }

    /// A passive pointer passed to a routine the joint reverse sweep
    /// re-runs: the association it had at the call, on the runtime's
    /// association stack of passive real(8) pointers (OAD_ptr), restored
    /// before the values the booster restores through it. A part of a
    /// pointer, or a pointer the stack has no slot for, is refused by name.
    pub(crate) fn pointer_call_site_checkpoint(
        &mut self,
        statement_id: &str,
        args: &[&xaif_schema::Argument],
        texts: &[String],
        store: bool,
    ) -> Result<()> {
        let (Some(arg), Some(text)) = (args.first(), texts.first()) else {
            return Err(self.env.xaif.error(
                &format!("statement_id=\"{statement_id}\""),
                "a pointer checkpoint needs one argument",
            ));
        };
        let xaif_schema::ArgumentValue::Variable(r) = &arg.value else {
            return Ok(());
        };
        let sym = self.env.reference_symbol(r)?;
        let fe = sym.fe_type.as_str().to_ascii_lowercase().replace(' ', "");
        let double = matches!(
            fe.as_str(),
            "real(kind=8)" | "real(8)" | "real*8" | "doubleprecision"
        );
        let whole = r.vertices.len() == 1;
        if !whole || !double || sym.shape.rank() > 4 {
            let name = &sym.symbol_id;
            return Err(self.env.xaif.unsupported(
                &format!("statement_id=\"{statement_id}\""),
                format!(
                    "unsupported construct in joint adjoint mode (-m rj): the passive pointer '{name}' is passed{} to a routine the reverse sweep re-runs, and the call site can restore the association only of a whole real(8) pointer of rank at most 4 (pass the whole pointer, or use -m rs)",
                    if whole { "" } else { " in part" }
                ),
            ));
        }
        let routine = if store {
            "oad_ptr_cp_store"
        } else {
            "oad_ptr_cp_restore"
        };
        self.line(format!("call {routine}({text})"));
        Ok(())
    }
}
