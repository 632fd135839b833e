//! The built-in intrinsics catalogue: complete for the names of
//! docs/ARCHITECTURE.md, every partial equal to a finite difference of the
//! intrinsic (values computed by the test interpreter, independently of the
//! catalogue), and the documented choices at kinks.

use std::path::Path;
use std::process::Command;

use xaif_booster::catalogue::{partial_kind, Catalogue, PartialKind, BUILTIN_CATALOGUE};
use xaif_testkit::{apply_intrinsic, eval};

/// Every operator and intrinsic name of the architecture table.
const NAMES: &[&str] = &[
    "add_scal_scal",
    "sub_scal_scal",
    "mul_scal_scal",
    "div_scal_scal",
    "minus_scal",
    "pow_scal_scal",
    "sin_scal",
    "cos_scal",
    "tan_scal",
    "arcsin_scal",
    "arccos_scal",
    "arctan_scal",
    "arctan2_scal_scal",
    "sinh_scal",
    "cosh_scal",
    "tanh_scal",
    "exp_scal",
    "ln_scal",
    "log10_scal",
    "sqrt_scal",
    "abs_scal",
    "sign_scal_scal",
    "min_scal_scal",
    "max_scal_scal",
    "mod_scal_scal",
    "dim_scal_scal",
    "modulo_scal_scal",
    "hypot_scal_scal",
    "erf_scal",
    "erfc_scal",
    "int_scal",
    "nint_scal",
    "aint_scal",
    "anint_scal",
    "floor_scal",
    "ceiling_scal",
    "real_scal",
    "size",
    "lbound",
    "ubound",
];

const INQUIRY: &[&str] = &["size", "lbound", "ubound"];

fn catalogue() -> Catalogue {
    Catalogue::builtin().expect("built-in catalogue parses")
}

/// Partial `k` (from 1) of `name` at `args`.
fn partial_value(c: &Catalogue, name: &str, k: u64, args: &[f64]) -> f64 {
    match c.partial(name, k) {
        None => 0.0,
        Some(p) => match partial_kind(p) {
            PartialKind::Passive => 0.0,
            PartialKind::One => 1.0,
            PartialKind::MinusOne => -1.0,
            PartialKind::General => eval(&p.expression, &Default::default(), args),
        },
    }
}

#[test]
fn covers_every_name_of_the_architecture_table() {
    let c = catalogue();
    for name in NAMES {
        let entry = c.get(name).unwrap_or_else(|| panic!("{name} missing"));
        assert_eq!(
            entry.partials.len() as u64,
            entry.nr_arguments,
            "{name}: one partial per argument"
        );
    }
}

/// Sample points away from kinks and jumps, inside each domain.
fn sample_points(name: &str) -> Vec<Vec<f64>> {
    match name {
        "arcsin_scal" | "arccos_scal" => vec![vec![0.3], vec![-0.62]],
        "ln_scal" | "log10_scal" | "sqrt_scal" => vec![vec![0.3], vec![2.7]],
        "pow_scal_scal" => vec![vec![1.3, 2.2], vec![0.4, -1.7]],
        "mod_scal_scal" | "modulo_scal_scal" => vec![vec![2.5, 0.7], vec![-3.1, 1.3]],
        "dim_scal_scal" => vec![vec![0.3, 0.8], vec![0.9, -0.2]],
        "min_scal_scal" | "max_scal_scal" => vec![vec![0.3, 0.8], vec![0.9, -0.2]],
        "div_scal_scal" => vec![vec![0.3, 0.8], vec![-1.9, 0.45]],
        "arctan2_scal_scal" => vec![vec![0.3, -0.8], vec![-1.9, 0.45]],
        "sign_scal_scal" => vec![vec![0.3, -0.8], vec![-1.9, 0.45]],
        _ => vec![vec![0.3, 0.8], vec![-0.7, 1.45]],
    }
}

#[test]
fn partials_match_finite_differences() {
    let c = catalogue();
    for name in NAMES.iter().filter(|n| !INQUIRY.contains(n)) {
        let n = c.get(name).unwrap().nr_arguments as usize;
        for point in sample_points(name) {
            let args = &point[..n];
            for k in 0..n {
                let h = 1e-6 * args[k].abs().max(1.0);
                let mut plus = args.to_vec();
                let mut minus = args.to_vec();
                plus[k] += h;
                minus[k] -= h;
                let fd = (apply_intrinsic(name, &plus) - apply_intrinsic(name, &minus)) / (2.0 * h);
                let got = partial_value(&c, name, k as u64 + 1, args);
                assert!(
                    (got - fd).abs() <= 1e-7 * fd.abs().max(1.0),
                    "{name} partial {} at {args:?}: catalogue {got}, finite difference {fd}",
                    k + 1
                );
            }
        }
    }
}

#[test]
fn exact_partials_at_sample_points() {
    let c = catalogue();
    let (a, b): (f64, f64) = (1.3, 2.2);
    let cases: &[(&str, u64, &[f64], f64)] = &[
        ("pow_scal_scal", 1, &[a, b], b * a.powf(b - 1.0)),
        ("pow_scal_scal", 2, &[a, b], a.powf(b) * a.ln()),
        ("div_scal_scal", 2, &[a, b], -a / (b * b)),
        ("arctan2_scal_scal", 1, &[a, b], b / (a * a + b * b)),
        ("arctan2_scal_scal", 2, &[a, b], -a / (a * a + b * b)),
        ("mod_scal_scal", 2, &[7.5, 2.0], -3.0),
        // modulo(-7.5, 2) = 0.5 = -7.5 - floor(-3.75) * 2.
        ("modulo_scal_scal", 2, &[-7.5, 2.0], 4.0),
        ("modulo_scal_scal", 1, &[-7.5, 2.0], 1.0),
        ("dim_scal_scal", 1, &[a, b], 0.0),
        ("dim_scal_scal", 2, &[b, a], -1.0),
        ("hypot_scal_scal", 1, &[3.0, 4.0], 0.6),
        ("hypot_scal_scal", 2, &[3.0, 4.0], 0.8),
        // d/dx erf(x) = 2/sqrt(pi) exp(-x^2); erfc = 1 - erf.
        ("erf_scal", 1, &[0.0], 2.0 / std::f64::consts::PI.sqrt()),
        (
            "erf_scal",
            1,
            &[a],
            2.0 / std::f64::consts::PI.sqrt() * (-a * a).exp(),
        ),
        (
            "erfc_scal",
            1,
            &[a],
            -2.0 / std::f64::consts::PI.sqrt() * (-a * a).exp(),
        ),
        ("log10_scal", 1, &[a], 1.0 / (a * 10f64.ln())),
        ("tanh_scal", 1, &[a], 1.0 - a.tanh().powi(2)),
    ];
    for (name, k, args, want) in cases {
        let got = partial_value(&c, name, *k, args);
        assert!(
            (got - want).abs() <= 1e-12 * want.abs().max(1.0),
            "{name} {k}: {got} vs {want}"
        );
    }
}

#[test]
fn choices_at_kinks() {
    let c = catalogue();
    // abs at 0: derivative of sign(1, x) = +1.
    assert_eq!(partial_value(&c, "abs_scal", 1, &[0.0]), 1.0);
    // max and min ties: the first argument.
    for name in ["max_scal_scal", "min_scal_scal"] {
        assert_eq!(partial_value(&c, name, 1, &[0.5, 0.5]), 1.0, "{name}");
        assert_eq!(partial_value(&c, name, 2, &[0.5, 0.5]), 0.0, "{name}");
    }
    // sign(a, b): sign(1,a)*sign(1,b) with respect to a, nothing for b.
    assert_eq!(partial_value(&c, "sign_scal_scal", 1, &[-2.0, 3.0]), -1.0);
    assert_eq!(partial_value(&c, "sign_scal_scal", 1, &[-2.0, -3.0]), 1.0);
    assert_eq!(partial_value(&c, "sign_scal_scal", 1, &[0.0, 0.0]), 1.0);
    assert_eq!(
        partial_kind(c.partial("sign_scal_scal", 2).unwrap()),
        PartialKind::Passive
    );
    // mod with respect to a is one.
    assert_eq!(
        partial_kind(c.partial("mod_scal_scal", 1).unwrap()),
        PartialKind::One
    );
    // Rounding functions and inquiries: no derivative.
    for name in [
        "int_scal",
        "nint_scal",
        "aint_scal",
        "anint_scal",
        "floor_scal",
        "ceiling_scal",
        "size",
        "lbound",
        "ubound",
    ] {
        for p in &c.get(name).unwrap().partials {
            assert_eq!(partial_kind(p), PartialKind::Passive, "{name}");
        }
    }
}

#[test]
fn catalogue_file_validates_against_the_reference_schema() {
    let xsd = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/xaif-reference/xaif_inlinable_intrinsics.xsd");
    if !xsd.exists() {
        eprintln!("skipped: {} not found", xsd.display());
        return;
    }
    let catalogue = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/intrinsics.xaif");
    let out = match Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(&xsd)
        .arg(&catalogue)
        .output()
    {
        Ok(out) => out,
        Err(e) => panic!("this test needs xmllint (libxml2-utils) on the PATH: {e}"),
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn catalogue_round_trips_through_the_xaif_writer() {
    let defs =
        xaif_schema::read::read_inlinable_intrinsics(BUILTIN_CATALOGUE, "intrinsics.xaif").unwrap();
    let text = xaif_schema::write::write_inlinable_intrinsics(&defs);
    let again = xaif_schema::read::read_inlinable_intrinsics(&text, "rewritten").unwrap();
    assert_eq!(defs, again);
}
