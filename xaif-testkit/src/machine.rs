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

use crate::builder::VECTOR_LEN;
use crate::intrinsics;

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
            MarkerPolicy::Known(set) => set.contains(what),
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
            formals: args.into_iter().map(|a| a.symbol_id).collect(),
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
                    s.by_scope.insert((id, sym.symbol_id.clone()), sym.clone());
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

/// One dimension of an array-valued reference: its subscripts in order.
type Extent = Vec<i64>;

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

    fn symbol(&self, s: &SymbolReference) -> Option<&Symbol> {
        self.symbols.as_ref()?.lookup(s.scope_id, &s.symbol_id)
    }

    fn resolve(&self, name: &str) -> String {
        if let Some(actual) = self.frame.bindings.get(name) {
            return actual.clone();
        }
        // A component path (`p%pos`, `cells(1)%q`: docs/xaif.md) of a
        // derived-type formal is the same path of the actual.
        if let Some(at) = name.find(['%', '(']) {
            if let Some(actual) = self.frame.bindings.get(&name[..at]) {
                if actual.contains('(') {
                    panic!("unsupported: component of a derived-type array element actual");
                }
                return format!("{actual}{}", &name[at..]);
            }
        }
        format!("{}{name}", self.frame.prefix)
    }

    /// The storage of a symbol: the frame's own or bound to an actual
    /// argument, else the global storage of its scope.
    fn base(&self, s: &SymbolReference) -> String {
        if s.scope_id == 1 && self.frame.scope != Some(1) {
            return s.symbol_id.clone();
        }
        match self.frame.scope {
            Some(scope) if scope != s.scope_id => format!("{}@{}", s.symbol_id, s.scope_id),
            _ => self.resolve(&s.symbol_id),
        }
    }

    fn symbol_reference(r: &VariableReference) -> &SymbolReference {
        let mut symbol = None;
        for v in &r.vertices {
            match v {
                VariableReferenceVertex::SymbolReference(s) => {
                    if symbol.is_some() {
                        panic!(
                            "unsupported: reference with several symbols (derived-type component)"
                        );
                    }
                    symbol = Some(s)
                }
                VariableReferenceVertex::ArrayElementReference(_) => {}
            }
        }
        symbol.expect("reference without symbol")
    }

    fn subscripts(r: &VariableReference) -> Option<&ArrayElementReference> {
        let mut found = None;
        for v in &r.vertices {
            if let VariableReferenceVertex::ArrayElementReference(a) = v {
                if found.is_some() {
                    panic!("unsupported: reference with several subscript lists");
                }
                found = Some(a);
            }
        }
        found
    }

    /// The bounds of every dimension of the array `s`.
    fn bounds(&self, s: &SymbolReference) -> Vec<(i64, i64)> {
        self.known_bounds(s).unwrap_or_else(|| {
            panic!(
                "unsupported: array without constant DimensionBounds: {}",
                s.symbol_id
            )
        })
    }

    /// The bounds of every dimension of the array `s`: declared, else
    /// those of the whole array bound to it.
    fn known_bounds(&self, s: &SymbolReference) -> Option<Vec<(i64, i64)>> {
        if self.symbols.is_none() {
            return Some(vec![(1, VECTOR_LEN)]);
        }
        let sym = self
            .symbol(s)
            .unwrap_or_else(|| panic!("unsupported: unknown symbol: {}", s.symbol_id));
        if !sym.dimension_bounds.is_empty() {
            return Some(
                sym.dimension_bounds
                    .iter()
                    .map(|b| (b.lower, b.upper))
                    .collect(),
            );
        }
        if let Some(view) = self.view(s) {
            return (sym.shape.rank() == 1).then(|| vec![(1, view.len() as i64)]);
        }
        let local = self.frame.scope.is_none_or(|f| f == s.scope_id);
        if local {
            return self.frame.bounds.get(&s.symbol_id).cloned();
        }
        None
    }

    /// The elements a formal bound to a section or an element stands for.
    fn view(&self, s: &SymbolReference) -> Option<&Vec<String>> {
        let local = self.frame.scope.is_none_or(|f| f == s.scope_id) && s.scope_id != 1;
        if local {
            self.frame.views.get(&s.symbol_id)
        } else {
            None
        }
    }

    /// The storage of element `idx` of the array `s`.
    fn element_location(&self, s: &SymbolReference, idx: &[i64]) -> String {
        let Some(view) = self.view(s) else {
            let bound_to_element = self
                .frame
                .bindings
                .get(&s.symbol_id)
                .is_some_and(|b| b.contains('('));
            if bound_to_element {
                panic!("unsupported: subscripted scalar formal");
            }
            return element_name(&self.base(s), idx);
        };
        // The linear position in array element order.
        let bounds = self.bounds(s);
        let mut linear = 0i64;
        let mut stride = 1i64;
        for (i, (lo, hi)) in idx.iter().zip(&bounds) {
            linear += (i - lo) * stride;
            stride *= hi - lo + 1;
        }
        view.get(linear as usize)
            .unwrap_or_else(|| {
                // Drawn integers (a parameter XAIF shows as a variable)
                // need not agree with the actual's extent.
                panic!(
                    "unsupported: subscript beyond the actual argument: {}",
                    s.symbol_id
                )
            })
            .clone()
    }

    fn is_array_symbol(&self, s: &SymbolReference) -> bool {
        self.symbol(s)
            .is_some_and(|sym| sym.shape != SymbolShape::Scalar)
    }

    /// The elements an array-valued reference denotes (whole array or
    /// section), in array element order; `None` for a scalar reference.
    pub fn elements(&mut self, r: &VariableReference) -> Option<Vec<String>> {
        let s = Self::symbol_reference(r);
        let extents: Vec<Extent> = match Self::subscripts(r) {
            None if self.is_array_symbol(s) => self
                .bounds(s)
                .into_iter()
                .map(|(lo, hi)| (lo..=hi).collect())
                .collect(),
            None => return None,
            Some(a) if a.index_triplets.iter().all(is_scalar_subscript) => return None,
            Some(a) => {
                let declared = self.bounds(s);
                a.index_triplets
                    .iter()
                    .enumerate()
                    .map(|(k, t)| {
                        let (lo, hi) = declared.get(k).copied().unwrap_or((1, 0));
                        let start = t.index.as_ref().map_or(lo, |e| self.eval_int(e));
                        match &t.bound {
                            None if is_scalar_subscript(t) => vec![start],
                            bound => {
                                let end = bound.as_ref().map_or(hi, |e| self.eval_int(e));
                                let step = t.stride.as_ref().map_or(1, |e| self.eval_int(e));
                                assert!(step != 0, "zero stride");
                                let mut out = Vec::new();
                                let mut i = start;
                                while (step > 0 && i <= end) || (step < 0 && i >= end) {
                                    out.push(i);
                                    i += step;
                                }
                                out
                            }
                        }
                    })
                    .collect()
            }
        };
        // Array element order: the first subscript varies fastest.
        let mut out = Vec::new();
        if extents.iter().any(|e| e.is_empty()) {
            return Some(out);
        }
        let mut pos = vec![0usize; extents.len()];
        loop {
            let idx: Vec<i64> = pos.iter().zip(&extents).map(|(&p, e)| e[p]).collect();
            out.push(self.element_location(s, &idx));
            let mut k = 0;
            loop {
                if k == pos.len() {
                    return Some(out);
                }
                pos[k] += 1;
                if pos[k] < extents[k].len() {
                    break;
                }
                pos[k] = 0;
                k += 1;
            }
        }
    }

    /// Gives the current frame's array formals that declare no bounds
    /// (`x(n)`, `x(:)` of a routine run at the top, with no actual to take
    /// them from) the bounds `1:extent` in every dimension. The interpreter
    /// then runs them as arrays of that shape whatever integer `n` it
    /// draws: one fixed semantics for input, tangent and adjoint alike.
    pub fn assume_bounds_of_formals(&mut self, extent: i64) {
        let (Some(symbols), Some(scope)) = (&self.symbols, self.frame.scope) else {
            return;
        };
        for formal in self.frame.bindings.keys() {
            if let Some(sym) = symbols.lookup(scope, formal) {
                let rank = sym.shape.rank();
                if rank > 0 && sym.dimension_bounds.is_empty() {
                    self.frame
                        .bounds
                        .insert(formal.clone(), vec![(1, extent); rank]);
                }
            }
        }
    }

    /// The storage a scalar reference denotes: `x`, `v(2)`, `a(1,3)`.
    pub fn location(&mut self, r: &VariableReference) -> String {
        let s = Self::symbol_reference(r);
        match Self::subscripts(r) {
            None if self.view(s).is_some() => {
                panic!("unsupported: whole array formal in a scalar context")
            }
            None => self.base(s),
            Some(a) => {
                if !a.index_triplets.iter().all(is_scalar_subscript) {
                    panic!(
                        "unsupported: array section in a scalar context: {}",
                        s.symbol_id
                    );
                }
                let idx: Vec<i64> = a
                    .index_triplets
                    .iter()
                    .map(|t| self.eval_int(t.index.as_ref().expect("subscript")))
                    .collect();
                self.element_location(s, &idx)
            }
        }
    }

    /// Type and activity of what a reference reads, for drawn inputs.
    fn input_kind(&self, r: &VariableReference) -> (SymbolType, bool) {
        let s = Self::symbol_reference(r);
        match self.symbol(s) {
            Some(sym) => {
                let active = match r.active {
                    ActiveUse::True => true,
                    ActiveUse::False => false,
                    ActiveUse::Undefined => sym.active,
                };
                (sym.type_, active && sym.type_ == SymbolType::Real)
            }
            None => (SymbolType::Real, true),
        }
    }

    fn read_location(&mut self, n: &str, r: &VariableReference) -> f64 {
        if let Some(x) = self.v.get(n) {
            return *x;
        }
        let (type_, active_real) = self.input_kind(r);
        let Some(inputs) = &mut self.inputs else {
            panic!("read of unset variable {n}");
        };
        let value = draw(inputs.seed, n, type_);
        inputs
            .drawn
            .insert(n.to_string(), Input { value, active_real });
        self.v.insert(n.to_string(), value);
        value
    }

    pub fn read(&mut self, r: &VariableReference) -> f64 {
        let n = self.location(r);
        self.read_location(&n, r)
    }

    fn deriv(&mut self, r: &VariableReference) -> f64 {
        let n = self.location(r);
        *self.d.get(&n).unwrap_or(&0.0)
    }

    fn eval_int(&mut self, e: &Expression) -> i64 {
        let x = self.eval(e);
        assert_eq!(x.fract(), 0.0, "non-integer subscript {x}");
        x as i64
    }

    /// The value of a scalar expression.
    pub fn eval(&mut self, e: &Expression) -> f64 {
        self.eval_at(e, None)
    }

    /// The value of an expression; array-valued references give their
    /// `element`-th element (element-wise evaluation of an array
    /// assignment).
    pub fn eval_at(&mut self, e: &Expression, element: Option<usize>) -> f64 {
        let index: HashMap<&str, usize> = e
            .vertices
            .iter()
            .enumerate()
            .map(|(i, v)| (v.vertex_id(), i))
            .collect();
        assert_eq!(index.len(), e.vertices.len(), "duplicate vertex ids");
        let mut args: Vec<Vec<(i64, usize)>> = vec![Vec::new(); e.vertices.len()];
        let mut used = vec![false; e.vertices.len()];
        for ed in &e.edges {
            let s = index[ed.source.as_str()];
            let t = index[ed.target.as_str()];
            args[t].push((ed.position, s));
            used[s] = true;
        }
        for a in &mut args {
            a.sort();
        }
        let roots: Vec<usize> = (0..e.vertices.len()).filter(|&i| !used[i]).collect();
        assert_eq!(roots.len(), 1, "expression with {} roots", roots.len());
        self.eval_vertex(e, &args, roots[0], element, &[])
    }

    /// Evaluates a catalogue partial: `ArgumentReference n` is `args[n-1]`.
    pub fn eval_with_arguments(&mut self, e: &Expression, arguments: &[f64]) -> f64 {
        let index: HashMap<&str, usize> = e
            .vertices
            .iter()
            .enumerate()
            .map(|(i, v)| (v.vertex_id(), i))
            .collect();
        let mut args: Vec<Vec<(i64, usize)>> = vec![Vec::new(); e.vertices.len()];
        let mut used = vec![false; e.vertices.len()];
        for ed in &e.edges {
            let s = index[ed.source.as_str()];
            let t = index[ed.target.as_str()];
            args[t].push((ed.position, s));
            used[s] = true;
        }
        for a in &mut args {
            a.sort();
        }
        let root = (0..e.vertices.len()).find(|&i| !used[i]).expect("root");
        self.eval_vertex(e, &args, root, None, arguments)
    }

    /// Bound inquiries on a whole array (`lbound`, `ubound`, `size`): the
    /// argument is the array itself, not a value.
    fn inquiry(&mut self, e: &Expression, args: &[Vec<(i64, usize)>], v: usize) -> Option<f64> {
        let ExpressionVertex::Intrinsic(i) = &e.vertices[v] else {
            return None;
        };
        if !matches!(i.name.as_str(), "lbound" | "ubound" | "size") {
            return None;
        }
        let ExpressionVertex::VariableReference(r) = &e.vertices[args[v][0].1] else {
            panic!("bound inquiry on something else than an array");
        };
        assert!(
            r.vertices.len() == 1,
            "bound inquiry on something else than a whole array"
        );
        let bounds = self.bounds(Self::symbol_reference(r));
        let dims: Vec<(i64, i64)> = match args[v].get(1) {
            Some(&(_, d)) => {
                let k = self.eval_vertex(e, args, d, None, &[]) as usize;
                vec![bounds[k - 1]]
            }
            None => bounds,
        };
        Some(match i.name.as_str() {
            "lbound" => dims[0].0 as f64,
            "ubound" => dims[0].1 as f64,
            _ => dims
                .iter()
                .map(|(l, u)| (u - l + 1).max(0))
                .product::<i64>() as f64,
        })
    }

    fn eval_vertex(
        &mut self,
        e: &Expression,
        args: &[Vec<(i64, usize)>],
        v: usize,
        element: Option<usize>,
        arguments: &[f64],
    ) -> f64 {
        if let Some(x) = self.inquiry(e, args, v) {
            return x;
        }
        let a: Vec<f64> = args[v]
            .iter()
            .map(|&(_, s)| self.eval_vertex(e, args, s, element, arguments))
            .collect();
        let truth = |b: bool| if b { 1.0 } else { 0.0 };
        match &e.vertices[v] {
            ExpressionVertex::VariableReference(r) => match self.elements(r) {
                None => self.read(r),
                Some(elements) => {
                    let k = element.unwrap_or_else(|| {
                        panic!("unsupported: array-valued reference in a scalar context")
                    });
                    let n = elements
                        .get(k)
                        .unwrap_or_else(|| panic!("non-conformable array reference"))
                        .clone();
                    self.read_location(&n, r)
                }
            },
            ExpressionVertex::Constant(c) => constant_value(c),
            ExpressionVertex::BooleanOperation(b) => match (b.name, a.as_slice()) {
                (BooleanOp::LessThan, [x, y]) => truth(x < y),
                (BooleanOp::LessOrEqual, [x, y]) => truth(x <= y),
                (BooleanOp::GreaterThan, [x, y]) => truth(x > y),
                (BooleanOp::GreaterOrEqual, [x, y]) => truth(x >= y),
                (BooleanOp::Equal, [x, y]) => truth(x == y),
                (BooleanOp::NotEqual, [x, y]) => truth(x != y),
                (BooleanOp::And, [x, y]) => truth(*x != 0.0 && *y != 0.0),
                (BooleanOp::Or, [x, y]) => truth(*x != 0.0 || *y != 0.0),
                (BooleanOp::Not, [x]) => truth(*x == 0.0),
                (op, _) => panic!("unsupported: boolean operation {op:?}/{}", a.len()),
            },
            // Integer results (`rType`) truncate: integer division.
            ExpressionVertex::Intrinsic(i) if i.r_type == SymbolType::Integer => {
                intrinsics::apply(&i.name, &a).trunc()
            }
            ExpressionVertex::Intrinsic(i) => intrinsics::apply(&i.name, &a),
            ExpressionVertex::ArgumentReference(r) => arguments[r.argument as usize - 1],
            ExpressionVertex::FunctionCall(_) => {
                panic!("unsupported: function call in an expression (canonical form C4)")
            }
        }
    }

    /// `lhs = rhs`, element-wise when the left-hand side is array-valued
    /// (every element's value computed before any is stored).
    fn assign(&mut self, a: &Assignment) {
        let targets = match self.elements(&a.lhs.reference) {
            None => {
                let value = self.eval(&a.rhs);
                let target = self.location(&a.lhs.reference);
                vec![(target, value)]
            }
            Some(targets) => {
                let values: Vec<f64> = (0..targets.len())
                    .map(|k| self.eval_at(&a.rhs, Some(k)))
                    .collect();
                targets.into_iter().zip(values).collect()
            }
        };
        let active_real = self.inputs.is_some() && self.input_kind(&a.lhs.reference).1;
        for (t, x) in targets {
            if self.inputs.is_some() {
                self.written.insert(t.clone(), active_real);
            }
            self.v.insert(t, x);
        }
    }

    fn set_deriv(&mut self, r: &VariableReference, value: f64) {
        let n = self.location(r);
        self.d.insert(n, value);
    }

    fn propagate(&mut self, p: &DerivativePropagator) {
        for e in &p.entries {
            match e {
                PropagatorEntry::SetDeriv { tgt, src } => {
                    let x = self.deriv(src);
                    self.set_deriv(tgt, x)
                }
                PropagatorEntry::SetNegDeriv { tgt, src } => {
                    let x = -self.deriv(src);
                    self.set_deriv(tgt, x)
                }
                PropagatorEntry::IncDeriv { tgt, src } => {
                    let x = self.deriv(tgt) + self.deriv(src);
                    self.set_deriv(tgt, x)
                }
                PropagatorEntry::DecDeriv { tgt, src } => {
                    let x = self.deriv(tgt) - self.deriv(src);
                    self.set_deriv(tgt, x)
                }
                PropagatorEntry::Sax { ax, y } => {
                    let mut x = 0.0;
                    for t in ax {
                        x += self.eval(&t.a) * self.deriv(&t.x);
                    }
                    self.set_deriv(y, x)
                }
                PropagatorEntry::Saxpy { ax, y } => {
                    let mut x = self.deriv(y);
                    for t in ax {
                        x += self.eval(&t.a) * self.deriv(&t.x);
                    }
                    self.set_deriv(y, x)
                }
                PropagatorEntry::ZeroDeriv(y) => self.set_deriv(y, 0.0),
            }
        }
    }

    fn inlinable_call(&mut self, c: &InlinableSubroutineCall) {
        if c.arguments.len() != 1 {
            panic!(
                "unsupported: inlinable call {} with {} arguments",
                c.subroutine_name,
                c.arguments.len()
            );
        }
        let arg = c.arguments[0].value.clone();
        let value = |m: &mut Machine| match &arg {
            ArgumentValue::Variable(r) => m.read(r),
            ArgumentValue::Constant(k) => constant_value(k),
        };
        let target = |m: &mut Machine| match &arg {
            ArgumentValue::Variable(r) => m.location(r),
            ArgumentValue::Constant(_) => panic!("pop into a constant"),
        };
        match c.subroutine_name.as_str() {
            name if name.starts_with("cp_store_") && name.ends_with("_array") => {
                let ArgumentValue::Variable(r) = &arg else {
                    panic!("checkpoint of a constant")
                };
                let elements = self
                    .elements(r)
                    .unwrap_or_else(|| panic!("{name} of a scalar"));
                for n in elements {
                    let x = self.read_location(&n, r);
                    self.checkpoints.push(x);
                }
            }
            name if name.starts_with("cp_restore_") && name.ends_with("_array") => {
                let ArgumentValue::Variable(r) = &arg else {
                    panic!("restore into a constant")
                };
                let elements = self
                    .elements(r)
                    .unwrap_or_else(|| panic!("{name} of a scalar"));
                for n in elements.into_iter().rev() {
                    let x = self.checkpoints.pop().expect("checkpoint underflow");
                    self.v.insert(n, x);
                }
            }
            name if name.starts_with("cp_store_") && name.ends_with("_scalar") => {
                let x = value(self);
                self.checkpoints.push(x)
            }
            name if name.starts_with("cp_restore_") && name.ends_with("_scalar") => {
                let x = self.checkpoints.pop().expect("checkpoint underflow");
                let n = target(self);
                self.v.insert(n, x);
            }
            "push_real" => {
                let x = value(self);
                self.real_tape.push(x)
            }
            "push_int" => {
                let x = value(self);
                assert_eq!(x.fract(), 0.0, "push_int of a non-integer");
                self.int_tape.push(x as i64)
            }
            "pop_real" => {
                let x = self.real_tape.pop().expect("real tape underflow");
                let n = target(self);
                self.v.insert(n, x);
            }
            "pop_int" => {
                let x = self.int_tape.pop().expect("integer tape underflow");
                let n = target(self);
                self.v.insert(n, x as f64);
            }
            other => panic!("unsupported: inlinable call: {other}"),
        }
    }

    /// Runs one basic block element.
    pub fn element(&mut self, el: &BasicBlockElement) {
        match el {
            BasicBlockElement::Assignment(a) => self.assign(a),
            BasicBlockElement::DerivativePropagator(p) => self.propagate(p),
            BasicBlockElement::InlinableSubroutineCall(c) => self.inlinable_call(c),
            BasicBlockElement::Marker(m) => {
                if !self.markers.harmless(&m.annotation) {
                    panic!(
                        "unsupported: opaque statement whose effect on values the XAIF \
                         does not show: Marker '{}'",
                        m.annotation
                    );
                }
            }
            BasicBlockElement::SubroutineCall(c) => self.call(c),
        }
    }

    /// Runs the callee with its formals bound to the actual arguments.
    fn call(&mut self, c: &SubroutineCall) {
        let name = c.symbol_id.clone().expect("callee name");
        if let Some(joint) = &self.joint {
            let [plain, tape, adjoint] = joint
                .get(&name)
                .unwrap_or_else(|| panic!("unsupported: no code for subroutine: {name}"))
                .clone();
            let reverse = self.in_reverse;
            let actuals: Vec<String> = c
                .arguments
                .iter()
                .map(|a| match &a.value {
                    ArgumentValue::Variable(r) => self.location(r),
                    ArgumentValue::Constant(_) => panic!("constant actual in a joint test"),
                })
                .collect();
            if !reverse {
                for n in &actuals {
                    let x = self.v[n];
                    self.checkpoints.push(x);
                }
                self.invoke(c, &name, &plain);
            } else {
                for n in actuals.iter().rev() {
                    let x = self.checkpoints.pop().expect("argument checkpoint");
                    self.v.insert(n.clone(), x);
                }
                self.in_reverse = false;
                self.invoke(c, &name, &tape);
                self.in_reverse = true;
                self.invoke(c, &name, &adjoint);
            }
            self.in_reverse = reverse;
            return;
        }
        let callee = self
            .subroutines
            .get(&name)
            .unwrap_or_else(|| panic!("unsupported: no code for subroutine: {name}"))
            .clone();
        self.invoke(c, &name, &callee);
    }

    /// Runs `callee` with its formals bound to the actual arguments of `c`:
    /// a whole array by its name, a scalar by its location.
    fn invoke(&mut self, c: &SubroutineCall, name: &str, callee: &Callee) {
        self.calls += 1;
        let mut bindings = HashMap::new();
        let mut bounds = HashMap::new();
        let mut views = HashMap::new();
        // Whether the callee's formal is an array (sequence association).
        let formal_is_array = |m: &Machine, formal: &str| {
            let (Some(symbols), Some(scope)) = (&m.symbols, callee.scope) else {
                return false;
            };
            symbols
                .lookup(scope, formal)
                .is_some_and(|f| f.shape != SymbolShape::Scalar)
        };
        for arg in &c.arguments {
            let formal = callee
                .formals
                .get(arg.position as usize - 1)
                .unwrap_or_else(|| panic!("call of {name}: no formal at position {}", arg.position))
                .clone();
            let actual = match &arg.value {
                ArgumentValue::Variable(r) => {
                    let s = Self::symbol_reference(r);
                    match Self::subscripts(r) {
                        None if self.view(s).is_some() => {
                            // A formal passed on whole: the same elements.
                            views.insert(formal.clone(), self.view(s).unwrap().clone());
                            format!("view#{}:{formal}", self.calls)
                        }
                        None if self.symbols.is_some() && self.is_array_symbol(s) => {
                            if let Some(b) = self.known_bounds(s) {
                                let extents = b.into_iter().map(|(lo, hi)| (1, hi - lo + 1));
                                bounds.insert(formal.clone(), extents.collect());
                            }
                            self.base(s)
                        }
                        None => self.base(s),
                        Some(a) if !a.index_triplets.iter().all(is_scalar_subscript) => {
                            let elements = self.elements(r).expect("a section");
                            views.insert(formal.clone(), elements);
                            format!("view#{}:{formal}", self.calls)
                        }
                        Some(_) if formal_is_array(self, &formal) => {
                            // The element and those after it in the actual.
                            let element = self.location(r);
                            let mut whole = r.clone();
                            whole.vertices.retain(|v| {
                                matches!(v, VariableReferenceVertex::SymbolReference(_))
                            });
                            whole.edges.clear();
                            let all = self.elements(&whole).unwrap_or_else(|| {
                                panic!("unsupported: array element of a scalar as an actual")
                            });
                            let at = all
                                .iter()
                                .position(|n| *n == element)
                                .expect("element of its array");
                            views.insert(formal.clone(), all[at..].to_vec());
                            format!("view#{}:{formal}", self.calls)
                        }
                        Some(_) => self.location(r),
                    }
                }
                ArgumentValue::Constant(k) => {
                    let n = format!("const#{}", self.calls);
                    self.v.insert(n.clone(), constant_value(k));
                    n
                }
            };
            bindings.insert(formal, actual);
        }
        let frame = Frame {
            prefix: format!("{name}#{}:", self.calls),
            bindings,
            scope: callee.scope,
            bounds,
            views,
        };
        let saved = std::mem::replace(&mut self.frame, frame);
        self.run(&callee.vertices, &callee.edges);
        self.frame = saved;
    }

    /// Runs a control flow graph from its Entry to its Exit (a graph
    /// without an Entry, a module's empty body, does nothing).
    pub fn run(&mut self, vertices: &[ControlFlowVertex], edges: &[ControlFlowEdge]) {
        let by_id: HashMap<&str, &ControlFlowVertex> =
            vertices.iter().map(|v| (v.vertex_id(), v)).collect();
        let out = |id: &str| -> Vec<&ControlFlowEdge> {
            edges.iter().filter(|e| e.source == id).collect()
        };
        // Parallel edges to the same vertex are one way on.
        let single = |id: &str| -> String {
            let o = out(id);
            assert!(
                !o.is_empty() && o.iter().all(|e| e.target == o[0].target),
                "vertex {id} must have one successor"
            );
            o[0].target.clone()
        };
        let on = |id: &str, value: i64| -> String {
            out(id)
                .into_iter()
                .find(|e| e.has_condition_value && e.condition_value == value)
                .or_else(|| out(id).into_iter().find(|e| !e.has_condition_value))
                .unwrap_or_else(|| panic!("no edge for {value} out of {id}"))
                .target
                .clone()
        };
        let Some(entry) = vertices
            .iter()
            .find(|v| matches!(v, ControlFlowVertex::Entry(_)))
        else {
            return;
        };
        let mut cur = entry.vertex_id().to_string();
        let mut prev = String::new();
        loop {
            self.steps += 1;
            assert!(self.steps < 10_000_000, "endless loop");
            let v = by_id[cur.as_str()];
            // Coming back from the loop's own EndLoop?
            let from_end = matches!(
                by_id.get(prev.as_str()),
                Some(ControlFlowVertex::EndLoop(_))
            ) && out(&prev).first().is_some_and(|e| e.target == cur);
            let next = match v {
                ControlFlowVertex::Exit(_) => return,
                ControlFlowVertex::Entry(_)
                | ControlFlowVertex::EndBranch(_)
                | ControlFlowVertex::EndLoop(_)
                | ControlFlowVertex::Label(_)
                | ControlFlowVertex::Goto(_) => single(&cur),
                ControlFlowVertex::BasicBlock(b) => {
                    for el in &b.elements {
                        self.element(el);
                    }
                    single(&cur)
                }
                ControlFlowVertex::If(c) => {
                    let t = self.eval(c.condition.as_ref().unwrap()) != 0.0;
                    on(&cur, t as i64)
                }
                ControlFlowVertex::Branch(c) => {
                    let k = self.eval(c.condition.as_ref().unwrap());
                    on(&cur, k as i64)
                }
                ControlFlowVertex::ForLoop(f) => {
                    if from_end {
                        self.assign(f.update.as_ref().unwrap());
                    } else {
                        self.assign(f.initialization.as_ref().unwrap());
                    }
                    let t = self.eval(f.condition.as_ref().unwrap()) != 0.0;
                    on(&cur, t as i64)
                }
                ControlFlowVertex::PreLoop(c) => {
                    let t = self.eval(c.condition.as_ref().unwrap()) != 0.0;
                    on(&cur, t as i64)
                }
                ControlFlowVertex::PostLoop(c) => {
                    let t = !from_end || self.eval(c.condition.as_ref().unwrap()) != 0.0;
                    on(&cur, t as i64)
                }
            };
            prev = cur;
            cur = next;
        }
    }
}

/// A subscript that selects one position (`i`; not `:` or `i:j`).
fn is_scalar_subscript(t: &IndexTriplet) -> bool {
    t.index.is_some() && t.bound.is_none() && t.stride.is_none()
}

fn element_name(base: &str, idx: &[i64]) -> String {
    let list: Vec<String> = idx.iter().map(|i| i.to_string()).collect();
    format!("{base}({})", list.join(","))
}

/// Numeric value of a constant: Fortran literals (`2.5d0`, `1.0_8`),
/// logicals as 0/1.
pub fn constant_value(c: &Constant) -> f64 {
    match c.type_ {
        ConstantType::Bool => match c.value.trim().to_ascii_lowercase().trim_matches('.') {
            "true" | "1" => 1.0,
            "false" | "0" => 0.0,
            other => panic!("bad logical literal {other}"),
        },
        ConstantType::Char | ConstantType::String => {
            panic!("unsupported: character constant: {}", c.value)
        }
        _ => {
            let t = c.value.split('_').next().unwrap().replace(['d', 'D'], "e");
            t.parse()
                .unwrap_or_else(|_| panic!("unsupported: literal: {}", c.value))
        }
    }
}
