//! Values of the intrinsics, written from their mathematical definitions
//! (never from the booster's catalogue, whose partials the tests check
//! against these). Both the catalogue's names (`sin_scal`) and the
//! reference catalogue's short names (`sin`) are known.

/// The value of intrinsic `name` at `a`, or `None` for a name or arity
/// this table does not know.
pub fn value(name: &str, a: &[f64]) -> Option<f64> {
    let sgn = |v: f64| if v >= 0.0 { 1.0 } else { -1.0 };
    Some(match (name, a) {
        ("add_scal_scal", [x, y]) => x + y,
        ("sub_scal_scal", [x, y]) => x - y,
        ("mul_scal_scal", [x, y]) => x * y,
        ("div_scal_scal", [x, y]) => x / y,
        ("minus_scal", [x]) => -x,
        ("pow_scal_scal" | "pow", [x, y]) => {
            if y.fract() == 0.0 && y.abs() < 1e9 {
                x.powi(*y as i32)
            } else {
                x.powf(*y)
            }
        }
        ("sqr_scal", [x]) => x * x,
        ("sin_scal" | "sin", [x]) => x.sin(),
        ("cos_scal" | "cos", [x]) => x.cos(),
        ("tan_scal" | "tan", [x]) => x.tan(),
        ("arcsin_scal" | "asin", [x]) => x.asin(),
        ("arccos_scal" | "acos", [x]) => x.acos(),
        ("arctan_scal" | "atan", [x]) => x.atan(),
        ("arctan2_scal_scal" | "atan2", [x, y]) => x.atan2(*y),
        ("sinh_scal" | "sinh", [x]) => x.sinh(),
        ("cosh_scal" | "cosh", [x]) => x.cosh(),
        ("tanh_scal" | "tanh", [x]) => x.tanh(),
        ("erf_scal" | "erf", [x]) => libm::erf(*x),
        ("erfc_scal" | "erfc", [x]) => libm::erfc(*x),
        ("exp_scal" | "exp", [x]) => x.exp(),
        ("ln_scal" | "log", [x]) => x.ln(),
        ("log10_scal" | "log10", [x]) => x.log10(),
        ("sqrt_scal" | "sqrt", [x]) => x.sqrt(),
        ("abs_scal" | "abs", [x]) => x.abs(),
        ("sign_scal_scal" | "sign", [x, y]) => x.abs() * sgn(*y),
        ("min_scal_scal" | "min", [x, y]) => {
            if x <= y {
                *x
            } else {
                *y
            }
        }
        ("max_scal_scal" | "max", [x, y]) => {
            if x >= y {
                *x
            } else {
                *y
            }
        }
        ("mod_scal_scal" | "mod", [x, y]) => x - (x / y).trunc() * y,
        ("dim_scal_scal" | "dim", [x, y]) => (x - y).max(0.0),
        ("modulo_scal_scal" | "modulo", [x, y]) => x - (x / y).floor() * y,
        ("hypot_scal_scal" | "hypot", [x, y]) => x.hypot(*y),
        ("int_scal" | "aint_scal" | "int" | "aint", [x]) => x.trunc(),
        ("nint_scal" | "anint_scal" | "nint" | "anint", [x]) => x.round(),
        ("floor_scal" | "floor", [x]) => x.floor(),
        ("ceiling_scal" | "ceiling", [x]) => x.ceil(),
        ("real_scal" | "real" | "dble", [x]) => *x,
        _ => return None,
    })
}

/// The value of intrinsic `name` at `a`; panics on an unknown name (the
/// message starts with `unsupported:` so whole-document checks can tell
/// it from a wrong result).
pub fn apply(name: &str, a: &[f64]) -> f64 {
    value(name, a)
        .unwrap_or_else(|| crate::not_interpretable!("intrinsic not known: {name}/{}", a.len()))
}
