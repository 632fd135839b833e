//! Array assignments that read their own target (the dependence test of
//! `canon/dependence.rs`): Fortran text in, expected canonical loops out;
//! then randomised section assignments whose canonical form must compute,
//! compiled with gfortran, exactly what the original computes.

use fortran2xaif::{canon, emit_canon, parse, sema};
use std::path::Path;
use std::process;

/// The canonical source of a small program.
fn canon_text(src: &str) -> String {
    let file = parse::parse_file(src, 0).expect("parses");
    let mut prog = sema::Program::build(vec![file]).expect("builds");
    canon::canonicalise(&mut prog).expect("canonicalises");
    emit_canon::emit(&prog)
}

/// The executable part of `unit`, one statement a line (continuation lines
/// joined), indentation removed.
fn body(text: &str, unit: &str) -> String {
    let start = text.find(&format!("!$oad unit {unit}\n")).expect("unit");
    let rest = &text[start..];
    let b = rest.find("!$oad body\n").expect("body") + "!$oad body\n".len();
    let e = rest.find("!$oad end-body").expect("end-body");
    let mut lines: Vec<String> = Vec::new();
    let mut continued = false;
    for l in rest[b..e].lines().map(str::trim) {
        let (l, more) = match l.strip_suffix('&') {
            Some(head) => (head.trim_end(), true),
            None => (l, false),
        };
        match lines.last_mut() {
            Some(prev) if continued => {
                prev.push(' ');
                prev.push_str(l.trim_start_matches('&').trim_start());
            }
            _ => lines.push(l.to_string()),
        }
        continued = more;
    }
    lines.join("\n")
}

#[test]
fn reversed_section_of_the_target_reads_a_copy() {
    // Strides -1 against 1: no loop order reads before writing, so the
    // four elements read are copied (not the whole array).
    let t = canon_text("subroutine s(a)\n real a(6)\n a(2:5) = a(5:2:-1)\nend\n");
    assert!(t.contains(":: oad_t1(4)"), "{t}");
    assert_eq!(
        body(&t, "s"),
        "do oad_i1 = 1, 4\noad_t1(oad_i1) = a(5 + ((oad_i1 - 1) * (-1)))\nend do\n\
         do oad_i2 = 2, 5\na(oad_i2) = oad_t1(1 + (oad_i2 - 2))\nend do"
    );
}

/// Time levels that differ by a constant are disjoint: no temporary.
#[test]
fn disjoint_time_levels_need_no_copy() {
    let t = canon_text(
        "subroutine s(h, nt)\n integer nt, t\n real(8) h(31, nt + 1)\n do t = 1, nt\n h(2:30, t+1) = h(2:30, t) + 0.1d0*(h(1:29, t) - 2*h(2:30, t) + h(3:31, t))\n end do\nend\n",
    );
    assert_eq!(
        body(&t, "s"),
        "do t = 1, nt\ndo oad_i1 = 2, 30\n\
         h(oad_i1, t + 1) = h(oad_i1, t) + 0.1d0 * (h(1 + (oad_i1 - 2), t) - 2 * h(oad_i1, t) + h(3 + (oad_i1 - 2), t))\n\
         end do\nend do"
    );
    assert!(!t.contains("oad_t"), "{t}");
}

#[test]
fn shift_up_runs_the_loop_backward() {
    let t = canon_text("subroutine s(a, n)\n integer n\n real a(n)\n a(2:n) = a(1:n-1)\nend\n");
    assert_eq!(
        body(&t, "s"),
        "do oad_i1 = n, 2, -1\na(oad_i1) = a(1 + (oad_i1 - 2))\nend do"
    );
}

#[test]
fn shift_down_runs_forward() {
    let t = canon_text("subroutine s(a, n)\n integer n\n real a(n)\n a(1:n-1) = a(2:n)\nend\n");
    assert_eq!(
        body(&t, "s"),
        "do oad_i1 = 1, n - 1\na(oad_i1) = a(2 + (oad_i1 - 1))\nend do"
    );
}

#[test]
fn shifts_both_ways_copy_one_section_only() {
    let t = canon_text(
        "subroutine s(a, n)\n integer n\n real a(n+1)\n a(2:n) = a(1:n-1) + a(3:n+1)\nend\n",
    );
    // One of the two references is safe forward; the other is read from a
    // copy of the n - 1 elements it references, not of the whole array.
    assert!(t.contains(":: oad_t1(n - 1)"), "{t}");
    assert_eq!(
        body(&t, "s"),
        "do oad_i1 = 1, n - 1\noad_t1(oad_i1) = a(1 + (oad_i1 - 1))\nend do\n\
         do oad_i2 = 2, n\na(oad_i2) = oad_t1(1 + (oad_i2 - 2)) + a(3 + (oad_i2 - 2))\nend do"
    );
}

#[test]
fn element_read_and_overwritten_goes_through_a_scalar() {
    let t =
        canon_text("subroutine s(a)\n real a(5)\n a = a / a(3)\n a(2:5) = a(2:5) + a(1)\nend\n");
    assert_eq!(
        body(&t, "s"),
        "oad_t1 = a(3)\ndo oad_i1 = 1, 5\na(oad_i1) = a(oad_i1) / oad_t1\nend do\n\
         do oad_i2 = 2, 5\na(oad_i2) = a(oad_i2) + a(1)\nend do"
    );
}

#[test]
fn two_dimensional_shifts_pick_the_direction_per_dimension() {
    let t = canon_text(
        "subroutine s(b, n, m)\n integer n, m\n real b(n, m)\n b(2:n, :) = b(1:n-1, :)\n b(:, 2:m) = 2 * b(:, 1:m-1)\n b(2:n, 2:m) = b(1:n-1, 2:m) + b(2:n, 1:m-1)\nend\n",
    );
    let b = body(&t, "s");
    assert!(!t.contains("oad_t"), "{t}");
    assert!(
        b.starts_with("do oad_i2 = 1, m\ndo oad_i1 = n, 2, -1\n"),
        "{b}"
    );
    assert!(
        b.contains("do oad_i4 = m, 2, -1\ndo oad_i3 = 1, n\n"),
        "{b}"
    );
    assert!(
        b.contains("do oad_i6 = m, 2, -1\ndo oad_i5 = n, 2, -1\n"),
        "{b}"
    );
}

#[test]
fn strided_sections_of_different_parity_are_disjoint() {
    let t = canon_text("subroutine s(a)\n real a(10)\n a(1:9:2) = a(2:10:2)\nend\n");
    assert_eq!(
        body(&t, "s"),
        "do oad_i1 = 1, 9, 2\na(oad_i1) = a(2 + (((oad_i1 - 1) / 2) * 2))\nend do"
    );
}

#[test]
fn transpose_of_the_target_reads_a_copy() {
    let t = canon_text("subroutine s(a)\n real a(3, 3)\n a = transpose(a)\nend\n");
    assert!(t.contains(":: oad_t1(3, 3)"), "{t}");
    assert!(
        body(&t, "s").contains("a(oad_i3, oad_i4) = oad_t1(oad_i4, oad_i3)"),
        "{t}"
    );
}

#[test]
fn where_with_a_shift_runs_backward() {
    let t =
        canon_text("subroutine s(a, m)\n real a(5), m(4)\n where (m > 0) a(2:5) = a(1:4)\nend\n");
    assert_eq!(
        body(&t, "s"),
        "do oad_i1 = 5, 2, -1\nif (m(1 + (oad_i1 - 2)) > 0) then\na(oad_i1) = a(1 + (oad_i1 - 2))\nend if\nend do"
    );
}

#[test]
fn constructor_reading_its_target_evaluates_items_first() {
    let t = canon_text("subroutine s(a)\n real a(3)\n a = [a(2), a(3), a(1)]\nend\n");
    assert_eq!(
        body(&t, "s"),
        "oad_t1 = a(2)\noad_t2 = a(3)\noad_t3 = a(1)\na(1 + 0) = oad_t1\na(1 + 1) = oad_t2\na(1 + 2) = oad_t3"
    );
}

#[test]
fn pointer_targets_still_read_a_copy() {
    let t = canon_text(
        "subroutine s(a)\n real, target :: a(5)\n real, pointer :: p(:)\n p => a\n p(2:5) = p(1:4)\nend\n",
    );
    assert!(body(&t, "s").contains("oad_t1(oad_i1) = p("), "{t}");
}

/// xorshift64*: reproducible cases without a dependency.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: i64) -> i64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as i64 % n.max(1)
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as i64) as usize]
    }
}

/// A triplet selecting `count` subscripts of a dimension `1..=extent`
/// (whose size is the dummy `size_name`), with a random stride and start,
/// bounds sometimes written relative to `size_name`.
fn triplet(rng: &mut Rng, extent: i64, count: i64, size_name: &str) -> String {
    let mut stride: i64 = [1, 1, 1, 2, -1, -2, 3][rng.below(7) as usize];
    if (count - 1) * stride.abs() > extent - 1 {
        stride = 1;
    }
    let span = (count - 1) * stride.abs();
    let (lo, hi) = if stride > 0 {
        let lo = 1 + rng.below(extent - span);
        (lo, lo + span)
    } else {
        let lo = 1 + span + rng.below(extent - span);
        (lo, lo - span)
    };
    if stride == 1 && lo == 1 && hi == extent && rng.below(2) == 0 {
        return ":".into();
    }
    let mut bound = |v: i64| {
        if rng.below(3) == 0 {
            format!("{size_name} - {}", extent - v)
        } else {
            v.to_string()
        }
    };
    let (l, h) = (bound(lo), bound(hi));
    if stride == 1 {
        format!("{l}:{h}")
    } else {
        format!("{l}:{h}:{stride}")
    }
}

/// A right side over `refs`: coefficients, sums, and sometimes an element
/// of the target array, which the loop may overwrite before reading it.
fn combine(rng: &mut Rng, refs: Vec<String>, element: String) -> String {
    let mut rhs = String::new();
    for (k, r) in refs.into_iter().enumerate() {
        if k > 0 {
            rhs.push_str(rng.pick(&[" + ", " - ", " + 0.5d0 * "]));
        }
        rhs.push_str(&r);
    }
    if rng.below(4) == 0 {
        rhs = format!("({rhs}) * {element}");
    }
    rhs
}

/// One random assignment to a section of `a(n)` or `b(nr, nc)` reading
/// other sections of the same array, maybe under a `where` mask.
fn random_statement(rng: &mut Rng) -> String {
    if rng.below(3) > 0 {
        let count = 1 + rng.below(10);
        let refs = (0..1 + rng.below(3))
            .map(|_| format!("a({})", triplet(rng, 12, count, "n")))
            .collect();
        let element = format!("a({})", 1 + rng.below(12));
        let rhs = combine(rng, refs, element);
        let target = format!("a({})", triplet(rng, 12, count, "n"));
        if rng.below(4) == 0 {
            let mask = format!("w({}) > 0.5d0", triplet(rng, 12, count, "n"));
            return format!("where ({mask}) {target} = {rhs}");
        }
        return format!("{target} = {rhs}");
    }
    // b(6, 5): one or two dimensions selected by triplets, the others by
    // scalars (plain, or k, k + 1 around the dummy k = 2).
    let ranges = 1 + rng.below(2) as usize;
    let counts: Vec<i64> = (0..ranges).map(|_| 1 + rng.below(5)).collect();
    let section = |rng: &mut Rng| {
        let range_dims: Vec<usize> = if ranges == 2 {
            vec![0, 1]
        } else {
            vec![rng.below(2) as usize]
        };
        let mut subs = Vec::new();
        let mut c = counts.iter();
        for (d, (extent, size)) in [(6, "nr"), (5, "nc")].into_iter().enumerate() {
            if range_dims.contains(&d) {
                subs.push(triplet(rng, extent, *c.next().unwrap_or(&1), size));
            } else {
                subs.push(
                    rng.pick(&["k", "k + 1", "k - 1", "1", "3", "k + 3"])
                        .to_string(),
                );
            }
        }
        format!("b({})", subs.join(", "))
    };
    let refs = (0..1 + rng.below(3)).map(|_| section(rng)).collect();
    let element = format!("b({}, {})", 1 + rng.below(6), 1 + rng.below(5));
    let rhs = combine(rng, refs, element);
    format!("{} = {rhs}", section(rng))
}

const DRIVER: &str = "\
program drv
  implicit none
  real(8) :: a(12), b(6, 5), w(12)
  integer :: i, j
  do i = 1, 12
    a(i) = 1.0d0 / i + 0.1d0 * i
    w(i) = mod(7 * i, 10) / 10.0d0
  end do
  do j = 1, 5
    do i = 1, 6
      b(i, j) = 0.37d0 * i - 0.11d0 * j * j
    end do
  end do
  call s(a, b, w, 12, 6, 5, 2)
  write(*, '(es25.17)') a, b
end program
";

fn gfortran_run(dir: &Path, exe: &str, source: &str) -> Result<String, String> {
    let o = process::Command::new("gfortran")
        .current_dir(dir)
        .args(["-O0", "-o", exe, source, "drv.f90"])
        .output()
        .map_err(|e| format!("gfortran: {e}"))?;
    if !o.status.success() {
        return Err(String::from_utf8_lossy(&o.stderr).into_owned());
    }
    let r = process::Command::new(dir.join(exe))
        .current_dir(dir)
        .output()
        .map_err(|e| e.to_string())?;
    if !r.status.success() {
        return Err(format!(
            "{exe} failed: {}",
            String::from_utf8_lossy(&r.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&r.stdout).into_owned())
}

/// Random section assignments (shifts both ways, strides, reversed
/// sections, element reads, symbolic bounds, masks, 2-D sections with
/// triplets in different dimensions): the canonical source prints
/// bit-identical results. Also checks that the cases reach every outcome
/// of the dependence test (direct forward loop, reversed loop, copy).
#[test]
fn random_section_assignments_compute_what_fortran_computes() {
    let have_gfortran = process::Command::new("gfortran")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(have_gfortran, "this test needs gfortran on the PATH");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("drv.f90"), DRIVER).unwrap();
    let (mut reversed, mut copies, mut direct) = (0, 0, 0);
    for seed in 1..=24u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let stmts: Vec<String> = (0..12).map(|_| random_statement(&mut rng)).collect();
        let src = format!(
            "subroutine s(a, b, w, n, nr, nc, k)\n  implicit none\n  integer :: n, nr, nc, k\n  \
             real(8) :: a(n), b(nr, nc), w(n)\n  {}\nend subroutine\n",
            stmts.join("\n  ")
        );
        let canon = canon_text(&src);
        let text = body(&canon, "s");
        reversed += text.matches(", -1\n").count();
        copies += text.matches("oad_t").count();
        direct += text
            .lines()
            .filter(|l| l.starts_with("do ") && !l.ends_with(", -1"))
            .count();
        std::fs::write(dir.path().join("orig.f90"), &src).unwrap();
        std::fs::write(dir.path().join("canon.f90"), &canon).unwrap();
        let want = gfortran_run(dir.path(), "orig", "orig.f90").unwrap();
        let got = gfortran_run(dir.path(), "canon", "canon.f90")
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{src}\n{canon}"));
        assert_eq!(want, got, "seed {seed}: different results\n{src}\n{canon}");
    }
    eprintln!("reversed {reversed}, copies {copies}, direct {direct}");
    assert!(
        reversed > 0 && copies > 0 && direct > 0,
        "reversed {reversed}, copies {copies}, direct {direct}"
    );
}
