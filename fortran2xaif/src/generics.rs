//! Generic interfaces (`interface name` with `module procedure` lists or
//! interface bodies): which specific procedures a generic name stands for
//! where it is referenced, and which of them a reference calls, by the
//! type, kind and rank of its actual arguments (Fortran's rule: exactly
//! one specific may match).

use crate::ast::*;
use crate::sema::{Cat, Program};

/// A generic interface is nested at most this deep in `use` chains.
const MAX_USE_DEPTH: usize = 20;

impl Program {
    /// The specific procedures (unit indices) of the generic `name` as
    /// seen from unit `i`: its own interfaces, those of its hosts and of
    /// the modules they use (renames and `only` lists applied). Interfaces
    /// of one generic name from several places extend each other.
    pub fn generic_specifics(&self, i: usize, name: &str) -> Option<Vec<usize>> {
        let mut found = Vec::new();
        let mut u = Some(i);
        while let Some(k) = u {
            self.generic_in_unit(k, name, 0, &mut found);
            u = self.units[k].parent;
        }
        found.sort_unstable();
        found.dedup();
        (!found.is_empty()).then_some(found)
    }

    /// Adds the specifics of generic `name` declared in unit `k` or
    /// reached through its `use` statements.
    fn generic_in_unit(&self, k: usize, name: &str, depth: usize, found: &mut Vec<usize>) {
        if depth > MAX_USE_DEPTH {
            return;
        }
        for s in &self.units[k].ast.spec {
            match s {
                SpecStmt::Interface {
                    generic: Some(g),
                    bodies,
                    procedures,
                    ..
                } if g == name => {
                    for p in procedures {
                        found.extend(self.proc_named(k, p));
                    }
                    for b in bodies {
                        found.extend(self.proc_named(k, &b.name));
                    }
                }
                SpecStmt::Use {
                    module,
                    only,
                    items,
                    ..
                } => {
                    let Some(&m) = self.globals.get(module) else {
                        continue;
                    };
                    let remote = match items.iter().find(|(l, _)| l == name) {
                        Some((_, r)) => r.clone(),
                        None if *only => continue,
                        None if items.iter().any(|(l, r)| r == name && l != name) => continue,
                        None => name.to_string(),
                    };
                    let module = &self.units[m];
                    let private = module
                        .lookup_local(&remote)
                        .is_some_and(|s| module.symbols[s].access == Some(false));
                    if !private {
                        self.generic_in_unit(m, &remote, depth + 1, found);
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether symbol `k` of unit `i` only names a generic (it comes from
    /// an access statement such as `public :: norm`): not a variable.
    pub fn is_generic_name_symbol(&self, i: usize, k: usize) -> bool {
        let s = &self.units[i].symbols[k];
        !s.explicit_type && self.generic_specifics(i, &s.name).is_some()
    }

    /// The specific of `specifics` that a reference with actual arguments
    /// `args` in unit `i` calls; an error message when none or several
    /// match.
    pub fn specific_for(
        &self,
        i: usize,
        generic: &str,
        specifics: &[usize],
        args: &[Arg],
    ) -> Result<usize, GenericMismatch> {
        let matching: Vec<usize> = specifics
            .iter()
            .copied()
            .filter(|&p| self.arguments_match(i, p, args))
            .collect();
        match matching.as_slice() {
            [one] => Ok(*one),
            [] => Err(GenericMismatch::None {
                generic: generic.to_string(),
                specifics: self.names_of(specifics),
                arguments: args
                    .iter()
                    .map(|a| describe(self.type_of(i, &a.value)))
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
            several => Err(GenericMismatch::Several {
                generic: generic.to_string(),
                specifics: self.names_of(several),
            }),
        }
    }

    fn names_of(&self, units: &[usize]) -> String {
        units
            .iter()
            .map(|&p| self.units[p].ast.name.clone())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Do `args` fit the dummies of `p` (type, kind and rank; every
    /// non-optional dummy given; keywords by name)?
    fn arguments_match(&self, i: usize, p: usize, args: &[Arg]) -> bool {
        let unit = &self.units[p];
        let result = (unit.ast.kind == UnitKind::Function).then(|| {
            unit.ast
                .result
                .clone()
                .unwrap_or_else(|| unit.ast.name.clone())
        });
        let dummies: Vec<&str> = unit
            .ast
            .params
            .iter()
            .map(String::as_str)
            .filter(|d| Some(*d) != result.as_deref())
            .collect();
        let mut given = vec![false; dummies.len()];
        for (k, a) in args.iter().enumerate() {
            let position = match &a.keyword {
                Some(kw) => dummies.iter().position(|d| d == kw),
                None => (k < dummies.len()).then_some(k),
            };
            let Some(position) = position else {
                return false;
            };
            if given[position] {
                return false;
            }
            given[position] = true;
            let Some(s) = unit.lookup_local(dummies[position]) else {
                return false;
            };
            let dummy = &unit.symbols[s];
            let actual = self.type_of(i, &a.value);
            let dummy_cat = self.cat_of(p, &dummy.ty);
            if actual.cat != dummy_cat || actual.rank != dummy.rank() {
                return false;
            }
            // Derived types: the same type name.
            if let (BaseType::Derived(want), Some(have)) =
                (&dummy.ty.base, self.derived_type_name(i, &a.value))
            {
                if *want != have {
                    return false;
                }
            }
        }
        dummies.iter().zip(&given).all(|(d, g)| {
            *g || unit
                .lookup_local(d)
                .is_some_and(|s| unit.symbols[s].optional)
        })
    }

    /// The derived type of a variable (or its element) used as an actual.
    fn derived_type_name(&self, i: usize, e: &Expr) -> Option<String> {
        let name = match e {
            Expr::Name(n, _) | Expr::Apply { name: n, .. } => n,
            _ => return None,
        };
        let (owner, sym) = self.var(i, name)?;
        match &self.symbol(owner, sym).ty.base {
            BaseType::Derived(t) => Some(t.clone()),
            _ => None,
        }
    }
}

fn describe(t: crate::sema::Ty) -> String {
    let base = match t.cat {
        Cat::Int => "integer".to_string(),
        Cat::Real(k) => format!("real({k})"),
        Cat::Complex(k) => format!("complex({k})"),
        Cat::Logical => "logical".to_string(),
        Cat::Char => "character".to_string(),
        Cat::Derived => "a derived type".to_string(),
        Cat::Unknown => "unknown".to_string(),
    };
    if t.rank > 0 {
        format!("{base} of rank {}", t.rank)
    } else {
        base
    }
}

/// Why a generic reference resolves to no single specific procedure (a
/// semantic error of the program, placed at the reference by the caller).
#[derive(Debug, thiserror::Error)]
pub enum GenericMismatch {
    #[error(
        "no specific procedure of generic '{generic}' ({specifics}) takes arguments ({arguments})"
    )]
    None {
        generic: String,
        specifics: String,
        arguments: String,
    },
    #[error(
        "the arguments match several specific procedures of generic '{generic}' ({specifics})"
    )]
    Several { generic: String, specifics: String },
}
