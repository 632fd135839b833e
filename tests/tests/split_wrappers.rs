//! CONTRACT.md under the split layout across calls (`split_interface.rs`):
//! a user's driver calls `step`, a routine the program itself calls with
//! split dummies, directly with `type(active)` arguments, as it may call
//! any subroutine. The tangent `u%d` after one `call step` (`-m f`) must
//! equal central finite differences of the original `step`, and the
//! adjoint (`-m rs`, `-m rj`) must pass the dot-product test against
//! them: w·(J e) from the original program = e·(Jᵀ w) from the adjoint.
//! Without the wrapper `step(u, k, dt)` around `step_oad_s` the driver
//! does not even compile (the interface would be `step(oad_v_u, oad_d_u,
//! ...)`). Needs gfortran.

use std::fs;
use std::path::Path;
use std::process::Command;

use openad_tests::drivers::set_rev_mode_subroutine;
use openad_tests::{generated_code, work_root};

/// A nonlinear diffusion stepped in time; `step` and `flux` are called by
/// the program with local arrays, so their array dummies are split.
const MODEL: &str = "\
module heat
  implicit none
  integer, parameter :: n = 8
contains
  subroutine flux(u, k, f)
    double precision, intent(in) :: u(n), k
    double precision, intent(out) :: f(n)
    integer :: i
    f(1) = 0.0d0
    do i = 2, n
      f(i) = k * (u(i) - u(i - 1)) * (1.0d0 + 0.1d0 * u(i)**2)
    end do
  end subroutine flux

  subroutine step(u, k, dt)
    double precision, intent(inout) :: u(n)
    double precision, intent(in) :: k, dt
    double precision :: f(n)
    call flux(u, k, f)
    u(1:n - 1) = u(1:n - 1) + dt * (f(2:n) - f(1:n - 1))
    u = u - dt * 0.05d0 * sin(u)
  end subroutine step
end module heat

subroutine run(x, y)
  use heat
  implicit none
  double precision, intent(in) :: x(n + 1)
  double precision, intent(out) :: y(n)
  double precision :: u(n)
  integer :: t
  !$openad INDEPENDENT(x)
  u = x(1:n)
  do t = 1, 10
    call step(u, x(n + 1), 0.1d0)
  end do
  y = u
  !$openad DEPENDENT(y)
end subroutine run
";

/// The point (u0, k0), the tangent direction (e, ek) and the adjoint
/// direction w, shared by every driver.
const POINT: &str = "
contains
  subroutine point(u0, e, w, k0, ek)
    double precision, intent(out) :: u0(n), e(n), w(n), k0, ek
    integer :: i
    do i = 1, n
      u0(i) = 0.3d0 + 0.1d0 * i + 0.05d0 * sin(1.7d0 * i)
      e(i) = cos(0.9d0 * i)
      w(i) = 1.0d0 / i - 0.2d0
    end do
    k0 = 0.7d0
    ek = 0.4d0
  end subroutine point
";

/// Central differences of the original `step` along (e, ek).
fn finite_difference_driver() -> String {
    format!(
        "program fd
  use heat
  implicit none
  double precision :: u0(n), e(n), w(n), up(n), um(n), k0, ek, h
  integer :: i
  call point(u0, e, w, k0, ek)
  h = 1.0d-6
  up = u0 + h * e
  call step(up, k0 + h * ek, 0.1d0)
  um = u0 - h * e
  call step(um, k0 - h * ek, 0.1d0)
  do i = 1, n
    write(*, '(a, i3, es25.16)') 'TAN ', i, (up(i) - um(i)) / (2 * h)
  end do
  write(*, '(a, es25.16)') 'DOT ', sum(w * (up - um) / (2 * h))
{POINT}end program fd
"
    )
}

/// The differentiated `step` called directly with `type(active)` actuals.
fn derivative_driver(mode: &str) -> String {
    let body = match mode {
        "f" => "  u%v = u0
  u%d = e
  k%v = k0
  k%d = ek
  call step(u, k, 0.1d0)
  do i = 1, n
    write(*, '(a, i3, es25.16)') 'TAN ', i, u(i)%d
  end do
"
        .to_string(),
        _ => {
            let sweeps = if mode == "rs" {
                "  call set_rev_mode(.true., .false.)
  call step(u, k, 0.1d0)
  u%v = u0
  u%d = w
  call set_rev_mode(.false., .true.)
  call step(u, k, 0.1d0)
"
            } else {
                "  u%d = w
  call set_rev_mode(.true., .true.)
  call step(u, k, 0.1d0)
"
            };
            format!(
                "  call tape_init()
  u%v = u0
  u%d = 0.0d0
  k%v = k0
  k%d = 0.0d0
{sweeps}  write(*, '(a, es25.16)') 'DOT ', sum(e * u%d) + ek * k%d
"
            )
        }
    };
    format!(
        "program direct
  use OAD_active
  use OAD_rev
  use OAD_tape
  use heat
  implicit none
  type(active) :: u(n), k
  double precision :: u0(n), e(n), w(n), k0, ek
  integer :: i
  call point(u0, e, w, k0, ek)
{body}{POINT}{}end program direct
",
        set_rev_mode_subroutine()
    )
}

/// Compiles `sources` (in `dir`, relative to it) with gfortran, runs the
/// program and returns the values of its lines `TAN i v` and `DOT v`.
fn build_and_run(dir: &Path, sources: &[String]) -> (Vec<f64>, f64) {
    let built = Command::new("gfortran")
        .current_dir(dir)
        .args(sources)
        .args(["-o", "prog"])
        .output()
        .expect("gfortran runs (needed by this test)");
    assert!(
        built.status.success(),
        "gfortran failed in {}:\n{}",
        dir.display(),
        String::from_utf8_lossy(&built.stderr)
    );
    let run = Command::new(dir.join("prog")).output().unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = String::from_utf8_lossy(&run.stdout).into_owned();
    let mut tangent = Vec::new();
    let mut dot = f64::NAN;
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["TAN", _, v] => tangent.push(v.parse().unwrap()),
            ["DOT", v] => dot = v.parse().unwrap(),
            _ => {}
        }
    }
    (tangent, dot)
}

/// The original program's finite differences: (J e, w·J e).
fn reference(root: &Path) -> (Vec<f64>, f64) {
    let dir = root.join("orig");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("heat.f90"), MODEL).unwrap();
    fs::write(dir.join("fd.f90"), finite_difference_driver()).unwrap();
    let (tangent, dot) = build_and_run(&dir, &["heat.f90".into(), "fd.f90".into()]);
    assert_eq!(tangent.len(), 8);
    (tangent, dot)
}

/// `openad -m MODE` on the model, the driver compiled against it; its
/// output.
fn differentiated(root: &Path, mode: &str) -> (Vec<f64>, f64) {
    let dir = root.join(mode);
    let code = generated_code(&dir, "heat.f90", MODEL, mode);
    // The case this test is about: the program's own calls take the split
    // layout, the driver's call reaches the wrapper.
    assert!(
        code.contains("subroutine step_oad_s(oad_v_u, oad_d_u, oad_v_k, oad_d_k, dt)")
            && code.contains("subroutine step(u, k, dt)"),
        "-m {mode}: step is not split with a wrapper:\n{code}"
    );
    fs::write(dir.join("direct.f90"), derivative_driver(mode)).unwrap();
    let mut sources: Vec<String> = fs::read_to_string(dir.join("out/SOURCES"))
        .unwrap()
        .lines()
        .map(|l| format!("out/{l}"))
        .collect();
    sources.push("direct.f90".into());
    build_and_run(&dir, &sources)
}

fn relative(a: f64, b: f64, scale: f64) -> f64 {
    (a - b).abs() / scale.max(1e-300)
}

#[test]
fn a_driver_calling_an_inner_routine_with_type_active_gets_its_derivatives() {
    let root = work_root().join("split-wrappers");
    let _ = fs::remove_dir_all(&root);
    let (fd, fd_dot) = reference(&root);
    let scale = fd.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    assert!(scale > 0.1, "the reference is degenerate: {fd:?}");

    let (tangent, _) = differentiated(&root, "f");
    assert_eq!(tangent.len(), fd.len());
    for (i, (t, r)) in tangent.iter().zip(&fd).enumerate() {
        assert!(
            relative(*t, *r, scale) < 1e-7,
            "-m f: u({})%d = {t}, finite differences {r}",
            i + 1
        );
    }
    for mode in ["rs", "rj"] {
        let (_, dot) = differentiated(&root, mode);
        assert!(
            relative(dot, fd_dot, fd_dot.abs()) < 1e-7,
            "-m {mode}: e·(Jᵀw) = {dot}, w·(J e) by finite differences = {fd_dot}"
        );
    }
}
