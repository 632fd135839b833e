//! End to end: `fortran2xaif` → `xaif-booster -m adjoint` →
//! `xaif2fortran -m rs|rj` → gfortran with an OpenAD-style driver. The
//! driver computes the Jacobian row by row with the adjoint (split: a tape
//! call then an adjoint call; joint: one call with both switches) and by
//! central finite differences of the plain mode, and prints the largest
//! relative difference. Skipped when gfortran or the other stages'
//! binaries (built by `cargo build`) are absent.

use std::path::{Path, PathBuf};
use std::process::Command;

const PROGRAM: &str = r#"subroutine head(x, y)
  implicit none
  double precision :: x(3), y(2)
  double precision :: s, t
  integer :: i, k
  !$openad INDEPENDENT(x)
  s = x(1)
  t = 0.0d0
  if (x(2) > 0.0d0) then
    do i = 1, 5
      if (s > 1.0d0) then
        s = s * 0.5d0 + sin(x(3))
      else
        s = s * s + x(2)
      end if
      t = t + s * x(1 + mod(i, 3))
    end do
  else
    s = -s
  end if
  k = 0
10 continue
  k = k + 1
  t = t * x(1) + s
  if (k < 3) goto 10
  y(1) = t
  y(2) = s * t
  !$openad DEPENDENT(y)
end subroutine head
"#;

/// The same computation with a do while loop instead of the goto: a
/// structured graph (nested reversal instead of block recording).
fn structured_program() -> String {
    PROGRAM.replace(
        "10 continue\n  k = k + 1\n  t = t * x(1) + s\n  if (k < 3) goto 10\n",
        "do while (k < 3)\n    k = k + 1\n    t = t * x(1) + s\n  end do\n",
    )
}

fn driver(joint: bool) -> String {
    let sweeps = if joint {
        "    our_rev_mode%tape = .true.\n    our_rev_mode%adjoint = .true.\n    call head(x, y)\n"
    } else {
        "    our_rev_mode%tape = .true.\n    call head(x, y)\n    our_rev_mode%tape = .false.\n    our_rev_mode%adjoint = .true.\n    y%d = 0.0d0\n    y(j)%d = 1.0d0\n    call head(x, y)\n"
    };
    format!(
        r#"program driver
  use OAD_active
  use OAD_rev
  use OAD_tape
  implicit none
  type(active) :: x(3), y(2)
  double precision :: x0(3), plus(2), minus(2), fd, ad, h, worst
  integer :: i, j
  x0 = (/ 0.9d0, 0.3d0, 0.7d0 /)
  h = 1.0d-6
  worst = 0.0d0
  do j = 1, 2
    call tape_init()
    x%v = x0
    x%d = 0.0d0
    y%d = 0.0d0
    y(j)%d = 1.0d0
    our_rev_mode%plain = .false.
    our_rev_mode%tape = .false.
    our_rev_mode%adjoint = .false.
{sweeps}    do i = 1, 3
      ad = x(i)%d
      our_rev_mode%tape = .false.
      our_rev_mode%adjoint = .false.
      our_rev_mode%plain = .true.
      x%v = x0
      x(i)%v = x0(i) + h
      call head(x, y)
      plus = y%v
      x%v = x0
      x(i)%v = x0(i) - h
      call head(x, y)
      minus = y%v
      our_rev_mode%plain = .false.
      fd = (plus(j) - minus(j)) / (2.0d0 * h)
      worst = max(worst, abs(ad - fd) / max(1.0d0, abs(fd)))
    end do
  end do
  print '(a,es12.4)', 'WORST ', worst
end program driver
"#
    )
}

fn tool(dir: &Path, name: &str) -> Option<PathBuf> {
    let p = dir.join(name);
    p.exists().then_some(p)
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("command runs");
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn end_to_end(mode: &str, program: &str) {
    let booster = PathBuf::from(env!("CARGO_BIN_EXE_xaif-booster"));
    let bin_dir = booster.parent().unwrap();
    let (Some(front), Some(back)) = (tool(bin_dir, "fortran2xaif"), tool(bin_dir, "xaif2fortran"))
    else {
        eprintln!(
            "skipped: fortran2xaif / xaif2fortran not built in {}",
            bin_dir.display()
        );
        return;
    };
    assert!(
        Command::new("gfortran").arg("--version").output().is_ok(),
        "this test needs gfortran on the PATH (see README.md)"
    );
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("head.f90"), program).unwrap();
    run(Command::new(&front).current_dir(d).args([
        "-o",
        "head.xaif",
        "--canon",
        "head.canon.f90",
        "--declarations",
        "head.decl",
        "head.f90",
    ]));
    run(Command::new(&booster).current_dir(d).args([
        "-m",
        "adjoint",
        "-o",
        "head.xb.xaif",
        "head.xaif",
    ]));
    run(Command::new(&back).current_dir(d).args([
        "-m",
        mode,
        "--canon",
        "head.canon.f90",
        "--declarations",
        "head.decl",
        "-o",
        "out",
        "head.xb.xaif",
    ]));
    std::fs::write(d.join("driver.f90"), driver(mode == "rj")).unwrap();
    let sources: Vec<String> = std::fs::read_to_string(d.join("out/SOURCES"))
        .unwrap()
        .lines()
        .map(|l| format!("out/{l}"))
        .collect();
    run(Command::new("gfortran")
        .current_dir(d)
        .args(&sources)
        .args(["driver.f90", "-o", "driver"]));
    let output = run(&mut Command::new(d.join("driver")));
    let worst: f64 = output
        .split_whitespace()
        .nth(1)
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("driver output: {output}"));
    eprintln!("{mode}: largest relative difference to finite differences {worst:e}");
    assert!(
        worst < 1e-6,
        "{mode}: adjoint vs finite differences {worst}"
    );
}

#[test]
fn split_adjoint_matches_finite_differences() {
    end_to_end("rs", PROGRAM);
    let structured = structured_program();
    assert_ne!(structured, PROGRAM);
    end_to_end("rs", &structured);
}

#[test]
fn joint_adjoint_matches_finite_differences() {
    end_to_end("rj", PROGRAM);
    end_to_end("rj", &structured_program());
}
