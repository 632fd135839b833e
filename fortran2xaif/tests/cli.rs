//! The `fortran2xaif` command: good programs give XAIF that reads back (and
//! validates against the reference schema when it is around) plus a
//! canonical source that compiles and computes what the input computes;
//! bad input gives `file:line:column: error:`, exit 1, and no output files.

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::process;

fn run(dir: &Path, files: &[&str]) -> process::Output {
    Command::cargo_bin("fortran2xaif")
        .unwrap()
        .current_dir(dir)
        .args(["-o", "p.xaif", "--canon", "p.canon.f90"])
        .args(files)
        .output()
        .unwrap()
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

/// Runs the front end on `text` written as `name`, which must succeed;
/// its warning lines and its whole stderr.
fn accepted_with_warnings(dir: &Path, name: &str, text: &str) -> (Vec<String>, String) {
    write(dir, name, text);
    let out = run(dir, &[name]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    let warnings = err
        .lines()
        .filter(|l| l.contains(": warning: "))
        .map(str::to_string)
        .collect();
    (warnings, err)
}

/// The test needs `tool` (installed by `.ci/run`): a missing one is a
/// failure, never a silent skip.
fn require(tool: &str) {
    let ok = process::Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(ok, "this test needs {tool} on the PATH (see README.md)");
}

fn schema() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/xaif-reference/xaif.xsd");
    p.exists().then_some(p)
}

const SCALAR: &str = "\
module consts
  double precision, parameter :: half = 0.5d0
end module consts

real*8 function sq(a)
  real*8 a
  sq = a * a
end function

subroutine head(x, y)
  use consts
  implicit none
  double precision, intent(in) :: x(3)
  double precision, intent(out) :: y(2)
  double precision :: t, sq
  integer :: i
  external sq
  !$openad INDEPENDENT(x)
  t = 0
  do i = 1, 3
    if (x(i) > 0.2d0) then
      t = t + sq(x(i) + 1.0d0) * half
    else if (x(i) < -1) then
      exit
    else
      t = t - max(x(1), x(2), x(3))
    end if
  end do
  select case (i)
  case (1)
    t = t * 2
  case default
    t = t + 1
  end select
  y(1) = t
  y(2) = sin(t) * x(3)
  !$openad DEPENDENT(y)
end subroutine head
";

const DRIVER: &str = "\
program drv
  double precision :: x(3), y(2)
  x = (/ 0.3d0, -0.4d0, 1.1d0 /)
  call head(x, y)
  write(*, '(2es24.15)') y
end program
";

#[test]
fn scalar_program_gives_xaif_and_canonical_source() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "p.f90", SCALAR);
    let out = run(dir.path(), &["p.f90"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let xaif = std::fs::read_to_string(dir.path().join("p.xaif")).unwrap();
    let cg = xaif_schema::read::read_call_graph(&xaif, "p.xaif").expect("XAIF reads back");
    let cfgs: Vec<_> = cg
        .vertices
        .iter()
        .filter_map(|v| match v {
            xaif_schema::CallGraphVertex::ControlFlowGraph(g) => Some(g),
            _ => None,
        })
        .collect();
    // head and the function turned into a subroutine.
    assert_eq!(cfgs.len(), 2);
    let head = cfgs.iter().find(|g| g.symbol_id == "head").unwrap();
    assert_eq!(head.annotation, "unit:head");
    assert!(!head.structured, "exit makes it unstructured");
    assert!(cfgs.iter().any(|g| g.symbol_id == "oad_s_sq"));
    assert!(head
        .vertices
        .iter()
        .any(|v| matches!(v, xaif_schema::ControlFlowVertex::ForLoop(_))));
    assert!(head
        .vertices
        .iter()
        .any(|v| matches!(v, xaif_schema::ControlFlowVertex::Branch(_))));
    assert!(xaif.contains("max_scal_scal"));
    assert!(!cg.edges.is_empty(), "call graph edge head -> oad_s_sq");
    let canon = std::fs::read_to_string(dir.path().join("p.canon.f90")).unwrap();
    assert!(canon.contains("!$oad unit head"));
    assert!(canon.contains("subroutine oad_s_sq(a, sq)"));
    assert!(canon.contains("!$oad decl x\n"));
    assert!(canon.contains("!$oad body") && canon.contains("!$oad end-body"));
    if let Some(xsd) = schema() {
        require("xmllint");
        let v = process::Command::new("xmllint")
            .args(["--noout", "--schema"])
            .arg(&xsd)
            .arg(dir.path().join("p.xaif"))
            .output()
            .unwrap();
        assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
    }
    require("gfortran");
    assert_same_results(dir.path(), &["p.f90"], "p.canon.f90", DRIVER);
}

/// Compiles the original and the canonical source with the driver and
/// compares what they print.
fn assert_same_results(dir: &Path, originals: &[&str], canon: &str, driver: &str) {
    write(dir, "drv.f90", driver);
    let build = |exe: &str, files: &[&str]| {
        let o = process::Command::new("gfortran")
            .current_dir(dir)
            .arg("-o")
            .arg(exe)
            .args(files)
            .arg("drv.f90")
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{exe}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let r = process::Command::new(dir.join(exe))
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(r.status.success());
        String::from_utf8(r.stdout).unwrap()
    };
    let a = build("orig", originals);
    let b = build("canon", &[canon]);
    assert_eq!(a, b, "canonical source computes something else");
}

const ARRAYS: &str = "\
subroutine head(x, y)
  implicit none
  double precision :: x(6), y(4)
  double precision :: a(6), m(2, 3), t(3, 2)
  !$openad INDEPENDENT(x)
  a = x * 2.0d0
  a(2:6) = a(1:5) + a(2:6)
  m = reshape(a, (/ 2, 3 /))
  t = transpose(m)
  y(1) = sum(a) + dot_product(x(1:3), x(4:6))
  y(2) = maxval(m) * product(x(1:2))
  y(3:4) = matmul(m, t(:, 1))
  !$openad DEPENDENT(y)
end subroutine head
";

#[test]
fn array_statements_are_scalarised_and_compute_the_same() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.f90", ARRAYS);
    let out = run(dir.path(), &["a.f90"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let canon = std::fs::read_to_string(dir.path().join("p.canon.f90")).unwrap();
    let body = canon.split("!$oad body").nth(1).unwrap();
    for gone in [
        "sum(",
        "matmul(",
        "reshape(",
        "transpose(",
        "dot_product(",
        "maxval(",
    ] {
        assert!(!body.contains(gone), "{gone} left in:\n{body}");
    }
    require("gfortran");
    let drv = "program drv\n double precision :: x(6), y(4)\n x = (/ 0.1d0, 0.2d0, -0.3d0, 0.4d0, 0.5d0, 0.6d0 /)\n call head(x, y)\n write(*,'(4es24.15)') y\nend program\n";
    assert_same_results(dir.path(), &["a.f90"], "p.canon.f90", drv);
}

/// Every example program of the end-to-end suite goes through, and its
/// canonical source computes the same as the original.
#[test]
fn examples_compile_to_the_same_results() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/examples");
    let Ok(entries) = std::fs::read_dir(&root) else {
        return;
    };
    let outputs = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut count = 0;
    for e in entries.flatten() {
        let dir = e.path();
        let manifest = dir.join("example.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        let files = toml_list(&text, "files").unwrap_or_else(|| vec!["head.f90".into()]);
        // The openad options that are the front end's (preprocessor, kinds).
        let front_options: Vec<String> = toml_list(&text, "openad_options")
            .unwrap_or_default()
            .into_iter()
            .filter(|o| {
                ["-D", "-U", "-I", "--cpp", "--no-cpp", "--default-real-8"]
                    .iter()
                    .any(|p| o.starts_with(p))
            })
            .collect();
        let black_boxes = toml_list(&text, "black_box").unwrap_or_default();
        let out = Command::cargo_bin("fortran2xaif")
            .unwrap()
            .current_dir(&dir)
            .args(&front_options)
            .args(black_boxes.iter().flat_map(|f| ["--black-box", f.as_str()]))
            .arg("-o")
            .arg(
                outputs
                    .path()
                    .join(format!("fe-{}.xaif", e.file_name().to_string_lossy())),
            )
            .arg("--canon")
            .arg(
                outputs
                    .path()
                    .join(format!("fe-{}.canon.f90", e.file_name().to_string_lossy())),
            )
            .args(&files)
            .output()
            .unwrap();
        count += 1;
        let name = e.file_name().to_string_lossy().into_owned();
        if !out.status.success() {
            failures.push(format!("{name}: {}", String::from_utf8_lossy(&out.stderr)));
            continue;
        }
        if String::from_utf8_lossy(&out.stderr).contains("internal:") {
            failures.push(format!("{name}: {}", String::from_utf8_lossy(&out.stderr)));
        }
        if out.status.success() {
            if let Some(xsd) = schema() {
                require("xmllint");
                let xaif = outputs.path().join(format!("fe-{name}.xaif"));
                let v = process::Command::new("xmllint")
                    .args(["--noout", "--schema"])
                    .arg(&xsd)
                    .arg(&xaif)
                    .output()
                    .unwrap();
                if !v.status.success() {
                    failures.push(format!(
                        "{name}: XAIF not valid: {}",
                        String::from_utf8_lossy(&v.stderr)
                    ));
                }
            }
        }
        if !out.status.success() {
            continue;
        }
        require("gfortran");
        if let Err(msg) = same_results_as_original(&dir, outputs.path(), &name, &text, &files) {
            failures.push(format!("{name}: {msg}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{count} examples, failures:\n{}",
        failures.join("\n")
    );
}

/// Builds the example's original sources and its canonical source with a
/// driver that calls `head(x, y)` at the manifest's point; same output?
fn same_results_as_original(
    dir: &Path,
    outputs: &Path,
    name: &str,
    manifest: &str,
    files: &[String],
) -> Result<(), String> {
    let int = |key: &str| -> Option<usize> {
        let l = manifest
            .lines()
            .find(|l| l.split('=').next().is_some_and(|k| k.trim() == key))?;
        l.split('=').nth(1)?.trim().parse().ok()
    };
    let (nx, ny) = (int("nx").ok_or("no nx")?, int("ny").ok_or("no ny")?);
    let x0: Vec<String> = match toml_list(manifest, "x0") {
        Some(v) => v
            .iter()
            .map(|s| {
                format!(
                    "{}d0",
                    s.trim().replace('e', "d").split('d').next().unwrap_or("0")
                )
            })
            .collect(),
        None => (0..nx)
            .map(|k| format!("{}d0", 0.3 + 0.1 * k as f64))
            .collect(),
    };
    let uses = manifest
        .lines()
        .find(|l| l.trim_start().starts_with("use_module"))
        .and_then(|l| l.split('=').nth(1))
        .map(|m| format!("  use {}\n", m.trim().trim_matches('"')))
        .unwrap_or_default();
    let work = tempfile::tempdir().map_err(|e| e.to_string())?;
    // MPI examples: built with mpif90, run as one process (singleton init).
    let mpi = manifest
        .lines()
        .any(|l| l.trim_start().starts_with("mpi_procs"));
    let (mpi_use, mpi_decl, mpi_init, mpi_end) = if mpi {
        (
            "  use mpi\n",
            "  integer :: ierr\n",
            "  call mpi_init(ierr)\n",
            "  call mpi_finalize(ierr)\n",
        )
    } else {
        ("", "", "", "")
    };
    let driver = format!(
        "program drv\n{mpi_use}{uses}  double precision :: x({nx}), y({ny})\n{mpi_decl}{mpi_init}  x = (/ {} /)\n  y = 0\n  call head(x, y)\n  write(*, '(es24.15)') y\n{mpi_end}end program\n",
        x0.join(", &\n    ")
    );
    let compiler = if mpi { "mpif90" } else { "gfortran" };
    std::fs::write(work.path().join("drv.f90"), driver).map_err(|e| e.to_string())?;
    let canon = outputs.join(format!("fe-{name}.canon.f90"));
    // The original sources need the example's flags (preprocessor, default
    // kinds); the canonical source must not.
    let fflags = toml_list(manifest, "fflags").unwrap_or_default();
    // Routines without source and hand-written derivatives are linked,
    // never canonicalised.
    let link_sources: Vec<PathBuf> = toml_list(manifest, "link_sources")
        .unwrap_or_default()
        .iter()
        .map(|f| dir.join(f))
        .collect();
    let libraries: Vec<String> = toml_list(manifest, "libraries")
        .unwrap_or_default()
        .iter()
        .map(|l| format!("-l{l}"))
        .collect();
    let build_and_run = |exe: &str, sources: Vec<PathBuf>| -> Result<String, String> {
        let flags: &[String] = if exe == "orig" { &fflags } else { &[] };
        let o = process::Command::new(compiler)
            .current_dir(work.path())
            .args(flags)
            .arg("-o")
            .arg(exe)
            .args(&sources)
            .args(&link_sources)
            .arg("drv.f90")
            .args(&libraries)
            .output()
            .map_err(|e| e.to_string())?;
        if !o.status.success() {
            return Err(format!(
                "{exe} does not compile: {}",
                String::from_utf8_lossy(&o.stderr)
            ));
        }
        let r = process::Command::new(work.path().join(exe))
            .current_dir(dir)
            .output()
            .map_err(|e| e.to_string())?;
        Ok(String::from_utf8_lossy(&r.stdout).into_owned())
    };
    let a = build_and_run("orig", files.iter().map(|f| dir.join(f)).collect())?;
    let b = build_and_run("canon", vec![canon])?;
    if a != b {
        return Err(format!("outputs differ:\n{a}\nvs\n{b}"));
    }
    Ok(())
}

/// `key = ["a", "b"]` from a small TOML manifest.
fn toml_list(text: &str, key: &str) -> Option<Vec<String>> {
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(key) && l.contains('['))?;
    let inner = line.split_once('[')?.1.split_once(']')?.0;
    Some(
        inner
            .split(',')
            .map(|s| s.trim().trim_matches('"').to_string())
            .filter(|s| !s.is_empty())
            .collect(),
    )
}

fn assert_rejected(src: &str, file_name: &str, expect_line: usize, expect_text: &str) {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), file_name, src);
    let out = run(dir.path(), &[file_name]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let first = err.lines().next().unwrap_or("");
    assert!(
        first.starts_with(&format!("{file_name}:{expect_line}:")),
        "{first}"
    );
    assert!(
        first.contains(": error: ") && first.contains(expect_text),
        "{first}"
    );
    assert!(!dir.path().join("p.xaif").exists(), "XAIF left behind");
    assert!(
        !dir.path().join("p.canon.f90").exists(),
        "canonical source left behind"
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name() != file_name)
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn syntax_error_is_located() {
    assert_rejected(
        "subroutine head(x, y)\n  !$openad INDEPENDENT(x)\n  y = (x + \nend subroutine\n",
        "bad.f90",
        3,
        "syntax error",
    );
}

#[test]
fn unsupported_construct_is_named() {
    let src = "subroutine head(x, y)\n  real x(3), y(3), z(3)\n  equivalence (y, z)\n  !$openad INDEPENDENT(x)\n  y = x\nend subroutine\n";
    assert_rejected(src, "w.f90", 3, "unsupported construct: equivalence");
}

/// The intrinsic modules' kind and unit constants are read; their other
/// entities and other intrinsic modules are refused by name at the `use`.
#[test]
fn intrinsic_modules_beyond_their_constants_are_named() {
    let head = "  real(8) :: x(1), y(1)\n  !$openad INDEPENDENT(x)\n  y = x\nend subroutine\n";
    let c_ptr = format!(
        "subroutine head(x, y)\n  use, intrinsic :: iso_c_binding, only: c_double, c_ptr\n{head}"
    );
    assert_rejected(
        &c_ptr,
        "cp.f90",
        2,
        "unsupported construct: 'c_ptr' of intrinsic module iso_c_binding",
    );
    let ieee = format!("subroutine head(x, y)\n  use, intrinsic :: ieee_arithmetic\n{head}");
    assert_rejected(
        &ieee,
        "ie.f90",
        2,
        "unsupported construct: intrinsic module ieee_arithmetic",
    );
}

/// A procedure argument is specialised only for module and external
/// procedures passed by name; an internal procedure or an intrinsic is
/// refused at the actual argument.
#[test]
fn procedure_arguments_that_cannot_be_specialised_are_named() {
    let solver = "module solver\ncontains\n  subroutine apply(f, v)\n    interface\n      subroutine f(a)\n        real(8), intent(inout) :: a\n      end subroutine f\n    end interface\n    real(8), intent(inout) :: v\n    call f(v)\n  end subroutine apply\nend module solver\n";
    let internal = format!(
        "{solver}subroutine head(x, y)\n  use solver\n  real(8) :: x(1), y(1)\n  !$openad INDEPENDENT(x)\n  y(1) = x(1)\n  call apply(twice, y(1))\n  !$openad DEPENDENT(y)\ncontains\n  subroutine twice(a)\n    real(8), intent(inout) :: a\n    a = 2 * a\n  end subroutine twice\nend subroutine head\n"
    );
    assert_rejected(
        &internal,
        "ip.f90",
        18,
        "unsupported construct: internal procedure 'twice' passed as procedure argument 'f' of 'apply'",
    );
    let intrinsic = format!(
        "{solver}subroutine head(x, y)\n  use solver\n  real(8) :: x(1), y(1)\n  !$openad INDEPENDENT(x)\n  y(1) = x(1)\n  call apply(dsin, y(1))\n  !$openad DEPENDENT(y)\nend subroutine head\n"
    );
    assert_rejected(
        &intrinsic,
        "in.f90",
        18,
        "'dsin' passed as procedure argument 'f' of 'apply' is not a subroutine or function of the program",
    );
}

#[test]
fn missing_pragma_is_an_error_at_the_first_file() {
    assert_rejected(
        "subroutine head(x, y)\n  y = x\nend subroutine\n",
        "np.f90",
        1,
        "no INDEPENDENT or DEPENDENT pragma",
    );
}

#[test]
fn pragma_naming_no_variable_is_an_error_at_the_pragma() {
    let src = "subroutine head(x, y)\n  y = x\n  !$openad DEPENDENT(z)\nend subroutine\n";
    assert_rejected(src, "pv.f90", 3, "'z'");
}

#[test]
fn function_without_source_is_rejected() {
    let src = "subroutine head(x, y)\n  !$openad INDEPENDENT(x)\n  y = g(x)\nend subroutine\n";
    assert_rejected(src, "ext.f90", 3, "'g'");
}

#[test]
fn unreadable_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["missing.f90"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.f90"));
    assert!(!dir.path().join("p.xaif").exists());
}

#[test]
fn usage_error_exits_2() {
    let out = Command::cargo_bin("fortran2xaif")
        .unwrap()
        .arg("x.f90")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn unknown_openad_pragma_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "u.f90", "subroutine head(x, y)\n  !$openad INDEPENDENT(x)\n  !$openad FROBNICATE\n  y = x\n  !$openad DEPENDENT(y)\nend subroutine\n");
    let out = run(dir.path(), &["u.f90"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning"));
}

#[test]
fn main_program_stays_passive_and_untagged() {
    let dir = tempfile::tempdir().unwrap();
    let src = "subroutine head(x, y)\n  double precision :: x(2), y(1)\n  !$openad INDEPENDENT(x)\n  y(1) = x(1) * x(2)\n  !$openad DEPENDENT(y)\nend subroutine\nprogram main\n  double precision :: x(2), y(1)\n  x = (/ 1.0d0, 2.0d0 /)\n  call head(x, y)\n  print *, y\nend program\n";
    write(dir.path(), "m.f90", src);
    let out = run(dir.path(), &["m.f90"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let canon = std::fs::read_to_string(dir.path().join("p.canon.f90")).unwrap();
    let program = canon
        .split("!$oad unit main\n")
        .nth(1)
        .expect("program unit");
    assert!(!program.contains("!$oad"), "{program}");
    let xaif = std::fs::read_to_string(dir.path().join("p.xaif")).unwrap();
    assert!(
        !xaif.contains("symbol_id=\"main\""),
        "no CFG for the main program"
    );
}

#[test]
fn form_option_overrides_the_extension() {
    let dir = tempfile::tempdir().unwrap();
    let fixed = "      SUBROUTINE HEAD(X, Y)\n      DOUBLE PRECISION X(2), Y(1)\nC$OPENAD INDEPENDENT(X)\n      Y(1) = X(1) *\n     &       X(2)\nC$OPENAD DEPENDENT(Y)\n      END\n";
    write(dir.path(), "fx.f90", fixed);
    let out = Command::cargo_bin("fortran2xaif")
        .unwrap()
        .current_dir(dir.path())
        .args([
            "--form",
            "fixed",
            "-o",
            "p.xaif",
            "--canon",
            "p.canon.f90",
            "fx.f90",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let canon = std::fs::read_to_string(dir.path().join("p.canon.f90")).unwrap();
    assert!(canon.contains("y(1) = x(1) * x(2)"), "{canon}");
}

#[test]
fn pointer_to_active_data_is_active_and_marked_for_the_adjoint() {
    // `p => x`: p is active because its target is; the association of a
    // local pointer carries the field the back end repeats at the start of
    // the adjoint sweep (docs/xaif.md, "Pointer associations").
    let src = "subroutine head(x, y)\n  double precision, target :: x(2)\n  double precision :: y(1)\n  double precision, pointer :: p(:)\n  !$openad INDEPENDENT(x)\n  p => x\n  y(1) = p(1) * 2\n  !$openad DEPENDENT(y)\nend subroutine\n";
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "ptr.f90", src);
    let out = run(dir.path(), &["ptr.f90"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let xaif = std::fs::read_to_string(dir.path().join("p.xaif")).unwrap();
    let symbol = |name: &str| {
        xaif.lines()
            .find(|l| l.contains("<xaif:Symbol ") && l.contains(&format!("symbol_id=\"{name}\"")))
            .unwrap_or_else(|| panic!("no symbol {name}"))
            .to_string()
    };
    assert!(symbol("p").contains("active=\"true\"") && symbol("p").contains("pointer=\"true\""));
    assert!(symbol("x").contains("active=\"true\""));
    assert!(xaif.contains(";pointer:replay:p\""), "{xaif}");
}

#[test]
fn bit_level_intrinsics_on_active_data_are_passive_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let src = "\
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(2), seed
  integer(8) :: bits, mask
  !$openad INDEPENDENT(x)
  seed = 0.25d0
  mask = transfer(seed, mask)
  bits = transfer(x(1), bits)
  y(1) = x(2) * dble(ibits(bits, 0, 8) + iand(mask, 3_8))
  y(2) = transfer(x(2), 1.0d0) + x(1)
  !$openad DEPENDENT(y)
end subroutine head
";
    let (warnings, err) = accepted_with_warnings(dir.path(), "bits.f90", src);
    // `seed` is passive: no warning for line 7; `bits` is an integer.
    assert_eq!(warnings.len(), 2, "{err}");
    assert!(
        warnings[0].starts_with(
            "bits.f90:8:10: warning: 'transfer' reads the bit pattern of the active variable 'x'"
        ),
        "{err}"
    );
    assert!(
        warnings[1].starts_with("bits.f90:10:10: warning: 'transfer'"),
        "{err}"
    );
    // The transfer of active data is a passive statement of the canonical
    // source, not part of the numerical core.
    let canon = std::fs::read_to_string(dir.path().join("p.canon.f90")).unwrap();
    assert!(canon.contains("= transfer(x(2), 1.0d0)"), "{canon}");
}

/// A constant vector subscript that repeats an element on the left of an
/// assignment is not standard Fortran (compilers keep one of the repeated
/// assignments, the scalarised code makes them in turn): a warning at the
/// statement, for a named constant and for a constructor; none for a
/// vector without repeats or one computed at run time.
#[test]
fn repeated_constant_vector_subscripts_on_the_left_are_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let src = "\
module wells
  implicit none
  integer, parameter :: well_cell(3) = (/2, 5, 2/), ok_cells(2) = (/1, 3/)
contains
  subroutine inject(src, rate, cells)
    double precision, intent(inout) :: src(6)
    double precision, intent(in) :: rate(3)
    integer, intent(in) :: cells(3)
    src(well_cell) = src(well_cell) + rate
    src(ok_cells) = 2 * src(ok_cells)
    src((/4, 6, 4/)) = rate
    src(cells) = src(cells) + rate
  end subroutine inject
end module wells
subroutine head(x, y)
  use wells
  double precision :: x(3), y(1), src(6)
  !$openad INDEPENDENT(x)
  src = 1
  call inject(src, x, (/1, 2, 3/))
  y(1) = sum(src**2)
  !$openad DEPENDENT(y)
end subroutine head
";
    let (warnings, err) = accepted_with_warnings(dir.path(), "wells.f90", src);
    assert_eq!(warnings.len(), 2, "{err}");
    assert!(
        warnings[0].starts_with(
            "wells.f90:9:5: warning: the vector subscript (2, 5, 2) of 'src' repeats 2"
        ),
        "{err}"
    );
    assert!(
        warnings[1].starts_with(
            "wells.f90:11:5: warning: the vector subscript (4, 6, 4) of 'src' repeats 4"
        ),
        "{err}"
    );
}

/// OpenMP directives are comments to the tool: the first one of a file is
/// reported, with what it means for the derivative code; `$ompx` and
/// `$openad` are not OpenMP.
#[test]
fn openmp_directives_are_reported_once_as_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let src = "\
subroutine head(x, y)
  implicit none
  double precision :: x(4), y(4)
  integer :: i
  !$openad INDEPENDENT(x)
  !$OMP PARALLEL DO
  do i = 1, 4
    y(i) = x(i) ** 2
  end do
  !$omp end parallel do
  !$ompx not openmp
  !$openad DEPENDENT(y)
end subroutine head
";
    let (warnings, err) = accepted_with_warnings(dir.path(), "omp.f90", src);
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].starts_with("omp.f90:6:3: warning: OpenMP directives are ignored"),
        "{err}"
    );
    assert!(warnings[0].contains("runs serially"), "{err}");
}
