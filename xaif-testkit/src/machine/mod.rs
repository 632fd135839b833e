//! The XAIF interpreter: runs control flow graphs numerically.
//!
//! Storage is a map from location names to values (`x`, `v(2)`, `a(1,3)`),
//! derivatives (tangents or adjoints) a second map by the same names. It
//! runs assignments (scalar and array-valued, element-wise with the whole
//! right-hand side evaluated first, as Fortran does), derivative
//! propagators, the adjoint output's tape (`push_*`/`pop_*`) and checkpoint
//! (`cp_store_*`/`cp_restore_*`) calls, Entry to Exit through
//! If/Branch/ForLoop/PreLoop/PostLoop/labels/gotos, and subroutine calls
//! (formals bound to the actual's storage).
//!
//! What it cannot run panics with a message starting `unsupported:`;
//! whole-document checks count those documents as not interpretable
//! instead of failing. Any other panic is a failure.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use xaif_schema::model::*;

mod control;
mod eval;
mod statements;
mod storage;

pub use eval::constant_value;

/// Values and derivatives (adjoints) by storage location, and the tapes.
#[derive(Clone, Debug, Default)]
pub struct Machine {
    pub v: HashMap<String, f64>,
    pub d: HashMap<String, f64>,
    pub real_tape: Vec<f64>,
    pub int_tape: Vec<i64>,
    /// Vertices executed (guards against endless loops).
    pub steps: usize,
    /// The code a call runs, by subroutine name (the section of the mode
    /// being simulated: split mode runs callees in the caller's mode).
    pub subroutines: HashMap<String, Callee>,
    pub frame: Frame,
    pub calls: usize,
    /// Joint mode: every subroutine's (plain, tape, adjoint) sections. A
    /// call in a forward sweep checkpoints its arguments and runs the
    /// callee's plain section; a call in a reverse sweep restores them and
    /// runs the callee's tape then adjoint sections.
    pub joint: Option<HashMap<String, [Callee; 3]>>,
    /// Whether the code running is a reverse sweep (joint mode).
    pub in_reverse: bool,
    /// The checkpoint stack (`cp_store_*`, argument checkpoints).
    pub checkpoints: Vec<f64>,
    /// Array snapshots pushed and not yet popped: each element's subscript
    /// text (`(3)`, `(2,1)`) and value.
    pub snapshots: Vec<Vec<(String, f64)>>,
    /// The program's symbols (types, shapes, bounds, activity); without
    /// them every variable is a real and arrays are the builders' vector.
    pub symbols: Option<Rc<Symbols>>,
    /// Reads of unset locations draw a value instead of failing.
    pub inputs: Option<Inputs>,
    /// Locations assignments wrote, with whether the left-hand side is an
    /// active real (recorded when `inputs` is set: the outputs of a check).
    pub written: BTreeMap<String, bool>,
    /// What opaque statements (`Marker`s) do to values.
    pub markers: MarkerPolicy,
}

/// What the interpreter assumes of `Marker`s, opaque statements whose
/// effect XAIF does not show (I/O, allocation, anything a front end could
/// not express).
#[derive(Clone, Debug, Default)]
pub enum MarkerPolicy {
    /// Nothing (the test builders' markers are placeholders).
    #[default]
    Ignore,
    /// Only markers with these annotations (a `mirror:` prefix of the
    /// adjoint's reverse sweep removed) are known to change no value; any
    /// other one makes the run not interpretable.
    Known(Rc<std::collections::HashSet<String>>),
    /// Markers whose annotation contains one of these fragments change no
    /// value (a front end's tags for comments, pragmas, `use`, output).
    Containing(Rc<Vec<String>>),
}

impl MarkerPolicy {
    /// Whether the marker with this annotation is known to change no value.
    pub fn harmless(&self, annotation: &str) -> bool {
        let what = annotation.strip_prefix("mirror:").unwrap_or(annotation);
        match self {
            MarkerPolicy::Ignore => true,
            // `canon:N` names the statement, whatever tags follow it
            // (`canon:13;pointer:record:flux` on an `allocate`).
            MarkerPolicy::Known(set) => {
                set.contains(what) || what.split(';').next().is_some_and(|s| set.contains(s))
            }
            MarkerPolicy::Containing(fragments) => fragments.iter().any(|f| what.contains(f)),
        }
    }
}

/// A subroutine as the interpreter calls it.
#[derive(Clone, Debug, Default)]
pub struct Callee {
    pub formals: Vec<String>,
    pub vertices: Vec<ControlFlowVertex>,
    pub edges: Vec<ControlFlowEdge>,
    /// The graph's own scope (`controlflowgraph_scope_id`), when known:
    /// references to other scopes are then global storage.
    pub scope: Option<u64>,
}

impl Callee {
    /// The callee of a control flow graph or one of its replacements.
    pub fn new(
        arguments: &Option<Vec<ArgumentSymbolReference>>,
        scope: u64,
        vertices: &[ControlFlowVertex],
        edges: &[ControlFlowEdge],
    ) -> Callee {
        let mut args = arguments.clone().unwrap_or_default();
        args.sort_by_key(|a| a.position);
        Callee {
            formals: args.into_iter().map(|a| a.symbol_id.into()).collect(),
            vertices: vertices.to_vec(),
            edges: edges.to_vec(),
            scope: Some(scope),
        }
    }
}

/// Name resolution inside a call: formals are bound to the actual
/// argument's storage (by reference), other names are the callee's own.
#[derive(Clone, Debug, Default)]
pub struct Frame {
    pub prefix: String,
    pub bindings: HashMap<String, String>,
    pub scope: Option<u64>,
    /// Formals without declared bounds bound to a whole array: the
    /// actual's extents, from 1 (assumed shape; explicit shape when the
    /// extents agree, the usual case).
    pub bounds: HashMap<String, Vec<(i64, i64)>>,
    /// Array formals bound to a section, or to an array element (sequence
    /// association: that element and the ones after it): the storage of
    /// their elements in array element order.
    pub views: HashMap<String, Vec<String>>,
}

impl Frame {
    /// The frame of a top-level routine run by a check: its formals are
    /// storage of the caller (named as themselves), its locals are
    /// `local:NAME`.
    pub fn top(callee: &Callee) -> Frame {
        Frame {
            prefix: "local:".into(),
            bindings: callee
                .formals
                .iter()
                .map(|f| (f.clone(), f.clone()))
                .collect(),
            scope: callee.scope,
            bounds: HashMap::new(),
            views: HashMap::new(),
        }
    }
}

/// Whether a location is storage the caller of a top-level run sees (its
/// arguments and global variables), not a local of some frame.
pub fn is_interface(location: &str) -> bool {
    !location.starts_with("local:") && !location.contains('#')
}

/// Symbols by scope, with the parent of each scope.
#[derive(Debug, Default)]
pub struct Symbols {
    by_scope: HashMap<(u64, String), Symbol>,
    parent: HashMap<u64, u64>,
}

impl Symbols {
    pub fn new(cg: &CallGraph) -> Symbols {
        let mut s = Symbols::default();
        for scope in &cg.scope_hierarchy.scopes {
            let Ok(id) = scope.vertex_id.parse::<u64>() else {
                continue;
            };
            for table in &scope.symbol_tables {
                for sym in &table.symbols {
                    s.by_scope
                        .insert((id, sym.symbol_id.to_string()), sym.clone());
                }
            }
        }
        for e in &cg.scope_hierarchy.edges {
            if let (Ok(c), Ok(p)) = (e.source.parse(), e.target.parse()) {
                s.parent.insert(c, p);
            }
        }
        s
    }

    /// `id` as seen from `scope`: that scope, then its ancestors.
    pub fn lookup(&self, scope: u64, id: &str) -> Option<&Symbol> {
        let mut cur = scope;
        for _ in 0..64 {
            if let Some(s) = self.by_scope.get(&(cur, id.to_string())) {
                return Some(s);
            }
            cur = *self.parent.get(&cur)?;
        }
        None
    }
}

/// Values drawn for locations read before anything wrote them: a
/// deterministic function of the seed and the location's name, so every
/// run of a check (original, tangent, adjoint, perturbed) sees the same.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    pub seed: u64,
    pub drawn: BTreeMap<String, Input>,
}

/// A drawn input: its value, and whether it is an active real.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Input {
    pub value: f64,
    pub active_real: bool,
}

/// A number in [0, 1) from a seed and a name (FNV-1a, then a mix).
pub fn hash_unit(seed: u64, name: &str) -> f64 {
    let mut h: u64 = 0xcbf29ce484222325 ^ seed.wrapping_mul(0x9e3779b97f4a7c15);
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51afd7ed558ccd);
    h ^= h >> 33;
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// The value drawn for a location of the given type: reals in [0.5, 1.5]
/// (inside every intrinsic's domain), integers 2..4 (loop bounds, array
/// extents), logicals 0 or 1.
fn draw(seed: u64, name: &str, type_: SymbolType) -> f64 {
    let u = hash_unit(seed, name);
    match type_ {
        SymbolType::Integer => 2.0 + (u * 3.0).floor(),
        SymbolType::Bool => (u * 2.0).floor(),
        _ => 0.5 + u,
    }
}

impl Machine {
    /// A machine for `cg`: symbols known, inputs drawn with `seed`.
    pub fn for_program(cg: &CallGraph, seed: u64) -> Machine {
        Machine {
            symbols: Some(Rc::new(Symbols::new(cg))),
            inputs: Some(Inputs {
                seed,
                drawn: BTreeMap::new(),
            }),
            ..Machine::default()
        }
    }
}
