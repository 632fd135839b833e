//! The Fortran driver programs `openad check` writes from the top-level
//! routine's interface (`P.iface`): one for the original program (values
//! and central finite differences along each direction) and one per mode.
//!
//! The independents, in argument order and then the module variables, are
//! flattened column-major into one vector x of length nx, the dependents
//! into y of length ny. Every driver prints tagged lines:
//! - `OAD_Y k v`: y(k) at x0;
//! - `OAD_FD p j k v`: central difference of y(k) along direction j with
//!   step pass p (1: h, 2: 100 h); `OAD_FF`/`OAD_FB j k v`: one-sided
//!   differences with step h (a kink shows as their disagreement);
//! - `OAD_T j k v`: (J·ẋ_j)(k) (tangent modes);
//! - `OAD_A l i v`: (Jᵀ·ȳ_l)(i) (adjoint modes).

use std::fmt::Write as _;

use xaif_schema::driver_interface::{DriverInterface, InterfaceVariable};

/// What the driver must compute: x0 and the directions.
pub struct Plan {
    pub x0: Vec<f64>,
    /// Tangent directions ẋ_j (each of length nx).
    pub xdots: Vec<Vec<f64>>,
    /// Adjoint directions ȳ_l (each of length ny).
    pub ybars: Vec<Vec<f64>>,
    /// Relative finite-difference step.
    pub step: f64,
}

/// One variable the driver sets or reads.
struct Slot {
    /// The name in the driver (`chk_aN` for arguments, `chk_gN` for the
    /// renamed module variables).
    name: String,
    var: InterfaceVariable,
    size: usize,
    /// Offsets into x and y, when an independent / dependent.
    x_at: Option<usize>,
    y_at: Option<usize>,
}

/// The driver's view of the interface; built only from interfaces
/// `super::drivable` accepted (real(8), constant extents).
pub struct Layout {
    slots: Vec<Slot>,
    module: Option<String>,
    routine: String,
    pub nx: usize,
    pub ny: usize,
}

impl Layout {
    pub fn new(iface: &DriverInterface) -> Layout {
        let mut slots = Vec::new();
        let (mut nx, mut ny) = (0, 0);
        let vars = iface.arguments.iter().map(|v| (true, v));
        let globals = iface.globals.iter().map(|v| (false, v));
        for (k, (argument, v)) in vars.chain(globals).enumerate() {
            let size = v.size().unwrap_or(0);
            let x_at = v.role.is_independent().then(|| {
                nx += size;
                nx - size
            });
            let y_at = v.role.is_dependent().then(|| {
                ny += size;
                ny - size
            });
            slots.push(Slot {
                name: format!("chk_{}{k}", if argument { 'a' } else { 'g' }),
                var: v.clone(),
                size,
                x_at,
                y_at,
            });
        }
        Layout {
            slots,
            module: iface.module.clone(),
            routine: iface.routine.clone(),
            nx,
            ny,
        }
    }

    fn arguments(&self) -> impl Iterator<Item = &Slot> {
        self.slots.iter().filter(|s| s.var.module.is_none())
    }

    fn call(&self) -> String {
        let args: Vec<&str> = self.arguments().map(|s| s.name.as_str()).collect();
        format!("call {}({})", self.routine, args.join(", "))
    }

    fn header(&self, program: &str, runtime: &[&str], active: bool) -> String {
        let mut out = format!("program {program}\n");
        for m in runtime {
            let _ = writeln!(out, "  use {m}");
        }
        if let Some(m) = &self.module {
            let _ = writeln!(out, "  use {m}, only: {}", self.routine);
        }
        for s in self.slots.iter().filter(|s| s.var.module.is_some()) {
            let _ = writeln!(
                out,
                "  use {}, only: {} => {}",
                s.var.module.as_deref().unwrap_or_default(),
                s.name,
                s.var.name
            );
        }
        let _ = writeln!(out, "  implicit none");
        let ty = if active { "type(active)" } else { "real(8)" };
        for s in self.arguments() {
            let _ = writeln!(out, "  {ty} :: {}{}", s.name, dims_text(&s.var));
        }
        let _ = writeln!(
            out,
            "  integer, parameter :: nx = {}, ny = {}",
            self.nx, self.ny
        );
        out.push_str("  real(8) :: x0(nx), yv(ny), xv(nx)\n  integer :: i, j, k\n");
        out
    }

    /// `part` of every independent (`%v`, `%d`, `%d(j)` or nothing) from
    /// the vector `from`; every other variable's `part` gets `other`.
    fn set_all(
        &self,
        part: &str,
        from: &str,
        dependents_from: Option<&str>,
        other: &str,
    ) -> String {
        let mut out = String::new();
        for s in &self.slots {
            let target = format!("{}{part}", s.name);
            let source = match (s.x_at, s.y_at, dependents_from) {
                (_, Some(at), Some(ys)) => Some((ys, at)),
                (Some(at), _, None) => Some((from, at)),
                _ => None,
            };
            match source {
                Some((vector, at)) => {
                    let _ = writeln!(
                        out,
                        "  {}",
                        assign_from(&target, &s.var, s.size, vector, at)
                    );
                }
                None => {
                    let _ = writeln!(out, "  {target} = {other}");
                }
            }
        }
        out
    }

    /// `into(...)` gets `part` of every dependent (or, with `independents`,
    /// of every independent).
    fn get_all(&self, part: &str, into: &str, independents: bool) -> String {
        let mut out = String::new();
        for s in &self.slots {
            let at = if independents { s.x_at } else { s.y_at };
            if let Some(at) = at {
                let source = format!("{}{part}", s.name);
                let value = if s.var.dims.is_empty() {
                    source
                } else {
                    format!("reshape({source}, (/ {} /))", s.size)
                };
                let _ = writeln!(out, "  {into}({}:{}) = {value}", at + 1, at + s.size);
            }
        }
        out
    }

    /// The original program: y at x0 and finite differences.
    pub fn original(&self, plan: &Plan) -> String {
        let mut out = self.header("check_original", &[], false);
        out.push_str("  real(8) :: dir(nx), t, yp(ny), ym(ny), y0(ny)\n  integer :: pass\n");
        out.push_str(&array_assignment("x0", &plan.x0));
        out.push_str(&self.set_all("", "x0", None, "0.0d0"));
        let _ = writeln!(out, "  {}", self.call());
        out.push_str(&self.get_all("", "y0", false));
        out.push_str(
            "  do k = 1, ny\n    write(*, '(a,i8,es25.16e3)') 'OAD_Y ', k, y0(k)\n  end do\n",
        );
        for (j, d) in plan.xdots.iter().enumerate() {
            let scale = d
                .iter()
                .zip(&plan.x0)
                .filter(|(v, _)| **v != 0.0)
                .fold(1.0f64, |m, (_, x)| m.max(x.abs()));
            out.push_str(&array_assignment("dir", d));
            let _ = writeln!(out, "  do pass = 1, 2");
            let _ = writeln!(
                out,
                "    t = {} * merge(1.0d0, 100.0d0, pass == 1)",
                fortran_real(plan.step * scale)
            );
            let _ = writeln!(out, "    xv = x0 + t * dir");
            out.push_str(&indent(&self.set_all("", "xv", None, "0.0d0")));
            let _ = writeln!(out, "    {}", self.call());
            out.push_str(&indent(&self.get_all("", "yp", false)));
            let _ = writeln!(out, "    xv = x0 - t * dir");
            out.push_str(&indent(&self.set_all("", "xv", None, "0.0d0")));
            let _ = writeln!(out, "    {}", self.call());
            out.push_str(&indent(&self.get_all("", "ym", false)));
            let _ = writeln!(
                out,
                "    do k = 1, ny
      write(*, '(a,3i8,es25.16e3)') 'OAD_FD ', pass, {j1}, k, (yp(k) - ym(k)) / (2.0d0 * t)
      if (pass == 1) then
        write(*, '(a,2i8,es25.16e3)') 'OAD_FF ', {j1}, k, (yp(k) - y0(k)) / t
        write(*, '(a,2i8,es25.16e3)') 'OAD_FB ', {j1}, k, (y0(k) - ym(k)) / t
      end if
    end do
  end do",
                j1 = j + 1
            );
        }
        out.push_str("end program check_original\n");
        out
    }

    /// Tangent mode: one call per direction.
    pub fn tangent(&self, plan: &Plan) -> String {
        let mut out = self.header("check_tangent", &["OAD_active"], true);
        out.push_str("  real(8) :: dir(nx)\n");
        out.push_str(&array_assignment("x0", &plan.x0));
        for (j, d) in plan.xdots.iter().enumerate() {
            out.push_str(&array_assignment("dir", d));
            out.push_str(&self.set_all("%v", "x0", None, "0.0d0"));
            out.push_str(&self.set_all("%d", "dir", None, "0.0d0"));
            let _ = writeln!(out, "  {}", self.call());
            out.push_str(&self.get_all("%d", "yv", false));
            let _ = writeln!(
                out,
                "  do k = 1, ny\n    write(*, '(a,2i8,es25.16e3)') 'OAD_T ', {}, k, yv(k)\n  end do",
                j + 1
            );
        }
        out.push_str(&self.get_all("%v", "yv", false));
        out.push_str(
            "  do k = 1, ny\n    write(*, '(a,i8,es25.16e3)') 'OAD_Y ', k, yv(k)\n  end do\n",
        );
        out.push_str("end program check_tangent\n");
        out
    }

    /// Vector tangent mode: every direction in one call.
    pub fn vector(&self, plan: &Plan) -> String {
        let mut out = self.header("check_vector", &["OAD_active"], true);
        let ndir = plan.xdots.len();
        let _ = writeln!(out, "  real(8) :: dirs(nx, {ndir})");
        out.push_str(&array_assignment("x0", &plan.x0));
        for (j, d) in plan.xdots.iter().enumerate() {
            out.push_str(&array_assignment(&format!("dirs(:, {})", j + 1), d));
        }
        let _ = writeln!(
            out,
            "  if ({ndir} > max_deriv_vec_len) stop 'more directions than max_deriv_vec_len'"
        );
        out.push_str(&self.set_all("%v", "x0", None, "0.0d0"));
        // Zero every direction (one at a time: `u%d` of an array u would
        // have two parts of nonzero rank), then seed direction j.
        out.push_str(
            "  do j = 1, max_deriv_vec_len
",
        );
        for s in &self.slots {
            let _ = writeln!(out, "    {}%d(j) = 0.0d0", s.name);
        }
        out.push_str(
            "  end do
",
        );
        for j in 0..ndir {
            let _ = writeln!(out, "  xv = dirs(:, {})", j + 1);
            for s in &self.slots {
                if let Some(at) = s.x_at {
                    let target = format!("{}%d({})", s.name, j + 1);
                    let _ = writeln!(out, "  {}", assign_from(&target, &s.var, s.size, "xv", at));
                }
            }
        }
        let _ = writeln!(out, "  {}", self.call());
        for j in 0..ndir {
            out.push_str(&self.get_all(&format!("%d({})", j + 1), "yv", false));
            let _ = writeln!(
                out,
                "  do k = 1, ny\n    write(*, '(a,2i8,es25.16e3)') 'OAD_T ', {}, k, yv(k)\n  end do",
                j + 1
            );
        }
        out.push_str(&self.get_all("%v", "yv", false));
        out.push_str(
            "  do k = 1, ny\n    write(*, '(a,i8,es25.16e3)') 'OAD_Y ', k, yv(k)\n  end do\n",
        );
        out.push_str("end program check_vector\n");
        out
    }

    /// Adjoint modes: per direction ȳ_l a taping and an adjoint call
    /// (split) or one call doing both (joint).
    pub fn adjoint(&self, plan: &Plan, split: bool) -> String {
        let program = if split { "check_split" } else { "check_joint" };
        let mut out = self.header(program, &["OAD_active", "OAD_rev", "OAD_tape"], true);
        out.push_str("  real(8) :: ybar(ny)\n");
        out.push_str(&array_assignment("x0", &plan.x0));
        out.push_str("  call tape_init()\n");
        for (l, ybar) in plan.ybars.iter().enumerate() {
            out.push_str(&array_assignment("ybar", ybar));
            out.push_str(&self.set_all("%v", "x0", None, "0.0d0"));
            if split {
                for s in &self.slots {
                    let _ = writeln!(out, "  {}%d = 0.0d0", s.name);
                }
                let _ = writeln!(
                    out,
                    "  call set_rev_mode(.true., .false.)\n  {}",
                    self.call()
                );
                out.push_str(&self.get_all("%v", "yv", false));
                out.push_str(&self.set_all("%d", "x0", Some("ybar"), "0.0d0"));
                let _ = writeln!(
                    out,
                    "  call set_rev_mode(.false., .true.)\n  {}",
                    self.call()
                );
            } else {
                out.push_str(&self.set_all("%d", "x0", Some("ybar"), "0.0d0"));
                let _ = writeln!(
                    out,
                    "  call set_rev_mode(.true., .true.)\n  {}",
                    self.call()
                );
            }
            // Independents that are not dependents started from zero.
            out.push_str(&self.get_all("%d", "xv", true));
            let _ = writeln!(
                out,
                "  do i = 1, nx\n    write(*, '(a,2i8,es25.16e3)') 'OAD_A ', {}, i, xv(i)\n  end do",
                l + 1
            );
        }
        if split {
            out.push_str(
                "  do k = 1, ny\n    write(*, '(a,i8,es25.16e3)') 'OAD_Y ', k, yv(k)\n  end do\n",
            );
        }
        out.push_str(
            "
contains

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
",
        );
        let _ = writeln!(out, "end program {program}");
        out
    }
}

/// `target = from(at+1 : at+size)`, reshaped to the variable's shape.
fn assign_from(target: &str, v: &InterfaceVariable, size: usize, from: &str, at: usize) -> String {
    if v.dims.is_empty() {
        format!("{target} = {from}({})", at + 1)
    } else {
        let shape: Vec<String> = v
            .dims
            .iter()
            .map(|d| d.map_or(0, |(lo, hi)| hi - lo + 1).to_string())
            .collect();
        format!(
            "{target} = reshape({from}({}:{}), (/ {} /))",
            at + 1,
            at + size,
            shape.join(", ")
        )
    }
}

fn dims_text(v: &InterfaceVariable) -> String {
    if v.dims.is_empty() {
        return String::new();
    }
    let dims: Vec<String> = v
        .dims
        .iter()
        .map(|d| d.map_or("*".to_string(), |(lo, hi)| format!("{lo}:{hi}")))
        .collect();
    format!("({})", dims.join(", "))
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("  {l}\n")).collect()
}

/// A double precision literal that reads back to the same value.
pub fn fortran_real(value: f64) -> String {
    let text = format!("{value:e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let mantissa = if mantissa.contains('.') {
        mantissa.to_string()
    } else {
        format!("{mantissa}.0")
    };
    format!("{mantissa}d{exponent}")
}

/// `name = (/ v1, ... /)` over continuation lines.
fn array_assignment(name: &str, values: &[f64]) -> String {
    if values.is_empty() {
        return String::new();
    }
    let mut out = format!("  {name} = (/ &\n");
    let chunks: Vec<&[f64]> = values.chunks(4).collect();
    for (i, chunk) in chunks.iter().enumerate() {
        let items: Vec<String> = chunk.iter().map(|v| fortran_real(*v)).collect();
        let end = if i + 1 == chunks.len() { " /)" } else { ", &" };
        let _ = writeln!(out, "       {}{end}", items.join(", "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use xaif_schema::driver_interface::Role;

    fn var(name: &str, role: Role, dims: Vec<Option<(i64, i64)>>) -> InterfaceVariable {
        InterfaceVariable {
            name: name.into(),
            module: None,
            type_name: "real(8)".into(),
            role,
            dims,
        }
    }

    #[test]
    fn independents_and_dependents_are_flattened_in_argument_order() {
        let iface = DriverInterface {
            routine: "step".into(),
            module: Some("model".into()),
            arguments: vec![
                var("u", Role::Both, vec![Some((0, 2)), Some((1, 2))]),
                var("k", Role::Independent, vec![]),
                var("e", Role::Dependent, vec![]),
            ],
            globals: vec![],
        };
        let l = Layout::new(&iface);
        assert_eq!((l.nx, l.ny), (7, 7));
        let text = l.original(&Plan {
            x0: vec![1.0; 7],
            xdots: vec![vec![0.0; 7]],
            ybars: vec![],
            step: 1e-6,
        });
        assert!(text.contains("use model, only: step"));
        assert!(text.contains("real(8) :: chk_a0(0:2, 1:2)"));
        assert!(text.contains("chk_a0 = reshape(x0(1:6), (/ 3, 2 /))"));
        assert!(text.contains("chk_a1 = x0(7)"));
        assert!(text.contains("call step(chk_a0, chk_a1, chk_a2)"));
        assert!(text.contains("y0(7:7) = chk_a2"));
    }

    #[test]
    fn literals_are_double_precision() {
        assert_eq!(fortran_real(1.5), "1.5d0");
        assert_eq!(fortran_real(1e-6), "1.0d-6");
    }
}
