//! Real components of derived types in the numerical core.
//!
//! A reference to a real component, `p%pos(i)`, `cells(i)%h`,
//! `s%grid%dx`, is turned into a reference to a *component path*: a
//! pseudo-variable of the unit that owns the base variable, named by the
//! path with the rank of every array part before the leaf in parentheses
//! (`p%pos`, `cells(1)%h`, `s%grid%dx`). Its shape is the concatenation of
//! the shapes of the parts (`cells(1)%h` with `cells(n)` and `h(m)` is an
//! n×m array), its subscripts are those of the parts in order. From then
//! on the canonicaliser, the analyses and the emitter treat it as an
//! ordinary real variable: array syntax is scalarised, activity is
//! computed, XAIF gets a flattened symbol per path (docs/xaif.md,
//! "Derived types"). `unparse` distributes the subscripts back over the
//! parts.
//!
//! Storage identity: all paths ending in the same component of the same
//! type (`particle%pos` of every particle, wherever it sits) are one
//! location for the analyses (`lower.rs`), a global one that is never
//! killed (partial definitions). That is the granularity of the
//! declaration the back end rewrites (a component is `type(active)` for
//! every object of the type or for none), it is what makes a derived-type
//! actual argument carry its components into the callee without binding
//! them one by one, and it is conservative for activity.
//!
//! Integer, logical and character components stay `Member` expressions:
//! passive, read into temporaries as before.

use crate::ast::*;
pub use crate::sema::ComponentPath;
use crate::sema::{Cat, Program, Symbol};

/// The pseudo-variable name of a path: `cells(1)%h`.
pub fn path_name(parts: &[(String, usize)]) -> String {
    let mut s = String::new();
    for (k, (name, rank)) in parts.iter().enumerate() {
        if k > 0 {
            s.push('%');
        }
        s.push_str(name);
        if k + 1 < parts.len() && *rank > 0 {
            s.push_str(&format!("({rank})"));
        }
    }
    s
}

/// The parts of a pseudo-variable name: `cells(1)%h` → `[(cells, 1), (h, 0)]`
/// (the leaf's rank is not in the name and is given as 0).
pub fn split_path_name(name: &str) -> Vec<(String, usize)> {
    name.split('%')
        .map(|p| match p.split_once('(') {
            Some((n, r)) => (n.to_string(), r.trim_end_matches(')').parse().unwrap_or(0)),
            None => (p.to_string(), 0),
        })
        .collect()
}

/// Text of a pseudo-variable reference with its subscripts (already
/// printed) distributed over the parts: `cells(i)%h(j)`.
pub fn path_text(name: &str, subscripts: Option<&[String]>) -> String {
    let parts = split_path_name(name);
    let mut out = String::new();
    let mut rest: &[String] = subscripts.unwrap_or(&[]);
    for (k, (part, rank)) in parts.iter().enumerate() {
        if k > 0 {
            out.push('%');
        }
        out.push_str(part);
        let take = if k + 1 == parts.len() {
            rest.len()
        } else {
            (*rank).min(rest.len())
        };
        if subscripts.is_some() && take > 0 {
            out.push('(');
            out.push_str(&rest[..take].join(", "));
            out.push(')');
        }
        rest = &rest[take..];
    }
    out
}

/// A component declaration of a derived type.
#[derive(Debug, Clone)]
pub struct Component {
    pub name: String,
    pub ty: TypeSpec,
    pub dims: Option<Vec<DimSpec>>,
    pub allocatable: bool,
    pub pointer: bool,
    pub char_len: Option<Expr>,
    pub init: Option<Expr>,
    /// `public` / `private` on the component.
    pub access: Option<bool>,
    pub span: Span,
}

impl Component {
    fn rank(&self) -> usize {
        self.dims.as_ref().map_or(0, |d| d.len())
    }
}

/// A real component reachable from a value of a derived type through
/// nested (non-allocatable, non-pointer) derived-type components.
#[derive(Debug, Clone, PartialEq)]
pub struct RealLeaf {
    /// The component names from the value to the leaf (`grid`, `dx`).
    pub chain: Vec<String>,
    /// The type that declares the leaf.
    pub type_name: String,
    pub leaf: String,
    pub allocatable: bool,
}

impl Program {
    /// The real components reachable from a value of type `type_name`.
    pub fn real_leaves(&self, type_name: &str) -> Vec<RealLeaf> {
        let mut out = Vec::new();
        self.real_leaves_into(type_name, &mut Vec::new(), &mut out);
        out
    }

    fn real_leaves_into(&self, type_name: &str, prefix: &mut Vec<String>, out: &mut Vec<RealLeaf>) {
        let Some((tu, comps)) = self.derived_type(type_name) else {
            return;
        };
        if prefix.len() > 8 {
            return;
        }
        for c in comps {
            if c.pointer {
                continue;
            }
            match &c.ty.base {
                BaseType::Derived(t) if !c.allocatable => {
                    prefix.push(c.name.clone());
                    self.real_leaves_into(t, prefix, out);
                    prefix.pop();
                }
                _ if self.cat_of(tu, &c.ty).is_real() => {
                    let mut chain = prefix.clone();
                    chain.push(c.name.clone());
                    out.push(RealLeaf {
                        chain,
                        type_name: type_name.to_string(),
                        leaf: c.name.clone(),
                        allocatable: c.allocatable,
                    });
                }
                _ => {}
            }
        }
    }

    /// Fills `derived_types`: every derived type's defining unit, the first
    /// in unit order (units and their type definitions are all known once
    /// the files are read; nothing adds either later).
    pub(crate) fn index_derived_types(&mut self) {
        for (u, unit) in self.units.iter().enumerate() {
            for s in &unit.ast.spec {
                if let SpecStmt::DerivedType { name, .. } = s {
                    self.derived_types.entry(name.clone()).or_insert(u);
                }
            }
        }
    }

    /// The unit defining derived type `name` and its components in order.
    pub fn derived_type(&self, name: &str) -> Option<(usize, Vec<Component>)> {
        let u = *self.derived_types.get(name)?;
        let unit = &self.units[u];
        for s in &unit.ast.spec {
            let SpecStmt::DerivedType {
                name: n,
                components,
                ..
            } = s
            else {
                continue;
            };
            if n != name {
                continue;
            }
            let mut out = Vec::new();
            for c in components {
                let SpecStmt::TypeDecl {
                    ty,
                    attrs,
                    entities,
                    ..
                } = c
                else {
                    continue;
                };
                let attr_dims = attrs.iter().find_map(|a| match a {
                    Attr::Dimension(d) => Some(d.clone()),
                    _ => None,
                });
                for ent in entities {
                    out.push(Component {
                        name: ent.name.clone(),
                        ty: ty.clone(),
                        dims: ent.dims.clone().or_else(|| attr_dims.clone()),
                        allocatable: attrs.contains(&Attr::Allocatable),
                        pointer: attrs.contains(&Attr::Pointer),
                        char_len: ent.char_len.clone(),
                        init: ent.init.clone(),
                        access: if attrs.contains(&Attr::Private) {
                            Some(false)
                        } else if attrs.contains(&Attr::Public) {
                            Some(true)
                        } else {
                            None
                        },
                        span: ent.span,
                    });
                }
            }
            return Some((u, out));
        }
        None
    }

    /// Whether symbol `k` of unit `i` only names a derived type of the unit
    /// in an access statement (`public :: state_t`): not a variable.
    pub fn is_type_access_symbol(&self, i: usize, k: usize) -> bool {
        let s = &self.units[i].symbols[k];
        !s.explicit_type
            && s.access.is_some()
            && s.dims.is_none()
            && self.units[i]
                .ast
                .spec
                .iter()
                .any(|x| matches!(x, SpecStmt::DerivedType { name, .. } if *name == s.name))
    }

    /// Declares a pseudo-variable for every real component path of every
    /// derived-type variable (see the module comment), and rejects what
    /// the scheme cannot represent.
    pub(crate) fn declare_component_paths(&mut self) -> FrontResult<()> {
        self.check_type_definitions()?;
        for i in 0..self.units.len() {
            let mut new = Vec::new();
            for s in &self.units[i].symbols {
                if s.parameter || s.pointer || s.component.is_some() {
                    continue;
                }
                if self.cat_of(i, &s.ty) == Cat::Complex(8) {
                    // `type(active_c)` cannot be in common (no `sequence`):
                    // complex data in common blocks stays passive.
                    if s.common.is_none() {
                        new.extend(complex_part_paths(s));
                    }
                    continue;
                }
                let BaseType::Derived(t) = &s.ty.base else {
                    continue;
                };
                if s.parameter || s.pointer || s.component.is_some() {
                    continue;
                }
                let mut parts = vec![(s.name.clone(), s.rank())];
                let dims = s.dims.clone().unwrap_or_default();
                self.component_paths(t, &mut parts, dims, s, 0, &mut new)?;
            }
            for sym in new {
                if self.units[i].lookup_local(&sym.name).is_none() {
                    self.units[i].add_symbol(sym);
                }
            }
        }
        Ok(())
    }

    /// Declares the component paths of variable `k` of unit `i` (a
    /// temporary made after `declare_component_paths`).
    pub(crate) fn declare_paths_of(&mut self, i: usize, k: usize) -> FrontResult<()> {
        let s = self.units[i].symbols[k].clone();
        let BaseType::Derived(t) = &s.ty.base else {
            return Ok(());
        };
        let mut parts = vec![(s.name.clone(), s.rank())];
        let mut new = Vec::new();
        let dims = s.dims.clone().unwrap_or_default();
        self.component_paths(t, &mut parts, dims, &s, 0, &mut new)?;
        for sym in new {
            if self.units[i].lookup_local(&sym.name).is_none() {
                self.units[i].add_symbol(sym);
            }
        }
        Ok(())
    }

    fn component_paths(
        &self,
        type_name: &str,
        parts: &mut Vec<(String, usize)>,
        dims: Vec<DimSpec>,
        base: &Symbol,
        depth: usize,
        out: &mut Vec<Symbol>,
    ) -> FrontResult<()> {
        let Some((tu, comps)) = self.derived_type(type_name) else {
            return Ok(());
        };
        if depth > 8 {
            return Ok(());
        }
        for c in comps {
            if c.pointer {
                continue;
            }
            let mut d = dims.clone();
            d.extend(c.dims.clone().unwrap_or_default());
            match &c.ty.base {
                BaseType::Derived(t2) => {
                    if c.allocatable {
                        continue;
                    }
                    parts.push((c.name.clone(), c.rank()));
                    self.component_paths(t2, parts, d, base, depth + 1, out)?;
                    parts.pop();
                }
                _ if self.cat_of(tu, &c.ty).is_real() => {
                    // An allocatable component of an array element has a
                    // shape of its own per element: not one array.
                    if c.allocatable && parts.iter().any(|p| p.1 > 0) {
                        continue;
                    }
                    parts.push((c.name.clone(), 0));
                    let mut sym = Symbol::new(&path_name(parts), c.ty.clone(), base.span);
                    sym.explicit_type = true;
                    sym.dims = (!d.is_empty()).then_some(d);
                    sym.allocatable = c.allocatable;
                    sym.target = base.target;
                    sym.component = Some(ComponentPath {
                        type_name: type_name.to_string(),
                        leaf: c.name.clone(),
                        parts: parts.clone(),
                    });
                    parts.pop();
                    out.push(sym);
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Type names must be unique (components are looked up by type name).
    /// (Type-bound procedures are gone by now: `type_bound.rs`.)
    fn check_type_definitions(&self) -> FrontResult<()> {
        let mut seen = std::collections::HashSet::new();
        for unit in &self.units {
            for s in &unit.ast.spec {
                let SpecStmt::DerivedType { name, span, .. } = s else {
                    continue;
                };
                if !seen.insert(name.clone()) {
                    return Err(FrontError::unsupported(
                        *span,
                        format!("unsupported construct: derived type '{name}' is defined twice (types are told apart by name)"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The pseudo-variable a name with a component path denotes in unit
    /// `i`: the base resolves as usual, the path is looked up in the unit
    /// owning the base.
    pub(crate) fn resolve_component_path(&self, i: usize, name: &str) -> Option<(usize, usize)> {
        let cut = name.find(['%', '('])?;
        let (owner, sym) = self.var(i, &name[..cut])?;
        let full = format!("{}{}", self.symbol(owner, sym).name, &name[cut..]);
        let k = self.units[owner].lookup_local(&full)?;
        Some((owner, k))
    }
}

/// The type name of the component paths of `complex(8)` variables: a
/// Fortran type cannot be called `complex`, so it never clashes with a
/// derived type.
pub const COMPLEX_TYPE: &str = "complex";

/// The two real parts of a `complex(8)` variable as component paths
/// `z%re`, `z%im` (`z(1)%re` for an array: the part designators of
/// Fortran 2008), docs/xaif.md "Active complex data".
pub(crate) fn complex_part_paths(base: &Symbol) -> Vec<Symbol> {
    ["re", "im"]
        .iter()
        .map(|leaf| {
            let parts = vec![(base.name.clone(), base.rank()), (leaf.to_string(), 0)];
            let ty = TypeSpec {
                kind: Some(Expr::int(8, base.span)),
                ..TypeSpec::new(BaseType::Real)
            };
            let mut sym = Symbol::new(&path_name(&parts), ty, base.span);
            sym.explicit_type = true;
            sym.dims = base.dims.clone();
            sym.allocatable = base.allocatable;
            sym.target = base.target;
            sym.component = Some(ComponentPath {
                type_name: COMPLEX_TYPE.to_string(),
                leaf: leaf.to_string(),
                parts,
            });
            sym
        })
        .collect()
}

/// Rewrites the real component references of a statement list into
/// component-path references (module comment).
pub fn rewrite_members(prog: &Program, unit: usize, stmts: &mut [Stmt]) -> FrontResult<()> {
    for s in stmts {
        match &mut s.kind {
            StmtKind::Assign { lhs, rhs } => {
                rewrite_expr(prog, unit, lhs)?;
                rewrite_expr(prog, unit, rhs)?;
            }
            StmtKind::Call { args, .. } => {
                for a in args {
                    rewrite_expr(prog, unit, &mut a.value)?;
                }
            }
            StmtKind::If { arms, otherwise } => {
                for (c, b) in arms {
                    rewrite_expr(prog, unit, c)?;
                    rewrite_members(prog, unit, b)?;
                }
                if let Some(b) = otherwise {
                    rewrite_members(prog, unit, b)?;
                }
            }
            StmtKind::Do { control, body, .. } => {
                if let Some(c) = control {
                    rewrite_expr(prog, unit, &mut c.lo)?;
                    rewrite_expr(prog, unit, &mut c.hi)?;
                    if let Some(st) = &mut c.step {
                        rewrite_expr(prog, unit, st)?;
                    }
                }
                rewrite_members(prog, unit, body)?;
            }
            StmtKind::DoWhile { cond, body, .. } => {
                rewrite_expr(prog, unit, cond)?;
                rewrite_members(prog, unit, body)?;
            }
            StmtKind::Select { selector, cases } => {
                rewrite_expr(prog, unit, selector)?;
                for c in cases {
                    if let Some(vs) = &mut c.values {
                        for v in vs {
                            rewrite_expr(prog, unit, v)?;
                        }
                    }
                    rewrite_members(prog, unit, &mut c.body)?;
                }
            }
            StmtKind::Where { arms } => {
                for (m, b) in arms {
                    if let Some(m) = m {
                        rewrite_expr(prog, unit, m)?;
                    }
                    rewrite_members(prog, unit, b)?;
                }
            }
            StmtKind::Forall {
                controls,
                mask,
                body,
            } => {
                for c in controls {
                    rewrite_expr(prog, unit, &mut c.lo)?;
                    rewrite_expr(prog, unit, &mut c.hi)?;
                    if let Some(step) = c.step.as_mut() {
                        rewrite_expr(prog, unit, step)?;
                    }
                }
                if let Some(m) = mask {
                    rewrite_expr(prog, unit, m)?;
                }
                rewrite_members(prog, unit, body)?;
            }
            StmtKind::Opaque { reads, writes, .. } => {
                for e in reads.iter_mut().chain(writes.iter_mut()) {
                    rewrite_expr(prog, unit, e)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Rewrites one expression, children first.
pub fn rewrite_expr(prog: &Program, unit: usize, e: &mut Expr) -> FrontResult<()> {
    match e {
        Expr::Lit(..) | Expr::Name(..) => {}
        Expr::Apply { args, .. } => {
            for a in args {
                rewrite_expr(prog, unit, &mut a.value)?;
            }
        }
        Expr::Member { .. } => {
            if let Some(r) = member_as_path(prog, unit, e)? {
                *e = r;
            } else if let Expr::Member { base, args, .. } = e {
                rewrite_subscripts_only(prog, unit, base)?;
                for a in args.iter_mut().flatten() {
                    rewrite_expr(prog, unit, &mut a.value)?;
                }
            }
        }
        Expr::Unary(_, x, _) | Expr::Paren(x, _) => rewrite_expr(prog, unit, x)?,
        Expr::Binary(_, l, r, _) => {
            rewrite_expr(prog, unit, l)?;
            rewrite_expr(prog, unit, r)?;
        }
        Expr::Range { lo, hi, stride, .. } => {
            for x in [lo, hi, stride].into_iter().flatten() {
                rewrite_expr(prog, unit, x)?;
            }
        }
        Expr::ArrayCtor(items, _) => {
            for x in items {
                rewrite_expr(prog, unit, x)?;
            }
        }
        Expr::ImpliedDo { items, control, .. } => {
            for x in items {
                rewrite_expr(prog, unit, x)?;
            }
            rewrite_expr(prog, unit, &mut control.lo)?;
            rewrite_expr(prog, unit, &mut control.hi)?;
            if let Some(step) = control.step.as_mut() {
                rewrite_expr(prog, unit, step)?;
            }
        }
    }
    Ok(())
}

/// The subscripts inside a passive component chain (`s%n(a%k)`).
fn rewrite_subscripts_only(prog: &Program, unit: usize, e: &mut Expr) -> FrontResult<()> {
    match e {
        Expr::Apply { args, .. } => {
            for a in args {
                rewrite_expr(prog, unit, &mut a.value)?;
            }
        }
        Expr::Member { base, args, .. } => {
            rewrite_subscripts_only(prog, unit, base)?;
            for a in args.iter_mut().flatten() {
                rewrite_expr(prog, unit, &mut a.value)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// The chain of a component reference from its base: names with their
/// subscript lists.
fn chain(e: &Expr, out: &mut Vec<(String, Option<Vec<Arg>>, Span)>) -> bool {
    match e {
        Expr::Name(n, s) => {
            out.push((n.clone(), None, *s));
            true
        }
        Expr::Apply { name, args, span } => {
            out.push((name.clone(), Some(args.clone()), *span));
            true
        }
        Expr::Member {
            base,
            field,
            args,
            span,
        } => {
            if !chain(base, out) {
                return false;
            }
            out.push((field.clone(), args.clone(), *span));
            true
        }
        _ => false,
    }
}

/// A component reference with a real leaf as a component-path reference;
/// `None` when the leaf is not real (the reference stays passive).
fn member_as_path(prog: &Program, unit: usize, e: &Expr) -> FrontResult<Option<Expr>> {
    let mut parts = Vec::new();
    if !chain(e, &mut parts) {
        return Ok(None);
    }
    let Some((owner, sym)) = prog.var(unit, &parts[0].0) else {
        return Ok(None);
    };
    let base = prog.symbol(owner, sym);
    let BaseType::Derived(mut ty) = base.ty.base.clone() else {
        return Ok(None);
    };
    let mut ranks = vec![base.rank()];
    for (k, (field, _, span)) in parts.iter().enumerate().skip(1) {
        let Some((tu, comps)) = prog.derived_type(&ty) else {
            return Ok(None);
        };
        let Some(c) = comps.iter().find(|c| c.name == *field) else {
            return Err(FrontError::new(
                *span,
                format!("'{field}' is not a component of type '{ty}'"),
            ));
        };
        ranks.push(c.rank());
        match &c.ty.base {
            BaseType::Derived(t2) if k + 1 < parts.len() => ty = t2.clone(),
            _ if k + 1 == parts.len() && prog.cat_of(tu, &c.ty).is_real() => {
                if c.pointer {
                    return Ok(None);
                }
            }
            _ => return Ok(None),
        }
    }
    let named: Vec<(String, usize)> = parts
        .iter()
        .zip(&ranks)
        .map(|((n, _, _), r)| (n.clone(), *r))
        .collect();
    let name = path_name(&named);
    let span = e.span();
    if prog.resolve_component_path(unit, &name).is_none() {
        return Err(FrontError::unsupported(
            span,
            "unsupported construct: a real component that is allocatable inside an array of derived types, or a pointer, in the numerical core",
        ));
    }
    if parts.iter().all(|p| p.1.is_none()) {
        return Ok(Some(Expr::Name(name, span)));
    }
    let mut args = Vec::new();
    for ((field, sub, sp), rank) in parts.into_iter().zip(ranks) {
        match sub {
            Some(a) => {
                if a.len() != rank {
                    return Err(FrontError::new(
                        sp,
                        format!("'{field}' has rank {rank} but {} subscripts", a.len()),
                    ));
                }
                for mut x in a {
                    rewrite_expr(prog, unit, &mut x.value)?;
                    args.push(x);
                }
            }
            None => {
                for _ in 0..rank {
                    args.push(Arg {
                        keyword: None,
                        value: Expr::Range {
                            lo: None,
                            hi: None,
                            stride: None,
                            span: sp,
                        },
                    });
                }
            }
        }
    }
    Ok(Some(Expr::Apply { name, args, span }))
}
