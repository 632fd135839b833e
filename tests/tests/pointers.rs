//! Pointer associations the adjoint modes cannot restore are refused by
//! name at the user's statement, in `-m rs` and `-m rj`, with nothing
//! written; the tangent modes differentiate the same programs (their
//! derivatives are checked by the `pointers_*` corpus examples).

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use openad_tests::{examples_dir, openad_program};

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

#[test]
fn double_buffer_swap_is_refused_in_the_adjoint_modes() {
    let source = examples_dir().join("pointers_double_buffer/head.f90");
    refused_in_adjoint_modes(
        "double buffer",
        &source,
        "tmp => old",
        "'tmp' is associated more than once",
    );
}

#[test]
fn allocate_through_an_active_pointer_is_refused_in_the_adjoint_modes() {
    let source = examples_dir().join("pointers_alloc_anonymous/head.f90");
    refused_in_adjoint_modes(
        "allocate",
        &source,
        "allocate(c(nz))",
        "'c' is nullified, allocated or deallocated here",
    );
}

// A local pointer to a local array is associated again at the start of
// the adjoint sweep (corpus example `pointers_local_alias`); to an
// allocatable array it cannot be (the target may not exist there).
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
  y(1) = sum(work)
  deallocate(work)
  !$openad DEPENDENT(y)
end subroutine head
";

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
    y(1) = y(1) + row(j) * row(1)
  end do
  !$openad DEPENDENT(y)
end subroutine head
";

#[test]
fn local_pointer_to_allocatable_and_variable_target_are_refused_in_the_adjoint_modes() {
    let work = tempfile::tempdir().unwrap();
    for (name, text, marker, why) in [
        (
            "local",
            LOCAL_POINTER,
            "tail => work",
            "'tail' is a dummy, or its target is allocatable, a pointer or optional",
        ),
        (
            "variable",
            VARIABLE_TARGET,
            "row => a",
            "the target of 'row' has variable subscripts",
        ),
    ] {
        let source = work.path().join(format!("{name}.f90"));
        fs::write(&source, text).unwrap();
        refused_in_adjoint_modes(name, &source, marker, why);
    }
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
