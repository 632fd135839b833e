//! Fortran driver programs, written the way an OpenAD/F user writes them.
//!
//! Every driver prints tagged lines that the harness reads (anything else the
//! program prints is ignored):
//! - `OAD_Y k value`      — y(k) at x0
//! - `OAD_J k i value`    — J(k,i) = dy(k)/dx(i)
//! - `OAD_DOT j value`    — tangent: ẏ(j) = (J·ẋ)(j); adjoint: x̄(j) = (Jᵀ·ȳ)(j)

use std::fmt::Write;

use crate::manifest::{InputPoint, Manifest};

/// Directions for the dot-product test ⟨J·ẋ, ȳ⟩ = ⟨ẋ, Jᵀ·ȳ⟩.
#[derive(Debug, Clone)]
pub struct DotDirections {
    pub xdot: Vec<f64>,
    pub ybar: Vec<f64>,
}

impl DotDirections {
    /// Fixed pseudo-random directions in [-1, 1], different per example.
    pub fn for_example(name: &str, nx: usize, ny: usize) -> Self {
        let mut state = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        });
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            // 53 random bits → [0, 1) → [-1, 1); multiples of 2^-20 print exactly.
            let unit = (state >> 11) as f64 / (1u64 << 53) as f64;
            ((2.0 * unit - 1.0) * 1_048_576.0).round() / 1_048_576.0
        };
        DotDirections {
            xdot: (0..nx).map(|_| next()).collect(),
            ybar: (0..ny).map(|_| next()).collect(),
        }
    }
}

const ROW: &str = "'(a,i6,es25.16e3)'";
const ENTRY: &str = "'(a,2i6,es25.16e3)'";

fn fortran_real(value: f64) -> String {
    let text = format!("{value:e}");
    // Rust writes 1.5e-3; Fortran double precision wants 1.5d-3.
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let mantissa = if mantissa.contains('.') {
        mantissa.to_string()
    } else {
        format!("{mantissa}.0")
    };
    format!("{mantissa}d{exponent}")
}

/// `name = (/ v1, v2, ... /)` broken into continuation lines.
fn array_assignment(name: &str, values: &[f64]) -> String {
    let mut out = format!("  {name} = (/ &\n");
    for (i, chunk) in values.chunks(4).enumerate() {
        let items: Vec<String> = chunk.iter().map(|v| fortran_real(*v)).collect();
        let last = (i + 1) * 4 >= values.len();
        let _ = writeln!(
            out,
            "       {}{}",
            items.join(", "),
            if last { " /)" } else { ", &" }
        );
    }
    out
}

fn header(program: &str, m: &Manifest, uses: &[&str]) -> String {
    let mut out = format!("program {program}\n");
    for module in uses {
        let _ = writeln!(out, "  use {module}");
    }
    if let Some(module) = &m.use_module {
        let _ = writeln!(out, "  use {module}");
    }
    let _ = writeln!(out, "  implicit none");
    let _ = writeln!(out, "  integer, parameter :: nx = {}, ny = {}", m.nx, m.ny);
    out
}

fn set_input_point(m: &Manifest) -> String {
    match &m.x0 {
        InputPoint::Values(values) => array_assignment("x0", values),
        InputPoint::Formula(formula) => {
            format!("  do i = 1, nx\n    x0(i) = {formula}\n  end do\n")
        }
    }
}

/// The original program: y at x0 and central finite differences
/// (y(x0 + h e_i) - y(x0 - h e_i)) / 2h with h relative to |x0(i)|, printed
/// as `OAD_J`; the same with a 100 times larger step as `OAD_JC`, and the
/// one-sided differences `OAD_JF`/`OAD_JB`, so the harness can check that y
/// is smooth around x0.
pub fn finite_difference_driver(m: &Manifest) -> String {
    let mut out = header("fd_driver", m, &[]);
    out.push_str(
        "  double precision :: x0(nx), x(nx), y(ny), y_plus(ny), y_minus(ny)
  double precision :: h, x_plus, x_minus
  integer :: i, k, pass
  character(len=7) :: tag
",
    );
    out.push_str(&set_input_point(m));
    let _ = write!(
        out,
        "
  x = x0
  y = 0.0d0
  call {head}(x, y)
  do k = 1, ny
    write(*, {ROW}) 'OAD_Y ', k, y(k)
  end do

  do pass = 1, 2
    do i = 1, nx
      if (pass == 1) then
        h = {step} * max(1.0d0, abs(x0(i)))
        tag = 'OAD_J '
      else
        h = 100.0d0 * {step} * max(1.0d0, abs(x0(i)))
        tag = 'OAD_JC '
      end if
      x_plus = x0(i) + h
      x_minus = x0(i) - h
      x = x0
      x(i) = x_plus
      y_plus = 0.0d0
      call {head}(x, y_plus)
      x = x0
      x(i) = x_minus
      y_minus = 0.0d0
      call {head}(x, y_minus)
      do k = 1, ny
        ! divide by the step actually taken, not by 2h
        write(*, {ENTRY}) tag, k, i, (y_plus(k) - y_minus(k)) / (x_plus - x_minus)
        if (pass == 1) then
          ! one-sided differences expose a kink (abs, max, min) at x0
          write(*, {ENTRY}) 'OAD_JF ', k, i, (y_plus(k) - y(k)) / (x_plus - x0(i))
          write(*, {ENTRY}) 'OAD_JB ', k, i, (y(k) - y_minus(k)) / (x0(i) - x_minus)
        end if
      end do
    end do
  end do
end program fd_driver
",
        head = m.head,
        step = fortran_real(m.fd_step),
    );
    out
}

/// Tangent mode (`-m f`): one call per column of J, then one call with the
/// dot-product direction ẋ.
pub fn tangent_driver(m: &Manifest, dirs: &DotDirections) -> String {
    let mut out = header("tangent_driver", m, &["OAD_active"]);
    out.push_str(
        "  type(active) :: x(nx), y(ny)
  double precision :: x0(nx), xdot(nx)
  integer :: i, j, k
",
    );
    out.push_str(&set_input_point(m));
    out.push_str(&array_assignment("xdot", &dirs.xdot));
    let _ = write!(
        out,
        "
  ! column i of the Jacobian: seed x%d with the unit vector e_i
  do i = 1, nx
    do j = 1, nx
      x(j)%v = x0(j)
      x(j)%d = 0.0d0
    end do
    x(i)%d = 1.0d0
    do k = 1, ny
      y(k)%v = 0.0d0
      y(k)%d = 0.0d0
    end do
    call {head}(x, y)
    do k = 1, ny
      write(*, {ENTRY}) 'OAD_J ', k, i, y(k)%d
    end do
  end do
  do k = 1, ny
    write(*, {ROW}) 'OAD_Y ', k, y(k)%v
  end do

  ! one more direction for the dot-product test against the adjoint
  do j = 1, nx
    x(j)%v = x0(j)
    x(j)%d = xdot(j)
  end do
  do k = 1, ny
    y(k)%v = 0.0d0
    y(k)%d = 0.0d0
  end do
  call {head}(x, y)
  do k = 1, ny
    write(*, {ROW}) 'OAD_DOT ', k, y(k)%d
  end do
end program tangent_driver
",
        head = m.head,
    );
    out
}

/// Vector tangent mode (`-m fv`): the whole Jacobian in one call, x(i)%d(i) = 1.
pub fn vector_driver(m: &Manifest) -> String {
    let mut out = header("vector_driver", m, &["OAD_active"]);
    out.push_str(
        "  type(active) :: x(nx), y(ny)
  double precision :: x0(nx)
  integer :: i, k
",
    );
    out.push_str(&set_input_point(m));
    let _ = write!(
        out,
        "
  if (nx > max_deriv_vec_len) stop 'more independents than max_deriv_vec_len'
  ! direction i seeds x(i): the identity seed matrix gives J in one call
  do i = 1, nx
    x(i)%v = x0(i)
    x(i)%d = 0.0d0
    x(i)%d(i) = 1.0d0
  end do
  do k = 1, ny
    y(k)%v = 0.0d0
    y(k)%d = 0.0d0
  end do
  call {head}(x, y)
  do i = 1, nx
    do k = 1, ny
      write(*, {ENTRY}) 'OAD_J ', k, i, y(k)%d(i)
    end do
  end do
  do k = 1, ny
    write(*, {ROW}) 'OAD_Y ', k, y(k)%v
  end do
end program vector_driver
",
        head = m.head,
    );
    out
}

/// The contained routine both adjoint drivers use to flip the mode switches.
fn rev_mode_routine() -> String {
    format!("\ncontains\n{}", set_rev_mode_subroutine())
}

/// `set_rev_mode(tape, adjoint)`: sets the reverse-mode switches, taping
/// forward sweep and/or adjoint sweep (a contained subroutine of a
/// driver that uses `OAD_rev`).
pub fn set_rev_mode_subroutine() -> &'static str {
    "
  ! Sets the reverse-mode switches: taping forward sweep and/or adjoint sweep.
  subroutine set_rev_mode(tape, adjoint)
    logical, intent(in) :: tape, adjoint
    our_rev_mode%arg_store = .false.
    our_rev_mode%arg_restore = .false.
    our_rev_mode%res_store = .false.
    our_rev_mode%res_restore = .false.
    our_rev_mode%plain = .false.
    our_rev_mode%tape = tape
    our_rev_mode%adjoint = adjoint
  end subroutine set_rev_mode
"
}

/// Adjoint, split mode (`-m rs`): per row k of J a taping call, then an
/// adjoint call with ȳ = e_k; then one more pair with the dot-product ȳ.
pub fn split_driver(m: &Manifest, dirs: &DotDirections) -> String {
    adjoint_driver(m, dirs, true)
}

/// Adjoint, joint mode (`-m rj`): per row k one call that tapes and reverses.
pub fn joint_driver(m: &Manifest, dirs: &DotDirections) -> String {
    adjoint_driver(m, dirs, false)
}

fn adjoint_driver(m: &Manifest, dirs: &DotDirections, split: bool) -> String {
    let program = if split {
        "split_driver"
    } else {
        "joint_driver"
    };
    let mut out = header(program, m, &["OAD_active", "OAD_rev", "OAD_tape"]);
    out.push_str(
        "  type(active) :: x(nx), y(ny)
  double precision :: x0(nx), ybar(ny), ybar_seed(ny)
  integer :: i, j, k
",
    );
    if split {
        out.push_str("  double precision :: y_value(ny)\n");
    }
    out.push_str(&set_input_point(m));
    out.push_str(&array_assignment("ybar", &dirs.ybar));
    let sweeps = if split {
        format!(
            "    ! forward sweep: computes y%v and writes the tape
    call set_rev_mode(.true., .false.)
    call {head}(x, y)
    y_value = y%v
    ! adjoint sweep: x%d += J^T y%d
    do j = 1, ny
      y(j)%d = ybar_seed(j)
    end do
    call set_rev_mode(.false., .true.)
    call {head}(x, y)",
            head = m.head
        )
    } else {
        format!(
            "    ! joint mode: one call runs the forward and the adjoint sweep
    do j = 1, ny
      y(j)%d = ybar_seed(j)
    end do
    call set_rev_mode(.true., .true.)
    call {head}(x, y)",
            head = m.head
        )
    };
    let _ = write!(
        out,
        "
  call tape_init()
  ! row k of the Jacobian: seed y%d with the unit vector e_k; k = ny + 1
  ! is the dot-product test direction ybar
  do k = 1, ny + 1
    if (k <= ny) then
      ybar_seed = 0.0d0
      ybar_seed(k) = 1.0d0
    else
      ybar_seed = ybar
    end if
    do j = 1, nx
      x(j)%v = x0(j)
      x(j)%d = 0.0d0
    end do
    do j = 1, ny
      y(j)%v = 0.0d0
      y(j)%d = 0.0d0
    end do
{sweeps}
    do i = 1, nx
      if (k <= ny) then
        write(*, {ENTRY}) 'OAD_J ', k, i, x(i)%d
      else
        write(*, {ROW}) 'OAD_DOT ', i, x(i)%d
      end if
    end do
  end do
"
    );
    if split {
        let _ = write!(
            out,
            "  do k = 1, ny
    write(*, {ROW}) 'OAD_Y ', k, y_value(k)
  end do
"
        );
    }
    out.push_str(&rev_mode_routine());
    let _ = writeln!(out, "end program {program}");
    out
}

/// Benchmark driver: times one evaluation of head at x0 in `mode`
/// (`orig` for the original program; `rs` times the taping and the adjoint
/// call together), best of three, and prints `OAD_TIME seconds`.
pub fn timing_driver(m: &Manifest, mode: &str) -> String {
    let head = &m.head;
    let (uses, declarations, evaluation): (&[&str], &str, String) = match mode {
        "orig" => (
            &[],
            "  double precision :: x(nx), y(ny)\n",
            format!("    x = x0\n    call system_clock(t0)\n    call {head}(x, y)\n    call system_clock(t1)\n"),
        ),
        "f" | "fv" => (
            &["OAD_active"],
            "  type(active) :: x(nx), y(ny)\n",
            format!(
                "    x%v = x0\n    x(1)%d = 1.0d0\n    call system_clock(t0)\n    call {head}(x, y)\n    call system_clock(t1)\n"
            ),
        ),
        _ => (
            &["OAD_active", "OAD_rev", "OAD_tape"],
            "  type(active) :: x(nx), y(ny)\n",
            format!(
                "    x%v = x0
    x%d = 0.0d0
    call tape_init()
    call system_clock(t0)
    our_rev_mode%plain = .false.
    our_rev_mode%tape = .true.
    our_rev_mode%adjoint = {joint}
    y(1)%d = 1.0d0
    call {head}(x, y)
    our_rev_mode%tape = .false.
    our_rev_mode%adjoint = .true.
    {second}
    call system_clock(t1)
",
                joint = if mode == "rj" { ".true." } else { ".false." },
                second = if mode == "rj" {
                    "! joint mode: the first call did both sweeps".to_string()
                } else {
                    format!("y(1)%d = 1.0d0\n    call {head}(x, y)")
                },
            ),
        ),
    };
    let mut out = header("timing_driver", m, uses);
    out.push_str(declarations);
    out.push_str(
        "  double precision :: x0(nx), best
  integer :: i, rep
  integer(8) :: t0, t1, rate
",
    );
    out.push_str(&set_input_point(m));
    out.push_str("  call system_clock(count_rate=rate)\n  best = huge(1.0d0)\n  do rep = 1, 3\n");
    out.push_str(&evaluation);
    let _ = write!(
        out,
        "    best = min(best, dble(t1 - t0) / dble(rate))
  end do
  print '(a,es12.4)', 'OAD_TIME ', best
end program timing_driver
"
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reals_are_fortran_double_literals() {
        assert_eq!(fortran_real(1.5), "1.5d0");
        assert_eq!(fortran_real(-0.001), "-1d-3".replace("1d", "1.0d"));
        assert_eq!(fortran_real(1e-6), "1.0d-6");
    }

    #[test]
    fn dot_directions_are_deterministic_and_bounded() {
        let a = DotDirections::for_example("box", 5, 3);
        let b = DotDirections::for_example("box", 5, 3);
        assert_eq!(a.xdot, b.xdot);
        assert!(a.xdot.iter().chain(&a.ybar).all(|v| v.abs() <= 1.0));
        assert_ne!(a.xdot, DotDirections::for_example("heat", 5, 3).xdot);
    }
}
