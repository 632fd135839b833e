//! Pointer re-associations in the adjoint modes: what the sweeps now
//! record and restore gives the gradient of finite differences (the
//! corpus harness on scratch examples; the `pointers_*` corpus examples
//! cover more), and what they cannot is refused by name at the user's
//! statement, in `-m rs` and `-m rj`, with nothing written, while the
//! tangent modes differentiate the same programs.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use openad_tests::manifest::Manifest;
use openad_tests::{check_leg, examples_dir, openad_program, CorpusEntry, Example};

fn run(mode: &str, source: &Path, out_dir: &Path) -> Output {
    Command::new(openad_program().expect("openad binary"))
        .args(["-m", mode, "-o"])
        .arg(out_dir)
        .arg(source)
        .output()
        .unwrap()
}

/// `(line, column)`, 1-based, of the first occurrence of `marker`.
fn position_of(text: &str, marker: &str) -> (usize, usize) {
    let at = text.find(marker).expect("marker in the source");
    let line = text[..at].matches('\n').count() + 1;
    let column = at - text[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
    (line, column)
}

/// Refused in both adjoint modes at `marker`, with `why` in the message;
/// accepted in tangent mode.
fn refused_in_adjoint_modes(name: &str, source: &Path, marker: &str, why: &str) {
    let text = fs::read_to_string(source).unwrap();
    let (line, column) = position_of(&text, marker);
    let file = source.file_name().unwrap().to_string_lossy().into_owned();
    let work = tempfile::tempdir().unwrap();
    for mode in ["rs", "rj"] {
        let out_dir = work.path().join(mode);
        let out = run(mode, source, &out_dir);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name} {mode}: {stderr}");
        let at = format!("{file}:{line}:{column}: error: unsupported construct in the adjoint modes (-m rs, -m rj): pointer association of the active pointer");
        assert!(
            stderr.contains(&at) && stderr.contains(why),
            "{name} {mode}: expected '{at}' and '{why}' in: {stderr}"
        );
        assert!(!out_dir.exists(), "{name} {mode}: output left behind");
    }
    let out_dir = work.path().join("f");
    let out = run("f", source, &out_dir);
    assert!(
        out.status.success(),
        "{name} f: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Differentiates `text` (a `head(x, y)` with `nx` inputs, `ny` outputs)
/// in the adjoint modes and checks the gradient against central finite
/// differences of the original and by the dot-product test against the
/// tangent (the corpus harness, on a scratch example).
fn adjoints_match_finite_differences(name: &str, text: &str, nx: usize, ny: usize, x0: &str) {
    adjoint_legs_match_finite_differences(name, text, nx, ny, x0, &["rs", "rj"]);
}

fn adjoint_legs_match_finite_differences(
    name: &str,
    text: &str,
    nx: usize,
    ny: usize,
    x0: &str,
    legs: &[&str],
) {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join(name);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("head.f90"), text).unwrap();
    let manifest = format!("files = [\"head.f90\"]\nnx = {nx}\nny = {ny}\nx0 = [{x0}]\n");
    fs::write(dir.join("example.toml"), &manifest).unwrap();
    let example = Example {
        name: name.to_string(),
        dir: dir.clone(),
        manifest: Manifest::parse(&manifest).unwrap(),
    };
    let entry = CorpusEntry::new(example, None);
    for &leg in legs {
        let result = check_leg(&entry, leg);
        let worst = result
            .outcome
            .unwrap_or_else(|e| panic!("{name} {leg}: {e}"));
        assert!(worst < 1e-5, "{name} {leg}: worst relative error {worst}");
    }
}

// Once refused ("reassociated" and "changed"): the double buffer and
// allocation through a pointer are corpus examples in every mode now.
#[test]
fn double_buffer_and_allocation_through_a_pointer_run_in_the_adjoint_modes() {
    let manifest =
        |e: &str| fs::read_to_string(examples_dir().join(e).join("example.toml")).unwrap();
    for e in ["pointers_double_buffer", "pointers_alloc_anonymous"] {
        let m = Manifest::parse(&manifest(e)).unwrap();
        for mode in ["f", "fv", "rs", "rj"] {
            assert!(m.applies_to(mode), "{e} must run in {mode}");
        }
    }
}

// A local pointer to a section of a local allocatable array: recorded
// symbolically (the adjoint call of split mode re-allocates the array
// elsewhere, the association is made again on the new storage).
const LOCAL_POINTER: &str = "\
subroutine head(x, y)
  implicit none
  double precision :: x(4), y(1)
  double precision, allocatable, target :: work(:)
  double precision, pointer :: tail(:)
  integer :: i
  !$openad INDEPENDENT(x)
  allocate(work(4))
  work = x
  tail => work(2:4)
  do i = 1, 3
    tail(i) = tail(i) * work(1)
  end do
  y(1) = sum(work**2)
  deallocate(work)
  !$openad DEPENDENT(y)
end subroutine head
";

// A module pointer re-pointed at the columns of module data in a loop:
// its association is pushed and popped.
const VARIABLE_TARGET: &str = "\
module grid
  implicit none
  double precision, target :: a(3, 3)
  double precision, pointer :: row(:)
end module grid
subroutine head(x, y)
  use grid
  implicit none
  double precision :: x(3), y(1)
  integer :: j
  !$openad INDEPENDENT(x)
  do j = 1, 3
    a(:, j) = x * j
  end do
  y(1) = 0.0d0
  do j = 1, 3
    row => a(:, j)
    row(j) = row(j) * row(1)
    y(1) = y(1) + row(j) * row(1)
  end do
  !$openad DEPENDENT(y)
end subroutine head
";

#[test]
fn local_pointer_to_allocatable_and_variable_target_have_correct_adjoints() {
    adjoints_match_finite_differences(
        "local_alloc_target",
        LOCAL_POINTER,
        4,
        1,
        "0.9, 1.3, 0.7, 1.1",
    );
    adjoints_match_finite_differences("variable_target", VARIABLE_TARGET, 3, 1, "0.9, 1.3, 0.7");
}

// Still refused: a local pointer copied from another local pointer whose
// target is a dummy (the reverse sweep of a split reversal runs in
// another call, where the dummy's storage need not be at the same
// address, and the copy names no variable to associate it with again).
const POINTER_COPY: &str = "\
module m
  implicit none
contains
  subroutine scale(u)
    double precision, target :: u(4)
    double precision, pointer :: p(:), q(:)
    integer :: k
    do k = 1, 2
      q => u(k:k+2)
      p => q
      p(2) = p(1) * p(3)
    end do
  end subroutine scale
end module m
subroutine head(x, y)
  use m
  implicit none
  double precision :: x(4), y(1)
  !$openad INDEPENDENT(x)
  call scale(x)
  y(1) = sum(x)
  !$openad DEPENDENT(y)
end subroutine head
";

#[test]
fn pointer_copied_from_a_pointer_to_a_dummy_is_refused_in_the_adjoint_modes() {
    let work = tempfile::tempdir().unwrap();
    let source = work.path().join("copy.f90");
    fs::write(&source, POINTER_COPY).unwrap();
    refused_in_adjoint_modes(
        "copy",
        &source,
        "p => q",
        "'p' with a local or a dummy argument of a routine",
    );
}

#[test]
fn pointer_dummy_associated_with_module_data_is_refused_in_every_mode() {
    let text = "\
module m
  implicit none
  double precision, target :: store(3)
contains
  subroutine bind(p)
    double precision, pointer :: p(:)
    p => store
  end subroutine bind
end module m
subroutine head(x, y)
  use m
  implicit none
  double precision :: x(3), y(1)
  double precision, pointer :: q(:)
  !$openad INDEPENDENT(x)
  store = x
  call bind(q)
  y(1) = sum(q * q)
  !$openad DEPENDENT(y)
end subroutine head
";
    let work = tempfile::tempdir().unwrap();
    let source = work.path().join("dummy.f90");
    fs::write(&source, text).unwrap();
    let (line, column) = position_of(text, "p => store");
    let out_dir = work.path().join("f");
    let out = run("f", &source, &out_dir);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("dummy.f90:{line}:{column}: error: unsupported construct: pointer association between the dummy argument 'p' and 'store'")),
        "{stderr}"
    );
    assert!(!out_dir.exists(), "output left behind");
}

// Allocation through a module pointer in a callee: split mode tapes it;
// joint mode, which re-runs routines from their checkpoints, refuses it by
// name (the re-run would allocate other storage than the one the caller's
// reverse sweep accumulated adjoints into).
const MODULE_POINTER_ALLOCATED_IN_A_CALLEE: &str = "\
module pool
  implicit none
  double precision, pointer :: buf(:) => null()
contains
  subroutine grow(n, x)
    integer, intent(in) :: n
    double precision, intent(in) :: x(n)
    integer :: i
    allocate(buf(n))
    do i = 1, n
      buf(i) = x(i) * x(n + 1 - i)
    end do
  end subroutine grow
end module pool
subroutine head(x, y)
  use pool
  implicit none
  double precision :: x(3), y(1)
  !$openad INDEPENDENT(x)
  call grow(3, x)
  y(1) = sum(buf**2)
  deallocate(buf)
  !$openad DEPENDENT(y)
end subroutine head
";

#[test]
fn allocation_through_a_module_pointer_in_a_callee_is_split_mode_only() {
    adjoint_legs_match_finite_differences(
        "module_pointer_allocated",
        MODULE_POINTER_ALLOCATED_IN_A_CALLEE,
        3,
        1,
        "0.9, 1.3, 0.7",
        &["rs"],
    );
    let work = tempfile::tempdir().unwrap();
    let source = work.path().join("pool.f90");
    fs::write(&source, MODULE_POINTER_ALLOCATED_IN_A_CALLEE).unwrap();
    let out_dir = work.path().join("rj");
    let out = run("rj", &source, &out_dir);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let mut found = false;
    for marker in ["allocate(buf(n))", "deallocate(buf)"] {
        let (line, column) = position_of(MODULE_POINTER_ALLOCATED_IN_A_CALLEE, marker);
        found |= stderr.contains(&format!("pool.f90:{line}:{column}: error: unsupported construct in joint adjoint mode (-m rj): "));
    }
    assert!(
        found && stderr.contains("through the active pointer 'buf'"),
        "{stderr}"
    );
    assert!(!out_dir.exists(), "output left behind");
}
