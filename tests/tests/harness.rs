//! Self-check of the harness, independent of the stages: hand-written
//! derivative code (tests/harness-selftest/reference/) stands in for
//! openad's output, together with the runtime modules of the back end.
//! Correct code must pass every leg; wrong code must be caught, by finite
//! differences or, for an error below their resolution, by the dot-product test.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use openad_tests::manifest::Manifest;
use openad_tests::{
    compare_with_references, run_generated, run_original, workspace_root, DriverOutput, Example,
};

fn selftest_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("harness-selftest")
}

fn example() -> Example {
    let dir = selftest_dir();
    Example {
        name: "harness_selftest".into(),
        manifest: Manifest::read(&dir.join("example.toml")).expect("manifest"),
        dir,
    }
}

/// An output directory as openad would write it: runtime modules, the
/// hand-written `reference/FILE` as the differentiated program, SOURCES.
fn fake_output(label: &str, mode: &str, file: &str) -> (PathBuf, PathBuf) {
    let work = std::env::temp_dir()
        .join(format!("openad-harness-selftest-{}", std::process::id()))
        .join(label);
    let _ = fs::remove_dir_all(&work);
    let out = work.join("out");
    fs::create_dir_all(&out).unwrap();
    let runtime = workspace_root().join("xaif2fortran").join("runtime");
    let active = if mode == "fv" {
        "OAD_active_vector.f90"
    } else {
        "OAD_active.f90"
    };
    fs::copy(runtime.join(active), out.join("OAD_active.f90"))
        .unwrap_or_else(|e| panic!("runtime module {active}: {e}"));
    let mut listing = String::from("OAD_active.f90\n");
    if mode == "rs" || mode == "rj" {
        for module in ["OAD_rev.f90", "OAD_tape.f90"] {
            fs::copy(runtime.join(module), out.join(module)).unwrap();
            listing.push_str(module);
            listing.push('\n');
        }
    }
    fs::copy(
        selftest_dir().join("reference").join(file),
        out.join("head.oad.f90"),
    )
    .unwrap();
    listing.push_str("head.oad.f90\n");
    fs::write(out.join("SOURCES"), listing).unwrap();
    (work, out)
}

/// The finite differences, computed once: both tests share its work directory.
fn finite_differences() -> &'static DriverOutput {
    static FD: OnceLock<DriverOutput> = OnceLock::new();
    FD.get_or_init(|| run_original(&example(), None).expect("original leg"))
}

fn run_leg(label: &str, mode: &str, file: &str) -> DriverOutput {
    let ex = example();
    let (work, out) = fake_output(label, mode, file);
    let result = run_generated(&ex.name, &ex.manifest, mode, &out, &work, &work);
    result.unwrap_or_else(|e| panic!("{label}: {e}"))
}

#[test]
fn correct_derivatives_pass_every_leg() {
    let ex = example();
    let fd = finite_differences();
    let tangent = run_leg("f", "f", "tangent.f90");
    let (worst, _) = compare_with_references(&ex.name, &ex.manifest, "f", fd, &tangent, None)
        .expect("tangent agrees with finite differences");
    assert!(worst < 1e-7, "{worst}");
    let vector = run_leg("fv", "fv", "tangent.f90");
    compare_with_references(&ex.name, &ex.manifest, "fv", fd, &vector, None)
        .expect("vector tangent agrees with finite differences");
    for mode in ["rs", "rj"] {
        let adjoint = run_leg(mode, mode, "adjoint.f90");
        let (_, note) =
            compare_with_references(&ex.name, &ex.manifest, mode, fd, &adjoint, Some(&tangent))
                .unwrap_or_else(|e| panic!("{mode}: {e}"));
        assert!(note.starts_with("dot "), "{mode}: {note}");
    }
}

#[test]
fn wrong_derivatives_are_caught() {
    let ex = example();
    let fd = finite_differences();
    let tangent = run_leg("f-ok", "f", "tangent.f90");

    let wrong = run_leg("f-wrong", "f", "wrong_tangent.f90");
    let err = compare_with_references(&ex.name, &ex.manifest, "f", fd, &wrong, None).unwrap_err();
    assert!(err.contains("finite differences"), "{err}");

    for mode in ["rs", "rj"] {
        let wrong = run_leg(&format!("{mode}-wrong"), mode, "wrong_adjoint.f90");
        let err = compare_with_references(&ex.name, &ex.manifest, mode, fd, &wrong, Some(&tangent))
            .unwrap_err();
        assert!(err.contains("finite differences"), "{mode}: {err}");

        let subtle = run_leg(&format!("{mode}-subtle"), mode, "subtle_adjoint.f90");
        let err =
            compare_with_references(&ex.name, &ex.manifest, mode, fd, &subtle, Some(&tangent))
                .unwrap_err();
        assert!(err.contains("dot-product test"), "{mode}: {err}");
    }
}
