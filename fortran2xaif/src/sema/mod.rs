//! Semantic model: program units flattened into one list, symbol tables with
//! implicit typing, name resolution through host and use association, and
//! expression types.

use crate::ast::*;
use crate::intrinsics;

mod intrinsic_types;
use std::collections::HashMap;

/// Where a component-path pseudo-variable points.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentPath {
    /// The type that declares the leaf component.
    pub type_name: String,
    /// The leaf component.
    pub leaf: String,
    /// The parts from the base variable to the leaf with the rank of each
    /// (the base's own name as the owner declares it).
    pub parts: Vec<(String, usize)>,
}

/// The category of a value's type, with the kind for reals and complexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cat {
    Int,
    Real(u8),
    Complex(u8),
    Logical,
    Char,
    Derived,
    Unknown,
}

impl Cat {
    pub fn is_real(self) -> bool {
        matches!(self, Cat::Real(_))
    }
    pub fn is_numeric(self) -> bool {
        matches!(self, Cat::Int | Cat::Real(_) | Cat::Complex(_))
    }
}

/// Type of an expression: category and rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ty {
    pub cat: Cat,
    pub rank: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Symbol {
    pub name: String,
    pub ty: TypeSpec,
    /// True when a type statement declared it (else implicitly typed).
    pub explicit_type: bool,
    pub dims: Option<Vec<DimSpec>>,
    pub char_len: Option<Expr>,
    pub init: Option<Expr>,
    pub intent: Option<Intent>,
    pub optional: bool,
    pub allocatable: bool,
    pub pointer: bool,
    pub target: bool,
    pub save: bool,
    pub parameter: bool,
    pub external: bool,
    pub intrinsic_attr: bool,
    pub access: Option<bool>,
    /// Common block name and position in it.
    pub common: Option<(String, usize)>,
    /// Position among the dummy arguments.
    pub dummy: Option<usize>,
    /// Introduced by the canonicaliser.
    pub temp: bool,
    /// A component-path pseudo-variable (`components.rs`).
    pub component: Option<ComponentPath>,
    /// A named constant of module `mpi` (no source: `mpi.rs`); the
    /// canonical source declares it through `use mpi`, not itself.
    pub from_mpi: bool,
    pub span: Span,
}

impl Symbol {
    pub fn new(name: &str, ty: TypeSpec, span: Span) -> Symbol {
        Symbol {
            name: name.to_string(),
            ty,
            explicit_type: false,
            dims: None,
            char_len: None,
            init: None,
            intent: None,
            optional: false,
            allocatable: false,
            pointer: false,
            target: false,
            save: false,
            parameter: false,
            external: false,
            intrinsic_attr: false,
            access: None,
            common: None,
            dummy: None,
            temp: false,
            component: None,
            from_mpi: false,
            span,
        }
    }
    pub fn rank(&self) -> usize {
        self.dims.as_ref().map_or(0, |d| d.len())
    }
}

/// How a name used in a unit resolves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    /// Symbol `sym` of unit `owner` (local, host, or module variable).
    Var { owner: usize, sym: usize },
    /// A procedure defined in the inputs (index into `Program::units`).
    Proc(usize),
    /// An intrinsic procedure.
    Intrinsic,
    /// A statement function of the unit.
    StmtFunction(usize, usize),
}

#[derive(Debug, Clone, PartialEq)]
pub struct UnitInfo {
    pub ast: Unit,
    pub tag: String,
    /// Host unit (module or host procedure).
    pub parent: Option<usize>,
    /// For interface bodies: the unit whose specification holds them.
    pub interface_of: Option<usize>,
    pub symbols: Vec<Symbol>,
    pub index: HashMap<String, usize>,
    pub implicit: Vec<(char, char, Option<TypeSpec>)>,
    pub implicit_none: bool,
    /// Names of procedures contained in this unit.
    pub contained: Vec<usize>,
    /// Canonical name (functions become `oad_s_<name>` subroutines).
    pub canon_name: String,
    /// Implicitly typed reals are real(8) (`--default-real-8`).
    pub default_real_8: bool,
}

impl UnitInfo {
    /// Declared `elemental`: applied to arrays element by element.
    pub fn is_elemental(&self) -> bool {
        self.ast
            .prefixes
            .iter()
            .any(|p| p.eq_ignore_ascii_case("elemental"))
    }

    pub fn lookup_local(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// Adds a symbol; returns its index.
    pub fn add_symbol(&mut self, sym: Symbol) -> usize {
        let i = self.symbols.len();
        self.index.insert(sym.name.clone(), i);
        self.symbols.push(sym);
        i
    }

    /// A fresh name starting with `prefix` that clashes with nothing here.
    pub fn fresh_name(&self, prefix: &str, counter: &mut usize) -> String {
        loop {
            *counter += 1;
            let n = format!("{prefix}{counter}");
            if !self.index.contains_key(&n) {
                return n;
            }
        }
    }

    /// Last line of the unit in its file's normalised text.
    pub fn end_line_or_span(&self) -> usize {
        self.ast.end_line.max(self.ast.span.line)
    }

    pub fn is_function(&self) -> bool {
        self.ast.kind == UnitKind::Function
    }

    /// The implicit type of a name, if implicit typing applies.
    fn implicit_type(&self, name: &str) -> Option<TypeSpec> {
        let c = name.chars().next()?;
        for (a, b, ty) in self.implicit.iter().rev() {
            if *a <= c && c <= *b {
                return ty.clone();
            }
        }
        if self.implicit_none {
            return None;
        }
        Some(if ('i'..='n').contains(&c) {
            TypeSpec::new(BaseType::Integer)
        } else {
            self.default_real()
        })
    }

    /// `real`, or `real(8)` under `--default-real-8`.
    fn default_real(&self) -> TypeSpec {
        let mut ty = TypeSpec::new(BaseType::Real);
        if self.default_real_8 {
            ty.kind = Some(Expr::int(8, self.ast.span));
        }
        ty
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    pub units: Vec<UnitInfo>,
    /// Unit names visible globally (external procedures, modules, programs).
    pub globals: HashMap<String, usize>,
    /// Routines without source the user declared (`black_box.rs`).
    pub black_boxes: crate::black_box::Library,
    /// Warnings found while canonicalising (calls of passive black boxes).
    pub canon_warnings: Vec<(Span, String)>,
    /// The XAIF marker annotation suffix of each black-box call, by the
    /// call's position (`black_box.rs`, `BlackBox::annotation`).
    pub black_box_calls: HashMap<(usize, usize, usize), String>,
    /// Calls of MPI routines on real data, by the call's position: the
    /// `Marker` annotation suffix (`mpi.rs`).
    pub mpi_calls: HashMap<(usize, usize, usize), String>,
    /// What the adjoint modes do at each association of an active pointer
    /// (record, replay, refuse), by the statement's position: the marker
    /// field `pointer:KIND:NAMES` (`pointer_aliases.rs`).
    pub pointer_fields: HashMap<(usize, usize, usize), String>,
    /// The unit defining each derived type (the first in unit order), so
    /// that looking a name up does not scan every unit's specification
    /// part: type inference asks it for every unresolved call name.
    pub(crate) derived_types: HashMap<String, usize>,
}

impl Program {
    /// Builds the semantic model of all input files, in order.
    pub fn build(files: Vec<SourceFile>) -> FrontResult<Program> {
        Program::build_with(files, false)
    }

    /// Like [`Program::build`]; with `default_real_8` implicitly typed reals
    /// are real(8) (the files themselves are promoted by
    /// `default_real::promote`).
    pub fn build_with(files: Vec<SourceFile>, default_real_8: bool) -> FrontResult<Program> {
        let mut prog = Program {
            units: Vec::new(),
            globals: HashMap::new(),
            black_boxes: Default::default(),
            canon_warnings: Vec::new(),
            black_box_calls: HashMap::new(),
            mpi_calls: HashMap::new(),
            pointer_fields: HashMap::new(),
            derived_types: HashMap::new(),
        };
        let mut tags: HashMap<String, usize> = HashMap::new();
        for f in files {
            for u in f.units {
                let idx = prog.add_unit(u, None, None, "", &mut tags)?;
                let name = prog.units[idx].ast.name.clone();
                if prog.globals.insert(name.clone(), idx).is_some() {
                    let span = prog.units[idx].ast.span;
                    return Err(FrontError::new(
                        span,
                        format!("program unit '{name}' is defined twice"),
                    ));
                }
            }
        }
        for unit in &mut prog.units {
            unit.default_real_8 = default_real_8;
        }
        prog.index_derived_types();
        for i in 0..prog.units.len() {
            prog.declare_unit(i)?;
        }
        for i in 0..prog.units.len() {
            prog.implicit_symbols(i)?;
            prog.declare_construct_locals(i)?;
        }
        prog.declare_component_paths()?;
        prog.check_common_layouts()?;
        Ok(prog)
    }

    /// Common block members are matched by position: every unit must lay a
    /// block out alike (same number of members, types and ranks), or the
    /// analyses would mix up storage.
    fn check_common_layouts(&self) -> FrontResult<()> {
        let mut seen: HashMap<String, (usize, Vec<(Cat, usize)>)> = HashMap::new();
        for (i, u) in self.units.iter().enumerate() {
            let mut blocks: HashMap<String, Vec<(usize, Cat, usize, Span)>> = HashMap::new();
            for s in &u.symbols {
                if let Some((b, pos)) = &s.common {
                    blocks.entry(b.clone()).or_default().push((
                        *pos,
                        self.cat_of(i, &s.ty),
                        s.rank(),
                        s.span,
                    ));
                }
            }
            let mut names: Vec<&String> = blocks.keys().collect();
            names.sort();
            for b in names {
                let mut members = blocks[b].clone();
                members.sort_by_key(|m| m.0);
                let layout: Vec<(Cat, usize)> = members.iter().map(|m| (m.1, m.2)).collect();
                match seen.get(b) {
                    None => {
                        seen.insert(b.clone(), (i, layout));
                    }
                    Some((first, l)) if *l != layout => {
                        return Err(FrontError::unsupported(
                            members[0].3,
                            format!(
                                "unsupported construct: common block /{b}/ laid out differently here than in '{}'",
                                self.units[*first].ast.name
                            ),
                        ));
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    fn add_unit(
        &mut self,
        mut u: Unit,
        parent: Option<usize>,
        interface_of: Option<usize>,
        prefix: &str,
        tags: &mut HashMap<String, usize>,
    ) -> FrontResult<usize> {
        let contains = std::mem::take(&mut u.contains);
        let base_tag = if interface_of.is_some() {
            format!("{prefix}interface.{}", u.name)
        } else {
            format!("{prefix}{}", u.name)
        };
        let n = tags.entry(base_tag.clone()).or_insert(0);
        *n += 1;
        let tag = if *n == 1 {
            base_tag.clone()
        } else {
            format!("{base_tag}.{n}")
        };
        let canon_name = if u.kind == UnitKind::Function {
            format!("oad_s_{}", u.name)
        } else {
            u.name.clone()
        };
        let idx = self.units.len();
        // Interface bodies live in the specification part.
        let mut iface_bodies = Vec::new();
        for s in u.spec.iter_mut() {
            if let SpecStmt::Interface { bodies, .. } = s {
                iface_bodies.append(bodies);
            }
        }
        self.units.push(UnitInfo {
            ast: u,
            tag: tag.clone(),
            parent,
            interface_of,
            symbols: Vec::new(),
            index: HashMap::new(),
            implicit: Vec::new(),
            implicit_none: false,
            contained: Vec::new(),
            canon_name,
            default_real_8: false,
        });
        for b in iface_bodies {
            self.add_unit(b, None, Some(idx), &format!("{tag}."), tags)?;
        }
        for c in contains {
            let ci = self.add_unit(c, Some(idx), None, &format!("{tag}."), tags)?;
            self.units[idx].contained.push(ci);
        }
        Ok(idx)
    }

    /// Interface bodies declared in unit `i`.
    pub fn interfaces_of(&self, i: usize) -> Vec<usize> {
        (0..self.units.len())
            .filter(|&k| self.units[k].interface_of == Some(i))
            .collect()
    }

    fn declare_unit(&mut self, i: usize) -> FrontResult<()> {
        // Procedures of this unit: contained ones, interface bodies and
        // generic names (an access statement may name them).
        let mut procedures: Vec<String> = self.units[i]
            .contained
            .iter()
            .chain(self.interfaces_of(i).iter())
            .map(|&c| self.units[c].ast.name.to_ascii_lowercase())
            .collect();
        for s in &self.units[i].ast.spec {
            if let SpecStmt::Interface {
                generic: Some(g), ..
            } = s
            {
                procedures.push(g.to_ascii_lowercase());
            }
            // Type names may be named in access statements too.
            if let SpecStmt::DerivedType { name, .. } = s {
                procedures.push(name.to_ascii_lowercase());
            }
        }
        // Implicit rules: inherited from the host.
        if let Some(p) = self.units[i].parent {
            let (imp, none) = (self.units[p].implicit.clone(), self.units[p].implicit_none);
            self.units[i].implicit = imp;
            self.units[i].implicit_none = none;
        }
        let spec = self.units[i].ast.spec.clone();
        for s in &spec {
            match s {
                SpecStmt::ImplicitNone(_) => self.units[i].implicit_none = true,
                SpecStmt::Implicit(rules, _) => {
                    for r in rules {
                        for (a, b) in &r.ranges {
                            self.units[i].implicit.push((*a, *b, Some(r.ty.clone())));
                        }
                    }
                }
                _ => {}
            }
        }
        let unit = &mut self.units[i];
        for s in &spec {
            match s {
                SpecStmt::TypeDecl {
                    ty,
                    attrs,
                    entities,
                    ..
                } => {
                    for e in entities {
                        let k = get_or_add(unit, &e.name, e.span);
                        let sym = &mut unit.symbols[k];
                        if sym.explicit_type {
                            return Err(FrontError::new(
                                e.span,
                                format!("'{}' is declared twice", e.name),
                            ));
                        }
                        sym.ty = ty.clone();
                        sym.explicit_type = true;
                        sym.span = e.span;
                        for a in attrs {
                            apply_attr(sym, a)?;
                        }
                        if e.dims.is_some() {
                            sym.dims = e.dims.clone();
                        }
                        if e.char_len.is_some() {
                            sym.char_len = e.char_len.clone();
                        }
                        if e.init.is_some() {
                            sym.init = e.init.clone();
                        }
                    }
                }
                SpecStmt::AttrStmt { attr, entities, .. } => {
                    for e in entities {
                        let k = get_or_add(unit, &e.name, e.span);
                        let sym = &mut unit.symbols[k];
                        apply_attr(sym, attr)?;
                        if e.dims.is_some() {
                            sym.dims = e.dims.clone();
                        }
                    }
                }
                SpecStmt::Parameter(list, _) => {
                    for (name, value) in list {
                        let k = get_or_add(unit, name, value.span());
                        let sym = &mut unit.symbols[k];
                        sym.parameter = true;
                        sym.init = Some(value.clone());
                    }
                }
                SpecStmt::Common(blocks, span) => {
                    for (block, ents) in blocks {
                        for (pos, e) in ents.iter().enumerate() {
                            let k = get_or_add(unit, &e.name, e.span);
                            let sym = &mut unit.symbols[k];
                            if sym.common.is_some() {
                                return Err(FrontError::new(
                                    *span,
                                    format!("'{}' is in two common blocks", e.name),
                                ));
                            }
                            sym.common = Some((block.clone(), pos));
                            if e.dims.is_some() {
                                sym.dims = e.dims.clone();
                            }
                        }
                    }
                }
                SpecStmt::Data(sets, span) => {
                    for set in sets {
                        data_to_init(unit, set, *span)?;
                    }
                }
                SpecStmt::SaveAll(_) => {}
                _ => {}
            }
        }
        // Dummy arguments and the function result.
        let params = unit.ast.params.clone();
        for (pos, p) in params.iter().enumerate() {
            let span = unit.ast.span;
            let k = get_or_add(unit, p, span);
            unit.symbols[k].dummy = Some(pos);
        }
        if let Some(r) = unit.ast.result.clone() {
            let span = unit.ast.span;
            let k = get_or_add(unit, &r, span);
            if let Some(t) = unit.ast.result_type.clone() {
                unit.symbols[k].ty = t;
                unit.symbols[k].explicit_type = true;
            }
            // The function becomes a subroutine with the result as last dummy.
            unit.symbols[k].dummy = Some(params.len());
        }
        // Procedures of this unit (contained, or declared in an interface
        // block) named in an access statement (`public :: f`) need no type.
        let procedures = &procedures;
        // Resolve implicit types of names declared without a type.
        for k in 0..unit.symbols.len() {
            if unit.symbols[k].explicit_type {
                continue;
            }
            let name = unit.symbols[k].name.clone();
            let only_access = unit.symbols[k].access.is_some()
                && unit.symbols[k].dims.is_none()
                && unit.symbols[k].dummy.is_none()
                && unit.symbols[k].common.is_none();
            if only_access && procedures.contains(&name.to_ascii_lowercase()) {
                continue;
            }
            // An `external` name without a type is a subroutine; no type needed.
            if unit.symbols[k].external || unit.symbols[k].intrinsic_attr {
                continue;
            }
            match unit.implicit_type(&name) {
                Some(t) => unit.symbols[k].ty = t,
                None => {
                    return Err(FrontError::new(
                        unit.symbols[k].span,
                        format!("'{name}' has no type (implicit none)"),
                    ))
                }
            }
        }
        Ok(())
    }

    /// Gives implicitly typed local symbols to the names used in the body
    /// that resolve to nothing else.
    fn implicit_symbols(&mut self, i: usize) -> FrontResult<()> {
        if self.units[i].interface_of.is_some() {
            return Ok(());
        }
        let mut names: Vec<(String, Span, bool)> = Vec::new();
        let mut visit = |e: &Expr| match e {
            Expr::Name(n, s) => names.push((n.clone(), *s, false)),
            Expr::Apply { name, span, .. } => names.push((name.clone(), *span, true)),
            _ => {}
        };
        for_each_expr_in_stmts(&self.units[i].ast.body, &mut |e| e.walk(&mut visit));
        let mut do_vars = Vec::new();
        collect_do_vars(&self.units[i].ast.body, &mut do_vars);
        for (v, s) in do_vars {
            names.push((v, s, false));
        }
        for s in &self.units[i].ast.spec {
            if let SpecStmt::StmtFunction { body, params, .. } = s {
                body.walk(&mut |e| match e {
                    Expr::Name(n, s) if !params.contains(n) => names.push((n.clone(), *s, false)),
                    Expr::Apply { name, span, .. } => names.push((name.clone(), *span, true)),
                    _ => {}
                });
            }
        }
        for (name, span, applied) in names {
            if self.resolve(i, &name).is_some() {
                continue;
            }
            // Typed from their selectors next (`construct_locals.rs`).
            let locals = &self.units[i].ast.construct_locals;
            if locals.associate_temps.iter().any(|(t, _)| *t == name)
                || locals
                    .maybe_function_selectors
                    .iter()
                    .any(|m| m.temp == name)
            {
                continue;
            }
            if applied && intrinsics::is_intrinsic(&name) {
                continue;
            }
            // A structure constructor (`canon/structure_constructors.rs`).
            if applied && self.derived_type(&name).is_some() {
                continue;
            }
            // A generic procedure or operator (`canon/generic_calls.rs`).
            if applied && self.generic_specifics(i, &name).is_some() {
                continue;
            }
            if applied {
                return Err(FrontError::new(
                    span,
                    format!("'{name}' is neither an array nor a procedure whose source is among the inputs"),
                ));
            }
            if !applied && crate::mpi::is_constant(&name) && self.sees_mpi(i) {
                let mut sym = Symbol::new(&name, TypeSpec::new(BaseType::Integer), span);
                sym.explicit_type = true;
                sym.from_mpi = true;
                self.units[i].add_symbol(sym);
                continue;
            }
            let unit = &mut self.units[i];
            match unit.implicit_type(&name) {
                Some(t) => {
                    unit.add_symbol(Symbol::new(&name, t, span));
                }
                None => {
                    return Err(FrontError::new(
                        span,
                        format!("'{name}' is not declared (implicit none)"),
                    ))
                }
            }
        }
        Ok(())
    }

    /// Whether unit `i` sees module `mpi` (the system's, no source among
    /// the inputs): it, a host or a module it uses says `use mpi`.
    pub fn sees_mpi(&self, i: usize) -> bool {
        self.sees_mpi_from(i, 0)
    }

    fn sees_mpi_from(&self, i: usize, depth: usize) -> bool {
        if depth > 20 || self.globals.contains_key("mpi") {
            return false;
        }
        let unit = &self.units[i];
        let direct = unit.ast.spec.iter().any(|s| match s {
            SpecStmt::Use { module, .. } if module == "mpi" => true,
            SpecStmt::Use { module, .. } => self
                .globals
                .get(module)
                .is_some_and(|&m| self.sees_mpi_from(m, depth + 1)),
            _ => false,
        });
        direct
            || unit
                .parent
                .is_some_and(|p| self.sees_mpi_from(p, depth + 1))
    }

    /// Resolves a name used in unit `i`.
    pub fn resolve(&self, i: usize, name: &str) -> Option<Binding> {
        if name.contains('%') {
            let (owner, sym) = self.resolve_component_path(i, name)?;
            return Some(Binding::Var { owner, sym });
        }
        let unit = &self.units[i];
        for s in &unit.ast.spec {
            if let SpecStmt::StmtFunction { name: n, .. } = s {
                if n == name {
                    let k = unit
                        .ast
                        .spec
                        .iter()
                        .position(
                            |x| matches!(x, SpecStmt::StmtFunction { name: m, .. } if m == name),
                        )
                        .unwrap_or(0);
                    return Some(Binding::StmtFunction(i, k));
                }
            }
        }
        if let Some(k) = unit.lookup_local(name) {
            let sym = &unit.symbols[k];
            if sym.external
                || sym.intrinsic_attr
                || (sym.dims.is_none()
                    && !sym.parameter
                    && self.proc_named(i, name).is_some()
                    && sym.dummy.is_none())
            {
                // `external f` / `real f` for a procedure defined elsewhere.
                if let Some(p) = self.proc_named(i, name) {
                    return Some(Binding::Proc(p));
                }
                if sym.intrinsic_attr {
                    return Some(Binding::Intrinsic);
                }
            }
            return Some(Binding::Var { owner: i, sym: k });
        }
        // Contained procedures of this unit.
        for &c in &unit.contained {
            if self.units[c].ast.name == name {
                return Some(Binding::Proc(c));
            }
        }
        // Use association.
        if let Some(b) = self.resolve_use(i, name, 0) {
            return Some(b);
        }
        // Host association.
        if let Some(p) = unit.parent {
            if let Some(b) = self.resolve(p, name) {
                return Some(b);
            }
        }
        // Global procedures.
        if let Some(&g) = self.globals.get(name) {
            if matches!(
                self.units[g].ast.kind,
                UnitKind::Subroutine | UnitKind::Function
            ) {
                return Some(Binding::Proc(g));
            }
        }
        None
    }

    fn resolve_use(&self, i: usize, name: &str, depth: usize) -> Option<Binding> {
        if depth > 20 {
            return None;
        }
        for s in &self.units[i].ast.spec {
            let SpecStmt::Use {
                module,
                only,
                items,
                ..
            } = s
            else {
                continue;
            };
            let Some(&m) = self.globals.get(module) else {
                continue;
            };
            let remote = match items.iter().find(|(l, _)| l == name) {
                Some((_, r)) => r.clone(),
                None if *only => continue,
                None => {
                    // Renamed entities are not visible under their own name.
                    if items.iter().any(|(l, r)| r == name && l != name) {
                        continue;
                    }
                    name.to_string()
                }
            };
            if let Some(b) = self.module_entity(m, &remote, depth) {
                return Some(b);
            }
        }
        None
    }

    /// An entity `name` exported by module `m`.
    fn module_entity(&self, m: usize, name: &str, depth: usize) -> Option<Binding> {
        let unit = &self.units[m];
        let local = unit.lookup_local(name);
        if local.is_some_and(|k| unit.symbols[k].access == Some(false)) {
            // `private :: name`: not visible outside, variable or procedure.
            return None;
        }
        // A module procedure (an access statement naming it only made a
        // symbol for its accessibility).
        for &c in &unit.contained {
            if self.units[c].ast.name == name {
                return Some(Binding::Proc(c));
            }
        }
        if let Some(k) = local {
            return Some(Binding::Var { owner: m, sym: k });
        }
        self.resolve_use(m, name, depth + 1)
    }

    /// A procedure called `name` visible from unit `i` (contained, module,
    /// host or global), ignoring local variables.
    pub fn proc_named(&self, i: usize, name: &str) -> Option<usize> {
        let mut u = Some(i);
        while let Some(k) = u {
            for &c in &self.units[k].contained {
                if self.units[c].ast.name == name {
                    return Some(c);
                }
            }
            if let Some(Binding::Proc(p)) = self.resolve_use(k, name, 0) {
                return Some(p);
            }
            u = self.units[k].parent;
        }
        match self.globals.get(name) {
            Some(&g)
                if matches!(
                    self.units[g].ast.kind,
                    UnitKind::Subroutine | UnitKind::Function
                ) =>
            {
                Some(g)
            }
            _ => None,
        }
    }

    pub fn symbol(&self, owner: usize, sym: usize) -> &Symbol {
        &self.units[owner].symbols[sym]
    }

    /// The variable a name denotes in unit `i`, if it is one.
    pub fn var(&self, i: usize, name: &str) -> Option<(usize, usize)> {
        match self.resolve(i, name)? {
            Binding::Var { owner, sym } => Some((owner, sym)),
            _ => None,
        }
    }

    /// Type category of a declared type.
    pub fn cat_of(&self, i: usize, ty: &TypeSpec) -> Cat {
        let kind = ty.kind.as_ref().and_then(|k| self.const_int(i, k));
        match ty.base {
            BaseType::Integer => Cat::Int,
            BaseType::Real => Cat::Real(kind.map_or(4, |k| k as u8)),
            BaseType::DoublePrecision => Cat::Real(8),
            BaseType::Complex => Cat::Complex(kind.map_or(4, |k| k as u8)),
            BaseType::DoubleComplex => Cat::Complex(8),
            BaseType::Logical => Cat::Logical,
            BaseType::Character => Cat::Char,
            BaseType::Derived(_) => Cat::Derived,
        }
    }

    /// Evaluates an integer constant expression (literals, parameters and
    /// the kind inquiries used in declarations).
    pub fn const_int(&self, i: usize, e: &Expr) -> Option<i64> {
        self.const_int_depth(i, e, 0)
    }

    fn const_int_depth(&self, i: usize, e: &Expr, depth: usize) -> Option<i64> {
        if depth > 30 {
            return None;
        }
        match e {
            Expr::Lit(Literal::Int(_), _) => e.const_int(),
            Expr::Name(n, _) => {
                let (o, s) = self.var(i, n)?;
                let sym = self.symbol(o, s);
                if !sym.parameter {
                    return None;
                }
                self.const_int_depth(o, sym.init.as_ref()?, depth + 1)
            }
            Expr::Paren(x, _) => self.const_int_depth(i, x, depth + 1),
            Expr::Unary(UnOp::Neg, x, _) => Some(-self.const_int_depth(i, x, depth + 1)?),
            Expr::Unary(UnOp::Plus, x, _) => self.const_int_depth(i, x, depth + 1),
            Expr::Binary(op, l, r, _) => {
                let a = self.const_int_depth(i, l, depth + 1)?;
                let b = self.const_int_depth(i, r, depth + 1)?;
                match op {
                    BinOp::Add => Some(a + b),
                    BinOp::Sub => Some(a - b),
                    BinOp::Mul => Some(a * b),
                    BinOp::Div if b != 0 => Some(a / b),
                    BinOp::Pow if (0..63).contains(&b) => a.checked_pow(b as u32),
                    _ => None,
                }
            }
            Expr::Apply { name, args, .. } if self.resolve(i, name).is_none() => {
                match name.as_str() {
                    "kind" => {
                        let t = self.type_of(i, &args.first()?.value);
                        match t.cat {
                            Cat::Real(k) | Cat::Complex(k) => Some(k as i64),
                            Cat::Int => Some(4),
                            _ => None,
                        }
                    }
                    "selected_real_kind" => {
                        let p = self.const_int_depth(i, &args.first()?.value, depth + 1)?;
                        Some(if p <= 6 {
                            4
                        } else if p <= 15 {
                            8
                        } else {
                            16
                        })
                    }
                    "selected_int_kind" => {
                        let r = self.const_int_depth(i, &args.first()?.value, depth + 1)?;
                        Some(if r <= 2 {
                            1
                        } else if r <= 4 {
                            2
                        } else if r <= 9 {
                            4
                        } else {
                            8
                        })
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Type, rank and defining unit of a component reference `base%field`
    /// (derived types are looked up by name in the whole program).
    pub fn member_type(&self, i: usize, e: &Expr) -> Option<(TypeSpec, usize, usize)> {
        let Expr::Member {
            base, field, args, ..
        } = e
        else {
            return None;
        };
        let base_ty = match &**base {
            Expr::Name(n, _) | Expr::Apply { name: n, .. } => {
                let (o, k) = self.var(i, n)?;
                self.symbol(o, k).ty.clone()
            }
            m @ Expr::Member { .. } => self.member_type(i, m)?.0,
            _ => return None,
        };
        let BaseType::Derived(tname) = &base_ty.base else {
            return None;
        };
        let (u, components) = self.derived_type(tname)?;
        let c = components.iter().find(|c| c.name == *field)?;
        let rank = match args {
            Some(a) => a
                .iter()
                .filter(|x| matches!(x.value, Expr::Range { .. }))
                .count(),
            None => c.dims.as_ref().map_or(0, |d| d.len()),
        };
        Some((c.ty.clone(), rank, u))
    }

    /// The type of an expression in unit `i`.
    pub fn type_of(&self, i: usize, e: &Expr) -> Ty {
        let scalar = |cat| Ty { cat, rank: 0 };
        match e {
            Expr::Lit(l, _) => scalar(match l {
                Literal::Int(_) => Cat::Int,
                Literal::Real(t) => {
                    let t = t.to_ascii_lowercase();
                    if let Some((_, k)) = t.split_once('_') {
                        let kv = k
                            .parse::<i64>()
                            .ok()
                            .or_else(|| self.const_int(i, &Expr::Name(k.to_string(), e.span())));
                        Cat::Real(kv.unwrap_or(4) as u8)
                    } else if t.contains('d') {
                        Cat::Real(8)
                    } else {
                        Cat::Real(4)
                    }
                }
                Literal::Logical(_) => Cat::Logical,
                Literal::Str(_) => Cat::Char,
                Literal::Complex(_) => Cat::Complex(4),
            }),
            Expr::Name(n, _) => match self.resolve(i, n) {
                Some(Binding::Var { owner, sym }) => {
                    let s = self.symbol(owner, sym);
                    Ty {
                        cat: self.cat_of(owner, &s.ty),
                        rank: s.rank(),
                    }
                }
                _ => scalar(Cat::Unknown),
            },
            Expr::Apply { name, args, .. } => match self.resolve(i, name) {
                Some(Binding::Var { owner, sym }) => {
                    let s = self.symbol(owner, sym);
                    let rank = args
                        .iter()
                        .filter(|a| {
                            matches!(a.value, Expr::Range { .. })
                                || self.type_of(i, &a.value).rank > 0
                        })
                        .count();
                    Ty {
                        cat: self.cat_of(owner, &s.ty),
                        rank,
                    }
                }
                Some(Binding::Proc(p)) => {
                    let u = &self.units[p];
                    match u.ast.result.as_ref().and_then(|r| u.lookup_local(r)) {
                        // An elemental reference has the rank of its
                        // array arguments (they conform).
                        Some(k) if u.is_elemental() => Ty {
                            cat: self.cat_of(p, &u.symbols[k].ty),
                            rank: args
                                .iter()
                                .map(|a| self.type_of(i, &a.value).rank)
                                .max()
                                .unwrap_or(0),
                        },
                        Some(k) => Ty {
                            cat: self.cat_of(p, &u.symbols[k].ty),
                            rank: u.symbols[k].rank(),
                        },
                        None => scalar(Cat::Unknown),
                    }
                }
                Some(Binding::StmtFunction(owner, k)) => match &self.units[owner].ast.spec[k] {
                    SpecStmt::StmtFunction { name, .. } => {
                        match self.units[owner].lookup_local(name) {
                            Some(s) => scalar(self.cat_of(owner, &self.units[owner].symbols[s].ty)),
                            None => scalar(
                                self.units[owner]
                                    .implicit_type(name)
                                    .map_or(Cat::Unknown, |t| self.cat_of(owner, &t)),
                            ),
                        }
                    }
                    _ => scalar(Cat::Unknown),
                },
                None if self.derived_type(name).is_some() => scalar(Cat::Derived),
                Some(Binding::Intrinsic) | None => {
                    let arg_tys: Vec<Ty> = args.iter().map(|a| self.type_of(i, &a.value)).collect();
                    self.intrinsic_result_type(i, name, args, &arg_tys)
                }
            },
            Expr::Member { .. } => match self.member_type(i, e) {
                Some((ts, rank, owner)) => Ty {
                    cat: self.cat_of(owner, &ts),
                    rank,
                },
                None => scalar(Cat::Unknown),
            },
            Expr::Unary(UnOp::Not, _, _) => scalar(Cat::Logical),
            Expr::Unary(_, x, _) | Expr::Paren(x, _) => self.type_of(i, x),
            Expr::Binary(op, l, r, _) => {
                let a = self.type_of(i, l);
                let b = self.type_of(i, r);
                let rank = a.rank.max(b.rank);
                if op.is_relational() || op.is_logical() {
                    return Ty {
                        cat: Cat::Logical,
                        rank,
                    };
                }
                if *op == BinOp::Concat {
                    return Ty {
                        cat: Cat::Char,
                        rank,
                    };
                }
                Ty {
                    cat: promote(a.cat, b.cat),
                    rank,
                }
            }
            Expr::Range { .. } => scalar(Cat::Int),
            Expr::ArrayCtor(items, _) => Ty {
                cat: items
                    .first()
                    .map_or(Cat::Unknown, |x| self.type_of(i, x).cat),
                rank: 1,
            },
            // An item of a constructor or I/O list, typed by its first item.
            Expr::ImpliedDo { items, .. } => scalar(
                items
                    .first()
                    .map_or(Cat::Unknown, |x| self.type_of(i, x).cat),
            ),
        }
    }
}

/// The type of `a op b` for arithmetic operators.
pub fn promote(a: Cat, b: Cat) -> Cat {
    match (a, b) {
        (Cat::Complex(x), Cat::Complex(y)) => Cat::Complex(x.max(y)),
        (Cat::Complex(x), Cat::Real(y)) | (Cat::Real(y), Cat::Complex(x)) => Cat::Complex(x.max(y)),
        (Cat::Complex(x), _) | (_, Cat::Complex(x)) => Cat::Complex(x),
        (Cat::Real(x), Cat::Real(y)) => Cat::Real(x.max(y)),
        (Cat::Real(x), _) | (_, Cat::Real(x)) => Cat::Real(x),
        (Cat::Int, Cat::Int) => Cat::Int,
        _ => Cat::Unknown,
    }
}

fn get_or_add(unit: &mut UnitInfo, name: &str, span: Span) -> usize {
    match unit.lookup_local(name) {
        Some(k) => k,
        None => {
            let ty = unit.default_real();
            unit.add_symbol(Symbol::new(name, ty, span))
        }
    }
}

fn apply_attr(sym: &mut Symbol, a: &Attr) -> FrontResult<()> {
    match a {
        Attr::Parameter => sym.parameter = true,
        Attr::Dimension(d) if !d.is_empty() => sym.dims = Some(d.clone()),
        Attr::Dimension(_) => {}
        Attr::Intent(i) => sym.intent = Some(i.clone()),
        Attr::Optional => sym.optional = true,
        Attr::Allocatable => sym.allocatable = true,
        Attr::Pointer => sym.pointer = true,
        Attr::Target => sym.target = true,
        Attr::Save => sym.save = true,
        Attr::External => sym.external = true,
        Attr::Intrinsic => sym.intrinsic_attr = true,
        Attr::Public => sym.access = Some(true),
        Attr::Private => sym.access = Some(false),
        Attr::Contiguous | Attr::Protected | Attr::Value => {}
    }
    Ok(())
}

/// Turns a data statement group into initialisers (`= value` or an array
/// constructor), the form the canonical source declares entities in.
fn data_to_init(unit: &mut UnitInfo, set: &DataSet, span: Span) -> FrontResult<()> {
    let mut values: Vec<Expr> = Vec::new();
    for (n, v) in &set.values {
        for _ in 0..*n {
            values.push(v.clone());
        }
    }
    if set.names.len() == 1 {
        let Expr::Name(name, s) = &set.names[0] else {
            return Err(FrontError::unsupported(
                span,
                "unsupported construct: data statement on an array element or section",
            ));
        };
        let k = get_or_add(unit, name, *s);
        let is_array = unit.symbols[k].dims.is_some();
        unit.symbols[k].init = Some(if is_array && values.len() > 1 {
            Expr::ArrayCtor(values, span)
        } else if values.len() == 1 {
            values.pop().expect("one value")
        } else {
            return Err(FrontError::new(
                span,
                "data statement: number of values does not match",
            ));
        });
        unit.symbols[k].save = true;
        return Ok(());
    }
    if set.names.len() != values.len() {
        return Err(FrontError::unsupported(
            span,
            "unsupported construct: data statement with arrays in a list",
        ));
    }
    for (n, v) in set.names.iter().zip(values) {
        let Expr::Name(name, s) = n else {
            return Err(FrontError::unsupported(
                span,
                "unsupported construct: data statement on an array element",
            ));
        };
        let k = get_or_add(unit, name, *s);
        if unit.symbols[k].dims.is_some() {
            return Err(FrontError::unsupported(
                span,
                "unsupported construct: data statement with arrays in a list",
            ));
        }
        unit.symbols[k].init = Some(v);
        unit.symbols[k].save = true;
    }
    Ok(())
}

/// Calls `f` on every top-level expression of the statements (conditions,
/// both sides of assignments, call arguments, loop bounds).
pub fn for_each_expr_in_stmts<'a>(stmts: &'a [Stmt], f: &mut dyn FnMut(&'a Expr)) {
    for s in stmts {
        match &s.kind {
            StmtKind::Assign { lhs, rhs } => {
                f(lhs);
                f(rhs);
            }
            StmtKind::Call { args, .. } => args.iter().for_each(|a| f(&a.value)),
            StmtKind::If { arms, otherwise } => {
                for (c, b) in arms {
                    f(c);
                    for_each_expr_in_stmts(b, f);
                }
                if let Some(b) = otherwise {
                    for_each_expr_in_stmts(b, f);
                }
            }
            StmtKind::Do { control, body, .. } => {
                if let Some(c) = control {
                    f(&c.lo);
                    f(&c.hi);
                    if let Some(s) = &c.step {
                        f(s);
                    }
                }
                for_each_expr_in_stmts(body, f);
            }
            StmtKind::DoWhile { cond, body, .. } => {
                f(cond);
                for_each_expr_in_stmts(body, f);
            }
            StmtKind::Select { selector, cases } => {
                f(selector);
                for c in cases {
                    if let Some(vs) = &c.values {
                        for v in vs {
                            f(v);
                        }
                    }
                    for_each_expr_in_stmts(&c.body, f);
                }
            }
            StmtKind::Where { arms } => {
                for (m, b) in arms {
                    if let Some(m) = m {
                        f(m);
                    }
                    for_each_expr_in_stmts(b, f);
                }
            }
            StmtKind::Forall {
                controls,
                mask,
                body,
            } => {
                for c in controls {
                    f(&c.lo);
                    f(&c.hi);
                    if let Some(s) = &c.step {
                        f(s);
                    }
                }
                if let Some(m) = mask {
                    f(m);
                }
                for_each_expr_in_stmts(body, f);
            }
            StmtKind::Opaque { reads, writes, .. } => {
                for e in reads {
                    f(e);
                }
                for e in writes {
                    f(e);
                }
            }
            _ => {}
        }
    }
}

fn collect_do_vars(stmts: &[Stmt], out: &mut Vec<(String, Span)>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Do { control, body, .. } => {
                if let Some(c) = control {
                    out.push((c.var.clone(), s.span));
                }
                collect_do_vars(body, out);
            }
            StmtKind::DoWhile { body, .. } => collect_do_vars(body, out),
            StmtKind::Forall { controls, body, .. } => {
                for c in controls {
                    out.push((c.var.clone(), s.span));
                }
                collect_do_vars(body, out);
            }
            StmtKind::If { arms, otherwise } => {
                for (_, b) in arms {
                    collect_do_vars(b, out);
                }
                if let Some(b) = otherwise {
                    collect_do_vars(b, out);
                }
            }
            StmtKind::Select { cases, .. } => {
                cases.iter().for_each(|c| collect_do_vars(&c.body, out))
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
