//! Fortran intrinsic procedures: which names are intrinsic, their result
//! types, and the catalogue names XAIF uses for them
//! (docs/ARCHITECTURE.md, "Intrinsic names").

use crate::ast::{Arg, Expr};
use crate::sema::{promote, Cat, Program, Ty};

/// Elemental intrinsics with a catalogue entry: Fortran name → XAIF name.
const CATALOGUE: &[(&str, &str)] = &[
    ("sin", "sin_scal"),
    ("dsin", "sin_scal"),
    ("cos", "cos_scal"),
    ("dcos", "cos_scal"),
    ("tan", "tan_scal"),
    ("dtan", "tan_scal"),
    ("asin", "arcsin_scal"),
    ("dasin", "arcsin_scal"),
    ("acos", "arccos_scal"),
    ("dacos", "arccos_scal"),
    ("atan", "arctan_scal"),
    ("datan", "arctan_scal"),
    ("atan2", "arctan2_scal_scal"),
    ("datan2", "arctan2_scal_scal"),
    ("sinh", "sinh_scal"),
    ("dsinh", "sinh_scal"),
    ("cosh", "cosh_scal"),
    ("dcosh", "cosh_scal"),
    ("tanh", "tanh_scal"),
    ("dtanh", "tanh_scal"),
    ("exp", "exp_scal"),
    ("dexp", "exp_scal"),
    ("log", "ln_scal"),
    ("alog", "ln_scal"),
    ("dlog", "ln_scal"),
    ("log10", "log10_scal"),
    ("alog10", "log10_scal"),
    ("dlog10", "log10_scal"),
    ("sqrt", "sqrt_scal"),
    ("dsqrt", "sqrt_scal"),
    ("abs", "abs_scal"),
    ("dabs", "abs_scal"),
    ("iabs", "abs_scal"),
    ("sign", "sign_scal_scal"),
    ("dsign", "sign_scal_scal"),
    ("isign", "sign_scal_scal"),
    ("min", "min_scal_scal"),
    ("amin1", "min_scal_scal"),
    ("dmin1", "min_scal_scal"),
    ("min0", "min_scal_scal"),
    ("max", "max_scal_scal"),
    ("amax1", "max_scal_scal"),
    ("dmax1", "max_scal_scal"),
    ("max0", "max_scal_scal"),
    ("mod", "mod_scal_scal"),
    ("amod", "mod_scal_scal"),
    ("dmod", "mod_scal_scal"),
    ("dim", "dim_scal_scal"),
    ("ddim", "dim_scal_scal"),
    ("idim", "dim_scal_scal"),
    ("modulo", "modulo_scal_scal"),
    ("hypot", "hypot_scal_scal"),
    ("erf", "erf_scal"),
    ("derf", "erf_scal"),
    ("erfc", "erfc_scal"),
    ("derfc", "erfc_scal"),
    ("int", "int_scal"),
    ("ifix", "int_scal"),
    ("idint", "int_scal"),
    ("nint", "nint_scal"),
    ("idnint", "nint_scal"),
    ("aint", "aint_scal"),
    ("dint", "aint_scal"),
    ("anint", "anint_scal"),
    ("dnint", "anint_scal"),
    ("floor", "floor_scal"),
    ("ceiling", "ceiling_scal"),
    ("real", "real_scal"),
    ("float", "real_scal"),
    ("sngl", "real_scal"),
    ("dble", "real_scal"),
    ("dfloat", "real_scal"),
    ("size", "size"),
    ("lbound", "lbound"),
    ("ubound", "ubound"),
];

/// Intrinsics that are known but have no catalogue entry: fine on
/// integer, logical and character data (the statement stays opaque),
/// rejected where a real value would flow through them.
const OTHER: &[&str] = &[
    "len",
    "len_trim",
    "trim",
    "adjustl",
    "adjustr",
    "index",
    "char",
    "ichar",
    "achar",
    "iachar",
    "repeat",
    "present",
    "allocated",
    "associated",
    "huge",
    "tiny",
    "epsilon",
    "kind",
    "selected_real_kind",
    "selected_int_kind",
    "cmplx",
    "dcmplx",
    "conjg",
    "aimag",
    "dimag",
    "dprod",
    "sum",
    "product",
    "dot_product",
    "matmul",
    "maxval",
    "minval",
    "transpose",
    "count",
    "any",
    "all",
    "merge",
    "norm2",
    "reshape",
    "spread",
    "maxloc",
    "minloc",
    "iand",
    "ior",
    "ieor",
    "not",
    "btest",
    "ibset",
    "ibclr",
    "ishft",
    "shape",
    "digits",
    "precision",
    "range",
    "radix",
    "maxexponent",
    "minexponent",
    "bit_size",
    "lge",
    "lgt",
    "lle",
    "llt",
    "scan",
    "verify",
    "logical",
    "null",
    "pack",
    "unpack",
    "cshift",
    "eoshift",
    "gamma",
    "log_gamma",
    "new_line",
    "storage_size",
    "transfer",
    "ibits",
    "ishftc",
    "popcnt",
    "poppar",
    "leadz",
    "trailz",
];

/// Intrinsics that read the bit pattern of their argument: no derivative
/// can flow through them, so they stay passive (with a warning when they
/// touch active data, `bit_intrinsics`).
pub const BIT_LEVEL: &[&str] = &[
    "transfer", "iand", "ior", "ieor", "not", "btest", "ibset", "ibclr", "ishft", "ibits",
    "ishftc", "popcnt", "poppar", "leadz", "trailz",
];

/// Array intrinsics the canonicaliser scalarises on real data.
pub const REDUCTIONS: &[&str] = &["sum", "product", "dot_product", "maxval", "minval"];

pub fn is_intrinsic(name: &str) -> bool {
    CATALOGUE.iter().any(|(f, _)| *f == name) || OTHER.contains(&name)
}

/// The XAIF catalogue name of an elemental intrinsic.
pub fn xaif_name(name: &str) -> Option<&'static str> {
    CATALOGUE.iter().find(|(f, _)| *f == name).map(|(_, x)| *x)
}

/// Result type of an intrinsic reference.
pub fn result_type(prog: &Program, unit: usize, name: &str, args: &[Arg], tys: &[Ty]) -> Ty {
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
pub fn is_intrinsic_ref(prog: &Program, unit: usize, e: &Expr) -> Option<String> {
    match e {
        Expr::Apply { name, .. } => match prog.resolve(unit, name) {
            None | Some(crate::sema::Binding::Intrinsic) if is_intrinsic(name) => {
                Some(name.clone())
            }
            _ => None,
        },
        _ => None,
    }
}
