//! Derived-type values with real components: whole and sub-object
//! assignment (`a = b`, `s%grid = g`, `cells(i) = cells(i - 1)`) and
//! function results (`s = init_state(n)`, `s%grid = make_grid(...)`).
//!
//! The assignment itself stays an opaque statement (it copies everything,
//! reallocating allocatable components, and takes integer and character
//! components along), followed by an assignment of every real component
//! reachable from the target through nested types (`s%grid%dx =
//! g%dx`, `cells(i)%h(:) = cells(i - 1)%h(:)`, scalarised like any
//! component-path assignment), so that the derivatives are copied in the
//! tangent and the adjoints moved back in the reverse sweep. A function
//! returning a derived type is called like any user function (`calls.rs`):
//! as a subroutine whose last argument is a temporary of the result type,
//! which then is assigned as a variable. The booster sees only real
//! assignments and calls.

use crate::ast::*;
use crate::components;
use crate::sema::{Binding, Ty};

use super::Canon;

impl Canon<'_> {
    /// The declared type of a derived-type designator (variable, element,
    /// section, component) or of a function reference's result.
    fn derived_spec(&self, e: &Expr) -> Option<TypeSpec> {
        let ts = match e {
            Expr::Name(n, _) | Expr::Apply { name: n, .. } => {
                match self.prog.resolve(self.unit, n)? {
                    Binding::Var { owner, sym } => self.prog.symbol(owner, sym).ty.clone(),
                    Binding::Proc(p) => {
                        let u = &self.prog.units[p];
                        let r = u.ast.result.clone().unwrap_or_else(|| u.ast.name.clone());
                        u.symbols[u.lookup_local(&r)?].ty.clone()
                    }
                    _ => return None,
                }
            }
            Expr::Member { .. } => self.prog.member_type(self.unit, e)?.0,
            Expr::Paren(x, _) => return self.derived_spec(x),
            _ => return None,
        };
        matches!(ts.base, BaseType::Derived(_)).then_some(ts)
    }

    /// Whether `e` is a variable or a part of one (not an expression).
    fn is_designator(&self, e: &Expr) -> bool {
        match e {
            Expr::Name(n, _) | Expr::Apply { name: n, .. } => {
                matches!(self.prog.resolve(self.unit, n), Some(Binding::Var { .. }))
            }
            Expr::Member { base, .. } => self.is_designator(base),
            _ => false,
        }
    }

    /// Assignment of a value of a derived type with real components (module
    /// comment).
    pub(super) fn derived_assign(
        &mut self,
        lhs: Expr,
        rhs: Expr,
        lt: Ty,
        paths: Vec<String>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        let mut rhs = rhs;
        while let Expr::Paren(x, _) = rhs {
            rhs = *x;
        }
        // A function result: the call goes first, into a temporary.
        if let Expr::Apply { name, .. } = &rhs {
            if matches!(self.prog.resolve(self.unit, name), Some(Binding::Proc(_))) {
                rhs = self.value(rhs, out)?;
            }
        }
        let (Some(lts), Some(rts)) = (self.derived_spec(&lhs), self.derived_spec(&rhs)) else {
            return self.err_unsupported(
                span,
                "unsupported construct: assignment of a derived-type value with real components from an expression other than a variable, a part of one, a function reference or a structure constructor (a defined operation, an array constructor other than of structure constructors)",
            );
        };
        if !self.is_designator(&lhs) || !self.is_designator(&rhs) {
            return self.err_unsupported(
                span,
                "unsupported construct: assignment of a derived-type value with real components from an expression other than a variable, a part of one, a function reference or a structure constructor (a defined operation, an array constructor other than of structure constructors)",
            );
        }
        let rt = self.ty(&rhs);
        if lts.base != rts.base || lt.rank != rt.rank {
            return self.err_unsupported(
                span,
                "unsupported construct: assignment of a derived-type value with real components between values of different types or shapes",
            );
        }
        // The opaque copy runs before the component copies, which would
        // read the elements it has just overwritten.
        if lt.rank > 0 && root_name(&lhs) == root_name(&rhs) && lhs != rhs {
            return self.err_unsupported(
                span,
                "unsupported construct: assignment between sections of the same array of derived types with real components (they may overlap: copy through another variable, or element by element in a loop)",
            );
        }
        if let (Expr::Name(l, _), Expr::Name(r, _)) = (&lhs, &rhs) {
            // Whole variables: their component paths by name.
            let (l, r) = (l.clone(), r.clone());
            self.derived_copy(lhs, rhs, lt, span, out)?;
            for p in paths {
                let target = Expr::Name(format!("{l}{p}"), span);
                let source = Expr::Name(format!("{r}{p}"), span);
                self.assign(target, source, span, out)?;
            }
            return Ok(());
        }
        let BaseType::Derived(type_name) = &lts.base else {
            unreachable!("derived_spec gives derived types")
        };
        let leaves = self.prog.real_leaves(type_name);
        self.derived_copy(lhs.clone(), rhs.clone(), lt, span, out)?;
        for leaf in leaves {
            let chain = leaf.chain;
            let mut target = lhs.clone();
            let mut source = rhs.clone();
            for field in chain {
                target = member(target, &field, span);
                source = member(source, &field, span);
            }
            components::rewrite_expr(self.prog, self.unit, &mut target)?;
            components::rewrite_expr(self.prog, self.unit, &mut source)?;
            self.assign(target, source, span, out)?;
        }
        Ok(())
    }

    /// The opaque copy of the whole value, marked as one
    /// (`OpaqueKind::DerivedCopy`: joint mode keeps the target's
    /// derivatives across it, docs/xaif.md "Derived types").
    fn derived_copy(
        &mut self,
        lhs: Expr,
        rhs: Expr,
        lt: Ty,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        let first = out.len();
        self.passive_assign(lhs, rhs, lt, span, out)?;
        for s in &mut out[first..] {
            if let StmtKind::Opaque { kind, .. } = &mut s.kind {
                *kind = OpaqueKind::DerivedCopy;
            }
        }
        Ok(())
    }

    /// A temporary of derived type `ts` (a function result), with the
    /// component paths of its real components.
    pub(super) fn derived_temp(&mut self, ts: TypeSpec, span: Span) -> FrontResult<String> {
        let unit = &mut self.prog.units[self.unit];
        let n = unit.fresh_name("oad_t", &mut self.temps);
        let mut sym = crate::sema::Symbol::new(&n, ts, span);
        sym.explicit_type = true;
        sym.temp = true;
        unit.add_symbol(sym);
        let k = unit.lookup_local(&n).expect("temp just added");
        self.prog.declare_paths_of(self.unit, k)?;
        Ok(n)
    }
}

/// The variable a designator belongs to.
fn root_name(e: &Expr) -> Option<&str> {
    match e {
        Expr::Name(n, _) | Expr::Apply { name: n, .. } => Some(n),
        Expr::Member { base, .. } => root_name(base),
        _ => None,
    }
}

fn member(base: Expr, field: &str, span: Span) -> Expr {
    Expr::Member {
        base: Box::new(base),
        field: field.to_string(),
        args: None,
        span,
    }
}
