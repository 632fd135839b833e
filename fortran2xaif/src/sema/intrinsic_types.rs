//! Result types of intrinsic references, and whether a reference names an
//! intrinsic at all (a local or use-associated name can shadow one). The
//! names themselves are `crate::intrinsics`' tables.

use super::{promote, Binding, Cat, Program, Ty};
use crate::ast::{Arg, Expr};
use crate::intrinsics::is_intrinsic;

impl Program {
    /// The result type of intrinsic `name` applied to `args` (of types
    /// `tys`) in unit `unit`.
    pub fn intrinsic_result_type(&self, unit: usize, name: &str, args: &[Arg], tys: &[Ty]) -> Ty {
        result_type(self, unit, name, args, tys)
    }

    /// The intrinsic's name if `e` references one (not shadowed) in `unit`.
    pub fn intrinsic_ref(&self, unit: usize, e: &Expr) -> Option<String> {
        is_intrinsic_ref(self, unit, e)
    }
}

/// Result type of an intrinsic reference.
fn result_type(prog: &Program, unit: usize, name: &str, args: &[Arg], tys: &[Ty]) -> Ty {
    let first = tys.first().copied().unwrap_or(Ty {
        cat: Cat::Unknown,
        rank: 0,
    });
    let elemental_rank = tys.iter().map(|t| t.rank).max().unwrap_or(0);
    let scalar = |cat| Ty { cat, rank: 0 };
    let elem = |cat| Ty {
        cat,
        rank: elemental_rank,
    };
    let kind_arg = || {
        args.iter()
            .find(|a| a.keyword.as_deref() == Some("kind"))
            .or_else(|| args.get(1))
            .and_then(|a| prog.const_int(unit, &a.value))
    };
    match name {
        "int" | "ifix" | "idint" | "nint" | "idnint" | "floor" | "ceiling" | "ichar" | "iachar"
        | "len" | "len_trim" | "index" | "iand" | "ior" | "ieor" | "ishft" | "ibset" | "ibclr"
        | "not" | "scan" | "verify" | "ibits" | "ishftc" | "popcnt" | "poppar" | "leadz"
        | "trailz" => elem(Cat::Int),
        // The type of the mold; an array with a size argument.
        "transfer" => Ty {
            cat: tys.get(1).map_or(Cat::Unknown, |t| t.cat),
            rank: if args.len() > 2 {
                1
            } else {
                tys.get(1).map_or(0, |t| t.rank)
            },
        },
        "size" | "lbound" | "ubound" | "count" | "kind" | "selected_real_kind"
        | "selected_int_kind" | "digits" | "precision" | "range" | "radix" | "maxexponent"
        | "minexponent" | "bit_size" | "storage_size" => {
            if (name == "lbound" || name == "ubound") && args.len() == 1 {
                Ty {
                    cat: Cat::Int,
                    rank: 1,
                }
            } else {
                scalar(Cat::Int)
            }
        }
        "maxloc" | "minloc" => {
            let has_dim = args.iter().any(|a| a.keyword.as_deref() == Some("dim"))
                || (args.len() > 1
                    && args[1].keyword.is_none()
                    && tys.get(1).is_some_and(|t| t.cat == Cat::Int));
            Ty {
                cat: Cat::Int,
                rank: if has_dim {
                    first.rank.saturating_sub(1)
                } else {
                    1
                },
            }
        }
        "shape" => Ty {
            cat: Cat::Int,
            rank: 1,
        },
        "real" if kind_arg().is_none() && args.len() == 1 => elem(match first.cat {
            Cat::Complex(k) => Cat::Real(k),
            _ => Cat::Real(4),
        }),
        "abs" | "cabs" if matches!(first.cat, Cat::Complex(_)) => elem(match first.cat {
            Cat::Complex(k) => Cat::Real(k),
            c => c,
        }),
        "real" | "float" | "sngl" => elem(Cat::Real(if name == "real" {
            kind_arg().unwrap_or(4) as u8
        } else {
            4
        })),
        "dble" | "dfloat" | "dprod" => elem(Cat::Real(8)),
        "cmplx" => elem(Cat::Complex(
            kind_arg().filter(|_| args.len() > 2).unwrap_or(4) as u8,
        )),
        "dcmplx" => elem(Cat::Complex(8)),
        "aimag" | "dimag" => elem(match first.cat {
            Cat::Complex(k) => Cat::Real(k),
            c => c,
        }),
        "present" | "allocated" | "associated" | "any" | "all" | "btest" | "lge" | "lgt"
        | "lle" | "llt" | "logical" => {
            if name == "btest" || name == "logical" {
                elem(Cat::Logical)
            } else {
                scalar(Cat::Logical)
            }
        }
        "trim" | "adjustl" | "adjustr" | "char" | "achar" | "repeat" | "new_line" => {
            scalar(Cat::Char)
        }
        "sign" | "dsign" | "isign" | "min" | "max" | "amin1" | "amax1" | "dmin1" | "dmax1"
        | "min0" | "max0" | "mod" | "amod" | "dmod" | "modulo" | "dim" | "atan2" | "datan2"
        | "hypot" => {
            let cat = tys.iter().skip(1).fold(first.cat, |a, t| promote(a, t.cat));
            elem(if name.starts_with("amin") || name.starts_with("amax") {
                Cat::Real(4)
            } else {
                cat
            })
        }
        "sum" | "product" | "maxval" | "minval" => {
            if args.len() > 1 && args[1].keyword.as_deref() != Some("mask") {
                Ty {
                    cat: first.cat,
                    rank: first.rank.saturating_sub(1),
                }
            } else {
                scalar(first.cat)
            }
        }
        "dot_product" => scalar(promote(
            first.cat,
            tys.get(1).map_or(Cat::Unknown, |t| t.cat),
        )),
        "matmul" => {
            let b = tys.get(1).copied().unwrap_or(first);
            let rank = if first.rank == 2 && b.rank == 2 { 2 } else { 1 };
            Ty {
                cat: promote(first.cat, b.cat),
                rank,
            }
        }
        "transpose" => Ty {
            cat: first.cat,
            rank: 2,
        },
        "spread" => Ty {
            cat: first.cat,
            rank: first.rank + 1,
        },
        "pack" => Ty {
            cat: first.cat,
            rank: 1,
        },
        "reshape" => Ty {
            cat: first.cat,
            rank: match args.get(1).map(|a| &a.value) {
                Some(Expr::ArrayCtor(items, _)) => items.len(),
                _ => first.rank.max(1),
            },
        },
        "unpack" | "cshift" | "eoshift" => Ty {
            cat: first.cat,
            rank: first.rank.max(1),
        },
        "merge" => elem(first.cat),
        "norm2" => Ty {
            cat: first.cat,
            rank: if args.len() > 1 {
                first.rank.saturating_sub(1)
            } else {
                0
            },
        },
        "null" => scalar(Cat::Unknown),
        _ => elem(first.cat),
    }
}

/// Does the expression reference an intrinsic by this name (not shadowed)?
fn is_intrinsic_ref(prog: &Program, unit: usize, e: &Expr) -> Option<String> {
    match e {
        Expr::Apply { name, .. } => match prog.resolve(unit, name) {
            None | Some(Binding::Intrinsic) if is_intrinsic(name) => Some(name.clone()),
            _ => None,
        },
        _ => None,
    }
}
