//! XAIF emission: scopes and symbol tables, the analysis maps, one control
//! flow graph per subprogram, call graph edges; expression graphs in the
//! style of the reference examples.

use crate::analysis::ir::StmtId;
use crate::analysis::Results;
use crate::ast::*;
use crate::cfg::{Cfg, NodeKind};
use crate::emit_canon::dummies;
use crate::intrinsics;
use crate::locations::stmt_name;
use crate::lower::Lowered;
use crate::sema::{Binding, Cat, Program, Ty};
use crate::unparse;
use std::collections::HashMap;
use xaif_schema::model as x;
use xaif_schema::model::{ASSUMED_SIZE_ANNOTATION, CONSTANT_ANNOTATION};
use xaif_schema::source_map::{SourceLocation, SourceMap};

pub struct Emitter<'a> {
    pub prog: &'a Program,
    pub lowered: &'a mut Lowered,
    pub results: &'a Results,
    /// Front-end unit → scope id.
    pub scope_of: HashMap<usize, u64>,
    /// Original line numbers, by (file, normalised line).
    pub line_of: &'a dyn Fn(Span) -> u64,
    /// Original file, line and column of a span (`None` for spans the
    /// canonicaliser made up).
    pub place_of: &'a dyn Fn(Span) -> Option<SourceLocation>,
    /// Where the emitted statements, symbols and units are in the user's
    /// files: the side file later stages report errors against.
    pub source_map: SourceMap,
    /// du/ud keys referenced from the emitted variable references.
    pub used_duud: std::collections::HashSet<u64>,
    /// do-chain keys referenced from the emitted assignments.
    pub used_do: std::collections::HashSet<u64>,
    /// Loops to checkpoint in the adjoint (`!$openad CHECKPOINT
    /// BINOMIAL`), by the span of their DO statement.
    pub checkpointed_loops: HashMap<Span, crate::checkpoint_pragmas::CheckpointedLoop>,
}

fn symbol_type(c: Cat) -> x::SymbolType {
    match c {
        Cat::Int => x::SymbolType::Integer,
        Cat::Real(_) => x::SymbolType::Real,
        Cat::Complex(_) => x::SymbolType::Complex,
        Cat::Logical => x::SymbolType::Bool,
        Cat::Char => x::SymbolType::String,
        Cat::Derived | Cat::Unknown => x::SymbolType::Opaque,
    }
}

fn shape(rank: usize) -> x::SymbolShape {
    x::SymbolShape::from_rank(rank).unwrap_or(x::SymbolShape::SevenTensor)
}

/// Builds the XAIF call graph of the program.
pub fn emit(
    e: &mut Emitter,
    cfgs: &[(usize, Cfg)],
    program_name: &str,
) -> FrontResult<x::CallGraph> {
    let prog = e.prog;
    let mut scopes = Vec::new();
    let mut scope_edges = Vec::new();
    // Scope 1: global, with every top-level subroutine.
    let mut global = Vec::new();
    for (i, u) in prog.units.iter().enumerate() {
        if u.parent.is_none()
            && u.interface_of.is_none()
            && matches!(u.ast.kind, UnitKind::Subroutine | UnitKind::Function)
        {
            global.push(proc_symbol(e, i));
        }
    }
    scopes.push(x::Scope {
        vertex_id: "1".into(),
        annotation: "global".into(),
        symbol_tables: vec![x::SymbolTable { symbols: global }],
    });
    // One scope per unit, parents first (units are stored parents first).
    for (i, u) in prog.units.iter().enumerate() {
        let id = scopes.len() as u64 + 1;
        e.scope_of.insert(i, id);
        let parent = match (u.parent, u.interface_of) {
            (Some(p), _) | (None, Some(p)) => e.scope_of.get(&p).copied().unwrap_or(1),
            _ => 1,
        };
        let mut symbols = Vec::new();
        for (k, s) in u.symbols.iter().enumerate() {
            if !is_variable_symbol(prog, i, k) {
                continue;
            }
            let cat = prog.cat_of(i, &s.ty);
            // Interface bodies mirror the dummies of the procedure they
            // describe, when its source is among the inputs.
            let loc_key = match (u.interface_of, s.dummy) {
                (Some(_), Some(pos)) => prog
                    .units
                    .iter()
                    .position(|x| {
                        x.interface_of.is_none()
                            && x.canon_name == u.canon_name
                            && matches!(x.ast.kind, UnitKind::Subroutine | UnitKind::Function)
                    })
                    .and_then(|p| {
                        prog.units[p]
                            .symbols
                            .iter()
                            .position(|y| y.dummy == Some(pos))
                            .map(|k2| (p, k2))
                    }),
                _ => Some((i, k)),
            };
            let active = match loc_key.and_then(|(o, k)| e.lowered.existing_loc(prog, o, k)) {
                Some(l) => {
                    e.results.activity.declared_active.contains(l.index())
                        || (e.results.activity.conservative && cat.is_real() && !s.parameter)
                }
                None => false,
            } && matches!(cat, Cat::Real(_))
                && !s.parameter;
            // Both parts of a complex variable or neither (`type(active_c)`).
            // Every path ending in one component is one location, whether
            // or not this unit references it (the type scope's `active`).
            let active = match &s.component {
                Some(c) if c.type_name == crate::components::COMPLEX_TYPE => complex_active(e),
                Some(c) => {
                    e.lowered
                        .component_loc(&c.type_name, &c.leaf)
                        .is_some_and(|l| {
                            e.results.activity.declared_active.contains(l.index())
                                || e.results.activity.conservative
                        })
                        && matches!(cat, Cat::Real(_))
                }
                None => active,
            };
            let mut bounds = Vec::new();
            if let Some(d) = &s.dims {
                for dim in d {
                    match dim {
                        DimSpec::Explicit { lo, hi } => {
                            let l = lo.as_ref().map_or(Some(1), |l| prog.const_int(i, l));
                            let h = prog.const_int(i, hi);
                            match (l, h) {
                                (Some(l), Some(h)) => {
                                    bounds.push(x::DimensionBounds { lower: l, upper: h })
                                }
                                _ => {
                                    bounds.clear();
                                    break;
                                }
                            }
                        }
                        _ => {
                            bounds.clear();
                            break;
                        }
                    }
                }
                if bounds.len() != d.len() {
                    bounds.clear();
                }
            }
            if let Some(at) = (e.place_of)(s.span) {
                e.source_map.add_symbol(id, &s.name, &at);
            }
            symbols.push(x::Symbol {
                symbol_id: s.name.clone().into(),
                kind: x::SymbolKind::Variable,
                type_: symbol_type(cat),
                fe_type: unparse::type_spec(&s.ty).into(),
                shape: shape(s.rank()),
                active,
                temp: s.temp,
                pointer: s.pointer,
                annotation: match &s.component {
                    Some(c) => format!("component:{}%{}", c.type_name, c.leaf).into(),
                    // The booster's array snapshots need the bounds
                    // (`lbound`/`ubound`), which an assumed-size dummy lacks.
                    None if s
                        .dims
                        .as_ref()
                        .is_some_and(|d| matches!(d.last(), Some(DimSpec::AssumedSize { .. }))) =>
                    {
                        ASSUMED_SIZE_ANNOTATION.to_string().into()
                    }
                    None if s.parameter => CONSTANT_ANNOTATION.into(),
                    None => Default::default(),
                },
                dimension_bounds: bounds,
            });
        }
        for &c in &u.contained {
            symbols.push(proc_symbol(e, c));
        }
        // Entities renamed on use are referenced by their local name: give
        // them a symbol here that mirrors the module's.
        for (local, owner, k) in renamed_uses(prog, i) {
            let ms = prog.symbol(owner, k);
            let cat = prog.cat_of(owner, &ms.ty);
            let active = e.lowered.locs.get(&(owner, k)).is_some_and(|l| {
                e.results.activity.declared_active.contains(l.index())
                    || e.results.activity.conservative
            }) && matches!(cat, Cat::Real(_))
                && !ms.parameter;
            symbols.push(x::Symbol {
                symbol_id: local.into(),
                kind: x::SymbolKind::Variable,
                type_: symbol_type(cat),
                fe_type: unparse::type_spec(&ms.ty).into(),
                shape: shape(ms.rank()),
                active,
                temp: false,
                pointer: ms.pointer,
                annotation: format!("use:{}", ms.name).into(),
                dimension_bounds: vec![],
            });
        }
        scopes.push(x::Scope {
            vertex_id: id.to_string().into(),
            annotation: format!("unit:{}", u.tag).into(),
            symbol_tables: vec![x::SymbolTable { symbols }],
        });
        scope_edges.push(x::Edge {
            edge_id: (scope_edges.len() + 1).to_string().into(),
            source: id.to_string().into(),
            target: parent.to_string().into(),
            annotation: Default::default(),
        });
    }
    // One scope per derived type with real components: whether each is
    // `type(active)` in the type's declaration (docs/xaif.md).
    for (name, symbols) in type_scopes(e) {
        let id = scopes.len() as u64 + 1;
        scopes.push(x::Scope {
            vertex_id: id.to_string().into(),
            annotation: format!("type:{name}").into(),
            symbol_tables: vec![x::SymbolTable { symbols }],
        });
        scope_edges.push(x::Edge {
            edge_id: (scope_edges.len() + 1).to_string().into(),
            source: id.to_string().into(),
            target: "1".into(),
            annotation: Default::default(),
        });
    }
    // Scopes of the modules holding interface blocks (no symbols).
    for i in 0..prog.units.len() {
        if !prog.interfaces_of(i).is_empty() {
            let id = scopes.len() as u64 + 1;
            scopes.push(x::Scope {
                vertex_id: id.to_string().into(),
                annotation: format!("unit:{}", crate::emit_canon::interface_module_name(prog, i))
                    .into(),
                symbol_tables: vec![x::SymbolTable { symbols: vec![] }],
            });
            scope_edges.push(x::Edge {
                edge_id: (scope_edges.len() + 1).to_string().into(),
                source: id.to_string().into(),
                target: "1".into(),
                annotation: Default::default(),
            });
        }
    }
    let mut vertices = Vec::new();
    let mut cg_ids: HashMap<usize, String> = HashMap::new();
    for (k, (u, _)) in cfgs.iter().enumerate() {
        cg_ids.insert(*u, (k + 1).to_string());
    }
    let mut cg_edges = Vec::new();
    for (k, (u, cfg)) in cfgs.iter().enumerate() {
        let g = cfg_xaif(e, *u, cfg, &(k + 1).to_string())?;
        // Call graph edges caller → callee, once per pair.
        let mut seen = std::collections::HashSet::new();
        for node in &cfg.nodes {
            if let NodeKind::Block(stmts) = &node.kind {
                for s in stmts {
                    if let StmtKind::Call { name, .. } = &s.kind {
                        if let Some(p) = callee_unit(prog, *u, name) {
                            if let Some(t) = cg_ids.get(&p) {
                                if seen.insert(t.clone()) {
                                    cg_edges.push(x::Edge {
                                        edge_id: (cg_edges.len() + 1).to_string().into(),
                                        source: (k + 1).to_string().into(),
                                        target: t.clone().into(),
                                        annotation: Default::default(),
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
        vertices.push(x::CallGraphVertex::ControlFlowGraph(g));
    }
    let name_of = |s: StmtId| stmt_name(s.0 as usize);
    let mut alias_set_map = e.results.alias.alias_set_map();
    if !alias_set_map.sets.iter().any(|s| s.key == 0) {
        alias_set_map.sets.insert(
            0,
            x::AliasSet {
                key: 0,
                ranges: vec![x::AliasRange {
                    from_virtual_address: 1,
                    to_virtual_address: 1,
                    partial: true,
                }],
            },
        );
    }
    let mut duud = e.results.du_ud.duud_set_map(name_of);
    duud.sets
        .retain(|s| s.key == 0 || e.used_duud.contains(&s.key));
    if !duud.sets.iter().any(|s| s.key == 0) {
        duud.sets.insert(
            0,
            x::StmtIdSet {
                key: 0,
                statement_ids: vec![],
            },
        );
    }
    let mut doset = e.results.du_ud.do_set_map(name_of);
    doset
        .sets
        .retain(|s| s.key == 0 || e.used_do.contains(&s.key));
    if !doset.sets.iter().any(|s| s.key == 0) {
        doset.sets.insert(
            0,
            x::StmtIdSet {
                key: 0,
                statement_ids: vec![],
            },
        );
    }
    Ok(x::CallGraph {
        program_name: Some(program_name.to_string().into()),
        prefix: "oad_".into(),
        scope_hierarchy: x::ScopeHierarchy {
            scopes,
            edges: scope_edges,
        },
        alias_set_map,
        duud_set_map: duud,
        do_set_map: doset,
        vertices,
        edges: cg_edges,
    })
}

/// Variables unit `i` uses under a local name different from the module's:
/// (local name, owning module, symbol).
fn renamed_uses(prog: &Program, i: usize) -> Vec<(String, usize, usize)> {
    let mut v = Vec::new();
    for s in &prog.units[i].ast.spec {
        if let SpecStmt::Use { items, .. } = s {
            for (local, remote) in items {
                if local != remote {
                    if let Some(Binding::Var { owner, sym }) = prog.resolve(i, local) {
                        v.push((local.clone(), owner, sym));
                    }
                }
            }
        }
    }
    v
}

fn callee_unit(prog: &Program, u: usize, name: &str) -> Option<usize> {
    match prog.resolve(u, name) {
        Some(Binding::Proc(p)) => Some(p),
        _ => prog.units.iter().position(|x| {
            x.canon_name == name
                && x.interface_of.is_none()
                && matches!(x.ast.kind, UnitKind::Subroutine | UnitKind::Function)
        }),
    }
}

fn proc_symbol(e: &Emitter, p: usize) -> x::Symbol {
    let active = e
        .lowered
        .unit_ids
        .get(&p)
        .is_some_and(|u| e.results.activity.is_active_unit(*u));
    x::Symbol {
        symbol_id: e.prog.units[p].canon_name.clone().into(),
        kind: x::SymbolKind::Subroutine,
        type_: x::SymbolType::Void,
        fe_type: Default::default(),
        shape: x::SymbolShape::Scalar,
        active,
        temp: false,
        pointer: false,
        annotation: Default::default(),
        dimension_bounds: vec![],
    }
}

/// Whether the parts of `complex(8)` variables carry derivatives: either
/// part's location is active.
fn complex_active(e: &Emitter) -> bool {
    let ty = crate::components::COMPLEX_TYPE;
    let locs: Vec<_> = ["re", "im"]
        .iter()
        .filter_map(|leaf| e.lowered.component_loc(ty, leaf))
        .collect();
    !locs.is_empty()
        && (e.results.activity.conservative
            || locs
                .iter()
                .any(|l| e.results.activity.declared_active.contains(l.index())))
}

/// The real components of every derived type, by type name, as symbols
/// whose `active` says whether the component holds derivatives.
fn type_scopes(e: &Emitter) -> Vec<(String, Vec<x::Symbol>)> {
    let prog = e.prog;
    let mut out = Vec::new();
    for u in &prog.units {
        for s in &u.ast.spec {
            let SpecStmt::DerivedType { name, .. } = s else {
                continue;
            };
            let Some((tu, comps)) = prog.derived_type(name) else {
                continue;
            };
            let mut symbols = Vec::new();
            for c in comps {
                let cat = prog.cat_of(tu, &c.ty);
                if c.pointer || !cat.is_real() {
                    continue;
                }
                let active = e.lowered.component_loc(name, &c.name).is_some_and(|l| {
                    e.results.activity.declared_active.contains(l.index())
                        || e.results.activity.conservative
                }) && matches!(cat, Cat::Real(_));
                symbols.push(x::Symbol {
                    symbol_id: c.name.clone().into(),
                    kind: x::SymbolKind::Variable,
                    type_: symbol_type(cat),
                    fe_type: unparse::type_spec(&c.ty).into(),
                    shape: shape(c.dims.as_ref().map_or(0, |d| d.len())),
                    active,
                    temp: false,
                    pointer: false,
                    annotation: Default::default(),
                    dimension_bounds: vec![],
                });
            }
            if !symbols.is_empty() {
                out.push((name.clone(), symbols));
            }
        }
    }
    // The parts of `complex(8)` variables (`canon/complex_parts.rs`): both
    // active or neither, as the back end declares `type(active_c)`.
    let ty = crate::components::COMPLEX_TYPE;
    if ["re", "im"]
        .iter()
        .any(|leaf| e.lowered.component_loc(ty, leaf).is_some())
    {
        let active = complex_active(e);
        let symbols = ["re", "im"]
            .iter()
            .map(|leaf| x::Symbol {
                symbol_id: leaf.to_string().into(),
                kind: x::SymbolKind::Variable,
                type_: x::SymbolType::Real,
                fe_type: "real(kind=8)".into(),
                shape: shape(0),
                active,
                temp: false,
                pointer: false,
                annotation: Default::default(),
                dimension_bounds: vec![],
            })
            .collect();
        out.push((ty.to_string(), symbols));
    }
    out
}

/// Symbols that describe storage (not procedure names).
fn is_variable_symbol(prog: &Program, i: usize, k: usize) -> bool {
    let s = &prog.units[i].symbols[k];
    if prog.is_type_access_symbol(i, k) {
        return false;
    }
    if s.dummy.is_some() || s.temp || s.dims.is_some() || s.parameter || s.common.is_some() {
        return true;
    }
    if s.external || s.intrinsic_attr {
        return false;
    }
    // A generic name in an access statement.
    if prog.is_generic_name_symbol(i, k) {
        return false;
    }
    !matches!(
        prog.resolve(i, &s.name),
        Some(Binding::Proc(_)) | Some(Binding::Intrinsic) | Some(Binding::StmtFunction(..))
    )
}

struct ExprBuilder {
    expr: x::Expression,
    next: usize,
}

impl ExprBuilder {
    fn new() -> Self {
        ExprBuilder {
            expr: x::Expression::default(),
            next: 0,
        }
    }
    fn id(&mut self) -> String {
        self.next += 1;
        self.next.to_string()
    }
    fn edge(&mut self, from: &str, to: &str, pos: usize) {
        let id = (self.expr.edges.len() + 1).to_string();
        self.expr.edges.push(x::ExpressionEdge {
            edge_id: id.into(),
            source: from.into(),
            target: to.into(),
            position: pos as i64,
            annotation: Default::default(),
        });
    }
}

/// How a variable reference is used, for its activity and du/ud keys.
#[derive(Clone, Copy)]
enum RefUse {
    Read(usize),
    Def(usize),
    /// Subscripts and inquiry arguments: never active.
    Passive,
}

impl<'a> Emitter<'a> {
    fn constant(&self, lit: &Literal, vid: String) -> x::Constant {
        let (t, v) = match lit {
            Literal::Int(t) => (x::ConstantType::Integer, t.clone()),
            Literal::Real(t) => {
                let lt = t.to_ascii_lowercase();
                let double = lt.contains('d') || lt.ends_with("_8");
                (
                    if double {
                        x::ConstantType::Double
                    } else {
                        x::ConstantType::Real
                    },
                    t.clone(),
                )
            }
            Literal::Logical(b) => (
                x::ConstantType::Bool,
                if *b {
                    ".true.".into()
                } else {
                    ".false.".into()
                },
            ),
            Literal::Str(t) => (x::ConstantType::String, t.clone()),
            Literal::Complex(t) => (x::ConstantType::Real, t.clone()),
        };
        x::Constant {
            vertex_id: vid.into(),
            annotation: Default::default(),
            type_: t,
            fe_type: Default::default(),
            value: v.into(),
        }
    }

    /// A variable reference graph: symbol, then an array element.
    fn var_ref(
        &mut self,
        u: usize,
        e: &Expr,
        vid: String,
        how: RefUse,
    ) -> FrontResult<x::VariableReference> {
        let (name, args, span) = match e {
            Expr::Name(n, s) => (n, None, *s),
            Expr::Apply { name, args, span } => (name, Some(args), *span),
            _ => {
                return Err(FrontError::new(
                    e.span(),
                    "internal error: not a variable reference",
                ))
            }
        };
        let (owner, sym) = self
            .prog
            .var(u, name)
            .ok_or_else(|| FrontError::new(span, format!("'{name}' is not a variable")))?;
        let scope = *self.scope_of.get(&owner).unwrap_or(&1);
        let s = self.prog.symbol(owner, sym);
        let loc = if s.parameter {
            None
        } else {
            Some(self.lowered.loc_in(self.prog, u, owner, sym))
        };
        let (active, du_ud) = match (how, loc) {
            (RefUse::Read(st), Some(l)) => {
                let a = self.results.activity.is_active_use(StmtId(st as u32), l);
                (
                    if a {
                        x::ActiveUse::True
                    } else {
                        x::ActiveUse::False
                    },
                    self.results.du_ud.use_key(StmtId(st as u32), l) as i64,
                )
            }
            (RefUse::Def(st), Some(l)) => {
                let a = self.results.activity.is_active_def(StmtId(st as u32), l);
                (
                    if a {
                        x::ActiveUse::True
                    } else {
                        x::ActiveUse::False
                    },
                    self.results.du_ud.def_key(StmtId(st as u32), l) as i64,
                )
            }
            (_, None) | (RefUse::Passive, _) => (x::ActiveUse::False, 0),
        };
        // Arrays are atoms and element assignments partial definitions, so an
        // array's chains hold every earlier element definition: quadratic in
        // size and of no use for identifying elements. No information (0)
        // is the conservative answer.
        let du_ud = match loc {
            Some(l) if self.lowered.program.locations[l.index()].is_array => 0,
            _ => du_ud,
        };
        if du_ud != 0 {
            self.used_duud.insert(du_ud as u64);
        }
        let alias = loc.map_or(0, |l| self.results.alias.key_of(l) as i64);
        let mut r = x::VariableReference {
            vertex_id: vid.into(),
            active,
            alias,
            du_ud,
            constant: s.parameter,
            ..x::VariableReference::default()
        };
        // A use-renamed entity is referenced under its local name.
        let (sym_name, scope) =
            if s.name != *name && self.prog.units[owner].ast.kind == UnitKind::Module {
                (name.clone(), *self.scope_of.get(&u).unwrap_or(&1))
            } else {
                (s.name.clone(), scope)
            };
        r.vertices.push(x::VariableReferenceVertex::SymbolReference(
            x::SymbolReference {
                vertex_id: "1".into(),
                annotation: Default::default(),
                symbol_id: sym_name.into(),
                scope_id: scope,
                properties: vec![],
            },
        ));
        if let Some(args) = args {
            let mut triplets = Vec::new();
            for a in args {
                let t = match &a.value {
                    Expr::Range { lo, hi, stride, .. } => {
                        let f = |me: &mut Self,
                                 v: &Option<Box<Expr>>|
                         -> FrontResult<Option<x::Expression>> {
                            v.as_ref()
                                .map(|b| me.expression(u, b, RefUse::Passive))
                                .transpose()
                        };
                        x::IndexTriplet {
                            index: f(self, lo)?,
                            bound: f(self, hi)?,
                            stride: f(self, stride)?,
                        }
                    }
                    v => x::IndexTriplet {
                        index: Some(self.expression(u, v, RefUse::Passive)?),
                        bound: None,
                        stride: None,
                    },
                };
                triplets.push(t);
            }
            r.vertices
                .push(x::VariableReferenceVertex::ArrayElementReference(
                    x::ArrayElementReference {
                        vertex_id: "2".into(),
                        annotation: Default::default(),
                        index_triplets: triplets,
                    },
                ));
            r.edges.push(x::Edge {
                edge_id: "1".into(),
                source: "1".into(),
                target: "2".into(),
                annotation: Default::default(),
            });
        }
        Ok(r)
    }

    /// An expression graph (reads attributed to statement `how`).
    fn expression(&mut self, u: usize, e: &Expr, how: RefUse) -> FrontResult<x::Expression> {
        let mut b = ExprBuilder::new();
        self.expr_into(u, e, how, &mut b)?;
        Ok(b.expr)
    }

    fn expr_into(
        &mut self,
        u: usize,
        e: &Expr,
        how: RefUse,
        b: &mut ExprBuilder,
    ) -> FrontResult<String> {
        match e {
            Expr::Lit(l, _) => {
                let id = b.id();
                let c = self.constant(l, id.clone());
                b.expr.vertices.push(x::ExpressionVertex::Constant(c));
                Ok(id)
            }
            Expr::Name(..) => {
                let id = b.id();
                let r = self.var_ref(u, e, id.clone(), how)?;
                b.expr
                    .vertices
                    .push(x::ExpressionVertex::VariableReference(r));
                Ok(id)
            }
            Expr::Apply { name, args, span } => {
                match self.prog.resolve(u, name) {
                    Some(Binding::Var { .. }) => {
                        let id = b.id();
                        let r = self.var_ref(u, e, id.clone(), how)?;
                        b.expr
                            .vertices
                            .push(x::ExpressionVertex::VariableReference(r));
                        Ok(id)
                    }
                    Some(Binding::Proc(_)) | Some(Binding::StmtFunction(..)) => {
                        Err(FrontError::new(
                            *span,
                            format!("internal error: function '{name}' left in an expression"),
                        ))
                    }
                    _ => {
                        let xname = intrinsics::xaif_name(name).ok_or_else(|| FrontError::unsupported(*span, format!("unsupported construct: intrinsic '{name}' in the numerical core")))?;
                        // Kind arguments are not operands.
                        let keep = match xname {
                            "int_scal" | "nint_scal" | "aint_scal" | "anint_scal"
                            | "floor_scal" | "ceiling_scal" | "real_scal" => 1,
                            _ => args.len(),
                        };
                        let inquiry = matches!(xname, "size" | "lbound" | "ubound");
                        let arg_how = if inquiry { RefUse::Passive } else { how };
                        let mut ids = Vec::new();
                        for a in args.iter().take(keep) {
                            ids.push(self.expr_into(u, &a.value, arg_how, b)?);
                        }
                        let id = b.id();
                        let t: Ty = self.prog.type_of(u, e);
                        b.expr
                            .vertices
                            .push(x::ExpressionVertex::Intrinsic(x::Intrinsic {
                                vertex_id: id.clone().into(),
                                annotation: Default::default(),
                                name: xname.to_string().into(),
                                type_: "inlinable".into(),
                                r_type: symbol_type(t.cat),
                                r_shape: x::SymbolShape::Scalar,
                            }));
                        for (k, a) in ids.iter().enumerate() {
                            b.edge(a, &id, k + 1);
                        }
                        Ok(id)
                    }
                }
            }
            Expr::Paren(x, _) | Expr::Unary(UnOp::Plus, x, _) => self.expr_into(u, x, how, b),
            Expr::Unary(op, a, _) => {
                let aid = self.expr_into(u, a, how, b)?;
                let id = b.id();
                match op {
                    UnOp::Neg => {
                        let t = self.prog.type_of(u, e);
                        b.expr
                            .vertices
                            .push(x::ExpressionVertex::Intrinsic(x::Intrinsic {
                                vertex_id: id.clone().into(),
                                annotation: Default::default(),
                                name: "minus_scal".into(),
                                type_: "inlinable".into(),
                                r_type: symbol_type(t.cat),
                                r_shape: x::SymbolShape::Scalar,
                            }));
                    }
                    _ => b.expr.vertices.push(x::ExpressionVertex::BooleanOperation(
                        x::BooleanOperation {
                            vertex_id: id.clone().into(),
                            annotation: Default::default(),
                            name: x::BooleanOp::Not,
                        },
                    )),
                }
                b.edge(&aid, &id, 1);
                Ok(id)
            }
            Expr::Binary(op, l, r, sp) => {
                let lid = self.expr_into(u, l, how, b)?;
                let rid = self.expr_into(u, r, how, b)?;
                let id = b.id();
                let bool_op = match op {
                    BinOp::Lt => Some(x::BooleanOp::LessThan),
                    BinOp::Le => Some(x::BooleanOp::LessOrEqual),
                    BinOp::Gt => Some(x::BooleanOp::GreaterThan),
                    BinOp::Ge => Some(x::BooleanOp::GreaterOrEqual),
                    BinOp::Eq | BinOp::Eqv => Some(x::BooleanOp::Equal),
                    BinOp::Ne | BinOp::Neqv => Some(x::BooleanOp::NotEqual),
                    BinOp::And => Some(x::BooleanOp::And),
                    BinOp::Or => Some(x::BooleanOp::Or),
                    _ => None,
                };
                match bool_op {
                    Some(bo) => b.expr.vertices.push(x::ExpressionVertex::BooleanOperation(
                        x::BooleanOperation {
                            vertex_id: id.clone().into(),
                            annotation: Default::default(),
                            name: bo,
                        },
                    )),
                    None => {
                        let name = match op {
                            BinOp::Add => "add_scal_scal",
                            BinOp::Sub => "sub_scal_scal",
                            BinOp::Mul => "mul_scal_scal",
                            BinOp::Div => "div_scal_scal",
                            BinOp::Pow => "pow_scal_scal",
                            _ => return Err(FrontError::unsupported(*sp, "unsupported construct: character concatenation in the numerical core")),
                        };
                        let t = self.prog.type_of(u, e);
                        b.expr
                            .vertices
                            .push(x::ExpressionVertex::Intrinsic(x::Intrinsic {
                                vertex_id: id.clone().into(),
                                annotation: Default::default(),
                                name: name.into(),
                                type_: "inlinable".into(),
                                r_type: symbol_type(t.cat),
                                r_shape: x::SymbolShape::Scalar,
                            }));
                    }
                }
                b.edge(&lid, &id, 1);
                b.edge(&rid, &id, 2);
                Ok(id)
            }
            Expr::Member { span, .. } => Err(FrontError::unsupported(
                *span,
                "unsupported construct: derived-type component in the numerical core",
            )),
            Expr::Range { span, .. } => Err(FrontError::unsupported(
                *span,
                "unsupported construct: array section in an expression",
            )),
            Expr::ArrayCtor(_, span) | Expr::ImpliedDo { span, .. } => {
                Err(FrontError::unsupported(
                    *span,
                    "unsupported construct: array constructor in an expression",
                ))
            }
        }
    }

    fn assignment(
        &mut self,
        u: usize,
        id: usize,
        lhs: &Expr,
        rhs: &Expr,
        line: u64,
    ) -> FrontResult<x::Assignment> {
        let l = self.var_ref(u, lhs, "1".into(), RefUse::Def(id))?;
        let r = self.expression(u, rhs, RefUse::Read(id))?;
        let do_chain = match self.prog.var(
            u,
            match lhs {
                Expr::Name(n, _) | Expr::Apply { name: n, .. } => n,
                _ => "",
            },
        ) {
            Some((o, s)) => {
                let loc = self.lowered.loc_in(self.prog, u, o, s);
                // Array atoms: no information (see var_ref).
                if self.lowered.program.locations[loc.index()].is_array {
                    0
                } else {
                    self.results.du_ud.do_key(StmtId(id as u32), loc) as i64
                }
            }
            None => 0,
        };
        if do_chain != 0 {
            self.used_do.insert(do_chain as u64);
        }
        Ok(x::Assignment {
            statement_id: stmt_name(id).into(),
            do_chain,
            line_number: line,
            lhs: x::AssignmentLhs {
                reference: l,
                live: true,
            },
            rhs: r,
        })
    }

    /// Records the source position of statement `id`.
    fn record_statement(&mut self, id: usize, span: Span) {
        if let Some(at) = (self.place_of)(span) {
            self.source_map.add_statement(&stmt_name(id), &at);
        }
    }

    fn element(&mut self, u: usize, s: &Stmt) -> FrontResult<x::BasicBlockElement> {
        let line = (self.line_of)(s.span);
        self.record_statement(s.id, s.span);
        Ok(match &s.kind {
            StmtKind::Assign { lhs, rhs } => {
                x::BasicBlockElement::Assignment(self.assignment(u, s.id, lhs, rhs, line)?)
            }
            StmtKind::Call { name, args } => {
                let p = callee_unit(self.prog, u, name);
                let (formals, scope, sym) = match p {
                    Some(p) => {
                        let scope = match self.prog.units[p].parent {
                            Some(h) => *self.scope_of.get(&h).unwrap_or(&1),
                            None => 1,
                        };
                        (
                            dummies(&self.prog.units[p]),
                            scope,
                            self.prog.units[p].canon_name.clone(),
                        )
                    }
                    None => (Vec::new(), 1, name.clone()),
                };
                let mut xargs = Vec::new();
                for (k, a) in args.iter().enumerate() {
                    let pos = match &a.keyword {
                        Some(kw) => formals.iter().position(|f| f == kw).ok_or_else(|| {
                            FrontError::new(
                                s.span,
                                format!("'{kw}' is not a dummy argument of '{name}'"),
                            )
                        })?,
                        None => k,
                    };
                    let value = match &a.value {
                        Expr::Lit(l, _) => x::ArgumentValue::Constant(self.constant(l, "1".into())),
                        v => {
                            let mut r = self.var_ref(u, v, "1".into(), RefUse::Read(s.id))?;
                            // An actual argument may be defined by the call too.
                            if r.active == x::ActiveUse::False {
                                if let Some((o, sy)) = self.prog.var(
                                    u,
                                    match v {
                                        Expr::Name(n, _) | Expr::Apply { name: n, .. } => n,
                                        _ => "",
                                    },
                                ) {
                                    let l = self.lowered.loc(self.prog, o, sy);
                                    if self.results.activity.is_active_def(StmtId(s.id as u32), l) {
                                        r.active = x::ActiveUse::True;
                                    }
                                }
                            }
                            x::ArgumentValue::Variable(r)
                        }
                    };
                    xargs.push(x::Argument {
                        position: pos as u64 + 1,
                        annotation: Default::default(),
                        value,
                    });
                }
                let active = if self.results.activity.is_active_stmt(StmtId(s.id as u32)) {
                    x::ActiveUse::True
                } else {
                    x::ActiveUse::False
                };
                x::BasicBlockElement::SubroutineCall(x::SubroutineCall {
                    statement_id: stmt_name(s.id).into(),
                    symbol_id: Some(sym.into()),
                    scope_id: Some(scope),
                    active,
                    line_number: line,
                    formal_arg_count: formals.len().max(args.len()) as u64,
                    arguments: xargs,
                })
            }
            StmtKind::Opaque { kind, .. } => {
                // Black-box calls tell the back end what they pass
                // (docs/xaif.md, "Black-box calls").
                let black_box = match kind {
                    crate::ast::OpaqueKind::BlackBox => self
                        .prog
                        .black_box_calls
                        .get(&(s.span.file, s.span.line, s.span.column))
                        .cloned()
                        .unwrap_or_default(),
                    crate::ast::OpaqueKind::DerivedCopy => self.derived_copy_annotation(u, &s.kind),
                    crate::ast::OpaqueKind::Mpi => self
                        .prog
                        .mpi_calls
                        .get(&(s.span.file, s.span.line, s.span.column))
                        .cloned()
                        .unwrap_or_default(),
                    _ => self
                        .prog
                        .pointer_fields
                        .get(&(s.span.file, s.span.line, s.span.column))
                        .map(|r| format!(";{r}"))
                        .unwrap_or_default(),
                };
                x::BasicBlockElement::Marker(x::Marker {
                    statement_id: stmt_name(s.id).into(),
                    annotation: format!("canon:{}{black_box}", s.id).into(),
                })
            }
            _ => {
                return Err(FrontError::new(
                    s.span,
                    "internal error: control statement in a basic block",
                ))
            }
        })
    }
}

impl Emitter<'_> {
    /// `;copy:TYPE:RANK:CHAIN@T%LEAF[+a],...` for the whole-value copy of a
    /// derived type (docs/xaif.md, "Derived types"): the target's type
    /// and rank, and its real components (the type declaring each leaf,
    /// `+a` when allocatable).
    fn derived_copy_annotation(&self, u: usize, kind: &StmtKind) -> String {
        let StmtKind::Opaque { writes, .. } = kind else {
            return String::new();
        };
        let Some(target) = writes.first() else {
            return String::new();
        };
        let ts = match target {
            Expr::Name(n, _) | Expr::Apply { name: n, .. } => self
                .prog
                .var(u, n)
                .map(|(o, k)| self.prog.symbol(o, k).ty.clone()),
            Expr::Member { .. } => self.prog.member_type(u, target).map(|t| t.0),
            _ => None,
        };
        let Some(BaseType::Derived(t)) = ts.map(|t| t.base) else {
            return String::new();
        };
        let leaves: Vec<String> = self
            .prog
            .real_leaves(&t)
            .iter()
            .map(|l| {
                format!(
                    "{}@{}%{}{}",
                    l.chain.join("%"),
                    l.type_name,
                    l.leaf,
                    if l.allocatable { "+a" } else { "" }
                )
            })
            .collect();
        let rank = self.prog.type_of(u, target).rank;
        format!(";copy:{t}:{rank}:{}", leaves.join(","))
    }
}

fn cfg_xaif(
    e: &mut Emitter,
    u: usize,
    cfg: &Cfg,
    vertex_id: &str,
) -> FrontResult<x::ControlFlowGraph> {
    let prog = e.prog;
    let unit = &prog.units[u];
    let own_scope = *e.scope_of.get(&u).unwrap_or(&1);
    let sym_scope = match unit.parent {
        Some(p) => *e.scope_of.get(&p).unwrap_or(&1),
        None => 1,
    };
    let mut args = Vec::new();
    for (k, d) in dummies(unit).iter().enumerate() {
        let s = &unit.symbols[unit.lookup_local(d).expect("dummy symbol")];
        args.push(x::ArgumentSymbolReference {
            position: k as u64 + 1,
            symbol_id: d.clone().into(),
            scope_id: own_scope,
            deriv: false,
            intent: match s.intent {
                Some(Intent::In) => x::Intent::In,
                Some(Intent::Out) => x::Intent::Out,
                _ => x::Intent::InOut,
            },
            annotation: Default::default(),
        });
    }
    let mut vertices = Vec::new();
    for (k, node) in cfg.nodes.iter().enumerate() {
        let vid = (k + 1).to_string();
        let line = (e.line_of)(node.span);
        for &id in &node.ids {
            e.record_statement(id, node.span);
        }
        let plain = x::PlainVertex {
            vertex_id: vid.clone().into(),
            annotation: Default::default(),
        };
        vertices.push(match &node.kind {
            NodeKind::Entry => x::ControlFlowVertex::Entry(plain),
            NodeKind::Exit => x::ControlFlowVertex::Exit(plain),
            NodeKind::EndBranch => x::ControlFlowVertex::EndBranch(plain),
            NodeKind::EndLoop => x::ControlFlowVertex::EndLoop(plain),
            NodeKind::Goto => x::ControlFlowVertex::Goto(plain),
            NodeKind::Label(l) => x::ControlFlowVertex::Label(x::PlainVertex {
                vertex_id: vid.into(),
                annotation: l.clone().into(),
            }),
            NodeKind::Block(stmts) => {
                let mut elements = Vec::new();
                for s in stmts {
                    elements.push(e.element(u, s)?);
                }
                x::ControlFlowVertex::BasicBlock(x::BasicBlock {
                    vertex_id: vid.into(),
                    annotation: Default::default(),
                    scope_id: own_scope,
                    elements,
                })
            }
            NodeKind::If(c) | NodeKind::Branch(c) | NodeKind::PreLoop(c) => {
                let cond = e.expression(u, c, RefUse::Read(node.ids[0]))?;
                let cv = x::ConditionVertex {
                    vertex_id: vid.into(),
                    annotation: Default::default(),
                    line_number: line,
                    condition: Some(cond),
                };
                match &node.kind {
                    NodeKind::If(_) => x::ControlFlowVertex::If(cv),
                    NodeKind::Branch(_) => x::ControlFlowVertex::Branch(cv),
                    _ => x::ControlFlowVertex::PreLoop(cv),
                }
            }
            NodeKind::ForLoop(c) => {
                let sp = node.span;
                let var = Expr::Name(c.var.clone(), sp);
                let init = e.assignment(u, node.ids[0], &var, &c.lo, line)?;
                let negative = c
                    .step
                    .as_ref()
                    .and_then(|s| s.const_int())
                    .is_some_and(|v| v < 0);
                let cond_e = Expr::Binary(
                    if negative { BinOp::Ge } else { BinOp::Le },
                    Box::new(var.clone()),
                    Box::new(c.hi.clone()),
                    sp,
                );
                let cond = e.expression(u, &cond_e, RefUse::Read(node.ids[1]))?;
                let step = c.step.clone().unwrap_or_else(|| Expr::int(1, sp));
                let upd_e = Expr::Binary(BinOp::Add, Box::new(var.clone()), Box::new(step), sp);
                let update = e.assignment(u, node.ids[2], &var, &upd_e, line)?;
                let checkpoint = e.checkpointed_loops.get(&sp).cloned();
                let annotation = match checkpoint {
                    None => String::new(),
                    Some(l) => {
                        let (n, writes) = (l.snapshots, l.opaque_writes);
                        let mut reads = Vec::new();
                        for name in &l.opaque_reads {
                            let r = e.var_ref(
                                u,
                                &Expr::Name(name.clone(), sp),
                                "1".into(),
                                RefUse::Passive,
                            )?;
                            reads.extend(r.vertices.iter().find_map(|v| match v {
                                x::VariableReferenceVertex::SymbolReference(s) => {
                                    Some((s.symbol_id.to_string(), s.scope_id))
                                }
                                _ => None,
                            }));
                        }
                        let variable = match &n {
                            crate::source::SnapshotCount::Name(name) => {
                                let r = e.var_ref(
                                    u,
                                    &Expr::Name(name.clone(), sp),
                                    "1".into(),
                                    RefUse::Passive,
                                )?;
                                r.vertices.iter().find_map(|v| match v {
                                    x::VariableReferenceVertex::SymbolReference(s) => {
                                        Some((s.symbol_id.clone(), s.scope_id))
                                    }
                                    _ => None,
                                })
                            }
                            crate::source::SnapshotCount::Literal(_) => None,
                        };
                        crate::checkpoint_pragmas::annotation(
                            &n,
                            variable.as_ref().map(|(s, k)| (s.as_str(), *k)),
                            &writes,
                            &reads,
                        )
                    }
                };
                x::ControlFlowVertex::ForLoop(Box::new(x::ForLoop {
                    vertex_id: vid.into(),
                    annotation: annotation.into(),
                    line_number: line,
                    reversal: x::ForLoopReversal::Anonymous,
                    initialization: Some(init),
                    condition: Some(cond),
                    update: Some(update),
                }))
            }
        });
    }
    let edges = cfg
        .edges
        .iter()
        .enumerate()
        .map(|(k, ed)| x::ControlFlowEdge {
            edge_id: (k + 1).to_string().into(),
            source: (ed.from + 1).to_string().into(),
            target: (ed.to + 1).to_string().into(),
            annotation: Default::default(),
            has_condition_value: ed.cond.is_some(),
            condition_value: ed.cond.unwrap_or(1),
        })
        .collect();
    let side = e
        .lowered
        .unit_ids
        .get(&u)
        .and_then(|id| e.results.side_effects.units.get(id.index()).cloned());
    let refs = |e: &mut Emitter,
                set: Option<&crate::analysis::bitset::BitSet>|
     -> Option<Vec<x::VariableReference>> {
        let set = set?;
        let mut v = Vec::new();
        for (o, s) in e.lowered.first_keys_in(set) {
            let sym = e.prog.symbol(o, s);
            let scope = *e.scope_of.get(&o).unwrap_or(&1);
            let mut r = x::VariableReference {
                vertex_id: "1".into(),
                ..x::VariableReference::default()
            };
            r.vertices.push(x::VariableReferenceVertex::SymbolReference(
                x::SymbolReference {
                    vertex_id: "1".into(),
                    annotation: Default::default(),
                    symbol_id: sym.name.clone().into(),
                    scope_id: scope,
                    properties: vec![],
                },
            ));
            v.push(r);
        }
        Some(v)
    };
    let (mod_local, mod_, read_local, read) = match &side {
        Some(s) => (
            refs(e, Some(&s.mod_local)),
            refs(e, Some(&s.mod_)),
            refs(e, Some(&s.read_local)),
            refs(e, Some(&s.read)),
        ),
        None => (None, None, None, None),
    };
    let active = e
        .lowered
        .unit_ids
        .get(&u)
        .is_some_and(|id| e.results.activity.is_active_unit(*id));
    if let Some(at) = (e.place_of)(unit.ast.span) {
        e.source_map.add_unit(&unit.canon_name, &at);
    }
    Ok(x::ControlFlowGraph {
        vertex_id: vertex_id.to_string().into(),
        annotation: format!("unit:{}", unit.tag).into(),
        symbol_id: unit.canon_name.clone().into(),
        scope_id: sym_scope,
        controlflowgraph_scope_id: own_scope,
        active,
        structured: cfg.structured,
        argument_list: Some(args),
        mod_local,
        mod_,
        read_local,
        read,
        on_entry: None,
        vertices,
        edges,
    })
}
