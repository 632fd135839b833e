use super::*;

/// A program made of units (each: header line, declarations, a blank
/// separator, executable lines), with their ranges; `extra` lines come
/// after the units, outside any rewritten unit.
fn program(units: &[(&str, &str, &str)], extra: &[&str]) -> (Vec<String>, Vec<UnitText>) {
    let mut lines = Vec::new();
    let mut ranges = Vec::new();
    for (header, decls, body) in units {
        let start = lines.len();
        lines.push(header.to_string());
        lines.extend(decls.lines().map(str::to_string));
        let body_at = lines.len();
        lines.extend(body.lines().map(str::to_string));
        ranges.push(UnitText {
            start,
            body_at,
            end: lines.len(),
            header_len: 1,
            has_internal: false,
        });
        lines.push("end subroutine".to_string());
    }
    lines.extend(extra.iter().map(|s| s.to_string()));
    (lines, ranges)
}

fn positions(plan: &Plan, name: &str) -> Vec<usize> {
    plan.get(name)
        .map(|p| p.iter().copied().collect())
        .unwrap_or_default()
}

const LAP: (&str, &str, &str) = (
    "subroutine lap(u, k, l)",
    "  type(active) :: u(n)\n  type(active) :: k(n)\n  type(active) :: l(n)\n  integer :: i",
    "  do i = 2, n - 1\n    l(i)%v = k(i)%v * (u(i - 1)%v - 2 * u(i)%v + u(i + 1)%v)\n  end do",
);

#[test]
fn dummies_taking_split_locals_split_and_calls_pass_both_parts() {
    let head = (
        "subroutine head(x, y)",
        "  type(active) :: x(n)\n  type(active) :: y\n  type(active) :: u(n)\n  type(active) :: k(n, 2)\n  type(active) :: l(n)",
        "  u%v = x%v\n  call lap(u, k(:, 2), l)\n  y%v = l(2)%v",
    );
    let (mut p, ranges) = program(&[LAP, head], &[]);
    let plan = apply(&mut p, &ranges, true);
    assert_eq!(positions(&plan, "lap"), vec![0, 1, 2]);
    // The top-level routine is called by the driver only: never split.
    assert!(!plan.contains_key("head"));
    let text = p.join("\n");
    assert!(
        text.contains("subroutine lap_oad_s(oad_v_u, oad_d_u, oad_v_k, oad_d_k, oad_v_l, oad_d_l)")
    );
    assert!(text.contains(
        "call lap_oad_s(oad_v_u, oad_d_u, oad_v_k(:, 2), oad_d_k(:, 2), oad_v_l, oad_d_l)"
    ));
    assert!(text.contains("real(8) :: oad_v_u(n), oad_d_u(n)"));
    // The caller's locals are zeroed at entry, the callee's dummies not:
    // their derivatives come from the caller.
    assert!(text.contains("  oad_d_u = 0\n  oad_d_k = 0\n  oad_d_l = 0\n  oad_v_u = x%v"));
    let lap_text: String = p[..8].join("\n");
    assert!(!lap_text.contains("= 0\n"), "{lap_text}");
    // The user's interface stays, right after the split routine: the AoS
    // declarations of the dummies (not the local `i`) and one call.
    assert!(
        text.contains(
            "end subroutine\nsubroutine lap(u, k, l)\n  type(active) :: u(n)\n  \
         type(active) :: k(n)\n  type(active) :: l(n)\n  \
         call lap_oad_s(u%v, u%d, k%v, k%d, l%v, l%d)\nend subroutine lap\n"
        ),
        "{text}"
    );
}

#[test]
fn what_a_wrapper_cannot_pass_as_u_v_stays_type_active() {
    // An allocatable and an assumed-size dummy: `u%v` is no actual for
    // their split parts.
    let callee = (
        "subroutine fill(a, b, c)",
        "  type(active), allocatable :: a(:)\n  type(active) :: b(*)\n  type(active) :: c(n)",
        "  allocate(a(n))\n  a%v = c%v\n  b(1)%v = c(1)%v",
    );
    let head = (
        "subroutine head(x)",
        "  type(active) :: x(n)\n  type(active), allocatable :: a(:)\n  type(active) :: b(n)\n  type(active) :: c(n)",
        "  c%v = x%v\n  call fill(a, b, c)\n  x%v = a%v + b%v",
    );
    let (mut p, ranges) = program(&[callee, head], &[]);
    let plan = apply(&mut p, &ranges, true);
    assert_eq!(positions(&plan, "fill"), vec![2]);
    let text = p.join("\n");
    assert!(
        text.contains("call fill_oad_s(a, b, oad_v_c, oad_d_c)"),
        "{text}"
    );
    assert!(text.contains("  call fill_oad_s(a, b, c%v, c%d)\nend subroutine fill"));
}

#[test]
fn use_and_public_lists_name_both_and_a_taken_name_keeps_the_interface() {
    let head = (
        "subroutine head(x)",
        "  use lapmod, only: lap\n  type(active) :: x(n)\n  type(active) :: u(n)\n  type(active) :: k(n)\n  type(active) :: l(n)",
        "  u%v = x%v\n  call lap(u, k, l)\n  x%v = l%v",
    );
    let (mut p, ranges) = program(&[LAP, head], &["public :: lap"]);
    apply(&mut p, &ranges, true);
    let text = p.join("\n");
    assert!(text.contains("use lapmod, only: lap, lap_oad_s"), "{text}");
    assert!(text.contains("public :: lap, lap_oad_s"), "{text}");
    // `lap_oad_s` is already a name of the program: no rename, no split.
    let (mut p, ranges) = program(&[LAP, head], &["! see lap_oad_s", "integer :: lap_oad_s"]);
    let plan = apply(&mut p, &ranges, true);
    assert!(!plan.contains_key("lap"));
    assert!(p.join("\n").contains("call lap(u, k, l)"));
}

#[test]
fn an_actual_that_is_no_split_array_keeps_its_position_and_only_it() {
    // `f%c` is a derived-type component: the dummy `k` stays type(active).
    let head = (
        "subroutine head(x, f)",
        "  type(active) :: x(n)\n  type(state) :: f\n  type(active) :: u(n)\n  type(active) :: l(n)",
        "  u%v = x%v\n  call lap(u, f%c, l)\n  x%v = l%v",
    );
    let (mut p, ranges) = program(&[LAP, head], &[]);
    let plan = apply(&mut p, &ranges, true);
    assert_eq!(positions(&plan, "lap"), vec![0, 2]);
    let text = p.join("\n");
    assert!(text.contains("subroutine lap_oad_s(oad_v_u, oad_d_u, k, oad_v_l, oad_d_l)"));
    assert!(text.contains("call lap_oad_s(oad_v_u, oad_d_u, f%c, oad_v_l, oad_d_l)"));
    assert!(text.contains("  type(active) :: k(n)"));
}

#[test]
fn a_kept_array_propagates_down_the_call_tree() {
    // head passes `u` to a routine without XAIF (`save_state`, not
    // rewritten): `u` stays type(active), so `mid`'s dummy, and then
    // `lap`'s first dummy which `mid` passes it to.
    let mid = (
        "subroutine mid(w)",
        "  type(active) :: w(n)\n  type(active) :: k(n)\n  type(active) :: l(n)",
        "  k%v = 1\n  call lap(w, k, l)\n  w%v = l%v",
    );
    let head = (
        "subroutine head(x)",
        "  type(active) :: x(n)\n  type(active) :: u(n)",
        "  u%v = x%v\n  call mid(u)\n  call save_state(u)\n  x%v = u%v",
    );
    let (mut p, ranges) = program(&[LAP, mid, head], &[]);
    let plan = apply(&mut p, &ranges, true);
    assert!(!plan.contains_key("mid"));
    assert_eq!(positions(&plan, "lap"), vec![1, 2]);
    let text = p.join("\n");
    assert!(text.contains("call lap_oad_s(w, oad_v_k, oad_d_k, oad_v_l, oad_d_l)"));
    assert!(text.contains("subroutine mid(w)"));
}

#[test]
fn a_dummy_the_callee_names_whole_stays_and_so_does_the_callers_array() {
    let keep = (
        "subroutine keep(u, v)",
        "  type(active) :: u(n)\n  type(active) :: v(n)",
        "  call oad_cp_store(u)\n  v%v = u%v",
    );
    let head = (
        "subroutine head(x)",
        "  type(active) :: x(n)\n  type(active) :: a(n)\n  type(active) :: b(n)",
        "  a%v = x%v\n  call keep(a, b)\n  x%v = b%v",
    );
    let (mut p, ranges) = program(&[keep, head], &[]);
    let plan = apply(&mut p, &ranges, true);
    assert_eq!(positions(&plan, "keep"), vec![1]);
    let text = p.join("\n");
    assert!(text.contains("call keep_oad_s(a, oad_v_b, oad_d_b)"));
    assert!(text.contains("  type(active) :: a(n)"));
}

#[test]
fn routines_named_other_than_by_a_plain_call_keep_their_interface() {
    let head = (
        "subroutine head(x)",
        "  type(active) :: x(n)\n  type(active) :: u(n)\n  type(active) :: k(n)\n  type(active) :: l(n)",
        "  call lap(u, k, l)\n  call lap(u, k, l=l)\n  x%v = l%v",
    );
    // A keyword argument.
    let (mut p, ranges) = program(&[LAP, head], &[]);
    assert!(apply(&mut p, &ranges, true).is_empty());
    // A procedure argument, outside the rewritten units.
    let head2 = (head.0, head.1, "  call lap(u, k, l)\n  x%v = l%v");
    let (mut p, ranges) = program(&[LAP, head2], &["  call apply_op(lap, y)"]);
    assert!(apply(&mut p, &ranges, true).is_empty());
    // An interface body naming it (a second header), a call that does
    // not close on its line, a call with fewer actuals.
    for extra in [
        "  subroutine lap(u, k, l)",
        "  call lap(u, &",
        "  call lap(u, k)",
        "  external lap",
    ] {
        let (mut p, mut ranges) = program(&[LAP, head2], &[extra]);
        ranges[1].end = p.len();
        assert!(apply(&mut p, &ranges, true).is_empty(), "{extra}");
    }
    // `public`, `use, only:` and `end subroutine lap` are no uses.
    let (mut p, ranges) = program(
        &[LAP, head2],
        &[
            "  public :: lap",
            "  use ops, only: lap",
            "end subroutine lap",
        ],
    );
    assert_eq!(
        positions(&apply(&mut p, &ranges, true), "lap"),
        vec![0, 1, 2]
    );
}

#[test]
fn two_routines_of_one_name_keep_their_interfaces() {
    let head = (
        "subroutine head(x)",
        "  type(active) :: x(n)\n  type(active) :: u(n)\n  type(active) :: k(n)\n  type(active) :: l(n)",
        "  call lap(u, k, l)\n  x%v = l%v",
    );
    let (mut p, ranges) = program(&[LAP, LAP, head], &[]);
    assert!(apply(&mut p, &ranges, true).is_empty());
}

#[test]
fn locals_only_keeps_every_interface() {
    let head = (
        "subroutine head(x)",
        "  type(active) :: x(n)\n  type(active) :: u(n)\n  type(active) :: k(n)\n  type(active) :: l(n)",
        "  call lap(u, k, l)\n  x%v = l%v",
    );
    let (mut p, ranges) = program(&[LAP, head], &[]);
    assert!(apply(&mut p, &ranges, false).is_empty());
    assert!(p.join("\n").contains("call lap(u, k, l)"));
}

#[test]
fn header_parsing() {
    let h = |s: &str| subroutine_header(&[s.to_string()]);
    assert_eq!(
        h("  pure subroutine Flux(u, i, &  !c"),
        Some(("flux".to_string(), vec!["u".to_string(), "i".to_string()]))
    );
    assert_eq!(h("subroutine s"), Some(("s".to_string(), vec![])));
    assert_eq!(h("elemental subroutine e(a)"), None);
    assert_eq!(h("function f(a) result(r)"), None);
}

/// A per-face kernel taking two cell values, a viscosity and the flux as
/// `type(active)` scalars.
const KERNEL: (&str, &str, &str) = (
    "subroutine kernel(ul, ur, nu, f)",
    "  type(active) :: ul\n  type(active) :: ur\n  type(active) :: nu\n  type(active) :: f\n  type(active) :: a",
    "  a%v = max(abs(ul%v), abs(ur%v))\n  f%v = ul%v * ur%v - (a%v + nu%v) * (ur%v - ul%v)\n  ul%d = ul%d + f%d",
);

#[test]
fn scalar_dummies_split_and_take_elements_components_and_scalars() {
    // `face` passes elements of its split dummy `u`, its own scalar dummy
    // `nu` and its scalar `f`; `head` passes a component `p%visc` and a
    // local scalar `fl`, which stay type(active) where they are and are
    // passed as their two components (a scalar is passed by reference:
    // no copy).
    let face = (
        "subroutine face(u, i, nu, f)",
        "  type(active) :: u(n)\n  integer :: i\n  type(active) :: nu\n  type(active) :: f",
        "  call kernel(u(i), u(i + 1), nu, f)",
    );
    let head = (
        "subroutine head(x, y)",
        "  type(active) :: x(n)\n  type(active) :: y\n  type(active) :: u(n)\n  type(active) :: fl\n  type(params) :: p",
        "  u%v = x%v\n  call face(u, 2, p%visc, fl)\n  call kernel(u(1), x(2), p%visc, y)\n  y%v = y%v + fl%v",
    );
    let (mut p, ranges) = program(&[KERNEL, face, head], &[]);
    let plan = apply(&mut p, &ranges, true);
    assert_eq!(positions(&plan, "kernel"), vec![0, 1, 2, 3]);
    assert_eq!(positions(&plan, "face"), vec![0, 2, 3]);
    let text = p.join("\n");
    assert!(text.contains(
        "subroutine kernel_oad_s(oad_v_ul, oad_d_ul, oad_v_ur, oad_d_ur, oad_v_nu, oad_d_nu, oad_v_f, oad_d_f)"
    ), "{text}");
    assert!(text.contains("  real(8) :: oad_v_ul, oad_d_ul\n"));
    // A local scalar stays type(active).
    assert!(text.contains("  type(active) :: a\n"));
    assert!(
        text.contains("  oad_v_f = oad_v_ul * oad_v_ur - (a%v + oad_v_nu) * (oad_v_ur - oad_v_ul)")
    );
    assert!(text.contains(
        "call kernel_oad_s(oad_v_u(i), oad_d_u(i), oad_v_u(i + 1), oad_d_u(i + 1), oad_v_nu, oad_d_nu, oad_v_f, oad_d_f)"
    ), "{text}");
    assert!(
        text.contains("call face_oad_s(oad_v_u, oad_d_u, 2, p%visc%v, p%visc%d, fl%v, fl%d)"),
        "{text}"
    );
    // `x` is the top-level routine's dummy (type(active)): its element is
    // passed as its components.
    assert!(text.contains(
        "call kernel_oad_s(oad_v_u(1), oad_d_u(1), x(2)%v, x(2)%d, p%visc%v, p%visc%d, y%v, y%d)"
    ), "{text}");
    // Split scalar dummies are not zeroed at entry: the caller's derivative.
    let kernel_text = p[..8].join("\n");
    assert!(!kernel_text.contains("oad_d_f = 0"), "{kernel_text}");
    // The user's interface stays.
    assert!(text.contains(
        "  call kernel_oad_s(ul%v, ul%d, ur%v, ur%d, nu%v, nu%d, f%v, f%d)\nend subroutine kernel"
    ));
}

#[test]
fn a_scalar_dummy_named_whole_or_given_an_expression_stays_type_active() {
    // `ul` is assigned whole in the callee; `ur` gets an expression at
    // one call: both stay type(active), and the caller's array whose
    // element went to `ul` keeps its layout only where it must.
    let kernel = (KERNEL.0, KERNEL.1, "  a = ul\n  f%v = a%v * ur%v + nu%v");
    let head = (
        "subroutine head(x, y)",
        "  type(active) :: x(n)\n  type(active) :: y\n  type(active) :: u(n)\n  type(active) :: nu",
        "  u%v = x%v\n  call kernel(u(1), u(2), nu, y)\n  call kernel(u(1), oad_f(u(2)), nu, y)",
    );
    let (mut p, ranges) = program(&[kernel, head], &[]);
    let plan = apply(&mut p, &ranges, true);
    assert_eq!(positions(&plan, "kernel"), vec![2, 3]);
    let text = p.join("\n");
    assert!(
        text.contains("subroutine kernel_oad_s(ul, ur, oad_v_nu, oad_d_nu, oad_v_f, oad_d_f)"),
        "{text}"
    );
    assert!(text.contains("  type(active) :: ul\n  type(active) :: ur\n"));
    // `u` is passed whole-element to type(active) dummies: it stays.
    assert!(
        text.contains("call kernel_oad_s(u(1), u(2), nu%v, nu%d, y%v, y%d)"),
        "{text}"
    );
    assert!(
        text.contains("call kernel_oad_s(u(1), oad_f(u(2)), nu%v, nu%d, y%v, y%d)"),
        "{text}"
    );
}

#[test]
fn which_scalar_declarations_a_dummy_may_split() {
    use crate::active_layout::active_scalar;
    assert_eq!(
        active_scalar("  type(active) :: Ul ! c").map(|d| d.name),
        Some("Ul".to_string())
    );
    assert!(active_scalar("  type(active), intent(in) :: ul").is_none());
    assert!(active_scalar("  type(active) :: ul = active(1, 0)").is_none());
    assert!(active_scalar("  type(active) :: ul, ur").is_none());
    assert!(active_scalar("  type(active) :: u(n)").is_none());
    assert!(active_scalar("  real(8) :: ul").is_none());
}
