//! Lowering the control flow graphs to the analyses' data-flow IR
//! (`analysis::ir`): one location per variable (common block members by
//! block and position), one IR block per CFG vertex (plus a preheader per
//! counted loop for its initialisation).

use crate::analysis::bitset::BitSet;
use crate::analysis::ir::{
    self, ActualPart, BlockId, Callee, Def, ElementId, LocationId, LocationInfo, LocationKind,
    StmtId, UnitId, Use,
};
use crate::ast::*;
use crate::cfg::{Cfg, NodeKind};
use crate::intrinsics;
use crate::sema::{Binding, Cat, Program};
use std::collections::HashMap;

pub struct Lowered {
    pub program: ir::Program,
    /// (owner unit, symbol) → location.
    pub locs: HashMap<(usize, usize), LocationId>,
    /// Location index → every key `locs` ever mapped to it (a key may
    /// since map elsewhere): the inverse of `locs`, so that listing a
    /// set's variables costs the set's size, not the program's.
    keys_of: Vec<Vec<(usize, usize)>>,
    /// Front-end unit index → IR unit.
    pub unit_ids: HashMap<usize, UnitId>,
    commons: HashMap<(String, usize), LocationId>,
    /// Host dummies seen by contained procedures: a global stand-in the
    /// host copies the dummy into on entry and back on exit, since a
    /// location cannot be a dummy of one unit and visible in another.
    shadows: HashMap<(usize, usize), LocationId>,
    next_stmt: u32,
    /// Constant subscript tuples → element ids (element-precise chains).
    elements: HashMap<Vec<i64>, ElementId>,
    /// (type, component) → the one location of that component in every
    /// object of the type (`components.rs`).
    components: HashMap<(String, String), LocationId>,
    /// The messages of MPI calls (`mpi_channel`).
    mpi_channel: Option<LocationId>,
}

/// Intrinsics whose arguments never carry a derivative into the result.
fn passive_intrinsic(name: &str) -> bool {
    matches!(
        intrinsics::xaif_name(name),
        Some(
            "int_scal" | "nint_scal" | "floor_scal" | "ceiling_scal" | "size" | "lbound" | "ubound"
        )
    ) || intrinsics::xaif_name(name).is_none()
}

impl Lowered {
    /// `locs[key] = id`, keeping the inverse index.
    fn map_key(&mut self, key: (usize, usize), id: LocationId) {
        self.locs.insert(key, id);
        if self.keys_of.len() <= id.index() {
            self.keys_of.resize_with(id.index() + 1, Vec::new);
        }
        self.keys_of[id.index()].push(key);
    }

    /// The (owner unit, symbol) keys naming the members of `set`, one per
    /// location (its smallest key), in increasing key order.
    pub fn first_keys_in(&self, set: &BitSet) -> Vec<(usize, usize)> {
        let mut keys: Vec<(usize, usize)> = set
            .iter()
            .filter_map(|l| {
                self.keys_of
                    .get(l)?
                    .iter()
                    .filter(|k| self.locs.get(k).is_some_and(|m| m.index() == l))
                    .min()
                    .copied()
            })
            .collect();
        keys.sort_unstable();
        keys
    }

    /// The location of a variable, created on first use.
    pub fn loc(&mut self, prog: &Program, owner: usize, sym: usize) -> LocationId {
        if let Some(l) = self.locs.get(&(owner, sym)) {
            return *l;
        }
        let s = prog.symbol(owner, sym);
        if let Some(path) = &s.component {
            let key = (path.type_name.clone(), path.leaf.clone());
            if let Some(&l) = self.components.get(&key) {
                self.map_key((owner, sym), l);
                return l;
            }
            // Global, and an array: definitions through one object never
            // kill what another holds.
            let id = LocationId(self.program.locations.len() as u32);
            self.program.locations.push(LocationInfo {
                name: format!("{}%{}", key.0, key.1),
                kind: LocationKind::Global,
                differentiable_type: true,
                is_array: true,
            });
            self.components.insert(key, id);
            self.map_key((owner, sym), id);
            return id;
        }
        let key = s.common.clone();
        if let Some(k) = &key {
            if let Some(&l) = self.commons.get(k) {
                self.map_key((owner, sym), l);
                return l;
            }
        }
        let is_module = prog.units[owner].ast.kind == UnitKind::Module;
        let kind = match (s.dummy, self.unit_ids.get(&owner)) {
            (Some(p), Some(u)) => LocationKind::Dummy {
                unit: *u,
                position: p,
            },
            // Host variables seen by contained procedures behave like
            // globals for the analyses.
            _ if is_module
                || s.common.is_some()
                || s.save
                || s.init.is_some()
                || !prog.units[owner].contained.is_empty() =>
            {
                LocationKind::Global
            }
            (_, Some(u)) => LocationKind::Local { unit: *u },
            _ => LocationKind::Global,
        };
        let cat = prog.cat_of(owner, &s.ty);
        let id = LocationId(self.program.locations.len() as u32);
        self.program.locations.push(LocationInfo {
            name: match &s.common {
                Some((b, p)) => format!("/{b}/{p}"),
                None => format!("{}:{}", prog.units[owner].tag, s.name),
            },
            kind,
            differentiable_type: matches!(cat, Cat::Real(_) | Cat::Complex(_)) && !s.parameter,
            is_array: s.dims.is_some(),
        });
        self.map_key((owner, sym), id);
        if let Some(k) = key {
            self.commons.insert(k, id);
        }
        id
    }

    /// The location of `sym` of unit `owner`, if its unit references it;
    /// for a common block member, also when only another unit does: the
    /// member is one location (its block and position) in every unit that
    /// declares the block, so its activity is the same in all of them.
    pub fn existing_loc(&self, prog: &Program, owner: usize, sym: usize) -> Option<LocationId> {
        self.locs.get(&(owner, sym)).copied().or_else(|| {
            let key = prog.units[owner].symbols[sym].common.as_ref()?;
            self.commons.get(key).copied()
        })
    }

    /// The global pseudo-location standing for the messages of MPI calls
    /// (see the lowering of `OpaqueKind::Mpi`); no variable has it.
    fn mpi_channel(&mut self) -> LocationId {
        if let Some(l) = self.mpi_channel {
            return l;
        }
        let id = LocationId(self.program.locations.len() as u32);
        self.program.locations.push(LocationInfo {
            name: "mpi(messages)".into(),
            kind: LocationKind::Global,
            differentiable_type: true,
            is_array: true,
        });
        self.mpi_channel = Some(id);
        self.program.always_active.push(id);
        id
    }

    /// The location of component `leaf` of derived type `ty`, if some
    /// reference made one.
    pub fn component_loc(&self, ty: &str, leaf: &str) -> Option<LocationId> {
        self.components
            .get(&(ty.to_string(), leaf.to_string()))
            .copied()
    }

    /// The location a name denotes in unit `u`, if it is a variable.
    /// The variables a black-box call passes (each once; order does not
    /// matter to an external callee): whole names and, for passive
    /// arguments, elements or sections (partial).
    fn black_box_actuals(
        &mut self,
        prog: &Program,
        u: usize,
        s: &Stmt,
    ) -> (Vec<Option<LocationId>>, Vec<ActualPart>) {
        let StmtKind::Opaque { reads, writes, .. } = &s.kind else {
            return (Vec::new(), Vec::new());
        };
        let mut actuals = Vec::new();
        let mut parts = Vec::new();
        for e in reads.iter().chain(writes) {
            let (loc, part) = match e {
                Expr::Name(n, _) => (self.name_loc(prog, u, n), ActualPart::Whole),
                Expr::Apply { name, .. } => (self.name_loc(prog, u, name), ActualPart::Section),
                _ => continue,
            };
            if loc.is_some() && !actuals.contains(&loc) {
                actuals.push(loc);
                parts.push(part);
            }
        }
        (actuals, parts)
    }

    pub fn name_loc(&mut self, prog: &Program, u: usize, name: &str) -> Option<LocationId> {
        match prog.resolve(u, name)? {
            Binding::Var { owner, sym } => {
                if prog.symbol(owner, sym).parameter {
                    return None;
                }
                Some(self.loc_in(prog, u, owner, sym))
            }
            _ => None,
        }
    }

    /// The location variable `(owner, sym)` has when referenced from unit
    /// `u` (host dummies have a stand-in inside contained procedures).
    pub fn loc_in(&mut self, prog: &Program, u: usize, owner: usize, sym: usize) -> LocationId {
        let s = prog.symbol(owner, sym);
        if owner == u || s.dummy.is_none() || !self.unit_ids.contains_key(&owner) {
            return self.loc(prog, owner, sym);
        }
        if let Some(l) = self.shadows.get(&(owner, sym)) {
            return *l;
        }
        let base = self.loc(prog, owner, sym);
        let info = self.program.locations[base.index()].clone();
        let id = LocationId(self.program.locations.len() as u32);
        self.program.locations.push(LocationInfo {
            name: format!("{}(host)", info.name),
            kind: LocationKind::Global,
            ..info
        });
        self.shadows.insert((owner, sym), id);
        id
    }

    fn uses(&mut self, prog: &Program, u: usize, e: &Expr, diff: bool, out: &mut Vec<Use>) {
        match e {
            Expr::Name(n, _) => {
                if let Some(l) = self.name_loc(prog, u, n) {
                    out.push(if diff { Use::diff(l) } else { Use::passive(l) });
                }
            }
            Expr::Apply { name, args, .. } => match prog.resolve(u, name) {
                Some(Binding::Var { .. }) => {
                    if let Some(l) = self.name_loc(prog, u, name) {
                        let element = self.element(prog, u, args).filter(|_| !name.contains('%'));
                        let base = if diff { Use::diff(l) } else { Use::passive(l) };
                        out.push(Use { element, ..base });
                    }
                    for a in args {
                        self.uses(prog, u, &a.value, false, out);
                    }
                }
                _ => {
                    let d = diff && !passive_intrinsic(name);
                    for (k, a) in args.iter().enumerate() {
                        // sign(a, b): only a's magnitude carries a derivative.
                        let dk =
                            d && !(intrinsics::xaif_name(name) == Some("sign_scal_scal") && k == 1);
                        self.uses(prog, u, &a.value, dk, out);
                    }
                }
            },
            Expr::Binary(op, l, r, _) => {
                let d = diff && !op.is_relational() && !op.is_logical();
                self.uses(prog, u, l, d, out);
                self.uses(prog, u, r, d, out);
            }
            Expr::Unary(UnOp::Not, x, _) => self.uses(prog, u, x, false, out),
            Expr::Unary(_, x, _) | Expr::Paren(x, _) => self.uses(prog, u, x, diff, out),
            Expr::Range { lo, hi, stride, .. } => {
                for x in [lo, hi, stride].into_iter().flatten() {
                    self.uses(prog, u, x, false, out);
                }
            }
            Expr::Member { base, .. } => self.uses(prog, u, base, false, out),
            Expr::ArrayCtor(items, _) => {
                items.iter().for_each(|x| self.uses(prog, u, x, diff, out))
            }
            Expr::ImpliedDo { items, control, .. } => {
                items.iter().for_each(|x| self.uses(prog, u, x, diff, out));
                for x in [Some(&control.lo), Some(&control.hi), control.step.as_ref()]
                    .into_iter()
                    .flatten()
                {
                    self.uses(prog, u, x, false, out);
                }
            }
            Expr::Lit(..) => {}
        }
    }

    fn def(&mut self, prog: &Program, u: usize, lhs: &Expr, uses: &mut Vec<Use>) -> Option<Def> {
        match lhs {
            Expr::Name(n, _) => self.name_loc(prog, u, n).map(|l| {
                let whole = prog.var(u, n).is_some_and(|(o, s)| {
                    prog.symbol(o, s).dims.is_none() && prog.symbol(o, s).component.is_none()
                });
                if whole {
                    Def::whole(l)
                } else {
                    Def::partial(l)
                }
            }),
            Expr::Apply { name, args, .. } => {
                for a in args {
                    self.uses(prog, u, &a.value, false, uses);
                }
                let element = self.element(prog, u, args).filter(|_| !name.contains('%'));
                self.name_loc(prog, u, name)
                    .map(|l| Def::element(l, element))
            }
            Expr::Member { base, .. } => self.def(prog, u, base, uses).map(|d| Def::partial(d.loc)),
            _ => None,
        }
    }

    /// The element id of a subscript list made only of integer constants
    /// (literals, parameters); `None` for anything else (a variable
    /// subscript, a section).
    fn element(&mut self, prog: &Program, u: usize, args: &[Arg]) -> Option<ElementId> {
        let subscripts = args
            .iter()
            .map(|a| match (&a.keyword, &a.value) {
                (None, Expr::Range { .. }) => None,
                (None, e) => prog.const_int(u, e),
                _ => None,
            })
            .collect::<Option<Vec<i64>>>()?;
        if subscripts.is_empty() {
            return None;
        }
        let next = ElementId(self.elements.len() as u32);
        Some(*self.elements.entry(subscripts).or_insert(next))
    }

    /// How much of its variable a subscripted actual argument passes: a
    /// section (or substring) when any subscript is a range, else one
    /// element (identified when the subscripts are constants).
    fn actual_part(&mut self, prog: &Program, u: usize, subscripts: &[Arg]) -> ActualPart {
        if subscripts
            .iter()
            .any(|a| matches!(a.value, Expr::Range { .. }))
        {
            ActualPart::Section
        } else {
            ActualPart::Element(self.element(prog, u, subscripts))
        }
    }

    fn plain_uses(&mut self, prog: &Program, u: usize, e: &Expr) -> Vec<LocationId> {
        let mut v = Vec::new();
        self.uses(prog, u, e, false, &mut v);
        v.into_iter().map(|x| x.loc).collect()
    }

    fn stmt(&mut self, prog: &Program, u: usize, s: &Stmt) -> Option<ir::Stmt> {
        let id = StmtId(s.id as u32);
        Some(match &s.kind {
            StmtKind::Assign { lhs, rhs } => {
                let mut uses = Vec::new();
                let def = self.def(prog, u, lhs, &mut uses)?;
                self.uses(prog, u, rhs, true, &mut uses);
                ir::Stmt::Assign { id, def, uses }
            }
            StmtKind::Call { name, args } => {
                let p = match prog.resolve(u, name) {
                    Some(Binding::Proc(p)) => Some(p),
                    _ => prog
                        .units
                        .iter()
                        .position(|x| x.canon_name == *name && x.interface_of.is_none()),
                };
                let callee = match p.and_then(|p| self.unit_ids.get(&p).copied()) {
                    Some(c) => Callee::Unit(c),
                    None => Callee::External(name.clone()),
                };
                let formals = p
                    .map(|p| crate::emit_canon::dummies(&prog.units[p]))
                    .unwrap_or_default();
                let n = formals.len().max(args.len());
                let mut actuals = vec![None; n];
                let mut parts = vec![ActualPart::Whole; n];
                for (k, a) in args.iter().enumerate() {
                    let pos = match &a.keyword {
                        Some(kw) => formals.iter().position(|f| f == kw).unwrap_or(k),
                        None => k,
                    };
                    let (loc, part) = match &a.value {
                        Expr::Name(nm, _) => (
                            self.name_loc(prog, u, nm),
                            whole_actual_part(prog, u, nm, p, pos),
                        ),
                        Expr::Apply {
                            name: nm,
                            args: subscripts,
                            ..
                        } if nm.contains('%') => (self.name_loc(prog, u, nm), ActualPart::Section),
                        Expr::Apply {
                            name: nm,
                            args: subscripts,
                            ..
                        } => (
                            self.name_loc(prog, u, nm),
                            self.actual_part(prog, u, subscripts),
                        ),
                        _ => (None, ActualPart::Whole),
                    };
                    if pos < actuals.len() {
                        actuals[pos] = loc;
                        parts[pos] = part;
                    }
                }
                ir::Stmt::Call {
                    id,
                    callee,
                    actuals,
                    parts,
                }
            }
            // A differentiable black box: for the analyses, a call of a
            // routine without body (every output depends on every input).
            StmtKind::Opaque {
                kind: OpaqueKind::BlackBox,
                text,
                ..
            } if crate::black_box::callee_of_call_text(text)
                .and_then(|n| prog.black_boxes.get(n))
                .is_some_and(|b| b.derivatives != crate::black_box::Derivatives::Passive) =>
            {
                let bb = crate::black_box::callee_of_call_text(text)
                    .and_then(|n| prog.black_boxes.get(n))
                    .expect("guarded");
                let (actuals, parts) = self.black_box_actuals(prog, u, s);
                ir::Stmt::Call {
                    id,
                    callee: Callee::External(bb.name.clone()),
                    actuals,
                    parts,
                }
            }
            // An MPI call on real data: for the analyses, a call of a
            // routine without body on its variables and on the message
            // channel, one global location every MPI buffer flows into and
            // out of: what one rank sends another receives, so a receive
            // buffer is varied when any send buffer is, and a send buffer
            // useful when any receive buffer is (every rank runs this same
            // program). Another rank's send may come at a point this rank's
            // control flow does not reach before its receive (the root
            // receives in one branch what the others send in the other):
            // the channel is varied and useful everywhere
            // (`always_active`).
            StmtKind::Opaque {
                kind: OpaqueKind::Mpi,
                ..
            } => {
                let (mut actuals, mut parts) = self.black_box_actuals(prog, u, s);
                actuals.push(Some(self.mpi_channel()));
                parts.push(ActualPart::Whole);
                ir::Stmt::Call {
                    id,
                    callee: Callee::External("mpi".into()),
                    actuals,
                    parts,
                }
            }
            StmtKind::Opaque { reads, writes, .. } => {
                let mut uses = Vec::new();
                for r in reads {
                    uses.extend(self.plain_uses(prog, u, r));
                }
                let mut defs = Vec::new();
                for w in writes {
                    let mut sub = Vec::new();
                    if let Some(d) = self.def(prog, u, w, &mut sub) {
                        defs.push(d);
                    }
                    uses.extend(sub.into_iter().map(|x| x.loc));
                }
                ir::Stmt::Opaque { id, defs, uses }
            }
            _ => return None,
        })
    }
}

/// How much of variable `name` of unit `u` a dummy at `position` of
/// front-end unit `callee` stands for when the variable is passed whole:
/// an array passed to an explicit-shape or assumed-size dummy may be
/// longer than the dummy (sequence association), so the callee's
/// overwrites of the dummy are partial definitions of the array.
fn whole_actual_part(
    prog: &Program,
    u: usize,
    name: &str,
    callee: Option<usize>,
    position: usize,
) -> ActualPart {
    // Component paths share one location per component of the type: an
    // actual argument is only a part of it.
    if name.contains('%') {
        return ActualPart::Section;
    }
    let is_array = prog
        .var(u, name)
        .is_some_and(|(o, s)| prog.symbol(o, s).dims.is_some());
    let dummy_dims = callee.and_then(|c| {
        prog.units[c]
            .symbols
            .iter()
            .find(|s| s.dummy == Some(position))
            .map(|s| s.dims.as_ref())
    });
    match dummy_dims {
        Some(Some(dims))
            if is_array && !dims.iter().all(|d| matches!(d, DimSpec::Colon { .. })) =>
        {
            ActualPart::Section
        }
        _ => ActualPart::Whole,
    }
}

/// Builds the IR of every unit that has a control flow graph.
pub fn lower(
    prog: &Program,
    cfgs: &[(usize, Cfg)],
    first_free_stmt: usize,
    pointers: &crate::pointer_aliases::PointerClasses,
) -> Lowered {
    let mut l = Lowered {
        program: ir::Program::default(),
        locs: HashMap::new(),
        keys_of: Vec::new(),
        unit_ids: HashMap::new(),
        commons: HashMap::new(),
        shadows: HashMap::new(),
        next_stmt: first_free_stmt as u32 + 1,
        elements: HashMap::new(),
        components: HashMap::new(),
        mpi_channel: None,
    };
    for (k, (u, _)) in cfgs.iter().enumerate() {
        l.unit_ids.insert(*u, UnitId(k as u32));
    }
    // Dummies first: their positions must match.
    for (u, _) in cfgs {
        let unit = &prog.units[*u];
        let mut dummies: Vec<(usize, usize)> = unit
            .symbols
            .iter()
            .enumerate()
            .filter_map(|(k, s)| s.dummy.map(|p| (p, k)))
            .collect();
        dummies.sort();
        let ids: Vec<LocationId> = dummies.iter().map(|(_, k)| l.loc(prog, *u, *k)).collect();
        l.program.units.push(ir::Unit {
            name: unit.canon_name.clone(),
            dummies: ids,
            ..ir::Unit::default()
        });
    }
    let aliased = l.merge_pointer_classes(prog, pointers);
    for (k, (u, cfg)) in cfgs.iter().enumerate() {
        let unit = lower_cfg(&mut l, prog, *u, cfg);
        let dummies = std::mem::take(&mut l.program.units[k].dummies);
        l.program.units[k] = ir::Unit { dummies, ..unit };
    }
    // Host dummies and their stand-ins: copied in at entry, back at exit.
    let mut shadows: Vec<((usize, usize), LocationId)> =
        l.shadows.iter().map(|(k, v)| (*k, *v)).collect();
    shadows.sort();
    for ((owner, sym), shadow) in shadows {
        let dummy = l.loc(prog, owner, sym);
        let Some(u) = l.unit_ids.get(&owner).copied() else {
            continue;
        };
        let (id_in, id_out) = (StmtId(l.next_stmt), StmtId(l.next_stmt + 1));
        l.next_stmt += 2;
        let unit = &mut l.program.units[u.index()];
        let entry = unit.entry.index();
        let exit = unit.exit.index();
        unit.blocks[entry].stmts.push(ir::Stmt::Assign {
            id: id_in,
            def: Def::whole(shadow),
            uses: vec![Use::diff(dummy)],
        });
        unit.blocks[exit].stmts.insert(
            0,
            ir::Stmt::Assign {
                id: id_out,
                def: Def::partial(dummy),
                uses: vec![Use::diff(shadow)],
            },
        );
    }
    never_kill(&mut l.program, &aliased);
    l
}

fn lower_cfg(l: &mut Lowered, prog: &Program, u: usize, cfg: &Cfg) -> ir::Unit {
    let n = cfg.nodes.len();
    let mut blocks: Vec<ir::Block> = vec![ir::Block::default(); n];
    let mut succ: Vec<Vec<BlockId>> = vec![Vec::new(); n];
    // Preheaders of counted loops, appended after the vertex blocks.
    let mut pre: HashMap<usize, usize> = HashMap::new();
    for (k, node) in cfg.nodes.iter().enumerate() {
        match &node.kind {
            NodeKind::Block(stmts) => {
                for s in stmts {
                    if let Some(x) = l.stmt(prog, u, s) {
                        blocks[k].stmts.push(x);
                    }
                }
            }
            NodeKind::If(c) | NodeKind::Branch(c) | NodeKind::PreLoop(c) => {
                let uses = l.plain_uses(prog, u, c);
                blocks[k].stmts.push(ir::Stmt::Opaque {
                    id: StmtId(node.ids[0] as u32),
                    defs: vec![],
                    uses,
                });
            }
            NodeKind::ForLoop(c) => {
                let var = l.name_loc(prog, u, &c.var);
                let mut cond_uses = l.plain_uses(prog, u, &c.hi);
                cond_uses.extend(var);
                blocks[k].stmts.push(ir::Stmt::Opaque {
                    id: StmtId(node.ids[1] as u32),
                    defs: vec![],
                    uses: cond_uses,
                });
                let ph = blocks.len();
                pre.insert(k, ph);
                let lo_uses: Vec<Use> = l
                    .plain_uses(prog, u, &c.lo)
                    .into_iter()
                    .map(Use::passive)
                    .collect();
                let mut b = ir::Block::default();
                if let Some(v) = var {
                    b.stmts.push(ir::Stmt::Assign {
                        id: StmtId(node.ids[0] as u32),
                        def: Def::whole(v),
                        uses: lo_uses,
                    });
                }
                blocks.push(b);
                succ.push(vec![BlockId(k as u32)]);
            }
            _ => {}
        }
    }
    // The loop update happens on the way back from the EndLoop.
    for e in &cfg.edges {
        let from_kind = &cfg.nodes[e.from].kind;
        let to = match (&cfg.nodes[e.to].kind, pre.get(&e.to)) {
            (NodeKind::ForLoop(_), Some(ph)) if !matches!(from_kind, NodeKind::EndLoop) => *ph,
            _ => e.to,
        };
        if let (NodeKind::EndLoop, NodeKind::ForLoop(c)) = (from_kind, &cfg.nodes[e.to].kind) {
            if let Some(v) = l.name_loc(prog, u, &c.var) {
                let mut uses = vec![Use::passive(v)];
                if let Some(st) = &c.step {
                    uses.extend(l.plain_uses(prog, u, st).into_iter().map(Use::passive));
                }
                let id = StmtId(cfg.nodes[e.to].ids[2] as u32);
                blocks[e.from].stmts.push(ir::Stmt::Assign {
                    id,
                    def: Def::whole(v),
                    uses,
                });
            }
        }
        succ[e.from].push(BlockId(to as u32));
    }
    let exit = cfg
        .nodes
        .iter()
        .position(|x| x.kind == NodeKind::Exit)
        .unwrap_or(n - 1);
    ir::Unit {
        name: prog.units[u].canon_name.clone(),
        dummies: Vec::new(),
        blocks,
        successors: succ,
        entry: BlockId(0),
        exit: BlockId(exit as u32),
    }
}

impl Lowered {
    /// One location per pointer alias class (`pointer_aliases.rs`): every
    /// member refers to the representative's. Returns those locations.
    fn merge_pointer_classes(
        &mut self,
        prog: &Program,
        pointers: &crate::pointer_aliases::PointerClasses,
    ) -> std::collections::HashSet<LocationId> {
        let mut out = std::collections::HashSet::new();
        for class in &pointers.classes {
            let rep = self.loc(prog, class[0].0, class[0].1);
            // A write through a pointer may touch part of a target only.
            self.program.locations[rep.index()].is_array = true;
            for &(owner, sym) in &class[1..] {
                if let Some(path) = &prog.symbol(owner, sym).component {
                    self.components
                        .insert((path.type_name.clone(), path.leaf.clone()), rep);
                }
                self.map_key((owner, sym), rep);
            }
            out.insert(rep);
        }
        out
    }
}

/// Definitions of a pointer alias class never kill: through a pointer they
/// may reach part of a target, or another target.
fn never_kill(program: &mut ir::Program, aliased: &std::collections::HashSet<LocationId>) {
    for unit in &mut program.units {
        for block in &mut unit.blocks {
            for stmt in &mut block.stmts {
                match stmt {
                    ir::Stmt::Assign { def, uses, .. } => {
                        if aliased.contains(&def.loc) {
                            *def = Def::partial(def.loc);
                        }
                        uses.iter_mut()
                            .filter(|x| aliased.contains(&x.loc))
                            .for_each(|x| x.element = None);
                    }
                    ir::Stmt::Opaque { defs, .. } => defs
                        .iter_mut()
                        .filter(|d| aliased.contains(&d.loc))
                        .for_each(|d| *d = Def::partial(d.loc)),
                    ir::Stmt::Call { actuals, parts, .. } => {
                        for (a, p) in actuals.iter().zip(parts.iter_mut()) {
                            if a.is_some_and(|a| aliased.contains(&a)) {
                                *p = ir::ActualPart::Section;
                            }
                        }
                    }
                }
            }
        }
    }
}
