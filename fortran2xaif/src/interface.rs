//! The top-level routine as a driver calls it (`--interface P.iface`):
//! its dummy arguments in order with type, extents and role, and the
//! module variables among the seeds. `openad check` writes its drivers
//! from this, so that no later tool reads Fortran (format in
//! `xaif_schema::driver_interface`).

use xaif_schema::driver_interface::{Bounds, DriverInterface, InterfaceVariable, Role};

use crate::analysis::ir::{LocationId, Seeds};
use crate::ast::{BaseType, DimSpec, UnitKind};
use crate::lower::Lowered;
use crate::sema::{Cat, Program, Symbol};

/// The interface of the top-level routine `top` (front-end unit index).
pub fn describe(prog: &Program, lowered: &Lowered, top: usize, seeds: &Seeds) -> DriverInterface {
    let role_of = |l: Option<&LocationId>| match l {
        Some(l) => Role::from_flags(seeds.independents.contains(l), seeds.dependents.contains(l)),
        None => Role::Passive,
    };
    let unit = &prog.units[top];
    let module = unit
        .parent
        .filter(|&p| prog.units[p].ast.kind == UnitKind::Module)
        .map(|p| prog.units[p].ast.name.clone());
    let mut seen: Vec<LocationId> = Vec::new();
    let mut arguments = Vec::new();
    for param in &unit.ast.params {
        let Some(sym) = unit.lookup_local(param) else {
            continue;
        };
        let l = lowered.locs.get(&(top, sym));
        seen.extend(l);
        arguments.push(variable(prog, top, sym, None, role_of(l)));
    }
    // Module variables among the seeds, in the order of their modules.
    let mut globals = Vec::new();
    for (m, u) in prog.units.iter().enumerate() {
        if u.ast.kind != UnitKind::Module {
            continue;
        }
        for (s, symbol) in u.symbols.iter().enumerate() {
            if symbol.parameter || symbol.temp || symbol.component.is_some() {
                continue;
            }
            let Some(l) = lowered.locs.get(&(m, s)) else {
                continue;
            };
            let role = role_of(Some(l));
            if role != Role::Passive && !seen.contains(l) {
                seen.push(*l);
                globals.push(variable(prog, m, s, Some(u.ast.name.clone()), role));
            }
        }
    }
    DriverInterface {
        routine: unit.ast.name.clone(),
        module,
        arguments,
        globals,
    }
}

fn variable(
    prog: &Program,
    owner: usize,
    sym: usize,
    module: Option<String>,
    role: Role,
) -> InterfaceVariable {
    let s = prog.symbol(owner, sym);
    let type_name = type_name(prog, owner, s);
    let constant = |e: Option<&crate::ast::Expr>| match e {
        Some(e) => prog.const_int(owner, e),
        None => Some(1),
    };
    let dims: Vec<Bounds> = s
        .dims
        .iter()
        .flatten()
        .map(|d| match d {
            DimSpec::Explicit { lo, hi } if !s.allocatable && !s.pointer => {
                Some((constant(lo.as_ref())?, constant(Some(hi))?))
            }
            _ => None,
        })
        .collect();
    InterfaceVariable {
        name: s.name.clone(),
        module,
        type_name,
        role,
        dims,
    }
}

/// A symbol's type as Fortran writes it: `real(8)`, `integer`, `type(t)`.
pub fn type_name(prog: &Program, owner: usize, s: &Symbol) -> String {
    match (prog.cat_of(owner, &s.ty), &s.ty.base) {
        (Cat::Real(k), _) => format!("real({k})"),
        (Cat::Complex(k), _) => format!("complex({k})"),
        (Cat::Int, _) => "integer".to_string(),
        (Cat::Logical, _) => "logical".to_string(),
        (Cat::Char, _) => "character".to_string(),
        (_, BaseType::Derived(name)) => format!("type({name})"),
        _ => "unknown".to_string(),
    }
}
