//! Temporaries of the adjoint sweeps, in the scope of the control flow
//! graph: popped Jacobian entries (`oad_jac_N`, real), popped index values
//! (`oad_idx_N`, integer), index expressions computed for a push
//! (`oad_itmp_N`, integer), loop trip counters and reverse loop indices
//! (`oad_ctr_N`, `oad_rctr_N`, integer, one pair per loop: nested loops
//! count at the same time), the popped branch or block id (`oad_branch`,
//! integer), a derivative copy for assignments whose left-hand side may
//! alias an argument (`oad_adj_N`, active real) and loop-invariant Jacobian
//! entries taped once per loop execution (`oad_hv_N`, real, one per hoisted
//! value: see `hoist.rs`), the values of runs whose partials the reverse
//! sweep recomputes (`oad_rv_N`, real, `oad_rvi_N`, integer: see
//! `recompute.rs`), array snapshots' copies (`oad_snap_N`, real,
//! allocatable: see `array_snapshots.rs`), and the bookkeeping of binomially checkpointed
//! loops (`oad_cpl_N`, the runtime's `type(oad_snapshot_loop)`, and the
//! integers `oad_cplo_N`, `oad_cpst_N`, `oad_cpn_N`, `oad_cps_N`,
//! `oad_cpa_N`, `oad_cpf_N`, `oad_cpt_N`, `oad_cpk_N`: see
//! `checkpointed_loops.rs`).
//!
//! Per-statement temporaries are reused from one statement to the next:
//! `reset` starts their numbering again; popped indices are shared by the
//! statements of a basic block and reused from block to block.

use std::collections::HashMap;

use xaif_schema::model::{ActiveUse, Symbol, SymbolShape, SymbolType, VariableReference};

use crate::symbols::{temporary_symbol, SymbolIndex};
use crate::temporaries::temp_reference;

/// `Symbol/@feType` of a checkpointed loop's state temporary: the derived
/// type of the runtime module `OAD_snapshots` the back end declares it
/// with.
pub const SNAPSHOT_LOOP_TYPE: &str = "oad_snapshot_loop";

/// `Symbol/@feType` of an array snapshot's copy (`array_snapshots.rs`): a real
/// array of the symbol's rank that the back end declares allocatable
/// (bounds from the tape) and `save` (its storage kept between sweeps).
pub const SNAPSHOT_COPY_TYPE: &str = "oad_snapshot_copy";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AdjointTemp {
    /// A popped Jacobian entry.
    Jacobian,
    /// A popped index value.
    Index,
    /// A subscript expression computed in the forward sweep to be pushed.
    IndexExpression,
    /// A derivative copy (active).
    DerivativeCopy,
    /// A real value of a recomputed run (`recompute.rs`): a taped input
    /// or a value the replay assigns.
    Replay,
    /// An integer input of a recomputed run.
    ReplayInteger,
}

impl AdjointTemp {
    fn stem(self) -> &'static str {
        match self {
            AdjointTemp::Jacobian => "oad_jac",
            AdjointTemp::Index => "oad_idx",
            AdjointTemp::IndexExpression => "oad_itmp",
            AdjointTemp::DerivativeCopy => "oad_adj",
            AdjointTemp::Replay => "oad_rv",
            AdjointTemp::ReplayInteger => "oad_rvi",
        }
    }

    fn type_(self) -> SymbolType {
        match self {
            AdjointTemp::Jacobian | AdjointTemp::DerivativeCopy | AdjointTemp::Replay => {
                SymbolType::Real
            }
            AdjointTemp::Index | AdjointTemp::IndexExpression | AdjointTemp::ReplayInteger => {
                SymbolType::Integer
            }
        }
    }
}

/// The adjoint temporaries of one control flow graph.
pub struct AdjointTemps<'a> {
    pub scope_id: u64,
    /// Names handed out per kind, and the next free one in this statement.
    names: HashMap<AdjointTemp, (Vec<String>, usize)>,
    /// Whole-graph integers: loop counters, reverse indices, branch id.
    integers: Vec<String>,
    /// Whole-graph reals: hoisted loop-invariant values.
    reals: Vec<String>,
    loops: usize,
    /// Checkpointed loops handed out, and their loop-state temporaries
    /// (`type(oad_snapshot_loop)`).
    checkpointed: usize,
    snapshot_loops: Vec<String>,
    /// Array snapshots' copies (`oad_snap_N`) and their shapes.
    snapshot_copies: Vec<(String, SymbolShape)>,
    /// Copies of global variables saved around calls (`oad_gsave_N`),
    /// by type/shape/bounds: names and the next free one in this statement.
    global_copies: Vec<(Symbol, usize)>,
    /// The program's symbols: a temporary must not shadow any of them.
    symbols: &'a SymbolIndex<'a>,
}

impl<'a> AdjointTemps<'a> {
    pub fn new(scope_id: u64, symbols: &'a SymbolIndex<'a>) -> AdjointTemps<'a> {
        AdjointTemps {
            scope_id,
            names: HashMap::new(),
            integers: Vec::new(),
            reals: Vec::new(),
            loops: 0,
            checkpointed: 0,
            snapshot_loops: Vec::new(),
            snapshot_copies: Vec::new(),
            global_copies: Vec::new(),
            symbols,
        }
    }

    /// `stem_k`, or `stem_k_j` when the program already uses that name.
    fn fresh(&self, stem: &str, k: usize) -> String {
        let base = format!("{stem}_{k}");
        let mut candidate = base.clone();
        let mut j = 0;
        while self.symbols.is_name_used(&candidate) {
            j += 1;
            candidate = format!("{base}_{j}");
        }
        candidate
    }

    /// Makes every per-statement temporary available again (popped
    /// indices live across the statements of a block: see `reset_block`).
    pub fn reset(&mut self) {
        for (kind, (_, next)) in self.names.iter_mut() {
            if *kind != AdjointTemp::Index {
                *next = 0;
            }
        }
        for (_, used) in self.global_copies.iter_mut() {
            *used = 0;
        }
    }

    /// A passive temporary of the type, shape and bounds of `global`, free
    /// in this statement.
    pub fn global_copy(&mut self, global: &Symbol) -> VariableReference {
        let same = |s: &Symbol| {
            s.type_ == global.type_
                && s.shape == global.shape
                && s.dimension_bounds == global.dimension_bounds
        };
        let free = self
            .global_copies
            .iter()
            .position(|(s, used)| same(s) && *used == 0);
        let k = match free {
            Some(k) => k,
            None => {
                let name = self.fresh("oad_gsave", self.global_copies.len() + 1);
                let symbol = Symbol {
                    type_: global.type_,
                    shape: global.shape,
                    dimension_bounds: global.dimension_bounds.clone(),
                    fe_type: global.fe_type.clone(),
                    ..temporary_symbol(&name)
                };
                self.global_copies.push((symbol, 0));
                self.global_copies.len() - 1
            }
        };
        self.global_copies[k].1 = 1;
        temp_reference(&self.global_copies[k].0.symbol_id, self.scope_id)
    }

    /// Makes every temporary available again (a new basic block begins).
    pub fn reset_block(&mut self) {
        for (_, next) in self.names.values_mut() {
            *next = 0;
        }
    }

    /// A free per-statement temporary of the given kind.
    pub fn take(&mut self, kind: AdjointTemp) -> VariableReference {
        let count = self.names.get(&kind).map_or(0, |(n, _)| n.len());
        let fresh = self.fresh(kind.stem(), count + 1);
        let (names, next) = self.names.entry(kind).or_default();
        if *next == names.len() {
            names.push(fresh);
        }
        let name = names[*next].clone();
        *next += 1;
        let mut r = temp_reference(&name, self.scope_id);
        if kind == AdjointTemp::DerivativeCopy {
            r.active = ActiveUse::True;
        }
        r
    }

    /// The trip counter and reverse index of a new loop.
    pub fn loop_counters(&mut self) -> (VariableReference, VariableReference) {
        self.loops += 1;
        let ctr = self.fresh("oad_ctr", self.loops);
        let rctr = self.fresh("oad_rctr", self.loops);
        self.integers.push(ctr.clone());
        self.integers.push(rctr.clone());
        (
            temp_reference(&ctr, self.scope_id),
            temp_reference(&rctr, self.scope_id),
        )
    }

    /// The taped start value of the loop made last by `loop_counters`.
    pub fn loop_start(&mut self) -> VariableReference {
        let name = self.fresh("oad_lo", self.loops);
        self.integers.push(name.clone());
        temp_reference(&name, self.scope_id)
    }

    /// A real of its own for one hoisted loop-invariant value: it holds the
    /// value in the forward sweep and receives it in the reverse sweep, where
    /// the per-statement `oad_jac_N` would be overwritten by other statements.
    pub fn hoisted_value(&mut self) -> VariableReference {
        let name = self.fresh("oad_hv", self.reals.len() + 1);
        self.reals.push(name.clone());
        temp_reference(&name, self.scope_id)
    }

    /// The copy of a new array snapshot (`array_snapshots.rs`), of rank `shape`.
    pub fn snapshot_copy(&mut self, shape: SymbolShape) -> VariableReference {
        let name = self.fresh("oad_snap", self.snapshot_copies.len() + 1);
        self.snapshot_copies.push((name.clone(), shape));
        temp_reference(&name, self.scope_id)
    }

    /// The temporaries of a new checkpointed loop: the runtime's loop
    /// state (`oad_cpl_N`) and integers named `oad_cp<stem>_N`, one per
    /// stem, in the order given.
    pub fn checkpointed_loop(
        &mut self,
        stems: &[&str],
    ) -> (VariableReference, Vec<VariableReference>) {
        self.checkpointed += 1;
        let n = self.checkpointed;
        let state = self.fresh("oad_cpl", n);
        self.snapshot_loops.push(state.clone());
        let integers = stems
            .iter()
            .map(|stem| {
                let name = self.fresh(&format!("oad_cp{stem}"), n);
                self.integers.push(name.clone());
                temp_reference(&name, self.scope_id)
            })
            .collect();
        (temp_reference(&state, self.scope_id), integers)
    }

    /// The program's symbols (to look up what a temporary reads).
    pub fn symbol_index(&self) -> &'a SymbolIndex<'a> {
        self.symbols
    }

    /// The integer receiving popped branch and block ids.
    pub fn branch_id(&mut self) -> VariableReference {
        let name = if self.symbols.is_name_used("oad_branch") {
            self.fresh("oad_branch", 1)
        } else {
            "oad_branch".to_string()
        };
        if !self.integers.contains(&name) {
            self.integers.push(name.clone());
        }
        temp_reference(&name, self.scope_id)
    }

    /// The symbols of every temporary handed out.
    pub fn symbols(&self) -> Vec<Symbol> {
        let mut out = Vec::new();
        let mut kinds: Vec<&AdjointTemp> = self.names.keys().collect();
        kinds.sort_by_key(|k| k.stem());
        for kind in kinds {
            for n in &self.names[kind].0 {
                out.push(Symbol {
                    type_: kind.type_(),
                    active: *kind == AdjointTemp::DerivativeCopy,
                    ..temporary_symbol(n)
                });
            }
        }
        out.extend(self.global_copies.iter().map(|(s, _)| s.clone()));
        for n in &self.reals {
            out.push(Symbol {
                type_: SymbolType::Real,
                ..temporary_symbol(n)
            });
        }
        for n in &self.integers {
            out.push(Symbol {
                type_: SymbolType::Integer,
                ..temporary_symbol(n)
            });
        }
        for (n, shape) in &self.snapshot_copies {
            out.push(Symbol {
                type_: SymbolType::Real,
                shape: *shape,
                fe_type: SNAPSHOT_COPY_TYPE.to_string().into(),
                ..temporary_symbol(n)
            });
        }
        for n in &self.snapshot_loops {
            out.push(Symbol {
                type_: SymbolType::Opaque,
                fe_type: SNAPSHOT_LOOP_TYPE.to_string().into(),
                ..temporary_symbol(n)
            });
        }
        out
    }
}
